"""Build notebook 1's play board with whatever ipywidgets is importable, click through games, report as JSON.

``tests/test_play_board_widgets.py`` runs it with this environment's ipywidgets (8) and, in a subprocess, with
ipywidgets 7.7.1 (the version Colab's runtime has carried for its built-in widget manager) put first on the path:
the two must play the same games, and the board must use core widgets only (``@jupyter-widgets/controls`` and
``@jupyter-widgets/base``), which Colab renders without the third-party widget opt-in.

    python tests/play_board_probe.py                       # this environment's ipywidgets
    PYTHONPATH=build/ipywidgets7 python tests/play_board_probe.py
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np


def lowest_legal(game: Any):
    """A deterministic opponent: the lowest legal action."""

    def agent(state: np.ndarray, player: int) -> int:
        return int(np.flatnonzero(game.get_valid_moves(state))[0])

    return agent


def walk(widget: Any) -> list[Any]:
    """The widget, its layout and style, and every child, depth first."""
    found = [widget]
    for part in ("layout", "style"):
        if getattr(widget, part, None) is not None:
            found.append(getattr(widget, part))
    for child in getattr(widget, "children", ()):
        found += walk(child)
    return found


def snapshot(root: Any) -> dict[str, Any]:
    """What a person sees: the status line, the cells' labels, colours and which ones can be clicked."""
    status, *rest = root.children
    grid = next(w for w in rest if type(w).__name__ == "GridBox")
    drops = next(
        (
            w
            for w in rest
            if type(w).__name__ == "HBox" and len(w.children) and getattr(w.children[0], "description", "") == "↓"
        ),
        None,
    )
    return {
        "status": status.value,
        "cells": "".join(b.description or "." for b in grid.children),
        "colours": sorted({b.style.button_color for b in grid.children}),
        "clickable": [i for i, b in enumerate(grid.children) if not b.disabled],
        "drops": None if drops is None else [i for i, b in enumerate(drops.children) if not b.disabled],
    }


def controls(root: Any) -> tuple[Any, Any]:
    """The side toggle and the New game button (the last row)."""
    side, restart = root.children[-1].children
    return side, restart


def probe() -> dict[str, Any]:
    import ipywidgets

    from alphazero_lib.course.play_board import board
    from alphazero_lib.games import ConnectFour, TicTacToe

    transcript: list[dict[str, Any]] = []
    widgets: set[tuple[str, str, str]] = set()

    ttt = TicTacToe()
    root, _ = board(ttt, lowest_legal(ttt), human=1, title="probe")
    widgets |= {(type(w).__name__, w._model_module, w._model_module_version) for w in walk(root)}
    transcript.append(snapshot(root))
    grid = root.children[1]
    for cell in (4, 8, 0, 2, 6):  # 0 is taken by then: the click must change nothing
        grid.children[cell].click()
        transcript.append(snapshot(root))
    side, restart = controls(root)
    side.value = -1  # the agent opens
    restart.click()
    transcript.append(snapshot(root))

    c4 = ConnectFour()
    root, _ = board(c4, lowest_legal(c4), human=1, title="probe")
    widgets |= {(type(w).__name__, w._model_module, w._model_module_version) for w in walk(root)}
    drops = root.children[1]
    for column in (3, 3, 4, 5, 6):
        drops.children[column].click()
        transcript.append(snapshot(root))
    return {
        "ipywidgets": ipywidgets.__version__,
        "widgets": sorted(widgets),
        "transcript": transcript,
    }


if __name__ == "__main__":
    print(json.dumps(probe()))
