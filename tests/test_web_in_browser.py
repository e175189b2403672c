"""The exported page in a real browser (issue 51): headless Chromium driven by Playwright, the page served over HTTP.

On 200 of Pons' positions the page's search (JavaScript, the network on onnxruntime-web) plays the move of the Python
player ``alphazero:connect_four_fast:N`` at 50 and 200 searches; a whole game is played by clicks, with an undo and a
refused click on a full column. ``ALPHAZERO_SCREENSHOTS=DIR`` keeps a screenshot of the page in mid-game.

Runs where Chromium (Debian's ``chromium``), Playwright (``pip install playwright``; its own browser download is not
needed), the ``onnx`` extra and onnxruntime-web's npm files (``alphazero_lib.web.page.find_ort_web``; CI installs them
into ``build/onnxruntime-web``) are present; skipped with the reason otherwise.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from alphazero_lib.batched_mcts import BatchedMCTS
from alphazero_lib.games import make_game
from alphazero_lib.specs import make_player
from alphazero_lib.strength import choose_actions, load_set
from alphazero_lib.web.page import export_web, find_ort_web, serve

ROOT = Path(__file__).resolve().parents[1]
WEIGHTS = "connect_four_fast"  # 4 x 64: the search runs in the browser, 200 positions at a time
NUM_POSITIONS = 200
LEAST_AGREEMENT = 0.99

pytestmark = [
    pytest.mark.slow,  # an export, then 200 positions searched 250 times in the browser: minutes on 2 cores
    pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed"),
]


def ort_web_dir() -> Path:
    """onnxruntime-web's files: ``$ALPHAZERO_ORT_WEB``, the checkout's ``build/onnxruntime-web`` (CI), the cache."""
    for folder in (os.environ.get("ALPHAZERO_ORT_WEB"), ROOT / "build" / "onnxruntime-web", None):
        try:
            return find_ort_web(folder)
        except FileNotFoundError:
            continue
    pytest.skip("onnxruntime-web is not installed (npm install --prefix build/onnxruntime-web onnxruntime-web@1.30.0)")


def needs_onnx() -> None:
    for module in ("onnx", "onnxscript"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install -e '.[onnx]')")


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (Debian's), driven by Playwright: one for the module's tests."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu", "--disable-quic"]
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory):
    """``(playwright page, game)``: the exported page of ``WEIGHTS`` open in headless Chromium, ready to play."""
    needs_onnx()
    game = make_game("connect_four")
    folder = export_web(
        make_player(game, f"alphazero:{WEIGHTS}:50").model,
        tmp_path_factory.mktemp("web") / "page",
        num_searches=50,
        ort_web=ort_web_dir(),
        source=WEIGHTS,
    )
    errors: list[str] = []
    with serve(folder) as address:
        tab = browser.new_page(viewport={"width": 1100, "height": 900})
        try:
            tab.on("pageerror", lambda error: errors.append(str(error)))
            tab.goto(address)
            tab.wait_for_function("document.getElementById('status').dataset.state === 'human'", timeout=120_000)
            yield tab, game
        finally:
            tab.close()
    assert errors == [], errors


def explain(i: int, page_move: int, python_move: int, page_visits: np.ndarray, python_visits: np.ndarray) -> tuple:
    """Why the page's move differs from a Python move in position ``i``: the visits differ (the network's last bits
    flipped a choice), or an exact tie that the two broke differently."""
    tied = np.flatnonzero(python_visits == python_visits.max())
    if not np.array_equal(page_visits, python_visits):
        reason = f"the visits differ: {page_visits.tolist()} in the page, {python_visits.tolist()} here"
    elif page_move in tied and python_move in tied and len(tied) > 1:
        reason = f"an exact tie: columns {tied.tolist()} have {python_visits.max()} visits each"
    else:
        reason = "unexplained"
    return (i, page_move, python_move, reason)


def compare(page, game, states: np.ndarray, to_move: np.ndarray, searches: int) -> dict:
    """The page's moves and visits beside Python's on the same positions: the search's own move
    (``SearchOutput.action``, the most visited, the lowest on ties: the page's tie-break) and the player
    ``alphazero:W:N``'s (it draws among tied moves with its seeded generator)."""
    player = make_player(game, f"alphazero:{WEIGHTS}:{searches}", seed=0)
    player_moves = choose_actions(player, states, to_move)
    canonical = states * to_move[:, None, None]
    output = BatchedMCTS(game, player.model, player.mcts.config, reuse_tree=False).run(canonical)
    search_moves = output.action
    python_visits = np.rint(output.visit_shares * searches).astype(int)
    answer = page.evaluate(
        "([states, n]) => window.alphazero.batch(states, n)",
        [[row.reshape(-1).tolist() for row in canonical.astype(int)], searches],
    )
    page_visits = np.array([r["visits"] for r in answer["results"]])
    page_moves = np.array([r["action"] for r in answer["results"]])

    def disagreements(python_moves: np.ndarray) -> list[tuple]:
        return [
            explain(int(i), int(page_moves[i]), int(python_moves[i]), page_visits[i], python_visits[i])
            for i in np.flatnonzero(page_moves != python_moves)
        ]

    return {
        "agreement": float(np.mean(page_moves == search_moves)),
        "disagreements": disagreements(search_moves),
        "player_agreement": float(np.mean(page_moves == player_moves)),
        "player_disagreements": disagreements(player_moves),
        "same_visits": int((page_visits == python_visits).all(axis=1).sum()),
        "seconds": answer["ms"] / 1000,
    }


@pytest.mark.parametrize("searches", [50, 200])
def test_the_page_plays_the_python_players_move_on_pons_positions(page, searches):
    tab, game = page
    positions = load_set("middle_easy", limit=NUM_POSITIONS)
    result = compare(tab, game, positions.states, positions.to_move.astype(int), searches)
    print(
        f"\n{searches} searches, {NUM_POSITIONS} Pons positions: visit counts equal {result['same_visits']}/"
        f"{NUM_POSITIONS}; moves equal the search's (ties to the lowest column, as the page's) "
        f"{result['agreement']:.1%}, disagreements {result['disagreements']}; the player's (ties drawn at random) "
        f"{result['player_agreement']:.1%}, disagreements {result['player_disagreements']}; "
        f"page {result['seconds']:.1f} s"
    )
    assert result["agreement"] >= LEAST_AGREEMENT, result
    assert result["same_visits"] >= LEAST_AGREEMENT * NUM_POSITIONS, result
    everything = result["disagreements"] + result["player_disagreements"]
    assert [d for d in everything if d[3] == "unexplained"] == [], everything


def status(tab) -> tuple[str, str]:
    return tab.eval_on_selector("#status", "e => [e.dataset.state, e.textContent]")


def wait_for_the_human(tab) -> str:
    tab.wait_for_function("['human', 'over'].includes(document.getElementById('status').dataset.state)", timeout=60_000)
    return status(tab)[0]


def test_a_full_game_by_clicks_with_an_undo_and_a_refused_click(page):
    tab, game = page
    # a refused click: column 0 full, the human to move
    tab.evaluate("window.alphazero.load([0, 0, 0, 0, 0, 0])")
    assert tab.is_hidden("#message")
    tab.click("[data-cell='35']")
    assert tab.is_visible("#message") and "Column 0 is full" in tab.inner_text("#message")
    assert tab.evaluate("window.alphazero.snapshot().moves.length") == 6

    tab.fill("#searches", "20")
    tab.select_option("#human-side", "1")  # a new game, the human first
    assert wait_for_the_human(tab) == "human" and tab.evaluate("window.alphazero.snapshot().moves") == []
    tab.click("[data-cell='38']")  # column 3
    assert wait_for_the_human(tab) == "human"
    assert len(tab.evaluate("window.alphazero.snapshot().moves")) == 2
    assert tab.locator("#visits .heat").count() == game.action_size  # the search's visit shares are shown
    assert tab.locator("#policy .heat").count() == game.action_size  # and the network's policy
    tab.click("#undo")
    assert wait_for_the_human(tab) == "human" and tab.evaluate("window.alphazero.snapshot().moves") == []

    clicks = 0
    while wait_for_the_human(tab) == "human":
        board = np.array(tab.evaluate("window.alphazero.snapshot().board")).reshape(game.row_count, -1)
        column = int(np.flatnonzero(board[0] == 0)[0])  # the lowest open column
        tab.click(f"[data-cell='{column}']")
        clicks += 1
        if clicks == 3 and os.environ.get("ALPHAZERO_SCREENSHOTS"):
            wait_for_the_human(tab)
            tab.screenshot(path=str(Path(os.environ["ALPHAZERO_SCREENSHOTS"]) / "web_page_mid_game.png"))
    state, text = status(tab)
    over = tab.evaluate("window.alphazero.snapshot().over")
    assert state == "over" and over is not None, text
    expected = {1: "You win!", -1: "The agent wins.", 0: "A draw."}[over["winner"]]
    assert text.startswith(expected), text
    if over["winner"] != 0:
        assert tab.locator(".cell.win").count() >= game.in_a_row  # the winning line is marked
    tab.click("[data-cell='3']")
    assert "The game is over" in tab.inner_text("#message")


def test_a_tictactoe_page_plays_a_game_with_the_agent_first(browser, tmp_path):
    needs_onnx()
    game = make_game("tictactoe")
    folder = export_web(
        make_player(game, "alphazero:tictactoe:50").model, tmp_path / "ttt", ort_web=ort_web_dir(), source="tictactoe"
    )
    errors: list[str] = []
    with serve(folder) as address:
        tab = None
        try:
            # from the disk the page cannot run (module scripts are refused there): it says so, and how to serve it
            local = browser.new_page()
            local.goto((folder / "index.html").as_uri())
            assert local.is_visible("#file-warning") and "python -m http.server" in local.inner_text("#file-warning")
            assert status(local)[1] == "Loading the network..."
            local.close()
            tab = browser.new_page(viewport={"width": 1100, "height": 700})
            tab.on("pageerror", lambda error: errors.append(str(error)))
            tab.goto(address)
            wait_for_the_human(tab)
            assert tab.is_hidden("#file-warning")
            tab.select_option("#human-side", "-1")  # a new game, the agent first
            assert wait_for_the_human(tab) == "human"
            first = tab.evaluate("window.alphazero.snapshot()")
            assert len(first["moves"]) == 1 and first["board"].count(1) == 1  # the agent played X
            taken = first["moves"][0]
            tab.click(f"[data-cell='{taken}']")
            assert "That cell is taken" in tab.inner_text("#message")
            while wait_for_the_human(tab) == "human":
                board = tab.evaluate("window.alphazero.snapshot().board")
                tab.click(f"[data-cell='{board.index(0)}']")  # the first empty cell
            if os.environ.get("ALPHAZERO_SCREENSHOTS"):
                tab.screenshot(path=str(Path(os.environ["ALPHAZERO_SCREENSHOTS"]) / "web_page_tictactoe.png"))
            state, text = status(tab)
            over = tab.evaluate("window.alphazero.snapshot().over")
            assert state == "over" and over["winner"] in (1, 0), text  # the agent (X, 1) does not lose to this play
            assert text.startswith({1: "The agent wins.", 0: "A draw."}[over["winner"]]), text
            if over["winner"] == 1:
                assert tab.locator(".cell.win").count() == 3
        finally:
            if tab is not None:
                tab.close()
    assert errors == [], errors
