"""The broken runs of notebook 5's curve-reading exercise: the shipped data is what ``tools/broken_runs.py``
records, and the bugs it plants do what they say (on hand-made games, without training)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from alphazero_lib import selfplay
from alphazero_lib.config import TrainConfig
from alphazero_lib.exercises import nb05_self_play as nb05
from alphazero_lib.games import TicTacToe
from alphazero_lib.selection import select_action

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import broken_runs  # noqa: E402

DATA = ROOT / "alphazero_lib" / "data" / "broken_runs.json"


@pytest.fixture(scope="module")
def shipped() -> dict:
    return json.loads(DATA.read_text())


@pytest.fixture(scope="module")
def positions() -> broken_runs.Positions:
    return broken_runs.all_positions()


# ---- the shipped data ---------------------------------------------------------------------------------------------
def test_the_shipped_data_is_what_the_script_records(shipped):
    assert DATA.stat().st_size < 50_000
    assert shipped["format"] == broken_runs.FORMAT
    assert list(shipped["runs"]) == list(broken_runs.RUNS)  # the five runs, the correct one first
    meta = shipped["metadata"]
    assert meta["base"] == broken_runs.BASE, "made with the script's default settings (its command reproduces it)"
    assert meta["command"].startswith("OMP_NUM_THREADS=1 python tools/broken_runs.py")
    assert meta["seed"] == broken_runs.BASE["seed"] == 0 and meta["preset"] == "tictactoe"
    assert meta["machine"] and meta["date"]
    assert meta["planted_outside_the_library"] == ["no_sign_flip", "temperature_unused"]
    assert set(meta["series"]) == set(broken_runs.SERIES)
    iterations = list(range(1, broken_runs.BASE["num_iterations"] + 1))
    for name, record in shipped["runs"].items():
        cause, planted, changes = broken_runs.RUNS[name]
        assert (record["cause"], record["planted"], record["changes"]) == (cause, planted, changes)
        # read as a run's config.json is read: a field added since (with today's behaviour as its default) is absent
        assert TrainConfig.from_dict(record["config"]) == broken_runs.run_config(name), name
        assert set(record["series"]) == {"iteration", *broken_runs.SERIES}
        assert record["series"]["iteration"] == iterations
        assert all(len(values) == len(iterations) for values in record["series"].values())
        assert record["wall_seconds"] > 0
    assert meta["wall_seconds"] == pytest.approx(sum(r["wall_seconds"] for r in shipped["runs"].values()), abs=0.2)


def test_the_exercise_labels_each_broken_run_once(shipped):
    assert sorted(nb05.LABELS.values()) == sorted(set(broken_runs.RUNS) - {"correct"})
    assert set(nb05.library_diagnosis().values()) == set(nb05.CAUSES)  # each cause names one run
    for label, run in nb05.LABELS.items():
        assert nb05._cause(run) == nb05.library_diagnosis()[label]  # the run's own name reads as its cause


def test_the_script_writes_what_the_notebook_reads(tmp_path):
    """A tiny run through ``main``: the file has the shipped data's keys, and a second call keeps the run."""
    out = tmp_path / "runs.json"
    args = ["--runs", "correct", "no_sign_flip", "--iterations", "1", "--games", "4", "--out", str(out)]
    assert broken_runs.main(args) == 0
    data = json.loads(out.read_text())
    shipped = json.loads(DATA.read_text())
    assert list(data) == list(shipped) and set(data["metadata"]) == set(shipped["metadata"])
    assert list(data["runs"]) == ["correct", "no_sign_flip"]
    for record in data["runs"].values():
        assert set(record) == set(shipped["runs"]["correct"])
        assert record["series"]["iteration"] == [1]
        assert 0 <= record["series"]["perfect_moves"][0] <= 1
    before = out.read_text()
    assert broken_runs.main(args) == 0  # resumed: both runs are kept, nothing is played again
    assert out.read_text() == before


# ---- the planted bugs ------------------------------------------------------------------------------------------
def x_wins_in_five() -> tuple[list, float, int]:
    """A hand-made game, X (1) on 0, 1, 2 and O (-1) on 3, 4: its history, the final value and the last mover."""
    game, state, history = TicTacToe(), TicTacToe().get_initial_state(), []
    for action, player in [(0, 1), (3, -1), (1, 1), (4, -1), (2, 1)]:
        probs = np.full(9, 1 / 9, dtype=np.float32)
        history.append((game.change_perspective(state, player), probs, player))
        state = game.get_next_state(state, action, player)
    value, over = game.get_value_and_terminated(state, 2)
    assert over and value == 1
    return history, float(value), 1


def test_the_sign_flip_bug_gives_every_position_the_last_movers_outcome():
    game = TicTacToe()
    history, value, last = x_wins_in_five()
    right = [float(v) for _, _, v in selfplay.game_samples(game, history, value, last, augment=False)]
    assert right == [1.0, -1.0, 1.0, -1.0, 1.0]
    with broken_runs.planted("no_sign_flip"):
        broken = [float(v) for _, _, v in selfplay.game_samples(game, history, value, last, augment=False)]
    assert broken == [1.0] * 5  # O's positions get X's win
    after = [float(v) for _, _, v in selfplay.game_samples(game, history, value, last, augment=False)]
    assert after == right, "the bug is gone after the run"


