"""Checks for notebook 05 (self-play and training): temperature, a game's memory, self-play, minibatches, the
training step, one epoch of training and the learn loop.

Each ``check_*`` compares the learner's code with the library's (``alphazero_lib.selection.apply_temperature``,
``alphazero_lib.training.AlphaZero`` and ``minibatches``) on seeded cases, prints one verdict line and returns the
learner's code when every case agrees, the library's otherwise. Self-play is checked with a deterministic fake
search (visit counts from a hash of the position), training with fixed model copies and plain SGD (Adam would
turn float noise in a zero gradient into a full step), so every verdict is the same on every CPU.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from alphazero_lib.config import TrainConfig
from alphazero_lib.exercises.core import Case, Mismatch, check, same, show
from alphazero_lib.games import ConnectFour, TicTacToe
from alphazero_lib.model import ResNet
from alphazero_lib.selection import apply_temperature as library_apply_temperature
from alphazero_lib.training import AlphaZero, stack_memory
from alphazero_lib.training import minibatches as library_minibatches

TOL = 1e-5  # float32 networks: the same arithmetic in another order differs in the last bits


# ---- helpers --------------------------------------------------------------------------------------------
def fake_search(game: Any, seed: int = 0) -> Callable[[np.ndarray], np.ndarray]:
    """A deterministic stand-in for the search: visit counts 1..20 on legal moves from a hash of the position."""

    def search(state: np.ndarray) -> np.ndarray:
        state = np.asarray(state, dtype=np.int8)
        digest = hashlib.sha256(state.tobytes() + bytes([seed % 256])).digest()
        counts = np.array([1 + digest[a % len(digest)] % 20 for a in range(game.action_size)], dtype=np.float64)
        counts *= game.get_valid_moves(state)
        return (counts / counts.sum()).astype(np.float32)

    return search


def _trainer(game: Any, model: torch.nn.Module | None = None, optimizer: Any = None, **config: Any) -> AlphaZero:
    """The library's trainer around ``model`` (a throwaway one when None); symmetries off unless asked."""
    model = model if model is not None else torch.nn.Linear(1, 1)
    optimizer = optimizer if optimizer is not None else torch.optim.SGD(model.parameters(), lr=0.1)
    config = {"augment_symmetries": False, **config}
    return AlphaZero(model, optimizer, game, TrainConfig(**config), progress=False)


class _FakeMCTS:
    def __init__(self, search: Callable[[np.ndarray], np.ndarray]) -> None:
        self.search = search


def _compare_memory(got: Any, expected: list, length_hint: str = "") -> list:
    """Compare two lists of samples ``(encoded state, policy, outcome)``; raise ``Mismatch`` with a hint."""
    if not isinstance(got, list):
        raise Mismatch(got, expected, "return a list of (encoded state, policy, outcome) tuples, one per position.")
    if len(got) != len(expected):
        raise Mismatch(
            f"{len(got)} samples",
            f"{len(expected)} samples",
            length_hint or "one sample per position of the history, in order (no symmetries here).",
        )
    for k, (sample, want) in enumerate(zip(got, expected, strict=True)):
        if not isinstance(sample, (tuple, list)) or len(sample) != 3:
            raise Mismatch(sample, want, f"sample {k}: a tuple (encoded state, policy, outcome)")
        state, policy, outcome = sample
        if np.shape(state) != np.shape(want[0]) or not same(np.asarray(state), want[0]):
            hint = f"sample {k}: store game.get_encoded_state(canonical state), shape {want[0].shape}."
            if np.shape(state) == np.shape(want[0]):
                hint = f"sample {k}: encode the state as its mover saw it (game.change_perspective(state, player))."
            raise Mismatch(state, want[0], hint)
        if not same(np.asarray(policy, dtype=np.float64), np.asarray(want[1], dtype=np.float64), TOL):
            raise Mismatch(policy, want[1], f"sample {k}: store the search's probabilities before temperature.")
        if not same(float(np.asarray(outcome)), float(want[2])):
            raise Mismatch(
                outcome,
                want[2],
                f"sample {k}: the outcome as seen by the player who moved there: value for the last mover's "
                "positions, game.get_opponent_value(value) for the others.",
            )
    return got


