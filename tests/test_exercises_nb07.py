"""Notebook 7's checks, three ways each: the committed stub, the notebook's solution and a plausible mistake."""

from __future__ import annotations

import re
from typing import ClassVar

import numpy as np
import pytest
from exercise_support import given_cell, read_notebook, run_cells, stubs_and_solutions

from alphazero_lib.alpha_mcts import Node
from alphazero_lib.batched_mcts import BatchedMCTS
from alphazero_lib.config import SearchConfig
from alphazero_lib.exercises import add_to_class
from alphazero_lib.exercises import nb07_parallel as nb07
from alphazero_lib.games import TicTacToe
from alphazero_lib.inference import evaluate, masked_softmax

NOTEBOOK = read_notebook("07_parallel_self_play.ipynb")
CODE = stubs_and_solutions(NOTEBOOK)
GIVEN = given_cell(NOTEBOOK, "class MCTSParallel")  # the given MCTSParallel (``__init__``, ``evaluate``)


def exercise(name: str) -> tuple[str, str]:
    """The committed stub and the solution of the exercise that defines ``name``."""
    for stub, solution in CODE:
        if re.search(rf"^(class|def) {name}\b", stub, re.MULTILINE):
            return stub, solution
    raise KeyError(name)


def scaffold(*sources: str) -> dict:
    """A namespace like the notebook's: imports and the given ``MCTSParallel``, then ``sources`` run there."""
    scope = {
        "np": np,
        "Node": Node,
        "evaluate": evaluate,
        "masked_softmax": masked_softmax,
        "add_to_class": add_to_class,
        "on_path": nb07.on_path,  # the backup's first two steps, as earlier cells define them
        "level_signs": nb07.level_signs,
    }
    return run_cells(GIVEN, *sources, **scope)


def run(source: str, name: str) -> dict:
    return scaffold(source)


def failed(line: str, name: str) -> None:
    assert re.match(rf"❌ {re.escape(name)}: case \d+ of \d+, .+: (returned|raised) ", line), line


# ---- SPG ---------------------------------------------------------------------------------------------------
def test_spg_stub_solution_and_shared_memory(verdict):
    stub, solution = exercise("SPG")
    assert nb07.check_spg(run(stub, "SPG")["SPG"]) is nb07.SPG
    assert verdict().startswith("⏳ SPG: not written yet")
    learner = run(solution, "SPG")["SPG"]
    assert nb07.check_spg(learner) is learner
    assert verdict().startswith("✅ SPG: agrees with the library on")

    class SharedSPG:  # the mutable class attribute: every game appends to the same list
        memory: ClassVar[list] = []

        def __init__(self, game):
            self.state, self.root, self.node = game.get_initial_state(), None, None

    assert nb07.check_spg(SharedSPG) is nb07.SPG
    line = verdict()
    failed(line, "SPG")
    assert "ONE list shared" in line


# ---- MCTSParallel: expand_roots, simulate, search -------------------------------------------------------------
CHECKS = {
    "expand_roots": nb07.check_expand_roots,
    "simulate": nb07.check_simulate,
    "search": nb07.check_search,
}


@pytest.mark.parametrize("method", list(CHECKS))
def test_parallel_stub_falls_back_to_the_library(verdict, method):
    stub, _ = exercise(method)
    cls = run(stub, method)["MCTSParallel"]
    assert CHECKS[method](cls) is cls
    assert verdict() == (
        f"⏳ MCTSParallel.{method}: not written yet; the rest of this notebook uses the library's version"
    )
    # the library's method stands in: the class now searches like the reference
    game = TicTacToe()
    states = nb07.random_positions(game, 3, np.random.default_rng(0))
    config = SearchConfig(num_searches=10, seed=0)
    net = nb07.RowNet(game)
    for other in CHECKS:  # the other methods from the reference, so only this one is under test
        if other != method:
            setattr(cls, other, getattr(nb07, other))
    got = cls(game, net, config).search(states, [nb07.SPG(game) for _ in states])
    expected = nb07.MCTSParallel(game, net, config).search(states, [nb07.SPG(game) for _ in states])
    assert np.array_equal(got, expected)