def test_the_temperature_bug_draws_from_the_untempered_visits():
    probs = np.array([0.7, 0.2, 0.1, 0.0], dtype=np.float32)
    draws = 3000
    with broken_runs.planted("temperature_unused"):
        assert selfplay.select_action is broken_runs.untempered_select_action
        rng = np.random.default_rng(0)
        cold = [selfplay.select_action(probs, 0.0, rng) for _ in range(draws)]  # T = 0 should always play 0
        warm = [selfplay.select_action(probs, 1.25, np.random.default_rng(s)) for s in range(200)]
    assert selfplay.select_action is select_action, "the bug is gone after the run"
    assert 0.25 < np.mean(np.array(cold) != 0) < 0.35  # drawn at T = 1: 30% of the draws are not the best move
    untempered = [int(np.random.default_rng(s).choice(4, p=probs / probs.sum())) for s in range(200)]
    assert warm == untempered
    assert [select_action(probs, 0.0, rng) for _ in range(100)] == [0] * 100


def test_the_trainers_batched_self_play_takes_the_planted_bugs():
    """``BatchedSelfPlay`` (the runs' self-play) reads ``select_action`` when made and ``outcome_for`` when a game
    ends: both patches reach it."""
    config = broken_runs.run_config("temperature_unused")
    with broken_runs.planted("temperature_unused"):
        games = selfplay.BatchedSelfPlay(TicTacToe(), None, config, 1, (0,), total=1, mcts=object())
    assert games.choose is broken_runs.untempered_select_action
    assert games.make_samples is selfplay.game_samples


def test_the_config_runs_change_one_setting_and_the_patched_runs_none():
    correct = broken_runs.run_config("correct")
    assert correct.search.dirichlet_epsilon == 0.25 and correct.replay_window == 2 and correct.temperature == 1.25
    assert correct.changes_from(TrainConfig.from_preset("tictactoe")).keys() == {
        "num_res_blocks",
        "num_hidden",
        "batch_size",
        "num_iterations",
        "self_play",
        "num_parallel_games",
        "device",
    }
    changes = {name: broken_runs.run_config(name).changes_from(correct) for name in broken_runs.RUNS}
    assert changes == {
        "correct": {},
        "no_sign_flip": {},
        "temperature_unused": {},
        "no_root_noise": {"search.dirichlet_epsilon": (0.25, 0.0)},
        "replay_window_1": {"replay_window": (2, 1)},
    }
    assert set(broken_runs.PATCHES) == {"no_sign_flip", "temperature_unused"}


# ---- the measures ----------------------------------------------------------------------------------------------
class FixedNet(torch.nn.Module):
    """Answers every position of ``Positions`` (in their order) with the given policy logits and values."""

    def __init__(self, logits: np.ndarray, values: np.ndarray) -> None:
        super().__init__()
        self.logits, self.values = torch.as_tensor(logits, dtype=torch.float32), torch.as_tensor(values)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        assert len(x) == len(self.logits)
        return self.logits, self.values.float()[:, None]


def test_every_position_and_its_exact_value(positions):
    assert len(positions.states) == 4520  # 5,478 legal positions, 958 of them finished
    assert np.all(positions.states.sum(axis=(1, 2)) <= 0)  # canonical: the mover (1) has not more pieces
    empty = np.flatnonzero(np.abs(positions.states).sum(axis=(1, 2)) == 0)
    assert len(empty) == 1 and positions.values[empty[0]] == 0  # perfect play draws
    assert np.all(positions.perfect[empty[0]])  # and every first move keeps the draw
    assert np.all(positions.perfect <= positions.legal) and np.all(positions.perfect.any(1))


def test_the_measures_score_a_perfect_and_a_hopeless_network(positions):
    illegal = np.where(positions.legal, 0.0, 5.0)  # an illegal move never counts, however large its logit
    perfect = FixedNet(np.where(positions.perfect, 1.0, 0.0) + illegal, positions.values)
    assert broken_runs.measure(perfect, positions) == {"perfect_moves": 1.0, "value_error": 0.0}
    # the worst legal move everywhere, value 0
    worst = np.where(positions.legal & ~positions.perfect, 1.0, 0.0) + illegal
    hopeless = FixedNet(worst, np.zeros(len(positions.values)))
    measured = broken_runs.measure(hopeless, positions)
    assert measured["perfect_moves"] == 0.0
    assert measured["value_error"] == pytest.approx(np.mean(positions.values**2))


def test_distinct_positions_count_symmetric_copies_once():
    game = TicTacToe()
    state = game.get_next_state(game.get_initial_state(), 0, 1)  # X in a corner
    probs = np.full(9, 1 / 9, dtype=np.float32)
    samples = selfplay.game_samples(game, [(state, probs, -1)], 1.0, 1, augment=True)
    assert len(samples) == 8 and broken_runs.distinct_positions(samples) == 1
    centre = selfplay.game_samples(
        game, [(game.get_next_state(game.get_initial_state(), 4, 1), probs, -1)], 1.0, 1, augment=True
    )
    assert broken_runs.distinct_positions(samples + centre) == 2
