"""The fast path: AlphaZero's search over many games at once, every tree held in numpy arrays (mctx style).

One ``BatchedMCTS.search`` call searches ``B`` games. Each simulation walks all ``B`` trees to a leaf
together (numpy ops over the ``B`` axis, a Python loop over depth only), scores finished games with the
vectorised rules of ``alphazero_lib.games.batched_rules``, makes ONE batched network call for every game's leaf
and backs all values up in one fancy-indexed update: ``_simulate`` is ``_select``, ``_expand``, ``_backup``.

The trees live in one ``Tree`` (``BatchedMCTS.tree``): row ``b`` of each of its arrays is game ``b``'s tree,
``N = num_searches + 2`` node slots per game; its docstring is the table of the arrays' shapes.

Node 0 is a *null node* whose statistics stay 0: an action without a child points at flat node 0, so a
child's statistics are one gather with no masking, and a walk that steps into it stays there. The root is
node 1; a new node is created for the leaf of every simulation that reaches an action without a child.
Children hold flat indices so that one fancy index reaches any node of any game without adding offsets.

Semantics (identical to the serial ``AlphaMCTS``; see its module docstring): PUCT
``U = Q + c * prior * sqrt(N_parent) / (1 + n_child)`` computed in float64 in the same order,
``Q = -value_sum / visit_count`` of the child and 0 for an unvisited one, ties to the lowest action,
one network call at the root (Dirichlet noise drawn game by game, in order ``0..B-1``, from one
``np.random.default_rng(config.seed)``), the root's value not backed up, terminal leaves scored by the rules.

Equivalence with the serial search: for ``B = 1`` (same seed, network and settings, ``reuse_tree=False``)
the visit counts are identical. For ``B > 1`` with the noise off each game's counts equal the serial search's
whenever the network gives a state the same output in a batch as alone; a fake numpy network does, but a torch
network may change the last bits of a float with the batch size (different kernels), which can tip a near-tie
of two PUCT scores. With root noise on and ``B > 1``, the noise draws are shared out game by game from one
generator, so game ``b`` sees other draws than a serial search with the same seed.

Tree reuse (``reuse_tree=True``): ``advance(actions)`` keeps the subtree under the move each game played and
the next ``search`` tops the kept root up to ``num_searches + 1`` visits instead of starting from scratch, so a
position costs fewer network evaluations; visit counts then differ from the serial search (which always starts
afresh), so equivalence is tested with reuse off. ``stats`` counts network evaluations per position searched.

Capacity: a simulation creates at most one node, so a fresh search needs at most the null node, the root and
``num_searches`` nodes: ``N``. Every node of a kept subtree was created by a simulation through the kept root,
so the subtree has at most as many nodes as its root has visits, and topping it up to ``num_searches + 1``
visits again needs at most ``N`` slots. ``_expand`` raises ``RuntimeError`` rather than write past them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from alphazero_lib.config import SearchConfig
from alphazero_lib.games.base import STATE_DTYPE, Game
from alphazero_lib.games.batched_rules import BatchedRules, batched_rules_for
from alphazero_lib.inference import check_network_game, evaluate, masked_softmax
from alphazero_lib.search_policies import Children, RootContext, SearchOutput, search_output

NULL, ROOT = 0, 1


@dataclass(frozen=True)
class Tree:
    """The search trees of ``B`` games, ``N`` node slots each: node ``n`` of game ``b`` is row ``[b, n]``.

    ==================  ============  =======  ===============================================================
    field               shape         dtype    meaning
    ==================  ============  =======  ===============================================================
    visit_count         [B, N]        float64  visits through the node (the root starts at 1)
    value_sum           [B, N]        float64  sum of backed-up values, seen by the player to move at the node
    parent              [B, N]        intp     parent node (0 = NULL for the root)
    action_from_parent  [B, N]        intp     the move that led here
    is_expanded         [B, N]        bool     evaluated by the network, children's priors known
    is_terminal         [B, N]        bool     the game is over at this node (never expanded)
    terminal_value      [B, N]        float64  its value for the player to move there (-1 lost, 0 draw)
    raw_value           [B, N]        float64  the network's value of the node (terminal: terminal_value)
    states              [B, N, R, C]  int8     canonical states (the player to move owns the 1s; no to_play)
    children_index      [B, N, A]     intp     FLAT index ``b * N + n`` of the child per action; 0 = none yet
    priors              [B, N, A]     float64  the network's priors (root: with Dirichlet noise)
    illegal_penalty     [B, N, A]     float64  0 on legal actions, -inf on illegal ones (added to the scores)
    ==================  ============  =======  ===============================================================

    Every field is indexed ``[game, node, ...]``, so ``clear`` and ``move_nodes`` loop over
    ``dataclasses.fields`` and a new field cannot be forgotten. Two fields hold node numbers: ``parent`` (within
    the game) and ``children_index`` (flat); ``BatchedMCTS.advance`` renumbers them after moving nodes.
    """

    visit_count: np.ndarray
    value_sum: np.ndarray
    parent: np.ndarray
    action_from_parent: np.ndarray
    is_expanded: np.ndarray
    is_terminal: np.ndarray
    terminal_value: np.ndarray
    raw_value: np.ndarray
    states: np.ndarray
    children_index: np.ndarray
    priors: np.ndarray
    illegal_penalty: np.ndarray

    @classmethod
    def zeros(cls, batch_size: int, num_nodes: int, action_size: int, board_shape: tuple[int, int]) -> Tree:
        """Empty trees: ``batch_size`` games, ``num_nodes`` slots each, every field 0."""
        B, N, A = batch_size, num_nodes, action_size
        return cls(
            visit_count=np.zeros((B, N), dtype=np.float64),
            value_sum=np.zeros((B, N), dtype=np.float64),
            parent=np.zeros((B, N), dtype=np.intp),
            action_from_parent=np.zeros((B, N), dtype=np.intp),
            is_expanded=np.zeros((B, N), dtype=bool),
            is_terminal=np.zeros((B, N), dtype=bool),
            terminal_value=np.zeros((B, N), dtype=np.float64),
            raw_value=np.zeros((B, N), dtype=np.float64),
            states=np.zeros((B, N, *board_shape), dtype=STATE_DTYPE),
            children_index=np.zeros((B, N, A), dtype=np.intp),
            priors=np.zeros((B, N, A), dtype=np.float64),
            illegal_penalty=np.zeros((B, N, A), dtype=np.float64),
        )

    def clear(self, where: np.ndarray) -> None:
        """Zero every field at ``where``: game indices ``[M]`` (whole trees) or a ``[B, N]`` mask of nodes."""
        for field in fields(self):
            getattr(self, field.name)[where] = 0

    def move_nodes(self, games: np.ndarray, old: np.ndarray, new: np.ndarray) -> None:
        """Copy node ``old[i]`` of game ``games[i]`` to slot ``new[i]`` in every field (all ``[M]`` int arrays).

        Node numbers held in ``parent`` and ``children_index`` are copied as they are, not renumbered.
        """
        for field in fields(self):
            array = getattr(self, field.name)
            array[games, new] = array[games, old]


@dataclass
class BatchedSearchStats:
    """What the searches of one ``BatchedMCTS`` did (cumulative; ``reset_stats`` clears it)."""

    positions: int = 0
    """Positions searched (one per active game per ``search`` call)."""
    simulations: int = 0
    """Simulations run, summed over games."""
    network_evaluations: int = 0
    """States evaluated by the network (roots plus non-terminal leaves), summed over games."""
    network_calls: int = 0
    """Batched network calls (one per simulation for all games, plus one per search for the roots)."""
    terminal_leaves: int = 0
    """Simulations that ended on a finished game (scored by the rules, no network call)."""
    reused_roots: int = 0
    """Searches that started from a subtree kept by ``advance`` (tree reuse)."""
    network_seconds: float = 0.0
    """Wall time inside the network calls (``inference.evaluate``: transfer, forward pass, transfer back)."""
    search_seconds: float = 0.0
    """Wall time of the ``search`` calls in total."""

    @property
    def evaluations_per_position(self) -> float:
        """Network evaluations a searched position cost on average."""
        return self.network_evaluations / max(self.positions, 1)

    def to_dict(self) -> dict[str, Any]:
        """Plain ``dict`` of the fields plus ``evaluations_per_position``."""
        return {**asdict(self), "evaluations_per_position": self.evaluations_per_position}


def tree_bytes(batch_size: int, num_nodes: int, game: Game) -> int:
    """The bytes of ``Tree.zeros(batch_size, num_nodes, ...)`` for ``game``: 50 + R*C + 24*A per node."""
    per_node = 6 * 8 + 2 + game.row_count * game.column_count + 3 * 8 * game.action_size
    return batch_size * num_nodes * per_node


def physical_memory() -> int:
    """This machine's memory in bytes (16 GB when the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 16 * 10**9


