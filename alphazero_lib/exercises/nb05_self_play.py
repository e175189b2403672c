"""Checks for notebook 05 (self-play and training): temperature, a game's memory, self-play, minibatches, the
training step, one epoch of training and the learn loop; then the diagnosis of four broken runs from their curves.

Each ``check_*`` compares the learner's code with the library's (``selection.apply_temperature``, ``training``) on
seeded cases. Self-play runs on a deterministic fake search (visit counts from a hash of the position), training on
fixed model copies with plain SGD (Adam would turn float noise in a zero gradient into a full step), so every verdict
is the same on every CPU. ``check_diagnosis`` judges the learner's ``{label: cause}`` against the causes planted in
the shipped runs (``data/broken_runs.json``, made by ``tools/broken_runs.py``) and, for each run named wrong, says
which signal to look at, never the cause.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import io
import itertools
import json
import numbers
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from alphazero_lib.config import TrainConfig
from alphazero_lib.exercises.core import (
    FAILED,
    NOT_WRITTEN,
    PASSED,
    Case,
    Mismatch,
    Mistake,
    check,
    hints_for,
    is_stub,
    judged_in_run,
    miss,
    on_copies,
    same,
    show,
)
from alphazero_lib.games import ConnectFour, TicTacToe
from alphazero_lib.model import ResNet
from alphazero_lib.selection import apply_temperature as library_apply_temperature
from alphazero_lib.selfplay import play_self_play_game
from alphazero_lib.training import AlphaZero, stack_memory, train_epoch
from alphazero_lib.training import game_memory as library_game_memory
from alphazero_lib.training import minibatches as library_minibatches
from alphazero_lib.training import self_play as library_self_play
from alphazero_lib.training import train_step as library_train_step

TOL = 1e-5  # float32 networks: the same arithmetic in another order differs in the last bits

HINTS = {
    "apply_temperature": "weights = probs ** (1 / temperature); at temperature 0 (no division by zero) weights = 1.0 "
    "on every entry equal to the largest, 0 elsewhere; return weights / weights.sum() as a new numpy array.",
    "game_memory": "for each (state, probs, player) of the history: outcome = value if player == last_player else "
    "game.get_opponent_value(value); append (game.get_encoded_state(state), probs, outcome). The states are "
    "already canonical.",
    "self_play": "from the initial state with player 1: canonical = change_perspective(state, player); probs = "
    "search(canonical); remember (canonical, probs, player); action = rng.choice(game.action_size, "
    "p=apply_temperature(probs, temperature)); play it; when terminated return game_memory(game, history, value, "
    "player).",
    "minibatches": "order = rng.permutation(num_samples); slices order[i : i + batch_size]; if the last one has a "
    "single index, append it to the one before.",
    "train_step": "logits, value = model(states); policy_loss = F.cross_entropy(logits, policy_targets); value_loss = "
    "F.mse_loss(value, value_targets); optimizer.zero_grad(); (policy_loss + value_loss).backward(); "
    "optimizer.step(); return the two .item().",
    "train": "model.train(); device = next(model.parameters()).device; stack the memory into float32 tensors on "
    "that device (values with .unsqueeze(1)); for each batch of minibatches(len(memory), batch_size, rng) one "
    "train_step; sum loss * len(batch); divide by len(memory).",
    "learn": "for iteration 1..num_iterations: memory = []; num_games times memory += play_game(); num_epochs times "
    "losses = train_epoch(memory); append {'iteration', 'games', 'samples': len(memory), **losses}.",
    "diagnosis": "for each bug ask what it changes first: the value targets, the policy targets (the search's visit "
    "shares), the moves played, or which games the network trains on; then find the panel where that shows, "
    "starting at iteration 1. Return {'A': cause, ..., 'D': cause} with the names of CAUSES.",
}
hint, solution = hints_for(HINTS, "05_self_play_training.ipynb")
ITS_MOVER = (
    "each position's outcome is seen by ITS mover: value for the last mover's positions, "
    "game.get_opponent_value(value) for the others"
)
CANONICAL = "the history's states are already canonical (seen by their mover): encode them as they are"


# ---- helpers --------------------------------------------------------------------------------------------
def fake_counts(game: Any, state: np.ndarray, seed: int = 0) -> np.ndarray:
    """Fake visit counts ``[A]`` of a canonical board: 1..20 on legal moves from a hash of the board and ``seed``."""
    state = np.asarray(state, dtype=np.int8)
    digest = hashlib.sha256(state.tobytes() + bytes([seed % 256])).digest()
    counts = np.array([1 + digest[a % len(digest)] % 20 for a in range(game.action_size)], dtype=np.int64)
    return counts * game.get_valid_moves(state)


def fake_search(game: Any, seed: int = 0) -> Callable[[np.ndarray], np.ndarray]:
    """A deterministic stand-in for the search: the visit shares of ``fake_counts`` (float32)."""

    def search(state: np.ndarray) -> np.ndarray:
        counts = fake_counts(game, state, seed).astype(np.float64)
        return (counts / counts.sum()).astype(np.float32)

    return search


def _compare_memory(got: Any, expected: list, length_hint: str = "") -> list:
    """Compare two lists of samples ``(encoded state, policy, outcome)``; raise ``Mismatch`` saying what differs."""
    if not isinstance(got, (list, tuple)):
        raise Mismatch(got, expected, "return a list of (encoded state, policy, outcome) tuples, one per position.")
    if len(got) != len(expected):
        hint = length_hint or "one sample per position of the history, in order (no symmetries here)."
        raise miss(f"{len(got)} samples", f"{len(expected)} samples", hint)
    for k, (sample, want) in enumerate(zip(got, expected, strict=True)):
        if not isinstance(sample, (tuple, list)) or len(sample) != 3:
            raise Mismatch(sample, want, f"sample {k}: a tuple (encoded state, policy, outcome)")
        state, policy, outcome = sample
        if not isinstance(state, np.ndarray) or state.shape != want[0].shape:
            shape = f"a numpy array of shape {want[0].shape}"
            raise Mismatch(state, want[0], f"sample {k}: store game.get_encoded_state(state), {shape}.")
        if not same(state, want[0]):
            planes = f"the opponent's and your own planes are swapped: {CANONICAL}"
            what = planes if same(state, want[0][::-1]) else "the encoded state differs"
            raise Mismatch(state, want[0], f"sample {k}: {what}.")
        if not same(np.asarray(policy, dtype=np.float64), np.asarray(want[1], dtype=np.float64), TOL):
            raise Mismatch(policy, want[1], f"sample {k}: store the search's probabilities (before temperature).")
        if not isinstance(outcome, numbers.Real) and not (isinstance(outcome, np.ndarray) and outcome.size == 1):
            raise Mismatch(outcome, want[2], f"sample {k}: the outcome is a number (1, 0 or -1).")
        if not same(float(np.asarray(outcome)), float(want[2])):
            mine = f"sample {k}'s outcome {show(float(np.asarray(outcome)))}"
            raise miss(mine, show(float(want[2])), f"sample {k}: {ITS_MOVER}.")
    return got


def _case(call: str, play: Callable[[Any], Any], library: Any, compare: Callable[[Any, Any], Any]) -> Case:
    """A case that runs code in a harness, ``play(code)``: the library's run is expected, and ``compare(got,
    expected)`` raises ``Mismatch`` with a hint where the learner's run differs."""
    expected = play(library)
    return Case(call, lambda f: compare(play(f), expected), expected, same=judged_in_run)


