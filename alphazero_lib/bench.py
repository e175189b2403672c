"""Throughput benchmarks (``python -m alphazero_lib bench ...``): figures measured side by side in one run.

``selfplay_benchmark`` measures, on one network and one search budget: the network alone in every inference
mode at the batch size used, serial self-play (``AlphaMCTS``, one state per network call, as the serial trainer
plays), batched self-play (``BatchedMCTS`` over ``num_games`` games with a ``FastEvaluator``), their ratio,
network evaluations per position and the share of batched self-play's wall time spent outside the network.

The whole run keeps to a time budget (``seconds``) and shows a progress bar over it. It runs on ``threads`` torch
threads (default 1, as the players do: one state at a time runs best on one thread, and a second thread
spin-waits when another process holds a core) and reports them with the machine's load, since a busy machine
gives lower figures.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable
from typing import Any

from alphazero_lib.config import PRESETS, TrainConfig
from alphazero_lib.games import make_game
from alphazero_lib.selfplay import BatchedSelfPlay, SerialSelfPlay

#: The share of the time budget spent timing the network alone (the rest: self-play, serial and batched).
NETWORK_SHARE = 0.2
#: A self-play move's time over its network time, at most (the search's own work; measured 2-25% here).
SEARCH_OVERHEAD = 1.5


class Budget:
    """A run's time budget: the seconds left, and a progress bar (on stderr) over the seconds spent."""

    def __init__(self, seconds: float, progress: bool = True, spent_before: float = 0.0) -> None:
        from tqdm.auto import tqdm

        self.seconds, self.start = float(seconds), time.perf_counter() - spent_before
        self.bar = tqdm(
            total=max(1, round(self.seconds)),
            unit="s",
            disable=not progress,
            leave=False,
            bar_format="{desc}: {bar} {n_fmt}/{total_fmt} s",
        )

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> float:
        return self.seconds - self.elapsed()

    def phase(self, name: str) -> None:
        self.bar.set_description_str(name)
        self.tick()

    def tick(self) -> None:
        """Move the bar to the seconds spent (at most the budget; tqdm redraws a few times a second at most)."""
        shown = min(int(self.elapsed()), self.bar.total)
        if shown > self.bar.n:
            self.bar.update(shown - self.bar.n)

    def close(self) -> None:
        self.bar.close()


def run_for(step: Callable[[], Any], seconds: float, tick: Callable[[], None] | None = None) -> float:
    """Call ``step()`` while the next call should end within ``seconds`` (at the mean time a call took so far;
    at least one call); returns the seconds taken. ``tick()`` is called after each call."""
    start, steps = time.perf_counter(), 0
    while steps == 0 or (time.perf_counter() - start) * (steps + 1) / steps <= seconds:
        step()
        steps += 1
        if tick is not None:
            tick()
    return time.perf_counter() - start


def calls_per_second(call: Callable[[], Any], seconds: float, tick: Callable[[], None] | None = None) -> float:
    """How often ``call()`` ran per second when called for about ``seconds`` (at least once)."""
    count = 0

    def step() -> None:
        nonlocal count
        call()
        count += 1

    taken = run_for(step, seconds, tick)
    return count / taken


def cpu_model() -> str:
    """The CPU's model name as ``/proc/cpuinfo`` gives it, else what ``platform`` says: for a benchmark's record."""
    import platform
    from pathlib import Path

    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def device_name(device: Any) -> str:
    """``"cpu"``, or the GPU's type and name (``"cuda: NVIDIA H200"``): for a benchmark's record."""
    import torch

    if device.type == "cuda":
        return f"cuda: {torch.cuda.get_device_name(device)}"
    return device.type


