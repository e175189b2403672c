"""Players: anything with a ``name`` and ``get_action(state, player) -> action``.

``state`` is absolute (1 = the first player's pieces) and ``player`` is the side to move (1 or -1).
Players that draw random numbers take a ``seed`` so that matches can be replayed.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import torch

from alphazero_lib.alpha_mcts import AlphaMCTS
from alphazero_lib.config import MCTSConfig, SearchConfig
from alphazero_lib.games.base import Game
from alphazero_lib.games.othello import Othello
from alphazero_lib.games.tictactoe import TicTacToe
from alphazero_lib.inference import evaluate, masked_softmax
from alphazero_lib.mcts import MCTS
from alphazero_lib.searches import SerialSearch
from alphazero_lib.selection import select_action


class Player:
    """The player interface; subclasses choose an action for ``player`` in an absolute ``state``.

    Every subclass's ``get_action`` first checks its arguments (``check_turn``): a state of the game's shape
    and values, ``player`` 1 or -1, and a game that is not over; it raises one ``ValueError`` that says which.
    """

    name = "player"

    def __init__(self, game: Game) -> None:
        self.game = game

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        method = cls.__dict__.get("get_action")
        if method is not None and not getattr(method, "_checks_turn", False):
            cls.get_action = _checking_turn(method)

    def check_turn(self, state: np.ndarray, player: int) -> np.ndarray:
        """``state`` as an array, after checking it is a position where ``player`` (1 or -1) has a move to choose."""
        if isinstance(player, bool) or player not in (1, -1):
            raise ValueError(f"{self.name}: player must be 1 or -1 (the side to move), got {player!r}")
        state = self.game.check_state(state)
        if self.game.is_over(state):
            raise ValueError(f"{self.name}: the game is over in this position; there is no move to choose")
        return state

    def get_action(self, state: np.ndarray, player: int) -> int:
        raise NotImplementedError

    def reset(self) -> None:
        """Forget anything kept between moves (called before each game)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def _checking_turn(get_action: Callable[..., int]) -> Callable[..., int]:
    """``get_action`` with ``Player.check_turn`` in front (the public boundary: searches inside are not re-checked)."""

    @functools.wraps(get_action)
    def checked(self: Player, state: np.ndarray, player: int) -> int:
        self.check_turn(state, player)
        threads = getattr(self, "num_threads", None)
        model = getattr(self, "model", None)
        if threads is None or model is None or torch.get_num_threads() == threads or not _on_cpu(model):
            return get_action(self, state, player)
        before = torch.get_num_threads()
        torch.set_num_threads(threads)  # batch-1 inference: extra threads spin-wait on a busy machine
        try:
            return get_action(self, state, player)
        finally:
            torch.set_num_threads(before)

    checked._checks_turn = True  # type: ignore[attr-defined]
    return checked


def _on_cpu(model: Any) -> bool:
    try:
        return next(model.parameters()).device.type == "cpu"
    except (AttributeError, StopIteration, TypeError):
        return False


def check_model_game(game: Game, model: Any) -> None:
    """Raise ``ValueError`` when ``model.game`` (set by ``ResNet`` and ``load_model``) is another game."""
    trained_for = getattr(model, "game", None)
    if isinstance(trained_for, Game) and trained_for != game:
        raise ValueError(f"this model plays {trained_for!r}, not {game!r}; load weights trained for {game!r}")


def random_best(scores: dict[int, float], rng: np.random.Generator) -> int:
    """A random action among those with the highest score."""
    best = max(scores.values())
    return int(rng.choice([a for a, s in scores.items() if s == best]))


class RandomPlayer(Player):
    """Plays a uniformly random legal move."""

    name = "random"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        super().__init__(game)
        self.rng = np.random.default_rng(seed)

    def get_action(self, state: np.ndarray, player: int) -> int:
        return int(self.rng.choice(self.game.legal_actions(state, player)))