def _random_history(game: Any, rng: np.random.Generator) -> tuple[list, float, int]:
    """A game of the library's self-play with a fake search (temperature 1): its ``(canonical state, probs, mover)``
    history as the search saw it, its final value and its last mover."""
    search, history, movers = fake_search(game, int(rng.integers(256))), [], itertools.cycle((1, -1))

    def recorded(state: np.ndarray) -> np.ndarray:
        history.append((state, search(state), next(movers)))  # one search per move, player 1's first
        return history[-1][1]

    _, winner, _ = play_self_play_game(game, recorded, rng, 1.0)
    return history, float(winner != 0), history[-1][2]


def _random_memory(game: Any, count: int, rng: np.random.Generator) -> list:
    """The first ``count`` samples of the library's self-play games with fake searches (temperature 1)."""
    memory: list = []
    while len(memory) < count:
        memory += library_self_play(game, fake_search(game, int(rng.integers(256))), rng, 1.0)
    return memory[:count]


# ---- exercise 1: temperature --------------------------------------------------------------------------------
def check_apply_temperature(apply_temperature: Callable[[np.ndarray, float], np.ndarray]) -> Callable:
    """``apply_temperature(probs, temperature)``: ``probs ** (1 / T)`` renormalised, ``[A]``; T = 0: equal mass
    on the most visited moves. Cases: visit shares with zeros and ties, temperatures 0 to 10; the input unchanged."""

    def run(f: Callable, probs: np.ndarray, temperature: float) -> np.ndarray:
        def changed(got: Any, given: tuple) -> Mismatch:
            return Mismatch(given[0], probs, "the input was changed: compute a new array, leave probs as it is")

        with np.errstate(all="ignore"):
            return on_copies(f, probs, temperature, changed=changed)

    def cases() -> list[Case]:
        rng = np.random.default_rng(5)
        vectors = [np.array([0.0, 0.25, 0.75]), np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.5, 0.0, 0.5, 0.0])]
        for size in (3, 7, 9, 9, 9):
            counts = rng.integers(0, 30, size).astype(np.float64)
            counts[rng.integers(size)] += 1
            vectors.append(counts / counts.sum())
        return [
            Case(
                f"apply_temperature({show(p)}, {t})",
                functools.partial(run, probs=p, temperature=t),
                library_apply_temperature(p, t),
                HINTS["apply_temperature"],
            )
            for p in vectors
            for t in (1.0, 1.25, 0.5, 2.0, 10.0, 0.1, 0.0)
        ]

    return check("apply_temperature", apply_temperature, library_apply_temperature, cases, TEMPERATURE_MISTAKES)


TEMPERATURE_MISTAKES = [
    Mistake(
        "divide by the sum so the probabilities add up to 1 again",
        lambda p, t: np.asarray(p, dtype=np.float64) ** (1 / t) if t else (p == np.max(p)).astype(np.float64),
    ),
    Mistake(
        "raise to the power 1 / temperature (a low temperature sharpens), not to the power temperature",
        lambda p, t: library_apply_temperature(p, 1 / t if t else 0),
    ),
    Mistake(
        "at temperature 0 the largest entries SHARE the mass equally when they tie (not only the first)",
        lambda p, t: library_apply_temperature(p, t) if t else np.eye(len(p))[int(np.argmax(p))],
    ),
    Mistake(
        "temperature 0 is a case of its own, before any power: 1 / temperature divides by zero, so at T = 0 give "
        "the largest entries equal mass and the others 0",
        lambda p, t: (lambda w: w / w.sum())(np.asarray(p, dtype=np.float64) ** (1 / t)),
    ),
]


