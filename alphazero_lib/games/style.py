"""How a game's board is drawn, as plain data that the drawing code reads (it knows no game by name)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

_CHOICES = {
    "pieces": ("disc", "mark"),
    "heatmap": ("cells", "columns"),
    "coordinates": ("numbers", "letters"),
}


@dataclass(frozen=True)
class BoardStyle:
    """The look of a board: ``plotting.draw_board`` (matplotlib) and ``animation.playoff_html`` (a web page) read
    it, so a new game with a style needs no change in drawing code. Colours are hex strings (``"#1f4e9c"``).

    Raises ``ValueError`` for a choice (``pieces``, ``heatmap``, ``coordinates``) that is not one of the listed words.
    """

    background: str
    """The board's colour."""
    pieces: Literal["disc", "mark"]
    """``"disc"``: a round disc per piece (Connect Four, Othello); ``"mark"``: the player's letter (Tic-Tac-Toe)."""
    colors: tuple[str, str]
    """The first and the second player's piece colour."""
    color_names: tuple[str, str]
    """Those two colours in words, for legends (``("red", "yellow")``)."""
    marks: tuple[str, str] = ("X", "O")
    """The players' letters: the pieces of a ``"mark"`` board, and the names in legends (``red = X``)."""
    hole_color: str | None = None
    """The colour of an empty cell's disc (Connect Four's white holes); None: empty cells show the board."""
    grid_color: str | None = None
    """The colour of the lines between cells; None: no lines (Connect Four)."""
    heatmap: Literal["cells", "columns"] = "cells"
    """Where a heatmap (one value per action) goes: ``"cells"``, on each action's empty cell, and actions past the
    cells (Othello's pass) are written under the board; ``"columns"``, in a strip above the board (action = column)."""
    coordinates: Literal["numbers", "letters"] = "numbers"
    """Axis labels: ``"numbers"``, rows and columns from 0; ``"letters"``, columns a, b, c, ... and rows from 1."""

    def __post_init__(self) -> None:
        for field, choices in _CHOICES.items():
            if getattr(self, field) not in choices:
                raise ValueError(f"BoardStyle {field} must be one of {list(choices)}, got {getattr(self, field)!r}")

    def piece_color(self, value: int) -> str | None:
        """The colour of a cell holding ``value`` (1, -1, or 0 for empty: the hole colour, or None)."""
        return {1: self.colors[0], -1: self.colors[1], 0: self.hole_color}[int(value)]

    def mark(self, value: int) -> str:
        """The letter of player ``value`` (1 or -1)."""
        return self.marks[0] if value == 1 else self.marks[1]


def style_of(game: Any) -> BoardStyle:
    """``game.board_style``; raises ``TypeError`` naming the game's class when it declares none."""
    style = getattr(game, "board_style", None)
    if not isinstance(style, BoardStyle):
        raise TypeError(
            f"{type(game).__name__} declares no board_style; give the class one to draw it, "
            "e.g. board_style = BoardStyle(background='#ffffff', pieces='mark', colors=('#c62828', '#1565c0'), "
            "color_names=('red', 'blue'), grid_color='#444444')"
        )
    return style
