"""Self-play samples, the training step, the learn loop, resuming, gating, the config and the CLI."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch
from reference import has_line

from alphazero_lib import TicTacToe, make_game
from alphazero_lib.cli import main
from alphazero_lib.config import PRESETS, TrainConfig
from alphazero_lib.plotting import plot_training_curves
from alphazero_lib.rundir import Run
from alphazero_lib.training import AlphaZero, build_trainer, minibatches

TTT = make_game("tictactoe")

TINY = dict(
    num_res_blocks=1,
    num_hidden=8,
    num_searches=5,
    games_per_iteration=3,
    num_iterations=1,
    num_epochs=2,
    batch_size=16,
    device="cpu",
)


def tiny_trainer(tmp_path=None, **overrides) -> AlphaZero:
    config = TrainConfig.from_dict({**TINY, **overrides})
    game = make_game("tictactoe")
    return build_trainer(game, config, progress=False, run=None if tmp_path is None else Run.at(tmp_path, game, config))


def random_memory(game, n, seed=0):
    rng = np.random.default_rng(seed)
    states = rng.integers(-1, 2, size=(n, game.row_count, game.column_count))
    policies = rng.dirichlet(np.ones(game.action_size), size=n).astype(np.float32)
    values = rng.choice([-1.0, 0.0, 1.0], size=n).astype(np.float32)
    return [(game.get_encoded_state(s), p, v) for s, p, v in zip(states, policies, values, strict=True)]


# ---- self-play ------------------------------------------------------------------------------------
class RecordingTicTacToe(TicTacToe):
    """Tic-Tac-Toe that remembers every finished board it is asked about (to find winners independently)."""

    def __init__(self) -> None:
        super().__init__()
        self.finals: list[np.ndarray] = []

    def get_value_and_terminated(self, state, action):
        value, terminated = super().get_value_and_terminated(state, action)
        if terminated:
            self.finals.append(np.array(state))
        return value, terminated


def test_value_targets_carry_the_outcome_for_each_mover():
    """On real self-play games: the winner's positions carry +1, the loser's -1, a draw's 0."""
    from alphazero_lib.alpha_mcts import AlphaMCTS

    trainer = tiny_trainer(augment_symmetries=False, temperature=1.5)
    trainer.game = RecordingTicTacToe()  # the search below keeps its own game, so only real games are recorded
    mcts = AlphaMCTS(TicTacToe(), trainer.model, trainer.config.search_config(seed=1))
    rng = np.random.default_rng(1)
    winners = set()
    for _ in range(12):
        memory = trainer.self_play(mcts, rng)
        final = trainer.game.finals[-1]
        winner = 1 if has_line(final, 1, 3) else -1 if has_line(final, -1, 3) else 0
        winners.add(winner)
        assert len(memory) == int(np.count_nonzero(final))  # one sample per move without symmetries
        for index, (encoded, policy, value) in enumerate(memory):
            mover = 1 if index % 2 == 0 else -1
            expected = 0.0 if winner == 0 else (1.0 if mover == winner else -1.0)
            assert value == expected, (index, winner, value)
            assert encoded.shape == (3, 3, 3) and encoded.dtype == np.float32
            assert policy.dtype == np.float32 and policy.sum() == pytest.approx(1.0, abs=1e-5)
            assert encoded[1].sum() == 9 - index  # empty cells: one fewer per move
    assert {1, -1} <= winners, f"expected decisive games for both sides, saw winners {winners}"


def test_symmetries_multiply_samples_and_keep_the_value():
    trainer = tiny_trainer(augment_symmetries=True)
    samples = trainer.self_play_iteration()
    stats = trainer.game_stats
    assert stats.games == 3
    assert len(samples) == 8 * stats.positions
    assert stats.first_player_wins + stats.second_player_wins + stats.draws == 3
    for start in range(0, len(samples), 8):
        group = samples[start : start + 8]
        assert len({float(v) for _, _, v in group}) == 1
        # the 8 images of one position hold the same pieces and policy mass, moved around the board
        assert len({float(s[2].sum()) for s, _, _ in group}) == 1
        assert all(p.sum() == pytest.approx(1.0, abs=1e-5) for _, p, _ in group)


