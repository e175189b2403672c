"""The checks judge like a teacher (issue 24): the corpus of learners' answers gets the verdicts it should, and a
passing answer works in every cell after it.

For each notebook, one in-process run (``tests/notebook_runner.py``) replaces every exercise with the corpus'
``downstream`` answer (a correct answer in another style than the solution: 0/1 for a bool, a list for a
tuple, ...): every check must pass and every later cell must run on those answers (the downstream test). Each
corpus entry then runs on the namespace the notebook had before its exercise, and its check's verdict must be
the expected one: ✅ for a right answer, ❌ with the words of the fitting hint for a wrong one, ⏳ naming what
is missing for an unfinished one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from exercise_corpus import CORPUS, Entry, load
from notebook_runner import SHRINK, SKIP, NotebookRun

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = [(notebook, entry) for notebook, entries in CORPUS.items() for entry in entries]


def _rules() -> list[str]:
    """Every exercise's whole rule (the ``HINTS`` of the notebooks' check modules), what ``hint(name)`` prints."""
    import importlib
    import pkgutil

    import alphazero_lib.exercises as exercises

    modules = [
        importlib.import_module(f"{exercises.__name__}.{m.name}") for m in pkgutil.iter_modules(exercises.__path__)
    ]
    return [
        rule for module in modules for rule in getattr(module, "HINTS", {}).values() if isinstance(rule, str) and rule
    ]


RULES = _rules()


def _id(item: tuple[str, Entry]) -> str:
    notebook, entry = item
    return f"{notebook[:2]}-{entry.check.removeprefix('check_')}-{entry.verdict}-{entry.note}"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, NotebookRun]:
    return {}


def notebook_run(runs: dict[str, NotebookRun], notebook: str, tmp_path_factory) -> NotebookRun:
    """The notebook run once with the downstream answers (cached for the module)."""
    if notebook not in runs:
        path = ROOT / "notebooks" / f"{notebook}.ipynb"
        probe = NotebookRun(path)
        answers = {}
        for entry in CORPUS[notebook]:
            if entry.downstream:
                assert entry.check not in answers, f"two downstream answers for {entry.check}"
                answers[entry.check] = entry.source(probe.exercises[entry.check].solution)
        runs[notebook] = NotebookRun(path, answers, skip=SKIP.get(notebook, ()), shrink=SHRINK.get(notebook, ()))
        runs[notebook].run(tmp_path_factory.mktemp(notebook))
    return runs[notebook]


@pytest.mark.parametrize("notebook", sorted(CORPUS))
def test_downstream_answers_pass_and_every_later_cell_runs_on_them(runs, notebook, tmp_path_factory):
    run = notebook_run(runs, notebook, tmp_path_factory)
    missing = sorted(set(run.exercises) - {e.check for e in CORPUS[notebook] if e.downstream})
    assert not missing, f"no downstream answer for {missing}"
    for check, line in run.verdicts.items():
        assert line.startswith("✅") and "\n" not in line, f"{check}: {line}"
    assert set(run.verdicts) == set(run.exercises)


def test_every_exercise_has_four_wrong_or_partial_and_two_right_answers():
    for notebook, entries in CORPUS.items():
        run = NotebookRun(ROOT / "notebooks" / f"{notebook}.ipynb")
        for check in run.exercises:
            kinds = [e.verdict for e in entries if e.check == check]
            wrong = kinds.count("wrong") + kinds.count("unfinished")
            assert kinds.count("right") >= 2 and wrong >= 4, f"{notebook} {check}: {kinds}"


@pytest.mark.parametrize("item", ENTRIES, ids=[_id(i) for i in ENTRIES])
def test_corpus_verdict(runs, item, tmp_path_factory):
    notebook, entry = item
    run = notebook_run(runs, notebook, tmp_path_factory)
    source = entry.source(run.exercises[entry.check].solution)
    line = run.try_answer(entry.check, source)
    assert "\n" not in line, f"one verdict line, got {line!r}"
    mark = {"right": "✅", "wrong": "❌", "unfinished": "⏳"}[entry.verdict]
    assert line.startswith(mark), line
    for words in entry.expect:
        assert words in line, f"{words!r} not in: {line}"
    if entry.verdict == "wrong":  # the hint names the mistake, not the exercise's whole rule again
        hint = line.partition("Hint: ")[2]
        assert not any(hint.startswith(rule) for rule in RULES), f"the whole rule restated: {line}"


def test_a_malformed_corpus_entry_is_refused_saying_what_it_needs(tmp_path):
    (tmp_path / "01_games.toml").write_text('[[check_x]]\nright = "a"\nwrong = "b"\ncode = "pass"\n')
    with pytest.raises(
        ValueError, match=r"01_games.toml: an entry of check_x has the keys \['code', 'right', 'wrong'\]"
    ):
        load(tmp_path)
    (tmp_path / "01_games.toml").write_text('[[check_x]]\nright = "a"\nedit = [["old", "new"]]\n')
    assert load(tmp_path)["01_games"][0].source("the old cell") == "the new cell"
