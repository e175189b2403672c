"""The batched search (batched_mcts.py): equivalence with the serial search, tactics, tree reuse and masked games.
Its rules: test_batched_rules.py (and test_game_conformance.py); batched self-play: test_selfplay.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from fakes import ConstantNet, FakeNet
from positions import TACTICS, distinct_games, random_positions
from test_alpha_mcts import GOLDEN

from alphazero_lib import make_game
from alphazero_lib.alpha_mcts import AlphaMCTS, exploration_weight
from alphazero_lib.batched_mcts import ROOT, BatchedMCTS
from alphazero_lib.config import SearchConfig
from alphazero_lib.games.batched_rules import BatchedRules, batched_rules_for
from alphazero_lib.model import ResNet
from alphazero_lib.search_policies import exploration_weights

TTT, C4 = make_game("tictactoe"), make_game("connect_four")


# ---- equivalence with the serial search ------------------------------------------------------------------
@pytest.mark.parametrize(("game_name", "state", "options", "expected"), GOLDEN)
def test_batched_search_gives_the_serial_golden_counts(game_name, state, options, expected):
    game = make_game(game_name)
    state = game.get_initial_state() if state is None else state
    mcts = BatchedMCTS(game, FakeNet(game), SearchConfig(num_searches=200, seed=0, **options))
    counts = np.round(mcts.search(state[None])[0] * 200).astype(int)
    assert counts.tolist() == expected


@pytest.mark.parametrize("name", distinct_games())
@pytest.mark.parametrize("options", [{}, {"dirichlet_epsilon": 0.25}, {"pb_c_base": 500.0, "C": 0.0}])
def test_one_game_gives_the_same_visit_counts_as_alpha_mcts(name, options):
    game = make_game(name)
    net = FakeNet(game, seed=3)
    for state in random_positions(game, 4, seed=5):
        config = SearchConfig(num_searches=60, seed=11, **options)
        serial = AlphaMCTS(game, net, config)
        batched = BatchedMCTS(game, net, config, rules=BatchedRules(game) if name == "tictactoe" else None)
        serial_evaluations = 0
        for _ in range(2):  # the second search checks that the generators stay in step
            assert np.array_equal(batched.search(state[None])[0], serial.search(state))
            serial_evaluations += serial.last_search_stats.network_evaluations
        assert batched.stats.network_evaluations == serial_evaluations > 0


def test_one_game_with_a_resnet_gives_the_same_visit_counts():
    from alphazero_lib.model import ResNet

    game = make_game("connect_four")
    torch.manual_seed(0)
    model = ResNet(game, 1, 16).eval()
    state = random_positions(game, 6, seed=1)[-1]
    config = SearchConfig(num_searches=40, seed=2, dirichlet_epsilon=0.25)
    assert np.array_equal(
        BatchedMCTS(game, model, config).search(state[None])[0], AlphaMCTS(game, model, config).search(state)
    )


@pytest.mark.parametrize("name", distinct_games())
def test_every_game_of_a_batch_matches_its_own_serial_search_without_noise(name):
    game = make_game(name)
    net = FakeNet(game, seed=4)
    states = np.stack(random_positions(game, 12, seed=6))
    config = SearchConfig(num_searches=50, seed=0)
    probs = BatchedMCTS(game, net, config).search(states)
    for state, row in zip(states, probs, strict=True):
        assert np.array_equal(row, AlphaMCTS(game, net, config).search(state))


def search_counts(kind: str, game, net, config: SearchConfig, state: np.ndarray) -> dict[int, int]:
    """Root visit counts ``{action: visits}`` (visited actions only) of the serial or the batched search."""
    if kind == "serial":
        probs = AlphaMCTS(game, net, config).search(state)
    else:
        probs = BatchedMCTS(game, net, config).search(state[None])[0]
    counts = np.rint(probs * config.num_searches).astype(int)
    return {int(a): int(counts[a]) for a in np.flatnonzero(counts)}


def test_pb_c_weights_are_the_hand_computed_numbers():
    """c(N) = log((1 + N + base) / base) + init at base 10, init 1.25, worked out by hand: log 1.1, log 1.2, log 1.5."""
    config = SearchConfig(num_searches=8, pb_c_base=10, pb_c_init=1.25)
    expected = {0: 1.3453102, 1: 1.4323216, 4: 1.6554651}
    for parent_visits, c in expected.items():
        assert exploration_weight(config, parent_visits) == pytest.approx(c, abs=1e-7), parent_visits
    table = exploration_weights(config, np.array(list(expected)))  # the batched search's (search_policies)
    np.testing.assert_allclose(table, list(expected.values()), atol=1e-7)


# Two legal moves (cells 4 and 8), neither ends the game; the network gives 8 the prior 0.8, 4 the prior 0.2 and
# every position the value v. With pb_c_base 1 and pb_c_init 0, c(N) = log(1 + N): c(1) = 1.0986, c(2) = 1.3863,
# c(3) = 1.6094. Simulation 1 (N = 1) takes 8, whose value v is backed up, so for the parent Q(8) = -v.
# Simulation 2 (N = 2) compares U(8) = -v + c(2) * 0.8 * sqrt(2) / 2 with U(4) = c(2) * 0.2 * sqrt(2):
#   v = 0.35: U(8) = 0.4342 > U(4) = 0.3921 -> 8 again   (with c(1): 0.2715 < 0.3107 -> 4)
#   v = 0.42: U(8) = 0.3642 < U(4) = 0.3921 -> 4         (with c(3): 0.4904 > 0.4552 -> 8)
TWO_MOVES = np.array([[1, 1, -1], [1, 0, -1], [-1, -1, 0]], dtype=np.int8)


@pytest.mark.parametrize("kind", ["serial", "batched"])
@pytest.mark.parametrize(("value", "expected"), [(0.35, {8: 2}), (0.42, {4: 1, 8: 1})])
def test_pb_c_schedule_uses_the_parent_visit_count_of_this_simulation(kind, value, expected):
    game = make_game("tictactoe")
    logits = np.full(9, -30.0)
    logits[[4, 8]] = np.log([0.2, 0.8])
    net = ConstantNet(game, logits=logits, value=value)
    config = SearchConfig(num_searches=2, pb_c_base=1, pb_c_init=0.0, dirichlet_epsilon=0.0)
    assert search_counts(kind, game, net, config, TWO_MOVES) == expected


@pytest.mark.parametrize("kind", ["serial", "batched"])
@pytest.mark.parametrize("options", [{"C": 2.0}, {"pb_c_base": 10, "pb_c_init": 1.25}])
def test_tied_priors_go_to_the_lowest_legal_action(kind, options):
    """Equal priors and value 0: every unvisited child scores the same, so the simulations take the lowest
    legal actions one by one (cells 0 and 1 are taken here)."""
    game = make_game("tictactoe")
    state = np.zeros((3, 3), dtype=np.int8)
    state[0, 0], state[0, 1] = 1, -1
    config = SearchConfig(num_searches=3, dirichlet_epsilon=0.0, **options)
    assert search_counts(kind, game, ConstantNet(game), config, state) == {2: 1, 3: 1, 4: 1}
    connect_four = make_game("connect_four")
    config = SearchConfig(num_searches=2, dirichlet_epsilon=0.0, **options)
    start = connect_four.get_initial_state()
    assert search_counts(kind, connect_four, ConstantNet(connect_four), config, start) == {0: 1, 1: 1}


# ---- tactics and statistics ------------------------------------------------------------------------------
def test_takes_the_win_and_blocks_the_loss_in_one_batch():
    for game_name in ("tictactoe", "connect_four"):
        cases = [(state, best) for _, name, state, best in TACTICS if name == game_name]
        game = make_game(game_name)
        probs = BatchedMCTS(game, ConstantNet(game), SearchConfig(num_searches=200, seed=0)).search(
            np.stack([state for state, _ in cases])
        )
        assert [int(np.argmax(p)) for p in probs] == [best for _, best in cases]


def test_stats_count_one_evaluation_per_non_terminal_leaf_plus_the_root():
    game = make_game("tictactoe")
    mcts = BatchedMCTS(game, FakeNet(game), SearchConfig(num_searches=300, seed=0))
    probs = mcts.search(np.stack(random_positions(game, 5, seed=0)))
    stats = mcts.stats
    assert stats.positions == 5 and stats.simulations == 1500
    assert stats.network_evaluations == 5 + 1500 - stats.terminal_leaves
    assert stats.terminal_leaves > 0  # small trees: the search reaches finished games and scores them by rule
    assert np.allclose(probs.sum(axis=1), 1.0)
    assert np.array_equal(mcts.visit_count[:, ROOT], np.full(5, 301.0))


def test_run_steps_yields_after_the_root_step_and_each_simulation_and_ends_as_run():
    game = make_game("connect_four")
    states = np.stack(random_positions(game, 3, seed=2))
    config = SearchConfig(num_searches=8, seed=1, dirichlet_epsilon=0.25)
    stepped = BatchedMCTS(game, FakeNet(game), config)
    budget = np.array([8, 3, 5])
    seen = []
    for step in stepped.run_steps(states, num_simulations=budget):
        seen.append(step)
        assert np.array_equal(stepped.visit_count[:, ROOT], 1 + np.minimum(step, budget))  # the trees as they grow
    assert seen == list(range(9))
    whole = BatchedMCTS(game, FakeNet(game), config).run(states, num_simulations=budget)
    assert np.array_equal(stepped.last_output.policy, whole.policy)
    assert np.array_equal(stepped.last_output.action, whole.action)


# ---- masked games ----------------------------------------------------------------------------------------
def test_inactive_games_are_left_alone_and_draw_no_noise():
    game = make_game("connect_four")
    net = FakeNet(game)
    states = np.stack(random_positions(game, 3, seed=9))
    config = SearchConfig(num_searches=30, seed=7, dirichlet_epsilon=0.25)
    mcts = BatchedMCTS(game, net, config)
    mcts.search(states)
    snapshot = {name: getattr(mcts, name)[1].copy() for name in ("visit_count", "value_sum", "states", "priors")}
    mcts.rng = np.random.default_rng(123)
    probs = mcts.search(states, active=np.array([True, False, True]))
    assert not probs[1].any()
    for name, before in snapshot.items():
        assert np.array_equal(getattr(mcts, name)[1], before), name
    # the active games see exactly what a batch of only them would see (same noise draws, in order)
    pair = BatchedMCTS(game, net, config)
    pair.rng = np.random.default_rng(123)
    assert np.array_equal(pair.search(states[[0, 2]]), probs[[0, 2]])


def test_a_game_without_legal_moves_is_an_error():
    game = make_game("tictactoe")
    full = np.array([[1, -1, 1], [1, -1, -1], [-1, 1, 1]], dtype=np.int8)
    with pytest.raises(ValueError, match="no legal moves"):
        BatchedMCTS(game, FakeNet(game), SearchConfig(num_searches=5)).search(
            np.stack([game.get_initial_state(), full])
        )


# ---- tree reuse ------------------------------------------------------------------------------------------
def subtree_statistics(mcts: BatchedMCTS, game_index: int, node: int) -> list[tuple]:
    """The statistics of the subtree under ``node``, in a canonical order (by action path)."""
    N = mcts.num_nodes_max
    rows = []

    def walk(n: int, path: tuple) -> None:
        rows.append(
            (
                path,
                float(mcts.visit_count[game_index, n]),
                float(mcts.value_sum[game_index, n]),
                mcts.states[game_index, n].tobytes(),
                bool(mcts.is_terminal[game_index, n]),
            )
        )
        for action, child in enumerate(mcts.children_index[game_index, n]):
            if child:
                assert child // N == game_index and mcts.parent[game_index, child % N] == n
                walk(int(child % N), (*path, action))

    walk(node, ())
    return rows


def test_tree_reuse_keeps_the_subtree_of_the_move_played():
    game = make_game("connect_four")
    net = FakeNet(game)
    states = np.stack(random_positions(game, 4, seed=3))
    config = SearchConfig(num_searches=80, seed=0)
    mcts = BatchedMCTS(game, net, config, reuse_tree=True)
    probs = mcts.search(states)
    actions = probs.argmax(axis=1)
    actions[3] = -1  # game 3 is not continued: its tree is dropped
    N = mcts.num_nodes_max
    expected = [
        subtree_statistics(mcts, b, int(mcts.children_index[b, ROOT, a] % N)) if a >= 0 else None
        for b, a in enumerate(actions)
    ]
    raw = [float(mcts.raw_value[b, mcts.children_index[b, ROOT, a] % N]) for b, a in enumerate(actions[:3])]
    mcts.advance(actions)
    assert mcts.root_kept.tolist() == [True, True, True, False]
    for b in range(3):
        kept = subtree_statistics(mcts, b, ROOT)
        # a root's value_sum holds only backed-up values: the kept child's own evaluation leaves it
        assert kept[0][2] == pytest.approx(expected[b][0][2] - raw[b], abs=1e-6)
        assert kept[1:] == expected[b][1:] and kept[0][:2] + kept[0][3:] == expected[b][0][:2] + expected[b][0][3:]
        assert mcts.num_nodes[b] == len(expected[b]) + 1
    # the next search tops the kept roots up to num_searches + 1 visits, at fewer network evaluations
    children = batched_rules_for(game).child_states(states[:3], actions[:3])
    mcts.reset_stats()
    next_probs = mcts.search(np.concatenate([children, states[3:]]))
    assert np.allclose(next_probs.sum(axis=1), 1.0)
    assert mcts.stats.reused_roots == 3
    assert np.array_equal(mcts.visit_count[:, ROOT], np.full(4, 81.0))
    assert mcts.stats.network_evaluations < 4 * 81


def test_the_root_value_is_the_mean_of_its_evaluation_and_backed_up_values_with_or_without_reuse():
    """A root's value is (its own evaluation + the values backed up through it) / its visits: every backup through
    the root went into one child, so that sum is minus the children's value sums. A kept subtree's root once
    counted its own evaluation twice (|value| > 1 in the value targets, and latest.pt refused on a resume)."""
    game = make_game("connect_four")
    net = FakeNet(game, seed=2)
    states = np.stack(random_positions(game, 6, seed=8))
    mcts = BatchedMCTS(game, net, SearchConfig(num_searches=60, seed=0, dirichlet_epsilon=0.25), reuse_tree=True)
    rules = batched_rules_for(game)
    for turn in range(3):
        output = mcts.run(states)
        children = mcts.children(mcts.offsets + ROOT)
        visits = children.visit_count.sum(axis=1)
        assert np.array_equal(mcts.visit_count[:, ROOT], 1 + visits)
        expected = (children.raw_value - children.value_sum.sum(axis=1)) / (1 + visits)
        assert np.allclose(output.root_value, expected, atol=1e-12), turn
        assert (np.abs(output.root_value) <= 1).all()
        if turn:
            assert mcts.stats.reused_roots > 0
        actions = output.action
        next_states = rules.child_states(states, actions)
        live = ~rules.value_and_terminated(next_states, actions)[1]
        mcts.advance(np.where(live, actions, -1))
        states = np.where(live[:, None, None], next_states, states)


def test_tree_reuse_after_action_zero_and_after_an_unsearched_move():
    """Mutation testing found these unchecked: action 0 is a move like any other, a move the search never tried
    has no subtree to keep, and reset() forgets the kept roots."""
    game = make_game("tictactoe")
    config = SearchConfig(num_searches=3, dirichlet_epsilon=0.0)  # equal priors: actions 0, 1, 2 get one visit
    mcts = BatchedMCTS(game, ConstantNet(game), config, reuse_tree=True)
    mcts.search(np.stack([game.get_initial_state()] * 3))
    N = mcts.num_nodes_max
    expected = subtree_statistics(mcts, 0, int(mcts.children_index[0, ROOT, 0] % N))
    mcts.advance(np.array([0, 8, -1]))
    assert mcts.root_kept.tolist() == [True, False, False]
    assert subtree_statistics(mcts, 0, ROOT) == expected and mcts.num_nodes[0] == len(expected) + 1
    mcts.reset()
    assert not mcts.root_kept.any()


def test_a_search_from_another_position_does_not_reuse_the_tree():
    game = make_game("tictactoe")
    net = FakeNet(game)
    config = SearchConfig(num_searches=40, seed=0)
    mcts = BatchedMCTS(game, net, config, reuse_tree=True)
    start = game.get_initial_state()[None]
    mcts.search(start)
    mcts.advance(np.array([4]))
    other = game.change_perspective(game.get_next_state(start[0], 0, 1), -1)[None]
    assert np.array_equal(mcts.search(other), BatchedMCTS(game, net, config).search(other))
    assert mcts.stats.reused_roots == 0


# ---- inputs and sizes the searches refuse (issue 28) -----------------------------------------------------------------
def test_search_trees_larger_than_memory_are_refused_before_allocation(monkeypatch):
    from fakes import FakeNet

    import alphazero_lib.batched_mcts as batched_mcts
    from alphazero_lib.batched_mcts import BatchedMCTS

    monkeypatch.setattr(batched_mcts, "physical_memory", lambda: 10**7)  # a 10 MB machine
    mcts = BatchedMCTS(C4, FakeNet(C4), SearchConfig(num_searches=2_000))
    states = np.zeros((16, 6, 7), dtype=np.int8)
    with pytest.raises(
        ValueError, match=r"the search trees of 16 games with 2,002 node slots each .* would take 0.0 GB"
    ):
        mcts.search(states)
    assert BatchedMCTS(C4, FakeNet(C4), SearchConfig(num_searches=10)).search(states[:4]).shape == (4, 7)
    assert batched_mcts.tree_bytes(16, 2002, C4) == 16 * 2002 * (50 + 42 + 24 * 7)


@pytest.mark.parametrize("search", ["AlphaMCTS", "BatchedMCTS"])
def test_a_search_refuses_a_network_for_another_game(search):
    from alphazero_lib.alpha_mcts import AlphaMCTS
    from alphazero_lib.batched_mcts import BatchedMCTS
    from alphazero_lib.inference import FastEvaluator

    cls = {"AlphaMCTS": AlphaMCTS, "BatchedMCTS": BatchedMCTS}[search]
    network = ResNet(C4, 1, 8).eval()
    message = r"this network plays ConnectFour\(rows=6, columns=7, in_a_row=4\), but the search plays TicTacToe"
    with pytest.raises(ValueError, match=message):
        cls(TTT, network, SearchConfig(num_searches=4))
    with pytest.raises(ValueError, match=message):
        cls(TTT, FastEvaluator(network, "fp32", cache_dir=None), SearchConfig(num_searches=4))
    cls(C4, network, SearchConfig(num_searches=4))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: s.__setitem__((1, 0, 0), 2), r"game 1: state values must be -1, 0 or 1 .*got \[2\]"),
        (lambda s: s.__setitem__((2, 5, 0), 1), "game 2: this position cannot arise: player 1 has 2 stones"),
        (
            lambda s: s.__setitem__((0, 0, 6), -1),
            "game 0: this position cannot arise in Connect Four: the stone at row 0",
        ),
        ("won", "game 3 is already won \\(a player has 4 in a row\\); the search needs a live game"),
        ("float", r"game 1: state values must be -1, 0 or 1 .*got \[0.5\]"),
    ],
)
def test_batched_search_inputs_are_held_to_the_serial_searchs_rules(change, message):
    from fakes import FakeNet

    from alphazero_lib.alpha_mcts import AlphaMCTS
    from alphazero_lib.batched_mcts import BatchedMCTS

    states = np.zeros((4, 6, 7), dtype=np.int8)
    states[:, 5, 3] = 1  # one stone each: legal canonical positions (the mover is player -1)
    if change == "won":
        states[3, 2:, 0] = 1
        states[3, 5, 1:5] = -1
        states[3, 5, 3] = 1
        states[3, 4, 3] = -1
    elif change == "float":
        states = states.astype(float)
        states[1, 0, 0] = 0.5
    else:
        change(states)
    mcts = BatchedMCTS(C4, FakeNet(C4), SearchConfig(num_searches=4))
    with pytest.raises(ValueError, match=message):
        mcts.search(states)
    bad = int(message.split()[1].rstrip(":")) if message.startswith("game") else 0
    with pytest.raises(ValueError):  # the serial search refuses the same state
        AlphaMCTS(C4, FakeNet(C4), SearchConfig(num_searches=4)).search(np.asarray(states[bad]))
    active = np.ones(4, dtype=bool)
    active[bad] = False  # an inactive game's row is not searched, so not checked
    mcts.run(states, active)


def test_batched_search_takes_float_states_of_minus_one_zero_and_one_as_before():
    from fakes import FakeNet

    from alphazero_lib.batched_mcts import BatchedMCTS

    states = np.stack(random_positions(C4, 8, seed=5)[1::2])  # canonical views
    config = SearchConfig(num_searches=12, seed=3)
    exact = BatchedMCTS(C4, FakeNet(C4), config).search(states)
    np.testing.assert_array_equal(BatchedMCTS(C4, FakeNet(C4), config).search(states.astype(np.float32)), exact)
