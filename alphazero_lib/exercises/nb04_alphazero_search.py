"""Checks for notebook 04 (the AlphaZero search): PUCT, selection, expansion with priors, the masked policy,
root Dirichlet noise, and the search loop, each against ``alphazero_lib.alpha_mcts`` (its module docstring gives
the exact semantics). The learner's ``Node`` has the library's attributes, and its methods take the constant ``C``
where the library's take a ``SearchConfig``; the ``library_*`` functions call the library's in the learner's
signatures: the stand-ins when a check fails.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from alphazero_lib.alpha_mcts import AlphaMCTS as LibraryAlphaMCTS
from alphazero_lib.alpha_mcts import Node as LibraryNode
from alphazero_lib.config import SearchConfig
from alphazero_lib.exercises import core
from alphazero_lib.exercises.core import Case, Mismatch, Mistake, Text, board, check, check_method, hints_for, show
from alphazero_lib.exercises.nb02_vanilla_mcts import select_last_on_ties
from alphazero_lib.exercises.nb03_model import randomize
from alphazero_lib.exercises.positions import ONE_MOVE_LEFT, live_positions, tictactoe
from alphazero_lib.games import ConnectFour, TicTacToe
from alphazero_lib.inference import evaluate, masked_softmax
from alphazero_lib.model import ResNet
from alphazero_lib.players import SearchPlayer  # noqa: F401 (the notebook imports it from here)
from alphazero_lib.search_policies import Children
from alphazero_lib.search_policies.puct import dirichlet_noise, puct_scores, puct_selection

HINTS = {
    "get_ucb": "Q = -(child.value_sum / child.visit_count), or 0.0 when child.visit_count == 0 (the child's value is "
    "its mover's, your opponent's); add C * child.prior * math.sqrt(self.visit_count) / (1 + child.visit_count).",
    "select": "score every child with self.get_ucb(child, C); keep the first child with the largest score (replace "
    "it only on a strictly larger one).",
    "expand": "for each action in np.flatnonzero(game.get_valid_moves(self.state)): child_state = "
    "game.change_perspective(game.get_next_state(self.state, action, 1), -1); append Node(child_state, parent=self, "
    "action_taken=action, prior=priors[action]).",
    "masked_policy": "on the legal moves only: exp(logits - the largest legal logit), 0 elsewhere, divided by the sum.",
    "dirichlet_noise": "a new array; legal = np.flatnonzero(valid); noise = rng.dirichlet([alpha] * len(legal)) (one "
    "draw); priors[legal] = (1 - epsilon) * priors[legal] + epsilon * noise.",
    "search": "root priors from the network, masked (and with noise when dirichlet_epsilon > 0); root.visit_count = 1; "
    "expand. Each simulation: select while expanded; value, terminal = get_value_and_terminated(node.state, "
    "node.action_taken), value = -value; if not terminal: the network's logits and value, expand with the MASKED "
    "policy; backpropagate. Return the root children's visit counts divided by their sum.",
}
hint, solution = hints_for(HINTS, "04_alphazero_search.ipynb")


# ---- the library's semantics in the learner's signatures -------------------------------------------------------
@functools.lru_cache(maxsize=64)
def _config(C: float = 2.0, epsilon: float = 0.0, alpha: float = 0.3) -> SearchConfig:
    return SearchConfig(C=C, dirichlet_epsilon=epsilon, dirichlet_alpha=alpha)


def library_get_ucb(self: Any, child: Any, C: float) -> float:
    """PUCT score of ``child`` seen from ``self`` (its parent): ``search_policies.puct_scores`` on that one child."""
    one = [np.array([[float(x)]]) for x in (child.prior, child.visit_count, child.value_sum, 0.0)]
    alone = Children(*one, np.array([float(self.visit_count)]), np.zeros(1))
    return float(puct_scores(alone, _config(float(C)))[0, 0])


def library_select(self: Any, C: float) -> Any:
    """The child with the largest PUCT score, the lowest action on ties: ``alpha_mcts.Node.select`` on this node."""
    return LibraryNode.select(self, _config(float(C)))


def library_expand(self: Any, game: Any, priors: np.ndarray) -> None:
    """``alpha_mcts.Node.expand``, its children rebuilt in the node's own class."""
    reference = LibraryNode(self.state)
    reference.expand(game, priors)
    for child in reference.children:
        self.children.append(type(self)(child.state, parent=self, action_taken=child.action_taken, prior=child.prior))


