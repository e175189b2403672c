"""Checks for notebook 02 (vanilla MCTS): the learner's Node, method by method, and MCTS.search; a tree picture.

The learner writes ``Node`` cell by cell (``@add_to_class(Node)``) after a given ``__init__`` that keeps the
same attributes as the library's ``alphazero_lib.mcts.Node`` (``state``, ``parent``, ``action_taken``,
``children``, ``expandable_moves``, ``visit_count``, ``value_sum``, ``is_terminal``, ``terminal_value``).
Each ``check_*`` builds nodes of the learner's class, runs the learner's method and the library's on the same
statistics (and, for the random steps, the same seeded ``rng``), prints one verdict line and returns the class;
a method that fails is replaced by the library's. ``check_search`` compares ``MCTS.search`` with the library's
search on seeded positions. ``draw_tree`` draws the top of a search tree with matplotlib.

Randomness: ``expand`` and ``simulate`` take a ``numpy.random.Generator``. Drawing a move as the library does,
``rng.choice(moves)`` (or ``moves[rng.integers(len(moves))]``, the same draw) over the sorted legal moves, makes
the learner's tree grow exactly like the library's with the same seed; the checks rely on that.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any
from unittest import mock

import numpy as np

from alphazero_lib.config import MCTSConfig
from alphazero_lib.exercises.core import (
    FAILED,
    Case,
    Mismatch,
    Mistake,
    Text,
    board,
    check,
    check_method,
    hints_for,
    missing_method,
    show,
)
from alphazero_lib.exercises.positions import ONE_MOVE_LEFT, WIN_AT_2, random_positions, tictactoe
from alphazero_lib.games import TicTacToe
from alphazero_lib.mcts import MCTS as LibraryMCTS
from alphazero_lib.mcts import Node as LibraryNode
from alphazero_lib.players import SearchPlayer  # noqa: F401 (the notebook imports it from here)

GAME = TicTacToe()


def canonical_positions(seed: int, count: int) -> list[np.ndarray]:
    """``count`` live canonical Tic-Tac-Toe positions after 0 to 7 random moves (``positions.random_positions``)."""
    return random_positions(GAME, count, np.random.default_rng(seed), 8, ended="redraw")


# ---- library stand-ins that build children of the learner's class ----------------------------------------
def library_is_fully_expanded(self: Any) -> bool:
    """The library's ``Node.is_fully_expanded`` on the learner's node: every legal move has a child (a node without
    legal moves never counts)."""
    legal = int(self.game.get_valid_moves(self.state).sum())
    return LibraryNode.is_fully_expanded(SimpleNamespace(children=self.children, num_moves=legal))


def library_expand(self: Any, rng: np.random.Generator) -> Any:
    """The library's ``Node.expand``, its new child rebuilt in the learner's class."""
    child = LibraryNode.expand(self, rng)
    child = self.children[-1] = type(self)(self.game, child.state, self, child.action_taken)
    return child


def _mismatch(got: str, expected: str, hint: str) -> Mismatch:
    """A case's failure, ``got`` and ``expected`` shown as they are."""
    return Mismatch(Text(got), Text(expected), hint)


# ---- exercise 1: the UCB score ------------------------------------------------------------------------------
HINTS = {
    "get_ucb": "the child's mean value, child.value_sum / child.visit_count, is from its mover's view (your "
    "opponent's): your Q is 1 - (mean + 1) / 2; add C * math.sqrt(math.log(self.visit_count) / child.visit_count).",
    "select": "loop over self.children, score each with self.get_ucb(child, C), keep the child with the largest "
    "score; replace it only on a strictly larger one (ties keep the first).",
    "is_fully_expanded": "no expandable move left (np.sum(self.expandable_moves) == 0) and at least one child "
    "(len(self.children) > 0).",
    "expand": "action = int(rng.choice(np.flatnonzero(self.expandable_moves))); mark it 0; the child's state is "
    "get_next_state(self.state, action, 1) seen by the opponent (change_perspective(..., -1)); "
    "Node(self.game, child_state, self, action), appended to self.children and returned.",
    "simulate": "a terminal node returns self.terminal_value; otherwise play random legal moves (rng.choice of "
    "np.flatnonzero(valid moves)) from self.state with rollout_player 1, -1, 1, ... until the game ends; return "
    "the value as seen by player 1 (negate it if rollout_player was -1).",
    "backpropagate": "value_sum += value and visit_count += 1 here, then the parent's backpropagate with "
    "get_opponent_value(value), up to the root.",
    "search": "root = self.root = Node(self.game, state); each simulation: select while fully expanded; a "
    "terminal node gives its terminal_value, else expand + simulate; backpropagate. Return the root children's "
    "visit counts at their actions, divided by the sum (a numpy array).",
}
hint, solution = hints_for(HINTS, "02_vanilla_mcts.ipynb")


