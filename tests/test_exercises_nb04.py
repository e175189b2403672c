"""Notebook 04's checks: the committed stub is "not written yet", the notebook's solution passes, and plausible
wrong versions fail with their first failing case. The checkers' reference functions agree with
``alphazero_lib.alpha_mcts``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from exercise_support import failing, given_cell, read_notebook, run_cells, stubs_and_solutions

from alphazero_lib.alpha_mcts import AlphaMCTS as LibraryAlphaMCTS
from alphazero_lib.alpha_mcts import Node as LibraryNode
from alphazero_lib.config import SearchConfig
from alphazero_lib.exercises import add_to_class
from alphazero_lib.exercises import nb04_alphazero_search as nb04
from alphazero_lib.exercises.positions import live_positions
from alphazero_lib.games import TicTacToe
from alphazero_lib.inference import evaluate, masked_softmax
from alphazero_lib.pretrained import load_pretrained

NOTEBOOK = read_notebook("04_alphazero_search.ipynb")
CODE = stubs_and_solutions(NOTEBOOK)
STUBS = [stub for stub, _ in CODE]
SOLUTIONS = [solution for _, solution in CODE]
UCB, SELECT, EXPAND, MASKED, NOISE, SEARCH = range(6)
GIVEN = {  # the given (non-exercise) code cells the exercises build on: the Node class and the AlphaMCTS class
    name: given_cell(NOTEBOOK, f"class {name}") for name in ("Node", "AlphaMCTS")
}
MODEL = load_pretrained("tictactoe")


def namespace(upto: int, *sources: str, replace: dict[int, str] | None = None) -> dict:
    """The notebook's names before exercise ``upto`` (imports, the given classes and the earlier solutions, or their
    ``replace``-ments), then ``sources`` run there."""
    earlier = [(replace or {}).get(index, code) for index, code in enumerate(SOLUTIONS[: min(upto, SEARCH)])]
    given = [GIVEN["AlphaMCTS"]] if upto >= SEARCH else []
    scope = {"np": np, "math": math, "add_to_class": add_to_class, "evaluate": evaluate}
    return run_cells(GIVEN["Node"], *earlier, *given, *sources, **scope)


def test_six_exercises():
    assert len(CODE) == 6


# ---- the checkers' references are the library's semantics --------------------------------------------------------
def test_reference_get_ucb_and_select_match_the_library_node():
    for _, parent_visits, children, c in nb04.select_cases():
        parent = nb04._family(LibraryNode, parent_visits, children)
        scores = [nb04.library_get_ucb(parent, child, c) for child in parent.children]
        assert parent.children[int(np.argmax(scores))] is LibraryNode.select(parent, SearchConfig(C=c))
        theirs = nb04._family(namespace(UCB)["Node"], parent_visits, children)  # the notebook's given Node
        assert nb04.library_select(theirs, c).action_taken == parent.children[int(np.argmax(scores))].action_taken


def test_reference_expand_matches_the_library_node():
    game = TicTacToe()
    for state in live_positions(game, 5, seed=1):
        priors = masked_softmax(np.arange(9.0), game.get_valid_moves(state))
        ours, theirs = type("Node", (LibraryNode,), {})(state), LibraryNode(state)
        nb04.library_expand(ours, game, priors)
        theirs.expand(game, priors)
        assert [(c.action_taken, c.prior, c.state.tobytes()) for c in ours.children] == [
            (c.action_taken, c.prior, c.state.tobytes()) for c in theirs.children
        ]


def test_reference_noise_is_the_library_root_noise():
    game = TicTacToe()
    state = np.array([[1, -1, 0], [0, 1, 0], [0, 0, -1]], dtype=np.int8)
    search = LibraryAlphaMCTS(game, MODEL, SearchConfig(num_searches=1, dirichlet_epsilon=0.25, seed=4))
    search.search(state)
    logits, _ = evaluate(MODEL, game.get_encoded_state(state)[None])
    valid = game.get_valid_moves(state)
    mixed = nb04.library_dirichlet_noise(masked_softmax(logits[0], valid), valid, 0.25, 0.3, np.random.default_rng(4))
    assert np.allclose([c.prior for c in search.root.children], mixed[np.flatnonzero(valid)], atol=1e-12)


# ---- get_ucb ---------------------------------------------------------------------------------------------------
def test_get_ucb(verdict):
    ns = namespace(UCB, STUBS[UCB])
    node = nb04.check_get_ucb(ns["Node"])
    assert verdict().startswith("⏳ Node.get_ucb: not written yet")
    parent = nb04._family(node, 4, [(0, 0.5, 0, 0.0)])
    assert parent.get_ucb(parent.children[0], 2.0) == 2.0  # the library's stands in

    ns = namespace(UCB, SOLUTIONS[UCB])
    nb04.check_get_ucb(ns["Node"])
    assert verdict() == "✅ Node.get_ucb: agrees with the library on 8 cases; the cells below use yours"
    assert ns["Node"].get_ucb is ns["get_ucb"]

    sign_flip = SOLUTIONS[UCB].replace("-(child.value_sum / child.visit_count)", "child.value_sum / child.visit_count")
    nb04.check_get_ucb(namespace(UCB, sign_flip)["Node"])
    line = verdict()
    failing(line, "Node.get_ucb")
    assert "case 3 of 8" in line and "-(value_sum / visit_count)" in line

    video_q = SOLUTIONS[UCB].replace(
        "q_value = -(child.value_sum / child.visit_count)",
        "q_value = 1 - ((child.value_sum / child.visit_count) + 1) / 2",
    )
    nb04.check_get_ucb(namespace(UCB, video_q)["Node"])
    failing(verdict(), "Node.get_ucb")

    no_plus_one = SOLUTIONS[UCB].replace("/ (1 + child.visit_count)", "/ max(child.visit_count, 1)")
    nb04.check_get_ucb(namespace(UCB, no_plus_one)["Node"])
    assert "case 3 of 8" in verdict()


# ---- select ------------------------------------------------------------------------------------------------------
def test_select(verdict):
    ns = namespace(SELECT, STUBS[SELECT])
    nb04.check_select(ns["Node"])
    assert verdict().startswith("⏳ Node.select: not written yet")

    ns = namespace(SELECT, SOLUTIONS[SELECT])
    nb04.check_select(ns["Node"])
    assert verdict() == "✅ Node.select: agrees with the library on 20 cases; the cells below use yours"

    last_best = SOLUTIONS[SELECT].replace("if ucb > best_ucb:", "if ucb >= best_ucb:")
    nb04.check_select(namespace(SELECT, last_best)["Node"])
    line = verdict()
    failing(line, "Node.select")
    assert "case 2 of 20, node.select(C=2.0).action_taken, a tie: the lowest action" in line
    assert "returned 7, expected 2" in line

    smallest = SOLUTIONS[SELECT].replace("if ucb > best_ucb:", "if -ucb > best_ucb:")
    nb04.check_select(namespace(SELECT, smallest)["Node"])
    assert "case 1 of 20" in verdict()


# ---- expand ------------------------------------------------------------------------------------------------------
def test_expand(verdict):
    ns = namespace(EXPAND, STUBS[EXPAND])
    nb04.check_expand(ns["Node"])
    assert verdict().startswith("⏳ Node.expand: not written yet")
    node = ns["Node"](TicTacToe().get_initial_state())
    node.expand(TicTacToe(), np.full(9, 1 / 9))  # the stand-in makes children of the learner's class
    assert len(node.children) == 9 and all(type(c) is ns["Node"] for c in node.children)

    ns = namespace(EXPAND, SOLUTIONS[EXPAND])
    nb04.check_expand(ns["Node"])
    assert verdict() == "✅ Node.expand: agrees with the library on 9 cases; the cells below use yours"

    no_flip = SOLUTIONS[EXPAND].replace("game.change_perspective(child_state, -1)", "child_state")
    nb04.check_expand(namespace(EXPAND, no_flip)["Node"])
    line = verdict()
    failing(line, "Node.expand")
    assert "case 1 of 9, Node(np.array([[0, 0, 0], [0, 0, 0], [0, 0, 0]])).expand(TicTacToe()" in line

    every_action = SOLUTIONS[EXPAND].replace(
        "np.flatnonzero(game.get_valid_moves(self.state))", "range(game.action_size)"
    )
    nb04.check_expand(namespace(EXPAND, every_action)["Node"])
    line = verdict()
    failing(line, "Node.expand")
    assert "case 2 of 9" in line  # the empty board has every move legal


# ---- masked_policy -------------------------------------------------------------------------------------------------
def test_masked_policy(verdict):
    stub = namespace(MASKED, STUBS[MASKED])["masked_policy"]
    assert nb04.check_masked_policy(stub) is masked_softmax
    assert verdict().startswith("⏳ masked_policy: not written yet")

    mine = namespace(MASKED, SOLUTIONS[MASKED])["masked_policy"]
    assert nb04.check_masked_policy(mine) is mine
    assert verdict() == "✅ masked_policy: agrees with the library on 16 cases; the cells below use yours"

    def not_renormalised(logits, valid):
        e = np.exp(logits - logits.max())
        return e / e.sum() * valid

    nb04.check_masked_policy(not_renormalised)
    line = verdict()
    failing(line, "masked_policy")
    assert "case 3 of 16" in line

    def overflow(logits, valid):
        e = np.exp(logits) * valid
        return e / e.sum()

    nb04.check_masked_policy(overflow)
    line = verdict()
    failing(line, "masked_policy")
    assert "case 5 of 16" in line and "exp(800) overflows" in line


# ---- add_dirichlet_noise ---------------------------------------------------------------------------------------------
def test_dirichlet_noise(verdict):
    stub = namespace(NOISE, STUBS[NOISE])["add_dirichlet_noise"]
    assert nb04.check_dirichlet_noise(stub) is nb04.library_dirichlet_noise
    assert verdict().startswith("⏳ add_dirichlet_noise: not written yet")

    mine = namespace(NOISE, SOLUTIONS[NOISE])["add_dirichlet_noise"]
    assert nb04.check_dirichlet_noise(mine) is mine
    assert verdict() == "✅ add_dirichlet_noise: agrees with the library on 15 cases; the cells below use yours"

    def video_noise(priors, valid, epsilon, alpha, rng):  # noise over every action, then mask and renormalise
        noise = rng.dirichlet([alpha] * len(priors))
        mixed = ((1 - epsilon) * priors + epsilon * noise) * valid
        return mixed / mixed.sum()

    nb04.check_dirichlet_noise(video_noise)
    line = verdict()
    failing(line, "add_dirichlet_noise")
    assert "case 13 of 15" in line  # each answer has the right form: its noise's distribution gives it away
    assert "over the legal moves only, not over every action followed by a mask" in line

    def in_place(priors, valid, epsilon, alpha, rng):
        legal = np.flatnonzero(valid)
        priors[legal] = (1 - epsilon) * priors[legal] + epsilon * rng.dirichlet([alpha] * len(legal))
        return priors

    nb04.check_dirichlet_noise(in_place)
    line = verdict()
    failing(line, "add_dirichlet_noise")
    assert "case 1 of 15" in line and "priors untouched" in line


# ---- search ----------------------------------------------------------------------------------------------------------
def test_search(verdict):
    ns = namespace(SEARCH, STUBS[SEARCH])
    cls = nb04.check_search(ns["AlphaMCTS"], MODEL)
    assert verdict().startswith("⏳ AlphaMCTS.search: not written yet")
    config = SearchConfig(num_searches=30, dirichlet_epsilon=0.25, seed=5)
    state = TicTacToe().get_initial_state()
    assert np.array_equal(
        cls(TicTacToe(), MODEL, config).search(state), LibraryAlphaMCTS(TicTacToe(), MODEL, config).search(state)
    )

    ns = namespace(SEARCH, SOLUTIONS[SEARCH])
    nb04.check_search(ns["AlphaMCTS"], MODEL)
    assert verdict() == "✅ AlphaMCTS.search: agrees with the library on 43 cases; the cells below use yours"


@pytest.mark.parametrize(
    "old, new, where",
    [
        ("    root.visit_count = 1\n", "", "case 1 of 43"),  # the first choice ignores the priors
        ("        value = -value\n", "", "case 9 of 43"),  # the terminal leaf's value from the wrong side
        ("self.rng)", "np.random.default_rng(config.seed))", "case 43 of 43"),  # a new generator every search
    ],
)
def test_search_wrong_versions(verdict, old, new, where):
    assert old in SOLUTIONS[SEARCH]
    ns = namespace(SEARCH, SOLUTIONS[SEARCH].replace(old, new))
    nb04.check_search(ns["AlphaMCTS"], MODEL)
    line = verdict()
    failing(line, "AlphaMCTS.search")
    assert where in line, line


GAMMA_NOISE = """def add_dirichlet_noise(priors, valid, epsilon, alpha, rng):
    legal = np.flatnonzero(valid)
    draws = rng.gamma(alpha, size=len(priors))[legal]  # a gamma draw per cell; the legal ones normalised
    mixed = np.array(priors, dtype=np.float64)
    mixed[legal] = (1 - epsilon) * mixed[legal] + epsilon * draws / draws.sum()
    return mixed