# ---- exercise 1: temperature --------------------------------------------------------------------------------
def check_apply_temperature(apply_temperature: Callable[[np.ndarray, float], np.ndarray]) -> Callable:
    """``apply_temperature(probs, temperature)``: ``probs ** (1 / T)`` renormalised, ``[A]``; T = 0: equal mass
    on the most visited moves.

    Cases: visit distributions with zeros (illegal moves), temperatures 0.1 to 10, temperature 0 with one and with
    several maxima; the input must not be changed and the result must sum to 1.
    """

    def cases() -> list[Case]:
        rng = np.random.default_rng(5)
        vectors = [np.array([0.0, 0.25, 0.75]), np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.5, 0.0, 0.5, 0.0])]
        for size in (3, 7, 9, 9, 9):
            counts = rng.integers(0, 30, size).astype(np.float64)
            counts[rng.integers(size)] += 1
            vectors.append(counts / counts.sum())
        out = []
        for probs in vectors:
            for temperature in (1.0, 1.25, 0.5, 2.0, 10.0, 0.1, 0.0):
                out.append(_temperature_case(probs, temperature))
        return out

    return check("apply_temperature", apply_temperature, library_apply_temperature, cases)


def _temperature_case(probs: np.ndarray, temperature: float) -> Case:
    expected = library_apply_temperature(probs, temperature)

    def run(f: Callable) -> np.ndarray:
        given = probs.copy()
        got = f(given, temperature)
        if not np.array_equal(given, probs):
            raise Mismatch(given, probs, "the input was changed: compute a new array, leave probs as it is")
        return np.asarray(got, dtype=np.float64)

    if temperature == 0:
        hint = "temperature 0 cannot divide by zero: put equal mass on the largest entries (ties share it)."
    elif temperature == 1:
        hint = "temperature 1 leaves the distribution as it is."
    else:
        hint = "raise to the power 1 / temperature, then divide by the sum so it adds up to 1 again."
    return Case(f"apply_temperature({show(probs)}, {temperature})", run, expected, hint)


# ---- exercise 2: one game's memory --------------------------------------------------------------------------
def check_game_memory(game_memory: Callable) -> Callable:
    """``game_memory(game, history, value, last_player)``: a finished game's ``(canonical state, probs, mover)``
    history -> samples ``(encoded state [3, R, C], probs [A], outcome)``, the outcome seen by each mover.

    Cases: Tic-Tac-Toe and Connect Four games won by the first or the second player, and draws.
    """

    def cases() -> list[Case]:
        rng = np.random.default_rng(11)
        out = []
        for game in (TicTacToe(), ConnectFour()):
            for number in range(8):
                history, value, last = _random_history(game, rng)
                if number == 0:
                    value = 0.0  # a draw's value, whoever moved last
                trainer = _trainer(game)
                expected = trainer.game_memory(history, value, last)
                call = f"game_memory({game!r}, <{len(history)} positions, movers {_movers(history)}>, {value}, {last})"
                out.append(
                    Case(
                        call,
                        lambda f, g=game, h=history, v=value, p=last, e=expected: _compare_memory(
                            f(g, [(s.copy(), pr.copy(), m) for s, pr, m in h], v, p), e
                        ),
                        expected,
                        same=lambda got, exp: True,  # compared inside run, with hints
                    )
                )
        return out

    return check("game_memory", game_memory, _library_game_memory, cases)


def _library_game_memory(game: Any, history: list, value: float, last_player: int) -> list:
    return _trainer(game).game_memory(history, value, last_player)


def _movers(history: list) -> str:
    movers = [int(m) for _, _, m in history]
    return str(movers) if len(movers) <= 9 else f"[{movers[0]}, {movers[1]}, ..., {movers[-1]}]"


def _random_history(game: Any, rng: np.random.Generator) -> tuple[list, float, int]:
    """A random game's ``(canonical state, probs, mover)`` history, its final value and last mover."""
    search = fake_search(game, int(rng.integers(256)))
    state, player, history = game.get_initial_state(), 1, []
    while True:
        canonical = game.change_perspective(state, player)
        probs = search(canonical)
        history.append((canonical, probs, player))
        action = int(rng.choice(game.action_size, p=probs.astype(np.float64) / probs.astype(np.float64).sum()))
        state = game.get_next_state(state, action, player)
        value, done = game.get_value_and_terminated(state, action)
        if done:
            return history, float(value), player
        player = -player


