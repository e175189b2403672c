"""The capstone (notebook 10): the learner's own pieces, kept in ``my_alphazero/``, assembled into one AlphaZero.

What runs on whose code (``load_pieces`` prints it; the library's version stands in where a check has not passed):

- the rules: ``ConnectFour`` of notebook 6 (your ``get_next_state``, ``get_valid_moves``, ``check_win``), inside
  the search too (``BatchedRules`` calls the game's own methods);
- the network: ``ResBlock`` and ``ResNet`` of notebook 3;
- the batched search of notebook 7: your ``select_actions`` picks every PUCT step and your ``backup`` backs every
  simulation up, inside the library's array tree (``BatchedMCTS``), which holds the arrays and calls the network;
- self-play and training of notebook 5: your ``apply_temperature`` draws the moves, your ``game_memory`` turns a
  finished game into samples, your ``train`` (with your ``minibatches`` and ``train_step``) trains; the library's
  ``BatchedSelfPlay`` keeps many games in flight so one network call serves them all (your serial ``self_play`` is
  measured by ``serial_game_seconds``: too slow for the budget), and the library's trainer, ``AlphaZero``, runs
  the iterations (the loop your ``learn`` of notebook 5 was checked against), saving each one;
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
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from alphazero_lib.alpha_mcts import AlphaMCTS as LibraryAlphaMCTS
from alphazero_lib.arena import wilson_interval as library_wilson_interval
from alphazero_lib.batched_mcts import BatchedMCTS
from alphazero_lib.config import MAX_ITERATIONS, PRESETS, SearchConfig, TrainConfig
from alphazero_lib.course.mine import PACKAGE, Piece, Yours, home, load_yours
from alphazero_lib.exercises import nb04_alphazero_search, nb05_self_play, nb06_connect_four, nb07_parallel
from alphazero_lib.games import ConnectFour as LibraryConnectFour
from alphazero_lib.games.batched_rules import BatchedRules
from alphazero_lib.model import ResBlock as LibraryResBlock
from alphazero_lib.model import ResNet as LibraryResNet
from alphazero_lib.rundir import open_run
from alphazero_lib.selfplay import BatchedSelfPlay, value_target
from alphazero_lib.training import AlphaZero, make_optimizer
from alphazero_lib.training import minibatches as library_minibatches
from alphazero_lib.utils import cpu_cores, resolve_device


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


FAST_PRESET = "connect_four_fast"  # the recipe the capstone trains with; its network and training settings too


def _preset(name: str | None = None) -> Any:
    """A setting of ``CapstoneSettings`` that the preset gives when it is left ``None``: the preset's setting
    ``name`` (default: the field's own name)."""
    return field(default=None, metadata={"preset": name})


@dataclass
class CapstoneSettings:
    """The capstone's training run. ``fast``: the ``connect_four_fast`` recipe (Gumbel), else PUCT as notebook 5.

    The network's and the training's settings left ``None`` are the preset's (``config.PRESETS["connect_four_fast"]``),
    so a change of the preset reaches the capstone; give one to change it for this run."""

    minutes: float = 20.0
    fast: bool = True
    games_per_iteration: int | None = None  # default (``games()``): twice the preset's on a CUDA GPU, else the preset's
    searches: int | None = None  # default: the preset's (fast) or 64 (PUCT)
    num_res_blocks: int | None = _preset()
    num_hidden: int | None = _preset()
    replay_window: int | None = _preset()  # iterations of games trained on
    batch_size: int | None = _preset()
    epochs: int | None = _preset("num_epochs")
    lr: float | None = _preset()
    weight_decay: float | None = _preset()
    seed: int = 0
    threads: int | None = None  # torch threads while training (default: all cores)
    device: str = "auto"  # where the network trains: "auto" (a CUDA GPU when there is one), "cpu" or "cuda"

    def __post_init__(self) -> None:
        preset = PRESETS[FAST_PRESET]
        for f in fields(self):
            if "preset" in f.metadata and getattr(self, f.name) is None:
                setattr(self, f.name, preset[f.metadata["preset"] or f.name])

    def games(self) -> int:
        """Self-play games an iteration: ``games_per_iteration``, or twice the preset's (256) where the network trains
        on a CUDA GPU (each network call then takes twice the games) and the preset's (128) on a CPU."""
        if self.games_per_iteration is not None:
            return self.games_per_iteration
        games = int(PRESETS[FAST_PRESET]["games_per_iteration"])
        return 2 * games if resolve_device(self.device).type == "cuda" else games

    def train_config(self) -> TrainConfig:
        """The library's settings this run mirrors (the search's and the self-play schedule's)."""
        if self.fast:
            config = TrainConfig.from_preset(FAST_PRESET)
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
            "lr": self.lr, "weight_decay": self.weight_decay, "num_workers": 1, "num_iterations": MAX_ITERATIONS,
        })  # fmt: skip


