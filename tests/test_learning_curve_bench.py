"""benchmarks/learning_curve.py: the checkpoints measured at each point, side by side with --jobs."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "learning_curve.py"
spec = importlib.util.spec_from_file_location("learning_curve", SCRIPT)
learning_curve = importlib.util.module_from_spec(spec)
spec.loader.exec_module(learning_curve)


def what_was_measured(path, sets, searches, games, seed):
    """A stand-in for ``measure`` (a match against negamax takes minutes): what it was asked, and by which process."""
    score = [seed / 10, 0.0, 1.0]
    return {"path": str(path), "seed": seed, "pid": os.getpid(), "negamax": {"games": games}, "negamax_score": score}


def fake_run(run_dir: Path, seconds: list[float]) -> None:
    (run_dir / "checkpoints").mkdir(parents=True)
    history = [{"iteration": i + 1, "wall_seconds": s} for i, s in enumerate(seconds)]
    (run_dir / "history.json").write_text(json.dumps(history))
    for record in history:
        (run_dir / "checkpoints" / f"iter_{record['iteration']:04d}.pt").write_bytes(b"")


def test_each_point_gets_its_own_runs_checkpoint_when_measured_side_by_side(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(learning_curve, "measure", what_was_measured)
    fake_run(tmp_path / "r_s0", [30, 30, 30, 30])  # iterations at 0.5, 1.0, 1.5, 2.0 minutes
    fake_run(tmp_path / "r_s1", [50, 50, 50])  # 0.83, 1.67, 2.5
    args = ["--skip-training", "--recipes", "r", "--seeds", "0", "1", "--points", "1", "2", "--out", str(tmp_path)]
    args += ["--sets", "--games", "4", "--final-games", "8", "--jobs", "2"]
    assert learning_curve.main(args) == 0
    curves = json.loads((tmp_path / "curves.json").read_text())["curves"]
    got = {
        name: [(p["minute"], Path(p["path"]).name, p["negamax"]["games"], p["seed"]) for p in points]
        for name, points in curves.items()
    }
    assert got == {
        "r_s0": [(1, "iter_0002.pt", 4, 0), (2, "iter_0004.pt", 8, 0)],
        "r_s1": [(1, "iter_0001.pt", 4, 1), (2, "iter_0002.pt", 8, 1)],
    }
    assert {p["pid"] for points in curves.values() for p in points} != {os.getpid()}  # measured in the workers
    assert capsys.readouterr().out.count("measuring ") == 4
    assert learning_curve.main(args) == 0  # a second run finds every measurement cached
    assert "measuring " not in capsys.readouterr().out


def test_no_jobs_is_refused_saying_what_is_allowed(tmp_path, capsys):
    import pytest

    with pytest.raises(SystemExit):
        learning_curve.main(["--skip-training", "--out", str(tmp_path), "--jobs", "0"])
    assert "--jobs must be at least 1 (measurements side by side), got 0" in capsys.readouterr().err
