"""Step through a search one simulation at a time (notebooks 2 and 4): the tree, a node's numbers, the next path.

``explore(make_search, state)`` shows an explorer when a person is at the notebook (Jupyter, JupyterLab, Colab:
core widgets only, as the play board) and, in a headless kernel (nbval, CI, GitHub's stored outputs), a still
picture: the tree after a few simulations with the next simulation's path marked, and the root's numbers.

The explorer runs the learner's own search unchanged. ``make_search(k)`` builds a fresh, seeded search of ``k``
simulations (``lambda k: MCTS(game, num_searches=k, C=1.41, seed=0)``); the tree after ``k`` simulations is the
``root`` that ``make_search(k).search(state)`` leaves behind, and since the search is seeded, the tree after
``k + 1`` is the same tree grown by one simulation. The next simulation's path is read from the two: the nodes
whose visit count grew. Selection scores come from the learner's ``parent.get_ucb(child, C)`` where their nodes
have it (the library's formula otherwise): UCB1 for vanilla MCTS's nodes (``expandable_moves``), PUCT for
AlphaZero's (``prior``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from alphazero_lib.course.play_board import interactive


@dataclass
class Row:
    """One child in a node's table: its move, visits, value Q and prior from the parent's view, its score."""

    move: int
    visits: int
    value: float | None  # Q, from the view of the player choosing at the parent; None when unvisited
    prior: float | None  # AlphaZero's nodes only
    score: float | None  # the parent's selection score for it; None where it cannot be computed (an unvisited UCB)


class SearchExplorer:
    """The logic behind the explorer, testable without a screen: the tree after ``count`` simulations, a selected
    node (``path``: the moves from the root) and what the next simulation will do there."""

    def __init__(self, make_search: Callable[[int], Any], state: np.ndarray, num_searches: int = 50, C: float = 1.41):
        if num_searches < 1:
            raise ValueError(f"num_searches must be at least 1, got {num_searches}")
        self.make_search, self.state, self.num_searches, self.C = make_search, np.asarray(state), num_searches, C
        self._trees: dict[int, Any] = {}
        self.count, self.path = 1, []  # a search of 0 simulations is refused by the library's settings

    # ---- the trees -------------------------------------------------------------------------------------------
    def tree(self, count: int) -> Any:
        """The root after ``count`` simulations of a fresh search (kept for the two counts in use)."""
        if count not in self._trees:
            search = self.make_search(count)
            search.search(self.state.copy())
            if getattr(search, "root", None) is None:
                raise ValueError("the search keeps no root: set self.root to the root node in search()")
            self._trees = {k: v for k, v in self._trees.items() if abs(k - count) <= 1}
            self._trees[count] = search.root
        return self._trees[count]

    @property
    def root(self) -> Any:
        return self.tree(self.count)

    def step(self, simulations: int = 1) -> None:
        """Run ``simulations`` more (up to ``num_searches``); the selected node stays selected."""
        self.count = min(self.num_searches, self.count + simulations)

    def play_to_end(self) -> None:
        self.count = self.num_searches

    def reset(self) -> None:
        self.count, self.path = 1, []

    # ---- selecting a node ------------------------------------------------------------------------------------
    def node(self, path: list[int] | None = None) -> Any:
        """The node reached by ``path`` (default: the selected one) in the current tree, or None."""
        node = self.root
        for move in self.path if path is None else path:
            node = child_by_move(node, move)
            if node is None:
                return None
        return node

    def choose(self, move: int) -> None:
        """Select the child reached by ``move`` from the selected node."""
        if child_by_move(self.node(), move) is None:
            raise ValueError(f"the selected node has no child for move {move}")
        self.path = [*self.path, int(move)]

    def up(self) -> None:
        self.path = self.path[:-1]

    # ---- what the numbers say --------------------------------------------------------------------------------
    def next_path(self) -> list[int] | None:
        """The moves the next simulation takes from the root (its last node may be new), or None at the end."""
        if self.count >= self.num_searches:
            return None
        before, after, path = self.tree(self.count), self.tree(self.count + 1), []
        while True:
            grown = [c for c in after.children if c.visit_count > _visits(child_by_move(before, c.action_taken))]
            if not grown:
                return path
            path.append(int(grown[0].action_taken))
            before, after = child_by_move(before, grown[0].action_taken), grown[0]
            if before is None:  # a node this simulation added
                return path

    def rows(self, node: Any = None) -> list[Row]:
        """The selected node's children, one ``Row`` each, in move order."""
        node = self.node() if node is None else node
        return [
            Row(int(c.action_taken), int(c.visit_count), parent_q(c), getattr(c, "prior", None), score(node, c, self.C))
            for c in sorted(node.children, key=lambda c: c.action_taken)
        ]

    def why(self) -> str:
        """What the next simulation does at the selected node, and why."""
        nxt = self.next_path()
        if nxt is None:
            return f"The search is over: all {self.num_searches} simulations ran."
        here = len(self.path)
        shown = " → ".join(["root", *map(str, nxt)])
        if nxt[:here] != self.path or len(nxt) < here:
            return f"The next simulation does not pass through this node: it goes {shown}."
        node = self.node()
        if len(nxt) == here:
            if getattr(node, "is_terminal", False) or not _legal_moves(node):
                return (
                    f"The next simulation ends here ({shown}): the game is over at this node, the rules give its value."
                )
            return (
                f"The next simulation ends here ({shown}): this node is a leaf, so it is expanded and valued here "
                f"(a random rollout in vanilla MCTS, the network in AlphaZero)."
            )
        move = nxt[here]
        if child_by_move(node, move) is None:
            return (
                f"The next simulation ({shown}) adds move {move} here: this node still has moves never tried "
                f"(is_fully_expanded() is False), so it expands one, drawn at random, and rolls out from it."
            )
        rows = [r for r in self.rows(node) if r.score is not None]
        if not rows:
            return f"The next simulation takes move {move} ({shown})."
        best = max(r.score for r in rows)
        chosen = next(r for r in rows if r.move == move)
        tie = [r.move for r in rows if math.isclose(r.score, best, rel_tol=1e-12, abs_tol=1e-12)]
        others = [r for r in rows if r.move not in tie]
        runner = max(others, key=lambda r: r.score) if others else None
        versus = f"; the next best is move {runner.move} at {runner.score:.3f}" if runner else ""
        if move in tie:
            tied = f" (tied with {', '.join(map(str, tie[1:]))}: ties go to the lowest move)" if len(tie) > 1 else ""
            return (
                f"The next simulation takes move {move} ({shown}): its selection score {chosen.score:.3f} is the "
                f"highest{tied}{versus}."
            )
        return (
            f"The next simulation takes move {move} ({shown}) with score {chosen.score:.3f}, although move "
            f"{max(rows, key=lambda r: r.score).move} scores {best:.3f}: your select() does not take the maximum."
        )

    def describe(self) -> str:
        """The selected node's numbers and the next simulation's move, as plain text."""
        node, lines = self.node(), []
        name = "root" if not self.path else "root → " + " → ".join(map(str, self.path))
        parent = self.node(self.path[:-1]) if self.path else None
        head = f"{name}: visits {node.visit_count}"
        if parent is not None:
            q, p, s = parent_q(node), getattr(node, "prior", None), score(parent, node, self.C)
            head += f", value Q {_fmt(q)} (the parent's view)"
            head += f", prior {p:.3f}" if p is not None else ""
            head += f", selection score {_fmt(s)}"
        lines.append(f"after {self.count} of {self.num_searches} simulations; {head}")
        if node.children:
            alpha = any(r.prior is not None for r in self.rows())
            lines.append("  move  visits  value Q" + ("  prior" if alpha else "") + "  score")
            for r in self.rows():
                prior = f"  {r.prior:5.3f}" if alpha else ""
                lines.append(f"  {r.move:>4}  {r.visits:>6}  {_fmt(r.value):>7}{prior}  {_fmt(r.score)}")
        lines.append(self.why())
        return "\n".join(lines)


