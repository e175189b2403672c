"""Game rules on batches of canonical states, vectorised with numpy for the batched search.

Every function here works on *canonical* states ``[B, R, C]`` (int8, the player to move owns the 1s) and
mirrors one step of the serial search::

    child = game.change_perspective(game.get_next_state(state, action, 1), -1)
    value, terminated = game.get_value_and_terminated(child, action)

``batched_rules_for(game)`` takes the rules a game offers (``game.batched_rules()``: Tic-Tac-Toe and Connect Four
offer ``LineGameRules``) and a per-game loop over the game's own methods for anything else (Othello), so every game
works; this module knows no game class.
"""

from __future__ import annotations

import numpy as np

from alphazero_lib.games.base import STATE_DTYPE, Game


class BatchedRules:
    """The generic rules: a Python loop over the batch calling the game's own methods (any game)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.action_size = game.action_size

    def valid_moves(self, states: np.ndarray) -> np.ndarray:
        """Legal actions of the player to move: ``states [B, R, C] -> bool [B, A]``."""
        return np.array([self.game.get_valid_moves(s) for s in states], dtype=bool).reshape(-1, self.action_size)

    def child_states(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """The mover (1) plays ``actions [B]`` on ``states [B, R, C]``; the results seen by the opponent."""
        game = self.game
        out = np.empty_like(states)
        for i, (state, action) in enumerate(zip(states, actions, strict=True)):
            out[i] = game.change_perspective(game.get_next_state(state, int(action), 1), -1)
        return out

    def value_and_terminated(self, child_states: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``game.get_value_and_terminated`` for a batch: ``(value float64 [B], terminated bool [B])``.

        ``child_states [B, R, C]`` are seen by the player to move after ``actions [B]``; value 1 means the
        player who just played the action won.
        """
        results = [self.game.get_value_and_terminated(s, int(a)) for s, a in zip(child_states, actions, strict=True)]
        values = np.array([v for v, _ in results], dtype=np.float64)
        terminated = np.array([t for _, t in results], dtype=bool)
        return values, terminated

    def step(self, states: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One move of the search: ``(child_states [B, R, C], value [B], terminated [B], valid [B, A])``.

        ``child_states`` are seen by the opponent, ``value`` is 1 where the mover won, ``valid`` the opponent's
        legal moves in the child states.
        """
        children = self.child_states(states, actions)
        values, terminated = self.value_and_terminated(children, actions)
        return children, values, terminated, self.valid_moves(children)


def _lines_through_cells(rows: int, columns: int, in_a_row: int) -> np.ndarray:
    """For every cell, the flat indices of every ``in_a_row`` line through it: ``[R * C, L, in_a_row]``.

    Cells with fewer lines repeat their first line (a repeated line changes no ``any``); a cell on no line
    at all (impossible when ``in_a_row <= max(R, C)``) would get a line of itself only.
    """
    lines: list[list[list[int]]] = [[] for _ in range(rows * columns)]
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(rows):
            for c in range(columns):
                cells = [(r + i * dr, c + i * dc) for i in range(in_a_row)]
                if all(0 <= rr < rows and 0 <= cc < columns for rr, cc in cells):
                    flat = [rr * columns + cc for rr, cc in cells]
                    for cell in flat:
                        lines[cell].append(flat)
    width = max(len(x) for x in lines)
    table = np.empty((rows * columns, width, in_a_row), dtype=np.intp)
    for cell, cell_lines in enumerate(lines):
        cell_lines = cell_lines or [[cell] * in_a_row]
        table[cell] = cell_lines + [cell_lines[0]] * (width - len(cell_lines))
    return table


class LineGameRules(BatchedRules):
    """Vectorised rules for the place-a-piece line games (Tic-Tac-Toe, Connect Four): no loop over the batch.

    A win is checked on the lines through the cell just played only (as ``game.check_win`` does), with one
    gather ``[B, L, in_a_row]`` from a precomputed table of lines through every cell.
    """

    def __init__(self, game: Game, in_a_row: int, drop: bool) -> None:
        super().__init__(game)
        self.rows, self.columns = game.row_count, game.column_count
        self.cells = self.rows * self.columns
        self.drop = drop  # Connect Four: the action is a column and the piece falls to its lowest empty cell
        self.lines = _lines_through_cells(self.rows, self.columns, in_a_row)

    def valid_moves(self, states: np.ndarray) -> np.ndarray:
        if self.drop:
            return states[:, 0, :] == 0
        return states.reshape(len(states), -1) == 0

    def played_cells(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """The flat cell index ``[B]`` where each action's piece lands (the actions must be legal)."""
        actions = np.asarray(actions, dtype=np.intp)
        if not self.drop:
            return actions
        column = states[np.arange(len(states)), :, actions]  # [B, R]
        row = np.count_nonzero(column == 0, axis=1) - 1  # the lowest empty cell (row 0 is the top)
        return row * self.columns + actions

    def child_states(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        cells = self.played_cells(states, actions)
        out = np.negative(states).reshape(len(states), -1)
        if np.any(out[np.arange(len(out)), cells] != 0):
            bad = int(np.flatnonzero(out[np.arange(len(out)), cells] != 0)[0])
            raise ValueError(f"illegal action {int(actions[bad])} in batch entry {bad}")
        out[np.arange(len(out)), cells] = -1  # the mover's piece, seen from the opponent's side
        return out.reshape(states.shape).astype(STATE_DTYPE, copy=False)

    def value_and_terminated(self, child_states: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        values, terminated, _ = self._value_terminated_valid(child_states, actions)
        return values, terminated

    def step(self, states: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        children = self.child_states(states, actions)
        return children, *self._value_terminated_valid(children, actions)

    def _value_terminated_valid(
        self, child_states: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        batch = len(child_states)
        flat = child_states.reshape(batch, -1)
        actions = np.asarray(actions, dtype=np.intp)
        if self.drop:  # the piece just played is the topmost one in its column
            column = child_states[np.arange(batch), :, actions]  # [B, R]
            cells = (self.rows - np.count_nonzero(column, axis=1)) * self.columns + actions
        else:
            cells = actions
        mover = flat[np.arange(batch), cells]  # [B], -1 in a child state reached in play
        line_cells = flat[np.arange(batch)[:, None, None], self.lines[cells]]  # [B, L, in_a_row]
        won = (line_cells == mover[:, None, None]).all(axis=2).any(axis=1) & (mover != 0)
        valid = self.valid_moves(child_states)
        full = ~valid.any(axis=1)
        return won.astype(np.float64), won | full, valid


def batched_rules_for(game: Game) -> BatchedRules:
    """The fastest batched rules available for ``game``: its own (``game.batched_rules()``), else the per-game loop."""
    rules = game.batched_rules()
    return rules if rules is not None else BatchedRules(game)
