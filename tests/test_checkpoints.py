"""Checkpoints: round trips, and a clear error for every way a file can be wrong."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from alphazero_lib import make_game
from alphazero_lib.checkpoints import (
    FORMAT_VERSION,
    CheckpointError,
    load_checkpoint,
    load_model,
    make_checkpoint,
    save_checkpoint,
)
from alphazero_lib.config import TrainConfig
from alphazero_lib.model import ResNet
from alphazero_lib.training import build_trainer

TTT, C4 = make_game("tictactoe"), make_game("connect_four")


@pytest.fixture
def ttt_checkpoint(tmp_path):
    """A Tic-Tac-Toe checkpoint of a tiny freshly built trainer, and the trainer."""
    config = TrainConfig(num_res_blocks=1, num_hidden=8, device="cpu")
    trainer = build_trainer(make_game("tictactoe"), config, progress=False)
    path = save_checkpoint(tmp_path / "ttt.pt", trainer.state.checkpoint(trainer.game, trainer.config))
    return path, trainer


def test_round_trip_gives_the_same_network(ttt_checkpoint):
    path, trainer = ttt_checkpoint
    model = load_model(path)
    assert not model.training and repr(model.game) == "TicTacToe" and model.arch == trainer.model.arch
    encoded = model.game.get_encoded_state(np.stack([model.game.get_initial_state()] * 2))
    np.testing.assert_allclose(model.predict(encoded)[0], trainer.model.predict(encoded)[0], rtol=1e-6)
    checkpoint = torch.load(path, weights_only=True)  # plain data only
    assert checkpoint["format_version"] == FORMAT_VERSION
    assert checkpoint["game"] == {"name": "tictactoe"} and checkpoint["game_repr"] == "TicTacToe"
    assert TrainConfig.from_dict(checkpoint["train_config"]) == trainer.config
    assert {"model", "optimizer", "arch", "iteration", "history"} <= set(checkpoint)


def test_subnormal_weights_are_zeroed_on_loading_and_the_outputs_stay(ttt_checkpoint, tmp_path):
    # weight decay leaves unused channels' weights in the subnormal range, where CPU arithmetic is 10x slower
    path, _ = ttt_checkpoint
    checkpoint = torch.load(path, weights_only=True)
    weight = checkpoint["model"]["start_block.0.weight"]
    tiny = torch.finfo(torch.float32).tiny
    weight.view(-1)[:5] = torch.tensor([tiny / 2, -tiny / 8, 1e-44, tiny, -tiny])  # three subnormal, two normal
    stored = save_checkpoint(tmp_path / "subnormal.pt", checkpoint)
    reference = ResNet(make_game("tictactoe"), **checkpoint["arch"]).eval()
    reference.load_state_dict(checkpoint["model"])
    model = load_model(stored)
    assert model.state_dict()["start_block.0.weight"].view(-1)[:5].tolist() == [0.0, 0.0, 0.0, tiny, -tiny]
    small = [(t.abs() < tiny) & (t != 0) for t in model.state_dict().values() if t.is_floating_point()]
    assert not any(bool(s.any()) for s in small)
    encoded = model.game.get_encoded_state(np.stack([model.game.get_initial_state()] * 2))
    for ours, theirs in zip(model.predict(encoded), reference.predict(encoded), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)


def test_loading_connect_four_weights_into_tictactoe_says_so(tmp_path):
    c4 = make_game("connect_four")
    path = save_checkpoint(tmp_path / "c4.pt", make_checkpoint(ResNet(c4, 1, 8), c4))
    expected = re.escape("weights are for ConnectFour(rows=6, columns=7, in_a_row=4), not TicTacToe")
    with pytest.raises(CheckpointError, match=expected):
        load_model(path, make_game("tictactoe"))
    assert repr(load_model(path).game) == "ConnectFour(rows=6, columns=7, in_a_row=4)"


def test_same_board_other_rules_is_refused(tmp_path):
    """Five in a row on the standard 6 x 7 board: the same tensors fit, but the rules differ, so loading says so."""
    five = make_game("connect_four", in_a_row=5)
    path = save_checkpoint(tmp_path / "five.pt", make_checkpoint(ResNet(five, 1, 8), five))
    expected = re.escape(
        "weights are for ConnectFour(rows=6, columns=7, in_a_row=5), not ConnectFour(rows=6, columns=7, in_a_row=4)"
    )
    with pytest.raises(CheckpointError, match=expected):
        load_model(path, make_game("connect_four"))
    assert load_model(path).game.in_a_row == 5  # without a game, the stored rules are rebuilt


def test_architecture_mismatch(ttt_checkpoint):
    path, _ = ttt_checkpoint
    game = make_game("tictactoe")
    with pytest.raises(CheckpointError, match=r"do not fit a model with architecture \{'num_res_blocks': 2"):
        load_model(path, game, model=ResNet(game, 2, 8))
    checkpoint = torch.load(path, weights_only=True)
    checkpoint["arch"] = {"num_res_blocks": 1, "num_hidden": 16}  # a file whose arch and weights disagree
    save_checkpoint(path, checkpoint)
    with pytest.raises(CheckpointError, match="state_dict mismatch"):
        load_model(path)


def test_damaged_truncated_and_foreign_files(ttt_checkpoint, tmp_path):
    path, _ = ttt_checkpoint
    data = path.read_bytes()
    truncated = tmp_path / "cut.pt"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="damaged or truncated"):
        load_model(truncated)
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"this is not a torch file")
    with pytest.raises(CheckpointError, match="damaged or truncated"):
        load_model(garbage)
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, other)
    with pytest.raises(CheckpointError, match="not an alphazero_lib checkpoint"):
        load_model(other)


def test_missing_file_names_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "nowhere.pt"))):
        load_model(tmp_path / "nowhere.pt")


def test_unknown_format_version(ttt_checkpoint):
    path, _ = ttt_checkpoint
    checkpoint = torch.load(path, weights_only=True)
    checkpoint["format_version"] = 99
    save_checkpoint(path, checkpoint)
    with pytest.raises(CheckpointError, match="format version 99; this alphazero_lib reads version 1"):
        load_checkpoint(path)


class NotPlainData:
    """An object ``weights_only`` loading must refuse."""


def test_objects_beyond_plain_data_are_refused(tmp_path):
    path = tmp_path / "pickled.pt"
    torch.save({"kind": "alphazero_lib checkpoint", "format_version": 1, "thing": NotPlainData()}, path)
    with pytest.raises(CheckpointError, match="refusing to unpickle"):
        load_checkpoint(path)


def test_save_is_atomic_and_leaves_no_temporary_files(ttt_checkpoint, tmp_path):
    path, trainer = ttt_checkpoint
    save_checkpoint(path, trainer.state.checkpoint(trainer.game, trainer.config))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ttt.pt"]


def test_dead_channels_are_the_convolution_outputs_with_no_weight_left():
    from alphazero_lib.checkpoints import dead_channels

    model = ResNet(make_game("tictactoe"), 2, 8, device="cpu")
    convolutions = [m for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    total = sum(m.out_channels for m in convolutions)
    assert dead_channels(model) == (0, total)
    with torch.no_grad():
        convolutions[1].weight[3] = 1e-39  # subnormal: dead too
        convolutions[1].weight[5] = 0.0
        convolutions[2].weight[0] = 0.0
        convolutions[2].weight[0, 4, 1, 1] = 0.01  # one weight left: it still sees the position
    assert dead_channels(model) == (2, total)


# Issue 52, item 6: a pickle whose __reduce__ runs a command (it would touch PWNED), written as a raw pickle of
# protocol 4, on which torch also warns about the protocol. argv: the file to write, PWNED.
EVIL_PICKLE = """
import os, pickle, sys

