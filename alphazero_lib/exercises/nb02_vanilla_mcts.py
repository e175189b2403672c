"""Checks for notebook 02 (vanilla MCTS): the learner's Node, method by method, and MCTS.search; a tree picture.

The learner writes ``Node`` cell by cell (``@add_to_class(Node)``) after a given ``__init__`` with the attributes
of the library's ``alphazero_lib.mcts.Node``. Each ``check_*`` runs the learner's method and the library's on the
same nodes (and, for the random steps, the same seeded ``rng``) and returns the class; a method that fails is
replaced by the library's. Drawing a move as the library does, ``rng.choice(moves)`` (or
``moves[rng.integers(len(moves))]``, the same draw), makes the learner's tree grow exactly like the library's.
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
    judged_in_run,
    miss,
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
    """The library's ``Node.is_fully_expanded`` on the learner's node (which may have no ``num_moves``)."""
    legal = int(self.game.get_valid_moves(self.state).sum())
    return LibraryNode.is_fully_expanded(SimpleNamespace(children=self.children, num_moves=legal))


def library_expand(self: Any, rng: np.random.Generator) -> Any:
    """The library's ``Node.expand``, its new child rebuilt in the learner's class."""
    child = LibraryNode.expand(self, rng)
    child = self.children[-1] = type(self)(self.game, child.state, self, child.action_taken)
    return child


def grown(c: type, state: np.ndarray, children: int, seed: int) -> Any:
    """A node of class ``c`` at ``state`` with ``children`` children, expanded as the library does with ``seed``."""
    node, rng = c(GAME, state.copy()), np.random.default_rng(seed)
    for _ in range(children):
        library_expand(node, rng)
    return node


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

    def case(parent_visits: int, visits: int, value_sum: float, C: float) -> Case:
        def ucb(c: type) -> Any:
            parent, child = c(GAME, GAME.get_initial_state()), c(GAME, GAME.get_initial_state())
            parent.visit_count, child.visit_count, child.value_sum = parent_visits, visits, value_sum
            return parent.get_ucb(child, C)

        call = f"parent.get_ucb(child, C={C})  # parent visits {parent_visits}, child visits {visits}, child value_sum "
        return Case(f"{call}{value_sum:g}", ucb, ucb(LibraryNode), HINTS["get_ucb"])

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
    Mistake(
        "the child's value_sum is from the view of the player to move at the child, your opponent: the "
        "parent's Q is 1 - (mean + 1) / 2, not (mean + 1) / 2",
        _ucb(q=lambda m: (m + 1) / 2),
    ),
    Mistake("Q is the parent's mean result rescaled to [0, 1]: 1 - (mean + 1) / 2, not -mean", _ucb(q=lambda m: -m)),
    Mistake(
        "the bonus is C * sqrt(ln(parent visits) / child visits): the square root is missing",
        _ucb(bonus=lambda p, c: math.log(p) / c),
    ),
    Mistake(
        "the bonus takes the natural logarithm, math.log (not log10)",
        _ucb(bonus=lambda p, c: math.sqrt(math.log10(p) / c)),
    ),
    Mistake(
        "the logarithm is of the PARENT's visits, divided by the child's: sqrt(ln(self.visit_count) / "
        "child.visit_count)",
        _ucb(bonus=lambda p, c: math.sqrt(math.log(c) / p)),
    ),
]


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
            HINTS["select"],
        )

    def cases(c: type) -> list[Case]:
        rng = np.random.default_rng(22)
        seeded = [case(seed, int(rng.integers(2, 10)), float(rng.choice([0.0, 0.5, 1.41, 2.0]))) for seed in range(40)]
        return [case(1, 3, 1.41, ties=True), *seeded]

    return check_method(cls, "select", LibraryNode.select, cases, mistakes=SELECT_MISTAKES)


def select_last_on_ties(self: Any, C: float) -> Any:
    """A selection that keeps the LAST of equal scores (``>=`` where ``>`` is meant): a known mistake."""
    return max(reversed(self.children), key=lambda child: self.get_ucb(child, C))


SELECT_MISTAKES = [
    Mistake(
        "on equal scores keep the FIRST child: replace the best only on a strictly larger score (>, not >=)",
        select_last_on_ties,
    ),
    Mistake(
        "the child with the HIGHEST score: max, not min",
        lambda self, C: min(self.children, key=lambda c: self.get_ucb(c, C)),
    ),
    Mistake(
        "select by the UCB score (self.get_ucb(child, C)), not by the visit count",
        lambda self, C: max(self.children, key=lambda c: c.visit_count),
    ),
    Mistake(
        "return the child node itself (the search walks on from it), not its action or its index",
        lambda self, C: int(np.argmax([self.get_ucb(c, C) for c in self.children])),
    ),
]


# ---- exercise 3: fully expanded -----------------------------------------------------------------------------
def check_is_fully_expanded(cls: type) -> type:
    """``Node.is_fully_expanded()``: True when every legal move has a child; a node without legal moves: False."""

    def case(state: np.ndarray, children: int, note: str = "") -> Case:
        legal = int(GAME.get_valid_moves(state).sum())
        return Case(
            f"is_fully_expanded()  # node {board(state)} with {children} of {legal} moves expanded{note}",
            lambda c: grown(c, state, children, children).is_fully_expanded(),
            LibraryNode.is_fully_expanded(grown(LibraryNode, state, children, children)),
            HINTS["is_fully_expanded"],
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
    Mistake(
        "a node without legal moves (a full board) has no children: it is not 'fully expanded' (selection "
        "would have no child to pick); check len(self.children) > 0 too",
        lambda self: bool(np.sum(self.expandable_moves) == 0),
    ),
    Mistake(
        "fully expanded means no expandable move is left (np.sum(self.expandable_moves) == 0), not just some child",
        lambda self: len(self.children) > 0,
    ),
    Mistake(
        "the number of legal moves varies: compare with the expandable moves, not with 9 children",
        lambda self: len(self.children) == 9,
    ),
    Mistake(
        "the test on the expandable moves is inverted: fully expanded means NONE is left, np.sum(self."
        "expandable_moves) == 0 (not > 0)",
        lambda self: bool(np.sum(self.expandable_moves) > 0 and len(self.children) > 0),
    ),
]


# ---- exercise 4: expansion ----------------------------------------------------------------------------------
DRAWS = 1200  # expansions from fresh nodes, one seed each, to judge how the moves are drawn
UNIFORM_MARGIN = 0.06  # largest accepted gap between a move's share and 1/5: about 5 standard deviations
DRAW_STATE, DRAW_EXPANDED = tictactoe([[-1, 0, 0], [0, 1, 0], [0, 0, 0]]), [2, 7]  # five moves left to expand
RULES = {  # the hints that a case's own comparison and a known mistake share
    "flip": "the child is seen by the opponent, who moves next: play the move for player 1 (the node's mover), then "
    "change_perspective(child_state, -1)",
    "rng": "draw with the rng you are given (rng.choice or rng.integers), not np.random or random: the search's seed "
    "must decide every draw",
}


def check_expand(cls: type) -> type:
    """``Node.expand(rng)``: one random unexpanded move gets a child (state from the opponent's view). Any uniform
    draw from the ``rng`` given passes; the last two cases judge the draws (the same seed, the same move; every
    expandable move about equally often over ``DRAWS`` seeds)."""

    def case(state: np.ndarray, already: int, seed: int) -> Case:
        lib = grown(LibraryNode, state, already, 1000 + seed)
        expandable = np.flatnonzero(lib.expandable_moves).tolist()
        child = library_expand(lib, np.random.default_rng(seed))
        return Case(
            f"node.expand(np.random.default_rng({seed}))  # node {board(state)}, {already} moves expanded before, "
            f"expandable {expandable}",
            lambda c: _expanded(grown(c, state, already, 1000 + seed), seed, child_state=True),
            (child.action_taken, child.state),
            same=judged_in_run,
        )

    def cases(c: type) -> list[Case]:
        out = [case(GAME.get_initial_state(), 0, 0), case(GAME.get_initial_state(), 8, 1)]
        rng = np.random.default_rng(24)
        for seed, state in enumerate(canonical_positions(24, 30), start=2):
            out.append(case(state, int(rng.integers(0, int(GAME.get_valid_moves(state).sum()))), seed))
        return [*out, *_draw_cases()]

    return check_method(cls, "expand", library_expand, cases, mistakes=EXPAND_MISTAKES)


def _child_state(state: np.ndarray, action: int) -> np.ndarray:
    return GAME.change_perspective(GAME.get_next_state(state, int(action), 1), -1)


def _expanded(node: Any, seed: int, child_state: bool = False) -> tuple[int, np.ndarray]:
    """``node.expand(np.random.default_rng(seed))`` as ``(move, child state)``, checked in what does not depend on
    the draw (and, with ``child_state``, in the child's state for the move drawn)."""
    mask, state = node.expandable_moves.copy(), np.array(node.state)
    child = node.expand(np.random.default_rng(seed))
    if not np.array_equal(node.state, state):
        raise miss(
            f"the node's state changed to {board(node.state)}",
            "it unchanged",
            "build the child's state from a new array (get_next_state returns one)",
        )
    action = getattr(child, "action_taken", None)
    if action is None or not (0 <= int(action) < 9) or not mask[int(action)]:
        raise miss(
            f"a child for move {action}",
            f"a child for one of {np.flatnonzero(mask).tolist()}",
            "pick among the node's expandable moves: np.flatnonzero(self.expandable_moves), and set the "
            "child's action_taken",
        )
    action = int(action)
    if node.expandable_moves[action]:
        raise miss(
            f"expandable_moves[{action}] still 1", "0", "mark the move as expanded: self.expandable_moves[action] = 0"
        )
    if not node.children or node.children[-1] is not child:
        raise miss(
            f"{len(node.children)} children, the new one not last",
            "the new child last in self.children",
            "append the new child to self.children and return it",
        )
    if getattr(child, "parent", None) is not node:
        raise miss(
            "a child whose parent is not the node", "child.parent is the node", "pass self as the child's parent"
        )
    want = _child_state(state, action)
    if child_state and not np.array_equal(child.state, want):
        raise miss(f"child state {board(child.state)} for move {action}", board(want), RULES["flip"])
    return action, np.asarray(child.state)


def _draw_cases() -> list[Case]:
    """How ``expand`` draws, on fresh nodes at ``DRAW_STATE``: the same move for the same seed, and each expandable
    move about equally often over ``DRAWS`` seeds."""
    moves = np.setdiff1d(np.flatnonzero(GAME.get_valid_moves(DRAW_STATE)), DRAW_EXPANDED)  # the expandable moves
    uniform = Text(f"each of {moves.tolist()} about 1/{len(moves)} of the time")
    nodes = f"fresh nodes {board(DRAW_STATE)} (moves {DRAW_EXPANDED} expanded before), seeds"

    def move(c: type, seed: int) -> int:
        node = c(GAME, DRAW_STATE.copy())
        node.expandable_moves[DRAW_EXPANDED] = 0
        return _expanded(node, seed)[0]

    def same_seed(c: type) -> str:
        for seed in range(7, 13):
            first, second = move(c, seed), move(c, seed)
            if first != second:
                raise miss(f"moves {first} and then {second} for seed {seed}", "the same move twice", RULES["rng"])
        return "the same move for the same seed"

    def shares(c: type) -> Text:
        shares = np.bincount([move(c, seed) for seed in range(DRAWS)], minlength=9)[moves] / DRAWS
        if np.max(np.abs(shares - 1 / len(moves))) > UNIFORM_MARGIN:
            got = "shares " + ", ".join(f"{m}: {s:.2f}" for m, s in zip(moves, shares, strict=True))
            raise miss(
                got,
                uniform,
                "draw uniformly among the expandable moves with the rng you are given: "
                "rng.choice(np.flatnonzero(self.expandable_moves)), or an index from rng.integers",
            )
        return uniform

    return [
        Case(
            f"the same expansion twice: node.expand(np.random.default_rng(seed)) on two {nodes} 7 to 12",
            same_seed,
            "the same move for the same seed",
        ),
        Case(f"{DRAWS} expansions of {nodes} 0 to {DRAWS - 1}: how often each move is drawn", shares, uniform),
    ]


def _expand_with(pick: Callable[..., int] | None = None, player: int | None = None) -> Callable[..., Any]:
    """``expand`` with one known mistake: another draw (``pick``), or the child's state not flipped, played for
    ``player``."""

    def expand(self: Any, rng: np.random.Generator) -> Any:
        moves = np.flatnonzero(self.expandable_moves)
        action = pick(self, rng, moves) if pick else int(rng.choice(moves))
        self.expandable_moves[action] = 0
        state = _child_state(self.state, action) if player is None else GAME.get_next_state(self.state, action, player)
        child = type(self)(self.game, state, self, action)
        self.children.append(child)
        return child

    return expand


EXPAND_MISTAKES = [
    Mistake(RULES["flip"], _expand_with(player=1)),
    Mistake(
        "the node's mover is 1 in its canonical state: get_next_state(self.state, action, 1), then flip the "
        "child's state with change_perspective(..., -1)",
        _expand_with(player=-1),
    ),
    Mistake(
        "draw the move at random with the rng you are given, rng.choice(np.flatnonzero(self.expandable_moves)), "
        "not the first one",
        _expand_with(lambda self, rng, moves: int(moves[0])),
    ),
    Mistake(RULES["rng"], _expand_with(lambda self, rng, moves: int(np.random.choice(moves)))),
    Mistake(
        "draw among the moves not expanded yet (self.expandable_moves), not among all legal moves",
        _expand_with(lambda self, rng, moves: int(rng.choice(np.flatnonzero(GAME.get_valid_moves(self.state))))),
    ),
]


# ---- exercise 5: simulation ---------------------------------------------------------------------------------
def check_simulate(cls: type) -> type:
    """``Node.simulate(rng)``: a random rollout to the end; the result (1, 0, -1) for the player to move here, the
    same as the library's for the same ``rng``."""

    def case(state: np.ndarray, action: int | None, seed: int, note: str = "") -> Case:
        expected = float(LibraryNode(GAME, state.copy(), action_taken=action).simulate(np.random.default_rng(seed)))

        def run(c: type) -> Any:
            node = c(GAME, state.copy(), action_taken=action)
            got = node.simulate(np.random.default_rng(seed))
            if not np.array_equal(node.state, state):
                raise miss(
                    f"{show(got)} and the node's state became {board(node.state)}",
                    f"{show(expected)} with the node's state unchanged",
                    "roll out on a copy: rollout_state = self.state.copy() (get_next_state makes new arrays)",
                )
            return got

        call = f"Node(game, {board(state)}, action_taken={action}).simulate(np.random.default_rng({seed})){note}"
        return Case(call, run, expected, HINTS["simulate"])

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
    Mistake(
        "the result is for the player to move at this node (1 in the canonical state): when the rollout ends "
        "on the opponent's move (rollout_player == -1), negate the value",
        lambda self, rng: self.terminal_value if self.is_terminal else abs(LibraryNode.simulate(self, rng)),
    ),
    Mistake(
        "the move into this node ended the game: return self.terminal_value without playing on",
        lambda self, rng: LibraryNode.simulate(
            SimpleNamespace(game=self.game, state=self.state, is_terminal=False), rng
        ),
    ),
]


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
            HINTS["backpropagate"],
        )

    def cases(c: type) -> list[Case]:
        return [case(1 + seed % 6, (1.0, -1.0, 0.0)[seed % 3], seed) for seed in range(30)]

    return check_method(cls, "backpropagate", LibraryNode.backpropagate, cases, mistakes=BACKUP_MISTAKES)


