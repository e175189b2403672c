"""The positions the course's checks run on, one module for every notebook.

Random games and the positions in them (live or finished, canonical or absolute, one by one or as a batch),
positions near the end of a game, positions where the player to move wins at once, and the hand-made
Tic-Tac-Toe positions that several notebooks share. Every random position comes from ``random_game``: one draw per
move, ``rng.choice`` over the legal moves, so a seeded check repeats its positions exactly.

States are absolute (player 1's pieces are 1) unless called canonical: seen by the player to move, whose pieces
are 1 (``game.change_perspective(state, player)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

Move = tuple[np.ndarray, int, int, bool]  # (state after the move, the move, the player who made it, game over)


def random_game(game: Any, rng: np.random.Generator, max_moves: int | None = None) -> list[Move]:
    """A uniformly random game of ``game`` from the empty board, the checks' one source of positions.

    One ``(state after the move, the move, the player who made it, whether it ended the game)`` per move, states
    absolute (player 1's pieces are 1); it stops at the end of the game, or after ``max_moves`` moves. Each move is
    one draw, ``rng.choice(np.flatnonzero(game.get_valid_moves(state, player)))`` (the library's games take the
    player to move: Othello's moves depend on it), so a seeded check repeats its positions.
    """
    state, player, moves = game.get_initial_state(), 1, []
    while max_moves is None or len(moves) < max_moves:
        legal = np.flatnonzero(game.get_valid_moves(state, player))
        if len(legal) == 0:
            break
        action = int(rng.choice(legal))
        state = game.get_next_state(state, action, player)
        ended = bool(game.get_value_and_terminated(state, action)[1])
        moves.append((state, action, player, ended))
        if ended:
            break
        player = -player
    return moves


def after(game: Any, moves: Sequence[Move]) -> tuple[np.ndarray, int]:
    """The absolute state after ``moves`` (a ``random_game``) and the player to move there (1 on the empty board)."""
    if not moves:
        return game.get_initial_state(), 1
    return moves[-1][0], -moves[-1][2]


def random_positions(
    game: Any, count: int, rng: np.random.Generator, most: int, *, canonical: bool = True, ended: str = "keep"
) -> list[np.ndarray]:
    """``count`` positions, each where a random game stands after ``rng.integers(0, most)`` moves.

    ``canonical``: seen by the player to move; otherwise absolute. A game that ended before its cut gives, with
    ``ended="keep"``, its final board; with ``"redraw"``, nothing (another game is drawn); with ``"before"``, the
    position before the ending move (its mover to move: a position with a winning move, or the last move of a
    draw). With ``"redraw"`` and ``"before"`` every position has a legal move.
    """
    out: list[np.ndarray] = []
    while len(out) < count:
        moves = random_game(game, rng, max_moves=int(rng.integers(0, most)))
        over = bool(moves) and moves[-1][3]
        if over and ended == "redraw":
            continue
        state, player = after(game, moves[:-1] if over and ended == "before" else moves)
        if canonical:
            state, player = game.change_perspective(state, player), 1
        if ended != "keep" and not game.get_valid_moves(state, player).any():
            continue
        out.append(state)
    return out


def batch(game: Any, count: int, rng: np.random.Generator, most: int, **how: Any) -> np.ndarray:
    """``random_positions`` stacked: ``[count, rows, columns]``, canonical and live (``ended="before"``) by default."""
    return np.stack(random_positions(game, count, rng, most, **{"ended": "before", **how}))


def live_positions(game: Any, count: int, seed: int) -> list[np.ndarray]:
    """The empty board, then those of ``count`` random canonical positions (cut anywhere in a game, seeded with
    ``seed``) where the game is not over."""
    states = random_positions(game, count, np.random.default_rng(seed), game.row_count * game.column_count)
    return [s for s in [game.get_initial_state(), *states] if not game.is_over(s)]


def played_positions(
    game: Any, rng: np.random.Generator, games: int, scripted: Iterable[Sequence[int]] = ()
) -> list[tuple[np.ndarray, int, int]]:
    """``(state after the move, the move, its player)`` for every move of the ``scripted`` games (lists of moves,
    the first by player 1), then of ``games`` random games; states absolute."""
    out = []
    for moves in scripted:
        state, player = game.get_initial_state(), 1
        for action in moves:
            state = game.get_next_state(state, action, player)
            out.append((state, int(action), player))
            player = -player
    for _ in range(games):
        out += [(state, action, player) for state, action, player, _ in random_game(game, rng)]
    return out


def game_boards(game: Any, count: int, rng: np.random.Generator) -> list[np.ndarray]:
    """The first ``count`` boards of random games played one after another: each game's empty board, then every
    position after it, finished ones too; absolute."""
    out: list[np.ndarray] = []
    while len(out) < count:
        out += [game.get_initial_state(), *(state for state, _, _ in played_positions(game, rng, 1))]
    return out[:count]


def tictactoe(rows: Sequence[Sequence[int]]) -> np.ndarray:
    """A Tic-Tac-Toe state from its rows, as the games make them (int8), read-only: shared, it is copied to be
    changed."""
    state = np.array(rows, dtype=np.int8)
    state.flags.writeable = False
    return state


# Hand-made canonical Tic-Tac-Toe positions (the player to move is 1) that several notebooks' checks use.
WIN_AT_2 = tictactoe([[1, 1, 0], [-1, -1, 0], [0, 0, 0]])  # the mover wins at 2 (O's threat at 5 can wait)
ONE_MOVE_LEFT = tictactoe([[1, -1, 1], [1, -1, -1], [-1, 1, 0]])  # cell 8 is the last move: a draw