def check_get_ucb(cls: type) -> type:
    """``Node.get_ucb(child, C)``: the child's value from this node's view scaled to [0, 1], plus exploration."""
    hint = (
        "Q = 1 - (child.value_sum / child.visit_count + 1) / 2 (the child's values are its mover's, your "
        "opponent's), plus C * sqrt(ln(self.visit_count) / child.visit_count)"
    )

    def case(parent_visits: int, visits: int, value_sum: float, C: float) -> Case:
        def setup(c: type) -> tuple[Any, Any]:
            parent, child = c(GAME, GAME.get_initial_state()), c(GAME, GAME.get_initial_state())
            parent.visit_count, child.visit_count, child.value_sum = parent_visits, visits, value_sum
            return parent, child

        call = f"parent.get_ucb(child, C={C})  # parent visits {parent_visits}, child visits {visits}, child value_sum "
        expected = LibraryNode.get_ucb(*setup(LibraryNode), C)
        return Case(f"{call}{value_sum:g}", lambda c: (lambda p, ch: p.get_ucb(ch, C))(*setup(c)), expected, hint)

    def cases(c: type) -> list[Case]:
        out = [case(10, 4, -4.0, 1.41), case(10, 4, 4.0, 1.41), case(1, 1, 0.0, 1.41), case(30, 5, 1.0, 0.0)]
        rng = np.random.default_rng(21)
        for _ in range(60):
            visits = int(rng.integers(1, 60))
            parent, value_sum = visits + int(rng.integers(0, 200)), float(rng.integers(-visits, visits + 1))
            out.append(case(parent, visits, value_sum, float(rng.choice([0.5, 1.0, 1.41, 2.0]))))
        return out

    return check_method(cls, "get_ucb", LibraryNode.get_ucb, cases, mistakes=UCB_MISTAKES)


def _ucb(q: Callable[[float], float] | None = None, bonus: Callable[[int, int], float] | None = None) -> Any:
    """The library's ``get_ucb`` with its Q (of the child's mean) or its exploration term replaced."""

    def get_ucb(self: Any, child: Any, C: float) -> float:
        library_q = LibraryNode.get_ucb(self, child, 0.0)  # C = 0: the library's Q alone
        value = q(child.value_sum / child.visit_count) if q else library_q
        if bonus:
            return value + C * bonus(self.visit_count, child.visit_count)
        return value + LibraryNode.get_ucb(self, child, C) - library_q

    return get_ucb


UCB_MISTAKES = [
    Mistake("the child's value_sum is from the view of the player to move at the child, your opponent: the "
            "parent's Q is 1 - (mean + 1) / 2, not (mean + 1) / 2", _ucb(q=lambda m: (m + 1) / 2)),
    Mistake("Q is the parent's mean result rescaled to [0, 1]: 1 - (mean + 1) / 2, not -mean", _ucb(q=lambda m: -m)),
    Mistake("the bonus is C * sqrt(ln(parent visits) / child visits): the square root is missing",
            _ucb(bonus=lambda p, c: math.log(p) / c)),
    Mistake("the bonus takes the natural logarithm, math.log (not log10)",
            _ucb(bonus=lambda p, c: math.sqrt(math.log10(p) / c))),
    Mistake("the logarithm is of the PARENT's visits, divided by the child's: sqrt(ln(self.visit_count) / "
            "child.visit_count)", _ucb(bonus=lambda p, c: math.sqrt(math.log(c) / p))),
]  # fmt: skip