def child_by_move(node: Any, move: int) -> Any:
    if node is None:
        return None
    return next((c for c in node.children if c.action_taken == move), None)


def _visits(node: Any) -> int:
    return 0 if node is None else int(node.visit_count)


def _legal_moves(node: Any) -> int:
    moves = getattr(node, "num_moves", None)
    return 1 if moves is None else int(moves)


def parent_q(child: Any) -> float | None:
    """The child's mean value from its parent's view: vanilla MCTS's rescaled [0, 1] Q, AlphaZero's [-1, 1] Q."""
    if child.visit_count == 0:
        return None
    mean = child.value_sum / child.visit_count
    return 1 - (mean + 1) / 2 if hasattr(child, "expandable_moves") else -mean


def score(parent: Any, child: Any, C: float) -> float | None:
    """The parent's selection score for ``child``: the learner's ``parent.get_ucb(child, C)`` where it exists,
    else the library's formula: PUCT (``search_policies.puct_scores``) for a node with a prior, UCB1
    (``mcts.Node.get_ucb``) for one without; None where it is undefined."""
    from alphazero_lib.config import SearchConfig
    from alphazero_lib.mcts import Node as VanillaNode
    from alphazero_lib.search_policies import Children, puct_scores

    try:
        if hasattr(parent, "get_ucb"):
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                value = float(parent.get_ucb(child, C))
            return value if math.isfinite(value) else None
        if hasattr(child, "prior"):
            one = [np.array([[float(x)]]) for x in (child.prior, child.visit_count, child.value_sum, 0.0)]
            alone = Children(*one, np.array([float(parent.visit_count)]), np.zeros(1))
            return float(puct_scores(alone, SearchConfig(C=float(C)))[0, 0])
        if child.visit_count == 0:
            return None
        return VanillaNode.get_ucb(parent, child, C)
    except (ZeroDivisionError, ValueError, TypeError, AttributeError):
        return None


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


