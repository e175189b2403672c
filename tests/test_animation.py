"""Animations of played games: the self-contained HTML page (checked in a real browser) and the GIF."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from alphazero_lib import make_game
from alphazero_lib.animation import WIN_COLOR, final_position, game_frames, playoff_html, save_gif

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


@pytest.mark.parametrize(
    "game",
    [make_game("tictactoe"), make_game("connect_four"), make_game("connect_four", rows=5, columns=6, in_a_row=3)],
)
def test_the_winning_line_on_the_page_agrees_with_the_rules(game):
    """Random games to the end: the last frame carries a line exactly when the rules say its move won, and the line
    is a run of the mover's pieces through that move, at least in_a_row long, that goes no further."""
    rng = np.random.default_rng(0)
    wins = 0
    for _ in range(150):
        state, player, states, action = game.get_initial_state(), 1, [], None
        states.append(state)
        while True:
            action = int(rng.choice(np.flatnonzero(game.get_valid_moves(state))))
            state = game.get_next_state(state, action, player)
            states.append(state)
            value, over = game.get_value_and_terminated(state, action)
            if over:
                break
            player = -player
        frames = json.loads(playoff_html(game, states).split("const DATA = ", 1)[1].split(";\n", 1)[0])["frames"]
        assert all("win" not in frame for frame in frames[:-1])
        assert ("win" in frames[-1]) == (value == 1 and game.check_win(state, action))
        for (r0, c0), (r1, c1) in frames[-1].get("win", []):
            length = max(abs(r1 - r0), abs(c1 - c0)) + 1
            dr, dc = np.sign(r1 - r0), np.sign(c1 - c0)
            cells = [(r0 + i * dr, c0 + i * dc) for i in range(length)]
            assert length >= game._line_length and tuple(frames[-1]["last"]) in cells
            assert all(state[r, c] == player for r, c in cells)
            for r, c in ((r0 - dr, c0 - dc), (r1 + dr, c1 + dc)):  # the run ends at both ends
                assert not (0 <= r < game.row_count and 0 <= c < game.column_count and state[r, c] == player)
        wins += "win" in frames[-1]
    assert wins >= 50  # most random games end in a win


