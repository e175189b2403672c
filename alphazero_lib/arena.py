"""Matches between players: single games, matches with alternating first player, tournaments with Elo, gating.

Scores count a win as 1, a draw as 1/2 and a loss as 0, everywhere (matches, Elo and gating).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from alphazero_lib.choosers import batched_chooser
from alphazero_lib.games.base import Game
from alphazero_lib.games.outcome import winner_of
from alphazero_lib.games.tictactoe import TicTacToe
from alphazero_lib.players import Player
from alphazero_lib.utils import Interrupted

#: z for a two-sided 95% interval.
Z_95 = 1.959963984540054


@dataclass
class GameRecord:
    """One finished game: the winner (1 first player, -1 second, 0 draw) and every ``(player, action)``; the
    first ``opening`` moves were given (``play_game``'s ``opening``), the players chose the rest."""

    winner: int
    moves: list[tuple[int, int]] = field(default_factory=list)
    opening: int = 0


def play_game(
    game: Game,
    first: Player,
    second: Player,
    log: Callable[[str], Any] | None = None,
    opening: Sequence[int] = (),
) -> GameRecord:
    """Play one game, ``first`` as player 1; ``log`` (e.g. ``print``) receives every board if given.

    ``opening`` lists moves played for both sides before the players take over (they appear in ``moves``).
    """
    players = {1: first, -1: second}
    for p in players.values():
        p.reset()
    state, player, moves = game.get_initial_state(), 1, []
    if log:
        log(game.render(state))
    while True:
        ply = len(moves)
        chooser = "opening" if ply < len(opening) else players[player].name
        action = int(opening[ply]) if ply < len(opening) else int(players[player].get_action(state.copy(), player))
        state = game.get_next_state(state, action, player)  # raises ValueError for an illegal move
        moves.append((player, action))
        if log:
            mark = "X" if player == 1 else "O"
            log(f"\n{mark} ({chooser}) plays {game.action_to_string(action)}\n{game.render(state)}")
        value, terminated = game.get_value_and_terminated(state, action)
        if terminated:
            winner = winner_of(value, player)
            if log:
                log("\n" + ("draw" if winner == 0 else f"{'X' if winner == 1 else 'O'} wins"))
            return GameRecord(winner=winner, moves=moves, opening=len(opening))
        player = game.get_opponent(player)


def random_opening(game: Game, num_moves: int, rng: np.random.Generator) -> list[int]:
    """``num_moves`` uniformly random moves from the start that do not end the game.

    Raises ``ValueError`` at once for more moves than any game of ``game`` can have before its last one
    (``max_game_length - 1``), and after 1,000 random tries that all ended the game.
    """
    longest = game.max_game_length - 1
    if num_moves > longest:
        raise ValueError(
            f"a {num_moves}-move opening cannot leave {game!r} open: its games last at most {game.max_game_length} "
            f"moves, so an opening has at most {longest}"
        )
    for _ in range(1000):
        state, player, moves = game.get_initial_state(), 1, []
        for _ in range(num_moves):
            action = int(rng.choice(game.legal_actions(state, player)))
            state = game.get_next_state(state, action, player)
            if game.get_value_and_terminated(state, action)[1]:
                break
            moves.append(action)
            player = game.get_opponent(player)
        if len(moves) == num_moves:
            return moves
    raise ValueError(
        f"could not find a {num_moves}-move opening that leaves {game!r} open in 1,000 random tries; fewer moves "
        f"leave it open more often"
    )


def wilson_interval(score: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``score`` over ``n`` trials (95% by default).

    Raises ``ValueError`` for a score outside [0, 1] (NaN included), a count that is not a whole number, or a ``z``
    that is not a positive finite number; no trials give the whole range, ``(0, 1)``.
    """
    if isinstance(score, bool) or not isinstance(score, numbers.Real) or not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be a number from 0 to 1 (a share of points), got {score!r}")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"n must be a whole number of trials (0 or more), got {n!r}")
    if isinstance(z, bool) or not isinstance(z, numbers.Real) or not 0.0 < z < math.inf:
        raise ValueError(f"z must be a positive finite number (1.96 for 95%), got {z!r}")
    if n <= 0:
        return 0.0, 1.0
    denom = 1 + z * z / n
    centre = (score + z * z / (2 * n)) / denom
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / denom
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if score <= 0 else low), (1.0 if score >= 1 else high)  # exact ends, not 1 - 1e-16


@dataclass
class MatchResult:
    """Results of a match from player 1's side, split by seat (``first``: player 1 moved first)."""

    player1: str
    player2: str
    games: int = 0
    wins_first: int = 0
    draws_first: int = 0
    losses_first: int = 0
    wins_second: int = 0
    draws_second: int = 0
    losses_second: int = 0
    records: list[GameRecord] = field(default_factory=list, repr=False, compare=False)
    """Every game in the order played (``play_match``: player 1 moved first in games 0, 2, ...)."""

    @property
    def wins(self) -> int:
        return self.wins_first + self.wins_second

    @property
    def draws(self) -> int:
        return self.draws_first + self.draws_second

    @property
    def losses(self) -> int:
        return self.losses_first + self.losses_second

    @property
    def score(self) -> float:
        """Player 1's mean points per game (win 1, draw 1/2, loss 0)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson score interval of ``score``, treating each game's points as a proportion (draws 1/2)."""
        return wilson_interval(self.score, self.games)

    def add(self, winner_seat: int, player1_first: bool) -> None:
        """Count one game; ``winner_seat`` is 1 / -1 / 0 for the first mover / second mover / a draw."""
        seat = "first" if player1_first else "second"
        outcome = 0 if winner_seat == 0 else (1 if (winner_seat == 1) == player1_first else -1)
        name = {1: "wins", 0: "draws", -1: "losses"}[outcome]
        setattr(self, f"{name}_{seat}", getattr(self, f"{name}_{seat}") + 1)
        self.games += 1

    def to_dict(self) -> dict[str, Any]:
        """Everything, by seat and in total, for JSON."""
        low, high = self.interval
        p1 = {"wins": self.wins, "draws": self.draws, "losses": self.losses}
        p1["first"] = {"wins": self.wins_first, "draws": self.draws_first, "losses": self.losses_first}
        p1["second"] = {"wins": self.wins_second, "draws": self.draws_second, "losses": self.losses_second}
        p2 = {"wins": self.losses, "draws": self.draws, "losses": self.wins}
        p2["first"] = {"wins": self.losses_second, "draws": self.draws_second, "losses": self.wins_second}
        p2["second"] = {"wins": self.losses_first, "draws": self.draws_first, "losses": self.wins_first}
        return {
            "player1": self.player1,
            "player2": self.player2,
            "games": self.games,
            "results": {"player1": p1, "player2": p2},
            "score": self.score,
            "score_interval": [low, high],
            "interval": "95% Wilson score interval on player 1's per-game points (win 1, draw 1/2, loss 0)",
        }

    def __str__(self) -> str:
        low, high = self.interval
        return (
            f"{self.player1} vs {self.player2}: {self.games} games, +{self.wins} ={self.draws} -{self.losses} "
            f"(first +{self.wins_first} ={self.draws_first} -{self.losses_first}, "
            f"second +{self.wins_second} ={self.draws_second} -{self.losses_second}); "
            f"score {self.score:.3f} [95% CI {low:.3f}, {high:.3f}]"
        )


def play_match(
    game: Game,
    player1: Player,
    player2: Player,
    num_games: int,
    progress: bool = True,
    opening_moves: int = 0,
    seed: int | None = None,
    batched: bool = False,
) -> MatchResult:
    """``num_games`` games, player 1 moving first in even-numbered games (0, 2, ...) and second in the others.

    With ``opening_moves`` > 0, each pair of games starts from the same random opening of that many moves
    (seeded by ``seed``), once with each player on each seat: deterministic players then meet in many
    different positions instead of replaying one game, and neither seat gets an easier opening.

    With ``batched``, the games are played side by side, one move in every game per round: a player that
    ``choosers.batched_chooser`` knows (``AlphaZeroPlayer``, ``PolicyPlayer``) chooses its moves in all of them
    with one batched search or network call, its own ``get_action`` rule applied to each. The openings and seats
    are the same; the games may differ from one-at-a-time play in the order the players' random draws are taken
    and in the last bits of a batched network call. A player that keeps something between moves (it overrides
    ``reset``) cannot have its games interleaved: ``ValueError``.

    Ctrl-C raises ``utils.Interrupted`` (a ``KeyboardInterrupt``) whose ``partial`` is the result of the games
    finished so far.
    """
    if num_games < 1:
        raise ValueError(f"num_games must be at least 1, got {num_games}")
    if opening_moves < 0:
        raise ValueError(f"opening_moves must be 0 or more, got {opening_moves}")
    rng = np.random.default_rng(seed)
    result = MatchResult(player1=player1.name, player2=player2.name)
    pairs = [random_opening(game, opening_moves, rng) if opening_moves else [] for _ in range(0, num_games, 2)]
    openings = [pairs[i // 2] for i in range(num_games)]  # each pair of games shares one opening
    bar = tqdm(total=num_games, desc=f"{player1.name} vs {player2.name}", disable=not progress, leave=False)
    try:
        if batched:
            _play_side_by_side(game, (player1, player2), openings, result, bar)
        else:
            for i, opening in enumerate(openings):
                first, second = (player1, player2) if i % 2 == 0 else (player2, player1)
                record = play_game(game, first, second, opening=opening)
                result.records.append(record)
                result.add(record.winner, i % 2 == 0)
                bar.update(1)
                bar.set_postfix(score=f"{result.score:.3f}")
    except KeyboardInterrupt:
        raise Interrupted(result) from None
    finally:
        bar.close()
    return result


def _play_side_by_side(
    game: Game, pair: tuple[Player, Player], openings: list[list[int]], result: MatchResult, bar: Any
) -> None:
    """``play_match(..., batched=True)``'s games, one round at a time: each player chooses its moves in every
    game where it is to move (in one call where ``batched_chooser`` knows it); finished games are counted in the
    order they end."""
    player1, player2 = pair
    num_games = len(openings)
    players = [player1] if player2 is player1 else [player1, player2]
    for p in players:
        if type(p).reset is not Player.reset:
            raise ValueError(
                f"{p.name} keeps something between moves (its class overrides reset), so its games cannot be "
                "played side by side; use batched=False"
            )
        p.reset()
    choosers = {id(p): batched_chooser(p) for p in players}
    seats = [(player1, player2) if i % 2 == 0 else (player2, player1) for i in range(num_games)]
    states = [game.get_initial_state() for _ in range(num_games)]
    to_move, plies = [1] * num_games, [0] * num_games
    records = [GameRecord(winner=0, opening=len(opening)) for opening in openings]
    live = list(range(num_games))
    while live:
        actions: dict[int, int] = {}
        waiting: dict[int, list[int]] = {id(p): [] for p in players}  # the games where each player is to move
        for i in live:
            if plies[i] < len(openings[i]):
                actions[i] = int(openings[i][plies[i]])
            else:
                waiting[id(seats[i][0] if to_move[i] == 1 else seats[i][1])].append(i)
        for p in players:
            mine, choose = waiting[id(p)], choosers[id(p)]
            if not mine:
                continue
            if choose is None:
                for i in mine:
                    actions[i] = int(p.get_action(states[i].copy(), to_move[i]))
                continue
            chosen = choose(np.stack([states[i] for i in mine]), np.array([to_move[i] for i in mine]))
            actions.update(zip(mine, (int(a) for a in chosen), strict=True))
        still = []
        for i in live:
            mover = to_move[i]
            states[i] = game.get_next_state(states[i], actions[i], mover)  # raises ValueError for an illegal move
            plies[i] += 1
            records[i].moves.append((mover, actions[i]))
            value, terminated = game.get_value_and_terminated(states[i], actions[i])
            if terminated:
                records[i].winner = winner_of(value, mover)
                result.add(records[i].winner, i % 2 == 0)
                bar.update(1)
                bar.set_postfix(score=f"{result.score:.3f}")
            else:
                to_move[i] = game.get_opponent(mover)
                still.append(i)
        live = still
    result.records.extend(records)


def expected_score(rating: Any, opponent_rating: Any) -> Any:
    """Elo's expected points per game (draws 1/2) of a player rated ``rating`` against ``opponent_rating``: the
    Bradley-Terry share ``g / (g + g_opponent)`` of ``fit_elo``'s strengths ``g = 10 ** (rating / 400)``, 1/2 for equal
    ratings and 10/11 for 400 points more. Numbers, or numpy arrays that broadcast."""
    return 1.0 / (1.0 + 10.0 ** ((opponent_rating - rating) / 400.0))


def elo_update(rating: float, opponent_rating: float, score: float, k: float = 32.0) -> tuple[float, float]:
    """Both ratings after one game, ``score`` being the first player's points (1, 1/2 or 0): each moves by ``k`` times
    the points above the expected score, and what one gains the other loses."""
    change = k * (score - expected_score(rating, opponent_rating))
    return rating + change, opponent_rating - change


def fit_elo(
    points: np.ndarray, games: np.ndarray, prior_games: float = 1.0, iterations: int = 10_000, tol: float = 1e-10
) -> np.ndarray:
    """Elo ratings ``[P]`` (mean 0) by a maximum-likelihood Bradley-Terry fit.

    ``points[i, j]`` is what player i scored against j (draws as 1/2) in ``games[i, j]`` games. ``prior_games``
    adds that many virtual draws to every pair that played, so a perfect record gets a finite rating
    (0 gives the plain maximum-likelihood fit, which diverges for a player who never dropped a point).
    Solved with Hunter's MM iterations; rating = 400 * log10(strength).
    """
    points = np.asarray(points, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    played = games > 0
    points = points + 0.5 * prior_games * played
    games = games + prior_games * played
    wins = points.sum(axis=1)
    gamma = np.ones(len(points))
    for _ in range(iterations):
        denom = (games / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = np.where(denom > 0, wins / np.where(denom > 0, denom, 1), gamma)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.mean(np.log(new)))
        done = np.max(np.abs(np.log(new) - np.log(gamma))) < tol
        gamma = new
        if done:
            break
    ratings = 400 * np.log10(gamma)
    return ratings - ratings.mean()


@dataclass
class TournamentResult:
    """A round robin: every pair's match and the fitted Elo table."""

    names: list[str]
    points: np.ndarray
    games: np.ndarray
    matches: list[MatchResult]
    elo: np.ndarray

    def table(self) -> list[tuple[str, float, float]]:
        """``(name, elo, score)`` rows, best first; score is the mean points per game over all opponents."""
        scores = self.points.sum(axis=1) / np.maximum(self.games.sum(axis=1), 1)
        rows = [(n, float(e), float(s)) for n, e, s in zip(self.names, self.elo, scores, strict=True)]
        return sorted(rows, key=lambda r: -r[1])

    def __str__(self) -> str:
        lines = [f"{'player':<24} {'elo':>7} {'score':>6}"]
        lines += [f"{n:<24} {e:>7.0f} {s:>6.3f}" for n, e, s in self.table()]
        return "\n".join(lines)


def round_robin(
    game: Game,
    players: Sequence[Player],
    games_per_pair: int,
    progress: bool = True,
    prior_games: float = 1.0,
    opening_moves: int = 0,
    seed: int | None = None,
) -> TournamentResult:
    """Every pair plays a match of ``games_per_pair`` games; Elo fitted with ``fit_elo`` (mean 0).

    ``opening_moves`` and ``seed`` are passed to ``play_match`` (paired random openings).
    """
    names = [p.name for p in players]
    if len(set(names)) != len(names):
        raise ValueError(f"players need distinct names for a tournament, got {names}")
    n = len(players)
    points, games, matches = np.zeros((n, n)), np.zeros((n, n)), []
    for i, j in tqdm(list(combinations(range(n), 2)), desc="round robin", disable=not progress):
        match = play_match(
            game, players[i], players[j], games_per_pair, progress=progress, opening_moves=opening_moves, seed=seed
        )
        matches.append(match)
        points[i, j] += match.wins + 0.5 * match.draws
        points[j, i] += match.losses + 0.5 * match.draws
        games[i, j] += match.games
        games[j, i] += match.games
    return TournamentResult(names, points, games, matches, fit_elo(points, games, prior_games=prior_games))


@dataclass
class GateResult:
    """A gating match: whether the candidate replaces the best player."""

    accepted: bool
    score: float
    threshold: float
    match: MatchResult

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "match": self.match.to_dict()}


def gate(
    game: Game,
    candidate: Player,
    best: Player,
    num_games: int,
    threshold: float = 0.55,
    progress: bool = True,
    opening_moves: int = 0,
    seed: int | None = None,
) -> GateResult:
    """Play ``candidate`` against ``best``; accept when its score (draws count 1/2) is at least ``threshold``."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be in [0, 1], got {threshold}")
    match = play_match(game, candidate, best, num_games, progress=progress, opening_moves=opening_moves, seed=seed)
    return GateResult(accepted=match.score >= threshold, score=match.score, threshold=threshold, match=match)


# ---- exhaustive check (small games) --------------------------------------------------------------------
@dataclass
class ExhaustiveResult:
    """Every line of play where ``player`` keeps its seat and the opponent tries each allowed reply."""

    seat: int
    replies: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def __str__(self) -> str:
        side = "first (X)" if self.seat == 1 else "second (O)"
        return f"as {side} against {self.replies} replies: {self.wins} wins, {self.draws} draws, {self.losses} losses"


def exhaustive_check(game: Game, player: Player, seat: int, replies: Player | None = None) -> ExhaustiveResult:
    """Play ``player`` on ``seat`` against every opponent reply (or, with ``replies`` a ``PerfectPlayer``,
    every reply it rates best), counting the end of each line. Feasible for Tic-Tac-Toe.

    ``player`` should be deterministic (e.g. AlphaZero at temperature 0): its move in each position is
    asked once and cached. Raises ``ValueError`` for any game but Tic-Tac-Toe (5,478 positions; Connect Four has
    about 4.5 trillion).
    """
    if not isinstance(game, TicTacToe):
        raise ValueError(f"an exhaustive check walks every line of play: Tic-Tac-Toe only, not {game!r}")
    cache: dict[bytes, int] = {}
    result = ExhaustiveResult(seat=seat, replies="perfect-play" if replies is not None else "all legal")

    def own_move(state: np.ndarray, mover: int) -> int:
        key = state.tobytes()
        if key not in cache:
            player.reset()
            cache[key] = int(player.get_action(state.copy(), mover))
        return cache[key]

    def walk(state: np.ndarray, mover: int) -> None:
        if mover == seat:
            moves = [own_move(state, mover)]
        elif replies is not None:
            values = replies.action_values(state, mover)
            moves = [a for a, v in values.items() if v == max(values.values())]
        else:
            moves = game.legal_actions(state, mover)
        for action in moves:
            after = game.get_next_state(state, action, mover)
            value, terminated = game.get_value_and_terminated(after, action)
            if not terminated:
                walk(after, game.get_opponent(mover))
                continue
            winner = winner_of(value, mover)
            if winner == 0:
                result.draws += 1
            elif winner == seat:
                result.wins += 1
            else:
                result.losses += 1

    walk(game.get_initial_state(), 1)
    return result
