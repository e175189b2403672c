"""Self-play: the games AlphaZero learns from. The one place they are played.

The trainers, their worker processes and the benchmarks all play self-play games here, in one of two ways:

- **serial** (``SerialSelfPlay``, ``play_serial``): one game at a time, ``AlphaMCTS`` with one state per network
  call, as the course writes it;
- **batched** (``BatchedSelfPlay``, ``play_batched``): ``slots`` games in flight, searched together by
  ``BatchedMCTS`` (one network call per simulation for every live game); a finished game's slot takes the
  next game while games remain, so no game waits for another.

Both record each move as ``(canonical state, search policy, mover, root value)`` and turn a finished game into
samples with ``game_samples``; the value target of every position is the game's outcome seen by its mover
(``games.outcome.outcome_for``), mixed with the root's search value when ``value_target_q_weight`` is set. A
sample is ``(encoded_state float32 [3, R, C], policy float32 [A], value float32)``. Searches and move choices are
seeded from ``derived_seed(*seed_parts, 1)`` and ``(..., 2)``; the schedule's options draw from their own
generators, made only when switched on (so the defaults play exactly the course's games): playout cap
randomisation ``(..., 3)``, random openings ``(..., 4)``.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from alphazero_lib.config import TrainConfig
from alphazero_lib.games.base import Game
from alphazero_lib.games.outcome import outcome_for, winner_of
from alphazero_lib.searches import BatchedSearch
from alphazero_lib.selection import select_action, temperature_at

Sample = tuple[np.ndarray, np.ndarray, float]
Move = tuple[np.ndarray, np.ndarray, int, float]  # (canonical state [R, C], search policy [A], mover, root value q)


def derived_seed(*parts: int) -> int:
    """A 32-bit seed from several ints (run seed, iteration, purpose), stable across runs and resumes."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


def game_samples(
    game: Game, history: list, value: float, last_player: int, augment: bool, q_weight: float = 0.0
) -> list[Sample]:
    """Samples for one finished game from its ``(canonical state, search policy, mover[, root value q])`` history.

    ``value`` is the result for ``last_player`` (who made the final move); with ``augment`` every position is
    stored under each of the board's symmetries (``game.get_symmetries``). The value target is the outcome ``z``
    for the mover, or ``(1 - q_weight) * z + q_weight * q`` (the moves then need their root value ``q``).
    """
    samples: list[Sample] = []
    for move in history:
        state, probs, player = move[:3]
        # ALGO LOGIC: the value target is the final outcome seen by the player who moved in this position
        outcome = value_target(outcome_for(player, value, last_player), move, q_weight)
        pairs = game.get_symmetries(state, probs) if augment else [(state, probs)]
        for sym_state, sym_probs in pairs:
            encoded = game.get_encoded_state(sym_state)
            samples.append((encoded, np.asarray(sym_probs, dtype=np.float32), np.float32(outcome)))
    return samples


def value_target(outcome: float, move: tuple, q_weight: float) -> float:
    """A position's value target: the game's ``outcome`` for its mover, mixed with the search's own value of the
    position, ``(1 - q_weight) * z + q_weight * q`` (``q`` the root value, ``move[3]`` of a history's move)."""
    return (1.0 - q_weight) * outcome + q_weight * float(move[3]) if q_weight else outcome


def random_opening(game: Game, rng: np.random.Generator, max_moves: int) -> tuple[np.ndarray, int, int]:
    """A self-play game's start: ``(state, player to move, moves played)`` after a uniformly drawn ``0..max_moves``
    random legal moves, never one that ends the game (the opening stops early where every move would)."""
    state, player = game.get_initial_state(), 1
    played = 0
    for _ in range(int(rng.integers(0, max_moves + 1))):
        moves = []
        for action in np.flatnonzero(game.get_valid_moves(state, player)):
            _, over = game.get_value_and_terminated(game.get_next_state(state, int(action), player), int(action))
            if not over:
                moves.append(int(action))
        if not moves:
            break
        state = game.get_next_state(state, int(rng.choice(moves)), player)
        player, played = game.get_opponent(player), played + 1
    return state, player, played