def library_dirichlet_noise(
    priors: np.ndarray, valid: np.ndarray, epsilon: float, alpha: float, rng: np.random.Generator
) -> np.ndarray:
    """The library's root noise (``search_policies.puct.dirichlet_noise``) mixed into the legal moves; a new array,
    illegal moves keep their 0."""
    priors = np.array(priors, dtype=np.float64)
    legal = np.flatnonzero(valid)
    priors[legal] = dirichlet_noise(rng, priors[legal], _config(epsilon=float(epsilon), alpha=float(alpha)))[0]
    return priors


def library_search(self: Any, state: np.ndarray) -> np.ndarray:
    """The library's ``AlphaMCTS.search`` with the learner's object's game, model, config and generator."""
    search = LibraryAlphaMCTS(self.game, self.model, self.config)
    search.rng = self.rng
    probs = search.search(state)
    self.root = search.root
    return probs


def _family(cls: type, parent_visits: int, children: list[tuple[int, float, int, float]]) -> Any:
    """A parent of class ``cls`` (on the empty board) with children ``(action, prior, visit_count, value_sum)``."""
    parent = cls(np.zeros((3, 3), dtype=np.int8), parent=None, action_taken=None, prior=0.0)
    parent.visit_count = parent_visits
    for action, prior, visits, value_sum in children:
        child = cls(np.zeros((3, 3), dtype=np.int8), parent=parent, action_taken=action, prior=prior)
        child.visit_count, child.value_sum = visits, value_sum
        parent.children.append(child)
    return parent


# ---- exercise 1: the PUCT score ---------------------------------------------------------------------------------
UCB_CASES = [  # parent visits, child (prior, visits, value_sum), C
    (1, (0.5, 0, 0.0), 2.0),  # unvisited: Q = 0, the prior alone
    (10, (0.2, 0, 0.0), 2.0),
    (10, (0.2, 3, 1.5), 2.0),  # the child's mover is ahead: bad for the parent
    (10, (0.2, 3, -1.5), 2.0),  # the child's mover is behind: good for the parent
    (25, (0.05, 9, -9.0), 1.0),
    (2, (1.0, 1, 1.0), 0.0),  # C = 0: Q alone
    (100, (0.3, 40, -12.0), 1.41),
    (7, (0.0, 2, 0.5), 2.0),  # prior 0: no exploration bonus
]


def check_get_ucb(cls: type) -> type:
    """``Node.get_ucb(self, child, C)``: PUCT from the parent's view, Q in [-1, 1], 0 for an unvisited child."""

    def ucb(c: type, visits: int, child: tuple[float, int, float], C: float, library: bool = False) -> float:
        parent = _family(c, visits, [(0, *child)])
        return float((partial(library_get_ucb, parent) if library else parent.get_ucb)(parent.children[0], C))

    def cases(cls: type) -> list[Case]:
        return [
            Case(
                f"parent.get_ucb(child, C={C}) with parent.visit_count={visits}, child: prior={child[0]}, "
                f"visit_count={child[1]}, value_sum={child[2]}",
                partial(ucb, visits=visits, child=child, C=C),
                ucb(cls, visits, child, C, library=True),
                HINTS["get_ucb"],
            )
            for visits, child, C in UCB_CASES
        ]

    return check_method(cls, "get_ucb", library_get_ucb, cases, name="Node.get_ucb", mistakes=UCB_MISTAKES)


def _puct(q: Callable[[float, Any], float] | None = None, bonus: Callable[[int, Any], float] | None = None) -> Any:
    """``library_get_ucb`` with its Q (a function of the library's Q and the child) or its exploration term (of the
    parent's visits and the child, times C) replaced."""

    def get_ucb(self: Any, child: Any, C: float) -> float:
        library_q = library_get_ucb(self, child, 0.0)  # C = 0: the library's Q alone
        value = q(library_q, child) if q else library_q
        if bonus:
            return value + C * bonus(self.visit_count, child)
        return value + library_get_ucb(self, child, C) - library_q

    return get_ucb


UCB_MISTAKES = [
    Mistake(
        "the child's value_sum is from the view of the player to move at the child, the parent's opponent: "
        "Q = -(value_sum / visit_count)",
        _puct(q=lambda q, child: -q),
    ),
    Mistake(
        "AlphaZero's Q is the mean value in [-1, 1] from the parent's view, -(value_sum / visit_count), not "
        "vanilla MCTS's rescaled 1 - (mean + 1) / 2",
        _puct(q=lambda q, c: (1 + q) / 2 if c.visit_count else 0.0),
    ),
    Mistake(
        "an unvisited child has no mean yet: Q = 0 when child.visit_count == 0 (no division by zero)",
        _puct(q=lambda q, child: -(child.value_sum / child.visit_count)),
    ),
    Mistake(
        "the bonus divides by (1 + child.visit_count): an unvisited child gets C * prior * sqrt(N)",
        _puct(bonus=lambda n, child: child.prior * math.sqrt(n) / child.visit_count),
    ),
    Mistake(
        "the bonus grows with the square root of the PARENT's visits: math.sqrt(self.visit_count)",
        _puct(bonus=lambda n, child: child.prior * n / (1 + child.visit_count)),
    ),
    Mistake(
        "the bonus divides by (1 + child.visit_count), which is never 0: dividing by child.visit_count and giving an "
        "unvisited child 0 leaves the moves never tried with no bonus at all",
        lambda self, child, C: (
            library_get_ucb(self, child, 0.0) + C * child.prior * math.sqrt(self.visit_count) / child.visit_count
            if child.visit_count
            else 0
        ),
    ),
]


