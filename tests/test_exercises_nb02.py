"""Notebook 02's checks, three ways each: the committed stub, the notebook's solution, a plausible wrong version."""

from __future__ import annotations

import math
import re

import matplotlib
import numpy as np
import pytest
from exercise_support import given_cell, read_notebook, run_cells, solve_notebooks, stubs_and_solutions

from alphazero_lib import TicTacToe
from alphazero_lib.exercises import add_to_class
from alphazero_lib.exercises import nb02_vanilla_mcts as checks
from alphazero_lib.mcts import MCTS as LibraryMCTS
from alphazero_lib.mcts import Node as LibraryNode

matplotlib.use("Agg")

NB = read_notebook("02_vanilla_mcts.ipynb")
EXERCISES = solve_notebooks.exercises(NB)
CODE = stubs_and_solutions(NB)
SKELETON = given_cell(NB, "class Node")
NODE_CHECKS = [
    (checks.check_get_ucb, "get_ucb"),
    (checks.check_select, "select"),
    (checks.check_is_fully_expanded, "is_fully_expanded"),
    (checks.check_expand, "expand"),
    (checks.check_simulate, "simulate"),
    (checks.check_backpropagate, "backpropagate"),
]
IDS = [m for _, m in NODE_CHECKS]


def stub(k: int) -> str:
    return CODE[k][0]


def solution(k: int) -> str:
    return CODE[k][1]


def namespace(*sources: str) -> dict:
    return run_cells(SKELETON, *sources, np=np, math=math, add_to_class=add_to_class, game=TicTacToe())


def node_solutions() -> list[str]:
    return [solution(k) for k in range(len(NODE_CHECKS))]


def test_the_notebook_has_these_exercises_in_order():
    called = [re.search(r"check_\w+", solve_notebooks.source(NB.cells[ex.check])).group(0) for ex in EXERCISES]
    assert called == [f.__name__ for f, _ in NODE_CHECKS] + ["check_search"]


@pytest.mark.parametrize("k", range(len(NODE_CHECKS)), ids=IDS)
def test_stub_is_not_written_and_the_library_stands_in(verdict, k):
    checker, method = NODE_CHECKS[k]
    ns = namespace(stub(k))
    assert checker(ns["Node"]) is ns["Node"]
    line = verdict()
    assert line.startswith(f"⏳ Node.{method}: not written yet"), line
    assert getattr(ns["Node"].__dict__[method], "__stub__", False)


@pytest.mark.parametrize("k", range(len(NODE_CHECKS)), ids=IDS)
def test_solution_passes(verdict, k):
    checker, method = NODE_CHECKS[k]
    ns = namespace(*node_solutions()[: k + 1])
    assert checker(ns["Node"]) is ns["Node"]
    assert verdict().startswith(f"✅ Node.{method}: agrees with the library on")
    assert not getattr(ns["Node"].__dict__[method], "__stub__", False)


WRONG = {
    "get_ucb": (
        "q_value = 1 - (child.value_sum / child.visit_count + 1) / 2",
        "q_value = (child.value_sum / child.visit_count + 1) / 2",
        "your opponent",
    ),
    "select": ("if ucb > best_ucb:", "if ucb >= best_ucb:", "keep the FIRST child"),
    "is_fully_expanded": (
        "return np.sum(self.expandable_moves) == 0 and len(self.children) > 0",
        "return np.sum(self.expandable_moves) == 0",
        "without legal moves",
    ),
    "expand": (
        "child_state = self.game.change_perspective(child_state, player=-1)",
        "",
        "then change_perspective(child_state, -1)",
    ),
    "simulate": (
        "return value if rollout_player == 1 else self.game.get_opponent_value(value)",
        "return value",
        "negate the value",
    ),
    "backpropagate": (
        "self.parent.backpropagate(self.game.get_opponent_value(value))",
        "self.parent.backpropagate(value)",
        "the parent gets -value",
    ),
}