def test_the_still_image_draws_the_final_position_and_its_winning_line():
    """The image beside an animation (GitHub strips the iframe): the last board's pieces, the page's winning line in
    the page's colour, a legend with both names; a game that ends without a line gets no line."""
    game, states = scripted_game("connect_four", [0, 1, 1, 2, 2, 3, 2, 3, 3, 5, 3])  # red wins on a diagonal
    fig = final_position(game, states, names=("red player", "yellow player"))
    ax = fig.axes[0]
    lines = [line for line in ax.lines if line.get_color() == WIN_COLOR]
    (ends,) = game_frames(game, states)[-1]["win"]
    assert len(lines) == 1 and [list(xy) for xy in lines[0].get_xydata()] == [[c, r] for r, c in ends]
    from matplotlib.colors import to_rgba

    faces = [tuple(patch.get_facecolor()) for patch in ax.patches[1:]]  # after the background: one disc a cell
    style = game.board_style
    assert [faces.count(to_rgba(style.piece_color(p))) for p in (1, -1)] == [6, 5]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["red player", "yellow player"]
    assert ax.get_title() == "the final position (move 11)"
    drawn, states = scripted_game("tictactoe", [0, 4, 8, 2, 6, 3, 5, 7, 1])
    assert not [line for line in final_position(drawn, states).axes[0].lines if line.get_color() == WIN_COLOR]
    with pytest.raises(ValueError, match="at least one state"):
        final_position(game, [])


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
        counts = ("red", "yellow", "blue", "legend_red", "legend_yellow", "green")
        return dict.fromkeys(counts, 0) | {"green_columns": None}
    inside = np.zeros_like(blue)
    inside[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1] = True
    red = (r > 200) & (g < 90) & (b < 90)  # X discs, #e53935
    yellow = (r > 230) & (g > 200) & (b < 100)  # O discs, #fdd835
    green = (r < 60) & (g > 200) & (b > 80) & (b < 150)  # the winning line, #00e676
    _, green_cols = np.nonzero(green & inside)  # where the line runs, in pixels from the board's left edge
    span = (int(green_cols.min() - cols.min()), int(green_cols.max() - cols.min())) if len(green_cols) else None
    return {
        "red": int(np.sum(red & inside)),
        "yellow": int(np.sum(yellow & inside)),
        "blue": int(np.sum(blue)),
        "legend_red": int(np.sum(red & ~inside)),
        "legend_yellow": int(np.sum(yellow & ~inside)),
        "green": int(np.sum(green & inside)),
        "green_columns": span,
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
    # at the end: 4 red and 3 yellow discs of radius 0.4 * 64 px (about 2,000 px each), the red ones crossed by the
    # winning line (9 px wide) from the centre of column 3 to the centre of column 6 (pixels 224 to 416, round caps)
    assert 4 * 1100 < counts["last"]["red"] < 4 * 2300
    assert 3 * 1500 < counts["last"]["yellow"] < 3 * 2300
    assert counts["0"]["green"] == 0 and 3 * 64 * 7 < counts["last"]["green"] < 3 * 64 * 11
    low, high = counts["last"]["green_columns"]
    assert 224 - 8 <= low <= 224 and 416 <= high <= 416 + 8


def chromium_dom(page, tmp_path, *flags: str) -> str:
    """The page's DOM after its scripts ran (``--dump-dom``), as headless Chromium prints it."""
    done = subprocess.run(
        ["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *flags, "--dump-dom", page],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_the_play_button_reads_pause_while_the_game_plays(tmp_path):
    game, states = scripted_game("tictactoe", [4, 0, 8])
    page = tmp_path / "playoff.html"
    page.write_text(playoff_html(game, states, interval_ms=400))

    def button_and_caption(dom: str) -> tuple[str, str]:
        button = re.search(r'<button id="play">([^<]*)</button>', dom).group(1)
        return button.split()[-1], re.search(r'<div id="caption">([^<]*)</div>', dom).group(1)

    assert button_and_caption(chromium_dom(page.as_uri(), tmp_path)) == ("pause", "move 0")  # it plays on opening
    assert button_and_caption(chromium_dom(f"{page.as_uri()}#step=last", tmp_path)) == ("play", "move 3")
    # to the end in virtual time (3 moves of 0.4 s): the game stops on its last move and the button offers play
    end = chromium_dom(page.as_uri(), tmp_path, "--virtual-time-budget=5000")
    assert button_and_caption(end) == ("play", "move 3")


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--gif", "p.txt"], "argument --gif: must be a file name ending in .gif (an animated GIF is written there), "),
        (["--out", "p.gif"], "argument --out: must be a file name ending in .html or .htm (an HTML page is written "),
        (["--out", "page"], "argument --out: must be a file name ending in .html or .htm"),
    ],
)
def test_playoff_refuses_an_output_name_that_does_not_fit_its_format(flags, message, tmp_path, monkeypatch, capsys):
    """Issue 52, item 5: ``playoff --gif p.txt`` wrote a GIF into a file named .txt and exited 0. A name that does
    not fit is refused when the command starts: no game is played, no file written."""
    import alphazero_lib.kaggle
    from alphazero_lib.cli import main

    def no_game(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(alphazero_lib.kaggle, "run_episode", no_game)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_code:
        main(["playoff", "--game", "tictactoe", *flags])
    assert exit_code.value.code == 2 and message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_save_gif_is_atomic_and_names_a_path_it_cannot_write(tmp_path, monkeypatch):
    from matplotlib.animation import Animation

    from alphazero_lib import make_game
    from alphazero_lib.animation import save_gif
    from alphazero_lib.utils import FileWriteError

    game = make_game("tictactoe")
    states = [game.get_initial_state(), game.get_next_state(game.get_initial_state(), 4, 1)]
    gif = save_gif(game, states, tmp_path / "game.gif")
    before = gif.read_bytes()
    assert before[:6] == b"GIF89a" and [p.name for p in tmp_path.iterdir()] == ["game.gif"]

    def dies_half_way(self, filename, *args, **kwargs):
        self._draw_was_started = True  # (matplotlib warns about an animation never drawn)
        Path(filename).write_bytes(b"GIF89a half a picture")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Animation, "save", dies_half_way)
    with pytest.raises(FileWriteError, match=f"cannot write {gif}: the disk is full .*{gif} was left as it was"):
        save_gif(game, states, gif)
    assert gif.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["game.gif"]