# ---- the picture -------------------------------------------------------------------------------------------------
def draw(explorer: SearchExplorer, ax: Any = None, max_depth: int = 2, max_children: int = 5) -> Any:
    """The tree after ``explorer.count`` simulations; the next simulation's path in bold with ``→``, the selected
    node framed with ``[ ]``."""
    from alphazero_lib.plotting import draw_search_tree

    nxt = explorer.next_path() or []
    selected = explorer.node()

    def moves_to(node: Any) -> list[int]:
        out = []
        while getattr(node, "parent", None) is not None:
            out.append(int(node.action_taken))
            node = node.parent
        return out[::-1]

    def label(node: Any, parent: Any) -> str:
        path = moves_to(node)
        mark = "→ " if path and path == nxt[: len(path)] else ""
        lines = ["root" if parent is None else f"{mark}move {node.action_taken}"]
        if getattr(node, "prior", None) is not None and parent is not None:
            lines.append(f"P={node.prior:.2f}")
        lines.append(f"N={node.visit_count}")
        if parent is not None:
            lines.append(f"Q={_fmt(parent_q(node))}")
        text = "\n".join(lines)
        return f"[ {text} ]" if node is selected else text

    title = f"after {explorer.count} of {explorer.num_searches} simulations"
    title += f"; next: root → {' → '.join(map(str, nxt))}" if nxt else ""
    return draw_search_tree(explorer.root, max_depth, max_children, ax=ax, title=title, label=label)


def _png(explorer: SearchExplorer) -> bytes:
    import io

    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.2))
    draw(explorer, ax=ax)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


# ---- the widget --------------------------------------------------------------------------------------------------
def explorer_widget(explorer: SearchExplorer, title: str = "") -> Any:
    """The explorer's widgets around ``explorer`` (a VBox). Core widgets only (``HTML``, ``Button``, ``Image``,
    ``HBox``, ``VBox``), which Colab's own widget manager renders with no opt-in, in ipywidgets 7 and 8."""
    import html

    import ipywidgets as widgets

    status = widgets.HTML()
    picture = widgets.Image(format="png")
    step = widgets.Button(description="Step")
    step10 = widgets.Button(description="+10")
    end = widgets.Button(description="Play to the end")
    reset = widgets.Button(description="Reset")
    up = widgets.Button(description="↑ parent")
    children = widgets.HBox()
    details = widgets.HTML()

    def redraw() -> None:
        while explorer.path and explorer.node() is None:  # the selected node is not in the tree (after a reset)
            explorer.up()
        status.value = f"<b>{html.escape(title)}</b> simulation {explorer.count} of {explorer.num_searches}"
        picture.value = _png(explorer)
        buttons = []
        for row in explorer.rows():
            button = widgets.Button(description=f"move {row.move} · N={row.visits}")
            button.on_click(lambda _b, move=row.move: (explorer.choose(move), redraw()))
            buttons.append(button)
        children.children = tuple(buttons)
        up.disabled = not explorer.path
        finished = explorer.count >= explorer.num_searches
        step.disabled = step10.disabled = end.disabled = finished
        details.value = f"<pre>{html.escape(explorer.describe())}</pre>"

    for button, action in (
        (step, lambda: explorer.step(1)),
        (step10, lambda: explorer.step(10)),
        (end, explorer.play_to_end),
        (reset, explorer.reset),
        (up, explorer.up),
    ):
        button.on_click(lambda _b, action=action: (action(), redraw()))
    redraw()
    controls = widgets.HBox([step, step10, end, reset])
    node_row = widgets.HBox([up, children])
    return widgets.VBox([status, controls, picture, node_row, details])


def explore(
    make_search: Callable[[int], Any],
    state: np.ndarray,
    num_searches: int = 50,
    C: float = 1.41,
    title: str = "",
    still_at: int = 5,
) -> None:
    """Step through ``make_search``'s search of ``state``: the explorer when a person is at the notebook; a still
    picture after ``still_at`` simulations with the root's numbers otherwise (nbval, CI, GitHub)."""
    explorer = SearchExplorer(make_search, state, num_searches, C)
    if interactive():
        try:
            from IPython.display import display

            display(explorer_widget(explorer, title))
            return None
        except ImportError:
            print("The explorer needs ipywidgets (`pip install ipywidgets`); Colab has it. A still picture instead:")
    import matplotlib.pyplot as plt

    explorer.count = max(1, min(still_at, num_searches))
    print(explorer.describe())
    _, ax = plt.subplots(figsize=(9, 4.2))
    draw(explorer, ax=ax)
    plt.show()
    return None
