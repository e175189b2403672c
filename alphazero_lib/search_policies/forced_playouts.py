"""PUCT with KataGo's forced playouts and policy-target pruning (Wu, "Accelerating Self-Play Learning in Go",
2019, section 3.1), a search policy written as one module to show what a new policy takes.

- Root noise, interior selection: PUCT's (``puct``).
- At the root, a child ``c`` with fewer than ``n_forced(c) = sqrt(k * prior(c) * sum_b n_b)`` visits
  (``k = forced_playouts_k``, the paper's 2) is forced: among the forced children the one with the largest PUCT
  score is taken (ties to the lowest action); with none forced, plain PUCT. Noise-raised priors thereby get a few
  visits each.
- The policy target is pruned: ``c*`` is the most visited child; every other child loses up to ``n_forced(c)``
  visits, as many as keep its PUCT score at or below ``c*``'s, and a child left with at most one visit drops to
  zero. The pruned visit shares are the policy; the move is ``c*``, as PUCT's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alphazero_lib.search_policies.base import Children, PolicySettings, RootContext, SearchPolicy, SearchSettings
from alphazero_lib.search_policies.puct import (
    dirichlet_noise,
    draws_dirichlet,
    exploration_terms,
    puct_scores,
    puct_selection,
)
from alphazero_lib.settings import setting


@dataclass
class ForcedPlayoutsSettings(PolicySettings):
    """The forced playouts policy's own settings."""

    forced_playouts_k: float = setting(2.0, allowed=(lambda v: v > 0, "positive"))
    """KataGo's ``k`` in ``n_forced = sqrt(k * prior * total visits)`` (the paper's 2; larger forces more visits)."""


def forced_visits(children: Children, settings: ForcedPlayoutsSettings) -> np.ndarray:
    """``n_forced = sqrt(k * prior * sum_b n_b)`` per child ``[M, A]`` (0 on illegal actions)."""
    total = children.visit_count.sum(axis=1, keepdims=True)
    return np.sqrt(settings.forced_playouts_k * children.prior * total) * children.legal


def forced_root_selection(
    children: Children, config: SearchSettings, root: RootContext | None = None, *, settings: ForcedPlayoutsSettings
) -> np.ndarray:
    """At the root ``[M]``: the forced child with the largest PUCT score, else PUCT's choice."""
    scores = puct_scores(children, config)
    forced = children.legal & (children.visit_count < forced_visits(children, settings))
    return np.where(forced.any(axis=1), np.where(forced, scores, -np.inf).argmax(axis=1), scores.argmax(axis=1))


def pruned_visits(children: Children, config: SearchSettings, settings: ForcedPlayoutsSettings) -> np.ndarray:
    """The root's visit counts after policy-target pruning ``[M, A]`` (float; the most visited child kept)."""
    visits = children.visit_count.astype(np.float64)
    rows = np.arange(len(visits))
    best = visits.argmax(axis=1)
    best_score = puct_scores(children, config)[rows, best][:, None]
    bonus = exploration_terms(children, config)  # c * prior * sqrt(N)
    q = children.q_values()
    gap = best_score - q
    # the fewest visits n with q + bonus / (1 + n) <= best_score; no pruning where q alone reaches best_score
    with np.errstate(divide="ignore", invalid="ignore"):
        needed = np.where(gap > 0, bonus / gap - 1, visits)
    kept = np.clip(np.maximum(visits - forced_visits(children, settings), needed), 0, visits)
    kept = np.where(kept <= 1, 0.0, kept)
    kept[rows, best] = visits[rows, best]
    return np.where(children.legal, kept, 0.0)


def pruned_policy(
    children: Children, config: SearchSettings, gumbel: np.ndarray, *, settings: ForcedPlayoutsSettings
) -> tuple[np.ndarray, np.ndarray]:
    """The pruned visit shares as the policy and the most visited move (lowest on ties) as the choice."""
    kept = pruned_visits(children, config, settings)
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
    settings=ForcedPlayoutsSettings,
)
