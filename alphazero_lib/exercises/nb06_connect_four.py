"""Checks for notebook 06 (Connect Four): gravity, the legal columns and the four-direction win check.

The learner writes the methods of their own ``ConnectFour`` class cell by cell (``add_to_class``); each
``check_*`` compares a method with the library's ``alphazero_lib.ConnectFour`` on many seeded random playouts and
the edge cases the notebook names (board edges, both diagonals, a full column, a last piece in the middle of its
line), prints one verdict line and puts the library's rule in place of a method that disagrees.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from alphazero_lib.exercises import positions
from alphazero_lib.exercises.core import Case, Mismatch, Mistake, board, check_method, hints_for, same
from alphazero_lib.games import ConnectFour as LibraryConnectFour

LIBRARY = LibraryConnectFour()

HINTS = {
    "get_next_state": "the empty rows of the column are np.flatnonzero(state[:, action] == 0); none left: raise "
    "ValueError; otherwise copy the state and put player in the LAST of them (the lowest: row 5 is the bottom).",
    "get_valid_moves": "a column is legal while its top cell, state[0, column], is empty: (state[0] == 0) as uint8.",
    "check_win": "None: False. The dropped piece is the top piece of the column (the smallest row holding a piece); "
    "for each direction (0, 1), (1, 0), (1, 1), (1, -1) count the mover's pieces from there both ways; a win when "
    "1 + both counts >= in_a_row.",
}
hint, solution = hints_for(HINTS, "06_connect_four.ipynb")


def _library_get_next_state(self: Any, state: np.ndarray, action: int, player: int) -> np.ndarray:
    return LIBRARY.get_next_state(state, action, player)


def _library_get_valid_moves(self: Any, state: np.ndarray) -> np.ndarray:
    return LIBRARY.get_valid_moves(state)


def _library_check_win(self: Any, state: np.ndarray, action: int | None) -> bool:
    return LIBRARY.check_win(state, action)


def playouts(count: int, seed: int) -> list[list[tuple[np.ndarray, int, int]]]:
    """``count`` random games (``positions.random_game``) as lists of ``(state before, column, player)``, each to
    its end, then ``(final state, -1, 0)``."""
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(count):
        moves = positions.random_game(LIBRARY, rng)
        before = [LIBRARY.get_initial_state(), *(state for state, _, _, _ in moves)]
        played = [(state, column, player) for state, (_, column, player, _) in zip(before[:-1], moves, strict=True)]
        games.append([*played, (before[-1], -1, 0)])
    return games


def _position(columns: list[int]) -> np.ndarray:
    """The state after dropping pieces in ``columns``, players alternating from 1."""
    state, player = LIBRARY.get_initial_state(), 1
    for column in columns:
        state = state.copy()
        LIBRARY._apply(state, column, player)  # as get_next_state, but a test position may hold a line already
        player = -player
    return state


def _full_column_state() -> np.ndarray:
    return _position([3, 3, 3, 3, 3, 3])


# ---- exercise 1: gravity ------------------------------------------------------------------------------------
def check_get_next_state(cls: type) -> type:
    """``get_next_state(state, action, player)``: a new array, ``player``'s piece in the lowest empty row of
    column ``action``; the input is left unchanged; a full column raises ``ValueError``.

    Cases: every move of 40 seeded random games (both players, every column, stacks up to the top row), the
    corner columns, and a full column.
    """

    def cases(cls: type) -> list[Case]:
        out = [
            _next_case(LIBRARY.get_initial_state(), 0, 1, "the empty board: the piece lands in the bottom row."),
            _next_case(LIBRARY.get_initial_state(), 6, -1, "the last column, player -1."),
            _next_case(_position([3, 3, 3, 3, 3]), 3, 1, "one free cell left: the top row (row 0)."),
        ]
        full = _full_column_state()
        out.append(
            Case(
                f"game.get_next_state({board(full)}, 3, 1)",
                lambda g, s=full: _expect_value_error(g, s, 3),
                "ValueError",
                "a full column is not a legal move: raise ValueError (say which column).",
            )
        )
        for moves in playouts(40, seed=60):
            for state, column, player in moves[:-1]:
                out.append(_next_case(state, column, player, "the piece falls to the LOWEST empty row."))
        return out

    return check_method(cls, "get_next_state", _library_get_next_state, cases, mistakes=NEXT_MISTAKES)


def _drop_with(kind: str) -> Any:
    def get_next_state(self: Any, state: np.ndarray, action: int, player: int) -> np.ndarray:
        empty = np.flatnonzero(state[:, action] == 0)
        if len(empty) == 0:
            raise ValueError(f"column {action} is full")
        out = state.copy()
        out[empty[0] if kind == "top" else empty[-1], action] = 1 if kind == "one" else player
        return out

    return get_next_state


NEXT_MISTAKES = [
    Mistake("the piece falls to the LOWEST empty row of the column (row 5 is the bottom row, row 0 the top): the "
            "last of np.flatnonzero(state[:, action] == 0)", _drop_with("top")),
    Mistake("put player's piece (1 or -1), not always 1", _drop_with("one")),
]  # fmt: skip


def _next_case(state: np.ndarray, column: int, player: int, hint: str) -> Case:
    expected = LIBRARY.get_next_state(state, column, player)

    def run(g: Any) -> np.ndarray:
        given = state.copy()
        got = g().get_next_state(given, column, player)
        if not np.array_equal(given, state):
            raise Mismatch(given, state, "the input state was changed: copy it first (state.copy()).")
        if got is None:
            raise Mismatch(got, expected, "return the new state.")
        return got

    return Case(f"game.get_next_state({board(state)}, {column}, {player})", run, expected, hint)


def _expect_value_error(game_class: Any, state: np.ndarray, column: int) -> str:
    try:
        game_class().get_next_state(state.copy(), column, 1)
    except ValueError:
        return "ValueError"
    except IndexError as error:
        raise Mismatch(f"IndexError: {error}", "ValueError", "check the top cell first and raise ValueError.") from None
    return "no error"


# ---- exercise 2: legal columns ------------------------------------------------------------------------------
def check_get_valid_moves(cls: type) -> type:
    """``get_valid_moves(state)``: ``[7]`` of 0/1, a column is legal while its top cell (row 0) is empty.

    Cases: the empty board, full columns at both edges, a full board, and positions of 20 seeded random games.
    """

    def cases(cls: type) -> list[Case]:
        positions = [
            LIBRARY.get_initial_state(),
            _full_column_state(),
            _position([0] * 6 + [6] * 6),
            _position([0, 1, 2, 3, 4, 5, 6] * 6),
        ]
        for moves in playouts(20, seed=61):
            positions += [state for state, _, _ in moves]
        out = []
        for state in positions:
            expected = LIBRARY.get_valid_moves(state)
            out.append(
                Case(
                    f"game.get_valid_moves({board(state)})",
                    lambda g, s=state: g().get_valid_moves(s.copy()),
                    expected,
                    "a column is legal while its TOP cell (row 0) is empty; return one 0/1 entry per column.",
                )
            )
        return out

    return check_method(cls, "get_valid_moves", _library_get_valid_moves, cases, mistakes=VALID_MISTAKES)


VALID_MISTAKES = [
    Mistake("a column is legal while its TOP cell (row 0) is empty; the bottom row fills first",
            lambda self, state: (state[-1] == 0).astype(np.uint8)),
    Mistake("one 0/1 entry per column (is there room?), not the number of empty cells in it",
            lambda self, state: (state == 0).sum(axis=0)),
    Mistake("one entry per column (7), not one per cell: look at the top row only",
            lambda self, state: (state.reshape(-1) == 0).astype(np.uint8)),
]  # fmt: skip


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
    column) makes ``in_a_row`` in a line: horizontal, vertical or one of the two diagonals. ``None``: False.

    Cases: the edge cases above, ``action=None``, and after every move of 60 seeded random games.
    """

    def cases(cls: type) -> list[Case]:
        out = [
            Case(
                "game.check_win(<empty board>, None)",
                lambda g: g().check_win(LIBRARY.get_initial_state(), None),
                False,
                "no action yet (None) means no win.",
            )
        ]
        for columns, hint in EDGE_CASES:
            state = _position(columns)
            out.append(_win_case(state, columns[-1], hint))
        for moves in playouts(60, seed=62):
            for (_, column, _), (after, _, _) in itertools.pairwise(moves):
                out.append(_win_case(after, column, "look along all four directions through the landing cell."))
        return out

    return check_method(cls, "check_win", _library_check_win, cases, mistakes=WIN_MISTAKES)


