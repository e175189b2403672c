"""The run directory (rundir.py). Its one entry point (issue 26, item 1): ``open_run`` decides what a run trains
without writing, ``Run.claimed`` holds the directory and names the checkpoint to continue from; the first tests use
the library the way a notebook would. Then what the command line and a trainer do with a run's files (issues 16 and
28): a run directory is never overwritten and is owned by one trainer at a time, a run killed at any instant
resumes, a resume never ignores what it was told, and failures name the path and what to do. The lock and kill tests
run real processes (tiny Tic-Tac-Toe runs, a few seconds each)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

from alphazero_lib import make_game
from alphazero_lib.cli import main
from alphazero_lib.config import PRESETS, TrainConfig
from alphazero_lib.rundir import LOCK_NAME, Run, open_run
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


ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def tiny_config(tmp_path: Path, **changes) -> Path:
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({**TINY, **changes}))
    return config


def train_run(tmp_path: Path, iterations: int = 2, name: str = "run") -> Path:
    """A finished CLI run of ``iterations`` tiny iterations in ``tmp_path / name``."""
    out = tmp_path / name
    args = ["train", "--game", "tictactoe", "--out", str(out), "--config", str(tiny_config(tmp_path)), "--no-progress"]
    assert main([*args, "--iterations", str(iterations)]) == 0
    return out


@pytest.fixture(scope="module")
def finished_runs(tmp_path_factory) -> dict[int, Path]:
    """Finished tiny runs of 1 and 2 iterations, trained once for the module (tests copy them)."""
    base = tmp_path_factory.mktemp("finished")
    return {n: train_run(base, n, f"run{n}") for n in (1, 2)}


@pytest.fixture
def start_run(tmp_path, finished_runs):
    """``start_run(tmp_path, iterations)``: a copy of a finished run in ``tmp_path / "run"`` (config file beside)."""
    import shutil

    def copy(where: Path, iterations: int = 2) -> Path:
        tiny_config(where)
        out = where / "run"
        shutil.copytree(finished_runs[iterations], out)
        config = json.loads((out / "config.json").read_text())
        assert config["train_config"]["num_iterations"] == iterations
        return out

    return copy


def iterations_in(run: Path) -> list[int]:
    return [r["iteration"] for r in json.loads((run / "history.json").read_text())]


def train(run, iterations=None):
    trainer = build_trainer(run.game, run.config, progress=False, run=run)
    trainer.learn()  # resumes where the run stopped
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
    with pytest.raises(
        ValueError, match=r"already holds a run; continue it \(resume\), replace its checkpoints \(overwrite"
    ):
        open_run(out, game="tictactoe", overrides=TINY)
    run = open_run(out, resume=True, overrides={"num_iterations": 2}, say=lambda _: None)
    assert run.game == make_game("tictactoe") and run.config.num_hidden == 8 and run.config.num_iterations == 2
    with run.claimed() as (checkpoint, phrase):
        assert checkpoint == out / "latest.pt" and str(out / "latest.pt") in phrase
    trainer = build_trainer(run.game, run.config, progress=False, run=run)
    checkpoint, phrase = trainer.resume(say=lambda _: None)  # what learn does first, and only once
    assert checkpoint == out / "latest.pt" and trainer.iteration == 1 and trainer.replay
    trainer.learn()
    assert trainer.iteration == 2
    changes = json.loads((out / "config.json").read_text())["changes"]
    assert changes == [{"iteration": 2, "field": "num_iterations", "old": 1, "new": 2}]  # said once
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
        Run.at(out, MyConnectFour(), TrainConfig(num_res_blocks=1, num_hidden=8, device="cpu"))
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


# ---- a run's files, as the command line and a trainer use them (issues 16 and 28) ------------------------------------
def test_train_out_an_existing_file(tmp_path, one_line_error):
    (tmp_path / "file").write_text("x")
    err = one_line_error(["train", "--game", "tictactoe", "--out", str(tmp_path / "file")])
    assert f"--out {tmp_path / 'file'} is a file, not a run directory" in err  # open_run's "out", as its flag


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"num_searches": 5,}', "is not valid JSON"),
        ("[1, 2]", "must hold a JSON object of settings at the top level, not a list"),
        ('{"lr": Infinity}', "TrainConfig.lr must be a finite number, got inf"),
        ('{"augment_symmetries": "no"}', "augment_symmetries must be true or false"),
    ],
)
def test_train_config_files_errors_name_the_file(tmp_path, capsys, text, message):
    config = tmp_path / "settings.json"
    config.write_text(text)
    out = tmp_path / "run"
    assert main(["train", "--game", "tictactoe", "--out", str(out), "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    if "JSON" in message:
        assert str(config) in err


def test_resume_with_a_broken_config_json_names_it(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "config.json").write_text("{oops")
    assert main(["train", "--out", str(out), "--resume"]) == 2
    assert f"{out / 'config.json'} is not valid JSON" in capsys.readouterr().err


# ---- a run directory is never overwritten, and a run killed at any instant resumes (issue 16) ------------------------
def test_resume_without_latest_continues_from_the_newest_iteration_and_keeps_it(tmp_path, capsys, start_run):
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


def test_resume_skips_a_damaged_newest_checkpoint(tmp_path, capsys, start_run):
    out = start_run(tmp_path)
    (out / "latest.pt").unlink()
    newest = out / "checkpoints" / "iter_0002.pt"
    newest.write_bytes(newest.read_bytes()[:1000])
    from alphazero_lib.rundir import find_resume_checkpoint

    path, note = find_resume_checkpoint(out)
    assert path == out / "checkpoints" / "iter_0001.pt"
    assert "skipped damaged iter_0002.pt" in note


def test_a_fresh_trainer_refuses_a_directory_holding_a_run_unless_told_to_overwrite(tmp_path, start_run):
    out = start_run(tmp_path, iterations=1)
    config = TrainConfig.from_dict(TINY)
    trainer = build_trainer(
        make_game("tictactoe"), config, progress=False, run=Run.at(out, make_game("tictactoe"), config)
    )
    before = (out / "checkpoints" / "iter_0001.pt").read_bytes()
    with pytest.raises(ValueError, match=r"already holds a run .*replace it \(overwrite\)"):
        trainer.learn()
    assert (out / "checkpoints" / "iter_0001.pt").read_bytes() == before
    run = Run.at(out, make_game("tictactoe"), config, overwrite=True)
    trainer = build_trainer(make_game("tictactoe"), config, progress=False, run=run)
    trainer.learn()
    assert trainer.iteration == 1


def test_cli_overwrite_flag_starts_afresh(tmp_path, capsys, start_run):
    out = start_run(tmp_path, iterations=2)
    config = tmp_path / "tiny.json"
    args = ["train", "--game", "tictactoe", "--out", str(out), "--config", str(config), "--no-progress"]
    assert main(args) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main([*args, "--overwrite"]) == 0
    assert not (out / "checkpoints" / "iter_0002.pt").exists()  # the old run's later iteration is gone
    assert [r["iteration"] for r in json.loads((out / "history.json").read_text())] == [1]


def test_stale_temporary_files_are_removed(tmp_path, capsys, start_run):
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

    straight = train_run(tmp_path, 3, "straight")
    resumed_weights = torch.load(out / "latest.pt", weights_only=True)["model"]
    for key, value in torch.load(straight / "latest.pt", weights_only=True)["model"].items():
        torch.testing.assert_close(resumed_weights[key], value, msg=key)


# ---- a run directory is owned by one trainer at a time (issue 28) ----------------------------------------------------
# A trainer that stops in its first self-play iteration until the test lets it go: it writes READY (holding the
# lock by then), waits for RELEASE, then trains on. argv: READY RELEASE then the command line's arguments.
PAUSING_TRAINER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import alphazero_lib.training as training
    from alphazero_lib.cli import main

    ready, release, argv = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
    real = training.AlphaZero.self_play_iteration

    def self_play_iteration(self):
        if not ready.exists():
            ready.write_text(str(self.run_dir))
            deadline = time.time() + 60
            while not release.exists() and time.time() < deadline:
                time.sleep(0.05)
        return real(self)

    training.AlphaZero.self_play_iteration = self_play_iteration
    sys.exit(main(argv))
    """
)


