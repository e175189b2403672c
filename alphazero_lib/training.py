"""AlphaZero training: self-play with the search, then learning from the search's own games.

A memory sample is ``(encoded_state float32 [3, R, C], policy float32 [A], value float32)``: the position as
the mover saw it, the search's visit distribution there, and the game's outcome from the mover's view. The games
themselves are played in ``alphazero_lib.selfplay`` (serial or batched, as the run's config says).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from tqdm.auto import tqdm, trange

from alphazero_lib.checkpoints import TrainingState, dead_channels
from alphazero_lib.config import TRAIN_PRECISIONS, TrainConfig
from alphazero_lib.executors import InThisProcess, executor_for, self_play_workers
from alphazero_lib.games.base import Game
from alphazero_lib.rundir import Run, RunDirLocked, run_lock
from alphazero_lib.selection import temperature_at
from alphazero_lib.selfplay import (
    GameStats,
    Sample,
    canonical_states,
    derived_seed,
    game_samples,
    play_self_play_game,
)
from alphazero_lib.utils import cpu_threads, one_cpu_thread

__all__ = [
    "AlphaZero",
    "AlphaZeroParallel",
    "RunDirLocked",
    "Sample",
    "TrainingDiverged",
    "average_positions",
    "build_trainer",
    "derived_seed",
    "game_memory",
    "minibatches",
    "run_lock",
    "self_play",
    "stack_memory",
    "train_epoch",
    "train_step",
]


def stack_memory(memory: list[Sample]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Samples -> (states ``[N, 3, R, C]``, policies ``[N, A]``, values ``[N]``), all float32."""
    if len(memory) == 0:
        raise ValueError("the memory is empty: play some self-play games first")
    states = np.stack([s for s, _, _ in memory]).astype(np.float32, copy=False)
    policies = np.stack([p for _, p, _ in memory]).astype(np.float32, copy=False)
    values = np.asarray([v for _, _, v in memory], dtype=np.float32)
    return states, policies, values