def machine_load() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (runnable processes), or None where the OS has none (Windows)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def selfplay_benchmark(
    game_name: str = "connect_four",
    preset: str | None = None,
    num_searches: int | None = None,
    num_games: int = 64,
    seconds: float = 60.0,
    mode: str = "auto",
    reuse_tree: bool = False,
    seed: int = 0,
    rounds: int = 3,
    threads: int | None = 1,
    progress: bool = True,
    spent_before: float = 0.0,
    device: str = "cpu",
) -> dict[str, Any]:
    """Serial vs batched self-play on one (untrained, seeded) ``ResNet``; a dict of the figures.

    ``preset`` gives the network size and search settings (default: the game's preset, else
    ``connect_four_small``); ``num_searches`` overrides the preset's. The run takes about ``seconds`` in all,
    building the network included, and ``spent_before`` seconds already spent before this call (the command line
    passes the time since it started, so that loading torch counts too): a fifth of what is left then times
    the network alone at batch 1 and in ``mode`` (``"auto"``: every mode ``FastEvaluator`` would choose from,
    taking turns), the rest is shared by serial and batched self-play in ``rounds`` alternating turns after one
    warm-up move each (fewer rounds where a move of each does not fit; none, and the warm-up moves timed, where not
    one does). The searches per move are cut where two moves of each side would not fit. A call under way always
    finishes, so the run ends within ``seconds`` plus one network call of each kind timed and one move of each
    side. ``threads``: torch threads for all of it (None: torch's setting). ``device``: where the network runs
    (``"auto"``: a CUDA GPU when there is one); the search trees stay in numpy on the CPU either way, so on a GPU
    the share of the time spent outside the network says how much the tree holds self-play back.
    """
    import torch

    from alphazero_lib.inference import MODES, FastEvaluator, auto_modes, evaluate, has_fast_bf16
    from alphazero_lib.model import ResNet
    from alphazero_lib.utils import cpu_threads, resolve_device, seed_everything

    if mode != "auto" and mode not in MODES:
        raise ValueError(f"unknown inference mode {mode!r}; modes: {['auto', *MODES]}")
    device = resolve_device(device)
    budget = Budget(seconds, progress, spent_before)  # building the network counts too
    try:
        budget.phase("building the network")
        game = make_game(game_name)
        preset = preset or (game_name if game_name in PRESETS else "connect_four_small")
        overrides = {"num_searches": num_searches} if num_searches else {}  # a search field, given flat
        config = TrainConfig.from_preset(preset, device=str(device), **overrides)
        seed_everything(seed)
        model = ResNet(game, config.num_res_blocks, config.num_hidden).to(device).eval()
        load_before = machine_load()
        with cpu_threads(model, threads):
            used_threads = torch.get_num_threads()
            # the network alone at the batch size batched self-play uses, in the mode asked for (auto: each mode
            # FastEvaluator would choose from), and at batch 1 (the serial path); the modes take turns, so that a
            # change in the machine's load hits them all alike. Auto leaves bf16 out on a CPU without bfloat16
            # units (emulated, one call can take seconds), as FastEvaluator does; compile and onnx only when asked
            # for (their refresh compiles or exports again: seconds, and the budget may be under a second).
            budget.phase("network alone")
            fast_bf16 = has_fast_bf16(device)
            if mode == "auto":
                modes = auto_modes(device)
                skipped = [m for m in MODES if m.startswith("bf16") and m not in modes]
            else:
                modes, skipped = [mode], []
            evaluators = {m: FastEvaluator(model, m, batch_size=num_games) for m in modes}
            batch = evaluators[modes[0]]._example_batch()
            calls: dict[str, Callable[[], Any]] = {m: (lambda e=e: e.evaluate(batch)) for m, e in evaluators.items()}
            single = "fp32 batch 1 (serial path)"
            calls[single] = lambda: evaluate(model, batch[:1])
            for call in calls.values():  # one untimed call each: a GPU's first call of a kind starts CUDA and picks
                call()  # its kernels (seconds), which the first mode's figure took in before (82 evaluations/s)
            budget.tick()
            best, spent = dict.fromkeys(calls, 0.0), dict.fromkeys(calls, 0.0)
            turn = NETWORK_SHARE * max(0.0, budget.left()) / (3 * len(calls))
            for i in range(3):
                for name, call in calls.items():
                    if i and (spent[name] >= 2 * turn or budget.left() <= 0):  # one call of each at least
                        continue
                    start, size = time.perf_counter(), 1 if name == single else num_games
                    best[name] = max(best[name], size * calls_per_second(call, turn, budget.tick))
                    spent[name] += time.perf_counter() - start
            network = {m: round(r, 1) for m, r in best.items() if m != single}
            cached = None
            if mode == "auto":  # the fastest of the modes FastEvaluator("auto") would choose from, recorded for it
                mode = max(network, key=network.get)
                cached = evaluators[mode].remember(mode)
            evaluator = evaluators[mode]

            # a move of each side is played twice at least (a warm-up and one timed round): where the preset's
            # searches would not fit into what is left, cut them (the default Connect Four preset's 9 x 128
            # network and 600 searches take about a minute a move for 64 games on one thread), and say so
            searches_asked = config.search.num_searches
            batched_rate = network[mode]
            pair = SEARCH_OVERHEAD * searches_asked * (num_games / batched_rate + 1 / best[single])  # seconds
            fit = int(searches_asked * budget.left() / (2 * pair))
            if fit < searches_asked:
                cut = {**overrides, "num_searches": max(1, fit)}
                config = TrainConfig.from_preset(preset, device=str(device), **cut)

            # the trainers' own self-play (alphazero_lib.selfplay), every finished game replaced at once; warm both
            # paths up with one move, then time them in alternating rounds within what is left of the budget
            config = dataclasses.replace(config, reuse_tree=reuse_tree)
            serial = SerialSelfPlay(game, model, config, (seed,))
            batched = BatchedSelfPlay(game, evaluator, config, num_games, (seed,), total=None, reuse_tree=reuse_tree)
            budget.phase("warm-up")
            serial_search = dict(serial.result.search)
            serial_seconds, batched_seconds = run_for(serial.step, 0.0), run_for(batched.step, 0.0)
            budget.tick()
            # each round plays a move of each side at least; the sides share a round's time evenly where a move
            # of each fits into its half. Where not even one round fits (the network ran slower in self-play than
            # alone: two threads on a busy machine), the warm-up moves are the figures.
            left = budget.left()
            rounds = min(rounds, int(max(0.0, left) / (serial_seconds + batched_seconds)))
            if rounds:
                serial_search = dict(serial.result.search)
                batched.mcts.reset_stats()
                batched_share = max(left / (2 * rounds), batched_seconds)
                serial_share = max(left / rounds - batched_share, serial_seconds)
                serial_seconds = batched_seconds = 0.0
            for i in range(rounds):
                budget.phase(f"serial self-play {i + 1}/{rounds}")
                serial_seconds += run_for(serial.step, serial_share, budget.tick)
                budget.phase(f"batched self-play {i + 1}/{rounds}")
                batched_seconds += run_for(batched.step, batched_share, budget.tick)
    finally:
        budget.close()
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
        "searches_asked": searches_asked,
        "seconds_for_searches_asked": round(2 * pair / (1 - NETWORK_SHARE), 1),
        "num_games": num_games,
        "device": device_name(device),
        "torch_threads": used_threads,
        "cpu_count": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": machine_load(),
        "inference_mode": mode,
        "inference_mode_cached_in": None if cached is None else str(cached),
        "network_evals_per_second": {single: round(best[single], 1), **network},
        "modes_not_measured": skipped,
        "bf16_units": fast_bf16,
        "serial_positions_per_second": round(serial_rate, 3),
        "serial_evaluations_per_position": round(serial_evaluations / max(serial_positions, 1), 2),
        "batched_positions_per_second": round(batched_rate, 3),
        "batched_evaluations_per_position": round(stats.evaluations_per_position, 2),
        "speedup": round(batched_rate / serial_rate, 2) if serial_rate else None,
        "batched_share_outside_network": round(1 - stats.network_seconds / batched_seconds, 4),
        "batched_simulations_per_second": round(stats.simulations / batched_seconds, 1),
        "reuse_tree": reuse_tree,
        "seconds": {
            "budget": seconds,
            "wall": round(budget.elapsed(), 2),
            "serial": round(serial_seconds, 2),
            "batched": round(batched_seconds, 2),
            "rounds": rounds,
        },
    }