def _win_case(state: np.ndarray, column: int, hint: str) -> Case:
    expected = LIBRARY.check_win(state, column)

    def run(g: Any) -> Any:
        given = state.copy()
        got = g().check_win(given, column)
        if not np.array_equal(given, state):
            raise Mismatch(given, state, "check_win only reads the board: do not write into it.")
        return got

    return Case(f"game.check_win({board(state)}, {column})", run, expected, hint, same=same)


def _win_with(kind: str) -> Any:
    directions = {
        "no diagonals": [(0, 1), (1, 0)],
        "one diagonal": [(0, 1), (1, 0), (1, 1)],
    }.get(kind, [(0, 1), (1, 0), (1, 1), (1, -1)])

    def check_win(self: Any, state: np.ndarray, action: int | None) -> bool:
        if action is None:
            return False
        filled = np.flatnonzero(state[:, action] != 0)
        row = int(filled.max() if kind == "bottom piece" else filled.min())
        player = state[row, action]
        need = 3 if kind == "three" else 4

        def count(dr: int, dc: int) -> int:
            r, c, found = row + dr, action + dc, 0
            while 0 <= r < 6 and 0 <= c < 7 and (state[r, c] != 0 if kind == "any colour" else state[r, c] == player):
                r, c, found = r + dr, c + dc, found + 1
            return found

        return any(1 + count(dr, dc) + (0 if kind == "one way" else count(-dr, -dc)) >= need for dr, dc in directions)

    return check_win


WIN_MISTAKES = [
    Mistake("count both ways along each direction: the last piece can complete a line in its middle",
            _win_with("one way")),
    Mistake("the two diagonals count too: directions (1, 1) and (1, -1)", _win_with("no diagonals")),
    Mistake("both diagonals count: '\\' is (1, 1), '/' is (1, -1)", _win_with("one diagonal")),
    Mistake("the piece just dropped is the TOP piece of its column: the smallest row that is not empty",
            _win_with("bottom piece")),
    Mistake("a win needs in_a_row (4) pieces in a line, not 3", _win_with("three")),
    Mistake("count only the mover's pieces (state[r, c] == player), not any piece", _win_with("any colour")),
]  # fmt: skip
