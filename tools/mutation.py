"""Mutation testing of the core modules with mutmut, one module group at a time (a maintainer's tool, not CI).

    pip install mutmut                                   # 3.x; not in the dev extra (it pulls textual for its UI)
    nice -n 15 python tools/mutation.py                  # every group, at most --budget seconds each
    nice -n 15 python tools/mutation.py games checkpoints --budget 600 --jobs 2
    python tools/mutation.py --list                      # the groups, their files, functions and tests

mutmut plants one small change at a time (a flipped comparison, a constant off by one, a dropped argument) and runs
the tests that reach the changed function; a mutant that no test notices "survives". Each group runs in a fresh
copy of the repository under build/mutation/<group> (ignored by git; edits made meanwhile do not disturb a run),
with mutmut's settings from pyproject.toml ([tool.mutmut]) and the group's files and tests set here. A group cut
short by its time budget reports the mutants it reached. Prints one line per group (killed / checked, the score,
the survivors) and writes build/mutation/report.json; inside build/mutation/<group>, ``mutmut show NAME`` prints
a mutant's diff and ``mutmut browse`` walks them all.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "mutation"

# group -> (files to mutate, mutant-name patterns (None: every function of those files), test files)
GROUPS: dict[str, tuple[list[str], list[str] | None, list[str]]] = {
    "games": (["alphazero_lib/games/*"], None, ["tests/test_games.py", "tests/test_game_conformance.py"]),
    "mcts": (["alphazero_lib/mcts.py"], None, ["tests/test_mcts.py"]),
    "alpha_mcts": (
        ["alphazero_lib/alpha_mcts.py"],
        None,
        ["tests/test_alpha_mcts.py", "tests/test_batched_mcts.py"],
    ),
    "batched_mcts": (
        ["alphazero_lib/batched_mcts.py"],
        None,
        ["tests/test_batched_mcts.py", "tests/test_batched_tree.py"],
    ),
    # self-play: the outcome and target code, the temperature rule and the game loops
    "selfplay": (
        ["alphazero_lib/selfplay.py", "alphazero_lib/selection.py", "alphazero_lib/games/outcome.py"],
        None,
        ["tests/test_training.py", "tests/test_selfplay.py", "tests/test_batched_mcts.py", "tests/test_alpha_mcts.py"],
    ),
    # training: the minibatch code only (the run directory plumbing is tested, but not mutated here)
    "training": (
        ["alphazero_lib/training.py"],
        [f"alphazero_lib.training.{name}__mutmut_*" for name in ("x_stack_memory", "x_minibatches")],
        ["tests/test_training.py"],
    ),
    "checkpoints": (["alphazero_lib/checkpoints.py"], None, ["tests/test_checkpoints.py", "tests/test_cli_arena.py"]),
    "kaggle.agent": (
        ["alphazero_lib/kaggle/agent.py"],
        None,
        ["tests/test_kaggle_export.py", "tests/test_standalone_agent.py"],
    ),
}


def group_settings(files: list[str], tests: list[str]) -> str:
    """The ``[tool.mutmut]`` table for one group: pyproject's settings with the group's files and tests."""
    import tomllib

    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    settings.update(only_mutate=files, pytest_add_cli_args_test_selection=tests)
    return "[tool.mutmut]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in settings.items())


def prepare(group: str) -> Path:
    """A fresh copy of the package, the tests and pyproject.toml (with the group's settings) for ``group``."""
    files, _, tests = GROUPS[group]
    where = WORK / group
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for folder in ("alphazero_lib", "tests", "benchmarks"):
        if (ROOT / folder).is_dir():
            shutil.copytree(ROOT / folder, where / folder, ignore=ignore)
    pyproject = (ROOT / "pyproject.toml").read_text()
    pyproject = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", pyproject)
    (where / "pyproject.toml").write_text(pyproject.rstrip() + "\n\n" + group_settings(files, tests))
    return where


def run_group(group: str, budget: float, jobs: int) -> dict:
    """Run mutmut on ``group`` for at most ``budget`` seconds; its counts, score and surviving mutants."""
    where = prepare(group)
    _, patterns, _ = GROUPS[group]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs), *(patterns or [])]
    start = time.perf_counter()
    with open(where / "mutmut-run.log", "w") as log:
        process = subprocess.Popen(
            command, cwd=where, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            process.wait(timeout=budget)
            finished = process.returncode == 0
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGTERM)  # mutmut and its test processes: the group this script started
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            finished = False
    seconds = time.perf_counter() - start
    results = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=where, env=env, capture_output=True, text=True
    ).stdout
    status: dict[str, str] = {}
    for line in results.splitlines():
        name, sep, state = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            status[name] = state
    if patterns:
        import fnmatch

        status = {k: v for k, v in status.items() if any(fnmatch.fnmatch(k, p) for p in patterns)}
    counts: dict[str, int] = {}
    for state in status.values():
        counts[state] = counts.get(state, 0) + 1
    # a timeout is not counted as a kill: on a busy machine a slow test run times out too (see the report)
    killed = counts.get("killed", 0)
    survivors = sorted(k for k, v in status.items() if v in ("survived", "no tests"))
    checked = killed + len(survivors)
    return {
        "group": group,
        "finished": finished,
        "seconds": round(seconds),
        "mutants": len(status),
        "checked": checked,
        "killed": killed,
        "timeouts": counts.get("timeout", 0),
        "score": round(killed / checked, 3) if checked else None,
        "counts": counts,
        "survivors": survivors,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", help=f"groups to run (default: all): {', '.join(GROUPS)}")
    parser.add_argument("--budget", type=float, default=1200, help="seconds per group (default 1200)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutants tested at once")
    parser.add_argument("--list", action="store_true", help="print the groups and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name, (files, patterns, tests) in GROUPS.items():
            print(f"{name}: {' '.join(files)}  tests: {' '.join(tests)}")
            for pattern in patterns or []:
                print(f"    only {pattern}")
        return 0
    unknown = sorted(set(args.groups) - set(GROUPS))
    if unknown:
        parser.error(f"unknown groups {unknown}; known: {list(GROUPS)}")
    if shutil.which("mutmut") is None:
        parser.error("mutmut is not installed: pip install mutmut")
    report_path = WORK / "report.json"
    report = json.loads(report_path.read_text()) if report_path.is_file() else {}
    for group in args.groups or list(GROUPS):
        result = run_group(group, args.budget, args.jobs)
        report[group] = result
        WORK.mkdir(parents=True, exist_ok=True)
        report_path.write_text(json.dumps(report, indent=2) + "\n")
        score = f"{result['score']:.0%}" if result["score"] is not None else "-"
        note = "" if result["finished"] else f" (stopped by the {args.budget:.0f} s budget)"
        print(
            f"{group}: {result['killed']}/{result['checked']} killed ({score}) of {result['mutants']} mutants "
            f"in {result['seconds']} s{note}; timeouts: {result['timeouts']}; survivors: {len(result['survivors'])}",
            flush=True,
        )
        for name in result["survivors"]:
            print(f"    {name}")
    print(f"report: {report_path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
