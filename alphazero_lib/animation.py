"""Self-contained animations of played games: an HTML page (canvas + a little JavaScript) and a GIF.

The page needs no network (kaggle-environments' own player loads its scripts from CDNs and shows a
blank frame offline). Open ``#step=N`` (or ``#step=last``) to show one position, as the browser tests do.
In a game won by a line (Tic-Tac-Toe, Connect Four), the winning line is drawn across its pieces; the play
button reads "pause" while the game plays.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from alphazero_lib.games.base import check_board
from alphazero_lib.games.style import BoardStyle, style_of
from alphazero_lib.utils import explain_os_error

if TYPE_CHECKING:
    from alphazero_lib.games.base import Game

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body { font-family: system-ui, sans-serif; background: #fafafa; margin: 16px; color: #222; }
#board { display: block; margin: 8px 0; }
.controls button { font-size: 15px; margin-right: 4px; }
#caption { font-size: 15px; margin: 6px 0; min-height: 1.3em; }
#legend { margin: 6px 0; }
#legend span.entry { margin-right: 18px; white-space: nowrap; }
#legend span.mark { display: inline-block; width: 16px; height: 16px; border-radius: 50%; border: 1.5px solid #222;
  vertical-align: -3px; margin-right: 5px; text-align: center; line-height: 16px; font-weight: bold; }
</style></head>
<body>
<h3>__TITLE__</h3>
<div id="players">__PLAYERS__</div>
<div id="legend">__LEGEND__</div>
<canvas id="board"></canvas>
<div id="caption"></div>
<div class="controls">
  <button id="first">&laquo;</button><button id="prev">&#9664;</button><button id="play">&#9654; play</button>
  <button id="next">&#9654;</button><button id="last">&raquo;</button>
  <input id="slider" type="range" min="0" value="0" style="width: 240px; vertical-align: middle">
</div>
<script>
const DATA = __DATA__;
const canvas = document.getElementById("board"), ctx = canvas.getContext("2d");
const cell = DATA.cell, rows = DATA.rows, cols = DATA.cols;
canvas.width = cols * cell; canvas.height = rows * cell;
const slider = document.getElementById("slider"); slider.max = DATA.frames.length - 1;
let step = 0, timer = null;
function disc(r, c, color) {
  ctx.beginPath(); ctx.arc((c + 0.5) * cell, (r + 0.5) * cell, cell * 0.4, 0, 2 * Math.PI);
  ctx.fillStyle = color; ctx.fill(); ctx.lineWidth = 1.5; ctx.strokeStyle = "#222"; ctx.stroke();
}
function draw() {
  const frame = DATA.frames[step];
  ctx.fillStyle = DATA.background; ctx.fillRect(0, 0, canvas.width, canvas.height);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
    const v = frame.board[r][c], color = DATA.colors[String(v)];
    if (DATA.grid) {
      ctx.strokeStyle = DATA.grid; ctx.lineWidth = 2; ctx.strokeRect(c * cell, r * cell, cell, cell);
    }
    if (DATA.pieces === "mark") {
      if (v !== 0) {
        ctx.fillStyle = color;
        ctx.font = "bold " + Math.floor(cell * 0.7) + "px sans-serif";
        ctx.textAlign = "center"; ctx.textBaseline = "middle";
        ctx.fillText(DATA.marks[String(v)], (c + 0.5) * cell, (r + 0.55) * cell);
      }
    } else if (color) disc(r, c, color);
    if (frame.last && frame.last[0] === r && frame.last[1] === c) {
      ctx.strokeStyle = "#ff9800"; ctx.lineWidth = 4; ctx.strokeRect(c * cell + 3, r * cell + 3, cell - 6, cell - 6);
    }
  }
  for (const [from, to] of frame.win || []) {  // the winning line, from the centre of its first piece to its last
    ctx.beginPath(); ctx.moveTo((from[1] + 0.5) * cell, (from[0] + 0.5) * cell);
    ctx.lineTo((to[1] + 0.5) * cell, (to[0] + 0.5) * cell);
    ctx.strokeStyle = DATA.winColor; ctx.lineWidth = Math.max(6, cell * 0.14); ctx.lineCap = "round"; ctx.stroke();
  }
  document.getElementById("caption").textContent = frame.caption;
  slider.value = step;
}
function go(s) { step = Math.max(0, Math.min(DATA.frames.length - 1, s)); draw(); }
const playButton = document.getElementById("play");
function stop() {  // the button offers play again
  if (timer) { clearInterval(timer); timer = null; }
  playButton.innerHTML = "&#9654; play";
}
function play() {
  if (timer) { stop(); return; }
  if (step === DATA.frames.length - 1) go(0);
  timer = setInterval(() => { if (step >= DATA.frames.length - 1) stop(); else go(step + 1); }, DATA.interval);
  playButton.innerHTML = "&#10074;&#10074; pause";
}
function jump(s) { stop(); go(s); }  // moving by hand pauses the game
document.getElementById("first").onclick = () => jump(0);
document.getElementById("prev").onclick = () => jump(step - 1);
document.getElementById("next").onclick = () => jump(step + 1);
document.getElementById("last").onclick = () => jump(DATA.frames.length - 1);
playButton.onclick = play;
slider.oninput = () => jump(parseInt(slider.value));
const hash = new URLSearchParams(location.hash.slice(1)).get("step");
if (hash !== null) go(hash === "last" ? DATA.frames.length - 1 : parseInt(hash));
else { draw(); if (DATA.autoplay) play(); }
</script>
</body></html>
"""


