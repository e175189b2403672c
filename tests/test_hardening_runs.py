"""Issue 16, item 1: a run directory is never overwritten, and a run killed at any instant resumes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
import torch

from alphazero_lib import make_game
from alphazero_lib.cli import main
from alphazero_lib.config import TrainConfig
from alphazero_lib.training import build_trainer

TINY = dict(
    num_res_blocks=1,
    num_hidden=8,
    num_searches=5,
    games_per_iteration=2,
    num_iterations=1,
    num_epochs=1,
    batch_size=16,
    device="cpu",
)


def start_run(tmp_path, iterations: int = 2):
    """A CLI run of ``iterations`` tiny iterations in ``tmp_path / "run"``; returns the run directory."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps(TINY))
    out = tmp_path / "run"
    args = ["train", "--game", "tictactoe", "--out", str(out), "--config", str(config), "--no-progress"]
    assert main([*args, "--iterations", str(iterations)]) == 0
    return out


def test_resume_without_latest_continues_from_the_newest_iteration_and_keeps_it(tmp_path, capsys):
    out = start_run(tmp_path)
    (out / "latest.pt").unlink()
    kept = (out / "checkpoints" / "iter_0001.pt").read_bytes()
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--iterations", "3", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "resuming" in printed and "after iteration 2 of 3" in printed and "iter_0002.pt" in printed
    assert "iteration 3/3" in printed and "iteration 1/3" not in printed
    assert (out / "checkpoints" / "iter_0001.pt").read_bytes() == kept
    assert [r["iteration"] for r in json.loads((out / "history.json").read_text())] == [1, 2, 3]


def test_resume_skips_a_damaged_newest_checkpoint(tmp_path, capsys):
    out = start_run(tmp_path)
    (out / "latest.pt").unlink()
    newest = out / "checkpoints" / "iter_0002.pt"
    newest.write_bytes(newest.read_bytes()[:1000])
    from alphazero_lib.rundir import find_resume_checkpoint

    path, note = find_resume_checkpoint(out)
    assert path == out / "checkpoints" / "iter_0001.pt"
    assert "skipped damaged iter_0002.pt" in note


def test_a_fresh_trainer_refuses_a_directory_holding_a_run_unless_told_to_overwrite(tmp_path):
    out = start_run(tmp_path, iterations=1)
    config = TrainConfig.from_dict(TINY)
    trainer = build_trainer(make_game("tictactoe"), config, run_dir=out, progress=False)
    before = (out / "checkpoints" / "iter_0001.pt").read_bytes()
    with pytest.raises(ValueError, match=r"already holds a run .*overwrite=True"):
        trainer.learn()
    assert (out / "checkpoints" / "iter_0001.pt").read_bytes() == before
    trainer = build_trainer(make_game("tictactoe"), config, run_dir=out, progress=False, overwrite=True)
    trainer.learn()
    assert trainer.iteration == 1


def test_cli_overwrite_flag_starts_afresh(tmp_path, capsys):
    out = start_run(tmp_path, iterations=2)
    config = tmp_path / "tiny.json"
    args = ["train", "--game", "tictactoe", "--out", str(out), "--config", str(config), "--no-progress"]
    assert main(args) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main([*args, "--overwrite"]) == 0
    assert not (out / "checkpoints" / "iter_0002.pt").exists()  # the old run's later iteration is gone
    assert [r["iteration"] for r in json.loads((out / "history.json").read_text())] == [1]


def test_stale_temporary_files_are_removed(tmp_path, capsys):
    out = start_run(tmp_path, iterations=1)
    stale = [out / ".latest.pt.abc123.tmp", out / "checkpoints" / ".iter_0002.pt.x1.tmp"]
    for path in stale:
        path.write_bytes(b"\0" * 1000)
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--iterations", "2", "--no-progress"]) == 0
    assert "removed .latest.pt.abc123.tmp" in capsys.readouterr().out
    assert not any(path.exists() for path in stale)


KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    import alphazero_lib.rundir as rundir
    from alphazero_lib.cli import main

    mode, out, config = sys.argv[1:4]
    real, calls = rundir.save_checkpoint, []

    def save_checkpoint(path, checkpoint):
        calls.append(path)
        if len(calls) == 4 and mode == "during-second":  # a half-written temporary file, then death
            Path(path).parent.joinpath(f".{Path(path).name}.killed.tmp").write_bytes(b"partial")
            os.kill(os.getpid(), signal.SIGKILL)
        result = real(path, checkpoint)
        if len(calls) == 3 and mode == "between":  # iteration 2: first file written, second not yet
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    rundir.save_checkpoint = save_checkpoint  # the run directory writes every checkpoint
    main(["train", "--game", "tictactoe", "--out", out, "--config", config, "--iterations", "2", "--no-progress"])
    """
)


@pytest.mark.parametrize("mode", ["between", "during-second"])
def test_a_run_killed_between_the_two_writes_resumes_from_the_last_complete_iteration(tmp_path, capsys, mode):
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps(TINY))
    out = tmp_path / "run"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, mode, str(out), str(config)], capture_output=True, text=True, env=env
    )
    assert killed.returncode == -9, killed.stderr
    assert main(["train", "--out", str(out), "--resume", "--iterations", "3", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "after iteration 2 of 3" in printed and "from " + str(out / "latest.pt") in printed
    assert not list(out.glob(".*.tmp")) and not list((out / "checkpoints").glob(".*.tmp"))
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [f"iter_000{i}.pt" for i in (1, 2, 3)]
    assert [r["iteration"] for r in json.loads((out / "history.json").read_text())] == [1, 2, 3]

    straight = start_run(tmp_path / "straight", iterations=3)
    resumed_weights = torch.load(out / "latest.pt", weights_only=True)["model"]
    for key, value in torch.load(straight / "latest.pt", weights_only=True)["model"].items():
        torch.testing.assert_close(resumed_weights[key], value, msg=key)
