"""Gumbel AlphaZero (Danihelka et al., ICLR 2022) as ``alphazero_lib.search_policies`` implements it.

Golden values worked by hand from the paper's formulas (sequential halving's schedule, the mixed value, the
completed and transformed Q-values, the improved policy, the interior, root and final rules); an independent
plain-Python search (``gumbel_reference``) that the serial and the batched search must match visit for visit on
fixed priors and values (``FakeNet``); the batched search equal to the serial one; and a few behaviours.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from fakes import ConstantNet, FakeNet
from gumbel_reference import gumbel_search, network_evaluator, visits_needed
from positions import TACTICS, distinct_games, random_positions

from alphazero_lib import make_game
from alphazero_lib.alpha_mcts import AlphaMCTS
from alphazero_lib.batched_mcts import ROOT, BatchedMCTS
from alphazero_lib.config import SearchConfig
from alphazero_lib.search_policies import (
    Children,
    GumbelSettings,
    RootContext,
    completed_q_values,
    considered_visits,
    gumbel_action,
    gumbel_interior_selection,
    gumbel_root_selection,
    improved_policy,
    mixed_value,
    sigma_q,
)

GUMBEL = GumbelSettings()  # c_visit = 50, c_scale = 0.1
SHARED = SearchConfig()  # what the selection rules read beside their own settings (nothing here)


def gumbel_config(**settings) -> SearchConfig:
    """A Gumbel search, its own settings (``gumbel_*``) given flat as in a config dict."""
    return SearchConfig.from_dict({"policy": "gumbel", **settings})


def children(prior, visits, value_sum, legal, raw_value) -> Children:
    """One node's children ``[1, A]`` from plain lists (value sums from the CHILD's mover's view)."""
    return Children(
        prior=np.array([prior], dtype=float),
        visit_count=np.array([visits], dtype=float),
        value_sum=np.array([value_sum], dtype=float),
        illegal_penalty=np.array([[0.0 if ok else -np.inf for ok in legal]]),
        parent_visits=np.array([1.0 + sum(visits)]),
        raw_value=np.array([raw_value], dtype=float),
    )


# ---- sequential halving's schedule, by hand ----------------------------------------------------------------
# considered_visits(m, n)[i]: the visits a candidate must have had to be picked by simulation i. Phases give each of
# the r remaining candidates max(1, floor(n / (ceil(log2 m) * r))) visits, then r = max(2, r // 2).
SCHEDULES = [
    # m=4, n=8: log2 4 = 2. r=4: floor(8/8) = 1 round -> 0,0,0,0. r=2: floor(8/4) = 2 rounds -> 1,1 then 2,2.
    (4, 8, (0, 0, 0, 0, 1, 1, 2, 2)),
    # m=2, n=5: log2 2 = 1. r=2: floor(5/2) = 2 rounds -> 0,0,1,1; r=2 again: 2,2 cut to the 5th simulation.
    (2, 5, (0, 0, 1, 1, 2)),
    # m=3, n=7: ceil(log2 3) = 2. r=3: max(1, floor(7/6)) = 1 -> 0,0,0. r=2: floor(7/4) = 1 -> 1,1. r=2: 2,2.
    (3, 7, (0, 0, 0, 1, 1, 2, 2)),
    # m=min(16, 7 legal)=7, n=14: ceil(log2 7) = 3. r=7: max(1, floor(14/21)) = 1 -> seven 0s. r=3: floor(14/9)
    # = 1 -> 1,1,1. r=max(2, 1)=2: floor(14/6) = 2 rounds -> 2,2 then 3,3.
    (7, 14, (0,) * 7 + (1,) * 3 + (2, 2, 3, 3)),
    # m=9 (Tic-Tac-Toe's empty board), n=16: ceil(log2 9) = 4. r=9: max(1, floor(16/36)) = 1 -> nine 0s. r=4:
    # floor(16/16) = 1 -> 1,1,1,1. r=2: floor(16/8) = 2 -> 2,2,3,3, cut after the 16th simulation.
    (9, 16, (0,) * 9 + (1,) * 4 + (2, 2, 3)),
    # m=16, n=50: log2 16 = 4. r=16: max(1, floor(50/64)) = 1 -> sixteen 0s (16). r=8: floor(50/32) = 1 -> eight
    # 1s (24). r=4: floor(50/16) = 3 -> 2,2,2,2 3,3,3,3 4,4,4,4 (36). r=2: floor(50/8) = 6 -> 5,5 ... 10,10 (48).
    # r=2 again: 11,11 (50).
    (16, 50, (0,) * 16 + (1,) * 8 + (2,) * 4 + (3,) * 4 + (4,) * 4 + tuple(k for k in range(5, 12) for _ in "ab")),
    # m=1: the one candidate takes every simulation.
    (1, 5, (0, 1, 2, 3, 4)),
    # n smaller than m: the budget ends inside the first phase, each simulation a new candidate.
    (4, 3, (0, 0, 0)),
    (16, 8, (0,) * 8),
]


