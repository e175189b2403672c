"""The capstone (notebook 10): the learner's own pieces, kept in ``my_alphazero/``, assembled into one AlphaZero.

What runs on whose code (``load_pieces`` prints it; the library's version stands in where a check has not passed):

- the rules: ``ConnectFour`` of notebook 6 (your ``get_next_state``, ``get_valid_moves``, ``check_win``), inside
  the search too (``BatchedRules`` calls the game's own methods);
- the network: ``ResBlock`` and ``ResNet`` of notebook 3;
- the batched search of notebook 7: your ``select_actions`` picks every PUCT step and your ``backup`` backs every
  simulation up, inside the library's array tree (``BatchedMCTS``), which holds the arrays and calls the network;
- self-play and training of notebook 5: your ``apply_temperature`` draws the moves, your ``game_memory`` turns a
  finished game into samples, your ``train`` (with your ``minibatches`` and ``train_step``) trains, and your
  ``learn`` runs each iteration; the library's ``BatchedSelfPlay`` keeps many games in flight so one network
  call serves them all (your serial ``self_play`` is measured by ``serial_game_seconds``: too slow for the budget);
- the agent: your ``AlphaMCTS`` of notebook 4 (with your ``Node``) searches, your ``make_agent`` of notebook 8 turns
  it into a Kaggle agent, and your ``evaluate_both_seats`` plays ``negamax`` and ``random``.

``fast=True`` (the default) trains with the library's ``connect_four_fast`` recipe: Gumbel AlphaZero's search at the
root (32 simulations, 4 candidates), the improved policy as the target and the move distribution, value targets
half outcome and half search value, and random 0-2 move openings. ``fast=False`` is notebook 5's AlphaZero: PUCT
with your ``select_actions`` at every node, visit counts as targets, the outcome as the value target.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from alphazero_lib.alpha_mcts import AlphaMCTS as LibraryAlphaMCTS
from alphazero_lib.arena import wilson_interval as library_wilson_interval
from alphazero_lib.batched_mcts import BatchedMCTS
from alphazero_lib.checkpoints import CheckpointError, check_game, load_checkpoint, load_state, make_checkpoint
from alphazero_lib.config import SearchConfig, TrainConfig
from alphazero_lib.course.mine import Piece, Yours, load_yours
from alphazero_lib.exercises import nb04_alphazero_search, nb05_self_play, nb06_connect_four, nb07_parallel
from alphazero_lib.games import ConnectFour as LibraryConnectFour
from alphazero_lib.games.batched_rules import BatchedRules
from alphazero_lib.model import ResBlock as LibraryResBlock
from alphazero_lib.model import ResNet as LibraryResNet
from alphazero_lib.rundir import Run, check_resumable, claim_run_dir, network_changes, open_run, run_dir_holds_files
from alphazero_lib.selfplay import BatchedSelfPlay
from alphazero_lib.training import minibatches as library_minibatches
from alphazero_lib.training import replay_from_tensors, replay_to_tensors
from alphazero_lib.utils import resolve_device


def _library_kaggle() -> dict[str, Any]:
    from alphazero_lib.exercises import nb08_kaggle as nb08

    return {
        "observation_to_state": nb08.reference_observation_to_state,
        "best_legal_action": nb08.reference_best_legal_action,
        "make_agent": nb08.reference_make_agent,
        "outcome": nb08.reference_outcome,
        "evaluate_both_seats": nb08.reference_evaluate_both_seats,
    }


def pieces() -> list[Piece]:
    """The pieces the capstone uses, where they are kept, and the library's version of each."""
    kaggle = _library_kaggle()
    nb04 = nb04_alphazero_search
    return [
        Piece(
            "nb06_connect_four",
            "ConnectFour",
            LibraryConnectFour,
            methods={
                "get_next_state": nb06_connect_four._library_get_next_state,
                "get_valid_moves": nb06_connect_four._library_get_valid_moves,
                "check_win": nb06_connect_four._library_check_win,
            },
        ),
        Piece("nb03_model", "ResBlock", LibraryResBlock),
        Piece("nb03_model", "ResNet", LibraryResNet, methods={"forward": LibraryResNet.forward}),
        Piece("nb04_alphazero_search", "AlphaMCTS", LibraryAlphaMCTS, methods={"search": nb04.library_search}),
        Piece("nb05_self_play", "apply_temperature", nb05_self_play.library_apply_temperature),
        Piece("nb05_self_play", "game_memory", nb05_self_play._library_game_memory),
        Piece("nb05_self_play", "self_play", nb05_self_play._library_self_play),
        Piece("nb05_self_play", "minibatches", library_minibatches),
        Piece("nb05_self_play", "train_step", nb05_self_play.library_train_step),
        Piece("nb05_self_play", "train", nb05_self_play.library_train),
        Piece("nb05_self_play", "learn", nb05_self_play._library_learn),
        Piece("nb07_parallel", "select_actions", nb07_parallel.select_actions),
        Piece("nb07_parallel", "backup", nb07_parallel.backup),
        *(Piece("nb08_kaggle", name, function) for name, function in kaggle.items()),
        Piece("nb09_evaluation", "wilson_interval", library_wilson_interval),
    ]


