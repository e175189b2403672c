"""Pictures for the course: boards with optional heatmaps (policies, visit counts) and, later, curves."""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from alphazero_lib.games.base import check_board
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
    the matplotlib axes. Raises ``TypeError`` when the game declares no ``board_style``, ``ValueError`` when
    ``state`` is not a board of the game (its shape, values other than -1, 0 and 1).
    """
    style = style_of(game)
    state = check_board(game, state)  # a wrong shape or foreign values: the ValueError get_next_state gives
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
    """Policy and value loss per learn iteration (mean of each iteration's last epoch), and, dashed, the loss on
    each iteration's new games before training on them where the history has it; returns the figure.

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
        ax.plot(iterations, [r[key] for r in records], "o-", color=color, label="trained on")
        fresh = [(r["iteration"], r["new_games_loss"][key]) for r in records if "new_games_loss" in r]
        if fresh:  # the iteration's new games before training on them: far above the curve is learning by heart
            ax.plot(*zip(*fresh, strict=True), "--", color=color, alpha=0.7, label="new games, before training")
            ax.legend(fontsize=8)
        ax.set_title(key.replace("_", " "))
        ax.set_xlabel("iteration")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("loss")
    fig.tight_layout()
    return fig


def tree_node_label(node: Any, parent: Any) -> str:
    """A search-tree node's box: the move into it, its prior (AlphaZero nodes), visits N and mean value Q.

    Q is the node's mean value from its **parent's** view, in [-1, 1] (what the parent's selection compares:
    ``-value_sum / visit_count``); an unvisited node shows no Q.
    """
    if parent is None:
        return f"root\nN={node.visit_count}"
    lines = [f"move {node.action_taken}"]
    if hasattr(node, "prior"):
        lines.append(f"P={node.prior:.2f}")
    lines.append(f"N={node.visit_count}")
    if node.visit_count:
        lines.append(f"Q={-node.value_sum / node.visit_count:+.2f}")
    return "\n".join(lines)


def draw_search_tree(
    root: Any,
    max_depth: int = 2,
    max_children: int = 4,
    ax: Any = None,
    title: str | None = None,
    label: Callable[[Any, Any], str] = tree_node_label,
) -> Any:
    """Draw the top of a search tree (vanilla MCTS or AlphaZero ``Node``s): one box per node, ``tree_node_label``.

    Shows the ``max_children`` children of each node with the most visits (then the largest prior, then the lowest
    move), down to ``max_depth`` levels below the root; a box is green when Q is good for the parent's player, red
    when bad, grey when unvisited. Reads only ``children``, ``visit_count``, ``value_sum``, ``action_taken`` and
    ``prior`` where present, so a learner's own nodes draw too. ``label(node, parent)`` writes a box (default
    ``tree_node_label``). Returns the axes.
    """
    import matplotlib.pyplot as plt

    def shown(node: Any) -> list[Any]:
        key = lambda c: (-c.visit_count, -getattr(c, "prior", 0.0), c.action_taken)  # noqa: E731
        return sorted(node.children, key=key)[:max_children]

    positions: dict[int, tuple[float, int]] = {}
    next_leaf = [0.0]

    def place(node: Any, depth: int) -> float:
        kids = shown(node) if depth < max_depth else []
        if kids:
            xs = [place(child, depth + 1) for child in kids]
            x = (xs[0] + xs[-1]) / 2
        else:
            x, next_leaf[0] = next_leaf[0], next_leaf[0] + 1
        positions[id(node)] = (x, depth)
        return x

    place(root, 0)
    ax = _axes(ax, (max(4.0, 1.25 * next_leaf[0]), 1.9 * (max_depth + 1)))
    colours = plt.get_cmap("RdYlGn")

    def draw(node: Any, parent: Any, depth: int) -> None:
        x, y = positions[id(node)]
        if parent is not None:
            px, py = positions[id(parent)]
            ax.plot([px, x], [-py, -y], color="0.6", lw=1, zorder=1)
        q = -node.value_sum / node.visit_count if parent is not None and node.visit_count else None
        face = "#eeeeee" if q is None else colours(0.15 + 0.35 * (q + 1))  # light ends: the text stays legible
        ax.text(
            x,
            -y,
            label(node, parent),
            ha="center",
            va="center",
            fontsize=7,
            zorder=2,
            bbox={"boxstyle": "round,pad=0.3", "facecolor": face, "edgecolor": "0.4"},
        )
        if depth < max_depth:
            for child in shown(node):
                draw(child, node, depth + 1)

    draw(root, None, 0)
    ax.set_xlim(-0.7, max(next_leaf[0], 1.0) - 0.3)
    ax.set_ylim(-max_depth - 0.6, 0.6)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=9)
    return ax


#: The boxes of the self-play cycle, in order, with what each hands to the next.
TRAINING_CYCLE = (
    ("self-play", "the search plays itself,\nguided by the network", "games"),
    ("memory", "(state, search policy,\nfinal outcome) per position", "minibatches"),
    ("training", "policy: cross-entropy\nvalue: mean squared error", "new weights"),
    ("network", "policy (priors) and value\nfor any position", "guides the search"),
)


def draw_training_cycle(ax: Any = None) -> Any:
    """AlphaZero's loop as a diagram: self-play, memory, training, network, and back (``TRAINING_CYCLE``)."""
    ax = _axes(ax, (7.5, 4.6))
    spots = [(0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0)]  # top, right, bottom, left: clockwise
    for (name, what, _), (x, y) in zip(TRAINING_CYCLE, spots, strict=True):
        ax.text(
            x,
            y,
            f"{name}\n{what}",
            ha="center",
            va="center",
            fontsize=8.5,
            bbox={"boxstyle": "round,pad=0.5", "facecolor": "#e3f2fd", "edgecolor": "#1565c0"},
        )
    for i, (_, _, handed) in enumerate(TRAINING_CYCLE):
        (x0, y0), (x1, y1) = spots[i], spots[(i + 1) % len(spots)]
        start, end = (x0 + 0.3 * (x1 - x0), y0 + 0.3 * (y1 - y0)), (x0 + 0.7 * (x1 - x0), y0 + 0.7 * (y1 - y0))
        ax.annotate("", xy=end, xytext=start, arrowprops={"arrowstyle": "-|>", "color": "0.3", "lw": 1.5})
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        ax.text(mx * 1.25, my * 1.25, handed, ha="center", va="center", fontsize=8, style="italic", color="0.25")
    ax.set_xlim(-1.7, 1.7)
    ax.set_ylim(-1.45, 1.45)
    ax.axis("off")
    return ax
