"""Checks for notebook 7 (parallel self-play): the video's SPG and MCTSParallel, then batched PUCT and backup.

The video's design keeps one object tree per game (``alphazero_lib.alpha_mcts.Node``) and batches only the
network calls. Its reference here (``expand_roots``, ``simulate``, ``search``) is checked against the serial
``AlphaMCTS`` run game by game: with the same network, settings and noise draws the visit counts are identical.
The array exercises (``select_actions``, ``on_path``, ``level_signs``, ``backup``) are checked against the library's
``search_policies.puct_selection`` and ``batched_mcts``' backup on seeded arrays, the rules ``BatchedMCTS`` applies.
Checks run on a fake network that computes each row alone, so "identical" really means identical on any CPU.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from operator import attrgetter
from typing import Any

import numpy as np

from alphazero_lib.alpha_mcts import AlphaMCTS, Node
from alphazero_lib.batched_mcts import backup, level_signs, on_path
from alphazero_lib.config import SearchConfig
from alphazero_lib.exercises import core, positions
from alphazero_lib.exercises.core import Case, Mismatch, Mistake, board, check, check_method, hints_for, miss, show
from alphazero_lib.exercises.nb05_self_play import fake_counts
from alphazero_lib.games import ConnectFour, Othello, TicTacToe
from alphazero_lib.games.base import Game
from alphazero_lib.inference import evaluate, masked_softmax
from alphazero_lib.search_policies import Children, puct_scores, puct_selection
from alphazero_lib.search_policies.puct import dirichlet_noise
from alphazero_lib.selection import apply_temperature
from alphazero_lib.training import game_memory

HINTS = {  # the rule of each exercise: printed by hint(name), and the hint of a failing case no mistake explains
    "spg": "in __init__: self.state = game.get_initial_state(), self.memory = [] (a new list for every game), "
    "self.root = None, self.node = None.",
    "expand_roots": "priors, _ = self.evaluate(states) once for all games; then for each game b in order: with "
    "dirichlet_epsilon > 0 mix self.rng.dirichlet([alpha] * number of legal moves) into its legal priors; "
    "spg.root = Node(states[b]); spg.root.visit_count = 1; spg.root.expand(self.game, priors[b]).",
    "simulate": "for each game: spg.node = None; walk from spg.root with node.select(self.config) while expanded; "
    "value, terminal = get_value_and_terminated(node.state, node.action_taken); a terminal leaf backs up -value at "
    "once, an open one waits in spg.node. Then ONE self.evaluate of the waiting leaves' states; expand each with its "
    "priors and backpropagate its value.",
    "search": "self.expand_roots(states, spgs); num_searches times self.simulate(spgs); then counts [B, A] from each "
    "root's children, divided by each ROW's sum (axis=1, keepdims=True): an array [B, A].",
    "parallel_self_play": "spgs = [SPG(game) for _ in range(num_games)], player = 1; while spgs: states = np.stack("
    "[game.change_perspective(spg.state, player) for spg in spgs]); probs = search(states, spgs) (ONE call); for i "
    "in reversed(range(len(spgs))) (or forwards): spg.memory.append((states[i], probs[i], player)); action = "
    "rng.choice(game.action_size, p=apply_temperature(probs[i], temperature)); play it on spg.state; if the game "
    "ended: memory += game_memory(game, spg.memory, value, player) and del spgs[i]. Then player = "
    "game.get_opponent(player), once per step.",
    "select_actions": "Q = np.where(visit_count > 0, -value_sum / np.maximum(visit_count, 1), 0); score = Q + C * "
    "prior * np.sqrt(parent_visits)[:, None] / (1 + visit_count); -inf where not legal; argmax(axis=1), the first "
    "maximum.",
    "on_path": "level l of game b is on the path when l <= depth[b]: np.arange(len(path))[:, None] <= "
    "np.asarray(depth)[None, :] gives [L, B] booleans.",
    "level_signs": "+1 where depth[b] - level is even, -1 where it is odd: np.where((depth[None, :] - "
    "np.arange(len(path))[:, None]) % 2 == 0, 1.0, -1.0).",
    "backup": "for levels depth[b] down to 0: visit_count += 1 and value_sum += value at path[level, b], value = "
    "-value after each level (the leaf gets +leaf_value); levels below depth[b] hold node 0 and stay untouched, and "
    "a game with depth -1 is not searching.",
}
hint, solution = hints_for(HINTS, "07_parallel_self_play.ipynb")


# ---- the reference: the video's design with the library's semantics ---------------------------------------
# ``_expand_roots``, ``_simulate``, ``_search`` (the methods' private twins) and ``parallel_self_play`` take ``kind``, a
# planted mistake (the default is the reference): the known mistakes (``*_MISTAKES``) are the reference with one
# thing changed.
class SPG:
    """One self-play game in flight: its state, its memory of samples, and its search's root and leaf node."""

    def __init__(self, game: Game) -> None:
        self.state, self.memory, self.root, self.node = game.get_initial_state(), [], None, None


def _expand_roots(self: Any, states: np.ndarray, spgs: list, kind: str = "") -> None:
    priors, _ = self.evaluate(states)
    eps = self.config.dirichlet_epsilon
    if eps > 0 and kind == "all actions":  # the video's noise: one draw over every action, masked, renormalised
        noise = self.rng.dirichlet([self.config.dirichlet_alpha] * self.game.action_size, size=len(states))
        priors = ((1 - eps) * priors + eps * noise) * np.stack([self.game.get_valid_moves(s) for s in states])
        priors /= priors.sum(axis=1, keepdims=True)
    for b, spg in enumerate(spgs):
        if eps > 0 and kind != "all actions":  # the serial search's noise, drawn game by game
            legal = np.flatnonzero(self.game.get_valid_moves(states[b]))
            rng = np.random if kind == "np.random" else self.rng
            priors[b, legal] = dirichlet_noise(rng, priors[b, legal], self.config)[0]
        spg.root = Node(states[b])
        spg.root.visit_count = 1
        spg.root.expand(self.game, priors[b])


def _simulate(self: Any, spgs: list, kind: str = "") -> None:
    for spg in spgs:
        if kind != "stale node":
            spg.node = None
        node = spg.root
        while node.is_expanded():
            node = node.select(self.config)
        value, is_terminal = self.game.get_value_and_terminated(node.state, node.action_taken)
        value = value if kind == "terminal sign" else -value
        if is_terminal:
            node.backpropagate(value)
        else:
            spg.node = node
    expandable = [spg for spg in spgs if spg.node is not None]
    if expandable:
        priors, values = self.evaluate(np.stack([spg.node.state for spg in expandable]))
        for spg, prior, value in zip(expandable, priors, values, strict=True):
            spg.node.expand(self.game, prior)
            spg.node.backpropagate(-float(value) if kind == "network sign" else float(value))


