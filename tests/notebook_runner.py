"""Run a course notebook's code cells in this process, exercise cells replaced, to test its checks as a learner.

``NotebookRun(path, answers).run()`` executes the code cells in order in one namespace (no kernel: magics are
left out, ``display`` prints, play cells are quiet under ``ALPHAZERO_HEADLESS=1``). Each exercise cell is
replaced by ``answers[check name]`` (the notebook's solution where none is given); its check cell prints the
verdict, which is recorded. Before each exercise cell a copy of the namespace is kept, so another answer can
be tried on the same cells later with ``try_answer``. Used by ``tests/test_exercise_corpus.py``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import solve_notebooks  # noqa: E402

CHECK_NAME = re.compile(r"\b(check_\w+)\(")
ADDED_TO = re.compile(r"@add_to_class\((\w+)\)")


def check_name(source: str) -> str:
    """The checker a check cell calls, e.g. ``check_get_ucb``."""
    match = CHECK_NAME.search(source)
    if match is None:
        raise ValueError(f"no check_ call in {source!r}")
    return match.group(1)


def runnable(source: str) -> str:
    """A cell's source without IPython's magics and shell escapes (lines starting with % or !)."""
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))


# Slow cells that run no learner code are left out of the downstream and solved runs (with the cells that only
# read them):
SKIP: dict[str, tuple[str, ...]] = {
    "06_connect_four": ("iterations = [1, 4, 12, 26, 52]", 'print(f"{len(results)} iterations'),  # 80 s of matches
    # the agent's other games: make_agent and evaluate_both_seats already ran in kaggle's environments (cells 22, 40)
    "08_kaggle_playoffs": (
        "quick_agent = make_agent(",
        "self_env = make(",
        "self_env.render(",
        "self_states,",
        'print("submission vs random:"',
    ),
    # matches, a round robin and games against perfect play of library players (wilson_interval and fit_elo run on
    # tables in cells 21 and 28)
    "09_evaluation": (
        'specs = ["random", "greedy"',
        "results[s, opponent].score",
        "rungs = [1, 8, 16, 26, 42, 52]",
        "ax.plot(rungs,",
        "names = tournament.names",
        "at_stake = {}  # iteration",  # games against the perfect solver (the optional solver extra)
        "if at_stake:",
    ),
}

# Smaller runs of the learner's code in the cells after the exercises (the same cells, the same code paths):
SHRINK: dict[str, tuple[tuple[str, str], ...]] = {
    "02_vanilla_mcts": (("budgets = [50, 200, 800, 1600]", "budgets = [50, 200]"), ("num_games=20", "num_games=2")),
    "04_alphazero_search": (("num_games=20", "num_games=2"),),
    "05_self_play_training": (
        ("NUM_ITERATIONS, NUM_GAMES = 4, 30", "NUM_ITERATIONS, NUM_GAMES = 2, 4"),
        ("SearchConfig(num_searches=40, dirichlet_epsilon", "SearchConfig(num_searches=10, dirichlet_epsilon"),
        ("for _ in range(10):", "for _ in range(2):"),
    ),
    "07_parallel_self_play": (
        ("random_positions(c4, 64,", "random_positions(c4, 8,"),
        ("SearchConfig(num_searches=50, dirichlet_epsilon", "SearchConfig(num_searches=10, dirichlet_epsilon"),
    ),
    "08_kaggle_playoffs": (("SearchConfig(num_searches=100, seed=0)", "SearchConfig(num_searches=20, seed=0)"),),
}


@dataclass
class Exercise:
    check: str  # the checker's name, e.g. "check_get_ucb"
    stub: str
    solution: str
    check_source: str
    index: int  # the exercise cell's index in the notebook


@dataclass
class NotebookRun:
    """One in-process run of ``path`` with ``answers`` (check name -> exercise cell source) in place."""

    path: Path
    answers: dict[str, str] = field(default_factory=dict)
    skip: tuple[str, ...] = ()  # cells containing one of these strings are left out but for their imports
    shrink: tuple[tuple[str, str], ...] = ()  # (old, new) in code cells: smaller matches and runs; each must apply
    verdicts: dict[str, str] = field(default_factory=dict)
    snapshots: dict[str, dict] = field(default_factory=dict)
    seconds: dict[int, float] = field(default_factory=dict)
    skipped: list[int] = field(default_factory=list)
    printed: dict[int, str] = field(default_factory=dict)  # cell index -> what the cell printed

    def __post_init__(self) -> None:
        self.notebook = nbformat.read(self.path, as_version=4)
        self.exercises = {}
        for ex in solve_notebooks.exercises(self.notebook):
            check_source = solve_notebooks.source(self.notebook.cells[ex.check])
            name = check_name(check_source)
            self.exercises[name] = Exercise(
                name,
                solve_notebooks.source(self.notebook.cells[ex.exercise]),
                ex.solution_code,
                check_source,
                ex.exercise,
            )
        unknown = set(self.answers) - set(self.exercises)
        if unknown:
            raise ValueError(f"{self.path.name} has no exercise checked by {sorted(unknown)}")

    def run(self, workdir: Path) -> NotebookRun:
        """Execute every code cell; raises the first error of a cell (named) after restoring the process state."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        by_cell = {ex.index: ex for ex in self.exercises.values()}
        code = [solve_notebooks.source(c) for c in self.notebook.cells if c.cell_type == "code"]
        for old, _ in self.shrink:
            if not any(old in source for source in code):
                raise ValueError(f"{self.path.name}: no code cell contains {old!r} (the notebook changed?)")
        checks = {solve_notebooks.exercises(self.notebook)[k].check: name for k, name in enumerate(self.exercises)}
        namespace = {"__name__": "__main__", "display": _display}
        old_cwd, old_env = Path.cwd(), os.environ.get("ALPHAZERO_HEADLESS")
        os.environ["ALPHAZERO_HEADLESS"] = "1"
        os.chdir(workdir)
        try:
            for index, cell in enumerate(self.notebook.cells):
                if cell.cell_type != "code":
                    continue
                source = solve_notebooks.source(cell)
                if index in by_cell:
                    exercise = by_cell[index]
                    self.snapshots[exercise.check] = dict(namespace)
                    source = self.answers.get(exercise.check, exercise.solution)
                elif any(marker in source for marker in self.skip):
                    self.skipped.append(index)  # its imports still run: later cells may use the names
                source = solve_notebooks.trimmed(source, self.skip, self.shrink)
                start = time.perf_counter()
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    try:
                        exec(compile(runnable(source), f"<{self.path.name} cell {index}>", "exec"), namespace)
                    except Exception as error:
                        raise CellError(
                            f"{self.path.name} cell {index} raised {type(error).__name__}: {error}"
                        ) from error
                    finally:
                        plt.close("all")
                self.seconds[index] = time.perf_counter() - start
                self.printed[index] = out.getvalue()
                if index in checks:
                    self.verdicts[checks[index]] = out.getvalue().strip()
        finally:
            os.chdir(old_cwd)
            if old_env is None:
                os.environ.pop("ALPHAZERO_HEADLESS", None)
            else:
                os.environ["ALPHAZERO_HEADLESS"] = old_env
        return self

    def try_answer(self, check: str, source: str) -> str:
        """The verdict the check cell of ``check`` prints for the exercise cell ``source``, on the namespace the
        notebook had before that exercise (classes that ``source`` adds methods to are copied first)."""
        exercise = self.exercises[check]
        namespace = dict(self.snapshots[check])
        for name in set(ADDED_TO.findall(source)):
            base = namespace[name]
            namespace[name] = type(base.__name__, (base,), {"__doc__": base.__doc__})
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(source, f"<answer to {check}>", "exec"), namespace)
            exec(compile(runnable(exercise.check_source), f"<{check} cell>", "exec"), namespace)
        return out.getvalue().strip()


class CellError(RuntimeError):
    """A notebook cell raised: says which notebook and cell."""


def _display(*objects, **kwargs) -> None:
    for obj in objects:
        print(repr(obj))
