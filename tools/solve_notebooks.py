"""The solved run: every course notebook executed with all its exercise solutions filled in.

    python tools/solve_notebooks.py                         # every notebook; exit 1 if any check fails
    python tools/solve_notebooks.py notebooks/02_vanilla_mcts.ipynb --out solved/   # keep the solved copies
    python tools/solve_notebooks.py --home runs/solved_home     # keep the learner's package (my_alphazero/) there
    python tools/solve_notebooks.py notebooks/10_capstone.ipynb --home runs/solved_home --timeout 10800 --store
                                                # the capstone's full run, its outputs stored in the notebook

The course's cell conventions, which this tool and ``tests/test_course.py`` rely on:

- an **exercise** cell is a code cell tagged ``exercise`` whose body raises ``NotImplementedError``;
- its **check** cell is the next code cell, tagged ``check``; it prints one verdict line;
- its **solution** is the first markdown cell after the check that opens with ``<details><summary>Solution``;
  its first fenced ``python`` block replaces the exercise cell's whole source in the solved copy.

Each solved copy runs top to bottom in a fresh kernel (``ALPHAZERO_HEADLESS=1``, so play cells stay quiet);
every check cell must then print a verdict that starts with ✅. The checks keep the solutions in
``my_alphazero/`` under ``$MY_ALPHAZERO_HOME`` (``--home``; default a fresh temporary folder), and the notebooks
run later in the same call read them from there, as a learner's would.
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"```python\n(.*?)```", re.DOTALL)
PASSED, NOT_WRITTEN = "✅", "⏳"


@dataclass
class Exercise:
    """One exercise of a notebook: the cell indices of the exercise, its check and its solution."""

    exercise: int
    check: int
    solution: int
    solution_code: str


def tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def source(cell: nbformat.NotebookNode) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def exercises(nb: nbformat.NotebookNode) -> list[Exercise]:
    """The notebook's exercises in order; raises ``ValueError`` when a convention is broken (says which cell)."""
    found = []
    cells = nb.cells
    for i, cell in enumerate(cells):
        if cell.cell_type != "code" or "exercise" not in tags(cell):
            continue
        check = next((j for j in range(i + 1, len(cells)) if cells[j].cell_type == "code"), None)
        if check is None or "check" not in tags(cells[check]):
            raise ValueError(f"cell {i}: an exercise must be followed by a code cell tagged 'check'")
        solution = next(
            (
                j
                for j in range(check + 1, len(cells))
                if cells[j].cell_type == "markdown"
                and source(cells[j]).lstrip().startswith("<details><summary>Solution")
            ),
            None,
        )
        nxt = next((j for j in range(i + 1, len(cells)) if "exercise" in tags(cells[j])), len(cells))
        if solution is None or solution > nxt:
            raise ValueError(f"cell {i}: no '<details><summary>Solution' markdown cell before the next exercise")
        match = FENCE.search(source(cells[solution]))
        if match is None:
            raise ValueError(f"cell {solution}: the solution has no ```python fenced block")
        found.append(Exercise(i, check, solution, match.group(1)))
    return found


