"""kaggle-environments adapters: its built-in ConnectX and tic-tac-toe agents as library players.

kaggle-environments is an optional extra (``pip install -e '.[kaggle]'``); it is imported only when used.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import random
from typing import Any

import numpy as np

from alphazero_lib.games.base import Game
from alphazero_lib.games.connect_four import ConnectFour
from alphazero_lib.games.tictactoe import TicTacToe
from alphazero_lib.players import Player


def kaggle_agents(game: Game) -> dict[str, Any]:
    """kaggle-environments' built-in agents (name -> function) for ``game``'s environment."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # it prints about environments it cannot load
            if isinstance(game, ConnectFour):
                from kaggle_environments.envs.connectx.connectx import agents
            elif isinstance(game, TicTacToe):
                from kaggle_environments.envs.tictactoe.tictactoe import agents
            else:
                raise ValueError(f"kaggle-environments has agents for connect_four and tictactoe only, not {game!r}")
    except ImportError:
        raise ValueError(
            "kaggle players need kaggle-environments, an optional extra: pip install -e '.[kaggle]'"
        ) from None
    return dict(agents)


def to_observation(game: Game, state: np.ndarray, player: int) -> tuple[Any, Any]:
    """``(observation, configuration)`` as kaggle agents read them: a flat board of 0/1/2 and the mover's mark."""
    from kaggle_environments.utils import Struct

    board = [0 if v == 0 else (1 if v == 1 else 2) for v in np.asarray(state).reshape(-1).tolist()]
    observation = Struct(board=board, mark=1 if player == 1 else 2)
    configuration = Struct(rows=game.row_count, columns=game.column_count, inarow=getattr(game, "in_a_row", 3))
    return observation, configuration


class KagglePlayer(Player):
    """One of kaggle-environments' built-in agents (e.g. ConnectX's ``negamax``), seeded and reproducible.

    The agents draw from Python's global ``random``; the player swaps in its own ``random`` state around
    every call and restores the caller's afterwards.
    """

    def __init__(self, game: Game, agent: str, seed: int | None = None) -> None:
        super().__init__(game)
        agents = kaggle_agents(game)
        if agent not in agents:
            raise ValueError(f"kaggle-environments has no agent {agent!r} for {game!r}; known: {sorted(agents)}")
        self.agent = agents[agent]
        self.takes_configuration = len(inspect.signature(self.agent).parameters) >= 2
        self.random_state = random.Random(seed).getstate()
        self.name = f"kaggle:{agent}"

    def get_action(self, state: np.ndarray, player: int) -> int:
        observation, configuration = to_observation(self.game, state, player)
        outer = random.getstate()
        random.setstate(self.random_state)
        try:
            action = self.agent(observation, configuration) if self.takes_configuration else self.agent(observation)
        finally:
            self.random_state = random.getstate()
            random.setstate(outer)
        return int(action)
