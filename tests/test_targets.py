"""The training targets and the self-play schedule (issue 22, item 2): each option does what it says, and goes red
when switched off or inverted; each is recorded in the run's config.json and kept by --resume."""

from __future__ import annotations

import copy
import itertools
import json

import numpy as np
import pytest
import torch
from fakes import FakeNet
from test_structure import interrupted_after_one_iteration, run_command
from test_training import TINY, tiny_trainer

from alphazero_lib import make_game
from alphazero_lib.cli import main
from alphazero_lib.config import TrainConfig
from alphazero_lib.executors import WorkerProcesses
from alphazero_lib.plotting import plot_training_curves
from alphazero_lib.selfplay import (
    BatchedSelfPlay,
    SerialSelfPlay,
    canonical_states,
    game_samples,
    random_opening,
    search_positions,
)
from alphazero_lib.training import average_positions, draw_samples, sample_losses, summary_line

GAME = make_game("connect_four")


def settings(**changes) -> TrainConfig:
    """Batched self-play on Connect Four with a fixed fake network: 8 PUCT simulations, no noise or symmetries."""
    base = dict(num_searches=8, games_per_iteration=6, augment_symmetries=False, self_play="batched")
    base["dirichlet_epsilon"] = 0.0  # a state searched twice gets the same output
    return TrainConfig.from_dict({**base, **changes})


class Recorder:
    """Wraps a batched search's ``run``: every searched state (canonical, as bytes) -> its ``SearchOutput`` row."""

    def __init__(self, games: BatchedSelfPlay) -> None:
        self.outputs: dict[bytes, dict[str, np.ndarray]] = {}
        self.simulations: list[np.ndarray] = []
        run = games.mcts.run

        def recording(states, active=None, num_simulations=None):
            output = run(states, active, num_simulations)
            for i in np.flatnonzero(active):
                row = {name: np.asarray(getattr(output, name)[i]) for name in vars(output)}
                self.outputs[states[i].tobytes()] = row
            return output

        games.mcts.run = recording


def play(config: TrainConfig, games: int = 6, slots: int = 3, seed: int = 0) -> tuple[BatchedSelfPlay, Recorder]:
    batched = BatchedSelfPlay(GAME, FakeNet(GAME, seed=1), config, slots, (seed, 1), total=games)
    recorder = Recorder(batched)
    while not batched.done:
        batched.step()
    return batched, recorder


def decode(encoded: np.ndarray) -> np.ndarray:
    """The canonical state of an encoded sample ``[3, R, C]`` (planes: opponent, empty, mover)."""
    return (encoded[2] - encoded[0]).astype(np.int8)


@pytest.mark.parametrize("weight", [0.0, 0.25, 1.0])
def test_the_value_target_mixes_outcome_and_search_value_by_its_weight(weight):
    games, recorder = play(settings(value_target_q_weight=weight))
    assert games.samples
    for encoded, _, value in games.samples:
        q = float(recorder.outputs[decode(encoded).tobytes()]["root_value"])
        outcome = (value - weight * q) / (1 - weight) if weight < 1 else None
        if outcome is None:
            assert value == pytest.approx(q, abs=1e-6)  # the search value alone
        else:
            assert min(abs(outcome - z) for z in (-1.0, 0.0, 1.0)) < 1e-5, (weight, value, q)
    if weight:  # the search values are not all 0 or +-1, so the check above can tell a mix from the outcome
        qs = [float(r["root_value"]) for r in recorder.outputs.values()]
        assert any(0.05 < abs(q) < 0.95 for q in qs)


def test_game_samples_mix_by_hand():
    state = GAME.get_initial_state()
    probs = np.full(7, 1 / 7)
    history = [(state, probs, 1, 0.2), (state, probs, -1, -0.6)]  # player 1 moved last and won (value 1)
    values = [v for _, _, v in game_samples(GAME, history, 1.0, 1, False, q_weight=0.25)]
    assert values == pytest.approx([0.75 * 1 + 0.25 * 0.2, 0.75 * -1 + 0.25 * -0.6])
    assert [v for _, _, v in game_samples(GAME, history, 1.0, 1, False)] == [1.0, -1.0]


