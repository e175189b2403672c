"""Notebook 05's checks: the committed stub is "not written yet", the notebook's solution passes, a plausible
wrong version fails with its first failing case; the diagnosis of the broken runs gets, for each run named wrong,
the hint of the signal to look at."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from exercise_support import exercise_code, read_notebook, run_cells

from alphazero_lib.exercises import nb05_self_play as nb05

CODE = exercise_code(read_notebook("05_self_play_training.ipynb"))
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


def define(source: str, name: str) -> object:
    """``name`` from ``source``, run where the notebook's cells see numpy, torch, F and the library's versions of
    every exercise."""
    return run_cells(source, np=np, torch=torch, F=F, **LIBRARY)[name]


def test_the_notebook_has_the_seven_exercises_and_the_diagnosis():
    assert list(CODE) == [*LIBRARY, "diagnosis"]


@pytest.mark.parametrize("name", list(LIBRARY))
def test_stub_is_not_written_yet(name, verdict):
    stub = define(CODE[name][0], name)
    assert CHECKS[name](stub) is LIBRARY[name]
    assert verdict().startswith(f"⏳ {name}: not written yet")


@pytest.mark.parametrize("name", list(LIBRARY))
def test_solution_passes(name, verdict):
    solution = define(CODE[name][1], name)
    assert CHECKS[name](solution) is solution
    assert verdict().startswith(f"✅ {name}: agrees with the library on")


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


def epoch(train_mode: bool = True, on_the_models_device: bool = True):
    """An epoch as a learner writes it, with one of two mistakes: no model.train(), or CPU tensors."""

    def train(model, optimizer, memory, batch_size, rng):
        if train_mode:
            model.train()
        device = next(model.parameters()).device if on_the_models_device else torch.device("cpu")
        states = torch.tensor(np.stack([s for s, _, _ in memory]), dtype=torch.float32, device=device)
        policies = torch.tensor(np.stack([p for _, p, _ in memory]), dtype=torch.float32, device=device)
        values = torch.tensor(np.array([v for _, _, v in memory]), dtype=torch.float32, device=device).unsqueeze(1)
        totals = [0.0, 0.0]
        for batch in nb05.library_minibatches(len(memory), batch_size, rng):
            losses = nb05.library_train_step(model, optimizer, states[batch], policies[batch], values[batch])
            totals = [t + x * len(batch) for t, x in zip(totals, losses, strict=True)]
        return {"policy_loss": totals[0] / len(memory), "value_loss": totals[1] / len(memory)}

    return train


wrong_train = epoch(train_mode=False)  # forgets model.train()
cpu_tensor_train = epoch(on_the_models_device=False)  # right on a CPU model, batches left on the CPU


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
def test_wrong_version_fails_with_its_case(name, verdict):
    wrong, hint = WRONG[name]
    assert CHECKS[name](wrong) is LIBRARY[name]
    line = verdict()
    assert line.startswith(f"❌ {name}: case "), line
    assert " of " in line and hint in line, line


def test_an_epoch_that_leaves_its_batches_on_the_cpu_fails_on_the_meta_device(verdict):
    """The GPU tweak checked without a GPU: every CPU case agrees, the model on 'meta' does not get its batches."""
    assert nb05.check_train(cpu_tensor_train) is nb05.library_train
    line = verdict()
    assert line.startswith("❌ train: case 5 of 5, train(<a model on the 'meta' device>"), line
    assert "device = next(model.parameters()).device" in line, line


def test_library_train_step_agrees_with_the_trainer(verdict):
    assert nb05.check_train_step(nb05.library_train_step) is nb05.library_train_step
    assert verdict().startswith("✅ train_step")


# ---- the diagnosis of the broken runs (section 11) -------------------------------------------------------------
KEY = nb05.library_diagnosis()
#: Words of each cause's signal hint (nb05.SIGNALS), which name what to look at and not the cause.
SIGNAL_WORDS = {
    "no sign flip": "value loss, low and flat from iteration 1, next to its value error",
    "temperature unused": "policy loss and perfect moves, on the reference's, next to its draws",
    "no root noise": "last iterations: draws and value loss, the positions reached",
    "replay window 1": "at iteration 1, where it is the reference exactly",
}


def test_the_answer_names_every_cause_once():
    assert sorted(KEY) == ["A", "B", "C", "D"] and sorted(KEY.values()) == sorted(nb05.CAUSES)
    assert set(SIGNAL_WORDS) == set(nb05.SIGNALS)
    for cause, words in SIGNAL_WORDS.items():
        assert words in nb05.SIGNALS[cause] and cause not in nb05.SIGNALS[cause]


def test_diagnosis_stub_is_not_written_yet(verdict):
    stub = define(CODE["diagnosis"][0], "diagnosis")
    assert nb05.check_diagnosis(stub) is nb05.library_diagnosis
    assert verdict().startswith("⏳ diagnosis: not written yet")


def test_diagnosis_solution_passes(verdict):
    solution = define(CODE["diagnosis"][1], "diagnosis")
    assert nb05.check_diagnosis(solution) is solution
    assert verdict() == "✅ diagnosis: all four runs diagnosed right"


@pytest.mark.parametrize("label", sorted(KEY))
@pytest.mark.parametrize("offset", [1, 2, 3])
def test_each_wrong_run_gets_the_hint_of_its_signal(label, offset, verdict):
    causes = list(nb05.CAUSES)
    guess = causes[(causes.index(KEY[label]) + offset) % len(causes)]
    answer = {**KEY, label: guess}
    assert nb05.check_diagnosis(lambda: answer) is nb05.library_diagnosis
    line = verdict()
    assert line.startswith("❌ diagnosis: 3 of 4 runs right. Hint: "), line
    assert f"{label} is not '{guess}': look at {label}" in line and SIGNAL_WORDS[KEY[label]] in line, line
    assert f"'{KEY[label]}'" not in line, "the hint names the signal, not the answer"
    assert line.endswith("Each cause fits exactly one run."), line
    for other, words in SIGNAL_WORDS.items():
        assert other == KEY[label] or words not in line, "one hint per wrong run, the right runs get none"


def test_two_swapped_runs_get_a_hint_each(verdict):
    answer = {**KEY, "A": KEY["C"], "C": KEY["A"]}
    nb05.check_diagnosis(answer)  # a dict works as well as a function
    line = verdict()
    assert line.startswith("❌ diagnosis: 2 of 4 runs right. Hint: A is not "), line
    assert SIGNAL_WORDS[KEY["A"]] in line and SIGNAL_WORDS[KEY["C"]] in line and "exactly one" not in line


@pytest.mark.parametrize(
    ("answer", "start", "words"),
    [
        ({k.lower(): v.upper().replace(" ", "_") for k, v in KEY.items()}, "✅", "all four runs"),
        ({cause: label for label, cause in KEY.items()}, "❌", "the keys are the run labels A to D"),
        ({**KEY, "D": ...}, "⏳", "no cause yet for run D"),
        ({"A": KEY["A"], "B": None}, "⏳", "no cause yet for runs B, C, D"),
        ({**KEY, "B": "the value is wrong"}, "❌", "'the value is wrong' (run B) is not one of the causes"),
        ({**KEY, "E": "no root noise"}, "❌", "no run is labelled 'E'"),
        ("no root noise", "❌", "return a dict label -> cause"),
    ],
    ids=["other spelling", "inverted", "one left", "three left", "unknown cause", "fifth label", "a string"],
)
def test_diagnosis_verdicts(answer, start, words, verdict):
    nb05.check_diagnosis(lambda: answer)
    line = verdict()
    assert line.startswith(start) and words in line, line


def test_diagnosis_that_raises_is_reported(verdict):
    def diagnosis():
        return {"A": causes}  # noqa: F821

    assert nb05.check_diagnosis(diagnosis) is nb05.library_diagnosis
    assert verdict().startswith("❌ diagnosis: diagnosis() raised NameError")
