"""The self-play module's contracts that the trainer tests reach only indirectly: seeds, progress, tree reuse."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from positions import distinct_games
from test_training import TINY

from alphazero_lib import make_game
from alphazero_lib.config import TrainConfig
from alphazero_lib.model import ResNet
from alphazero_lib.selfplay import BatchedSelfPlay, SerialSelfPlay, derived_seed, play_batched, play_serial


@pytest.fixture(scope="module")
def setup():
    game = make_game("tictactoe")
    torch.manual_seed(0)
    return game, ResNet(game, 1, 8).eval()


def test_the_seeds_come_from_the_seed_parts(setup):
    """Worker w's games must be the same wherever they run (process pool, Ray): both seeds follow seed_parts."""
    game, model = setup
    config = TrainConfig.from_dict({**TINY, "self_play": "batched"})
    for games in (SerialSelfPlay(game, model, config, (7, 3)), BatchedSelfPlay(game, model, config, 2, (7, 3))):
        assert games.mcts.config.seed == derived_seed(7, 3, 1)
        expected = np.random.default_rng(derived_seed(7, 3, 2)).bit_generator.state
        assert games.rng.bit_generator.state == expected
    assert BatchedSelfPlay(game, model, config, 2, (7, 3)).mcts.reuse_tree is False  # only when asked


def test_progress_is_reported_once_a_game(setup):
    game, model = setup
    config = TrainConfig.from_dict({**TINY, "self_play": "batched"})
    for play in (
        lambda tick: play_serial(game, model, config, 3, (0, 0), lambda: tick(1)),
        lambda tick: play_batched(game, model, config, 3, 2, (0, 0), lambda: tick(1)),
    ):
        ticks: list[int] = []
        result = play(ticks.append)
        assert len(ticks) == result.games.games == 3


@pytest.mark.parametrize("name", distinct_games())
def test_tree_reuse_keeps_a_subtree_for_every_continued_move_and_none_for_a_new_game(name):
    """With reuse, every move but a game's first starts from the subtree of the move before (the played move
    always has visits); a slot whose game ended starts its next game from an empty tree."""
    game = make_game(name)
    torch.manual_seed(0)
    model = ResNet(game, 1, 8).eval()
    config = TrainConfig.from_dict({**TINY, "self_play": "batched", "reuse_tree": True})
    result = play_batched(game, model, config, 7, 3, (0, 0))
    assert result.games.games == 7
    assert result.search["reused_roots"] == result.games.positions - result.games.games


# ---- batched self-play training --------------------------------------------------------------------------
def test_alpha_zero_parallel_plays_every_game_and_trains(tmp_path):
    from alphazero_lib.rundir import Run
    from alphazero_lib.training import AlphaZeroParallel, build_trainer

    game = make_game("tictactoe")
    config = TrainConfig.from_dict(
        dict(
            num_res_blocks=1,
            num_hidden=8,
            num_iterations=1,
            games_per_iteration=5,
            num_parallel_games=3,  # games 4 and 5 take the slots of the first to finish
            num_searches=8,
            num_epochs=1,
            batch_size=16,
            device="cpu",
        )
    )
    trainer = build_trainer(game, config, False, AlphaZeroParallel, run=Run.at(tmp_path, game, config))
    assert trainer.config.self_play == "batched" and trainer.config.inference_mode == "fp32"  # the default
    history = trainer.learn()
    assert history[-1]["games"] == 5
    assert history[-1]["samples"] == 8 * history[-1]["positions"]  # 8 symmetries per position
    assert trainer.search_stats["positions"] == history[-1]["positions"]
    assert (tmp_path / "latest.pt").is_file()


