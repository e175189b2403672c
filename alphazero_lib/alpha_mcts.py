"""AlphaZero search: PUCT guided by a policy-value network instead of random rollouts (serial, readable).

The exact semantics below are a contract: the batched array-based search must give identical visit counts
for one game with the same seed and network.

1. ``rng = np.random.default_rng(config.seed)``, created once per ``AlphaMCTS``.
2. Root: one network call; ``priors = masked_softmax(logits, valid)``. If ``dirichlet_epsilon > 0``:
   ``legal = np.flatnonzero(valid)``; ``noise = rng.dirichlet([dirichlet_alpha] * len(legal))``;
   ``priors[legal] = (1 - eps) * priors[legal] + eps * noise``. All legal children are expanded at once
   with their priors. The root starts with ``visit_count = 1`` (its own evaluation) and ``value_sum = 0``;
   its network value is not backed up.
3. Each of ``num_searches`` simulations walks from the root to a leaf, choosing the child with the largest
   ``U = Q + c * prior * sqrt(N_parent) / (1 + n_child)`` (evaluated left to right in float64), where
   ``Q = -(child.value_sum / child.visit_count)`` is the child's mean value seen by the parent's mover, in
   [-1, 1]. An unvisited child has ``Q = 0``: neutral, a draw's value, so the prior-weighted exploration
   term alone decides which children are tried first. ``c = config.C``, or with ``pb_c_base`` set
   ``c = log((1 + N_parent + pb_c_base) / pb_c_base) + pb_c_init``. Ties go to the lowest action (the
   first maximum, as ``np.argmax``). A child's state is
   ``change_perspective(get_next_state(parent_state, action, 1), -1)``.
4. Leaf: ``value, terminal = get_value_and_terminated(leaf.state, leaf.action_taken)``; ``value = -value``
   (the leaf mover's view). If not terminal, one network call on the encoded leaf ``[1, 3, R, C]`` gives
   ``priors = masked_softmax(logits, valid(leaf))`` for all legal children and ``value = float(v)``.
5. Backup from the leaf to the root: ``value_sum += value; visit_count += 1; value = -value``.
6. Result: ``probs[a] = n_a / sum(n)`` over the root's children.

That is the PUCT policy (``search_policies/puct.py``; ``Node.select`` writes its formula out for one node). The
search runs whichever policy ``config.policy`` names, as the batched search does: the policy's root noise (drawn
from ``rng`` after the root's evaluation), its root and interior selection rules (``root_selection`` and
``interior_selection`` replace them) and its output; with ``policy="gumbel"`` the root draws Gumbel noise, picks
candidates by sequential halving, walks below the root by the improved policy and returns the improved policy.
Every node keeps its network value (``raw_value``) for the Gumbel policy's mixed value; ``last_output`` holds
the search's ``SearchOutput`` (policy, action, visit shares, improved policy, root value).

Temperature is not part of the search: ``alphazero_lib.selection.select_action(probs, temperature, rng)``
applies it to the visit-count distribution and renormalises before sampling.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from alphazero_lib.config import SearchConfig
from alphazero_lib.games.base import Game
from alphazero_lib.inference import check_network_game, evaluate, masked_softmax
from alphazero_lib.search_policies import Children, RootContext, SearchOutput, search_output
from alphazero_lib.search_policies.puct import exploration_weight, puct_selection


class Node:
    """One position in the search tree; ``value_sum`` is kept from the view of the player to move here."""

    def __init__(self, state: np.ndarray, parent: Node | None = None, action_taken: int | None = None, prior=0.0):
        self.state = state
        self.parent = parent
        self.action_taken = action_taken
        self.prior = float(prior)
        self.children: list[Node] = []  # in increasing action order
        self.visit_count = 0
        self.value_sum = 0.0
        self.raw_value = 0.0  # the network's value of this position (the Gumbel policy's mixed value reads it)

    def is_expanded(self) -> bool:
        """Whether the node has children (a terminal node never has)."""
        return len(self.children) > 0

    def expand(self, game: Game, priors: np.ndarray) -> None:
        """Add one child per legal move, in increasing action order, with its prior."""
        self.action_size = len(priors)
        for action in np.flatnonzero(game.get_valid_moves(self.state)):
            child_state = game.change_perspective(game.get_next_state(self.state, int(action), 1), -1)
            self.children.append(Node(child_state, parent=self, action_taken=int(action), prior=priors[action]))

    def children_stats(self, action_size: int | None = None) -> Children:
        """This node's children as arrays ``[1, A]`` (what the selection rules of ``search_policies`` read)."""
        size = action_size or getattr(self, "action_size", None) or max(c.action_taken for c in self.children) + 1
        prior, visits, value_sum = np.zeros((1, size)), np.zeros((1, size)), np.zeros((1, size))
        penalty = np.full((1, size), -np.inf)
        for child in self.children:
            a = child.action_taken
            prior[0, a], visits[0, a], value_sum[0, a], penalty[0, a] = (
                child.prior,
                child.visit_count,
                child.value_sum,
                0,
            )
        parent_visits, raw_value = np.array([float(self.visit_count)]), np.array([self.raw_value])
        return Children(prior, visits, value_sum, penalty, parent_visits, raw_value)

    def select(self, config: SearchConfig, rule: Callable[..., np.ndarray] = puct_selection, root: Any = None) -> Node:
        """The child that ``rule`` picks: by default the largest PUCT score
        ``Q + c * prior * sqrt(N_parent) / (1 + n)`` (the lowest action on ties)."""
        if rule is puct_selection:  # PUCT written out: the same float64 operations as search_policies.puct_scores
            c = exploration_weight(config, self.visit_count)
            sqrt_parent = math.sqrt(self.visit_count)
            best, best_score = self.children[0], -math.inf
            for child in self.children:
                q_value = -(child.value_sum / child.visit_count) if child.visit_count > 0 else 0.0
                score = q_value + c * child.prior * sqrt_parent / (1 + child.visit_count)
                if score > best_score:
                    best, best_score = child, score
            return best
        action = int(rule(self.children_stats(), config, root)[0])
        return next(child for child in self.children if child.action_taken == action)

    def backpropagate(self, value: float) -> None:
        """Add ``value`` (this node's mover's view) here and, flipped at every step, on every ancestor."""
        node: Node | None = self
        while node is not None:
            node.value_sum += value
            node.visit_count += 1
            value = -value
            node = node.parent


