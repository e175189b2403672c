"""The CUDA path: self-play, training, checkpoints, the network and the capstone with the network on a GPU.

Skipped without a CUDA GPU (CI has none). On a GPU machine: ``python -m pytest tests/test_gpu.py -n 0``.
``ALPHAZERO_TEST_DEVICE=cpu`` runs the same tests with the CPU in the GPU's place: a dry run of the tests' own
logic before a GPU is at hand (the tests that cross between devices then cross nothing).
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch
from positions import encoded_positions

from alphazero_lib import make_game
from alphazero_lib.cli import main
from alphazero_lib.config import TrainConfig
from alphazero_lib.inference import MODES, FastEvaluator, evaluate, has_fast_bf16
from alphazero_lib.model import ResNet
from alphazero_lib.selfplay import BatchedSelfPlay
from alphazero_lib.utils import seed_everything

GPU = os.environ.get("ALPHAZERO_TEST_DEVICE", "cuda")
pytestmark = pytest.mark.skipif(
    GPU.startswith("cuda") and not torch.cuda.is_available(),
    reason="needs a CUDA GPU (torch.cuda.is_available() is False)",
)

#: A run small enough for seconds: Connect Four on a 2 x 16 network, a few searches and games.
TINY = dict(
    num_res_blocks=2,
    num_hidden=16,
    num_searches=8,
    games_per_iteration=8,
    num_iterations=1,
    num_epochs=1,
    batch_size=32,
)


def network(game, seed: int = 0, blocks: int = 2, hidden: int = 32) -> ResNet:
    seed_everything(seed)
    return ResNet(game, blocks, hidden).eval()


# ---- the network --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [m for m in MODES if m not in ("onnx", "compile")])
def test_the_gpu_forward_agrees_with_the_cpu_forward(mode):
    """Every inference mode batched self-play can use on the GPU gives the CPU's float32 logits and values: fp32
    within TF32's error (PyTorch lets cuDNN's convolutions use TF32 by default), bf16 within bfloat16's."""
    if mode.startswith("bf16") and not has_fast_bf16(GPU):
        pytest.skip(f"{GPU} has no fast bfloat16")
    game = make_game("connect_four")
    cpu_model = network(game, blocks=4, hidden=64)
    encoded = encoded_positions(game, 64)
    logits, values = evaluate(cpu_model, encoded)
    gpu_model = network(game, blocks=4, hidden=64).to(GPU)
    fast = FastEvaluator(gpu_model, mode, batch_size=64, cache_dir=None)
    assert fast.device.type == torch.device(GPU).type
    gpu_logits, gpu_values = fast.evaluate(encoded)
    tolerance = 5e-2 if mode.startswith("bf16") else 5e-3
    np.testing.assert_allclose(gpu_logits, logits, atol=tolerance * max(1.0, np.abs(logits).max()))
    np.testing.assert_allclose(gpu_values, values, atol=tolerance)
    # the plain path, as the serial search calls it, on the GPU's model
    plain_logits, plain_values = evaluate(gpu_model, encoded)
    np.testing.assert_allclose(plain_logits, logits, atol=5e-3 * max(1.0, np.abs(logits).max()))
    np.testing.assert_allclose(plain_values, values, atol=5e-3)


def test_fp32_on_the_gpu_is_exact_without_tf32():
    """With TF32 off, the GPU's float32 forward is the CPU's up to float32 rounding (what differs with TF32 on is
    TF32's 10-bit mantissa, not the code)."""
    game = make_game("connect_four")
    encoded = encoded_positions(game, 32, seed=1)
    logits, values = evaluate(network(game), encoded)
    saved = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    try:
        gpu_logits, gpu_values = evaluate(network(game).to(GPU), encoded)
    finally:
        torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = saved
    np.testing.assert_allclose(gpu_logits, logits, atol=1e-4)
    np.testing.assert_allclose(gpu_values, values, atol=1e-4)


# ---- self-play ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["puct", "gumbel"])
def test_batched_self_play_on_the_gpu(policy):
    """Batched self-play (the trainers' own) with the network on the GPU: games finish, and every sample is a
    legal position, a distribution over its legal moves and a game result."""
    game = make_game("connect_four")
    preset = {"puct": "connect_four_small", "gumbel": "connect_four_fast"}[policy]
    config = TrainConfig.from_preset(preset, num_searches=16, num_res_blocks=2, num_hidden=32, device=GPU)
    assert config.search.policy == policy
    fast = FastEvaluator(network(game).to(GPU), "fp32_fused", batch_size=32, cache_dir=None)
    self_play = BatchedSelfPlay(game, fast, config, 32, (0,), total=32)
    while not self_play.done:
        self_play.step()
    assert self_play.games.games == 32
    assert self_play.mcts.stats.network_calls > 0
    assert len(self_play.samples) >= 32 * 7  # a Connect Four game lasts 7 moves at least
    for encoded, policy_target, value in self_play.samples:
        empty = encoded[1].reshape(-1)
        legal = empty.reshape(game.row_count, game.column_count)[0] == 1  # the top row's empty cells
        assert policy_target.sum() == pytest.approx(1.0, abs=1e-5)
        assert np.all(policy_target[~legal] == 0)
        assert -1.0 <= value <= 1.0


# ---- training, checkpoints -----------------------------------------------------------------------------------
def train_command(tmp_path, out, device, self_play="batched", iterations=1, resume=False):
    config = tmp_path / f"tiny_{device}.json"
    config.write_text(json.dumps({**TINY, "device": device, "self_play": self_play, "num_parallel_games": 8}))
    argv = ["train", "--game", "connect_four", "--out", str(out), "--config", str(config), "--no-progress"]
    argv += ["--iterations", str(iterations)] + (["--resume"] if resume else [])
    return main(argv)