# ---- exercise 2: one game's memory --------------------------------------------------------------------------
def check_game_memory(game_memory: Callable) -> Callable:
    """``game_memory(game, history, value, last_player)``: a finished game's ``(canonical state, probs, mover)``
    history -> samples ``(encoded state [3, R, C], probs [A], outcome)``, the outcome seen by each mover. Cases:
    Tic-Tac-Toe and Connect Four games won by the first or the second player, and draws."""

    def cases() -> list[Case]:
        rng, out = np.random.default_rng(11), []
        for game in (TicTacToe(), ConnectFour()):
            for number in range(8):
                history, value, last = _random_history(game, rng)
                value = 0.0 if number == 0 else value  # a draw's value, whoever moved last
                movers = [int(m) for _, _, m in history]
                shown = str(movers) if len(movers) <= 9 else f"[{movers[0]}, {movers[1]}, ..., {movers[-1]}]"
                call = f"game_memory({game!r}, <{len(history)} positions, movers {shown}>, {value}, {last})"
                play = functools.partial(_replay, game=game, history=history, value=value, last=last)
                out.append(_case(call, play, library_game_memory, _compare_memory))
        return out

    return check("game_memory", game_memory, _library_game_memory, cases, MEMORY_MISTAKES)


def _replay(f: Callable, game: Any, history: list, value: float, last: int) -> Any:
    return f(game, [(s.copy(), p.copy(), m) for s, p, m in history], value, last)


MEMORY_MISTAKES = [  # the library's game_memory given a changed input
    Mistake(ITS_MOVER, lambda g, h, v, lp: library_game_memory(g, [(s, p, lp) for s, p, _ in h], v, lp)),
    Mistake(
        "value is the result for last_player (who made the final move): their positions get value as it is, "
        "the others the opposite",
        lambda g, h, v, lp: library_game_memory(g, h, g.get_opponent_value(v), lp),
    ),
    Mistake(
        f"{CANONICAL}, without change_perspective",
        lambda g, h, v, lp: library_game_memory(g, [(g.change_perspective(s, m), p, m) for s, p, m in h], v, lp),
    ),
]


def _library_game_memory(game: Any, history: list, value: float, last_player: int) -> list:
    return library_game_memory(game, history, value, last_player)


# ---- exercise 3: self-play ----------------------------------------------------------------------------------
def check_self_play(self_play: Callable) -> Callable:
    """``self_play(game, search, rng, temperature)``: one game, every move drawn from the search's probabilities
    with temperature; returns the game's samples as ``game_memory`` makes them. Cases: ``fake_search`` on
    Tic-Tac-Toe and Connect Four, temperatures 0 to 2, several seeds; the library's ``self_play`` with the same rng."""
    compare = functools.partial(_compare_memory, length_hint=f"the game went another way: {HINTS['self_play']}")

    def cases() -> list[Case]:
        return [
            _case(
                f"self_play({game!r}, fake_search, np.random.default_rng({seed}), temperature={temperature})",
                lambda f, g=game, s=seed, t=temperature: f(g, fake_search(g, s), np.random.default_rng(s), t),
                library_self_play,
                compare,
            )
            for game in (TicTacToe(), ConnectFour())
            for seed, temperature in [(0, 1.25), (1, 1.0), (2, 0.5), (3, 0.0), (4, 1.25), (5, 2.0)]
        ]

    return check("self_play", self_play, _library_self_play, cases, SELF_PLAY_MISTAKES)


def _searching_absolute(game: Any, search: Callable, rng: np.random.Generator, temperature: float = 1.25) -> list:
    """The library's self-play with the search handed the absolute board (player 1's pieces as 1), not the mover's."""
    movers = itertools.cycle((1, -1))  # one search per move, player 1's first
    return library_self_play(game, lambda state: search(game.change_perspective(state, next(movers))), rng, temperature)


SELF_PLAY_MISTAKES = [  # the library's self_play with a changed search, temperature or outcome
    Mistake(
        "draw each move from apply_temperature(probs, temperature), not from the search's probabilities as they are",
        lambda g, search, rng, t=1.25: library_self_play(g, search, rng, 1.0),
    ),
    Mistake(
        "store the search's probabilities as they are (the training target); temperature only shapes the draw",
        lambda g, search, rng, t=1.25: library_self_play(
            g, lambda s: library_apply_temperature(search(s), t), rng, 1.0
        ),
    ),
    Mistake(
        "search the CANONICAL state (game.change_perspective(state, player)): the search plays as player 1",
        _searching_absolute,
    ),
    Mistake(
        "the final value is for the player who made the last move: game_memory(game, history, value, player) "
        "with that player",
        lambda g, search, rng, t=1.25: [(s, p, -z) for s, p, z in library_self_play(g, search, rng, t)],
    ),
]


def _library_self_play(game: Any, search: Callable, rng: np.random.Generator, temperature: float = 1.25) -> list:
    return library_self_play(game, search, rng, temperature)


# ---- exercise 4: minibatches --------------------------------------------------------------------------------
def check_minibatches(minibatches: Callable) -> Callable:
    """``minibatches(num_samples, batch_size, rng)``: shuffled index batches covering every sample once; a last
    batch of one joins the batch before it. Cases: sizes that divide evenly, leave a remainder, leave exactly one
    (the video's crash), fit in one batch."""

    def cases() -> list[Case]:
        sizes = [(8, 4), (10, 4), (9, 4), (2, 2), (3, 2), (5, 8), (64, 64), (65, 64), (66, 64), (129, 64), (200, 64)]
        return [
            _case(
                f"minibatches({num}, {size}, np.random.default_rng({seed}))",
                lambda f, n=num, b=size, s=seed: f(n, b, np.random.default_rng(s)),
                library_minibatches,
                _compare_batches,
            )
            for seed, (num, size) in enumerate(sizes)
        ]

    return check("minibatches", minibatches, library_minibatches, cases, BATCH_MISTAKES)


