"""Throughput benchmarks (``python -m alphazero_lib bench ...``): figures measured side by side in one run.

``selfplay_benchmark`` measures, on one network and one search budget: the network alone in every inference
mode at the batch size used, serial self-play (``AlphaMCTS``, one state per network call, as the serial trainer
plays), batched self-play (``BatchedMCTS`` over ``num_games`` games with a ``FastEvaluator``), their ratio,
network evaluations per position and the share of batched self-play's wall time spent outside the network.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import torch

from alphazero_lib.config import PRESETS, TrainConfig
from alphazero_lib.games import make_game
from alphazero_lib.selfplay import BatchedSelfPlay, SerialSelfPlay


def run_for(step: Callable[[], Any], seconds: float) -> float:
    """Call ``step()`` for about ``seconds`` (at least once); returns the seconds taken."""
    start, steps = time.perf_counter(), 0
    while time.perf_counter() - start < seconds or steps == 0:
        step()
        steps += 1
    return time.perf_counter() - start


def selfplay_benchmark(
    game_name: str = "connect_four",
    preset: str | None = None,
    num_searches: int | None = None,
    num_games: int = 64,
    seconds: float = 15.0,
    mode: str = "auto",
    reuse_tree: bool = False,
    seed: int = 0,
    rounds: int = 3,
) -> dict[str, Any]:
    """Serial vs batched self-play on one (untrained, seeded) ``ResNet``; a dict of the figures.

    ``preset`` gives the network size and search settings (default: the game's preset, else
    ``connect_four_small``); ``num_searches`` overrides the preset's. Each self-play side runs ~``seconds`` in all,
    in ``rounds`` alternating turns.
    """
    from alphazero_lib.inference import MODES, FastEvaluator, evaluate
    from alphazero_lib.model import ResNet
    from alphazero_lib.utils import seed_everything

    game = make_game(game_name)
    preset = preset or (game_name if game_name in PRESETS else "connect_four_small")
    overrides = {"num_searches": num_searches} if num_searches else {}  # a search field, given flat
    config = TrainConfig.from_preset(preset, device="cpu", **overrides)
    seed_everything(seed)
    model = ResNet(game, config.num_res_blocks, config.num_hidden).eval()

    # the network alone, in every mode, at the batch size batched self-play uses
    evaluator = FastEvaluator(model, mode, batch_size=num_games)
    candidates = [m for m in MODES if m != "compile"]
    network = {m: round(r, 1) for m, r in evaluator.measure(candidates).items()}
    example = evaluator._example_batch()[:1]
    evaluate(model, example)
    start, calls = time.perf_counter(), 0
    while time.perf_counter() - start < 1.0:
        evaluate(model, example)
        calls += 1
    single = calls / (time.perf_counter() - start)

    # the trainers' own self-play (alphazero_lib.selfplay), every finished game replaced at once; warm both
    # paths up, then time them in alternating rounds (so that a change in the machine's load hits both)
    config = dataclasses.replace(config, reuse_tree=reuse_tree)
    serial = SerialSelfPlay(game, model, config, (seed,))
    batched = BatchedSelfPlay(game, evaluator, config, num_games, (seed,), total=None, reuse_tree=reuse_tree)
    serial.step()
    batched.step()
    serial_search = dict(serial.result.search)
    batched.mcts.reset_stats()
    serial_seconds = batched_seconds = 0.0
    for _ in range(rounds):
        serial_seconds += run_for(serial.step, seconds / rounds)
        batched_seconds += run_for(batched.step, seconds / rounds)
    stats = batched.mcts.stats
    serial_positions = serial.result.search["positions"] - serial_search["positions"]
    serial_evaluations = serial.result.search["network_evaluations"] - serial_search["network_evaluations"]

    serial_rate = serial_positions / serial_seconds
    batched_rate = stats.positions / batched_seconds
    return {
        "game": repr(game),
        "preset": preset,
        "network": f"ResNet {config.num_res_blocks} x {config.num_hidden}",
        "num_searches": config.search.num_searches,
        "num_games": num_games,
        "torch_threads": torch.get_num_threads(),
        "inference_mode": evaluator.mode,
        "network_evals_per_second": {"fp32 batch 1 (serial path)": round(single, 1), **network},
        "serial_positions_per_second": round(serial_rate, 3),
        "serial_evaluations_per_position": round(serial_evaluations / serial_positions, 2),
        "batched_positions_per_second": round(batched_rate, 3),
        "batched_evaluations_per_position": round(stats.evaluations_per_position, 2),
        "speedup": round(batched_rate / serial_rate, 2),
        "batched_share_outside_network": round(1 - stats.network_seconds / batched_seconds, 4),
        "batched_simulations_per_second": round(stats.simulations / batched_seconds, 1),
        "reuse_tree": reuse_tree,
        "seconds": {"serial": round(serial_seconds, 2), "batched": round(batched_seconds, 2), "rounds": rounds},
    }


def format_selfplay(result: dict[str, Any]) -> str:
    """The benchmark's figures as a few readable lines."""
    lines = [
        f"{result['game']}, {result['network']} (preset {result['preset']}), {result['num_searches']} searches, "
        f"{result['num_games']} games in flight, {result['torch_threads']} torch threads",
        f"network alone, evaluations/s at batch {result['num_games']}:",
    ]
    for mode, rate in result["network_evals_per_second"].items():
        chosen = "  <- batched self-play uses this" if mode == result["inference_mode"] else ""
        lines.append(f"  {mode:<28} {rate:>10,.0f}{chosen}")
    lines += [
        f"serial self-play:  {result['serial_positions_per_second']:>9.2f} positions/s "
        f"({result['serial_evaluations_per_position']:.1f} network evaluations per position)",
        f"batched self-play: {result['batched_positions_per_second']:>9.2f} positions/s "
        f"({result['batched_evaluations_per_position']:.1f} network evaluations per position"
        f"{', tree reuse' if result['reuse_tree'] else ''})",
        f"speed-up batched / serial: {result['speedup']:.1f}x",
        f"batched self-play wall time outside the network: {result['batched_share_outside_network']:.1%}",
    ]
    return "\n".join(lines)
