"""Your code travels with you: a passing check keeps the learner's code in my_alphazero/, later notebooks load it.

Cells are simulated as a kernel runs them: source registered in ``linecache`` under a cell's file name, executed
in a namespace called ``__main__``.
"""

from __future__ import annotations

import itertools
import linecache
import os
from pathlib import Path

import numpy as np

from alphazero_lib.course import mine
from alphazero_lib.course.mine import Piece, keep, load_yours
from alphazero_lib.exercises import nb05_self_play, nb06_connect_four
from alphazero_lib.training import minibatches as library_minibatches

COUNTER = itertools.count()

MINIBATCHES = '''
def minibatches(num_samples, batch_size, rng):
    """Shuffled slices; a last batch of one joins the one before."""
    order = rng.permutation(num_samples)
    batches = [order[start : start + batch_size] for start in range(0, num_samples, batch_size)]
    if len(batches) > 1 and len(batches[-1]) == 1:
        batches[-2] = np.concatenate([batches[-2], batches[-1]])
        batches.pop()
    return batches
'''

DROPS_LAST = """
def minibatches(num_samples, batch_size, rng):
    order = rng.permutation(num_samples)
    return [order[start : min(num_samples - 1, start + batch_size)] for start in range(0, num_samples - 1, batch_size)]
"""

SKELETON = '''
class ConnectFour:
    """The notebook's class: the rules the learner does not write."""

    def __init__(self):
        self.row_count, self.column_count, self.in_a_row = 6, 7, 4
        self.action_size = self.column_count

    def get_initial_state(self):
        return np.zeros((self.row_count, self.column_count), dtype=np.int8)
'''

VALID_MOVES = """
@add_to_class(ConnectFour)
def get_valid_moves(self, state):
    return (state[0] == 0).astype(np.uint8)
"""

WRONG_VALID_MOVES = """
@add_to_class(ConnectFour)
def get_valid_moves(self, state):
    return (state[-1] == 0).astype(np.uint8)
"""


def cell(namespace: dict, source: str) -> None:
    """Run ``source`` as a notebook cell: its file name is a kernel cell's, so inspect finds its source."""
    name = f"/tmp/ipykernel_0/{next(COUNTER)}.py"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    exec(compile(source, name, "exec"), namespace)


def notebook() -> dict:
    namespace = {"__name__": "__main__"}
    cell(namespace, "import numpy as np\nfrom alphazero_lib.exercises import add_to_class\n")
    return namespace


def minibatch_piece() -> list[Piece]:
    return [Piece("nb05_self_play", "minibatches", library_minibatches)]


def test_a_passing_function_is_kept_and_loaded_and_counted(home, capsys):
    ns = notebook()
    cell(ns, MINIBATCHES)
    assert nb05_self_play.check_minibatches(ns["minibatches"]) is ns["minibatches"]
    path = home / "my_alphazero" / "nb05_self_play.py"
    assert path.is_file()
    assert "def minibatches" in path.read_text() and "import numpy as np" in path.read_text()

    yours = load_yours(minibatch_piece())
    assert yours.mine == ["minibatches"] and yours.library == {}
    assert "Yours: minibatches." in capsys.readouterr().out
    batches = yours["minibatches"](5, 2, np.random.default_rng(0))
    assert sorted(np.concatenate(batches).tolist()) == [0, 1, 2, 3, 4]
    assert yours.counter.per_piece["minibatches"] == 1 and yours.counter.totals() == {"yours": 1, "library": 0}
    assert yours["minibatches"].__wrapped__.__module__ == "my_alphazero.nb05_self_play"
    # the kept file alone passes the check again: nothing it needs was left in the notebook
    assert nb05_self_play.check_minibatches(yours["minibatches"].__wrapped__) is yours["minibatches"].__wrapped__


def test_a_failing_function_is_not_kept(home, capsys):
    ns = notebook()
    cell(ns, DROPS_LAST)
    assert nb05_self_play.check_minibatches(ns["minibatches"]) is not ns["minibatches"]
    assert not (home / "my_alphazero" / "nb05_self_play.py").exists()
    yours = load_yours(minibatch_piece())
    assert yours.mine == [] and yours["minibatches"] is not ns["minibatches"]
    assert "no my_alphazero/nb05_self_play.py" in yours.library["minibatches"]
    assert "The library's: minibatches (no my_alphazero/nb05_self_play.py" in capsys.readouterr().out


def test_code_from_a_file_is_not_kept_unless_forced(home, monkeypatch):
    namespace = {"np": np}
    exec(MINIBATCHES, namespace)  # no cell file name: the test suite's own solutions are never kept
    nb05_self_play.check_minibatches(namespace["minibatches"])
    assert not (home / "my_alphazero").exists()
    monkeypatch.setenv(mine.KEEP_VARIABLE, "0")
    ns = notebook()
    cell(ns, MINIBATCHES)
    nb05_self_play.check_minibatches(ns["minibatches"])
    assert not (home / "my_alphazero").exists()