BATCH_MISTAKES = [  # the library's batch sizes over the samples in their order
    Mistake(
        "shuffle once with order = rng.permutation(num_samples), then cut it into slices",
        lambda n, b, rng: np.split(np.arange(n), np.cumsum([len(x) for x in library_minibatches(n, b, rng)])[:-1]),
    ),
]


def _compare_batches(got: Any, expected: list) -> Any:
    try:
        batches = [np.asarray(b).reshape(-1) for b in got]
    except TypeError:
        raise Mismatch(got, expected, "return a list of index arrays.") from None
    sizes, want = [len(b) for b in batches], [len(b) for b in expected]
    flat = np.concatenate(batches) if batches else np.zeros(0, dtype=int)
    if sorted(flat.tolist()) != list(range(sum(want))):
        hint = (
            "every sample exactly once: slice order[i : i + batch_size] up to the end (the video's "
            "min(len(memory) - 1, ...) drops the last sample)."
        )
        raise miss(f"batch sizes {sizes}", f"batch sizes {want}", hint)
    if 1 in sizes:
        hint = "a last batch of one must join the batch before it (a one-sample step is a noisy one)."
        raise miss(f"batch sizes {sizes}", f"batch sizes {want}", hint)
    if sizes != want or not all(np.array_equal(a, b) for a, b in zip(batches, expected, strict=True)):
        raise Mismatch([b.tolist() for b in batches][:2], [b.tolist() for b in expected][:2], HINTS["minibatches"])
    return got


# ---- exercise 5: the training step --------------------------------------------------------------------------
ORDER = "optimizer.zero_grad(), loss.backward(), optimizer.step(), in that order"
FLOATS = "return plain floats: policy_loss.item(), value_loss.item()"


def _tiny_model(game: Any, seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    return ResNet(game, num_res_blocks=1, num_hidden=8)


def _sgd(model: torch.nn.Module) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=1e-4)


def _parameters(model: torch.nn.Module) -> np.ndarray:
    return np.concatenate([p.detach().numpy().ravel() for p in model.parameters()])


def check_train_step(train_step: Callable) -> Callable:
    """``train_step(model, optimizer, states [B, 3, R, C], policy_targets [B, A], value_targets [B, 1])``: one
    gradient step; returns ``(policy_loss, value_loss)`` as floats. Cases: two steps in a row (a missing
    ``zero_grad`` shows) on copies of a small ResNet with plain SGD, against ``training.train_epoch`` on each batch."""

    def cases() -> list[Case]:
        rng, out = np.random.default_rng(21), []
        for index, (game, size) in enumerate(
            [(TicTacToe(), 2), (TicTacToe(), 8), (TicTacToe(), 24), (ConnectFour(), 6)]
        ):
            memories, model = [_random_memory(game, size, rng) for _ in range(2)], _tiny_model(game, index)
            reference = copy.deepcopy(model)
            optimizer = _sgd(reference)
            losses = [train_epoch(reference, optimizer, memory, size, np.random.default_rng(0)) for memory in memories]
            expected = ([(x["policy_loss"], x["value_loss"]) for x in losses], _parameters(reference))
            batches = [stack_memory(memory) for memory in memories]
            run = functools.partial(_run_steps, model=model, batches=batches, expected=expected)
            out.append(
                Case(f"two train_step calls on batches of {size} {game!r} samples", run, expected, same=judged_in_run)
            )
        return out

    return check("train_step", train_step, library_train_step, cases, STEP_MISTAKES)


def _step_with(kind: str) -> Callable[..., tuple]:
    """``train_step`` with one planted mistake, ``kind``: the losses, their order of steps, or what is returned."""
    order = {"no zero": "backward step", "step first": "zero step backward", "zero last": "backward zero step"}

    def train_step(model: Any, optimizer: Any, states: Any, policy_targets: Any, value_targets: Any) -> tuple:
        logits, value = model(states)
        policy_loss = F.cross_entropy(torch.softmax(logits, dim=1) if kind == "softmax" else logits, policy_targets)
        value_loss = F.mse_loss(value, value_targets)
        loss = policy_loss if kind == "policy only" else policy_loss + value_loss
        for step in order.get(kind, "zero backward step").split():
            {"zero": optimizer.zero_grad, "backward": loss.backward, "step": optimizer.step}[step]()
        if kind == "tensors":
            return policy_loss.detach(), value_loss.detach()
        return policy_loss.item(), value_loss.item()

    return train_step


STEP_MISTAKES = [
    Mistake(
        "optimizer.zero_grad() before backward() in every step: otherwise this step's gradient adds to the last one's",
        _step_with("no zero"),
    ),
    *(
        Mistake(
            "the parameters never changed: zero_grad() clears the gradients and backward() computes them, so the "
            f"order is {ORDER}",
            _step_with(kind),
        )
        for kind in ("step first", "zero last")
    ),
    Mistake(
        "F.cross_entropy takes the raw logits (it applies log-softmax itself): no softmax before it",
        _step_with("softmax"),
    ),
    Mistake("backpropagate the SUM of both losses: (policy_loss + value_loss).backward()", _step_with("policy only")),
    Mistake(FLOATS, _step_with("tensors")),
]


