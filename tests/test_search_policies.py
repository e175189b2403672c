"""Every registered search policy through both searches: the registry is the list, so a policy added as one module
and a line in ``search_policies.POLICIES`` is tested here without a line of this file changing.

What every policy must do: the batched search gives the serial search's output bit for bit (one game with its
root noise; a batch without noise, game by game); the policy is a probability distribution over the legal moves
only; the root spends exactly its budget; the command line offers the policy. A policy with a setting of its own
is one module and a registry line: a test-only policy, registered here, gets its setting from a config, a preset and
the command line. Then the third policy's own rules, KataGo's forced playouts and policy-target pruning, against
hand-worked numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pytest
from fakes import FakeNet
from positions import distinct_games, random_positions

from alphazero_lib import make_game
from alphazero_lib.alpha_mcts import AlphaMCTS
from alphazero_lib.batched_mcts import ROOT, BatchedMCTS
from alphazero_lib.cli import build_parser
from alphazero_lib.config import PRESETS, SearchConfig, TrainConfig
from alphazero_lib.search_policies import POLICIES, Children, PolicySettings, SearchPolicy, puct_selection
from alphazero_lib.search_policies.forced_playouts import (
    ForcedPlayoutsSettings,
    forced_root_selection,
    pruned_policy,
    pruned_visits,
)
from alphazero_lib.search_policies.puct import dirichlet_noise, draws_dirichlet, most_visited
from alphazero_lib.settings import setting

FORCED = ForcedPlayoutsSettings()  # KataGo's k = 2


def noisy_config(name: str, **options) -> SearchConfig:
    """The policy's self-play search: its own root noise on (Dirichlet, or Gumbel draws)."""
    noise = {"gumbel_scale": 1.0, "gumbel_considered": 4} if name == "gumbel" else {"dirichlet_epsilon": 0.25}
    return SearchConfig.from_dict({"policy": name, **noise, **options})


def outputs_equal(a, b) -> bool:
    """Two ``SearchOutput``s equal field by field, bit for bit."""
    return all(np.array_equal(x, y) for x, y in zip(vars(a).values(), vars(b).values(), strict=True))


def row(out, b: int):
    """Game ``b``'s ``SearchOutput`` out of a batched one."""
    return type(out)(*(field[b] for field in vars(out).values()))


@pytest.mark.parametrize("game_name", distinct_games())
@pytest.mark.parametrize("name", sorted(POLICIES))
def test_batched_equals_serial_for_one_game_with_root_noise(name, game_name):
    game = make_game(game_name)
    net = FakeNet(game, seed=1)
    for i, state in enumerate(random_positions(game, 8, seed=3)[::2]):
        config = noisy_config(name, num_searches=24, seed=10 + i)
        serial = AlphaMCTS(game, net, config)
        serial.search(state)
        batched = BatchedMCTS(game, net, config)
        out = batched.run(state[None])
        assert outputs_equal(row(out, 0), serial.last_output), i
        serial_visits = serial.root.children_stats(game.action_size).visit_count[0]
        assert np.array_equal(batched.children(batched.offsets + ROOT).visit_count[0], serial_visits), i


@pytest.mark.parametrize("game_name", distinct_games())
@pytest.mark.parametrize("name", sorted(POLICIES))
def test_batched_equals_serial_game_by_game_without_noise(name, game_name):
    game = make_game(game_name)
    net = FakeNet(game, seed=2)
    positions = random_positions(game, 10, seed=4)
    config = SearchConfig(policy=name, num_searches=20)
    batched = BatchedMCTS(game, net, config)
    out = batched.run(np.stack(positions))
    for b, state in enumerate(positions):
        serial = AlphaMCTS(game, net, config)
        serial.search(state)
        assert outputs_equal(row(out, b), serial.last_output), b


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_the_policy_is_a_distribution_over_legal_moves_and_the_budget_is_spent(name):
    game = make_game("connect_four")
    net = FakeNet(game, seed=5)
    positions = random_positions(game, 12, seed=6)
    budgets = np.array([1, 2, 3, 5, 8, 13, 21, 30, 30, 7, 4, 16])
    config = noisy_config(name, num_searches=30, seed=0)
    batched = BatchedMCTS(game, net, config)
    out = batched.run(np.stack(positions), num_simulations=budgets)
    visits = batched.children(batched.offsets + ROOT).visit_count
    for b, state in enumerate(positions):
        legal = game.get_valid_moves(state).astype(bool)
        policy = out.policy[b]
        assert (policy >= 0).all() and math.isclose(policy.sum(), 1.0, rel_tol=1e-9), (b, policy)
        assert (policy[~legal] == 0).all(), (b, policy)
        assert legal[out.action[b]], b
        assert visits[b].sum() == budgets[b], (b, visits[b])  # the root's own evaluation is not a child's visit
        serial = AlphaMCTS(game, net, config)
        serial.search(state, num_simulations=int(budgets[b]))
        assert serial.root.visit_count == budgets[b] + 1


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_the_command_line_and_the_trainer_offer_every_policy(name):
    args = build_parser().parse_args(["train", "--game", "tictactoe", "--out", "r", "--search-policy", name])
    assert args.policy == name
    config = TrainConfig(search=SearchConfig(policy=name), reuse_tree=POLICIES[name].fresh_root is None)
    assert config.search.policy == name


