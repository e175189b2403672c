"""Point the course at a GitHub repository: the Colab badges, the notebooks' setup cells and the README.

    python tools/set_repository.py                    # print the address and whether everything agrees with it
    python tools/set_repository.py OWNER/NAME         # rewrite everything for a fork, e.g. ada/alphazero-course
    python tools/set_repository.py --check            # exit 1 when a badge or setup cell disagrees

The address lives in one place, ``[project.urls] Repository`` in ``pyproject.toml``. Every notebook carries
copies of it that Colab needs: the badge in its first markdown cell
(``https://colab.research.google.com/github/OWNER/NAME/blob/main/notebooks/FILE.ipynb``) and the
``REPOSITORY = "OWNER/NAME"`` line of its setup cell, which installs the library from that repository when the
notebook runs in Colab. This tool rewrites pyproject's address and those copies (and ``github.com/OWNER/NAME``
links in the READMEs and the notebooks' text) in place, changing nothing else in the files, and
``tests/test_repository_address.py`` checks that they agree.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SLUG = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")
PYPROJECT_URL = re.compile(r'^(Repository\s*=\s*")https://github\.com/([^"/]+/[^"/]+?)(?:\.git)?(")', re.MULTILINE)
BADGE = re.compile(r"(https://colab\.research\.google\.com/github/)([\w.-]+/[\w.-]+)(/blob/[\w.-]+/notebooks/)")
BADGE_ADDRESS = re.compile(r"https://colab\.research\.google\.com/github/[^\s)\"'\\]+")
# The setup cell's line as it stands in the notebook's JSON text (quotes escaped) and in a cell's source.
REPOSITORY_LINE_JSON = re.compile(r'(REPOSITORY = \\")([^"\\]*)(\\")')
REPOSITORY_LINE = re.compile(r'^REPOSITORY = "([^"]*)"', re.MULTILINE)

#: The first code cell of every notebook, with the address as ``{repository}``; tests compare against it.
#: Its first line is a Colab form title, and the cell's metadata ``cellView: form``: Colab shows
#: the title and hides the code until it is clicked.
SETUP_CELL = """\
#@title Setup: run this cell first {{ display-mode: "form" }}
# Setup: use this checkout's library when the notebook runs from the repository; in Colab, install it from GitHub.
import importlib.util
import subprocess
import sys
from pathlib import Path

REPOSITORY = "{repository}"  # tools/set_repository.py rewrites this for a fork
KEEP_ON_DRIVE = True  #@param {{type:"boolean"}}
DRIVE_FOLDER = "/content/drive/MyDrive/alphazero-course"  #@param {{type:"string"}}
checkout = next((p for p in (Path.cwd(), *Path.cwd().parents) if (p / "alphazero_lib" / "__init__.py").is_file()), None)
if checkout is not None:
    sys.path.insert(0, str(checkout))
    print("Using the course library from this checkout.")
elif "google.colab" in sys.modules:
    url = f"git+https://github.com/{{REPOSITORY}}"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", f"alphazero_lib[kaggle] @ {{url}}"], check=True)
    print(f"Installed the course library from github.com/{{REPOSITORY}}.")
    if KEEP_ON_DRIVE:  # Colab's files end with the session: the code your checks keep (my_alphazero/) goes to Drive
        from alphazero_lib.course.mine import keep_on_drive

        keep_on_drive(DRIVE_FOLDER)
elif importlib.util.find_spec("alphazero_lib") is not None:
    print("Using the installed course library.")
