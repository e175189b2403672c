"""Connect Four, with ConnectX's parameters (rows, columns, in_a_row)."""

from __future__ import annotations

from typing import Any

import numpy as np

from alphazero_lib.games.base import Game
from alphazero_lib.games.style import BoardStyle
from alphazero_lib.games.tictactoe import line_through


class ConnectFour(Game):
    """Connect Four: drop a piece into a column (the action); ``in_a_row`` in any line wins.

    Row 0 is the top of the board, as in kaggle-environments' ConnectX.
    """

    registry_name = "connect_four"
    #: Red and yellow discs in the white holes of a blue board; a heatmap's column values go in a strip above it.
    board_style = BoardStyle(
        background="#1f4e9c",
        pieces="disc",
        colors=("#e53935", "#fdd835"),
        color_names=("red", "yellow"),
        hole_color="#ffffff",
        heatmap="columns",
    )

    def __init__(self, rows: int = 6, columns: int = 7, in_a_row: int = 4) -> None:
        for label, value in (("rows", rows), ("columns", columns), ("in_a_row", in_a_row)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{label} must be a positive integer, got {value!r}")
        if in_a_row > max(rows, columns):
            raise ValueError(f"in_a_row={in_a_row} cannot fit on a {rows} x {columns} board")
        self.row_count = int(rows)
        self.column_count = int(columns)
        self.in_a_row = int(in_a_row)
        self._line_length = self.in_a_row
        self.action_size = self.column_count

    @property
    def options(self) -> dict[str, Any]:
        return {"rows": self.row_count, "columns": self.column_count, "in_a_row": self.in_a_row}

    @property
    def max_game_length(self) -> int:
        return self.row_count * self.column_count

    def get_valid_moves(self, state: np.ndarray, player: int = 1) -> np.ndarray:
        return self._valid_moves(self.check_state(state), player)

    def _valid_moves(self, state: np.ndarray, player: int) -> np.ndarray:
        return (state[0] == 0).astype(np.uint8)

    def _apply(self, state: np.ndarray, action: int, player: int) -> None:
        row = np.max(np.flatnonzero(state[:, action] == 0))
        state[row, action] = player

    def _illegal_reason(self, state: np.ndarray, action: int, player: int) -> str:
        return f"column {action} is full"

    def check_win(self, state: np.ndarray, action: int | None) -> bool:
        return self._win(self.check_state(state), action)

    def _win(self, state: np.ndarray, action: int | None) -> bool:
        if action is None:
            return False
        filled = np.flatnonzero(state[:, action] != 0)
        if filled.size == 0:
            return False
        return line_through(state, int(filled[0]), int(action), self.in_a_row)

    @property
    def num_symmetries(self) -> int:
        return 2

    def apply_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if k == 0:
            return np.array(state, copy=True), np.array(policy, copy=True)
        return np.fliplr(state).copy(), np.asarray(policy)[::-1].copy()

    invert_symmetry = apply_symmetry  # both symmetries are their own inverse

    def action_to_string(self, action: int) -> str:
        return str(int(action))

    def render(self, state: np.ndarray) -> str:
        marks = {1: "X", -1: "O", 0: "."}
        rows = ["| " + " ".join(marks[int(v)] for v in row) + " |" for row in state]
        footer = "  " + " ".join(str(c % 10) for c in range(self.column_count))
        return "\n".join([*rows, footer])
