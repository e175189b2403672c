"""Notebook 09's checks: the committed stubs are "not written yet", the notebook's solutions pass, plausible
wrong versions fail with their first failing case (and the library's version stands in)."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

from alphazero_lib import arena
from alphazero_lib.exercises import nb09_evaluation as nb09

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import solve_notebooks  # noqa: E402

NOTEBOOK = ROOT / "notebooks" / "09_evaluation.ipynb"
NAMES = ["expected_score", "elo_update", "fit_elo", "wilson_interval", "gate"]
CHECKS = {
    "expected_score": (nb09.check_expected_score, nb09.reference_expected_score),
    "elo_update": (nb09.check_elo_update, nb09.reference_elo_update),
    "fit_elo": (nb09.check_fit_elo, arena.fit_elo),
    "wilson_interval": (nb09.check_wilson_interval, arena.wilson_interval),
    "gate": (nb09.check_gate, nb09.reference_gate),
}


def notebook_code() -> dict[str, tuple[str, str]]:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    out = {}
    for ex in solve_notebooks.exercises(nb):
        stub = solve_notebooks.source(nb.cells[ex.exercise])
        out[stub.split("def ", 1)[1].split("(", 1)[0]] = (stub, ex.solution_code)
    return out


CODE = notebook_code()


def define(name: str, source: str):
    """``name`` from ``source``, executed with the other exercises' solutions (as in the solved notebook)."""
    scope = {"np": np}
    for other in NAMES:
        if other != name:
            exec(CODE[other][1], scope)
    exec(source, scope)
    return scope[name]


def verdict(capsys) -> str:
    out = capsys.readouterr().out
    assert out.count("\n") == 1, f"one verdict line, got {out!r}"
    return out.strip()


def test_the_notebook_has_the_five_exercises():
    assert list(CODE) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_stub_is_not_written_and_the_library_stands_in(name, capsys):
    check, library = CHECKS[name]
    assert check(define(name, CODE[name][0])) is library
    assert verdict(capsys) == f"⏳ {name}: not written yet; the rest of this notebook uses the library's version"


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes(name, capsys):
    check, _ = CHECKS[name]
    solution = define(name, CODE[name][1])
    assert check(solution) is solution
    assert verdict(capsys).startswith(f"✅ {name}: agrees with the library on")


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
def test_wrong_version_fails_with_its_case(name, capsys):
    check, library = CHECKS[name]
    source, where = WRONG[name]
    assert check(define(name, source)) is library
    line = verdict(capsys)
    assert line.startswith(f"❌ {name}: {where}"), line
    assert "Hint:" in line


def test_gate_that_forgets_draws_names_the_half_point(capsys):
    wrong = define(
        "gate", "def gate(w, d, l, threshold=0.55):\n    s = w / max(w + d + l, 1)\n    return s >= threshold, s\n"
    )
    assert nb09.check_gate(wrong) is nb09.reference_gate
    line = verdict(capsys)
    assert line.startswith("❌ gate: case 2 of") and "a draw counts half a point" in line