def test_bench_selfplay_command_prints_the_figures(capsys):
    import json

    from alphazero_lib.cli import main

    argv = ["bench", "selfplay", "--game", "tictactoe", "--games", "16", "--searches", "4", "--seconds", "3"]
    assert main([*argv, "--mode", "fp32", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["inference_mode"] == "fp32" and result["searches_asked"] == 4
    assert 1 <= result["num_searches"] <= 4  # cut to fit the budget on a busy machine (and said so)
    assert result["serial_positions_per_second"] > 0 and result["batched_positions_per_second"] > 0
    assert 0 <= result["batched_share_outside_network"] <= 1
    assert set(result["network_evals_per_second"]) == {"fp32 batch 1 (serial path)", "fp32"}  # --mode: fp32 only


def _tiny_parallel_config(**changes):
    """test_training's tiny settings, with more games than slots (a slot takes a second game)."""
    settings = {**TINY, "games_per_iteration": 7, "num_parallel_games": 4, "num_searches": 8, "num_epochs": 1}
    settings["self_play"] = "batched"
    return TrainConfig.from_dict({**settings, **changes})


def test_self_play_workers_share_the_games_and_are_reproducible(tmp_path):
    from alphazero_lib.training import AlphaZeroParallel, build_trainer

    game = make_game("tictactoe")
    runs = []
    for _ in range(2):
        trainer = build_trainer(
            game, _tiny_parallel_config(num_workers=2), progress=False, trainer_class=AlphaZeroParallel
        )
        assert trainer.num_workers == 2
        history = trainer.learn()
        assert trainer.executor is None  # learn stops its workers
        runs.append(trainer)
    record = history[-1]
    assert record["games"] == 7  # 4 + 3 games in two processes
    assert record["samples"] == 8 * record["positions"]
    assert record["search"]["workers"] == 2 and record["search"]["positions"] == record["positions"]
    first, second = (trainer.replay[-1] for trainer in runs)
    pairs = zip(first, second, strict=True)  # same seeds, same games
    assert all(np.array_equal(a[1], b[1]) and a[2] == b[2] for a, b in pairs)


def split_games(memory) -> list[list[tuple[np.ndarray, np.ndarray, float]]]:
    """Tic-Tac-Toe samples (no symmetries) cut into games: (canonical state, search probs, value target) per move.

    A game's samples are contiguous and its first one is the empty board.
    """
    games: list[list[tuple[np.ndarray, np.ndarray, float]]] = []
    for encoded, probs, value in memory:
        state = (encoded[2] - encoded[0]).astype(int)  # planes: opponent, empty, own
        if not state.any():
            games.append([])
        games[-1].append((state, probs, float(value)))
    return games


def check_targets_and_temperature(memory, game_stats, temperature_moves: int) -> None:
    """From the samples alone: every value target is the game's outcome for that position's mover, and every
    move from ``temperature_moves`` on was a most-visited one (temperature 0), while earlier ones were not always.
    """
    from reference import has_line

    games = split_games(memory)
    assert len(games) == game_stats.games and sum(map(len, games)) == game_stats.positions
    results = {"first_player_wins": 0, "second_player_wins": 0, "draws": 0}
    greedy_early, greedy_last_sampled, checked_late = [], [], 0
    for samples in games:
        last = samples[-1][0]
        # the last mover ends the game: with a win (any length), or on the ninth move with a win or a draw
        empties = np.flatnonzero(last.reshape(-1) == 0)
        wins = [cell for cell in empties if has_line(np.where(np.arange(9).reshape(3, 3) == cell, 1, last), 1, 3)]
        assert wins or len(samples) == 9, samples[-1]
        last_outcome = 1.0 if wins else 0.0
        if last_outcome == 0:
            results["draws"] += 1
        else:
            results["first_player_wins" if len(samples) % 2 == 1 else "second_player_wins"] += 1
        for index, (state, probs, value) in enumerate(samples):
            expected = last_outcome if (len(samples) - 1 - index) % 2 == 0 else -last_outcome
            assert value == expected, (index, len(samples), value, expected)
            if index + 1 < len(samples):
                # the move played: the cell that is the mover's piece in the next (opponent-view) state
                (action,) = np.flatnonzero((state.reshape(-1) == 0) & (samples[index + 1][0].reshape(-1) == -1))
                is_greedy = probs[action] == probs.max()
                if index >= temperature_moves:
                    assert is_greedy, (index, action, probs)
                    checked_late += 1
                else:
                    greedy_early.append(is_greedy)
                    if index == temperature_moves - 1:
                        greedy_last_sampled.append(is_greedy)
    assert results == {key: getattr(game_stats, key) for key in results}
    assert results["first_player_wins"] + results["second_player_wins"] >= 3  # decisive games: targets of both signs
    assert checked_late >= 20 and not all(greedy_early)  # temperature 1 really sampled before temperature_moves
    assert not all(greedy_last_sampled)  # ... up to and including move temperature_moves - 1


@pytest.mark.parametrize("num_workers", [1, 2])
def test_batched_self_play_targets_and_temperature_schedule(num_workers):
    """The parallel trainer (in this process, and in worker processes) with the shipped configs' kind of
    schedule: outcome targets with the right sign for each mover, argmax moves once ``temperature_moves`` is over.
    """
    from alphazero_lib.training import AlphaZeroParallel, build_trainer

    config = _tiny_parallel_config(
        games_per_iteration=12, augment_symmetries=False, temperature=1.0, temperature_moves=3, seed=3
    )
    config = TrainConfig.from_dict({**config.to_dict(), "num_workers": num_workers})
    trainer = build_trainer(make_game("tictactoe"), config, progress=False, trainer_class=AlphaZeroParallel)
    assert trainer.num_workers == num_workers
    try:
        memory = trainer.self_play_iteration()
    finally:
        trainer.close()
    check_targets_and_temperature(memory, trainer.game_stats, temperature_moves=3)


def test_serial_self_play_targets_and_temperature_schedule():
    from alphazero_lib.training import build_trainer

    config = _tiny_parallel_config(
        games_per_iteration=12, augment_symmetries=False, temperature=1.0, temperature_moves=3, seed=3
    )
    config = TrainConfig.from_dict({**config.to_dict(), "self_play": "serial"})
    trainer = build_trainer(make_game("tictactoe"), config, progress=False)
    assert trainer.num_workers == 1 and trainer.config.self_play == "serial"
    check_targets_and_temperature(trainer.self_play_iteration(), trainer.game_stats, temperature_moves=3)
    assert "network_calls" not in trainer.search_stats  # AlphaMCTS's statistics: the serial search played


def test_one_worker_records_search_statistics_in_the_history():
    from alphazero_lib.training import AlphaZeroParallel, build_trainer

    trainer = build_trainer(
        make_game("tictactoe"), _tiny_parallel_config(), progress=False, trainer_class=AlphaZeroParallel
    )
    record = trainer.learn()[-1]
    assert trainer.num_workers == 1 and "workers" not in record["search"]
    assert record["search"]["positions"] == record["positions"]
    assert record["search"]["evaluations_per_position"] > 1


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("num_workers", 0, "num_workers must be a positive integer"),
        ("inference_mode", "fast", "inference_mode must be"),
    ],
)
def test_train_config_rejects_bad_worker_and_inference_settings(field, value, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**{field: value})


