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


def sets_alone(path, sets, searches, games, seed):
    """A stand-in for ``measure`` with ``--games 0``: each set's error rates, no match."""
    rate = 0.01 * int(Path(path).stem[-1])
    errors = {f"{kind}/{name}": [rate, rate / 2, 2 * rate] for kind in ("network", "search") for name in sets}
    return {"errors": errors, "negamax": None, "negamax_score": None}


def test_the_sets_alone_are_printed_each_and_drawn_a_panel_each(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(learning_curve, "measure", sets_alone)
    monkeypatch.syspath_prepend(str(SCRIPT.parent))  # as when the script runs: long_run.py beside it
    fake_run(tmp_path / "r", [60, 60])
    plot = tmp_path / "curves.png"
    args = ["--skip-training", "--recipes", "r", "--points", "1", "2", "--out", str(tmp_path), "--searches", "600"]
    args += ["--sets", "middle_medium", "beginning_hard", "--games", "0", "--final-games", "0"]
    assert learning_curve.main([*args, "--plot", str(plot), "--reference"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.strip().startswith(("1.0", "2.0"))]
    # minute, iteration, trained, then each set's network and search errors (with its interval), then the match
    assert [(row[1], row[3], row[4], row[8], row[9], " ".join(row[-2:])) for row in rows] == [
        ("1", "1.0%", "1.0%", "1.0%", "1.0%", "not played"),
        ("2", "2.0%", "2.0%", "2.0%", "2.0%", "not played"),
    ]
    assert plot.is_file() and plot.stat().st_size > 0


def test_no_games_plays_no_match(monkeypatch):
    import alphazero_lib.arena

    def no_match(*args, **kwargs):
        raise AssertionError("a match was played with --games 0")

    monkeypatch.setattr(alphazero_lib.arena, "play_match", no_match)
    assert learning_curve.measure(Path("nowhere.pt"), [], 600, 0, 0) == {
        "errors": {},
        "negamax": None,
        "negamax_score": None,
    }


def test_negative_games_are_refused_saying_what_is_allowed(tmp_path, capsys):
    import pytest

    with pytest.raises(SystemExit):
        learning_curve.main(["--skip-training", "--out", str(tmp_path), "--games", "-1"])
    assert "--games and --final-games must be 0 (no match) or more, got -1, 100" in capsys.readouterr().err


def test_an_earlier_records_curves_are_printed_and_drawn_after_the_new_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(learning_curve, "measure", sets_alone)
    earlier = tmp_path / "earlier"
    fake_run(earlier / "old", [60, 60])
    args = ["--skip-training", "--points", "1", "2", "--searches", "600", "--sets", "middle_medium"]
    args += ["--games", "0", "--final-games", "0"]
    assert learning_curve.main([*args, "--recipes", "old", "--out", str(earlier)]) == 0
    fake_run(tmp_path / "new" / "new", [30, 30, 30, 30])
    (earlier / "old").rename(tmp_path / "gone")  # the earlier run's folder is gone; its curves.json stays
    capsys.readouterr()
    plot = tmp_path / "curves.png"
    argv = [*args, "--recipes", "new", "--out", str(tmp_path / "new"), "--earlier", str(earlier / "curves.json")]
    assert learning_curve.main([*argv, "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert out.index("\nnew\n") < out.index("\nold\n")
    assert "at 2 min: error new / old = 2.00" in out  # iteration 4 (4.0%) against iteration 2 (2.0%)
    curves = json.loads((tmp_path / "new" / "curves.json").read_text())["curves"]
    assert [p["iteration"] for p in curves["old"]] == [1, 2] and [p["iteration"] for p in curves["new"]] == [2, 4]
    assert plot.is_file()


def test_an_earlier_file_that_is_no_record_is_refused_before_measuring(tmp_path, monkeypatch):
    import pytest

    monkeypatch.setattr(learning_curve, "measure", sets_alone)
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(SystemExit, match=r"--earlier .*bad\.json: not a curves\.json of learning_curve\.py"):
        learning_curve.main(["--skip-training", "--out", str(tmp_path / "o"), "--earlier", str(bad)])
    assert not (tmp_path / "o").exists()  # refused before anything was made or measured