def _run_steps(train_step: Callable, model: torch.nn.Module, batches: list, expected: tuple) -> Any:
    model = copy.deepcopy(model)
    optimizer = _sgd(model)
    model.train()
    formulas = (
        ("policy", ": it is F.cross_entropy(policy logits, policy_targets) on the model's output"),
        ("value", ": it is F.mse_loss(value, value_targets), both of shape [B, 1]"),
    )
    for step, ((states, policies, values), want) in enumerate(zip(batches, expected[0], strict=True)):
        targets = torch.as_tensor(policies), torch.as_tensor(values).unsqueeze(1)
        got = train_step(model, optimizer, torch.as_tensor(states), *targets)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise Mismatch(got, want, "return (policy_loss, value_loss) as two floats (loss.item()).")
        if not all(isinstance(x, (float, int, np.floating)) and not isinstance(x, bool) for x in got):
            raise Mismatch(got, want, f"{FLOATS}.")
        for k, (loss, formula) in enumerate(formulas):
            if not same(float(got[k]), want[k], TOL):
                later = f" although step 1's agreed: the first update went wrong ({ORDER})"
                raise Mismatch(got, want, f"step {step + 1}: the {loss} loss differs" + (later if step else formula))
    parameters = _parameters(model)
    if not same(parameters, expected[1], TOL):
        worst = float(np.max(np.abs(parameters - expected[1])))
        hint = f"the losses agree but the parameters do not: after the losses, {ORDER}, every step."
        raise miss(f"parameters off by up to {worst:.3g}", "the library's parameters", hint)
    return expected


# ---- exercise 6: one epoch -----------------------------------------------------------------------------------
ON_THE_MODELS_DEVICE = "the batches reached the model on its device"
ON_ITS_DEVICE = (
    "the tensors go where the model is: device = next(model.parameters()).device, then torch.tensor(..., "
    "dtype=torch.float32, device=device) (on a GPU, CPU tensors raise 'Expected all tensors to be on the same device')"
)


def library_train(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer, memory: list, batch_size: int, rng: np.random.Generator
) -> dict[str, float]:
    """One epoch over ``memory`` with the library's ``train_epoch``; the mean policy and value losses."""
    losses = train_epoch(model, optimizer, memory, batch_size, rng)
    return {"policy_loss": losses["policy_loss"], "value_loss": losses["value_loss"]}


def check_train(train: Callable) -> Callable:
    """``train(model, optimizer, memory, batch_size, rng)``: one epoch in minibatches, the mean losses per sample.
    Cases: memories of 10 to 70 samples, batch sizes 4 to 64, the model handed over in eval mode, against
    ``library_train`` on copies (losses and parameters); last, a model on PyTorch's ``meta`` device must get its
    batches there, as a model on a GPU must (``_run_on_meta``)."""

    def cases() -> list[Case]:
        rng, out = np.random.default_rng(31), []
        for index, (game, count, size) in enumerate(
            [(TicTacToe(), 10, 4), (TicTacToe(), 33, 16), (TicTacToe(), 70, 64), (ConnectFour(), 21, 8)]
        ):
            memory, model = _random_memory(game, count, rng), _tiny_model(game, 10 + index)
            losses, trained = _epoch(library_train, model, memory, size, index)
            expected = (losses, _parameters(trained))
            call = f"train(model, optimizer, <{count} {game!r} samples>, {size}, np.random.default_rng({index}))"
            run = functools.partial(_run_epoch, model=model, memory=memory, size=size, seed=index, expected=expected)
            out.append(Case(call, run, expected, same=judged_in_run))
        meta = _random_memory(ConnectFour(), 21, rng)
        call = (
            "train(<a model on the 'meta' device>, optimizer, <21 ConnectFour() samples>, 8, np.random.default_rng(0))"
        )
        return [*out, Case(call, lambda f: _run_on_meta(f, meta), ON_THE_MODELS_DEVICE)]

    return check("train", train, library_train, cases, TRAIN_MISTAKES)


def _run_on_meta(train: Callable, memory: list) -> str:
    """One epoch of ``train`` on a model on PyTorch's ``meta`` device: tensors with shapes and no numbers, so the
    first ``.item()`` (train_step's losses) raises "cannot be called on meta tensors", the sign that the batches
    were built where the model is; tensors left on the CPU fail earlier, at the first layer."""
    model = _tiny_model(ConnectFour(), 0).to("meta")
    try:
        train(model, _sgd(model), list(memory), 8, np.random.default_rng(0))
    except (RuntimeError, NotImplementedError) as error:
        text = str(error)
        if "meta tensor" in text:
            return ON_THE_MODELS_DEVICE
        if isinstance(error, NotImplementedError) and "meta" not in text.lower():
            raise
        if "device" in text:
            raise miss("batches on the CPU, the model on 'meta'", ON_THE_MODELS_DEVICE, ON_ITS_DEVICE) from None
        raise
    return ON_THE_MODELS_DEVICE


def _train_with(kind: str) -> Callable[..., dict]:
    """An epoch with one planted mistake, ``kind``, from the library's ``minibatches`` and ``train_step``."""

    def train(model: Any, optimizer: Any, memory: list, batch_size: int, rng: np.random.Generator) -> dict:
        if kind != "no train mode":
            model.train()
        device = torch.device("cpu") if kind == "cpu tensors" else next(model.parameters()).device
        states, policies, values = (torch.tensor(x, device=device) for x in stack_memory(memory))
        totals, batches = [0.0, 0.0], library_minibatches(len(memory), batch_size, rng)
        for batch in batches:
            losses = library_train_step(model, optimizer, states[batch], policies[batch], values[batch].unsqueeze(1))
            weight = 1 if kind == "per batch" else len(batch)
            totals = [t + x * weight for t, x in zip(totals, losses, strict=True)]
        count = len(batches) if kind == "per batch" else len(memory)
        return {"policy_loss": totals[0] / count, "value_loss": totals[1] / count}

    return train


TRAIN_MISTAKES = [
    Mistake(
        "model.train() first: the model may come in eval mode, and BatchNorm then neither uses the batch's "
        "statistics nor updates its running ones",
        _train_with("no train mode"),
    ),
    Mistake(
        "the mean loss per SAMPLE: weight each batch's loss by len(batch) and divide by len(memory) (batches "
        "differ in size)",
        _train_with("per batch"),
    ),
    Mistake(ON_ITS_DEVICE, _train_with("cpu tensors")),
]


