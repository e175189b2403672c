"""The run directory's one entry point (issue 26, item 1): ``open_run`` decides what a run trains without writing,
``Run.claimed`` holds the directory and names the checkpoint to continue from. The command line is a thin caller
(its behaviour is tested in test_hardening_runs*.py); these tests use the library the way a notebook would."""

from __future__ import annotations

import json

import pytest
from test_training import TINY

from alphazero_lib import make_game
from alphazero_lib.config import PRESETS, TrainConfig
from alphazero_lib.rundir import LOCK_NAME, open_run
from alphazero_lib.training import build_trainer


def train(run, iterations=None):
    trainer = build_trainer(run.game, run.config, run_dir=run.path, progress=False, overwrite=run.overwrite)
    with run.claimed() as (checkpoint, _):
        if checkpoint is not None:
            trainer.restore(checkpoint)
        trainer.learn()
    return trainer


def test_a_new_run_takes_the_games_preset_and_writes_nothing_until_claimed(tmp_path):
    out = tmp_path / "run"
    run = open_run(out, game="tictactoe")
    assert run.game == make_game("tictactoe") and not out.exists()  # deciding writes nothing
    assert run.config == TrainConfig.from_dict(PRESETS["tictactoe"])
    assert open_run(out, game="connect_four", preset="connect_four_fast").config.search.policy == "gumbel"
    with run.claimed() as (checkpoint, phrase):
        assert checkpoint is None and phrase == "a new run"
        assert json.loads((out / LOCK_NAME).read_text())["pid"] > 0  # held, naming its holder
    assert not (out / LOCK_NAME).exists()


def test_a_resume_continues_the_record_and_a_new_run_refuses_the_directory(tmp_path):
    out = tmp_path / "run"
    first = train(open_run(out, game="tictactoe", overrides=TINY))
    assert first.iteration == 1
    with pytest.raises(ValueError, match="already exists and is not empty; pass --resume"):
        open_run(out, game="tictactoe", overrides=TINY)
    run = open_run(out, resume=True, overrides={"num_iterations": 2}, say=lambda _: None)
    assert run.game == make_game("tictactoe") and run.config.num_hidden == 8 and run.config.num_iterations == 2
    with run.claimed() as (checkpoint, phrase):
        assert checkpoint == out / "latest.pt" and str(out / "latest.pt") in phrase
    assert train(run).iteration == 2
    changes = json.loads((out / "config.json").read_text())["changes"]
    assert changes == [{"iteration": 2, "field": "num_iterations", "old": 1, "new": 2}]
    with pytest.raises(ValueError, match="is a run for TicTacToe, not ConnectFour"):
        open_run(out, game="connect_four", resume=True)


def test_a_directory_holding_only_what_a_killed_first_write_leaves_is_a_fresh_directory(tmp_path):
    """A kill while the first config.json is written leaves its temporary file and the lock file: a new run
    starts there (and removes the temporary file), a resume says there is no run and how to start one."""
    out = tmp_path / "run"
    out.mkdir()
    (out / ".config.json.k1ll3d.tmp").write_text('{"game": {"na')
    (out / LOCK_NAME).write_text('{"pid": 99999999, "host": "gone"}\n')
    with pytest.raises(ValueError, match=r"holds no run \(no config.json, no checkpoint\); start one there with"):
        open_run(out, resume=True)
    trainer = train(open_run(out, game="tictactoe", overrides=TINY))
    assert trainer.iteration == 1 and not list(out.glob(".*.tmp"))
    assert json.loads((out / "config.json").read_text())["game"] == {"name": "tictactoe"}


def test_overwrite_replaces_and_resume_with_a_reshaped_network_is_refused(tmp_path):
    out = tmp_path / "run"
    train(open_run(out, game="tictactoe", overrides={**TINY, "num_iterations": 2}))
    with pytest.raises(ValueError, match="contradict each other"):
        open_run(out, resume=True, overwrite=True)
    settings = tmp_path / "wider.json"
    settings.write_text(json.dumps({"num_hidden": 16}))
    with pytest.raises(ValueError, match=r"sets num_hidden to 16, but the network of .* has 8 channels"):
        open_run(out, resume=True, config_file=settings)
    again = train(open_run(out, game="tictactoe", overrides=TINY, overwrite=True))
    assert again.iteration == 1 and not (out / "checkpoints" / "iter_0002.pt").exists()


def test_a_game_without_a_registry_description_is_refused_before_anything_is_written(tmp_path):
    """A learner's own class (notebook 6) trains in memory; a run directory must be able to rebuild its game."""

    class MyConnectFour:  # the course's API, not a registered library game
        row_count, column_count, action_size = 6, 7, 7

    out = tmp_path / "run"
    with pytest.raises(ValueError, match="MyConnectFour has no registry description"):
        open_run(out, game=MyConnectFour(), preset="connect_four_small")
    with pytest.raises(ValueError, match="train this one without a run directory"):
        build_trainer(MyConnectFour(), TrainConfig(num_res_blocks=1, num_hidden=8, device="cpu"), run_dir=out)
    assert not out.exists()