# ---- exercise 2: selection --------------------------------------------------------------------------------------
def select_cases() -> list[tuple[str, int, list[tuple[int, float, int, float]], float]]:
    """``(what, parent visits, children (action, prior, visits, value_sum), C)``: hand-made, then seeded random."""
    made = [
        ("all unvisited: the largest prior", 1, [(0, 0.2, 0, 0.0), (3, 0.5, 0, 0.0), (5, 0.3, 0, 0.0)], 2.0),
        ("a tie: the lowest action", 1, [(1, 0.25, 0, 0.0), (2, 0.5, 0, 0.0), (7, 0.5, 0, 0.0)], 2.0),
        ("a child bad for its own mover is good for the parent", 5, [(0, 0.5, 2, 1.8), (4, 0.5, 2, -1.8)], 1.0),
        ("C = 0: the best Q wins", 9, [(0, 0.9, 4, 0.0), (1, 0.05, 2, -1.0), (2, 0.05, 2, 1.0)], 0.0),
        ("an unvisited child beside a losing one", 4, [(2, 0.4, 3, 2.7), (6, 0.6, 0, 0.0)], 2.0),
    ]
    rng = np.random.default_rng(7)
    for number in range(15):
        count = int(rng.integers(2, 8))
        actions = sorted(rng.choice(9, size=count, replace=False).tolist())
        children = []
        for action, prior in zip(actions, rng.dirichlet([1.0] * count), strict=True):
            visits = int(rng.integers(0, 12))
            children.append((int(action), float(prior), visits, float(np.round(rng.uniform(-1, 1) * visits, 3))))
        parent_visits = 1 + sum(c[2] for c in children)
        made.append((f"random node {number + 1}", parent_visits, children, float(rng.choice([0.5, 1.41, 2.0, 4.0]))))
    return made


def check_select(cls: type) -> type:
    """``Node.select(self, C)``: the child with the largest PUCT score, the lowest action on ties."""

    def case(what: str, visits: int, children: list[tuple[int, float, int, float]], C: float) -> Case:
        shown = ", ".join(f"(action {a}, prior {p:.2f}, n {n}, value_sum {v:g})" for a, p, n, v in children)
        return Case(
            f"node.select(C={C}).action_taken, {what}: N={visits}, children {shown}",
            lambda c: _family(c, visits, children).select(C).action_taken,
            library_select(_family(LibraryNode, visits, children), C).action_taken,
            HINTS["select"],
        )

    def cases(cls: type) -> list[Case]:
        return [case(*made) for made in select_cases()]

    return check_method(cls, "select", library_select, cases, name="Node.select", mistakes=SELECT_MISTAKES)


SELECT_MISTAKES = [
    Mistake(
        "on a tie keep the FIRST child (the lowest action): replace the best only on a strictly larger score",
        select_last_on_ties,
    ),
    Mistake(
        "the child with the LARGEST score: max, not min",
        lambda self, C: min(self.children, key=lambda c: self.get_ucb(c, C)),
    ),
    Mistake(
        "select by the PUCT score (self.get_ucb(child, C)), not by the prior alone",
        lambda self, C: max(self.children, key=lambda c: c.prior),
    ),
    Mistake(
        "return the child node itself (the search walks on from it), not its position in self.children",
        lambda self, C: max(range(len(self.children)), key=lambda i: self.get_ucb(self.children[i], C)),
    ),
]


# ---- exercise 3: expansion ---------------------------------------------------------------------------------------
def check_expand(cls: type) -> type:
    """``Node.expand(self, game, priors)``: one child per legal move (increasing action), with its prior and the
    state after the move, seen from the opponent."""

    def cases(cls: type) -> list[Case]:
        out = []
        rng = np.random.default_rng(11)
        for game in (TicTacToe(), ConnectFour()):
            for state in live_positions(game, 5, seed=12):
                priors = masked_softmax(rng.normal(size=game.action_size), game.get_valid_moves(state))
                call = f"Node(np.array({board(state)})).expand({type(game).__name__}(), priors={show(priors)})"
                out.append(
                    Case(
                        call,
                        partial(_run_expand, game=game, state=state, priors=priors),
                        _run_expand(LibraryNode, game, state, priors),
                        HINTS["expand"],
                        partial(core.same, tol=1e-12),
                    )
                )
        return out

    return check_method(cls, "expand", library_expand, cases, name="Node.expand", mistakes=EXPAND_MISTAKES)


