"""A corpus of learners' answers to the course's exercises, each with the verdict its check must give (issue 24).

Each ``Entry`` is an exercise cell as a learner might write it, for the check named ``check``:

- ``right``: a correct answer in another style than the notebook's solution (it must pass: ✅);
- ``wrong``: a plausible mistake (it must fail: ❌, and the line must contain every string in ``expect``, the
  words of the hint that fits that mistake);
- ``unfinished``: a partial answer (⏳, naming what is missing, with ``expect`` in the line).

``code`` is the whole cell, or ``Edit`` replacements applied to the notebook's solution (each must apply, so a
changed solution shows here). One ``right`` entry per exercise is marked ``downstream``: the notebook is run with
those answers in place of its exercises, and every later cell must work with them
(``tests/test_exercise_corpus.py``, the one runner).

The answers are data, one TOML file a notebook in ``tests/corpus/`` (``01_games.toml``, ...), an entry a table
under its check's name: the verdict as the key of its note, then ``downstream``, ``expect``, and ``code`` (the
learner's cell as written) or ``edit`` (``[old, new]`` pairs)::

    [[check_get_initial_state]]
    wrong = "float zeros"
    expect = ["dtype float64 where integers", "dtype=np.int8"]
    code = '''
    @add_to_class(TicTacToe)
    def get_initial_state(self):
        return np.zeros((3, 3))
    '''
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser from PyPI (the dev extra installs it)
    import tomli as tomllib


@dataclass(frozen=True)
class Edit:
    """Replacements ``(old, new)`` applied in turn to the notebook's solution; each ``old`` must occur."""

    pairs: tuple[tuple[str, str], ...]

    def apply(self, solution: str) -> str:
        for old, new in self.pairs:
            if old not in solution:
                raise ValueError(f"{old!r} is not in the solution:\n{solution}")
            solution = solution.replace(old, new)
        return solution


@dataclass(frozen=True)
class Entry:
    check: str
    verdict: str  # "right", "wrong" or "unfinished"
    code: str | Edit
    expect: tuple[str, ...] = ()
    note: str = ""
    downstream: bool = False

    def source(self, solution: str) -> str:
        return self.code.apply(solution) if isinstance(self.code, Edit) else self.code


VERDICTS = ("right", "wrong", "unfinished")
KEYS = {*VERDICTS, "downstream", "expect", "code", "edit"}
FOLDER = Path(__file__).resolve().parent / "corpus"


def _entry(where: str, check: str, item: dict) -> Entry:
    """One table of a corpus file as an ``Entry``; a malformed one is refused, saying where and what is allowed."""
    verdicts = [verdict for verdict in VERDICTS if verdict in item]
    sources = [key for key in ("code", "edit") if key in item]
    if len(verdicts) != 1 or len(sources) != 1 or set(item) - KEYS:
        raise ValueError(
            f"{where}: an entry of {check} has the keys {sorted(item)}; it needs one verdict ({', '.join(VERDICTS)}: "
            f"its note), code or edit, and may have downstream and expect"
        )
    code = item["code"] if "code" in item else Edit(tuple((old, new) for old, new in item["edit"]))
    verdict = verdicts[0]
    return Entry(check, verdict, code, tuple(item.get("expect", ())), item[verdict], item.get("downstream", False))


def load(folder: Path = FOLDER) -> dict[str, list[Entry]]:
    """The corpus: notebook (a file's name, ``01_games``) -> its entries, in the files' order."""
    corpus = {}
    for path in sorted(folder.glob("*.toml")):
        tables = tomllib.loads(path.read_text(encoding="utf-8"))
        corpus[path.stem] = [_entry(path.name, check, item) for check, items in tables.items() for item in items]
    return corpus


CORPUS = load()
