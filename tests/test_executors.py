"""Where self-play runs (issue 26, item 1): one interface for this process, worker processes and Ray actors
(Ray's own tests: test_distributed.py). The same seed and number of workers give the same samples wherever the
shares are played."""

from __future__ import annotations

import numpy as np
from test_training import TINY

from alphazero_lib import make_game
from alphazero_lib.config import TrainConfig
from alphazero_lib.executors import InThisProcess, WorkerProcesses, executor_for
from alphazero_lib.model import ResNet
from alphazero_lib.selfplay import join_results, play_batched, play_serial, worker_shares


def config(**changes) -> TrainConfig:
    settings = {**TINY, "games_per_iteration": 5, "num_parallel_games": 2, "self_play": "batched"}
    return TrainConfig.from_dict({**settings, **changes})


def same(one, other) -> bool:
    pairs = zip(one.samples, other.samples, strict=True)
    return one.games.to_dict() == other.games.to_dict() and all(
        np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2] == b[2] for a, b in pairs
    )


def test_worker_processes_play_the_shares_this_process_would_play():
    game, settings = make_game("tictactoe"), config()
    model = ResNet(game, 1, 8).eval()
    workers = WorkerProcesses(2)
    counted = []

    class Bar:
        def update(self, n):
            counted.append(n)

    try:
        result = workers.play(game, settings, model, iteration=3, bar=Bar())
        again = workers.play(game, settings, model, iteration=3)  # the processes are kept between iterations
        assert workers.pool is not None
    finally:
        workers.close()
    assert workers.pool is None and sum(counted) == 5
    shares = worker_shares(settings, 3, 2)
    here = join_results(
        [
            (r.samples, r.games.to_dict(), r.search)
            for r in (play_batched(game, model, settings, g, s, parts) for g, s, parts in shares)
        ]
    )
    assert same(result, here) and same(again, here)


def test_this_process_plays_serial_or_batched_as_the_config_says():
    game = make_game("tictactoe")
    model = ResNet(game, 1, 8).eval()
    for kind, play in (
        ("serial", lambda c: play_serial(game, model, c, 5, (c.seed, 2))),
        ("batched", lambda c: play_batched(game, model, c, 5, 2, (c.seed, 2))),
    ):
        settings = config(self_play=kind)
        assert same(InThisProcess().play(game, settings, model, iteration=2), play(settings)), kind


def test_executor_for_picks_where_self_play_runs():
    assert type(executor_for(config(), 1)) is InThisProcess
    assert type(executor_for(config(num_workers=2), 2)) is WorkerProcesses
    assert type(executor_for(config(self_play="serial"), 1)) is InThisProcess


_ORPHAN = """
import sys, time
from alphazero_lib.executors import WorkerProcesses
executor = WorkerProcesses(2)
executor._start()
for job in [executor.pool.submit(time.sleep, 0.5) for _ in range(2)]:
    job.result()
print(*executor.pool._processes, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie nobody reaped has ended)."""
    from pathlib import Path

    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_worker_processes_end_when_the_trainer_is_killed():
    """A trainer killed outright (kill -9) cannot shut its pool down: its workers must not wait for a next job for
    ever (two were found two hours after their trainer was killed, holding their memory)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import pytest

    if not os.path.isdir("/proc/self"):
        pytest.skip("reads process states from /proc (Linux)")
    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN], stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(pid) for pid in parent.stdout.readline().split()]
        assert workers and all(_alive(pid) for pid in workers)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 20
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [pid for pid in workers if _alive(pid)]
    finally:
        if parent.poll() is None:
            parent.kill()
    for pid in left:
        os.kill(pid, signal.SIGKILL)  # the test failed; it does not leave them behind either
    assert not left, f"worker processes {left} outlived their killed trainer"