@pytest.mark.parametrize(("m", "n", "expected"), SCHEDULES)
def test_considered_visits_follow_sequential_halving_by_hand(m, n, expected):
    assert considered_visits(m, n) == expected
    assert tuple(visits_needed(m, n)) == expected  # the reference's own schedule agrees


# The visits per candidate at the end of a search follow from the schedule: with no candidate ever owed two visits
# at once, the sorted visit counts are fixed whatever the network says.
FINAL_VISITS = [
    # m=4, n=8: four candidates once, two of them twice more.
    ("connect_four", 4, 8, [3, 3, 1, 1]),
    # m=min(16, 7)=7, n=14 (schedule above): seven once, three of them a second time, two a third and fourth.
    ("connect_four", 16, 14, [4, 4, 2, 1, 1, 1, 1]),
    # m=2, n=5: 0,0,1,1,2 -> one candidate 3 visits, the other 2.
    ("connect_four", 2, 5, [3, 2]),
    # m=9, n=16 (schedule above): nine once; four twice; two three times; one of those a fourth time.
    ("tictactoe", 16, 16, [4, 3, 2, 2, 1, 1, 1, 1, 1]),
    # m=1: one candidate takes the whole budget.
    ("tictactoe", 1, 6, [6]),
    # n < m: the first n candidates once each.
    ("tictactoe", 16, 5, [1, 1, 1, 1, 1]),
]


@pytest.mark.parametrize(("game_name", "m", "n", "expected"), FINAL_VISITS)
def test_visits_per_candidate_follow_the_schedule(game_name, m, n, expected):
    game = make_game(game_name)
    config = gumbel_config(num_searches=n, gumbel_considered=m, gumbel_scale=1.0, seed=3)
    mcts = AlphaMCTS(game, FakeNet(game), config)
    mcts.search(game.get_initial_state())
    visits = mcts.root.children_stats(game.action_size).visit_count[0]
    assert sorted(visits[visits > 0].astype(int).tolist(), reverse=True) == expected
    batched = BatchedMCTS(game, FakeNet(game), config)
    batched.run(game.get_initial_state()[None])
    assert np.array_equal(batched.children(batched.offsets + ROOT).visit_count[0], visits)


def test_the_first_simulations_visit_the_gumbel_top_k():
    """Gumbel-Top-k: the visited actions are exactly the m legal actions with the largest g + logits."""
    game = make_game("connect_four")
    net = FakeNet(game)
    state = game.get_initial_state()
    for seed in range(4):
        config = gumbel_config(num_searches=8, gumbel_considered=3, gumbel_scale=1.0, seed=seed)
        mcts = AlphaMCTS(game, net, config)
        mcts.search(state)
        g = np.random.default_rng(seed).gumbel(size=7)  # drawn after the root's evaluation, legal moves in order
        priors, _ = network_evaluator(game, net)(state)
        score = [g[a] + math.log(priors[a]) for a in range(7)]
        top3 = sorted(sorted(range(7), key=lambda a: -score[a])[:3])
        visits = mcts.root.children_stats(7).visit_count[0]
        assert np.flatnonzero(visits).tolist() == top3


