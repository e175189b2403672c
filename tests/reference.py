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


# ---- the reference rules of each registered game, for games.conformance.check_game ----------------------------
def reference_for(game):
    """A ``games.conformance.Reference`` of naive rules for ``game``, or None when the tests have none."""
    from alphazero_lib.games import ConnectFour, Othello, TicTacToe
    from alphazero_lib.games.conformance import Reference

    if type(game) is Othello:

        def valid(state, player):
            moves = othello_moves(state, player)
            if moves:
                return set(moves)
            return {game.pass_action} if othello_moves(state, -player) else set()

        def outcome(state, mover):
            if othello_moves(state, 1) or othello_moves(state, -1):
                return 0.0, False
            return float(np.sign(int(np.sum(state == mover)) - int(np.sum(state == -mover)))), True

        return Reference(valid, othello_play, outcome)
    if type(game) not in (ConnectFour, TicTacToe):
        return None
    drop, in_a_row = type(game) is ConnectFour, getattr(game, "in_a_row", 3)

    def line_valid(state, player):
        if drop:
            return {c for c in range(game.column_count) if state[0, c] == 0}
        return {a for a in range(state.size) if state.reshape(-1)[a] == 0}

    def line_next(state, action, player):
        out = state.copy()
        if drop:
            out[max(r for r in range(game.row_count) if out[r, action] == 0), action] = player
        else:
            out.reshape(-1)[action] = player
        return out

    def line_outcome(state, mover):
        if has_line(state, mover, in_a_row):
            return 1.0, True
        return 0.0, not (state == 0).any()

    return Reference(line_valid, line_next, line_outcome)
