"""Serial vs batched self-play throughput, and whether several self-play processes beat one.

    python benchmarks/selfplay.py --game connect_four --preset connect_four_small --games 64
    python benchmarks/selfplay.py --preset connect_four --searches 200 --games 256 --json
    python benchmarks/selfplay.py --workers 2 --games 64   # a training iteration: 2 worker processes vs one

The first two print the same figures as ``python -m alphazero_lib bench selfplay`` (see alphazero_lib/bench.py).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any


def compare_workers(
    game_name: str, preset: str, searches: int | None, games: int, mode: str, workers: int
) -> dict[str, Any]:
    """One batched self-play iteration of the trainer (``games`` games, all in flight) with one process on all
    torch threads, then with ``workers`` worker processes (one thread each): positions per second of each, timed
    after a warm-up iteration (which starts the workers and settles the inference mode)."""
    import torch

    from alphazero_lib.config import TrainConfig
    from alphazero_lib.games import make_game
    from alphazero_lib.selfplay import GameStats
    from alphazero_lib.training import build_trainer

    game = make_game(game_name)
    threads = torch.get_num_threads()
    result: dict[str, Any] = {"game": game_name, "preset": preset, "games": games, "threads": threads}
    for count in (1, workers):
        changes = {"num_searches": searches} if searches else {}
        config = TrainConfig.from_preset(
            preset,
            device="cpu",
            games_per_iteration=games,
            num_parallel_games=games,
            self_play="batched",
            num_workers=count,
            inference_mode=mode,
            **changes,
        )
        trainer = build_trainer(game, config, progress=False)
        try:
            trainer.self_play_iteration()  # warm-up
            trainer.game_stats = GameStats()
            start = time.perf_counter()
            trainer.self_play_iteration()
            seconds = time.perf_counter() - start
        finally:
            trainer.close()
        key = f"{count} worker(s)" if count > 1 else f"1 process x {threads} thread(s)"
        result[key] = {
            "seconds": round(seconds, 2),
            "positions_per_second": round(trainer.game_stats.positions / seconds, 2),
        }
    one, many = (result[k]["positions_per_second"] for k in list(result)[-2:])
    result["ratio"] = round(many / one, 3)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="connect_four")
    parser.add_argument("--preset", default=None)
    parser.add_argument("--searches", type=int, default=None)
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=60.0, help="the whole benchmark's time (as bench's)")
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (bench's default: 1)")
    parser.add_argument("--reuse-tree", action="store_true")
    parser.add_argument("--workers", type=int, default=0, help="time a training self-play iteration: N workers vs one")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import torch

    if args.threads is not None:
        torch.set_num_threads(args.threads)
    if args.workers:
        preset = args.preset or (args.game if args.game in ("tictactoe", "connect_four") else "connect_four_small")
        result = compare_workers(args.game, preset, args.searches, args.games, args.mode, args.workers)
        if args.json:
            print(json.dumps(result, indent=1))
        else:
            print(f"{args.game} ({preset}), one self-play iteration of {args.games} games:")
            for key, value in result.items():
                if isinstance(value, dict):
                    print(f"  {key}: {value['positions_per_second']} positions/s ({value['seconds']} s)")
            print(f"  ratio {args.workers} workers / one process: {result['ratio']}")
        return

    from alphazero_lib.bench import format_selfplay, selfplay_benchmark

    result = selfplay_benchmark(
        args.game,
        args.preset,
        args.searches,
        args.games,
        args.seconds,
        args.mode,
        args.reuse_tree,
        threads=1 if args.threads is None else args.threads,
    )
    print(json.dumps(result, indent=1) if args.json else format_selfplay(result))


if __name__ == "__main__":
    main()