@pytest.mark.parametrize("method", list(CHECKS))
def test_parallel_solution_passes(verdict, method):
    namespace = scaffold(*(exercise(name)[1] for name in CHECKS))  # the notebook's order, each on the ones before
    cls = namespace["MCTSParallel"]
    own = cls.__dict__[method]
    assert CHECKS[method](cls) is cls
    assert verdict().startswith(f"✅ MCTSParallel.{method}: agrees with the library on 6 cases")
    assert cls.__dict__[method] is own


def with_method(method: str, function) -> type:
    namespace = scaffold(*(exercise(name)[1] for name in CHECKS))
    cls = namespace["MCTSParallel"]
    setattr(cls, method, function)
    return cls


def noise_over_all_actions(self, states, spgs):
    """The video's noise: drawn for the whole batch over every action, then masked and renormalised."""
    priors, _ = self.evaluate(states)
    eps = self.config.dirichlet_epsilon
    if eps > 0:
        noise = self.rng.dirichlet([self.config.dirichlet_alpha] * self.game.action_size, size=len(states))
        valid = np.stack([self.game.get_valid_moves(s) for s in states])
        priors = ((1 - eps) * priors + eps * noise) * valid
        priors /= priors.sum(axis=1, keepdims=True)
    for b, spg in enumerate(spgs):
        spg.root = Node(states[b])
        spg.root.visit_count = 1
        spg.root.expand(self.game, priors[b])


def terminal_value_not_flipped(self, spgs):
    """Forgets ``value = -value`` for a finished leaf (the rules score it for the player who just moved)."""
    for spg in spgs:
        spg.node = None
        node = spg.root
        while node.is_expanded():
            node = node.select(self.config)
        value, is_terminal = self.game.get_value_and_terminated(node.state, node.action_taken)
        if is_terminal:
            node.backpropagate(value)
        else:
            spg.node = node
    expandable = [spg for spg in spgs if spg.node is not None]
    if expandable:
        priors, values = self.evaluate(np.stack([spg.node.state for spg in expandable]))
        for spg, prior, value in zip(expandable, priors, values, strict=True):
            spg.node.expand(self.game, prior)
            spg.node.backpropagate(float(value))


def one_call_per_game(self, spgs):
    """Right values, but the network is asked game by game: the batching is missing."""
    for spg in spgs:
        node = spg.root
        while node.is_expanded():
            node = node.select(self.config)
        value, is_terminal = self.game.get_value_and_terminated(node.state, node.action_taken)
        if is_terminal:
            node.backpropagate(-value)
        else:
            priors, values = self.evaluate(node.state[None])
            node.expand(self.game, priors[0])
            node.backpropagate(float(values[0]))


def counts_not_normalised(self, states, spgs):
    self.expand_roots(states, spgs)
    for _ in range(self.config.num_searches):
        self.simulate(spgs)
    counts = np.zeros((len(spgs), self.game.action_size))
    for b, spg in enumerate(spgs):
        for child in spg.root.children:
            counts[b, child.action_taken] = child.visit_count
    return counts


@pytest.mark.parametrize(
    ("method", "wrong", "case"),
    [
        ("expand_roots", noise_over_all_actions, 3),
        ("simulate", terminal_value_not_flipped, 1),
        ("simulate", one_call_per_game, 2),
        ("search", counts_not_normalised, 1),
    ],
)
def test_parallel_mistakes_fail_with_their_case(verdict, method, wrong, case):
    cls = with_method(method, wrong)
    assert CHECKS[method](cls) is cls
    line = verdict()
    failed(line, f"MCTSParallel.{method}")
    assert f"case {case} of 6" in line
    assert getattr(cls.__dict__[method], "__stub__", False)  # the library's method stands in


def test_parallel_reference_equals_the_serial_search_with_noise():
    game = TicTacToe()
    net = nb07.RowNet(game, 3)
    states = nb07.random_positions(game, 6, np.random.default_rng(3))
    config = SearchConfig(num_searches=30, dirichlet_epsilon=0.25, dirichlet_alpha=0.3, seed=11)
    parallel = nb07.MCTSParallel(game, net, config)
    probs = parallel.search(states, [nb07.SPG(game) for _ in states])
    serial, _ = nb07._serial(game, config, states, net)
    assert np.array_equal(probs, serial)
    assert parallel.network_calls <= config.num_searches + 1


