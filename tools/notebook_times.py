"""How long each notebook takes a learner who reads it and runs it: the times the notebooks state.

    python tools/notebook_times.py              # the table: notebook, sections, stated, estimated
    python tools/notebook_times.py --sections   # every section too
    python tools/notebook_times.py --write      # state the estimates in the notebooks (markdown only)

No learner can be timed here, so the time is estimated from what a learner does, with the constants below:

- reads the markdown at READING_WPM words a minute (technical prose): the folded solutions are not read (the
  exercise's time covers them); the quiz's folded answers are read once, and every **Think!** and quiz question
  gets THINK_MINUTES to think before its answer is opened;
- reads the code cells that are not exercises at CODE_LINES_A_MINUTE non-blank lines a minute (the setup cell,
  folded in Colab, is run unread);
- writes each exercise: EXERCISE_MINUTES, plus EXERCISE_MINUTES_A_LINE for each non-blank line of its solution;
- looks at each figure a cell shows (a plot, a board, a tree, an animation): FIGURE_MINUTES;
- plays each game a play cell offers: PLAY_MINUTES;
- waits for the cells: the notebook's Run-all seconds in notebook 0's table (spread evenly over its code cells),
  and the long waits a notebook states that the table's quick runs leave out (WAITS).

The constants were set so that the whole course comes out near a careful reading's 680 minutes (issue 62), with
as much of it on the code and the exercises as the reading speed leaves. That reading gave notebook 7 about 105
minutes; these counts give it about 85, since it holds a sixth of the course's code and exercises and a tenth of
its prose: what they cannot see is how hard its index arithmetic is. A section headed "(optional)" is left out of
the notebook's time and stated beside it.
The notebooks state each section rounded to a minute and each notebook to 5 minutes;
``tests/test_course_framing.py`` holds them to this tool.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import solve_notebooks

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

READING_WPM = 130
CODE_LINES_A_MINUTE = 12
THINK_MINUTES = 0.5
EXERCISE_MINUTES = 2.5
EXERCISE_MINUTES_A_LINE = 0.15
PLAY_MINUTES = 2.0
FIGURE_MINUTES = 1.0
WAITS = {  # (notebook, text of a code cell): minutes beyond notebook 0's table, which times notebook 10's quick run
    ("10_capstone", "history = run.run("): 20.0,  # MINUTES = 20, the training budget
    # the quiet full run's other 9 minutes (benchmarks/results/capstone_2026-11-24/notebook_full_run.txt: 29.1 min,
    # 20.1 of them training), shared by the games that take them: 120 in section 4, 40 in section 6
    ("10_capstone", "evaluate_both_seats(agent,"): 6.8,
    ("10_capstone", "run.export("): 2.2,
}

SECTION = re.compile(r"^## (\d+)\. (.*)$", re.M)
OPTIONAL = r"(?:, and about \d+ more for the optional section \d+)?"
TIME = re.compile(r"\*\*Time:\*\*\s+about\s+(?:an\s+hour|\d+\s+minutes)" + OPTIONAL)
END = ("> ## What you built", "<details><summary><b>Where we depart", "## Check", "## Further reading")
FIGURES = {"image/png", "text/html"}  # a plot, a drawn board or tree, an animation
PLAN_TIME = 3  # the time column of notebook 0's plan table (#, notebook, you build, time, video)
QUESTION = re.compile(r"\*\*(?:Think!|Q\d+\.)\*\*")


@dataclass
class Part:
    """A stretch of a notebook: 'start' (before section 1), a numbered section, or 'end' (what you built, the
    departures, the quiz and the reading list)."""

    title: str
    minutes: float = 0.0

    @property
    def optional(self) -> bool:
        return self.title.endswith("(optional)")


def run_seconds() -> dict[str, float]:
    """Each notebook's Run-all seconds on the course's CPU, from notebook 0's table ('00': 5.0, ...)."""
    text = "\n".join(cell.source for cell in nbformat.read(NOTEBOOKS[0], as_version=4).cells)
    header = re.search(r"^\| \|((?: \d\d \|)+)$", text, re.M).group(1)
    row = re.search(r"^\| course's 2-core CPU \|(.*)\|$", text, re.M).group(1)
    return dict(zip(re.findall(r"\d\d", header), map(float, row.split("|")), strict=True))