def _expand_with(kind: str) -> Callable[..., None]:
    def expand(self: Any, game: Any, priors: np.ndarray) -> None:
        legal = np.flatnonzero(game.get_valid_moves(self.state))
        for index, action in enumerate(range(game.action_size) if kind == "every action" else legal):
            child_state = game.get_next_state(self.state, int(action), -1 if kind == "played by -1" else 1)
            child_state = child_state if kind == "no flip" else game.change_perspective(child_state, -1)
            prior = priors[index] if kind == "index prior" else priors[action]
            self.children.append(type(self)(child_state, parent=self, action_taken=int(action), prior=prior))

    return expand


EXPAND_MISTAKES = [
    Mistake(
        "a child's state is seen by the opponent, who moves there: change_perspective(get_next_state(state, "
        "action, 1), -1)",
        _expand_with("no flip"),
    ),
    Mistake(
        "a child's prior is priors[action] (priors has one entry per action), not the prior at the child's "
        "position in the list of legal moves",
        _expand_with("index prior"),
    ),
    Mistake(
        "the node's state is canonical, so the player to move there is 1: play the move for player 1, "
        "get_next_state(state, action, 1), then change_perspective(..., -1) for the child",
        _expand_with("played by -1"),
    ),
    Mistake(
        "only the legal moves get a child: loop over np.flatnonzero(game.get_valid_moves(self.state)), not over "
        "every action (an occupied cell, or a full column, cannot be played)",
        _expand_with("every action"),
    ),
]


def _run_expand(cls: type, game: Any, state: np.ndarray, priors: np.ndarray) -> Any:
    """Expand a node of class ``cls``: its children as ``(action, prior, board)``, checked as a search needs them."""
    node = cls(state.copy())
    node.expand(game, priors.copy())
    if not np.array_equal(node.state, state):
        raise Mismatch("the node's state changed", "the state untouched", "get_next_state returns a new state.")
    out = []
    for child in node.children:
        if not isinstance(child, cls):
            raise Mismatch(type(child).__name__, cls.__name__, "make each child with Node(...) (your own class).")
        if child.parent is not node:
            raise Mismatch("child.parent is not the node", "child.parent is node", "pass parent=self to the child.")
        if child.visit_count != 0 or child.value_sum != 0:
            raise Mismatch("a visited child", "new children with 0 visits", "new children start unvisited.")
        out.append((int(child.action_taken), float(child.prior), board(child.state)))
    return out


# ---- exercise 4: the masked policy -------------------------------------------------------------------------------
OVERFLOW = "subtract the largest legal logit before exp (exp(800) overflows to inf, and inf / inf is nan)"


