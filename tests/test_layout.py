"""docs/contributing.md's map of the library names every module and folder of ``alphazero_lib``, and only those
(issue 63): a module added, renamed or removed without its line in the map turns this test red."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "alphazero_lib"


def library_map(text: str) -> list[str]:
    """The names at the start of the map's library lines: in the layout block, the lines indented by two spaces
    under ``alphazero_lib/``, each ``name, name   what they are`` (a deeper indent continues the line above)."""
    block = text.split("## The layout", 1)[1].split("```", 2)[1]
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("alphazero_lib/"))
    names = []
    for line in lines[start + 1 :]:
        if not line.startswith(" "):
            break  # the next top-level folder
        if re.match(r"  \S", line):
            names += re.split(r"\s{2,}", line.strip(), maxsplit=1)[0].split(", ")
    return names


def package_entries(package: Path = PACKAGE) -> set[str]:
    """The package's top level: each module (``name.py``, ``__init__.py`` aside) and each folder (``name/``)."""
    modules = {p.name for p in package.glob("*.py") if p.name != "__init__.py"}
    folders = {f"{p.name}/" for p in package.iterdir() if p.is_dir() and p.name != "__pycache__"}
    return modules | folders


def test_the_map_reads_its_lines():
    text = "## The layout\n\n```\nalphazero_lib/   the library\n  a.py, b/   two\n     more on b\n  c.py\ndocs/\n```\n"
    assert library_map(text) == ["a.py", "b/", "c.py"]


def test_the_contributing_page_maps_every_module_and_folder_of_the_library():
    named = library_map((ROOT / "docs" / "contributing.md").read_text())
    assert len(named) == len(set(named)), f"named twice: {sorted({n for n in named if named.count(n) > 1})}"
    entries = package_entries()
    assert not entries - set(named), f"docs/contributing.md's layout does not name {sorted(entries - set(named))}"
    assert not set(named) - entries, (
        f"docs/contributing.md's layout names what is not there: {sorted(set(named) - entries)}"
    )