def test_playout_cap_records_only_the_full_searches():
    config = settings(full_search_fraction=0.3, cheap_searches=2)
    games, recorder = play(config, games=8)
    positions, recorded = games.games.positions, len(games.samples)
    assert 0 < recorded < positions
    full, cheap = recorded, positions - recorded
    stats = games.mcts.stats
    assert stats.simulations == full * 8 + cheap * 2  # the recorded moves are exactly the fully searched ones
    for encoded, _, _ in games.samples:  # and each recorded policy comes from 8 simulations
        shares = recorder.outputs[decode(encoded).tobytes()]["visit_shares"]
        assert np.allclose((shares * 8).round(), shares * 8)
    assert 0.1 < full / positions < 0.5  # about the fraction asked


def test_without_the_cap_every_move_is_recorded_with_the_full_search():
    games, _ = play(settings())
    assert len(games.samples) == games.games.positions and games.mcts.stats.simulations == 8 * games.games.positions


def stones(encoded: np.ndarray) -> int:
    return int(np.abs(decode(encoded)).sum())


def test_random_openings_start_games_after_zero_to_k_moves():
    config = settings(opening_moves=2, num_searches=2)
    batched = BatchedSelfPlay(GAME, FakeNet(GAME, seed=1), config, 4, (0, 1), total=24)
    firsts = set()
    while not batched.done:
        before = [len(h) for h in batched.histories]
        batched.step()
        for i, history in enumerate(batched.histories):
            if before[i] == 0 and history:
                firsts.add(stones(game_samples(GAME, history[:1], 0.0, 1, False)[0][0]))
    assert firsts == {0, 1, 2}
    rng = np.random.default_rng(0)
    for _ in range(50):  # never a move that ends the game, and at most K moves
        state, player, played = random_opening(GAME, rng, 3)
        assert played <= 3 and np.abs(state).sum() == played and player == (1 if played % 2 == 0 else -1)


def test_without_openings_every_game_starts_on_the_empty_board():
    batched = BatchedSelfPlay(GAME, FakeNet(GAME, seed=1), settings(num_searches=2), 4, (0, 1), total=8)
    assert not batched.states.any()
    serial = SerialSelfPlay(GAME, FakeNet(GAME, seed=1), settings(self_play="serial", opening_moves=3), (0, 1))
    assert np.abs(serial.state).sum() == serial.moves  # the serial loop opens games too


@pytest.mark.parametrize("selection", ["visits", "improved_policy"])
def test_moves_are_drawn_from_the_distribution_asked_for(selection):
    config = settings(move_selection=selection, temperature=0.0)
    batched = BatchedSelfPlay(GAME, FakeNet(GAME, seed=1), config, 3, (0, 1), total=6)
    recorder = Recorder(batched)
    disagreements = 0
    while not batched.done:
        states = batched.states.copy()
        players = batched.players.copy()
        live = batched.live.copy()
        batched.step()
        for i in np.flatnonzero(live):
            canonical = (states[i] * players[i]).astype(np.int8)
            row = recorder.outputs[canonical.tobytes()]
            if batched.moves[i] == 0 or not (batched.states[i] != states[i]).any():
                continue  # the game ended and its slot restarted: the move is not visible in the state
            action = int(np.flatnonzero((batched.states[i] != states[i]).any(axis=0))[0])
            wanted = row["improved_policy"] if selection == "improved_policy" else row["visit_shares"]
            assert wanted[action] == wanted.max()
            other = row["visit_shares"] if selection == "improved_policy" else row["improved_policy"]
            disagreements += other[action] != other.max()
    assert disagreements > 0  # the two distributions pick differently here, so the test tells them apart


def test_gumbel_self_play_records_the_improved_policy():
    config = settings(num_searches=8, policy="gumbel", gumbel_considered=4, gumbel_scale=0.0)
    games, recorder = play(config, games=4)
    for encoded, policy, _ in games.samples:
        row = recorder.outputs[decode(encoded).tobytes()]
        np.testing.assert_allclose(policy, row["improved_policy"], rtol=1e-6)
        assert not np.allclose(policy, row["visit_shares"])


FLAGS = {
    "value_target_q_weight": ("--value-target-q-weight", "0.5", 0.5),
    "full_search_fraction": ("--full-search-fraction", "0.5", 0.5),
    "cheap_searches": ("--cheap-searches", "2", 2),
    "opening_moves": ("--opening-moves", "2", 2),
    "move_selection": ("--move-selection", "improved_policy", "improved_policy"),
    "lr_decay_iterations": ("--lr-decay-iterations", "3", 3),
    "lr_final_fraction": ("--lr-final-fraction", "0.5", 0.5),
    "reanalyse": ("--reanalyse", "0.5", 0.5),
    "searches_growth_iterations": ("--searches-growth-iterations", "4", 4),
    "searches_start": ("--searches-start", "2", 2),
    "train_precision": ("--train-precision", "bf16", "bf16"),
    "temperature": ("--temperature", "0.8", 0.8),
    "temperature_moves": ("--temperature-moves", "4", 4),
    "optimizer": ("--optimizer", "adamw", "adamw"),
    "weight_decay": ("--weight-decay", "0.01", 0.01),
    "replay_window": ("--replay-window", "3", 3),
    "train_samples": ("--train-samples", "40", 40),
    "measure_new_games": ("--measure-new-games", "on", True),
}