def words(markdown: str) -> int:
    text = re.sub(r"```.*?```", "", markdown, flags=re.S)
    text = re.sub(r"\]\([^)]*\)|<[^>]+>", " ", text)
    return len(re.findall(r"\w[\w'.-]*", text))


def lines(code: str) -> int:
    return sum(1 for line in code.splitlines() if line.strip())


def markdown_minutes(text: str) -> float:
    fenced = sum(lines(block) for block in re.findall(r"```\w*\n(.*?)```", text, flags=re.S))
    return words(text) / READING_WPM + fenced / CODE_LINES_A_MINUTE + THINK_MINUTES * len(QUESTION.findall(text))


def estimate(path: Path, seconds: dict[str, float] | None = None) -> list[Part]:
    """The notebook's parts with the minutes a learner spends in each."""
    nb = nbformat.read(path, as_version=4)
    solutions = {ex.exercise: ex for ex in solve_notebooks.exercises(nb)}
    skipped = {ex.solution for ex in solutions.values()}
    code_cells = sum(1 for cell in nb.cells if cell.cell_type == "code")
    run_share = (seconds or run_seconds())[path.stem[:2]] / 60 / code_cells
    parts = [Part("start")]
    for i, cell in enumerate(nb.cells):
        text = cell.source
        if cell.cell_type == "markdown":
            if i in skipped:
                continue
            if text.startswith(END) and parts[-1].title != "end":
                parts.append(Part("end"))
            pieces = SECTION.split(text)  # [before, number, title, text, number, title, text, ...]
            parts[-1].minutes += markdown_minutes(pieces[0])
            for title, body in zip(pieces[2::3], pieces[3::3], strict=True):
                parts.append(Part(title))
                parts[-1].minutes += markdown_minutes(body)
            continue
        part = parts[-1]
        part.minutes += run_share + sum(m for (stem, key), m in WAITS.items() if stem == path.stem and key in text)
        part.minutes += PLAY_MINUTES * len(re.findall(r"^play\(", text, re.M))
        part.minutes += FIGURE_MINUTES * sum(1 for out in cell.get("outputs", []) if FIGURES & set(out.get("data", {})))
        if i in solutions:
            part.minutes += EXERCISE_MINUTES + EXERCISE_MINUTES_A_LINE * lines(solutions[i].solution_code)
        elif not text.startswith("#@title Setup"):
            part.minutes += lines(text) / CODE_LINES_A_MINUTE
    return parts


def section_minutes(minutes: float) -> int:
    """A section's stated time: whole minutes (so that the sections add up to the notebook's time)."""
    return max(1, round(minutes))


def notebook_minutes(minutes: float) -> int:
    return max(5, 5 * round(minutes / 5))


def totals(parts: list[Part]) -> tuple[float, float]:
    """The notebook's minutes without its optional sections, and the optional sections' minutes."""
    return sum(p.minutes for p in parts if not p.optional), sum(p.minutes for p in parts if p.optional)


@dataclass
class Stated:
    """What a notebook states: the intro's time, each section's, and its row's time in notebook 0's plan."""

    intro: str  # "**Time:** about 70 minutes" (", and about 35 more for the optional section 4")
    sections: list[str]  # "*About 5 min.*", one a numbered section
    plan: str | None  # "70 min" ("70 min + 35 optional"); None for notebook 0, which has no row


def statements(path: Path, parts: list[Part]) -> Stated:
    """What the notebook should state, from its estimate."""
    main, optional = totals(parts)
    intro, plan = f"**Time:** about {notebook_minutes(main)} minutes", f"{notebook_minutes(main)} min"
    if optional:
        number = next(k for k, p in enumerate(parts) if p.optional)  # parts[0] is the start, so k is its number
        intro += f", and about {notebook_minutes(optional)} more for the optional section {number}"
        plan += f" + {notebook_minutes(optional)} optional"
    sections = [f"*About {section_minutes(p.minutes)} min.*" for p in parts[1:] if p.title != "end"]
    return Stated(intro, sections, None if path == NOTEBOOKS[0] else plan)