# ---- exercise 2: selection ----------------------------------------------------------------------------------
def check_select(cls: type) -> type:
    """``Node.select(C)``: the child with the highest ``get_ucb`` (the first one on ties), as the library picks."""

    def case(seed: int, children: int, C: float, ties: bool = False) -> Case:
        def build(c: type) -> Any:  # a node with ``children`` children carrying seeded statistics
            node, rng = c(GAME, GAME.get_initial_state()), np.random.default_rng(seed)
            for _ in range(children):
                child = library_expand(node, rng)
                child.visit_count = int(rng.integers(1, 40))
                child.value_sum = float(rng.integers(-child.visit_count, child.visit_count + 1))
            node.visit_count = sum(ch.visit_count for ch in node.children) + int(rng.integers(1, 5))
            node.value_sum = float(rng.integers(-node.visit_count, node.visit_count + 1))
            for child in node.children if ties else ():
                child.visit_count, child.value_sum = 3, 1.0
            return node

        lib = build(LibraryNode)
        ucbs = ", ".join(f"{ch.action_taken}: {lib.get_ucb(ch, C):.3f}" for ch in lib.children)
        return Case(
            f"node.select(C={C})  # children's UCB by action {{{ucbs}}}; returns the child for action",
            lambda c: build(c).select(C).action_taken,
            lib.select(C).action_taken,
            "all children score the same here: keep the first child (update only on a strictly larger score)"
            if ties
            else "return the child with the highest get_ucb(child, C); on equal scores keep the first one (use >)",
        )

    def cases(c: type) -> list[Case]:
        rng = np.random.default_rng(22)
        seeded = [case(seed, int(rng.integers(2, 10)), float(rng.choice([0.0, 0.5, 1.41, 2.0]))) for seed in range(40)]
        return [case(1, 3, 1.41, ties=True), *seeded]

    return check_method(cls, "select", LibraryNode.select, cases, mistakes=SELECT_MISTAKES)


def select_last_on_ties(self: Any, C: float) -> Any:
    """A selection that keeps the LAST of equal scores (``>=`` where ``>`` is meant): a known mistake."""
    best, best_ucb = None, -math.inf
    for child in self.children:
        ucb = self.get_ucb(child, C)
        if ucb >= best_ucb:
            best, best_ucb = child, ucb
    return best


SELECT_MISTAKES = [
    Mistake("on equal scores keep the FIRST child: replace the best only on a strictly larger score (>, not >=)",
            select_last_on_ties),
    Mistake("the child with the HIGHEST score: max, not min", lambda self, C: min(self.children,
                                                                                key=lambda c: self.get_ucb(c, C))),
    Mistake("select by the UCB score (self.get_ucb(child, C)), not by the visit count",
            lambda self, C: max(self.children, key=lambda c: c.visit_count)),
    Mistake("return the child node itself (the search walks on from it), not its action or its index",
            lambda self, C: int(np.argmax([self.get_ucb(c, C) for c in self.children]))),
]  # fmt: skip


# ---- exercise 3: fully expanded -----------------------------------------------------------------------------
def check_is_fully_expanded(cls: type) -> type:
    """``Node.is_fully_expanded()``: True when every legal move has a child; a node without legal moves: False."""

    def case(state: np.ndarray, children: int, note: str = "") -> Case:
        def build(c: type) -> Any:
            node, rng = c(GAME, state.copy()), np.random.default_rng(children)
            for _ in range(children):
                library_expand(node, rng)
            return node

        legal = GAME.get_valid_moves(state)
        hint = (
            "fully expanded means no expandable move is left (and at least one child exists)"
            if legal.any()
            else "a node without legal moves has no children: it is not 'fully expanded' (selection would have no "
            "child to pick); check that it has children"
        )
        return Case(
            f"is_fully_expanded()  # node {board(state)} with {children} of {int(legal.sum())} moves expanded{note}",
            lambda c: build(c).is_fully_expanded(),
            LibraryNode.is_fully_expanded(build(LibraryNode)),
            hint,
        )

    def cases(c: type) -> list[Case]:
        full = GAME.change_perspective(np.array([[1, -1, 1], [1, -1, -1], [-1, 1, 1]], dtype=np.int8), -1)
        out = [case(GAME.get_initial_state(), 0), case(full, 0, " (the board is full)")]
        for state in canonical_positions(23, 20):
            legal = int(GAME.get_valid_moves(state).sum())
            out += [case(state, children) for children in sorted({0, legal - 1, legal})]
        return out

    return check_method(cls, "is_fully_expanded", library_is_fully_expanded, cases, mistakes=FULL_MISTAKES)


FULL_MISTAKES = [
    Mistake("a node without legal moves (a full board) has no children: it is not 'fully expanded' (selection "
            "would have no child to pick); check len(self.children) > 0 too",
            lambda self: bool(np.sum(self.expandable_moves) == 0)),
    Mistake("fully expanded means no expandable move is left (np.sum(self.expandable_moves) == 0), not just some "
            "child", lambda self: len(self.children) > 0),
    Mistake("the number of legal moves varies: compare with the expandable moves, not with 9 children",
            lambda self: len(self.children) == 9),
]  # fmt: skip


