"""Checks for notebook 06 (Connect Four): gravity, the legal columns and the four-direction win check.

The learner writes the methods of their own ``ConnectFour`` class cell by cell (``add_to_class``); each check
compares a method with the library's ``alphazero_lib.ConnectFour`` on the edge cases the notebook names and on
seeded random playouts, prints one verdict line and puts the library's rule in place of a method that disagrees.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alphazero_lib.exercises import core, positions
from alphazero_lib.exercises.core import Case, Mismatch, Mistake, board, check_method, hints_for
from alphazero_lib.games import ConnectFour as LibraryConnectFour

LIBRARY = LibraryConnectFour()

HINTS = {  # the rule of each exercise: printed by hint(name), and the hint of a failing case no mistake explains
    "get_next_state": "the piece falls to the LOWEST empty row: the empty rows of the column are np.flatnonzero("
    "state[:, action] == 0); none left: raise ValueError; otherwise copy the state and put player in the LAST of "
    "them (row 5 is the bottom).",
    "get_valid_moves": "a column is legal while its TOP cell (row 0), state[0, column], is empty: one 0/1 entry per "
    "column, (state[0] == 0) as uint8.",
    "check_win": "the dropped piece is the top piece of the column (the smallest row holding a piece); for each "
    "direction (0, 1), (1, 0), (1, 1), (1, -1) count the mover's pieces from there both ways; a win when 1 + both "
    "counts >= in_a_row. No action yet (None) is no win.",
}
hint, solution = hints_for(HINTS, "06_connect_four.ipynb")


# the library's rules with the methods' signatures: they stand in for a method that disagrees
def _library_get_next_state(self: Any, state: np.ndarray, action: int, player: int) -> np.ndarray:
    return LIBRARY.get_next_state(state, action, player)


def _library_get_valid_moves(self: Any, state: np.ndarray) -> np.ndarray:
    return LIBRARY.get_valid_moves(state)


def _library_check_win(self: Any, state: np.ndarray, action: int | None) -> bool:
    return LIBRARY.check_win(state, action)


def _position(columns: list[int]) -> np.ndarray:
    """The state after dropping pieces in ``columns``, players alternating from 1."""
    state, player = LIBRARY.get_initial_state(), 1
    for column in columns:
        state = state.copy()
        LIBRARY._apply(state, column, player)  # as get_next_state, but a test position may hold a line already
        player = -player
    return state


def _case(method: str, state: np.ndarray, args: tuple, hint: str, changed: str = "") -> Case:
    """``game.method(state, *args)`` on a copy of ``state``, against the library's (where it raises ValueError, an
    illegal move, so must the learner's); ``changed``: the hint when the method writes into the state it is given."""
    try:
        expected = getattr(LIBRARY, method)(state, *args)
    except ValueError:
        expected = "ValueError"
    # an illegal move's answer is "ValueError" or "no error", whatever the method wrote into the state
    wrote = None if isinstance(expected, str) or not changed else lambda got, given: Mismatch(given[0], state, changed)

    def run(g: Any) -> Any:
        try:
            got = core.on_copies(getattr(g(), method), state, *args, changed=wrote)
        except (ValueError, IndexError) as error:
            if not isinstance(expected, str):
                raise
            if isinstance(error, IndexError):
                hint = "check the top cell first and raise ValueError."
                raise Mismatch(f"IndexError: {error}", expected, hint) from None
            return "ValueError"
        if isinstance(expected, str):
            return "no error"
        if got is None and method == "get_next_state":
            raise Mismatch(got, expected, "return the new state.")
        return got

    return Case(f"game.{method}({', '.join([board(state), *map(str, args)])})", run, expected, hint)


# ---- exercise 1: gravity ------------------------------------------------------------------------------------
DROPS = [  # (columns played, players alternating from 1), the column and the player of the move, what it tests
    ([], 0, 1, "the empty board: the piece lands in the bottom row."),
    ([], 6, -1, "the last column, player -1."),
    ([3] * 5, 3, 1, "one free cell left: the top row (row 0)."),
    ([3] * 6, 3, 1, "a full column is not a legal move: raise ValueError (say which column)."),
]


