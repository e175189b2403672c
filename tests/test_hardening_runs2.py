"""Issue 28 (hardening, round 2): one trainer per run directory, atomic files, diverging training, resumes that
never ignore what they were told, and messages for full disks, read-only places and permissions.

The lock and kill tests run real processes (tiny Tic-Tac-Toe runs, a few seconds each).
"""

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

from alphazero_lib.cli import main

TINY = dict(
    num_res_blocks=1,
    num_hidden=8,
    num_searches=5,
    num_self_play_iterations=2,
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


def start_run(tmp_path: Path, iterations: int = 2, name: str = "run") -> Path:
    """A finished CLI run of ``iterations`` tiny iterations in ``tmp_path / name``."""
    out = tmp_path / name
    args = ["train", "--game", "tictactoe", "--out", str(out), "--config", str(tiny_config(tmp_path)), "--no-progress"]
    assert main([*args, "--iterations", str(iterations)]) == 0
    return out


def iterations_in(run: Path) -> list[int]:
    return [r["iteration"] for r in json.loads((run / "history.json").read_text())]


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


# ---- item 1: a run directory is owned by one trainer at a time ------------------------------------------------
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


def test_a_resume_while_the_run_trains_is_refused_and_a_dead_holder_does_not_block(tmp_path, capsys):
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
    trainer = build_trainer(make_game("tictactoe"), TrainConfig.from_dict(TINY), run_dir=out, progress=False)
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


def test_playoff_on_a_full_disk_leaves_the_old_page_whole(tmp_path):
    pytest.importorskip("kaggle_environments")
    page = tmp_path / "playoff.html"
    page.write_text("<html>the page of yesterday's playoff</html>\n" * 200)
    before = page.read_bytes()
    # a real process whose files may not grow past 4 kB: the new page (much larger) cannot be written
    script = textwrap.dedent(
        """
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        from alphazero_lib.cli import main
        sys.exit(main(sys.argv[1:]))
        """
    )
    argv = ["playoff", "--game", "tictactoe", "--player1", "random", "--player2", "random", "--out", str(page)]
    done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, env=ENV)
    assert done.returncode == 2, done.stderr
    assert f"error: cannot write {page}: the file is too large" in done.stderr
    assert f"{page} was left as it was" in done.stderr
    assert page.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["playoff.html"]  # no temporary file left behind


# ---- item 5: training that diverges stops ---------------------------------------------------------------------
def test_an_infinite_loss_stops_the_iteration_and_keeps_the_last_good_checkpoint(tmp_path, capsys, monkeypatch):
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


def test_a_diverged_iteration_leaves_the_trainer_as_it_was(monkeypatch):
    import torch

    from alphazero_lib import make_game
    from alphazero_lib.config import TrainConfig
    from alphazero_lib.training import TrainingDiverged, build_trainer

    trainer = build_trainer(
        make_game("tictactoe"), TrainConfig.from_dict({**TINY, "num_iterations": 2}), progress=False
    )
    trainer.learn()
    trainer.config = TrainConfig.from_dict({**TINY, "num_iterations": 3})
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