def _last_cell(game: Game, before: np.ndarray, after: np.ndarray) -> list[int] | None:
    """The cell where the last piece went (Othello flips are ignored), or None for a pass / first frame."""
    placed = np.argwhere((before == 0) & (after != 0))
    return [int(placed[0][0]), int(placed[0][1])] if len(placed) else None


#: The colour of the line drawn across a winning line's pieces (unlike any board, disc or mark colour).
WIN_COLOR = "#00e676"
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def winning_lines(state: np.ndarray, cell: Sequence[int], in_a_row: int) -> list[list[list[int]]]:
    """The lines of ``in_a_row`` or more equal pieces through ``cell`` (row, column) of ``state`` ``(R, C)``,
    each as its two end cells ``[[row, column], [row, column]]``; empty when the piece there made no line."""
    state = np.asarray(state)
    row, column = int(cell[0]), int(cell[1])
    player = state[row, column]
    if player == 0:
        return []
    rows, columns = state.shape
    lines = []
    for dr, dc in _DIRECTIONS:
        ends = []
        for sign in (-1, 1):  # walk to the last equal piece each way
            r, c = row, column
            while True:
                nr, nc = r + sign * dr, c + sign * dc
                if not (0 <= nr < rows and 0 <= nc < columns and state[nr, nc] == player):
                    break
                r, c = nr, nc
            ends.append([r, c])
        if max(abs(ends[1][0] - ends[0][0]), abs(ends[1][1] - ends[0][1])) + 1 >= in_a_row:
            lines.append(ends)
    return lines


def game_frames(game: Game, states: Sequence[np.ndarray], captions: Sequence[str] | None = None) -> list[dict]:
    """One frame per absolute state ``(R, C)``: the board, the last move's cell and a caption, and where that move
    made a winning line (games won by ``_line_length`` in a line), the line's end cells under ``"win"``."""
    frames = []
    in_a_row = getattr(game, "_line_length", None)
    states = [check_board(game, state) for state in states]  # before anything is drawn or written
    for i, state in enumerate(states):
        last = _last_cell(game, states[i - 1], state) if i else None
        caption = captions[i] if captions is not None else f"move {i}"
        frame = {"board": np.asarray(state).astype(int).tolist(), "last": last, "caption": caption}
        if in_a_row is not None and last is not None:
            lines = winning_lines(state, last, in_a_row)
            if lines:
                frame["win"] = lines
        frames.append(frame)
    return frames


def _legend(style: BoardStyle, names: Sequence[str]) -> str:
    """HTML for the legend: each player's mark as drawn on the board (disc colour or letter) and name."""
    entries = []
    for player, name, seat in ((1, names[0], "moves first"), (-1, names[1], "moves second")):
        letter, colour = style.mark(player), style.piece_color(player)
        if style.pieces == "mark":
            mark = f'<span class="mark" style="border: none; color: {colour}">{letter}</span>'
            label = f"{letter}: {html.escape(name)} ({seat})"
        else:
            words = style.color_names[0 if player == 1 else 1]
            mark = f'<span class="mark" style="background: {colour}"></span>'
            label = f"{words} = {letter}: {html.escape(name)} ({seat})"
        entries.append(f'<span class="entry">{mark}{label}</span>')
    return "".join(entries)