@dataclass
class SearchStats:
    """What one ``search`` call did."""

    num_searches: int = 0
    """Simulations run."""
    network_evaluations: int = 0
    """Network calls (one for the root plus one per non-terminal leaf)."""
    terminal_leaves: int = 0
    """Simulations that ended on a finished game (scored by the rules, no network call)."""
    max_depth: int = 0
    """Deepest leaf reached, in moves below the root."""

    def to_dict(self) -> dict[str, Any]:
        """Plain ``dict`` of the fields."""
        return asdict(self)


class AlphaMCTS:
    """AlphaZero's search (PUCT, network priors and values); see the module docstring for exact semantics."""

    def __init__(
        self,
        game: Game,
        model: Any,
        config: SearchConfig | None = None,
        *,
        root_selection: Callable[..., np.ndarray] | None = None,
        interior_selection: Callable[..., np.ndarray] | None = None,
    ) -> None:
        check_network_game(game, model)  # a network for another game is refused by name
        self.game = game
        self.model = model
        self.config = config if config is not None else SearchConfig()
        self.policy = self.config.search_policy()  # built with its own settings
        self.root_selection = root_selection if root_selection is not None else self.policy.root_selection
        self.interior_selection = (
            interior_selection if interior_selection is not None else self.policy.interior_selection
        )
        self.rng = np.random.default_rng(self.config.seed)
        self.root: Node | None = None
        self.last_search_stats = SearchStats()
        self.last_output: SearchOutput | None = None

    def _evaluate(self, state: np.ndarray) -> tuple[np.ndarray, float]:
        """Priors ``[A]`` (legal moves only) and the value of a canonical state, from one network call."""
        encoded = self.game.get_encoded_state(state)[None]
        logits, values = evaluate(self.model, encoded)
        priors = masked_softmax(logits[0], self.game.get_valid_moves(state))
        self.last_search_stats.network_evaluations += 1
        return priors, float(values[0])

    def search(
        self, state: np.ndarray, deadline: float | None = None, num_simulations: int | None = None
    ) -> np.ndarray:
        """The search's policy ``[action_size]`` for a canonical ``state`` (the mover's pieces are 1): the visit
        shares (PUCT) or the improved policy (Gumbel); ``last_output`` holds the rest of the ``SearchOutput``.

        ``deadline`` (a ``time.perf_counter()`` value) stops the simulations early when passed, after at
        least one, for a time limit per move. ``num_simulations`` (at most ``num_searches``) sets a smaller budget,
        e.g. a cheap search for playout cap randomisation. Raises ``ValueError`` when the mover has no legal move.
        """
        game, config = self.game, self.config
        state = np.asarray(state)
        valid = game.get_valid_moves(state)
        if not valid.any():
            raise ValueError(f"no legal moves in this position; the search needs a live game:\n{state}")
        budget = config.num_searches if num_simulations is None else int(num_simulations)
        if not 1 <= budget <= config.num_searches:
            raise ValueError(
                f"num_simulations must be between 1 and num_searches ({config.num_searches}), got {budget}"
            )
        stats = self.last_search_stats = SearchStats(num_searches=budget)

        # ROOT: network priors, the policy's noise over the legal moves (Dirichlet in the priors, or Gumbel draws),
        # all children expanded at once
        priors, root_value = self._evaluate(state)
        gumbel = np.zeros((1, game.action_size))
        if self.policy.draws_noise(config):
            legal = np.flatnonzero(valid)
            priors[legal], gumbel[0, legal] = self.policy.root_noise(self.rng, priors[legal], config)
        root = self.root = Node(state)
        root.visit_count = 1
        root.raw_value = root_value
        root.expand(game, priors)

        for simulation in range(budget):
            if deadline is not None and simulation > 0 and time.perf_counter() > deadline:
                stats.num_searches = simulation
                break
            # SELECTION: the root's rule at the root, the interior rule below it, down to a node without children
            context = RootContext(gumbel, np.array([simulation]), np.array([budget]))
            node, depth = root.select(config, self.root_selection, context), 1
            while node.is_expanded():
                node, depth = node.select(config, self.interior_selection), depth + 1
            stats.max_depth = max(stats.max_depth, depth)
            # EVALUATION: the rules score a finished game, the network everything else
            value, is_terminal = game.get_value_and_terminated(node.state, node.action_taken)
            value = -value  # to the view of the player to move at the leaf
            if is_terminal:
                stats.terminal_leaves += 1
            else:
                priors, value = self._evaluate(node.state)
                node.expand(game, priors)
            node.raw_value = value
            # BACKPROPAGATION
            node.backpropagate(value)

        # RESULT: the policy (visit shares or improved policy), the chosen action, the root's value
        output = search_output(
            root.children_stats(game.action_size), self.policy, config, gumbel, np.array([root.value_sum])
        )
        self.last_output = SearchOutput(*(field[0] for field in vars(output).values()))
        return self.last_output.policy