def check_get_next_state(cls: type) -> type:
    """``get_next_state(state, action, player)``: a new array, ``player``'s piece in the lowest empty row of
    column ``action``; a full column raises ``ValueError``. Cases: ``DROPS``, then every move of 40 random games."""

    def cases(cls: type) -> list[Case]:
        rows, rng = [(_position(c), a, p, hint) for c, a, p, hint in DROPS], np.random.default_rng(60)
        for moves in (positions.random_game(LIBRARY, rng) for _ in range(40)):
            rows += [
                (positions.after(LIBRARY, moves[:k])[0], a, p, HINTS["get_next_state"])
                for k, (_, a, p, _) in enumerate(moves)
            ]
        copy = "the input state was changed: copy it first (state.copy())."
        return [_case("get_next_state", state, (a, p), hint, copy) for state, a, p, hint in rows]

    return check_method(cls, "get_next_state", _library_get_next_state, cases, mistakes=NEXT_MISTAKES)


def _drop_on_top(self: Any, state: np.ndarray, action: int, player: int) -> np.ndarray:
    """A planted mistake: the library's move with the piece in the TOP empty row of the column instead."""
    out, empty = LIBRARY.get_next_state(state, action, player), np.flatnonzero(state[:, action] == 0)
    out[empty[-1], action], out[empty[0], action] = 0, player
    return out


NEXT_MISTAKES = [
    Mistake(
        "the piece falls to the LOWEST empty row of the column (row 5 is the bottom row, row 0 the top): the "
        "last of np.flatnonzero(state[:, action] == 0)",
        _drop_on_top,
    ),
    Mistake(
        "put player's piece (1 or -1), not always 1",
        lambda self, state, action, player: LIBRARY.get_next_state(state, action, 1),
    ),
]


# ---- exercise 2: legal columns ------------------------------------------------------------------------------
def check_get_valid_moves(cls: type) -> type:
    """``get_valid_moves(state)``: ``[7]`` of 0/1, a column is legal while its top cell (row 0) is empty. Cases:
    the empty board, full columns at both edges, a full board, and positions of 20 seeded random games."""

    def cases(cls: type) -> list[Case]:
        states = [_position(columns) for columns in ([], [3] * 6, [0] * 6 + [6] * 6, [0, 1, 2, 3, 4, 5, 6] * 6)]
        rng = np.random.default_rng(61)
        for moves in (positions.random_game(LIBRARY, rng) for _ in range(20)):
            states += [positions.after(LIBRARY, moves[:k])[0] for k in range(len(moves) + 1)]
        return [_case("get_valid_moves", state, (), HINTS["get_valid_moves"]) for state in states]

    return check_method(cls, "get_valid_moves", _library_get_valid_moves, cases, mistakes=VALID_MISTAKES)


VALID_MISTAKES = [
    Mistake(
        "a column is legal while its TOP cell (row 0) is empty; the bottom row fills first",
        lambda self, state: (state[-1] == 0).astype(np.uint8),
    ),
    Mistake(
        "one 0/1 entry per column (is there room?), not the number of empty cells in it",
        lambda self, state: (state == 0).sum(axis=0),
    ),
    Mistake(
        "one entry per column (7), not one per cell: look at the top row only",
        lambda self, state: (state.reshape(-1) == 0).astype(np.uint8),
    ),
]