def loss_terms(
    out_policy: torch.Tensor, out_value: torch.Tensor, policy_targets: torch.Tensor, value_targets: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The two losses of a minibatch, in float32: cross-entropy of the policy logits against the search's
    distribution, squared error of the value against its target (``train_step`` trains on them, ``sample_losses``
    measures them)."""
    # ALGO LOGIC: cross-entropy against the search's distribution + MSE against the game's outcome
    return F.cross_entropy(out_policy.float(), policy_targets), F.mse_loss(out_value.float(), value_targets)


def sample_losses(model: torch.nn.Module, memory: list[Sample], batch_size: int = 1024) -> dict[str, float]:
    """The mean ``policy_loss`` and ``value_loss`` per sample of ``model`` on ``memory``, measured as ``train_step``
    measures them but without training: no gradient, the model as it is (in eval mode for a fair measure).

    On positions the network has not trained on yet (an iteration's new games, before its training), these tell
    how well it generalises; far below them, the training losses mean it is learning its positions by heart.
    """
    states, policies, values = stack_memory(memory)
    device = next(model.parameters()).device
    totals = {"policy_loss": 0.0, "value_loss": 0.0}
    with torch.no_grad():
        for start in range(0, len(states), batch_size):
            part = slice(start, start + batch_size)
            out_policy, out_value = model(torch.as_tensor(states[part], device=device))
            policy_targets = torch.as_tensor(policies[part], device=device)
            value_targets = torch.as_tensor(values[part], device=device).unsqueeze(1)
            policy_loss, value_loss = loss_terms(out_policy, out_value, policy_targets, value_targets)
            totals["policy_loss"] += policy_loss.item() * len(policy_targets)
            totals["value_loss"] += value_loss.item() * len(policy_targets)
    return {key: total / len(states) for key, total in totals.items()}


def minibatches(num_samples: int, batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Shuffled index batches covering every sample once; a last batch of one joins the batch before it."""
    if num_samples < 2:
        raise ValueError(f"training needs at least 2 samples (no one-sample steps), got {num_samples}")
    order = rng.permutation(num_samples)
    batches = [order[i : i + batch_size] for i in range(0, num_samples, batch_size)]
    if len(batches) > 1 and len(batches[-1]) == 1:
        batches[-2] = np.concatenate(batches[-2:])
        batches.pop()
    return batches


# ---- the course's functions (notebook 5 writes each of them; the trainer below uses these) ---------------------
def game_memory(
    game: Game, history: list[tuple[np.ndarray, np.ndarray, int]], value: float, last_player: int, augment: bool = False
) -> list[Sample]:
    """The samples of one finished game: each position of ``history`` (canonical state, search policy, mover)
    with the outcome seen by its mover, ``value`` for ``last_player``'s positions (``selfplay.game_samples``)."""
    return game_samples(game, history, value, last_player, augment)


def self_play(
    game: Game,
    search: Any,
    rng: np.random.Generator,
    temperature: float = 1.25,
    temperature_moves: int | None = None,
    augment: bool = False,
) -> list[Sample]:
    """One self-play game, every move drawn with ``temperature`` from ``search(canonical state) -> probs``; its
    samples (``game_memory``)."""
    samples, _, _ = play_self_play_game(game, search, rng, temperature, temperature_moves, augment)
    return samples


def train_step(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    states: torch.Tensor,
    policy_targets: torch.Tensor,
    value_targets: torch.Tensor,
    bf16: bool = False,
) -> tuple[float, float]:
    """One gradient step on a minibatch: cross-entropy against the search's policy plus the squared error against
    the value target (weight decay, the L2 term, lives in the optimizer); returns ``(policy_loss, value_loss)``.

    ``bf16``: the forward pass under bfloat16 autocast (the losses, the weights and the step stay float32).
    Raises ``TrainingDiverged`` before the step when a loss is not finite (the step would spread it).
    """
    with torch.autocast(states.device.type, dtype=torch.bfloat16) if bf16 else contextlib.nullcontext():
        out_policy, out_value = model(states)
    policy_loss, value_loss = loss_terms(out_policy, out_value, policy_targets, value_targets)
    policy_value, value_value = policy_loss.item(), value_loss.item()
    if not (np.isfinite(policy_value) and np.isfinite(value_value)):
        raise TrainingDiverged(
            f"the loss became {policy_value + value_value} (policy loss {policy_value}, value loss {value_value})"
        )
    optimizer.zero_grad()
    (policy_loss + value_loss).backward()
    optimizer.step()
    return policy_value, value_value


def train_epoch(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    memory: list[Sample],
    batch_size: int,
    rng: np.random.Generator | None = None,
    precision: str = "fp32",
) -> dict[str, float]:
    """One epoch over ``memory`` in shuffled minibatches (``minibatches``, ``train_step``), the model in training
    mode; the mean ``policy_loss`` and ``value_loss`` per sample, and their sum ``loss``.

    ``precision`` (``config.TRAIN_PRECISIONS``): ``"bf16"`` runs each forward pass under bfloat16 autocast with
    the network and the positions in channels-last memory for the epoch (the network is given back in the usual
    layout, its weights float32), about twice the speed where the CPU has bfloat16 units.
    """
    if precision not in TRAIN_PRECISIONS:
        raise ValueError(f"precision must be one of {list(TRAIN_PRECISIONS)}, got {precision!r}")
    bf16 = precision == "bf16"
    layout = torch.channels_last if bf16 else torch.contiguous_format
    states, policies, values = stack_memory(memory)
    rng = rng if rng is not None else np.random.default_rng()
    device = next(model.parameters()).device
    model.train()
    totals = {"policy_loss": 0.0, "value_loss": 0.0}
    batches = minibatches(len(states), batch_size, rng)
    if bf16:
        model.to(memory_format=torch.channels_last)
    try:
        for number, batch in enumerate(batches):
            try:
                policy_loss, value_loss = train_step(
                    model,
                    optimizer,
                    torch.as_tensor(states[batch], device=device).contiguous(memory_format=layout),
                    torch.as_tensor(policies[batch], device=device),
                    torch.as_tensor(values[batch], device=device).unsqueeze(1),
                    bf16=bf16,
                )
            except TrainingDiverged as err:  # say where: "the loss became inf at minibatch 3 of 40 (policy ..."
                where = f" at minibatch {number + 1} of {len(batches)} (policy"
                raise TrainingDiverged(str(err).replace(" (policy", where, 1)) from None
            totals["policy_loss"] += policy_loss * len(batch)
            totals["value_loss"] += value_loss * len(batch)
    finally:
        if bf16:
            model.to(memory_format=torch.contiguous_format)
    losses = {k: v / len(states) for k, v in totals.items()}
    losses["loss"] = losses["policy_loss"] + losses["value_loss"]
    return losses


def average_positions(memory: list[Sample]) -> list[Sample]:
    """One sample per distinct position of ``memory`` (``TrainConfig.position_averaging``), in the order each first
    appears: its policy and value targets the means over the position's occurrences (as float32)."""
    if not memory:
        return []
    states, policies, values = stack_memory(memory)
    keys = np.ascontiguousarray(states.reshape(len(states), -1)).view(np.dtype((np.void, states[0].nbytes))).ravel()
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    policy_sums = np.zeros((len(first), policies.shape[1]), dtype=np.float64)
    np.add.at(policy_sums, inverse, policies)
    value_sums = np.bincount(inverse, weights=values, minlength=len(first))
    order = np.argsort(first, kind="stable")  # distinct positions in the order they first appear
    return [
        (
            states[first[k]],
            (policy_sums[k] / counts[k]).astype(np.float32),
            np.float32(value_sums[k] / counts[k]),
        )
        for k in order
    ]


def draw_samples(memory: list[Sample], count: int, rng: np.random.Generator) -> list[Sample]:
    """``count`` samples of ``memory`` drawn at random without repeats (``TrainConfig.train_samples``, or
    ``train_reuse`` times the iteration's new samples), in the memory's order; all of ``memory`` when ``count`` is 0
    or not less than its size."""
    if count == 0 or count >= len(memory):
        return memory
    return [memory[i] for i in np.sort(rng.choice(len(memory), size=count, replace=False))]


class TrainingDiverged(ValueError):
    """A training loss became NaN or infinite (or the weights did): the iteration is dropped, nothing is saved."""


def _state_field(name: str) -> property:
    """``trainer.NAME``: the field ``NAME`` of the trainer's ``TrainingState``."""
    return property(lambda self: getattr(self.state, name), lambda self, value: setattr(self.state, name, value))


class AlphaZero:
    """The course's trainer: ``learn()`` alternates self-play, training, gating and a report, checkpointing every
    iteration; it holds only the loop.

    Self-play runs as ``config.self_play`` says, serial or batched (``alphazero_lib.selfplay``), in this process,
    in worker processes started with "spawn" (a script needs the ``if __name__ == "__main__":`` guard) or on Ray
    (``executors``); a run is reproducible for a given ``num_workers``. What training changes is ``state``, a
    ``checkpoints.TrainingState`` (``model``, ``optimizer``, ``replay``, ``history``, ``iteration``, ``best_model`` are
    its fields). ``run``, an open ``rundir.Run`` (or None: nothing is written; kept as ``directory``), restores that
    state when the trainer starts (``resume``, which ``learn`` calls), saves it after every iteration, holds the lock
    during ``learn`` and reads ``STOP``. Hooks for a course's own pieces:
    ``self_play_iteration`` (an iteration's games), ``train`` (an epoch), ``iteration_record`` (extra entries of a
    history record) and ``report`` (what is said of a finished iteration).
    """

    model = _state_field("model")
    optimizer = _state_field("optimizer")
    replay = _state_field("replay")  # one list of samples per recent iteration, oldest first
    history = _state_field("history")  # one dict per completed iteration
    iteration = _state_field("iteration")  # completed learn iterations
    best_model = _state_field("best_model")  # with gating: the network that plays self-play

    def __init__(
        self,
        model: torch.nn.Module,
        optimizer: torch.optim.Optimizer,
        game: Game,
        config: TrainConfig,
        run: Run | None = None,
        progress: bool = True,
    ) -> None:
        if not isinstance(config, TrainConfig):
            raise ValueError(f"config must be a TrainConfig, got {type(config).__name__}")
        if run is not None and not isinstance(run, Run):
            raise ValueError(f"run must be an open rundir.Run (open_run or Run.at) or None, got {type(run).__name__}")
        best = copy.deepcopy(model) if config.gating_games > 0 else None
        self.state = TrainingState(model, optimizer, best_model=best)
        self.game = game
        self.config = config
        self.directory = run
        self.progress = progress
        self.game_stats = GameStats()  # this iteration's finished self-play games
        self.search_stats: dict[str, Any] = {}  # this iteration's search statistics
        self.executor: Any = None  # where self-play runs (executors.executor_for), kept from iteration to iteration
        self._executor_for: tuple[Any, ...] = ()  # the settings it was made for
        self.resumed: tuple[Path | None, str] | None = None  # what ``resume`` restored, once it has run

    def resume(self, say: Callable[[str], Any] = print) -> tuple[Path | None, str]:
        """Continue the run: the checkpoint it resumes from put into ``state`` (``rundir.Run.claimed``), once; ``learn``
        calls it first. Returns ``(checkpoint, phrase)``: the file (None for a run at iteration 0) and a phrase naming
        it and why; a resume is said (``say``), as are damaged checkpoints set aside."""
        if self.resumed is None:
            self.resumed = (None, "a new run (not saved)")
            if self.directory is not None:
                with self.directory.claimed(self.state, say=say) as (source, phrase):
                    self.resumed = (source, phrase)
                if source is not None:
                    path, total = self.directory.path, self.config.num_iterations
                    say(f"resuming {path} after iteration {self.iteration} of {total}, from {phrase}")
        return self.resumed

    @property
    def run_dir(self) -> Path | None:
        """The run's directory, or None for a trainer that writes nothing."""
        return self.directory.path if self.directory is not None else None

    # ---- self-play ----------------------------------------------------------------------------------
    @property
    def self_play_model(self) -> torch.nn.Module:
        """The network that plays the self-play games: the best one with gating, else the one being trained."""
        return self.best_model if self.best_model is not None else self.model

    def temperature_at(self, move_number: int) -> float:
        """The move-selection temperature for a game's ``move_number``-th move (0-based)."""
        return temperature_at(self.config.temperature, self.config.temperature_moves, move_number)

    def record_game(self, winner: int, num_moves: int) -> None:
        """Count one finished self-play game (``winner`` 1, -1 or 0 for a draw)."""
        self.game_stats.add(winner, num_moves)

    def self_play(self, mcts: Any, rng: np.random.Generator) -> list[Sample]:
        """Play one game with ``mcts`` (an ``AlphaMCTS``) choosing every move; count it, return its samples."""
        cfg = self.config
        samples, winner, moves = play_self_play_game(
            self.game, mcts.search, rng, cfg.temperature, cfg.temperature_moves, cfg.augment_symmetries
        )
        self.record_game(winner, moves)
        return samples

    @property
    def num_workers(self) -> int:
        """Self-play workers this iteration uses (``executors.self_play_workers``)."""
        return self_play_workers(self.config, self.self_play_model)

    def self_play_iteration(self) -> list[Sample]:
        """Play ``games_per_iteration`` games as ``config.self_play`` says, on the executor this iteration
        needs (``executors.executor_for``: this process, worker processes or Ray actors); returns their samples.

        Seeds derive from ``(seed, iteration)`` (workers: ``(seed, iteration, 5, w)``).
        """
        cfg, workers = self.config, self.num_workers
        where = (cfg.self_play, cfg.executor, workers)
        if self.executor is None or where != self._executor_for:  # a resume may have changed the settings
            self.close()
            self.executor, self._executor_for = executor_for(cfg, workers), where
        with tqdm(total=cfg.games_per_iteration, desc="self-play", leave=False, disable=not self.progress) as bar:
            playing = cfg.at_iteration(self.iteration)  # the simulation budget may grow (searches_at)
            result = self.executor.play(self.game, playing, self.self_play_model, self.iteration, bar)
        self.game_stats.merge(result.games)
        self.search_stats = result.search
        return result.samples

    def reanalyse_memory(self, count: int) -> dict[str, Any]:
        """Reanalyse (``TrainConfig.reanalyse``): ``count`` positions drawn without replacement from the replay
        memory's older iterations (all of them when fewer; the newest iteration's are fresh) are searched again with
        the self-play network on this iteration's executor, and their policy targets replaced by the new search's.
        The iterations it changes are copied, not changed in place. Returns the search's statistics."""
        cfg, older = self.config, self.replay[:-1]
        sizes = np.cumsum([len(games) for games in older], dtype=np.int64)
        total = int(sizes[-1]) if len(sizes) else 0
        count = min(count, total)
        if count == 0:
            return {"positions": 0}
        rng = np.random.default_rng(derived_seed(cfg.seed, self.iteration, 7))
        picks = np.sort(rng.choice(total, size=count, replace=False))
        where = np.searchsorted(sizes, picks, side="right")  # the iteration of each pick, then its place there
        places = picks - np.concatenate(([0], sizes))[where]
        chosen = [older[i][j] for i, j in zip(where, places, strict=True)]
        executor = self.executor if self.executor is not None else InThisProcess()
        playing = cfg.at_iteration(self.iteration)
        policies, search = executor.reanalyse(
            self.game, playing, self.self_play_model, canonical_states(self.game, chosen), self.iteration
        )
        copies = {int(i): list(older[i]) for i in np.unique(where)}
        for i, j, policy in zip(where, places, policies, strict=True):
            state, _, value = copies[int(i)][j]
            copies[int(i)][j] = (state, policy, value)
        self.replay = [copies.get(i, games) for i, games in enumerate(older)] + self.replay[-1:]
        return search

    def close(self) -> None:
        """Stop the self-play worker processes or Ray actors, if any (a later iteration starts them again)."""
        if self.executor is not None:
            self.executor.close()
            self.executor = None

    def iteration_record(self) -> dict[str, Any]:
        """Extra entries for this iteration's history record: the search statistics of its self-play."""
        return {"search": self.search_stats} if self.search_stats else {}

    def report(self, record: dict[str, Any]) -> None:
        """Say what a finished iteration did, before it is saved: its printed line (``summary_line``)."""
        tqdm.write(summary_line(record, self.config.num_iterations))

    # ---- training -----------------------------------------------------------------------------------
    def train(self, memory: list[Sample], rng: np.random.Generator | None = None) -> dict[str, float]:
        """One epoch over ``memory`` in shuffled minibatches (``train_epoch``); the mean policy, value, total loss."""
        cfg = self.config
        return train_epoch(self.model, self.optimizer, memory, cfg.batch_size, rng, precision=cfg.train_precision)

    # ---- the learn loop -----------------------------------------------------------------------------
    def learn(self, time_budget: float | None = None) -> list[dict[str, Any]]:
        """Iterations of self-play then ``num_epochs`` of training, up to ``num_iterations``, from where the run
        stopped (``resume``); returns the history.

        ``time_budget`` (seconds of wall time for this call): no new iteration starts once it is spent, so the run
        stops after the iteration that crosses it, the first one at the latest (``--resume`` continues it later).
        """
        if time_budget is not None and not time_budget > 0:
            raise ValueError(f"time_budget must be a positive number of seconds, got {time_budget!r}")
        try:
            with self.directory.lock() if self.directory is not None else contextlib.nullcontext():
                self.resume()
                return self._learn(time_budget)
        finally:
            self.close()

    def _learn(self, time_budget: float | None = None) -> list[dict[str, Any]]:
        started, first = time.perf_counter(), self.iteration
        self.config = resolve_measured_settings(self.config, self.model, self.self_play_model)
        cfg = self.config
        if self.directory is not None:
            self.directory.begin(self.state, cfg)
        while self.iteration < cfg.num_iterations:
            if time_budget is not None and self.iteration > first and time.perf_counter() - started >= time_budget:
                tqdm.write(f"time budget of {time_budget:.0f} s spent after iteration {self.iteration}")
                break
            start = time.perf_counter()
            self.game_stats, self.search_stats = GameStats(), {}
            self.model.eval()
            samples = self.self_play_iteration()
            self_play_seconds = time.perf_counter() - start
            new_games_loss = None
            if cfg.measure_new_games and len(samples):  # before training on them: how well the network generalises
                with cpu_threads(self.model, cfg.num_threads):
                    new_games_loss = sample_losses(self.model, samples)

            # ALGO LOGIC: the replay memory holds the games of the last `replay_window` iterations
            replay_before, self.replay = self.replay, [*self.replay, samples][-cfg.replay_window :]
            reanalysis, reanalyse_seconds = None, 0.0
            if cfg.reanalyse:  # older positions searched again with the newest network (copies: replay_before stays)
                reanalysis = self.reanalyse_memory(round(cfg.reanalyse * len(samples)))
                reanalyse_seconds = time.perf_counter() - start - self_play_seconds
            memory = [sample for games in self.replay for sample in games]
            if cfg.position_averaging:
                memory = average_positions(memory)
            rng = np.random.default_rng(derived_seed(cfg.seed, self.iteration, 3))
            drawn = cfg.train_samples or round(cfg.train_reuse * len(samples))  # 0: the whole memory
            epochs: list[dict[str, float]] = []
            before = training_state(self.model, self.optimizer)
            if cfg.lr_decay_iterations:  # else the optimizer's lr stays as it was given (a learner's own, too)
                for group in self.optimizer.param_groups:
                    group["lr"] = cfg.lr_at(self.iteration)
            try:
                with cpu_threads(self.model, cfg.num_threads):
                    for _ in trange(cfg.num_epochs, desc="train", leave=False, disable=not self.progress):
                        epochs.append(self.train(draw_samples(memory, drawn, rng), rng))
                check_weights_finite(self.model)
            except TrainingDiverged as err:  # nothing from this iteration is kept, in memory or on disk
                restore_training_state(self.model, self.optimizer, before)
                self.replay = replay_before
                message = diverged_message(err, cfg, self.iteration, len(epochs) + 1, self.run_dir)
                raise TrainingDiverged(message) from None
            self.model.eval()
            train_seconds = time.perf_counter() - start - self_play_seconds - reanalyse_seconds

            record = {
                "iteration": self.iteration + 1,
                **self.game_stats.to_dict(),
                "samples": len(samples),
                "memory": len(memory),
                "policy_loss": epochs[-1]["policy_loss"],
                "value_loss": epochs[-1]["value_loss"],
                "epochs": epochs,
                **({"new_games_loss": new_games_loss} if new_games_loss is not None else {}),
                "self_play_seconds": round(self_play_seconds, 3),
                "train_seconds": round(train_seconds, 3),
            }
            if cfg.lr_decay_iterations:
                record["lr"] = cfg.lr_at(self.iteration)
            if cfg.searches_growth_iterations:
                record["searches"] = cfg.searches_at(self.iteration)
            if reanalysis is not None:
                record["reanalyse"] = reanalysis
                record["reanalyse_seconds"] = round(reanalyse_seconds, 3)
            dead, channels = dead_channels(self.model)
            if dead:  # convolution outputs with no weight left (see TrainConfig.optimizer)
                record["dead_channels"] = [dead, channels]
            record.update(self.iteration_record())
            if self.best_model is not None:
                record["gating"] = self.gate()
            record["wall_seconds"] = round(time.perf_counter() - start, 3)
            self.history.append(record)
            self.iteration += 1
            self.report(record)
            if self.directory is not None:
                self.directory.save(self.state)
                if self.directory.stop_asked(self.iteration):
                    break
        return self.history

    def gate(self) -> dict[str, Any]:
        """AlphaGo Zero's evaluation of this iteration's network against the best one (``gate``)."""
        return gate(self.game, self.model, self.best_model, self.config, self.iteration)


# ---- what the loop leans on --------------------------------------------------------------------------------
def resolve_measured_settings(
    config: TrainConfig, model: torch.nn.Module, self_play_model: torch.nn.Module
) -> TrainConfig:
    """``config`` with its ``"auto"`` settings measured and made concrete, each said (recorded in the run's
    config, so a resume keeps them): the inference mode of batched self-play, and the training precision (bf16
    where the model's device runs it fast, else fp32)."""
    from alphazero_lib.inference import FastEvaluator, has_fast_bf16

    if config.self_play == "batched" and config.inference_mode == "auto":
        slots = min(config.num_parallel_games, config.games_per_iteration)
        mode = FastEvaluator(self_play_model, "auto", batch_size=slots).mode
        tqdm.write(f"inference mode auto: measured, {mode} chosen; recorded in the run's config so a resume keeps it")
        config = dataclasses.replace(config, inference_mode=mode)
    if config.train_precision == "auto":
        device = next(model.parameters()).device
        precision = "bf16" if has_fast_bf16(device) else "fp32"
        why = "has" if precision == "bf16" else "has no"
        tqdm.write(
            f"train precision auto: {precision} ({device.type} {why} fast bfloat16); recorded in the run's config "
            f"so a resume keeps it"
        )
        config = dataclasses.replace(config, train_precision=precision)
    return config


def gate(
    game: Game, model: torch.nn.Module, best_model: torch.nn.Module, cfg: TrainConfig, iteration: int
) -> dict[str, Any]:
    """AlphaGo Zero's evaluation: the candidate ``model`` replaces ``best_model`` (its weights are copied in) only
    at ``gating_threshold``.

    Both search as self-play does, without root noise (``arena.gate``: seats alternating, each pair of games
    from the same random 2-move opening, draws half a point).
    """
    from alphazero_lib import arena
    from alphazero_lib.players import AlphaZeroPlayer

    seed = derived_seed(cfg.seed, iteration, 4)
    search = dataclasses.replace(cfg.search, dirichlet_epsilon=0.0)  # the run's search without root noise
    candidate = AlphaZeroPlayer(game, model, search, seed=seed)
    best = AlphaZeroPlayer(game, best_model, search, seed=seed + 1)
    with one_cpu_thread(model):
        result = arena.gate(
            game, candidate, best, cfg.gating_games, cfg.gating_threshold, False, opening_moves=2, seed=seed
        )
    if result.accepted:
        best_model.load_state_dict(model.state_dict())
    return {"score": round(result.score, 4), "accepted": bool(result.accepted)}


def training_state(model: torch.nn.Module, optimizer: Any) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """Copies of the network's and the optimizer's state (to go back to if training diverges)."""
    weights = {name: tensor.detach().clone() for name, tensor in model.state_dict().items()}
    return weights, copy.deepcopy(optimizer.state_dict())


def restore_training_state(model: torch.nn.Module, optimizer: Any, state: tuple[dict, dict]) -> None:
    """Put back what ``training_state`` copied."""
    model.load_state_dict(state[0])
    optimizer.load_state_dict(state[1])
    model.eval()


def check_weights_finite(model: torch.nn.Module) -> None:
    """Raises ``TrainingDiverged`` naming the first tensor of the network that holds NaN or infinite values."""
    for name, tensor in model.state_dict().items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise TrainingDiverged(f"the network's {name!r} holds NaN or infinite values after training")


def diverged_message(err: Exception, cfg: TrainConfig, done: int, epoch: int, run_dir: Path | None) -> str:
    """What diverged in the iteration after ``done``, what was kept, and what to do."""
    where = f"iteration {done + 1} (epoch {min(epoch, cfg.num_epochs)} of {cfg.num_epochs})"
    if run_dir is not None and done > 0:
        kept = f"{run_dir / 'latest.pt'} still holds iteration {done}, and the network is back as it was"
    else:
        kept = "the network is back as it was before the iteration" + (
            f" (no checkpoint was written in {run_dir} yet)" if run_dir is not None else ""
        )
    return (
        f"training diverged in {where}: {err}; nothing from this iteration was saved and {kept}; lower the "
        f"learning rate (lr is {cfg.lr:g}), e.g. resume with --resume --lr {cfg.lr / 10:g}"
    )


def summary_line(record: dict[str, Any], num_iterations: int) -> str:
    """One line per iteration: games and results, samples, losses and times (and the new games' losses, the
    learning rate, dead channels and gating where there are any)."""
    games = max(record["games"], 1)
    line = (
        f"iteration {record['iteration']}/{num_iterations}: {record['games']} games "
        f"(X {record['first_player_wins'] / games:.0%}, draw {record['draws'] / games:.0%}, "
        f"O {record['second_player_wins'] / games:.0%}), {record['samples']} samples "
        f"(memory {record['memory']}), policy loss {record['policy_loss']:.3f}, "
        f"value loss {record['value_loss']:.3f}, "
    )
    if "new_games_loss" in record:  # measured before training on them: the loss on positions not yet learned
        fresh = record["new_games_loss"]
        line += f"on its new games {fresh['policy_loss']:.3f} / {fresh['value_loss']:.3f}, "
    line += f"self-play {record['self_play_seconds']:.0f}s, "
    if "reanalyse" in record:
        line += f"reanalysed {record['reanalyse']['positions']} in {record['reanalyse_seconds']:.0f}s, "
    line += f"train {record['train_seconds']:.0f}s"
    if "lr" in record:
        line += f", lr {record['lr']:.2g}"
    if "dead_channels" in record:
        line += f", dead channels {record['dead_channels'][0]}/{record['dead_channels'][1]}"
    if "gating" in record:
        verdict = "accepted" if record["gating"]["accepted"] else "rejected"
        line += f", gating {record['gating']['score']:.2f} {verdict}"
    return line


def make_optimizer(model: torch.nn.Module, config: TrainConfig) -> torch.optim.Optimizer:
    """``config.optimizer`` over the model's parameters: Adam with an L2 term, or AdamW (decoupled weight decay)."""
    kind = torch.optim.AdamW if config.optimizer == "adamw" else torch.optim.Adam
    return kind(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)


def build_trainer(
    game: Game,
    config: TrainConfig,
    progress: bool = True,
    trainer_class: type[AlphaZero] | None = None,
    *,
    run: Run | None = None,
) -> AlphaZero:
    """A fresh seeded ``ResNet``, its optimizer (``make_optimizer``) and the trainer, as ``config`` describes them;
    the trainer writes into ``run`` (an open ``rundir.Run``), or nowhere."""
    from alphazero_lib.model import ResNet
    from alphazero_lib.utils import seed_everything

    seed_everything(config.seed)
    model = ResNet(game, config.num_res_blocks, config.num_hidden, device=config.device)
    optimizer = make_optimizer(model, config)
    trainer_class = trainer_class or AlphaZero
    return trainer_class(model, optimizer, game, config, run=run, progress=progress)


# ---- workers ---------------------------------------------------------------------------------------------
class AlphaZeroParallel(AlphaZero):
    """``AlphaZero`` with batched self-play (the course's name): the config's ``self_play`` is set to "batched"."""

    def __init__(self, model: torch.nn.Module, optimizer: Any, game: Game, config: TrainConfig, **kwargs: Any) -> None:
        if isinstance(config, TrainConfig) and config.self_play != "batched":
            config = dataclasses.replace(config, self_play="batched")
        super().__init__(model, optimizer, game, config, **kwargs)
