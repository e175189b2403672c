"""benchmarks/long_run.py: the long run's curve is read from the committed records, each point where it was printed."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "long_run.py"
spec = importlib.util.spec_from_file_location("long_run", SCRIPT)
long_run = importlib.util.module_from_spec(spec)
sys.modules["long_run"] = long_run  # its dataclass looks its module up
spec.loader.exec_module(long_run)

BRANCH, ADAM = "AdamW branch (connect_four)", "Adam run (connect_four_fast_5x128)"


def test_strength_rows_are_read_from_its_table_and_from_its_per_player_blocks():
    text = """== python -m alphazero_lib strength --player alphazero:ITER9:200 --player policy:ITER9
alphazero:ITER9:200  end_easy            1000       6        0.6%  [0.3, 1.3]%
alphazero:ITER9:200  middle_medium        500      32        6.4%  [5.0, 8.1]%
policy:ITER9         middle_medium       1000     104       10.4%  [8.7, 12.4]%
alphazero:connect_four:200  middle_medium  1000  70  7.0%

== python -m alphazero_lib strength --player alphazero:ITER12:600 --json
  end_easy       1000 positions    9 errors  0.9%  [0.5, 1.7]%  anchor ~0%  101 s
  middle_medium  1000 positions   58 errors  5.8%  [4.5, 7.4]%  anchor ~2.5-3%  790 s

== something else
  middle_medium  1000 positions   99 errors  9.9%
"""
    found = long_run.search_points(text)
    assert found == {
        (9, 200): {"end_easy": 0.6, "middle_medium": 6.4},  # errors over positions, not the rounded percentage
        (12, 600): {"end_easy": 0.9, "middle_medium": 5.8},  # the block ends at the next "=="
    }


def test_trend_rows_name_their_iteration_and_rows_of_another_run_are_left_out():
    text = """checkpoint  +  =  -  score  alone: ee / me / mm  v(empty)  dead
c4_adamw_from40/checkpoints/iter_0121.pt   60   13   27  0.665 [0.57, 0.75]   7.4 / 7.7 / 12.5%      -0.08     0/1443
iter_0088      41   19   40  0.505 [0.41, 0.60]   7.1 / 8.3 / 13.2%      -0.02
s/c4_5x128_long/checkpoints/iter_0091.pt   49   10   41  0.540 [0.44, 0.63]   6.5 / 8.2 / 11.6%      -0.01     230/1443
"""
    rows = long_run.alone_points(text, skip="c4_5x128_long/")
    assert rows == {
        121: {"end_easy": 7.4, "middle_easy": 7.7, "middle_medium": 12.5},
        88: {"end_easy": 7.1, "middle_easy": 8.3, "middle_medium": 13.2},
    }
    assert 91 in long_run.alone_points(text)


def test_the_committed_records_give_the_model_cards_figures(tmp_path):
    points, notes = long_run.collect()
    at = {(p.run, p.iteration, p.searches): p for p in points}
    assert at[(BRANCH, 172, 600)].errors == pytest.approx({"end_easy": 0.1, "middle_easy": 0.8, "middle_medium": 5.5})
    assert at[(BRANCH, 172, 0)].errors["middle_medium"] == pytest.approx(10.4)
    assert at[(ADAM, 88, 600)].errors["middle_medium"] == pytest.approx(5.8)  # the per-player block's format
    resumed = "the branch from 200 (2026-11-26)"  # its history holds 1-200 too: its hours go on from the branch's
    assert at[(resumed, 217, 600)].errors == pytest.approx({"end_easy": 0.3, "middle_easy": 0.4, "middle_medium": 4.4})
    assert at[(resumed, 201, 0)].hours > at[(BRANCH, 200, 600)].hours
    targets = "AlphaZero.jl's targets from 225 (2026-11-27)"  # its history holds 1-225 of that run too
    assert at[(targets, 262, 600)].errors == pytest.approx({"middle_medium": 3.9})
    assert at[(targets, 255, 600)].errors == pytest.approx({"middle_medium": 5.0})
    assert at[(targets, 226, 0)].hours > at[(resumed, 225, 0)].hours
    cap = "playout cap from 276 (2026-11-27)"  # strength_293.txt (commit 52f7d7f): the default since then
    assert at[(cap, 293, 600)].errors == pytest.approx({"end_easy": 0.2, "middle_easy": 0.1, "middle_medium": 3.5})
    assert at[(cap, 296, 600)].errors == pytest.approx({"middle_medium": 3.9})
    lower = "learning rate 2e-4 from 296 (2026-11-27)"  # cap_lr_2026-11-27/strength_600.txt
    assert [at[(lower, i, 600)].errors["middle_medium"] for i in (300, 302, 304, 312, 314, 316)] == pytest.approx(
        [3.1, 3.1, 3.2, 2.7, 2.7, 3.4]
    )
    assert at[(cap, 296, 600)].hours < at[(lower, 300, 600)].hours < at[(lower, 316, 600)].hours
    # 316's easy sets are in strength_316.txt, its middle-medium in strength_600.txt: the two files' rows merge
    assert at[(lower, 316, 600)].errors == pytest.approx({"end_easy": 0.1, "middle_easy": 0.3, "middle_medium": 3.4})
    lowest = "learning rate 1e-4 from 316 (2026-11-27)"  # cap_lr1_2026-11-27/strength_600.txt
    assert [at[(lowest, i, 600)].errors["middle_medium"] for i in (319, 326, 328, 330)] == pytest.approx(
        [3.2, 3.3, 2.9, 3.3]
    )
    assert at[(lower, 316, 600)].hours < at[(lowest, 319, 600)].hours < at[(lowest, 330, 600)].hours
    assert at[(lowest, 330, 600)].errors == pytest.approx({"end_easy": 0.2, "middle_easy": 0.1, "middle_medium": 3.3})
    assert (BRANCH, 91, 0) not in at and (BRANCH, 94, 0) in at  # the Adam run's 91 sits in the branch's trend.txt
    history = json.loads((long_run.RESULTS / "replay_reuse_2026-11-25" / "history.json").read_text())
    hours = sum(r["wall_seconds"] for r in history if r["iteration"] <= 121) / 3600
    assert at[(BRANCH, 121, 200)].hours == pytest.approx(hours)
    assert notes == []
    for set_name in long_run.SETS:  # many points measured middle-medium alone: the easy sets' plots leave them out
        out = long_run.plot(points, set_name, tmp_path / f"{set_name}.png")
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
