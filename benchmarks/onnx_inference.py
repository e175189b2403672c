"""onnxruntime as a CPU inference mode for batched self-play? (issue 51, item 5): the network alone, the cost of a
refresh, and one iteration of batched self-play, onnxruntime beside torch's fastest mode, in one run on this machine.

python benchmarks/onnx_inference.py [--networks 4x64 5x128] [--threads 1 2] [--games N] [--searches N]
                                    [--out benchmarks/results/onnx_inference_DATE]

For each thread count (torch.set_num_threads and onnxruntime's intra_op_num_threads alike) and each shipped network
(4 x 64: ``connect_four_fast`` with its preset; 5 x 128: ``connect_four`` with the preset
``connect_four_fast_5x128``):

- (a) the network alone, positions a second at the batch sizes batched self-play asks for (its slots, and the
  smaller batches at the end of an iteration, when games have finished): ``FastEvaluator``'s torch fp32 modes and
  its mode ``onnx`` (onnxruntime's CPU provider), taking turns, best of ``--repeats`` turns;
- (b) a refresh, what every training iteration pays for new weights: ``FastEvaluator.refresh()`` in torch's fastest
  mode (a new inference copy) and in ``onnx`` (torch.onnx's dynamo export and a new onnxruntime session), taking
  turns; the first export for a network is shown apart (the first in a process is slower: the exporter warms up);
- (c) one iteration of batched self-play (the preset's ``games_per_iteration`` games, ``num_parallel_games`` in
  flight, its searches a move; ``--games``/``--searches`` change them), the same seeds on both sides, each side's
  time including its refresh; the two sides play their moves in turns (A B A B ...), so a change in the machine's
  load hits both alike.

It prints the figures and the ratios onnxruntime / torch (above 1: onnxruntime faster). Needs the ``onnx`` extra.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from alphazero_lib.bench import cpu_model
from alphazero_lib.config import TrainConfig
from alphazero_lib.inference import FastEvaluator, has_fast_bf16
from alphazero_lib.pretrained import load_pretrained
from alphazero_lib.selfplay import BatchedSelfPlay

#: label -> (shipped weights, the preset whose self-play settings an iteration uses)
NETWORKS = {"4x64": ("connect_four_fast", "connect_four_fast"), "5x128": ("connect_four", "connect_four_fast_5x128")}
TORCH_MODES = ("fp32", "fp32_cl", "fp32_fused")  # no bf16: emulated where the CPU has no bf16 units


def network_alone(
    model: torch.nn.Module, onnx: FastEvaluator, batches: list[int], turn: float, repeats: int
) -> dict[int, dict[str, float]]:
    """(a) Positions a second at each batch size: torch's fp32 modes and onnxruntime, taking turns, best turn."""
    game = model.game
    rng = np.random.default_rng(0)
    states = rng.integers(-1, 2, size=(max(batches), game.row_count, game.column_count))
    encoded = game.get_encoded_state(states).astype(np.float32)
    evaluators = {m: FastEvaluator(model, m, batch_size=max(batches), cache_dir=None) for m in TORCH_MODES}
    found: dict[int, dict[str, float]] = {}
    for batch in batches:
        x = encoded[:batch]
        calls = {f"torch {m}": (lambda e=e, x=x: e.evaluate(x)) for m, e in evaluators.items()}
        calls["onnxruntime"] = lambda x=x: onnx.evaluate(x)
        best = dict.fromkeys(calls, 0.0)
        for _ in range(repeats):
            for name, call in calls.items():
                call()  # warm-up
                start, done = time.perf_counter(), 0
                while done == 0 or time.perf_counter() - start < turn:
                    call()
                    done += batch
                best[name] = max(best[name], done / (time.perf_counter() - start))
        found[batch] = {name: round(rate, 1) for name, rate in best.items()}
    return found


def refresh_seconds(torch_side: FastEvaluator, onnx: FastEvaluator, repeats: int) -> dict[str, list[float]]:
    """(b) Seconds a refresh takes: torch's fastest mode and onnxruntime's export + session, taking turns."""
    found: dict[str, list[float]] = {"torch": [], "onnxruntime": []}
    for _ in range(repeats):
        for name, side in (("torch", torch_side), ("onnxruntime", onnx)):
            start = time.perf_counter()
            side.refresh()
            found[name].append(round(time.perf_counter() - start, 3))
    return found


