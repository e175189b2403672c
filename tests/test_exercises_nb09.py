"""Notebook 09's checks: the committed stubs are "not written yet", the notebook's solutions pass, plausible
wrong versions fail with their first failing case (and the library's version stands in)."""

from __future__ import annotations

import exercise_support
import numpy as np
import pytest
from exercise_support import exercise_code, read_notebook

from alphazero_lib import arena
from alphazero_lib.exercises import nb09_evaluation as nb09

NAMES = ["expected_score", "elo_update", "fit_elo", "wilson_interval", "gate"]
CHECKS = {
    "expected_score": (nb09.check_expected_score, nb09.reference_expected_score),
    "elo_update": (nb09.check_elo_update, nb09.reference_elo_update),
    "fit_elo": (nb09.check_fit_elo, arena.fit_elo),
    "wilson_interval": (nb09.check_wilson_interval, arena.wilson_interval),
    "gate": (nb09.check_gate, nb09.reference_gate),
}


CODE = exercise_code(read_notebook("09_evaluation.ipynb"))


def define(name: str, source: str):
    """``name`` from ``source``, executed after the other exercises' solutions (as in the solved notebook)."""
    return exercise_support.define(CODE, name, source, np=np)


def test_the_notebook_has_the_five_exercises():
    assert list(CODE) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_stub_is_not_written_and_the_library_stands_in(name, verdict):
    check, library = CHECKS[name]
    assert check(define(name, CODE[name][0])) is library
    assert verdict() == f"⏳ {name}: not written yet; the rest of this notebook uses the library's version"


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes(name, verdict):
    check, _ = CHECKS[name]
    solution = define(name, CODE[name][1])
    assert check(solution) is solution
    assert verdict().startswith(f"✅ {name}: agrees with the library on")


WRONG = {
    # the difference taken the wrong way round
    "expected_score": ("def expected_score(r, o):\n    return 1 / (1 + 10 ** ((r - o) / 400))\n", "case 3 of"),
    # the opponent's rating is left unchanged (the sum is not kept)
    "elo_update": (
        "def elo_update(r, o, s, k=32):\n    return r + k * (s - expected_score(r, o)), o\n",
        "case 1 of",
    ),
    # no prior draws: the fit ignores prior_games
    "fit_elo": (
        "from alphazero_lib.arena import fit_elo as _f\n"
        "def fit_elo(points, games, prior_games=1.0):\n    return _f(points, games, prior_games=0.0)\n",
        "case 3 of",
    ),
    # the textbook normal approximation instead of Wilson's
    "wilson_interval": (
        "def wilson_interval(p, n, z=1.959963984540054):\n"
        "    if n == 0:\n        return 0.0, 1.0\n"
        "    h = z * np.sqrt(p * (1 - p) / n)\n    return max(0.0, p - h), min(1.0, p + h)\n",
        "case 2 of",
    ),
    # > instead of >=
    "gate": (
        "def gate(w, d, l, threshold=0.55):\n"
        "    n = w + d + l\n    s = (w + d / 2) / n if n else 0.5\n    return s > threshold, s\n",
        "case 1 of",
    ),
}


@pytest.mark.parametrize("name", NAMES)
def test_wrong_version_fails_with_its_case(name, verdict):
    check, library = CHECKS[name]
    source, where = WRONG[name]
    assert check(define(name, source)) is library
    line = verdict()
    assert line.startswith(f"❌ {name}: {where}"), line
    assert "Hint:" in line


def test_gate_that_forgets_draws_names_the_half_point(verdict):
    wrong = define(
        "gate", "def gate(w, d, l, threshold=0.55):\n    s = w / max(w + d + l, 1)\n    return s >= threshold, s\n"
    )
    assert nb09.check_gate(wrong) is nb09.reference_gate
    line = verdict()
    assert line.startswith("❌ gate: case 2 of") and "a draw counts half a point" in line