else:
    raise ModuleNotFoundError(
        f"The course library alphazero_lib is not installed for this kernel's Python ({{sys.executable}}). "
        "Install it by running this line in a cell, then run this cell again:\\n"
        f'%pip install "alphazero_lib[kaggle] @ git+https://github.com/{{REPOSITORY}}"'
    )"""


def notebooks(root: Path = ROOT) -> list[Path]:
    """The course notebooks, in order."""
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def repository(root: Path = ROOT) -> str:
    """``OWNER/NAME`` from ``[project.urls] Repository`` in pyproject.toml; raises ``ValueError`` if missing."""
    match = PYPROJECT_URL.search((root / "pyproject.toml").read_text())
    if match is None:
        raise ValueError('pyproject.toml has no [project.urls] Repository = "https://github.com/OWNER/NAME"')
    return match.group(2)


def badge_url(repo: str, notebook: str) -> str:
    """The Colab address of ``notebook`` (a file name) in ``repo``."""
    return f"https://colab.research.google.com/github/{repo}/blob/main/notebooks/{notebook}"


def _source(cell: dict) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def disagreements(root: Path = ROOT) -> list[str]:
    """Every place in the notebooks that names a repository other than pyproject's, as readable lines."""
    repo = repository(root)
    found = []
    for path in notebooks(root):
        cells = json.loads(path.read_text())["cells"]
        markdown = [i for i, cell in enumerate(cells) if cell["cell_type"] == "markdown"]
        badges = BADGE.findall(_source(cells[markdown[0]])) if markdown else []
        if not badges:
            found.append(f"{path.name}: no Colab badge in the first markdown cell")
        for i, cell in enumerate(cells):
            text = _source(cell)
            for address in BADGE_ADDRESS.findall(text):
                if address != badge_url(repo, path.name):
                    found.append(f"{path.name} cell {i}: badge {address} (expected {badge_url(repo, path.name)})")
            if cell["cell_type"] != "code":
                continue
            found += [
                f'{path.name} cell {i}: REPOSITORY = "{named}" (expected "{repo}")'
                for named in REPOSITORY_LINE.findall(text)
                if named != repo
            ]
            found += [
                f"{path.name} cell {i}: installs from github.com/{named} (expected {repo})"
                for named in re.findall(r"github\.com/([\w.-]+/[\w.-]+)", text)
                if named.removesuffix(".git") != repo
            ]
    return found


def set_repository(new: str, root: Path = ROOT) -> list[Path]:
    """Rewrite the address to ``new`` (``OWNER/NAME``) everywhere; return the files changed."""
    if not SLUG.fullmatch(new):
        raise ValueError(f"expected OWNER/NAME as GitHub spells it (e.g. ada/alphazero-course), got {new!r}")
    old = repository(root)
    old_link = re.compile(rf"(github\.com/){re.escape(old)}(?![\w.-])")
    changed = []
    edits = {root / "pyproject.toml": [(PYPROJECT_URL, rf"\g<1>https://github.com/{new}\g<3>")]}
    for readme in (root / "README.md", root / "notebooks" / "README.md"):
        edits[readme] = [(BADGE, rf"\g<1>{new}\g<3>"), (old_link, rf"\g<1>{new}")]
    for path in notebooks(root):
        edits[path] = [
            (BADGE, rf"\g<1>{new}\g<3>"),
            (REPOSITORY_LINE_JSON, rf"\g<1>{new}\g<3>"),
            (old_link, rf"\g<1>{new}"),
        ]
    for path, rules in edits.items():
        if not path.is_file():
            continue
        text = path.read_text()
        updated = text
        for pattern, replacement in rules:
            updated = pattern.sub(replacement, updated)
        if updated != text:
            path.write_text(updated)
            changed.append(path)
    return changed


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repository", nargs="?", help="OWNER/NAME of the GitHub repository to point at")
    parser.add_argument("--check", action="store_true", help="exit 1 when a badge or setup cell disagrees")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to work on (default: this one)")
    args = parser.parse_args(argv)
    if args.repository:
        try:
            changed = set_repository(args.repository, args.root)
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        print(f"repository: {args.repository}; rewrote {len(changed)} files")
        for path in changed:
            print(f"  {path.relative_to(args.root)}")
    repo = repository(args.root)
    problems = disagreements(args.root)
    if not args.repository:
        print(f"repository: {repo} (pyproject.toml [project.urls] Repository)")
    for problem in problems:
        print(f"  disagrees: {problem}")
    if not problems:
        print(f"every badge and setup cell of {len(notebooks(args.root))} notebooks names {repo}")
    return 1 if problems and (args.check or args.repository) else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