def load_pieces(names: list[str] | None = None, quiet: bool = False) -> Yours:
    """Your pieces from ``my_alphazero/`` where their checks passed, the library's otherwise (one line says which).

    ``names`` picks some of them (e.g. ``["ResNet", "AlphaMCTS"]`` for notebook 5's live run); default all."""
    chosen = [p for p in pieces() if names is None or p.name in names]
    unknown = sorted(set(names or []) - {p.name for p in chosen})
    if unknown:
        raise ValueError(f"no piece called {', '.join(unknown)}; the pieces: {', '.join(p.name for p in pieces())}")
    return load_yours(chosen, quiet=quiet)


@dataclass
class CapstoneSettings:
    """The capstone's training run. ``fast``: the ``connect_four_fast`` recipe (Gumbel), else PUCT as notebook 5."""

    minutes: float = 20.0
    fast: bool = True
    games_per_iteration: int | None = None  # default (``games()``): 256 on a CUDA GPU, else 128
    searches: int | None = None  # default: 32 (fast) or 64 (PUCT)
    num_res_blocks: int = 4
    num_hidden: int = 64
    replay_window: int = 6  # iterations of games trained on
    batch_size: int = 256
    epochs: int = 1
    lr: float = 0.001
    weight_decay: float = 0.0001
    seed: int = 0
    threads: int | None = None  # torch threads while training (default: all cores)
    device: str = "auto"  # where the network trains: "auto" (a CUDA GPU when there is one), "cpu" or "cuda"

    def games(self) -> int:
        """Self-play games an iteration: ``games_per_iteration``, or 256 where the network trains on a CUDA GPU (each
        network call then takes twice the games) and 128 on a CPU."""
        if self.games_per_iteration is not None:
            return self.games_per_iteration
        return 256 if resolve_device(self.device).type == "cuda" else 128

    def train_config(self) -> TrainConfig:
        """The library's settings this run mirrors (the search's and the self-play schedule's)."""
        if self.fast:
            config = TrainConfig.from_preset("connect_four_fast")
        else:
            config = TrainConfig.from_dict(dict(
                search=dict(num_searches=64, dirichlet_epsilon=0.25, dirichlet_alpha=0.3, C=2.0),
                temperature=1.0, temperature_moves=12, augment_symmetries=True,
            ))  # fmt: skip
        search = dict(config.search.__dict__)
        if self.searches is not None:
            search["num_searches"] = int(self.searches)
        search["seed"] = self.seed
        return TrainConfig.from_dict({
            **config.to_dict(), "search": search, "seed": self.seed, "num_res_blocks": self.num_res_blocks,
            "num_hidden": self.num_hidden, "games_per_iteration": self.games(),
            "replay_window": self.replay_window, "batch_size": self.batch_size, "num_epochs": self.epochs,
            "lr": self.lr, "weight_decay": self.weight_decay, "num_workers": 1,
        })  # fmt: skip


def with_player_argument(game_class: type) -> type:
    """The learner's game class, accepting (and ignoring) the ``player`` the library's self-play passes along."""

    class Game(game_class):  # type: ignore[misc, valid-type]
        def get_valid_moves(self, state: np.ndarray, player: int | None = None) -> np.ndarray:
            return super().get_valid_moves(state)

    Game.__name__ = Game.__qualname__ = game_class.__name__
    return Game