def pausing_trainer(tmp_path: Path, tag: str, argv: list[str]) -> tuple[subprocess.Popen, Path, Path]:
    ready, release = tmp_path / f"{tag}.ready", tmp_path / f"{tag}.release"
    process = subprocess.Popen(
        [sys.executable, "-c", PAUSING_TRAINER, str(ready), str(release), *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    return process, ready, release


def wait_for(condition, seconds: float = 60.0) -> None:
    deadline = time.time() + seconds
    while not condition():
        if time.time() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def test_two_trainers_started_at_once_into_one_new_run_one_trains_the_other_is_refused(tmp_path):
    out, config = tmp_path / "run", tiny_config(tmp_path)
    argv = ["train", "--game", "tictactoe", "--out", str(out), "--config", str(config), "--iterations", "2"]
    first = pausing_trainer(tmp_path, "a", [*argv, "--no-progress"])
    second = pausing_trainer(tmp_path, "b", [*argv, "--no-progress"])
    processes = {"a": first, "b": second}
    wait_for(lambda: first[1].exists() or second[1].exists())
    holder = "a" if first[1].exists() else "b"
    other = "b" if holder == "a" else "a"
    try:
        refused = processes[other][0].wait(timeout=60)  # the other one stops at once, while the holder waits
        err = processes[other][0].stderr.read()
        lock = json.loads((out / "train.lock").read_text())
        assert lock["pid"] == processes[holder][0].pid
    finally:
        for _, _, release in processes.values():
            release.write_text("go")
    assert processes[holder][0].wait(timeout=120) == 0, processes[holder][0].stderr.read()
    assert refused == 2, err
    assert f"{out} is in use by another trainer: pid {processes[holder][0].pid} on this machine" in err
    assert "wait for it to finish or stop it" in err and len(err.strip().splitlines()) == 1
    assert iterations_in(out) == [1, 2] and not (out / "train.lock").exists()


def test_a_resume_while_the_run_trains_is_refused_and_a_dead_holder_does_not_block(tmp_path, capsys, start_run):
    out = start_run(tmp_path, iterations=1)
    before = (out / "latest.pt").read_bytes()
    argv = ["train", "--out", str(out), "--resume", "--iterations", "3", "--no-progress"]
    process, ready, _ = pausing_trainer(tmp_path, "a", argv)
    try:
        wait_for(ready.exists)
        assert main(["train", "--out", str(out), "--resume", "--iterations", "5", "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert f"in use by another trainer: pid {process.pid} on this machine" in err
        assert "train --out" in err  # the holder's command line
        assert (out / "latest.pt").read_bytes() == before  # the refused trainer wrote nothing
    finally:
        process.send_signal(signal.SIGKILL)  # the holder dies holding the lock
        process.wait(timeout=60)
    assert json.loads((out / "train.lock").read_text())["pid"] == process.pid  # its lock file stays behind
    assert main(["train", "--out", str(out), "--resume", "--iterations", "2", "--no-progress"]) == 0
    assert "resuming" in capsys.readouterr().out
    assert iterations_in(out) == [1, 2] and not (out / "train.lock").exists()


def test_a_library_trainer_takes_the_lock_too(tmp_path):
    from alphazero_lib import make_game
    from alphazero_lib.config import TrainConfig
    from alphazero_lib.training import RunDirLocked, build_trainer, run_lock

    out = tmp_path / "run"
    config = TrainConfig.from_dict(TINY)
    trainer = build_trainer(
        make_game("tictactoe"), config, progress=False, run=Run.at(out, make_game("tictactoe"), config)
    )
    process = subprocess.Popen(  # another process holds the lock
        [
            sys.executable,
            "-c",
            "import sys, time; from alphazero_lib.training import run_lock\n"
            "with run_lock(sys.argv[1]):\n    print('held', flush=True); time.sleep(60)",
            str(out),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        assert process.stdout.readline().strip() == "held"
        with pytest.raises(RunDirLocked, match=f"pid {process.pid} on this machine"):
            trainer.learn()
        assert not (out / "latest.pt").exists()
    finally:
        process.kill()
        process.wait()
    with run_lock(out), run_lock(out):  # re-entrant in one process
        trainer.learn()
    assert trainer.iteration == 1 and not (out / "train.lock").exists()


# A run whose PNG encoder dies (SIGKILL) half-way through writing iteration 2's loss.png.
KILLED_IN_PNG = textwrap.dedent(
    """
    import os, signal, sys
    from PIL import PngImagePlugin
    from alphazero_lib.cli import main

    out, config = sys.argv[1:3]
    real = PngImagePlugin._save

    def _save(im, fp, filename, *args, **kwargs):
        if os.path.exists(os.path.join(out, "checkpoints", "iter_0002.pt")):
            fp.write(b"\\x89PNG\\r\\n\\x1a\\n half a picture")
            fp.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        return real(im, fp, filename, *args, **kwargs)

    PngImagePlugin._save = _save
    PngImagePlugin.Image.register_save("PNG", _save)
    main(["train", "--game", "tictactoe", "--out", out, "--config", config, "--iterations", "2", "--no-progress"])
    """
)


def test_a_kill_while_loss_png_is_written_leaves_the_previous_picture_whole(tmp_path):
    from PIL import Image

    out = tmp_path / "run"
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_IN_PNG, str(out), str(tiny_config(tmp_path))],
        capture_output=True,
        text=True,
        env=ENV,
    )
    assert killed.returncode == -9, killed.stderr
    with Image.open(out / "loss.png") as picture:  # iteration 1's picture, whole
        picture.load()
        assert picture.size[0] > 100
    assert iterations_in(out) == [1, 2]  # the kill came after iteration 2's checkpoints and history


def test_an_infinite_loss_stops_the_iteration_and_keeps_the_last_good_checkpoint(
    tmp_path, capsys, monkeypatch, start_run
):
    import alphazero_lib.training as training

    out = start_run(tmp_path, iterations=1)
    kept = {name: (out / name).read_bytes() for name in ("latest.pt", "history.json", "loss.png")}
    real = training.F.mse_loss
    monkeypatch.setattr(training.F, "mse_loss", lambda out, target: real(out, target) * float("inf"))
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--iterations", "3", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "error: training diverged in iteration 2 (epoch 1 of 1): the loss became inf at minibatch 1 of" in err
    assert f"nothing from this iteration was saved and {out / 'latest.pt'} still holds iteration 1" in err
    assert "lower the learning rate (lr is 0.001), e.g. resume with --resume --lr 0.0001" in err
    assert {name: (out / name).read_bytes() for name in kept} == kept
    assert not (out / "checkpoints" / "iter_0002.pt").exists() and not (out / "train.lock").exists()
    monkeypatch.setattr(training.F, "mse_loss", real)
    assert main(["train", "--out", str(out), "--resume", "--iterations", "2", "--no-progress"]) == 0
    assert iterations_in(out) == [1, 2]


# ---- a resume never ignores what it was told (issue 28) --------------------------------------------------------------
def test_resume_with_a_config_file_applies_it_as_a_change_and_says_so(tmp_path, capsys, start_run):
    out = start_run(tmp_path, iterations=1)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"num_epochs": 2, "search": {"num_searches": 7}}))
    capsys.readouterr()
    argv = ["train", "--out", str(out), "--resume", "--iterations", "2", "--no-progress", "--config", str(other)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert f"resuming with config_file {other} applied to the run's recorded settings: 2 change(s)" in printed
    assert "resuming with a change: num_epochs 1 -> 2" in printed
    assert "resuming with a change: search.num_searches 5 -> 7" in printed
    recorded = json.loads((out / "config.json").read_text())
    assert recorded["train_config"]["num_epochs"] == 2 and recorded["train_config"]["search"]["num_searches"] == 7
    assert recorded["train_config"]["num_hidden"] == 8  # what the file left out keeps the run's value
    assert {c["field"] for c in recorded["changes"]} >= {"num_epochs", "search.num_searches"}


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--config", "{wide}"], "--config {wide} sets num_hidden to 16, but the network of {out} has 8 channels"),
        (["--preset", "tictactoe"], "--preset tictactoe sets num_res_blocks to 4, but the network of {out} has 1"),
        (["--channels", "16"], "the settings given set --channels to 16, but the network of {out} has 8 channels"),
        (["--res-blocks", "2"], "given set --res-blocks to 2, but the network of {out} has 1 residual blocks"),
    ],
)
def test_resume_refuses_settings_that_would_reshape_the_network(tmp_path, capsys, flags, message, start_run):
    out = start_run(tmp_path, iterations=1)
    wide = tmp_path / "wide.json"
    wide.write_text(json.dumps({**TINY, "num_hidden": 16}))
    flags = [f.format(wide=wide) for f in flags]
    before = (out / "latest.pt").read_bytes()
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--no-progress", *flags]) == 2
    err = capsys.readouterr().err
    assert message.format(wide=wide, out=out) in err and "start a new run with these settings" in err
    assert (out / "latest.pt").read_bytes() == before