SELF_PLAY_HINT = (
    "the game went another way: search the canonical state, then draw each move with "
    "rng.choice(game.action_size, p=apply_temperature(probs, temperature)), one draw per move."
)


# ---- exercise 3: self-play ----------------------------------------------------------------------------------
def check_self_play(self_play: Callable) -> Callable:
    """``self_play(game, search, rng, temperature)``: one game, every move drawn from the search's probabilities
    with temperature; returns the game's samples as ``game_memory`` makes them.

    Cases: a deterministic fake search (visit counts from a hash of the position) on Tic-Tac-Toe and Connect Four,
    temperatures 1.25, 1, 0.5 and 0, several seeds; the library's ``AlphaZero.self_play`` with the same rng.
    """

    def cases() -> list[Case]:
        out = []
        for game in (TicTacToe(), ConnectFour()):
            for seed, temperature in [(0, 1.25), (1, 1.0), (2, 0.5), (3, 0.0), (4, 1.25), (5, 2.0)]:
                search = fake_search(game, seed)
                trainer = _trainer(game, temperature=temperature)
                expected = trainer.self_play(_FakeMCTS(search), np.random.default_rng(seed))
                out.append(
                    Case(
                        f"self_play({game!r}, fake_search, np.random.default_rng({seed}), temperature={temperature})",
                        lambda f, g=game, s=search, sd=seed, t=temperature, e=expected: _compare_memory(
                            f(g, s, np.random.default_rng(sd), t), e, SELF_PLAY_HINT
                        ),
                        expected,
                        hint="",
                        same=lambda got, exp: True,
                    )
                )
        return out

    return check("self_play", self_play, _library_self_play, cases)


def _library_self_play(game: Any, search: Callable, rng: np.random.Generator, temperature: float = 1.25) -> list:
    return _trainer(game, temperature=temperature).self_play(_FakeMCTS(search), rng)


# ---- exercise 4: minibatches --------------------------------------------------------------------------------
def check_minibatches(minibatches: Callable) -> Callable:
    """``minibatches(num_samples, batch_size, rng)``: shuffled index batches covering every sample once; a last
    batch of one joins the batch before it.

    Cases: sizes that divide evenly, leave a remainder, leave exactly one (the video's crash), fit in one batch.
    """

    def cases() -> list[Case]:
        out = []
        sizes = [(8, 4), (10, 4), (9, 4), (2, 2), (3, 2), (5, 8), (64, 64), (65, 64), (66, 64), (129, 64), (200, 64)]
        for seed, (num, size) in enumerate(sizes):
            expected = library_minibatches(num, size, np.random.default_rng(seed))
            out.append(
                Case(
                    f"minibatches({num}, {size}, np.random.default_rng({seed}))",
                    lambda f, n=num, b=size, s=seed, e=expected: _compare_batches(
                        f(n, b, np.random.default_rng(s)), e, n
                    ),
                    expected,
                    same=lambda got, exp: True,
                )
            )
        return out

    return check("minibatches", minibatches, library_minibatches, cases)


def _compare_batches(got: Any, expected: list, num: int) -> Any:
    try:
        batches = [np.asarray(b).reshape(-1) for b in got]
    except TypeError:
        raise Mismatch(got, expected, "return a list of index arrays.") from None
    sizes = [len(b) for b in batches]
    flat = np.concatenate(batches) if batches else np.zeros(0, dtype=int)
    if sorted(flat.tolist()) != list(range(num)):
        raise Mismatch(
            f"batch sizes {sizes}",
            f"batch sizes {[len(b) for b in expected]}",
            "every sample exactly once: slice order[i : i + batch_size] up to the end (the video's "
            "min(len(memory) - 1, ...) drops the last sample).",
        )
    if 1 in sizes:
        raise Mismatch(
            f"batch sizes {sizes}",
            f"batch sizes {[len(b) for b in expected]}",
            "a last batch of one must join the batch before it (BatchNorm cannot train on one sample).",
        )
    if not same(sizes, [len(b) for b in expected]) or not all(
        np.array_equal(a, b) for a, b in zip(batches, expected, strict=True)
    ):
        raise Mismatch(
            [b.tolist() for b in batches][:2],
            [b.tolist() for b in expected][:2],
            "shuffle once with order = rng.permutation(num_samples), then cut order into slices of batch_size.",
        )
    return got


