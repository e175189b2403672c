"""Negamax with alpha-beta pruning for Connect Four on bitboards (any rows, columns and in_a_row).

Bit ``column * (rows + 1) + height`` is the cell ``height`` places above the bottom of ``column``; the extra
(always empty) bit on top of every column stops lines from wrapping round from one column into the next.
A position is ``(own, mask)``: the mover's stones and all stones.
"""

from __future__ import annotations

import numpy as np

from alphazero_lib.games.connect_four import ConnectFour

#: A win is worth ``WIN_SCORE`` minus the plies it takes, so quicker wins (and slower losses) score better.
WIN_SCORE = 1_000_000
#: What a window holding ``n`` of one side's stones and nothing of the other's is worth (n = 0, 1, 2, ...).
WINDOW_WEIGHTS = (0, 1, 4, 32)


class ConnectFourSolver:
    """Depth-limited negamax with alpha-beta and a line-window heuristic for one ConnectFour shape."""

    def __init__(self, game: ConnectFour) -> None:
        if not isinstance(game, ConnectFour):
            raise ValueError(f"the negamax player plays Connect Four only, not {game!r}")
        rows, columns, k = game.row_count, game.column_count, game.in_a_row
        self.rows, self.columns, self.in_a_row, self.height = rows, columns, k, rows + 1
        self.size = rows * columns
        self.bottom = [1 << (c * self.height) for c in range(columns)]
        self.column_mask = [((1 << rows) - 1) << (c * self.height) for c in range(columns)]
        self.top = [1 << (c * self.height + rows - 1) for c in range(columns)]
        self.order = sorted(range(columns), key=lambda c: (abs(2 * c - (columns - 1)), c))  # centre first
        self.windows = self._windows()
        weights = list(WINDOW_WEIGHTS) + [WINDOW_WEIGHTS[-1] * 8**i for i in range(1, k)]
        self.weights = weights[:k]
        self.nodes = 0

    def _windows(self) -> list[int]:
        """Bitmasks of every line of ``in_a_row`` cells on the board."""
        windows = []
        for c in range(self.columns):
            for h in range(self.rows):
                for dc, dh in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    cells = [(c + i * dc, h + i * dh) for i in range(self.in_a_row)]
                    if all(0 <= cc < self.columns and 0 <= hh < self.rows for cc, hh in cells):
                        windows.append(sum(1 << (cc * self.height + hh) for cc, hh in cells))
        return windows

    def from_state(self, state: np.ndarray, player: int) -> tuple[int, int]:
        """``(own, mask)`` bitboards of an absolute ``state`` for the mover ``player``."""
        own = mask = 0
        for c in range(self.columns):
            for h in range(self.rows):
                v = int(state[self.rows - 1 - h, c])
                if v:
                    bit = 1 << (c * self.height + h)
                    mask |= bit
                    if v == player:
                        own |= bit
        return own, mask

    def is_win(self, stones: int) -> bool:
        """Whether ``stones`` hold ``in_a_row`` in a line."""
        for shift in (1, self.height, self.height - 1, self.height + 1):
            m = stones
            for _ in range(self.in_a_row - 1):
                m &= m >> shift
            if m:
                return True
        return False

    def heuristic(self, own: int, opp: int) -> int:
        """Windows still open for the mover minus those open for the opponent, weighted by stones in them."""
        score, weights = 0, self.weights
        for w in self.windows:
            a, b = own & w, opp & w
            if a and not b:
                score += weights[a.bit_count()]
            elif b and not a:
                score -= weights[b.bit_count()]
        return score

    def negamax(self, own: int, mask: int, plies: int, depth: int, alpha: float, beta: float) -> float:
        """Score of the position for the mover, searching ``depth`` more plies (fail-hard alpha-beta)."""
        self.nodes += 1
        moves = [c for c in self.order if not mask & self.top[c]]
        for c in moves:  # a win now ends the search of this node
            if self.is_win(own | ((mask + self.bottom[c]) & self.column_mask[c])):
                return WIN_SCORE - plies - 1
        if not moves or plies + 1 >= self.size:
            return 0  # the board is (or will be) full without a win for the mover
        if depth == 0:
            return self.heuristic(own, mask ^ own)
        for c in moves:
            move = (mask + self.bottom[c]) & self.column_mask[c]
            new_mask = mask | move
            score = -self.negamax(new_mask ^ (own | move), new_mask, plies + 1, depth - 1, -beta, -alpha)
            if score >= beta:
                return score
            alpha = max(alpha, score)
        return alpha

    def move_scores(self, state: np.ndarray, player: int, depth: int) -> dict[int, float]:
        """Each legal column's score for ``player`` (exact for the best moves, an upper bound for worse ones).

        ``depth`` counts plies including the root move: 1 looks at each move's resulting position only.
        """
        if depth < 1:
            raise ValueError(f"negamax depth must be at least 1, got {depth}")
        own, mask = self.from_state(state, player)
        plies = mask.bit_count()
        scores: dict[int, float] = {}
        best = -float("inf")
        for c in self.order:
            if mask & self.top[c]:
                continue
            move = (mask + self.bottom[c]) & self.column_mask[c]
            if self.is_win(own | move):
                score = WIN_SCORE - plies - 1
            else:
                new_mask = mask | move
                # searching with alpha = best - 1 keeps ties with the best move exact and cuts worse ones early
                score = -self.negamax(new_mask ^ (own | move), new_mask, plies + 1, depth - 1, -float("inf"), -best + 1)
            scores[c] = score
            best = max(best, score)
        return scores