def check_masked_policy(masked_policy: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """``masked_policy(logits [A], valid [A]) -> probabilities [A]``: softmax over the legal moves, 0 elsewhere;
    cases with one legal move, large logits (a plain ``exp`` overflows), the largest logit on an illegal move."""

    def run(f: Callable[..., Any], logits: np.ndarray, valid: np.ndarray) -> np.ndarray:
        changed = Mismatch("the logits or valid changed", "inputs untouched", "compute on new arrays.")
        with np.errstate(all="ignore"):
            return core.on_copies(f, logits, valid, changed=changed)

    def cases() -> list[Case]:
        rng = np.random.default_rng(13)
        everything = np.ones(9, dtype=np.uint8)
        made = [
            (np.zeros(9), everything, "all legal, equal logits: uniform"),
            (np.arange(9.0), everything, "all legal"),
            (np.arange(9.0), np.eye(9, dtype=np.uint8)[4], "one legal move: probability 1"),
            (np.array([9.0, 0, 0, 1, 2, 0, 0, 0, 3]), np.array([0, 1, 1, 1, 1, 1, 1, 1, 1], dtype=np.uint8), ""),
            (np.array([800.0, 790, 10, 0, 5, 1, 2, 3, 4]), everything, "large logits"),
            (np.array([0.5, 1000, 2, 0, 1, 3, 1000, 0, 1]), np.array([1, 0, 1, 1, 1, 1, 0, 1, 1], dtype=np.uint8), ""),
        ]
        for _ in range(10):
            size = int(rng.choice([7, 9]))
            valid = (rng.random(size) < 0.6).astype(np.uint8)
            valid[rng.integers(size)] = 1
            made.append((rng.normal(scale=3, size=size), valid, ""))
        return [
            Case(
                f"masked_policy(logits={show(logits)}, valid={show(valid)})",
                partial(run, logits=logits, valid=valid),
                masked_softmax(logits, valid),
                OVERFLOW if what == "large logits" else HINTS["masked_policy"],
            )
            for logits, valid, what in made
        ]

    return check("masked_policy", masked_policy, masked_softmax, cases, MASKED_MISTAKES)


def _max_of_all(logits: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """The softmax shifted by the largest of ALL logits: an illegal move's huge logit makes every legal exp 0."""
    weights = np.exp(logits - logits.max()) * valid
    return weights / weights.sum()


MASKED_MISTAKES = [  # the library's softmax with one change, or none (the overflow)
    Mistake(OVERFLOW, lambda logits, valid: np.exp(logits) * valid / (np.exp(logits) * valid).sum()),
    Mistake(
        "subtract the largest LEGAL logit (logits[valid == 1].max()), not the largest of all: an illegal move with a "
        "huge logit makes every legal exp(...) 0, and 0 / 0 is nan",
        _max_of_all,
    ),
    Mistake(
        "divide by the sum over the LEGAL moves only, so they add up to 1",
        lambda logits, valid: masked_softmax(logits, np.ones_like(valid)) * (np.asarray(valid) == 1),
    ),
    Mistake(
        "illegal moves (valid == 0) get exactly 0", lambda logits, valid: masked_softmax(logits, np.ones_like(valid))
    ),
]


# ---- exercise 5: Dirichlet noise at the root -----------------------------------------------------------------------
NOISE_FORM = "a new array: the priors mixed with a noise vector over the legal moves"
NOISE_DRAWS = 2000  # calls, one seed each, to judge the noise's distribution
NOISE_SIGMAS = 5.0  # accepted distance of a statistic from its exact value, in standard errors of the mean
GIVEN_RNG = (
    "draw the noise from the rng you are given (rng.dirichlet), not from np.random: the search's seed must decide it."
)


def check_dirichlet_noise(add_dirichlet_noise: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """``add_dirichlet_noise(priors, valid, epsilon, alpha, rng)``: ``(1 - epsilon) * prior + epsilon * noise`` on
    the legal moves, ``noise`` one Dirichlet(alpha) sample over them drawn from ``rng``; a new array. How it is drawn
    is the learner's design: the cases check each answer's form (the noise read back from the mix), then the noise's
    mean share and mean sum of squares over ``NOISE_DRAWS`` seeds (which tell the legal moves and alpha)."""

    def cases() -> list[Case]:
        rng = np.random.default_rng(17)
        out = []
        for number in range(12):
            size = 9 if number % 3 else 7
            valid = (rng.random(size) < 0.6).astype(np.uint8)
            valid[rng.integers(size)] = 1
            if number == 0:
                valid[:] = 1
            priors = masked_softmax(rng.normal(size=size), valid)
            epsilon, alpha = float(rng.choice([0.25, 0.5, 1.0])), float(rng.choice([0.03, 0.3, 1.0]))
            seed = 100 + number
            out.append(
                Case(
                    f"add_dirichlet_noise(priors={show(priors)}, valid={show(valid)}, epsilon={epsilon}, "
                    f"alpha={alpha}, rng=np.random.default_rng({seed}))",
                    partial(_run_noise, priors=priors, valid=valid, eps=epsilon, alpha=alpha, seed=seed),
                    NOISE_FORM,
                    HINTS["dirichlet_noise"],
                )
            )
        for size, legal, epsilon, alpha in [
            (9, [0, 2, 3, 5, 8], 0.25, 0.3),
            (7, [1, 4, 6], 0.5, 1.0),
            (9, list(range(9)), 0.25, 0.03),
        ]:
            valid = np.isin(np.arange(size), legal).astype(np.uint8)
            priors = masked_softmax(np.linspace(-1.0, 1.5, size), valid)  # unequal priors
            out.append(_noise_statistics_case(priors, valid, epsilon, alpha))
        return out

    return check("add_dirichlet_noise", add_dirichlet_noise, library_dirichlet_noise, cases, NOISE_MISTAKES)


def _noise_with(kind: str) -> Callable[..., np.ndarray]:
    def add_dirichlet_noise(priors: Any, valid: Any, epsilon: float, alpha: float, rng: Any) -> np.ndarray:
        priors = np.array(priors, dtype=np.float64)
        legal = np.flatnonzero(valid)
        if kind == "added":  # the prior not scaled down
            priors[legal] = priors[legal] + epsilon * rng.dirichlet([alpha] * len(legal))
            return priors
        noise = rng.dirichlet([alpha] * len(priors))  # over every action
        if kind == "video":  # mixed, masked, renormalised
            mixed = ((1 - epsilon) * priors + epsilon * noise) * (np.asarray(valid) > 0)
            return mixed / mixed.sum()
        priors[legal] = (1 - epsilon) * priors[legal] + epsilon * noise[legal]
        return priors

    return add_dirichlet_noise


NOISE_MISTAKES = [
    Mistake(
        "the weights: (1 - epsilon) * prior + epsilon * noise (epsilon is the noise's share)",
        lambda priors, valid, epsilon, alpha, rng: library_dirichlet_noise(priors, valid, 1 - epsilon, alpha, rng),
    ),
    Mistake("scale the prior by (1 - epsilon) too, so the mix still sums to 1", _noise_with("added")),
    Mistake(
        "one Dirichlet draw over the legal moves only (not over every action): its numbers must sum to 1 on "
        "the legal moves",
        _noise_with("every action"),
    ),
    Mistake(
        "draw the noise over the legal moves only, not over every action followed by a mask and a "
        "renormalisation: that shrinks the noise's share as the board fills up",
        _noise_with("video"),
    ),
    Mistake(
        "alpha is each legal move's concentration: rng.dirichlet([alpha] * number_of_legal_moves)",
        lambda priors, valid, epsilon, alpha, rng: library_dirichlet_noise(priors, valid, epsilon, 1 / alpha, rng),
    ),
]


def _noise_read_back(got: Any, priors: np.ndarray, valid: np.ndarray, eps: float) -> np.ndarray:
    """The noise in ``got = (1 - eps) * priors + eps * noise`` on the legal moves."""
    legal = np.flatnonzero(valid)
    return (np.asarray(got, dtype=np.float64)[legal] - (1 - eps) * priors[legal]) / eps


def _run_noise(
    f: Callable[..., Any], priors: np.ndarray, valid: np.ndarray, eps: float, alpha: float, seed: int
) -> Any:
    rng = np.random.default_rng(seed)
    changed = Mismatch("the priors given changed", "priors untouched", "work on a copy: priors = priors.copy().")
    got = core.on_copies(lambda given: f(given, valid.copy(), eps, alpha, rng), priors, changed=changed)
    if rng.bit_generator.state == np.random.default_rng(seed).bit_generator.state:
        raise Mismatch("no draw from rng", "a draw from rng", GIVEN_RNG)
    if not isinstance(got, np.ndarray) or got.shape != priors.shape:
        raise Mismatch(got, Text(f"a numpy array of shape {priors.shape}"), "return the mixed priors as a new array")
    if not np.array_equal(np.asarray(f(priors.copy(), valid.copy(), eps, alpha, np.random.default_rng(seed))), got):
        raise Mismatch("another answer for the same seed", "the same answer for the same seed", GIVEN_RNG)
    illegal = np.asarray(valid) == 0
    if not np.array_equal(got[illegal], priors[illegal]):
        raise Mismatch(
            Text(f"illegal moves changed to {show(got[illegal])}"),
            Text("illegal moves unchanged (0)"),
            "mix the noise into the legal moves only; the illegal ones keep their prior of 0.",
        )
    noise = _noise_read_back(got, priors, valid, eps)
    if not np.isclose(noise.sum(), 1.0, atol=1e-6) or noise.min() < -1e-9:
        raise Mismatch(
            Text(f"noise read back from the mix that sums to {noise.sum():.3f}, smallest share {noise.min():.3f}"),
            Text("a noise vector over the legal moves: shares >= 0 summing to 1"),
            "one Dirichlet draw over the legal moves, mixed as (1 - epsilon) * prior + epsilon * noise.",
        )
    return NOISE_FORM


def _noise_statistics_case(priors: np.ndarray, valid: np.ndarray, eps: float, alpha: float) -> Case:
    k = int(valid.sum())
    squares = (alpha + 1) / (k * alpha + 1)
    expected = Text(
        f"Dirichlet({alpha}) over the {k} legal moves: 1/{k} = {1 / k:.3f} each on average, a mean sum "
        f"of squares of {squares:.3f}"
    )

    def run(f: Callable[..., Any]) -> Any:
        answers = [f(priors.copy(), valid.copy(), eps, alpha, np.random.default_rng(s)) for s in range(NOISE_DRAWS)]
        samples = np.stack([_noise_read_back(answer, priors, valid, eps) for answer in answers])
        means, square_sums = samples.mean(axis=0), (samples**2).sum(axis=1)
        error = samples.std(axis=0).max() / math.sqrt(NOISE_DRAWS) + 1e-3
        square_error = square_sums.std() / math.sqrt(NOISE_DRAWS) + 1e-3
        seen = Text(
            f"noise read back from the mix averaging {show(means.round(3))}, a mean sum of squares of "
            f"{square_sums.mean():.3f}"
        )
        if np.max(np.abs(means - 1 / k)) > NOISE_SIGMAS * error:
            raise Mismatch(
                seen,
                expected,
                "every legal move gets the same noise on average: one Dirichlet draw over "
                "the legal moves, mixed as (1 - epsilon) * prior + epsilon * noise.",
            )
        if abs(square_sums.mean() - squares) > NOISE_SIGMAS * square_error:
            raise Mismatch(
                seen,
                expected,
                "the noise is too even or too spiky for this alpha: rng.dirichlet([alpha] * number_of_legal_moves)",
            )
        return expected

    return Case(
        f"add_dirichlet_noise(priors={show(priors)}, valid={show(valid)}, epsilon={eps}, alpha={alpha}, "
        f"rng=np.random.default_rng(seed)) for seeds 0 to {NOISE_DRAWS - 1}: the noise's distribution",
        run,
        expected,
    )


# ---- exercise 6: the search ------------------------------------------------------------------------------------
def search_positions(game: Any) -> list[tuple[str, np.ndarray]]:
    """Seeded positions (canonical: the mover is 1) with some legal move; for Tic-Tac-Toe also hand-made ones."""
    out = [("the empty board", game.get_initial_state())]
    if isinstance(game, TicTacToe):
        out += [
            ("X must block at 3", tictactoe([[-1, 0, 1], [0, 1, 0], [-1, 0, 0]])),
            ("X wins at 8", tictactoe([[1, -1, 0], [0, 1, -1], [0, 0, 0]])),
            ("one move left", ONE_MOVE_LEFT),
        ]
    return out + [(f"random position {n + 1}", s) for n, s in enumerate(live_positions(game, 4, seed=19)[1:3])]


SEARCH_SETTINGS = {  # the network -> the searches run with it
    "model": [
        SearchConfig(num_searches=1, C=2.0, seed=0),
        SearchConfig(num_searches=10, C=2.0, seed=0),
        SearchConfig(num_searches=50, C=1.0, seed=0),
        SearchConfig(num_searches=50, C=2.0, dirichlet_epsilon=0.25, dirichlet_alpha=0.3, seed=1),
        SearchConfig(num_searches=30, C=4.0, dirichlet_epsilon=0.5, dirichlet_alpha=1.0, seed=2),
    ],
    "an untrained network": [SearchConfig(num_searches=n, C=c, seed=0) for n, c in ((10, 2.0), (40, 1.0))],
}


def check_search(cls: type, model: Any, game: Any = None, noise: Callable[..., np.ndarray] | None = None) -> type:
    """``AlphaMCTS.search(self, state)``: the visit counts of the library's ``AlphaMCTS`` with the same network,
    config and seed, exactly. ``noise``: the learner's ``add_dirichlet_noise``, which the library's search then uses:
    a correct noise that draws in another order is followed, not punished."""
    game = TicTacToe() if game is None else game
    noise = library_dirichlet_noise if noise is None else noise
    networks = {"model": model, "an untrained network": randomize(ResNet(game, 1, 8), seed=61).eval()}

    def case(call: str, name: str, config: SearchConfig, state: np.ndarray, times: int = 1, hint: str = "") -> Case:
        run = partial(_run_search, game=game, network=networks[name], config=config, state=state, times=times)
        return Case(call, run, run(partial(_Search, noise=noise)), hint or HINTS["search"])

    def cases(cls: type) -> list[Case]:
        out = []
        for name, configs in SEARCH_SETTINGS.items():
            for config, (what, state) in ((c, p) for c in configs for p in search_positions(game)):
                noisy = config.dirichlet_epsilon
                extra = f", dirichlet_epsilon={noisy}, dirichlet_alpha={config.dirichlet_alpha}" if noisy else ""
                out.append(
                    case(
                        f"visit counts of AlphaMCTS(game, {name}, SearchConfig(num_searches="
                        f"{config.num_searches}, C={config.C}{extra}, seed={config.seed})).search({what}: "
                        f"np.array({board(state)}))",
                        name,
                        config,
                        state,
                    )
                )
        twice = SearchConfig(num_searches=20, dirichlet_epsilon=0.25, seed=3)
        call = "two searches in a row on one AlphaMCTS with root noise (seed=3): both visit counts"
        return [*out, case(call, "model", twice, game.get_initial_state(), 2, SEARCH_MISTAKES["new rng"])]

    mistakes = [Mistake(hint, _search_with(kind, noise)) for kind, hint in SEARCH_MISTAKES.items()]
    return check_method(cls, "search", library_search, cases, name="AlphaMCTS.search", mistakes=mistakes)


def _run_search(
    cls: Callable[..., Any], game: Any, network: Any, config: SearchConfig, state: np.ndarray, times: int = 1
) -> Any:
    """The visit counts of ``times`` searches in a row on one ``cls(game, network, config)``."""
    search = cls(game, network, config)
    counts = []
    for _ in range(times):
        probs = np.asarray(search.search(state.copy()), dtype=np.float64)
        if probs.ndim != 1:
            raise Mismatch(probs, "visit shares [action_size]", "return counts / counts.sum() over the actions.")
        counts.append(np.round(probs * config.num_searches, 6))
    return counts[0] if times == 1 else tuple(counts)


class _Search(LibraryAlphaMCTS):
    """The library's search with the root noise ``noise`` (in the learner's signature) and, for the diagnosis, one
    planted mistake ``kind``; ``rng``: the learner's generator."""

    def __init__(
        self,
        game: Any,
        model: Any,
        config: SearchConfig,
        noise: Callable[..., np.ndarray] | None = None,
        kind: str = "",
        rng: np.random.Generator | None = None,
    ) -> None:
        if kind == "terminal sign":  # a finished game's value left as the rules give it (for the parent's mover)
            rules, game = game.get_value_and_terminated, copy.copy(game)
            game.get_value_and_terminated = lambda state, action: (-rules(state, action)[0], rules(state, action)[1])
        super().__init__(game, model, config, root_selection=_unvisited_root if kind == "root zero" else None)
        self.noise, self.kind = noise or library_dirichlet_noise, kind
        self.rng = np.random.default_rng(config.seed) if rng is None or kind == "new rng" else rng
        self.policy = dataclasses.replace(self.policy, root_noise=self._root_noise)

    def search(self, state: np.ndarray) -> np.ndarray:
        self.valid = self.game.get_valid_moves(np.asarray(state))
        return super().search(state)

    def _root_noise(self, rng: np.random.Generator, priors: np.ndarray, config: SearchConfig) -> tuple:
        """``noise`` in the search policy's signature: the legal moves' priors ``[L]`` in, mixed ones out."""
        legal = np.flatnonzero(self.valid)
        full = np.zeros(self.game.action_size)
        full[legal] = priors
        mixed = self.noise(full, self.valid, config.dirichlet_epsilon, config.dirichlet_alpha, rng)
        return np.asarray(mixed, dtype=np.float64)[legal], np.zeros(len(legal))

    def _evaluate(self, state: np.ndarray) -> tuple[np.ndarray, float]:
        leaf = self.last_search_stats.network_evaluations > 0  # the root is evaluated first
        priors, value = super()._evaluate(state)
        if leaf and self.kind == "leaf mask":  # the network's policy over every action, occupied cells too
            logits, _ = evaluate(self.model, self.game.get_encoded_state(state)[None])
            priors = masked_softmax(logits[0], np.ones(self.game.action_size))
        return priors, -value if leaf and self.kind == "network sign" else value


def _unvisited_root(children: Children, config: SearchConfig, root: Any = None) -> np.ndarray:
    """PUCT at a root that started with 0 visits instead of 1."""
    return puct_selection(dataclasses.replace(children, parent_visits=children.parent_visits - 1), config)


def _search_with(kind: str, noise: Callable[..., np.ndarray] | None = None) -> Callable[..., np.ndarray]:
    """The learner's ``AlphaMCTS.search`` as ``_Search`` with one known mistake, on the learner's generator."""

    def search(self: Any, state: np.ndarray) -> np.ndarray:
        wrong = _Search(self.game, self.model, self.config, noise, kind, self.rng)
        probs, self.root = wrong.search(state), wrong.root
        return probs

    return search


SEARCH_MISTAKES = {  # the mistake planted in _Search -> its hint
    "leaf mask": "mask the network's policy at EVERY node you expand (masked_policy(logits, valid) with that node's "
    "legal moves), not only at the root: an untrained network puts weight on occupied cells",
    "terminal sign": "the rules score a finished game for the player who just moved (the parent's mover): the leaf's "
    "value is -value",
    "network sign": "the network's value is already for the player to move at the leaf: back it up as it is",
    "root zero": "root.visit_count = 1 before the simulations (the root's own evaluation); with 0 the first "
    "selection has sqrt(0) = 0 and ignores the priors",
    "new rng": "create the generator once, in __init__ (self.rng), and draw the noise from it in every search",
}