# ---- the array exercises --------------------------------------------------------------------------------------
def test_select_actions_three_ways(verdict):
    stub, solution = exercise("select_actions")
    assert nb07.check_select_actions(run(stub, "select_actions")["select_actions"]) is nb07.select_actions
    assert verdict().startswith("⏳ select_actions: not written yet")
    learner = run(solution, "select_actions")["select_actions"]
    assert nb07.check_select_actions(learner) is learner
    assert verdict().startswith("✅ select_actions: agrees with the library on")

    def masked_by_prior(value_sum, visit_count, prior, legal, parent_visits, C=2.0):
        q_value = np.where(visit_count > 0, -value_sum / np.maximum(visit_count, 1), 0.0)
        return (q_value + C * prior * np.sqrt(parent_visits)[:, None] / (1 + visit_count)).argmax(axis=1)

    def q_from_the_child(value_sum, visit_count, prior, legal, parent_visits, C=2.0):
        q_value = np.where(visit_count > 0, value_sum / np.maximum(visit_count, 1), 0.0)
        score = q_value + C * prior * np.sqrt(parent_visits)[:, None] / (1 + visit_count)
        return np.where(legal, score, -np.inf).argmax(axis=1)

    for wrong, case in ((masked_by_prior, "case 2 of 9, every legal child is bad"), (q_from_the_child, "case 3 of 9")):
        assert nb07.check_select_actions(wrong) is nb07.select_actions
        line = verdict()
        failed(line, "select_actions")
        assert case in line


def test_backup_three_ways(verdict):
    stub, solution = exercise("backup")
    assert nb07.check_backup(run(stub, "backup")["backup"]) is nb07.backup
    assert verdict().startswith("⏳ backup: not written yet")
    learner = run(solution, "backup")["backup"]
    assert nb07.check_backup(learner) is learner
    assert verdict().startswith("✅ backup: agrees with the library on")

    def sign_from_the_root(visit_count, value_sum, path, depth, leaf_value):
        for b, d in enumerate(depth):
            for level in range(d + 1):
                visit_count[b, path[level, b]] += 1
                value_sum[b, path[level, b]] += leaf_value[b] * (1 if level % 2 == 0 else -1)

    def whole_path(visit_count, value_sum, path, depth, leaf_value):  # also "backs up" into the null node
        levels = np.arange(len(path))[:, None]
        signs = np.where((depth - levels) % 2 == 0, 1.0, -1.0)
        for b in range(len(depth)):
            for level in range(len(path)):
                visit_count[b, path[level, b]] += 1
                value_sum[b, path[level, b]] += signs[level, b] * leaf_value[b]

    for wrong in (sign_from_the_root, whole_path):
        assert nb07.check_backup(wrong) is nb07.backup
        line = verdict()
        failed(line, "backup")
        assert "case 1 of" in line


@pytest.mark.parametrize(
    "name, wrong, hint",
    [
        ("on_path", "return np.arange(len(path))[:, None] < np.asarray(depth)[None, :]", "levels <= depth (not <)"),
        ("on_path", "return path > 0", "read depth, not the node numbers"),
        ("on_path", "return (np.arange(len(path))[:, None] <= np.asarray(depth)[None, :]).T", "rows are levels"),
        (
            "level_signs",
            "return np.where(np.arange(len(path))[:, None] % 2 == 0, 1.0, -1.0) * np.ones(path.shape)",
            "count from the LEAF",
        ),
        (
            "level_signs",
            "return np.where((np.asarray(depth)[None, :] - np.arange(len(path))[:, None]) % 2 == 0, -1.0, 1.0)",
            "the leaf gets +leaf_value",
        ),
    ],
)
def test_the_backups_steps_three_ways(verdict, name, wrong, hint):
    checker, library = getattr(nb07, f"check_{name}"), getattr(nb07, name)
    stub, solution = exercise(name)
    assert checker(run(stub, name)[name]) is library
    assert verdict().startswith(f"⏳ {name}: not written yet")
    learner = run(solution, name)[name]
    assert checker(learner) is learner
    assert verdict().startswith(f"✅ {name}: agrees with the library on 5 cases")
    signature = solution.split("\n", 1)[0]
    assert checker(run(f"{signature}\n    {wrong}\n", name)[name]) is library
    line = verdict()
    failed(line, name)
    assert hint in line, line


