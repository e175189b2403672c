"""Pictures of the search: the tree's boxes say what the nodes hold, from the chooser's side; the loop's diagram."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
from fakes import FakeNet

from alphazero_lib import TicTacToe
from alphazero_lib.alpha_mcts import AlphaMCTS
from alphazero_lib.config import MCTSConfig, SearchConfig
from alphazero_lib.mcts import MCTS
from alphazero_lib.plotting import TRAINING_CYCLE, draw_search_tree, draw_training_cycle, tree_node_label

GAME = TicTacToe()
WIN_AT_2 = np.array([[1, 1, 0], [-1, -1, 0], [0, 0, 0]], dtype=np.int8)  # X to move wins at 2


def boxes(ax) -> list[str]:
    return [t.get_text() for t in ax.texts]


def test_a_winning_move_reads_plus_one_for_the_player_choosing_it():
    search = AlphaMCTS(GAME, FakeNet(GAME), SearchConfig(num_searches=30, seed=0))
    search.search(WIN_AT_2)
    win = next(c for c in search.root.children if c.action_taken == 2)
    assert win.visit_count > 0
    assert tree_node_label(win, search.root) == f"move 2\nP={win.prior:.2f}\nN={win.visit_count}\nQ=+1.00"
    assert tree_node_label(search.root, None) == f"root\nN={search.root.visit_count}"


def test_the_drawing_shows_the_most_visited_children_down_to_the_depth_asked():
    search = AlphaMCTS(GAME, FakeNet(GAME), SearchConfig(num_searches=40, seed=0))
    search.search(GAME.get_initial_state())
    root = search.root
    ax = draw_search_tree(root, max_depth=2, max_children=3)
    top = sorted(root.children, key=lambda c: (-c.visit_count, -c.prior, c.action_taken))[:3]
    expected = [tree_node_label(root, None)]
    for child in top:
        expected.append(tree_node_label(child, root))
        kids = sorted(child.children, key=lambda c: (-c.visit_count, -c.prior, c.action_taken))[:3]
        expected += [tree_node_label(grandchild, child) for grandchild in kids]
    assert sorted(boxes(ax)) == sorted(expected)
    plt.close("all")


def test_vanilla_nodes_draw_without_priors_and_an_unvisited_node_without_q():
    search = MCTS(GAME, MCTSConfig(num_searches=3, seed=0))
    search.search(GAME.get_initial_state())
    texts = boxes(draw_search_tree(search.root, max_depth=1))
    assert len(texts) == 1 + 3 and not any("P=" in t for t in texts)
    assert all(re.fullmatch(r"move \d\nN=1\nQ=[+-][01]\.00", t) for t in texts[1:]), texts  # one random game each
    fresh = AlphaMCTS(GAME, FakeNet(GAME), SearchConfig(num_searches=1, seed=0))
    fresh.search(GAME.get_initial_state())
    unvisited = next(c for c in fresh.root.children if c.visit_count == 0)
    assert "Q=" not in tree_node_label(unvisited, fresh.root)
    plt.close("all")


def test_the_loop_diagram_names_each_stage_and_what_it_hands_on():
    texts = boxes(draw_training_cycle())
    for name, what, handed in TRAINING_CYCLE:
        assert f"{name}\n{what}" in texts and handed in texts
    assert [n for n, _, _ in TRAINING_CYCLE] == ["self-play", "memory", "training", "network"]
    plt.close("all")
