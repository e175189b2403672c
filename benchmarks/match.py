"""A match played one game at a time and side by side (``play_match(..., batched=True)``), timed in one run.

python benchmarks/match.py [--games 20] [--searches 25] [--iterations 1 4 12 26 52]

The match is notebook 6's: the shipped Connect Four network at several training iterations, AlphaZero search
with ``--searches`` simulations, against negamax depth 2, ``--games`` games each from 2-move random openings.
Both ways play the same openings and seats; the scores may differ a little (the random tie-breaks are drawn in
another order, and a batched network call can differ in the last bits). One torch thread throughout.
"""

from __future__ import annotations

import argparse
import time

import torch

from alphazero_lib import make_game, make_player
from alphazero_lib.arena import play_match
from alphazero_lib.config import SearchConfig
from alphazero_lib.players import AlphaZeroPlayer
from alphazero_lib.pretrained import load_pretrained


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--searches", type=int, default=25)
    parser.add_argument("--iterations", type=int, nargs="+", default=[1, 4, 12, 26, 52])
    args = parser.parse_args()
    torch.set_num_threads(1)
    game = make_game("connect_four")
    models = {i: load_pretrained("connect_four_cpu", i) for i in args.iterations}
    seconds = {}
    for batched in (False, True):
        way = "side by side" if batched else "one at a time"
        start = time.perf_counter()
        for iteration, model in models.items():
            player = AlphaZeroPlayer(game, model, SearchConfig(num_searches=args.searches), seed=0)
            opponent = make_player(game, "negamax:2", seed=1)
            result = play_match(game, player, opponent, args.games, False, opening_moves=2, seed=0, batched=batched)
            print(f"{way:>13}: iteration {iteration:>2}: +{result.wins} ={result.draws} -{result.losses}", flush=True)
        seconds[way] = time.perf_counter() - start
        print(f"{way:>13}: {seconds[way]:.1f} s for {len(models) * args.games} games", flush=True)
    ratio = seconds["one at a time"] / seconds["side by side"]
    print(f"side by side is {ratio:.2f}x as fast as one game at a time")


if __name__ == "__main__":
    main()