# ---- exercise 4: expansion ----------------------------------------------------------------------------------
def check_expand(cls: type) -> type:
    """``Node.expand(rng)``: one random unexpanded move gets a child (state from the opponent's view). Any uniform
    draw from the ``rng`` given passes; the last two cases judge the draws (the same seed, the same move; every
    expandable move about equally often over ``DRAWS`` seeds)."""

    def case(state: np.ndarray, already: int, seed: int) -> Case:
        def build(c: type) -> Any:
            node, pre = c(GAME, state.copy()), np.random.default_rng(1000 + seed)
            for _ in range(already):
                library_expand(node, pre)
            return node

        lib = build(LibraryNode)
        before = lib.expandable_moves.copy()
        lib_child = library_expand(lib, np.random.default_rng(seed))

        def same(got: Any, exp: Any) -> bool:
            want = _child_state(state, got[0])
            if not np.array_equal(got[1], want):
                raise _mismatch(f"child state {board(got[1])} for move {got[0]}", f"{board(want)}",
                                "play the move for player 1 (the node's mover), then change_perspective(..., -1): "
                                "the child is seen by the opponent, who moves next")  # fmt: skip
            return True

        return Case(
            f"node.expand(np.random.default_rng({seed}))  # node {board(state)}, {already} moves expanded before, "
            f"expandable {np.flatnonzero(before).tolist()}",
            lambda c: _expanded(build(c), state, seed),
            (lib_child.action_taken, lib_child.state),
            "",
            same,
        )

    def cases(c: type) -> list[Case]:
        out = [case(GAME.get_initial_state(), 0, 0), case(GAME.get_initial_state(), 8, 1)]
        rng = np.random.default_rng(24)
        for seed, state in enumerate(canonical_positions(24, 30), start=2):
            out.append(case(state, int(rng.integers(0, int(GAME.get_valid_moves(state).sum()))), seed))
        return [*out, _same_seed_case(), _uniform_case()]

    return check_method(cls, "expand", library_expand, cases, mistakes=EXPAND_MISTAKES)


DRAWS = 1200  # expansions from fresh nodes, one seed each, to judge how the moves are drawn
UNIFORM_MARGIN = 0.06  # largest accepted gap between a move's share and 1/5: about 5 standard deviations
DRAW_STATE, DRAW_EXPANDED = tictactoe([[-1, 0, 0], [0, 1, 0], [0, 0, 0]]), [2, 7]  # five moves left to expand


def _child_state(state: np.ndarray, action: int) -> np.ndarray:
    return GAME.change_perspective(GAME.get_next_state(state, int(action), 1), -1)


def _expanded(node: Any, state: np.ndarray, seed: int) -> tuple[int, np.ndarray]:
    """``node.expand(np.random.default_rng(seed))`` (``state``: the node's): ``(move, child state)``, after
    checking what does not depend on the draw."""
    mask = node.expandable_moves.copy()
    child = node.expand(np.random.default_rng(seed))
    if not np.array_equal(node.state, state):
        raise _mismatch(f"the node's state changed to {board(node.state)}", "it unchanged",
                        "build the child's state from a new array (get_next_state returns one)")  # fmt: skip
    action = getattr(child, "action_taken", None)
    if action is None or not (0 <= int(action) < 9) or not mask[int(action)]:
        raise _mismatch(f"a child for move {action}", f"a child for one of {np.flatnonzero(mask).tolist()}",
                        "pick among the node's expandable moves: np.flatnonzero(self.expandable_moves), "
                        "and set the child's action_taken")  # fmt: skip
    action = int(action)
    if node.expandable_moves[action]:
        raise _mismatch(f"expandable_moves[{action}] still 1", "0",
                        "mark the move as expanded: self.expandable_moves[action] = 0")  # fmt: skip
    if not node.children or node.children[-1] is not child:
        raise _mismatch(f"{len(node.children)} children, the new one not last", "the new child last in self.children",
                        "append the new child to self.children and return it")  # fmt: skip
    if getattr(child, "parent", None) is not node:
        raise _mismatch("a child whose parent is not the node", "child.parent is the node",
                        "pass self as the child's parent")  # fmt: skip
    return action, np.asarray(child.state)


def _fresh_move(c: type, seed: int) -> int:
    """The move ``expand`` draws with ``seed`` on a fresh node of ``c`` at ``DRAW_STATE`` (``DRAW_EXPANDED`` done)."""
    node = c(GAME, DRAW_STATE.copy())
    node.expandable_moves[DRAW_EXPANDED] = 0
    return _expanded(node, DRAW_STATE, seed)[0]


