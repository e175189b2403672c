"""Othello (Reversi) on an n x n board, with a pass action; rules run on bitboards for speed."""

from __future__ import annotations

from typing import Any

import numpy as np

from alphazero_lib.games.base import STATE_DTYPE, Game, inverse_square_symmetry, square_symmetry
from alphazero_lib.games.style import BoardStyle

_DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
_LETTERS = "abcdefgh"


class Othello(Game):
    """Othello on a ``size`` x ``size`` board (even size, 4 to 8; default 6).

    Action ``r * size + c`` places a disc on ``(r, c)``; action ``size * size`` is a pass, legal only when the
    mover has no placing move while the opponent has one. The game ends when neither side can move; the
    side with more discs wins (equal counts draw). Player 1 (X, black) moves first.
    """

    registry_name = "othello"
    #: Black and white discs on a green board with black lines; columns a, b, c, ... and rows from 1, like the moves.
    board_style = BoardStyle(
        background="#2e7d32",
        pieces="disc",
        colors=("#000000", "#ffffff"),
        color_names=("black", "white"),
        grid_color="#000000",
        coordinates="letters",
    )

    def __init__(self, size: int = 6) -> None:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size % 2 or not 4 <= size <= 8:
            raise ValueError(f"Othello size must be an even integer from 4 to 8, got {size!r}")
        n = int(size)
        self.size = n
        self.row_count = n
        self.column_count = n
        self.pass_action = n * n
        self.action_size = n * n + 1
        self._full = (1 << (n * n)) - 1
        column0 = sum(1 << (r * n) for r in range(n))
        not_first = self._full & ~column0
        not_last = self._full & ~(column0 << (n - 1))
        # (shift, mask applied after shifting) for each of the 8 directions
        self._shifts = []
        for dr, dc in _DIRECTIONS:
            mask = self._full
            if dc == 1:
                mask &= not_first
            elif dc == -1:
                mask &= not_last
            self._shifts.append((dr * n + dc, mask))
        self._weights = (np.uint64(1) << np.arange(n * n, dtype=np.uint64)).astype(np.uint64)

    @property
    def options(self) -> dict[str, Any]:
        return {"size": self.size}

    @property
    def max_game_length(self) -> int:
        # every placement fills a cell; two passes in a row never happen (the game would be over)
        return 2 * (self.size * self.size - 4)

    # ---- bitboards ------------------------------------------------------------------------------
    def _bits(self, state: np.ndarray, player: int) -> int:
        return int((np.asarray(state).reshape(-1) == player).astype(np.uint64) @ self._weights)

    def _unpack(self, bits: int) -> np.ndarray:
        raw = np.frombuffer(bits.to_bytes(8, "little"), dtype=np.uint8)
        return np.unpackbits(raw, bitorder="little")[: self.size * self.size]

    @staticmethod
    def _shift(x: int, shift: int, mask: int) -> int:
        return ((x << shift) if shift > 0 else (x >> -shift)) & mask

    def _moves(self, own: int, opp: int) -> int:
        empty = self._full & ~(own | opp)
        moves = 0
        for shift, mask in self._shifts:
            t = self._shift(own, shift, mask) & opp
            for _ in range(self.size - 3):
                t |= self._shift(t, shift, mask) & opp
            moves |= self._shift(t, shift, mask) & empty
        return moves

    def _flips(self, own: int, opp: int, move: int) -> int:
        flips = 0
        for shift, mask in self._shifts:
            line = 0
            x = self._shift(move, shift, mask)
            while x & opp:
                line |= x
                x = self._shift(x, shift, mask)
            if x & own:
                flips |= line
        return flips

    # ---- rules ----------------------------------------------------------------------------------
    def get_initial_state(self) -> np.ndarray:
        state = np.zeros((self.size, self.size), dtype=STATE_DTYPE)
        h = self.size // 2
        state[h - 1, h - 1] = state[h, h] = -1
        state[h - 1, h] = state[h, h - 1] = 1
        return state

    def get_valid_moves(self, state: np.ndarray, player: int = 1) -> np.ndarray:
        state, player = self.check_state(state), self._check_player(player)
        own, opp = self._bits(state, player), self._bits(state, -player)
        mask = np.zeros(self.action_size, dtype=np.uint8)
        moves = self._moves(own, opp)
        if moves:
            mask[: self.pass_action] = self._unpack(moves)
        elif self._moves(opp, own):
            mask[self.pass_action] = 1
        return mask

    def is_over(self, state: np.ndarray) -> bool:
        """Whether neither side has a move."""
        state = self.check_state(state)
        own, opp = self._bits(state, 1), self._bits(state, -1)
        return not self._moves(own, opp) and not self._moves(opp, own)

    def _apply(self, state: np.ndarray, action: int, player: int) -> None:
        if action == self.pass_action:
            return
        own, opp = self._bits(state, player), self._bits(state, -player)
        flips = self._flips(own, opp, 1 << action)
        flat = state.reshape(-1)
        flat[self._unpack(flips).astype(bool)] = player
        flat[action] = player

    def _illegal_reason(self, state: np.ndarray, action: int, player: int) -> str:
        if self.is_over(state):
            return "the game is over"
        if action == self.pass_action:
            return "passing is allowed only when you have no move"
        if np.asarray(state).reshape(-1)[action] != 0:
            return f"cell {self.action_to_string(action)} is occupied"
        return f"a disc on {self.action_to_string(action)} flips nothing"

    def get_value_and_terminated(self, state: np.ndarray, action: int | None) -> tuple[float, bool]:
        action = self._check_action_index(action)
        if not self.is_over(state):
            return 0.0, False
        if action is None or action == self.pass_action:
            # unreachable in play: a pass is legal only when the opponent can move
            raise ValueError("the game is over, but the last action does not say who moved (None or a pass)")
        state = np.asarray(state)
        mover = state.reshape(-1)[action]
        diff = int(np.sum(state == mover)) - int(np.sum(state == -mover))
        return float(np.sign(diff)), True

    def check_win(self, state: np.ndarray, action: int | None) -> bool:
        action = self._check_action_index(action)
        if action is None or action == self.pass_action or not self.is_over(state):
            return False
        return self.get_value_and_terminated(state, action)[0] == 1.0

    def score(self, state: np.ndarray) -> int:
        """Disc difference from player 1's side (positive: player 1 ahead)."""
        return int(np.sum(state == 1)) - int(np.sum(state == -1))

    # ---- symmetries -----------------------------------------------------------------------------
    @property
    def num_symmetries(self) -> int:
        return 8

    def _transform(self, fn: Any, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k, policy = self._check_symmetry(k, policy)
        n = self.size
        board_part = fn(k, policy[: n * n].reshape(n, n)).reshape(-1)
        return fn(k, state).copy(), np.concatenate([board_part, policy[n * n :]])

    def apply_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._transform(square_symmetry, k, state, policy)

    def invert_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._transform(inverse_square_symmetry, k, state, policy)

    # ---- people ---------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if action == self.pass_action:
            return "pass"
        r, c = divmod(int(action), self.size)
        return f"{_LETTERS[c]}{r + 1}"

    def render(self, state: np.ndarray) -> str:
        state = self.check_state(state, reachable=False)
        marks = {1: "X", -1: "O", 0: "."}
        lines = ["  " + " ".join(_LETTERS[: self.size])]
        lines += [f"{r + 1} " + " ".join(marks[int(v)] for v in row) for r, row in enumerate(state)]
        return "\n".join(lines)
