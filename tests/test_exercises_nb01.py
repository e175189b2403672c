"""Notebook 01's checks, three ways each: the committed stub, the notebook's solution, a plausible wrong version."""

from __future__ import annotations

import re

import numpy as np
import pytest
from exercise_support import given_cell, read_notebook, run_cells, solve_notebooks, stubs_and_solutions

from alphazero_lib.exercises import add_to_class
from alphazero_lib.exercises import nb01_games as checks
from alphazero_lib.exercises.positions import played_positions

NB = read_notebook("01_games.ipynb")
EXERCISES = solve_notebooks.exercises(NB)
CODE = stubs_and_solutions(NB)
SKELETON = given_cell(NB, "class TicTacToe")
METHOD_CHECKS = [  # in notebook order: (checker, method names written in that exercise)
    (checks.check_get_initial_state, ["get_initial_state"]),
    (checks.check_get_next_state, ["get_next_state"]),
    (checks.check_get_valid_moves, ["get_valid_moves"]),
    (checks.check_check_win, ["check_win"]),
    (checks.check_get_value_and_terminated, ["get_value_and_terminated"]),
    (checks.check_get_opponent, ["get_opponent", "get_opponent_value"]),
    (checks.check_change_perspective, ["change_perspective"]),
]


def stub(k: int) -> str:
    return CODE[k][0]


def solution(k: int) -> str:
    return CODE[k][1]


def namespace(*sources: str) -> dict:
    return run_cells(SKELETON, *sources, np=np, add_to_class=add_to_class)


def all_solutions() -> list[str]:
    return [solution(k) for k in range(len(METHOD_CHECKS))]


def test_the_notebook_has_these_exercises_in_order():
    checks_called = [solve_notebooks.source(NB.cells[ex.check]) for ex in EXERCISES]
    names = [f.__name__ for f, _ in METHOD_CHECKS] + ["check_play_game"]
    assert [re.search(r"check_\w+", c).group(0) for c in checks_called] == names


@pytest.mark.parametrize("k", range(len(METHOD_CHECKS)), ids=[f.__name__ for f, _ in METHOD_CHECKS])
def test_stub_is_not_written_and_the_library_stands_in(verdict, k):
    checker, methods = METHOD_CHECKS[k]
    ns = namespace(stub(k))
    cls = ns["TicTacToe"]
    assert checker(cls) is cls
    line = verdict()
    assert line.startswith("⏳") and "not written yet" in line
    for method in methods:
        assert getattr(cls.__dict__[method], "__stub__", False), "the library's method stands in"
    # the stand-ins work on the learner's class
    game = cls()
    assert game.get_opponent(1) == -1 if "get_opponent" in methods else True


@pytest.mark.parametrize("k", range(len(METHOD_CHECKS)), ids=[f.__name__ for f, _ in METHOD_CHECKS])
def test_solution_passes(verdict, k):
    checker, methods = METHOD_CHECKS[k]
    ns = namespace(*all_solutions()[: k + 1])
    cls = ns["TicTacToe"]
    assert checker(cls) is cls
    line = verdict()
    assert line.startswith("✅"), line
    for method in methods:
        assert not getattr(cls.__dict__[method], "__stub__", False), "the learner's method is kept"