def test_an_unknown_policy_is_refused_with_the_registry_names():
    with pytest.raises(ValueError, match=r"one of \['puct', 'gumbel', 'forced_playouts'\], got 'katago'"):
        SearchConfig(policy="katago")


def test_a_setting_of_another_policy_is_dropped_and_a_wrong_one_refused():
    # configs recorded before the policies owned their settings hold the Gumbel ones whatever the policy
    old = {"policy": "puct", "gumbel_considered": 8, "gumbel_scale": 1.0, "gumbel_c_visit": 50.0}
    assert SearchConfig.from_dict(old) == SearchConfig()
    assert SearchConfig.from_dict({**old, "policy": "gumbel"}).policy_settings.gumbel_considered == 8
    with pytest.raises(ValueError, match=r"unknown GumbelSettings settings \['gumbel_k'\]; known: \['gumbel_c_scale'"):
        SearchConfig(policy="gumbel", policy_settings={"gumbel_k": 2})
    with pytest.raises(ValueError, match="policy_settings must be the gumbel policy's GumbelSettings or a dict"):
        SearchConfig(policy="gumbel", policy_settings=FORCED)


# ---- a policy with a setting of its own: one module and a registry line ------------------------------------------
@dataclass
class BoostSettings(PolicySettings):
    """The test-only policy's own setting."""

    boosted_weight: float = setting(1.0, allowed=(lambda v: v > 0, "positive"), flag=True, group="schedule")
    """How much the root's priors are boosted against their Q-values."""


def boosted_root_selection(children: Children, config, root=None, *, settings: BoostSettings):
    """PUCT at the root with the priors times ``boosted_weight``."""
    return puct_selection(replace(children, prior=children.prior * settings.boosted_weight), config)


BOOSTED = SearchPolicy(
    name="boosted",
    root_noise=dirichlet_noise,
    draws_noise=draws_dirichlet,
    root_selection=boosted_root_selection,
    interior_selection=puct_selection,
    output=most_visited,
    settings=BoostSettings,
)


def test_a_policy_with_a_setting_of_its_own_is_one_module_and_a_registry_line(monkeypatch, capsys):
    monkeypatch.setitem(POLICIES, "boosted", BOOSTED)  # the registry line
    monkeypatch.setitem(
        PRESETS, "boosted_run", {"search": {"num_searches": 12, "policy": "boosted", "boosted_weight": 4.0}}
    )
    config = TrainConfig.from_preset("boosted_run").search  # a preset names it flat, as a config dict may
    assert config.policy_settings == BoostSettings(boosted_weight=4.0)
    assert TrainConfig.from_dict(TrainConfig(search=config).to_dict()).search == config  # saved, read back
    assert (
        TrainConfig.from_dict({"policy": "boosted", "boosted_weight": 4.0, "num_searches": 12}).search == config
    )  # flags
    # built with it: U = Q + 2 * prior * 3 / 5: 0.96 against 0.84 without the boost, 2.04 against 3.36 with it
    node = root([0.3, 0.7], [4, 4], [0.6, 0.0])
    assert config.search_policy().root_selection(node, config, None).tolist() == [1]
    assert SearchConfig(policy="boosted").search_policy().root_selection(node, config, None).tolist() == [0]
    game = make_game("tictactoe")
    state = random_positions(game, 1, seed=0)[0]
    search = AlphaMCTS(game, FakeNet(game, seed=1), replace(config, seed=0))
    search.search(state)
    assert outputs_equal(
        row(BatchedMCTS(game, FakeNet(game, seed=1), replace(config, seed=0)).run(state[None]), 0), search.last_output
    )
    # the command line's flag, from the declaration
    args = build_parser().parse_args(["train", "--game", "tictactoe", "--out", "r", "--boosted-weight", "4"])
    assert args.boosted_weight == 4.0
    # a bad value: the dataclass's words, in a config and under the flag
    with pytest.raises(ValueError, match=r"BoostSettings\.boosted_weight must be positive, got -1"):
        SearchConfig.from_dict({"policy": "boosted", "boosted_weight": -1.0})
    with pytest.raises(SystemExit):
        build_parser().parse_args(["train", "--game", "tictactoe", "--out", "r", "--boosted-weight", "-1"])
    assert "argument --boosted-weight: must be positive, got -1" in capsys.readouterr().err


