"""The course's exercise conventions hold in every guided-build notebook, and the solved run passes.

Conventions (see ``tools/solve_notebooks.py``): an exercise cell tagged ``exercise`` raises
``NotImplementedError``; the next code cell, tagged ``check``, prints one verdict line (committed: not written
yet); a collapsed ``<details><summary>Solution`` markdown cell holds the solution in a ``python`` fence.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import solve_notebooks  # noqa: E402
from notebook_runner import SHRINK, SKIP  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def guided(path: Path) -> bool:
    return any("exercise" in solve_notebooks.tags(c) for c in read(path).cells)


GUIDED = [p for p in NOTEBOOKS if guided(p)]


def test_every_notebook_is_a_guided_build():
    """Every notebook but the overview (00, pictures of the whole algorithm before any code is written) and the
    capstone (10, which assembles the pieces the learner wrote: nothing new to write)."""
    assert [p.name for p in NOTEBOOKS if not guided(p)] == ["00_overview.ipynb", "10_capstone.ipynb"]


@pytest.mark.parametrize("path", GUIDED, ids=[p.stem for p in GUIDED])
def test_exercise_conventions(path: Path):
    nb = read(path)
    found = solve_notebooks.exercises(nb)  # raises on a broken convention, naming the cell
    assert len(found) >= 3, f"{path.name}: at least three exercises, found {len(found)}"
    for ex in found:
        stub = solve_notebooks.source(nb.cells[ex.exercise])
        assert "raise NotImplementedError" in stub, f"cell {ex.exercise}: the stub raises NotImplementedError"
        assert "raise NotImplementedError" not in ex.solution_code, f"cell {ex.solution}: the solution is written"
        assert "check_" in solve_notebooks.source(nb.cells[ex.check]), f"cell {ex.check}: calls a check_ function"
    for ex in found:
        kinds = {o["output_type"] for o in nb.cells[ex.check].outputs}
        assert kinds == {"stream"}, f"cell {ex.check}: the check prints its verdict and nothing else, got {kinds}"
    for index, text in solve_notebooks.verdicts(nb):
        assert text.startswith(solve_notebooks.NOT_WRITTEN) and "not written yet" in text and "\n" not in text, (
            f"{path.name} cell {index}: the committed check prints one 'not written yet' line, got {text!r}"
        )
    for index, cell in enumerate(nb.cells):
        assert "raises-exception" not in solve_notebooks.tags(cell), f"cell {index}: Run all must not stop"
        if cell.cell_type == "code":
            errors = [o for o in cell.outputs if o["output_type"] == "error"]
            assert not errors, f"{path.name} cell {index} raised {errors[0]['ename']}"


@pytest.mark.parametrize("path", GUIDED, ids=[p.stem for p in GUIDED])
def test_think_questions_and_video_chapter(path: Path):
    cells = read(path).cells
    markdown = [solve_notebooks.source(c) for c in cells if c.cell_type == "markdown"]
    thinks = [m for m in markdown if "Think!" in m]
    assert thinks, f"{path.name}: at least one 'Think!' question"
    assert all("<details><summary>Answer" in m for m in thinks), "every Think! question has a collapsed answer"
    intro = markdown[0]
    assert re.search(r"\b\d{1,2}:\d{2}:\d{2}\b", intro), f"{path.name}: the intro names the video chapter's start time"


@pytest.mark.slow
@pytest.mark.parametrize("path", GUIDED, ids=[p.stem for p in GUIDED])
def test_solved_run(path: Path):
    """The notebook, every solution filled in, runs top to bottom in a kernel and every check passes (the slow
    cells that run no learner code left out and long runs of it shrunk, as in the downstream run; the full solved
    run: ``python tools/solve_notebooks.py``)."""
    problems, _ = solve_notebooks.run_solved(path, skip=SKIP.get(path.stem, ()), shrink=SHRINK.get(path.stem, ()))
    assert problems == []


# ---- the course map (notebooks/README.md, "The course map"): one list, every notebook held to it ----------------
MAP_ENTRY = re.compile(r"^(\d+)\. \[`(\d\d_\w+)`\]\((\d\d_\w+)\.ipynb\): ", re.MULTILINE)


def course_map() -> list[str]:
    """The notebooks' stems in the order of the map in ``notebooks/README.md``."""
    text = (ROOT / "notebooks" / "README.md").read_text()
    section = text.split("## The course map", 1)[1].split("\n## ", 1)[0]
    entries = MAP_ENTRY.findall(section)
    for number, stem, target in entries:
        assert stem == target and int(number) == int(stem[:2]), f"the map's line {number} names {stem} -> {target}"
    return [stem for _, stem, _ in entries]


def intro_minutes(path: Path) -> int:
    intro = solve_notebooks.source(read(path).cells[0])
    found = re.search(r"\*\*Time:\*\*\s+about\s+(an\s+hour|\d+\s+minutes)", intro)
    assert found, f"{path.name}: the intro gives its time"
    return 60 if "hour" in found.group(1) else int(found.group(1).split()[0])


def test_the_course_map_lists_every_notebook_in_order():
    assert course_map() == [p.stem for p in NOTEBOOKS]