def _damage(checkpoint: dict, how: str) -> None:
    import torch

    if how == "nan in the replay":
        checkpoint["replay"][0]["values"][0] = float("nan")
    elif how == "a value past [-1, 1]":
        checkpoint["replay"][0]["values"][0] = 1.5
    elif how == "absurd iteration":
        checkpoint["iteration"] = 1_000_000
    elif how == "iteration beyond its history":
        checkpoint["iteration"] = 5
    elif how == "no optimizer":
        del checkpoint["optimizer"]
    elif how == "malformed replay":
        checkpoint["replay"] = [{"states": torch.zeros(3), "policies": torch.zeros(3), "values": torch.zeros(3)}]
    elif how == "replay not a list":
        checkpoint["replay"] = "oops"
    elif how == "negative variance":
        name = next(k for k in checkpoint["model"] if k.endswith("running_var"))
        checkpoint["model"][name][0] = -1.0


DAMAGE = {
    "nan in the replay": "(iteration 1 of 1 in it): it holds NaN or infinite values",
    "a value past [-1, 1]": "(iteration 1 of 1 in it): states must be 0/1 planes and values in [-1, 1]",
    "absurd iteration": "claims iteration 1000000, not a whole number from 0 to 100,000",
    "iteration beyond its history": "claims iteration 5, but its history records 2 iterations",
    "no optimizer": "has no optimizer state, which a resume needs",
    "malformed replay": "malformed replay buffer (iteration 1 of 1 in it): shapes (3,), (3,), (3,)",
    "replay not a list": "malformed replay buffer: a str, not a list",
    "negative variance": "holds negative variances",
}