def _search(self: Any, states: np.ndarray, spgs: list, kind: str = "") -> Any:
    self.expand_roots(states, spgs)
    for _ in range(self.config.num_searches - (kind == "one short")):
        self.simulate(spgs)
    counts = np.stack([_root_table(spg.root, self.game.action_size)[1] for spg in spgs])
    if kind == "counts":
        return counts
    if kind == "one sum":
        return counts / counts.sum()
    if kind == "axis 0":
        with np.errstate(all="ignore"):
            return counts / counts.sum(axis=0, keepdims=True)
    shares = counts / counts.sum(axis=1, keepdims=True)
    return list(shares) if kind == "a list" else shares


class MCTSParallel:
    """The reference class (the notebook gives the learner the same ``__init__`` and ``evaluate``)."""

    def __init__(self, game: Game, model: Any, config: SearchConfig) -> None:
        self.game, self.model, self.config = game, model, config
        self.rng = np.random.default_rng(config.seed)
        self.network_calls = 0

    def evaluate(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Priors ``[M, A]`` (legal moves only) and values ``[M]`` of canonical ``states [M, R, C]``: one call."""
        states = np.asarray(states)
        logits, values = evaluate(self.model, self.game.get_encoded_state(states))
        valid = np.stack([self.game.get_valid_moves(s) for s in states])
        self.network_calls += 1
        return masked_softmax(logits, valid), np.asarray(values, dtype=np.float64).reshape(-1)

    def expand_roots(self, states: np.ndarray, spgs: list) -> None:
        """Give every game a root: ONE network call for all ``states [B, R, C]``, noise game by game, expand."""
        _expand_roots(self, states, spgs)

    def simulate(self, spgs: list) -> None:
        """One simulation in every game: walk to a leaf, back up finished games, ONE network call for the rest."""
        _simulate(self, spgs)

    def search(self, states: np.ndarray, spgs: list) -> np.ndarray:
        """Visit-count distributions ``[B, A]`` of canonical ``states [B, R, C]``, one tree per game in ``spgs``."""
        return _search(self, states, spgs)


expand_roots, simulate, search = MCTSParallel.expand_roots, MCTSParallel.simulate, MCTSParallel.search


def parallel_self_play(
    game: Game,
    search: Callable[..., np.ndarray],
    num_games: int,
    rng: np.random.Generator,
    temperature: float = 1.25,
    backwards: bool = True,
    kind: str = "",
) -> list:
    """The video's self-play loop: ``num_games`` games side by side, ONE ``search(states [B, R, C], spgs) -> probs
    [B, A]`` per step for the games still playing, one move in each (drawn backwards through the list, as the video
    does, or forwards), one ``player`` for all; a finished game adds ``game_memory(game, spg.memory, value, player)``
    and leaves the list. ``kind``: a planted mistake (``LOOP_MISTAKES``)."""
    memory, player, shared = [], 1, []
    spgs = [SPG(game) for _ in range(num_games)]
    while spgs:
        states = np.stack([game.change_perspective(spg.state, player) for spg in spgs])
        probs = search(states, spgs)
        if kind == "skips":  # the live list: removing a game shifts the next one under the loop
            games = enumerate(spgs)
        elif kind == "wrong row":
            games = enumerate(reversed(spgs))
        else:
            order = reversed(range(len(spgs))) if backwards and kind != "del forwards" else range(len(spgs))
            games = ((i, spgs[i]) for i in order)
        ended = []
        for i, spg in games:
            history = shared if kind == "shared" else spg.memory
            history.append((states[i], probs[i], player))
            weights = probs[i] if kind == "no temperature" else apply_temperature(probs[i], temperature)
            action = int(rng.choice(game.action_size, p=weights))
            spg.state = game.get_next_state(spg.state, action, player)
            value, is_terminal = game.get_value_and_terminated(spg.state, action)
            if is_terminal:
                if kind == "outcome":
                    memory += [(game.get_encoded_state(s), q, value) for s, q, _ in history]
                else:
                    memory += game_memory(game, history, value, player)
                if kind == "skips":
                    spgs.remove(spg)
                elif kind == "del forwards":
                    del spgs[i]
                elif kind != "kept":
                    ended.append(spg)
            if kind == "player per game":
                player = game.get_opponent(player)
        spgs = [spg for spg in spgs if all(spg is not e for e in ended)]
        if kind != "player per game":
            player = game.get_opponent(player)
    return memory


def _library_loop(
    game: Game, search: Callable[..., Any], num_games: int, rng: np.random.Generator, temperature: float = 1.25
) -> list:
    return parallel_self_play(game, search, num_games, rng, temperature)


def select_actions(
    value_sum: np.ndarray, visit_count: np.ndarray, prior: np.ndarray, legal: np.ndarray, parent_visits, C=2.0
) -> np.ndarray:
    """PUCT's choice in each of ``B`` nodes: children's ``[B, A]`` statistics, ``parent_visits [B]`` -> ``[B]``; the
    library's ``search_policies.puct_selection`` (the rule ``BatchedMCTS`` applies to its trees)."""
    return puct_selection(_children(value_sum, visit_count, prior, legal, parent_visits), SearchConfig(C=C))


def _children(value_sum: Any, visit_count: Any, prior: Any, legal: Any, parent_visits: Any) -> Children:
    """``select_actions``' arrays as the ``Children`` the library's PUCT reads."""
    return Children(
        prior=np.asarray(prior, dtype=np.float64),
        visit_count=np.asarray(visit_count),
        value_sum=np.asarray(value_sum),
        illegal_penalty=np.where(legal, 0.0, -np.inf),
        parent_visits=np.asarray(parent_visits, dtype=np.float64),
        raw_value=np.zeros(len(prior)),
    )


# ---- helpers for the notebook -------------------------------------------------------------------------------
class RowNet:
    """A fake policy-value network computed state by state (so batching cannot change a bit of any answer):
    ``logits = x @ W``, ``value = tanh(x @ w)`` with seeded weights, in float64 rounded to float32."""

    def __init__(self, game: Game, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        size = 3 * game.row_count * game.column_count
        self.w_policy = rng.standard_normal((size, game.action_size)) * 0.5
        self.w_value = rng.standard_normal(size) * 0.3

    def evaluate(self, encoded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = np.asarray(encoded, dtype=np.float64).reshape(len(encoded), -1)
        logits = np.stack([row @ self.w_policy for row in rows]) if len(rows) else np.zeros((0, 1))
        values = np.array([math.tanh(float(row @ self.w_value)) for row in rows])
        return logits.astype(np.float32), values.astype(np.float32)


# the loop's rules that both the fake search (which sees them broken) and a planted mistake state
KEPT = "take a game out of the list when it ends: a finished game left in it is searched again"
SKIPS = (
    "removing a game from the list you are looping over skips the game after it (and its row of probs no longer "
    "lines up): loop backwards (for i in reversed(range(len(spgs))): ... del spgs[i]), as the video does, or "
    "build a new list of the games still playing"
)


class FakeParallelSearch:
    """A deterministic stand-in for ``MCTSParallel.search``: ``search(states [B, R, C], spgs) -> probs [B, A]``,
    notebook 5's ``fake_counts`` of each canonical board (also left in ``spg.root``'s children, as a search leaves
    them); ``batch_sizes``: how many games each call searched. It raises ``Mismatch`` (saying what is wrong) when a
    call is not one step of the video's loop: the canonical boards of every game still playing, each moved once."""

    def __init__(self, game: Game, seed: int = 0, num_games: int | None = None) -> None:
        self.game, self.seed, self.num_games = game, seed, num_games
        self.batch_sizes: list[int] = []
        self.games: list = []  # every SPG searched, in the order of the first call
        self.boards: dict[int, list[np.ndarray]] = {}  # id(spg) -> its board at each call

    def __call__(self, states: Any, spgs: Any) -> np.ndarray:
        step, states, spgs = len(self.batch_sizes), np.asarray(states), list(spgs)
        shape = (len(spgs), self.game.row_count, self.game.column_count)
        if states.shape != shape:
            raise miss(
                f"search(states of shape {states.shape}, {len(spgs)} games)",
                f"states of shape {shape}",
                "call search(states, spgs) with the stacked canonical boards [B, R, C] of the games still "
                "playing and those B games, in the same order.",
            )
        self.batch_sizes.append(len(spgs))
        if step == 0:
            if self.num_games is not None and len(spgs) != self.num_games:
                raise miss(
                    f"the first search call got {len(spgs)} game{'s' if len(spgs) != 1 else ''}",
                    f"all {self.num_games}",
                    "search every game in ONE call per step: make all num_games "
                    "SPGs first, then search them together (search(states, spgs)).",
                )
            self.games, self.boards = spgs, {id(spg): [] for spg in spgs}
        for i, spg in enumerate(spgs):
            if id(spg) not in self.boards:
                raise miss(
                    f"step {step + 1}: a game that was not in the first call",
                    "the same SPGs at every step",
                    "make the SPGs once, before the loop; each keeps its board in spg.state.",
                )
            self._watch(step, 1 if step % 2 == 0 else -1, i, spg, states[i])
        searched = {id(spg) for spg in spgs}
        for k, spg in enumerate(self.games):
            if id(spg) not in searched and not self.game.is_over(spg.state):
                raise miss(
                    f"step {step + 1}: game {k} is still playing but was not searched",
                    "every game still playing searched",
                    "take a game out of the list only when it has ended; search all the others in one call per step.",
                )
        probs = np.zeros((len(spgs), self.game.action_size))
        for i, spg in enumerate(spgs):
            counts = fake_counts(self.game, states[i], self.seed)
            probs[i] = counts / counts.sum()
            spg.root = Node(states[i])
            spg.root.visit_count = int(counts.sum()) + 1
            for action in np.flatnonzero(counts):
                child = Node(None, spg.root, int(action), 0.0)
                child.visit_count = int(counts[action])
                spg.root.children.append(child)
        return probs

    def _watch(self, step: int, player: int, i: int, spg: Any, state: np.ndarray) -> None:
        k = next(k for k, game in enumerate(self.games) if game is spg)
        board = np.asarray(getattr(spg, "state", None))
        if board.shape != state.shape:
            raise miss(
                f"game {k}'s spg.state of shape {board.shape}",
                f"shape {state.shape}",
                "keep each game's board in its spg.state.",
            )
        if self.game.is_over(board):
            raise miss(
                f"step {step + 1}: game {k} was searched after it ended", "a finished game leaves the list", KEPT
            )
        pieces = int(np.count_nonzero(board))
        if pieces != step:
            raise miss(
                f"step {step + 1}: game {k} has {pieces} pieces",
                f"{step} (one move per game and step)",
                f"every game still in the list moves once per step; {SKIPS}"
                if pieces < step
                else "one move per game and step.",
            )
        if not np.array_equal(state, board * player):
            if np.array_equal(state, board):
                raise miss(
                    f"step {step + 1}: game {k}'s board as it is",
                    "seen by the player to move",
                    "search the canonical boards: game.change_perspective(spg.state, player) for each game.",
                )
            raise miss(
                f"step {step + 1}: states[{i}] is not game {k}'s board",
                f"spgs[{i}].state seen by the player to move",
                "states[i] is the board of spgs[i] (its "
                "spg.state) seen by the player to move: stack them in the list's order.",
            )
        self.boards[id(spg)].append(board.copy())

    def moves(self) -> list[list[int]]:
        """Each game's moves, in the order of the first call: from its boards at the calls and its final board."""
        out = []
        for spg in self.games:
            played = []
            for before, after in itertools.pairwise([*self.boards[id(spg)], np.asarray(spg.state)]):
                cells = np.flatnonzero(before.reshape(-1) != after.reshape(-1))
                column = self.game.action_size != before.size  # Connect Four: the action is the column
                played += [int(c % self.game.column_count) if column else int(c) for c in cells]
            out.append(played)
        return out


fake_parallel_search = FakeParallelSearch  # the notebook's name: fake_parallel_search(game, seed)


def random_positions(game: Game, count: int, rng: np.random.Generator, max_moves: int = 4) -> np.ndarray:
    """``count`` canonical positions ``[count, R, C]`` after 0..max_moves random moves, every one still live: a move
    that would end the game is not played (``positions.batch``)."""
    return positions.batch(game, count, rng, max_moves + 1)


def search_step_by_step(mcts: Any, states: np.ndarray, simulations: int):
    """Yield 0 after the root step of ``mcts.search(states)`` and ``k`` after each of ``simulations`` simulations:
    the library's ``BatchedMCTS.run_steps`` with a budget of ``simulations``."""
    yield from mcts.run_steps(states, num_simulations=simulations)


# ---- the checks -----------------------------------------------------------------------------------------------
OWN_LIST = (
    "each game needs its own list: self.memory = [] inside __init__ (a list in the class body, or a default "
    "argument memory=[], is ONE list shared by every game)"
)


SPG_FIELDS = attrgetter("state", "memory", "root", "node")  # what a new SPG holds, as the check compares it


def check_spg(learner: Any) -> Any:
    """Check the ``SPG`` class: a game's state starts at ``get_initial_state()``, an empty memory, no root/node;
    two games never share their memory list or their state array."""

    def apart(cls: type) -> str:
        game = TicTacToe()
        first, second = cls(game), cls(game)
        first.memory.append("sample")
        first.state[0, 0] = 9
        if second.memory:
            raise Mismatch(second.memory, [], OWN_LIST)
        if second.state[0, 0] == 9:
            raise Mismatch(
                board(second.state),
                board(game.get_initial_state()),
                "each SPG needs its own state array (game.get_initial_state() makes a new one).",
            )
        return "apart"

    def fields(cls: type, game: Game) -> tuple:
        """The four fields, with the part a wrong one breaks named (the comparison names the rest)."""
        got, expected = SPG_FIELDS(cls(game)), SPG_FIELDS(SPG(game))
        if isinstance(got[0], np.ndarray) and got[0].shape != expected[0].shape:
            raise Mismatch(
                got,
                expected,
                f"the state is the game's own empty board, game.get_initial_state() "
                f"({game!r} has {game.row_count} x {game.column_count} cells), not a board of one size",
            )
        if not isinstance(got[1], list):
            raise Mismatch(
                got,
                expected,
                f"the memory is a list, [], which each move's sample is appended to; "
                f"a {type(got[1]).__name__} has no append",
            )
        return got

    def cases() -> list[Case]:
        out = [
            Case(
                f"spg = SPG({type(game).__name__}()); (spg.state, spg.memory, spg.root, spg.node)",
                partial(fields, game=game),
                SPG_FIELDS(SPG(game)),
                HINTS["spg"],
                same=_same_fields,
            )
            for game in (TicTacToe(), ConnectFour(), Othello(6))
        ]
        out.append(Case("two SPG(TicTacToe()): add to one's memory and state, the other is unchanged", apart, "apart"))
        return out

    # a wrong SPG keeps state between cases (a shared list grows): each mistake is a fresh class, tried once
    mistakes = [
        Mistake(OWN_LIST, lambda: _spg_without("memory")),
        Mistake(
            "set all four attributes in __init__, node = None too (simulate reads it)", lambda: _spg_without("node")
        ),
    ]
    return check("SPG", learner, SPG, cases, mistakes, own=["__init__"], adapt=lambda make: make(), verify=False)


def _spg_without(attribute: str) -> type:
    """A fresh ``SPG`` class whose games lack their own ``attribute`` (``memory``: all share the class body's list)."""

    def __init__(self: Any, game: Game) -> None:
        SPG.__init__(self, game)
        delattr(self, attribute)

    return type("SPG", (), {"__init__": __init__, "memory": []})


def _same_fields(got: Any, expected: Any) -> bool:
    """``(state, memory, root, node)``: the same board as an array, an empty list, ``None`` and ``None``."""
    if not isinstance(got, tuple) or len(got) != 4:
        return False
    state, memory, root, node = got
    return (
        isinstance(state, np.ndarray)
        and state.shape == expected[0].shape
        and np.array_equal(state, expected[0])
        and isinstance(memory, list)
        and memory == []
        and root is None
        and node is None
    )


SETTINGS = [  # (game, batch size, search settings, position seed) of the search cases; noise on in some
    (TicTacToe(), 1, SearchConfig(num_searches=12, seed=0), 0),
    (TicTacToe(), 4, SearchConfig(num_searches=25, seed=1), 1),
    (TicTacToe(), 5, SearchConfig(num_searches=30, dirichlet_epsilon=0.25, dirichlet_alpha=0.3, seed=2), 2),
    (ConnectFour(), 3, SearchConfig(num_searches=20, C=1.5, seed=3), 3),
    (ConnectFour(), 4, SearchConfig(num_searches=16, dirichlet_epsilon=0.25, dirichlet_alpha=0.9, seed=4), 4),
    (TicTacToe(), 3, SearchConfig(num_searches=40, C=1.0, seed=5), 5),  # ENDGAMES
]
ENDGAMES = np.stack(
    [  # Tic-Tac-Toe positions where the search meets finished games within a few moves
        positions.WIN_AT_2,
        positions.tictactoe([[1, -1, 1], [-1, -1, 1], [0, 1, -1]]),  # two empty squares
        positions.tictactoe([[-1, 1, 0], [0, 1, 0], [-1, 0, 0]]),
    ]
)


def _serial(game: Game, config: SearchConfig, states: np.ndarray, net: Any, searches: int | None = None):
    """The serial search's policies ``[B, A]`` and roots, run game by game with ONE ``AlphaMCTS`` (so its noise is
    drawn in game order), with ``searches`` simulations (default: ``num_searches``)."""
    serial = AlphaMCTS(game, net, config if searches is None else replace(config, num_searches=searches))
    probs, roots = zip(*[(serial.search(state), serial.root) for state in states], strict=True)
    return np.stack(probs), list(roots)


def _root_table(root: Any, action_size: int) -> np.ndarray:
    """``[3, A]``: priors, visit counts and value sums of a root's children (0 where none)."""
    table = np.zeros((3, action_size))
    for child in root.children:
        table[:, child.action_taken] = (child.prior, child.visit_count, child.value_sum)
    return table


def _search_cases(method: str) -> list[Case]:
    """One case per ``SETTINGS`` for ``MCTSParallel.method``, expected from the serial search: its policies
    (``search``), or its roots' tables ``[B, 3, A]`` (``_root_table``) after ``num_searches`` simulations
    (``simulate``) or, priors only, after one (``expand_roots``: the noise is drawn the same way)."""
    cases = []
    for game, batch, config, seed in SETTINGS:
        net = RowNet(game, seed)
        states = ENDGAMES.copy() if seed == 5 else random_positions(game, batch, np.random.default_rng(seed))
        probs, roots = _serial(game, config, states, net, 1 if method == "expand_roots" else None)
        run = partial(_run_parallel, method=method, game=game, net=net, config=config, states=states)
        noise = f", dirichlet_epsilon={config.dirichlet_epsilon}" if config.dirichlet_epsilon else ""
        call = (
            f"{type(game).__name__}, {batch} game{'s' if batch > 1 else ''}, SearchConfig(num_searches="
            f"{config.num_searches}, C={config.C}{noise}, seed={config.seed}); first game "
            f"{board(states[0])}"
        )
        if method == "search":
            cases.append(Case(call, run, probs, HINTS[method]))
            continue
        expected = np.stack([_root_table(root, game.action_size) for root in roots])
        if method == "expand_roots":
            expected[:, 1:] = 0  # priors only: the serial roots ran one simulation, the parallel ones none
        cases.append(
            Case(
                call,
                run,
                expected,
                HINTS[method],
                same=lambda got, exp: (
                    isinstance(got, np.ndarray) and got.shape == exp.shape and np.allclose(got, exp, atol=1e-9)
                ),
            )
        )
    return cases


def _run_parallel(cls: type, method: str, game: Game, net: Any, config: SearchConfig, states: np.ndarray) -> Any:
    """The learner's ``cls.method`` on fresh games: ``search``'s answer, or the roots' tables it leaves."""
    mcts, spgs = cls(game, net, config), [SPG(game) for _ in states]
    if method == "search":
        return mcts.search(states, spgs)
    if method == "simulate":  # on the reference's roots, at most one network call per simulation
        expand_roots(mcts, states, spgs)
        for _ in range(config.num_searches):
            calls = mcts.network_calls
            mcts.simulate(spgs)
            if mcts.network_calls - calls > 1:
                raise Mismatch(
                    f"{mcts.network_calls - calls} network calls in one simulation",
                    "at most 1",
                    "collect every game's leaf first, then evaluate them all in one call.",
                )
    else:
        calls = mcts.network_calls
        mcts.expand_roots(states, spgs)
        untouched = np.random.default_rng(config.seed).bit_generator.state
        if config.dirichlet_epsilon > 0 and mcts.rng.bit_generator.state == untouched:
            raise Mismatch(
                "no draw from self.rng",
                "one self.rng.dirichlet per game",
                "draw the noise from self.rng (seeded once, as the serial search's), not from np.random",
            )
        if mcts.network_calls - calls != 1:
            raise Mismatch(f"{mcts.network_calls - calls} network calls", "1", "evaluate all roots in one call.")
        visits = [getattr(spg.root, "visit_count", None) for spg in spgs]
        if any(v != 1 for v in visits):
            raise Mismatch(
                visits,
                [1] * len(spgs),
                "a root starts with visit_count = 1 (its own evaluation), as in the serial search.",
            )
    roots = [spg.root for spg in spgs]
    if any(root is None for root in roots):
        raise Mismatch(roots, "a Node per game", "set spg.root = Node(state) for every game.")
    tables = np.stack([_root_table(root, game.action_size) for root in roots])
    if method == "expand_roots":
        tables[:, 1:] = 0  # only the priors are compared (the root's own visit is checked above)
    return tables


def _check_parallel(cls: type, method: str, mistakes: list[Mistake]) -> type:
    return check_method(
        cls,
        method,
        getattr(MCTSParallel, method),
        lambda cls: _search_cases(method),
        name=f"MCTSParallel.{method}",
        mistakes=mistakes,
    )


def check_expand_roots(cls: type) -> type:
    """Check ``MCTSParallel.expand_roots``: every root child's prior (noise drawn game by game) as the serial
    search's, one network call for all games, roots visited once, children not yet."""
    return _check_parallel(cls, "expand_roots", ROOT_MISTAKES)


def check_simulate(cls: type) -> type:
    """Check ``MCTSParallel.simulate``: after ``num_searches`` simulations on the reference's roots every root child's
    prior, visit count and value sum ``[B, 3, A]`` are the serial search's (finished games inside the trees too)."""
    return _check_parallel(cls, "simulate", SIMULATE_MISTAKES)


def check_search(cls: type) -> type:
    """Check ``MCTSParallel.search``: each game's visit-count distribution ``[B, A]`` is the serial search's (one
    ``AlphaMCTS`` run on the games in order, so with noise on it draws the same noise game by game)."""
    return _check_parallel(cls, "search", SEARCH_MISTAKES)


ROOT_MISTAKES = core.planted(
    _expand_roots,
    {
        "all actions": "draw the noise game by game over each game's LEGAL moves (self.rng.dirichlet([alpha] * "
        "len(legal))), as the serial search does; not one draw over every action",
        "np.random": "draw the noise from self.rng (seeded once), not from np.random",
    },
)
SIMULATE_MISTAKES = core.planted(
    _simulate,
    {
        "terminal sign": "a finished leaf's value comes from the rules, which score it for the player who just moved: "
        "back up -value",
        "network sign": "the network's value is already for the player to move at the leaf: back it up as it is",
        "stale node": "reset spg.node = None at the start of every simulation: a finished game's leaf must not wait "
        "from the simulation before",
    },
)
SEARCH_MISTAKES = core.planted(
    _search,
    {  # the visits are right; what is returned is not
        "counts": "return each game's visit SHARES: its counts divided by its own sum",
        "one sum": "normalise each game (row) by its own sum: counts.sum(axis=1, keepdims=True), not the sum over all "
        "games",
        "axis 0": "normalise each game (row) over its own moves: counts.sum(axis=1, keepdims=True); axis=0 sums one "
        "action over the games (0 / 0 where no game visited it)",
        "a list": "return one numpy array [B, A] (the cells below call .argmax(1) on it), not a list of rows",
        "one short": "run num_searches simulations: range(self.config.num_searches), one more than yours (the "
        "root's first visit is its expansion, not a simulation)",
    },
)


# ---- the self-play loop -----------------------------------------------------------------------------------------
LOOP_SETTINGS = [  # (game, number of games, seed, temperature) of the loop's cases
    (TicTacToe(), 1, 0, 1.25),
    (TicTacToe(), 5, 1, 1.25),
    (TicTacToe(), 8, 2, 1.0),
    (TicTacToe(), 6, 3, 0.5),
    (TicTacToe(), 4, 4, 0.0),
    (TicTacToe(), 12, 5, 2.0),
    (ConnectFour(), 3, 6, 1.25),
    (ConnectFour(), 5, 7, 1.0),
]


def _play(f: Callable[..., Any], game: Game, num_games: int, seed: int, temperature: float) -> tuple[Any, list]:
    """Run a loop ``f`` on the watching fake search: (its samples, each game's moves)."""
    search = FakeParallelSearch(game, seed, num_games)
    memory = f(game, search, num_games, np.random.default_rng(seed), temperature)
    if not search.games:
        raise miss(
            "search was never called",
            "one call per step",
            "call probs = search(states, spgs) once per step for all games still playing.",
        )
    for k, spg in enumerate(search.games):
        if not game.is_over(spg.state):
            raise miss(
                f"game {k} not finished when the loop returned",
                "every game played to its end",
                "loop while any game is still playing (while spgs:), not until the first one ends.",
            )
    return memory, search.moves()


def _run_loop(f: Callable[..., Any], game: Game, num_games: int, seed: int, temperature: float, expected: dict) -> Any:
    memory, moves = _play(f, game, num_games, seed, temperature)

    def common(want: list) -> int:  # how many moves each game has in common with ``want``'s, from the first, summed
        return sum(
            next((n for n, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
            for a, b in zip(moves, want, strict=True)
        )

    # the draws may go forwards or backwards through the list: compare with the reference that went the same way
    way = max(expected, key=lambda w: (common(expected[w][1]), w == "backwards"))
    want_memory, want_moves = expected[way]
    for k, (got, want) in enumerate(zip(moves, want_moves, strict=True)):
        if got != want:
            raise miss(f"game {k}'s moves {got}", f"{want}")
    _compare_samples(game, memory, want_memory)
    return "agrees"


def _compare_samples(game: Game, got: Any, expected: list) -> None:
    """The samples of all games, as a multiset (games end in any order): positions, then policies, then outcomes."""
    if not isinstance(got, (list, tuple)):
        raise Mismatch(
            got,
            core.Text(f"a list of {len(expected)} samples"),
            "return one list with the samples (encoded state, probs, outcome) of every game.",
        )
    shape = (3, game.row_count, game.column_count)
    for sample in got:
        if not isinstance(sample, (tuple, list)) or len(sample) != 3:
            raise Mismatch(
                sample,
                core.Text("(encoded state, probs, outcome)"),
                "each sample is (encoded state, probs, outcome), as game_memory makes them.",
            )
        state, _, outcome = sample
        if not isinstance(state, np.ndarray) or state.shape != shape:
            raise miss(
                f"a sample's state {show(state, 60)}",
                f"an encoded state of shape {shape}",
                "game_memory(game, spg.memory, value, player) encodes the states for you.",
            )
        if not isinstance(outcome, numbers.Real) and not (isinstance(outcome, np.ndarray) and outcome.size == 1):
            raise miss(
                f"a sample's outcome {show(outcome, 60)}",
                "a number (1, 0 or -1)",
                "the outcome is a number, seen by the position's mover.",
            )
    if len(got) != len(expected):
        raise miss(
            f"{len(got)} samples",
            f"{len(expected)} samples",
            "one sample per position of every game, added "
            "once, when its game ends: game_memory(game, spg.memory, value, player), with each game's own "
            "spg.memory.",
        )

    def key(sample: Any) -> tuple[bytes, float]:
        return np.asarray(sample[0], dtype=np.float32).tobytes(), float(np.asarray(sample[2]))

    mine, theirs = sorted(got, key=key), sorted(expected, key=key)
    stray = sum((Counter(key(s)[0] for s in got) - Counter(key(s)[0] for s in expected)).values())
    if stray:
        raise miss(
            f"{stray} of {len(got)} samples at positions the games did not search",
            "each game's positions, seen by their movers",
            "store states[i] (the canonical board the search saw) in spg.memory; game_memory encodes it.",
        )
    by_position = {key(s)[0]: s[1] for s in theirs}
    other = sum(not np.allclose(np.asarray(s[1], dtype=np.float64), by_position[key(s)[0]], atol=1e-5) for s in mine)
    if other:
        raise miss(
            f"{other} of {len(got)} samples with other probabilities",
            "the search's probabilities",
            "store probs[i], the search's probabilities of game i's board (before temperature).",
        )
    if [key(s) for s in mine] != [key(s) for s in theirs]:
        raise miss(
            _outcome_counts(mine),
            _outcome_counts(theirs),
            "each position's outcome is seen by the player "
            "who moved there: game_memory(game, spg.memory, value, player) with the player who made the last "
            "move.",
        )


def _outcome_counts(samples: list) -> str:
    values = [float(np.asarray(s[2])) for s in samples]
    return "outcomes " + ", ".join(f"{name}: {values.count(v)}" for name, v in (("+1", 1.0), ("0", 0.0), ("-1", -1.0)))


def check_parallel_self_play(learner: Any) -> Any:
    """Check ``parallel_self_play(game, search, num_games, rng, temperature)`` on a fake search that watches every
    call (``FakeParallelSearch``): each game's moves, and the samples in any order, are the library's with the same
    seed, its draws going backwards (as the video's) or forwards through the list."""

    def case(game: Game, num_games: int, seed: int, temperature: float) -> Case:
        args = (game, num_games, seed, temperature)
        forwards = partial(parallel_self_play, backwards=False)
        expected = {"backwards": _play(parallel_self_play, *args), "forwards": _play(forwards, *args)}
        call = (
            f"parallel_self_play({game!r}, fake_parallel_search, {num_games}, np.random.default_rng({seed}), "
            f"temperature={temperature})"
        )
        return Case(call, lambda f, a=args, e=expected: _run_loop(f, *a, e), "agrees", HINTS["parallel_self_play"])

    return check("parallel_self_play", learner, _library_loop, lambda: [case(*r) for r in LOOP_SETTINGS], LOOP_MISTAKES)


LOOP_MISTAKES = core.planted(
    parallel_self_play,
    {
        "kept": KEPT,
        "skips": SKIPS,
        "del forwards": "deleting spgs[i] while i counts up shifts the games after it: loop backwards (for i in "
        "reversed(range(len(spgs)))), as the video does, or build a new list of the games still playing",
        "outcome": "each position's outcome is seen by ITS mover: game_memory(game, spg.memory, value, player) gives "
        "the other player's positions game.get_opponent_value(value)",
        "shared": "each game keeps its own positions in spg.memory: one list for all games puts other games' positions "
        "into every finished game's samples",
        "wrong row": "game i's move and sample come from row i of probs (and of states), the row of ITS board: "
        "enumerate(reversed(spgs)) counts from 0 at the last game",
        "player per game": "all games move together: flip player once per step, after every game has moved",
        "no temperature": "draw each move from apply_temperature(probs[i], temperature), not from the search's "
        "probabilities as they are",
    },
)


# ---- the array exercises ----------------------------------------------------------------------------------------
def _select_inputs(rng: np.random.Generator, B: int, A: int) -> tuple[np.ndarray, ...]:
    legal = rng.random((B, A)) < 0.75
    legal[np.arange(B), rng.integers(0, A, B)] = True
    logits = rng.standard_normal((B, A))
    prior = masked_softmax(logits, legal)
    visit_count = np.where(legal, rng.integers(0, 12, (B, A)), 0).astype(np.float64)
    value_sum = np.where(visit_count > 0, rng.uniform(-1, 1, (B, A)) * visit_count, 0.0)
    parent_visits = visit_count.sum(axis=1) + 1
    return value_sum, visit_count, prior, legal, parent_visits


def _select_cases() -> list[Case]:
    """Exact ties, every legal child bad for the parent (an unmasked illegal action would win), Q against unvisited
    children, a parent with 0 visits, then seeded batches (a duplicated column makes exact ties)."""
    legal = np.array([[True] * 4, [False, True, True, True], [False, False, True, True]])
    zeros = np.zeros((3, 4))
    # every legal child looks bad for the parent: an illegal action (score 0 unmasked) must not win
    bad = (
        np.array([[0, 3.0, 2.5], [4.0, 1.5, 0]]),
        np.array([[0, 4, 3], [5, 2, 0]], dtype=np.float64),
        np.array([[0, 0.5, 0.5], [0.6, 0.4, 0]]),
        np.array([[False, True, True], [True, True, False]]),
    )
    # a visited child against unvisited ones: Q decides against the prior
    visited = (
        np.array([[-3.0, 0, 0], [0.9, 0, 0]]),
        np.array([[3, 0, 0], [1, 0, 0]], dtype=np.float64),
        np.array([[0.2, 0.4, 0.4], [0.8, 0.1, 0.1]]),
        np.ones((2, 3), dtype=bool),
    )
    named = [  # (label, (value_sum, visit_count, prior, legal, parent_visits))
        (
            "ties go to the lowest legal action",
            (zeros, zeros, legal / legal.sum(axis=1, keepdims=True), legal, np.ones(3)),
        ),
        ("every legal child is bad for the parent", (*bad, np.array([8, 8]))),
        ("Q of a visited child vs unvisited", (*visited, np.array([4, 2]))),
        ("parent_visits 0: Q alone", (*visited, np.array([0, 0]))),  # no exploration term at all
    ]
    out = [(f"{label}: select_actions({_arrays_call(args)}, C=2.0)", args, 2.0) for label, args in named]
    rng = np.random.default_rng(7)
    for k, (B, A, C) in enumerate([(5, 9, 2.0), (8, 7, 1.41), (64, 9, 2.0), (32, 7, 0.5), (16, 65, 3.0)]):
        args = _select_inputs(rng, B, A)
        if k == 2:  # duplicate a column so some rows tie exactly between two legal actions
            for array in args[:4]:
                array[:, 5] = array[:, 3]
        out.append((f"select_actions(<seeded arrays [{B}, {A}]>, C={C})", args, C))
    return [
        Case(
            call,
            partial(_run_select, args=args, C=C),
            select_actions(*args, C=C),
            HINTS["select_actions"],
            same=lambda got, exp: _same_array(got, exp) and got.dtype.kind in "iu",
        )
        for call, args, C in out
    ]


def _same_array(got: Any, expected: np.ndarray) -> bool:
    return isinstance(got, np.ndarray) and got.shape == expected.shape and np.array_equal(got, expected)


def _arrays_call(args: tuple[np.ndarray, ...]) -> str:
    names = ("value_sum", "visit_count", "prior", "legal", "parent_visits")
    shown = [show(a.astype(int) if a.dtype == bool else a) for a in args]
    return ", ".join(f"{name}={text}" for name, text in zip(names, shown, strict=True))


def _run_select(f: Callable[..., Any], args: tuple[np.ndarray, ...], C: float) -> Any:
    changed = Mismatch("an input array changed", "inputs unchanged", "compute the scores in a new array.")
    with np.errstate(all="ignore"):
        return core.on_copies(f, *args, C=C, changed=changed)


def check_select_actions(learner: Any) -> Any:
    """Check ``select_actions``: PUCT over ``[B, A]`` children statistics, illegal actions masked, ties low, against
    the library's ``puct_selection`` (``Node.select``'s rule for every row)."""
    return check("select_actions", learner, select_actions, _select_cases, SELECT_MISTAKES)


def _select(
    value_sum: Any, visit_count: Any, prior: Any, legal: Any, parent_visits: Any, C: float = 2.0, kind: str = ""
) -> Any:
    """PUCT's choice with a planted mistake ``kind``: Q's sign, 0 / 0 left as nan, the mask missing or multiplied,
    ``sqrt(parent_visits)`` without its axis; the library's ``puct_scores`` on arrays changed to make each."""
    children = _children(value_sum, visit_count, prior, legal, parent_visits)
    if kind == "q sign":
        children = replace(children, value_sum=-children.value_sum)
    if kind in ("no mask", "zero mask"):
        children = replace(children, illegal_penalty=np.zeros_like(children.illegal_penalty))
    if kind == "no axis":  # game b's sqrt(parent_visits) scales action b's column, not row b
        root = np.sqrt(children.parent_visits)
        children = replace(children, prior=children.prior * root, parent_visits=np.ones_like(root))
    score = puct_scores(children, SearchConfig(C=C))
    if kind == "no zero":
        score += np.where(legal, children.value_sum / children.visit_count, 0.0) * 0  # nan where legal 0 / 0
    if kind == "zero mask":
        score *= legal
    return score.argmax(axis=1)


SELECT_MISTAKES = core.planted(
    _select,
    {
        "q sign": "Q from the parent's view is -value_sum / visit_count (the child's values are its mover's)",
        "no zero": "an unvisited child has Q = 0: np.where(visit_count > 0, -value_sum / np.maximum(visit_count, 1), "
        "0) (0 / 0 is nan, and argmax takes a nan)",
        "no mask": "illegal actions must never win: -inf there (np.where(legal, score, -np.inf)) before the argmax",
        "zero mask": "multiplying the scores by legal gives illegal actions a score of 0, which beats negative legal "
        "ones: use np.where(legal, score, -np.inf)",
        "no axis": "parent_visits has one entry per game [B]: give it the axis of the actions, np.sqrt(parent_visits)"
        "[:, None] ([B, 1]), so each game's row uses its own parent's visits",
    },
)


def _backup_inputs(rng: np.random.Generator, B: int, N: int, L: int) -> tuple[np.ndarray, ...]:
    visit_count = rng.integers(0, 6, (B, N)).astype(np.float64)
    visit_count[:, 0] = 0
    value_sum = np.round(rng.uniform(-1, 1, (B, N)) * visit_count, 3)
    depth = rng.integers(1, L, B)
    path = np.zeros((L, B), dtype=np.intp)
    for b in range(B):
        nodes = rng.choice(np.arange(2, N), size=int(depth[b]), replace=False)
        path[0, b] = 1
        path[1 : depth[b] + 1, b] = nodes
    leaf_value = np.round(rng.uniform(-1, 1, B), 3)
    leaf_value[rng.random(B) < 0.2] = rng.choice([-1.0, 0.0, 1.0])  # finished games: win, draw, loss
    return visit_count, value_sum, path, depth, leaf_value


# hand-made paths [L, B] and depths [B] (a game not searching, a leaf at the root, a path to the last level)
HAND_PATHS = [
    (np.array([[1], [3], [2], [4], [0]], dtype=np.intp), np.array([3])),
    (np.array([[1, 1, 1], [2, 3, 0], [0, 2, 0]], dtype=np.intp), np.array([1, 2, -1])),
    (np.array([[1, 1], [0, 5], [0, 6]], dtype=np.intp), np.array([0, 2])),
]


def _backup_cases() -> list[Case]:
    """Hand-made paths, a game not searching (depth -1), finished games' values -1/0/+1, seeded batches."""
    # one game, path root(1) -> 3 -> 2 -> 4: the leaf gets +v, node 2 -v, node 3 +v, the root -v
    out = [
        (
            "one game, path [1, 3, 2, 4], leaf_value 0.5",
            (np.array([[0, 1, 0, 0, 0.0]]), np.zeros((1, 5)), *HAND_PATHS[0], np.array([0.5])),
        ),
        (
            "depths 1 and 2 and a game not searching (depth -1)",
            (np.zeros((3, 4)), np.zeros((3, 4)), *HAND_PATHS[1], np.array([-1.0, 0.25, 0.7])),
        ),
    ]
    rng = np.random.default_rng(3)
    for B, N, L in [(4, 8, 4), (16, 20, 7), (64, 30, 10)]:
        out.append((f"<seeded arrays: {B} games, {N} nodes, paths of up to {L} levels>", _backup_inputs(rng, B, N, L)))
    cases = []
    for label, args in out:
        expected = (args[0].copy(), args[1].copy())
        backup(*expected, *args[2:])
        path, depth, leaf_value = (show(a) for a in args[2:])
        call = f"backup(visit_count, value_sum, path, depth, leaf_value), {label}"
        call += "" if "seeded" in label else f": path={path}, depth={depth}, leaf_value={leaf_value}"
        cases.append(Case(call, partial(_run_backup, args=args, expected=expected), expected, HINTS["backup"]))
    return cases


def _run_backup(f: Callable[..., Any], args: tuple[np.ndarray, ...], expected: tuple[np.ndarray, np.ndarray]) -> tuple:
    visit_count, value_sum = args[0].copy(), args[1].copy()
    returned = f(visit_count, value_sum, *(a.copy() for a in args[2:]))
    untouched = np.array_equal(visit_count, args[0]) and np.array_equal(value_sum, args[1])
    if untouched and not (np.array_equal(expected[0], args[0]) and np.array_equal(expected[1], args[1])):
        made = " (yours returned new arrays instead)" if returned is not None else ""
        raise Mismatch(
            (visit_count, value_sum),
            expected,
            f"the visit_count and value_sum you were given did not "
            f"change{made}: backup works in place, on the tree's own arrays, which the search reads "
            f"afterwards; write into them (visit_count[b, node] += 1), do not copy them",
        )
    return visit_count, value_sum


def _step_cases(reference: Callable[..., np.ndarray], name: str) -> list[Case]:
    """Cases for the backup's two steps: ``HAND_PATHS`` and seeded batches; ``reference(path, depth)`` gives the
    expected ``[L, B]`` array."""
    rng = np.random.default_rng(5)
    seeded = [_backup_inputs(rng, B, N, L)[2:4] for B, N, L in [(4, 8, 4), (16, 20, 7)]]
    cases = []
    for path, depth in [*HAND_PATHS, *seeded]:
        expected = reference(path, depth)
        run = partial(_run_step, path=path, depth=depth, kind=expected.dtype.kind)
        call = f"{name}(path, depth) with path={show(path)}, depth={show(depth)}"
        cases.append(Case(call, run, expected, hint=HINTS[name], same=_same_array))
    return cases


def _run_step(f: Callable[..., Any], path: np.ndarray, depth: np.ndarray, kind: str) -> Any:
    hint = "compute a new array; do not write into path or depth"
    got = core.on_copies(f, path, depth, changed=Mismatch("path or depth changed", "both untouched", hint))
    if not isinstance(got, np.ndarray):
        raise Mismatch(
            got, core.Text("a numpy array [L, B]"), "return a numpy array with one row per level, one column per game"
        )
    if got.shape != path.shape:
        raise miss(
            f"shape {got.shape}",
            f"shape {path.shape} (levels, games)",
            "one row per level of path, one column per game: compare np.arange(len(path))[:, None] "
            "with depth[None, :] (broadcasting)",
        )
    if kind == "b" and got.dtype != bool:
        raise miss(f"dtype {got.dtype}", "dtype bool", "a comparison gives booleans: levels <= depth")
    return got.astype(float) if kind == "f" else got


def check_on_path(learner: Any) -> Any:
    """Check ``on_path(path, depth)``: ``[L, B]`` booleans, True at the levels ``0..depth[b]`` of game ``b``."""
    return check("on_path", learner, on_path, lambda: _step_cases(on_path, "on_path"), ON_PATH_MISTAKES)


def check_level_signs(learner: Any) -> Any:
    """Check ``level_signs(path, depth)``: +1 at each game's leaf level, alternating up to the root."""
    return check("level_signs", learner, level_signs, lambda: _step_cases(level_signs, "level_signs"), SIGN_MISTAKES)


ON_PATH_MISTAKES = [  # the library's on_path with one input or output changed, or the node numbers read instead
    Mistake(
        "the leaf's own level is on the path: levels 0..depth[b], so levels <= depth (not <)",
        lambda path, depth: on_path(path, np.asarray(depth) - 1),
    ),
    Mistake(
        "read depth, not the node numbers: a game that did not search (depth -1) still has its root in path[0]; "
        "a level is on the path when level <= depth[b]",
        lambda path, depth: np.asarray(path) > 0,
    ),
    Mistake(
        "rows are levels and columns games: np.arange(len(path))[:, None] <= depth[None, :] gives [L, B]",
        lambda path, depth: on_path(path, depth).T,
    ),
]
SIGN_MISTAKES = [  # the library's level_signs with one input or output changed
    Mistake(
        "count from the LEAF, not from the root: the leaf's level depth[b] gets +1, so the sign depends on "
        "depth[b] - level",
        lambda path, depth: level_signs(path, np.zeros_like(depth)),
    ),
    Mistake(
        "the leaf gets +leaf_value (its own player's view): +1 where depth[b] - level is even",
        lambda path, depth: -level_signs(path, depth),
    ),
    Mistake(
        "a sign is +1 or -1, not the parity 0 or 1: +1 where depth[b] - level is even, -1 where it is odd",
        lambda path, depth: (level_signs(path, depth) < 0).astype(float),
    ),
]


def check_backup(learner: Any) -> Any:
    """Check ``backup``: in place on ``visit_count, value_sum [B, N]`` along ``path [L, B]`` to ``depth [B]``, against
    the library's ``batched_mcts.backup`` (``Node.backpropagate``'s add, flip the sign, go to the parent)."""
    return check("backup", learner, backup, _backup_cases, BACKUP_MISTAKES)


def _backup_without_flip(visit_count: Any, value_sum: Any, path: Any, depth: Any, leaf_value: Any) -> None:
    """The library's ``backup`` level by level, each level a leaf of its own: the sign never flips."""
    for level in range(len(path)):
        backup(visit_count, value_sum, path[level : level + 1], np.where(np.asarray(depth) >= level, 0, -1), leaf_value)


def _backup_every_level(visit_count: Any, value_sum: Any, path: Any, depth: Any, leaf_value: Any) -> None:
    """The solution's ``backup`` with every level of a searching game on the path, those below its leaf too."""
    path, depth = np.asarray(path), np.asarray(depth)
    mask = on_path(path, depth) | (depth >= 0)[None, :]
    games = np.broadcast_to(np.arange(len(depth)), path.shape)
    visit_count[games[mask], path[mask]] += 1
    value_sum[games[mask], path[mask]] += (level_signs(path, depth) * np.asarray(leaf_value))[mask]


BACKUP_MISTAKES = [  # the library's backup with one input changed
    Mistake("flip the value's sign at every level up: the players alternate", _backup_without_flip),
    Mistake(
        "the leaf itself gets +leaf_value (its player's view); the sign flips from its parent on",
        lambda n, w, p, d, v: backup(n, w, p, d, -np.asarray(v)),
    ),
    Mistake(
        "only levels 0..depth[b] are on the path; below the leaf path holds node 0, which stays untouched",
        lambda n, w, p, d, v: backup(n, w, p, np.where(np.asarray(d) >= 0, len(p) - 1, -1), v),
    ),
    Mistake(
        "the levels below a game's leaf (level > depth[b]) are not on its path: path holds node 0 there, the root, "
        "which got its visit at level 0 already; mask with on_path(path, depth) alone",
        _backup_every_level,
    ),
    Mistake(
        "a game with depth -1 is not searching: leave its rows alone",
        lambda n, w, p, d, v: backup(n, w, p, np.maximum(d, 0), v),
    ),
]
