"""One AlphaZero move with 1 and 2 torch threads, on a quiet machine and beside a busy neighbour process.

python benchmarks/threads.py [--searches 200] [--repeats 2]

A serial search evaluates one state at a time. Torch's OpenMP threads spin-wait for each other, so when
another process holds a core, two threads can be far slower than one. The benchmark starts and stops the
busy neighbour itself (a Python process spinning on one core) and prints the four timings side by side.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import torch

from alphazero_lib import make_game
from alphazero_lib.config import SearchConfig
from alphazero_lib.players import AlphaZeroPlayer
from alphazero_lib.pretrained import load_pretrained


def one_move_seconds(player: AlphaZeroPlayer, threads: int, repeats: int) -> float:
    """Best of ``repeats`` timings of the opening move on ``threads`` torch threads."""
    player.num_threads = threads
    state = player.game.get_initial_state()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        player.get_action(state, 1)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=200, help="search simulations per move (default 200)")
    parser.add_argument("--repeats", type=int, default=2, help="moves timed per setting, best kept (default 2)")
    args = parser.parse_args()
    game = make_game("connect_four")
    model = load_pretrained("connect_four_cpu")
    player = AlphaZeroPlayer(game, model, SearchConfig(num_searches=args.searches), seed=0)
    one_move_seconds(player, 1, 1)  # warm-up
    rows = {}
    for neighbour in ("quiet", "busy neighbour"):
        spinner = None
        if neighbour != "quiet":
            spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            time.sleep(0.5)
        try:
            rows[neighbour] = [one_move_seconds(player, threads, args.repeats) for threads in (1, 2)]
        finally:
            if spinner is not None:
                spinner.kill()
                spinner.wait()
    title = f"alphazero:connect_four_cpu:{args.searches}, one opening move, best of {args.repeats}"
    print(f"{title} (torch {torch.__version__}, {torch.get_num_threads()} threads by default)")
    print(f"{'':16}{'1 thread':>12}{'2 threads':>12}")
    for neighbour, (one, two) in rows.items():
        print(f"{neighbour:16}{one:>11.2f}s{two:>11.2f}s")


if __name__ == "__main__":
    main()
