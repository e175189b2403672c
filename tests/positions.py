"""Canonical positions for search tests (the mover's pieces are 1): hand-made ones with one right move (win now, or
block), and random ones from playouts; a ConnectX board as Kaggle sends it; and the games these tests run over, read
from the registry."""

from __future__ import annotations

import numpy as np


def _c4(own: list[tuple[int, int]], opp: list[tuple[int, int]]) -> np.ndarray:
    state = np.zeros((6, 7), dtype=np.int8)
    for r, c in own:
        state[r, c] = 1
    for r, c in opp:
        state[r, c] = -1
    return state


#: (name, game name, canonical state, the only good move)
TACTICS = [
    # X X . / O O . / . . .  -> X wins at 2 (and O's threat at 5 does not matter)
    ("tictactoe-win", "tictactoe", np.array([[1, 1, 0], [-1, -1, 0], [0, 0, 0]], dtype=np.int8), 2),
    # X . . / O O . / . . X  -> X must block at 5
    ("tictactoe-block", "tictactoe", np.array([[1, 0, 0], [-1, -1, 0], [0, 0, 1]], dtype=np.int8), 5),
    # three in the bottom row, columns 0-2 -> win in column 3
    ("connect_four-win", "connect_four", _c4([(5, 0), (5, 1), (5, 2)], [(4, 0), (4, 1), (5, 6)]), 3),
    # the opponent has three stacked in column 0 -> block in column 0
    ("connect_four-block", "connect_four", _c4([(5, 1), (4, 1), (5, 5)], [(5, 0), (4, 0), (3, 0)]), 0),
]


def random_positions(game, count: int, seed: int) -> list[np.ndarray]:
    """Canonical non-terminal positions (the mover's pieces are 1) from random playouts, every stage of a game."""
    rng = np.random.default_rng(seed)
    positions: list[np.ndarray] = []
    while len(positions) < count:
        state, player = game.get_initial_state(), 1
        while True:
            positions.append(game.change_perspective(state, player))
            action = int(rng.choice(game.legal_actions(state, player)))
            state = game.get_next_state(state, action, player)
            if game.get_value_and_terminated(state, action)[1]:
                break
            player = -player
    return positions[:count]


def encoded_positions(game, count: int, seed: int = 0) -> np.ndarray:
    """``random_positions`` as the network reads them: ``[count, 3, rows, columns]``, float32."""
    return game.get_encoded_state(np.stack(random_positions(game, count, seed))).astype(np.float32)


def crowded_board() -> np.ndarray:
    """A ConnectX board (marks 1 and 2, as Kaggle sends it): columns 0 (the naive fallback) and 3 (the centre) full,
    the rest open; 7 stones each."""
    board = np.zeros((6, 7), dtype=int)
    board[:, 0] = [1, 2, 1, 2, 1, 2]
    board[:, 3] = [2, 1, 2, 1, 2, 1]
    board[5, 5], board[5, 6] = 1, 2
    return board


def distinct_games() -> list[str]:
    """One registry name per distinct game, in registry order (``othello`` and ``othello6`` make the same 6 x 6
    board): the games the search and self-play tests run over, read from the registry so that a game registered is a
    game tested."""
    from alphazero_lib.games import GAMES, make_game

    games = {}
    for name in GAMES:
        games.setdefault(make_game(name), name)
    return list(games.values())
