"""Players: anything with a ``name`` and ``get_action(state, player) -> action``.

``state`` is absolute (1 = the first player's pieces) and ``player`` is the side to move (1 or -1).
"""

from __future__ import annotations

import numpy as np

from alphazero_lib.games.base import Game


class Player:
    """The player interface; subclasses choose an action for ``player`` in an absolute ``state``."""

    name = "player"

    def __init__(self, game: Game) -> None:
        self.game = game

    def get_action(self, state: np.ndarray, player: int) -> int:
        raise NotImplementedError

    def reset(self) -> None:
        """Forget anything kept between moves (called before each game)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class RandomPlayer(Player):
    """Plays a uniformly random legal move."""

    name = "random"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        super().__init__(game)
        self.rng = np.random.default_rng(seed)

    def get_action(self, state: np.ndarray, player: int) -> int:
        return int(self.rng.choice(self.game.legal_actions(state, player)))
