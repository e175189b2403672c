"""The exported page's speed (issue 51): time per move in headless Chromium beside the Python player, the page's size,
and onnxruntime's batched throughput beside torch's inference modes, in one run on this machine.

python benchmarks/web_export.py [--searches 50 200 800] [--positions 3] [--out benchmarks/results/web_export_DATE]

For the 4 x 64 (connect_four_fast) and 5 x 128 (connect_four) networks: export-web's page, served on 127.0.0.1 and
opened in Chromium (Debian's, driven by Playwright), plays a move (``window.alphazero.think``: the search in the page's
Web Worker, one network call at a time on onnxruntime-web's WebAssembly, one thread) in the opening position and in
the first Pons middle-game positions; the Python player ``alphazero:W:N`` (torch, one thread) plays the same moves.
Then the network alone at batch 64 (what batched self-play asks for) and batch 1: every torch mode ``FastEvaluator``
would choose from, and onnxruntime (CPU provider, one thread), taking turns, best of three. Needs the ``onnx`` extra
and onnxruntime-web's npm files (see ``alphazero_lib.web.page.find_ort_web``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from alphazero_lib.bench import cpu_model
from alphazero_lib.games import make_game
from alphazero_lib.inference import MODES, FastEvaluator, evaluate, has_fast_bf16
from alphazero_lib.pretrained import load_pretrained
from alphazero_lib.specs import make_player
from alphazero_lib.strength import load_set
from alphazero_lib.web.onnx_export import OnnxNetwork, export_onnx
from alphazero_lib.web.page import export_web, find_ort_web, page_size, serve

NETWORKS = {"4x64": "connect_four_fast", "5x128": "connect_four"}
ROOT = Path(__file__).resolve().parents[1]


def positions(count: int) -> np.ndarray:
    """Canonical positions: the opening, then the first Pons middle-game positions."""
    pons = load_set("middle_easy", limit=max(count - 1, 1))
    canonical = pons.states * pons.to_move[:, None, None]
    return np.concatenate([np.zeros((1, 6, 7), dtype=canonical.dtype), canonical])[:count]


def python_seconds(weights: str, states: np.ndarray, searches: int) -> list[float]:
    """The Python player's time for a move in each position (torch on one thread, as the players run)."""
    game = make_game("connect_four")
    player = make_player(game, f"alphazero:{weights}:{searches}", seed=0)
    times = []
    for state in states:
        with torch.inference_mode():
            start = time.perf_counter()
            player.get_action(state, 1)
            times.append(time.perf_counter() - start)
    return times


def browser_seconds(folder: Path, states: np.ndarray, searches: list[int]) -> dict[int, list[float]]:
    """The page's time for a move in each position at each search count, as its worker reports it."""
    from playwright.sync_api import sync_playwright

    found: dict[int, list[float]] = {}
    with serve(folder) as address, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto(address)
            page.wait_for_function("document.getElementById('status').dataset.state === 'human'", timeout=120_000)
            page.evaluate("([s]) => window.alphazero.think(s, 10)", [states[0].reshape(-1).astype(int).tolist()])
            for n in searches:
                found[n] = []
                for state in states:
                    result = page.evaluate(
                        "([s, n]) => window.alphazero.think(s, n)", [state.reshape(-1).astype(int).tolist(), n]
                    )
                    found[n].append(result["ms"] / 1000)
        finally:
            browser.close()
    return found


