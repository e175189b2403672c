"""An independent Gumbel AlphaZero search in plain Python scalars (lists, dicts, ``math``), written from the paper.

Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by planning with Gumbel" (ICLR 2022): the tests
compare ``alphazero_lib``'s serial and batched Gumbel searches with this one. Nothing here imports
``alphazero_lib.search_policies`` or the searches, and nothing is vectorised: every formula is a loop over the
legal actions of one node, in increasing action order, ties to the lowest action.

The paper's pieces, as used here:

- root candidates: Gumbel-Top-k, the ``m = min(considered, legal)`` legal actions with the largest
  ``g(a) + logits(a)``;
- sequential halving: phases of ``max(1, floor(n / (ceil(log2 m) * arms)))`` rounds, each round visiting every
  remaining arm once, then ``arms = max(2, arms // 2)`` (as DeepMind's mctx, which keeps going until the budget is
  spent); a simulation visits the best remaining arm by ``g + logits + sigma(completed q)`` among those that have
  not yet had their visit of the current round;
- completed Q: a visited child's ``q``, an unvisited one the mixed value
  ``v_mix = (v + N * sum_visited(pi q) / sum_visited(pi)) / (1 + N)``;
- ``sigma(q) = (c_visit + max n) * c_scale * (q - min q) / max(max q - min q, 1e-8)``, the min and max over the
  node's legal actions;
- improved policy ``pi' = softmax(logits + sigma)`` over the legal actions; below the root the action with the
  largest ``pi'(a) - n(a) / (1 + N)``; the search's action the most visited arm with the largest
  ``g + logits + sigma``.

Values are from the view of the player to move at a node; a child's ``q`` for its parent is
``-child.value_sum / child.visits``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch


# ---- sequential halving's schedule ------------------------------------------------------------------------
def halving_phases(m: int, n: int) -> list[tuple[int, int]]:
    """The phases of sequential halving over ``m`` arms with ``n`` simulations: ``(arms, rounds)`` per phase."""
    if m <= 1:
        return [(1, n)]
    log2_m = math.ceil(math.log2(m))
    phases, spent, arms = [], 0, m
    while spent < n:
        rounds = max(1, n // (log2_m * arms))
        phases.append((arms, rounds))
        spent += arms * rounds
        arms = max(2, arms // 2)
    return phases


def visits_needed(m: int, n: int) -> list[int]:
    """For each simulation, the visits an arm must have had to be visited (its round number)."""
    needed: list[int] = []
    round_number = 0
    for arms, rounds in halving_phases(m, n):
        for _ in range(rounds):
            needed += [round_number] * arms
            round_number += 1
    return needed[:n]


# ---- the tree ---------------------------------------------------------------------------------------------
@dataclass
class RefNode:
    """A position: ``priors`` over its legal actions (empty when the game is over), ``raw`` its own value."""

    state: np.ndarray
    priors: dict[int, float]
    raw: float
    terminal: bool = False
    children: dict[int, RefNode] = field(default_factory=dict)
    visits: int = 0
    value_sum: float = 0.0

    def n(self, action: int) -> int:
        child = self.children.get(action)
        return child.visits if child is not None else 0


def mixed_value(node: RefNode) -> float:
    """``(v + N * sum_visited(pi q) / sum_visited(pi)) / (1 + N)``."""
    total, weighted, mass = 0, 0.0, 0.0
    for action, prior in sorted(node.priors.items()):
        visits = node.n(action)
        if visits > 0:
            child = node.children[action]
            total += visits
            weighted += prior * (-child.value_sum / child.visits)
            mass += prior
    mean_q = weighted / mass if mass > 0 else 0.0
    return (node.raw + total * mean_q) / (1 + total)


def completed_q(node: RefNode) -> dict[int, float]:
    """``q(a)`` for every legal action: the child's mean value for this node's mover, or ``v_mix`` if unvisited."""
    v_mix = mixed_value(node)
    out = {}
    for action in sorted(node.priors):
        child = node.children.get(action)
        out[action] = -child.value_sum / child.visits if child is not None and child.visits > 0 else v_mix
    return out


def sigma(node: RefNode, c_visit: float, c_scale: float) -> dict[int, float]:
    """``(c_visit + max n) * c_scale * q_normalised`` with ``q`` min-max scaled over the legal actions."""
    q = completed_q(node)
    low, high = min(q.values()), max(q.values())
    max_visits = max(node.n(a) for a in node.priors)
    scale = (c_visit + max_visits) * c_scale
    return {a: scale * ((q[a] - low) / max(high - low, 1e-8)) for a in sorted(q)}


def logits(node: RefNode) -> dict[int, float]:
    """``log(prior)`` over the legal actions (the network's logits up to a constant)."""
    return {a: math.log(max(p, 1e-300)) for a, p in sorted(node.priors.items())}


def improved_policy(node: RefNode, c_visit: float, c_scale: float) -> dict[int, float]:
    """``softmax(logits + sigma)`` over the legal actions."""
    s, lg = sigma(node, c_visit, c_scale), logits(node)
    top = max(lg[a] + s[a] for a in lg)
    weights = {a: math.exp(lg[a] + s[a] - top) for a in lg}
    total = sum(weights.values())
    return {a: w / total for a, w in weights.items()}


def argmax(scores: dict[int, float]) -> int:
    """The action with the largest score, the lowest on ties."""
    best = None
    for action in sorted(scores):
        if best is None or scores[action] > scores[best]:
            best = action
    return best


def interior_action(node: RefNode, c_visit: float, c_scale: float) -> int:
    """The paper's deterministic rule: ``argmax pi'(a) - n(a) / (1 + N)``."""
    policy = improved_policy(node, c_visit, c_scale)
    total = sum(node.n(a) for a in node.priors)
    return argmax({a: policy[a] - node.n(a) / (1 + total) for a in policy})


# ---- the search ---------------------------------------------------------------------------------------------
@dataclass
class RefResult:
    """What the reference search found: lists over all ``action_size`` actions."""

    visits: list[int]
    action: int
    improved_policy: list[float]
    root_value: float
    candidates: list[int]


def network_evaluator(game, model):
    """``state -> (priors over the legal actions, value)`` from one plain forward pass of ``model`` (cached)."""
    cache: dict[bytes, tuple[dict[int, float], float]] = {}

    def evaluate(state: np.ndarray) -> tuple[dict[int, float], float]:
        key = np.asarray(state).tobytes()
        if key not in cache:
            with torch.no_grad():
                x = torch.as_tensor(game.get_encoded_state(state)[None], dtype=torch.float32)
                out_logits, out_value = model(x)
            row = [float(v) for v in out_logits.float()[0].tolist()]
            legal = [a for a, ok in enumerate(game.get_valid_moves(state)) if ok]
            top = max(row[a] for a in legal)
            exps = {a: math.exp(row[a] - top) for a in legal}
            total = sum(exps.values())
            cache[key] = ({a: e / total for a, e in exps.items()}, float(out_value.float().reshape(-1)[0]))
        return cache[key]

    return evaluate


def simulate(game, evaluate, root: RefNode, action: int, c_visit: float, c_scale: float) -> None:
    """One simulation through ``action`` at the root: walk by the interior rule, evaluate the leaf, back up."""
    path, node = [root], root
    while True:
        child = node.children.get(action)
        if child is None:  # a new leaf: the rules score a finished game, the network any other
            state = game.change_perspective(game.get_next_state(node.state, action, 1), -1)
            value, done = game.get_value_and_terminated(state, action)
            if done:
                child = RefNode(state, {}, -value, terminal=True)
            else:
                priors, value = evaluate(state)
                child = RefNode(state, priors, value)
            node.children[action] = child
            path.append(child)
            break
        path.append(child)
        if child.terminal:
            break
        node, action = child, interior_action(child, c_visit, c_scale)
    value = path[-1].raw  # the leaf's value for its own mover
    for visited in reversed(path):
        visited.visits += 1
        visited.value_sum += value
        value = -value


def gumbel_search(
    game,
    evaluate,
    state: np.ndarray,
    num_simulations: int,
    considered: int,
    gumbel: dict[int, float] | None = None,
    c_visit: float = 50.0,
    c_scale: float = 0.1,
) -> RefResult:
    """Gumbel AlphaZero's search from canonical ``state``; ``gumbel`` the root's draws per legal action (default 0).

    ``evaluate(state) -> (priors dict, value)`` is the network. The root's own value is not backed up: it enters the
    mixed value as the root's raw value and the root value as one more visit.
    """
    priors, value = evaluate(state)
    root = RefNode(np.asarray(state), priors, value)
    legal = sorted(priors)
    g = {a: (gumbel or {}).get(a, 0.0) for a in legal}
    lg = logits(root)

    # Gumbel-Top-k: the m legal actions with the largest g + logits (ties to the lowest action)
    m = min(considered, len(legal))
    ranked = sorted(legal, key=lambda a: (-(g[a] + lg[a]), a))
    candidates = sorted(ranked[:m])

    # sequential halving: each simulation visits the best arm among those still owed this round's visit
    for needed in visits_needed(m, num_simulations):
        s = sigma(root, c_visit, c_scale)
        owed = {a: g[a] + lg[a] + s[a] for a in candidates if root.n(a) == needed}
        assert owed, "the schedule always leaves an arm owed a visit"
        simulate(game, evaluate, root, argmax(owed), c_visit, c_scale)

    s = sigma(root, c_visit, c_scale)
    most = max(root.n(a) for a in candidates)
    action = argmax({a: g[a] + lg[a] + s[a] for a in candidates if root.n(a) == most})
    policy = improved_policy(root, c_visit, c_scale)
    size = game.action_size
    visits = [root.n(a) for a in range(size)]
    root_value = (root.raw + root.value_sum) / (1 + root.visits)
    return RefResult(visits, action, [policy.get(a, 0.0) for a in range(size)], root_value, candidates)