# ---- the mixed value, sigma, the improved policy and the rules, by hand -------------------------------------
# Four actions, action 2 illegal; actions 0 and 1 visited, action 3 not. Value sums are from the child's mover's
# view, so the parent's q = -value_sum / n.
PRIOR_A = [0.4, 0.2, 0.0, 0.4]
VISITS_A = [3, 1, 0, 0]
VALUE_SUM_A = [-0.6, 0.5, 0.0, 0.0]  # q0 = 0.6 / 3 = 0.2, q1 = -0.5 / 1 = -0.5
RAW_A = 0.5
LEGAL_A = [True, True, False, True]
# v_mix = (v + N * sum_visited(pi q) / sum_visited(pi)) / (1 + N), N = 3 + 1 = 4
V_MIX_A = (0.5 + 4 * (0.4 * 0.2 + 0.2 * -0.5) / (0.4 + 0.2)) / (1 + 4)  # = (0.5 - 4/30) / 5 = 0.07333...
# completed q over the legal actions [0, 1, 3]: [0.2, -0.5, v_mix]; min-max to [0, 1]: low -0.5, high 0.2
NORMALISED_A = [(0.2 + 0.5) / 0.7, 0.0, 0.0, (V_MIX_A + 0.5) / 0.7]  # = [1, 0, -, 0.8190476...]
SIGMA_A = [(50 + 3) * 0.1 * x for x in NORMALISED_A]  # (c_visit + max n) * c_scale * q_normalised
_WEIGHTS_A = [PRIOR_A[a] * math.exp(SIGMA_A[a]) if LEGAL_A[a] else 0.0 for a in range(4)]  # exp(log prior + sigma)
IMPROVED_A = [w / sum(_WEIGHTS_A) for w in _WEIGHTS_A]  # ~ [0.72163, 0.00180, 0, 0.27657]


def test_mixed_value_by_hand():
    node = children(PRIOR_A, VISITS_A, VALUE_SUM_A, LEGAL_A, RAW_A)
    assert V_MIX_A == pytest.approx(0.0733333333333, abs=1e-12)
    assert mixed_value(node)[0] == pytest.approx(V_MIX_A, abs=1e-12)
    # nothing visited: v_mix is the node's own value
    fresh = children(PRIOR_A, [0, 0, 0, 0], [0.0] * 4, LEGAL_A, -0.3)
    assert mixed_value(fresh)[0] == pytest.approx(-0.3, abs=1e-15)


def test_completed_q_sigma_and_improved_policy_by_hand():
    node = children(PRIOR_A, VISITS_A, VALUE_SUM_A, LEGAL_A, RAW_A)
    q = completed_q_values(node)[0]
    assert q[[0, 1, 3]] == pytest.approx([0.2, -0.5, V_MIX_A], abs=1e-12)
    assert sigma_q(node, GUMBEL)[0] == pytest.approx(SIGMA_A, abs=1e-12)
    assert SIGMA_A[0] == pytest.approx(5.3) and SIGMA_A[3] == pytest.approx(4.340952380952, abs=1e-11)
    assert improved_policy(node, settings=GUMBEL)[0] == pytest.approx(IMPROVED_A, abs=1e-12)
    assert IMPROVED_A == pytest.approx([0.72162905457, 0.00180103960, 0.0, 0.27656990583], abs=1e-10)
    # c_visit and c_scale enter as written: (10 + 3) * 0.5 instead of (50 + 3) * 0.1
    other = GumbelSettings(gumbel_c_visit=10.0, gumbel_c_scale=0.5)
    assert sigma_q(node, other)[0] == pytest.approx([(10 + 3) * 0.5 * x for x in NORMALISED_A], abs=1e-12)


