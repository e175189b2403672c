"""PUCT, AlphaZero's search policy: Dirichlet noise in the root's priors, at every node the child with the largest
``U = Q + c * prior * sqrt(N_parent) / (1 + n)`` (ties to the lowest action), the root's visit shares as the
policy and the most visited move as the search's choice.

``c`` is the constant ``C``, or with ``pb_c_base`` set AlphaZero's schedule
``log((1 + N_parent + pb_c_base) / pb_c_base) + pb_c_init``. This module holds the formula for the array search;
``alpha_mcts.Node.select`` writes the same float64 operations out for one node, the readable twin.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from alphazero_lib.search_policies.base import Children, RootContext, SearchPolicy, SearchSettings, visit_shares


def _schedule(base: float, init: float, parent_visits: int) -> float:
    return math.log((1 + parent_visits + base) / base) + init


def exploration_weight(config: SearchSettings, parent_visits: int) -> float:
    """PUCT's ``c`` for one node: the constant ``C``, or AlphaZero's schedule when ``pb_c_base`` is set."""
    if config.pb_c_base is None:
        return config.C
    return _schedule(config.pb_c_base, config.pb_c_init, parent_visits)


@lru_cache(maxsize=16)
def _pb_c_table(base: float, init: float, size: int) -> np.ndarray:
    # math.log, one node at a time, as the serial search has it: both get the same bits
    return np.array([_schedule(base, init, n) for n in range(size)])


def exploration_weights(config: SearchSettings, parent_visits: np.ndarray) -> np.ndarray:
    """PUCT's ``c`` per node ``[M]``: AlphaZero's schedule ``log((1 + N + pb_c_base) / pb_c_base) + pb_c_init``."""
    visits = np.asarray(parent_visits).astype(np.intp)
    size = 1 << max(int(visits.max(initial=0)) + 1, 64).bit_length()  # a power of two: few distinct tables
    return _pb_c_table(float(config.pb_c_base), float(config.pb_c_init), size)[visits]


def exploration_terms(children: Children, config: SearchSettings) -> np.ndarray:
    """``c * prior * sqrt(N_parent)`` per child ``[M, A]``: PUCT's exploration before its division by ``1 + n``."""
    if config.pb_c_base is None:
        term = children.prior * config.C
    else:
        term = children.prior * exploration_weights(config, children.parent_visits)[:, None]
    term *= np.sqrt(children.parent_visits)[:, None]
    return term


def puct_scores(children: Children, config: SearchSettings) -> np.ndarray:
    """``U = Q + c * prior * sqrt(N_parent) / (1 + n)`` per child ``[M, A]``, ``-inf`` on illegal actions.

    Computed in float64 in one fixed order (``t - x == t + (-x)`` exactly), so the serial and the batched search
    get the same bits.
    """
    score = exploration_terms(children, config)
    score /= 1 + children.visit_count
    score -= children.value_sum / np.maximum(children.visit_count, 1)  # + Q; 0 if unvisited
    score += children.illegal_penalty
    return score


def puct_selection(children: Children, config: SearchSettings, root: RootContext | None = None) -> np.ndarray:
    """PUCT's choice at every node ``[M]``: the largest ``U``, ties to the lowest action (root and interior)."""
    return puct_scores(children, config).argmax(axis=1)


def draws_dirichlet(config: SearchSettings) -> bool:
    """Whether the root mixes Dirichlet noise into its priors (``dirichlet_epsilon > 0``)."""
    return config.dirichlet_epsilon > 0


def dirichlet_noise(rng: np.random.Generator, priors: np.ndarray, config: SearchSettings) -> tuple[np.ndarray, ...]:
    """AlphaZero's root noise over the ``L`` legal moves: ``(1 - eps) * priors + eps * Dirichlet(alpha)``, and no
    Gumbel draws (zeros ``[L]``)."""
    noise = rng.dirichlet([config.dirichlet_alpha] * len(priors))
    eps = config.dirichlet_epsilon
    return (1 - eps) * priors + eps * noise, np.zeros(len(priors))


def most_visited(children: Children, config: SearchSettings, gumbel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The visit shares as the policy and the most visited move (lowest on ties) as the choice."""
    shares = visit_shares(children)
    return shares, shares.argmax(axis=1)


POLICY = SearchPolicy(
    name="puct",
    root_noise=dirichlet_noise,
    draws_noise=draws_dirichlet,
    root_selection=puct_selection,
    interior_selection=puct_selection,
    output=most_visited,
)
