"""The clickable board in a real browser: JupyterLab, headless, driven by Playwright in the system's Chromium.

A copy of notebook 1 is opened in JupyterLab; "Run All Cells" runs it in a live kernel (not headless, so its play
cell shows the ipywidgets board), then the test clicks moves on the board against the random agent, sees the agent
answer each one, and takes a screenshot of the board (``ALPHAZERO_SCREENSHOTS=DIR`` keeps a copy in DIR).

Runs where Chromium (Debian's ``chromium``), Playwright (``pip install playwright``; its own browser download is not
needed) and JupyterLab are installed, as in CI; skipped with the reason otherwise.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "01_games.ipynb"
TOKEN = "alphazero-browser-test"
BOARD_TITLE = "your TicTacToe against a random agent"  # the first board of notebook 1's play cell


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_server(url: str, process: subprocess.Popen, seconds: float, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = "\n".join(log.read_text().splitlines()[-10:])
            raise RuntimeError(f"JupyterLab exited with {process.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"JupyterLab did not answer at {url} within {seconds:.0f} s:\n{log.read_text()[-2000:]}")


@pytest.fixture
def jupyterlab(tmp_path):
    """A JupyterLab server on a copy of notebook 1 (the committed notebook is never written); yields its address."""
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    pytest.importorskip("jupyterlab", reason="JupyterLab is not installed")
    pytest.importorskip("ipywidgets", reason="ipywidgets is not installed")
    work = tmp_path / "lab"
    work.mkdir()
    nb = json.loads(NOTEBOOK.read_text())
    for cell in nb["cells"]:  # outputs cleared: what the test sees below comes from this run
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    (work / NOTEBOOK.name).write_text(json.dumps(nb))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "ALPHAZERO_HEADLESS"}  # a person is at this kernel
    env.pop("MPLBACKEND", None)  # the notebook chooses its backend (%matplotlib inline)
    # JupyterLab's settings, workspaces and runtime files go to the test's folder, not the user's
    env.update(JUPYTER_CONFIG_DIR=str(tmp_path / "config"), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(tmp_path / "workspaces")
    # every cell in the page (JupyterLab 4 otherwise leaves cells far below the view out of the DOM)
    settings = tmp_path / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    env["JUPYTERLAB_SETTINGS_DIR"] = str(tmp_path / "settings")
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--port={port}",
        "--ip=127.0.0.1",
        f"--ServerApp.root_dir={work}",
        f"--IdentityProvider.token={TOKEN}",
        "--ServerApp.password=",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        "--allow-root",  # nothing from the network; CI runs as root
    ]
    log = (tmp_path / "jupyterlab.log").open("w")
    process = subprocess.Popen(command, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_server(f"http://127.0.0.1:{port}/api/status?token={TOKEN}", process, 60, Path(log.name))
        yield f"http://127.0.0.1:{port}/lab/tree/{NOTEBOOK.name}?token={TOKEN}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def board_cells(output) -> list:
    """The board's cell buttons, in action order (row by row)."""
    return output.locator(".widget-gridbox button").all()


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_a_person_plays_the_board_in_jupyterlab(jupyterlab, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu", "--disable-quic"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        try:
            page.set_default_timeout(60_000)
            page.goto(jupyterlab)
            page.locator(".jp-Notebook").wait_for()
            try:  # JupyterLab may ask which kernel to start, with the notebook's own preselected
                page.locator(".jp-Dialog").get_by_role("button", name="Select", exact=True).click(timeout=15_000)
            except sync_api.TimeoutError:
                pass
            page.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle")).wait_for()  # the kernel is up
            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.get_by_role("menuitem", name=re.compile(r"^Run All Cells")).click()

            # the play cell's output: the status line names the board, then the 3 x 3 grid of buttons
            board = page.locator(".jp-OutputArea-output").filter(has_text=BOARD_TITLE)
            board.wait_for()
            board.scroll_into_view_if_needed()
            status = board.locator(".widget-html-content").first
            assert "You are X. Your move." in status.inner_text()
            cells = board_cells(board)
            assert len(cells) == 9 and all(c.inner_text().strip() == "" for c in cells)

            for move in (1, 2):  # X takes the centre, then the first free corner
                action = next(a for a in (4, 0, 8, 2, 6) if not cells[a].inner_text().strip())
                before = [a for a in range(9) if cells[a].inner_text().strip() == "O"]
                cells[action].click()
                # the agent answers within the click: its move shows as an O, and the status line names it (the
                # two widgets update one after the other, so wait for both: on a busy machine the status lagged)
                page.wait_for_function(
                    """([title, count, before]) => {
                        const out = [...document.querySelectorAll('.jp-OutputArea-output')]
                            .find(o => o.textContent.includes(title));
                        const marks = [...out.querySelectorAll('.widget-gridbox button')]
                            .map(b => b.textContent.trim());
                        const named = /The agent played ([0-8])\\./.exec(
                            out.querySelector('.widget-html-content').textContent);
                        return marks.filter(m => m === 'X').length === count
                            && marks.filter(m => m === 'O').length === count
                            && named !== null && !before.includes(Number(named[1]));
                    }""",
                    arg=[BOARD_TITLE, move, before],
                )
                text = status.inner_text()
                assert cells[action].inner_text().strip() == "X", text
                answer = re.search(r"The agent played ([0-8])\. Your move\.", text)
                assert answer, text
                assert cells[int(answer.group(1))].inner_text().strip() == "O" and int(answer.group(1)) != action
            marks = [c.inner_text().strip() for c in cells]
            assert marks.count("X") == 2 and marks.count("O") == 2, marks

            shot = tmp_path / "board_in_jupyterlab.png"
            board.screenshot(path=str(shot))
            assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 2_000
            keep = os.environ.get("ALPHAZERO_SCREENSHOTS")
            if keep:
                Path(keep).mkdir(parents=True, exist_ok=True)
                shutil.copy(shot, Path(keep) / shot.name)
                page.screenshot(path=str(Path(keep) / "jupyterlab_page.png"))
        except Exception:  # what the page showed, for the one who reads the failure
            page.screenshot(path=str(tmp_path / "failure.png"))
            if os.environ.get("ALPHAZERO_SCREENSHOTS"):
                shutil.copy(tmp_path / "failure.png", Path(os.environ["ALPHAZERO_SCREENSHOTS"]) / "failure.png")
            raise
        finally:
            browser.close()
