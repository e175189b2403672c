"""Build the documentation website from docs/ and notebooks/, offline, into build/site/.

    pip install -e ".[docs]"          # Sphinx, MyST-NB and the Sphinx Book Theme (the stack of Jupyter Book 1.x)
    python tools/build_site.py        # then open build/site/index.html
    python tools/build_site.py --out /tmp/site

The site is Sphinx with MyST-NB: the pages are ``docs/*.md``, the course is ``notebooks/NN_*.ipynb`` rendered with
their stored outputs (nothing is executed), and ``weights/README.md`` (the model cards) becomes ``weights.html``.
Nothing is fetched while building or reading: the theme's files ship in its wheel, the Colab badge is drawn from
``docs/_static/colab-badge.svg`` (the badge's link still goes to Colab), and math stays as written.

The sources are copied into a staging folder first (``build/site_src``), where every relative link is made to work
on the site: a link to a page or notebook that the site has points at that page, and a link to any other file of
the repository (a record in ``benchmarks/results/``, a script) points at it on GitHub, at the address
``pyproject.toml`` names (``tools/set_repository.py`` rewrites it for a fork). Exits with Sphinx's code; 2 if the
builder is not installed.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
# a Markdown link or image: [text](target) or ![alt](target); the target ends at the first space or ")"
LINK = re.compile(r"(!?\[(?:[^\[\]]|\[[^\]]*\])*\]\()([^)\s]+)((?:\s+\"[^\"]*\")?\))")


def repository(root: Path = ROOT) -> str:
    """``OWNER/NAME`` from pyproject.toml, as tools/set_repository.py reads it."""
    match = re.search(
        r'^Repository\s*=\s*"https://github\.com/([^"/]+/[^"/]+?)(?:\.git)?"',
        (root / "pyproject.toml").read_text(),
        re.MULTILINE,
    )
    if match is None:
        raise SystemExit('pyproject.toml has no [project.urls] Repository = "https://github.com/OWNER/NAME"')
    return match.group(1)


def notebooks(root: Path = ROOT) -> list[Path]:
    """The course notebooks, in order."""
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def staged_paths(root: Path = ROOT) -> dict[str, str]:
    """Each source file the site renders (repository path) -> its path in the staging folder."""
    paths = {}
    for path in sorted((root / "docs").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            relative = path.relative_to(root).as_posix()
            paths[relative] = relative.removeprefix("docs/")
    for path in notebooks(root):
        paths[path.relative_to(root).as_posix()] = f"course/{path.name}"
    paths["weights/README.md"] = "weights.md"
    return paths


def rewrite_links(text: str, source: str, staged: dict[str, str], repo: str) -> str:
    """``text`` of the file at repository path ``source``, with its relative links made to work on the site."""
    here = posixpath.dirname(source)
    there = posixpath.dirname(staged[source])

    def fix(match: re.Match) -> str:
        target = match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            return match.group(0)
        path, _, anchor = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(here, path)) if path else source
        if resolved in staged:
            new = posixpath.relpath(staged[resolved], there or ".") + (f"#{anchor}" if anchor else "")
        elif (ROOT / resolved).exists():
            kind = "tree" if (ROOT / resolved).is_dir() else "blob"
            new = f"https://github.com/{repo}/{kind}/main/{resolved}" + (f"#{anchor}" if anchor else "")
        else:
            return match.group(0)  # left as written: the link check of tests/test_site.py reports it
        return match.group(1) + new + match.group(3)

    return LINK.sub(fix, text).replace(COLAB_BADGE, badge(there))


def badge(folder: str) -> str:
    """The local Colab badge's path from a page in ``folder`` of the staging tree."""
    return posixpath.relpath("_static/colab-badge.svg", folder or ".")


def stage(out: Path, root: Path = ROOT) -> Path:
    """Copy the site's sources into ``out`` (emptied first) with links rewritten; return ``out``."""
    staged, repo = staged_paths(root), repository(root)
    if out.exists():
        shutil.rmtree(out)
    for source, target in staged.items():
        destination = out / target
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.endswith(".md"):
            destination.write_text(rewrite_links((root / source).read_text(), source, staged, repo))
        elif source.endswith(".ipynb"):
            notebook = json.loads((root / source).read_text())
            for cell in notebook["cells"]:
                if cell["cell_type"] == "markdown":
                    text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                    cell["source"] = rewrite_links(text, source, staged, repo)
            destination.write_text(json.dumps(notebook, indent=1))
        else:
            shutil.copy2(root / source, destination)
    index = out / "index.md"
    if more := other_pages(index.read_text(), staged):  # a new page in docs/ joins the sidebar by itself
        entries = "\n".join(more)
        index.write_text(index.read_text() + f"\n```{{toctree}}\n:caption: More\n:maxdepth: 1\n\n{entries}\n```\n")
    return out


def other_pages(index: str, staged: dict[str, str]) -> list[str]:
    """The top-level pages of the staging tree that no toctree of ``index`` (its text) lists, by name."""
    listed = set(re.findall(r"^([\w./-]+)$", index, re.MULTILINE))  # a toctree entry is a bare name on its line
    pages = [Path(p).stem for p in staged.values() if p.endswith(".md") and "/" not in p and p != "index.md"]
    return sorted(set(pages) - listed)


def build(out: Path, staging: Path, quiet: bool = True) -> int:
    """Stage the sources and run Sphinx's HTML builder into ``out``; return its exit code."""
    try:
        import myst_nb  # noqa: F401
        import sphinx  # noqa: F401
        import sphinx_book_theme  # noqa: F401
    except ImportError as error:
        print(f"the site's builder is not installed ({error.name}): pip install -e '.[docs]'", file=sys.stderr)
        return 2
    stage(staging)
    # A clean build (Sphinx leaves the pages of objects no longer documented in place) beside ``out``, put in its
    # place when Sphinx succeeds: a failed or stopped build leaves the earlier site as it was.
    from alphazero_lib.utils import replace_folder

    fresh = out.with_name(out.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-E", "-j", "auto", str(staging), str(fresh)]
    code = subprocess.run([*command, *(["-q"] if quiet else [])], cwd=ROOT).returncode
    if code != 0:
        shutil.rmtree(fresh, ignore_errors=True)
        return code
    replace_folder(fresh, out)
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "site", help="the HTML (default build/site)")
    parser.add_argument("--staging", type=Path, default=ROOT / "build" / "site_src", help="the copied sources")
    parser.add_argument("--verbose", action="store_true", help="Sphinx's progress, not only its warnings")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    code = build(args.out, args.staging, quiet=not args.verbose)
    pages = len(list(args.out.rglob("*.html"))) - len(list(args.out.glob("_*/**/*.html"))) if code == 0 else 0
    if code == 0:
        print(f"built {pages} pages into {args.out} in {time.perf_counter() - start:.1f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
