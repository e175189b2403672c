"""Pictures for the course: boards with optional heatmaps (policies, visit counts) and, later, curves."""

from __future__ import annotations

import string
from typing import TYPE_CHECKING, Any

import numpy as np

from alphazero_lib.games.style import style_of

if TYPE_CHECKING:
    from alphazero_lib.games.base import Game


def _axes(ax: Any, size: tuple[float, float]) -> Any:
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=size)
    return ax


def draw_board(
    game: Game,
    state: np.ndarray,
    ax: Any = None,
    heatmap: np.ndarray | None = None,
    title: str | None = None,
    annotate: bool = True,
    cmap: str = "Oranges",
) -> Any:
    """Draw ``state`` (absolute: 1 = first player) for ``game``; ``heatmap`` is one value per action.

    The look comes from ``game.board_style`` (a ``BoardStyle``): colours, discs or letters, grid lines, and where
    the heatmap goes (each empty cell shaded by its value, or a strip of column values above the board). Returns
    the matplotlib axes. Raises ``TypeError`` when the game declares no ``board_style``.
    """
    style = style_of(game)
    state = np.asarray(state)
    rows, cols = state.shape
    column_strip = style.heatmap == "columns" and heatmap is not None
    extra = 1 if column_strip else 0
    ax = _axes(ax, (0.6 * cols + 0.6, 0.6 * (rows + extra) + 0.6))
    ax.set_aspect("equal")
    ax.set_xlim(-0.5, cols - 0.5)
    ax.set_ylim(rows - 0.5, -0.5 - extra)
    ax.set_xticks(range(cols))
    ax.set_yticks(range(rows))
    if style.coordinates == "letters":
        ax.set_xticklabels([string.ascii_lowercase[c] for c in range(cols)])
        ax.set_yticklabels([str(r + 1) for r in range(rows)])
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)

    ax.add_patch(_rect(-0.5, -0.5, cols, rows, style.background))
    if heatmap is not None:
        heat = np.asarray(heatmap, dtype=float)
        scale = heat.max() if heat.max() > 0 else 1.0
        import matplotlib

        colormap = matplotlib.colormaps[cmap]
        if column_strip:
            for c in range(cols):
                ax.add_patch(_rect(c - 0.5, -1.5, 1, 1, colormap(heat[c] / scale)))
                if annotate:
                    ax.text(c, -1, f"{heat[c]:.2f}", ha="center", va="center", fontsize=8)
        else:
            for idx in range(rows * cols):
                r, c = divmod(idx, cols)
                if state[r, c] == 0 and heat[idx] > 0:
                    ax.add_patch(_rect(c - 0.5, r - 0.5, 1, 1, colormap(heat[idx] / scale), alpha=0.85))
                    if annotate:
                        ax.text(c, r, f"{heat[idx]:.2f}", ha="center", va="center", fontsize=8)
            # actions past the cells (Othello's pass) are written under the board
            off_board = [a for a in range(rows * cols, heat.size) if heat[a] > 0]
            if off_board and annotate:
                ax.set_xlabel("  ".join(f"{game.action_to_string(a)}: {heat[a]:.2f}" for a in off_board))

    import matplotlib.patches as mpatches

    for r in range(rows):
        for c in range(cols):
            v = int(state[r, c])
            if style.pieces == "disc":
                color = style.piece_color(v)
                if color is not None:
                    ax.add_patch(mpatches.Circle((c, r), 0.4, facecolor=color, edgecolor="black", lw=0.8))
            elif v:
                ax.text(
                    c,
                    r,
                    style.mark(v),
                    ha="center",
                    va="center",
                    fontsize=28,
                    fontweight="bold",
                    color=style.piece_color(v),
                )
    if style.grid_color is not None:
        for k in range(1, rows):
            ax.axhline(k - 0.5, color=style.grid_color, lw=1.5)
        for k in range(1, cols):
            ax.axvline(k - 0.5, color=style.grid_color, lw=1.5)
    if title:
        ax.set_title(title)
    return ax


def _rect(x: float, y: float, w: float, h: float, color: Any, alpha: float = 1.0) -> Any:
    import matplotlib.patches as mpatches

    return mpatches.Rectangle((x, y), w, h, facecolor=color, edgecolor="none", alpha=alpha, zorder=0)


def plot_training_curves(history: Any, fig: Any = None) -> Any:
    """Policy and value loss per learn iteration (mean of each iteration's last epoch); returns the figure.

    ``history`` is ``AlphaZero.history`` (a list of per-iteration dicts) or a checkpoint/``history.json`` dict
    holding it under ``"history"``. The figure is made without pyplot, so a training loop can save it quietly.
    """
    from matplotlib.figure import Figure

    records = history.get("history", []) if isinstance(history, dict) else list(history)
    fig = fig if fig is not None else Figure(figsize=(8, 3.2))
    axes = fig.subplots(1, 2)
    iterations = [r["iteration"] for r in records]
    for ax, key, color in zip(axes, ("policy_loss", "value_loss"), ("#1565c0", "#c62828"), strict=True):
        # every epoch as a faint point at fractional iterations, the iteration's last epoch as the curve
        for r in records:
            epochs = r.get("epochs", [])
            xs = [r["iteration"] - 1 + (e + 1) / len(epochs) for e in range(len(epochs))]
            ax.plot(xs, [e[key] for e in epochs], ".", color=color, alpha=0.3)
        ax.plot(iterations, [r[key] for r in records], "o-", color=color)
        ax.set_title(key.replace("_", " "))
        ax.set_xlabel("iteration")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("loss")
    fig.tight_layout()
    return fig


def plot_policy(game: Game, state: np.ndarray, probs: np.ndarray, ax: Any = None, title: str | None = None) -> Any:
    """A policy ``[action_size]`` (network or search) as a heatmap on the board ``state``; returns the axes.

    Raises ``ValueError`` when ``probs`` does not have one entry per action.
    """
    probs = np.asarray(probs, dtype=float).reshape(-1)
    if probs.shape != (game.action_size,):
        raise ValueError(f"probs must have one entry per action ({game.action_size}), got shape {probs.shape}")
    return draw_board(game, state, ax=ax, heatmap=probs, title=title)
