"""Vanilla MCTS: golden visit counts, tactics, bookkeeping and strength against random play."""

from __future__ import annotations

import numpy as np
import pytest
from positions import TACTICS

from alphazero_lib import make_game
from alphazero_lib.arena import play_match
from alphazero_lib.config import MCTSConfig
from alphazero_lib.mcts import MCTS
from alphazero_lib.players import MCTSPlayer, RandomPlayer

TTT_MID = np.array([[1, 0, 0], [0, -1, 0], [0, 0, 0]], dtype=np.int8)

# Generated once with 200 searches and seed 0, then inspected: each sums to 200, occupied cells get nothing.
GOLDEN = [
    ("tictactoe", None, [21, 14, 20, 21, 26, 12, 32, 19, 35]),
    ("tictactoe", TTT_MID, [0, 22, 39, 24, 0, 40, 44, 18, 13]),
    ("connect_four", None, [24, 19, 27, 41, 17, 38, 34]),
]


@pytest.mark.parametrize(("game_name", "state", "expected"), GOLDEN)
def test_golden_visit_counts(game_name, state, expected):
    game = make_game(game_name)
    state = game.get_initial_state() if state is None else state
    probs = MCTS(game, MCTSConfig(num_searches=200, seed=0)).search(state)
    assert np.round(probs * 200).astype(int).tolist() == expected


def test_othello_search_covers_the_four_opening_moves():
    game = make_game("othello6")
    probs = MCTS(game, MCTSConfig(num_searches=200, seed=0)).search(game.get_initial_state())
    assert {int(a) for a in np.flatnonzero(probs)} == {8, 13, 22, 27}
    assert probs.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(("name", "game_name", "state", "best"), TACTICS, ids=[t[0] for t in TACTICS])
def test_takes_the_win_and_blocks_the_loss(name, game_name, state, best):
    game = make_game(game_name)
    searches = 1000 if game_name == "tictactoe" else 2000
    for seed in range(2):
        probs = MCTS(game, MCTSConfig(num_searches=searches, seed=seed)).search(state)
        assert int(np.argmax(probs)) == best, (seed, probs.round(3))


def test_tree_bookkeeping_and_perspective():
    game = make_game("tictactoe")
    mcts = MCTS(game, MCTSConfig(num_searches=300, seed=1))
    probs = mcts.search(TTT_MID)
    root = mcts.root
    assert root.visit_count == 300
    assert sum(child.visit_count for child in root.children) == 300
    assert probs[[0, 4]].tolist() == [0, 0]
    child = root.children[0]
    # a child's state is the position after the move, seen by the opponent (their pieces become 1)
    expected = game.change_perspective(game.get_next_state(TTT_MID, child.action_taken, 1), -1)
    assert np.array_equal(child.state, expected)
    # the root's value is from its mover's view: minus the children's (their movers are the opponent)
    assert root.value_sum == pytest.approx(-sum(c.value_sum for c in root.children))


def test_seeded_search_repeats_and_input_is_not_changed():
    game = make_game("connect_four")
    state = game.get_initial_state()
    first = MCTS(game, MCTSConfig(num_searches=100, seed=3)).search(state)
    second = MCTS(game, MCTSConfig(num_searches=100, seed=3)).search(state)
    assert np.array_equal(first, second)
    assert not state.any()


def test_config_and_finished_games_are_checked():
    with pytest.raises(ValueError, match="num_searches"):
        MCTSConfig(num_searches=0)
    with pytest.raises(ValueError, match="C must"):
        MCTSConfig(C=-1)
    game = make_game("tictactoe")
    full = np.array([[1, -1, 1], [1, -1, -1], [-1, 1, 1]], dtype=np.int8)
    with pytest.raises(ValueError, match="no legal moves"):
        MCTS(game, MCTSConfig(num_searches=5)).search(full)


def test_mcts_1000_never_loses_to_random_at_tictactoe():
    """50 games, 25 on each seat (random needs no more to punish a search that misses a block now and then)."""
    game = make_game("tictactoe")
    result = play_match(game, MCTSPlayer(game, MCTSConfig(num_searches=1000), seed=0), RandomPlayer(game, 1), 50, False)
    assert result.losses == 0, str(result)
    assert result.wins >= 40, str(result)


def test_ucb1_is_the_hand_computed_number_and_select_takes_the_largest():
    """Parent visited 10 times; children (value_sum from the child's mover's view, visits): UCB1 with C = 1.5 is
    (1 - value_sum / visits) / 2 + C * sqrt(ln 10 / visits), worked out by hand below."""
    from alphazero_lib.mcts import Node

    game = make_game("tictactoe")
    parent = Node(game, game.get_initial_state())
    parent.visit_count = 10
    children = []
    for action, (value_sum, visits) in enumerate([(2.0, 4), (-1.0, 3), (0.0, 3)]):
        child = Node(game, game.get_initial_state(), parent, action)
        child.value_sum, child.visit_count = value_sum, visits
        children.append(child)
    parent.children = children
    # (1 - 0.5) / 2 + 1.5 * sqrt(2.302585 / 4) = 0.25 + 1.138070; 0.666667 + 1.314130; 0.5 + 1.314130
    expected = [1.38807, 1.980797, 1.81413]
    assert [round(parent.get_ucb(child, 1.5), 6) for child in children] == expected
    assert parent.select(1.5) is children[1]
    children[2].value_sum = -1.0  # now a tie with child 1: the first one wins
    assert parent.select(1.5) is children[1]
    assert parent.select(0.0) is children[1] and round(parent.get_ucb(children[0], 0.0), 6) == 0.25