def plan_rows() -> dict[str, list[str]]:
    """Notebook 0's plan table: each notebook's row as its cells ('| 7 | [`07_...`](...) | ... | 70 min | ...')."""
    rows = {}
    for cell in nbformat.read(NOTEBOOKS[0], as_version=4).cells:
        for line in cell.source.splitlines():
            if m := re.match(r"\| \d+ \| \[`(\w+)`\]", line):
                rows[m.group(1)] = line.split(" | ")
    return rows


def stated(path: Path) -> Stated:
    """What the notebook states now."""
    text = "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "markdown")
    intro = " ".join(TIME.search(text).group(0).split())
    sections = [m.group(1) for m in re.finditer(r"^## \d+\. .*\n\n(\*About \d+ min\.\*)", text, re.M)]
    row = plan_rows().get(path.stem)
    return Stated(intro, sections, row[PLAN_TIME] if row else None)


def write(path: Path, should: Stated) -> bool:
    """State the times in the notebook's markdown (read from disk just before, written at once); True if changed."""
    nb = json.loads(path.read_text())
    sections = iter(should.sections)
    changed = False
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        old = "".join(cell["source"])
        new = TIME.sub(should.intro, old)
        new = re.sub(r"(^## \d+\. .*\n\n)\*About \d+ min\.\*", lambda m: m.group(1) + next(sections), new, flags=re.M)
        if new != old:
            cell["source"] = new.splitlines(keepends=True)
            changed = True
    if changed:
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return changed


def write_plan(plans: dict[str, str]) -> bool:
    """Notebook 0's plan table's time column; True if changed."""
    nb = json.loads(NOTEBOOKS[0].read_text())
    changed = False
    for cell in nb["cells"]:
        lines = "".join(cell["source"]).splitlines(keepends=True)
        for k, line in enumerate(lines):
            if (m := re.match(r"\| \d+ \| \[`(\w+)`\]", line)) and m.group(1) in plans:
                row = line.split(" | ")
                row[PLAN_TIME] = plans[m.group(1)]
                changed |= lines[k] != " | ".join(row)
                lines[k] = " | ".join(row)
        cell["source"] = lines
    if changed:
        NOTEBOOKS[0].write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return changed


def short(stated: Stated) -> str:
    """'70 + 35' for an intro stating 70 minutes and 35 more for an optional section; 'an hour' as written."""
    minutes = re.findall(r"\d+", stated.intro.replace("section", ""))[:2]
    return " + ".join(minutes) if minutes else stated.intro.split("about ")[-1]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sections", action="store_true", help="print every section's estimate too")
    parser.add_argument("--write", action="store_true", help="state the estimates in the notebooks")
    args = parser.parse_args(argv)
    seconds = run_seconds()
    estimates = {path: estimate(path, seconds) for path in NOTEBOOKS}
    print(f"{'notebook':<24} {'sections':>8} {'stated':>10} {'estimated':>14} {'to state':>10}")
    course = [0.0, 0.0]
    for path, parts in estimates.items():
        main, optional = totals(parts)
        course = [course[0] + main, course[1] + optional]
        estimated = f"{main:.0f}" + (f" + {optional:.0f}" if optional else "")
        print(
            f"{path.stem:<24} {len(parts) - 2:>8} {short(stated(path)):>10} {estimated:>14} "
            f"{short(statements(path, parts)):>10}"
        )
        for part in parts if args.sections else []:
            print(f"    {part.title[:60]:<60} {part.minutes:5.1f} min")
    print(f"{'course':<24} {'':>8} {'':>10} {course[0]:>8.0f} + {course[1]:.0f}")
    if args.write:
        for path, parts in estimates.items():
            if write(path, statements(path, parts)):
                print(f"wrote {path.relative_to(ROOT)}")
        if write_plan({path.stem: statements(path, parts).plan for path, parts in estimates.items()}):
            print(f"wrote {NOTEBOOKS[0].relative_to(ROOT)}'s plan")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
