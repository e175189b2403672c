"""Connect Four, with ConnectX's parameters (rows, columns, in_a_row)."""

from __future__ import annotations

from typing import Any

import numpy as np

from alphazero_lib.games.base import Game, check_stone_counts
from alphazero_lib.games.style import BoardStyle
from alphazero_lib.games.tictactoe import line_through

#: The most rows or columns a Connect Four board may have.
MAX_SIZE = 32


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
            if value > MAX_SIZE:
                raise ValueError(
                    f"{label} must be at most {MAX_SIZE} (every state, search tree node and network input holds "
                    f"rows x columns cells), got {value!r}"
                )
        if in_a_row > max(rows, columns):
            raise ValueError(f"in_a_row={in_a_row} cannot fit on a {rows} x {columns} board")
        self.row_count = int(rows)
        self.column_count = int(columns)
        self.in_a_row = int(in_a_row)
        self._line_length = self.in_a_row
        self.action_size = self.column_count
        # the int8 board's bytes read as one integer: bit 0 of a cell's byte is set when a stone is there
        cells = self.row_count * self.column_count
        self._upper_cells = sum(1 << (8 * i) for i in range(cells - self.column_count))  # all but the bottom row
        self._row_bits = 8 * self.column_count

    @property
    def options(self) -> dict[str, Any]:
        return {"rows": self.row_count, "columns": self.column_count, "in_a_row": self.in_a_row}

    @property
    def max_game_length(self) -> int:
        return self.row_count * self.column_count

    def get_valid_moves(self, state: np.ndarray, player: int = 1) -> np.ndarray:
        return self._valid_moves(self.check_state(state), self._check_player(player))

    def _valid_moves(self, state: np.ndarray, player: int) -> np.ndarray:
        return (state[0] == 0).astype(np.uint8)

    def _apply(self, state: np.ndarray, action: int, player: int) -> None:
        row = np.max(np.flatnonzero(state[:, action] == 0))
        state[row, action] = player

    def _illegal_reason(self, state: np.ndarray, action: int, player: int) -> str:
        return f"column {action} is full"

    def batched_rules(self) -> Any:
        from alphazero_lib.games.batched_rules import LineGameRules

        return LineGameRules(self, in_a_row=self.in_a_row, drop=True)

    def check_win(self, state: np.ndarray, action: int | None) -> bool:
        return self._win(self.check_state(state, reachable=False), self._check_action_index(action))

    def _win(self, state: np.ndarray, action: int | None) -> bool:
        if action is None:
            return False
        filled = np.flatnonzero(state[:, action] != 0)
        if filled.size == 0:
            return False
        return line_through(state, int(filled[0]), int(action), self.in_a_row)

    def _check_position(self, data: bytes) -> None:
        """Stone counts, and gravity: no stone above an empty cell (a few big-integer operations)."""
        if not -1 <= data.count(1) - data.count(255) <= 1:
            check_stone_counts(data)  # raises, saying why
        board = int.from_bytes(data, "little")
        floating = board & ~(board >> self._row_bits) & self._upper_cells  # a stone with nothing below it
        if floating:
            cell = ((floating & -floating).bit_length() - 1) // 8
            row, column = divmod(cell, self.column_count)
            raise ValueError(
                f"this position cannot arise in Connect Four: the stone at row {row}, column {column} floats above "
                f"an empty cell (stones fall to the lowest empty row of their column)"
            )

    @property
    def num_symmetries(self) -> int:
        return 2

    def apply_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k, policy = self._check_symmetry(k, policy)
        if k == 0:
            return np.array(state, copy=True), np.array(policy, copy=True)
        return np.fliplr(state).copy(), np.asarray(policy)[::-1].copy()

    invert_symmetry = apply_symmetry  # both symmetries are their own inverse

    def action_to_string(self, action: int) -> str:
        return str(int(action))

    def render(self, state: np.ndarray) -> str:
        state = self.check_state(state, reachable=False)
        marks = {1: "X", -1: "O", 0: "."}
        rows = ["| " + " ".join(marks[int(v)] for v in row) + " |" for row in state]
        footer = "  " + " ".join(str(c % 10) for c in range(self.column_count))
        return "\n".join([*rows, footer])