@dataclass
class Capstone:
    """One AlphaZero assembled from ``yours`` (``load_pieces()``), trained by your ``learn`` under a time budget.

    With ``run_dir`` the run lives in a run directory of the library's (``alphazero_lib.rundir``): ``run`` saves it
    after every iteration (``latest.pt`` with the optimizer, the replay window and the random state;
    ``checkpoints/iter_NNNN.pt``; ``history.json``; ``config.json``), and a ``Capstone`` built on a directory that
    holds a run continues it, so a runtime that disconnects loses at most the iteration it was in (the games in
    flight then are played again from their start). The files are the library's own format:
    ``python -m alphazero_lib strength --player alphazero:RUN_DIR/latest.pt:100`` measures your network.
    """

    yours: Yours
    settings: CapstoneSettings = field(default_factory=CapstoneSettings)
    history: list[dict[str, Any]] = field(default_factory=list)
    run_dir: str | os.PathLike[str] | None = None

    def __post_init__(self) -> None:
        s, y = self.settings, self.yours
        self.config = s.train_config()
        torch.manual_seed(s.seed)
        self.game = with_player_argument(y["ConnectFour"])()
        self.device = resolve_device(s.device)
        self.model = y["ResNet"](self.game, s.num_res_blocks, s.num_hidden).to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=s.lr, weight_decay=s.weight_decay)
        self.rng = np.random.default_rng(s.seed)
        search = self.config.search_config(seed=s.seed)
        select = y["select_actions"]

        def your_selection(children: Any, config: SearchConfig, root: Any = None) -> np.ndarray:
            return select(
                children.value_sum, children.visit_count, children.prior, children.legal, children.parent_visits,
                C=config.C,
            )  # fmt: skip

        puct = search.policy == "puct"
        self.mcts = BatchedMCTS(
            self.game, self.model, search, rules=BatchedRules(self.game),
            root_selection=your_selection if puct else None, interior_selection=your_selection if puct else None,
            backup=y["backup"],
        )  # fmt: skip
        counter = y.counter  # the library's share of the work, counted beside yours
        self.mcts.run = counter.wrap("BatchedMCTS.run", self.mcts.run, "library")  # type: ignore[method-assign]
        counter.read("BatchedMCTS network call", lambda: self.mcts.stats.network_calls, "library")
        self._start_self_play((s.seed, 1))
        self.window: deque[list] = deque(maxlen=max(1, s.replay_window))
        self.seconds = 0.0
        self.path = None if self.run_dir is None else Path(self.run_dir)
        self.directory: Run | None = None  # the open run directory (rundir.Run): it writes every file
        self.start_note = "a new run (not saved: no run_dir)"
        if self.path is not None:
            self._open_run(self.path)

    def _start_self_play(self, seed_parts: tuple[int, ...]) -> None:
        self.finished: deque[list] = deque()
        self.self_play = BatchedSelfPlay(
            self.game, self.model, self.config, slots=self.config.games_per_iteration, seed_parts=seed_parts,
            total=None, mcts=self.mcts, make_samples=self._samples, choose=self._choose,
        )  # fmt: skip
        wrap = self.yours.counter.wrap
        self.self_play.step = wrap("BatchedSelfPlay.step", self.self_play.step, "library")  # type: ignore[method-assign]

    # ---- the run directory ------------------------------------------------------------------------------
    def _open_run(self, path: Path) -> None:
        """Start a run in ``path``, or continue the one it holds (``open_run`` decides and refuses, saying why)."""
        resume = run_dir_holds_files(path)
        run = open_run(path, game="connect_four", resume=resume, overrides=None if resume else self.config.to_dict())
        self.directory = run
        self.changes: list[dict[str, Any]] = []
        if not resume:
            self.start_note = f"a new run in {shown(path)}"
            return
        recorded = run.config
        for name, what, old, new in network_changes(self.config, recorded):
            raise ValueError(
                f"{path} holds a network of {old} {what}, and your settings ask for {new}: a resumed run keeps its "
                f"network. Set {name} back, or give a new run_dir (or delete {path}) to start afresh"
            )
        with run.claimed(say=lambda text: None) as (source, note):
            if source is None:
                self.start_note = f"a new run in {shown(path)} ({note})"
                return
            self._restore(source)
        changes = self.config.changes_from(recorded)
        self.changes = [
            {"iteration": len(self.history) + 1, "field": name, "old": old, "new": new}
            for name, (old, new) in changes.items()
        ]
        said = "".join(f"; {name} {old!r} -> {new!r}" for name, (old, new) in changes.items())
        self.start_note = (
            f"resuming {shown(path)} after iteration {len(self.history)} ({self.seconds / 60:.1f} min trained), from "
            f"{source}{said}"
        )

    def _restore(self, source: Path) -> None:
        """The network, optimizer, replay window, history and random state saved in ``source``."""
        checkpoint = load_checkpoint(source)
        check_game(checkpoint, LibraryConnectFour(), source)
        check_resumable(checkpoint, source)
        state = checkpoint.get("capstone")
        if not isinstance(state, dict) or not {"rng", "seconds"} <= set(state):
            raise CheckpointError(
                f"{source} was not written by a Capstone (it lacks the capstone's random state): continue it with "
                "python -m alphazero_lib train --resume, or give the Capstone another run_dir"
            )
        load_state(self.model, checkpoint["model"], source)
        self.optimizer.load_state_dict(checkpoint["optimizer"])
        for group in self.optimizer.param_groups:  # the settings' values, as a library resume does
            group["lr"], group["weight_decay"] = self.settings.lr, self.settings.weight_decay
        self.history = list(checkpoint["history"])
        self.window.extend(replay_from_tensors(games) for games in checkpoint.get("replay", []))
        self.rng.bit_generator.state = state["rng"]
        self.seconds = float(state["seconds"])
        self._start_self_play((self.settings.seed, 1, len(self.history)))
        assert self.directory is not None  # _open_run's
        self.directory.mend(self._checkpoint())  # killed between latest.pt and the iteration's file: write it

    def _checkpoint(self) -> dict[str, Any]:
        """The run's state as an iteration file (``latest.pt`` adds the replay window)."""
        return make_checkpoint(
            self.library_network(), LibraryConnectFour(), optimizer=self.optimizer.state_dict(),
            train_config=self.config.to_dict(), iteration=len(self.history), history=self.history,
            capstone={"rng": self.rng.bit_generator.state, "seconds": self.seconds},
        )  # fmt: skip

    def save(self) -> None:
        """Write the run after an iteration (``run`` calls it), as the library's ``rundir.Run`` writes a training run:
        ``latest.pt`` first, then the iteration's file, ``history.json``, ``loss.png`` and, on the first save or after
        a change of settings, ``config.json``; every file written whole or not at all."""
        if self.directory is None:
            raise ValueError("this Capstone has no run_dir to save into: Capstone(yours, settings, run_dir=...)")
        iteration = len(self.history)
        replay = [replay_to_tensors(games) for games in self.window]
        with self.directory.lock():
            if iteration == 1 or self.changes:
                self.directory.begin(iteration - 1, self.config, self.changes)  # claims the directory, config.json
                self.changes = []
            else:
                claim_run_dir(self.directory.path, iteration - 1, overwrite=False)
            self.directory.save({**self._checkpoint(), "replay": replay})

    # ---- the pieces the library's self-play calls back ------------------------------------------------------
    def _choose(self, probs: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
        return int(rng.choice(len(probs), p=self.yours["apply_temperature"](probs, temperature)))

    def _samples(self, game: Any, history: list, value: float, last_player: int, augment: bool, q_weight: float):
        """Your ``game_memory`` for the game and its mirror image, value targets mixed with the search's values."""
        game_memory = self.yours["game_memory"]
        views = [[(s, p, player) for s, p, player, *_ in history]]
        if augment:
            mirrored = [game.get_symmetries(s, p)[1] for s, p, _ in views[0]]
            views.append([(s, p, player) for (s, p), (_, _, player) in zip(mirrored, views[0], strict=True)])
        samples = []
        for view in views:
            memory = game_memory(game, view, value, last_player)
            if q_weight:
                memory = [
                    (state, probs, (1 - q_weight) * float(outcome) + q_weight * float(move[3]))
                    for (state, probs, outcome), move in zip(memory, history, strict=True)
                ]
            samples += memory
        self.finished.append(samples)
        return samples

    def play_game(self) -> list:
        """One finished game's samples: the batched self-play steps until a game ends (many end together)."""
        while not self.finished:
            self.self_play.step()
        return self.finished.popleft()

    def train_epoch(self, memory: list) -> dict[str, float]:
        """Your ``train`` for one epoch on this iteration's games and the ones kept before them."""
        replay = [sample for games in self.window for sample in games] + memory
        try:
            return self.yours["train"](self.model, self.optimizer, replay, self.settings.batch_size, self.rng)
        except RuntimeError as error:
            # meta and CUDA word it differently: "...meta tensors...device...", "Input type (torch.FloatTensor) and
            # weight type (torch.cuda.FloatTensor) should be the same" (a convolution), "Expected all tensors to be
            # on the same device" (the rest)
            if self.device.type == "cpu" or not any(word in str(error) for word in ("device", "weight type")):
                raise
            raise RuntimeError(
                f"your train (notebook 5) gave the network on {self.device} its batches on another device "
                f"({' '.join(str(error).split())[:160]}). Build them where the model is (notebook 5, exercise 6: "
                "device = next(model.parameters()).device) and run that check again, or set DEVICE = 'cpu'."
            ) from error

    # ---- the run ----------------------------------------------------------------------------------------
    def iteration(self) -> dict[str, Any]:
        """One iteration of your ``learn``: ``games_per_iteration`` games, then the epochs (``run`` saves it)."""
        start = time.perf_counter()
        memory: list = []

        def play_game() -> list:
            samples = self.play_game()
            memory.extend(samples)
            return samples

        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # the search's batches are small: one thread, and no spinning beside numpy
        try:
            record = self.yours["learn"](
                play_game, self._train_with_threads, 1, self.config.games_per_iteration, self.settings.epochs
            )[-1]
        finally:
            torch.set_num_threads(threads)
        self.window.append(memory)
        self.seconds += time.perf_counter() - start
        record = {**record, "iteration": len(self.history) + 1, "minutes": self.seconds / 60}
        self.history.append(record)
        return record

    def _train_with_threads(self, memory: list) -> dict[str, float]:
        torch.set_num_threads(self.settings.threads or os.cpu_count() or 1)
        try:
            return self.train_epoch(memory)
        finally:
            torch.set_num_threads(1)

    def run(self, minutes: float | None = None, on_iteration: Callable[[dict], None] | None = None) -> list[dict]:
        """Train until the run has had the settings' ``minutes`` of wall time in all (a resumed run counts what it
        trained before, and one that has had them trains no more), or, given ``minutes``, that many more: at least
        one iteration, and the last one is finished, not cut. With a ``run_dir`` each iteration is saved after
        ``on_iteration`` has seen (and perhaps added to) its record."""
        if minutes is None:
            end = 60 * self.settings.minutes
            if self.history and self.seconds >= end:
                print(f"the run has trained {self.seconds / 60:.1f} of its {self.settings.minutes:g} minutes: "
                      "raise minutes to train on")  # fmt: skip
                return self.history
        else:
            end = self.seconds + 60 * minutes
        while True:
            record = self.iteration()
            if on_iteration is not None:
                on_iteration(record)
            if self.path is not None:
                self.save()
            if self.seconds >= end:
                return self.history

    # ---- the agent --------------------------------------------------------------------------------------
    def search(self, searches: int = 100) -> Callable[[np.ndarray], np.ndarray]:
        """Your ``AlphaMCTS`` (notebook 4) on the trained network: ``search(canonical state) -> probabilities``."""
        self.model.eval()
        mcts = self.yours["AlphaMCTS"](
            self.game, self.model, SearchConfig(num_searches=searches, seed=self.settings.seed)
        )
        return mcts.search

    def agent(self, searches: int = 100) -> Callable[[Any, Any], int]:
        """Your ``make_agent`` (notebook 8) around your search: a Kaggle ConnectX agent."""
        return self.yours["make_agent"](self.game, self.search(searches))

    def library_network(self) -> torch.nn.Module:
        """Your trained weights in the library's ``ResNet`` (same layer names; a strict load proves it)."""
        network = LibraryResNet(LibraryConnectFour(), self.settings.num_res_blocks, self.settings.num_hidden)
        network.load_state_dict(self.model.state_dict(), strict=True)
        return network.eval()

    def export(self, path: Any, searches: int = 100) -> Any:
        """Your network as a one-file Kaggle submission (the library's standalone numpy agent: Kaggle runs one file,
        without your package). Give it the ``searches`` of the ``agent`` you evaluated: its PUCT search (C 2, no
        noise) is then the same search, so the submission's games can be read beside the agent's."""
        from alphazero_lib.kaggle.submission import export_submission

        return export_submission(self.library_network(), path, num_searches=searches)


def shown(path: Path) -> str:
    """``path`` as a note prints it: relative to the working folder when it lies beside it (the notebook's folder and
    the checkout around it), so a stored output names no machine's folders; otherwise in full."""
    relative = os.path.relpath(Path(path).resolve())
    return str(Path(path).resolve()) if relative.startswith(os.path.join(os.pardir, os.pardir)) else relative


def serial_game_seconds(yours: Yours, searches: int = 32, seed: int = 0) -> float:
    """Seconds your serial ``self_play`` (notebook 5) takes for one Connect Four game with your ``AlphaMCTS``."""
    game = with_player_argument(yours["ConnectFour"])()
    torch.manual_seed(seed)
    model = yours["ResNet"](game, 4, 64)
    mcts = yours["AlphaMCTS"](game, model, SearchConfig(num_searches=searches, seed=seed))
    start = time.perf_counter()
    yours["self_play"](game, mcts.search, np.random.default_rng(seed), 1.0)
    return time.perf_counter() - start


def quick_score(network: torch.nn.Module, games: int = 20, depth: int = 2, seed: int = 0) -> float:
    """``network`` alone (its most likely legal move, no search) against the library's negamax at ``depth``:
    ``games`` games from random 2-move openings, half on each seat. The fixed opponent of the live curve."""
    from alphazero_lib.arena import play_match
    from alphazero_lib.players import NegamaxPlayer, PolicyPlayer

    game = LibraryConnectFour()
    network_player = PolicyPlayer(game, network)
    negamax = NegamaxPlayer(game, depth=depth, seed=seed)
    return play_match(game, network_player, negamax, games, progress=False, opening_moves=2, seed=seed).score


class LiveCurves:
    """Called after each iteration: redraws the losses and the network's score against negamax (``quick_score``)
    in one figure that updates in place in Jupyter and Colab (printed lines elsewhere)."""

    def __init__(self, capstone: Capstone, games: int = 20, depth: int = 2) -> None:
        self.capstone, self.games, self.depth = capstone, games, depth
        self.handle: Any = None

    def __call__(self, record: dict[str, Any]) -> None:
        score = quick_score(self.capstone.library_network(), self.games, self.depth, seed=record["iteration"])
        record["score_vs_negamax"] = score  # kept in the run's history (and saved with it)
        print(
            f"iteration {record['iteration']}: {record['games']} games, {record['samples']} samples, policy loss "
            f"{record['policy_loss']:.3f}, value loss {record['value_loss']:.3f}, network alone vs negamax:"
            f"{self.depth} {score:.2f}, {record['minutes']:.1f} min",
            flush=True,
        )
        self.show()

    def figure(self) -> Any:
        from matplotlib.figure import Figure

        history = self.capstone.history
        minutes = [r["minutes"] for r in history]
        fig = Figure(figsize=(9, 3.2))
        losses, score = fig.subplots(1, 2)
        losses.plot(minutes, [r["policy_loss"] for r in history], "o-", label="policy loss")
        losses.plot(minutes, [r["value_loss"] for r in history], "o-", label="value loss")
        losses.set_xlabel("training minutes")
        losses.legend()
        scored = [(r["minutes"], r["score_vs_negamax"]) for r in history if "score_vs_negamax" in r]
        score.plot([m for m, _ in scored], [v for _, v in scored], "o-", color="#2e7d32")
        score.set_ylim(-0.02, 1.02)
        score.set_ylabel("score (win 1, draw 1/2)")
        score.set_xlabel("training minutes")
        score.set_title(f"network alone vs negamax:{self.depth} ({self.games} games)", fontsize=10)
        fig.tight_layout()
        return fig

    def show(self) -> None:
        try:
            from IPython import get_ipython
            from IPython.display import display
        except ImportError:
            return
        if get_ipython() is None:
            return
        fig = self.figure()
        if self.handle is None:
            self.handle = display(fig, display_id=True)
        else:
            self.handle.update(fig)