def _epoch(train: Callable, model: torch.nn.Module, memory: list, size: int, seed: int) -> tuple[Any, Any]:
    """One epoch of ``train`` on a copy of ``model`` handed over in eval mode: its answer and the trained copy."""
    model = copy.deepcopy(model)
    model.eval()
    return train(model, _sgd(model), list(memory), size, np.random.default_rng(seed)), model


def _run_epoch(train: Callable, model: torch.nn.Module, memory: list, size: int, seed: int, expected: tuple) -> Any:
    want, keys = expected[0], ("policy_loss", "value_loss")
    got, trained = _epoch(train, model, memory, size, seed)
    if not isinstance(got, dict) or not set(keys) <= set(got):
        raise Mismatch(got, want, "return a dict with 'policy_loss' and 'value_loss'.")
    if not all(isinstance(got[k], numbers.Real) for k in keys):
        raise Mismatch(
            {k: got[k] for k in keys},
            want,
            "the losses as plain numbers (train_step returns floats; sum them as floats)",
        )
    losses_agree = all(same(float(got[key]), want[key], TOL) for key in keys)
    if same(_parameters(trained), expected[1], TOL):
        if losses_agree:
            return expected
        raise Mismatch(
            {k: float(got[k]) for k in keys},
            dict(want),
            "the parameters agree, so the training steps "
            "are right: average the losses per SAMPLE (sum loss * len(batch) over the batches, divide by "
            "len(memory))",
        )
    shapes = _batch_shapes_hint(train, model, memory, size, seed)
    if not losses_agree:
        raise Mismatch(
            {k: float(got[k]) for k in keys},
            dict(want),
            shapes
            or "put the model in training mode "
            "(model.train()), take the batches from minibatches(len(memory), batch_size, rng), one "
            "train_step each, in that order.",
        )
    hint = shapes or "one train_step per minibatch, in the order minibatches gives them."
    raise miss("other parameters", "the library's parameters", hint)


def _batch_shapes_hint(train: Callable, model: torch.nn.Module, memory: list, size: int, seed: int) -> str:
    """What the batches ``train`` hands to ``train_step`` show: a hint when their shapes are not the step's
    ``[B, 3, R, C]``, ``[B, A]`` and ``[B, 1]`` (value targets of shape ``[B]`` are the usual slip), else ""."""
    names = getattr(train, "__globals__", None)
    if not isinstance(names, dict) or not callable(names.get("train_step")):
        return ""
    original, seen = names["train_step"], []

    def spy(model: Any, optimizer: Any, states: Any, policies: Any, values: Any) -> Any:
        seen.append(tuple(tuple(getattr(x, "shape", ())) for x in (states, policies, values)))
        return original(model, optimizer, states, policies, values)

    names["train_step"] = spy
    try:
        _epoch(train, model, memory, size, seed)
    except Exception:
        pass
    finally:
        names["train_step"] = original
    for states, policies, values in seen:
        batch = states[0] if states else None
        if len(values) != 2 or values[1] != 1:
            return (
                f"your value targets reach train_step with shape {list(values)}, and the model's value output has "
                f"shape [{batch}, 1]: F.mse_loss (or value - target) broadcasts the two into [{batch}, {batch}] and "
                f"compares every output with every target. Give the targets shape [B, 1]: .unsqueeze(1) or "
                f".reshape(-1, 1)"
            )
        if len(policies) != 2 or len(states) != 4:
            return (
                f"your batches reach train_step with shapes {list(states)}, {list(policies)} and {list(values)}; "
                f"the step takes states [B, 3, R, C], policy targets [B, A] and value targets [B, 1]"
            )
    return ""


# ---- exercise 7: the learn loop ------------------------------------------------------------------------------
RECORD = ("iteration", "games", "samples", "policy_loss", "value_loss")


def check_learn(learn: Callable) -> Callable:
    """``learn(play_game, train_epoch, num_iterations, num_games, num_epochs)``: per iteration a fresh memory of
    ``num_games`` games, ``num_epochs`` epochs on it, one ``RECORD`` (the last epoch's losses). Cases: scripted games
    and epochs that log what they were given, against the library's ``AlphaZero.learn`` on the same fakes."""

    def cases() -> list[Case]:
        return [
            _case(
                f"learn(play_game, train_epoch, num_iterations={iterations}, num_games={games}, num_epochs={epochs})",
                lambda f, i=iterations, g=games, e=epochs: _scripted_run(f, i, g, e),
                _library_learn,
                _compare_learn,
            )
            for iterations, games, epochs in [(1, 1, 1), (2, 3, 1), (3, 2, 2), (2, 4, 3)]
        ]

    return check("learn", learn, _library_learn, cases, LEARN_MISTAKES)


def _learn_with(kind: str) -> Callable[..., list]:
    """The learn loop with one planted mistake, ``kind``."""

    def learn(play_game: Callable, train_epoch: Callable, num_iterations: int, num_games: int, num_epochs: int) -> list:
        history, memory = [], []
        for iteration in range(1, num_iterations + 1):
            memory = memory if kind == "keeps memory" else []
            for _ in range(num_games):
                memory += play_game()
            epochs = [train_epoch(memory) for _ in range(num_epochs)]
            number = iteration - 1 if kind == "from 0" else iteration
            record = epochs[0] if kind == "first epoch" else epochs[-1]
            history.append({"iteration": number, "games": num_games, "samples": len(memory), **record})
        return history

    return learn


