"""PUCT with KataGo's forced playouts and policy-target pruning (Wu, "Accelerating Self-Play Learning in Go",
2019, section 3.1), a search policy written as one module to show what a new policy takes.

- Root noise, interior selection: PUCT's (``puct``).
- At the root, a child ``c`` with fewer than ``n_forced(c) = sqrt(k * prior(c) * sum_b n_b)`` visits (``k = 2``,
  the paper's) is forced: among the forced children the one with the largest PUCT score is taken (ties to the
  lowest action); with none forced, plain PUCT. Noise-raised priors thereby get a few visits each.
- The policy target is pruned: ``c*`` is the most visited child; every other child loses up to ``n_forced(c)``
  visits, as many as keep its PUCT score at or below ``c*``'s, and a child left with at most one visit drops to
  zero. The pruned visit shares are the policy; the move is ``c*``, as PUCT's.
"""

from __future__ import annotations

import numpy as np

from alphazero_lib.search_policies.base import Children, RootContext, SearchConfig, SearchPolicy
from alphazero_lib.search_policies.puct import (
    dirichlet_noise,
    draws_dirichlet,
    exploration_weights,
    puct_scores,
    puct_selection,
)

#: KataGo's ``k`` in ``n_forced = sqrt(k * prior * total visits)``
FORCED_PLAYOUT_K = 2.0


def forced_visits(children: Children) -> np.ndarray:
    """``n_forced = sqrt(k * prior * sum_b n_b)`` per child ``[M, A]`` (0 on illegal actions)."""
    total = children.visit_count.sum(axis=1, keepdims=True)
    return np.sqrt(FORCED_PLAYOUT_K * children.prior * total) * children.legal


def forced_root_selection(children: Children, config: SearchConfig, root: RootContext | None = None) -> np.ndarray:
    """At the root ``[M]``: the forced child with the largest PUCT score, else PUCT's choice."""
    scores = puct_scores(children, config)
    forced = children.legal & (children.visit_count < forced_visits(children))
    return np.where(forced.any(axis=1), np.where(forced, scores, -np.inf).argmax(axis=1), scores.argmax(axis=1))


def pruned_visits(children: Children, config: SearchConfig) -> np.ndarray:
    """The root's visit counts after policy-target pruning ``[M, A]`` (float; the most visited child kept)."""
    visits = children.visit_count.astype(np.float64)
    rows = np.arange(len(visits))
    best = visits.argmax(axis=1)
    scores = puct_scores(children, config)
    best_score = scores[rows, best][:, None]
    if config.pb_c_base is None:
        weight = np.full(len(visits), float(config.C))
    else:
        weight = exploration_weights(config, children.parent_visits)
    bonus = (weight * np.sqrt(children.parent_visits))[:, None] * children.prior  # c * prior * sqrt(N)
    q = children.q_values()
    gap = best_score - q
    # the fewest visits n with q + bonus / (1 + n) <= best_score; no pruning where q alone reaches best_score
    with np.errstate(divide="ignore", invalid="ignore"):
        needed = np.where(gap > 0, bonus / gap - 1, visits)
    kept = np.clip(np.maximum(visits - forced_visits(children), needed), 0, visits)
    kept = np.where(kept <= 1, 0.0, kept)
    kept[rows, best] = visits[rows, best]
    return np.where(children.legal, kept, 0.0)


def pruned_policy(children: Children, config: SearchConfig, gumbel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pruned visit shares as the policy and the most visited move (lowest on ties) as the choice."""
    kept = pruned_visits(children, config)
    totals = kept.sum(axis=1, keepdims=True)
    policy = np.divide(kept, totals, out=np.zeros_like(kept), where=totals > 0)
    return policy, children.visit_count.argmax(axis=1)


POLICY = SearchPolicy(
    name="forced_playouts",
    root_noise=dirichlet_noise,
    draws_noise=draws_dirichlet,
    root_selection=forced_root_selection,
    interior_selection=puct_selection,
    output=pruned_policy,
)