@pytest.mark.parametrize("how", list(DAMAGE))
def test_an_impossible_latest_pt_falls_back_to_the_newest_intact_iteration(tmp_path, how, start_run):
    import torch

    from alphazero_lib.rundir import find_resume_checkpoint

    out = start_run(tmp_path, iterations=2)
    checkpoint = torch.load(out / "latest.pt", weights_only=True)
    _damage(checkpoint, how)
    torch.save(checkpoint, out / "latest.pt")
    path, note = find_resume_checkpoint(out)
    assert path == out / "checkpoints" / "iter_0002.pt"
    assert "the newest intact iteration (latest.pt is missing, damaged or older" in note
    assert "skipped damaged latest.pt (" in note and DAMAGE[how] in note, note


def test_a_resume_from_a_latest_pt_with_nan_in_its_replay_says_why_and_trains_on(tmp_path, capsys, start_run):
    import torch

    out = start_run(tmp_path, iterations=1)
    checkpoint = torch.load(out / "latest.pt", weights_only=True)
    _damage(checkpoint, "nan in the replay")
    torch.save(checkpoint, out / "latest.pt")
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--iterations", "2", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "after iteration 1 of 2, from " + str(out / "checkpoints" / "iter_0001.pt") in printed
    assert "skipped damaged latest.pt (has a malformed replay buffer (iteration 1 of 1 in it): it holds NaN" in printed
    assert iterations_in(out) == [1, 2]