def solved(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``nb`` with every exercise cell's source replaced by its solution."""
    out = copy.deepcopy(nb)
    for ex in exercises(nb):
        out.cells[ex.exercise].source = ex.solution_code.rstrip("\n")
    return out


def trimmed(code: str, skip: Sequence[str] = (), shrink: Sequence[tuple[str, str]] = ()) -> str:
    """A code cell's source for a shorter run: a cell holding one of the ``skip`` markers keeps only its import
    lines (later cells may use the names), and every ``(old, new)`` of ``shrink`` is replaced."""
    if any(marker in code for marker in skip):
        code = "\n".join(line for line in code.splitlines() if line.startswith(("import ", "from ")))
    for old, new in shrink:
        code = code.replace(old, new)
    return code


def trim(
    nb: nbformat.NotebookNode, skip: Sequence[str] = (), shrink: Sequence[tuple[str, str]] = ()
) -> nbformat.NotebookNode:
    """A copy of ``nb`` whose code cells are ``trimmed``; raises ``ValueError`` for a ``shrink`` that applies to
    no cell (the notebook changed under it)."""
    out = copy.deepcopy(nb)
    code = [cell for cell in out.cells if cell.cell_type == "code"]
    for old, _ in shrink:
        if not any(old in source(cell) for cell in code):
            raise ValueError(f"no code cell contains {old!r} (the notebook changed?)")
    for cell in code:
        cell.source = trimmed(source(cell), skip, shrink)
    return out


def verdicts(nb: nbformat.NotebookNode) -> list[tuple[int, str]]:
    """``(cell index, printed text)`` of every check cell of an executed notebook."""
    out = []
    for ex in exercises(nb):
        text = "".join(o.get("text", "") for o in nb.cells[ex.check].get("outputs", []) if o["output_type"] == "stream")
        out.append((ex.check, text.strip()))
    return out


def execute(nb: nbformat.NotebookNode, path: Path, timeout: int = 600) -> nbformat.NotebookNode:
    """Run ``nb`` top to bottom in a fresh kernel in ``path``'s folder (headless: play cells stay quiet)."""
    from nbclient import NotebookClient

    os.environ["ALPHAZERO_HEADLESS"] = "1"
    NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    return nb


def run_solved(
    path: Path,
    out_dir: Path | None = None,
    home: Path | None = None,
    skip: Sequence[str] = (),
    shrink: Sequence[tuple[str, str]] = (),
    timeout: int = 600,
) -> tuple[list[str], float]:
    """Execute the solved copy of one notebook; return the problems found (empty when all is well) and the time.

    The checks keep the solutions in ``home/my_alphazero`` (default: a fresh temporary folder, so a test's solved
    run never changes what another notebook's run reads). ``skip`` and ``shrink`` shorten it (``trim``: the test
    suite leaves out slow cells that run no learner code and shrinks long runs of it)."""
    import tempfile

    nb = trim(solved(nbformat.read(path, as_version=4)), skip, shrink)
    before = os.environ.get("MY_ALPHAZERO_HOME")
    os.environ["MY_ALPHAZERO_HOME"] = str(home if home is not None else tempfile.mkdtemp(prefix="solved_home_"))
    start = time.perf_counter()
    try:
        execute(nb, path, timeout)
    finally:
        if before is None:
            os.environ.pop("MY_ALPHAZERO_HOME", None)
        else:
            os.environ["MY_ALPHAZERO_HOME"] = before
    elapsed = time.perf_counter() - start
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, out_dir / path.name)
    problems = [
        f"{path.name} cell {i}: {text or '(printed nothing)'}"
        for i, text in verdicts(nb)
        if not text.startswith(PASSED)
    ]
    return problems, elapsed


def store(path: Path, executed: Path) -> None:
    """Write the outputs of ``executed`` (``path`` run by ``run_solved``) into ``path`` itself, cleaned as
    ``tools/run_notebooks.py`` cleans (kernelspec, no timings)."""
    from run_notebooks import clean

    nb = nbformat.read(executed, as_version=4)
    clean(nb)
    nbformat.write(nb, path)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks to run (default: every course notebook)")
    parser.add_argument("--out", type=Path, help="folder to keep the executed solved copies in")
    parser.add_argument("--home", type=Path, help="where the checks keep my_alphazero/ (default: a temporary folder)")
    parser.add_argument(
        "--timeout", type=int, default=600, help="seconds a cell may run (the capstone's full run: 20 min training)"
    )
    parser.add_argument(
        "--store",
        action="store_true",
        help="write the executed outputs into the notebook itself (only a notebook without exercises: the capstone)",
    )
    args = parser.parse_args(argv)
    import tempfile

    home = args.home.resolve() if args.home else Path(tempfile.mkdtemp(prefix="solved_home_"))
    print(f"the learner's package: {home / 'my_alphazero'}")
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    out = args.out or (Path(tempfile.mkdtemp(prefix="solved_")) if args.store else None)
    failed = 0
    for path in paths:
        if args.store and exercises(nbformat.read(path, as_version=4)):
            print(f"{path.name} has exercises: --store would store its solutions' outputs; left out")
            failed += 1
            continue
        problems, elapsed = run_solved(path, out, home, timeout=args.timeout)
        if args.store and out is not None:
            store(path, out / path.name)
        count = len(exercises(nbformat.read(path, as_version=4)))
        print(f"{path.name}: {count} exercises, {'all checks pass' if not problems else 'FAILED'} ({elapsed:.1f} s)")
        for problem in problems:
            print("  " + problem)
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