class Schedule:
    """The self-play schedule's random choices, each from its own generator made only when switched on: random
    openings (``opening_moves``) and playout cap randomisation (``full_search_fraction``, ``cheap_searches``)."""

    def __init__(self, config: TrainConfig, seed_parts: tuple[int, ...]) -> None:
        self.config = config
        capped = config.full_search_fraction < 1
        self.cap_rng = np.random.default_rng(derived_seed(*seed_parts, 3)) if capped else None
        self.opening_rng = np.random.default_rng(derived_seed(*seed_parts, 4)) if config.opening_moves else None

    def new_game(self, game: Game) -> tuple[np.ndarray, int, int]:
        """``(state, player, moves played)`` of a new game: the empty board, or a random opening."""
        if self.opening_rng is None:
            return game.get_initial_state(), 1, 0
        return random_opening(game, self.opening_rng, self.config.opening_moves)

    def full_searches(self, count: int) -> np.ndarray:
        """``[count]`` bool: which of the next moves get the full search (and are recorded)."""
        if self.cap_rng is None:
            return np.ones(count, dtype=bool)
        return self.cap_rng.random(count) < self.config.full_search_fraction

    def move_probs(self, output: Any, probs: np.ndarray, index: Any = ()) -> np.ndarray:
        """The distribution a move is drawn from: the visit shares (``probs`` without a ``SearchOutput``) or the
        improved policy, as ``move_selection`` says."""
        if output is None:
            return probs
        if self.config.move_selection == "improved_policy":
            return output.improved_policy[index]
        return output.visit_shares[index]


@dataclass
class GameStats:
    """Counts of finished self-play games."""

    games: int = 0
    positions: int = 0
    first_player_wins: int = 0
    second_player_wins: int = 0
    draws: int = 0

    def add(self, winner: int, num_moves: int) -> None:
        """Count one finished game: ``winner`` 1, -1 or 0 (a draw), ``num_moves`` positions searched."""
        self.games += 1
        self.positions += int(num_moves)
        key = {1: "first_player_wins", -1: "second_player_wins", 0: "draws"}[int(winner)]
        setattr(self, key, getattr(self, key) + 1)

    def merge(self, other: GameStats | dict[str, int]) -> None:
        """Add another count (a worker's) to this one."""
        for key, value in (other if isinstance(other, dict) else dataclasses.asdict(other)).items():
            setattr(self, key, getattr(self, key) + int(value))

    def to_dict(self) -> dict[str, int]:
        """Plain ``dict`` of the counts (the history records hold these keys)."""
        return dataclasses.asdict(self)


@dataclass
class SelfPlayResult:
    """What a batch of self-play games produced."""

    samples: list[Sample] = field(default_factory=list)
    """Every finished game's samples, in the order the games finished."""
    games: GameStats = field(default_factory=GameStats)
    """Results and lengths of the finished games."""
    search: dict[str, Any] = field(default_factory=dict)
    """The searches' statistics (positions, simulations, network evaluations and calls, seconds)."""


def play_self_play_game(
    game: Game,
    search: Callable[[np.ndarray], np.ndarray],
    rng: np.random.Generator,
    temperature: float,
    temperature_moves: int | None = None,
    augment: bool = False,
) -> tuple[list[Sample], int, int]:
    """One serial game, every move drawn from ``search(canonical_state) -> probs [A]`` with temperature.

    Returns ``(samples, winner, number of moves)``. The course's ``self_play``, played by ``SerialSelfPlay``.
    """
    games = SerialSelfPlay.around(game, search, rng, temperature, temperature_moves, augment)
    while not games.step():
        pass
    counts = games.result.games
    winner = 1 if counts.first_player_wins else -1 if counts.second_player_wins else 0
    return games.result.samples, winner, counts.positions


