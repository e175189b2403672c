"""The documentation site in a real browser: built by tools/build_site.py, served locally, opened in headless Chromium.

Every page loads with no console error and asks for nothing outside the site; every notebook page shows its stored
figures; every internal link and image resolves (a link check over the built HTML, anchors included); the sidebar
lists the eleven notebooks in order, and each notebook page links to its notebook in Colab; each notebook page opens
with its setup cell collapsed under one line; the notebooks' formulas are typeset by the site's own MathJax; and a
move is played against the shipped model on the Play page.

The site is taken from ``build/site`` where that build is newer than every source (``.ci/run`` builds it before
the tests) and left out nothing that can now be built (``.ci/run`` installs the ``onnx`` extra and onnxruntime-web
after building it); otherwise it is built there once, as ``python tools/build_site.py`` builds it (about 50 s on 2
cores), and the next run takes it. With ``ALPHAZERO_SITE=DIR`` the build in DIR is tested as it is.
``ALPHAZERO_SCREENSHOTS=DIR`` keeps screenshots of the landing page, of notebook 2 and of the Play page in DIR.
Skipped with the reason where the builder (``pip install -e ".[docs]"``), Playwright or Debian's ``chromium`` is
missing; the math test where the build had no MathJax, the Play test where it had no game (each says how to install
it).
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import json
import os
import re
import shutil
import subprocess
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_site", ROOT / "tools" / "build_site.py")
build_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_site)
NOTEBOOKS = build_site.notebooks()


def sources() -> list[Path]:
    """Every file the built site depends on: its pages, the notebooks, the model cards, the builder, the library."""
    files = [p for p in (ROOT / "docs").rglob("*") if p.is_file()] + NOTEBOOKS
    files += [ROOT / "weights" / "README.md", ROOT / "tools" / "build_site.py", ROOT / "pyproject.toml"]
    # the npm packages the build copies in (MathJax; onnxruntime-web for the Play page), where installed
    files += list((ROOT / "build").glob("*/node_modules/*/package.json"))
    return files + list((ROOT / "alphazero_lib").rglob("*.py")) + list((ROOT / "alphazero_lib").rglob("static/*"))


def record(site: Path) -> dict:
    """What the build of ``site`` holds and left out (``tools/build_site.py`` writes it); {} for an older build."""
    path = site / build_site.BUILD_RECORD
    return json.loads(path.read_text()) if path.is_file() else {}


def buildable_now(left_out: dict) -> list[str]:
    """The parts a build left out that could be built now."""
    ready = {"math": build_site.mathjax_missing, "play": build_site.play_missing}
    return [part for part in left_out if part in ready and ready[part]() is None]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    for module in ("sphinx", "myst_nb", "sphinx_book_theme"):
        pytest.importorskip(module, reason=f"the site's builder is not installed ({module}): pip install -e '.[docs]'")
    if os.environ.get("ALPHAZERO_SITE"):  # a build to test as it is, e.g. while writing pages
        return Path(os.environ["ALPHAZERO_SITE"])
    built = ROOT / "build" / "site"
    index = built / "index.html"
    fresh = index.is_file() and index.stat().st_mtime > max(p.stat().st_mtime for p in sources())
    if fresh and record(built) and not buildable_now(record(built)["left_out"]):
        return built
    assert build_site.build(built, tmp_path_factory.mktemp("site_src")) == 0, "python tools/build_site.py failed"
    return built  # kept for the next run


def pages(site: Path) -> list[Path]:
    """The site's HTML pages (the highlighted sources under _modules/ included), not the theme's files."""
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


# ---- the link check over the built HTML -----------------------------------------------------------------------
class _Refs(HTMLParser):
    """The ids of a page and the links and sources in it."""

    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.refs: list[tuple[str, str, str]] = []  # (tag, attribute, value)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for attribute in ("href", "src"):
            if attrs.get(attribute) and tag in ("a", "img", "link", "script", "iframe", "source"):
                self.refs.append((tag, attribute, attrs[attribute]))


@functools.cache
def parsed(path: Path) -> _Refs:
    refs = _Refs()
    refs.feed(path.read_text(errors="replace"))
    return refs


def broken_links(site: Path) -> list[str]:
    """Every internal link or source of the site that names a missing file or a missing anchor."""
    broken = []
    for page in pages(site):
        for tag, attribute, value in parsed(page).refs:
            parts = urlsplit(value)
            if parts.scheme or parts.netloc or value.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = (page.parent / unquote(parts.path) if parts.path else page).resolve()
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(site)}: <{tag} {attribute}={value!r}>"
            if not target.is_file() or site.resolve() not in target.parents:
                broken.append(f"{where}: no file {target}")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in parsed(target).ids:
                broken.append(f"{where}: no anchor #{parts.fragment} in {target.name}")
    return broken


def external_assets(site: Path) -> list[str]:
    """Scripts, style sheets and images of the site's own pages that would be fetched from another host."""
    found = []
    for page in pages(site):
        for tag, attribute, value in parsed(page).refs:
            needed = tag in ("img", "script", "source") or (tag == "link" and attribute == "href")
            if needed and urlsplit(value).scheme in ("http", "https") and not value.startswith("https://github.com"):
                found.append(f"{page.relative_to(site)}: <{tag} {attribute}={value!r}>")
    return found


