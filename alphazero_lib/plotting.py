"""Pictures for the course: boards with optional heatmaps (policies, visit counts) and, later, curves."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

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

    Tic-Tac-Toe and Othello shade each empty cell by its value; Connect Four shades a strip of column
    values above the board. Returns the matplotlib axes.
    """
    from alphazero_lib.games.connect_four import ConnectFour
    from alphazero_lib.games.othello import Othello

    state = np.asarray(state)
    rows, cols = state.shape
    is_c4 = isinstance(game, ConnectFour)
    extra = 1 if (is_c4 and heatmap is not None) else 0
    ax = _axes(ax, (0.6 * cols + 0.6, 0.6 * (rows + extra) + 0.6))
    ax.set_aspect("equal")
    ax.set_xlim(-0.5, cols - 0.5)
    ax.set_ylim(rows - 0.5, -0.5 - extra)
    ax.set_xticks(range(cols))
    ax.set_yticks(range(rows))
    if isinstance(game, Othello):
        ax.set_xticklabels([game.action_to_string(c)[0] for c in range(cols)])
        ax.set_yticklabels([str(r + 1) for r in range(rows)])
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)

    background = {"ConnectFour": "#1f4e9c", "Othello": "#2e7d32"}.get(type(game).__name__, "white")
    ax.add_patch(_rect(-0.5, -0.5, cols, rows, background))
    if heatmap is not None:
        heat = np.asarray(heatmap, dtype=float)
        scale = heat.max() if heat.max() > 0 else 1.0
        import matplotlib

        colormap = matplotlib.colormaps[cmap]
        if is_c4:
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
            if heat.size > rows * cols and heat[rows * cols] > 0 and annotate:  # Othello's pass
                ax.set_xlabel(f"pass: {heat[rows * cols]:.2f}")

    import matplotlib.patches as mpatches

    for r in range(rows):
        for c in range(cols):
            v = state[r, c]
            if isinstance(game, ConnectFour) or isinstance(game, Othello):
                if is_c4:
                    color = {1: "#e53935", -1: "#fdd835", 0: "white"}[int(v)]
                else:
                    color = {1: "black", -1: "white", 0: None}[int(v)]
                if color is not None:
                    ax.add_patch(mpatches.Circle((c, r), 0.4, facecolor=color, edgecolor="black", lw=0.8))
            elif v:
                ax.text(
                    c,
                    r,
                    "X" if v == 1 else "O",
                    ha="center",
                    va="center",
                    fontsize=28,
                    fontweight="bold",
                    color="#c62828" if v == 1 else "#1565c0",
                )
    if not is_c4:
        line_color = "black" if background != "white" else "#444444"
        for k in range(1, rows):
            ax.axhline(k - 0.5, color=line_color, lw=1.5)
        for k in range(1, cols):
            ax.axvline(k - 0.5, color=line_color, lw=1.5)
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
