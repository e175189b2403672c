"""Search policies as functions (the mctx way): how a search picks actions at its root and below it, and what it
returns as its policy.

Both searches call these functions on the same arrays: ``AlphaMCTS`` (serial, readable) with one node at a time,
``BatchedMCTS`` with one node per game. A selection rule reads the statistics of the children of ``M`` nodes
(``Children``, arrays ``[M, A]``) and returns one action per node ``[M]``; illegal actions carry a ``-inf``
penalty, so no rule can pick one. Two policies ship (``SearchConfig.policy``):

**PUCT** (AlphaZero): at every node, the root included, the child with the largest
``U = Q + c * prior * sqrt(N_parent) / (1 + n)``, ties to the lowest action; root exploration comes from Dirichlet
noise in the root priors; the search's policy is the root's visit shares.

**Gumbel AlphaZero** (Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by planning with Gumbel",
ICLR 2022). With ``g`` Gumbel(0, 1) draws on the root's legal actions (times ``gumbel_scale``; 0 in play), the
network's logits ``l`` and the completed, transformed Q-values ``sigma(q)``:

- the root considers the ``m = min(gumbel_considered, legal actions)`` actions with the largest ``g + l``
  (Gumbel-Top-k, a sample without replacement from the prior policy), and shares the simulation budget among them
  by *sequential halving*: every phase visits each remaining candidate equally often, then keeps the better half by
  ``g + l + sigma(q)``. ``considered_visits`` gives, for every simulation, the visit count a candidate must have to
  be picked; the first simulations therefore visit the top ``m`` by ``g + l`` in turn (``sigma`` is equal for
  unvisited actions);
- completed Q-values: a visited child's ``q``, an unvisited one the node's *mixed value*
  ``v_mix = (v + sum_b n_b * sum_{visited} pi_b q_b / sum_{visited} pi_b) / (1 + sum_b n_b)`` (``v`` the node's
  own network value, ``pi`` the priors);
- ``sigma(q) = (c_visit + max_b n_b) * c_scale * q_normalised`` with ``q_normalised`` the completed Q-values
  min-max scaled to ``[0, 1]`` over the node's legal actions (``c_visit = 50``, ``c_scale = 0.1`` as in the paper);
- the improved policy ``pi' = softmax(l + sigma(q))`` over the legal actions is the search's policy (the training
  target); the action the search chooses is the most visited candidate with the largest ``g + l + sigma(q)``;
- below the root, the deterministic rule: ``argmax_a pi'(a) - n_a / (1 + sum_b n_b)``, the action whose visit
  share lags its improved-policy share the most.

Where this differs from mctx's ``gumbel_muzero_policy``: the min-max scaling of the completed Q-values runs over
the legal actions only (mctx also includes the invalid actions, which are completed with the mixed value), and
Q-values need no discount or reward (two-player, terminal rewards in the values). Values are from the view of the
player to move at a node: a child's ``q`` for its parent is ``-value_sum / visit_count``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from alphazero_lib.config import SearchConfig

#: the floor of a Gumbel score before the candidate penalty (as mctx): a prior of 0 stays comparable
LOW_LOGIT = -1e9
TINY = np.finfo(np.float64).tiny


@dataclass(frozen=True)
class Children:
    """The children of ``M`` nodes as the player to move at each node sees them: what a selection rule reads.

    ==================  ========  =====================================================================
    field               shape     meaning
    ==================  ========  =====================================================================
    prior               [M, A]    the network's priors (0 on illegal actions; the root's may hold noise)
    visit_count         [M, A]    the children's visit counts (0: not visited)
    value_sum           [M, A]    the children's value sums, from the CHILD's mover's view
    illegal_penalty     [M, A]    0 on legal actions, -inf on illegal ones
    parent_visits       [M]       the nodes' own visit counts (the root starts at 1)
    raw_value           [M]       the nodes' own network values, from their mover's view
    ==================  ========  =====================================================================
    """

    prior: np.ndarray
    visit_count: np.ndarray
    value_sum: np.ndarray
    illegal_penalty: np.ndarray
    parent_visits: np.ndarray
    raw_value: np.ndarray

    @property
    def legal(self) -> np.ndarray:
        """Legal actions ``[M, A]`` bool."""
        return self.illegal_penalty == 0

    def q_values(self) -> np.ndarray:
        """The children's mean values for the parent's mover ``[M, A]``: ``-value_sum / n``, 0 where unvisited."""
        return -self.value_sum / np.maximum(self.visit_count, 1)


@dataclass(frozen=True)
class RootContext:
    """What a root selection rule needs beyond the children: the root's noise and where the search stands."""

    gumbel: np.ndarray
    """``[M, A]`` Gumbel(0, 1) draws times ``gumbel_scale`` on legal actions (0 elsewhere, and without noise)."""
    simulation_index: np.ndarray
    """``[M]`` simulations already run from each root in this search (its children's visits)."""
    num_simulations: np.ndarray
    """``[M]`` each root's simulation budget in this search."""


