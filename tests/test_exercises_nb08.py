"""Notebook 08's checks: the committed stubs are "not written yet", the notebook's solutions pass, plausible
wrong versions fail with their first failing case (and the reference stands in)."""

from __future__ import annotations

import exercise_support
import numpy as np
import pytest
from exercise_support import exercise_code, read_notebook

from alphazero_lib.exercises import nb08_kaggle as nb08
from alphazero_lib.kaggle import import_kaggle_environments

NAMES = ["observation_to_state", "best_legal_action", "make_agent", "outcome", "evaluate_both_seats"]
CHECKS = {
    "observation_to_state": (nb08.check_observation_to_state, nb08.reference_observation_to_state),
    "best_legal_action": (nb08.check_best_legal_action, nb08.reference_best_legal_action),
    "make_agent": (nb08.check_make_agent, nb08.reference_make_agent),
    "outcome": (nb08.check_outcome, nb08.reference_outcome),
    "evaluate_both_seats": (nb08.check_evaluate_both_seats, nb08.reference_evaluate_both_seats),
}


CODE = exercise_code(read_notebook("08_kaggle_playoffs.ipynb"))


def define(name: str, source: str):
    """``name`` from ``source``, executed after the other exercises' solutions (as in the solved notebook)."""
    return exercise_support.define(
        CODE, name, source, np=np, make=import_kaggle_environments().make, outcome=nb08.reference_outcome
    )


def test_the_notebook_has_the_five_exercises():
    assert list(CODE) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_stub_is_not_written_and_the_reference_stands_in(name, verdict):
    check, reference = CHECKS[name]
    assert check(define(name, CODE[name][0])) is reference
    assert verdict() == f"⏳ {name}: not written yet; the rest of this notebook uses the library's version"


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes(name, verdict):
    check, _ = CHECKS[name]
    solution = define(name, CODE[name][1])
    assert check(solution) is solution
    assert verdict().startswith(f"✅ {name}: agrees with the library on")


WRONG = {
    # mark 1 is always taken as the agent's own (the absolute board, not the canonical one)
    "observation_to_state": (
        "def observation_to_state(game, observation):\n"
        "    board = np.array(observation['board']).reshape(game.row_count, game.column_count)\n"
        "    return np.where(board == 2, -1, board).astype(np.int8)\n",
        "case 3 of",
        "OWN mark",
    ),
    # multiplies by the mask: all-zero legal probabilities give column 0, which may be full
    "best_legal_action": (
        "def best_legal_action(probabilities, valid_moves):\n"
        "    return int(np.argmax(np.asarray(probabilities) * valid_moves))\n",
        "case 3 of",
        "BELOW any probability",
    ),
    # returns numpy's integer: kaggle-environments rejects it
    "make_agent": (
        "def make_agent(game, search):\n"
        "    def agent(observation, configuration):\n"
        "        state = observation_to_state(game, observation)\n"
        "        return np.argmax(np.where(game.get_valid_moves(state) > 0, search(state), -1))\n"
        "    return agent\n",
        "case 1 of",
        "Python int",
    ),
    # an opponent's failure is read as a draw or loss by comparing rewards with None
    "outcome": (
        "def outcome(final, index):\n"
        "    ours, theirs = final[index], final[1 - index]\n"
        "    if ours['status'] != 'DONE':\n        return 'errors'\n"
        "    if ours['reward'] == theirs['reward']:\n        return 'draws'\n"
        "    return 'wins' if ours['reward'] == 1 else 'losses'\n",
        "case 8 of",
        "OPPONENT's status before the rewards",
    ),
    # the agent is put first on both seats
    "evaluate_both_seats": (
        "def evaluate_both_seats(agent, opponent, episodes, environment='connectx', outcome=outcome):\n"
        "    results = {}\n"
        "    for index, seat in enumerate(['first', 'second']):\n"
        "        counts = {'wins': 0, 'draws': 0, 'losses': 0, 'errors': 0}\n"
        "        for _ in range(episodes):\n"
        "            env = make(environment, debug=True)\n"
        "            env.run([agent, opponent])\n"
        "            counts[outcome(env.steps[-1], index)] += 1\n"
        "        results[seat] = counts\n"
        "    return results\n",
        "case 4 of",
        "index 1",
    ),
}


@pytest.mark.parametrize("name", NAMES)
def test_wrong_version_fails_with_its_case(name, verdict):
    check, reference = CHECKS[name]
    source, where, hint = WRONG[name]
    assert check(define(name, source)) is reference
    line = verdict()
    assert line.startswith(f"❌ {name}: {where}"), line
    assert hint in line, line


def test_a_search_on_the_absolute_board_is_caught(verdict):
    source = (
        "def make_agent(game, search):\n"
        "    def agent(observation, configuration):\n"
        "        board = np.array(observation['board']).reshape(game.row_count, game.column_count)\n"
        "        state = np.where(board == 2, -1, board).astype(np.int8)\n"
        "        return best_legal_action(search(state), game.get_valid_moves(state))\n"
        "    return agent\n"
    )
    assert nb08.check_make_agent(define("make_agent", source)) is nb08.reference_make_agent
    assert "CANONICAL" in verdict()