class BatchedMCTS:
    """AlphaZero's search for a batch of games at once: array trees, one batched network call per simulation.

    ``model`` is a ``torch.nn.Module`` or any object with ``evaluate(encoded [B, 3, R, C]) -> (logits [B, A],
    values [B])`` (e.g. ``inference.FastEvaluator``). ``rules`` defaults to ``batched_rules_for(game)``.
    The trees are ``self.tree`` (a ``Tree``); its fields can also be read as attributes (``mcts.visit_count``).

    The search policy is two functions (``alphazero_lib.search_policies``), ``root_selection`` and
    ``interior_selection``, each ``(children: Children, config, root: RootContext | None) -> actions [M]``;
    by default those of ``config.policy`` (PUCT or Gumbel AlphaZero). ``run`` returns a ``SearchOutput`` (policy,
    action, visit shares, improved policy, root value); ``search`` its policy; ``run_steps`` is ``run`` one step at
    a time, to watch the trees grow (notebook 7). ``backup``, when given, replaces the module's ``backup`` with a
    function of its signature, ``(visit_count [B, N], value_sum [B, N], path [L, B] of per-game node numbers,
    depth [B], leaf_value [B]) -> None``, that updates the first two in place (the course's exercise, notebook 7).
    """

    def __init__(
        self,
        game: Game,
        model: Any,
        config: SearchConfig | None = None,
        *,
        reuse_tree: bool = False,
        rules: BatchedRules | None = None,
        root_selection: Callable[..., np.ndarray] | None = None,
        interior_selection: Callable[..., np.ndarray] | None = None,
        backup: Callable[..., None] | None = None,
    ) -> None:
        check_network_game(game, model)  # a network for another game is refused by name
        self.game = game
        self.model = model
        self.config = config if config is not None else SearchConfig()
        self.reuse_tree = bool(reuse_tree)
        self.policy = self.config.search_policy()  # built with its own settings
        if self.reuse_tree and self.policy.fresh_root:
            raise ValueError(f"tree reuse is off for the {self.policy.name} policy: {self.policy.fresh_root}")
        self.rules = rules if rules is not None else batched_rules_for(game)
        self.root_selection = root_selection if root_selection is not None else self.policy.root_selection
        self.interior_selection = (
            interior_selection if interior_selection is not None else self.policy.interior_selection
        )
        self.backup = backup
        self.rng = np.random.default_rng(self.config.seed)
        self.stats = BatchedSearchStats()
        self.last_output: SearchOutput | None = None
        self.num_nodes_max = self.config.num_searches + 2  # null node, root, one new node per simulation
        self._allocate(0)  # the trees get their batch size on the first search

    # ---- the arrays ---------------------------------------------------------------------------------
    def _allocate(self, batch_size: int) -> None:
        """Preallocate the trees of ``batch_size`` games and the per-game bookkeeping.

        Raises ``ValueError`` (before allocating) when the trees would take more than half of the machine's memory.
        """
        B, N = batch_size, self.num_nodes_max
        need, memory = tree_bytes(B, N, self.game), physical_memory()
        if need > memory // 2:
            raise ValueError(
                f"the search trees of {B:,} games with {N:,} node slots each (num_searches + 2) would take "
                f"{need / 1e9:,.1f} GB, more than half of this machine's {memory / 1e9:,.1f} GB; search fewer games "
                f"at once or with fewer searches"
            )
        self.batch_size = B
        board_shape = (self.game.row_count, self.game.column_count)
        self.tree = Tree.zeros(B, N, self.game.action_size, board_shape)
        self.num_nodes = np.full(B, ROOT + 1, dtype=np.intp)  # [B] next free node per game
        self.root_kept = np.zeros(B, dtype=bool)  # [B] a subtree kept by `advance` waits to be reused
        self.offsets = np.arange(B, dtype=np.intp) * N  # [B] node n of game b is flat node b * N + n
        self._path = np.zeros((N + 2, B), dtype=np.intp)  # flat nodes from the root down, NULL below the leaf
        self._path_action = np.zeros((N + 2, B), dtype=np.intp)  # the action chosen at each level
        self.gumbel = np.zeros((B, self.game.action_size))  # [B, A] the roots' Gumbel noise (Gumbel policy)
        self._budget = np.zeros(B, dtype=np.intp)  # [B] each root's simulations in the current search

    @property
    def legal(self) -> np.ndarray:
        """Legal actions of every node, ``[B, N, A]`` bool."""
        return self.tree.illegal_penalty == 0

    def _clear(self, games: np.ndarray) -> None:
        """Empty the trees of ``games [M]``: every field zeroed, the next free node the one after the root."""
        self.tree.clear(games)
        self.num_nodes[games] = ROOT + 1

    def reset(self) -> None:
        """Forget every tree (the next search starts afresh for all games)."""
        self.root_kept[:] = False

    def reset_stats(self) -> None:
        """Zero the cumulative ``stats``."""
        self.stats = BatchedSearchStats()

    # ---- the network --------------------------------------------------------------------------------
    def children(self, nodes: np.ndarray) -> Children:
        """The children statistics of flat ``nodes [M]`` (what the selection rules read)."""
        tree, A = self.tree, self.game.action_size
        child = tree.children_index.reshape(-1, A)[nodes]  # [M, A] flat child nodes (NULL: not created yet)
        visit_flat = tree.visit_count.reshape(-1)
        return Children(
            prior=tree.priors.reshape(-1, A)[nodes],
            visit_count=visit_flat[child],
            value_sum=tree.value_sum.reshape(-1)[child],
            illegal_penalty=tree.illegal_penalty.reshape(-1, A)[nodes],
            parent_visits=visit_flat[nodes],
            raw_value=tree.raw_value.reshape(-1)[nodes],
        )

    def _evaluate(self, states: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Priors ``[M, A]`` (float64, 0 off ``valid``) and values ``[M]`` (float64) of ``states [M, R, C]``."""
        encoded = self.game.get_encoded_state(states)
        start = time.perf_counter()
        logits, values = evaluate(self.model, encoded)
        self.stats.network_seconds += time.perf_counter() - start
        self.stats.network_calls += 1
        self.stats.network_evaluations += len(states)
        return masked_softmax(logits, valid), np.asarray(values, dtype=np.float64).reshape(-1)

    # ---- the search ---------------------------------------------------------------------------------
    def search(self, states: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """The search's policies ``[B, A]`` for canonical ``states [B, R, C]`` (the mover's pieces are 1): visit
        shares (PUCT) or the improved policy (Gumbel). ``run``'s ``policy``; see ``run``."""
        return self.run(states, active).policy

    def run(
        self, states: np.ndarray, active: np.ndarray | None = None, num_simulations: np.ndarray | int | None = None
    ) -> SearchOutput:
        """Search canonical ``states [B, R, C]`` (the mover's pieces are 1); the ``SearchOutput`` of every game.

        ``active [B]`` (bool, default all) picks the games to search; the others' rows are 0 and their trees,
        and the random generator, are left untouched. ``num_simulations`` (an int or ``[B]``, at most
        ``num_searches``; default ``num_searches``) sets each game's budget, e.g. a cheap search for playout cap
        randomisation. Raises ``ValueError`` when an active game has no legal move.
        """
        for _ in self.run_steps(states, active, num_simulations):
            pass
        assert self.last_output is not None  # run_steps sets it when it ends
        return self.last_output

    def run_steps(
        self, states: np.ndarray, active: np.ndarray | None = None, num_simulations: np.ndarray | int | None = None
    ) -> Iterator[int]:
        """``run`` one step at a time, a hook to watch the trees grow: a generator that yields 0 after the root
        step (every root evaluated, its noise drawn) and ``k`` after simulation ``k`` (one in every game with
        simulations left), the arrays in ``self.tree`` as they are then. Once exhausted, ``self.last_output``
        holds ``run``'s result; arguments and errors are ``run``'s. Notebook 7 draws the trees between the steps.
        """
        start_time = time.perf_counter()
        game, config = self.game, self.config
        states = np.asarray(states)
        if states.ndim != 3 or states.shape[1:] != (game.row_count, game.column_count):
            raise ValueError(f"states must be [B, {game.row_count}, {game.column_count}], got {states.shape}")
        B = len(states)
        active = np.ones(B, dtype=bool) if active is None else np.asarray(active, dtype=bool).reshape(B)
        states = self._checked_states(states, active)
        if B != self.batch_size:
            self._allocate(B)
        tree = self.tree

        # ROOT: keep a reused subtree where its state matches, else one batched network call for the new roots
        reused = active & self.root_kept
        if reused.any():
            reused &= (tree.states[:, ROOT] == states).reshape(B, -1).all(axis=1)
        self.root_kept[:] = False
        fresh_games = np.flatnonzero(active & ~reused)
        if fresh_games.size:
            valid = self.rules.valid_moves(states[fresh_games])
            if not valid.any(axis=1).all():
                bad = int(fresh_games[np.flatnonzero(~valid.any(axis=1))[0]])
                raise ValueError(f"game {bad} has no legal moves; the search needs a live game:\n{states[bad]}")
            priors, values = self._evaluate(states[fresh_games], valid)
            self._clear(fresh_games)
            tree.states[fresh_games, ROOT] = states[fresh_games]
            tree.priors[fresh_games, ROOT] = priors
            tree.raw_value[fresh_games, ROOT] = values
            tree.illegal_penalty[fresh_games, ROOT] = np.where(valid, 0.0, -np.inf)
            tree.visit_count[fresh_games, ROOT] = 1  # the root's own evaluation; its value is not backed up
            tree.is_expanded[fresh_games, ROOT] = True
            tree.parent[fresh_games, ROOT] = NULL
        self.gumbel[active] = 0.0
        if self.policy.draws_noise(config):  # the policy's root noise game by game, in order, from the one generator
            for b in np.flatnonzero(active):
                legal = np.flatnonzero(tree.illegal_penalty[b, ROOT] == 0)
                priors = tree.priors[b, ROOT, legal]
                tree.priors[b, ROOT, legal], self.gumbel[b, legal] = self.policy.root_noise(self.rng, priors, config)

        # a fresh root runs its budget of simulations; a reused one is topped up to budget + 1 visits
        budget = np.full(B, config.num_searches, dtype=np.intp)
        if num_simulations is not None:
            budget[:] = num_simulations
            if (budget[active] < 1).any() or (budget[active] > config.num_searches).any():
                raise ValueError(f"num_simulations must be between 1 and num_searches ({config.num_searches})")
        self._budget = np.where(active, budget, 0)
        simulations = self._budget.copy()
        simulations[reused] = np.maximum(budget[reused] + 1 - tree.visit_count[reused, ROOT], 0)
        self.stats.positions += int(active.sum())
        self.stats.reused_roots += int(reused.sum())
        self.stats.simulations += int(simulations.sum())
        yield 0
        for simulation in range(int(simulations.max(initial=0))):
            self._simulate(simulation < simulations)
            yield simulation + 1

        # RESULT: the policy (visit shares or improved policy), the chosen action and the root value of each game
        A = game.action_size
        searched = np.flatnonzero(active)
        root_children = self.children(self.offsets[searched] + ROOT)
        found = search_output(root_children, self.policy, config, self.gumbel[searched], tree.value_sum[searched, ROOT])
        policy, shares, improved = np.zeros((B, A)), np.zeros((B, A)), np.zeros((B, A))
        action, root_value = np.full(B, -1, dtype=np.intp), np.zeros(B)
        policy[searched], shares[searched], improved[searched] = found.policy, found.visit_shares, found.improved_policy
        action[searched], root_value[searched] = found.action, found.root_value
        self.last_output = SearchOutput(policy, action, shares, improved, root_value)
        self.stats.search_seconds += time.perf_counter() - start_time

    def _checked_states(self, states: np.ndarray, active: np.ndarray) -> np.ndarray:
        """``states [B, R, C]`` as int8, after the checks ``AlphaMCTS`` makes of its one state, for every active game:
        values -1, 0 and 1 (no 2, no 0.5), a reachable position (``game.check_state``) and a game not already won.
        Raises ``ValueError`` naming the first game that fails (a few microseconds a game, once a search)."""
        game = self.game
        if states.dtype != STATE_DTYPE:
            if states.dtype.kind not in "iufb":
                raise ValueError(f"states must hold numbers -1, 0 and 1, got dtype {states.dtype}")
            bad = ((states != 0) & (states != 1) & (states != -1)).any(axis=(1, 2)) & active
            if bad.any():
                b = int(np.flatnonzero(bad)[0])
                values = sorted({v for v in np.unique(states[b]).tolist() if v not in (-1, 0, 1)})
                raise ValueError(f"game {b}: state values must be -1, 0 or 1 (empty, the players); got {values[:5]}")
            states = states.astype(STATE_DTYPE)
        if not hasattr(game, "check_state"):  # a game written to the course's API only (the capstone's): no more checks
            return states
        for b in np.flatnonzero(active):
            try:
                game.check_state(states[b])
            except ValueError as err:
                raise ValueError(f"game {b}: {err}") from None
            if game._has_line(states[b]):
                raise ValueError(
                    f"game {b} is already won (a player has {game._line_length} in a row); the search needs a live "
                    f"game:\n{states[b]}"
                )
        return states

    def _simulate(self, searching: np.ndarray) -> None:
        """One simulation in every game where ``searching [B]``: select a leaf, expand and evaluate it, back up."""
        path = self._select(searching)
        leaf_value = self._expand(path, searching)
        self._backup(path, leaf_value)

    def _select(self, searching: np.ndarray) -> np.ndarray:
        """Walk every game where ``searching [B]`` from its root down; return the paths ``[L, B]``.

        At the root the policy's ``root_selection`` picks the action, below it ``interior_selection`` (both PUCT
        by default). ``path[level, b]`` is the flat node game ``b`` stands on at ``level`` (the root at 0), NULL
        below its leaf and everywhere for a game not searching; the action chosen at each level goes to
        ``self._path_action [L, B]``. A walk ends on a node that is not expanded (a finished game) or by
        choosing an action without a child: it steps into the null node and stays there.
        """
        tree, B, N, A = self.tree, self.batch_size, self.num_nodes_max, self.game.action_size
        children2d, expanded_flat = tree.children_index.reshape(B * N, A), tree.is_expanded.reshape(-1)
        path, path_action = self._path, self._path_action
        root = RootContext(
            gumbel=self.gumbel,
            simulation_index=(tree.visit_count[:, ROOT] - 1).astype(np.intp),
            num_simulations=self._budget,
        )

        # every game walks down its tree at once; the Python loop runs over depth only
        node = np.where(searching, self.offsets + ROOT, NULL)  # [B] flat node index
        path[0] = node
        level = 0
        descending = searching
        while descending.any():
            children = self.children(node)  # a game not descending stands on NULL: zeros, it stays there
            if level == 0:
                action = self.root_selection(children, self.config, root)
            else:
                action = self.interior_selection(children, self.config, None)
            path_action[level] = action
            node = children2d.reshape(-1)[node * A + action]
            level += 1
            path[level] = node
            descending = expanded_flat[node]
        return path[: level + 1]

    def _expand(self, path: np.ndarray, searching: np.ndarray) -> np.ndarray:
        """Value each game's leaf, creating the node first where needed; the values ``[B]`` for the leaf's mover.

        A walk that ended on a finished game gets its stored value. A walk that chose an action without a child
        creates that child in the game's next free slot and appends it to ``path [L, B]`` (in place); the rules
        score it if the game ends there, else ONE network call evaluates every such leaf and expands it.
        Games not searching get 0. Raises ``RuntimeError`` if a tree has no free slot (see the module docstring).
        """
        tree, B, N = self.tree, self.batch_size, self.num_nodes_max
        depth = (path != NULL).sum(axis=0) - 1  # [B] level of the last node; -1 for a game not searching
        last = path[np.maximum(depth, 0), np.arange(B)]  # [B] flat leaf node (NULL for a game not searching)
        terminal_flat = tree.is_terminal.reshape(-1)
        leaf_value = np.where(terminal_flat[last], tree.terminal_value.reshape(-1)[last], 0.0)
        self.stats.terminal_leaves += int(terminal_flat[last].sum())

        # a game that stopped on an expanded node chose an action without a child: create it
        new_games = np.flatnonzero(tree.is_expanded.reshape(-1)[last] & searching)
        if not new_games.size:
            return leaf_value
        slots = self.num_nodes[new_games]
        if (slots >= N).any():
            full = int(new_games[np.argmax(slots >= N)])
            raise RuntimeError(f"game {full}'s tree is full: all {N} node slots (num_searches + 2) are taken")
        parent_flat = last[new_games]
        actions = self._path_action[depth[new_games], new_games]
        new_flat = self.offsets[new_games] + slots
        self.num_nodes[new_games] += 1
        tree.children_index.reshape(B * N, -1)[parent_flat, actions] = new_flat
        states_flat = tree.states.reshape(B * N, *tree.states.shape[2:])
        child_states, values, terminated, valid = self.rules.step(states_flat[parent_flat], actions)
        states_flat[new_flat] = child_states
        tree.parent.reshape(-1)[new_flat] = parent_flat - self.offsets[new_games]
        tree.action_from_parent.reshape(-1)[new_flat] = actions
        terminal_flat[new_flat] = terminated
        tree.terminal_value.reshape(-1)[new_flat] = -values  # the leaf mover's view
        tree.raw_value.reshape(-1)[new_flat] = -values  # replaced by the network's value where the game goes on
        leaf_value[new_games] = -values
        self.stats.terminal_leaves += int(terminated.sum())
        path[depth[new_games] + 1, new_games] = new_flat

        # EVALUATION: one network call for every game's non-terminal new leaf
        open_leaves = np.flatnonzero(~terminated)
        if open_leaves.size:
            open_flat = new_flat[open_leaves]
            priors, values = self._evaluate(child_states[open_leaves], valid[open_leaves])
            tree.priors.reshape(B * N, -1)[open_flat] = priors
            tree.illegal_penalty.reshape(B * N, -1)[open_flat] = np.where(valid[open_leaves], 0.0, -np.inf)
            tree.is_expanded.reshape(-1)[open_flat] = True
            tree.raw_value.reshape(-1)[open_flat] = values
            leaf_value[new_games[open_leaves]] = values
        return leaf_value

    def _backup(self, path: np.ndarray, leaf_value: np.ndarray) -> None:
        """From each leaf up to the root: ``value_sum += value``, ``visit_count += 1``, ``value = -value``.

        ``path [L, B]`` as ``_select`` returned it and ``_expand`` extended it; ``leaf_value [B]`` for the leaf's
        mover, so a node an even number of levels above the leaf gets ``+value``, the others ``-value``.
        """
        on = path != NULL  # [L, B]
        depth = on.sum(axis=0) - 1  # [B]
        levels = int(depth.max(initial=-1)) + 1  # below the deepest leaf every row is NULL: leave them out
        local = np.where(on[:levels], path[:levels] - self.offsets[None, :], NULL)  # per-game node numbers
        update = self.backup if self.backup is not None else backup  # another hand's, or the module's
        update(self.tree.visit_count, self.tree.value_sum, local, depth, leaf_value)

    # ---- tree reuse ---------------------------------------------------------------------------------
    def advance(self, actions: np.ndarray) -> None:
        """After each game played ``actions [B]`` (-1: none), keep the subtree under that move for the next search.

        Only with ``reuse_tree=True`` (otherwise the next search starts afresh anyway). The kept subtree is
        renumbered so that its root becomes node 1; a game whose move leads to no expanded node starts afresh.
        """
        if not self.reuse_tree or not self.batch_size:
            return
        tree, B, N = self.tree, self.batch_size, self.num_nodes_max
        games = np.arange(B)
        actions = np.asarray(actions, dtype=np.intp).reshape(B)
        played = actions >= 0
        child_flat = np.where(played, tree.children_index[games, ROOT, np.maximum(actions, 0)], NULL)
        keep = played & (child_flat != NULL) & tree.is_expanded.reshape(-1)[child_flat]
        # the subtree: the kept child and every node whose parent is in it (found level by level)
        in_subtree = np.zeros((B, N), dtype=bool)
        in_subtree[games[keep], (child_flat - self.offsets)[keep]] = True
        live = np.arange(N)[None, :] < self.num_nodes[:, None]
        while True:
            grown = in_subtree | (np.take_along_axis(in_subtree, tree.parent, axis=1) & live)
            grown[:, NULL] = False
            if (grown == in_subtree).all():
                break
            in_subtree = grown
        # renumber in creation order (parents before children): the kept child becomes node 1
        new_index = np.where(in_subtree, np.cumsum(in_subtree, axis=1), NULL)  # [B, N]
        new_flat = np.where(in_subtree, new_index + self.offsets[:, None], NULL).reshape(-1)  # old flat -> new flat
        g, old = np.nonzero(in_subtree)
        new = new_index[g, old]
        tree.move_nodes(g, old, new)
        tree.parent[g, new] = new_index[g, tree.parent[g, new]]  # the new root's parent becomes NULL
        tree.children_index[g, new] = new_flat[tree.children_index[g, new]]
        kept_nodes = in_subtree.sum(axis=1)
        tree.clear(keep[:, None] & (np.arange(N)[None, :] > kept_nodes[:, None]))  # [B, N] the slots now free
        # a root's value_sum holds only backed-up values (its own evaluation is added by `search_output`), but the
        # kept child's holds its own evaluation too, from the simulation that expanded it: take it out once
        tree.value_sum[keep, ROOT] -= tree.raw_value[keep, ROOT]
        self.num_nodes = np.where(keep, kept_nodes + 1, ROOT + 1).astype(np.intp)
        self.root_kept = keep