def one_iteration(model: torch.nn.Module, mode: str, config: TrainConfig) -> dict:
    """(c) One iteration's batched self-play on each side, the moves in turns; seconds include each side's refresh."""
    game = model.game
    slots = min(config.num_parallel_games, config.games_per_iteration)
    seed_parts = (config.seed, 1, 5, 0)  # iteration 1, worker 0, as selfplay.worker_shares seeds them
    sides: dict[str, dict[str, Any]] = {}
    for name, side_mode in (("torch", mode), ("onnxruntime", "onnx")):  # each refresh: a new FastEvaluator
        start = time.perf_counter()
        evaluator = FastEvaluator(model, side_mode, batch_size=slots, cache_dir=None)
        refresh = time.perf_counter() - start
        games = BatchedSelfPlay(game, evaluator, config, slots, seed_parts, total=config.games_per_iteration)
        sides[name] = {"games": games, "refresh": refresh, "play": 0.0}
    order = list(sides)
    while not all(side["games"].done for side in sides.values()):
        for name in order:
            side = sides[name]
            if not side["games"].done:
                start = time.perf_counter()
                side["games"].step()
                side["play"] += time.perf_counter() - start
        order.reverse()  # A B, B A, A B ...: neither side always moves first
    result = {}
    for name, side in sides.items():
        stats = side["games"].mcts.stats
        result[name] = {
            "refresh_seconds": round(side["refresh"], 2),
            "selfplay_seconds": round(side["play"], 2),
            "total_seconds": round(side["refresh"] + side["play"], 2),
            "positions": stats.positions,
            "network_evaluations": stats.network_evaluations,
            "network_seconds": round(stats.network_seconds, 2),
            "samples": len(side["games"].samples),
        }
    result["games"], result["slots"], result["searches"] = config.games_per_iteration, slots, config.search.num_searches
    return result


def machine() -> str:
    cpu = cpu_model()
    return f"{cpu}, {os.cpu_count()} cores, bf16 units: {'yes' if has_fast_bf16('cpu') else 'no'}"


def load() -> str:
    return "load average " + " / ".join(f"{x:.2f}" for x in os.getloadavg())


def ratio(onnx: float, torch_value: float) -> str:
    return f"{onnx / torch_value:.2f}" if torch_value else "n/a"


