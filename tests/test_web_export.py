"""export-web (issue 51) without a browser: the folder it writes, its errors, and the page's search (search.js, run in
Node.js) against the library's ``AlphaMCTS`` with a fake network whose outputs both sides compute exactly.

The exports need the ``onnx`` extra (skipped without it); onnxruntime-web's files are stood in for by empty files of
the same names (the export only copies them; tests/test_web_in_browser.py runs the real ones). The search tests need
``node`` (skipped without it).
"""

from __future__ import annotations

import fnmatch
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from alphazero_lib.alpha_mcts import AlphaMCTS
from alphazero_lib.checkpoints import load_checkpoint, make_checkpoint, save_checkpoint
from alphazero_lib.cli import main
from alphazero_lib.config import SearchConfig
from alphazero_lib.games import make_game
from alphazero_lib.model import ResNet
from alphazero_lib.pretrained import pretrained_path
from alphazero_lib.web import page as web_page
from alphazero_lib.web.page import KIND, ORT_WEB_FILES, PAGE_FILES, STATIC_DIR, npm_command

ROOT = Path(__file__).resolve().parents[1]


def needs_onnx() -> None:
    for module in ("onnx", "onnxscript", "onnxruntime"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install -e '.[onnx]')")


def web(weights: str, out: Path, ort: Path | None = None) -> list[str]:
    """export-web's arguments."""
    return ["export-web", "--weights", weights, "--out", str(out), *(["--ort-web", str(ort)] if ort else [])]


