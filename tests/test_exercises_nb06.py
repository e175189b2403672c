"""Notebook 06's checks: the committed stubs are "not written yet", the notebook's solutions pass, plausible
wrong versions fail with their first failing case (and the library's rule stands in)."""

from __future__ import annotations

import numpy as np
import pytest
from exercise_support import exercise_code, given_cell, read_notebook, run_cells

from alphazero_lib.exercises import add_to_class
from alphazero_lib.exercises import nb06_connect_four as nb06

METHODS = ["get_next_state", "get_valid_moves", "check_win"]
CHECKS = {
    "get_next_state": nb06.check_get_next_state,
    "get_valid_moves": nb06.check_get_valid_moves,
    "check_win": nb06.check_check_win,
}


NOTEBOOK = read_notebook("06_connect_four.ipynb")
GIVEN = given_cell(NOTEBOOK, "class ")  # the given class cell
CODE = exercise_code(NOTEBOOK)  # per method (stub source, solution source)


def learner_class(**sources: str) -> type:
    """The notebook's class with the given method sources (``solution``/``stub``) added cell by cell."""
    return run_cells(GIVEN, *sources.values(), np=np, add_to_class=add_to_class)["ConnectFour"]


def solutions(**replace: str) -> dict[str, str]:
    return {name: replace.get(name, CODE[name][1]) for name in METHODS}


def test_the_notebook_has_the_three_exercises():
    assert list(CODE) == METHODS


@pytest.mark.parametrize("name", METHODS)
def test_stub_is_not_written_and_the_library_stands_in(name, verdict):
    cls = learner_class(**solutions(**{name: CODE[name][0]}))
    assert CHECKS[name](cls) is cls
    assert verdict().startswith(f"⏳ ConnectFour.{name}: not written yet")
    game, library = cls(), nb06.LIBRARY
    state = nb06._position([3, 3, 4])
    if name == "get_next_state":
        assert np.array_equal(game.get_next_state(state, 3, 1), library.get_next_state(state, 3, 1))
    elif name == "get_valid_moves":
        assert np.array_equal(game.get_valid_moves(state), library.get_valid_moves(state))
    else:
        assert game.check_win(state, 4) is False


@pytest.mark.parametrize("name", METHODS)
def test_solution_passes(name, verdict):
    cls = learner_class(**solutions())
    solution = cls.__dict__[name]
    assert CHECKS[name](cls) is cls and cls.__dict__[name] is solution
    assert verdict().startswith(f"✅ ConnectFour.{name}: agrees with the library on")


WRONG = {
    # the piece lands in the top empty row (gravity upside down)
    "get_next_state": (
        """
@add_to_class(ConnectFour)
def get_next_state(self, state, action, player):
    row = np.flatnonzero(state[:, action] == 0)[0]
    state = state.copy()
    state[row, action] = player
    return state
""",
        "bottom row",
    ),
    # looks at the bottom row instead of the top
    "get_valid_moves": (
        """
@add_to_class(ConnectFour)
def get_valid_moves(self, state):
    return (state[-1] == 0).astype(np.uint8)
""",
        "TOP cell",
    ),
    # counts one way only along each direction: misses a piece that completes a line in its middle
    "check_win": (
        """
@add_to_class(ConnectFour)
def check_win(self, state, action):
    if action is None:
        return False
    row = np.min(np.flatnonzero(state[:, action] != 0))
    player = state[row, action]
    for dr, dc in [(0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 1), (-1, -1)]:
        r, c, found = row, action, 0
        while 0 <= r < 6 and 0 <= c < 7 and state[r, c] == player:
            r, c, found = r + dr, c + dc, found + 1
        if found >= 4:
            return True
    return False
""",
        "count both ways",
    ),
}


@pytest.mark.parametrize("name", METHODS)
def test_wrong_version_fails_with_its_case(name, verdict):
    wrong, hint = WRONG[name]
    cls = learner_class(**solutions(**{name: wrong}))
    assert CHECKS[name](cls) is cls
    line = verdict()
    assert line.startswith(f"❌ ConnectFour.{name}: case "), line
    assert " of " in line and hint in line, line
    assert getattr(cls.__dict__[name], "__stub__", False), "the library's rule stands in"


def test_a_full_column_must_raise(verdict):
    cls = learner_class(
        **solutions(
            get_next_state="""
@add_to_class(ConnectFour)
def get_next_state(self, state, action, player):
    state = state.copy()
    state[np.flatnonzero(state[:, action] == 0)[-1:], action] = player
    return state
"""
        )
    )
    nb06.check_get_next_state(cls)
    line = verdict()
    assert line.startswith("❌ ConnectFour.get_next_state: case 4 of") and "ValueError" in line, line


@pytest.mark.parametrize("error", ["ValueError", "IndexError"])
def test_an_error_on_a_legal_move_is_reported_as_the_learners_own(error, verdict):
    """A learner's method that raises ValueError or IndexError where the library does not: the line names their
    error and message (the case maker must not compare the expected array with a word to tell the two apart)."""
    cls = learner_class(
        **solutions(
            get_next_state=f"""
@add_to_class(ConnectFour)
def get_next_state(self, state, action, player):
    raise {error}("my own message")
"""
        )
    )
    nb06.check_get_next_state(cls)
    line = verdict()
    assert line.startswith("❌ ConnectFour.get_next_state: case 1 of"), line
    assert f"raised {error}: my own message" in line and "ambiguous" not in line, line
