"""One iteration of batched self-play three ways, side by side in one run: one process, W local worker processes
(``train --workers W``) and W Ray actors on a local Ray instance (``train --ray --workers W``).

Each way plays the same iteration twice: the first time includes starting the workers (spawned processes, or Ray
and its actors), the second is the steady state a long run sees. All three play the same games (the same seeds; the
workers and the actors the same shares), so the positions per second compare like with like. It then measures the
learner (one iteration's training on the driver) and writes down what the per-actor rate means for N machines.

    python benchmarks/ray_selfplay.py --games 64 --workers 2            # Connect Four, the shipped run's settings

Needs the ``distributed`` extra (``pip install -e ".[distributed]"``).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any


def timed(play: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    result = play()
    return result, time.perf_counter() - start


def compare(game_name: str, preset: str, games: int, workers: int, searches: int | None, mode: str) -> dict[str, Any]:
    import dataclasses

    import numpy as np
    import torch

    from alphazero_lib.config import TrainConfig
    from alphazero_lib.executors import RaySelfPlay, wait_for_actors
    from alphazero_lib.games import make_game
    from alphazero_lib.pretrained import load_pretrained
    from alphazero_lib.selfplay import play_batched
    from alphazero_lib.training import build_trainer, minibatches

    game = make_game(game_name)
    changes = {"num_searches": searches} if searches else {}
    config = TrainConfig.from_preset(
        preset,
        device="cpu",
        self_play="batched",
        games_per_iteration=games,
        num_parallel_games=games,
        num_workers=workers,
        inference_mode=mode,
        **changes,
    )
    model = load_pretrained(game_name, game=game).eval()  # real game lengths: the shipped network plays
    threads = torch.get_num_threads()
    result: dict[str, Any] = {
        "game": repr(game),
        "preset": preset,
        "games": games,
        "searches": config.search.num_searches,
        "inference_mode": mode,
        "workers": workers,
        "cpu_threads": threads,
    }

    def record(name: str, first: float, second: float, positions: int) -> None:
        result[name] = {
            "first_iteration_seconds": round(first, 2),
            "steady_iteration_seconds": round(second, 2),
            "startup_seconds": round(first - second, 2),
            "positions": positions,
            "positions_per_second": round(positions / second, 2),
        }

    # one process, all torch threads
    one = dataclasses.replace(config, num_workers=1)
    outcome, first = timed(lambda: play_batched(game, model, one, games, games, (one.seed, 0)))
    outcome, second = timed(lambda: play_batched(game, model, one, games, games, (one.seed, 0)))
    record("1 process", first, second, outcome.games.positions)

    # W local worker processes (spawned once, kept for the run)
    trainer = build_trainer(game, config, progress=False)
    trainer.model.load_state_dict(model.state_dict())
    try:
        samples, first = timed(trainer.self_play_iteration)
        positions = trainer.game_stats.positions
        samples, second = timed(trainer.self_play_iteration)
    finally:
        trainer.close()
    record(f"{workers} local workers", first, second, positions)

    # W Ray actors on a local Ray instance (started here, as train --ray does without an address)
    start = time.perf_counter()
    executor = RaySelfPlay(None, workers)
    wait_for_actors(executor)
    ray_start = time.perf_counter() - start
    try:
        outcome, first = timed(lambda: executor.play(game, config, model, 0))
        outcome, second = timed(lambda: executor.play(game, config, model, 0))
    finally:
        executor.close()
    record(f"{workers} Ray actors", first + ray_start, second, outcome.games.positions)
    result[f"{workers} Ray actors"]["ray_init_and_actors_seconds"] = round(ray_start, 2)
    assert len(outcome.samples) == len(samples), "Ray and the local workers played different games"

    # the learner: one iteration's training on the driver, with the preset's epochs and replay window
    states = torch.as_tensor(np.stack([s for s, _, _ in samples]))
    policies = torch.as_tensor(np.stack([p for _, p, _ in samples]))
    values = torch.as_tensor(np.array([v for _, _, v in samples], dtype=np.float32)).unsqueeze(1)
    learner = build_trainer(game, config, progress=False)
    rng = np.random.default_rng(0)
    learner.model.train()
    start, trained = time.perf_counter(), 0
    for batch in minibatches(len(samples), config.batch_size, rng):
        out_policy, out_value = learner.model(states[batch])
        loss = torch.nn.functional.cross_entropy(out_policy, policies[batch])
        loss = loss + torch.nn.functional.mse_loss(out_value, values[batch])
        learner.optimizer.zero_grad()
        loss.backward()
        learner.optimizer.step()
        trained += len(batch)
    train_rate = trained / (time.perf_counter() - start)
    learner_seconds = config.num_epochs * config.replay_window * len(samples) / train_rate
    result["learner"] = {
        "samples_per_iteration": len(samples),
        "training_samples_per_second": round(train_rate, 1),
        "seconds_per_iteration": round(learner_seconds, 1),
        "epochs": config.num_epochs,
        "replay_window": config.replay_window,
    }

    # what this says about N machines, each with as many actors as this one ran
    ray = result[f"{workers} Ray actors"]
    per_actor_games = games / ray["steady_iteration_seconds"] / workers
    self_play_one_machine = ray["steady_iteration_seconds"]
    result["estimate"] = {
        "games_per_hour_per_actor": round(per_actor_games * 3600),
        "games_per_hour_per_machine": round(per_actor_games * 3600 * workers),
        "machines_where_learner_time_equals_self_play_time": round(self_play_one_machine / learner_seconds, 1),
    }
    for name in ("1 process", f"{workers} local workers"):
        result[f"ratio {workers} Ray actors / {name}"] = round(
            ray["positions_per_second"] / result[name]["positions_per_second"], 3
        )
    return result


def format_result(result: dict[str, Any]) -> str:
    workers = result["workers"]
    lines = [
        f"{result['game']}, preset {result['preset']} ({result['searches']} searches, inference "
        f"{result['inference_mode']}), {result['games']} games, {result['cpu_threads']} CPU threads",
    ]
    for name in ("1 process", f"{workers} local workers", f"{workers} Ray actors"):
        r = result[name]
        lines.append(
            f"  {name:<16} steady {r['steady_iteration_seconds']:7.2f} s  {r['positions_per_second']:8.2f} positions/s"
            f"   first iteration {r['first_iteration_seconds']:7.2f} s (start-up {r['startup_seconds']:.2f} s)"
        )
    for key, value in result.items():
        if key.startswith("ratio"):
            lines.append(f"  {key}: {value}")
    learner, estimate = result["learner"], result["estimate"]
    lines += [
        f"  learner: {learner['training_samples_per_second']:.0f} samples/s -> "
        f"{learner['seconds_per_iteration']:.1f} s an iteration ({learner['epochs']} epochs over "
        f"{learner['replay_window']} x "
        f"{learner['samples_per_iteration']} samples)",
        f"  estimate: {estimate['games_per_hour_per_actor']:,} games/hour per actor, "
        f"{estimate['games_per_hour_per_machine']:,} per machine like this one; with N machines self-play of an "
        f"iteration takes 1/N of the time; the learner becomes the bottleneck from about "
        f"{estimate['machines_where_learner_time_equals_self_play_time']} machines",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="connect_four")
    parser.add_argument("--preset", default="connect_four_cpu")
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--searches", type=int, default=None)
    parser.add_argument("--mode", default="fp32", help="inference mode of every side (default fp32)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = compare(args.game, args.preset, args.games, args.workers, args.searches, args.mode)
    print(json.dumps(result, indent=1) if args.json else format_result(result))


if __name__ == "__main__":
    main()