def run_cli(capsys, args: list[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def capstone_checkpoint(path: Path) -> Path:
    """A learner's network as the capstone trains it (Connect Four, 4 x 64), fresh from its first iteration."""
    torch.manual_seed(1)
    game = make_game("connect_four")
    return save_checkpoint(path, make_checkpoint(ResNet(game, 4, 64), game, iteration=1))


# ---- what the folder holds ---------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("weights", ["connect_four", "capstone"])
def test_export_web_writes_the_page_for_shipped_weights_and_a_capstone_agent(weights, tmp_path, fake_ort, capsys):
    needs_onnx()
    source = str(capstone_checkpoint(tmp_path / "latest.pt")) if weights == "capstone" else weights
    out = tmp_path / "page"
    code, printed, err = run_cli(
        capsys, ["export-web", "--weights", source, "--out", str(out), "--ort-web", str(fake_ort), "--searches", "30"]
    )
    assert code == 0, err
    assert "python -m http.server --directory" in printed and "not from file://" in printed
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([*PAGE_FILES, *ORT_WEB_FILES, "model.onnx", "config.json", "README.txt"])
    config = json.loads((out / "config.json").read_text())
    assert config["kind"] == KIND and config["game"] == {"name": "connect_four", "rows": 6, "columns": 7, "in_a_row": 4}
    assert config["searches"] == 30 and config["C"] == 2.0 and config["onnx"] == "model.onnx"
    assert config["onnxruntime_web"] == "1.30.0" and config["style"]["colors"] == ["#e53935", "#fdd835"]
    assert config["arch"] == (
        {"num_res_blocks": 5, "num_hidden": 128}
        if weights == "connect_four"
        else {"num_res_blocks": 4, "num_hidden": 64}
    )
    for name in PAGE_FILES:
        assert (out / name).read_bytes() == (STATIC_DIR / name).read_bytes()
    # the ONNX file is the checkpoint's network
    from alphazero_lib.checkpoints import load_model
    from alphazero_lib.inference import evaluate
    from alphazero_lib.web.onnx_export import OnnxNetwork

    model = load_model(pretrained_path(weights) if weights == "connect_four" else source)
    encoded = model.game.get_encoded_state(np.zeros((1, 6, 7)))
    assert np.abs(OnnxNetwork(out / "model.onnx").evaluate(encoded)[0] - evaluate(model, encoded)[0]).max() < 1e-4


def test_the_page_for_tictactoe_carries_its_game_and_look(tmp_path, fake_ort, monkeypatch):
    monkeypatch.setattr(web_page, "onnx_bytes", lambda model: b"onnx")  # the folder's logic, without an export
    from alphazero_lib.pretrained import load_pretrained

    out = web_page.export_web(load_pretrained("tictactoe"), tmp_path / "ttt", ort_web=fake_ort, source="tictactoe")
    config = json.loads((out / "config.json").read_text())
    assert config["game"] == {"name": "tictactoe"} and config["style"]["pieces"] == "mark"
    assert config["title"] == "tictactoe" and (out / "model.onnx").read_bytes() == b"onnx"


def test_a_second_export_replaces_the_first_and_leaves_nothing_beside_it(tmp_path, fake_ort, monkeypatch):
    from alphazero_lib.pretrained import load_pretrained

    model = load_pretrained("tictactoe")
    monkeypatch.setattr(web_page, "onnx_bytes", lambda model: b"first")
    out = web_page.export_web(model, tmp_path / "page", ort_web=fake_ort)
    monkeypatch.setattr(web_page, "onnx_bytes", lambda model: b"second")
    web_page.export_web(model, out, ort_web=fake_ort, num_searches=7)
    assert (out / "model.onnx").read_bytes() == b"second"
    assert json.loads((out / "config.json").read_text())["searches"] == 7
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ort", "page"]  # no temporary folder left


def test_a_failed_export_leaves_the_earlier_page_as_it_was(tmp_path, fake_ort, monkeypatch):
    from alphazero_lib.pretrained import load_pretrained

    model = load_pretrained("tictactoe")
    monkeypatch.setattr(web_page, "onnx_bytes", lambda model: b"first")
    out = web_page.export_web(model, tmp_path / "page", ort_web=fake_ort)
    monkeypatch.setattr(web_page.shutil, "copyfile", lambda *args: (_ for _ in ()).throw(OSError(28, "No space")))
    with pytest.raises(OSError, match="No space"):
        web_page.export_web(model, out, ort_web=fake_ort)
    assert (out / "model.onnx").read_bytes() == b"first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ort", "page"]


def test_a_folder_of_other_files_and_a_file_are_refused(tmp_path, fake_ort, capsys):
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    code, _, err = run_cli(capsys, web("tictactoe", other, fake_ort))
    assert code == 2 and "holds other files" in err and (other / "notes.txt").read_text() == "keep me"
    (tmp_path / "file").write_text("x")
    code, _, err = run_cli(capsys, ["export-web", "--weights", "tictactoe", "--out", str(tmp_path / "file")])
    assert code == 2 and "is a file" in err


def test_without_onnxruntime_web_the_error_gives_the_npm_command(tmp_path, capsys):
    empty = tmp_path / "nothing"
    code, _, err = run_cli(capsys, web("tictactoe", tmp_path / "p", empty))
    assert code == 2 and npm_command(empty) in err and "ort-wasm-simd-threaded.wasm" in err
    assert not (tmp_path / "p").exists()


def test_the_package_data_carries_every_page_file():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11's")
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["alphazero_lib"]
    files = [p.relative_to(ROOT / "alphazero_lib").as_posix() for p in STATIC_DIR.iterdir()]
    assert sorted(files) == sorted(f"web/static/{name}" for name in PAGE_FILES)
    assert [f for f in files if not any(fnmatch.fnmatch(f, g) for g in globs)] == []


# ---- the errors are export-kaggle's ------------------------------------------------------------------------------
def bad_checkpoints(folder: Path) -> dict[str, Path]:
    """Connect Four checkpoints that must be refused: another architecture, damaged, non-finite."""
    checkpoint = load_checkpoint(pretrained_path("connect_four_fast"))
    wrong_arch = save_checkpoint(folder / "arch.pt", {**checkpoint, "arch": {"num_res_blocks": 5, "num_hidden": 64}})
    data = pretrained_path("connect_four_fast").read_bytes()
    damaged = folder / "damaged.pt"
    damaged.write_bytes(data[: len(data) // 2])
    state = dict(checkpoint["model"])
    state["back_bone.0.conv1.weight"] = state["back_bone.0.conv1.weight"].clone()
    state["back_bone.0.conv1.weight"][0, 0, 0, 0] = float("inf")
    non_finite = save_checkpoint(folder / "inf.pt", {**checkpoint, "model": state})
    return {"another architecture": wrong_arch, "damaged": damaged, "non-finite": non_finite}


def test_bad_checkpoints_get_the_same_errors_as_export_kaggle(tmp_path, fake_ort, capsys):
    expected = {"another architecture": "do not fit a model", "damaged": "damaged or truncated", "non-finite": "NaN or"}
    for what, path in bad_checkpoints(tmp_path).items():
        exported = run_cli(capsys, web(str(path), tmp_path / "web", fake_ort))
        kaggle = run_cli(capsys, ["export-kaggle", "--weights", str(path), "--out", str(tmp_path / "sub.py")])
        assert exported[0] == kaggle[0] == 2 and exported[2] == kaggle[2], what
        assert expected[what] in exported[2], (what, exported[2])
    assert not (tmp_path / "web").exists() and not (tmp_path / "sub.py").exists()


def test_another_game_is_refused_by_name(tmp_path, fake_ort, capsys):
    code, _, err = run_cli(capsys, web("othello6", tmp_path / "o", fake_ort))
    assert code == 2 and "Connect Four and Tic-Tac-Toe, not Othello(size=6)" in err
    assert not (tmp_path / "o").exists()


# ---- search.js against AlphaMCTS -------------------------------------------------------------------------------
class FakeNetwork:
    """A network whose outputs are exact in float32 and float64 (quarters), so that JavaScript computes the same bits:
    logits from the mover's pieces minus the opponent's in each action's column (Connect Four) or row (Tic-Tac-Toe),
    a value from the piece count. Many ties: the tie-breaks are put to the test."""

    def __init__(self, game) -> None:
        self.game = game

    def evaluate(self, encoded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows, columns = encoded.shape[-2:]
        balance = encoded[:, 2] - encoded[:, 0]  # [B, R, C]
        if self.game.action_size == columns:  # Connect Four: per column
            logits = 0.25 * balance.sum(axis=1) + 0.125 * (np.arange(columns) % 3)
        else:  # Tic-Tac-Toe: per cell, its row's balance
            logits = np.repeat(0.25 * balance.sum(axis=2), columns, axis=1) + 0.125 * (np.arange(rows * columns) % 2)
        pieces = (encoded[:, 0] + encoded[:, 2]).sum(axis=(1, 2))
        values = 0.25 * (pieces % 5 - 2)
        return logits.astype(np.float32), values.astype(np.float32)


FAKE_NETWORK_JS = """
function fakeEvaluate(game, encoded, batch) {
  const n = game.cells, A = game.actionSize, logits = new Float32Array(batch * A), values = new Float32Array(batch);
  for (let b = 0; b < batch; b++) {
    const o = b * 3 * n, balance = (i) => encoded[o + 2 * n + i] - encoded[o + i];
    let pieces = 0;
    for (let i = 0; i < n; i++) pieces += encoded[o + i] + encoded[o + 2 * n + i];
    values[b] = 0.25 * ((pieces % 5) - 2);
    for (let a = 0; a < A; a++) {
      let sum = 0;
      const row = Math.floor(a / game.columns);
      if (game.drop) for (let r = 0; r < game.rows; r++) sum += balance(r * game.columns + a);
      else for (let c = 0; c < game.columns; c++) sum += balance(row * game.columns + c);
      logits[b * A + a] = 0.25 * sum + 0.125 * (a % (game.drop ? 3 : 2));
    }
  }
  return { logits, values };
}
"""


def js_searches(config: dict, states: np.ndarray, searches: int, C: float) -> list[dict]:
    """search.js's results for canonical ``states``, run in Node.js with the fake network."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = (
        f"import {{ makeGame, runSearches }} from {json.dumps((STATIC_DIR / 'search.js').as_uri())};\n"
        + FAKE_NETWORK_JS
        + "const input = JSON.parse(require_stdin());\n"
    )
    script = script.replace(
        "const input = JSON.parse(require_stdin());\n",
        "import { readFileSync } from 'node:fs';\nconst input = JSON.parse(readFileSync(0, 'utf8'));\n"
        "const game = makeGame(input.config);\n"
        "const states = input.states.map((s) => Int8Array.from(s));\n"
        "const results = await runSearches(game, states, input.searches, input.C, "
        "async (e, b) => fakeEvaluate(game, e, b));\n"
        "console.log(JSON.stringify(results.map((r) => ({ visits: r.visits, action: r.action }))));\n",
    )
    payload = {"config": config, "states": [s.reshape(-1).tolist() for s in states], "searches": searches, "C": C}
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], input=json.dumps(payload), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def random_positions(game, count: int, seed: int) -> np.ndarray:
    """Canonical live positions from seeded random games (some one move from the end)."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state, player = game.get_initial_state(), 1
        for _ in range(int(rng.integers(0, game.action_size * 3))):
            action = int(rng.choice(np.flatnonzero(game.get_valid_moves(state))))
            following = game.get_next_state(state, action, player)
            if game.get_value_and_terminated(following, action)[1]:
                break
            state, player = following, -player
        found.append(game.change_perspective(state, player))
    return np.stack(found)


@pytest.mark.parametrize("name", ["connect_four", "tictactoe"])
@pytest.mark.parametrize("searches", [1, 30, 200])
def test_search_js_gives_alpha_mcts_visits_and_move(name, searches):
    game = make_game(name)
    states = random_positions(game, 40, seed=searches)
    fake = FakeNetwork(game)
    results = js_searches(dict(game.config), states, searches, C=1.5)
    for state, result in zip(states, results, strict=True):
        mcts = AlphaMCTS(game, fake, SearchConfig(num_searches=searches, C=1.5, seed=0))
        visits = np.rint(mcts.search(state) * searches).astype(int)
        assert result["visits"] == visits.tolist(), (state.tolist(), result, visits)
        assert result["action"] == int(mcts.last_output.action)
