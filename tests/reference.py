"""Independent, deliberately naive rule implementations the tests check the library against."""

from __future__ import annotations

import numpy as np

DIRECTIONS8 = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def has_line(state: np.ndarray, player: int, in_a_row: int) -> bool:
    """Brute force: does ``player`` own ``in_a_row`` cells in a line anywhere on the board."""
    rows, cols = state.shape
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(in_a_row)]
                if all(0 <= rr < rows and 0 <= cc < cols and state[rr, cc] == player for rr, cc in cells):
                    return True
    return False


def othello_flips(state: np.ndarray, row: int, col: int, player: int) -> list[tuple[int, int]]:
    """Cells flipped if ``player`` puts a disc on empty ``(row, col)``, walking each direction by hand."""
    n = state.shape[0]
    if state[row, col] != 0:
        return []
    flipped = []
    for dr, dc in DIRECTIONS8:
        run = []
        r, c = row + dr, col + dc
        while 0 <= r < n and 0 <= c < n and state[r, c] == -player:
            run.append((r, c))
            r, c = r + dr, c + dc
        if run and 0 <= r < n and 0 <= c < n and state[r, c] == player:
            flipped += run
    return flipped


def othello_moves(state: np.ndarray, player: int) -> list[int]:
    """Placing moves of ``player`` as action numbers."""
    n = state.shape[0]
    return [r * n + c for r in range(n) for c in range(n) if othello_flips(state, r, c, player)]


def othello_play(state: np.ndarray, action: int, player: int) -> np.ndarray:
    """The reference next state (``action == n*n`` is a pass)."""
    n = state.shape[0]
    out = state.copy()
    if action == n * n:
        return out
    r, c = divmod(action, n)
    for rr, cc in othello_flips(state, r, c, player):
        out[rr, cc] = player
    out[r, c] = player
    return out