@pytest.mark.parametrize("k", range(len(NODE_CHECKS)), ids=IDS)
def test_wrong_version_fails_with_its_case(verdict, k):
    checker, method = NODE_CHECKS[k]
    old, new, hint = WRONG[method]
    wrong = solution(k).replace(old, new)
    assert wrong != solution(k)
    ns = namespace(*node_solutions(), wrong)
    checker(ns["Node"])
    line = verdict()
    assert re.match(rf"❌ Node\.{method}: case \d+ of \d+, ", line), line
    assert hint in line, line
    assert getattr(ns["Node"].__dict__[method], "__stub__", False), "the library's method stands in"


def test_simulate_with_the_global_generator_is_told_to_use_rng(verdict):
    wrong = solution(4).replace("rng.choice(", "np.random.choice(")
    ns = namespace(*node_solutions(), wrong)
    checks.check_simulate(ns["Node"])
    assert verdict().startswith("❌ Node.simulate: case")


def search_namespace(source: str, *node_sources: str) -> dict:
    return namespace(*(node_sources or node_solutions()), source)


def test_search_stub(verdict):
    ns = search_namespace(stub(6))
    assert checks.check_search(ns["MCTS"]) is checks.LibrarySearch
    assert verdict().startswith("⏳ MCTS.search: not written yet")


def test_search_solution(verdict):
    ns = search_namespace(solution(6))
    assert checks.check_search(ns["MCTS"]) is ns["MCTS"]
    assert verdict().startswith("✅ MCTS.search: agrees with the library on 7 cases")
    # the same draws as the library: the same visit counts
    state = checks.SEARCH_POSITIONS[4][1]  # the empty board
    ours = ns["MCTS"](TicTacToe(), num_searches=300, C=1.41, seed=5).search(state)
    assert np.array_equal(ours, checks.LibrarySearch(TicTacToe(), 300, 1.41, 5).search(state))


def test_search_with_the_backup_sign_wrong_fails(verdict):
    wrong_node = solution(5).replace(
        "self.parent.backpropagate(self.game.get_opponent_value(value))", "self.parent.backpropagate(value)"
    )
    ns = search_namespace(solution(6), *node_solutions()[:5], wrong_node)
    assert checks.check_search(ns["MCTS"]) is checks.LibrarySearch
    assert re.match(r"❌ MCTS\.search: case \d of 7, MCTS\(game, num_searches=600", verdict())


def test_search_that_expands_terminal_nodes_fails(verdict):
    wrong = solution(6).replace("if not node.is_terminal:", "if True:")
    ns = search_namespace(wrong)
    assert checks.check_search(ns["MCTS"]) is checks.LibrarySearch
    assert verdict().startswith("❌ MCTS.search: case")


def test_library_stand_ins_match_the_library_node():
    game = TicTacToe()
    a, b = LibraryNode(game, game.get_initial_state()), LibraryNode(game, game.get_initial_state())
    for seed in range(9):
        x, y = a.expand(np.random.default_rng(seed)), checks.library_expand(b, np.random.default_rng(seed))
        assert x.action_taken == y.action_taken and np.array_equal(x.state, y.state)
        assert a.is_fully_expanded() == checks.library_is_fully_expanded(b)


def test_draw_tree_draws_every_shown_node():
    game = TicTacToe()
    mcts = LibraryMCTS(game, checks.MCTSConfig(num_searches=40, seed=0))
    mcts.search(game.get_initial_state())
    ax = checks.draw_tree(mcts.root, max_depth=2, max_children=3)
    root = mcts.root
    shown = sorted(root.children, key=lambda c: -c.visit_count)[:3]
    expected = 1 + len(shown) + sum(min(3, len(c.children)) for c in shown)
    labels = [t.get_text() for t in ax.texts]
    assert len(labels) == expected and labels[0] == "root\nN=40"
    assert all(re.match(r"move \d\nN=\d+(\nQ=\d\.\d\d\nUCB=\d\.\d\d)?$", t) for t in labels[1:])
    matplotlib.pyplot.close("all")