# ---- exercise 5: the training step --------------------------------------------------------------------------
def library_train_step(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    states: torch.Tensor,
    policy_targets: torch.Tensor,
    value_targets: torch.Tensor,
) -> tuple[float, float]:
    """One gradient step on one batch (the body of ``AlphaZero.train``'s loop); returns the two losses."""
    out_policy, out_value = model(states)
    policy_loss = F.cross_entropy(out_policy, policy_targets)
    value_loss = F.mse_loss(out_value, value_targets)
    loss = policy_loss + value_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return policy_loss.item(), value_loss.item()


def _tiny_model(game: Any, seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    return ResNet(game, num_res_blocks=1, num_hidden=8)


def _sgd(model: torch.nn.Module) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=1e-4)


def _random_memory(game: Any, count: int, rng: np.random.Generator) -> list:
    """``count`` samples from random games (encoded states, fake search policies, outcomes)."""
    memory: list = []
    while len(memory) < count:
        history, value, last = _random_history(game, rng)
        memory += _trainer(game).game_memory(history, value, last)
    return memory[:count]


def _parameters(model: torch.nn.Module) -> np.ndarray:
    return np.concatenate([p.detach().numpy().ravel() for p in model.parameters()])


def check_train_step(train_step: Callable) -> Callable:
    """``train_step(model, optimizer, states [B, 3, R, C], policy_targets [B, A], value_targets [B, 1])``: one
    gradient step; returns ``(policy_loss, value_loss)`` as floats.

    Cases: two steps in a row (so a missing ``zero_grad`` shows) on copies of one small ResNet with plain SGD,
    batches of 2 to 24 Tic-Tac-Toe and Connect Four samples; compared with the library's ``AlphaZero.train`` on
    the same batch: both losses and every parameter afterwards.
    """

    def cases() -> list[Case]:
        out = []
        rng = np.random.default_rng(21)
        for index, (game, size) in enumerate(
            [(TicTacToe(), 2), (TicTacToe(), 8), (TicTacToe(), 24), (ConnectFour(), 6)]
        ):
            batches = [stack_memory(_random_memory(game, size, rng)) for _ in range(2)]
            model = _tiny_model(game, index)
            reference = copy.deepcopy(model)
            trainer = _trainer(game, reference, _sgd(reference), batch_size=size)
            expected_losses = []
            for states, policies, values in batches:
                memory = [(states[i], policies[i], values[i]) for i in range(size)]
                losses = trainer.train(memory, np.random.default_rng(0))
                expected_losses.append((losses["policy_loss"], losses["value_loss"]))
            expected = (expected_losses, _parameters(reference))
            out.append(
                Case(
                    f"two train_step calls on batches of {size} {game!r} samples",
                    lambda f, m=model, b=batches, e=expected: _run_steps(f, m, b, e),
                    expected,
                    same=lambda got, exp: True,
                )
            )
        return out

    return check("train_step", train_step, library_train_step, cases)


def _run_steps(train_step: Callable, model: torch.nn.Module, batches: list, expected: tuple) -> Any:
    model = copy.deepcopy(model)
    optimizer = _sgd(model)
    model.train()
    expected_losses, expected_parameters = expected
    for step, ((states, policies, values), want) in enumerate(zip(batches, expected_losses, strict=True)):
        got = train_step(
            model,
            optimizer,
            torch.as_tensor(states),
            torch.as_tensor(policies),
            torch.as_tensor(values).unsqueeze(1),
        )
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise Mismatch(got, want, "return (policy_loss, value_loss) as two floats (loss.item()).")
        if not all(isinstance(x, (float, int, np.floating)) for x in got):
            raise Mismatch(got, want, "return plain floats: policy_loss.item(), value_loss.item().")
        if not same(float(got[0]), want[0], TOL):
            raise Mismatch(
                got,
                want,
                f"step {step + 1}: the policy loss is the cross-entropy of the policy logits against the search's "
                "distribution: F.cross_entropy(logits, policy_targets) (no softmax before it).",
            )
        if not same(float(got[1]), want[1], TOL):
            raise Mismatch(
                got,
                want,
                f"step {step + 1}: the value loss is F.mse_loss(value, value_targets), both of shape [B, 1].",
            )
    parameters = _parameters(model)
    if not same(parameters, expected_parameters, TOL):
        worst = float(np.max(np.abs(parameters - expected_parameters)))
        raise Mismatch(
            f"parameters off by up to {worst:.3g}",
            "the library's parameters",
            "after the losses: optimizer.zero_grad(), (policy_loss + value_loss).backward(), optimizer.step(), "
            "in that order, every step.",
        )
    return expected