def test_temperature_schedule():
    trainer = tiny_trainer(temperature=1.25, temperature_moves=2)
    assert [trainer.temperature_at(m) for m in range(4)] == [1.25, 1.25, 0.0, 0.0]
    assert tiny_trainer(temperature=0.7).temperature_at(8) == 0.7


# ---- training -------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 17, 33, 65, 100])
def test_minibatches_use_every_sample_once_and_never_a_batch_of_one(n):
    batches = minibatches(n, 16, np.random.default_rng(0))
    indices = np.concatenate(batches)
    assert sorted(indices.tolist()) == list(range(n))
    assert min(len(b) for b in batches) >= 2


def test_train_on_one_more_than_a_multiple_of_the_batch_size():
    trainer = tiny_trainer(batch_size=16)
    memory = random_memory(trainer.game, 2 * 16 + 1)
    seen = []
    handle = trainer.model.register_forward_hook(lambda module, inputs, output: seen.append(len(inputs[0])))
    losses = trainer.train(memory, np.random.default_rng(0))
    handle.remove()
    assert sum(seen) == 33 and min(seen) >= 2
    assert all(np.isfinite(v) for v in losses.values())
    with pytest.raises(ValueError, match="at least 2 samples"):
        trainer.train(memory[:1])


def test_training_puts_every_batch_on_the_models_device():
    """The GPU path, tested on a CPU: a model on PyTorch's 'meta' device (shapes, no numbers) gets meta batches.

    The forward and backward passes run on meta tensors; reading a loss (``.item()``) is the first thing meta
    cannot do. Batches left on the CPU would fail at the first layer with "not on the expected device" instead.
    """
    from alphazero_lib.training import train_epoch

    trainer = tiny_trainer(batch_size=16)
    memory = random_memory(trainer.game, 20)
    model = copy.deepcopy(trainer.model).to("meta")
    seen = []
    model.register_forward_pre_hook(lambda module, inputs: seen.append(inputs[0].device.type))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with pytest.raises(RuntimeError, match="meta tensors"):
        train_epoch(model, optimizer, memory, 16, np.random.default_rng(0))
    assert seen == ["meta"]


def test_loss_falls_on_a_fixed_batch():
    trainer = tiny_trainer(batch_size=32, num_hidden=16)
    memory = random_memory(trainer.game, 32)
    rng = np.random.default_rng(0)
    first = trainer.train(memory, rng)["loss"]
    for _ in range(40):
        last = trainer.train(memory, rng)["loss"]
    assert last < 0.8 * first


# ---- the learn loop, resuming and gating ----------------------------------------------------------
def test_resume_continues_exactly_where_the_run_stopped(tmp_path):
    straight = tiny_trainer(tmp_path / "straight", num_iterations=2, replay_window=2)
    straight.learn()

    first = tiny_trainer(tmp_path / "split", num_iterations=1, replay_window=2)
    first.learn()
    resumed = tiny_trainer(tmp_path / "split", num_iterations=2, replay_window=2)
    resumed.directory.restore(resumed.state, tmp_path / "split" / "latest.pt")
    assert resumed.iteration == 1 and len(resumed.history) == 1
    assert len(resumed.replay) == 1 and len(resumed.replay[0]) == len(first.replay[0])
    np.testing.assert_array_equal(resumed.replay[0][5][0], first.replay[0][5][0])
    assert resumed.optimizer.state_dict()["state"][0]["step"] == first.optimizer.state_dict()["state"][0]["step"]
    resumed.learn()

    assert resumed.iteration == 2 and [r["iteration"] for r in resumed.history] == [1, 2]
    assert [r["samples"] for r in resumed.history] == [r["samples"] for r in straight.history]
    for key, value in straight.model.state_dict().items():
        torch.testing.assert_close(resumed.model.state_dict()[key], value, msg=key)
    files = sorted(p.relative_to(tmp_path / "split").as_posix() for p in (tmp_path / "split").rglob("*"))
    assert files == [
        "checkpoints",
        "checkpoints/iter_0001.pt",
        "checkpoints/iter_0002.pt",
        "config.json",
        "history.json",
        "latest.pt",
        "loss.png",
    ]
    assert len(json.loads((tmp_path / "split" / "history.json").read_text())) == 2