def _same_seed_case() -> Case:
    def run(c: type) -> Any:
        for seed in range(7, 13):
            moves = [_fresh_move(c, seed) for _ in range(2)]
            if moves[0] != moves[1]:
                raise _mismatch(f"moves {moves[0]} and then {moves[1]} for seed {seed}", "the same move twice",
                                "draw with the rng you are given (rng.choice or rng.integers), not np.random or "
                                "random: the search's seed must decide every draw")  # fmt: skip
        return "the same move for the same seed"

    return Case(
        f"the same expansion twice: node.expand(np.random.default_rng(seed)) on two fresh nodes {board(DRAW_STATE)} "
        f"(moves {DRAW_EXPANDED} expanded before), seeds 7 to 12",
        run,
        "the same move for the same seed",
    )


def _uniform_case() -> Case:
    moves = np.setdiff1d(np.flatnonzero(GAME.get_valid_moves(DRAW_STATE)), DRAW_EXPANDED)  # the expandable moves
    expected = Text(f"each of {moves.tolist()} about 1/{len(moves)} of the time")

    def run(c: type) -> Any:
        shares = np.bincount([_fresh_move(c, seed) for seed in range(DRAWS)], minlength=9)[moves] / DRAWS
        if np.max(np.abs(shares - 1 / len(moves))) > UNIFORM_MARGIN:
            got = "shares " + ", ".join(f"{m}: {s:.2f}" for m, s in zip(moves, shares, strict=True))
            hint = "draw uniformly among the expandable moves with the rng you are given: "
            raise _mismatch(got, expected, hint + "rng.choice(np.flatnonzero(self.expandable_moves)), or an index "
                            "from rng.integers")  # fmt: skip
        return expected

    return Case(
        f"{DRAWS} expansions of fresh nodes {board(DRAW_STATE)} (moves {DRAW_EXPANDED} expanded before), seeds 0 to "
        f"{DRAWS - 1}: how often each move is drawn",
        run,
        expected,
    )


def _expand_with(
    pick: Callable[..., int] = lambda self, rng, moves: int(rng.choice(moves)), player: int | None = None
) -> Callable[..., Any]:
    """``expand`` with one known mistake: another draw (``pick``), or the child's state not flipped, played for
    ``player``."""

    def expand(self: Any, rng: np.random.Generator) -> Any:
        action = pick(self, rng, np.flatnonzero(self.expandable_moves))
        self.expandable_moves[action] = 0
        state = _child_state(self.state, action) if player is None else GAME.get_next_state(self.state, action, player)
        child = type(self)(self.game, state, self, action)
        self.children.append(child)
        return child

    return expand


EXPAND_MISTAKES = [
    Mistake("the child is seen by the opponent, who moves next: play the move for player 1 (the node's mover), "
            "then change_perspective(child_state, -1)", _expand_with(player=1)),
    Mistake("the node's mover is 1 in its canonical state: get_next_state(self.state, action, 1), then flip the "
            "child's state with change_perspective(..., -1)", _expand_with(player=-1)),
    Mistake("draw the move at random with the rng you are given, rng.choice(np.flatnonzero(self.expandable_moves)), "
            "not the first one", _expand_with(lambda self, rng, moves: int(moves[0]))),
    Mistake("draw with the rng you are given (rng.choice or rng.integers), not np.random or random: the search's "
            "seed must decide every draw", _expand_with(lambda self, rng, moves: int(np.random.choice(moves)))),
    Mistake("draw among the moves not expanded yet (self.expandable_moves), not among all legal moves",
            _expand_with(lambda self, rng, moves: int(rng.choice(np.flatnonzero(GAME.get_valid_moves(self.state)))))),
]  # fmt: skip


