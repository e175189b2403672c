"""The play board (notebook 1 on) as Colab would run it, as far as that can be checked without Colab.

Colab renders widgets with its own widget manager, from the ipywidgets its runtime carries: core widgets
(``@jupyter-widgets/controls`` and ``@jupyter-widgets/base`` models) need no opt-in, while any other model asks the
user to enable third-party widgets (googlecolab/colabtools#498, #3020; 7.7.1 is the version Colab's team pointed
users back to). The course installs no ipywidgets in Colab, so the board meets Colab's own. These tests build the
board and click through games (``tests/play_board_probe.py``) with this environment's ipywidgets and with 7.7.1:
the same games, core models only. What they cannot show is Colab's frontend drawing it: JupyterLab's drawing is
tested in ``tests/test_play_in_browser.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IPYWIDGETS7 = ROOT / "build" / "ipywidgets7"  # .ci/run: pip install --no-deps --target build/ipywidgets7 ...
CORE = {"@jupyter-widgets/controls", "@jupyter-widgets/base"}

pytest.importorskip("ipywidgets", reason="ipywidgets is not installed (the notebooks extra)")
sys.path.insert(0, str(Path(__file__).parent))
from play_board_probe import probe  # noqa: E402


@pytest.fixture(scope="module")
def here() -> dict:
    return probe()


def test_the_board_uses_core_widgets_only(here):
    assert {module for _, module, _ in here["widgets"]} <= CORE, here["widgets"]
    assert {name for name, _, _ in here["widgets"]} >= {"Button", "GridBox", "HTML", "ToggleButtons", "VBox"}


def test_the_probe_plays_real_games(here):
    """Not a vacuous comparison: a win, a refused click on a taken cell, the agent opening, a loss, the end."""
    statuses = [step["status"] for step in here["transcript"]]
    assert any("You won." in s for s in statuses) and any("The agent won." in s for s in statuses)
    assert any("0 is not legal now" in s for s in statuses)
    refused = statuses.index(next(s for s in statuses if "0 is not legal now" in s))
    assert here["transcript"][refused]["cells"] == here["transcript"][refused - 1]["cells"]
    assert here["transcript"][6]["cells"] == "X........" and "You are O" in statuses[6]
    assert here["transcript"][-1]["drops"] == [] and "New game" in statuses[-1]


@pytest.mark.skipif(
    not (IPYWIDGETS7 / "ipywidgets").is_dir(),
    reason=f"ipywidgets 7.7.1 is not at {IPYWIDGETS7}: pip install --no-deps --target build/ipywidgets7 "
    "ipywidgets==7.7.1 ipython_genutils==0.2.0 (.ci/run does)",
)
def test_ipywidgets_7_plays_the_same_games_with_core_widgets(here):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(IPYWIDGETS7), str(ROOT)])}
    out = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "play_board_probe.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    there = json.loads(out.stdout)
    assert there["ipywidgets"] == "7.7.1"
    assert {module for _, module, _ in there["widgets"]} <= CORE, there["widgets"]
    assert {version for _, module, version in there["widgets"] if module == "@jupyter-widgets/controls"} == {"1.5.0"}
    assert there["transcript"] == here["transcript"]