class SerialSelfPlay:
    """Serial self-play with ``AlphaMCTS`` (one state per network call): ``play(n)`` plays whole games,
    ``step()`` one move (the benchmark plays for a time). ``around`` plays with any search function."""

    def __init__(self, game: Game, model: Any, config: TrainConfig, seed_parts: tuple[int, ...]) -> None:
        from alphazero_lib.alpha_mcts import AlphaMCTS

        mcts = AlphaMCTS(game, model, config.search_config(seed=derived_seed(*seed_parts, 1)))
        rng = np.random.default_rng(derived_seed(*seed_parts, 2))
        self.mcts = mcts  # its statistics are added up after every search; its output gives q and the moves
        self.schedule = Schedule(config, seed_parts)
        self.q_weight = config.value_target_q_weight
        self._setup(game, mcts.search, rng, config.temperature, config.temperature_moves, config.augment_symmetries)

    @classmethod
    def around(
        cls,
        game: Game,
        search: Callable[[np.ndarray], np.ndarray],
        rng: np.random.Generator,
        temperature: float,
        temperature_moves: int | None = None,
        augment: bool = False,
    ) -> SerialSelfPlay:
        """Self-play whose moves come from ``search(canonical_state) -> probs [A]`` (no search statistics; the
        course's targets and schedule)."""
        games = cls.__new__(cls)
        games.mcts, games.schedule, games.q_weight = None, Schedule(TrainConfig(), ()), 0.0
        games._setup(game, search, rng, temperature, temperature_moves, augment)
        return games

    def _setup(
        self,
        game: Game,
        search: Callable[[np.ndarray], np.ndarray],
        rng: np.random.Generator,
        temperature: float,
        temperature_moves: int | None,
        augment: bool,
    ) -> None:
        self.game, self.search, self.rng, self.augment = game, search, rng, augment
        self.temperature, self.temperature_moves = temperature, temperature_moves
        self.result = SelfPlayResult(search={"positions": 0, "simulations": 0, "network_evaluations": 0})
        self._new_game()

    def _new_game(self) -> None:
        self.state, self.player, self.moves = self.schedule.new_game(self.game)
        self.opening = self.moves  # random opening moves (not searched)
        self.history: list[Move] = []

    def step(self) -> bool:
        """Search and play one move of the current game; True when that move finished it (a new one starts)."""
        game = self.game
        # ALGO LOGIC: search from the mover's view, remember (state, search policy, mover, q), sample a move
        canonical = game.change_perspective(self.state, self.player)
        full = bool(self.schedule.full_searches(1)[0])  # playout cap randomisation: a cheap move is not recorded
        output = None
        if self.mcts is not None:
            budget = None if full else self.schedule.config.cheap_searches
            probs = self.mcts.search(canonical, num_simulations=budget)
            output = self.mcts.last_output
            stats, search = self.mcts.last_search_stats, self.result.search
            search["positions"] += 1
            search["simulations"] += stats.num_searches
            search["network_evaluations"] += stats.network_evaluations
        else:
            probs = self.search(canonical)
        if full:
            self.history.append((canonical, probs, self.player, output.root_value if output is not None else 0.0))
        temperature = temperature_at(self.temperature, self.temperature_moves, self.moves)
        self.moves += 1
        action = select_action(self.schedule.move_probs(output, probs), temperature, self.rng)
        self.state = game.get_next_state(self.state, action, self.player)
        value, is_terminal = game.get_value_and_terminated(self.state, action)
        if not is_terminal:
            self.player = game.get_opponent(self.player)
            return False
        self.result.games.add(winner_of(value, self.player), self.moves - self.opening)
        self.result.samples += game_samples(game, self.history, value, self.player, self.augment, self.q_weight)
        self._new_game()
        return True

    def play(self, num_games: int, on_game_over: Callable[[], None] | None = None) -> SelfPlayResult:
        """Play ``num_games`` whole games; ``on_game_over()`` after each (progress)."""
        for _ in range(num_games):
            while not self.step():
                pass
            if on_game_over is not None:
                on_game_over()
        return self.result


