"""Where self-play runs: one interface for this process, worker processes on this machine and Ray actors.

An executor plays one iteration's self-play games and joins their samples::

    executor = executor_for(config, workers)         # InThisProcess, WorkerProcesses or RaySelfPlay
    result = executor.play(game, config, model, iteration, bar)   # a selfplay.SelfPlayResult
    executor.close()                                 # stops the processes or actors (the next play starts them)

This process and worker processes also search given positions again for the trainer's reanalysis
(``reanalyse(game, config, model, states, iteration)``, ``selfplay.search_positions``); Ray actors do not.

All three play ``selfplay``'s functions with the same seeds: this process plays ``play_serial`` or ``play_batched``
with the run's seed; worker processes and Ray actors each play a share (``selfplay.worker_shares``) with
``play_batched``, joined in share order, so the same seed and number of workers give the same samples on either.
The trainer (``training.AlphaZero``) keeps the loop, ``train`` and ``gate``; it asks ``executor_for`` each iteration.

**Ray** (the optional extra ``distributed``: ``pip install -e ".[distributed]"``): ``RaySelfPlay`` runs each
iteration's self-play on Ray actors while the learner trains on the driver, as muzero-general and RLlib do. The
self-play network goes into Ray's object store once per iteration and every actor reads it from there. An actor
that dies mid-iteration is replaced by a fresh one, which replays that actor's share from its seeds (so the samples
are the same as without the fault). If the cluster itself goes away, ``ClusterLost`` says so; the run's last
complete iteration is on disk and ``train --resume`` continues from it. Without an address, ``ray.init()`` starts a
local instance (the flag works on a laptop); with one it joins a running cluster (``ray start --head`` on one
machine, ``ray start --address=HEAD:6379`` on the others).
"""

from __future__ import annotations

import copy
from typing import Any, Protocol

import numpy as np
import torch

from alphazero_lib.config import TrainConfig
from alphazero_lib.games.base import Game
from alphazero_lib.selfplay import (
    SelfPlayResult,
    join_results,
    play_batched,
    play_serial,
    search_positions,
    summed_search,
    worker_shares,
)


class Executor(Protocol):
    """Plays one iteration's self-play games somewhere; ``close`` stops what it started."""

    def play(self, game: Game, config: TrainConfig, model: Any, iteration: int, bar: Any = None) -> SelfPlayResult:
        """``config.games_per_iteration`` games of ``model``, seeded by ``(config.seed, iteration)``."""
        ...

    def close(self) -> None: ...


def self_play_workers(config: TrainConfig, model: torch.nn.Module) -> int:
    """Self-play workers an iteration uses: ``num_workers`` (at most one a game) for batched self-play on the CPU or
    on Ray, else one."""
    on_cpu = next(model.parameters()).device.type == "cpu"
    shared = config.self_play == "batched" and (on_cpu or config.executor == "ray")
    return min(config.num_workers, config.games_per_iteration) if shared else 1


def executor_for(config: TrainConfig, workers: int) -> Executor:
    """The executor for ``config`` with ``workers`` workers: Ray actors (``executor="ray"``), worker processes
    (more than one worker), else this process."""
    if config.self_play == "batched" and config.executor == "ray":
        return RaySelfPlay(config.ray_address, workers, config.ray_cpus_per_actor)
    if workers > 1:
        return WorkerProcesses(workers)
    return InThisProcess()


def cpu_copy(model: Any) -> Any:
    """A copy of ``model`` on the CPU in eval mode: what another process plays with (the learner keeps training
    the original, on whatever device it is)."""
    return copy.deepcopy(model).cpu().eval()


