"""The network as an ONNX file (issue 51): onnxruntime gives torch's policy and value on 1,000 positions, for every
shipped architecture and a fresh checkpoint; bad weights get export-kaggle's errors.

Needs the ``onnx`` extra (``pip install -e ".[onnx]"``: onnx, onnxscript, onnxruntime); skipped without it.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from positions import encoded_positions

from alphazero_lib.checkpoints import CheckpointError, load_model, make_checkpoint, save_checkpoint
from alphazero_lib.games import make_game
from alphazero_lib.inference import evaluate
from alphazero_lib.model import ResNet
from alphazero_lib.pretrained import load_pretrained, registry

for _module in ("onnx", "onnxscript", "onnxruntime"):
    pytest.importorskip(_module, reason=f"{_module} is not installed (pip install -e '.[onnx]')")

from alphazero_lib.web.onnx_export import OnnxNetwork, export_onnx  # noqa: E402

TOLERANCE = 1e-4
NUM_POSITIONS = 1_000


def architectures() -> list[str]:
    """One shipped name for each (game, architecture) the registry holds."""
    seen: dict[tuple[str, int, int], str] = {}
    for name, entry in sorted(registry().items()):
        key = (entry["game_repr"], entry["arch"]["num_res_blocks"], entry["arch"]["num_hidden"])
        seen.setdefault(key, name)
    return sorted(seen.values())


def largest_differences(model, path) -> tuple[float, float]:
    encoded = encoded_positions(model.game, NUM_POSITIONS)
    torch_logits, torch_values = evaluate(model, encoded)
    onnx_logits, onnx_values = OnnxNetwork(path).evaluate(encoded)
    assert onnx_logits.shape == torch_logits.shape and onnx_values.shape == torch_values.shape
    return float(np.abs(onnx_logits - torch_logits).max()), float(np.abs(onnx_values - torch_values).max())


def test_every_shipped_architecture_is_covered():
    names = architectures()
    assert {"connect_four", "tictactoe"} <= set(names) and len(names) >= 4, names


@pytest.mark.parametrize("name", architectures())
def test_onnxruntime_gives_torchs_policy_and_value(name, tmp_path):
    model = load_pretrained(name)
    path = export_onnx(model, tmp_path / "model.onnx")
    policy, value = largest_differences(model, path)
    print(f"{name} {model.arch}: largest difference over {NUM_POSITIONS} positions: policy {policy:.2e}, {value:.2e}")
    assert policy <= TOLERANCE and value <= TOLERANCE, (policy, value)


def test_a_fresh_checkpoint_in_training_mode_exports_its_eval_network(tmp_path):
    # a learner's network straight from training: BatchNorm in training mode, running statistics away from 0 and 1
    game = make_game("connect_four")
    torch.manual_seed(0)
    model = ResNet(game, num_res_blocks=2, num_hidden=16)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
    save_checkpoint(tmp_path / "fresh.pt", make_checkpoint(model, game, iteration=0))
    loaded = load_model(tmp_path / "fresh.pt")
    loaded.train()
    path = export_onnx(loaded, tmp_path / "fresh.onnx")
    assert loaded.training, "the export must leave the caller's model in the mode it found it"
    loaded.eval()
    policy, value = largest_differences(loaded, path)
    assert policy <= TOLERANCE and value <= TOLERANCE, (policy, value)


def test_a_batch_of_one_and_a_batch_of_many_agree(tmp_path):
    model = load_pretrained("tictactoe")
    network = OnnxNetwork(export_onnx(model, tmp_path / "ttt.onnx"))
    encoded = encoded_positions(model.game, 5)
    many = network.evaluate(encoded)
    one = [network.evaluate(encoded[i : i + 1]) for i in range(5)]
    assert np.abs(np.concatenate([o[0] for o in one]) - many[0]).max() <= TOLERANCE


def test_non_finite_weights_are_refused_with_the_checkpoints_error(tmp_path):
    model = load_pretrained("tictactoe")
    with torch.no_grad():
        model.back_bone[0].conv1.weight[0, 0, 0, 0] = float("nan")
    with pytest.raises(CheckpointError, match="NaN or infinite"):
        export_onnx(model, tmp_path / "bad.onnx")
    assert not (tmp_path / "bad.onnx").exists()


def test_a_folder_as_the_target_is_refused(tmp_path):
    with pytest.raises(ValueError, match="is a directory"):
        export_onnx(load_pretrained("tictactoe"), tmp_path)
