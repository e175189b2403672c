"""The course's light framing (issue 25, item 6): a short intro, a time and the video's part per section, a box of
what was built and the departures from the video folded at the end of every notebook."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
VIDEO = "https://www.youtube.com/watch?v=wuSQpLinRB4"
LINK = re.compile(r"\[▶ (\d):(\d\d):(\d\d)\]\((\S+?)\)")
TRANSCRIPT = next(iter(sorted((ROOT.parent / "shared" / "seeds").glob("000_*.txt"))), None)
MAX_INTRO_WORDS = 150
MAX_PROSE_WORDS = {
    "07_parallel_self_play": 2400
}  # issue 50: notebook 7 cut by a third from 3,630 (3,594 counted there)


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
