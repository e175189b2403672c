"""Playout cap randomisation in batched self-play: what the cheap moves save, side by side in one run.

    python benchmarks/playout_cap.py                                  # the shipped connect_four network
    python benchmarks/playout_cap.py --weights RUN/latest.pt --games 64 --searches 400 --fraction 0.25 --cheap 48

Plays the same number of games three ways with one batched search (``--games`` games in flight, one torch thread,
the network behind ``FastEvaluator`` as the trainer's self-play has it): every move searched fully (no cap); the
cap as the library draws it, each game on each move its own draw; and one draw a step for all games in flight
(rebuilt here). The games are searched in lockstep, so a step in which any game searches fully runs as many
simulations as a full one; the last rule avoids that. Prints games and recorded positions per second and the ratios
to no cap. On 2026-11-27 (commit 148ee68), 2-core AMD EPYC beside a training run, 64 games, 400 / 48 simulations,
a quarter full: 2.75x the games a second with a draw a game, 2.71x with a draw a step (the steps' small batches cost
little), so the library keeps its draw a game.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def run(
    weights: str, games: int, searches: int, fraction: float, cheap: int, rule: str, inference: str
) -> dict[str, float]:
    import torch

    from alphazero_lib.config import TrainConfig
    from alphazero_lib.games import ConnectFour
    from alphazero_lib.inference import FastEvaluator
    from alphazero_lib.selfplay import BatchedSelfPlay
    from alphazero_lib.specs import resolve_weights

    torch.set_num_threads(1)
    game = ConnectFour()
    model = resolve_weights(game, weights)
    capped = rule != "no cap"
    config = TrainConfig.from_dict(
        {
            "num_searches": searches,
            "games_per_iteration": games,
            "self_play": "batched",
            "temperature_moves": 12,
            "dirichlet_epsilon": 0.25,
            "dirichlet_alpha": 1.0,
            "full_search_fraction": fraction if capped else 1.0,
            "cheap_searches": cheap,
            "seed": 0,
        }
    )
    evaluator = FastEvaluator(model, inference, batch_size=games)  # as the trainer's self-play evaluates
    batched = BatchedSelfPlay(game, evaluator, config, games, (0, 1), total=games)
    if rule == "a draw a step":  # the alternative: one draw for every game in flight
        schedule = batched.schedule

        def per_step(count: int) -> np.ndarray:
            return np.full(count, schedule.cap_rng.random() < fraction)

        schedule.full_searches = per_step
    start = time.perf_counter()
    while not batched.done:
        batched.step()
    seconds = time.perf_counter() - start
    result = batched.result()
    return {
        "seconds": seconds,
        "games": result.games.games,
        "recorded": len(result.samples),
        "simulations": result.search["simulations"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--weights", default="connect_four")
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--fraction", type=float, default=0.25)
    parser.add_argument("--cheap", type=int, default=32)
    parser.add_argument("--inference", default="auto", help="FastEvaluator's mode (auto: as the trainer chooses)")
    args = parser.parse_args()
    rules = ("no cap", "a draw a game", "a draw a step")
    print(
        f"{args.games} games in flight, {args.searches} simulations a full search, cap: {args.fraction:g} full, "
        f"{args.cheap} simulations otherwise; one torch thread, inference {args.inference}"
    )
    print(f"{'rule':16}{'seconds':>9}{'games/s':>9}{'recorded/s':>12}{'simulations':>13}{'games/s vs no cap':>19}")
    base = None
    for rule in rules:
        r = run(args.weights, args.games, args.searches, args.fraction, args.cheap, rule, args.inference)
        games_per_second = r["games"] / r["seconds"]
        base = base or games_per_second
        print(
            f"{rule:16}{r['seconds']:>9.1f}{games_per_second:>9.3f}{r['recorded'] / r['seconds']:>12.1f}"
            f"{r['simulations']:>13,}{games_per_second / base:>18.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
