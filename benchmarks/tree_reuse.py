"""Self-play with and without tree reuse, side by side: positions a second and network evaluations a position.

    python benchmarks/tree_reuse.py                                  # the default connect_four's own self-play
    python benchmarks/tree_reuse.py --weights RUN/checkpoints/iter_0210.pt --games 32 --rounds 2

With ``TrainConfig.reuse_tree`` the batched self-play keeps the subtree under the move played and tops the next
root up to ``num_searches + 1`` visits instead of searching it afresh (``BatchedMCTS.advance``), so a position
costs fewer network evaluations. This plays the trainer's batched self-play (``selfplay.play_batched``, all
games in flight on one process) with the settings the network was trained with, read from its checkpoint
(``--searches`` overrides the simulations), reuse off and on in turn for ``--rounds`` rounds, the same seeds
both ways, so that both meet the same load on a shared machine. It prints each round's figures and the ratios of
the sums. The games are not the same games both ways: reuse changes the visit counts, so the moves drawn from
them differ.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import Any


def compare(weights: str, games: int, rounds: int, searches: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
    """Rows of ``{"round", "reuse_tree", "positions", "seconds", "network_evaluations", "simulations",
    "reused_roots"}``: for each round, the trainer's batched self-play of ``games`` games without, then with,
    tree reuse."""
    from alphazero_lib.checkpoints import load_checkpoint, load_model
    from alphazero_lib.config import TrainConfig
    from alphazero_lib.selfplay import play_batched
    from alphazero_lib.specs import weights_path

    path = weights_path(weights)
    config = TrainConfig.from_dict(load_checkpoint(path)["train_config"])  # the settings it was trained with
    if searches is not None:
        config = dataclasses.replace(config, search=dataclasses.replace(config.search, num_searches=searches))
    config = dataclasses.replace(config, device="cpu")
    model = load_model(path)
    game = model.game
    rows = []
    for round_ in range(rounds):
        for reuse in (False, True):
            start = time.perf_counter()
            result = play_batched(
                game, model, dataclasses.replace(config, reuse_tree=reuse), games, games, (seed, round_)
            )
            search = result.search
            rows.append(
                {
                    "round": round_,
                    "reuse_tree": reuse,
                    "positions": int(search["positions"]),
                    "seconds": time.perf_counter() - start,
                    "network_evaluations": int(search["network_evaluations"]),
                    "simulations": int(search["simulations"]),
                    "reused_roots": int(search["reused_roots"]),
                }
            )
    return rows


def summary(rows: list[dict[str, Any]]) -> str:
    """The rows as a table, then each setting's sums and the ratios of reuse on to reuse off."""
    lines = [
        f"{'round':>5}  {'reuse':5}  {'positions':>9}  {'seconds':>8}  {'positions/s':>11}  "
        f"{'evaluations/position':>20}  {'reused roots':>12}"
    ]
    for r in rows:
        lines.append(
            f"{r['round']:>5}  {'on' if r['reuse_tree'] else 'off':5}  {r['positions']:>9}  {r['seconds']:>8.1f}  "
            f"{r['positions'] / r['seconds']:>11.2f}  {r['network_evaluations'] / r['positions']:>20.1f}  "
            f"{r['reused_roots']:>12}"
        )
    total = {
        reuse: {
            key: sum(r[key] for r in rows if r["reuse_tree"] is reuse)
            for key in ("positions", "seconds", "network_evaluations")
        }
        for reuse in (False, True)
    }
    speed = {reuse: t["positions"] / t["seconds"] for reuse, t in total.items()}
    cost = {reuse: t["network_evaluations"] / t["positions"] for reuse, t in total.items()}
    lines.append(
        f"all rounds: off {speed[False]:.2f} positions/s, {cost[False]:.1f} evaluations a position; "
        f"on {speed[True]:.2f} positions/s, {cost[True]:.1f} evaluations a position"
    )
    lines.append(
        f"ratio on / off: positions/s x{speed[True] / speed[False]:.2f}, "
        f"evaluations a position x{cost[True] / cost[False]:.2f}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--weights", default="connect_four", help="shipped weights or a checkpoint file")
    parser.add_argument("--games", type=int, default=16, help="games a round and setting, all in flight (16)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of off, then on (2)")
    parser.add_argument("--searches", type=int, default=None, help="simulations a move (default: the recorded)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    rows = compare(args.weights, args.games, args.rounds, args.searches, args.seed)
    print(f"{args.weights}: {args.games} self-play games a round, one process, {args.threads} torch thread(s)")
    print(summary(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