def closing(path: Path) -> str:
    """The markdown cell that opens with the box of what was built: the notebook's closing words."""
    built = [solve_notebooks.source(c) for c in read(path).cells if c.cell_type == "markdown"]
    return next(m for m in built if m.startswith("> ## What you built"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_each_notebook_names_the_next_one_on_the_map(path: Path):
    stems = course_map()
    at = stems.index(path.stem)
    named = re.findall(r"\bNext, notebook (\d+)\b", closing(path))
    if at + 1 < len(stems):
        assert named == [str(int(stems[at + 1][:2]))], f"{path.name} closes naming notebook(s) {named}"
    else:
        assert named == [], f"{path.name} is the last on the map, yet names a next notebook"
    assert not re.search(r"\b(nine|eight) notebooks\b|\bLast, notebook\b", closing(path)), path.name


def test_the_overviews_plan_lists_every_other_notebook_with_its_time():
    """The plan's table (notebook 0, section 5): one row a notebook, in the map's order, linked, with the time the
    notebook's own intro gives."""
    overview, *rest = [ROOT / "notebooks" / f"{stem}.ipynb" for stem in course_map()]
    plan = next(
        solve_notebooks.source(c)
        for c in read(overview).cells
        if "## 5. The plan of the course" in solve_notebooks.source(c)
    )
    rows = re.findall(
        r"^\| (\d+) \| \[`(\d\d_\w+)`\]\((\d\d_\w+)\.ipynb\) \| [^|]+ \| (\d+) min(?: \+ \d+ optional)? \|",
        plan,
        re.MULTILINE,
    )
    assert [stem for _, stem, _, _ in rows] == [p.stem for p in rest], "the plan's rows follow the map"
    for number, stem, target, minutes in rows:
        path = ROOT / "notebooks" / f"{stem}.ipynb"
        assert target == stem and int(number) == int(stem[:2]), f"the plan's row {number} links {target}"
        assert int(minutes) == intro_minutes(path), (
            f"the plan gives {stem} {minutes} min, its intro {intro_minutes(path)}"
        )


# ---- the end matter: recall questions and a reading list in every notebook (issue 50, item 7) --------------------
QUESTION = re.compile(r"^\*\*Q(\d)\.\*\* \S.*$", re.MULTILINE)
OPTION = re.compile(
    r"<details><summary>([A-E])\. (.+?)</summary>\n\n(✅ Right\.|❌ Not quite\.) (\S.*?)\n\n</details>", re.S
)
READING = re.compile(r"^- \[(.+?)\]\((\S+?)\) — (\S.*)$")


def end_matter(path: Path) -> tuple[str, str]:
    """The notebook's last two markdown cells: the questions, then the reading list."""
    markdown = [solve_notebooks.source(c) for c in read(path).cells if c.cell_type == "markdown"]
    return markdown[-2], markdown[-1]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_each_notebook_ends_with_recall_questions_and_further_reading(path: Path):
    """Plain markdown that works in Jupyter, Colab, GitHub and the site, and leaves Run all untouched: 3 to 5
    questions, each with its options folded in <details> (exactly one opens on '✅ Right.', every one explains), then
    a reading list whose every line is a link (https) and what to read it for."""
    quiz, reading = end_matter(path)
    assert quiz.startswith("## Check your understanding\n"), f"{path.name}: the questions come last but one"
    numbers = [int(n) for n in QUESTION.findall(quiz)]
    assert 3 <= len(numbers) <= 5 and numbers == list(range(1, len(numbers) + 1)), f"{path.name}: questions {numbers}"
    blocks = re.split(r"^\*\*Q\d\.\*\* ", quiz, flags=re.MULTILINE)[1:]
    for number, block in zip(numbers, blocks, strict=True):
        options = OPTION.findall(block)
        assert len(options) >= 2 and len(options) == block.count("<details>"), f"{path.name} Q{number}: its options"
        assert [letter for letter, *_ in options] == list("ABCDE"[: len(options)]), f"{path.name} Q{number}"
        assert [verdict for _, _, verdict, _ in options].count("✅ Right.") == 1, f"{path.name} Q{number}: one ✅"
        assert all(len(why.split()) >= 5 for *_, why in options), f"{path.name} Q{number}: every answer says why"
    lines = reading.splitlines()
    assert lines[0] == "## Further reading" and lines[1] == "", f"{path.name}: the reading list comes last"
    entries = [READING.fullmatch(line) for line in lines[2:]]
    assert entries and all(entries), f"{path.name}: '- [Title](https://...) — what to read it for.' on each line"
    assert all(m[2].startswith("https://") and len(m[3].split()) >= 5 for m in entries), path.name


# ---- stored outputs name no machine's folders ----------------------------------------------------------------------
MACHINE_PATH = re.compile(r"(?<![\w.~])(/tmp/|/work/|/home/|/root/|/Users/|/var/folders/|/content/|[A-Za-z]:\\\\)")


def stored_texts(path: Path):
    """(cell index, text) of every stored output: printed streams, text and HTML results, tracebacks."""
    for index, cell in enumerate(read(path).cells):
        for output in cell.get("outputs", []):
            if "text" in output:
                yield index, output["text"]
            for kind, value in output.get("data", {}).items():
                if kind.startswith("text/") or kind.endswith("json"):
                    yield index, value if isinstance(value, str) else str(value)
            if "traceback" in output:
                yield index, "\n".join(output["traceback"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_stored_output_names_a_machines_folder(path: Path):
    """A stored output is read on GitHub, in Colab and on the site: '/tmp/capstone-run-...' or a home folder tells
    the reader about the machine that made it, not about the course."""
    for index, text in stored_texts(path):
        found = MACHINE_PATH.search(text)
        assert found is None, f"{path.name} cell {index}: {text[max(0, found.start() - 40) : found.end() + 40]!r}"