def test_search_player_plays_the_most_visited_move():
    game = TicTacToe()
    player = checks.SearchPlayer(game, checks.LibrarySearch(game, 300, 1.41, 0))
    state = np.array([[1, 1, 0], [-1, -1, 0], [0, 0, 0]], dtype=np.int8)
    assert player.get_action(state, 1) == 2
    assert player.get_action(-state, -1) == 2  # O to move in the mirrored position also wins at 2


def test_what_the_notebook_says_about_the_position_with_two_wins():
    """Issue 24, item 7: the markdown's count, 4 for 14 of seeds 0..19 and 6 for the other 6 (600 simulations)."""
    name, state, decisive = checks.SEARCH_POSITIONS[3]
    assert name.startswith("6 wins at once") and not decisive
    picks = [int(np.argmax(checks.LibrarySearch(TicTacToe(), 600, 1.41, seed).search(state))) for seed in range(20)]
    assert (picks.count(4), picks.count(6)) == (14, 6)
    markdown = "".join(solve_notebooks.source(c) for c in NB.cells if c.cell_type == "markdown")
    assert "picks 4 for 14 of\nthose 20 seeds and 6 for the other 6" in markdown
    for name, state, decisive in checks.SEARCH_POSITIONS:  # "clearly best": the same move for every seed
        if decisive:
            search = [checks.LibrarySearch(TicTacToe(), 600, 1.41, seed).search(state) for seed in range(20)]
            assert len({int(np.argmax(p)) for p in search}) == 1, name


EXPAND = 3  # the index of check_expand in NODE_CHECKS
DRAW = "    action = int(rng.choice(np.flatnonzero(self.expandable_moves)))\n"
OTHER_DRAWS = {  # correct: uniform among the expandable moves, from the rng given, in other orders of draws
    "an index from rng.integers": "    moves = np.flatnonzero(self.expandable_moves)\n"
    "    action = int(moves[rng.integers(len(moves))])\n",
    "the first of a permutation": "    action = int(rng.permutation(np.flatnonzero(self.expandable_moves))[0])\n",
    "rejection sampling over all cells": "    action = int(rng.integers(9))\n"
    "    while not self.expandable_moves[action]:\n"
    "        action = int(rng.integers(9))\n",
    "the last of a shuffled list": "    moves = list(np.flatnonzero(self.expandable_moves))\n"
    "    rng.shuffle(moves)\n    action = int(moves[-1])\n",
}
WRONG_DRAWS = {
    "np.random instead of rng": (
        "    action = int(np.random.choice(np.flatnonzero(self.expandable_moves)))\n",
        "not np.random or random",
    ),
    "always the first move": ("    action = int(np.flatnonzero(self.expandable_moves)[0])\n", "not the first one"),
    "the first move twice as often": (
        "    moves = np.flatnonzero(self.expandable_moves)\n"
        "    action = int(moves[max(0, rng.integers(len(moves) + 1) - 1)])\n",
        "draw uniformly among the expandable moves",
    ),
}


@pytest.mark.parametrize("draw", OTHER_DRAWS.values(), ids=list(OTHER_DRAWS))
def test_any_uniform_draw_from_the_rng_given_passes(verdict, draw):
    """The exercise is the design, not the library's order of draws: other correct draws pass."""
    assert DRAW in solution(EXPAND)
    ns = namespace(*node_solutions()[:EXPAND], solution(EXPAND).replace(DRAW, draw))
    assert checks.check_expand(ns["Node"]) is ns["Node"]
    assert verdict().startswith("✅ Node.expand: agrees with the library on")
    assert not getattr(ns["Node"].__dict__["expand"], "__stub__", False)


@pytest.mark.parametrize("draw, hint", WRONG_DRAWS.values(), ids=list(WRONG_DRAWS))
def test_a_draw_that_is_not_uniform_or_not_from_the_rng_fails(verdict, draw, hint):
    np.random.seed(0)
    ns = namespace(*node_solutions()[:EXPAND], solution(EXPAND).replace(DRAW, draw))
    checks.check_expand(ns["Node"])
    line = verdict()
    assert re.match(r"❌ Node\.expand: case \d+ of \d+, ", line) and hint in line, line
