"""The batched search's ``Tree``: its shape table, clearing and moving every field, tree reuse that keeps every
field of the subtree, and the node capacity (``num_searches + 2``) guarded over whole games with tree reuse."""

from __future__ import annotations

import re
from dataclasses import fields

import numpy as np
import pytest
from fakes import ConstantNet, FakeNet
from positions import distinct_games

from alphazero_lib import make_game
from alphazero_lib.batched_mcts import NULL, ROOT, BatchedMCTS, Tree
from alphazero_lib.config import SearchConfig

SIZES = {"B": 2, "N": 5, "A": 9, "R": 3, "C": 3}


def test_the_docstring_table_gives_every_field_its_shape_and_dtype():
    tree = Tree.zeros(SIZES["B"], SIZES["N"], SIZES["A"], (SIZES["R"], SIZES["C"]))
    rows = re.findall(r"^\s*(\w+)\s+\[([A-Z, ]+)\]\s+(\w+)\s+\S", Tree.__doc__, flags=re.MULTILINE)
    assert [name for name, _, _ in rows] == [field.name for field in fields(Tree)]
    for name, shape, dtype in rows:
        array = getattr(tree, name)
        assert array.shape == tuple(SIZES[axis.strip()] for axis in shape.split(",")), name
        assert array.dtype == np.dtype(dtype), name


def filled_tree() -> Tree:
    """A ``Tree`` of 2 games whose every entry is distinct and nonzero (node ``n`` of game ``b`` shows ``b, n``)."""
    tree = Tree.zeros(SIZES["B"], SIZES["N"], SIZES["A"], (SIZES["R"], SIZES["C"]))
    for field in fields(tree):
        array = getattr(tree, field.name)
        array[...] = (np.arange(array.size).reshape(array.shape) % 7 + 1).astype(array.dtype)
    return tree


def test_clear_zeroes_every_field_of_the_chosen_games_or_nodes_only():
    tree, before = filled_tree(), filled_tree()
    tree.clear(np.array([1]))
    mask = np.zeros((2, 5), dtype=bool)
    mask[0, 3:] = True
    tree.clear(mask)
    for field in fields(tree):
        array, old = getattr(tree, field.name), getattr(before, field.name)
        assert not array[1].any() and not array[0, 3:].any(), field.name
        assert np.array_equal(array[0, :3], old[0, :3]), field.name


def test_move_nodes_copies_every_field():
    tree, before = filled_tree(), filled_tree()
    tree.move_nodes(np.array([0, 1, 1]), np.array([3, 2, 4]), np.array([1, 2, 1]))
    for field in fields(tree):
        array, old = getattr(tree, field.name), getattr(before, field.name)
        assert np.array_equal(array[0, 1], old[0, 3]) and np.array_equal(array[1, 1], old[1, 4]), field.name
        assert np.array_equal(array[0, 2:], old[0, 2:]) and np.array_equal(array[1, 2:], old[1, 2:]), field.name


def test_the_tree_fields_read_as_attributes_of_the_search():
    game = make_game("tictactoe")
    mcts = BatchedMCTS(game, ConstantNet(game), SearchConfig(num_searches=4))
    assert mcts.visit_count.shape == (0, 6)  # the trees get their batch size on the first search
    mcts.search(np.stack([game.get_initial_state()] * 3))
    for field in fields(Tree):
        assert getattr(mcts, field.name) is getattr(mcts.tree, field.name)
    with pytest.raises(AttributeError):
        mcts.visit_count = np.zeros((3, 6))


def subtree_nodes(tree: Tree, game_index: int, node: int, N: int) -> list[int]:
    """The nodes under ``node`` (itself included) of game ``game_index``, found through ``children_index``."""
    nodes, frontier = [], [node]
    while frontier:
        n = frontier.pop()
        nodes.append(n)
        frontier += [int(c) % N for c in tree.children_index[game_index, n] if c != NULL]
    return sorted(nodes)


