"""Maintainers: an Elo ladder across the shipped iterations of a model (table and PNG).

    python tools/elo_ladder.py connect_four_cpu --games 10 --out docs/elo_connect_four.png

Each shipped iteration plays by its policy alone (so the ladder measures the network, and runs in minutes)
in a round robin with fixed anchors (random, negamax:1), paired random 2-move openings, seats alternating.
"""

from __future__ import annotations

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from alphazero_lib import make_game, make_player
from alphazero_lib.arena import round_robin
from alphazero_lib.pretrained import available, registry


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name")
    parser.add_argument("--games", type=int, default=10, help="games per pair")
    parser.add_argument("--anchors", nargs="*", default=["random", "negamax:1"])
    parser.add_argument("--out", default=None, help="PNG to write")
    args = parser.parse_args()
    game = make_game(**registry()[args.name]["game"])
    iterations = available()[args.name]
    players = [make_player(game, spec, seed=0) for spec in args.anchors]
    players += [make_player(game, f"policy:{args.name}@{i}", seed=0) for i in iterations]
    result = round_robin(game, players, args.games, progress=False, opening_moves=2, seed=0)
    print(result)
    if args.out:
        elo = {name: rating for name, rating, _ in result.table()}
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot(iterations, [elo[f"policy:{args.name}@{i}"] for i in iterations], marker="o", label="policy network")
        for anchor, style in zip(args.anchors, (":", "--", "-."), strict=False):
            ax.axhline(elo[anchor], color="grey", ls=style, label=anchor)
        ax.set_xlabel("training iteration")
        ax.set_ylabel("Elo (mean 0)")
        ax.set_title(f"{args.name}: Elo of the policy network ({args.games} games per pair)", fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.out, dpi=100)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