def test_a_resume_past_a_truncated_iteration_file_sets_it_aside_and_continues_bit_exact(tmp_path, capsys):
    """Issue 52, item 1: with latest.pt gone and the newest iter_NNNN.pt truncated (a fault while it was written),
    ``train --resume`` continues from the newest intact iteration, says which file it skipped and why, and renames
    the damaged file aside (never deleted). With a replay window of one iteration, the resumed iteration is the
    uninterrupted run's, bit for bit."""
    import torch

    from alphazero_lib.cli import main

    out, config = tmp_path / "run", tmp_path / "tiny.json"
    config.write_text(json.dumps({**TINY, "num_iterations": 3}))
    assert main(["train", "--game", "tictactoe", "--out", str(out), "--config", str(config), "--no-progress"]) == 0
    third = out / "checkpoints" / "iter_0003.pt"
    uninterrupted = torch.load(third, weights_only=True)["model"]
    (out / "latest.pt").unlink()
    truncated = third.read_bytes()[: third.stat().st_size // 2]
    third.write_bytes(truncated)
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert (
        "set aside the damaged checkpoints/iter_0003.pt as iter_0003.pt.damaged (kept, not deleted; is not a "
        "readable torch file (damaged or truncated?)" in printed
    ), printed
    assert "resuming from checkpoints/iter_0002.pt" in printed and "after iteration 2 of 3" in printed
    assert (out / "checkpoints" / "iter_0003.pt.damaged").read_bytes() == truncated  # kept as it was
    resumed = torch.load(third, weights_only=True)["model"]
    assert all(torch.equal(resumed[name], uninterrupted[name]) for name in uninterrupted)
    assert [r["iteration"] for r in json.loads((out / "history.json").read_text())] == [1, 2, 3]


@pytest.mark.parametrize("old_name", ["num_self_play_iterations", "num_selfPlay_iterations"])
@pytest.mark.parametrize("on_resume", ["the same value", "a changed value"])
def test_a_config_file_with_an_old_name_starts_and_resumes_with_the_same_command(tmp_path, capsys, old_name, on_resume):
    """Issue 52, item 7: a config file that names games_per_iteration by an older name (RENAMED) starts a run, and
    the same command with --resume continues it. Before, the resume merged the file over the run's recorded
    settings and was refused: "gives both 'num_self_play_iterations' and its present name 'games_per_iteration'".
    An old name and its present name are one setting; a changed value is applied and recorded as any change."""
    from alphazero_lib.cli import main
    from alphazero_lib.config import RENAMED

    assert RENAMED[old_name] == "games_per_iteration"
    settings = {**TINY, "num_iterations": 1, "batch_size": 16}
    del settings["games_per_iteration"]
    config, out = tmp_path / "tiny.json", tmp_path / "run"
    config.write_text(json.dumps({**settings, old_name: 2}))
    start = ["train", "--game", "tictactoe", "--config", str(config), "--out", str(out), "--seed", "1", "--no-progress"]
    assert main(start) == 0
    games = 2 if on_resume == "the same value" else 3
    config.write_text(json.dumps({**settings, old_name: games}))
    capsys.readouterr()
    assert main([*start, "--iterations", "2", "--resume"]) == 0, capsys.readouterr().err
    recorded = json.loads((out / "config.json").read_text())
    assert recorded["train_config"]["games_per_iteration"] == games
    assert old_name not in recorded["train_config"]
    assert [record["games"] for record in json.loads((out / "history.json").read_text())] == [2, games]
    changes = [change for change in recorded["changes"] if change["field"] == "games_per_iteration"]
    if games == 2:
        assert changes == []
    else:
        assert changes == [{"iteration": 2, "field": "games_per_iteration", "old": 2, "new": 3}]
        assert "resuming with a change: games_per_iteration 2 -> 3 (from iteration 2)" in capsys.readouterr().out


def test_an_old_name_beside_its_present_name_is_one_setting():
    """Given together (a settings file merged by hand with a run's record), the two names must agree."""
    from alphazero_lib.config import RENAMED

    for old_name in RENAMED:
        assert TrainConfig.from_dict({old_name: 7, "games_per_iteration": 7}).games_per_iteration == 7
        with pytest.raises(ValueError, match=rf"gives both '{old_name}' and its present name 'games_per_iteration', "):
            TrainConfig.from_dict({old_name: 7, "games_per_iteration": 8})