def test_a_latest_pt_whose_values_overshoot_by_rounding_resumes_with_its_replay_clipped(tmp_path, capsys, start_run):
    """Tree reuse once counted a kept root's evaluation twice: value targets of 1.0012 reached latest.pt, and every
    resume of such a run skipped it (and its replay buffer) as damaged. Such a file resumes, its values clipped."""
    import torch

    from alphazero_lib.checkpoints import TrainingState

    out = start_run(tmp_path, iterations=1)
    checkpoint = torch.load(out / "latest.pt", weights_only=True)
    values = checkpoint["replay"][0]["values"]
    values[0], values[1] = 1.0012, -1.0012
    torch.save(checkpoint, out / "latest.pt")
    seen = {}
    real_load = TrainingState.load

    def load(self, *args):
        real_load(self, *args)
        seen["values"] = [v for games in self.replay for _, _, v in games]

    capsys.readouterr()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TrainingState, "load", load)
        assert main(["train", "--out", str(out), "--resume", "--iterations", "2", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "skipped damaged" not in printed and "2 value targets of its replay buffer lay past [-1, 1]" in printed
    assert len(seen["values"]) == len(values) and seen["values"][:2] == [1.0, -1.0]
    assert max(abs(v) for v in seen["values"]) == 1.0
    assert iterations_in(out) == [1, 2]


def _advised_command(err: str) -> list[str]:
    """The command an error message advises (``python -m alphazero_lib train ...``), as main's argv."""
    import re

    found = re.search(r"python -m alphazero_lib (train [^()]*?)(?: \(|, or |$)", err.strip())
    assert found, err
    return found.group(1).replace("GAME", "tictactoe").split()


def test_every_checkpoint_damaged_gets_advice_the_next_command_accepts(tmp_path, capsys, start_run):
    out = start_run(tmp_path, iterations=2)
    for path in [out / "latest.pt", *(out / "checkpoints").iterdir()]:
        path.write_bytes(path.read_bytes()[:500])
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"nothing intact to resume in {out}: no intact checkpoint" in err and "--overwrite" in err
    advised = _advised_command(err)
    assert advised == ["train", "--out", str(out), "--config", str(out / "config.json"), "--overwrite"]
    assert main([*advised, "--no-progress"]) == 0  # the run's own settings, from iteration 0
    assert (
        iterations_in(out) == [1, 2]
        and json.loads((out / "config.json").read_text())["train_config"]["num_hidden"] == 8
    )


def test_a_deleted_config_json_resumes_from_the_checkpoints_record(tmp_path, capsys, start_run):
    out = start_run(tmp_path, iterations=1)
    (out / "config.json").unlink()
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--iterations", "2", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert f"{out} has no config.json: resuming with the settings recorded in latest.pt" in printed
    assert iterations_in(out) == [1, 2] and (out / "config.json").is_file()


@pytest.mark.parametrize("contents", ["damaged checkpoints", "stale temporary files", "nothing"])
def test_a_run_directory_without_config_json_gets_advice_the_next_command_accepts(
    tmp_path, capsys, contents, start_run
):
    out = tmp_path / "run"
    if contents == "damaged checkpoints":
        out = start_run(tmp_path, iterations=1)
        (out / "config.json").unlink()
        for path in [out / "latest.pt", *(out / "checkpoints").iterdir()]:
            path.write_bytes(b"\0" * 100)
    elif contents == "stale temporary files":
        (out / "checkpoints").mkdir(parents=True)
        (out / ".latest.pt.x1.tmp").write_bytes(b"\0" * 100)
        (out / "checkpoints" / ".iter_0001.pt.x2.tmp").write_bytes(b"\0" * 100)
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "nothing to resume" in err and len(err.strip().splitlines()) == 1
    advised = _advised_command(err)
    assert ("--overwrite" in advised) == (contents == "damaged checkpoints")
    assert main([*advised, "--config", str(tiny_config(tmp_path)), "--no-progress"]) == 0
    assert iterations_in(out) == [1]


def test_config_json_with_malformed_changes_or_settings(tmp_path, capsys, start_run):
    out = start_run(tmp_path, iterations=1)
    recorded = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({**recorded, "changes": 5}))
    assert main(["train", "--out", str(out), "--resume", "--iterations", "2", "--no-progress"]) == 0
    assert "'changes' is not a list of changes; it is written afresh" in capsys.readouterr().out
    assert isinstance(json.loads((out / "config.json").read_text()).get("changes", []), list)
    (out / "config.json").write_text(json.dumps({**recorded, "train_config": [1, 2]}))
    assert main(["train", "--out", str(out), "--resume", "--no-progress"]) == 2
    assert "is not a run's config: it needs a 'game' object and a 'train_config' object" in capsys.readouterr().err


def test_ray_flags_are_never_ignored(tmp_path, capsys, start_run):
    out = start_run(tmp_path, iterations=1)
    assert main(["train", "--out", str(out), "--resume", "--ray-cpus", "2", "--no-progress"]) == 2
    assert "--ray-cpus sets the CPUs of each Ray actor" in capsys.readouterr().err
    try:
        import ray  # noqa: F401
    except ImportError:
        new = tmp_path / "new"
        args = ["train", "--game", "tictactoe", "--out", str(new), "--ray", "--config", str(tiny_config(tmp_path))]
        assert main(args) == 2
        err = capsys.readouterr().err
        assert '-m pip install "ray==' in err and "or train without --ray" in err
        assert not new.exists()  # nothing written before the error


def test_a_stop_file_ends_the_run_after_the_iteration_in_progress_and_a_resume_goes_on(tmp_path, capsys, start_run):
    """A run in the background is stopped between iterations by ``touch RUN/STOP`` (a signal to the main process
    alone left its self-play workers running): the iteration is saved, the file removed, and a resume goes on."""
    out = start_run(tmp_path, iterations=1)
    (out / "STOP").touch()
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--iterations", "3", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert f"stopping after iteration 2, as {out / 'STOP'} asked (removed; --resume goes on from here)" in printed
    assert iterations_in(out) == [1, 2] and not (out / "STOP").exists()
    assert (out / "checkpoints" / "iter_0002.pt").is_file()
    assert main(["train", "--out", str(out), "--resume", "--no-progress"]) == 0
    assert iterations_in(out) == [1, 2, 3]


# ---- read-only, permission and full-disk failures in a run say which path and what to do (issue 28) ------------------
def test_a_full_disk_while_saving_names_the_file_and_keeps_the_last_checkpoint(
    tmp_path, capsys, monkeypatch, start_run
):
    import errno

    out = start_run(tmp_path, iterations=1)
    before = (out / "latest.pt").read_bytes()
    real_fsync = os.fsync

    def fsync(fd):  # the disk fills up while latest.pt's temporary file is flushed
        if ".latest.pt." in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--iterations", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot write {out / 'latest.pt'}: the disk is full (No space left on device); ")
    assert f"free some space or write somewhere else, then run this again; {out / 'latest.pt'} was left as it" in err
    assert (out / "latest.pt").read_bytes() == before
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")] and not (out / "train.lock").exists()


