"""benchmarks/onnx_inference.py: onnxruntime beside torch's fastest mode, network alone, refresh and one iteration."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "onnx_inference.py"


def test_the_benchmark_prints_and_records_the_three_comparisons(tmp_path, capsys):
    for module in ("onnx", "onnxscript", "onnxruntime"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install -e '.[onnx]')")
    spec = importlib.util.spec_from_file_location("onnx_inference", SCRIPT)
    onnx_inference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(onnx_inference)
    argv = [
        "--networks",
        "4x64",
        "--threads",
        "1",
        "--batches",
        "4",
        "1",
        "--games",
        "2",
        "--searches",
        "2",
        "--turn",
        "0.02",
        "--repeats",
        "1",
        "--out",
        str(tmp_path),
    ]
    assert onnx_inference.main(argv) == 0
    printed = capsys.readouterr().out
    assert "onnx/fastest torch" in printed and "a refresh, seconds" in printed and "with the refresh" in printed
    (run,) = json.loads((tmp_path / "figures.json").read_text())["runs"]
    assert sorted(run["network_alone"]) == ["1", "4"]  # JSON keys
    assert sorted(run["network_alone"]["4"]) == ["onnxruntime", "torch fp32", "torch fp32_cl", "torch fp32_fused"]
    assert run["torch_mode"] in ("fp32", "fp32_cl", "fp32_fused")
    assert len(run["refresh_seconds"]["onnxruntime"]) == 1 and len(run["refresh_seconds"]["torch"]) == 1
    iteration = run["iteration"]
    assert (iteration["games"], iteration["slots"], iteration["searches"]) == (2, 2, 2)
    for side in ("torch", "onnxruntime"):
        assert iteration[side]["positions"] > 0 and iteration[side]["samples"] > 0
        assert iteration[side]["total_seconds"] >= iteration[side]["selfplay_seconds"]
    assert (tmp_path / "figures.txt").read_text().splitlines()[0].startswith("machine: ")
