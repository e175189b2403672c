"""Per notebook: exercises, the lines a learner writes, and the run time unsolved and solved (a README table).

    python tools/course_stats.py             # every course notebook, both runs (about twice the notebooks' time)
    python tools/course_stats.py --no-run    # counts only

"Lines a learner writes" are the non-blank lines of the solutions' code, which replace the exercise cells.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import solve_notebooks

ROOT = Path(__file__).resolve().parents[1]


def solution_lines(nb: nbformat.NotebookNode) -> int:
    """Non-blank lines over every solution of the notebook."""
    return sum(sum(1 for line in ex.solution_code.splitlines() if line.strip()) for ex in solve_notebooks.exercises(nb))


def timed(nb: nbformat.NotebookNode, path: Path) -> float:
    start = time.perf_counter()
    solve_notebooks.execute(nb, path)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--no-run", action="store_true", help="count only; do not execute the notebooks")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    print("| notebook | exercises | lines written | unsolved | solved |")
    print("|---|---|---|---|---|")
    totals = [0, 0, 0.0, 0.0]
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        count, lines = len(solve_notebooks.exercises(nb)), solution_lines(nb)
        unsolved = solved = float("nan")
        if not args.no_run:
            unsolved = timed(copy.deepcopy(nb), path)
            solved = timed(solve_notebooks.solved(nb), path)
        totals = [totals[0] + count, totals[1] + lines, totals[2] + unsolved, totals[3] + solved]
        print(f"| {path.stem} | {count} | {lines} | {unsolved:.0f} s | {solved:.0f} s |", flush=True)
    print(f"| total | {totals[0]} | {totals[1]} | {totals[2]:.0f} s | {totals[3]:.0f} s |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