def test_a_file_where_a_directory_is_expected_and_the_reverse(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "checkpoints").write_text("not a directory")
    args = ["train", "--game", "tictactoe", "--out", str(run), "--config", str(tiny_config(tmp_path)), "--overwrite"]
    assert main([*args, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"{run / 'checkpoints'} is a file where a directory is expected; move it away or pick another path" in err
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    assert main(["export-kaggle", "--weights", "connect_four", "--out", str(blocker / "sub.py")]) == 2
    assert f"{blocker} is a file where a directory is expected" in capsys.readouterr().err
    assert main(["train", "--game", "tictactoe", "--out", str(tmp_path / "r"), "--config", str(tmp_path)]) == 2
    assert f"{tmp_path} is a directory, not a JSON file of settings" in capsys.readouterr().err


# As a user who may not write there (root may write anywhere): three commands, one error line each.
AS_ANOTHER_USER = textwrap.dedent(
    """
    import contextlib, io, sys
    from alphazero_lib.cli import main

    locked, run, config, secret = sys.argv[1:5]
    for argv in (
        ["train", "--game", "tictactoe", "--out", locked + "/new", "--config", config, "--no-progress"],
        ["export-kaggle", "--weights", "connect_four", "--out", locked + "/submission.py", "--searches", "2"],
        ["train", "--out", run, "--resume", "--iterations", "2", "--no-progress"],
        ["train", "--game", "tictactoe", "--out", run + "2", "--config", secret + ".json", "--no-progress"],
        ["arena", "--game", "tictactoe", "--player1", "policy:" + secret + ".pt", "--player2", "random"],
    ):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(argv)
        print(code, err.getvalue().strip())
    """
)


def test_permission_denied_in_a_real_process_names_the_directory(tmp_path, start_run):
    import shutil
    import tempfile

    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root writes anywhere, and setpriv is missing to run as another user")
    base = Path(tempfile.mkdtemp(prefix="alphazero-perm-"))  # outside pytest's private tmp, so the user can enter
    try:
        base.chmod(0o755)
        run = start_run(base, iterations=1)  # a run the other user may read but not write
        locked = base / "locked"
        locked.mkdir(mode=0o555)
        secret = base / "secret"  # files only their owner may read
        secret.with_suffix(".json").write_text("{}")
        secret.with_suffix(".pt").write_bytes((run / "latest.pt").read_bytes())
        command = [sys.executable, "-c", AS_ANOTHER_USER, str(locked), str(run), str(base / "tiny.json"), str(secret)]
        if os.geteuid() == 0:
            command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
        for path in [run, *run.rglob("*"), base / "tiny.json"]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        locked.chmod(0o555)
        for path in (secret.with_suffix(".json"), secret.with_suffix(".pt")):
            path.chmod(0o600)
        done = subprocess.run(command, capture_output=True, text=True, env=ENV, cwd=base)
        lines = done.stdout.strip().splitlines()
        assert len(lines) == 5, done.stderr
        assert lines[0].startswith(f"2 error: cannot create the run directory {locked / 'new'}: permission denied: ")
        assert f"you may not write in {locked}; pick a directory you own, or make it writable (chmod u+w" in lines[0]
        assert lines[1].startswith(f"2 error: cannot write {locked / 'submission.py'}: permission denied: you may")
        assert lines[2].startswith(f"2 error: cannot create the run's lock file {run / 'train.lock'}: permission")
        for line, path in zip(lines[3:], (secret.with_suffix(".json"), secret.with_suffix(".pt")), strict=True):
            assert line == f"2 error: cannot read {path}: permission denied: you may not read {path}; ask its " + (
                "owner, or copy it somewhere you can read"
            )
    finally:
        for path in [base, *base.rglob("*")]:
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)