def test_a_method_is_kept_with_the_notebook_class_it_needs(home, capsys):
    ns = notebook()
    cell(ns, SKELETON)
    cell(ns, VALID_MOVES)
    nb06_connect_four.check_get_valid_moves(ns["ConnectFour"])
    text = (home / "my_alphazero" / "nb06_connect_four.py").read_text()
    assert "class ConnectFour:" in text and "@add_to_class(ConnectFour)" in text
    assert text.index("class ConnectFour:") < text.index("@add_to_class(ConnectFour)")
    assert "KEPT = ['ConnectFour.get_valid_moves']" in text and "GIVEN = ['ConnectFour']" in text

    piece = Piece(
        "nb06_connect_four",
        "ConnectFour",
        None,
        methods={
            "get_valid_moves": nb06_connect_four._library_get_valid_moves,
            "get_next_state": nb06_connect_four._library_get_next_state,
        },
    )
    yours = load_yours([piece])
    assert yours.mine == ["ConnectFour.get_valid_moves"]
    assert yours.library == {"ConnectFour.get_next_state": "its check has not passed"}
    game = yours["ConnectFour"]()
    state = game.get_next_state(game.get_initial_state(), 3, 1)  # the library's stands in
    assert state[5, 3] == 1 and game.get_valid_moves(state).tolist() == [1] * 7
    assert yours.counter.per_piece == {"ConnectFour.get_next_state": 1, "ConnectFour.get_valid_moves": 1}
    assert yours.counter.whose["ConnectFour.get_valid_moves"] == "yours"


def test_a_method_that_fails_again_keeps_the_last_passing_version_out(home):
    ns = notebook()
    cell(ns, SKELETON)
    cell(ns, WRONG_VALID_MOVES)
    nb06_connect_four.check_get_valid_moves(ns["ConnectFour"])
    assert not (home / "my_alphazero").exists()


def test_a_damaged_module_falls_back_with_the_reason(home, capsys):
    ns = notebook()
    cell(ns, MINIBATCHES)
    nb05_self_play.check_minibatches(ns["minibatches"])
    path = home / "my_alphazero" / "nb05_self_play.py"
    path.write_text(path.read_text().replace("def minibatches(", "def minibatches(:"))
    yours = load_yours(minibatch_piece())
    assert yours.mine == [] and yours["minibatches"].__wrapped__ is library_minibatches
    assert "nb05_self_play.py does not import: SyntaxError" in yours.library["minibatches"]
    assert "does not import" in capsys.readouterr().out


def test_a_module_missing_a_name_its_code_needs_falls_back(home):
    ns = notebook()
    cell(ns, MINIBATCHES)
    nb05_self_play.check_minibatches(ns["minibatches"])
    path = home / "my_alphazero" / "nb05_self_play.py"
    path.write_text(path.read_text().replace("import numpy as np\n", ""))  # imports fine, fails when called
    yours = load_yours(minibatch_piece(), quiet=True)
    assert yours.mine == []
    assert "minibatches uses np, which the file does not define" in yours.library["minibatches"]


def test_a_global_named_like_a_method_is_imported(home):
    # the notebook's AlphaMCTS has a method `evaluate` that calls the library's function `evaluate`
    ns = notebook()
    cell(ns, "from alphazero_lib.inference import evaluate\n")
    cell(ns, "class Search:\n    def evaluate(self, model, x):\n        return evaluate(model, x)\n")
    path = keep("nb04_alphazero_search", "Search", ns["Search"], "a test")
    assert "from alphazero_lib.inference import evaluate" in path.read_text()


def test_a_piece_handed_out_by_load_pieces_is_imported_not_copied(home):
    """Notebook 7 takes notebook 5's pieces from load_pieces (the library's where notebook 5 did not pass): the
    counting wrapper of a library function is imported by the kept module, whose copied source (with its
    annotations) would not import."""
    ns = notebook()
    pieces = load_yours([Piece("nb05_self_play", "game_memory", nb05_self_play._library_game_memory)], quiet=True)
    ns["game_memory"] = pieces["game_memory"]
    cell(ns, "def samples(game, history, value, player):\n    return game_memory(game, history, value, player)\n")
    path = keep("nb07_parallel", "samples", ns["samples"], "a test")
    text = path.read_text()
    assert "from alphazero_lib.exercises.nb05_self_play import _library_game_memory as game_memory" in text, text
    yours = load_yours([Piece("nb07_parallel", "samples", lambda *a: None)], quiet=True)
    assert yours.mine == ["samples"], yours.library


def test_a_kept_module_imports_kaggle_environments_quietly(home):
    """Notebook 8's kept code names kaggle's ``make``: the module imports it through the library's quiet import,
    so loading the learner's pieces prints no "Loading environment lux_ai_s2 failed" lines."""
    import subprocess
    import sys

    ns = notebook()
    cell(ns, "from kaggle_environments.core import make\n")
    cell(ns, "def new_env():\n    return make('connectx')\n")
    path = keep("nb08_kaggle", "new_env", ns["new_env"], "a test")
    text = path.read_text()
    assert text.index("import_kaggle_environments()") < text.index("from kaggle_environments.core import make")
    code = f"import sys; sys.path.insert(0, {str(home)!r}); import my_alphazero.nb08_kaggle as m; m.new_env()"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Loading environment" not in done.stdout + done.stderr, done.stdout


def test_keeping_writes_whole_files_or_nothing(home, monkeypatch):
    ns = notebook()
    cell(ns, MINIBATCHES)
    nb05_self_play.check_minibatches(ns["minibatches"])
    folder = home / "my_alphazero"
    before = (folder / "nb05_self_play.py").read_text()

    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    cell(ns, MINIBATCHES.replace("Shuffled slices", "Shuffled slices, again"))
    nb05_self_play.check_minibatches(ns["minibatches"])  # passes; keeping fails and says so, the check does not
    assert (folder / "nb05_self_play.py").read_text() == before
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_the_package_goes_where_the_home_variable_says(tmp_path, monkeypatch):
    monkeypatch.setenv(mine.HOME_VARIABLE, str(tmp_path / "drive"))
    assert mine.package_dir() == (tmp_path / "drive" / "my_alphazero").resolve()
    monkeypatch.delenv(mine.HOME_VARIABLE)
    monkeypatch.chdir(tmp_path)
    assert mine.package_dir() == Path(tmp_path).resolve() / "my_alphazero"