def test_backup_reference_is_node_backpropagate():
    rng = np.random.default_rng(0)
    visit_count, value_sum, path, depth, leaf_value = nb07._backup_inputs(rng, 6, 12, 5)
    for b in range(6):  # the same path as a chain of Nodes
        nodes = [Node(np.zeros(1))]
        for _ in range(depth[b]):
            nodes.append(Node(np.zeros(1), parent=nodes[-1]))
        nodes[-1].backpropagate(float(leaf_value[b]))
        got_visits, got_values = visit_count.copy(), value_sum.copy()
        one = np.full(6, -1)
        one[b] = depth[b]
        nb07.backup(got_visits, got_values, path, one, leaf_value)
        for level, node in enumerate(nodes):
            n = path[level, b]
            assert got_visits[b, n] - visit_count[b, n] == node.visit_count
            assert got_values[b, n] - value_sum[b, n] == pytest.approx(node.value_sum)


def test_search_step_by_step_ends_where_the_search_ends():
    game = TicTacToe()
    net = nb07.RowNet(game, 1)
    states = nb07.random_positions(game, 3, np.random.default_rng(1))
    stepped = BatchedMCTS(game, net, SearchConfig(num_searches=6))
    assert list(nb07.search_step_by_step(stepped, states, simulations=6)) == list(range(7))
    whole = BatchedMCTS(game, net, SearchConfig(num_searches=6))
    whole.search(states)
    assert np.array_equal(stepped.visit_count, whole.visit_count)
    assert np.array_equal(stepped.value_sum, whole.value_sum)


# ---- the self-play loop ----------------------------------------------------------------------------------------
def loop(source: str):
    """``parallel_self_play`` from a cell's source, with the names the notebook gives it: the checked ``SPG`` (the
    library's here) and notebook 5's ``apply_temperature`` and ``game_memory`` (the library's)."""
    from alphazero_lib.selection import apply_temperature
    from alphazero_lib.training import game_memory

    namespace = {"np": np, "SPG": nb07.SPG, "apply_temperature": apply_temperature, "game_memory": game_memory}
    exec(source, namespace)
    return namespace["parallel_self_play"]


def test_parallel_self_play_stub_solution_and_the_other_order(verdict):
    stub, solution = exercise("parallel_self_play")
    assert nb07.check_parallel_self_play(loop(stub)) is nb07._library_loop
    assert verdict() == ("⏳ parallel_self_play: not written yet; the rest of this notebook uses the library's version")
    learner = loop(solution)
    assert nb07.check_parallel_self_play(learner) is learner
    assert verdict() == "✅ parallel_self_play: agrees with the library on 8 cases; the cells below use yours"
    # forwards through the list, a new list of the games still playing: the draws in the other order pass too
    forwards = edited(
        solution,
        ("for i in reversed(range(len(spgs))):", "still = []\n        for i in range(len(spgs)):"),
        ("                del spgs[i]\n", "            else:\n                still.append(spg)\n"),
        (
            "        player = game.get_opponent(player)",
            "        spgs = still\n        player = game.get_opponent(player)",
        ),
    )
    assert nb07.check_parallel_self_play(loop(forwards)).__name__ == "parallel_self_play"
    assert verdict().startswith("✅ parallel_self_play")


def edited(source: str, *edits: tuple[str, str]) -> str:
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new)
    return source


BACKWARDS = (
    "        for i in reversed(range(len(spgs))):  # backwards: deleting game i leaves the games before it in place\n"
    "            spg = spgs[i]\n"
)
DEL = "                del spgs[i]\n"
FLIP = "        player = game.get_opponent(player)\n"
LOOP_MISTAKES = {
    "finished game kept": ([(DEL, "")], 1, ["game 0 was searched after it ended", "take a game out of the list"]),
    "removed while looping forwards": (
        [(BACKWARDS, "        for i, spg in enumerate(spgs):\n"), ("del spgs[i]", "spgs.remove(spg)")],
        2,
        ["has 4 pieces, expected 5 (one move per game and step)", "skips the game after it"],
    ),
    "del while counting up": (
        [(BACKWARDS, "        for i in range(len(spgs)):\n            spg = spgs[i]\n")],
        2,
        ["raised IndexError", "deleting spgs[i] while i counts up"],
    ),
    "outcome not flipped": (
        [
            (
                "game_memory(game, spg.memory, value, player)",
                "[(game.get_encoded_state(s), p, value) for s, p, _ in spg.memory]",
            )
        ],
        1,
        ["outcomes +1: 5, 0: 0, -1: 0, expected outcomes +1: 3, 0: 0, -1: 2", "seen by ITS mover"],
    ),
    "memory shared": (
        [
            ("memory, player = [], 1", "memory, player, history = [], 1, []"),
            ("spg.memory.append(", "history.append("),
            ("game_memory(game, spg.memory,", "game_memory(game, history,"),
        ],
        2,
        ["146 samples, expected 35 samples", "one list for all games"],
    ),
    "the wrong game's probabilities": (
        [(BACKWARDS, "        for i, spg in enumerate(reversed(spgs)):\n"), ("del spgs[i]", "spgs.remove(spg)")],
        2,
        ["row i of probs"],
    ),
    "player flipped per game": ([(FLIP, ""), (DEL, DEL + "    " + FLIP)], 2, ["flip player once per step"]),
    "absolute boards": (
        [("search(states, spgs)", "search(np.stack([spg.state for spg in spgs]), spgs)")],
        1,
        ["game 0's board as it is", "game.change_perspective(spg.state, player)"],
    ),
}