def playoff_html(
    game: Game,
    states: Sequence[np.ndarray],
    captions: Sequence[str] | None = None,
    title: str = "AlphaZero playoff",
    players: str = "",
    interval_ms: int = 600,
    autoplay: bool = True,
    names: Sequence[str] = ("X", "O"),
) -> str:
    """A self-contained HTML page animating ``states`` (absolute boards, first = initial position).

    ``names``: the first and second player's names, shown in a legend beside their marks (disc colours
    for Connect Four and Othello, X and O for Tic-Tac-Toe). The look comes from ``game.board_style``.
    Raises ``ValueError`` for no states and ``TypeError`` for a game that declares no ``board_style``.
    """
    if not len(states):
        raise ValueError("playoff_html needs at least one state")
    style = style_of(game)
    colors = {str(value): style.piece_color(value) for value in (1, -1, 0) if style.piece_color(value) is not None}
    data = {
        "rows": game.row_count,
        "cols": game.column_count,
        "cell": 64 if game.column_count <= 8 else 48,
        "background": style.background,
        "pieces": style.pieces,
        "colors": colors,
        "marks": {"1": style.mark(1), "-1": style.mark(-1)},
        "grid": style.grid_color,
        "interval": int(interval_ms),
        "autoplay": bool(autoplay),
        "winColor": WIN_COLOR,
        "frames": game_frames(game, states, captions),
    }
    page = _PAGE.replace("__TITLE__", html.escape(title)).replace("__PLAYERS__", html.escape(players))
    page = page.replace("__LEGEND__", _legend(style, names))
    return page.replace("__DATA__", json.dumps(data))


def final_position(
    game: Game, states: Sequence[np.ndarray], names: Sequence[str] = ("X", "O"), title: str | None = None
) -> Any:
    """The last of ``states`` as a still image: a matplotlib ``Figure`` (made without pyplot: show it with
    ``display(fig)``) with the winning line the animation marks and a legend of who had which pieces.

    It goes beside ``playoff_html``'s animation: GitHub's notebook viewer strips iframes, so a reader there sees
    at least how the game ended. Raises ``ValueError`` for no states.
    """
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    from alphazero_lib.plotting import draw_board

    if not len(states):
        raise ValueError("final_position needs at least one state")
    style = style_of(game)
    fig = Figure(figsize=(0.6 * game.column_count + 1.2, 0.6 * game.row_count + 1.6))
    ax = fig.add_subplot()
    draw_board(game, states[-1], ax=ax, title=title or f"the final position (move {len(states) - 1})")
    for (r0, c0), (r1, c1) in game_frames(game, states[-2:] if len(states) > 1 else states)[-1].get("win", []):
        ax.plot([c0, c1], [r0, r1], color=WIN_COLOR, lw=6, solid_capstyle="round")
    handles = []
    for player, name in ((1, names[0]), (-1, names[1])):
        colour = style.piece_color(player)
        if style.pieces == "mark":
            handles.append(Line2D([], [], ls="", marker=f"${style.mark(player)}$", ms=10, color=colour, label=name))
        else:
            handles.append(
                Line2D([], [], ls="", marker="o", ms=10, markerfacecolor=colour, markeredgecolor="black", label=name)
            )
    fig.legend(handles=handles, loc="lower center", ncol=2, frameon=False)
    fig.subplots_adjust(bottom=0.16)
    return fig


def save_gif(
    game: Game, states: Sequence[np.ndarray], path: str | Path, captions: Sequence[str] | None = None, fps: float = 2.0
) -> Path:
    """Write an animated GIF of ``states`` with matplotlib (Pillow writer); returns the path.

    Written atomically (a temporary file beside it, then renamed): a failure leaves an existing GIF whole and raises
    ``utils.FileWriteError`` naming the path and what to do.
    """
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter

    from alphazero_lib.plotting import draw_board

    fig, ax = plt.subplots(figsize=(0.6 * game.column_count + 1, 0.6 * game.row_count + 1))

    def frame(i: int) -> Any:
        ax.clear()
        draw_board(game, states[i], ax=ax, title=captions[i] if captions is not None else f"move {i}")
        return []

    # hold the final position a little longer
    order = list(range(len(states))) + [len(states) - 1] * int(2 * fps)
    animation = FuncAnimation(fig, frame, frames=order, blit=False)
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.gif")  # the writer picks the format by the suffix
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        animation.save(tmp, writer=PillowWriter(fps=fps))
        os.replace(tmp, path)
    except OSError as err:
        raise explain_os_error(err, path) from None
    finally:
        tmp.unlink(missing_ok=True)
        plt.close(fig)
    return path
