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

from alphazero_lib.exercises.core import Case, Mismatch, board, check_method, same
from alphazero_lib.games import ConnectFour as LibraryConnectFour

LIBRARY = LibraryConnectFour()


def _library_get_next_state(self: Any, state: np.ndarray, action: int, player: int) -> np.ndarray:
    return LIBRARY.get_next_state(state, action, player)


def _library_get_valid_moves(self: Any, state: np.ndarray) -> np.ndarray:
    return LIBRARY.get_valid_moves(state)


def _library_check_win(self: Any, state: np.ndarray, action: int | None) -> bool:
    return LIBRARY.check_win(state, action)


def playouts(count: int, seed: int) -> list[list[tuple[np.ndarray, int, int]]]:
    """``count`` random games as lists of ``(state before, column, player)``, each to its end."""
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(count):
        state, player, moves = LIBRARY.get_initial_state(), 1, []
        while True:
            column = int(rng.choice(np.flatnonzero(LIBRARY.get_valid_moves(state))))
            moves.append((state, column, player))
            state = LIBRARY.get_next_state(state, column, player)
            if LIBRARY.get_value_and_terminated(state, column)[1]:
                break
            player = -player
        moves.append((state, -1, 0))  # the final position (no move)
        games.append(moves)
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
        game = cls()
        out = [
            _next_case(game, LIBRARY.get_initial_state(), 0, 1, "the empty board: the piece lands in the bottom row."),
            _next_case(game, LIBRARY.get_initial_state(), 6, -1, "the last column, player -1."),
            _next_case(game, _position([3, 3, 3, 3, 3]), 3, 1, "one free cell left: the top row (row 0)."),
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
                out.append(_next_case(game, state, column, player, "the piece falls to the LOWEST empty row."))
        return out

    return check_method(cls, "get_next_state", _library_get_next_state, cases)


def _next_case(game: Any, state: np.ndarray, column: int, player: int, hint: str) -> Case:
    expected = LIBRARY.get_next_state(state, column, player)

    def run(g: Any) -> np.ndarray:
        given = state.copy()
        got = game.get_next_state(given, column, player)
        if not np.array_equal(given, state):
            raise Mismatch(given, state, "the input state was changed: copy it first (state.copy()).")
        if got is None:
            raise Mismatch(got, expected, "return the new state.")
        return np.asarray(got)

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
        game = cls()
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
                    lambda g, s=state: np.asarray(game.get_valid_moves(s.copy())),
                    expected,
                    "a column is legal while its TOP cell (row 0) is empty; return one 0/1 entry per column.",
                )
            )
        return out

    return check_method(cls, "get_valid_moves", _library_get_valid_moves, cases)


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
        game = cls()
        out = [
            Case(
                "game.check_win(<empty board>, None)",
                lambda g: game.check_win(LIBRARY.get_initial_state(), None),
                False,
                "no action yet (None) means no win.",
            )
        ]
        for columns, hint in EDGE_CASES:
            state = _position(columns)
            out.append(_win_case(game, state, columns[-1], hint))
        for moves in playouts(60, seed=62):
            for (_, column, _), (after, _, _) in itertools.pairwise(moves):
                out.append(_win_case(game, after, column, "look along all four directions through the landing cell."))
        return out

    return check_method(cls, "check_win", _library_check_win, cases)


def _win_case(game: Any, state: np.ndarray, column: int, hint: str) -> Case:
    expected = LIBRARY.check_win(state, column)

    def run(g: Any) -> bool:
        got = game.check_win(state.copy(), column)
        if not isinstance(got, (bool, np.bool_)):
            raise Mismatch(got, expected, "return True or False.")
        return bool(got)

    return Case(f"game.check_win({board(state)}, {column})", run, expected, hint + ".", same=same)