# ---- exercise 6: one epoch -----------------------------------------------------------------------------------
def library_train(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer, memory: list, batch_size: int, rng: np.random.Generator
) -> dict[str, float]:
    """One epoch over ``memory`` with the library's ``AlphaZero.train``; the mean policy and value losses."""
    game = getattr(model, "game", None) or TicTacToe()
    losses = _trainer(game, model, optimizer, batch_size=batch_size).train(memory, rng)
    return {"policy_loss": losses["policy_loss"], "value_loss": losses["value_loss"]}


def check_train(train: Callable) -> Callable:
    """``train(model, optimizer, memory, batch_size, rng)``: one epoch in shuffled minibatches (``minibatches``,
    ``train_step``), the model in training mode; returns the mean ``policy_loss`` and ``value_loss`` per sample.

    Cases: memories of 10 to 70 samples with batch sizes 4 to 64 (remainders, a last batch of one), the model
    handed over in eval mode; compared with ``AlphaZero.train`` on copies: losses and parameters.
    """

    def cases() -> list[Case]:
        out = []
        rng = np.random.default_rng(31)
        for index, (game, count, size) in enumerate(
            [(TicTacToe(), 10, 4), (TicTacToe(), 33, 16), (TicTacToe(), 70, 64), (ConnectFour(), 21, 8)]
        ):
            memory = _random_memory(game, count, rng)
            model = _tiny_model(game, 10 + index)
            model.eval()
            reference = copy.deepcopy(model)
            losses = _trainer(game, reference, _sgd(reference), batch_size=size).train(
                memory, np.random.default_rng(index)
            )
            expected = (
                {"policy_loss": losses["policy_loss"], "value_loss": losses["value_loss"]},
                _parameters(reference),
            )
            out.append(
                Case(
                    f"train(model, optimizer, <{count} {game!r} samples>, {size}, np.random.default_rng({index}))",
                    lambda f, m=model, mem=memory, b=size, s=index, e=expected: _run_epoch(f, m, mem, b, s, e),
                    expected,
                    same=lambda got, exp: True,
                )
            )
        return out

    return check("train", train, library_train, cases)


def _run_epoch(train: Callable, model: torch.nn.Module, memory: list, size: int, seed: int, expected: tuple) -> Any:
    model = copy.deepcopy(model)
    model.eval()
    want, expected_parameters = expected
    got = train(model, _sgd(model), list(memory), size, np.random.default_rng(seed))
    if not isinstance(got, dict) or not {"policy_loss", "value_loss"} <= set(got):
        raise Mismatch(got, want, "return a dict with 'policy_loss' and 'value_loss'.")
    for key in ("policy_loss", "value_loss"):
        if not same(float(got[key]), want[key], TOL):
            raise Mismatch(
                {k: round(float(v), 4) for k, v in got.items()},
                {k: round(v, 4) for k, v in want.items()},
                "put the model in training mode (model.train()), take the batches from minibatches(len(memory), "
                "batch_size, rng), and average the losses per sample: sum loss * len(batch), divide by len(memory).",
            )
    if not same(_parameters(model), expected_parameters, TOL):
        raise Mismatch(
            "other parameters",
            "the library's parameters",
            "one train_step per minibatch, in the order minibatches gives them.",
        )
    return expected