def test_the_options_are_recorded_and_kept_by_a_resume(tmp_path, monkeypatch, capsys):
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({**TINY, "games_per_iteration": 2, "num_iterations": 2, "num_epochs": 1}))
    flags = [part for flag, text, _ in FLAGS.values() for part in (flag, text)]
    out = tmp_path / "run"
    interrupted_after_one_iteration(monkeypatch, run_command(out, config, *flags, "--search-policy", "puct"))
    saved = json.loads((out / "config.json").read_text())["train_config"]
    assert {name: saved[name] for name in FLAGS} == {name: value for name, (_, _, value) in FLAGS.items()}
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--no-progress"]) == 0
    assert "resuming with a change" not in capsys.readouterr().out
    saved = json.loads((out / "config.json").read_text())["train_config"]
    assert {name: saved[name] for name in FLAGS} == {name: value for name, (_, _, value) in FLAGS.items()}


def test_the_root_noise_flags_are_recorded_kept_by_a_resume_and_reach_self_play(tmp_path, monkeypatch, capsys):
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({**TINY, "games_per_iteration": 2, "num_iterations": 2, "num_epochs": 1}))
    out = tmp_path / "run"
    flags = ("--dirichlet-epsilon", "0.4", "--dirichlet-alpha", "0.7")
    interrupted_after_one_iteration(monkeypatch, run_command(out, config, *flags))
    search = json.loads((out / "config.json").read_text())["train_config"]["search"]
    assert (search["dirichlet_epsilon"], search["dirichlet_alpha"]) == (0.4, 0.7)
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--no-progress", "--dirichlet-epsilon", "0.1"]) == 0
    recorded = json.loads((out / "config.json").read_text())
    search = recorded["train_config"]["search"]
    assert (search["dirichlet_epsilon"], search["dirichlet_alpha"]) == (0.1, 0.7)
    assert {"iteration": 2, "field": "search.dirichlet_epsilon", "old": 0.4, "new": 0.1} in recorded["changes"]
    game, config = make_game("tictactoe"), TrainConfig.from_dict(recorded["train_config"])
    for self_play in (
        SerialSelfPlay(game, FakeNet(game), config, (0, 0)),
        BatchedSelfPlay(game, FakeNet(game), config, 2, (0, 0)),
    ):
        assert (self_play.mcts.config.dirichlet_epsilon, self_play.mcts.config.dirichlet_alpha) == (0.1, 0.7)
    with pytest.raises(SystemExit):
        main(["train", "--out", str(tmp_path / "bad"), "--dirichlet-epsilon", "1.5", "--no-progress"])
    assert "--dirichlet-epsilon" in capsys.readouterr().err


def test_the_tree_reuse_flag_is_recorded_kept_by_a_resume_and_reaches_batched_self_play(tmp_path, monkeypatch, capsys):
    config = tmp_path / "tiny.json"
    batched = {"self_play": "batched", "num_parallel_games": 2, "num_workers": 1}
    config.write_text(json.dumps({**TINY, "games_per_iteration": 2, "num_iterations": 2, "num_epochs": 1, **batched}))
    out = tmp_path / "run"
    interrupted_after_one_iteration(monkeypatch, run_command(out, config, "--reuse-tree", "on"))
    assert json.loads((out / "config.json").read_text())["train_config"]["reuse_tree"] is True
    first = json.loads((out / "history.json").read_text())[0]["search"]
    assert 0 < first["reused_roots"] < first["positions"]  # every move after a game's first reuses its subtree
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--no-progress", "--reuse-tree", "off"]) == 0
    recorded = json.loads((out / "config.json").read_text())
    assert recorded["train_config"]["reuse_tree"] is False
    assert {"iteration": 2, "field": "reuse_tree", "old": True, "new": False} in recorded["changes"]
    assert json.loads((out / "history.json").read_text())[1]["search"]["reused_roots"] == 0
    gumbel = ["train", "--game", "tictactoe", "--out", str(tmp_path / "bad"), "--no-progress", "--config", str(config)]
    assert main([*gumbel, "--search-policy", "gumbel", "--dirichlet-epsilon", "0", "--reuse-tree", "on"]) == 2
    assert "reuse_tree must be off with the Gumbel search policy" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()  # refused before anything is written
    with pytest.raises(SystemExit):
        main(["train", "--out", str(tmp_path / "bad"), "--reuse-tree", "yes", "--no-progress"])
    assert "--reuse-tree: must be on or off" in capsys.readouterr().err


