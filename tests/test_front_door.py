"""The front door: a README read in five minutes, its course table, its links, and text a reader outside can follow."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("set_repository", ROOT / "tools" / "set_repository.py")
set_repository = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(set_repository)

README_LIMIT = 12 * 1024  # bytes: a front page (d2l's README is about 5 KB, nanoGPT's 14 KB)
# the project's own numbered work periods (the word, singular or plural, then a number): no reader outside can
# follow them; records give the date, the commit, the machine and the command instead
WORK_PERIOD = re.compile(r"\bsessions?[\s_-]*\d", re.IGNORECASE)


def readme() -> str:
    return (ROOT / "README.md").read_text()


def test_the_readme_is_a_front_page():
    size = len((ROOT / "README.md").read_bytes())
    assert size <= README_LIMIT, f"README.md is {size:,} bytes; at most {README_LIMIT:,}: move the rest to docs/"


def numbered_work_periods(files: dict[str, str]) -> list[str]:
    """``path:line: text`` for each mention of a numbered work period in ``files`` (path -> text)."""
    found = []
    for path, text in files.items():
        for match in WORK_PERIOD.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{path}:{line}: {text.splitlines()[line - 1].strip()[:120]}")
    return found


def tracked_text_files() -> dict[str, str]:
    """Every file git tracks that reads as UTF-8 text, by path."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    files = {}
    for name in filter(None, listed.decode().split("\0")):
        path = ROOT / name
        if not path.is_file():
            continue  # deleted in the working tree
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary: checkpoints, images
        try:
            files[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return files


def test_no_tracked_text_names_a_numbered_work_period():
    files = tracked_text_files()
    assert "README.md" in files and "weights/README.md" in files
    assert numbered_work_periods(files) == []


S = "session"  # the planted texts are built, so that this file does not name a work period itself


@pytest.mark.parametrize(
    "planted", [f"as measured in {S} 17", f"the default of {S}s 16-19", f"{S.title()} 12 (11-25)", f"{S}-9"]
)
def test_a_planted_work_period_is_found(planted):
    text = readme() + f"\n{planted}\n"
    assert numbered_work_periods({"README.md": text}) == [f"README.md:{text.count(chr(10))}: {planted}"]


def test_a_session_without_a_number_is_no_work_period():
    assert numbered_work_periods({"x.md": "Colab's files end with the session; a PlaySession; 3 sessions"}) == []


def test_the_course_table_has_a_line_and_a_colab_link_for_every_notebook():
    repo = set_repository.repository(ROOT)
    section = readme().split("## The course", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if re.match(r"^\| \d+ \|", line)]
    notebooks = set_repository.notebooks(ROOT)
    assert len(rows) == len(notebooks) == 11
    for row, notebook in zip(rows, notebooks, strict=True):
        assert f"(notebooks/{notebook.name})" in row, row
        assert f"({set_repository.badge_url(repo, notebook.name)})" in row, row


def test_the_readme_links_resolve():
    targets = re.findall(r"\]\(([^)\s]+)\)", readme())
    local = [t.split("#", 1)[0] for t in targets if not re.match(r"^[a-z]+:", t)]
    assert "docs/cli.md" in local and "weights/README.md" in local and "docs/long_run.png" in local
    assert [t for t in local if not (ROOT / t).exists()] == []


def test_the_readme_names_the_site_build_command_and_it_exists():
    assert "python tools/build_site.py" in readme()
    assert (ROOT / "tools" / "build_site.py").is_file() and (ROOT / "docs" / "conf.py").is_file()