def main(argv: list[str] | None = None) -> int:
    import onnxruntime

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+", default=list(NETWORKS), choices=list(NETWORKS))
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts, each run (1 2)")
    parser.add_argument(
        "--batches",
        type=int,
        nargs="+",
        default=None,
        help="batch sizes for (a) (default: the iteration's slots, 32, 8, 1)",
    )
    parser.add_argument("--games", type=int, default=None, help="games in the iteration (default: the preset's)")
    parser.add_argument("--slots", type=int, default=None, help="games in flight (default: the preset's)")
    parser.add_argument("--searches", type=int, default=None, help="searches a move (default: the preset's)")
    parser.add_argument("--turn", type=float, default=0.5, help="seconds a turn in (a) (0.5)")
    parser.add_argument("--repeats", type=int, default=3, help="turns of each side in (a) and (b) (3)")
    parser.add_argument("--seed", type=int, default=0, help="the self-play seed (0)")
    parser.add_argument("--out", default=None, help="a folder for the record (figures.json, figures.txt)")
    args = parser.parse_args(argv)

    command = " ".join(["python benchmarks/onnx_inference.py", *(sys.argv[1:] if argv is None else argv)])
    record: dict[str, Any] = {
        "machine": machine(),
        "torch": torch.__version__,
        "onnxruntime": onnxruntime.__version__,
        "command": command,
        "runs": [],
    }
    lines = [
        f"machine: {record['machine']}; torch {torch.__version__}, onnxruntime {onnxruntime.__version__}",
        f"at the start: {load()}",
    ]
    print("\n".join(lines), flush=True)

    def say(text: str) -> None:
        lines.append(text)
        print(text, flush=True)

    for threads in args.threads:
        torch.set_num_threads(threads)
        for label in args.networks:
            weights, preset = NETWORKS[label]
            overrides: dict[str, Any] = {"seed": args.seed}
            if args.games:
                overrides["games_per_iteration"] = args.games
            if args.slots:
                overrides["num_parallel_games"] = args.slots
            if args.searches:
                overrides["num_searches"] = args.searches
            config = TrainConfig.from_preset(preset, device="cpu", **overrides)
            slots = min(config.num_parallel_games, config.games_per_iteration)
            batches = args.batches or sorted({slots, min(32, slots), min(8, slots), 1}, reverse=True)
            model = load_pretrained(weights)
            say(
                f"\n== {label} ({weights}), {threads} thread{'s' if threads > 1 else ''} for torch and "
                f"onnxruntime; {load()}"
            )
            start = time.perf_counter()
            onnx = FastEvaluator(model, "onnx", batch_size=slots, cache_dir=None)  # on torch's threads
            first_export = time.perf_counter() - start

            rates = network_alone(model, onnx, batches, args.turn, args.repeats)
            say(f"(a) network alone, positions/s, best of {args.repeats} turns of {args.turn:g} s:")
            say(f"  {'batch':>5}  " + "  ".join(f"{m:>16}" for m in rates[batches[0]]) + "   onnx/fastest torch")
            for batch, row in rates.items():
                fastest = max((m for m in row if m.startswith("torch")), key=row.get)
                cells = "  ".join(f"{rate:>16,.1f}" for rate in row.values())
                say(f"  {batch:>5}  {cells}   {ratio(row['onnxruntime'], row[fastest])} ({fastest})")
            at_slots = rates[slots] if slots in rates else rates[batches[0]]
            mode = max((m for m in at_slots if m.startswith("torch")), key=at_slots.get).split()[1]

            torch_side = FastEvaluator(model, mode, batch_size=slots, cache_dir=None)
            refresh = refresh_seconds(torch_side, onnx, args.repeats)
            say(
                f"(b) a refresh, seconds (torch {mode}: a new inference copy; onnxruntime: export + session), "
                f"{args.repeats} turns: torch {refresh['torch']}, onnxruntime {refresh['onnxruntime']}; "
                f"the first export for this network and thread count took {first_export:.2f} s"
            )

            iteration = one_iteration(model, mode, config)
            t, o = iteration["torch"], iteration["onnxruntime"]
            say(
                f"(c) one iteration: {iteration['games']} games, {iteration['slots']} in flight, "
                f"{iteration['searches']} searches a move, seed {args.seed}, moves in turns"
            )
            say(
                f"  {'':18}{'refresh s':>10}{'self-play s':>12}{'total s':>9}{'positions':>10}"
                f"{'positions/s':>12}{'network s':>10}"
            )
            for name, side in (("torch " + mode, t), ("onnxruntime", o)):
                rate = side["positions"] / side["selfplay_seconds"]
                say(
                    f"  {name:<18}{side['refresh_seconds']:>10.2f}{side['selfplay_seconds']:>12.2f}"
                    f"{side['total_seconds']:>9.2f}{side['positions']:>10}{rate:>12.1f}"
                    f"{side['network_seconds']:>10.2f}"
                )
            gain = t["selfplay_seconds"] - o["selfplay_seconds"]
            cost = o["refresh_seconds"] - t["refresh_seconds"]
            alone = ratio(t["selfplay_seconds"], o["selfplay_seconds"])
            total = ratio(t["total_seconds"], o["total_seconds"])
            say(
                f"  torch / onnxruntime time: self-play alone {alone}, with the refresh {total} (above 1: "
                f"onnxruntime faster); onnxruntime saves {gain:.2f} s of self-play, "
                f"its refresh costs {cost:.2f} s more"
            )
            say(f"  {load()}")
            record["runs"].append(
                {
                    "network": label,
                    "weights": weights,
                    "preset": preset,
                    "threads": threads,
                    "first_export_seconds": round(first_export, 2),
                    "network_alone": rates,
                    "torch_mode": mode,
                    "refresh_seconds": refresh,
                    "iteration": iteration,
                }
            )
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "figures.json").write_text(json.dumps(record, indent=1) + "\n")
        (out / "figures.txt").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
