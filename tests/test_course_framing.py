"""The course's light framing (issue 25, item 6): a short intro, a time and the video's part per section, a box of
what was built and the departures from the video folded at the end of every notebook."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import notebook_times  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
VIDEO = "https://www.youtube.com/watch?v=wuSQpLinRB4"
LINK = re.compile(r"\[▶ (\d):(\d\d):(\d\d)\]\((\S+?)\)")
TRANSCRIPT = next(iter(sorted((ROOT.parent / "shared" / "seeds").glob("000_*.txt"))), None)
MAX_INTRO_WORDS = 150
# issue 50: notebook 7 cut by a third from 3,630 (3,594 counted there); issue 62: + 50 for the optional section's note
MAX_PROSE_WORDS = {"07_parallel_self_play": 2450}


def cells(path: Path) -> list[dict]:
    return [{**c, "source": "".join(c["source"])} for c in json.loads(path.read_text())["cells"]]


def intro_words(path: Path) -> int:
    """Words a learner reads before the first code cell: the title line, the Colab badge and link targets left out."""
    words = 0
    for cell in cells(path):
        if cell["cell_type"] == "code":
            break
        lines = [
            line for line in cell["source"].splitlines() if not line.startswith("# ") and "colab-badge" not in line
        ]
        text = re.sub(r"\]\([^)]*\)", "]", re.sub(r"<[^>]+>", " ", "\n".join(lines)))
        words += len(re.findall(r"[A-Za-z0-9][\w'.:,/-]*", text))
    return words


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_intro_is_short_and_says_the_time_and_the_video(path: Path):
    intro = cells(path)[0]["source"]
    assert intro_words(path) <= MAX_INTRO_WORDS, f"{path.name}: {intro_words(path)} words before the first code"
    assert re.search(r"\*\*Time:\*\*\s+about\s+(an\s+hour|\d+\s+minutes)", intro), (
        f"{path.name}: the intro gives the time"
    )
    assert "**Video:**" in intro and "Where we depart from the video, and why" not in intro


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_section_says_its_time(path: Path):
    sections = 0
    for cell in cells(path):
        lines = cell["source"].splitlines()
        for i, line in enumerate(lines):
            if re.match(r"## \d+\. ", line):
                sections += 1
                assert i + 2 < len(lines) and re.match(r"\*About \d+ min\.\*", lines[i + 2]), (
                    f"{path.name}: no '*About N min.*' line under {line!r}"
                )
    assert sections >= 3, f"{path.name}: numbered sections"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_video_links_open_the_video_at_the_time_they_show(path: Path):
    links = [m for cell in cells(path) if cell["cell_type"] == "markdown" for m in LINK.finditer(cell["source"])]
    assert links, f"{path.name}: a link to the video's chapter"
    for match in links:
        hours, minutes, seconds, url = match.groups()
        at = int(hours) * 3600 + int(minutes) * 60 + int(seconds)
        assert url == f"{VIDEO}&t={at}s", f"{path.name}: {match.group(0)} opens the video elsewhere"


@pytest.mark.skipif(TRANSCRIPT is None, reason="the video's transcript (../shared/seeds/000_*.txt) is not here")
def test_video_time_codes_are_lines_of_the_transcript():
    """Each time code is where a line of the transcript starts (``MMM:SS - ...``, minutes past the hour run on)."""
    starts = set()
    for line in TRANSCRIPT.read_text().splitlines():
        if m := re.match(r"(\d+):(\d\d) - ", line):
            starts.add(int(m.group(1)) * 60 + int(m.group(2)))
    for path in NOTEBOOKS:
        for cell in cells(path):
            for hours, minutes, seconds, _ in LINK.findall(cell["source"]):
                at = int(hours) * 3600 + int(minutes) * 60 + int(seconds)
                assert any(abs(at - s) <= 6 for s in starts), f"{path.name}: {hours}:{minutes}:{seconds} is no line"


ESTIMATES = {path: notebook_times.estimate(path) for path in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_stated_times_are_the_estimates(path: Path):
    """The intro's time, every section's and notebook 0's plan row are tools/notebook_times.py's, rounded as
    stated (a notebook to 5 minutes, a section to a minute); an optional section apart."""
    should, now = notebook_times.statements(path, ESTIMATES[path]), notebook_times.stated(path)
    hint = "restate them with python tools/notebook_times.py --write"
    assert now.intro == should.intro, f"{path.name}: the intro says {now.intro!r}, estimated {should.intro!r}; {hint}"
    assert now.sections == should.sections, f"{path.name}: sections {now.sections}, estimated {should.sections}; {hint}"
    assert now.plan == should.plan, f"{path.name}: notebook 0's plan says {now.plan!r}, estimated {should.plan!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_sections_add_up_to_the_intros_time(path: Path):
    """The stated sections, with the intro's and the end's minutes (what you built, the quiz), make the stated
    time within 5 minutes; an optional section makes the time stated beside it."""
    parts, now = ESTIMATES[path], notebook_times.stated(path)
    minutes = [int(re.search(r"\d+", line).group(0)) for line in now.sections]
    sections = [p for p in parts if p.title not in ("start", "end")]
    main = sum(m for m, p in zip(minutes, sections, strict=True) if not p.optional)
    main += sum(p.minutes for p in parts if p.title in ("start", "end"))
    optional = sum(m for m, p in zip(minutes, sections, strict=True) if p.optional)
    stated = [int(n) for n in re.findall(r"about (\d+)", now.intro)]
    assert abs(main - stated[0]) <= 5, f"{path.name}: the sections and the rest make {main:.0f} min, not {stated[0]}"
    assert abs(optional - (stated[1] if optional else 0)) <= 5, f"{path.name}: the optional section's time"


def test_the_course_page_gives_the_notebooks_total():
    """docs/course.md's total is the sum of the notebooks' stated times, the optional section's apart."""
    stated = [[int(n) for n in re.findall(r"about (\d+)", notebook_times.stated(p).intro)] for p in NOTEBOOKS]
    total, optional = sum(times[0] for times in stated), sum(times[1] for times in stated if len(times) > 1)
    page = " ".join((ROOT / "docs" / "course.md").read_text().split())
    assert f"about {total} minutes for the eleven notebooks" in page and f"and {optional} more for notebook 7's" in page