# ---- KataGo's forced playouts and policy-target pruning, by hand ---------------------------------------------
def root(prior, visits, q, parent_visits=None) -> Children:
    """One root's children ``[1, A]`` from the parent mover's Q-values (every action legal)."""
    prior, visits, q = (np.array([x], dtype=np.float64) for x in (prior, visits, q))
    total = visits.sum() + 1 if parent_visits is None else parent_visits
    return Children(prior, visits, -q * visits, np.zeros_like(prior), np.array([float(total)]), np.zeros(1))


def test_a_child_below_its_forced_visits_is_taken_before_plain_puct():
    # 20 visits so far: n_forced = sqrt(2 * prior * 20): 2.83 for prior 0.2, 4.47 for 0.5, 2.0 for 0.1 (>= 2 visits)
    node = root([0.5, 0.2, 0.2, 0.1], [14, 2, 2, 2], [0.4, -0.5, -0.6, 0.0])
    config = SearchConfig(C=1.0)
    assert POLICIES["puct"].root_selection(node, config, None).tolist() == [0]  # PUCT would take the best Q
    # forced: actions 1 and 2 (2 < 2.83); of these the larger PUCT score (Q -0.5 beats -0.6)
    assert forced_root_selection(node, config, settings=FORCED).tolist() == [1]
    enough = root([0.5, 0.2, 0.2, 0.1], [14, 4, 4, 3], [0.4, -0.5, -0.6, 0.0])  # none below sqrt(2 * prior * 25)
    expected = POLICIES["puct"].root_selection(enough, config).tolist()
    assert forced_root_selection(enough, config, settings=FORCED).tolist() == expected


def test_pruning_takes_forced_visits_off_as_long_as_the_child_stays_below_the_best():
    config = SearchConfig(C=1.0)
    node = root([0.4, 0.3, 0.15, 0.1, 0.05], [60, 25, 10, 3, 2], [0.2, 0.1, -0.3, 0.15, -0.5], parent_visits=101)
    kept = pruned_visits(node, config, FORCED)[0]
    sqrt_n, total = math.sqrt(101), 100
    best_score = 0.2 + 1.0 * 0.4 * sqrt_n / 61
    for action, (prior, visits, q) in enumerate(
        [(0.3, 25, 0.1), (0.15, 10, -0.3), (0.1, 3, 0.15), (0.05, 2, -0.5)], start=1
    ):
        forced = math.sqrt(FORCED.forced_playouts_k * prior * total)
        needed = prior * sqrt_n / (best_score - q) - 1  # the fewest visits that keep U at or below the best's
        expected = min(max(visits - forced, needed, 0.0), visits)
        expected = 0.0 if expected <= 1 else expected
        assert kept[action] == pytest.approx(expected, abs=1e-12), action
    assert kept[0] == 60  # the most visited child keeps every visit
    assert 17 < kept[1] < 18 and 4 < kept[2] < 5  # forced visits taken off: 7.75 and 5.48
    assert kept[3] == 3  # its Q (0.15) is near the best's score: every visit is needed to stay below it
    assert kept[4] == 0  # a child pruned to at most one visit is dropped
    policy, action = pruned_policy(node, config, np.zeros((1, 5)), settings=FORCED)
    assert policy[0] == pytest.approx(kept / kept.sum()) and action.tolist() == [0]


def test_a_child_whose_mean_value_beats_the_best_score_is_not_pruned():
    config = SearchConfig(C=1.0)
    node = root([0.1, 0.9], [30, 10], [0.1, 0.9], parent_visits=41)  # U(1) > U(0) even with all its visits
    assert pruned_visits(node, config, FORCED)[0].tolist() == [30.0, 10.0]