# ---- PUCT ---------------------------------------------------------------------------------------
@lru_cache(maxsize=16)
def _pb_c_table(base: float, init: float, size: int) -> np.ndarray:
    # math.log, as the serial search's exploration_weight has it, so that both give the same bits
    return np.array([math.log((1 + n + base) / base) + init for n in range(size)])


def exploration_weights(config: SearchConfig, parent_visits: np.ndarray) -> np.ndarray:
    """PUCT's ``c`` per node ``[M]``: AlphaZero's schedule ``log((1 + N + pb_c_base) / pb_c_base) + pb_c_init``."""
    visits = np.asarray(parent_visits).astype(np.intp)
    size = 1 << max(int(visits.max(initial=0)) + 1, 64).bit_length()  # a power of two: few distinct tables
    return _pb_c_table(float(config.pb_c_base), float(config.pb_c_init), size)[visits]


def puct_scores(children: Children, config: SearchConfig) -> np.ndarray:
    """``U = Q + c * prior * sqrt(N_parent) / (1 + n)`` per child ``[M, A]``, ``-inf`` on illegal actions.

    Computed in float64 in one fixed order (``t - x == t + (-x)`` exactly), so the serial and the batched search
    get the same bits.
    """
    if config.pb_c_base is None:
        score = children.prior * config.C
    else:
        score = children.prior * exploration_weights(config, children.parent_visits)[:, None]
    score *= np.sqrt(children.parent_visits)[:, None]
    score /= 1 + children.visit_count
    score -= children.value_sum / np.maximum(children.visit_count, 1)  # + Q; 0 if unvisited
    score += children.illegal_penalty
    return score


def puct_selection(children: Children, config: SearchConfig, root: RootContext | None = None) -> np.ndarray:
    """PUCT's choice at every node ``[M]``: the largest ``U``, ties to the lowest action (root and interior)."""
    return puct_scores(children, config).argmax(axis=1)


# ---- Gumbel AlphaZero ---------------------------------------------------------------------------
def mixed_value(children: Children) -> np.ndarray:
    """The paper's ``v_mix`` per node ``[M]``: the network value mixed with the prior-weighted visited Q-values."""
    visits = children.visit_count
    visited = visits > 0
    total = visits.sum(axis=1)
    prior = np.maximum(children.prior, TINY)
    prior_visited = np.where(visited, prior, 0.0).sum(axis=1)
    weighted_q = np.where(visited, prior * children.q_values(), 0.0).sum(axis=1)
    weighted_q /= np.where(prior_visited > 0, prior_visited, 1.0)
    return (children.raw_value + total * weighted_q) / (total + 1)


def completed_q_values(children: Children) -> np.ndarray:
    """Q-values ``[M, A]`` completed with ``mixed_value`` where a child is unvisited."""
    return np.where(children.visit_count > 0, children.q_values(), mixed_value(children)[:, None])


def sigma_q(children: Children, config: SearchConfig) -> np.ndarray:
    """``sigma(completed q) = (c_visit + max n) * c_scale * q_normalised`` ``[M, A]`` (0 on illegal actions)."""
    q = completed_q_values(children)
    legal = children.legal
    low = np.where(legal, q, np.inf).min(axis=1, keepdims=True)
    high = np.where(legal, q, -np.inf).max(axis=1, keepdims=True)
    normalised = np.where(legal, (q - low) / np.maximum(high - low, 1e-8), 0.0)
    scale = (config.gumbel_c_visit + children.visit_count.max(axis=1)) * config.gumbel_c_scale
    return scale[:, None] * normalised


def log_priors(children: Children) -> np.ndarray:
    """The priors as logits ``[M, A]``: ``log(prior)``, ``-inf`` on illegal actions (softmax gives them back)."""
    return np.where(children.legal, np.log(np.maximum(children.prior, TINY)), -np.inf)


def improved_policy(children: Children, config: SearchConfig) -> np.ndarray:
    """``pi' = softmax(logits + sigma(completed q))`` over the legal actions ``[M, A]`` (0 on illegal ones)."""
    scores = log_priors(children) + sigma_q(children, config)
    scores -= scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)  # exp(-inf) = 0 on illegal actions
    return weights / weights.sum(axis=1, keepdims=True)


def gumbel_scores(children: Children, config: SearchConfig, gumbel: np.ndarray) -> np.ndarray:
    """``g + logits + sigma(q)`` per child ``[M, A]`` (logits shifted to a maximum of 0, floored at ``LOW_LOGIT``)."""
    logits = log_priors(children)
    logits -= logits.max(axis=1, keepdims=True)
    return np.maximum(LOW_LOGIT, gumbel + logits + sigma_q(children, config))


def gumbel_interior_selection(children: Children, config: SearchConfig, root: RootContext | None = None) -> np.ndarray:
    """Below the root: ``argmax_a pi'(a) - n_a / (1 + sum_b n_b)`` ``[M]``, ties to the lowest action."""
    visits = children.visit_count
    score = improved_policy(children, config) - visits / (1 + visits.sum(axis=1, keepdims=True))
    score += children.illegal_penalty
    return score.argmax(axis=1)