class Payload:
    def __reduce__(self):
        return (os.system, ("touch " + sys.argv[2],))

with open(sys.argv[1], "wb") as fh:
    pickle.dump({"kind": "alphazero_lib checkpoint", "format_version": 1, "model": Payload()}, fh, protocol=4)
"""

# The shipped-weights path: a registry (in a copy of the package's weights folder) lists the malicious file with
# its true sha256, so it passes the hash check and reaches the loader. argv: the file, then the command's args.
SHIPPED_EVIL = """
import hashlib, json, shutil, sys
from pathlib import Path
import alphazero_lib.pretrained as pretrained
from alphazero_lib.cli import main

evil = Path(sys.argv[1])
weights = evil.parent / "weights"
(weights / "evil").mkdir(parents=True)
shutil.copy(evil, weights / "evil" / "iter_0001.pt")
entry = {"game": {"name": "connect_four"}, "game_repr": "ConnectFour", "final": 1, "arch": {}}
entry["files"] = {"1": {"file": "evil/iter_0001.pt", "sha256": hashlib.sha256(evil.read_bytes()).hexdigest()}}
(weights / "registry.json").write_text(json.dumps({"evil": entry}))
pretrained.WEIGHTS_DIR, pretrained.REGISTRY_PATH = weights, weights / "registry.json"
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize(
    "path",
    ["export-kaggle", "strength", "player spec", "--resume", "shipped weights"],
)
def test_a_malicious_pickle_is_refused_on_every_load_path_without_torchs_unsafe_hint(path, tmp_path):
    """The payload never runs, our message says why, and nothing on stderr suggests weights_only=False: torch's
    refusal says that re-running with it 'will likely succeed' (which would run the payload), and it warns about the
    pickle protocol. Before, both reached the user. Real processes: the warning is what a user's terminal shows."""
    import os
    import subprocess
    import sys

    evil, pwned = tmp_path / "evil.pt", tmp_path / "PWNED"
    subprocess.run([sys.executable, "-c", EVIL_PICKLE, str(evil), str(pwned)], check=True)
    command = {
        "export-kaggle": ["export-kaggle", "--weights", str(evil), "--out", str(tmp_path / "submission.py")],
        "strength": ["strength", "--player", f"alphazero:{evil}", "--limit", "1", "--no-progress"],
        "player spec": ["arena", "--player1", f"alphazero:{evil}", "--player2", "random", "--games", "1"],
        "--resume": ["train", "--out", str(tmp_path / "run"), "--resume"],
        "shipped weights": ["arena", "--player1", "alphazero:evil", "--player2", "random", "--games", "1"],
    }[path]
    if path == "--resume":
        (tmp_path / "run").mkdir()
        evil.rename(tmp_path / "run" / "latest.pt")
    if path == "shipped weights":
        argv = [sys.executable, "-c", SHIPPED_EVIL, str(evil), *command]
    else:
        argv = [sys.executable, "-m", "alphazero_lib", *command]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONWARNINGS": "default"}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 2, done.stderr
    assert (
        "holds objects other than tensors, dicts, lists, strings and numbers, or is damaged; refusing to unpickle "
        "it" in done.stderr
    ), done.stderr
    assert "weights_only" not in done.stderr and "likely succeed" not in done.stderr, done.stderr
    assert "Warning" not in done.stderr, done.stderr
    assert not pwned.exists()