def test_gating_keeps_a_best_network_and_reports_the_match(tmp_path):
    trainer = tiny_trainer(tmp_path, gating_games=2, gating_threshold=0.0)
    before = copy.deepcopy(trainer.best_model.state_dict())
    trainer.learn()
    gating = trainer.history[-1]["gating"]
    # the record is the gate's match: the same match, replayed against the network it met, gives the same score
    trainer.iteration -= 1
    trainer.best_model.load_state_dict(before)
    assert trainer.gate() == gating and gating["accepted"]  # threshold 0: whatever the score
    trainer.iteration += 1
    for key, value in trainer.model.state_dict().items():  # accepted: the best is now the candidate
        torch.testing.assert_close(trainer.best_model.state_dict()[key], value)
    assert "best_model" in torch.load(tmp_path / "latest.pt", weights_only=True)


def test_gating_at_a_threshold_of_one_keeps_the_best_unless_the_candidate_wins_every_game(tmp_path):
    trainer = tiny_trainer(tmp_path, gating_games=4, gating_threshold=1.0)
    before = {k: v.clone() for k, v in trainer.best_model.state_dict().items()}
    trainer.learn()
    gating = trainer.history[-1]["gating"]
    assert gating["accepted"] == (gating["score"] == 1.0)
    assert gating["score"] * 4 * 2 == round(gating["score"] * 4 * 2)  # whole and half points over 4 games
    expected = trainer.model.state_dict() if gating["accepted"] else before
    for key, value in trainer.best_model.state_dict().items():
        torch.testing.assert_close(value, expected[key])


# ---- config ---------------------------------------------------------------------------------------
def test_config_round_trips_and_rejects_bad_values():
    config = TrainConfig.from_preset("tictactoe", seed=3)
    assert TrainConfig.from_dict(config.to_dict()) == config
    assert json.loads(json.dumps(config.to_dict())) == config.to_dict()
    for name in PRESETS:
        TrainConfig.from_preset(name)
    with pytest.raises(ValueError, match="unknown TrainConfig settings"):
        TrainConfig.from_dict({"num_searchs": 3})
    with pytest.raises(ValueError, match="batch_size"):
        TrainConfig(batch_size=1)
    with pytest.raises(ValueError, match="games_per_iteration"):
        TrainConfig(games_per_iteration=0)
    with pytest.raises(ValueError, match="gating_threshold"):
        TrainConfig(gating_threshold=1.5)
    with pytest.raises(ValueError, match="unknown preset"):
        TrainConfig.from_preset("chess")
    search = config.search_config(seed=7)
    assert (search.num_searches, search.C, search.dirichlet_epsilon, search.seed) == (60, 2.0, 0.25, 7)


# ---- plots ----------------------------------------------------------------------------------------
def test_plots():
    history = [{"iteration": i, "policy_loss": 2.0 / i, "value_loss": 0.5 / i, "epochs": []} for i in (1, 2)]
    fig = plot_training_curves(history)
    assert [ax.get_title() for ax in fig.axes] == ["policy loss", "value loss"]