def test_train_command_with_workers_writes_their_statistics(tmp_path):
    import json

    from alphazero_lib.cli import main

    out = tmp_path / "run"
    argv = ["train", "--game", "tictactoe", "--out", str(out), "--iterations", "1", "--games-per-iteration", "4"]
    argv += ["--searches", "4", "--epochs", "1", "--workers", "2", "--inference-mode", "fp32", "--no-progress"]
    assert main(argv) == 0
    record = json.loads((out / "history.json").read_text())[-1]
    assert record["games"] == 4 and record["search"]["workers"] == 2
    saved = json.loads((out / "config.json").read_text())["train_config"]
    assert saved["num_workers"] == 2 and saved["inference_mode"] == "fp32"


def test_workers_benchmark_times_one_process_against_workers():
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "selfplay.py"
    argv = [sys.executable, str(script), "--workers", "2", "--game", "tictactoe", "--games", "4", "--searches", "4"]
    done = subprocess.run([*argv, "--mode", "fp32", "--json"], capture_output=True, text=True, timeout=300, check=True)
    result = json.loads(done.stdout)
    rates = [value["positions_per_second"] for value in result.values() if isinstance(value, dict)]
    assert len(rates) == 2 and min(rates) > 0
    assert result["ratio"] == pytest.approx(rates[1] / rates[0], rel=0.01)


def test_batched_self_play_repeats_for_its_seeds_and_reuses_trees_when_asked():
    """The same seeds give the same games, other seeds other games; reuse_tree reaches the search."""
    import dataclasses

    from alphazero_lib.model import ResNet
    from alphazero_lib.selfplay import play_batched

    config = _tiny_parallel_config(games_per_iteration=4, augment_symmetries=False, temperature=1.0)
    game = make_game("tictactoe")
    torch.manual_seed(0)
    model = ResNet(game, config.num_res_blocks, config.num_hidden).eval()

    def play_games(seed_parts, config=config):
        result = play_batched(game, model, config, 4, 2, seed_parts)
        return result.samples, result.search

    first, stats = play_games((7, 0))
    again, _ = play_games((7, 0))
    other, _ = play_games((8, 0))
    assert len(first) == len(again) and all(
        np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2] == b[2]
        for a, b in zip(first, again, strict=True)
    )
    assert len(first) != len(other) or any(not np.array_equal(a[1], b[1]) for a, b in zip(first, other, strict=True))
    assert stats["reused_roots"] == 0
    assert stats["simulations"] == stats["positions"] * config.search.num_searches  # the run's search settings
    _, reused = play_games((7, 0), dataclasses.replace(config, reuse_tree=True))
    assert reused["reused_roots"] > 0
