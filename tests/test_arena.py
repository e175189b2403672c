"""Arena: single games, matches by seat, the Wilson interval, the Elo fit, tournaments and gating."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from fakes import FakeNet

from alphazero_lib import make_game
from alphazero_lib.arena import (
    MatchResult,
    elo_update,
    expected_score,
    fit_elo,
    gate,
    play_game,
    play_match,
    round_robin,
    wilson_interval,
)
from alphazero_lib.games import ConnectFour
from alphazero_lib.players import PerfectPlayer, Player, PolicyPlayer, RandomPlayer


class Scripted(Player):
    """Plays the lowest legal move and remembers which side it was asked to move for."""

    def __init__(self, game, name):
        super().__init__(game)
        self.name = name
        self.sides: list[int] = []
        self.resets = 0

    def reset(self):
        self.resets += 1

    def get_action(self, state, player):
        self.sides.append(player)
        return self.game.legal_actions(state, player)[0]


def test_play_game_logs_and_scores_a_known_game():
    game = make_game("tictactoe")
    lines: list[str] = []
    record = play_game(game, Scripted(game, "a"), Scripted(game, "b"), log=lines.append)
    # lowest legal cell each time: X 0, O 1, X 2, O 3, X 4, O 5, X 6 -> X wins on the 2-4-6 diagonal
    assert record.moves == [(1, 0), (-1, 1), (1, 2), (-1, 3), (1, 4), (-1, 5), (1, 6)]
    assert record.winner == 1
    assert lines[-1].strip() == "X wins" and "X (a) plays 6" in lines[-2]


def test_match_alternates_seats_and_adds_up():
    game = make_game("tictactoe")
    a, b = Scripted(game, "a"), Scripted(game, "b")
    result = play_match(game, a, b, num_games=5, progress=False)
    # the first mover always wins this scripted game: a wins games 0, 2, 4 (first), loses 1, 3 (second)
    assert (result.wins_first, result.losses_second, result.wins_second, result.losses_first) == (3, 2, 0, 0)
    assert result.wins + result.draws + result.losses == result.games == 5
    assert a.sides[0] == 1 and a.sides[4] == -1  # game 0: four moves as X; game 1 starts as O
    assert a.resets == b.resets == 5
    assert result.score == pytest.approx(0.6)
    data = result.to_dict()
    assert data["results"]["player2"]["first"] == {"wins": 2, "draws": 0, "losses": 0}
    assert data["results"]["player2"]["wins"] == 2 and data["results"]["player1"]["wins"] == 3


def test_match_results_by_hand():
    result = MatchResult("x", "y")
    for winner_seat, p1_first in [(1, True), (0, False), (-1, True), (-1, False), (0, True)]:
        result.add(winner_seat, p1_first)
    assert (result.wins, result.draws, result.losses) == (2, 2, 1)
    assert (result.wins_first, result.draws_first, result.losses_first) == (1, 1, 1)
    assert (result.wins_second, result.draws_second, result.losses_second) == (1, 1, 0)
    assert result.score == pytest.approx(3 / 5)
    assert "score 0.600" in str(result)


def test_wilson_interval():
    low, high = wilson_interval(0.5, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    low, high = wilson_interval(1.0, 10)
    assert low == pytest.approx(0.7225, abs=1e-4) and high == pytest.approx(1.0)
    assert wilson_interval(0.0, 0) == (0.0, 1.0)


def test_elo_fit_recovers_known_ratings():
    truth = np.array([0.0, 200.0, -150.0, 400.0])
    truth -= truth.mean()
    n = len(truth)
    games = np.full((n, n), 4000.0) - np.diag(np.full(n, 4000.0))
    points = games * expected_score(truth[:, None], truth[None, :])  # expected scores, as if measured without noise
    elo = fit_elo(points, games, prior_games=0)
    np.testing.assert_allclose(elo, truth, atol=0.5)
    assert elo.mean() == pytest.approx(0.0, abs=1e-9)


def test_expected_score_and_the_elo_update():
    assert expected_score(1500, 1500) == 0.5 and expected_score(400, 0) == pytest.approx(10 / 11)
    assert expected_score(-350, 50) + expected_score(50, -350) == pytest.approx(1.0)
    assert elo_update(1500, 1500, 1.0) == pytest.approx((1516.0, 1484.0))  # half of K = 32 for a win at even odds
    drop = 16 * (10 / 11 - 0.5)  # a draw against a player 400 points below
    assert elo_update(1600, 1200, 0.5, k=16) == pytest.approx((1600 - drop, 1200 + drop))
    assert elo_update(1000, 1400, 0.0, k=0) == (1000, 1400)


def test_elo_fit_stays_finite_for_a_perfect_record():
    points = np.array([[0.0, 10.0], [0.0, 0.0]])
    games = np.array([[0.0, 10.0], [10.0, 0.0]])
    elo = fit_elo(points, games, prior_games=1.0)
    # one virtual draw: 10.5 of 11 points, a gap of 400 * log10(10.5 / 0.5) ~ 529 Elo
    assert elo[0] - elo[1] == pytest.approx(400 * np.log10(21), abs=0.01)


def test_round_robin_ranks_perfect_first():
    game = make_game("tictactoe")
    players = [RandomPlayer(game, seed=0), PerfectPlayer(game, seed=1)]
    players[0].name = "random"
    weak = Scripted(game, "lowest-cell")
    result = round_robin(game, [*players, weak], games_per_pair=6, progress=False)
    assert result.table()[0][0] == "perfect"
    assert result.games.sum() == 3 * 6 * 2
    assert np.allclose(result.points + result.points.T, result.games)  # every game's points add up to 1
    assert "perfect" in str(result)
    with pytest.raises(ValueError, match="distinct names"):
        round_robin(game, [players[0], RandomPlayer(game)], 2, progress=False)


def test_gate_counts_draws_as_half_points():
    game = make_game("tictactoe")
    candidate, best = PerfectPlayer(game, seed=0), PerfectPlayer(game, seed=1)
    result = gate(game, candidate, best, num_games=4, threshold=0.55, progress=False)
    assert result.match.draws == 4 and result.score == 0.5 and not result.accepted
    assert gate(game, candidate, best, num_games=2, threshold=0.5, progress=False).accepted
    won = gate(game, PerfectPlayer(game, seed=0), Scripted(game, "weak"), num_games=4, progress=False)
    assert won.accepted and won.score > 0.55 and won.to_dict()["match"]["games"] == 4
    with pytest.raises(ValueError, match="threshold"):
        gate(game, candidate, best, num_games=2, threshold=1.5)


def test_exhaustive_check_counts_every_line():
    from alphazero_lib.arena import exhaustive_check
    from alphazero_lib.games import TicTacToe
    from alphazero_lib.players import PerfectPlayer, RandomPlayer

    game = TicTacToe()
    perfect = PerfectPlayer(game, seed=0)
    for seat in (1, -1):
        result = exhaustive_check(game, perfect, seat)
        assert result.losses == 0 and result.wins > 0
        against_perfect = exhaustive_check(game, perfect, seat, replies=PerfectPlayer(game))
        assert against_perfect.wins == against_perfect.losses == 0 and against_perfect.draws > 0
    # a random player (fixed by the cache, one move per position) loses some lines: the check can fail
    weak = exhaustive_check(game, RandomPlayer(game, seed=0), 1)
    assert weak.losses > 0
    assert "as first (X) against all legal replies" in str(weak)
    with pytest.raises(ValueError, match="Tic-Tac-Toe only"):
        exhaustive_check(ConnectFour(), RandomPlayer(ConnectFour(), seed=0), 1)


@pytest.mark.parametrize("batched", [False, True])
def test_a_match_keeps_every_game_in_the_order_played(batched):
    from alphazero_lib.arena import play_match

    game = ConnectFour()
    first, second = RandomPlayer(game, seed=1), RandomPlayer(game, seed=2)
    result = play_match(game, first, second, 6, progress=False, opening_moves=3, seed=4, batched=batched)
    assert len(result.records) == 6
    wins = {"first": 0, "second": 0}
    for i, record in enumerate(result.records):
        assert record.opening == 3 and record.moves[:3] == result.records[i - i % 2].moves[:3]  # a pair's opening
        state = game.get_initial_state()
        for ply, (mover, action) in enumerate(record.moves):
            assert mover == (1 if ply % 2 == 0 else -1) and not game.is_over(state)
            state = game.get_next_state(state, action, mover)
        value, over = game.get_value_and_terminated(state, record.moves[-1][1])
        assert over and record.winner == (record.moves[-1][0] if value == 1 else 0)  # the last move ends it
        if record.winner != 0:
            player1_won = (record.winner == 1) == (i % 2 == 0)  # player 1 moved first in the even-numbered games
            wins["first" if i % 2 == 0 else "second"] += player1_won
    assert (wins["first"], wins["second"]) == (result.wins_first, result.wins_second)


def test_openings_are_shared_by_each_pair_of_games():
    from alphazero_lib.arena import play_match, random_opening
    from alphazero_lib.games import ConnectFour
    from alphazero_lib.players import NegamaxPlayer

    game = ConnectFour()
    opening = random_opening(game, 4, np.random.default_rng(0))
    assert len(opening) == 4
    # two deterministic players: without openings every pair of games repeats; with them they differ
    a, b = NegamaxPlayer(game, depth=2, seed=0), NegamaxPlayer(game, depth=1, seed=0)
    records = []
    import alphazero_lib.arena as arena

    original = arena.play_game

    def spy(*args, **kwargs):
        record = original(*args, **kwargs)
        records.append((tuple(kwargs.get("opening", ())), record.moves))
        return record

    arena.play_game = spy
    try:
        result = play_match(game, a, b, 6, progress=False, opening_moves=3, seed=1)
    finally:
        arena.play_game = original
    assert result.games == 6
    openings = [o for o, _ in records]
    assert openings[0] == openings[1] and openings[2] == openings[3] and openings[0] != openings[2]
    for opening, moves in records:
        assert [m for _, m in moves[: len(opening)]] == list(opening)


class _CountingNet(torch.nn.Module):
    """A FakeNet that counts its calls and the largest batch it was asked about."""

    def __init__(self, game, seed):
        super().__init__()
        self.net, self.calls, self.largest = FakeNet(game, seed), 0, 0

    def forward(self, x):
        self.calls, self.largest = self.calls + 1, max(self.largest, x.shape[0])
        return self.net(x)


def _policy_players(game):
    return PolicyPlayer(game, _CountingNet(game, 0), seed=0), PolicyPlayer(game, _CountingNet(game, 1), seed=0)


def test_a_batched_match_plays_the_same_games_in_fewer_network_calls():
    """Side by side, deterministic players (the network's top move, no ties) play exactly the games they play
    one at a time, with the same openings and seats, but each round's positions go to a network in one call."""
    game = make_game("connect_four")
    results, calls = [], []
    for batched in (False, True):
        a, b = _policy_players(game)
        results.append(play_match(game, a, b, 8, progress=False, opening_moves=2, seed=3, batched=batched))
        calls.append((a.model.calls, a.model.largest, b.model.calls))
    one_at_a_time, side_by_side = results
    assert side_by_side.to_dict() == one_at_a_time.to_dict()
    first_seat = side_by_side.wins_first + side_by_side.draws_first + side_by_side.losses_first
    assert side_by_side.games == 8 and first_seat == 4
    (calls_before, largest_before, _), (calls_after, largest_after, b_calls_after) = calls
    assert largest_before == 1 and largest_after == 4  # a is to move in half the games each round: one call
    assert 2 * calls_after < calls_before and b_calls_after <= calls_after + 1, calls  # a call a round, not a move


def test_a_batched_match_mixes_batched_and_one_at_a_time_players_and_one_player_on_both_seats():
    from alphazero_lib.config import SearchConfig
    from alphazero_lib.players import AlphaZeroPlayer, NegamaxPlayer

    game = make_game("connect_four")
    searcher = AlphaZeroPlayer(game, _CountingNet(game, 0), SearchConfig(num_searches=4), seed=0)
    result = play_match(game, searcher, NegamaxPlayer(game, depth=1, seed=0), 6, progress=False, batched=True)
    assert result.games == 6 and result.wins_second + result.draws_second + result.losses_second == 3
    assert searcher.model.largest > 1  # its searches ran side by side
    policy, _ = _policy_players(game)
    mirror = play_match(game, policy, policy, 4, progress=False, opening_moves=2, seed=0, batched=True)
    assert mirror.games == 4 and mirror.wins_first == mirror.losses_second  # its first-seat wins are its losses too


def test_a_batched_match_refuses_a_player_that_keeps_something_between_moves():
    game = make_game("tictactoe")
    with pytest.raises(ValueError, match=r"keeps something between moves .*overrides reset.* use batched=False"):
        play_match(game, Scripted(game, "scripted"), RandomPlayer(game, 0), 2, progress=False, batched=True)


def test_a_batched_match_stopped_by_ctrl_c_hands_back_the_games_finished_so_far():
    from alphazero_lib.utils import Interrupted

    game = make_game("tictactoe")

    class Stopping(RandomPlayer):
        moves = 0

        def get_action(self, state, player):
            Stopping.moves += 1
            if Stopping.moves == 100:  # 15 moves a round: after the 7th ply, when the first games are over
                raise KeyboardInterrupt
            return super().get_action(state, player)

    fast = PolicyPlayer(game, FakeNet(game, 0), seed=0)
    with pytest.raises(Interrupted) as stop:
        play_match(game, fast, Stopping(game, 1), 30, progress=False, batched=True)
    assert 0 < stop.value.partial.games < 30


@pytest.mark.parametrize(
    "args, message",
    [
        ((float("nan"), 10), r"score must be a number from 0 to 1 \(a share of points\), got nan"),
        ((1.5, 10), "score must be a number from 0 to 1"),
        ((-0.1, 10), "score must be a number from 0 to 1"),
        ((0.5, 2.5), r"n must be a whole number of trials \(0 or more\), got 2.5"),
        ((0.5, -1), "n must be a whole number of trials"),
        ((0.5, 10, 0.0), "z must be a positive finite number"),
        ((0.5, 10, float("inf")), "z must be a positive finite number"),
    ],
)
def test_wilson_interval_refuses_nonsense(args, message):
    from alphazero_lib.arena import wilson_interval

    with pytest.raises(ValueError, match=message):
        wilson_interval(*args)
    assert wilson_interval(np.float64(0.5), np.int64(0)) == (0.0, 1.0)
