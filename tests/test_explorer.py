"""The search explorer of notebooks 2 and 4 (issue 50): the next simulation's path and its reason, and the widgets
clicked through as a person would, with this environment's ipywidgets and with 7.7.1 (Colab's, core widgets only).

    python tests/test_explorer.py      # prints the click-through transcript as JSON (the 7.7.1 test runs this)
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
IPYWIDGETS7 = ROOT / "build" / "ipywidgets7"  # .ci/run: pip install --no-deps --target build/ipywidgets7 ...
CORE = {"@jupyter-widgets/controls", "@jupyter-widgets/base"}


def vanilla(count: int) -> Any:
    from alphazero_lib.config import MCTSConfig
    from alphazero_lib.games import TicTacToe
    from alphazero_lib.mcts import MCTS

    return MCTS(TicTacToe(), MCTSConfig(num_searches=count, C=1.41, seed=0))


def probe() -> dict[str, Any]:
    """Build the explorer on vanilla MCTS from the empty board and click through it; what a person sees each time."""
    import ipywidgets
    from play_board_probe import walk  # the play board's probe walks its widgets the same way

    from alphazero_lib.course.explorer import SearchExplorer, explorer_widget
    from alphazero_lib.games import TicTacToe

    explorer = SearchExplorer(vanilla, TicTacToe().get_initial_state(), num_searches=30, C=1.41)
    root = explorer_widget(explorer, title="probe")
    status, controls, picture, node_row, details = root.children
    step, step10, end, reset = controls.children
    up, children = node_row.children
    transcript = []

    def seen(what: str) -> None:
        transcript.append(
            {
                "did": what,
                "status": status.value,
                "details": details.value,
                "png": picture.value[:4] == b"\x89PNG",
                "children": [b.description for b in children.children],
                "up": not up.disabled,
                "step": not step.disabled,
            }
        )

    seen("start")
    step.click()
    seen("step")
    step10.click()
    seen("+10")
    children.children[0].click()
    seen("first child")
    up.click()
    seen("up")
    end.click()
    seen("to the end")
    reset.click()
    seen("reset")
    widgets = sorted({(type(w).__name__, w._model_module, w._model_module_version) for w in walk(root)})
    return {"ipywidgets": ipywidgets.__version__, "widgets": widgets, "transcript": transcript}


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(json.dumps(probe()))
    sys.exit(0)

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from alphazero_lib.course.explorer import SearchExplorer, child_by_move, score  # noqa: E402
from alphazero_lib.games import TicTacToe  # noqa: E402


def test_the_next_path_is_where_the_next_simulation_adds_its_visit():
    explorer = SearchExplorer(vanilla, TicTacToe().get_initial_state(), num_searches=40, C=1.41)
    for count in range(1, 40):
        explorer.count = count
        path = explorer.next_path()
        before, after = vanilla(count), vanilla(count + 1)
        before.search(TicTacToe().get_initial_state())
        after.search(TicTacToe().get_initial_state())
        node_before, node_after = before.root, after.root
        for move in path:  # every node on the path gained exactly one visit
            node_after = child_by_move(node_after, move)
            node_before = child_by_move(node_before, move)
            assert node_after.visit_count == (node_before.visit_count if node_before else 0) + 1
        assert after.root.visit_count == before.root.visit_count + 1
        if node_before is not None:  # the path ends at a node that was there: none of its children grew
            grown = [
                c
                for c in node_after.children
                if c.visit_count > getattr(child_by_move(node_before, c.action_taken), "visit_count", 0)
            ]
            assert grown == [], (count, path)


def test_at_a_fully_expanded_root_the_reason_is_the_highest_ucb():
    explorer = SearchExplorer(vanilla, TicTacToe().get_initial_state(), num_searches=40, C=1.41)
    explorer.count = 20  # the root's nine moves are all tried by then
    root = explorer.root
    assert root.is_fully_expanded()
    chosen = root.select(1.41).action_taken  # the library's selection, independent of the explorer's reading
    assert explorer.next_path()[0] == chosen
    scores = {r.move: r.score for r in explorer.rows()}
    assert scores[chosen] == max(scores.values())
    assert all(math.isclose(scores[c.action_taken], root.get_ucb(c, 1.41)) for c in root.children)
    why = explorer.why()
    assert f"takes move {chosen}" in why and "is the highest" in why, why


def test_a_root_with_untried_moves_adds_one():
    explorer = SearchExplorer(vanilla, TicTacToe().get_initial_state(), num_searches=40, C=1.41)
    explorer.count = 3
    assert "adds move" in explorer.why() and "is_fully_expanded() is False" in explorer.why()


def test_alphazero_nodes_show_priors_and_puct_scores():
    import torch

    from alphazero_lib.alpha_mcts import AlphaMCTS
    from alphazero_lib.config import SearchConfig
    from alphazero_lib.model import ResNet

    game = TicTacToe()
    torch.manual_seed(0)
    model = ResNet(game, num_res_blocks=1, num_hidden=8).eval()
    explorer = SearchExplorer(
        lambda k: AlphaMCTS(game, model, SearchConfig(num_searches=k, C=2.0, seed=0)), game.get_initial_state(), 20, 2.0
    )
    explorer.count = 6
    rows = explorer.rows()
    assert len(rows) == 9 and all(r.prior is not None for r in rows)
    assert math.isclose(sum(r.prior for r in rows), 1.0, rel_tol=1e-6)
    nxt = explorer.next_path()[0]
    best = max(rows, key=lambda r: (r.score, -r.move))
    assert nxt == best.move, (nxt, rows)
    root = explorer.root
    child = child_by_move(root, nxt)
    q = 0.0 if child.visit_count == 0 else -child.value_sum / child.visit_count
    assert math.isclose(
        score(root, child, 2.0), q + 2.0 * child.prior * math.sqrt(root.visit_count) / (1 + child.visit_count)
    )
    assert "prior" in explorer.describe()


def test_choosing_a_node_that_is_not_there_is_refused():
    explorer = SearchExplorer(vanilla, TicTacToe().get_initial_state(), num_searches=5)
    with pytest.raises(ValueError, match="no child for move"):
        explorer.choose(7 if child_by_move(explorer.root, 7) is None else 99)
    with pytest.raises(ValueError, match="at least 1"):
        SearchExplorer(vanilla, np.zeros((3, 3)), num_searches=0)


@pytest.fixture(scope="module")
def here() -> dict:
    pytest.importorskip("ipywidgets", reason="ipywidgets is not installed (the notebooks extra)")
    return probe()


def test_the_explorer_uses_core_widgets_only(here):
    assert {module for _, module, _ in here["widgets"]} <= CORE, here["widgets"]
    assert {name for name, _, _ in here["widgets"]} >= {"Button", "HTML", "Image", "HBox", "VBox"}


def test_clicking_through_the_explorer(here):
    steps = {step["did"]: step for step in here["transcript"]}
    assert all(step["png"] for step in here["transcript"])
    assert "simulation 1 of 30" in steps["start"]["status"] and "simulation 2 of 30" in steps["step"]["status"]
    assert "simulation 12 of 30" in steps["+10"]["status"]
    assert len(steps["+10"]["children"]) == 9 and not steps["+10"]["up"]
    assert steps["first child"]["details"].startswith("<pre>after 12 of 30 simulations; root → 0: visits")
    assert steps["first child"]["up"] and steps["up"]["details"].startswith("<pre>after 12 of 30 simulations; root:")
    assert "The next simulation" in steps["+10"]["details"]
    assert "The search is over" in steps["to the end"]["details"] and not steps["to the end"]["step"]
    assert "simulation 1 of 30" in steps["reset"]["status"] and steps["reset"]["step"]


@pytest.mark.skipif(
    not (IPYWIDGETS7 / "ipywidgets").is_dir(),
    reason=f"ipywidgets 7.7.1 is not at {IPYWIDGETS7}: pip install --no-deps --target build/ipywidgets7 "
    "ipywidgets==7.7.1 ipython_genutils==0.2.0 (.ci/run does)",
)
def test_ipywidgets_7_clicks_through_the_same_explorer_with_core_widgets(here):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(IPYWIDGETS7), str(ROOT)])}
    out = subprocess.run(
        [sys.executable, str(Path(__file__))], env=env, capture_output=True, text=True, timeout=300, check=True
    )
    there = json.loads(out.stdout)
    assert there["ipywidgets"] == "7.7.1"
    assert {module for _, module, _ in there["widgets"]} <= CORE, there["widgets"]
    assert there["transcript"] == here["transcript"]