def test_the_refusal_names_the_object_a_pickle_asks_for_and_nothing_of_torchs_advice(tmp_path):
    import os

    class Payload:
        def __reduce__(self):
            return (os.system, ("true",))

    path = tmp_path / "evil.pt"
    torch.save({"kind": "alphazero_lib checkpoint", "format_version": 1, "model": Payload()}, path)
    with pytest.raises(CheckpointError) as refused:
        load_checkpoint(path)
    message = str(refused.value)
    assert (
        "numbers (it names posix.system), or is damaged; refusing to unpickle it: a checkpoint needs nothing "
        "else, and unpickling anything else can run code hidden in the file" in message
    ), message
    assert "weights_only" not in message and "likely succeed" not in message


# ---- impossible weights and records (issues 16 and 28) ---------------------------------------------------------------
def test_non_finite_weights_are_refused_at_load_and_export(tmp_path):
    model = ResNet(C4, 1, 8)
    with torch.no_grad():
        model.start_block[0].weight[0, 0, 0, 0] = float("nan")
    path = save_checkpoint(tmp_path / "nan.pt", make_checkpoint(model, C4))
    with pytest.raises(CheckpointError, match=r"parameter 'start_block.0.weight' holds NaN or infinite values"):
        load_model(path)
    from alphazero_lib.kaggle import submission_source

    with pytest.raises(CheckpointError, match="holds NaN or infinite values"):
        submission_source(model)
    with pytest.raises(ValueError, match="C must be a finite non-negative number, got nan"):
        submission_source(ResNet(C4, 1, 8), C=float("nan"))
    with pytest.raises(ValueError, match="got -1"):
        submission_source(ResNet(C4, 1, 8), C=-1)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda c: c.pop("game_repr"), "'game_repr' must be a string"),
        (lambda c: c.pop("arch"), "'arch' must be a dict"),
        (lambda c: c["arch"].update(extra=1), "'arch' must be a dict with the keys"),
        (lambda c: c["arch"].update(num_hidden="8"), r"arch\['num_hidden'\] must be a positive integer"),
        (lambda c: c.update(game=["tictactoe"]), "'game' must be a dict with a 'name'"),
        (lambda c: c.update(model=[1, 2]), "'model' must be a state_dict"),
    ],
)
def test_malformed_checkpoint_dicts_raise_checkpoint_error(tmp_path, change, message):
    checkpoint = make_checkpoint(ResNet(TTT, 1, 8), TTT)
    change(checkpoint)
    path = tmp_path / "bad.pt"
    torch.save(checkpoint, path)
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(path)
    with pytest.raises(CheckpointError):
        load_model(path)


def test_a_checkpoint_naming_an_unknown_game_is_a_checkpoint_error(tmp_path):
    checkpoint = make_checkpoint(ResNet(TTT, 1, 8), TTT)
    checkpoint["game"] = {"name": "chess"}
    torch.save(checkpoint, tmp_path / "chess.pt")
    with pytest.raises(CheckpointError, match="cannot rebuild the game"):
        load_model(tmp_path / "chess.pt")


def test_a_checkpoint_recording_a_huge_network_is_refused_before_it_is_built(tmp_path, monkeypatch):
    checkpoint = make_checkpoint(ResNet(TTT, 1, 8), TTT)
    checkpoint["arch"]["num_hidden"] = 1_000_000
    torch.save(checkpoint, tmp_path / "huge.pt")
    built = []
    monkeypatch.setattr(ResNet, "__init__", lambda *args, **kwargs: built.append(1))
    with pytest.raises(CheckpointError, match=r"records an impossible network: arch\['num_hidden'\] must be at most"):
        load_model(tmp_path / "huge.pt")
    assert not built


def test_a_checkpoint_with_negative_batchnorm_variances_is_refused(tmp_path):
    from alphazero_lib.checkpoints import save_checkpoint

    model = ResNet(TTT, 1, 8)
    with torch.no_grad():
        model.back_bone[0].bn1.running_var[3] = -0.5
    path = save_checkpoint(tmp_path / "negative.pt", make_checkpoint(model, TTT))
    with pytest.raises(CheckpointError, match=r"'back_bone.0.bn1.running_var' holds negative variances, which no"):
        load_model(path)