def test_every_internal_link_and_image_resolves(site):
    assert len(pages(site)) >= 20
    assert broken_links(site) == []


def test_the_pages_need_nothing_from_the_internet(site):
    assert external_assets(site) == []


def test_the_link_check_finds_a_missing_page_and_a_missing_anchor(site, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    (copy / "cli.html").unlink()
    page = copy / "course.html"
    page.write_text(page.read_text().replace("</body>", '<a href="index.html#no-such-anchor">x</a></body>'))
    parsed.cache_clear()
    problems = broken_links(copy)
    assert any("no file" in p and "cli.html" in p for p in problems), problems
    assert any("no anchor #no-such-anchor" in p for p in problems), problems


def test_a_failed_build_leaves_the_earlier_site_and_a_good_one_replaces_it_whole(tmp_path, monkeypatch):
    """Sphinx (stood in for) writes beside the site; only a build that succeeds replaces it, all at once."""
    for module in ("sphinx", "myst_nb", "sphinx_book_theme"):
        pytest.importorskip(module, reason=f"the site's builder is not installed ({module}): pip install -e '.[docs]'")
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("earlier")

    def sphinx(code):
        def run(command, **kwargs):
            target = Path(command[-1])
            target.mkdir()
            (target / "index.html").write_text(f"exit {code}")  # half a site when it fails
            return subprocess.CompletedProcess(command, code)

        return run

    monkeypatch.setattr(build_site, "mathjax_missing", lambda: "not wanted here")
    monkeypatch.setattr(build_site, "play_missing", lambda: "not wanted here")
    monkeypatch.setattr(build_site.subprocess, "run", sphinx(1))
    assert build_site.build(out, tmp_path / "src", quiet=False) == 1  # the output folder last
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("site")] == ["site"]
    assert (out / "index.html").read_text() == "earlier"
    monkeypatch.setattr(build_site.subprocess, "run", sphinx(0))
    assert build_site.build(out, tmp_path / "src", quiet=False) == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("site")) == ["site"]
    assert (out / "index.html").read_text() == "exit 0"


# ---- in the browser -----------------------------------------------------------------------------------------------
class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served(site):
    """The site on a local HTTP server; yields its address."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    if shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu", "--disable-quic"]
        )
        yield browser
        browser.close()


def visit(browser, url: str):
    """Open ``url`` in a fresh page; return the page, its errors and the requests it made to other hosts.

    Errors are console errors (with the address they name) and uncaught exceptions; requests to other hosts are
    refused, each kept with the address of the frame that made it (``about:srcdoc`` for a stored HTML output)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors, outside = [], []
    page.on("console", lambda m: errors.append((m.text, m.location.get("url", ""))) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append((f"uncaught: {e}", "")))

    def route(r):
        if urlsplit(r.request.url).hostname == "127.0.0.1" or r.request.url.startswith(("data:", "about:")):
            r.continue_()
        else:
            outside.append((r.request.url, r.request.frame.url))
            r.abort()

    page.route("**/*", route)
    page.goto(url, wait_until="load")
    page.wait_for_timeout(150)
    return page, errors, outside