def test_interior_rule_by_hand():
    """argmax pi'(a) - n(a) / (1 + N): action 0 has the largest pi' but has had more than its share."""
    node = children(PRIOR_A, VISITS_A, VALUE_SUM_A, LEGAL_A, RAW_A)
    score = [IMPROVED_A[a] - VISITS_A[a] / (1 + 4) for a in (0, 1, 3)]  # ~ [0.1216, -0.1982, 0.2766]
    assert max(IMPROVED_A) == IMPROVED_A[0] and max(score) == score[2]
    assert gumbel_interior_selection(node, SHARED, settings=GUMBEL).tolist() == [3]
    # no visits at all: the largest pi' (here the priors' tie 0 / 3 goes to the lowest action)
    fresh = children(PRIOR_A, [0, 0, 0, 0], [0.0] * 4, LEGAL_A, 0.0)
    assert gumbel_interior_selection(fresh, SHARED, settings=GUMBEL).tolist() == [0]


def test_min_max_runs_over_the_legal_actions_only():
    """The library's documented deviation from mctx: the illegal action's completed q (v_mix) stays out of the
    min-max even when it lies below every legal q."""
    prior, visits, value_sum, legal = [0.6, 0.0, 0.4], [2, 0, 1], [-0.4, 0.0, -0.4], [True, False, True]
    node = children(prior, visits, value_sum, legal, -0.9)  # q0 = 0.2, q2 = 0.4
    v_mix = (-0.9 + 3 * (0.6 * 0.2 + 0.4 * 0.4) / (0.6 + 0.4)) / (1 + 3)  # = -0.015 < 0.2
    assert mixed_value(node)[0] == pytest.approx(v_mix, abs=1e-12)
    sigma = [(50 + 2) * 0.1 * x for x in (0.0, 0.0, 1.0)]  # low = q0 = 0.2, high = q2 = 0.4, not low = v_mix
    assert sigma_q(node, GUMBEL)[0] == pytest.approx(sigma, abs=1e-12)
    weights = [0.6 * math.exp(sigma[0]), 0.0, 0.4 * math.exp(sigma[2])]
    assert improved_policy(node, settings=GUMBEL)[0] == pytest.approx([w / sum(weights) for w in weights], abs=1e-12)


def test_root_rule_by_hand():
    """Sequential halving at the root: among the candidates owed the schedule's visit, the largest
    g + logits + sigma(q)."""
    # m = min(16, 3 legal) = 3, n = 8: considered_visits(3, 8) = (0, 0, 0, 1, 1, 2, 2, 3) (ceil(log2 3) = 2:
    # r=3 one round, then r=2 two rounds, then r=2 again). After 4 simulations (visits 2, 1, -, 1) the 5th
    # needs candidates with 1 visit: actions 1 and 3; action 0 scores best but already had its visit.
    prior, visits, value_sum, legal = [0.4, 0.35, 0.0, 0.25], [2, 1, 0, 1], [-0.2, 0.3, 0.0, -0.5], LEGAL_A
    node = children(prior, visits, value_sum, legal, 0.0)  # q = [0.1, -0.3, -, 0.5]
    gumbel = np.array([[2.5, 0.2, 0.0, 0.1]])
    assert considered_visits(3, 8)[4] == 1
    sigma = [(50 + 2) * 0.1 * (q + 0.3) / 0.8 for q in (0.1, -0.3, 0.0, 0.5)]  # min -0.3, max 0.5
    score = [gumbel[0, a] + math.log(prior[a] / 0.4) + sigma[a] for a in (0, 1, 3)]  # logits shifted to max 0
    assert score[1] < score[2] < score[0]  # [5.1, 0.0665, 4.8300]: 0 is best, 3 the best candidate
    assert gumbel[0, 1] + math.log(0.35) > gumbel[0, 3] + math.log(0.25)  # by g + logits alone 1 would win
    context = RootContext(gumbel, np.array([4]), np.array([8]))
    assert gumbel_root_selection(node, SHARED, context, settings=GUMBEL).tolist() == [3]
    # in the first phase every unvisited legal action is owed its visit: the largest g + logits (sigma is equal)
    fresh = children(prior, [0, 0, 0, 0], [0.0] * 4, legal, 0.0)
    start = RootContext(gumbel, np.array([0]), np.array([8]))
    assert gumbel_root_selection(fresh, SHARED, start, settings=GUMBEL).tolist() == [0]  # 2.5 + log 0.4 is the largest