class InThisProcess:
    """Self-play in this process, on the model's own device: ``play_serial`` or ``play_batched`` as the config says."""

    def play(self, game: Game, config: TrainConfig, model: Any, iteration: int, bar: Any = None) -> SelfPlayResult:
        total, seed_parts = config.games_per_iteration, (config.seed, iteration)
        on_game_over = bar.update if bar is not None else None
        if config.self_play == "batched":
            slots = min(config.num_parallel_games, total)
            return play_batched(game, model, config, total, slots, seed_parts, on_game_over)
        return play_serial(game, model, config, total, seed_parts, on_game_over)

    def reanalyse(
        self, game: Game, config: TrainConfig, model: Any, states: np.ndarray, iteration: int
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reanalyse: self-play's search of canonical ``states`` here (``selfplay.search_positions``), seeded from
        ``(seed, iteration, 6)``."""
        return search_positions(game, model, config, states, (config.seed, iteration, 6))

    def close(self) -> None:
        pass


class WorkerProcesses:
    """Batched self-play shared among ``workers`` processes on this machine's CPU (started with "spawn" on the
    first ``play``, kept until ``close``); each gets ``torch threads // workers`` threads."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool: Any = None  # concurrent.futures.ProcessPoolExecutor, and the queue its workers count games on
        self.progress: Any = None

    def play(self, game: Game, config: TrainConfig, model: Any, iteration: int, bar: Any = None) -> SelfPlayResult:
        import queue

        if self.pool is None:
            self._start()
        while not self.progress.empty():  # left over from an interrupted iteration
            self.progress.get_nowait()
        model = cpu_copy(model)
        jobs = [
            self.pool.submit(_self_play_worker, (game, config, model, games, slots, seed_parts))
            for games, slots, seed_parts in worker_shares(config, iteration, self.workers)
        ]
        update = bar.update if bar is not None else (lambda n: None)
        while not all(job.done() for job in jobs):
            try:
                update(self.progress.get(timeout=0.2))
            except queue.Empty:
                pass
        while not self.progress.empty():
            update(self.progress.get_nowait())
        return join_results([job.result() for job in jobs])  # worker order; re-raises a worker's error here

    def reanalyse(
        self, game: Game, config: TrainConfig, model: Any, states: np.ndarray, iteration: int
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reanalyse: ``states`` cut into one share a worker, each searched there (``selfplay.search_positions``,
        worker ``w`` seeded from ``(seed, iteration, 6, w)``); the policies in order and the statistics added up."""
        if self.pool is None:
            self._start()
        model = cpu_copy(model)
        shares = np.array_split(states, self.workers)
        jobs = [
            self.pool.submit(_search_worker, (game, config, model, share, (config.seed, iteration, 6, w)))
            for w, share in enumerate(shares)
            if len(share)
        ]
        results = [job.result() for job in jobs]
        return np.concatenate([policies for policies, _ in results]), summed_search([stats for _, stats in results])

    def _start(self) -> None:
        import concurrent.futures
        import multiprocessing
        import os

        context = multiprocessing.get_context("spawn")  # fork would copy torch's thread pool state
        self.progress = context.Queue()
        threads = max(1, torch.get_num_threads() // self.workers)
        self.pool = concurrent.futures.ProcessPoolExecutor(
            self.workers, mp_context=context, initializer=_init_worker, initargs=(self.progress, threads, os.getpid())
        )

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool, self.progress = None, None


_worker_progress: Any = None  # in a worker process: the queue that counts finished games for the parent's bar


def _init_worker(progress_queue: Any, threads: int, parent: int) -> None:
    global _worker_progress
    _worker_progress = progress_queue
    torch.set_num_threads(threads)
    _exit_with(parent)


def _exit_with(parent: int, every: float = 0.5) -> None:
    """Ends this worker process soon after ``parent`` has gone. A trainer killed outright (``kill``, ``kill -9``, a
    closed terminal) cannot shut its pool down, and its workers waited for the next job for ever, holding their
    memory (two were found two hours later)."""
    import os
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _self_play_worker(payload: tuple[Any, ...]) -> tuple[list, dict[str, int], dict[str, Any]]:
    """One worker's share of an iteration: batched self-play of ``games`` games; (samples, game counts, search)."""
    game, config, model, games, slots, seed_parts = payload
    queue = _worker_progress
    on_game_over = (lambda: queue.put(1)) if queue is not None else None
    result = play_batched(game, model, config, games, slots, seed_parts, on_game_over)
    return result.samples, result.games.to_dict(), result.search


def _search_worker(payload: tuple[Any, ...]) -> tuple[np.ndarray, dict[str, Any]]:
    """One worker's share of a reanalysis: ``selfplay.search_positions`` on its states."""
    game, config, model, states, seed_parts = payload
    return search_positions(game, model, config, states, seed_parts)


# ---- Ray ---------------------------------------------------------------------------------------------------------
#: The Ray release this project is tested with (the ``distributed`` extra pins it).
RAY_VERSION = "2.60.0"


class ClusterLost(ConnectionError):
    """The Ray cluster went away during self-play (the run stops; ``--resume`` continues it)."""


class RayMissing(ImportError, ValueError):
    """Ray is not installed (a ``ValueError`` too, so the command line prints it as a one-line error)."""


def import_ray() -> Any:
    """``ray``, or an ``ImportError`` that says how to install it."""
    try:
        import ray
    except ImportError:
        import sys

        raise RayMissing(
            f"self-play on Ray needs Ray, which this Python ({sys.executable}) does not have: install it with "
            f'{sys.executable} -m pip install "ray=={RAY_VERSION}" (the version the tests ran with; in a '
            f'checkout of the course, pip install -e ".[distributed]" does the same), or train without --ray'
        ) from None
    return ray


class SelfPlayActor:
    """A Ray actor that plays batched self-play games (``ray.remote`` wraps it in ``RaySelfPlay``)."""

    def __init__(self, threads: int) -> None:
        import torch

        torch.set_num_threads(threads)

    def ready(self) -> bool:
        return True

    def play(
        self,
        game: Game,
        config: TrainConfig,
        model: Any,
        games: int,
        slots: int,
        seed_parts: tuple[int, ...],
        progress: Any,
        share: int,
    ) -> tuple[list, dict[str, int], dict[str, Any]]:
        """``games`` games of ``model`` (read from the object store), ``slots`` in flight; progress per game."""
        on_game_over = (lambda: progress.put(share)) if progress is not None else None
        result = play_batched(game, model.cpu().eval(), config, games, slots, seed_parts, on_game_over)
        return result.samples, result.games.to_dict(), result.search


class RaySelfPlay:
    """Self-play actors on Ray, one per worker share; ``play`` runs one iteration's self-play on them (the
    executor for ``executor="ray"``)."""

    def __init__(self, address: str | None, num_actors: int, cpus_per_actor: int = 1) -> None:
        ray = import_ray()
        self.ray, self.address = ray, address
        self.started_here = not ray.is_initialized()
        if self.started_here:
            options: dict[str, Any] = {"log_to_driver": False}
            if address:
                options["address"] = address
            else:
                options.update(num_cpus=num_actors * cpus_per_actor, include_dashboard=False)
            try:
                ray.init(**options)
            except ConnectionError as err:
                raise ClusterLost(f"cannot reach the Ray cluster at {address}: {err}") from None
        self.cpus_per_actor = cpus_per_actor
        self._actor_class = ray.remote(num_cpus=cpus_per_actor, max_restarts=0)(SelfPlayActor)
        self.actors = [self._new_actor() for _ in range(num_actors)]
        from ray.util.queue import Queue

        self.progress = Queue()

    def _new_actor(self) -> Any:
        return self._actor_class.remote(self.cpus_per_actor)

    def play(self, game: Game, config: TrainConfig, model: Any, iteration: int, bar: Any = None) -> SelfPlayResult:
        """One iteration's games on the actors, joined in share order (``selfplay.join_results``).

        ``bar.update(n)`` (optional) counts finished games; a replayed share takes its count back first.
        """
        ray = self.ray
        shares = worker_shares(config, iteration, len(self.actors))
        try:
            weights = ray.put(cpu_copy(model))  # once per iteration: every actor reads it from the object store
            pending = {self._submit(i, game, config, weights, shares[i]): i for i in range(len(shares))}
            done_games = [0] * len(shares)
            results: dict[int, Any] = {}
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.2)
                self._count(done_games, bar)
                for ref in ready:
                    i = pending.pop(ref)
                    try:
                        results[i] = ray.get(ref)
                    except ray.exceptions.RayActorError:
                        self._count(done_games, bar)
                        if bar is not None and done_games[i]:
                            bar.update(-done_games[i])
                        done_games[i] = 0
                        self.actors[i] = self._new_actor()
                        pending[self._submit(i, game, config, weights, shares[i])] = i
            self._count(done_games, bar)
        except ClusterLost:
            raise
        except Exception as err:
            if isinstance(err, ray.exceptions.RayTaskError):
                raise  # an error inside the self-play code itself: not the cluster's fault
            raise ClusterLost(
                f"lost the Ray cluster{f' at {self.address}' if self.address else ''} during self-play of "
                f"iteration {iteration + 1} ({type(err).__name__}: {err}); the iterations already saved are "
                f"complete: train --resume continues from the last one"
            ) from err
        return join_results([results[i] for i in range(len(shares))])

    def _submit(self, i: int, game: Game, config: TrainConfig, weights: Any, share: tuple) -> Any:
        games, slots, seed_parts = share
        return self.actors[i].play.remote(game, config, weights, games, slots, seed_parts, self.progress, i)

    def _count(self, done_games: list[int], bar: Any) -> None:
        while not self.progress.empty():
            share = self.progress.get_nowait()
            done_games[share] += 1
            if bar is not None:
                bar.update(1)

    def close(self) -> None:
        """Stop the actors (and the local Ray instance, if this object started it)."""
        ray = self.ray
        if not ray.is_initialized():
            return
        for actor in self.actors:
            try:
                ray.kill(actor)
            except Exception:  # already gone
                pass
        self.actors = []
        try:
            ray.kill(self.progress.actor)
        except Exception:
            pass
        if self.started_here:
            ray.shutdown()


def wait_for_actors(executor: RaySelfPlay, timeout: float = 120.0) -> None:
    """Block until every actor has started (benchmarks time self-play, not actor start-up)."""
    executor.ray.get([actor.ready.remote() for actor in executor.actors], timeout=timeout)
