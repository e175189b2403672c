"""Build the documentation website from docs/ and notebooks/, offline, into build/site/.

    pip install -e ".[docs]"          # Sphinx, MyST-NB and the Sphinx Book Theme (the stack of Jupyter Book 1.x)
    python tools/build_site.py        # then open build/site/index.html
    python tools/build_site.py --out /tmp/site

The site is Sphinx with MyST-NB: the pages are ``docs/*.md``, the course is ``notebooks/NN_*.ipynb`` rendered with
their stored outputs (nothing is executed), and ``weights/README.md`` (the model cards) becomes ``weights.html``.
Nothing is fetched while building or reading: the theme's files ship in its wheel, the Colab badge is drawn from
``docs/_static/colab-badge.svg`` (the badge's link still goes to Colab), and MathJax is copied in. Three parts come
from outside the ``docs`` extra, each left out with a line saying so (the build still succeeds) where missing:

- **math**: ``$...$`` and ``$$...$$`` are typeset by MathJax (Apache-2.0), from its npm package in ``build/mathjax``
  (``npm install --prefix build/mathjax mathjax@4.1.3``; ``.ci/run`` does this). Only the parts a page loads are
  copied into ``_static/mathjax/``: the ``tex-mml-chtml`` component, the TeX extensions it loads on demand, the
  menu, the speech engine and the New Computer Modern font's CHTML files. Without it math is shown as written.
- **the Play page** (``docs/play.md``): the shipped ``connect_four`` model, exported by
  ``python -m alphazero_lib export-web`` into ``play/`` and framed in the page. It needs the ``onnx`` extra
  (``pip install -e ".[onnx]"``) and onnxruntime-web's npm files (found as ``export-web`` finds them, or in
  ``build/onnxruntime-web`` where ``.ci/run`` installs them); without them the page holds a note instead.
- **the setup cell**: not a dependency, a rule: a code cell that Colab shows as a form (``cellView: form``, the
  setup cell at the top of every notebook) is collapsed on the site too, under the one line saying what it does.

What a build left out is recorded in ``.site_build.json`` beside the pages (``tests/test_site.py`` builds again when
a part left out can now be built).

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
MATHJAX_VERSION = "4.1.3"
MATHJAX_PREFIX = ROOT / "build" / "mathjax"  # npm install --prefix build/mathjax mathjax@4.1.3
# what a page loads of MathJax's package: the combined component Sphinx names, and the folders it loads from
MATHJAX_PARTS = ("tex-mml-chtml.js", "input", "output", "ui", "a11y", "sre", "LICENSE", "package.json")
MATHJAX_FONT = "@mathjax/mathjax-newcm-font"  # MathJax 4's default font, its own npm package (Apache-2.0)
PLAY_WEIGHTS = "connect_four"
PLAY_FOLDER = "play"  # the exported page's folder on the site
# the Play page's game, between these lines of docs/play.md; replaced by a note where it cannot be exported
PLAY_START, PLAY_END = "<!-- play: the exported page -->", "<!-- play: end -->"
BUILD_RECORD = ".site_build.json"
# the one line a form cell (Colab's title) is collapsed under on the site, by its title: what the cell does
FORM_SUMMARIES = {"Setup: run this cell first": "Setup: loads the course library (in Colab, from GitHub)"}
LEFT_OUT = {"math": "math typesetting (math is shown as written)", "play": "the Play page's game (a note instead)"}
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
            notebook = collapse_forms(json.loads((root / source).read_text()))
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


def collapse_forms(notebook: dict) -> dict:
    """``notebook`` with each code cell that Colab shows as a form (``cellView: form``) collapsed on the site as well:
    the ``hide-input`` tag, under one line saying what it does (``FORM_SUMMARIES``, by the form's ``#@title``; else
    the title). Only the staged copy changes; the source and outputs stay as they are."""
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code" or cell.get("metadata", {}).get("cellView") != "form":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        title = re.sub(r"\{.*\}\s*$", "", source.split("\n", 1)[0].removeprefix("#@title")).strip()
        metadata = cell["metadata"]
        metadata["tags"] = [*metadata.get("tags", []), "hide-input"]
        summary = FORM_SUMMARIES.get(title, title)
        metadata["mystnb"] = {
            "code_prompt_show": summary,
            "code_prompt_hide": f"{summary.split(':')[0]}: hide the code",
        }
    return notebook


def mathjax_missing(prefix: Path = MATHJAX_PREFIX) -> str | None:
    """Why MathJax cannot be copied into the site (None: it can): its npm package or its font is not installed."""
    modules = prefix / "node_modules"
    if not (modules / "mathjax" / "tex-mml-chtml.js").is_file() or not (modules / MATHJAX_FONT / "chtml").is_dir():
        where = prefix.relative_to(ROOT) if prefix.is_relative_to(ROOT) else prefix
        return (
            f"MathJax is not in {where} (install it once with `npm install --prefix {where} mathjax@{MATHJAX_VERSION}`)"
        )
    return None


def add_mathjax(staging: Path, prefix: Path = MATHJAX_PREFIX) -> str:
    """Copy what a page loads of MathJax into ``staging/_static/mathjax`` (conf.py turns math on when it is there),
    its font under ``fonts/`` (conf.py points MathJax's font path there); return the version."""
    modules = prefix / "node_modules"
    target = staging / "_static" / "mathjax"
    for part in MATHJAX_PARTS:
        source = modules / "mathjax" / part
        if source.is_dir():
            shutil.copytree(source, target / part)
        else:
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / part)
    font = target / "fonts" / MATHJAX_FONT.split("/")[1]
    shutil.copytree(modules / MATHJAX_FONT / "chtml", font / "chtml")
    shutil.copy2(modules / MATHJAX_FONT / "package.json", font / "package.json")
    return json.loads((modules / "mathjax" / "package.json").read_text())["version"]