class BatchedSelfPlay:
    """``slots`` games in flight searched together by ``BatchedMCTS``; ``step()`` plays one move in each.

    ``total`` games are played in all (None: a finished game is always replaced, for benchmarks). The search
    evaluates through ``evaluator`` (a ``FastEvaluator``); ``reuse_tree`` keeps the subtree of the move played.
    Other hands can take three parts (the course's capstone, ``alphazero_lib.capstone``): ``mcts``, a
    ready search with ``run``; ``make_samples``, ``game_samples``'s signature; ``choose``, ``select_action``'s.
    """

    def __init__(
        self,
        game: Game,
        evaluator: Any,
        config: TrainConfig,
        slots: int,
        seed_parts: tuple[int, ...],
        total: int | None = None,
        reuse_tree: bool = False,
        mcts: BatchedSearch | None = None,
        make_samples: Callable[..., list] | None = None,
        choose: Callable[[np.ndarray, float, np.random.Generator], int] | None = None,
    ) -> None:
        from alphazero_lib.batched_mcts import BatchedMCTS

        self.game, self.config, self.slots, self.total = game, config, slots, total
        if mcts is None:
            mcts = BatchedMCTS(
                game, evaluator, config.search_config(seed=derived_seed(*seed_parts, 1)), reuse_tree=reuse_tree
            )
        self.mcts = mcts
        self.make_samples = make_samples if make_samples is not None else game_samples
        self.choose = choose if choose is not None else select_action
        self.rng = np.random.default_rng(derived_seed(*seed_parts, 2))
        self.schedule = Schedule(config, seed_parts)
        self.states = np.stack([game.get_initial_state()] * slots)  # [P, R, C] absolute states
        self.players = np.ones(slots, dtype=np.int64)  # the side to move in each slot
        self.moves = np.zeros(slots, dtype=np.int64)  # moves played in each slot's game
        self.opening = np.zeros(slots, dtype=np.int64)  # of which random opening moves (not searched)
        for i in range(slots):
            self._new_game(i)
        self.histories: list[list[Move]] = [[] for _ in range(slots)]
        self.live = np.ones(slots, dtype=bool)
        self.started = slots
        self.games = GameStats()
        self.samples: list[Sample] = []

    def _new_game(self, i: int) -> None:
        self.states[i], self.players[i], self.moves[i] = self.schedule.new_game(self.game)
        self.opening[i] = self.moves[i]

    @property
    def done(self) -> bool:
        """True when every game has finished (never, with ``total=None``)."""
        return not self.live.any()

    def step(self, on_game_over: Callable[[], None] | None = None) -> None:
        """One batched search for every live game, then one move in each; finished games are counted and
        their slots refilled (or retired once ``total`` games have started)."""
        game, config = self.game, self.config
        # ALGO LOGIC: one batched search for every live game, from each mover's view
        canonical = (self.states * self.players[:, None, None]).astype(self.states.dtype)
        full = self.schedule.full_searches(self.slots)  # playout cap randomisation: cheap moves are not recorded
        budget = None if full.all() else np.where(full, config.search.num_searches, config.cheap_searches)
        output = self.mcts.run(canonical, active=self.live, num_simulations=budget)
        probs = output.policy
        played = np.full(self.slots, -1)
        for i in np.flatnonzero(self.live):
            player, history = int(self.players[i]), self.histories[i]
            if full[i]:
                history.append((canonical[i], probs[i], player, output.root_value[i]))
            temperature = temperature_at(config.temperature, config.temperature_moves, int(self.moves[i]))
            self.moves[i] += 1
            action = self.choose(self.schedule.move_probs(output, probs, i), temperature, self.rng)
            self.states[i] = game.get_next_state(self.states[i], action, player)
            value, is_terminal = game.get_value_and_terminated(self.states[i], action)
            if not is_terminal:
                played[i] = action
                self.players[i] = game.get_opponent(player)
                continue
            self.games.add(winner_of(value, player), int(self.moves[i] - self.opening[i]))
            q_weight = config.value_target_q_weight
            self.samples += self.make_samples(game, history, value, player, config.augment_symmetries, q_weight)
            if on_game_over is not None:
                on_game_over()
            if self.total is None or self.started < self.total:  # a new game takes the slot; the others go on
                self._new_game(i)
                self.histories[i] = []
                self.started += 1
            else:
                self.live[i] = False
        self.mcts.advance(played)  # with reuse_tree, keep each continuing game's subtree

    def result(self) -> SelfPlayResult:
        """The samples, game counts and search statistics so far."""
        return SelfPlayResult(self.samples, self.games, self.mcts.stats.to_dict())


def play_serial(
    game: Game,
    model: Any,
    config: TrainConfig,
    num_games: int,
    seed_parts: tuple[int, ...],
    on_game_over: Callable[[], None] | None = None,
) -> SelfPlayResult:
    """``num_games`` serial self-play games of ``model`` (searched on one torch thread on the CPU)."""
    from alphazero_lib.utils import one_cpu_thread

    start = time.perf_counter()
    with one_cpu_thread(model):
        result = SerialSelfPlay(game, model, config, seed_parts).play(num_games, on_game_over)
    result.search["search_seconds"] = round(time.perf_counter() - start, 3)
    return result


