"""Gumbel AlphaZero, a search policy (Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by planning
with Gumbel", ICLR 2022). With ``g`` Gumbel(0, 1) draws on the root's legal actions (times ``gumbel_scale``; 0 in
play), the network's logits ``l`` and the completed, transformed Q-values ``sigma(q)``:

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

from alphazero_lib.search_policies.base import TINY, Children, PolicySettings, RootContext, SearchPolicy, SearchSettings
from alphazero_lib.settings import NON_NEGATIVE, POSITIVE, setting

#: the floor of a Gumbel score before the candidate penalty (as mctx): a prior of 0 stays comparable
LOW_LOGIT = -1e9


@dataclass
class GumbelSettings(PolicySettings):
    """The Gumbel policy's own settings (``c_visit`` and ``c_scale`` also shape the improved policy that every
    search reports: a search with another policy reports it with these defaults, the paper's)."""

    gumbel_considered: int = setting(
        16, allowed=POSITIVE, cap=(1_000, "no game here has that many moves"), flag=True, group="schedule"
    )
    """Gumbel: the most root candidates considered (``m``; the paper's 16; fewer when fewer moves are legal)."""

    gumbel_scale: float = setting(0.0, allowed=NON_NEGATIVE)
    """Gumbel: the scale of the Gumbel noise on the root's logits; 1 in self-play (it samples the candidates and the
    move), 0 in play and evaluation (deterministic)."""

    gumbel_c_visit: float = setting(50.0, allowed=NON_NEGATIVE)
    """Gumbel: ``c_visit`` in ``sigma(q) = (c_visit + max n) * c_scale * q`` (the paper's 50)."""

    gumbel_c_scale: float = setting(0.1, allowed=(lambda v: v > 0, "positive"))
    """Gumbel: ``c_scale`` in ``sigma(q)`` (the paper's 0.1; larger trusts the search's Q-values more)."""


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


def sigma_q(children: Children, settings: GumbelSettings) -> np.ndarray:
    """``sigma(completed q) = (c_visit + max n) * c_scale * q_normalised`` ``[M, A]`` (0 on illegal actions)."""
    q = completed_q_values(children)
    legal = children.legal
    low = np.where(legal, q, np.inf).min(axis=1, keepdims=True)
    high = np.where(legal, q, -np.inf).max(axis=1, keepdims=True)
    normalised = np.where(legal, (q - low) / np.maximum(high - low, 1e-8), 0.0)
    scale = (settings.gumbel_c_visit + children.visit_count.max(axis=1)) * settings.gumbel_c_scale
    return scale[:, None] * normalised


def log_priors(children: Children) -> np.ndarray:
    """The priors as logits ``[M, A]``: ``log(prior)``, ``-inf`` on illegal actions (softmax gives them back)."""
    return np.where(children.legal, np.log(np.maximum(children.prior, TINY)), -np.inf)


def improved_policy(children: Children, *, settings: GumbelSettings) -> np.ndarray:
    """``pi' = softmax(logits + sigma(completed q))`` over the legal actions ``[M, A]`` (0 on illegal ones)."""
    scores = log_priors(children) + sigma_q(children, settings)
    scores -= scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)  # exp(-inf) = 0 on illegal actions
    return weights / weights.sum(axis=1, keepdims=True)


def gumbel_scores(children: Children, settings: GumbelSettings, gumbel: np.ndarray) -> np.ndarray:
    """``g + logits + sigma(q)`` per child ``[M, A]`` (logits shifted to a maximum of 0, floored at ``LOW_LOGIT``)."""
    logits = log_priors(children)
    logits -= logits.max(axis=1, keepdims=True)
    return np.maximum(LOW_LOGIT, gumbel + logits + sigma_q(children, settings))


def gumbel_interior_selection(
    children: Children, config: SearchSettings, root: RootContext | None = None, *, settings: GumbelSettings
) -> np.ndarray:
    """Below the root: ``argmax_a pi'(a) - n_a / (1 + sum_b n_b)`` ``[M]``, ties to the lowest action."""
    visits = children.visit_count
    score = improved_policy(children, settings=settings) - visits / (1 + visits.sum(axis=1, keepdims=True))
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


def gumbel_root_selection(
    children: Children, config: SearchSettings, root: RootContext, *, settings: GumbelSettings
) -> np.ndarray:
    """At the root: among the candidates whose visits equal the schedule's count, the largest
    ``g + logits + sigma(q)`` ``[M]`` (Gumbel-Top-k and sequential halving in one rule)."""
    visits = children.visit_count
    considered = np.minimum(settings.gumbel_considered, children.legal.sum(axis=1))
    needed = np.empty(len(visits))
    for m in range(len(visits)):  # M is the batch: a table lookup per root
        schedule = considered_visits(int(considered[m]), int(root.num_simulations[m]))
        needed[m] = schedule[min(int(root.simulation_index[m]), len(schedule) - 1)] if schedule else 0
    score = gumbel_scores(children, settings, root.gumbel) + children.illegal_penalty
    candidates = np.where(visits == needed[:, None], score, -np.inf)
    stuck = ~np.isfinite(candidates).any(axis=1)  # no candidate at that count (a budget topped up): any legal action
    candidates[stuck] = score[stuck]
    return candidates.argmax(axis=1)


def gumbel_action(children: Children, settings: GumbelSettings, gumbel: np.ndarray) -> np.ndarray:
    """The search's choice ``[M]``: the most visited candidate with the largest ``g + logits + sigma(q)``."""
    visits = children.visit_count
    score = gumbel_scores(children, settings, gumbel) + children.illegal_penalty
    return np.where(visits == visits.max(axis=1, keepdims=True), score, -np.inf).argmax(axis=1)


def draws_gumbel(config: SearchSettings, *, settings: GumbelSettings) -> bool:
    """Whether the root draws Gumbel noise (``gumbel_scale > 0``; 0 in play and evaluation)."""
    return settings.gumbel_scale > 0


def gumbel_noise(
    rng: np.random.Generator, priors: np.ndarray, config: SearchSettings, *, settings: GumbelSettings
) -> tuple[np.ndarray, ...]:
    """The root's Gumbel(0, 1) draws times ``gumbel_scale`` over the ``L`` legal moves; the priors unchanged."""
    return priors, settings.gumbel_scale * rng.gumbel(size=len(priors))


def improved_policy_and_action(
    children: Children, config: SearchSettings, gumbel: np.ndarray, *, settings: GumbelSettings
) -> tuple[np.ndarray, np.ndarray]:
    """The improved policy as the policy and the sequential-halving winner as the choice."""
    return improved_policy(children, settings=settings), gumbel_action(children, settings, gumbel)


def check_no_dirichlet(config: SearchSettings) -> None:
    """The Gumbel policy explores with its own noise: Dirichlet noise on top is refused."""
    if config.dirichlet_epsilon > 0:
        raise ValueError(
            "SearchConfig: the Gumbel policy explores with Gumbel noise at the root (gumbel_scale), not Dirichlet "
            f"noise; set dirichlet_epsilon=0 (got {config.dirichlet_epsilon})"
        )


POLICY = SearchPolicy(
    name="gumbel",
    root_noise=gumbel_noise,
    draws_noise=draws_gumbel,
    root_selection=gumbel_root_selection,
    interior_selection=gumbel_interior_selection,
    output=improved_policy_and_action,
    check=check_no_dirichlet,
    settings=GumbelSettings,
    improved_policy=improved_policy,
    fresh_root="its sequential halving starts from a fresh root",
    plays_own_action=True,
)