class HumanPlayer(Player):
    """A person at the terminal; asks again, with the reason, until the move is legal."""

    name = "human"

    def __init__(
        self, game: Game, input_fn: Callable[[str], str] | None = None, output_fn: Callable[[str], Any] | None = None
    ) -> None:
        super().__init__(game)
        self.input_fn, self.output_fn = input_fn, output_fn  # None: the built-in input and print

    def get_action(self, state: np.ndarray, player: int) -> int:
        ask, tell = self.input_fn or input, self.output_fn or print
        legal = self.game.legal_actions(state, player)
        labels = ", ".join(self.game.action_to_string(a) for a in legal)
        while True:
            try:
                text = ask(f"your move ({labels}): ")
            except EOFError:  # input closed (Ctrl-D): stop the game as an interrupt would
                raise KeyboardInterrupt from None
            try:
                action = self.game.string_to_action(text)
                self.game.get_next_state(state, action, player)  # raises ValueError, with the reason, if illegal
                return action
            except ValueError as err:
                tell(f"illegal move: {err}")


# ---- network players (no search) -------------------------------------------------------------
class NetworkPlayer(Player):
    """A player that asks a policy-value network about canonical states (through ``inference.evaluate``).

    ``num_threads`` (default 1): torch CPU threads while it chooses a move; None leaves torch's setting alone.
    """

    #: Torch CPU threads for one move (small batches; more threads spin-wait when the machine is busy).
    num_threads: int | None = 1

    def __init__(self, game: Game, model: Any, seed: int | None = None) -> None:
        super().__init__(game)
        check_model_game(game, model)
        self.model = model
        self.rng = np.random.default_rng(seed)

    def policy(self, state: np.ndarray, player: int) -> np.ndarray:
        """The network's move probabilities ``[A]`` for ``player`` (legal moves only)."""
        canonical = self.game.change_perspective(state, player)
        logits, _ = evaluate(self.model, self.game.get_encoded_state(canonical)[None])
        return masked_softmax(logits[0], self.game.get_valid_moves(canonical))


class PolicyPlayer(NetworkPlayer):
    """Plays the network's most likely move (``sample=False``) or draws one from its policy (``sample=True``)."""

    def __init__(self, game: Game, model: Any, sample: bool = False, seed: int | None = None) -> None:
        super().__init__(game, model, seed)
        self.sample = sample
        self.name = "sampled" if sample else "policy"

    def get_action(self, state: np.ndarray, player: int) -> int:
        return select_action(self.policy(state, player), 1.0 if self.sample else 0.0, self.rng)


class ValuePlayer(NetworkPlayer):
    """One-ply lookahead: the move whose resulting position the value head likes best (rules score game ends)."""

    name = "value"

    def get_action(self, state: np.ndarray, player: int) -> int:
        canonical = self.game.change_perspective(state, player)
        scores: dict[int, float] = {}
        pending: dict[int, np.ndarray] = {}  # action -> child state from the opponent's view
        for action in self.game.legal_actions(canonical):
            child = self.game.get_next_state(canonical, action, 1)
            value, terminal = self.game.get_value_and_terminated(child, action)
            if terminal:
                scores[action] = value
            else:
                pending[action] = self.game.change_perspective(child, -1)
        if pending:
            _, values = evaluate(self.model, self.game.get_encoded_state(np.stack(list(pending.values()))))
            scores.update({a: -float(v) for a, v in zip(pending, values, strict=True)})
        return random_best(scores, self.rng)


class MonteCarloPlayer(NetworkPlayer):
    """Neuromatch's Monte-Carlo player: the policy's ``top_k`` moves, each scored by policy-sampled rollouts.

    Every rollout plays the move, then samples moves from the network's policy for up to ``depth`` plies;
    a finished game scores by the rules, an unfinished one by the value head at the cut-off. The move with
    the best mean over ``num_rollouts`` rollouts is played.
    """

    name = "mc"

    def __init__(
        self, game: Game, model: Any, top_k: int = 3, num_rollouts: int = 10, depth: int = 5, seed: int | None = None
    ) -> None:
        super().__init__(game, model, seed)
        if top_k < 1 or num_rollouts < 1 or depth < 0:
            raise ValueError(f"need top_k >= 1, num_rollouts >= 1, depth >= 0; got {top_k}, {num_rollouts}, {depth}")
        if num_rollouts > 100_000 or depth > 1_000:
            raise ValueError(
                f"need num_rollouts <= 100,000 and depth <= 1,000 (every rollout is a game played out move by move); "
                f"got {num_rollouts:,} and {depth:,}"
            )
        self.top_k, self.num_rollouts, self.depth = top_k, num_rollouts, depth

    def rollout_value(self, canonical: np.ndarray, action: int) -> float:
        """Mean result of the rollouts after ``action`` in a canonical state, from the mover's view."""
        game = self.game
        after = game.get_next_state(canonical, action, 1)
        value, terminal = game.get_value_and_terminated(after, action)
        if terminal:
            return value
        total = 0.0
        for _ in range(self.num_rollouts):
            state, sign = game.change_perspective(after, -1), -1  # sign: the rollout mover's view -> ours
            for _ in range(self.depth):
                probs = self.policy(state, 1)
                move = select_action(probs, 1.0, self.rng)
                child = game.get_next_state(state, move, 1)
                value, terminal = game.get_value_and_terminated(child, move)
                if terminal:
                    break
                state, sign = game.change_perspective(child, -1), -sign
            if not terminal:
                _, values = evaluate(self.model, game.get_encoded_state(state)[None])
                value = float(values[0])
            total += sign * value
        return total / self.num_rollouts

    def get_action(self, state: np.ndarray, player: int) -> int:
        canonical = self.game.change_perspective(state, player)
        probs = self.policy(canonical, 1)
        legal = np.flatnonzero(self.game.get_valid_moves(canonical))
        top = sorted(legal, key=lambda a: (-probs[a], a))[: self.top_k]
        return random_best({int(a): self.rollout_value(canonical, int(a)) for a in top}, self.rng)