def test_final_action_by_hand():
    """The most visited candidate with the largest g + logits + sigma(q)."""
    prior, visits, value_sum = [0.5, 0.3, 0.0, 0.2], [3, 3, 0, 1], [-0.3, -1.2, 0.0, -0.9]  # q = 0.1, 0.4, -, 0.9
    node = children(prior, visits, value_sum, LEGAL_A, 0.0)
    gumbel = np.array([[0.4, 0.0, 0.0, 1.0]])
    sigma = [(50 + 3) * 0.1 * (q - 0.1) / 0.8 for q in (0.1, 0.4, 0.0, 0.9)]
    score = {a: gumbel[0, a] + math.log(prior[a] / 0.5) + sigma[a] for a in (0, 1, 3)}  # 0.4, 1.4767, 5.3837
    assert score[3] > score[1] > score[0]  # 3 scores best but has 1 visit; of the two with 3 visits, 1 wins
    assert gumbel[0, 0] + math.log(0.5) > gumbel[0, 1] + math.log(0.3)  # without sigma, 0 would
    assert gumbel_action(node, GUMBEL, gumbel).tolist() == [1]


# ---- the searches against the independent reference ---------------------------------------------------------


#: 12 random positions of each game of the registry (tictactoe from seed 5, connect_four from 6, ...)
POSITIONS = {name: random_positions(make_game(name), 12, seed=5 + i) for i, name in enumerate(distinct_games())}
# (m, n): every m of 1, 2, 4, 16 and every n of 4, 8, 16, 32, 50 at least once, n below m included
SETTINGS = [(1, 8), (2, 4), (2, 50), (4, 8), (4, 32), (16, 4), (16, 16), (16, 50)]


def draws(rng: np.random.Generator, game, state: np.ndarray, scale: float) -> dict[int, float] | None:
    """The root's Gumbel draws as the searches take them: ``scale * rng.gumbel`` on the legal moves in order."""
    if scale == 0:
        return None
    legal = np.flatnonzero(game.get_valid_moves(state))
    return {int(a): float(x) for a, x in zip(legal, scale * rng.gumbel(size=len(legal)), strict=True)}


def assert_matches(reference, visits, action, policy, improved, root_value, where: str) -> None:
    assert visits.astype(int).tolist() == reference.visits, where
    assert int(action) == reference.action, where
    assert np.allclose(improved, reference.improved_policy, rtol=0, atol=1e-9), where
    assert np.array_equal(policy, improved), where  # the Gumbel policy's training target is the improved policy
    assert root_value == pytest.approx(reference.root_value, abs=1e-9), where


@pytest.mark.parametrize("scale", [0.0, 1.0], ids=["no-noise", "noise"])
@pytest.mark.parametrize(("m", "n"), SETTINGS, ids=[f"m{m}-n{n}" for m, n in SETTINGS])
@pytest.mark.parametrize("game_name", list(POSITIONS))
def test_searches_match_the_reference(game_name, m, n, scale):
    game = make_game(game_name)
    net = FakeNet(game)
    evaluate = network_evaluator(game, net)
    positions = POSITIONS[game_name]
    terminal_leaves = 0
    for i, state in enumerate(positions):  # serial: one search per position, seed i
        config = gumbel_config(num_searches=n, gumbel_considered=m, gumbel_scale=scale, seed=i)
        mcts = AlphaMCTS(game, net, config)
        mcts.search(state)
        out = mcts.last_output
        reference = gumbel_search(game, evaluate, state, n, m, draws(np.random.default_rng(i), game, state, scale))
        visits = mcts.root.children_stats(game.action_size).visit_count[0]
        assert_matches(reference, visits, out.action, out.policy, out.improved_policy, out.root_value, f"serial {i}")
        terminal_leaves += mcts.last_search_stats.terminal_leaves
    if game_name == "tictactoe" and n >= 16:
        assert terminal_leaves > 0  # the rules' values were compared too

    # batched: all positions at once; the draws go game by game, in order, from one generator
    config = gumbel_config(num_searches=n, gumbel_considered=m, gumbel_scale=scale, seed=99)
    batched = BatchedMCTS(game, net, config)
    out = batched.run(np.stack(positions))
    visits = batched.children(batched.offsets + ROOT).visit_count
    rng = np.random.default_rng(99)
    for b, state in enumerate(positions):
        reference = gumbel_search(game, evaluate, state, n, m, draws(rng, game, state, scale))
        values = (visits[b], out.action[b], out.policy[b], out.improved_policy[b], out.root_value[b])
        assert_matches(reference, *values, f"batched {b}")