def ort_web() -> Path | None:
    """onnxruntime-web's files, where ``export-web`` finds them (``$ALPHAZERO_ORT_WEB``, the user's cache) or in
    ``build/onnxruntime-web``, where ``.ci/run`` installs them; None if nowhere."""
    from alphazero_lib.web.page import find_ort_web

    for folder in (None, ROOT / "build" / "onnxruntime-web"):
        try:
            return find_ort_web(folder)
        except FileNotFoundError:
            continue
    return None


def play_missing() -> str | None:
    """Why the Play page cannot be exported (None: it can): the ``onnx`` extra or onnxruntime-web is missing."""
    import importlib.util

    if missing := [m for m in ("onnx", "onnxscript", "onnxruntime") if importlib.util.find_spec(m) is None]:
        return f'the `onnx` extra is not installed ({", ".join(missing)}; `pip install -e ".[onnx]"`)'
    if ort_web() is None:
        from alphazero_lib.web.page import ORT_WEB_VERSION

        return (
            "onnxruntime-web's files are not installed (`npm install --prefix build/onnxruntime-web "
            f"onnxruntime-web@{ORT_WEB_VERSION}`)"
        )
    return None


def add_play(staging: Path) -> None:
    """Export the shipped Connect Four model with ``export-web`` into ``staging/_play/play`` (conf.py copies
    ``_play`` beside the pages). Raises ``RuntimeError`` with export-web's message if it fails."""
    out = staging / "_play" / PLAY_FOLDER
    command = [sys.executable, "-m", "alphazero_lib", "export-web", "--weights", PLAY_WEIGHTS, "--out", str(out)]
    command += ["--ort-web", str(ort_web()), "--title", f"the shipped {PLAY_WEIGHTS} model"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[1:])} failed:\n{done.stderr.strip()}")


def leave_play_out(staging: Path, why: str) -> None:
    """Put a note in place of the game on the staged Play page."""
    page = staging / "play.md"
    text = page.read_text()
    start, end = text.index(PLAY_START), text.index(PLAY_END) + len(PLAY_END)
    note = (
        f":::{{note}}\nThe game is not in this build of the site: {why}. Install it and run "
        "`python tools/build_site.py` again, or make the page yourself with `export-web` "
        "([your agent in any browser](export_web.md)).\n:::"
    )
    page.write_text(text[:start] + note + text[end:])


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
    record = {"mathjax": None, "play": None, "left_out": {}}
    if why := mathjax_missing():
        record["left_out"]["math"] = why
    else:
        record["mathjax"] = add_mathjax(staging)
    if why := play_missing():
        record["left_out"]["play"] = why
        leave_play_out(staging, why)
    else:
        try:
            add_play(staging)
        except RuntimeError as error:
            print(f"the Play page could not be made: {error}", file=sys.stderr)
            return 1
        record["play"] = PLAY_WEIGHTS
    for part, why in record["left_out"].items():
        print(f"left out of the site: {LEFT_OUT[part]}: {why}", file=sys.stderr)
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
    (fresh / BUILD_RECORD).write_text(json.dumps(record, indent=1) + "\n")
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
