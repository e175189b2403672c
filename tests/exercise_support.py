"""What the exercise tests share: the notebooks' exercise cells (the committed stub and the solution of each), the
scope a cell runs in, and the shape of a failing verdict. The ``verdict`` fixture is in ``conftest.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import solve_notebooks  # noqa: E402


def read_notebook(name: str) -> nbformat.NotebookNode:
    """The committed notebook ``notebooks/<name>``."""
    return nbformat.read(ROOT / "notebooks" / name, as_version=4)


def stubs_and_solutions(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """Each exercise's (committed stub, solution) in notebook order."""
    return [(solve_notebooks.source(nb.cells[ex.exercise]), ex.solution_code) for ex in solve_notebooks.exercises(nb)]


def exercise_code(nb: nbformat.NotebookNode) -> dict[str, tuple[str, str]]:
    """The function or method each exercise writes (the first ``def`` of its stub) -> (stub, solution)."""
    return {stub.split("def ", 1)[1].split("(", 1)[0]: (stub, solution) for stub, solution in stubs_and_solutions(nb)}


def given_cell(nb: nbformat.NotebookNode, start: str) -> str:
    """The source of the first code cell that starts with ``start`` (a class the notebook gives)."""
    return next(
        solve_notebooks.source(c)
        for c in nb.cells
        if c.cell_type == "code" and solve_notebooks.source(c).startswith(start)
    )


def run_cells(*sources: str, **scope: object) -> dict:
    """The namespace after running ``sources`` one after another in ``scope``, as the notebook's cells would."""
    for source in sources:
        exec(source, scope)
    return scope


def define(code: dict[str, tuple[str, str]], name: str, source: str, **scope: object) -> object:
    """``name`` from ``source``, run after the other exercises' solutions in ``code`` (as in the solved notebook)."""
    others = [solution for other, (_, solution) in code.items() if other != name]
    return run_cells(*others, source, **scope)[name]


def failing(line: str, name: str) -> None:
    """``line`` is a check's verdict that names the first failing case of ``name`` and gives its hint."""
    assert line.startswith(f"❌ {name}: case "), line
    assert " of " in line and "Hint:" in line, line
