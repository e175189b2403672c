"""Training in bfloat16 (``TrainConfig.train_precision``): the steps it takes, the network it gives back, and
``"auto"``'s choice recorded in the run (its flag and its resume: ``test_targets``'s FLAGS)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch
from test_training import random_memory, tiny_trainer

from alphazero_lib import make_game
from alphazero_lib.model import ResNet
from alphazero_lib.training import train_epoch


def two_epochs(precision: str):
    """A fresh small network and Adam, one epoch in fp32 and the copy's in ``precision``, on the same batches."""
    game = make_game("connect_four")
    memory = random_memory(game, 96)
    torch.manual_seed(0)
    model = ResNet(game, 1, 16)
    other = copy.deepcopy(model)
    losses = train_epoch(model, torch.optim.Adam(model.parameters(), 1e-3), memory, 32, np.random.default_rng(1))
    optimizer = torch.optim.Adam(other.parameters(), 1e-3)
    other_losses = train_epoch(other, optimizer, memory, 32, np.random.default_rng(1), precision=precision)
    return model, losses, other, other_losses


def test_bf16_steps_round_differently_but_learn_the_same_losses():
    model, losses, bf16, bf16_losses = two_epochs("bf16")
    for name in ("policy_loss", "value_loss"):
        assert bf16_losses[name] == pytest.approx(losses[name], rel=0.02)
    moved = [float((a - b).detach().abs().max()) for a, b in zip(model.parameters(), bf16.parameters(), strict=True)]
    assert max(moved) > 1e-5  # the forward passes did run in bfloat16 (fp32 twice gives the same weights)
    assert max(moved) < 0.05  # ... and took the same kind of steps


def test_the_network_comes_back_float32_in_the_usual_layout():
    _, _, bf16, _ = two_epochs("bf16")
    for name, tensor in bf16.state_dict().items():
        assert tensor.dtype != torch.bfloat16, name
        assert tensor.is_contiguous(), f"{name} is left in channels-last memory"


def test_fp32_twice_takes_the_same_steps():
    model, losses, other, other_losses = two_epochs("fp32")
    assert losses == other_losses
    for a, b in zip(model.parameters(), other.parameters(), strict=True):
        assert torch.equal(a, b)


def test_an_unknown_precision_is_refused_with_the_choices():
    game = make_game("tictactoe")
    model = ResNet(game, 1, 8)
    with pytest.raises(ValueError, match=r"precision must be one of \['fp32', 'bf16'\], got 'fp16'"):
        train_epoch(model, torch.optim.Adam(model.parameters()), random_memory(game, 8), 4, precision="fp16")


@pytest.mark.parametrize(("fast", "chosen"), [(True, "bf16"), (False, "fp32")])
def test_auto_trains_in_bf16_only_where_it_runs_fast_and_records_the_choice(tmp_path, monkeypatch, fast, chosen):
    from alphazero_lib import inference, training

    monkeypatch.setattr(inference, "has_fast_bf16", lambda device="cpu": fast)
    seen: list[str] = []
    epoch = training.train_epoch

    def spying(*args, precision="fp32", **kwargs):
        seen.append(precision)
        return epoch(*args, precision=precision, **kwargs)

    monkeypatch.setattr(training, "train_epoch", spying)
    trainer = tiny_trainer(tmp_path / "run", train_precision="auto", num_epochs=1)
    trainer.learn()
    assert seen == [chosen]
    saved = json.loads((tmp_path / "run" / "config.json").read_text())["train_config"]
    assert saved["train_precision"] == chosen


def test_the_5x128_preset_is_the_recorded_17_minute_run():
    """``connect_four_fast_5x128`` replays the run the README reports (its config.json), but for the two
    settings that run's "auto" resolved on its machine."""
    from pathlib import Path

    from alphazero_lib.config import TrainConfig

    record = Path(__file__).parents[1] / "benchmarks/results/learning_curve_2026-11-25-xeon"
    saved = json.loads((record / "5x128_s64_bf16_seed0_config.json").read_text())["train_config"]
    recorded = TrainConfig.from_dict(saved).to_dict()  # read as a resume reads it: later fields at their defaults
    preset = TrainConfig.from_preset("connect_four_fast_5x128").to_dict()
    assert (preset["inference_mode"], preset["train_precision"]) == ("auto", "auto")
    assert (recorded["inference_mode"], recorded["train_precision"]) == ("bf16_fused", "bf16")
    same = ("inference_mode", "train_precision")
    assert {k: v for k, v in preset.items() if k not in same} == {k: v for k, v in recorded.items() if k not in same}
