"""Animations of played games: the self-contained HTML page (checked in a real browser) and the GIF."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from alphazero_lib import make_game
from alphazero_lib.animation import playoff_html, save_gif

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def scripted_game(name: str, actions: list[int]) -> tuple:
    game = make_game(name)
    states, state, player = [], game.get_initial_state(), 1
    states.append(state)
    for action in actions:
        state = game.get_next_state(state, action, player)
        states.append(state)
        player = -player
    return game, states


def test_html_is_self_contained_and_holds_every_frame():
    game, states = scripted_game("connect_four", [3, 3, 4, 4, 5, 5, 6])
    page = playoff_html(game, states, title="X <wins>", players="X: a, O: b")
    assert "http://" not in page and "https://" not in page  # no CDN: it works offline
    assert "X &lt;wins&gt;" in page
    assert page.count('{"board": ') == len(states)
    with pytest.raises(ValueError, match="at least one state"):
        playoff_html(game, [])


def test_gif_has_a_frame_per_move(tmp_path):
    from PIL import Image

    game, states = scripted_game("tictactoe", [4, 0, 8])
    path = save_gif(game, states, tmp_path / "game.gif", fps=2)
    with Image.open(path) as gif:
        assert gif.n_frames >= len(states)


def colour_counts(png) -> dict[str, int]:
    """Pixels of each colour, counted inside the board (the blue area's bounding box).

    The legend above the board also shows a red and a yellow disc; it lies outside the box.
    """
    from PIL import Image

    pixels = np.asarray(Image.open(png).convert("RGB")).astype(int)
    r, g, b = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    blue = (r < 60) & (g > 60) & (g < 100) & (b > 130)  # the board, #1f4e9c
    rows, cols = np.nonzero(blue)
    if len(rows) == 0:
        return {"red": 0, "yellow": 0, "blue": 0, "legend_red": 0, "legend_yellow": 0}
    inside = np.zeros_like(blue)
    inside[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1] = True
    red = (r > 200) & (g < 90) & (b < 90)  # X discs, #e53935
    yellow = (r > 230) & (g > 200) & (b < 100)  # O discs, #fdd835
    return {
        "red": int(np.sum(red & inside)),
        "yellow": int(np.sum(yellow & inside)),
        "blue": int(np.sum(blue)),
        "legend_red": int(np.sum(red & ~inside)),
        "legend_yellow": int(np.sum(yellow & ~inside)),
    }


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_page_renders_the_board_in_headless_chromium(tmp_path):
    game, states = scripted_game("connect_four", [3, 3, 4, 4, 5, 5, 6])
    page = tmp_path / "playoff.html"
    page.write_text(playoff_html(game, states))
    counts = {}
    for step in ("0", "last"):
        shot = tmp_path / f"step_{step}.png"
        subprocess.run(
            [
                "chromium",
                *CHROMIUM_FLAGS,
                f"--user-data-dir={tmp_path / 'profile'}",
                "--window-size=600,650",
                f"--screenshot={shot}",
                f"{page.as_uri()}#step={step}",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        counts[step] = colour_counts(shot)
    assert counts["0"]["blue"] > 50_000  # the board is drawn ...
    assert counts["0"]["red"] == 0 and counts["0"]["yellow"] == 0  # ... empty at the start
    assert counts["0"]["legend_red"] > 50 and counts["0"]["legend_yellow"] > 50  # the legend's two marks
    # at the end: 4 red and 3 yellow discs of radius 0.4 * 64 px (about 2,000 px each)
    assert 4 * 1500 < counts["last"]["red"] < 4 * 2300
    assert 3 * 1500 < counts["last"]["yellow"] < 3 * 2300