@lru_cache(maxsize=256)
def considered_visits(max_considered: int, num_simulations: int) -> tuple[int, ...]:
    """Sequential halving's schedule: for each simulation, the visit count a root candidate needs to be picked.

    Phases visit each of the remaining candidates ``max(1, n // (ceil(log2 m) * remaining))`` times, then halve
    them (never below 2); with ``m = 4`` and ``n = 8``: ``(0, 0, 0, 0, 1, 1, 2, 2)``. With one candidate the
    schedule counts up, ``(0, 1, 2, ...)``.
    """
    if max_considered <= 1:
        return tuple(range(num_simulations))
    log2_max = math.ceil(math.log2(max_considered))
    sequence: list[int] = []
    visits = [0] * max_considered
    remaining = max_considered
    while len(sequence) < num_simulations:
        extra = max(1, int(num_simulations / (log2_max * remaining)))
        for _ in range(extra):
            sequence.extend(visits[:remaining])
            for i in range(remaining):
                visits[i] += 1
        remaining = max(2, remaining // 2)
    return tuple(sequence[:num_simulations])


def gumbel_root_selection(children: Children, config: SearchConfig, root: RootContext) -> np.ndarray:
    """At the root: among the candidates whose visits equal the schedule's count, the largest
    ``g + logits + sigma(q)`` ``[M]`` (Gumbel-Top-k and sequential halving in one rule)."""
    visits = children.visit_count
    considered = np.minimum(config.gumbel_considered, children.legal.sum(axis=1))
    needed = np.empty(len(visits))
    for m in range(len(visits)):  # M is the batch: a table lookup per root
        schedule = considered_visits(int(considered[m]), int(root.num_simulations[m]))
        needed[m] = schedule[min(int(root.simulation_index[m]), len(schedule) - 1)] if schedule else 0
    score = gumbel_scores(children, config, root.gumbel) + children.illegal_penalty
    candidates = np.where(visits == needed[:, None], score, -np.inf)
    stuck = ~np.isfinite(candidates).any(axis=1)  # no candidate at that count (a budget topped up): any legal action
    candidates[stuck] = score[stuck]
    return candidates.argmax(axis=1)


def gumbel_action(children: Children, config: SearchConfig, gumbel: np.ndarray) -> np.ndarray:
    """The search's choice ``[M]``: the most visited candidate with the largest ``g + logits + sigma(q)``."""
    visits = children.visit_count
    score = gumbel_scores(children, config, gumbel) + children.illegal_penalty
    return np.where(visits == visits.max(axis=1, keepdims=True), score, -np.inf).argmax(axis=1)


def visit_shares(children: Children) -> np.ndarray:
    """The root's visit shares ``[M, A]`` (PUCT's policy)."""
    totals = children.visit_count.sum(axis=1, keepdims=True)
    return np.divide(children.visit_count, totals, out=np.zeros_like(children.visit_count), where=totals > 0)


@dataclass(frozen=True)
class SearchPolicy:
    """A search policy: its root and interior selection rules (``(children, config, root) -> actions [M]``)."""

    name: str
    root_selection: object
    interior_selection: object


PUCT = SearchPolicy("puct", puct_selection, puct_selection)
GUMBEL = SearchPolicy("gumbel", gumbel_root_selection, gumbel_interior_selection)


def policy_for(config: SearchConfig) -> SearchPolicy:
    """The ``SearchPolicy`` that ``config.policy`` names."""
    return {"puct": PUCT, "gumbel": GUMBEL}[config.policy]


@dataclass(frozen=True)
class SearchOutput:
    """What a search returns for each of its roots (``[B, ...]`` batched; ``[...]`` from ``AlphaMCTS``)."""

    policy: np.ndarray
    """``[B, A]`` the search's policy, the training target: visit shares (PUCT) or the improved policy (Gumbel)."""
    action: np.ndarray
    """``[B]`` the search's own choice: the most visited action (PUCT, lowest on ties) or the sequential-halving
    winner (Gumbel; with ``gumbel_scale > 0`` a sample)."""
    visit_shares: np.ndarray
    """``[B, A]`` the root children's visit shares."""
    improved_policy: np.ndarray
    """``[B, A]`` ``softmax(logits + sigma(completed q))`` at the root, for either policy."""
    root_value: np.ndarray
    """``[B]`` the root's search value for its mover: ``(network value + backed-up values) / visits``."""


def search_output(
    children: Children, config: SearchConfig, gumbel: np.ndarray, root_value_sum: np.ndarray
) -> SearchOutput:
    """The ``SearchOutput`` of roots whose children are ``children``; ``root_value_sum [M]`` the backed-up values."""
    shares = visit_shares(children)
    improved = improved_policy(children, config)
    if config.policy == "gumbel":
        policy, action = improved, gumbel_action(children, config, gumbel)
    else:
        policy, action = shares, shares.argmax(axis=1)
    root_value = (children.raw_value + root_value_sum) / children.parent_visits
    return SearchOutput(policy, action, shares, improved, root_value)
