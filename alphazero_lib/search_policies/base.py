"""What every search policy reads and returns: the settings every search shares, the children of ``M`` nodes as
arrays, the root's context, the search's output, and ``SearchPolicy``, the record a policy module fills in (see the
package's docstring)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, fields, replace

import numpy as np

from alphazero_lib.settings import (
    AT_LEAST_ONE,
    NON_NEGATIVE,
    NON_NEGATIVE_INT,
    SEARCHES_CAP,
    SEED_CAP,
    UNIT,
    check_fields,
    setting,
)


@dataclass
class SearchSettings:
    """What every search reads, whatever its policy (``alphazero_lib.config.SearchConfig`` adds the policy's name and
    the policy's own settings): the simulations, PUCT's constant and schedule, the root's Dirichlet noise, the seed."""

    num_searches: int = setting(100, allowed=AT_LEAST_ONE, cap=SEARCHES_CAP, flag="--searches", self_play=60)
    """Simulations per move: each one walks the tree to a leaf, evaluates it and backs the value up (the course's
    60 in self-play, where a run names none)."""

    C: float = setting(2.0, allowed=NON_NEGATIVE)
    """Exploration constant in PUCT, ``Q + C * prior * sqrt(N_parent) / (1 + n)``."""

    dirichlet_epsilon: float = setting(0.0, allowed=UNIT, flag=True, group="schedule", self_play=0.25)
    """Share of Dirichlet noise mixed into the root priors (0 = none; 0.25 in self-play as in the paper)."""

    dirichlet_alpha: float = setting(0.3, allowed=(lambda v: v > 0, "positive"), flag=True, group="schedule")
    """Concentration of the root noise; smaller means spikier noise. Drawn over legal moves only."""

    pb_c_base: float | None = setting(None, allowed=(lambda v: v > 0, "positive or None"))
    """If set, the exploration weight follows AlphaZero's schedule ``log((1 + N + pb_c_base) / pb_c_base) +
    pb_c_init`` instead of the constant ``C`` (the paper uses 19652)."""

    pb_c_init: float = setting(1.25, allowed=NON_NEGATIVE)
    """The schedule's constant part (used only with ``pb_c_base``)."""

    seed: int | None = setting(None, allowed=NON_NEGATIVE_INT, cap=SEED_CAP)
    """Seed of the search's random generator (root noise, tie-breaks); None draws a fresh one."""

    def __post_init__(self) -> None:
        check_fields(self)  # each field's type, and what its declaration allows


@dataclass
class PolicySettings:
    """A policy's own settings, declared with ``settings.setting`` as fields of a subclass (``GumbelSettings``); a
    policy without any has this, empty. A setting's name starts with its policy's (``gumbel_considered``): it is also
    the setting's flat name in a config dict and, with ``flag``, its ``train`` flag."""

    def __post_init__(self) -> None:
        check_fields(self)


#: the smallest positive float64: a prior of 0 still has a (very negative) logarithm
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


def visit_shares(children: Children) -> np.ndarray:
    """The root's visit shares ``[M, A]`` (PUCT's policy)."""
    totals = children.visit_count.sum(axis=1, keepdims=True)
    return np.divide(children.visit_count, totals, out=np.zeros_like(children.visit_count), where=totals > 0)


def no_check(config: SearchSettings) -> None:
    """A policy that accepts every ``SearchSettings`` the dataclass itself accepts."""


@dataclass(frozen=True)
class SearchPolicy:
    """A search policy's whole job, as functions of the arrays above (one module fills one in; a registry line
    in the package's ``__init__`` names it for ``SearchConfig.policy``).

    - ``root_noise(rng, priors [L], config)``: the root's exploration over its ``L`` legal moves, drawn from the
      search's one generator: ``(priors [L], gumbel [L])``, the priors to search with and the Gumbel draws
      (zeros for a policy without them). Called only when ``draws_noise(config)``.
    - ``root_selection(children, config, root)`` and ``interior_selection(children, config, None)``: one action a
      node ``[M]``, at the root and below it.
    - ``output(children, config, gumbel)``: ``(policy [M, A], action [M])`` of the roots, the training target and
      the search's own choice.
    - ``check(config)``: raises ``ValueError`` for shared settings the policy cannot run with.
    - ``settings``: the dataclass of the policy's own settings (``PolicySettings`` when it has none). A function
      above that takes a keyword ``settings`` gets them bound when the policy is built (``bound``).
    - ``improved_policy(children)``: the improved policy ``[M, A]`` the search reports, where the policy has its
      own constants for it; ``None``: the paper's (``gumbel.improved_policy`` with ``GumbelSettings()``).
    - ``fresh_root``: why the policy cannot reuse a subtree between moves, or ``None`` when it can.
    - ``plays_own_action``: whether a player at temperature 0 plays ``output``'s action (else the most visited).
    """

    name: str
    root_noise: Callable[..., tuple[np.ndarray, np.ndarray]]
    draws_noise: Callable[[SearchSettings], bool]
    root_selection: Callable[..., np.ndarray]
    interior_selection: Callable[..., np.ndarray]
    output: Callable[..., tuple[np.ndarray, np.ndarray]]
    check: Callable[[SearchSettings], None] = no_check
    settings: type[PolicySettings] = PolicySettings
    improved_policy: Callable[..., np.ndarray] | None = None
    fresh_root: str | None = None
    plays_own_action: bool = False

    def bound(self, settings: PolicySettings) -> SearchPolicy:
        """This policy built with ``settings`` (its own, a ``self.settings``), bound with ``functools.partial`` to
        each function that takes them, as mctx builds a policy: the searches call the functions without them."""

        def bind(function: Callable[..., object] | None) -> Callable[..., object] | None:
            if function is None or "settings" not in inspect.signature(function).parameters:
                return function
            return functools.partial(function, settings=settings)

        return replace(self, **{f.name: bind(getattr(self, f.name)) for f in fields(self) if "Callable" in f.type})