# ---- exercise 5: simulation ---------------------------------------------------------------------------------
def check_simulate(cls: type) -> type:
    """``Node.simulate(rng)``: a random rollout to the end; the result (1, 0, -1) for the player to move here, the
    same as the library's for the same ``rng`` (drawn as it does: ``rng.choice(np.flatnonzero(valid_moves))``)."""

    def case(state: np.ndarray, action: int | None, seed: int, note: str = "") -> Case:
        lib = LibraryNode(GAME, state.copy(), action_taken=action)
        expected = float(lib.simulate(np.random.default_rng(seed)))

        def run(c: type) -> Any:
            node = c(GAME, state.copy(), action_taken=action)
            got = node.simulate(np.random.default_rng(seed))
            if not np.array_equal(node.state, state):
                raise _mismatch(f"{show(got)} and the node's state became {board(node.state)}",
                                f"{show(expected)} with the node's state unchanged",
                                "roll out on a copy: rollout_state = self.state.copy() (get_next_state makes new "
                                "arrays)")  # fmt: skip
            return got

        hint = (
            "the move into this node ended the game: return self.terminal_value (the rules' verdict for the "
            "player to move here) without playing on"
            if lib.is_terminal
            else "the result is for the player to move at this node (1 in the canonical state): when the rollout "
            "ended on the opponent's move (rollout_player == -1), negate the value"
            if expected
            else "play random legal moves, rollout_player starting at 1 and switching after each move, until the "
            "game is terminated; draw with rng.choice(np.flatnonzero(valid_moves))"
        )
        call = f"Node(game, {board(state)}, action_taken={action}).simulate(np.random.default_rng({seed})){note}"
        return Case(call, run, expected, hint)

    def cases(c: type) -> list[Case]:
        # X (now -1 in the canonical state of O, who moves next) just completed the top row with move 2
        won, drawn = tictactoe([[-1, -1, -1], [1, 1, 0], [0, 0, 0]]), tictactoe([[-1, 1, -1], [-1, 1, 1], [1, -1, -1]])
        out = [case(won, 2, 0, "  # terminal: lost for the player to move"), case(drawn, 8, 0, "  # a full board")]
        one_left = [
            ONE_MOVE_LEFT,  # cell 8 draws
            tictactoe([[1, 1, 0], [-1, -1, 1], [-1, 1, -1]]),  # cell 2 wins for the mover
            tictactoe([[-1, 1, 1], [1, -1, -1], [1, -1, 0]]),  # cell 8 blocks the diagonal: a draw
        ]
        out += [case(s, None, 0, "  # one empty cell") for s in one_left]
        return out + [case(state, None, seed) for seed, state in enumerate(canonical_positions(25, 40))]

    return check_method(cls, "simulate", LibraryNode.simulate, cases, mistakes=SIMULATE_MISTAKES)


SIMULATE_MISTAKES = [  # the library's rollout with one change: no negation, or no stop at a terminal node
    Mistake("the result is for the player to move at this node (1 in the canonical state): when the rollout ends "
            "on the opponent's move (rollout_player == -1), negate the value",
            lambda self, rng: self.terminal_value if self.is_terminal else abs(LibraryNode.simulate(self, rng))),
    Mistake("the move into this node ended the game: return self.terminal_value without playing on",
            lambda self, rng: LibraryNode.simulate(SimpleNamespace(game=self.game, state=self.state,
                                                                   is_terminal=False), rng)),
]  # fmt: skip


# ---- exercise 6: backpropagation ----------------------------------------------------------------------------
def check_backpropagate(cls: type) -> type:
    """``Node.backpropagate(value)``: add ``value`` here and, with its sign flipped at every step, on each ancestor;
    compared as every node's ``(visit_count, value_sum)`` on paths of 1 to 6 nodes, leaf first."""

    def case(depth: int, value: float, seed: int) -> Case:
        def run(c: type) -> list[tuple[int, float]]:
            rng, path = np.random.default_rng(seed), [c(GAME, GAME.get_initial_state())]
            for _ in range(depth - 1):
                path.append(c(GAME, GAME.get_initial_state(), path[-1], None))
            for node in path:
                node.visit_count = int(rng.integers(0, 20))
                node.value_sum = float(rng.integers(-node.visit_count, node.visit_count + 1))
            path[-1].backpropagate(value)
            return [(int(n.visit_count), float(n.value_sum)) for n in reversed(path)]

        return Case(
            f"leaf.backpropagate({value:g})  # a path of {depth} nodes; compares (visit_count, value_sum) from the "
            "leaf up",
            run,
            run(LibraryNode),
            "every node on the way up gets one more visit and the value, negated at each step (the players "
            "alternate), up to and including the root (parent None)",
        )

    def cases(c: type) -> list[Case]:
        return [case(1 + seed % 6, (1.0, -1.0, 0.0)[seed % 3], seed) for seed in range(30)]

    return check_method(cls, "backpropagate", LibraryNode.backpropagate, cases, mistakes=BACKUP_MISTAKES)


def _backup(flip: bool = True, climb: bool = True, first: bool = False) -> Callable[..., None]:
    def backpropagate(self: Any, value: float) -> None:
        node, value = self, (-value if first else value)
        while node is not None:
            node.value_sum += value
            node.visit_count += 1
            value = -value if flip else value
            node = node.parent if climb else None

    return backpropagate


BACKUP_MISTAKES = [
    Mistake("the players alternate up the tree: the parent gets -value (get_opponent_value), its parent +value, "
            "and so on", _backup(flip=False)),
    Mistake("every node on the path gets the visit and the value, up to and including the root (parent None): "
            "call the parent's backpropagate", _backup(climb=False)),
    Mistake("this node gets value as given (its mover's view); the sign flips only for the parent",
            _backup(first=True)),
]  # fmt: skip


