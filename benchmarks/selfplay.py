"""Serial vs batched self-play throughput, and whether several self-play processes beat one.

    python benchmarks/selfplay.py --game connect_four --preset connect_four_small --games 64
    python benchmarks/selfplay.py --preset connect_four --searches 200 --games 256 --json
    python benchmarks/selfplay.py --processes 2 --games 64   # 2 processes x 32 games, 1 thread each, vs 1 x 64

The first two print the same figures as ``python -m alphazero_lib bench selfplay`` (see alphazero_lib/bench.py).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time
from typing import Any


def _worker(args: tuple[str, str, int | None, int, float, str, int], queue: mp.Queue, barrier: Any) -> None:
    """One self-play process: batched self-play for a fixed time; puts positions searched on ``queue``."""
    game_name, preset, searches, games, seconds, mode, threads = args
    import torch

    torch.set_num_threads(threads)
    from alphazero_lib.bench import BatchedSelfPlay
    from alphazero_lib.config import TrainConfig
    from alphazero_lib.games import make_game
    from alphazero_lib.inference import FastEvaluator
    from alphazero_lib.model import ResNet

    game = make_game(game_name)
    config = TrainConfig.from_preset(preset, device="cpu", **({"num_searches": searches} if searches else {}))
    torch.manual_seed(0)
    model = ResNet(game, config.num_res_blocks, config.num_hidden).eval()
    evaluator = FastEvaluator(model, mode, batch_size=games, cache_dir=None)
    selfplay = BatchedSelfPlay(game, evaluator, config, games, seed=0)
    selfplay.run(0.0)  # warm-up
    selfplay.mcts.reset_stats()
    selfplay.seconds = 0.0
    barrier.wait()  # every process starts timing together
    selfplay.run(seconds)
    queue.put(selfplay.mcts.stats.positions / selfplay.seconds)


def compare_processes(
    game: str, preset: str, searches: int | None, games: int, seconds: float, mode: str, processes: int
) -> dict[str, float]:
    """Positions/s of one process (all threads, then one thread) with ``games`` games vs ``processes`` processes
    with ``games // processes`` games and one thread each."""
    import torch

    threads = torch.get_num_threads()
    rates = {}
    for count, per_games, per_threads in ((1, games, threads), (1, games, 1), (processes, games // processes, 1)):
        ctx = mp.get_context("spawn")
        queue, barrier = ctx.Queue(), ctx.Barrier(count)
        workers = [
            ctx.Process(
                target=_worker, args=((game, preset, searches, per_games, seconds, mode, per_threads), queue, barrier)
            )
            for _ in range(count)
        ]
        for w in workers:
            w.start()
        results = [queue.get() for _ in range(count)]
        for w in workers:
            w.join()
        rates[f"{count} process(es) x {per_games} games x {per_threads} thread(s)"] = round(sum(results), 2)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="connect_four")
    parser.add_argument("--preset", default=None)
    parser.add_argument("--searches", type=int, default=None)
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--reuse-tree", action="store_true")
    parser.add_argument("--processes", type=int, default=0, help="compare N self-play processes with one")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import torch

    if args.threads is not None:
        torch.set_num_threads(args.threads)
    if args.processes:
        preset = args.preset or (args.game if args.game in ("tictactoe", "connect_four") else "connect_four_small")
        start = time.perf_counter()
        rates = compare_processes(args.game, preset, args.searches, args.games, args.seconds, args.mode, args.processes)
        print(
            json.dumps(rates, indent=1) if args.json else "\n".join(f"{k}: {v} positions/s" for k, v in rates.items())
        )
        print(f"({time.perf_counter() - start:.0f}s)")
        return

    from alphazero_lib.bench import format_selfplay, selfplay_benchmark

    result = selfplay_benchmark(
        args.game, args.preset, args.searches, args.games, args.seconds, args.mode, args.reuse_tree
    )
    print(json.dumps(result, indent=1) if args.json else format_selfplay(result))


if __name__ == "__main__":
    main()