@pytest.mark.parametrize("self_play", ["serial", "batched"])
def test_a_training_iteration_on_the_gpu(tmp_path, self_play, capsys):
    """``train`` with the network on the GPU: the weights move, the losses are finite, the checkpoint is written
    with every tensor on the CPU (so that any machine can open it)."""
    from alphazero_lib.checkpoints import load_checkpoint

    out = tmp_path / "run"
    assert train_command(tmp_path, out, GPU, self_play) == 0, capsys.readouterr().err
    assert f"on {torch.device(GPU).type}" in capsys.readouterr().out
    history = json.loads((out / "history.json").read_text())
    assert len(history) == 1 and np.isfinite(history[0]["policy_loss"]) and np.isfinite(history[0]["value_loss"])
    checkpoint = load_checkpoint(out / "latest.pt", map_location=None)  # as saved: no device mapping
    tensors = [t for t in checkpoint["model"].values() if isinstance(t, torch.Tensor)]
    assert tensors and all(t.device.type == "cpu" for t in tensors)
    fresh = network(make_game("connect_four"), seed=0, blocks=2, hidden=16).state_dict()
    assert any(not torch.equal(fresh[name], tensor) for name, tensor in checkpoint["model"].items())


@pytest.mark.parametrize(("first", "then"), [(GPU, "cpu"), ("cpu", GPU)])
def test_a_run_started_on_one_device_resumes_on_the_other(tmp_path, first, then, capsys):
    """A checkpoint saved with the network on the GPU resumes on the CPU, and the reverse: Adam's moments follow
    the network, and the resumed iteration trains there."""
    from alphazero_lib.checkpoints import load_model

    out = tmp_path / "run"
    assert train_command(tmp_path, out, first) == 0, capsys.readouterr().err
    assert train_command(tmp_path, out, then, iterations=2, resume=True) == 0, capsys.readouterr().err
    history = json.loads((out / "history.json").read_text())
    assert [record["iteration"] for record in history] == [1, 2]
    assert all(np.isfinite(record["policy_loss"]) for record in history)
    model = load_model(out / "latest.pt")
    assert next(model.parameters()).device.type == "cpu"
    changes = json.loads((out / "config.json").read_text()).get("changes", [])
    if first != then:
        assert {"iteration": 2, "field": "device", "old": first, "new": then} in changes


# ---- the course: notebook 5's epoch and the capstone -----------------------------------------------------------
def test_notebook_5s_epoch_on_the_gpu(home):
    """Notebook 5's ``train`` as a learner writes it (batches built on ``next(model.parameters()).device``) trains
    the capstone's network on the GPU; the same ``train`` with its batches left on the CPU fails there with the
    capstone's message naming the fix (on a CPU, ``check_train`` and the capstone's tests can only simulate this
    with PyTorch's ``meta`` device)."""
    import copy

    from test_capstone import TRAIN

    from alphazero_lib.capstone import Capstone, CapstoneSettings, load_pieces
    from alphazero_lib.exercises.nb05_self_play import library_minibatches, library_train_step

    run = Capstone(load_pieces(quiet=True), CapstoneSettings(games_per_iteration=4, searches=4, device=GPU))
    memory = [(np.zeros((3, 6, 7), np.float32), np.full(7, 1 / 7, np.float32), 1.0) for _ in range(40)]
    before = {name: p.detach().clone() for name, p in run.model.named_parameters()}
    for source, name in ((TRAIN, "on the device"), (TRAIN.replace(", device=device)", ")"), "on the CPU")):
        ns = {"np": np, "torch": torch, "minibatches": library_minibatches, "train_step": library_train_step}
        exec(source, ns)
        learner = copy.copy(run)
        learner.yours = {"train": ns["train"]}
        if name == "on the device":
            losses = learner.train_epoch(memory)
            assert np.isfinite(losses["policy_loss"]) and np.isfinite(losses["value_loss"])
            assert any(not torch.equal(before[n], p) for n, p in run.model.named_parameters())
        elif GPU != "cpu":
            with pytest.raises(RuntimeError, match=rf"your train \(notebook 5\) gave the network on {GPU}"):
                learner.train_epoch(memory)
    assert all(p.device.type == torch.device(GPU).type for p in run.model.parameters())


def test_the_capstone_trains_on_the_gpu_with_device_auto(tmp_path, home, monkeypatch):
    """Notebook 10 with ``DEVICE = "auto"`` on a GPU runtime: the network trains there, the run is saved and
    continues, and the agent and the export (which run on the CPU) take its weights."""
    from alphazero_lib.capstone import Capstone, CapstoneSettings, load_pieces

    if GPU == "cpu":
        monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # "auto" is the CPU in a dry run
    yours = load_pieces(quiet=True)
    settings = CapstoneSettings(minutes=0.0, games_per_iteration=8, searches=8, device="auto", seed=0)
    run = Capstone(yours, settings, run_dir=tmp_path / "capstone")
    assert run.device.type == torch.device(GPU).type
    assert next(run.model.parameters()).device.type == run.device.type
    history = run.run()
    assert len(history) == 1 and np.isfinite(history[0]["policy_loss"])
    again = Capstone(yours, settings, run_dir=tmp_path / "capstone")  # the notebook run again: it continues
    assert len(again.history) == 1 and again.run(minutes=0.0)[-1]["iteration"] == 2
    state = make_game("connect_four").get_initial_state()
    probs = again.search(8)(state)
    assert probs.shape == (7,) and probs.sum() == pytest.approx(1.0)
    path = again.export(tmp_path / "submission.py", searches=8)
    assert path.stat().st_size > 0
