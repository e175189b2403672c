"""Search policies, the mctx way: a policy is one module that fills in a ``SearchPolicy`` (its root noise, its
root and interior selection rules, and what the search returns), and one line of ``POLICIES`` below names it for
``SearchConfig.policy``.

Both searches run every policy on the same arrays: ``AlphaMCTS`` (serial, readable) with one node at a time,
``BatchedMCTS`` with one node a game. A selection rule reads the statistics of the children of ``M`` nodes
(``Children``, arrays ``[M, A]``) and returns one action a node ``[M]``; illegal actions carry a ``-inf``
penalty, so no rule can pick one. Three policies ship:

- ``puct`` (``puct.py``): AlphaZero. Dirichlet noise in the root's priors, PUCT everywhere, the visit shares.
- ``gumbel`` (``gumbel.py``): Gumbel AlphaZero. Gumbel-Top-k and sequential halving at the root, the improved
  policy below it and as the target; fewer simulations suffice.
- ``forced_playouts`` (``forced_playouts.py``): PUCT with KataGo's forced playouts at the root and the pruned
  visit shares as the target.

A policy owns its settings: a dataclass of ``PolicySettings`` in its module (``GumbelSettings``), each field declared
with ``settings.setting`` and named after the policy (``gumbel_considered``); ``SearchConfig.policy_settings`` holds
them, and ``SearchConfig.search_policy()`` binds them to the
policy's functions (``SearchPolicy.bound``, mctx's ``functools.partial``).

A new policy: a module beside these with its functions, its settings and a ``POLICY = SearchPolicy(...)``, and its
line in ``POLICIES``; the tests of ``tests/test_search_policies.py`` then run it through both searches.
"""

from __future__ import annotations

import numpy as np

from alphazero_lib.search_policies import forced_playouts, gumbel, puct
from alphazero_lib.search_policies.base import (
    TINY,
    Children,
    PolicySettings,
    RootContext,
    SearchOutput,
    SearchPolicy,
    SearchSettings,
    visit_shares,
)
from alphazero_lib.search_policies.gumbel import (
    LOW_LOGIT,
    GumbelSettings,
    completed_q_values,
    considered_visits,
    gumbel_action,
    gumbel_interior_selection,
    gumbel_root_selection,
    gumbel_scores,
    improved_policy,
    log_priors,
    mixed_value,
    sigma_q,
)
from alphazero_lib.search_policies.puct import (
    exploration_terms,
    exploration_weight,
    exploration_weights,
    puct_scores,
    puct_selection,
)

#: The registry: ``SearchConfig.policy`` names one of these.
POLICIES: dict[str, SearchPolicy] = {
    policy.name: policy
    for policy in (
        puct.POLICY,
        gumbel.POLICY,
        forced_playouts.POLICY,
    )
}


def search_output(
    children: Children, policy: SearchPolicy, config: SearchSettings, gumbel: np.ndarray, root_value_sum: np.ndarray
) -> SearchOutput:
    """The ``SearchOutput`` of roots whose children are ``children`` searched with ``policy`` (built:
    ``SearchConfig.search_policy``); ``root_value_sum [M]`` the backed-up values."""
    target, action = policy.output(children, config, gumbel)
    root_value = (children.raw_value + root_value_sum) / children.parent_visits
    if policy.improved_policy is None:  # the paper's constants
        improved = improved_policy(children, settings=GumbelSettings())
    else:
        improved = policy.improved_policy(children)
    return SearchOutput(target, action, visit_shares(children), improved, root_value)


__all__ = [
    "LOW_LOGIT",
    "POLICIES",
    "TINY",
    "Children",
    "GumbelSettings",
    "PolicySettings",
    "RootContext",
    "SearchOutput",
    "SearchPolicy",
    "SearchSettings",
    "completed_q_values",
    "considered_visits",
    "exploration_terms",
    "exploration_weight",
    "exploration_weights",
    "gumbel_action",
    "gumbel_interior_selection",
    "gumbel_root_selection",
    "gumbel_scores",
    "improved_policy",
    "log_priors",
    "mixed_value",
    "puct_scores",
    "puct_selection",
    "search_output",
    "sigma_q",
    "visit_shares",
]