# ---- exercise 7: the search ---------------------------------------------------------------------------------
class LibrarySearch(LibraryMCTS):
    """The library's MCTS with the notebook's constructor: ``MCTS(game, num_searches, C, seed)``."""

    def __init__(self, game: Any, num_searches: int = 1000, C: float = 1.41, seed: int | None = None) -> None:
        super().__init__(game, MCTSConfig(num_searches=num_searches, C=C, seed=seed))


SEARCH_POSITIONS = [  # (name, canonical state, decisive: the library's search picks that move for every seed)
    ("X wins at 2", WIN_AT_2, True),
    ("block O at 8", np.array([[-1, 1, 0], [0, -1, 0], [1, 0, 0]], dtype=np.int8), True),
    ("win at 4 rather than block at 5", np.array([[0, 1, -1], [0, 0, 0], [0, 1, -1]], dtype=np.int8), True),
    # 6 wins at once, and 4 wins too (three threats): with 600 simulations the library's search prefers 4 for
    # 14 of seeds 0..19 and 6 for 6 of them, so the check asks for no particular move here
    ("6 wins at once, 4 wins a move later", np.array([[1, -1, -1], [1, 0, 0], [0, -1, 0]], dtype=np.int8), False),
    ("the empty board", np.zeros((3, 3), dtype=np.int8), False),
    ("answer a corner", np.array([[-1, 0, 0], [0, 0, 0], [0, 0, 0]], dtype=np.int8), False),
    ("one move left", ONE_MOVE_LEFT, True),
]
SEARCH_TOLERANCE = 0.08  # the largest visit-share difference accepted when the random draws differ


def check_search(mcts_class: type, num_searches: int = 600) -> type:
    """``MCTS(game, num_searches, C, seed).search(state)``: the root's visit shares, shape ``(action_size,)``, compared
    with the library's search on the learner's own nodes (an expansion that draws in another order is followed, not
    punished). Returns the learner's class or ``LibrarySearch``."""

    def case(name: str, state: np.ndarray, decisive: bool, seed: int) -> Case:
        expected = LibrarySearch(GAME, num_searches, 1.41, seed).search(state.copy())

        def run(c: type) -> Any:
            mcts = c(GAME, num_searches=num_searches, C=1.41, seed=seed)
            got = mcts.search(state.copy())
            if not isinstance(got, np.ndarray) or got.dtype.kind not in "biuf":
                raise Mismatch(got, expected, "return the shares as a numpy array of floats, shape (action_size,): "
                               "visits / visits.sum() with visits = np.zeros(self.game.action_size)")  # fmt: skip
            got, root = got.astype(float), getattr(mcts, "root", None)
            if root is None or getattr(root, "visit_count", None) != num_searches:
                raise _mismatch(f"self.root = {type(root).__name__} with {getattr(root, 'visit_count', None)} visits",
                                f"the root node with {num_searches} visits", "keep the root node in self.root (the "
                                "tree picture uses it); it is visited once per simulation")  # fmt: skip
            search = planted_search(type(root))(GAME, num_searches, 1.41, seed)  # the library's loop on their nodes
            reference = expected if type(root) is LibraryNode else search.search(state.copy())
            if got.shape != reference.shape:
                raise Mismatch(got, reference, "one share per action: shape (self.game.action_size,)")
            if not np.isclose(got.sum(), 1.0) or np.any(got[GAME.get_valid_moves(state) == 0] != 0):
                raise Mismatch(got, reference, "return each root child's visit count divided by the total: shares "
                               "that sum to 1, 0 for moves without a child")  # fmt: skip
            if decisive and int(np.argmax(got)) != int(np.argmax(expected)):
                raise Mismatch(got, reference, f"{name}: the library's search puts most visits on "
                               f"{int(np.argmax(expected))}; check the sign flips (get_ucb and backpropagate) and the "
                               "terminal nodes")  # fmt: skip
            if np.max(np.abs(got - reference)) > SEARCH_TOLERANCE:
                raise Mismatch(got, reference, "the shares differ more than random draws explain: check the sign flips "
                               "and the loop: select while fully expanded, then (if the node is not terminal) expand "
                               "+ simulate, else use node.terminal_value; then backpropagate")  # fmt: skip
            return got

        return Case(
            f"MCTS(game, num_searches={num_searches}, C=1.41, seed={seed}).search({board(state)})  # {name}",
            run,
            expected,
            "select while fully expanded; at a terminal node use node.terminal_value instead of expanding (it has "
            "no move left); otherwise expand and simulate; then backpropagate",
            lambda got, exp: True,  # run compared it with the search on the learner's nodes
        )

    def cases() -> list[Case]:
        return [case(name, state, decisive, seed) for seed, (name, state, decisive) in enumerate(SEARCH_POSITIONS)]

    if not isinstance(mcts_class, type):
        print(
            f"{FAILED} MCTS.search: expected a class, got {show(mcts_class)}; run the cell that defines it", flush=True
        )
        return LibrarySearch
    if mcts_class.__dict__.get("search") is None:
        how = "write def search(self, state) inside class MCTS and run its cell again"
        print(missing_method(mcts_class, "search", "self, state", how), flush=True)
        return LibrarySearch
    mistakes = search_mistakes(_learners_node(mcts_class))
    return check("MCTS.search", mcts_class, LibrarySearch, cases, mistakes, own=["search"])


