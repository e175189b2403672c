"""Tic-Tac-Toe: the course's first game."""

from __future__ import annotations

from typing import Any

import numpy as np

from alphazero_lib.games.base import Game, check_stone_counts, inverse_square_symmetry, square_symmetry
from alphazero_lib.games.style import BoardStyle

_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def line_through(state: np.ndarray, row: int, column: int, in_a_row: int) -> bool:
    """Whether the piece at ``(row, column)`` is part of ``in_a_row`` equal pieces in a line."""
    player = state[row, column]
    if player == 0:
        return False
    rows, columns = state.shape
    for dr, dc in _DIRECTIONS:
        count = 1
        for sign in (1, -1):
            r, c = row + sign * dr, column + sign * dc
            while 0 <= r < rows and 0 <= c < columns and state[r, c] == player:
                count += 1
                r, c = r + sign * dr, c + sign * dc
        if count >= in_a_row:
            return True
    return False


class TicTacToe(Game):
    """Tic-Tac-Toe on a 3 x 3 board; action ``a`` is the cell ``(a // 3, a % 3)``."""

    registry_name = "tictactoe"
    _line_length = 3
    #: X in red and O in blue on white, grey lines between the cells.
    board_style = BoardStyle(
        background="#ffffff",
        pieces="mark",
        colors=("#c62828", "#1565c0"),
        color_names=("red", "blue"),
        grid_color="#444444",
    )

    def __init__(self) -> None:
        self.row_count = 3
        self.column_count = 3
        self.action_size = self.row_count * self.column_count

    @property
    def options(self) -> dict[str, Any]:
        return {}

    @property
    def max_game_length(self) -> int:
        return self.action_size

    def get_valid_moves(self, state: np.ndarray, player: int = 1) -> np.ndarray:
        return self._valid_moves(self.check_state(state), self._check_player(player))

    def _valid_moves(self, state: np.ndarray, player: int) -> np.ndarray:
        return (state.reshape(-1) == 0).astype(np.uint8)

    def _apply(self, state: np.ndarray, action: int, player: int) -> None:
        state[action // self.column_count, action % self.column_count] = player

    def _illegal_reason(self, state: np.ndarray, action: int, player: int) -> str:
        return f"cell {action} is occupied"

    def batched_rules(self) -> Any:
        from alphazero_lib.games.batched_rules import LineGameRules

        return LineGameRules(self, in_a_row=3, drop=False)

    def check_win(self, state: np.ndarray, action: int | None) -> bool:
        return self._win(self.check_state(state, reachable=False), self._check_action_index(action))

    def _check_position(self, data: bytes) -> None:
        check_stone_counts(data)

    def _win(self, state: np.ndarray, action: int | None) -> bool:
        if action is None:
            return False
        return line_through(state, action // self.column_count, action % self.column_count, 3)

    @property
    def num_symmetries(self) -> int:
        return 8

    def apply_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k, policy = self._check_symmetry(k, policy)
        new_policy = square_symmetry(k, policy.reshape(3, 3)).reshape(-1)
        return square_symmetry(k, state).copy(), new_policy.copy()

    def invert_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k, policy = self._check_symmetry(k, policy)
        new_policy = inverse_square_symmetry(k, policy.reshape(3, 3)).reshape(-1)
        return inverse_square_symmetry(k, state).copy(), new_policy.copy()

    def action_to_string(self, action: int) -> str:
        return str(int(action))

    def render(self, state: np.ndarray) -> str:
        state = self.check_state(state, reachable=False)
        marks = {1: "X", -1: "O", 0: "."}
        lines = []
        for r in range(3):
            cells = [marks[int(v)] if v else str(r * 3 + c) for c, v in enumerate(state[r])]
            lines.append(" " + " | ".join(cells))
        return "\n---+---+---\n".join(lines)
