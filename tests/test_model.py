"""The ResNet: shapes for every game, the numpy helper, its summary and the checks on its arguments."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from alphazero_lib import make_game
from alphazero_lib.games import GAMES
from alphazero_lib.model import ResNet

C4 = make_game("connect_four")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_forward_shapes_and_value_range(name):
    game = make_game(name)
    model = ResNet(game, num_res_blocks=2, num_hidden=16)
    x = torch.randn(5, 3, game.row_count, game.column_count)
    logits, value = model(x)
    assert logits.shape == (5, game.action_size)
    assert value.shape == (5, 1)
    assert torch.all(value.abs() <= 1)


def test_predict_takes_numpy_batches_and_single_states():
    game = make_game("tictactoe")
    torch.manual_seed(0)
    model = ResNet(game, 1, 8)
    states = np.stack([game.get_initial_state(), game.get_next_state(game.get_initial_state(), 4, 1)])
    encoded = game.get_encoded_state(states)
    logits, values = model.predict(encoded)
    assert logits.shape == (2, 9) and values.shape == (2,)
    assert logits.dtype == np.float32
    single_logits, single_values = model.predict(encoded[1])
    np.testing.assert_allclose(single_logits[0], logits[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(single_values[0], values[1], rtol=1e-5, atol=1e-6)
    assert not model.training  # predict runs in eval mode
    with pytest.raises(ValueError, match=r"expected encoded states \[B, 3, R, C\]"):
        model.predict(np.zeros((2, 3, 6, 7), dtype=np.float32))


def test_arch_and_summary_count_every_parameter():
    game = make_game("tictactoe")
    model = ResNet(game, num_res_blocks=4, num_hidden=64)
    assert model.arch == {"num_res_blocks": 4, "num_hidden": 64}
    assert len(model.back_bone) == 4
    total = sum(p.numel() for p in model.parameters())
    assert total == model.num_parameters() == 321_262  # the course's Tic-Tac-Toe network
    summary = model.summary()
    assert f"{total:,}" in summary and "4 blocks x 64 channels" in summary


@pytest.mark.parametrize("kwargs", [{"num_res_blocks": 0}, {"num_hidden": -3}, {"num_hidden": True}])
def test_bad_sizes_are_clear_errors(kwargs):
    with pytest.raises(ValueError, match="must be a positive integer"):
        ResNet(make_game("tictactoe"), **{"num_res_blocks": 1, "num_hidden": 8, **kwargs})


def test_a_network_too_large_for_memory_is_refused_before_allocation(monkeypatch):
    import alphazero_lib.model as model

    assert model.resnet_parameters(C4, 100, 2048) == 7_551_692_207  # 30 GB: refused by the real cap
    monkeypatch.setattr(model, "MAX_PARAMETERS", 100_000)  # a cap that a small network passes, to plant safely
    with pytest.raises(ValueError, match=r"4 blocks x 64 channels .* would have 328,175 parameters \(0.0 GB .*at most"):
        ResNet(C4, 4, 64)
    assert ResNet(C4, 1, 8).num_parameters() == model.resnet_parameters(C4, 1, 8)