def planted_search(node_class: type = LibraryNode, mistake: str = "") -> type:
    """``LibrarySearch`` (the loop of ``alphazero_lib.mcts.MCTS.search``) on nodes of ``node_class``, with one known
    mistake planted in the nodes while it searches: "terminal" (terminal nodes are expanded too), "children" (select
    while a node has any child), or "counts" (the visit counts are returned, not the shares)."""
    simulate = node_class.simulate
    changes = {
        "children": {"is_fully_expanded": lambda self: bool(self.children)},
        "terminal": {  # the loop sees no terminal node; a new child's own rollout still stops at once
            "is_terminal": property(lambda self: False, lambda self, value: setattr(self, "ends_game", value)),
            "simulate": lambda self, rng: self.terminal_value if self.ends_game else simulate(self, rng),
        },
    }.get(mistake, {})

    class MCTS(LibrarySearch):
        def search(self, state: np.ndarray) -> np.ndarray:
            with mock.patch("alphazero_lib.mcts.Node", node_class), contextlib.ExitStack() as planted:
                for name, value in changes.items():
                    planted.enter_context(mock.patch.object(node_class, name, value, create=True))
                shares = super().search(state)
            return shares * self.config.num_searches if mistake == "counts" else shares

    return MCTS


def search_mistakes(node_class: type = LibraryNode) -> list[Mistake]:
    """The known wrong searches, on nodes of ``node_class`` (the learner's, so that they draw as the learner's)."""
    return [
        Mistake("a terminal node has no move to expand: use node.terminal_value as the value and backpropagate it",
                planted_search(node_class, "terminal")),
        Mistake("walk down with select only while the node is FULLY expanded (is_fully_expanded()); a node with an "
                "unexpanded move gets a new child first", planted_search(node_class, "children")),
        Mistake("return the visit SHARES: each child's visit count divided by the sum of them",
                planted_search(node_class, "counts")),
    ]  # fmt: skip


def _learners_node(mcts_class: type) -> type:
    """The ``Node`` class the learner's ``search`` builds its tree from (the notebook's), else the library's."""
    search = mcts_class.__dict__.get("search")
    node = getattr(search, "__globals__", {}).get("Node")
    return node if isinstance(node, type) and all(hasattr(node, m) for m in ("expand", "simulate")) else LibraryNode


# ---- the tree picture ---------------------------------------------------------------------------------------
def draw_tree(
    root: Any,
    C: float = 1.41,
    max_depth: int = 2,
    max_children: int = 4,
    ax: Any = None,
    title: str | None = None,
) -> Any:
    """Draw the top of a search tree (the ``max_children`` most visited children per node, ``max_depth`` levels):
    one box per node with its move, visits N, value Q from the **parent's** view and the parent's UCB score for it
    with constant ``C``. Works with the library's ``Node`` and the notebook's; returns the axes."""
    import matplotlib.pyplot as plt

    from alphazero_lib.plotting import draw_search_tree

    if ax is None:
        _, ax = plt.subplots(figsize=(11, 1.9 * (max_depth + 1)))

    def label(node: Any, parent: Any) -> str:
        if parent is None:
            return f"root\nN={node.visit_count}"
        if node.visit_count == 0:
            return f"move {node.action_taken}\nN=0"
        seen_from = SimpleNamespace(visit_count=max(parent.visit_count, 1))  # the library's UCB1 reads only that
        q, ucb = LibraryNode.get_ucb(seen_from, node, 0.0), LibraryNode.get_ucb(seen_from, node, C)
        return f"move {node.action_taken}\nN={node.visit_count}\nQ={q:.2f}\nUCB={ucb:.2f}"

    title = title or f"search tree after {root.visit_count} simulations (Q and UCB from the parent's view)"
    return draw_search_tree(root, max_depth, max_children, ax=ax, title=title, label=label)