def test_position_averaging_merges_each_position_into_the_mean_of_its_targets():
    """Checked against a plain dict-of-lists reference on real self-play samples, which repeat positions."""
    rng = np.random.default_rng(0)
    memory = [(s, p, np.float32(v)) for s, p, v in draw_samples(tiny_memory(), 0, rng)]
    memory += [(s, np.roll(p, 1), np.float32(-v)) for s, p, v in memory[::3]]  # the same positions, other targets
    groups: dict[bytes, list] = {}
    for state, policy, value in memory:
        groups.setdefault(state.tobytes(), []).append((policy, value))
    averaged = average_positions(memory)
    assert len(memory) > len(averaged) == len(groups)
    assert [s.tobytes() for s, _, _ in averaged] == list(groups)  # in the order each first appears
    for (_, policy, value), targets in zip(averaged, groups.values(), strict=True):
        assert np.allclose(policy, np.mean([p for p, _ in targets], axis=0), atol=1e-6)
        assert value == pytest.approx(np.mean([v for _, v in targets]), abs=1e-6)
        assert policy.dtype == np.float32 and isinstance(value, np.float32) and policy.sum() == pytest.approx(1.0)
    assert average_positions([]) == []


def tiny_memory() -> list:
    """One iteration of a tiny tic-tac-toe trainer's self-play: games from the empty board repeat positions."""
    trainer = tiny_trainer(games_per_iteration=6, seed=0)
    try:
        return trainer.self_play_iteration()
    finally:
        trainer.close()


def test_the_position_averaging_flag_is_recorded_kept_by_a_resume_and_reaches_training(tmp_path, monkeypatch, capsys):
    from alphazero_lib.training import AlphaZero

    trained_on: list[list] = []
    real_train = AlphaZero.train

    def train(self, memory, rng=None):
        trained_on.append([s.tobytes() for s, _, _ in memory])
        return real_train(self, memory, rng)

    monkeypatch.setattr(AlphaZero, "train", train)
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({**TINY, "games_per_iteration": 4, "num_iterations": 2, "num_epochs": 1}))
    out = tmp_path / "run"
    interrupted_after_one_iteration(monkeypatch, run_command(out, config, "--position-averaging", "on"))
    assert json.loads((out / "config.json").read_text())["train_config"]["position_averaging"] is True
    first = trained_on[-1]
    assert len(first) == len(set(first)) == json.loads((out / "history.json").read_text())[0]["memory"]
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--no-progress", "--position-averaging", "off"]) == 0
    recorded = json.loads((out / "config.json").read_text())
    assert {"iteration": 2, "field": "position_averaging", "old": True, "new": False} in recorded["changes"]
    assert len(trained_on[-1]) > len(set(trained_on[-1]))  # four games of tic-tac-toe from the empty board repeat
    with pytest.raises(SystemExit):
        main(["train", "--out", str(tmp_path / "bad"), "--position-averaging", "yes", "--no-progress"])
    assert "--position-averaging: must be on or off" in capsys.readouterr().err