# ---- search players --------------------------------------------------------------------------
class SearchPlayer(Player):
    """A player for ``arena.play_match`` from any search of the canonical state: a function ``state -> visit
    shares [A]`` or an object with such a ``search`` method (the course's own MCTS and AlphaMCTS); it plays the
    most visited move (ties: the lowest action)."""

    def __init__(
        self, game: Game, search: SerialSearch | Callable[[np.ndarray], np.ndarray], name: str = "your search"
    ) -> None:
        super().__init__(game)
        self.search = search.search if hasattr(search, "search") else search
        if not callable(self.search):
            raise TypeError(f"SearchPlayer needs a search function or an object with a search method, not {search!r}")
        self.name = name

    def get_action(self, state: np.ndarray, player: int) -> int:
        return int(np.argmax(np.asarray(self.search(self.game.change_perspective(state, player)))))


class MCTSPlayer(Player):
    """Vanilla MCTS (random rollouts); plays the most visited move, ties broken at random."""

    def __init__(self, game: Game, config: MCTSConfig | None = None, seed: int | None = None) -> None:
        super().__init__(game)
        config = config if config is not None else MCTSConfig()
        if seed is not None:
            config = dataclasses.replace(config, seed=seed)
        self.mcts = MCTS(game, config)
        self.rng = np.random.default_rng(None if config.seed is None else config.seed + 1)
        self.name = f"mcts:{config.num_searches}"

    def get_action(self, state: np.ndarray, player: int) -> int:
        probs = self.mcts.search(self.game.change_perspective(state, player))
        return select_action(probs, 0.0, self.rng)