# ---- batched equals serial ---------------------------------------------------------------------------------
def outputs_equal(a, b) -> bool:
    """Two ``SearchOutput``s equal field by field, bit for bit."""
    return all(np.array_equal(x, y) for x, y in zip(vars(a).values(), vars(b).values(), strict=True))


def row(out, b: int):
    """Game ``b``'s ``SearchOutput`` out of a batched one."""
    return type(out)(*(field[b] for field in vars(out).values()))


@pytest.mark.parametrize("game_name", list(POSITIONS))
def test_batched_equals_serial_for_one_game_with_noise(game_name):
    game = make_game(game_name)
    net = FakeNet(game, seed=1)
    for i, state in enumerate(POSITIONS[game_name][::3]):
        config = gumbel_config(num_searches=24, gumbel_considered=4, gumbel_scale=1.0, seed=10 + i)
        serial = AlphaMCTS(game, net, config)
        serial.search(state)
        batched = BatchedMCTS(game, net, config)
        out = batched.run(state[None])
        assert outputs_equal(row(out, 0), serial.last_output)
        serial_visits = serial.root.children_stats(game.action_size).visit_count[0]
        assert np.array_equal(batched.children(batched.offsets + ROOT).visit_count[0], serial_visits)


@pytest.mark.parametrize("game_name", list(POSITIONS))
def test_batched_equals_serial_game_by_game_without_noise(game_name):
    game = make_game(game_name)
    net = FakeNet(game, seed=2)
    positions = POSITIONS[game_name]
    config = gumbel_config(num_searches=20, gumbel_considered=8)
    batched = BatchedMCTS(game, net, config)
    out = batched.run(np.stack(positions))
    visits = batched.children(batched.offsets + ROOT).visit_count
    for b, state in enumerate(positions):
        serial = AlphaMCTS(game, net, config)
        serial.search(state)
        assert outputs_equal(row(out, b), serial.last_output), b
        assert np.array_equal(visits[b], serial.root.children_stats(game.action_size).visit_count[0]), b


def test_batched_budgets_per_game_equal_serial_budgets():
    """``num_simulations`` below ``num_searches``: the visits sum to it, game by game, as in the serial search."""
    game = make_game("connect_four")
    net = FakeNet(game)
    positions = POSITIONS["connect_four"][:4]
    budgets = np.array([3, 17, 30, 8])
    config = gumbel_config(num_searches=30, gumbel_considered=4)
    batched = BatchedMCTS(game, net, config)
    out = batched.run(np.stack(positions), num_simulations=budgets)
    visits = batched.children(batched.offsets + ROOT).visit_count
    evaluate = network_evaluator(game, net)
    for b, state in enumerate(positions):
        serial = AlphaMCTS(game, net, config)
        serial.search(state, num_simulations=int(budgets[b]))
        serial_visits = serial.root.children_stats(game.action_size).visit_count[0]
        assert serial_visits.sum() == budgets[b] == visits[b].sum()
        assert outputs_equal(row(out, b), serial.last_output), b
        reference = gumbel_search(game, evaluate, state, int(budgets[b]), 4)
        found = serial.last_output
        values = (serial_visits, found.action, found.policy, found.improved_policy, found.root_value)
        assert_matches(reference, *values, f"budget {budgets[b]}")