LEARN_MISTAKES = [
    Mistake(
        "each iteration starts a fresh memory (memory = [] inside the loop): it trains on its own games",
        _learn_with("keeps memory"),
    ),
    Mistake("record the LAST epoch's losses of the iteration", _learn_with("first epoch")),
    Mistake("iterations are numbered from 1: range(1, num_iterations + 1)", _learn_with("from 0")),
]


def _scripted_run(learn: Callable, iterations: int, games: int, epochs: int) -> tuple[list, list]:
    """``learn`` on fake games (3 to 6 samples each, numbered) and epochs that log the memory they train on: its
    records and the log."""
    log: list[tuple] = []

    def play_game() -> list:
        number = sum(entry[0] == "play" for entry in log) + 1
        log.append(("play", number))
        return [(number, i) for i in range(3 + number % 4)]

    def train_epoch(memory: list) -> dict[str, float]:
        epoch = sum(entry[0] == "train" for entry in log) + 1
        log.append(("train", len(memory), min(memory), max(memory)))
        return {"policy_loss": 2.0 / epoch, "value_loss": 1.0 / (epoch + 1)}

    history = learn(play_game, train_epoch, iterations, games, epochs)
    if not isinstance(history, list) or not all(isinstance(r, dict) and set(RECORD) <= set(r) for r in history):
        raise Mismatch(history, "a list of dicts", f"return a list with one dict per iteration, keys {list(RECORD)}.")
    return [{k: r[k] for k in RECORD} for r in history], log


def _compare_learn(got: tuple, expected: tuple) -> tuple:
    (history, log), (want_history, want_log) = got, expected
    for kind, name, rule in (("play", "games", "num_games games"), ("train", "epochs", "num_epochs epochs")):
        count, want = sum(e[0] == kind for e in log), sum(e[0] == kind for e in want_log)
        if count != want:
            raise miss(f"{count} {name}", f"{want} {name}", f"{rule} in every iteration.")
    if log != want_log:
        first = next(i for i, (a, b) in enumerate(zip(log, want_log, strict=True)) if a != b)
        raise Mismatch(log[first], want_log[first], HINTS["learn"])
    records = [tuple(r.values()) for r in history], [tuple(r.values()) for r in want_history]
    if len(history) != len(want_history) or not same(*records):
        raise Mismatch(history[:2], want_history[:2], HINTS["learn"])
    return expected


def _library_learn(
    play_game: Callable, train_epoch: Callable, num_iterations: int, num_games: int, num_epochs: int
) -> list[dict[str, Any]]:
    """The library's ``AlphaZero.learn`` driving ``play_game`` and ``train_epoch`` (no checkpoints, window 1)."""

    class Scripted(AlphaZero):
        def self_play_iteration(self) -> list:
            memory: list = []
            for _ in range(self.config.games_per_iteration):
                samples = play_game()
                self.record_game(0, len(samples))
                memory += samples
            return memory

        def train(self, memory: list, rng: np.random.Generator | None = None) -> dict[str, float]:
            return train_epoch(memory)

    model = torch.nn.Linear(1, 1)  # the scripted games and epochs never touch it
    config = TrainConfig(num_iterations=num_iterations, games_per_iteration=num_games, num_epochs=num_epochs)
    trainer = Scripted(model, torch.optim.SGD(model.parameters(), lr=0.1), TicTacToe(), config, progress=False)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        history = trainer.learn()  # it writes one summary line per iteration
    return [{k: record[k] for k in RECORD} for record in history]


# ---- exercise 8: reading the curves of broken runs -------------------------------------------------------------
#: Five Tic-Tac-Toe runs from zero, four with a bug planted on purpose (``tools/broken_runs.py`` made them).
BROKEN_RUNS = Path(__file__).resolve().parents[1] / "data" / "broken_runs.json"

#: The causes a learner names, each with the spellings accepted for it (after ``_plain``).
CAUSES: dict[str, tuple[str, ...]] = {
    "no sign flip": ("no value sign flip", "sign flip", "no flip", "missing sign flip", "value sign flip"),
    "temperature unused": (
        "temperature bug",
        "temperature ignored",
        "video's temperature bug",
        "untempered",
        "temperature not used",
        "video temperature bug",
    ),
    "no root noise": ("no noise", "no dirichlet noise", "root noise", "no exploration noise"),
    "replay window 1": ("replay window of 1", "window 1", "replay window", "replay window one"),
}
#: The runs behind the labels of the exercise's plot (the reference, the correct run, is shown as such); each
#: run's name reads as its cause.
LABELS = {"A": "replay_window_1", "B": "no_sign_flip", "C": "no_root_noise", "D": "temperature_unused"}
#: Per true cause, the signal to look at in a run whose cause the learner got wrong (never the cause itself).
SIGNALS: dict[str, str] = {
    "no sign flip": "{label}'s value loss, low and flat from iteration 1, next to its value error, the highest of "
    "all (targets can be easy to fit and still far from the game's true values)",
    "temperature unused": "{label}'s policy loss and perfect moves, on the reference's, next to its draws and value "
    "loss, which are not (its games are less varied, but the search's own distributions, the policy targets, are "
    "not touched)",
    "no root noise": "{label}'s last iterations: draws and value loss, the positions reached, the perfect moves, "
    "and a policy loss far below the reference's (think of what keeps the search itself trying other moves)",
    "replay window 1": "{label} at iteration 1, where it is the reference exactly (its bug cannot act yet), then "
    "its losses at iteration 2, below the reference's, while its perfect moves stay behind (think of which samples "
    "it trains on)",
}
#: The panels of ``plot_broken_runs``: (series, title, y label).
PANELS = (
    ("policy_loss", "policy loss", "cross-entropy, last epoch"),
    ("value_loss", "value loss", "MSE, last epoch"),
    ("draw_rate", "self-play draws", "share of the games"),
    ("perfect_moves", "perfect moves (network alone)", "share of positions"),
    ("value_error", "value error vs perfect play", "MSE to the exact value"),
    ("distinct_positions", "positions reached in self-play", "different positions"),
)