# ---- exercise 3: the win check ------------------------------------------------------------------------------
EDGE_CASES = [
    # (columns played, players alternating from 1; the last one is the action checked), what it tests
    ([0, 0, 1, 1, 2, 2, 3], "a horizontal four at the left edge of the bottom row"),
    ([6, 6, 5, 5, 4, 4, 3], "a horizontal four ending at the right edge"),
    ([0, 0, 1, 1, 3, 3, 2], "a horizontal four completed in the MIDDLE: count both ways along the row"),
    ([6, 5, 6, 5, 6, 5, 6], "a vertical four in the last column"),
    ([0, 1, 0, 1, 0, 1, 2, 1], "a vertical four for player -1"),
    ([0, 2, 0, 2, 2, 1, 2, 1, 2, 6, 2], "a vertical four reaching the top row"),
    ([0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3], "a '/' diagonal from the bottom-left corner"),
    ([6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3], "a '\\' diagonal ending in the bottom-right corner"),
    ([0, 1, 1, 2, 3, 3, 6, 3, 3, 2, 2], "a '/' diagonal completed in its middle: count both ways"),
    ([0, 1, 2], "three in a row is not a win"),
    ([0, 0, 1, 1, 2, 2, 6], "three in a row elsewhere: the last piece is not part of it"),
    ([0, 6, 1, 6, 2, 6, 3, 5], "X has four, but the last piece is O's: check the player of the last piece"),
    ([0, 1, 2, 3], "alternating colours are not a line"),
]


def check_check_win(cls: type) -> type:
    """``check_win(state, action)``: whether the piece just dropped in column ``action`` (the top piece of that
    column) makes ``in_a_row`` in a line (a row, a column, a diagonal); ``None``: False. Cases: ``None``, the
    edge cases above, and after every move of 60 seeded random games."""

    def cases(cls: type) -> list[Case]:
        empty, read_only = LIBRARY.get_initial_state(), "check_win only reads the board: do not write into it."
        out = [
            Case(
                "game.check_win(<empty board>, None)",
                lambda g: g().check_win(empty, None),
                False,
                "no action yet (None) means no win.",
            )
        ]
        out += [_case("check_win", _position(c), (c[-1],), hint, read_only) for c, hint in EDGE_CASES]
        played = positions.played_positions(LIBRARY, np.random.default_rng(62), 60)
        return out + [_case("check_win", state, (a,), HINTS["check_win"], read_only) for state, a, _ in played]

    return check_method(cls, "check_win", _library_check_win, cases, mistakes=WIN_MISTAKES)


def _check_win(self: Any, state: np.ndarray, action: int | None, kind: str = "") -> bool:
    """The win check with a planted mistake ``kind``: the lines looked along, the piece read, the pieces counted."""
    if action is None:
        return False
    directions = [(0, 1), (1, 0), (1, 1), (1, -1)][: {"no diagonals": 2, "one diagonal": 3}.get(kind, 4)]
    filled = np.flatnonzero(state[:, action] != 0)
    row = int(filled.max() if kind == "bottom piece" else filled.min())
    mine = state != 0 if kind == "any colour" else state == state[row, action]

    def count(dr: int, dc: int) -> int:
        r, c, found = row + dr, action + dc, 0
        while 0 <= r < 6 and 0 <= c < 7 and mine[r, c]:
            r, c, found = r + dr, c + dc, found + 1
        return found

    need = 3 if kind == "three" else 4
    compare = {"exactly": int.__eq__, "more than": int.__gt__}.get(kind, int.__ge__)
    return any(
        compare(1 + count(dr, dc) + (0 if kind == "one way" else count(-dr, -dc)), need) for dr, dc in directions
    )


WIN_MISTAKES = core.planted(
    _check_win,
    {
        "one way": "count both ways along each direction: the last piece can complete a line in its middle",
        "no diagonals": "the two diagonals count too: directions (1, 1) and (1, -1)",
        "one diagonal": "both diagonals count: '\\' is (1, 1), '/' is (1, -1)",
        "bottom piece": "the piece just dropped is the TOP piece of its column: the smallest row that is not empty",
        "three": "a win needs in_a_row (4) pieces in a line, not 3",
        "exactly": "a line LONGER than in_a_row wins too (a piece can join two lines into five): 1 + both counts >= "
        "in_a_row, not ==",
        "more than": "exactly in_a_row pieces in a line is a win: 1 + both counts >= in_a_row, not >",
        "any colour": "count only the mover's pieces (state[r, c] == player), not any piece",
    },
)
