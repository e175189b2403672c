"""AlphaZero training: self-play with the search, then learning from the search's own games.

A memory sample is ``(encoded_state float32 [3, R, C], policy float32 [A], value float32)``: the position as
the mover saw it, the search's visit distribution there, and the game's outcome from the mover's view.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import math
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from tqdm.auto import tqdm, trange

from alphazero_lib.checkpoints import check_game, load_checkpoint, load_state, make_checkpoint, save_checkpoint
from alphazero_lib.config import TrainConfig
from alphazero_lib.games.base import Game
from alphazero_lib.utils import atomic_write_bytes

Sample = tuple[np.ndarray, np.ndarray, float]


@contextlib.contextmanager
def cpu_threads(model: torch.nn.Module, num_threads: int | None) -> Iterator[None]:
    """Run torch on ``num_threads`` CPU threads inside the block when ``model`` is on the CPU (None: unchanged)."""
    if num_threads is None or next(model.parameters()).device.type != "cpu":
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(num_threads)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def one_cpu_thread(model: torch.nn.Module) -> contextlib.AbstractContextManager[None]:
    """One torch thread while a CPU model sees batches of one (about 4x faster than two threads here)."""
    return cpu_threads(model, 1)


def derived_seed(*parts: int) -> int:
    """A 32-bit seed from several ints (run seed, iteration, purpose), stable across runs and resumes."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


