"""Issue 28 (hardening, round 2): every number has a range that fits the machine, the library validates at its
public edges, and the ConnectX adapters always play a legal column."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
import torch

from alphazero_lib import make_game
from alphazero_lib.checkpoints import CheckpointError, load_model, make_checkpoint
from alphazero_lib.cli import main
from alphazero_lib.config import SearchConfig, TrainConfig
from alphazero_lib.model import ResNet

TTT, C4, OTHELLO = make_game("tictactoe"), make_game("connect_four"), make_game("othello6")


def one_line_error(capsys, argv: list[str]) -> str:
    """Run the command line; it must fail with exit code 2 and one line on stderr (no traceback)."""
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


# ---- item 2: every number has a range that fits the machine --------------------------------------------------
@pytest.mark.parametrize(
    "argv, message",
    [
        (["bench", "selfplay", "--searches", "1000000000"], "argument --searches: must be at most 100,000 (a move"),
        (["bench", "selfplay", "--games", "1000000"], "argument --games: must be at most 16,384 (every game in flight"),
        (["bench", "selfplay", "--threads", "100000"], "argument --threads: must be at most 8 (4 x the 2 cores"),
        (["train", "--game", "tictactoe", "--out", "x", "--threads", "100000"], "must be at most 8 (4 x the 2 cores"),
        (["train", "--game", "tictactoe", "--out", "x", "--searches", "1000000000"], "at most 100,000"),
        (["train", "--game", "tictactoe", "--out", "x", "--iterations", "1000000"], "at most 100,000 (each iteration"),
        (["train", "--game", "tictactoe", "--out", "x", "--parallel-games", "10000000"], "at most 16,384"),
        (
            ["train", "--game", "tictactoe", "--out", "x", "--workers", "100000"],
            "at most 256 (each worker is a process",
        ),
        (["train", "--game", "tictactoe", "--out", "x", "--lr", "1e30"], "--lr: must be at most 1 (Adam diverges"),
        (
            ["train", "--game", "tictactoe", "--out", "x", "--seed", "12345678901234567890123"],
            "--seed: must be at most 9,223,372,036,854,775,806 (seeds are 64-bit integers for torch, and a second "
            "player gets seed + 1), got a 23-digit number",
        ),
        (["arena", "--player1", "random", "--player2", "random", "--games", "10000000"], "at most 1,000,000"),
        (["export-kaggle", "--weights", "connect_four", "--searches", "1000000000"], "--searches: must be at most"),
        (["play", "--threads", "100000"], "--threads: must be at most 8"),
    ],
)
def test_numbers_past_their_caps_are_refused_by_name_and_reason(capsys, monkeypatch, argv, message):
    import alphazero_lib.cli as cli

    monkeypatch.setattr(cli, "_cores", lambda: 2)
    assert message in one_line_error(capsys, argv)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("mcts:1000000000000", "player spec 'mcts:1000000000000': SEARCHES must be at most 100,000 (a move of"),
        ("alphazero:tictactoe:1000000000", "SEARCHES must be at most 100,000"),
        ("mc:tictactoe:10000000", "ROLLOUTS must be at most 100,000 (each is a whole random game)"),
    ],
)
def test_demo_with_an_endless_search_is_refused_at_once(capsys, spec, message):
    start = time.perf_counter()
    err = one_line_error(capsys, ["demo", "--game", "tictactoe", "--player1", spec])
    assert message in err and time.perf_counter() - start < 10


def test_workers_beyond_the_machine_are_refused_unless_on_ray(capsys, monkeypatch, tmp_path):
    import alphazero_lib.cli as cli

    monkeypatch.setattr(cli, "_cores", lambda: 2)
    tiny = tmp_path / "tiny.json"  # (two games: were the check gone, two worker processes would train at once)
    tiny.write_text(
        json.dumps({"num_res_blocks": 1, "num_hidden": 8, "num_searches": 2, "num_self_play_iterations": 2})
    )
    argv = ["train", "--game", "tictactoe", "--out", str(tmp_path / "r"), "--config", str(tiny), "--no-progress"]
    err = one_line_error(capsys, [*argv, "--iterations", "1", "--workers", "64"])
    assert "--workers 64 would start 64 processes on the 2 cores of this machine; at most 8" in err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"num_hidden": 1_000_000}, "TrainConfig.num_hidden must be at most 2,048 (wider networks do not fit"),
        ({"num_res_blocks": 100_000}, "TrainConfig.num_res_blocks must be at most 100"),
        ({"num_parallel_games": 10**9}, "TrainConfig.num_parallel_games must be at most 16,384"),
        ({"num_threads": 100_000}, "TrainConfig.num_threads must be at most 256"),
        ({"seed": 10**22}, "TrainConfig.seed must be at most 9,223,372,036,854,775,807 (seeds are 64-bit"),
        ({"num_searches": 10**9}, "SearchConfig.num_searches must be at most 100,000"),
        ({"lr": 1e30}, "TrainConfig.lr must be positive and at most 1"),
    ],
)
def test_config_values_past_their_caps_name_the_field_and_the_limit(tmp_path, capsys, settings, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        TrainConfig.from_dict(settings)
    config = tmp_path / "big.json"
    config.write_text(json.dumps(settings))
    err = one_line_error(
        capsys, ["train", "--game", "tictactoe", "--out", str(tmp_path / "r"), "--config", str(config)]
    )
    assert message in err


def test_a_checkpoint_recording_a_huge_network_is_refused_before_it_is_built(tmp_path, monkeypatch):
    checkpoint = make_checkpoint(ResNet(TTT, 1, 8), TTT)
    checkpoint["arch"]["num_hidden"] = 1_000_000
    torch.save(checkpoint, tmp_path / "huge.pt")
    built = []
    monkeypatch.setattr(ResNet, "__init__", lambda *args, **kwargs: built.append(1))
    with pytest.raises(CheckpointError, match=r"records an impossible network: arch\['num_hidden'\] must be at most"):
        load_model(tmp_path / "huge.pt")
    assert not built


def test_a_network_too_large_for_memory_is_refused_before_allocation(monkeypatch):
    import alphazero_lib.model as model

    assert model.resnet_parameters(C4, 100, 2048) == 7_551_692_207  # 30 GB: refused by the real cap
    monkeypatch.setattr(model, "MAX_PARAMETERS", 100_000)  # a cap that a small network passes, to plant safely
    with pytest.raises(ValueError, match=r"4 blocks x 64 channels .* would have 328,175 parameters \(0.0 GB .*at most"):
        ResNet(C4, 4, 64)
    assert ResNet(C4, 1, 8).num_parameters() == model.resnet_parameters(C4, 1, 8)


def test_search_trees_larger_than_memory_are_refused_before_allocation(monkeypatch):
    from fakes import FakeNet

    import alphazero_lib.batched_mcts as batched_mcts
    from alphazero_lib.batched_mcts import BatchedMCTS

    monkeypatch.setattr(batched_mcts, "physical_memory", lambda: 10**7)  # a 10 MB machine
    mcts = BatchedMCTS(C4, FakeNet(C4), SearchConfig(num_searches=2_000))
    states = np.zeros((16, 6, 7), dtype=np.int8)
    with pytest.raises(
        ValueError, match=r"the search trees of 16 games with 2,002 node slots each .* would take 0.0 GB"
    ):
        mcts.search(states)
    assert BatchedMCTS(C4, FakeNet(C4), SearchConfig(num_searches=10)).search(states[:4]).shape == (4, 7)
    assert batched_mcts.tree_bytes(16, 2002, C4) == 16 * 2002 * (50 + 42 + 24 * 7)


def test_a_device_torch_does_not_have_is_refused_with_the_choices():
    from alphazero_lib.training import build_trainer

    if torch.backends.mps.is_available():
        pytest.skip("this torch has MPS")
    with pytest.raises(ValueError, match="device 'mps' was asked for, but torch sees no Apple GPU"):
        build_trainer(TTT, TrainConfig(device="mps"))
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="torch sees no CUDA GPU"):
            build_trainer(TTT, TrainConfig(device="cuda"))


def test_arena_exhaustive_refuses_flags_it_would_ignore(capsys):
    err = one_line_error(
        capsys, ["arena", "--game", "tictactoe", "--player1", "perfect", "--exhaustive", "--player2", "random"]
    )
    assert "--exhaustive plays player 1 against every reply" in err and "--player2 would be ignored; drop it" in err
    argv = ["arena", "--game", "tictactoe", "--player1", "perfect", "--exhaustive", "--openings", "2"]
    assert "--openings would be ignored" in one_line_error(capsys, argv)
