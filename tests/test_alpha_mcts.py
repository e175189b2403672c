"""AlphaZero search: golden visit counts, tactics, root noise, the pb_c schedule and temperature."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from fakes import ConstantNet, FakeNet
from positions import TACTICS

from alphazero_lib import make_game
from alphazero_lib.alpha_mcts import AlphaMCTS, exploration_weight
from alphazero_lib.config import SearchConfig
from alphazero_lib.inference import masked_softmax
from alphazero_lib.selection import apply_temperature, select_action

TTT_MID = np.array([[1, 0, 0], [0, -1, 0], [0, 0, 0]], dtype=np.int8)
C4_MID = np.zeros((6, 7), dtype=np.int8)
C4_MID[5, 3] = C4_MID[4, 3] = 1
C4_MID[5, 2] = C4_MID[5, 4] = -1

# Generated once with FakeNet(game, seed=0), 200 searches, seed 0; inspected: they sum to 200, illegal moves
# get nothing, noise spreads visits, the pb_c schedule (c ~ 1.26 < C = 2) concentrates them.
NOISE = {"dirichlet_epsilon": 0.25}
PB_C = {"pb_c_base": 19652, "pb_c_init": 1.25}
GOLDEN = [
    ("tictactoe", None, {}, [6, 26, 11, 1, 30, 52, 44, 8, 22]),
    ("tictactoe", None, NOISE, [6, 18, 11, 10, 5, 39, 82, 20, 9]),
    ("tictactoe", None, PB_C, [6, 27, 1, 1, 1, 141, 1, 8, 14]),
    ("tictactoe", TTT_MID, {}, [0, 68, 19, 1, 0, 29, 57, 14, 12]),
    ("tictactoe", TTT_MID, NOISE, [0, 62, 16, 21, 0, 25, 50, 15, 11]),
    ("connect_four", None, {}, [0, 36, 2, 4, 108, 36, 14]),
    ("connect_four", None, NOISE, [6, 26, 14, 6, 86, 44, 18]),
    ("connect_four", C4_MID, {}, [0, 24, 2, 0, 154, 10, 10]),
    ("connect_four", C4_MID, PB_C, [0, 26, 2, 0, 152, 10, 10]),
]


@pytest.mark.parametrize(("game_name", "state", "options", "expected"), GOLDEN)
def test_golden_visit_counts(game_name, state, options, expected):
    game = make_game(game_name)
    state = game.get_initial_state() if state is None else state
    mcts = AlphaMCTS(game, FakeNet(game), SearchConfig(num_searches=200, seed=0, **options))
    counts = np.round(mcts.search(state) * 200).astype(int)
    assert counts.tolist() == expected


def test_golden_othello_with_its_pass_action():
    game = make_game("othello6")
    mcts = AlphaMCTS(game, FakeNet(game), SearchConfig(num_searches=200, seed=0))
    counts = np.round(mcts.search(game.get_initial_state()) * 200).astype(int)
    assert {int(a): int(n) for a, n in enumerate(counts) if n} == {8: 9, 13: 152, 22: 6, 27: 33}


@pytest.mark.parametrize(("name", "game_name", "state", "best"), TACTICS, ids=[t[0] for t in TACTICS])
def test_takes_the_win_and_blocks_the_loss(name, game_name, state, best):
    game = make_game(game_name)
    for seed in range(3):
        probs = AlphaMCTS(game, ConstantNet(game), SearchConfig(num_searches=200, seed=seed)).search(state)
        assert int(np.argmax(probs)) == best, (seed, probs.round(3))


def test_first_simulation_follows_the_largest_prior_and_stats_count_network_calls():
    game = make_game("tictactoe")
    net = FakeNet(game)
    mcts = AlphaMCTS(game, net, SearchConfig(num_searches=1, seed=0))
    probs = mcts.search(TTT_MID)
    logits, _ = net(torch.as_tensor(game.get_encoded_state(TTT_MID)[None]))
    priors = masked_softmax(logits.numpy()[0], game.get_valid_moves(TTT_MID))
    assert int(np.argmax(probs)) == int(np.argmax(priors))
    assert mcts.root.visit_count == 2  # its own evaluation plus one simulation
    assert mcts.last_search_stats.network_evaluations == 2
    mcts = AlphaMCTS(game, net, SearchConfig(num_searches=50, seed=0))
    mcts.search(TTT_MID)
    stats = mcts.last_search_stats
    assert stats.network_evaluations + stats.terminal_leaves == 51
    assert sum(child.visit_count for child in mcts.root.children) == 50


def test_search_leaves_the_state_alone_and_rejects_finished_games():
    game = make_game("tictactoe")
    state = TTT_MID.copy()
    AlphaMCTS(game, FakeNet(game), SearchConfig(num_searches=20, seed=0)).search(state)
    assert np.array_equal(state, TTT_MID)
    full = np.array([[1, -1, 1], [1, -1, -1], [-1, 1, 1]], dtype=np.int8)
    with pytest.raises(ValueError, match="no legal moves"):
        AlphaMCTS(game, FakeNet(game), SearchConfig(num_searches=5)).search(full)


def test_root_noise_is_the_documented_draw_and_touches_legal_moves_only():
    game = make_game("tictactoe")
    net = FakeNet(game)
    config = SearchConfig(num_searches=1, seed=7, dirichlet_epsilon=0.25, dirichlet_alpha=0.3)
    mcts = AlphaMCTS(game, net, config)
    mcts.search(TTT_MID)
    valid = game.get_valid_moves(TTT_MID)
    logits, _ = net(torch.as_tensor(game.get_encoded_state(TTT_MID)[None]))
    expected = masked_softmax(logits.numpy()[0], valid)
    legal = np.flatnonzero(valid)
    noise = np.random.default_rng(7).dirichlet([0.3] * len(legal))
    expected[legal] = 0.75 * expected[legal] + 0.25 * noise
    priors = {child.action_taken: child.prior for child in mcts.root.children}
    assert sorted(priors) == legal.tolist()  # no child for an occupied cell
    np.testing.assert_allclose([priors[a] for a in legal], expected[legal], rtol=1e-12)
    assert math.isclose(sum(priors.values()), 1.0)
    noiseless = AlphaMCTS(game, net, SearchConfig(num_searches=1, seed=7))
    noiseless.search(TTT_MID)
    assert not np.allclose([c.prior for c in noiseless.root.children], [priors[a] for a in legal])


def test_zero_probability_on_every_legal_move_falls_back_to_uniform():
    game = make_game("tictactoe")
    mcts = AlphaMCTS(game, ConstantNet(game, logits=-np.inf), SearchConfig(num_searches=10, seed=0))
    mcts.search(TTT_MID)
    np.testing.assert_allclose([c.prior for c in mcts.root.children], 1 / 7)


def test_pb_c_schedule():
    constant = SearchConfig(C=1.5)
    assert exploration_weight(constant, 10_000) == 1.5
    schedule = SearchConfig(pb_c_base=19652, pb_c_init=1.25)
    assert exploration_weight(schedule, 0) == pytest.approx(math.log(19653 / 19652) + 1.25)
    assert exploration_weight(schedule, 19652 * 3) == pytest.approx(math.log((1 + 19652 * 4) / 19652) + 1.25)
    small_base = SearchConfig(pb_c_base=10, pb_c_init=0.5)
    assert exploration_weight(small_base, 89) == pytest.approx(math.log(10.0) + 0.5)
    game = make_game("tictactoe")
    counts = [
        AlphaMCTS(game, FakeNet(game), SearchConfig(num_searches=200, seed=0, **opts)).search(TTT_MID)
        for opts in ({"C": 2.0}, {"pb_c_base": 10, "pb_c_init": 0.5})
    ]
    assert not np.allclose(*counts)  # the schedule is used, not the constant


def test_temperature_sharpens_and_renormalises():
    probs = np.array([0.0, 0.2, 0.3, 0.5])
    np.testing.assert_allclose(apply_temperature(probs, 1.0), probs)
    squared = probs**2 / np.sum(probs**2)
    np.testing.assert_allclose(apply_temperature(probs, 0.5), squared)
    assert apply_temperature(probs, 0.5).sum() == pytest.approx(1.0)
    np.testing.assert_allclose(apply_temperature(probs, 0.0), [0, 0, 0, 1])
    np.testing.assert_allclose(apply_temperature([0.1, 0.45, 0.45], 0.0), [0, 0.5, 0.5])
    tiny = apply_temperature(np.array([0.4, 0.6]), 1e-3)  # 0.6 ** 1000 underflows; the ratio must not
    np.testing.assert_allclose(tiny, [0, 1], atol=1e-12)
    flat = apply_temperature(probs, 100.0)
    assert flat[0] == 0 and np.ptp(flat[1:]) < 0.02  # high temperature: near uniform over visited moves
    with pytest.raises(ValueError, match="temperature"):
        apply_temperature(probs, -1)


def test_select_action_samples_the_renormalised_distribution():
    rng = np.random.default_rng(0)
    probs = np.array([0.1, 0.3, 0.6])
    draws = np.bincount([select_action(probs, 0.5, rng) for _ in range(4000)], minlength=3) / 4000
    np.testing.assert_allclose(draws, apply_temperature(probs, 0.5), atol=0.03)
    ties = {select_action(np.array([0.5, 0.0, 0.5]), 0.0, rng) for _ in range(50)}
    assert ties == {0, 2}  # argmax with a random tie-break, never the zero-probability move


def test_defaults_statistics_and_a_distribution_without_mass():
    """Mutation testing found these unchecked: the default config, the simulations counted, the stats as a dict,
    and the error for probabilities with no positive mass."""
    game = make_game("tictactoe")
    mcts = AlphaMCTS(game, ConstantNet(game))
    assert mcts.config == SearchConfig() and mcts.root is None
    mcts.config = SearchConfig(num_searches=12, seed=0)
    mcts.search(TTT_MID)
    stats = mcts.last_search_stats.to_dict()
    assert stats["num_searches"] == 12 and stats["network_evaluations"] + stats["terminal_leaves"] == 13
    assert set(stats) == {"num_searches", "network_evaluations", "terminal_leaves", "max_depth"}
    for temperature in (0.0, 1.0):
        with pytest.raises(ValueError, match="probabilities need some positive mass"):
            apply_temperature(np.zeros(3), temperature)