def test_batched_gumbel_leaves_inactive_games_alone():
    """A game with ``active=False`` gets a budget of 0, yet the root rule runs on every row: the empty schedule
    ``considered_visits(m, 0) = ()`` must not be indexed (IndexError at 0b2a7ef, fixed in 0a342c1; batched self-play
    passes ``active=self.live``, so Gumbel self-play broke there once a game finished)."""
    game = make_game("tictactoe")
    net = FakeNet(game)
    state = POSITIONS["tictactoe"][0]
    config = gumbel_config(num_searches=8, gumbel_considered=4)
    batched = BatchedMCTS(game, net, config)
    out = batched.run(np.stack([state, state]), active=np.array([True, False]))
    serial = AlphaMCTS(game, net, config)
    serial.search(state)
    assert outputs_equal(row(out, 0), serial.last_output)
    assert out.action[1] == -1 and not out.policy[1].any()


# ---- behaviour ----------------------------------------------------------------------------------------------
WINS = [(name, game_name, state, move) for name, game_name, state, move in TACTICS if name.endswith("-win")]


@pytest.mark.parametrize(("name", "game_name", "state", "move"), WINS, ids=[w[0] for w in WINS])
def test_gumbel_search_takes_an_immediate_win(name, game_name, state, move):
    """Uniform priors, values 0 (the rules alone): the win's q = 1 tops the min-max, its sigma the others'."""
    game = make_game(game_name)
    net = ConstantNet(game)
    for scale, seed in [(0.0, None), (1.0, 0), (1.0, 1), (1.0, 2)]:
        config = gumbel_config(num_searches=16, gumbel_considered=16, gumbel_scale=scale, seed=seed)
        mcts = AlphaMCTS(game, net, config)
        policy = mcts.search(state)
        assert mcts.last_output.action == move, (scale, seed)
        assert policy.argmax() == move, (scale, seed)
        batched = BatchedMCTS(game, net, config)
        assert batched.run(state[None]).action[0] == move, (scale, seed)


@pytest.mark.parametrize("game_name", list(POSITIONS))
def test_improved_policy_is_a_distribution_on_the_legal_actions(game_name):
    game = make_game(game_name)
    positions = POSITIONS[game_name]
    config = gumbel_config(num_searches=12, gumbel_considered=4, gumbel_scale=1.0, seed=0)
    out = BatchedMCTS(game, FakeNet(game), config).run(np.stack(positions))
    for b, state in enumerate(positions):
        legal = game.get_valid_moves(state).astype(bool)
        serial = AlphaMCTS(game, FakeNet(game), config)
        for policy in (out.policy[b], out.improved_policy[b], serial.search(state)):
            assert policy.sum() == pytest.approx(1.0, abs=1e-12)
            assert (policy[~legal] == 0).all() and (policy[legal] > 0).all()
        assert legal[out.action[b]] and legal[serial.last_output.action]


def test_config_refuses_dirichlet_noise_with_gumbel():
    with pytest.raises(ValueError, match="Dirichlet"):
        gumbel_config(dirichlet_epsilon=0.25)
    gumbel_config(dirichlet_epsilon=0.0)
    SearchConfig(policy="puct", dirichlet_epsilon=0.25)


def test_batched_search_refuses_tree_reuse_with_gumbel():
    game = make_game("tictactoe")
    with pytest.raises(ValueError, match="tree reuse"):
        BatchedMCTS(game, FakeNet(game), gumbel_config(), reuse_tree=True)
    BatchedMCTS(game, FakeNet(game), SearchConfig(policy="puct"), reuse_tree=True)


@pytest.mark.parametrize("budget", [1, 5, 13])
def test_a_smaller_budget_is_honoured(budget):
    """``num_simulations`` below ``num_searches``: the schedule is the smaller budget's, the visits sum to it,
    and the search is the one a config with ``num_searches = budget`` runs."""
    game = make_game("tictactoe")
    state = game.get_initial_state()
    big = gumbel_config(num_searches=40, gumbel_considered=4, gumbel_scale=1.0, seed=7)
    small = gumbel_config(num_searches=budget, gumbel_considered=4, gumbel_scale=1.0, seed=7)
    cut = AlphaMCTS(game, FakeNet(game), big)
    cut.search(state, num_simulations=budget)
    whole = AlphaMCTS(game, FakeNet(game), small)
    whole.search(state)
    assert cut.root.children_stats(9).visit_count.sum() == budget == cut.last_search_stats.num_searches
    assert outputs_equal(cut.last_output, whole.last_output)