WRONG = {
    "check_get_initial_state": (
        "_board = np.zeros((3, 3), dtype=np.int8)\n"
        "@add_to_class(TicTacToe)\ndef get_initial_state(self):\n    return _board\n",
        "make a new one on every call",
    ),
    "check_get_next_state": (
        "@add_to_class(TicTacToe)\ndef get_next_state(self, state, action, player):\n"
        "    state[action // 3, action % 3] = player\n    return state\n",
        "input became",
    ),
    "check_get_valid_moves": (
        "@add_to_class(TicTacToe)\ndef get_valid_moves(self, state):\n    return (state == 0).astype(np.uint8)\n",
        "the shape is (9,)",
    ),
    "check_check_win": (  # forgets the anti-diagonal
        "@add_to_class(TicTacToe)\ndef check_win(self, state, action):\n"
        "    if action is None:\n        return False\n"
        "    row, column = divmod(action, 3)\n    player = state[row, column]\n"
        "    return bool(state[row].sum() == 3 * player or state[:, column].sum() == 3 * player\n"
        "                or np.trace(state) == 3 * player)\n",
        "anti-diagonal",
    ),
    "check_get_value_and_terminated": (  # the draw checked before the win
        "@add_to_class(TicTacToe)\ndef get_value_and_terminated(self, state, action):\n"
        "    if self.get_valid_moves(state).sum() == 0:\n        return 0, True\n"
        "    if self.check_win(state, action):\n        return 1, True\n    return 0, False\n",
        "check the win first",
    ),
    "check_get_opponent": (
        "@add_to_class(TicTacToe)\ndef get_opponent_value(self, value):\n    return 1 - value\n",
        "negating it",
    ),
    "check_change_perspective": (  # flips in place
        "@add_to_class(TicTacToe)\ndef change_perspective(self, state, player):\n"
        "    state *= player\n    return state\n",
        "input became",
    ),
}


@pytest.mark.parametrize("k", range(len(METHOD_CHECKS)), ids=[f.__name__ for f, _ in METHOD_CHECKS])
def test_wrong_version_fails_with_its_case(verdict, k):
    checker, methods = METHOD_CHECKS[k]
    wrong, hint = WRONG[checker.__name__]
    ns = namespace(*all_solutions(), wrong)
    cls = ns["TicTacToe"]
    checker(cls)
    line = verdict()
    assert re.match(r"❌ TicTacToe\.\S+( and \S+)?: case \d+ of \d+, ", line), line
    assert hint in line, line
    assert all(getattr(cls.__dict__[m], "__stub__", False) for m in methods), "the library stands in"
    assert cls().get_next_state(cls().get_initial_state(), 4, 1)[1, 1] == 1


def play_game_namespace(source: str) -> dict:
    ns = namespace(*all_solutions())
    exec(source, ns)
    return ns


def test_play_game_stub(verdict):
    ns = play_game_namespace(stub(len(METHOD_CHECKS)))
    assert checks.check_play_game(ns["play_game"], ns["TicTacToe"]) is checks.library_play_game
    assert "⏳ play_game: not written yet" in verdict()


def test_play_game_solution(verdict):
    ns = play_game_namespace(solution(len(METHOD_CHECKS)))
    assert checks.check_play_game(ns["play_game"], ns["TicTacToe"]) is ns["play_game"]
    assert verdict().startswith("✅ play_game: agrees with the library on 48 cases")


@pytest.mark.parametrize(
    "replace, where",
    [
        ("return int(player * value), moves", "return int(value), moves"),  # the winner is always "1"
        ("player = game.get_opponent(player)", "pass"),  # never switches players
    ],
)
def test_play_game_wrong(verdict, replace, where):
    source = solution(len(METHOD_CHECKS)).replace(replace, where)
    assert source != solution(len(METHOD_CHECKS))
    ns = play_game_namespace(source)
    assert checks.check_play_game(ns["play_game"], ns["TicTacToe"]) is checks.library_play_game
    assert re.match(r"❌ play_game: case \d+ of 48, play_game\(", verdict())


def test_edge_games_end_as_labelled():
    def replay(moves):
        return played_positions(checks.LIBRARY, np.random.default_rng(0), 0, [moves])

    ends = {name: replay(moves)[-1] for name, moves in checks.EDGE_GAMES.items()}
    for name, (state, action, _) in ends.items():
        value, done = checks.LIBRARY.get_value_and_terminated(state, action)
        assert done and value == (0 if "draw" in name else 1), name
    last = replay(checks.LAST_MOVE_WIN)
    assert len(last) == 9 and all(not checks.LIBRARY.get_value_and_terminated(s, a)[1] for s, a, _ in last[:-1])