@pytest.mark.parametrize("mistake", list(LOOP_MISTAKES))
def test_parallel_self_play_mistakes_fail_with_their_hint(verdict, mistake):
    edits, case, words = LOOP_MISTAKES[mistake]
    source = edited(exercise("parallel_self_play")[1], *edits)
    assert nb07.check_parallel_self_play(loop(source)) is nb07._library_loop
    line = verdict()
    failed(line, "parallel_self_play")
    assert f"case {case} of 8" in line
    for text in words:
        assert text in line


def test_parallel_self_play_reference_plays_notebook_5s_game_with_one_game():
    """With one game the video's loop is the serial self-play of notebook 5: the same moves, the same samples."""
    from alphazero_lib.exercises.nb05_self_play import fake_counts
    from alphazero_lib.training import self_play

    for game, seed, temperature in [(TicTacToe(), 0, 1.25), (TicTacToe(), 3, 0.5), (nb07.ConnectFour(), 6, 1.0)]:
        fake = nb07.fake_parallel_search(game, seed)
        parallel = nb07.parallel_self_play(game, fake, 1, np.random.default_rng(seed), temperature)

        def serial_search(state, game=game, seed=seed):
            counts = fake_counts(game, state, seed)
            return counts / counts.sum()

        serial = self_play(game, serial_search, np.random.default_rng(seed), temperature)
        assert len(parallel) == len(serial) == sum(fake.batch_sizes)
        for (s1, p1, z1), (s2, p2, z2) in zip(parallel, serial, strict=True):
            assert np.array_equal(s1, s2) and np.allclose(p1, p2) and z1 == z2


def test_parallel_self_play_orders_differ_and_games_leave_the_batch():
    """The two orders of the draws give other games (so accepting both is a choice the check makes), and the
    batch shrinks as games end, by one sample per game and step."""
    game = TicTacToe()
    runs = {}
    for backwards in (True, False):
        fake = nb07.fake_parallel_search(game, 2)
        memory = nb07.parallel_self_play(game, fake, 8, np.random.default_rng(2), 1.0, backwards=backwards)
        runs[backwards] = (fake.moves(), fake.batch_sizes)
        assert len(memory) == sum(fake.batch_sizes)
        assert fake.batch_sizes[0] == 8 and fake.batch_sizes == sorted(fake.batch_sizes, reverse=True)
        assert fake.batch_sizes[-1] < 8
    assert runs[True][0] != runs[False][0]


def test_a_backup_into_a_game_that_is_not_searching_gets_its_hint(verdict):
    """A game with depth -1 did not search this simulation: a backup that still visits its root is named (the
    planted mistake backs up as if depth -1 were 0, as np.maximum(depth, 0) does)."""

    def every_game(visit_count, value_sum, path, depth, leaf_value):
        for b, d in enumerate(np.maximum(depth, 0)):
            for level in range(d + 1):
                visit_count[b, path[level, b]] += 1
                value_sum[b, path[level, b]] += leaf_value[b] * (1 if (d - level) % 2 == 0 else -1)

    assert nb07.check_backup(every_game) is nb07.backup
    line = verdict()
    failed(line, "backup")
    assert "case 2 of" in line and "a game with depth -1 is not searching" in line, line