END_MATTER = ("## Check your understanding", "## Further reading")  # tests/test_course.py checks their format


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_notebook_ends_with_what_was_built_and_the_departures_folded(path: Path):
    """The box of what was built, then the departures folded; after them only the recall questions and the reading
    list, in that order, where the notebook has them."""
    markdown = [c["source"] for c in cells(path) if c["cell_type"] == "markdown"]
    if any(m.startswith(END_MATTER) for m in markdown):
        assert [m.split("\n", 1)[0] for m in markdown[-2:]] == list(END_MATTER), (
            f"{path.name}: the questions, then the reading list, once each and at the very end"
        )
        markdown = markdown[:-2]
    assert markdown[-1].startswith("<details><summary><b>Where we depart from the video, and why</b></summary>")
    assert markdown[-1].rstrip().endswith("</details>") and "\n- " in markdown[-1]
    built = markdown[-2]
    assert built.startswith("> ## What you built"), f"{path.name}: the box of what was built comes last but one"
    box = built.split("\n\n")[0] if "\n\n" in built else built
    assert all(line.startswith(">") for line in box.splitlines()), "the whole list sits in the box (a quote block)"


def prose_words(path: Path) -> int:
    """Words of the markdown a learner reads through: fenced code, the solutions and the end matter (questions and
    reading) left out; inline code counts, since it is read as part of the sentence."""
    words = 0
    for cell in cells(path):
        text = cell["source"]
        if cell["cell_type"] != "markdown" or text.startswith(("<details><summary>Solution", *END_MATTER)):
            continue
        words += len(re.findall(r"[A-Za-z][\w'-]*", re.sub(r"```.*?```", "", text, flags=re.S)))
    return words


@pytest.mark.parametrize("stem", sorted(MAX_PROSE_WORDS))
def test_the_prose_stays_within_its_budget(stem: str):
    path = next(p for p in NOTEBOOKS if p.stem == stem)
    assert prose_words(path) <= MAX_PROSE_WORDS[stem], f"{path.name}: {prose_words(path)} words of prose"


GPU_RECORD = ROOT / "benchmarks" / "results" / "gpu_h200_2026-11-28"


def test_the_gpu_notes_give_the_recorded_figures():
    """Notebook 0's table of Run all times and notebook 5's live-run times on a GPU are the record's figures
    (``benchmarks/gpu/compare_cells.py`` over the cells as the H200 machine and the course's CPU ran them)."""
    gpu = json.loads((GPU_RECORD / "notebook_cells.json").read_text())
    cpu = json.loads((GPU_RECORD / "notebook_cells_cpu.json").read_text())
    assert sorted(gpu) == sorted(cpu) == [p.name for p in NOTEBOOKS]
    overview = "\n".join(cell["source"] for cell in cells(NOTEBOOKS[0]))
    for row, record in (("course's 2-core CPU", cpu), ("H200 machine", gpu)):
        figures = " | ".join(f"{record[name]['seconds']:.0f}" for name in sorted(record))
        assert f"| {row} | {figures} |" in overview, f"notebook 0's row {row!r} is not the record's"
    records = [json.loads(line) for line in (GPU_RECORD / "cells_gpu.jsonl").read_text().splitlines()]
    live_run = next(
        output["text"]
        for r in records
        if r["notebook"] == NOTEBOOKS[5].name
        for output in r["outputs"]
        if "took" in output.get("text", "")
    )
    took_gpu = re.search(r"took (\d+\.\d) s", live_run).group(1)
    took_cpu = re.search(r"took (\d+\.\d) s", NOTEBOOKS[5].read_text()).group(1)
    assert f"**{took_gpu} s there against {took_cpu} s**" in "\n".join(c["source"] for c in cells(NOTEBOOKS[5]))


def test_the_capstones_gpu_note_gives_the_recorded_run():
    """Notebook 10's note on a GPU: the iterations, their seconds and the score against negamax are the record's
    (``benchmarks/capstone.py`` on the H200, and its network played on the course's CPU)."""
    run = json.loads((GPU_RECORD / "capstone_2.5min.json").read_text())
    played = json.loads((GPU_RECORD / "capstone_2.5min_cpu_evaluation.json").read_text())["against_negamax"]
    minutes = [record["minutes"] for record in run["history"]]
    seconds = [60 * (b - a) for a, b in zip([0.0, *minutes[:-1]], minutes, strict=True)]
    wins = sum(seat["wins"] for seat in played.values())
    games = sum(sum(seat[k] for k in ("wins", "draws", "losses")) for seat in played.values())
    seats = " and ".join(f"{s['wins']}-{s['draws']}-{s['losses']}" for s in played.values())
    note = " ".join(" ".join(c["source"] for c in cells(NOTEBOOKS[10])).split())
    assert f"took {min(seconds):.0f} to {max(seconds):.0f} seconds" in note
    assert f"**{len(minutes)} iterations in {minutes[-1]:.1f} minutes**" in note
    assert f"won {wins} of {games} games against Kaggle's negamax ({seats})" in note