def _backup(flip: bool = True, climb: bool = True, first: bool = False, by_value: bool = False) -> Callable[..., None]:
    def backpropagate(self: Any, value: float) -> None:
        node, value = self, (-value if first else value)
        while node is not None:
            node.value_sum += value
            node.visit_count += abs(value) if by_value else 1
            value = -value if flip else value
            node = node.parent if climb else None

    return backpropagate


BACKUP_MISTAKES = [
    Mistake(
        "the players alternate up the tree: the parent gets -value (get_opponent_value), its parent +value, and so on",
        _backup(flip=False),
    ),
    Mistake(
        "every node on the path gets the visit and the value, up to and including the root (parent None): "
        "call the parent's backpropagate",
        _backup(climb=False),
    ),
    Mistake(
        "this node gets value as given (its mover's view); the sign flips only for the parent", _backup(first=True)
    ),
    Mistake(
        "a visit counts 1 whatever the value: visit_count += 1 (a draw, value 0, is a visit too)",
        _backup(by_value=True),
    ),
]


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
SEARCH_MISTAKES = {  # the mistake planted in the library's search (planted_search) -> its hint
    "terminal": "a terminal node has no move to expand: use node.terminal_value as the value and backpropagate it",
    "children": "walk down with select only while the node is FULLY expanded (is_fully_expanded()); a node with an "
    "unexpanded move gets a new child first",
    "counts": "return the visit SHARES: each child's visit count divided by the sum of them",
}


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
                raise Mismatch(
                    got,
                    expected,
                    "return the shares as a numpy array of floats, shape (action_size,): "
                    "visits / visits.sum() with visits = np.zeros(self.game.action_size)",
                )
            got, root = got.astype(float), getattr(mcts, "root", None)
            if root is None or getattr(root, "visit_count", None) != num_searches:
                raise miss(
                    f"self.root = {type(root).__name__} with {getattr(root, 'visit_count', None)} visits",
                    f"the root node with {num_searches} visits",
                    "keep the root node in self.root (the tree picture uses it); it is visited once per simulation",
                )
            search = planted_search(type(root))(GAME, num_searches, 1.41, seed)  # the library's loop on their nodes
            reference = expected if type(root) is LibraryNode else search.search(state.copy())
            if got.shape != reference.shape:
                raise Mismatch(got, reference, "one share per action: shape (self.game.action_size,)")
            if not np.isclose(got.sum(), 1.0) or np.any(got[GAME.get_valid_moves(state) == 0] != 0):
                raise Mismatch(
                    got,
                    reference,
                    "return each root child's visit count divided by the total: shares "
                    "that sum to 1, 0 for moves without a child",
                )
            if decisive and int(np.argmax(got)) != int(np.argmax(expected)):
                raise Mismatch(
                    got,
                    reference,
                    f"{name}: the library's search puts most visits on "
                    f"{int(np.argmax(expected))}; check the sign flips (get_ucb and backpropagate) and the "
                    "terminal nodes",
                )
            if np.max(np.abs(got - reference)) > SEARCH_TOLERANCE:
                raise Mismatch(
                    got,
                    reference,
                    "the shares differ more than random draws explain: check the sign flips "
                    "and the loop: select while fully expanded, then (if the node is not terminal) expand "
                    "+ simulate, else use node.terminal_value; then backpropagate",
                )
            return got

        call = f"MCTS(game, num_searches={num_searches}, C=1.41, seed={seed}).search({board(state)})  # {name}"
        return Case(call, run, expected, HINTS["search"], judged_in_run)

    if not isinstance(mcts_class, type):
        print(
            f"{FAILED} MCTS.search: expected a class, got {show(mcts_class)}; run the cell that defines it", flush=True
        )
        return LibrarySearch
    if mcts_class.__dict__.get("search") is None:
        how = "write def search(self, state) inside class MCTS and run its cell again"
        print(missing_method(mcts_class, "search", "self, state", how), flush=True)
        return LibrarySearch
    # the mistakes grow the learner's own nodes (the notebook's Node), so that they draw as the learner's do
    node = getattr(mcts_class.__dict__["search"], "__globals__", {}).get("Node")
    node = node if isinstance(node, type) and all(hasattr(node, m) for m in ("expand", "simulate")) else LibraryNode
    mistakes = [Mistake(hint, planted_search(node, kind)) for kind, hint in SEARCH_MISTAKES.items()]
    cases = [(*position, seed) for seed, position in enumerate(SEARCH_POSITIONS)]
    return check("MCTS.search", mcts_class, LibrarySearch, lambda: [case(*c) for c in cases], mistakes, own=["search"])


def planted_search(node_class: type = LibraryNode, mistake: str = "") -> type:
    """``LibrarySearch`` on nodes of ``node_class``, with one of the ``SEARCH_MISTAKES`` planted while it searches."""
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