"""


def test_noise_of_the_learners_own_design_passes_and_the_search_check_follows_it(verdict):
    """Another correct order of draws (a gamma draw per cell, the legal ones normalised: a Dirichlet sample over
    the legal moves, from other numbers than rng.dirichlet's) passes the noise check; the search that uses it
    passes when the check is given it, as the notebook does, and not against the library's draws alone."""
    noise = namespace(NOISE, GAMMA_NOISE)["add_dirichlet_noise"]
    assert nb04.check_dirichlet_noise(noise) is noise
    assert verdict().startswith("✅ add_dirichlet_noise: agrees with the library on 15 cases")
    ns = namespace(SEARCH, SOLUTIONS[SEARCH], replace={NOISE: GAMMA_NOISE})
    assert ns["add_dirichlet_noise"].__code__.co_code == noise.__code__.co_code
    nb04.check_search(ns["AlphaMCTS"], MODEL, noise=ns["add_dirichlet_noise"])
    assert verdict() == "✅ AlphaMCTS.search: agrees with the library on 43 cases; the cells below use yours"
    nb04.check_search(ns["AlphaMCTS"], MODEL)  # compared with the library's draws: the noisy cases differ
    line = verdict()
    failing(line, "AlphaMCTS.search")
    assert "dirichlet_epsilon=0.25" in line, line


def test_search_runs_on_the_learners_earlier_code():
    """The search solution calls the learner's Node methods, masked_policy and add_dirichlet_noise by name."""
    broken = SOLUTIONS[MASKED].replace("return weights / weights.sum()", "return weights")
    ns = namespace(SEARCH, SOLUTIONS[SEARCH], replace={MASKED: broken})
    config = SearchConfig(num_searches=20, seed=0)
    state = TicTacToe().get_initial_state()
    ours = ns["AlphaMCTS"](TicTacToe(), MODEL, config).search(state)
    assert not np.array_equal(ours, LibraryAlphaMCTS(TicTacToe(), MODEL, config).search(state))


def test_search_player_plays_the_most_visited_move():
    game = TicTacToe()
    player = nb04.SearchPlayer(game, lambda s: np.eye(9)[int(np.flatnonzero(s.reshape(-1) == 0)[-1])], "last free")
    state = game.get_next_state(game.get_initial_state(), 8, 1)
    assert player.get_action(state, -1) == 7