# ---- CLI ------------------------------------------------------------------------------------------
def test_cli_trains_refuses_to_overwrite_and_resumes(tmp_path, capsys):
    out = tmp_path / "run"
    tiny = ["--game", "tictactoe", "--out", str(out), "--no-progress"]
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({**TINY, "games_per_iteration": 2}))
    assert main(["train", *tiny, "--config", str(config), "--iterations", "1"]) == 0
    captured = capsys.readouterr().out
    assert "iteration 1/1" in captured and "resuming" not in captured  # a new run resumes nothing

    assert main(["train", *tiny, "--config", str(config)]) == 2
    refused = capsys.readouterr().err
    assert "already holds a run; continue it (--resume), replace its checkpoints (--overwrite)" in refused

    assert main(["train", *tiny, "--resume", "--iterations", "2"]) == 0
    captured = capsys.readouterr().out
    assert "resuming" in captured and "after iteration 1 of 2" in captured and "iteration 2/2" in captured
    assert captured.count(" after iteration ") == 1, captured  # said once, naming the checkpoint and why
    assert len(json.loads((out / "history.json").read_text())) == 2
    assert (out / "checkpoints" / "iter_0002.pt").is_file()

    assert main(["train", "--game", "connect_four", "--out", str(out), "--resume"]) == 2
    assert "is a run for TicTacToe" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path / "empty"), "--resume"]) == 2
    assert "nothing to resume" in capsys.readouterr().err


@pytest.mark.parametrize("dead", [0, 3])
def test_an_iteration_reports_dead_channels_only_when_there_are_some(monkeypatch, capsys, dead):
    import alphazero_lib.training as training

    monkeypatch.setattr(training, "dead_channels", lambda model: (dead, 40))
    trainer = tiny_trainer(num_iterations=1, num_epochs=1)
    trainer.learn()
    line = capsys.readouterr().out.strip().splitlines()[-1]
    if dead:
        assert trainer.history[-1]["dead_channels"] == [3, 40] and line.endswith(", dead channels 3/40")
    else:
        assert "dead_channels" not in trainer.history[-1] and "dead" not in line


def test_a_device_torch_does_not_have_is_refused_with_the_choices():
    from alphazero_lib.training import build_trainer

    if torch.backends.mps.is_available():
        pytest.skip("this torch has MPS")
    with pytest.raises(ValueError, match="device 'mps' was asked for, but torch sees no Apple GPU"):
        build_trainer(TTT, TrainConfig(device="mps"))
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="torch sees no CUDA GPU"):
            build_trainer(TTT, TrainConfig(device="cuda"))


def test_a_diverged_iteration_leaves_the_trainer_as_it_was(monkeypatch):
    import torch

    from alphazero_lib import make_game
    from alphazero_lib.config import TrainConfig
    from alphazero_lib.training import TrainingDiverged, build_trainer

    one_epoch = {**TINY, "num_epochs": 1}  # the poisoned weight is seen after the iteration's one epoch, not in a loss
    trainer = build_trainer(
        make_game("tictactoe"), TrainConfig.from_dict({**one_epoch, "num_iterations": 2}), progress=False
    )
    trainer.learn()
    trainer.config = TrainConfig.from_dict({**one_epoch, "num_iterations": 3})
    weights = {k: v.clone() for k, v in trainer.model.state_dict().items()}
    replay = trainer.replay
    train = trainer.train

    def poisoned_train(*args, **kwargs):  # an epoch that leaves a weight infinite (its losses stayed finite)
        losses = train(*args, **kwargs)
        with torch.no_grad():
            trainer.model.start_block[0].weight[0, 0, 0, 0] = float("inf")
        return losses

    monkeypatch.setattr(trainer, "train", poisoned_train)
    with pytest.raises(TrainingDiverged, match=r"iteration 3 .*'start_block.0.weight' holds NaN or infinite values"):
        trainer.learn()
    assert trainer.iteration == 2 and trainer.replay is replay and len(trainer.history) == 2
    for name, value in trainer.model.state_dict().items():
        assert torch.equal(value, weights[name]), name