class AlphaZeroPlayer(Player):
    """AlphaZero search with a network; temperature 0 (default) plays the most visited move (PUCT) or the
    search's sequential-halving choice (Gumbel, ``SearchConfig.policy="gumbel"``).

    The search evaluates one state at a time, so a move runs on ``num_threads`` torch CPU threads (default 1;
    None: torch's setting). Two threads took 46 s for a move beside a busy process, one 0.9 s
    (``benchmarks/threads.py``).
    """

    num_threads: int | None = 1

    def __init__(
        self,
        game: Game,
        model: Any,
        config: SearchConfig | None = None,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> None:
        super().__init__(game)
        check_model_game(game, model)
        config = config if config is not None else SearchConfig()
        if seed is not None:
            config = dataclasses.replace(config, seed=seed)
        self.model = model
        self.mcts = AlphaMCTS(game, model, config)
        self.temperature = temperature
        self.rng = np.random.default_rng(None if config.seed is None else config.seed + 1)
        self.name = f"{'gumbel' if config.policy == 'gumbel' else 'alphazero'}:{config.num_searches}"
        self.time_limit: float | None = None  # seconds per move; the search stops early when it runs out

    def get_action(self, state: np.ndarray, player: int) -> int:
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        probs = self.mcts.search(self.game.change_perspective(state, player), deadline=deadline)
        if self.temperature == 0 and self.mcts.policy.plays_own_action:
            return int(self.mcts.last_output.action)  # e.g. Gumbel's sequential-halving winner (no noise: fixed)
        return select_action(probs, self.temperature, self.rng)


# ---- game-specific reference players ---------------------------------------------------------
@cache
def _tictactoe_value(key: bytes) -> int:
    """Game-theoretic value (1 win, 0 draw, -1 loss) of a canonical Tic-Tac-Toe position for its mover."""
    return max(_tictactoe_action_values(key).values())


@cache
def _tictactoe_action_values(key: bytes) -> dict[int, int]:
    """Game-theoretic value of every legal move in a canonical Tic-Tac-Toe position, for the mover."""
    game = _TICTACTOE
    state = np.frombuffer(key, dtype=np.int8).reshape(3, 3)
    values = {}
    for action in game.legal_actions(state):
        child = game.get_next_state(state, action, 1)
        value, terminal = game.get_value_and_terminated(child, action)
        values[action] = int(value) if terminal else -_tictactoe_value(game.change_perspective(child, -1).tobytes())
    return values


_TICTACTOE = TicTacToe()


class PerfectPlayer(Player):
    """Perfect play, a random move among the best: Tic-Tac-Toe by exhaustive, memoised minimax; 6x7 Connect Four by
    the exact solver of the optional ``solver`` extra (``alphazero_lib.solver``), which wins as soon as it can and
    loses as late as it must.

    Raises ``ValueError`` for any other game, and ``solver.SolverMissing`` (saying how to install it) for Connect
    Four without the extra.
    """

    name = "perfect"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        from alphazero_lib import solver

        if not isinstance(game, TicTacToe) and game != solver.GAME:
            raise ValueError(
                f"the perfect player plays Tic-Tac-Toe and 6x7 Connect Four only, not {game!r}; try negamax:DEPTH"
            )
        if game == solver.GAME:
            solver.require()  # SolverMissing now, not at the first move
        super().__init__(game)
        self.rng = np.random.default_rng(seed)

    def move_scores(self, state: np.ndarray, player: int) -> dict[int, int]:
        """Each legal move's score for ``player``: the game-theoretic value (1 win, 0 draw, -1 loss) in Tic-Tac-Toe,
        the solver's score in Connect Four (its sign the value; larger: a sooner win or a later loss)."""
        if isinstance(self.game, TicTacToe):
            canonical = self.game.change_perspective(state, player)
            return _tictactoe_action_values(canonical.astype(np.int8).tobytes())
        from alphazero_lib.solver import move_scores

        return move_scores(state, player)

    def action_values(self, state: np.ndarray, player: int) -> dict[int, int]:
        """Each legal move's game-theoretic value for ``player`` (1 win, 0 draw, -1 loss)."""
        return {action: int(np.sign(score)) for action, score in self.move_scores(state, player).items()}

    def get_action(self, state: np.ndarray, player: int) -> int:
        return random_best(self.move_scores(state, player), self.rng)


#: The deepest negamax search a player may ask for (about a second a move on one core).
MAX_NEGAMAX_DEPTH = 10


class NegamaxPlayer(Player):
    """Connect Four by depth-limited negamax with alpha-beta (bitboards, line-window heuristic)."""

    def __init__(self, game: Game, depth: int = 4, seed: int | None = None) -> None:
        from alphazero_lib.negamax import ConnectFourSolver

        super().__init__(game)
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"negamax depth must be a positive integer, got {depth!r}")
        if depth > MAX_NEGAMAX_DEPTH:
            raise ValueError(
                f"negamax depth {depth} is too deep: the search grows about 4x a ply (depth 10 takes about a second "
                f"a move, depth 13 half a minute); use 1 to {MAX_NEGAMAX_DEPTH}"
            )
        self.solver = ConnectFourSolver(game)  # raises ValueError for other games
        self.depth = depth
        self.rng = np.random.default_rng(seed)
        self.name = f"negamax:{depth}"

    def get_action(self, state: np.ndarray, player: int) -> int:
        return random_best(self.solver.move_scores(np.asarray(state), player, self.depth), self.rng)


class GreedyPlayer(Player):
    """Othello: the move that leaves the mover the most discs right now, ties broken at random."""

    name = "greedy"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        if not isinstance(game, Othello):
            raise ValueError(f"the greedy disc-count player plays Othello only, not {game!r}")
        super().__init__(game)
        self.rng = np.random.default_rng(seed)

    def get_action(self, state: np.ndarray, player: int) -> int:
        scores = {}
        for action in self.game.legal_actions(state, player):
            scores[action] = int(np.sum(self.game.get_next_state(state, action, player) == player))
        return random_best(scores, self.rng)