def with_player_argument(game_class: type) -> type:
    """The learner's game class, accepting (and ignoring) the ``player`` the library's self-play passes along."""

    class Game(game_class):  # type: ignore[misc, valid-type]
        def get_valid_moves(self, state: np.ndarray, player: int | None = None) -> np.ndarray:
            return super().get_valid_moves(state)

    Game.__name__ = Game.__qualname__ = game_class.__name__
    return Game


class Capstone(AlphaZero):
    """One AlphaZero assembled from ``yours`` (``load_pieces()``): the library's trainer (``training.AlphaZero``)
    with your pieces in its hooks, ``self_play_iteration`` (your game, search steps and ``apply_temperature`` in the
    batched self-play, your ``game_memory``), ``train`` (your ``train``) and ``iteration_record`` (the minutes
    trained), trained under a time budget (``run``).

    With ``run_dir`` the run lives in a run directory of the library's (``rundir.open_run``): it is saved after every
    iteration, and a ``Capstone`` built on a directory that holds a run continues it, so a runtime that disconnects
    loses at most the iteration it was in (the games in flight then are played again from their start). The files
    are the library's own: ``python -m alphazero_lib strength --player alphazero:RUN_DIR/latest.pt:100`` measures
    your network, and ``python -m alphazero_lib train --resume --out RUN_DIR`` trains it on.
    """

    def __init__(
        self, yours: Yours, settings: CapstoneSettings | None = None, run_dir: str | os.PathLike[str] | None = None
    ) -> None:
        s = self.settings = settings if settings is not None else CapstoneSettings()
        self.yours, self.on_iteration = yours, None
        config = s.train_config()
        torch.manual_seed(s.seed)
        game = with_player_argument(yours["ConnectFour"])()
        self.device = resolve_device(s.device)
        model = yours["ResNet"](game, s.num_res_blocks, s.num_hidden).to(self.device)
        model.arch = {"num_res_blocks": s.num_res_blocks, "num_hidden": s.num_hidden}  # what a checkpoint records
        quiet = lambda text: None  # noqa: E731 (the start note says what matters)
        run = (
            None
            if run_dir is None
            else open_run(run_dir, game="connect_four", overrides=config.to_dict(), resume=None, say=quiet)
        )
        super().__init__(model, make_optimizer(model, config), game, config, run=run, progress=False)
        self.mcts = self._your_search()
        self.start_note = "a new run (not saved: no run_dir)"
        if run is not None:
            source, note = self.resume(say=quiet)
            self.start_note = f"a new run in {shown(run.path)}" + (f" ({note})" if run.resume and not source else "")
            if source is not None:
                said = "".join(f"; {c['field']} {c['old']!r} -> {c['new']!r}" for c in run.changes)
                self.start_note = (
                    f"resuming {shown(run.path)} after iteration {self.iteration} ({self.seconds / 60:.1f} min "
                    f"trained), from {source}{said}"
                )
        left = s.minutes - self.seconds / 60
        if left > 0:
            minutes = budget_note(
                left, config.games_per_iteration, config.search.num_searches, machine_load(), cpu_cores(),
                on_gpu=self.device.type == "cuda",
            )  # fmt: skip
            self.start_note += "\n" + minutes
        self._start_self_play()

    def _your_search(self) -> BatchedMCTS:
        """The library's array tree with your ``select_actions`` (PUCT) and ``backup`` in it, counted."""
        select = self.yours["select_actions"]

        def your_selection(children: Any, config: SearchConfig, root: Any = None) -> np.ndarray:
            return select(
                children.value_sum, children.visit_count, children.prior, children.legal, children.parent_visits,
                C=config.C,
            )  # fmt: skip

        search = self.config.search_config(seed=self.settings.seed)
        puct = search.policy == "puct"
        mcts = BatchedMCTS(
            self.game, self.model, search, rules=BatchedRules(self.game),
            root_selection=your_selection if puct else None, interior_selection=your_selection if puct else None,
            backup=self.yours["backup"],
        )  # fmt: skip
        counter = self.yours.counter  # the library's share of the work, counted beside yours
        mcts.run = counter.wrap("BatchedMCTS.run", mcts.run, "library")  # type: ignore[method-assign]
        counter.read("BatchedMCTS network call", lambda: mcts.stats.network_calls, "library")
        return mcts

    def _start_self_play(self) -> None:
        self.finished: deque[tuple[list, int, int]] = deque()
        self.self_play = BatchedSelfPlay(
            self.game, self.model, self.config, slots=self.config.games_per_iteration,
            seed_parts=(self.settings.seed, 1, self.iteration), total=None, mcts=self.mcts,
            make_samples=self._samples, choose=self._choose,
        )  # fmt: skip
        wrap = self.yours.counter.wrap
        self.self_play.step = wrap("BatchedSelfPlay.step", self.self_play.step, "library")  # type: ignore[method-assign]

    @property
    def seconds(self) -> float:
        """Wall time trained so far, over every session of the run (its history's)."""
        return float(self.history[-1]["minutes"]) * 60 if self.history else 0.0

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
            samples += [
                (state, probs, value_target(float(outcome), move, q_weight))
                for (state, probs, outcome), move in zip(memory, history, strict=True)
            ]
        self.finished.append((samples, round(value) * last_player, len(history)))
        return samples

    def play_game(self) -> list:
        """One finished game's samples, counted in the iteration that takes them: the batched self-play steps until
        a game ends (many end together, and those an iteration does not take wait for the next)."""
        while not self.finished:
            self.self_play.step()
        samples, winner, moves = self.finished.popleft()
        self.record_game(winner, moves)
        return samples

    # ---- the hooks of the library's trainer -----------------------------------------------------------------
    def self_play_iteration(self) -> list:
        """``games_per_iteration`` games of the batched self-play, on one torch thread (the search's batches are
        small); their samples."""
        self._started = time.perf_counter()
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return [sample for _ in range(self.config.games_per_iteration) for sample in self.play_game()]
        finally:
            torch.set_num_threads(threads)

    def train(self, memory: list, rng: np.random.Generator | None = None) -> dict[str, float]:
        """Your ``train`` for one epoch on the replay window's games, on the settings' threads."""
        threads = torch.get_num_threads()
        torch.set_num_threads(self.settings.threads or os.cpu_count() or 1)
        try:
            return self.train_epoch(memory, rng)
        finally:
            torch.set_num_threads(threads)

    def train_epoch(self, memory: list, rng: np.random.Generator | None = None) -> dict[str, float]:
        """Your ``train`` (notebook 5) on ``memory``, with an error that names the fix when its batches are not where
        the network is."""
        rng = rng if rng is not None else np.random.default_rng(self.settings.seed)
        try:
            return self.yours["train"](self.model, self.optimizer, memory, self.settings.batch_size, rng)
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

    def iteration_record(self) -> dict[str, Any]:
        """The minutes trained by the end of this iteration, over every session of the run."""
        return {"minutes": (self.seconds + time.perf_counter() - self._started) / 60}

    def report(self, record: dict[str, Any]) -> None:
        """``on_iteration`` (``run``'s) sees the record, and may add to it, before it is saved."""
        if self.on_iteration is not None:
            self.on_iteration(record)

    # ---- the run ----------------------------------------------------------------------------------------
    def run(self, minutes: float | None = None, on_iteration: Callable[[dict], None] | None = None) -> list[dict]:
        """Train until the run has had the settings' ``minutes`` of wall time in all (a resumed run counts what it
        trained before, and one that has had them trains no more), or, given ``minutes``, that many more: at least
        one iteration, and the last one is finished, not cut. With a ``run_dir`` each iteration is saved after
        ``on_iteration`` has seen (and perhaps added to) its record."""
        if minutes is None:
            left = 60 * self.settings.minutes - self.seconds
            if self.history and left <= 0:
                print(f"the run has trained {self.seconds / 60:.1f} of its {self.settings.minutes:g} minutes: "
                      "raise minutes to train on")  # fmt: skip
                return self.history
        else:
            left = 60 * minutes
        self.on_iteration = on_iteration
        return self.learn(time_budget=max(left, 1e-9))  # at least one iteration

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
    """``path`` as a note prints it, naming no machine's or tool's folders: inside the folder that holds your
    ``my_alphazero/`` (``course.mine.home()``, where ``RUN_DIR`` lives) by its path there, with that said in words;
    else relative to the working folder when it lies beside it (the notebook's folder and the checkout around it);
    otherwise in full."""
    resolved = Path(path).resolve()
    if resolved.is_relative_to(home()) and resolved != home():
        return f"{resolved.relative_to(home()).as_posix()} (beside your {PACKAGE}/)"
    relative = os.path.relpath(resolved)
    return str(resolved) if relative.startswith(os.path.join(os.pardir, os.pardir)) else relative


