"""Play a game against an agent inside a notebook (Jupyter, JupyterLab, Colab): a board of buttons.

``play(game, opponent)`` shows the board when a person is at the notebook and does nothing (one line) in a
headless kernel: nbval, CI, ``tools/run_notebooks.py`` set ``ALPHAZERO_HEADLESS=1``. The rules come from
``game`` alone through the course's API (``get_initial_state``, ``get_next_state``, ``get_valid_moves``,
``get_value_and_terminated``), so a learner's own game class can be played.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

Opponent = Callable[[np.ndarray, int], int]
SYMBOLS = {1: "X", -1: "O", 0: ""}
COLOURS = {1: "#d62728", -1: "#1f77b4", 0: "#ffffff"}


def interactive() -> bool:
    """Whether a person can click in this kernel: not when ``ALPHAZERO_HEADLESS`` is set or outside IPython."""
    if os.environ.get("ALPHAZERO_HEADLESS"):
        return False
    if "google.colab" in sys.modules:
        return True
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def as_opponent(agent: Any) -> Opponent:
    """A callable ``(state, player) -> action`` from a player object (``get_action``) or a callable."""
    if hasattr(agent, "get_action"):
        return agent.get_action
    if callable(agent):
        return agent
    raise TypeError(f"an opponent is a function (state, player) -> action or has get_action; got {agent!r}")


def search_agent(game: Any, search: Callable[[np.ndarray], np.ndarray]) -> Opponent:
    """An agent from a search ``canonical state -> move probabilities``: it plays the most visited move."""

    def agent(state: np.ndarray, player: int) -> int:
        probs = np.asarray(search(game.change_perspective(state, player)))
        return int(np.argmax(probs))

    return agent


class PlaySession:
    """The game logic behind the board, testable without a screen: a person (``human``) against ``opponent``.

    ``opponent=None`` is a game between two people at one screen (a friend): every click plays for the side to move.
    """

    def __init__(self, game: Any, opponent: Any, human: int = 1) -> None:
        if human not in (1, -1):
            raise ValueError(f"human must be 1 (moves first) or -1 (moves second), got {human!r}")
        self.game, self.human = game, human
        self.opponent = None if opponent is None else as_opponent(opponent)
        self.new_game()

    @property
    def columns_only(self) -> bool:
        """Connect Four style: one action per column (the piece falls); otherwise one action per cell."""
        return self.game.action_size == self.game.column_count

    def new_game(self) -> None:
        """Start again from the empty board; the agent opens when the person moves second."""
        self.state = np.asarray(self.game.get_initial_state())
        self.player, self.over, self.moves = 1, False, []
        self.message = "Your move." if self.opponent is not None else "X to move."
        if self.human == -1 and self.opponent is not None:
            self._agent_move()

    def legal(self) -> np.ndarray:
        """The legal actions now, empty when the game is over."""
        if self.over:
            return np.zeros(0, dtype=int)
        return np.flatnonzero(self.game.get_valid_moves(self.state))

    def _play(self, action: int) -> None:
        self.state = np.asarray(self.game.get_next_state(self.state, int(action), self.player))
        self.moves.append(int(action))
        value, terminated = self.game.get_value_and_terminated(self.state, int(action))
        if terminated:
            self.over = True
            if self.opponent is None:
                mover = SYMBOLS[self.player]
            else:
                mover = "You" if self.player == self.human else "The agent"
            self.message = f"{mover} won." if value == 1 else "A draw."
        self.player = -self.player

    def _agent_move(self) -> None:
        action = int(self.opponent(self.state.copy(), self.player))
        self._play(action)
        if not self.over:
            self.message = f"The agent played {action}. Your move."

    def click(self, action: int) -> str:
        """The person plays ``action``; the agent answers. Returns the message to show."""
        if self.over:
            self.message = "The game is over: press 'New game'."
        elif self.opponent is not None and self.player != self.human:
            self.message = "Wait for the agent's move."
        elif action not in self.legal():
            self.message = f"{action} is not legal now; legal: {self.legal().tolist()}."
        else:
            self._play(action)
            if not self.over and self.opponent is not None:
                self._agent_move()
            elif not self.over:
                self.message = f"{SYMBOLS[self.player]} to move."
        return self.message


def play(game: Any, opponent: Any = None, human: int = 1, title: str = "") -> None:
    """Show a clickable board for a game against ``opponent`` (``None``: two people take turns at one screen).

    In a headless kernel it prints one line instead. Returns None, so a play cell shows the board and nothing
    under it (a returned object would be echoed as ``<...PlaySession at 0x...>``).
    """
    if not interactive():
        print(f"Play cell: {title or 'a game against the agent'} (shown only in an interactive notebook).")
        return None
    try:
        import ipywidgets  # noqa: F401 (board builds with it)
        from IPython.display import display
    except ImportError:
        print("Play cell: needs ipywidgets (`pip install ipywidgets`); Colab has it.")
        return None
    display(board(game, opponent, human, title)[0])
    return None


def board(game: Any, opponent: Any = None, human: int = 1, title: str = "") -> tuple[Any, PlaySession]:
    """The board of ``play`` without showing it: ``(an ipywidgets VBox, its PlaySession)``.

    Core widgets only (``HTML``, ``Button``, ``ToggleButtons``, ``GridBox``, ``HBox``, ``VBox``), which Colab's own
    widget manager renders with no opt-in, and which ipywidgets 7 and 8 both have.
    """
    import ipywidgets as widgets

    session = PlaySession(game, opponent, human=human)
    rows, columns = game.row_count, game.column_count
    status = widgets.HTML()
    cell_layout = widgets.Layout(width="44px", height="44px")
    cells = [widgets.Button(layout=cell_layout) for _ in range(rows * columns)]
    drops = [widgets.Button(description="↓", layout=widgets.Layout(width="44px")) for _ in range(columns)]

    def redraw() -> None:
        legal = set(session.legal().tolist())
        for index, button in enumerate(cells):
            value = int(session.state[index // columns, index % columns])
            button.description = SYMBOLS[value]
            button.style.button_color = COLOURS[value] if session.columns_only else "#f7f7f7"
            button.disabled = session.columns_only or index not in legal
        for column, button in enumerate(drops):
            button.disabled = column not in legal
        side_text = f"You are {SYMBOLS[session.human]}. " if session.opponent is not None else ""
        status.value = f"<b>{title}</b> {side_text}{session.message}"

    def on_cell(index: int) -> Callable[[Any], None]:
        def handler(_button: Any) -> None:
            session.click(index)
            redraw()

        return handler

    for index, button in enumerate(cells):
        button.on_click(on_cell(index))
    for column, button in enumerate(drops):
        button.on_click(on_cell(column))
    side = widgets.ToggleButtons(options=[("I move first (X)", 1), ("I move second (O)", -1)], value=human)
    restart = widgets.Button(description="New game")

    def on_restart(_button: Any) -> None:
        session.human = side.value
        session.new_game()
        redraw()

    restart.on_click(on_restart)
    grid = widgets.GridBox(cells, layout=widgets.Layout(grid_template_columns=f"repeat({columns}, 46px)"))
    parts = [status] + ([widgets.HBox(drops)] if session.columns_only else []) + [grid, widgets.HBox([side, restart])]
    redraw()
    return widgets.VBox(parts), session