# ---- exercise 7: the learn loop ------------------------------------------------------------------------------
def check_learn(learn: Callable) -> Callable:
    """``learn(play_game, train_epoch, num_iterations, num_games, num_epochs)``: iterations of self-play (a fresh
    memory, ``num_games`` games) then ``num_epochs`` epochs on that memory; returns one record per iteration:
    ``{"iteration", "games", "samples", "policy_loss", "value_loss"}`` (the last epoch's losses).

    Cases: scripted games and epochs that log what they were given, compared with the library's
    ``AlphaZero.learn`` driving the same fakes (replay window 1: each iteration trains on its own games).
    """

    def cases() -> list[Case]:
        out = []
        for iterations, games, epochs in [(1, 1, 1), (2, 3, 1), (3, 2, 2), (2, 4, 3)]:
            expected = _scripted_run(_library_learn, iterations, games, epochs)
            out.append(
                Case(
                    f"learn(play_game, train_epoch, num_iterations={iterations}, num_games={games}, "
                    f"num_epochs={epochs})",
                    lambda f, i=iterations, g=games, e=epochs, x=expected: _compare_learn(_scripted_run(f, i, g, e), x),
                    expected,
                    same=lambda got, exp: True,
                )
            )
        return out

    return check("learn", learn, _library_learn, cases)


class _Script:
    """Fake games (3 to 6 samples each, numbered) and epochs that log the memory they train on."""

    def __init__(self) -> None:
        self.games = 0
        self.log: list[tuple] = []

    def play_game(self) -> list:
        self.games += 1
        self.log.append(("play", self.games))
        return [(self.games, i) for i in range(3 + self.games % 4)]

    def train_epoch(self, memory: list) -> dict[str, float]:
        epoch = sum(1 for entry in self.log if entry[0] == "train") + 1
        self.log.append(("train", len(memory), min(memory), max(memory)))
        return {"policy_loss": 2.0 / epoch, "value_loss": 1.0 / (epoch + 1)}


def _scripted_run(learn: Callable, iterations: int, games: int, epochs: int) -> tuple[list, list]:
    script = _Script()
    history = learn(script.play_game, script.train_epoch, iterations, games, epochs)
    keys = ("iteration", "games", "samples", "policy_loss", "value_loss")
    if not isinstance(history, list) or not all(isinstance(r, dict) and set(keys) <= set(r) for r in history):
        raise Mismatch(history, "a list of dicts", f"return a list with one dict per iteration, keys {list(keys)}.")
    return [{k: r[k] for k in keys} for r in history], script.log


def _compare_learn(got: tuple, expected: tuple) -> tuple:
    (history, log), (want_history, want_log) = got, expected
    plays, want_plays = [e for e in log if e[0] == "play"], [e for e in want_log if e[0] == "play"]
    trains, want_trains = [e for e in log if e[0] == "train"], [e for e in want_log if e[0] == "train"]
    if len(plays) != len(want_plays):
        raise Mismatch(f"{len(plays)} games", f"{len(want_plays)} games", "num_games games in every iteration.")
    if len(trains) != len(want_trains):
        raise Mismatch(f"{len(trains)} epochs", f"{len(want_trains)} epochs", "num_epochs epochs in every iteration.")
    if log != want_log:
        first = next(i for i, (a, b) in enumerate(zip(log, want_log, strict=True)) if a != b)
        raise Mismatch(
            log[first],
            want_log[first],
            "each iteration: a fresh memory, all its games first, then the epochs on all of that iteration's "
            "samples (not the previous iterations').",
        )
    if len(history) != len(want_history) or not same(
        [tuple(r.values()) for r in history], [tuple(r.values()) for r in want_history]
    ):
        raise Mismatch(
            history[:2],
            want_history[:2],
            "one record per iteration: iteration (from 1), games, samples of that iteration, and the LAST "
            "epoch's losses.",
        )
    return expected


def _library_learn(
    play_game: Callable, train_epoch: Callable, num_iterations: int, num_games: int, num_epochs: int
) -> list[dict[str, Any]]:
    """The library's ``AlphaZero.learn`` driving ``play_game`` and ``train_epoch`` (no checkpoints, window 1)."""

    class Scripted(AlphaZero):
        def self_play_iteration(self) -> list:
            memory: list = []
            for _ in range(self.config.num_self_play_iterations):
                samples = play_game()
                self.record_game(0, len(samples))
                memory += samples
            return memory

        def train(self, memory: list, rng: np.random.Generator | None = None) -> dict[str, float]:
            return train_epoch(memory)

    trainer = _trainer(
        TicTacToe(),
        num_iterations=num_iterations,
        num_self_play_iterations=num_games,
        num_epochs=num_epochs,
    )
    trainer.__class__ = Scripted
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        history = trainer.learn()  # it writes one summary line per iteration
    return [
        {k: record[k] for k in ("iteration", "games", "samples", "policy_loss", "value_loss")} for record in history
    ]