def runs_by_label(data: dict[str, Any] | None = None) -> dict[str, dict[str, list]]:
    """``{"reference": series, "A": series, ..., "D": series}``: each run's per-iteration lists (``PANELS``' keys
    and ``"iteration"``) under the name the exercise gives it; ``data``: the shipped runs (``BROKEN_RUNS``)."""
    runs = (data if data is not None else json.loads(BROKEN_RUNS.read_text(encoding="utf-8")))["runs"]
    return {"reference": runs["correct"]["series"], **{label: runs[run]["series"] for label, run in LABELS.items()}}


def plot_broken_runs(data: dict[str, Any] | None = None) -> Any:
    """The reference run (black, dashed) and the runs ``A`` to ``D`` in six panels; returns the Figure (made
    without pyplot: show it with ``display(fig)``)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(11, 6))
    axes = fig.subplots(2, 3).ravel()
    styles = {
        "reference": ("black", "--"),
        "A": ("#1565c0", "-"),
        "B": ("#c62828", "-"),
        "C": ("#2e7d32", "-"),
        "D": ("#ef6c00", "-"),
    }
    runs = runs_by_label(data)
    for ax, (key, title, unit) in zip(axes, PANELS, strict=True):
        for label, series in runs.items():
            color, style = styles[label]
            name = "reference (correct)" if label == "reference" else f"run {label}"
            ax.plot(series["iteration"], series[key], style, color=color, marker=".", label=name)
        ax.set(title=title, ylabel=unit, xlabel="iteration")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def _plain(text: str) -> str:
    """A cause as written, in one spelling: lower case, ``_``/``-`` as spaces, no quotes, full stop or "the"."""
    text = str(text).lower().replace("_", " ").replace("-", " ").replace("’", "'")
    return " ".join(text.strip(" .!\"'`").split()).removeprefix("the ")


def _cause(text: Any) -> str | None:
    """The cause ``text`` names (a key of ``CAUSES``), or None."""
    plain = _plain(text) if isinstance(text, str) else None
    return next((cause for cause, others in CAUSES.items() if plain == cause or plain in others), None)


def library_diagnosis() -> dict[str, str]:
    """The answer: each label's cause."""
    return {label: _plain(run) for label, run in LABELS.items()}


def check_diagnosis(diagnosis: Any) -> Any:
    """``diagnosis()`` (or a dict): ``{"A": cause, ..., "D": cause}``, one of ``CAUSES`` per run of the plot. One
    verdict line: every run right; or, for each wrong run, the signal to look at (never the answer); or the runs
    still without a cause."""
    line = _diagnosis_verdict(diagnosis)
    print(line, flush=True)
    return diagnosis if line.startswith(PASSED) else library_diagnosis


def _diagnosis_verdict(diagnosis: Any) -> str:
    name, not_yet = "diagnosis", f"{NOT_WRITTEN} diagnosis: not written yet; the Solution below explains each run"
    if is_stub(diagnosis):
        return not_yet
    try:
        answer = diagnosis() if callable(diagnosis) else diagnosis
    except NotImplementedError:
        return not_yet
    except Exception as error:  # a check never stops Run all
        detail = " ".join(str(error).split())[:200]
        return f"{FAILED} {name}: diagnosis() raised {type(error).__name__}: {detail}"
    example = "{'A': 'no root noise', 'B': ..., 'C': ..., 'D': ...}"
    try:
        answer = dict(answer)
    except (TypeError, ValueError):
        return f"{FAILED} {name}: returned {show(answer)}; return a dict label -> cause, e.g. {example}"
    labels = {str(k).strip().upper(): v for k, v in answer.items()}
    if any(_cause(k) for k in answer) or any(_plain(str(v)) in ("a", "b", "c", "d") for v in answer.values()):
        return f"{FAILED} {name}: the keys are the run labels A to D and the values their causes, e.g. {example}"
    unknown = sorted(set(labels) - set(LABELS))
    if unknown:
        return (
            f"{FAILED} {name}: no run is labelled {', '.join(map(repr, unknown))}; the runs are A, B, C and D "
            "(the reference is the correct run)"
        )
    causes = ", ".join(map(repr, CAUSES))
    missing = [label for label in LABELS if label not in labels or _undecided(labels[label])]
    if missing:
        runs = f"run{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
        return f"{NOT_WRITTEN} {name}: no cause yet for {runs}; name one of {causes} for each"
    for label in LABELS:
        if _cause(labels[label]) is None:
            return f"{FAILED} {name}: {show(labels[label])} (run {label}) is not one of the causes: {causes}"
    key = library_diagnosis()
    wrong = [label for label in LABELS if _cause(labels[label]) != key[label]]
    if not wrong:
        return f"{PASSED} {name}: all four runs diagnosed right"
    hints = "; ".join(
        f"{label} is not {show(_cause(labels[label]))}: look at " + SIGNALS[key[label]].format(label=label)
        for label in wrong
    )
    note = " Each cause fits exactly one run." if len({_cause(v) for v in labels.values()}) < len(LABELS) else ""
    return f"{FAILED} {name}: {len(LABELS) - len(wrong)} of {len(LABELS)} runs right. Hint: {hints}.{note}"


def _undecided(value: Any) -> bool:
    return value is None or value is Ellipsis or (isinstance(value, str) and _plain(value) in ("", "?", "todo"))
