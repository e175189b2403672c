"""Vanilla Monte Carlo Tree Search: UCB1 selection, one expansion, a random rollout, backpropagation.

The tree works on canonical states (the player to move is 1), as in the course: a child's state is the
parent's state after the move, seen from the opponent's side. ``value_sum`` of a node is stored from the
view of the player to move *at that node*, so a parent reads its child's mean value negated.
"""

from __future__ import annotations

import math

import numpy as np

from alphazero_lib.config import MCTSConfig
from alphazero_lib.games.base import Game


class Node:
    """One position in the tree: its canonical state, visit statistics and the moves not yet expanded."""

    def __init__(self, game: Game, state: np.ndarray, parent: Node | None = None, action_taken: int | None = None):
        self.game = game
        self.state = state
        self.parent = parent
        self.action_taken = action_taken
        self.children: list[Node] = []
        self.expandable_moves = game.get_valid_moves(state).copy()
        self.num_moves = int(self.expandable_moves.sum())
        self.visit_count = 0
        self.value_sum = 0.0
        # the rules' verdict on the move into this node, from the view of the player to move here
        value, self.is_terminal = game.get_value_and_terminated(state, action_taken)
        self.terminal_value = -value

    def is_fully_expanded(self) -> bool:
        """Every legal move has a child (a terminal node has none, so it never counts as expanded)."""
        return len(self.children) == self.num_moves and self.num_moves > 0

    def get_ucb(self, child: Node, C: float) -> float:
        """UCB1 of a visited child: its value from this node's view, scaled to [0, 1], plus exploration."""
        q_value = 1 - (child.value_sum / child.visit_count + 1) / 2
        return q_value + C * math.sqrt(math.log(self.visit_count) / child.visit_count)

    def select(self, C: float) -> Node:
        """The child with the highest UCB1 (the first one on ties); ``get_ucb`` inlined for speed."""
        log_visits = math.log(self.visit_count)
        best, best_ucb = self.children[0], -math.inf
        for child in self.children:
            ucb = (1 - child.value_sum / child.visit_count) / 2 + C * math.sqrt(log_visits / child.visit_count)
            if ucb > best_ucb:
                best, best_ucb = child, ucb
        return best

    def expand(self, rng: np.random.Generator) -> Node:
        """Add a child for one random unexpanded move and return it."""
        moves = np.flatnonzero(self.expandable_moves)
        action = int(moves[rng.integers(len(moves))])
        self.expandable_moves[action] = 0
        child_state = self.game.get_next_state(self.state, action, 1)
        child_state = self.game.change_perspective(child_state, -1)
        child = Node(self.game, child_state, parent=self, action_taken=action)
        self.children.append(child)
        return child

    def simulate(self, rng: np.random.Generator) -> float:
        """Play uniformly random moves to the end; the result from this node's mover's view (1, 0 or -1)."""
        if self.is_terminal:
            return self.terminal_value  # the move into this node decided the game
        rollout_state, rollout_player = self.state, 1
        while True:
            moves = np.flatnonzero(self.game.get_valid_moves(rollout_state, rollout_player))
            action = int(moves[rng.integers(len(moves))])
            rollout_state = self.game.get_next_state(rollout_state, action, rollout_player)
            value, is_terminal = self.game.get_value_and_terminated(rollout_state, action)
            if is_terminal:
                return value if rollout_player == 1 else -value
            rollout_player = -rollout_player

    def backpropagate(self, value: float) -> None:
        """Add ``value`` (this node's mover's view) here and, flipped at every step, on every ancestor."""
        node: Node | None = self
        while node is not None:
            node.value_sum += value
            node.visit_count += 1
            value = -value
            node = node.parent


class MCTS:
    """Vanilla MCTS on canonical states; ``search(state)`` gives the root's visit-count distribution."""

    def __init__(self, game: Game, config: MCTSConfig | None = None) -> None:
        self.game = game
        self.config = config if config is not None else MCTSConfig()
        self.rng = np.random.default_rng(self.config.seed)
        self.root: Node | None = None

    def search(self, state: np.ndarray) -> np.ndarray:
        """Visit-count distribution ``[action_size]`` over the moves of a canonical ``state`` (mover = 1).

        Raises ``ValueError`` when the mover has no legal move.
        """
        state = np.asarray(state)
        if not self.game.get_valid_moves(state).any():
            raise ValueError(f"no legal moves in this position; the search needs a live game:\n{state}")
        root = self.root = Node(self.game, state)
        for _ in range(self.config.num_searches):
            node = root
            # SELECTION: walk down while every move of the node already has a child
            while node.is_fully_expanded():
                node = node.select(self.config.C)
            value = node.terminal_value  # the rules' verdict, from the view of the player to move at ``node``
            if not node.is_terminal:
                # EXPANSION and SIMULATION
                node = node.expand(self.rng)
                value = node.simulate(self.rng)
            # BACKPROPAGATION
            node.backpropagate(value)
        counts = np.zeros(self.game.action_size)
        for child in root.children:
            counts[child.action_taken] = child.visit_count
        return counts / counts.sum()
