"""Notebook 05's checks: the committed stub is "not written yet", the notebook's solution passes, a plausible
wrong version fails with its first failing case."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from alphazero_lib.exercises import nb05_self_play as nb05

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import solve_notebooks  # noqa: E402

NOTEBOOK = ROOT / "notebooks" / "05_self_play_training.ipynb"


def notebook_code() -> dict[str, tuple[str, str]]:
    """Exercise name -> (stub source, solution source), from the committed notebook."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    out = {}
    for ex in solve_notebooks.exercises(nb):
        stub = solve_notebooks.source(nb.cells[ex.exercise])
        name = stub.split("def ", 1)[1].split("(", 1)[0]
        out[name] = (stub, ex.solution_code)
    return out


CODE = notebook_code()
LIBRARY = {
    "apply_temperature": nb05.library_apply_temperature,
    "game_memory": nb05._library_game_memory,
    "self_play": nb05._library_self_play,
    "minibatches": nb05.library_minibatches,
    "train_step": nb05.library_train_step,
    "train": nb05.library_train,
    "learn": nb05._library_learn,
}
CHECKS = {name: getattr(nb05, f"check_{name}") for name in LIBRARY}


def namespace() -> dict:
    """What the notebook's cells see: numpy, torch, F and the library's versions of every exercise."""
    return {"np": np, "torch": torch, "F": F, **LIBRARY}


def define(source: str, name: str) -> object:
    scope = namespace()
    exec(source, scope)
    return scope[name]


def verdict(capsys) -> str:
    out = capsys.readouterr().out
    assert out.count("\n") == 1, f"one verdict line, got {out!r}"
    return out.strip()


def test_the_notebook_has_the_seven_exercises():
    assert list(CODE) == list(LIBRARY)


@pytest.mark.parametrize("name", list(LIBRARY))
def test_stub_is_not_written_yet(name, capsys):
    stub = define(CODE[name][0], name)
    assert CHECKS[name](stub) is LIBRARY[name]
    assert verdict(capsys).startswith(f"⏳ {name}: not written yet")


@pytest.mark.parametrize("name", list(LIBRARY))
def test_solution_passes(name, capsys):
    solution = define(CODE[name][1], name)
    assert CHECKS[name](solution) is solution
    assert verdict(capsys).startswith(f"✅ {name}: agrees with the library on")


def wrong_temperature(probs, temperature):  # forgets to renormalise
    probs = np.asarray(probs, dtype=np.float64)
    return (probs == probs.max()).astype(float) if temperature == 0 else probs ** (1 / temperature)


def wrong_game_memory(game, history, value, last_player):  # every position gets the last mover's value
    return [(game.get_encoded_state(state), probs, value) for state, probs, _ in history]


def wrong_self_play(game, search, rng, temperature=1.25):  # the video's bug: temperature ignored
    history, state, player = [], game.get_initial_state(), 1
    while True:
        canonical = game.change_perspective(state, player)
        probs = search(canonical)
        history.append((canonical, probs, player))
        action = rng.choice(game.action_size, p=probs / probs.sum())
        state = game.get_next_state(state, action, player)
        value, terminated = game.get_value_and_terminated(state, action)
        if terminated:
            return nb05._library_game_memory(game, history, value, player)
        player = -player


def wrong_minibatches(num_samples, batch_size, rng):  # the video's slice
    order = rng.permutation(num_samples)
    return [order[i : min(num_samples - 1, i + batch_size)] for i in range(0, num_samples, batch_size)]


def wrong_train_step(model, optimizer, states, policy_targets, value_targets):  # no zero_grad
    logits, value = model(states)
    policy_loss, value_loss = F.cross_entropy(logits, policy_targets), F.mse_loss(value, value_targets)
    (policy_loss + value_loss).backward()
    optimizer.step()
    return policy_loss.item(), value_loss.item()


def wrong_train(model, optimizer, memory, batch_size, rng):  # forgets model.train()
    states = torch.tensor(np.stack([s for s, _, _ in memory]))
    policies = torch.tensor(np.stack([p for _, p, _ in memory]))
    values = torch.tensor(np.array([v for _, _, v in memory]), dtype=torch.float32).unsqueeze(1)
    totals = [0.0, 0.0]
    for batch in nb05.library_minibatches(len(memory), batch_size, rng):
        losses = nb05.library_train_step(model, optimizer, states[batch], policies[batch], values[batch])
        totals = [t + x * len(batch) for t, x in zip(totals, losses, strict=True)]
    return {"policy_loss": totals[0] / len(memory), "value_loss": totals[1] / len(memory)}


def wrong_learn(play_game, train_epoch, num_iterations, num_games, num_epochs):  # memory never reset
    history, memory = [], []
    for iteration in range(1, num_iterations + 1):
        for _ in range(num_games):
            memory += play_game()
        for _ in range(num_epochs):
            losses = train_epoch(memory)
        history.append({"iteration": iteration, "games": num_games, "samples": len(memory), **losses})
    return history


WRONG = {
    "apply_temperature": (wrong_temperature, "divide by the sum"),
    "game_memory": (wrong_game_memory, "seen by ITS mover"),
    "self_play": (wrong_self_play, "apply_temperature(probs, temperature)"),
    "minibatches": (wrong_minibatches, "drops the last sample"),
    "train_step": (wrong_train_step, "optimizer.zero_grad()"),
    "train": (wrong_train, "model.train()"),
    "learn": (wrong_learn, "a fresh memory"),
}


@pytest.mark.parametrize("name", list(LIBRARY))
def test_wrong_version_fails_with_its_case(name, capsys):
    wrong, hint = WRONG[name]
    assert CHECKS[name](wrong) is LIBRARY[name]
    line = verdict(capsys)
    assert line.startswith(f"❌ {name}: case "), line
    assert " of " in line and hint in line, line


def cpu_tensor_train(model, optimizer, memory, batch_size, rng):  # right on a CPU model, batches left on the CPU
    model.train()
    states = torch.tensor(np.stack([s for s, _, _ in memory]), dtype=torch.float32)
    policies = torch.tensor(np.stack([p for _, p, _ in memory]), dtype=torch.float32)
    values = torch.tensor(np.array([v for _, _, v in memory]), dtype=torch.float32).unsqueeze(1)
    totals = [0.0, 0.0]
    for batch in nb05.library_minibatches(len(memory), batch_size, rng):
        losses = nb05.library_train_step(model, optimizer, states[batch], policies[batch], values[batch])
        totals = [t + x * len(batch) for t, x in zip(totals, losses, strict=True)]
    return {"policy_loss": totals[0] / len(memory), "value_loss": totals[1] / len(memory)}


def test_an_epoch_that_leaves_its_batches_on_the_cpu_fails_on_the_meta_device(capsys):
    """The GPU tweak checked without a GPU: every CPU case agrees, the model on 'meta' does not get its batches."""
    assert nb05.check_train(cpu_tensor_train) is nb05.library_train
    line = verdict(capsys)
    assert line.startswith("❌ train: case 5 of 5, train(<a model on the 'meta' device>"), line
    assert "device = next(model.parameters()).device" in line, line


def test_library_train_step_agrees_with_the_trainer(capsys):
    assert nb05.check_train_step(nb05.library_train_step) is nb05.library_train_step
    assert verdict(capsys).startswith("✅ train_step")