def throughput(model: torch.nn.Module, folder: Path, batch: int) -> dict[str, float]:
    """Positions a second through the network alone: torch's modes and onnxruntime, at ``batch`` and at 1."""
    game = model.game
    rng = np.random.default_rng(0)
    encoded = game.get_encoded_state(rng.integers(-1, 2, size=(batch, game.row_count, game.column_count)))
    modes = [m for m in MODES if m != "compile" and (has_fast_bf16("cpu") or not m.startswith("bf16"))]
    onnx = OnnxNetwork(export_onnx(model, folder / f"{batch}.onnx"), threads=1)
    evaluators = {m: FastEvaluator(model, m, batch_size=batch) for m in modes}
    calls = {f"torch {m}": (lambda e=e: e.evaluate(encoded)) for m, e in evaluators.items()}
    calls["onnxruntime"] = lambda: onnx.evaluate(encoded)
    calls["torch fp32 batch 1"] = lambda: evaluate(model, encoded[:1])
    calls["onnxruntime batch 1"] = lambda: onnx.evaluate(encoded[:1])
    best = dict.fromkeys(calls, 0.0)
    for _ in range(3):  # taking turns: a change in the machine's load hits them all alike
        for name, call in calls.items():
            size = 1 if name.endswith("batch 1") else batch
            call()
            start, done = time.perf_counter(), 0
            while time.perf_counter() - start < 1.0:
                call()
                done += size
            best[name] = max(best[name], done / (time.perf_counter() - start))
    return {name: round(rate, 1) for name, rate in best.items()}


def machine() -> str:
    cpu = cpu_model()
    return f"{cpu}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start"


def chromium_version() -> str:
    try:
        return subprocess.run(["chromium", "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError:
        return "chromium: unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, nargs="+", default=[50, 200, 800], help="searches a move")
    parser.add_argument("--positions", type=int, default=3, help="positions timed (the opening, then Pons')")
    parser.add_argument("--batch", type=int, default=64, help="the batch of the throughput comparison (64)")
    parser.add_argument("--ort-web", default=None, help="onnxruntime-web's npm files (default: find_ort_web's)")
    parser.add_argument("--out", default=None, help="a folder for the record (figures.json, figures.txt)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    built = ROOT / "build" / "onnxruntime-web"  # where CI installs it
    ort_web = args.ort_web or (built if built.is_dir() else None)
    find_ort_web(ort_web)
    states = positions(args.positions)
    record: dict = {"machine": machine(), "chromium": chromium_version(), "searches": args.searches, "networks": {}}
    lines = [f"machine: {record['machine']}; {record['chromium']}; torch {torch.__version__}"]
    with tempfile.TemporaryDirectory() as work:
        for label, weights in NETWORKS.items():
            model = load_pretrained(weights)
            folder = export_web(model, Path(work) / weights, ort_web=ort_web, source=weights)
            sizes = page_size(folder)
            page = browser_seconds(folder, states, args.searches)
            python = {n: python_seconds(weights, states, n) for n in args.searches}
            rates = throughput(model, Path(work), args.batch)
            record["networks"][label] = {
                "weights": weights,
                "page_bytes": sizes,
                "page_seconds": page,
                "python_seconds": python,
                "throughput": rates,
            }
            wasm = sizes["ort-wasm-simd-threaded.wasm"]
            lines.append(
                f"\n{label} ({weights}): page {sizes['total']:,} bytes (model.onnx {sizes['model.onnx']:,}, "
                f"ort-wasm-simd-threaded.wasm {wasm:,})"
            )
            lines.append(f"  {'searches':>8}  {'Chromium s/move':>16}  {'Python s/move':>14}  ratio")
            for n in args.searches:
                web, py = float(np.mean(page[n])), float(np.mean(python[n]))
                lines.append(f"  {n:>8}  {web:>16.3f}  {py:>14.3f}  {web / py:5.2f}")
            lines.append(f"  network alone, positions/s (batch {args.batch}; batch 1 where said):")
            lines += [f"    {name:<24} {rate:>10,.1f}" for name, rate in rates.items()]
            print("\n".join(lines[-(len(args.searches) + len(rates) + 4) :]), flush=True)
    text = "\n".join(lines) + "\n"
    print("\n" + text)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "figures.json").write_text(json.dumps(record, indent=1) + "\n")
        (out / "figures.txt").write_text(text)


if __name__ == "__main__":
    main()