def format_load(result: dict[str, Any]) -> str:
    """The threads and the machine's load, in words: what the figures were measured beside."""
    threads = result["torch_threads"]
    cores = result["cpu_count"]
    text = f"{threads} torch thread{'s' if threads != 1 else ''} on {cores} CPU cores"
    before, after = result["load_average_before"], result["load_average_after"]
    if before is None:
        return text + "; machine load unknown (no load average on this OS)"
    text += f"; machine load (1-minute average) {before[0]:.2f} before, {after[0]:.2f} after"
    if cores and before[0] + threads > cores:
        text += " - other work was running: these figures are lower than on a quiet machine"
    return text


def _processor(result: dict[str, Any]) -> str:
    return "GPU" if result.get("device", "cpu").startswith("cuda") else "CPU"


def format_selfplay(result: dict[str, Any]) -> str:
    """The benchmark's figures as a few readable lines."""
    on = "" if result.get("device", "cpu") == "cpu" else f", network on {result['device']}"
    lines = [
        f"{result['game']}, {result['network']} (preset {result['preset']}), {result['num_searches']} searches, "
        f"{result['num_games']} games in flight{on}",
        format_load(result),
    ]
    if result["num_searches"] < result["searches_asked"]:
        lines.append(
            f"searches per move cut from {result['searches_asked']} to {result['num_searches']} to fit the "
            f"{result['seconds']['budget']:g} s budget (about --seconds {result['seconds_for_searches_asked']:.0f} "
            f"keeps {result['searches_asked']})"
        )
    lines.append(f"network alone, evaluations/s at batch {result['num_games']}:")
    for mode, rate in result["network_evals_per_second"].items():
        chosen = "  <- batched self-play uses this" if mode == result["inference_mode"] else ""
        if chosen and result.get("inference_mode_cached_in"):
            chosen += f" (recorded for --inference-mode auto in {result['inference_mode_cached_in']})"
        lines.append(f"  {mode:<28} {rate:>10,.0f}{chosen}")
    if result["modes_not_measured"]:
        lines.append(
            f"  not measured: {', '.join(result['modes_not_measured'])} (this {_processor(result)} has no bfloat16 "
            "units; emulated bfloat16 is slower than float32: --mode bf16_fused measures it)"
        )
    elif len(result["network_evals_per_second"]) == 2:
        lines.append(f"  only --mode {result['inference_mode']} timed (--mode auto times every mode)")
    if len(result["network_evals_per_second"]) > 2:  # auto: say which modes it leaves to be asked for
        lines.append(
            "  timed only when asked: --mode onnx (onnxruntime, the onnx extra) and --mode compile; a refresh "
            "exports or compiles again, seconds an iteration, so auto leaves them out"
        )
    if result["inference_mode"].startswith("bf16") and not result["bf16_units"]:
        lines.append(f"  this {_processor(result)} has no bfloat16 units: bf16 is emulated here, slower than fp32")
    speedup = "n/a" if result["speedup"] is None else f"{result['speedup']:.1f}x"
    rounds = result["seconds"]["rounds"]
    lines += [
        f"serial self-play:  {result['serial_positions_per_second']:>9.2f} positions/s "
        f"({result['serial_evaluations_per_position']:.1f} network evaluations per position)",
        f"batched self-play: {result['batched_positions_per_second']:>9.2f} positions/s "
        f"({result['batched_evaluations_per_position']:.1f} network evaluations per position"
        f"{', tree reuse' if result['reuse_tree'] else ''})",
        f"speed-up batched / serial: {speedup}",
        f"batched self-play wall time outside the network: {result['batched_share_outside_network']:.1%}",
        f"{result['seconds']['wall']:.1f} s in all (budget {result['seconds']['budget']:g} s)"
        + ("; self-play timed on one warm-up move of each (no time was left for more)" if not rounds else ""),
    ]
    return "\n".join(lines)