def play_batched(
    game: Game,
    model: Any,
    config: TrainConfig,
    num_games: int,
    slots: int,
    seed_parts: tuple[int, ...],
    on_game_over: Callable[[], None] | None = None,
) -> SelfPlayResult:
    """``num_games`` batched self-play games of ``model``, ``slots`` in flight, on this process.

    The network runs through a ``FastEvaluator`` in ``config.inference_mode``; ``config.reuse_tree`` keeps
    subtrees between moves.
    """
    from alphazero_lib.inference import FastEvaluator

    evaluator = FastEvaluator(model, config.inference_mode, batch_size=slots)
    games = BatchedSelfPlay(game, evaluator, config, slots, seed_parts, total=num_games, reuse_tree=config.reuse_tree)
    while not games.done:
        games.step(on_game_over)
    return games.result()


def canonical_states(game: Game, samples: list[Sample]) -> np.ndarray:
    """The canonical states ``[N, R, C]`` (the mover's pieces 1) of samples, read back from their encoded planes."""
    planes = np.stack([sample[0] for sample in samples])
    return (planes[:, 2] - planes[:, 0]).astype(game.get_initial_state().dtype)


def search_positions(
    game: Game, model: Any, config: TrainConfig, states: np.ndarray, seed_parts: tuple[int, ...]
) -> tuple[np.ndarray, dict[str, Any]]:
    """Reanalyse: self-play's search (``config``'s, seeded from ``derived_seed(*seed_parts, 1)``) of canonical
    ``states [N, R, C]`` with ``model``, ``num_parallel_games`` at a time; the policy targets ``[N, A]`` it gives, as
    self-play records them, and its statistics."""
    from alphazero_lib.batched_mcts import BatchedMCTS
    from alphazero_lib.inference import FastEvaluator

    start = time.perf_counter()
    slots = max(1, min(len(states), config.num_parallel_games))
    evaluator = FastEvaluator(model, config.inference_mode, batch_size=slots)
    mcts = BatchedMCTS(game, evaluator, config.search_config(seed=derived_seed(*seed_parts, 1)))
    policies = np.zeros((len(states), game.action_size), dtype=np.float32)
    chunk = np.zeros((slots, game.row_count, game.column_count), dtype=states.dtype)
    for first in range(0, len(states), slots):
        found = states[first : first + slots]
        chunk[: len(found)] = found
        chunk[len(found) :] = 0
        active = np.arange(slots) < len(found)  # the last chunk's empty slots are not searched
        policies[first : first + len(found)] = mcts.run(chunk, active=active).policy[: len(found)]
    search = mcts.stats.to_dict()
    search["search_seconds"] = round(time.perf_counter() - start, 3)
    return policies, search


def worker_shares(config: TrainConfig, iteration: int, workers: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """Each worker's ``(games, slots in flight, seed parts)`` for one iteration of batched self-play.

    Games are shared as evenly as they go (the first workers take one more); worker ``w`` seeds from
    ``(seed, iteration, 5, w)``. Local worker processes and any other executor use the same shares, so the same
    seed and number of workers give the same samples.
    """
    total = config.games_per_iteration
    shares = []
    for w in range(workers):
        games = total // workers + (w < total % workers)
        slots = min(games, math.ceil(config.num_parallel_games / workers))
        shares.append((games, slots, (config.seed, iteration, 5, w)))  # purpose 5: worker w's self-play
    return shares


def join_results(results: list[tuple[list[Sample], dict[str, int], dict[str, Any]]]) -> SelfPlayResult:
    """The workers' ``(samples, game counts, search statistics)`` joined in worker order."""
    joined = SelfPlayResult()
    for samples, games, _ in results:
        joined.samples += samples
        joined.games.merge(games)
    joined.search = summed_search([search for _, _, search in results])
    joined.search["workers"] = len(results)
    return joined


def summed_search(searches: list[dict[str, Any]]) -> dict[str, Any]:
    """Several workers' search statistics added up, ``evaluations_per_position`` taken from the sums."""
    total: dict[str, Any] = {}
    for search in searches:
        for key, value in search.items():
            total[key] = total.get(key, 0) + value
    total["evaluations_per_position"] = total["network_evaluations"] / max(total["positions"], 1)
    return total