def site_failures(page: str, errors: list, outside: list) -> list[str]:
    """What the site got wrong on ``page``: every console error, and every address outside the site asked for.

    Notebook 8's stored Kaggle player (``env.render(mode="ipython")``) loads its scripts from unpkg.com and cdnjs;
    its cell carries the ``remove-output`` tag, so the site leaves that output out (the still image after it shows
    the same game) and no page asks for anything outside."""
    failures = [f"asked for {url} (from {frame})" for url, frame in outside]
    return failures + [f"{text} ({where})" if where else text for text, where in errors]


def test_every_page_loads_without_a_console_error(site, served, browser):
    failures = {}
    for path in pages(site):
        relative = path.relative_to(site).as_posix()
        page, errors, outside = visit(browser, f"{served}/{relative}")
        if problems := site_failures(relative, errors, outside):
            failures[relative] = problems
        page.close()
    assert failures == {}


def stored_figures(notebook: Path) -> int:
    """How many image outputs the notebook holds."""
    cells = json.loads(notebook.read_text())["cells"]
    outputs = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]
    return sum(1 for o in outputs if any(k.startswith("image/") for k in o.get("data", {})))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_notebook_page_shows_its_stored_figures_and_its_colab_link(site, served, browser, notebook):
    page, _, _ = visit(browser, f"{served}/course/{notebook.stem}.html")
    figures = page.eval_on_selector_all(
        ".cell_output img", "imgs => imgs.map(i => [i.complete && i.naturalWidth > 0, i.getAttribute('src')])"
    )
    assert len(figures) == stored_figures(notebook), figures
    assert [src for loaded, src in figures if not loaded] == []
    colab = build_site.repository()
    expected = f"https://colab.research.google.com/github/{colab}/blob/main/notebooks/{notebook.name}"
    assert page.locator(f'a[href="{expected}"]').count() >= 1
    badge = page.locator(f'a[href="{expected}"] img').first
    assert badge.evaluate("i => i.complete && i.naturalWidth > 0")  # the local badge, drawn offline
    if notebook.name.startswith("02") and os.environ.get("ALPHAZERO_SCREENSHOTS"):
        page.screenshot(path=str(Path(os.environ["ALPHAZERO_SCREENSHOTS"]) / "site_notebook_02.png"), full_page=False)
    page.close()


def test_the_sidebar_lists_the_eleven_notebooks_in_order(site, served, browser):
    page, _, _ = visit(browser, f"{served}/index.html")
    links = page.eval_on_selector_all(
        ".bd-sidebar-primary nav a", "links => links.map(a => [a.getAttribute('href'), a.textContent.trim()])"
    )
    course = [(href, text) for href, text in links if re.match(r"(\./)?course/\d\d_", href)]
    assert [href.removeprefix("./") for href, _ in course] == [f"course/{p.stem}.html" for p in NOTEBOOKS]
    assert len(course) == 11
    assert [text.split(".", 1)[0] for _, text in course] == [str(i) for i in range(11)]  # "0. Overview: ..."
    # every page of docs/ (a new one too) and the model cards, once each
    top = [href.removeprefix("./") for href, _ in links if "/" not in href.removeprefix("./") and "#" not in href]
    pages = {f"{p.stem}.html" for p in (ROOT / "docs").glob("*.md") if p.stem != "index"} | {"weights.html"}
    assert sorted(top) == sorted(pages), top
    if os.environ.get("ALPHAZERO_SCREENSHOTS"):
        page.screenshot(path=str(Path(os.environ["ALPHAZERO_SCREENSHOTS"]) / "site_landing.png"), full_page=False)
    page.close()


