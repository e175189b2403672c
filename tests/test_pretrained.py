"""The registry of shipped weights: publish, resolve by name, verify sha256, clear errors."""

from __future__ import annotations

import pytest
import torch

from alphazero_lib import make_game, make_player
from alphazero_lib import pretrained as pt
from alphazero_lib.checkpoints import make_checkpoint, save_checkpoint
from alphazero_lib.model import ResNet


@pytest.fixture
def registry_dir(tmp_path, monkeypatch):
    """An empty registry in a temporary folder instead of the package's."""
    monkeypatch.setattr(pt, "WEIGHTS_DIR", tmp_path / "weights")
    monkeypatch.setattr(pt, "REGISTRY_PATH", tmp_path / "weights" / "registry.json")
    pt._verified.clear()
    return tmp_path


def training_checkpoint(tmp_path, game, iteration, seed=0):
    torch.manual_seed(seed)
    model = ResNet(game, 1, 8)
    optimizer = torch.optim.Adam(model.parameters())
    path = tmp_path / f"run_iter{iteration}.pt"
    save_checkpoint(path, make_checkpoint(model, game, optimizer=optimizer.state_dict(), iteration=iteration))
    return path, model


def test_publish_then_load_by_name_and_iteration(registry_dir):
    game = make_game("tictactoe")
    models = {}
    for iteration in (1, 2):
        path, models[iteration] = training_checkpoint(registry_dir, game, iteration, seed=iteration)
        pt.publish(path, "tictactoe", iteration)
    assert pt.available() == {"tictactoe": [1, 2]}
    final = pt.load_pretrained("tictactoe")
    first = pt.load_pretrained("tictactoe", iteration=1)
    for loaded, original in ((final, models[2]), (first, models[1])):
        for key, value in original.state_dict().items():
            assert torch.equal(loaded.state_dict()[key], value)
    shipped = torch.load(pt.pretrained_path("tictactoe", 1), weights_only=True)
    assert "optimizer" not in shipped and shipped["iteration"] == 1  # trimmed for shipping
    # the player spec language resolves registry names, with @iteration
    player = make_player(game, "alphazero:tictactoe@1:10", seed=0)
    assert player.get_action(game.get_initial_state(), 1) in range(9)


def test_unknown_names_and_iterations_are_clear_errors(registry_dir):
    game = make_game("tictactoe")
    path, _ = training_checkpoint(registry_dir, game, 1)
    pt.publish(path, "tictactoe", 1)
    with pytest.raises(ValueError, match=r"no shipped weights named 'chess'; shipped: \['tictactoe'\]"):
        pt.pretrained_path("chess")
    with pytest.raises(ValueError, match=r"'tictactoe' has no iteration 7; shipped iterations: \[1\]"):
        pt.pretrained_path("tictactoe", 7)
    with pytest.raises(FileNotFoundError, match="neither a file nor shipped weights"):
        make_player(game, "alphazero:nothing_here.pt")
    with pytest.raises(ValueError, match="weights are for TicTacToe"):
        make_player(make_game("connect_four"), "alphazero:tictactoe")


def test_altered_or_missing_files_are_refused(registry_dir):
    game = make_game("tictactoe")
    path, _ = training_checkpoint(registry_dir, game, 1)
    target = pt.publish(path, "tictactoe", 1)
    data = bytearray(target.read_bytes())
    data[-10] ^= 0xFF
    target.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="altered or damaged: sha256"):
        pt.load_pretrained("tictactoe")
    target.unlink()
    with pytest.raises(FileNotFoundError, match="are missing"):
        pt.load_pretrained("tictactoe")


def test_publish_refuses_mixing_games_under_one_name(registry_dir):
    path, _ = training_checkpoint(registry_dir, make_game("tictactoe"), 1)
    pt.publish(path, "mine", 1)
    other, _ = training_checkpoint(registry_dir, make_game("connect_four"), 2)
    with pytest.raises(ValueError, match="holds weights for TicTacToe"):
        pt.publish(other, "mine", 2)


def test_every_shipped_file_is_present_and_intact():
    shipped = pt.available()
    assert "tictactoe" in shipped
    for name, iterations in shipped.items():
        for iteration in iterations:
            path = pt.pretrained_path(name, iteration)  # checks the sha256
            assert path.is_relative_to(pt.WEIGHTS_DIR)


def test_shipped_tictactoe_blocks_and_wins():
    import numpy as np

    game = make_game("tictactoe")
    player = make_player(game, "alphazero:tictactoe:50", seed=0)
    win = np.array([[1, 1, 0], [-1, -1, 0], [0, 0, 0]], dtype=np.int8)
    assert player.get_action(win, 1) == 2
    block = np.array([[-1, 0, 1], [0, 1, 0], [-1, 0, 0]], dtype=np.int8)
    assert player.get_action(block, 1) == 3


@pytest.mark.parametrize(
    "text, message",
    [
        ("[1, 2]", "must hold a JSON object \\(name -> entry\\), not a list"),
        ("{oops", "is not valid JSON"),
        ('{"tictactoe": {"files": 3}}', "has a malformed entry 'tictactoe'"),
    ],
)
def test_a_damaged_weights_registry_is_named_with_the_fix(tmp_path, monkeypatch, one_line_error, text, message):
    import alphazero_lib.pretrained as pretrained

    registry = tmp_path / "registry.json"
    registry.write_text(text)
    monkeypatch.setattr(pretrained, "REGISTRY_PATH", registry)
    with pytest.raises(ValueError, match=message):
        pretrained.available()
    err = one_line_error(["demo", "--game", "tictactoe", "--player1", "alphazero:tictactoe:4"])
    assert f"the weights registry {registry}" in err and "reinstall the package" in err


def test_a_file_named_like_shipped_weights_does_not_shadow_them(tmp_path, monkeypatch, capsys):
    from alphazero_lib.pretrained import pretrained_path
    from alphazero_lib.specs import resolve_weights

    monkeypatch.chdir(tmp_path)
    (tmp_path / "tictactoe").write_bytes(b"not a checkpoint at all")
    model = resolve_weights(make_game("tictactoe"), "tictactoe")
    assert repr(model.game) == "TicTacToe"
    assert pretrained_path("tictactoe").is_file()
    # a path that says it is a path is still read as a file
    with pytest.raises(ValueError, match="is damaged"):
        resolve_weights(make_game("tictactoe"), "./tictactoe")