# ---- the backup in three steps (notebook 7's exercises) ---------------------------------------------------
def on_path(path: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """``[L, B]`` bool: True at levels ``0..depth[b]`` of game ``b``'s ``path [L, B]``, False below its leaf (all
    False for a game that did not search, ``depth[b] = -1``)."""
    return np.arange(len(path))[:, None] <= np.asarray(depth)[None, :]


def level_signs(path: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """``[L, B]`` float: +1 at game ``b``'s leaf level ``depth[b]``, then -1, +1, ... up to the root; the same
    alternation goes on below the leaf (those levels are off the path)."""
    return np.where((np.asarray(depth)[None, :] - np.arange(len(path))[:, None]) % 2 == 0, 1.0, -1.0)


def backup(visit_count: np.ndarray, value_sum: np.ndarray, path: np.ndarray, depth: np.ndarray, leaf_value) -> None:
    """Back ``leaf_value [B]`` (the leaf's mover's view) up ``path [L, B]`` in place, levels ``0..depth[b]``.

    ``visit_count, value_sum [B, N]``; ``path`` holds per-game node numbers, the root at level 0. Every node on a
    path gets one visit and ``+leaf_value`` an even number of levels above the leaf, ``-leaf_value`` otherwise:
    ``Node.backpropagate``'s add, flip the sign, go to the parent, for every game at once.
    """
    path = np.asarray(path)
    on = on_path(path, depth)
    games = np.broadcast_to(np.arange(path.shape[1]), path.shape)[on]
    nodes = path[on]  # distinct within a game, so += with fancy indexing is safe
    visit_count[games, nodes] += 1
    value_sum[games, nodes] += (level_signs(path, depth) * np.asarray(leaf_value, dtype=np.float64))[on]


def _tree_field(name: str) -> property:
    """A read-only ``BatchedMCTS`` attribute for ``tree.<name>`` (older code reads ``mcts.visit_count``)."""
    return property(lambda self: getattr(self.tree, name), doc=f"``self.tree.{name}`` (read-only; see ``Tree``).")


for _field in fields(Tree):
    setattr(BatchedMCTS, _field.name, _tree_field(_field.name))