# ---- what issue 62 asked of the site: math typeset, the setup cell collapsed, the model playable ----------------
def formulas(notebook: Path) -> int:
    """How many formulas (``$...$`` and ``$$...$$``) the notebook's Markdown cells hold, code spans left out."""
    cells = json.loads(notebook.read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    text = re.sub(r"```.*?```|`[^`\n]*`", "", text, flags=re.DOTALL)
    return len(re.findall(r"\$\$.+?\$\$|\$[^$\s][^$\n]*?\$", text, flags=re.DOTALL))


WITH_MATH = [p for p in NOTEBOOKS if formulas(p)]


def test_the_notebooks_formulas_are_typeset_not_shown_as_source(site, served, browser):
    if why := record(site).get("left_out", {}).get("math"):
        pytest.skip(f"this build has no MathJax: {why}")
    assert WITH_MATH, "no notebook has a formula: the check below would check nothing"
    for notebook in WITH_MATH:
        page, errors, outside = visit(browser, f"{served}/course/{notebook.stem}.html")
        # MathJax typesets once its startup promise resolves; a page with no math node never loads it
        page.wait_for_function("!window.MathJax || window.MathJax.startup?.promise", timeout=30_000)
        assert page.evaluate("window.MathJax ? MathJax.startup.promise.then(() => true) : false"), (
            f"{notebook.name}: no MathJax on the page, its formulas shown as written"
        )
        text = page.inner_text("article")
        assert "$$" not in text and "\\frac" not in text, f"{notebook.name}: TeX shown as written"
        # each formula typeset and drawn (MathJax's font, from the site: the font path's default is a CDN)
        sizes = page.eval_on_selector_all("mjx-container", "cs => cs.map(c => c.getBoundingClientRect().width)")
        assert len(sizes) == formulas(notebook) and all(width > 20 for width in sizes), (notebook.name, sizes)
        page.wait_for_timeout(500)  # the font files and the speech worker's files, loaded after typesetting
        assert site_failures(notebook.name, errors, outside) == []
        page.close()


def test_each_notebook_page_opens_with_its_setup_cell_collapsed_under_one_line(site, served, browser):
    shown = {}
    for notebook in NOTEBOOKS:
        page, _, _ = visit(browser, f"{served}/course/{notebook.stem}.html")
        cell = page.locator("div.cell").first  # the first code cell: the setup cell
        summary = cell.locator("summary").first
        one_line = "e => e.getBoundingClientRect().height < 1.5 * parseFloat(getComputedStyle(e).lineHeight)"
        shown[notebook.stem] = (
            summary.count() == 1 and summary.is_visible(),
            summary.inner_text().strip() if summary.count() else None,
            summary.locator("p").first.evaluate(one_line) if summary.count() else None,
            cell.locator(".cell_input").is_visible(),  # the code: hidden until the summary is clicked
            cell.locator(".cell_output").is_visible(),  # its one line of output stays in sight
        )
        if summary.count():
            summary.click()
            shown[notebook.stem] += (cell.locator(".cell_input").is_visible(),)
        page.close()
    expected = (True, "Setup: loads the course library (in Colab, from GitHub)", True, False, True, True)
    assert shown == {p.stem: expected for p in NOTEBOOKS}


def test_a_move_is_played_against_the_shipped_model_on_the_play_page(site, served, browser):
    if why := record(site).get("left_out", {}).get("play"):
        pytest.skip(f"this build has no game on its Play page: {why}")
    page, errors, outside = visit(browser, f"{served}/play.html")
    frame_element = page.locator(f'iframe[src="{build_site.PLAY_FOLDER}/index.html"]')
    assert frame_element.count() == 1
    frame_element.scroll_into_view_if_needed()
    game = frame_element.element_handle().content_frame()
    humans_turn = "document.getElementById('status')?.dataset.state === 'human'"
    game.wait_for_function(humans_turn, timeout=120_000)  # the network and onnxruntime-web loaded
    game.fill("#searches", "20")  # a quick reply on a busy machine
    game.click("[data-cell='38']")  # the bottom of column 3
    game.wait_for_function(f"{humans_turn} && window.alphazero.snapshot().moves.length === 2", timeout=60_000)
    snapshot = game.evaluate("window.alphazero.snapshot()")
    assert snapshot["moves"][0] == 3 and 0 <= snapshot["moves"][1] < 7, snapshot  # yours, then the agent's reply
    assert sum(1 for cell in snapshot["board"] if cell != 0) == 2, snapshot
    assert game.locator("#visits .heat").count() == 7  # the search's visit shares behind the reply are shown
    if os.environ.get("ALPHAZERO_SCREENSHOTS"):
        page.screenshot(path=str(Path(os.environ["ALPHAZERO_SCREENSHOTS"]) / "site_play.png"), full_page=True)
    assert site_failures("play.html", errors, outside) == []
    page.close()