#: The pace ``budget_note`` scales: the quiet stored run of 2026-11-24 (``benchmarks/results/capstone_2026-11-24/``)
#: trained 20 iterations in its 20 minutes on 2 idle cores, 128 games an iteration at 32 searches a move.
QUIET_MINUTES_AN_ITERATION = 1.0
QUIET_GAMES_TIMES_SEARCHES = 128 * 32


def machine_load() -> float | None:
    """The load average over the last minute (processes running or waiting for a core), or None where the system
    gives none (Windows)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def budget_note(minutes: float, games: int, searches: int, load: float | None, cores: int, on_gpu: bool = False) -> str:
    """About how many iterations fit in ``minutes``, and a warning when the machine is busy (``load`` above
    ``cores``): the quiet run's pace, scaled by the work an iteration (``games`` x ``searches``) and by the share of
    the cores this run gets (its self-play wants one core: ``cores / (load + 1)``, at most all of it)."""
    share = 1.0 if load is None else min(1.0, cores / (load + 1.0))
    work = games * searches / QUIET_GAMES_TIMES_SEARCHES
    iterations = max(1, round(minutes * share / (QUIET_MINUTES_AN_ITERATION * work)))
    machine = (
        "this system gives no load average, so it assumes a quiet machine"
        if load is None
        else f"this machine's load average, {load:.1f} over the last minute on {cores} cores"
    )
    fit = "iteration fits" if iterations == 1 else "iterations fit"
    note = (
        f"about {iterations} {fit} in {minutes:g} minutes here: an estimate, not a "
        "measurement, from the "
        f"stored quiet run's pace (about {QUIET_MINUTES_AN_ITERATION:g} min an iteration of 128 games at 32 "
        f"searches on 2 idle cores) scaled to {games} games at {searches} searches and by {machine}"
    )
    if on_gpu:
        note += " (a CPU's estimate: training on a GPU fits more)"
    if load is not None and load > cores:
        note += (
            f"\nthis machine is busy (load average {load:.1f} on {cores} cores): fewer iterations fit in the budget, "
            "and the figures will be weaker than a quiet machine's"
        )
    return note


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


def pons_error_rate(network: torch.nn.Module, positions: int = 100) -> float:
    """``network`` alone (its most likely legal move) on the first ``positions`` of each of Pons' six sets
    (``strength.SETS``): the share of its moves that are errors. Every move counts, where one blunder loses a
    game: the other curve of the live figure."""
    from alphazero_lib.players import PolicyPlayer
    from alphazero_lib.strength import SETS, evaluate_player

    results = evaluate_player(PolicyPlayer(LibraryConnectFour(), network), SETS, limit=positions, progress=False)
    return sum(r.errors for r in results) / sum(r.positions for r in results)


class LiveCurves:
    """Called after each iteration: redraws the losses and two measures of the network alone (no search) in one
    figure that updates in place in Jupyter and Colab (printed lines elsewhere): its score against negamax
    (``quick_score``), and its error rate on Pons' positions (``pons_error_rate``), which moves from the first
    iterations on, while a network that still blunders once a game loses every game."""

    def __init__(self, capstone: Capstone, games: int = 20, depth: int = 2, positions: int = 100) -> None:
        self.capstone, self.games, self.depth, self.positions = capstone, games, depth, positions
        self.handle: Any = None

    def __call__(self, record: dict[str, Any]) -> None:
        network = self.capstone.library_network()
        score = quick_score(network, self.games, self.depth, seed=record["iteration"])
        errors = pons_error_rate(network, self.positions)
        record["score_vs_negamax"] = score  # kept in the run's history (and saved with it)
        record["pons_error_rate"] = errors
        print(
            f"iteration {record['iteration']}: {record['games']} games, {record['samples']} samples, policy loss "
            f"{record['policy_loss']:.3f}, value loss {record['value_loss']:.3f}; network alone: vs negamax:"
            f"{self.depth} {score:.2f}, errors on Pons' positions {100 * errors:.1f}%; {record['minutes']:.1f} min",
            flush=True,
        )
        self.show()

    def figure(self) -> Any:
        from matplotlib.figure import Figure

        history = self.capstone.history
        minutes = [r["minutes"] for r in history]
        fig = Figure(figsize=(11, 3.2))
        losses, score, errors = fig.subplots(1, 3)
        losses.plot(minutes, [r["policy_loss"] for r in history], "o-", label="policy loss")
        losses.plot(minutes, [r["value_loss"] for r in history], "o-", label="value loss")
        losses.set_title("training losses", fontsize=10)
        losses.legend()
        scored = [(r["minutes"], r["score_vs_negamax"]) for r in history if "score_vs_negamax" in r]
        score.plot([m for m, _ in scored], [v for _, v in scored], "o-", color="#2e7d32")
        score.set_ylim(-0.02, 1.02)
        score.set_ylabel("score (win 1, draw 1/2)")
        score.set_title(f"network alone vs negamax:{self.depth} ({self.games} games)", fontsize=10)
        rated = [(r["minutes"], 100 * r["pons_error_rate"]) for r in history if "pons_error_rate" in r]
        errors.plot([m for m, _ in rated], [v for _, v in rated], "o-", color="#c62828")
        errors.set_ylim(bottom=0)
        errors.set_ylabel("errors (%)")
        errors.set_title(f"network alone on Pons' positions ({6 * self.positions})", fontsize=10)
        for panel in (losses, score, errors):
            panel.set_xlabel("training minutes")
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
