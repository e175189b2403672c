"""The course's games and a registry to make them by name."""

from __future__ import annotations

from typing import Any

from alphazero_lib.games.base import Game
from alphazero_lib.games.connect_four import ConnectFour
from alphazero_lib.games.othello import Othello
from alphazero_lib.games.style import BoardStyle
from alphazero_lib.games.tictactoe import TicTacToe

#: name -> (class, default options); ``othello6`` is the course's Othello 6x6.
GAMES: dict[str, tuple[type[Game], dict[str, Any]]] = {
    "tictactoe": (TicTacToe, {}),
    "connect_four": (ConnectFour, {}),
    "othello": (Othello, {}),
    "othello6": (Othello, {"size": 6}),
}


def make_game(name: str, **options: Any) -> Game:
    """A game by registry name (``tictactoe``, ``connect_four``, ``othello``, ``othello6``) with options.

    >>> make_game("connect_four", rows=5, columns=6, in_a_row=4)
    ConnectFour(rows=5, columns=6, in_a_row=4)
    """
    key = str(name).lower().replace("-", "_")
    if key not in GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {sorted(GAMES)}")
    cls, defaults = GAMES[key]
    try:
        return cls(**{**defaults, **options})
    except TypeError as err:
        raise ValueError(f"bad options {options} for game {name!r}: {err}") from None


__all__ = ["GAMES", "BoardStyle", "ConnectFour", "Game", "Othello", "TicTacToe", "make_game"]