@pytest.mark.parametrize("name", distinct_games())
def test_advance_keeps_every_field_of_the_subtree_and_zeroes_the_free_slots(name):
    game = make_game(name)
    mcts = BatchedMCTS(game, FakeNet(game, seed=2), SearchConfig(num_searches=60, seed=0), reuse_tree=True)
    mcts.search(np.stack([game.get_initial_state()] * 3))
    N = mcts.num_nodes_max
    before = Tree(**{field.name: getattr(mcts.tree, field.name).copy() for field in fields(Tree)})
    root_child_visits = before.visit_count.reshape(-1)[before.children_index[:, ROOT]]  # [B, A]
    actions = root_child_visits.argmax(axis=1)  # the most visited move: a big subtree
    actions[2] = -1  # game 2 played no move: it starts afresh
    kept = [subtree_nodes(before, b, int(before.children_index[b, ROOT, actions[b]]) % N, N) for b in range(2)]
    mcts.advance(actions)
    tree = mcts.tree
    assert mcts.root_kept.tolist() == [True, True, False]
    for b, old_nodes in enumerate(kept):
        assert len(old_nodes) > 5 and mcts.num_nodes[b] == len(old_nodes) + 1
        renumber = {old: new for new, old in enumerate(old_nodes, start=ROOT)}
        renumber[before.parent[b, old_nodes[0]]] = NULL  # the kept root has no parent any more
        new_nodes = list(range(ROOT, len(old_nodes) + 1))
        for field in fields(Tree):
            got, old = getattr(tree, field.name)[b, new_nodes], getattr(before, field.name)[b, old_nodes]
            if field.name == "parent":
                old = np.array([renumber[int(p)] for p in old])
            elif field.name == "children_index":
                old = np.array([[b * N + renumber[int(c) % N] if c else NULL for c in row] for row in old])
            elif field.name == "value_sum":  # a root holds only backed-up values: the kept child's own one leaves
                old = old - np.where(np.arange(len(old)) == 0, before.raw_value[b, old_nodes[0]], 0.0)
            assert np.array_equal(got, old), field.name
            assert not getattr(tree, field.name)[b, len(old_nodes) + 1 :].any(), field.name  # the free slots


@pytest.mark.parametrize(("name", "num_searches"), [("tictactoe", 30), ("connect_four", 20)])
def test_tree_reuse_over_whole_games_fills_the_trees_but_never_past_them(name, num_searches):
    """The capacity ``num_searches + 2`` is exactly enough: reused searches fill every slot (one fewer and the
    search raises), and ``num_nodes`` never passes it over whole games with tree reuse."""
    game = make_game(name)
    config = SearchConfig(num_searches=num_searches, seed=1, dirichlet_epsilon=0.25)
    mcts = BatchedMCTS(game, FakeNet(game, seed=5), config, reuse_tree=True)
    N, slots = mcts.num_nodes_max, 4
    rng = np.random.default_rng(3)
    states = np.stack([game.get_initial_state()] * slots)
    players = np.ones(slots, dtype=np.int64)
    live = np.ones(slots, dtype=bool)
    games_left, full_reused_trees, moves = 4, 0, 0
    while live.any():
        waiting = mcts.root_kept.copy() if moves else np.zeros(slots, dtype=bool)  # kept subtrees to reuse
        probs = mcts.search((states * players[:, None, None]).astype(states.dtype), active=live)
        assert mcts.num_nodes.max() <= N
        assert np.array_equal(mcts.tree.visit_count[live, ROOT], np.full(live.sum(), num_searches + 1.0))
        full_reused_trees += int((mcts.num_nodes[waiting & live] == N).sum())
        played = np.full(slots, -1)
        for i in np.flatnonzero(live):
            action = int(rng.choice(game.action_size, p=probs[i]))
            states[i] = game.get_next_state(states[i], action, int(players[i]))
            moves += 1
            if not game.get_value_and_terminated(states[i], action)[1]:
                played[i], players[i] = action, -players[i]
            elif games_left:
                states[i], players[i], games_left = game.get_initial_state(), 1, games_left - 1
            else:
                live[i] = False
        mcts.advance(played)
    assert moves > 40 and mcts.stats.reused_roots > moves // 2
    assert full_reused_trees > 0  # a reused tree took all N slots: with N - 1 of them the search would raise


def test_a_tree_one_slot_short_is_an_error_not_an_overwrite():
    game = make_game("tictactoe")
    mcts = BatchedMCTS(game, ConstantNet(game), SearchConfig(num_searches=10))
    mcts.num_nodes_max -= 1  # before the first search allocates the trees: one slot fewer than needed
    with pytest.raises(RuntimeError, match="game 0's tree is full: all 11 node slots"):
        mcts.search(np.stack([game.get_initial_state()] * 2))
