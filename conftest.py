"""Root conftest: notebook kernels started by nbval inherit this environment; play cells stay quiet there."""

import os
import tempfile

os.environ.setdefault("ALPHAZERO_HEADLESS", "1")
# the checks keep a learner's code in $MY_ALPHAZERO_HOME/my_alphazero: never in the checkout, never a developer's own
os.environ["MY_ALPHAZERO_HOME"] = tempfile.mkdtemp(prefix="my_alphazero_home_")
# the capstone (notebook 10) trains for seconds, not 20 minutes, under nbval (its stored outputs come from that run)
os.environ.setdefault("ALPHAZERO_CAPSTONE_QUICK", "1")
# pytest-xdist runs the suite in one process per core: a kernel or subprocess with more threads than its share
# only spin-waits beside the other workers (tests pin torch to one thread themselves: tests/conftest.py)
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["OMP_NUM_THREADS"] = "1"


# pytest-xdist hands each worker whole files (--dist loadfile) in the order they were collected: the longest files go
# first, so that the end of the run is short files that even out between the workers, not one worker alone with
# the browser test. Measured on a quiet 2-core AMD EPYC (2026-11-28, commit 3398c3d): 900 s in collection order,
# 830 s in this one, one run each. A file not listed keeps its place after these.
LONGEST_FIRST = [
    "tests/test_web_in_browser.py",
    "tests/test_capstone.py",
    "tests/test_site.py",
    "tests/test_kernels.py",
    "tests/test_distributed.py",
    "tests/test_course.py",
    "tests/test_rundir.py",
    "tests/test_strength.py",
    "tests/test_exercise_corpus.py",
    "notebooks/06_connect_four.ipynb",
    "notebooks/05_self_play_training.ipynb",
    "notebooks/09_evaluation.ipynb",
    "notebooks/10_capstone.ipynb",
    "notebooks/08_kaggle_playoffs.ipynb",
    "tests/test_selfplay.py",
    "tests/test_play_in_browser.py",
    "tests/test_wheel.py",
    "tests/test_standalone_agent.py",
    "tests/test_game_conformance.py",
    "notebooks/07_parallel_self_play.ipynb",
    "tests/test_onnx_export.py",
    "tests/test_inference.py",
    "tests/test_exercises_nb04.py",
    "tests/test_mcts.py",
    "tests/test_structure.py",
]


def pytest_collection_modifyitems(session, config, items):
    """The files of ``LONGEST_FIRST`` first, in its order; a file's own tests keep their order (sort is stable)."""
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