def test_defaults_are_the_course_alphazero():
    config = TrainConfig()
    assert (config.value_target_q_weight, config.full_search_fraction, config.opening_moves) == (0.0, 1.0, 0)
    assert config.move_selection == "visits" and config.search.policy == "puct"
    assert config.lr_decay_iterations == 0 and config.lr_at(0) == config.lr_at(10**6) == config.lr
    assert config.optimizer == "adam" and config.train_samples == 0 and not config.measure_new_games
    assert not config.position_averaging


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"value_target_q_weight": 1.5}, "value_target_q_weight must be in [0, 1]"),
        ({"full_search_fraction": 0.0}, "full_search_fraction must be in (0, 1]"),
        ({"full_search_fraction": 0.5, "cheap_searches": 99}, "cheap_searches must be between 1 and"),
        ({"opening_moves": -1}, "opening_moves must be a non-negative integer"),
        ({"move_selection": "greedy"}, "move_selection must be one of"),
        ({"policy": "gumbel"}, "set dirichlet_epsilon=0"),
        ({"lr_decay_iterations": -1}, "lr_decay_iterations must be 0 .a constant lr. or a positive number"),
        ({"lr_final_fraction": 0.0}, "lr_final_fraction must be in (0, 1]"),
        ({"lr_final_fraction": 1.5}, "lr_final_fraction must be in (0, 1]"),
        ({"searches_start": 0}, "searches_start must be at least 1"),
        ({"reanalyse": -1.0}, "reanalyse must be 0 .no reanalysis. or a positive multiple"),
        ({"reanalyse": 1.0, "executor": "ray", "self_play": "batched"}, "set it to 0 with executor 'ray'"),
        ({"searches_start": 9, "searches_growth_iterations": 3, "num_searches": 8}, "searches_start must be at most"),
        ({"searches_growth_iterations": -1}, "searches_growth_iterations must be 0 .no growth. or a positive"),
        ({"train_precision": "fp16"}, "train_precision must be 'auto' or one of ['fp32', 'bf16'], got 'fp16'"),
        ({"optimizer": "sgd"}, "optimizer must be one of ['adam', 'adamw'], got 'sgd'"),
        ({"train_samples": -1}, "train_samples must be 0 .every position in the replay memory. or a positive"),
        ({"train_reuse": -0.5}, "train_reuse must be 0 .train_samples decides. or a positive multiple"),
        ({"train_samples": 100, "train_reuse": 2.0}, "train_samples .100. and train_reuse .2.0. both set"),
    ],
)
def test_bad_settings_are_refused_with_the_allowed_values(changes, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        TrainConfig.from_dict(changes)


def test_the_learning_rate_falls_half_a_cosine_then_holds():
    config = TrainConfig(lr=0.002, lr_decay_iterations=5, lr_final_fraction=0.1)
    rates = [config.lr_at(i) for i in range(8)]
    assert rates[0] == 0.002 and rates[4] == rates[5] == rates[7] == pytest.approx(0.0002)
    assert rates[2] == pytest.approx(0.0011)  # halfway down: the mean of lr and the floor
    assert all(rates[i] > rates[i + 1] for i in range(4))  # falls at every step of the decay
    assert rates[1] - rates[0] > rates[2] - rates[1]  # a cosine: slow at first, fastest in the middle


def test_the_simulation_budget_grows_geometrically_then_holds():
    config = TrainConfig.from_dict(dict(num_searches=64, searches_start=4, searches_growth_iterations=5))
    assert [config.searches_at(i) for i in range(7)] == [4, 8, 16, 32, 64, 64, 64]  # doubling each iteration
    assert config.at_iteration(1).search.num_searches == 8 and config.at_iteration(4) is config
    capped = TrainConfig.from_dict(dict(num_searches=64, full_search_fraction=0.5, cheap_searches=16))
    assert capped.at_iteration(0) is capped  # no growth: the config itself
    growing = replace_settings(capped, searches_start=4, searches_growth_iterations=3)
    assert growing.at_iteration(0).cheap_searches == 4 and growing.at_iteration(1).cheap_searches == 16


def replace_settings(config: TrainConfig, **changes) -> TrainConfig:
    return TrainConfig.from_dict({**config.to_dict(), **changes})


def test_self_play_searches_with_the_iterations_budget():
    """Every position of iteration i is searched with searches_at(i) simulations, in this process and in workers."""
    for self_play in ("serial", "batched"):
        trainer = tiny_trainer(
            num_iterations=4, num_epochs=1, num_searches=12, searches_start=3, searches_growth_iterations=3,
            self_play=self_play,
        )  # fmt: skip
        history = trainer.learn()
        assert [record["searches"] for record in history] == [3, 6, 12, 12]
        per_position = [record["search"]["simulations"] / record["search"]["positions"] for record in history]
        assert per_position == [3, 6, 12, 12], self_play
    assert "searches" not in tiny_trainer(num_iterations=1).learn()[0]


def test_reanalysis_searches_older_positions_again_and_replaces_only_their_policies():
    trainer = tiny_trainer(num_iterations=2, num_epochs=1, replay_window=3)
    trainer.learn()
    before = [list(games) for games in trainer.replay]
    lists, newest = list(trainer.replay), trainer.replay[-1]
    search = trainer.reanalyse_memory(10)
    assert search["positions"] == 10 and trainer.replay[-1] is newest
    changed = [
        (i, j)
        for i, games in enumerate(trainer.replay[:-1])
        for j, (state, policy, value) in enumerate(games)
        if policy is not before[i][j][1]
    ]
    assert len(changed) == 10
    for i, games in enumerate(trainer.replay):
        for (state, _, value), (old_state, _, old_value) in zip(games, before[i], strict=True):
            assert state is old_state and value == old_value  # the positions and their value targets stay
    assert all(a == b for a, b in zip(lists, before, strict=True))  # the memory's old lists are copied, not changed
    states = canonical_states(trainer.game, [before[i][j] for i, j in changed])
    config = trainer.config.at_iteration(trainer.iteration)
    expected, _ = search_positions(trainer.game, trainer.self_play_model, config, states, (0, trainer.iteration, 6))
    np.testing.assert_array_equal(np.stack([trainer.replay[i][j][1] for i, j in changed]), expected)
    assert not all(np.allclose(trainer.replay[i][j][1], before[i][j][1]) for i, j in changed)
    assert trainer.reanalyse_memory(10**6)["positions"] == sum(len(games) for games in before[:-1])


def test_training_records_its_reanalysis_and_keeps_it_out_of_the_training_time():
    trainer = tiny_trainer(num_iterations=3, num_epochs=1, replay_window=2, reanalyse=0.5)
    history = trainer.learn()
    assert history[0]["reanalyse"] == {"positions": 0}  # nothing older than the first games
    for previous, record in itertools.pairwise(history):
        assert record["reanalyse"]["positions"] == min(round(0.5 * record["samples"]), previous["samples"])
        assert record["reanalyse"]["simulations"] == 5 * record["reanalyse"]["positions"]
        assert 0 < record["reanalyse_seconds"] <= record["wall_seconds"] - record["train_seconds"]
    assert "reanalyse" not in tiny_trainer(num_iterations=1).learn()[0]


def test_worker_processes_reanalyse_a_share_each_with_their_own_seeds():
    trainer = tiny_trainer(num_iterations=1, num_epochs=1)
    trainer.learn()
    states = canonical_states(trainer.game, trainer.replay[0][:9])
    config, model = trainer.config, trainer.self_play_model
    workers = WorkerProcesses(2)
    try:
        policies, search = workers.reanalyse(trainer.game, config, model, states, 4)
    finally:
        workers.close()
    shares = [(states[:5], (0, 4, 6, 0)), (states[5:], (0, 4, 6, 1))]
    expected = [search_positions(trainer.game, model, config, share, seeds) for share, seeds in shares]
    np.testing.assert_array_equal(policies, np.concatenate([policies for policies, _ in expected]))
    assert search["positions"] == 9 and search["simulations"] == 45


def test_training_uses_the_scheduled_learning_rate_and_a_resume_keeps_it(tmp_path):
    seen: list[float] = []

    def spying(trainer):
        train = trainer.train

        def recording(memory, rng=None):
            seen.extend({group["lr"] for group in trainer.optimizer.param_groups})
            return train(memory, rng)

        trainer.train = recording
        return trainer

    decay = dict(num_epochs=1, lr=0.004, lr_decay_iterations=3, lr_final_fraction=0.25)
    first = spying(tiny_trainer(tmp_path / "run", num_iterations=1, **decay))
    first.learn()
    resumed = spying(tiny_trainer(tmp_path / "run", num_iterations=4, **decay))
    resumed.directory.restore(
        resumed.state, tmp_path / "run" / "latest.pt"
    )  # puts the optimizer back at the config's lr
    resumed.learn()
    assert seen == pytest.approx([0.004, 0.0025, 0.001, 0.001])
    history = json.loads((tmp_path / "run" / "history.json").read_text())
    assert [record["lr"] for record in history] == pytest.approx(seen)

    seen.clear()  # without a decay the optimizer's own learning rate stays, whatever the config says
    constant = spying(tiny_trainer(num_iterations=2, num_epochs=1, lr=0.004))
    for group in constant.optimizer.param_groups:
        group["lr"] = 0.03
    constant.learn()
    assert seen == [0.03, 0.03] and "lr" not in constant.history[0]


def assert_only_the_decay_moves(trainer, optimizer: str, steps: int) -> None:
    """Take ``steps`` optimizer steps whose loss gradient is zero, so only the weight decay (lr 0.001, decay 0.01)
    moves the first convolution, and check it moved as ``optimizer`` applies the decay: AdamW multiplies every weight
    by 1 - lr * decay a step, whatever its size; Adam divides the L2 gradient by its own size, so every weight well
    above eps / decay shrinks by about lr a step."""
    weights = next(trainer.model.parameters())
    start = weights.detach().clone()
    for _ in range(steps):
        trainer.optimizer.zero_grad()
        (0.0 * sum(p.sum() for p in trainer.model.parameters())).backward()
        trainer.optimizer.step()
    after = weights.detach().clone()
    if optimizer == "adamw":
        torch.testing.assert_close(after, start * (1 - 0.001 * 0.01) ** steps)
    else:
        shrink = (start.abs() - after.abs())[start.abs() > 0.05]
        assert shrink.numel() > 0 and torch.allclose(shrink, torch.full_like(shrink, steps * 0.001), rtol=0.02)


@pytest.mark.parametrize("optimizer", ["adam", "adamw"])
def test_the_weight_decay_is_an_l2_term_for_adam_and_a_decoupled_shrink_for_adamw(optimizer):
    trainer = tiny_trainer(num_iterations=1, lr=0.001, weight_decay=0.01, optimizer=optimizer)
    assert_only_the_decay_moves(trainer, optimizer, steps=5)


@pytest.mark.parametrize(("before", "after"), [("adam", "adamw"), ("adamw", "adam")])
def test_a_resume_that_changes_the_optimizer_gets_its_weight_decay(tmp_path, before, after):
    settings = dict(num_epochs=1, weight_decay=0.01)
    tiny_trainer(tmp_path / "run", num_iterations=1, optimizer=before, **settings).learn()
    resumed = tiny_trainer(tmp_path / "run", num_iterations=2, optimizer=after, **settings)
    resumed.directory.restore(
        resumed.state, tmp_path / "run" / "latest.pt"
    )  # the saved groups say how decay was applied
    assert "optimizer" in [change["field"] for change in resumed.directory.changes]
    resumed.optimizer.state.clear()  # the moments of the first iteration would move the weights too
    assert_only_the_decay_moves(resumed, after, steps=3)


def test_each_training_pass_draws_train_samples_positions_without_repeats():
    trainer = tiny_trainer(num_iterations=1, num_epochs=3, train_samples=20, games_per_iteration=4)
    passes: list[list] = []
    train = trainer.train
    trainer.train = lambda memory, rng=None: passes.append(memory) or train(memory, rng)
    trainer.learn()
    memory = {id(sample) for games in trainer.replay for sample in games}
    assert len(memory) > 20 and [len(drawn) for drawn in passes] == [20, 20, 20]
    assert all(len({id(sample) for sample in drawn}) == 20 and {id(s) for s in drawn} <= memory for drawn in passes)
    assert len({tuple(id(sample) for sample in drawn) for drawn in passes}) == 3  # a fresh draw for every pass


def test_with_train_reuse_each_pass_draws_that_multiple_of_the_new_positions():
    trainer = tiny_trainer(num_iterations=3, num_epochs=2, train_reuse=1.5, replay_window=3, games_per_iteration=4)
    passes: list[list] = []
    new: list[int] = []
    train, play = trainer.train, trainer.self_play_iteration
    trainer.train = lambda memory, rng=None: passes.append(memory) or train(memory, rng)
    trainer.self_play_iteration = lambda: new.append(len(samples := play())) or samples
    trainer.learn()
    memory = sum(len(games) for games in trainer.replay)
    assert [len(drawn) for drawn in passes[:2]] == [new[0]] * 2  # the first iteration's memory is all there is
    assert [len(drawn) for drawn in passes[4:]] == [round(1.5 * new[2])] * 2 and round(1.5 * new[2]) < memory
    assert all(len({id(sample) for sample in drawn}) == len(drawn) for drawn in passes)  # without repeats


def test_without_train_samples_every_pass_is_over_the_whole_memory():
    memory = list(range(50))
    rng = np.random.default_rng(0)
    assert draw_samples(memory, 0, rng) is memory and draw_samples(memory, 50, rng) is memory
    drawn = draw_samples(memory, 10, rng)
    assert len(set(drawn)) == 10 and drawn == sorted(drawn)  # no repeats, in the memory's order


def test_each_iteration_records_the_loss_on_its_new_games_before_training_on_them():
    assert "new_games_loss" not in tiny_trainer().learn()[0]  # asked for only: a trainer's own samples may differ
    trainer = tiny_trainer(num_iterations=2, num_epochs=3, measure_new_games=True)
    before: list[torch.nn.Module] = []
    train = trainer.train

    def spying(memory, rng=None):
        if len(before) < trainer.iteration + 1:  # the network as it was when the iteration's games were played
            before.append(copy.deepcopy(trainer.model).eval())
        return train(memory, rng)

    trainer.train = spying
    games: list[list] = []
    play = trainer.self_play_iteration
    trainer.self_play_iteration = lambda: games.append(play()) or games[-1]
    trainer.learn()
    for record, model, samples in zip(trainer.history, before, games, strict=True):
        assert record["new_games_loss"] == pytest.approx(sample_losses(model, samples))
        assert record["new_games_loss"]["value_loss"] != pytest.approx(record["value_loss"])  # not the trained loss
        fresh = record["new_games_loss"]
        line = summary_line(record, 1)  # the iteration's printed line shows them beside the trained losses
        assert f"value loss {record['value_loss']:.3f}, on its new games " in line
        assert f"new games {fresh['policy_loss']:.3f} / {fresh['value_loss']:.3f}, self-play " in line


def test_sample_losses_are_the_training_losses_without_a_step():
    model = tiny_trainer().model.eval()
    rng = np.random.default_rng(1)
    memory = [
        (rng.random((3, 3, 3), dtype=np.float32), rng.dirichlet(np.ones(9)).astype(np.float32), float(v))
        for v in rng.choice([-1.0, 0.0, 1.0], size=7)
    ]
    weights = copy.deepcopy(model.state_dict())
    states = torch.as_tensor(np.stack([s for s, _, _ in memory]))
    with torch.no_grad():
        policy, value = model(states)
    expected_policy = torch.nn.functional.cross_entropy(policy, torch.as_tensor(np.stack([p for _, p, _ in memory])))
    expected_value = torch.nn.functional.mse_loss(value.squeeze(1), torch.tensor([v for _, _, v in memory]))
    for batch_size in (2, 1024):  # minibatches weigh by their size
        losses = sample_losses(model, memory, batch_size=batch_size)
        assert losses == pytest.approx({"policy_loss": expected_policy.item(), "value_loss": expected_value.item()})
    assert all(torch.equal(weights[k], v) for k, v in model.state_dict().items())


def test_the_curves_show_the_new_games_loss_dashed_where_recorded():
    record = {"iteration": 1, "policy_loss": 1.0, "value_loss": 0.5, "epochs": []}
    fresh = {**record, "new_games_loss": {"policy_loss": 1.4, "value_loss": 0.9}}
    plain, dashed = plot_training_curves([record]), plot_training_curves([fresh])
    assert [len(ax.lines) for ax in dashed.axes] == [len(ax.lines) + 1 for ax in plain.axes]
    assert [ax.lines[-1].get_ydata()[0] for ax in dashed.axes] == [1.4, 0.9]
    assert all(ax.lines[-1].get_linestyle() == "--" for ax in dashed.axes)


def test_the_overfit_probe_marks_the_games_each_network_trained_on(tmp_path, monkeypatch, capsys):
    import runpy
    import sys
    from pathlib import Path

    from alphazero_lib.checkpoints import load_model

    run = tmp_path / "run"
    trainer = tiny_trainer(run, num_iterations=3, replay_window=2, num_epochs=1)
    trainer.learn()
    capsys.readouterr()  # the training's own lines
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "replay_overfit.py"
    monkeypatch.setattr(sys, "argv", ["replay_overfit.py", str(run)])
    runpy.run_path(str(script), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    assert "games of iterations 2-3" in lines[0] and lines[1].split()[1:5] == ["games", "2", "games", "3"]
    rows = {int(line.split()[0]): line.split()[1:] for line in lines[2:]}
    assert sorted(rows) == [1, 2, 3]
    assert [[cell.endswith("*") for cell in rows[n][:2]] for n in (1, 2, 3)] == [[0, 0], [1, 0], [1, 1]]
    network = load_model(run / "checkpoints" / "iter_0002.pt")
    expected = sample_losses(network, trainer.replay[1])  # games 3
    assert rows[2][1] == f"{expected['policy_loss']:.3f}/{expected['value_loss']:.3f}"
    seen = sample_losses(network, trainer.replay[0])["value_loss"]
    assert rows[2][2:] == [f"{seen:.3f}", "/", f"{expected['value_loss']:.3f}"] and len(rows[1]) == 2