def stack_memory(memory: list[Sample]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Samples -> (states ``[N, 3, R, C]``, policies ``[N, A]``, values ``[N]``), all float32."""
    if len(memory) == 0:
        raise ValueError("the memory is empty: play some self-play games first")
    states = np.stack([s for s, _, _ in memory]).astype(np.float32, copy=False)
    policies = np.stack([p for _, p, _ in memory]).astype(np.float32, copy=False)
    values = np.asarray([v for _, _, v in memory], dtype=np.float32)
    return states, policies, values


def minibatches(num_samples: int, batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Shuffled index batches covering every sample once; a last batch of one joins the batch before it."""
    if num_samples < 2:
        raise ValueError(f"training needs at least 2 samples (BatchNorm), got {num_samples}")
    order = rng.permutation(num_samples)
    batches = [order[i : i + batch_size] for i in range(0, num_samples, batch_size)]
    if len(batches) > 1 and len(batches[-1]) == 1:
        batches[-2] = np.concatenate(batches[-2:])
        batches.pop()
    return batches


class AlphaZero:
    """The course's trainer: ``learn()`` alternates self-play and training, checkpointing every iteration.

    ``run_dir`` (optional) receives ``config.json``, ``checkpoints/iter_NNNN.pt``, ``latest.pt`` (with the replay
    buffer, for ``resume``), ``history.json`` and ``loss.png``. Subclasses replace ``self_play_iteration``.
    """

    def __init__(
        self,
        model: torch.nn.Module,
        optimizer: torch.optim.Optimizer,
        game: Game,
        config: TrainConfig,
        run_dir: str | os.PathLike[str] | None = None,
        progress: bool = True,
        overwrite: bool = False,
    ) -> None:
        if not isinstance(config, TrainConfig):
            raise ValueError(f"config must be a TrainConfig, got {type(config).__name__}")
        self.model = model
        self.optimizer = optimizer
        self.game = game
        self.config = config
        self.run_dir = Path(run_dir) if run_dir is not None else None
        self.progress = progress
        self.overwrite = overwrite  # True: a fresh run may replace the checkpoints already in run_dir
        self.iteration = 0  # completed learn iterations
        self.replay: list[list[Sample]] = []  # one list of samples per recent iteration, oldest first
        self.history: list[dict[str, Any]] = []  # one dict per completed iteration
        self.best_model = copy.deepcopy(model) if config.gating_games > 0 else None
        self.game_stats: dict[str, int] = {}
        self._reset_game_stats()

    # ---- self-play ----------------------------------------------------------------------------------
    @property
    def self_play_model(self) -> torch.nn.Module:
        """The network that plays the self-play games: the best one with gating, else the one being trained."""
        return self.best_model if self.best_model is not None else self.model

    def temperature_at(self, move_number: int) -> float:
        """The move-selection temperature for a game's ``move_number``-th move (0-based)."""
        moves = self.config.temperature_moves
        return self.config.temperature if moves is None or move_number < moves else 0.0

    def _reset_game_stats(self) -> None:
        self.game_stats = {"games": 0, "positions": 0, "first_player_wins": 0, "second_player_wins": 0, "draws": 0}

    def record_game(self, winner: int, num_moves: int) -> None:
        """Count one finished self-play game (``winner`` 1, -1 or 0 for a draw); self-play methods call it."""
        self.game_stats["games"] += 1
        self.game_stats["positions"] += int(num_moves)
        key = {1: "first_player_wins", -1: "second_player_wins", 0: "draws"}[int(winner)]
        self.game_stats[key] += 1

    def game_memory(
        self, history: list[tuple[np.ndarray, np.ndarray, int]], value: float, last_player: int
    ) -> list[Sample]:
        """Samples for one finished game from its ``(canonical state, search probs, mover)`` history.

        ``value`` is the result for ``last_player`` (who made the final move); symmetries are added when enabled.
        """
        memory: list[Sample] = []
        for state, probs, player in history:
            # ALGO LOGIC: the value target is the final outcome seen by the player who moved in this position
            outcome = value if player == last_player else self.game.get_opponent_value(value)
            pairs = self.game.get_symmetries(state, probs) if self.config.augment_symmetries else [(state, probs)]
            for sym_state, sym_probs in pairs:
                encoded = self.game.get_encoded_state(sym_state)
                memory.append((encoded, np.asarray(sym_probs, dtype=np.float32), np.float32(outcome)))
        return memory

    def self_play(self, mcts: Any, rng: np.random.Generator) -> list[Sample]:
        """Play one game with ``mcts`` (an ``AlphaMCTS``) choosing every move; returns its samples."""
        from alphazero_lib.alpha_mcts import select_action

        game = self.game
        history: list[tuple[np.ndarray, np.ndarray, int]] = []
        player = 1
        state = game.get_initial_state()
        while True:
            # ALGO LOGIC: search from the mover's view, remember (state, search policy, mover), sample a move
            neutral_state = game.change_perspective(state, player)
            action_probs = mcts.search(neutral_state)
            history.append((neutral_state, action_probs, player))
            action = select_action(action_probs, self.temperature_at(len(history) - 1), rng)
            state = game.get_next_state(state, action, player)
            value, is_terminal = game.get_value_and_terminated(state, action)
            if is_terminal:
                winner = player if value > 0 else -player if value < 0 else 0
                self.record_game(winner, len(history))
                return self.game_memory(history, value, player)
            player = game.get_opponent(player)

    def self_play_iteration(self) -> list[Sample]:
        """Play ``num_self_play_iterations`` games and return all their samples (override for batched self-play).

        Implementations call ``record_game`` once per game and seed from ``derived_seed(seed, iteration, ...)``.
        """
        from alphazero_lib.alpha_mcts import AlphaMCTS

        cfg = self.config
        search_config = cfg.search_config(seed=derived_seed(cfg.seed, self.iteration, 1))
        mcts = AlphaMCTS(self.game, self.self_play_model, search_config)
        rng = np.random.default_rng(derived_seed(cfg.seed, self.iteration, 2))
        memory: list[Sample] = []
        with one_cpu_thread(self.self_play_model):
            for _ in trange(cfg.num_self_play_iterations, desc="self-play", leave=False, disable=not self.progress):
                memory += self.self_play(mcts, rng)
        return memory

    def iteration_record(self) -> dict[str, Any]:
        """Extra entries for this iteration's history record (subclasses add their self-play statistics)."""
        return {}

    # ---- training -----------------------------------------------------------------------------------
    def train(self, memory: list[Sample], rng: np.random.Generator | None = None) -> dict[str, float]:
        """One epoch over ``memory`` in shuffled minibatches; returns the mean policy, value and total loss."""
        states, policies, values = stack_memory(memory)
        rng = rng if rng is not None else np.random.default_rng()
        device = next(self.model.parameters()).device
        self.model.train()
        totals = {"policy_loss": 0.0, "value_loss": 0.0}
        for batch in minibatches(len(states), self.config.batch_size, rng):
            state = torch.as_tensor(states[batch], device=device)
            policy_targets = torch.as_tensor(policies[batch], device=device)
            value_targets = torch.as_tensor(values[batch], device=device).unsqueeze(1)

            # ALGO LOGIC: cross-entropy against the search's distribution + MSE against the game's outcome
            out_policy, out_value = self.model(state)
            policy_loss = F.cross_entropy(out_policy, policy_targets)
            value_loss = F.mse_loss(out_value, value_targets)
            loss = policy_loss + value_loss  # weight decay (the L2 term) lives in the optimizer

            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            totals["policy_loss"] += policy_loss.item() * len(batch)
            totals["value_loss"] += value_loss.item() * len(batch)
        losses = {k: v / len(states) for k, v in totals.items()}
        losses["loss"] = losses["policy_loss"] + losses["value_loss"]
        return losses

    # ---- the learn loop -----------------------------------------------------------------------------
    def learn(self) -> list[dict[str, Any]]:
        """Iterations of self-play then ``num_epochs`` of training, up to ``num_iterations``; returns the history."""
        cfg = self.config
        if self.run_dir is not None:
            self._claim_run_dir()
            self._write_json("config.json", {"game": self.game.config, "train_config": cfg.to_dict()})
        while self.iteration < cfg.num_iterations:
            start = time.perf_counter()
            self._reset_game_stats()
            self.model.eval()
            samples = self.self_play_iteration()
            self_play_seconds = time.perf_counter() - start

            # ALGO LOGIC: the replay memory holds the games of the last `replay_window` iterations
            self.replay = [*self.replay, samples][-cfg.replay_window :]
            memory = [sample for games in self.replay for sample in games]
            rng = np.random.default_rng(derived_seed(cfg.seed, self.iteration, 3))
            epochs = []
            with cpu_threads(self.model, cfg.num_threads):
                for _ in trange(cfg.num_epochs, desc="train", leave=False, disable=not self.progress):
                    epochs.append(self.train(memory, rng))
            self.model.eval()
            train_seconds = time.perf_counter() - start - self_play_seconds

            record = {
                "iteration": self.iteration + 1,
                **self.game_stats,
                "samples": len(samples),
                "memory": len(memory),
                "policy_loss": epochs[-1]["policy_loss"],
                "value_loss": epochs[-1]["value_loss"],
                "epochs": epochs,
                "self_play_seconds": round(self_play_seconds, 3),
                "train_seconds": round(train_seconds, 3),
            }
            record.update(self.iteration_record())
            if self.best_model is not None:
                record["gating"] = self.gate()
            record["wall_seconds"] = round(time.perf_counter() - start, 3)
            self.history.append(record)
            self.iteration += 1
            tqdm.write(self.summary_line(record))
            if self.run_dir is not None:
                self.save()
        return self.history

    def gate(self) -> dict[str, Any]:
        """AlphaGo Zero's evaluation: the candidate replaces the best network only at ``gating_threshold``.

        Both search ``num_searches`` a move without noise (``arena.gate``: seats alternating, each pair of games
        from the same random 2-move opening, draws half a point).
        """
        from alphazero_lib import arena
        from alphazero_lib.config import SearchConfig
        from alphazero_lib.players import AlphaZeroPlayer

        cfg = self.config
        seed = derived_seed(cfg.seed, self.iteration, 4)
        search = SearchConfig(num_searches=cfg.num_searches, C=cfg.C)
        candidate = AlphaZeroPlayer(self.game, self.model, search, seed=seed)
        best = AlphaZeroPlayer(self.game, self.best_model, search, seed=seed + 1)
        with one_cpu_thread(self.model):
            result = arena.gate(
                self.game, candidate, best, cfg.gating_games, cfg.gating_threshold, False, opening_moves=2, seed=seed
            )
        if result.accepted:
            self.best_model.load_state_dict(self.model.state_dict())
        return {"score": round(result.score, 4), "accepted": bool(result.accepted)}

    def summary_line(self, record: dict[str, Any]) -> str:
        """One line per iteration: games and results, samples, losses and times."""
        games = max(record["games"], 1)
        line = (
            f"iteration {record['iteration']}/{self.config.num_iterations}: {record['games']} games "
            f"(X {record['first_player_wins'] / games:.0%}, draw {record['draws'] / games:.0%}, "
            f"O {record['second_player_wins'] / games:.0%}), {record['samples']} samples "
            f"(memory {record['memory']}), policy loss {record['policy_loss']:.3f}, "
            f"value loss {record['value_loss']:.3f}, self-play {record['self_play_seconds']:.0f}s, "
            f"train {record['train_seconds']:.0f}s"
        )
        if "gating" in record:
            verdict = "accepted" if record["gating"]["accepted"] else "rejected"
            line += f", gating {record['gating']['score']:.2f} {verdict}"
        return line

    # ---- checkpoints and resuming -------------------------------------------------------------------
    def checkpoint(self, with_replay: bool = False) -> dict[str, Any]:
        """The checkpoint dict of the current state (``with_replay`` adds the replay buffer)."""
        extra: dict[str, Any] = {
            "optimizer": self.optimizer.state_dict(),
            "train_config": self.config.to_dict(),
            "iteration": self.iteration,
            "history": self.history,
        }
        if self.best_model is not None:
            extra["best_model"] = self.best_model.state_dict()
        if with_replay:
            extra["replay"] = [replay_to_tensors(games) for games in self.replay]
        return make_checkpoint(self.model, self.game, **extra)

    def save(self) -> None:
        """Write ``latest.pt`` (with the replay buffer), ``checkpoints/iter_NNNN.pt``, history and loss curves.

        ``latest.pt`` comes first: a process killed before the iteration file is written leaves a ``latest.pt``
        that ``find_resume_checkpoint`` resumes from exactly (and ``restore`` writes the missing file from it).
        """
        assert self.run_dir is not None
        save_checkpoint(self.run_dir / "latest.pt", self.checkpoint(with_replay=True))
        save_checkpoint(iteration_path(self.run_dir, self.iteration), self.checkpoint())
        self._write_json("history.json", self.history)
        from alphazero_lib.plotting import plot_training_curves

        fig = plot_training_curves(self.history)
        fig.savefig(self.run_dir / "loss.png", dpi=100)

    def restore(self, path: str | os.PathLike[str]) -> None:
        """Continue from a checkpoint: weights, optimizer state, iteration count, history and replay buffer."""
        checkpoint = load_checkpoint(path)
        check_game(checkpoint, self.game, path)
        load_state(self.model, checkpoint["model"], path)
        if self.best_model is not None:
            load_state(self.best_model, checkpoint.get("best_model", checkpoint["model"]), path)
        self.optimizer.load_state_dict(checkpoint["optimizer"])
        self.iteration = int(checkpoint["iteration"])
        self.history = list(checkpoint.get("history", []))
        self.replay = [replay_from_tensors(games) for games in checkpoint.get("replay", [])]
        if self.run_dir is not None and self.iteration > 0:
            missing = iteration_path(self.run_dir, self.iteration)
            if not missing.is_file():  # killed between writing latest.pt and the iteration file
                without_replay = {k: v for k, v in checkpoint.items() if k != "replay"}
                save_checkpoint(missing, without_replay)
            self._write_json("history.json", self.history)

    def _claim_run_dir(self) -> None:
        """Refuse to overwrite iterations already saved in ``run_dir`` (unless ``overwrite``); drop stale temp files."""
        clean_stale_temp_files(self.run_dir)
        later = [p for n, p in saved_iterations(self.run_dir) if n > self.iteration]
        latest = self.run_dir / "latest.pt"
        if self.iteration == 0 and latest.is_file():
            later.append(latest)
        if later and not self.overwrite:
            raise ValueError(
                f"{self.run_dir} already holds a run ({', '.join(p.name for p in later[:3])}"
                f"{', ...' if len(later) > 3 else ''}) beyond iteration {self.iteration}; resume it "
                f"(find_resume_checkpoint, restore) or pass overwrite=True to replace it"
            )
        for path in later:
            path.unlink()

    def _write_json(self, name: str, data: Any) -> None:
        atomic_write_bytes(self.run_dir / name, (json.dumps(data, indent=1) + "\n").encode())


def iteration_path(run_dir: str | os.PathLike[str], iteration: int) -> Path:
    """``run_dir/checkpoints/iter_NNNN.pt``: the checkpoint written after ``iteration`` learn iterations."""
    return Path(run_dir) / "checkpoints" / f"iter_{iteration:04d}.pt"


def saved_iterations(run_dir: str | os.PathLike[str]) -> list[tuple[int, Path]]:
    """``(iteration, path)`` of every ``checkpoints/iter_NNNN.pt`` in ``run_dir``, oldest first (unchecked)."""
    found = []
    for path in (Path(run_dir) / "checkpoints").glob("iter_*.pt"):
        digits = path.stem[len("iter_") :]
        if digits.isdigit():
            found.append((int(digits), path))
    return sorted(found)


def clean_stale_temp_files(run_dir: str | os.PathLike[str]) -> list[Path]:
    """Delete the ``.NAME.*.tmp`` files an interrupted atomic write left in ``run_dir``; returns them."""
    removed = []
    for folder in (Path(run_dir), Path(run_dir) / "checkpoints"):
        for path in folder.glob(".*.tmp"):
            if path.is_file():
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def find_resume_checkpoint(run_dir: str | os.PathLike[str]) -> tuple[Path | None, str]:
    """The checkpoint to resume ``run_dir`` from, and a phrase naming it and why (``None`` if there is none).

    ``latest.pt`` (which holds the replay buffer) wins unless the newest intact ``checkpoints/iter_NNNN.pt`` is
    further on; damaged or truncated files are skipped and named in the sentence.
    """
    from alphazero_lib.checkpoints import CheckpointError

    run_dir = Path(run_dir)
    skipped: list[str] = []
    best: tuple[int, Path] | None = None
    latest = run_dir / "latest.pt"
    if latest.is_file():
        try:
            best = (int(load_checkpoint(latest).get("iteration", 0)), latest)
        except (CheckpointError, ValueError, TypeError) as err:
            skipped.append(f"{latest.name} ({str(err).splitlines()[0][:120]})")
    for number, path in reversed(saved_iterations(run_dir)):
        if best is not None and number <= best[0]:
            break
        try:
            load_checkpoint(path)
        except CheckpointError as err:
            skipped.append(f"{path.name} ({str(err).splitlines()[0][:120]})")
            continue
        best = (number, path)
        break
    note = f"; skipped damaged {', '.join(skipped)}" if skipped else ""
    if best is None:
        return None, f"no intact checkpoint in {run_dir}{note}"
    number, path = best
    if path == latest:
        return path, f"{path}{note}"
    why = "latest.pt is missing, damaged or older, so the replay buffer starts empty"
    return path, f"{path}, the newest intact iteration ({why}{note})"


def replay_to_tensors(memory: list[Sample]) -> dict[str, torch.Tensor]:
    """One iteration's samples as three tensors (what a checkpoint can hold under ``weights_only``)."""
    if not memory:
        return {"states": torch.zeros(0), "policies": torch.zeros(0), "values": torch.zeros(0)}
    states, policies, values = stack_memory(memory)
    return {
        "states": torch.from_numpy(states),
        "policies": torch.from_numpy(policies),
        "values": torch.from_numpy(values),
    }


def replay_from_tensors(data: dict[str, torch.Tensor]) -> list[Sample]:
    """The inverse of ``replay_to_tensors``."""
    states, policies, values = (data[k].numpy() for k in ("states", "policies", "values"))
    return [(states[i], policies[i], np.float32(values[i])) for i in range(len(values))]


def build_trainer(
    game: Game,
    config: TrainConfig,
    run_dir: str | os.PathLike[str] | None = None,
    progress: bool = True,
    trainer_class: type[AlphaZero] = AlphaZero,
    overwrite: bool = False,
) -> AlphaZero:
    """A fresh seeded ``ResNet``, its Adam optimizer and the trainer, as ``config`` describes them."""
    from alphazero_lib.model import ResNet
    from alphazero_lib.utils import seed_everything

    seed_everything(config.seed)
    model = ResNet(game, config.num_res_blocks, config.num_hidden, device=config.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    return trainer_class(model, optimizer, game, config, run_dir=run_dir, progress=progress, overwrite=overwrite)


# ---- batched self-play (issue 5) ------------------------------------------------------------------------
class AlphaZeroParallel(AlphaZero):
    """AlphaZero with batched self-play: ``num_parallel_games`` games in flight, searched together by ``BatchedMCTS``.

    Same settings, checkpoints, seeds and memory format as ``AlphaZero``; only ``self_play_iteration`` differs.
    Every move searches all live games at once (one batched network call per simulation, through a
    ``FastEvaluator`` copy of the self-play network); a finished game is replaced by a new one while games
    remain to be played, else its slot goes idle, so no game waits for another. ``inference_mode`` (default:
    the config's) picks the evaluator's mode ("auto" measures); ``reuse_tree`` keeps the subtree of the move played.

    With ``config.num_workers > 1`` on the CPU, the games are shared among that many worker processes (kept for
    the whole ``learn``), each running the same batched self-play on its share with its own seeds; their samples
    are joined in worker order, so a run is reproducible for a given ``num_workers`` (another count plays
    other games). ``close()`` stops the workers (``learn`` does it on the way out). Workers are started with
    "spawn", so a script that trains with workers needs the ``if __name__ == "__main__":`` guard.
    """

    def __init__(self, *args: Any, inference_mode: str | None = None, reuse_tree: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.inference_mode = inference_mode if inference_mode is not None else self.config.inference_mode
        self.reuse_tree = reuse_tree
        self.search_stats: dict[str, Any] = {}  # the last iteration's BatchedSearchStats.to_dict()
        self._pool: Any = None  # the worker processes (concurrent.futures.ProcessPoolExecutor) and their queue
        self._progress_queue: Any = None

    @property
    def num_workers(self) -> int:
        """Self-play processes this iteration will use: ``config.num_workers`` on the CPU, one on a GPU."""
        on_cpu = next(self.self_play_model.parameters()).device.type == "cpu"
        return min(self.config.num_workers, self.config.num_self_play_iterations) if on_cpu else 1

    def self_play_iteration(self) -> list[Sample]:
        """Play ``num_self_play_iterations`` games, ``num_parallel_games`` at a time; returns all their samples."""
        cfg = self.config
        total = cfg.num_self_play_iterations
        with tqdm(total=total, desc="self-play", leave=False, disable=not self.progress) as bar:
            if self.num_workers == 1:
                memory, self.search_stats = self.play_games(
                    total, min(cfg.num_parallel_games, total), (cfg.seed, self.iteration), lambda: bar.update(1)
                )
                return memory
            return self._play_in_workers(bar)

    def play_games(
        self, total: int, slots: int, seed_parts: tuple[int, ...], on_game_over: Any = None
    ) -> tuple[list[Sample], dict[str, Any]]:
        """Play ``total`` games with ``slots`` in flight on this process; returns (samples, search statistics).

        The search and move choices are seeded from ``derived_seed(*seed_parts, 1)`` and ``(..., 2)``;
        ``on_game_over()`` is called after each finished game (progress).
        """
        from alphazero_lib.alpha_mcts import select_action
        from alphazero_lib.batched_mcts import BatchedMCTS
        from alphazero_lib.inference import FastEvaluator

        game = self.game
        evaluator = FastEvaluator(self.self_play_model, self.inference_mode, batch_size=slots)
        search_config = self.config.search_config(seed=derived_seed(*seed_parts, 1))
        mcts = BatchedMCTS(game, evaluator, search_config, reuse_tree=self.reuse_tree)
        rng = np.random.default_rng(derived_seed(*seed_parts, 2))

        states = np.stack([game.get_initial_state()] * slots)  # [P, R, C] absolute states
        players = np.ones(slots, dtype=np.int64)  # the side to move in each slot
        histories: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in range(slots)]
        live = np.ones(slots, dtype=bool)
        started = slots
        memory: list[Sample] = []
        while live.any():
            # ALGO LOGIC: one batched search for every live game, from each mover's view
            canonical = (states * players[:, None, None]).astype(states.dtype)
            probs = mcts.search(canonical, active=live)
            played = np.full(slots, -1)
            for i in np.flatnonzero(live):
                histories[i].append((canonical[i], probs[i], int(players[i])))
                action = select_action(probs[i], self.temperature_at(len(histories[i]) - 1), rng)
                states[i] = game.get_next_state(states[i], action, int(players[i]))
                value, is_terminal = game.get_value_and_terminated(states[i], action)
                if not is_terminal:
                    played[i] = action
                    players[i] = game.get_opponent(int(players[i]))
                    continue
                player = int(players[i])
                self.record_game(player if value > 0 else -player if value < 0 else 0, len(histories[i]))
                memory += self.game_memory(histories[i], value, player)
                if on_game_over is not None:
                    on_game_over()
                if started < total:  # a new game takes the slot; the others go on undisturbed
                    states[i], players[i], histories[i] = game.get_initial_state(), 1, []
                    started += 1
                else:
                    live[i] = False
            mcts.advance(played)  # with reuse_tree, keep each continuing game's subtree
        return memory, mcts.stats.to_dict()

    def _play_in_workers(self, bar: Any) -> list[Sample]:
        """Share this iteration's games among ``num_workers`` processes; join their samples and statistics."""
        import queue

        cfg, workers = self.config, self.num_workers
        total = cfg.num_self_play_iterations
        if self._pool is None:
            self._start_workers(workers)
        while not self._progress_queue.empty():  # left over from an interrupted iteration
            self._progress_queue.get_nowait()
        model = copy.deepcopy(self.self_play_model).cpu().eval()
        worker_config = dataclasses.replace(cfg, num_workers=1, gating_games=0)
        jobs = []
        for w in range(workers):
            games = total // workers + (w < total % workers)
            slots = min(games, math.ceil(cfg.num_parallel_games / workers))
            seed_parts = (cfg.seed, self.iteration, 5, w)  # purpose 5: worker w's self-play
            payload = (self.game, worker_config, model, self.inference_mode, self.reuse_tree, games, slots, seed_parts)
            jobs.append(self._pool.submit(_self_play_worker, payload))
        while not all(job.done() for job in jobs):
            try:
                bar.update(self._progress_queue.get(timeout=0.2))
            except queue.Empty:
                pass
        while not self._progress_queue.empty():
            bar.update(self._progress_queue.get_nowait())
        memory: list[Sample] = []
        stats: dict[str, Any] = {}
        for job in jobs:  # worker order: the same samples for the same seeds
            samples, game_stats, search_stats = job.result()  # re-raises a worker's error here
            memory += samples
            for key, value in game_stats.items():
                self.game_stats[key] += value
            for key, value in search_stats.items():
                stats[key] = stats.get(key, 0) + value
        stats["evaluations_per_position"] = stats["network_evaluations"] / max(stats["positions"], 1)
        stats["workers"] = workers
        self.search_stats = stats
        return memory

    def _start_workers(self, workers: int) -> None:
        import concurrent.futures
        import multiprocessing

        context = multiprocessing.get_context("spawn")  # fork would copy torch's thread pool state
        self._progress_queue = context.Queue()
        threads = max(1, torch.get_num_threads() // workers)
        self._pool = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=context, initializer=_init_worker, initargs=(self._progress_queue, threads)
        )

    def close(self) -> None:
        """Stop the self-play worker processes, if any (a later iteration starts them again)."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool, self._progress_queue = None, None

    def learn(self) -> list[dict[str, Any]]:
        try:
            return super().learn()
        finally:
            self.close()

    def iteration_record(self) -> dict[str, Any]:
        """The search statistics of the last self-play iteration, for the history."""
        return {"search": self.search_stats} if self.search_stats else {}


_worker_progress: Any = None  # in a worker process: the queue that counts finished games for the parent's bar


def _init_worker(progress_queue: Any, threads: int) -> None:
    global _worker_progress
    _worker_progress = progress_queue
    torch.set_num_threads(threads)


def _self_play_worker(payload: tuple[Any, ...]) -> tuple[list[Sample], dict[str, int], dict[str, Any]]:
    """One worker's share of an iteration: batched self-play of ``games`` games; (samples, game stats, search stats)."""
    game, config, model, inference_mode, reuse_tree, games, slots, seed_parts = payload
    trainer = AlphaZeroParallel(model, None, game, config, progress=False, inference_mode=inference_mode)
    trainer.reuse_tree = reuse_tree
    queue = _worker_progress
    memory, stats = trainer.play_games(games, slots, seed_parts, (lambda: queue.put(1)) if queue is not None else None)
    return memory, trainer.game_stats, stats
