"""Inference: masked softmax edge cases, ``evaluate``, and ``FastEvaluator``'s modes against plain float32."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
import torch

from alphazero_lib import inference, make_game
from alphazero_lib.inference import MODES, FastEvaluator, check_network_game, evaluate, has_fast_bf16, masked_softmax
from alphazero_lib.model import ResNet

C4 = make_game("connect_four")


@pytest.fixture(scope="module")
def model() -> ResNet:
    """A small Connect Four ResNet whose BatchNorm layers have non-trivial running statistics."""
    torch.manual_seed(0)
    net = ResNet(make_game("connect_four"), num_res_blocks=2, num_hidden=16).eval()
    generator = torch.Generator().manual_seed(1)
    for module in net.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.copy_(torch.rand(module.num_features, generator=generator) - 0.5)
            module.running_var.copy_(torch.rand(module.num_features, generator=generator) + 0.5)
            module.weight.data.copy_(torch.rand(module.num_features, generator=generator) + 0.5)
    return net


def encoded_batch(size: int = 32) -> np.ndarray:
    boards = np.random.default_rng(0).integers(-1, 2, size=(size, 6, 7))
    return np.stack((boards == -1, boards == 0, boards == 1), axis=1).astype(np.float32)


# ---- masked softmax --------------------------------------------------------------------------------------
def test_masked_softmax_matches_a_direct_softmax_over_legal_moves():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(50, 7)) * 5
    valid = rng.random((50, 7)) < 0.6
    valid[:, 3] = True
    probs = masked_softmax(logits, valid)
    for row, legal, p in zip(logits, valid, probs, strict=True):
        expected = np.zeros(7)
        expected[legal] = np.exp(row[legal]) / np.exp(row[legal]).sum()
        assert np.allclose(p, expected, rtol=1e-12, atol=0)


def test_masked_softmax_falls_back_to_uniform_and_zero():
    valid = np.array([[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 0, 0]], dtype=bool)
    logits = np.array([[-np.inf, 0.0, -np.inf, -np.inf], [1.0, 2.0, 3.0, 4.0], [np.nan, 0.0, 1.0, 1.0]])
    probs = masked_softmax(logits, valid)
    assert np.allclose(probs[0], [1 / 3, 0, 1 / 3, 1 / 3])  # every legal logit -inf: uniform
    assert not probs[1].any()  # no legal move: all zero
    assert np.allclose(probs[2], [0, 1, 0, 0])  # a nan logit counts as zero weight
    assert np.allclose(masked_softmax(np.zeros(3), np.array([1, 1, 0])), [0.5, 0.5, 0])  # one state [A]


# ---- evaluate and FastEvaluator --------------------------------------------------------------------------
def test_evaluate_defers_to_an_evaluator(model):
    evaluator = FastEvaluator(model, "fp32", cache_dir=None)
    x = encoded_batch(4)
    for a, b in zip(evaluate(evaluator, x), evaluate(model, x), strict=True):
        assert a.shape == b.shape and a.dtype == np.float32
        assert np.allclose(a, b, atol=1e-6)


def needs_onnx() -> None:
    for module in ("onnx", "onnxscript", "onnxruntime"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install -e '.[onnx]')")


@pytest.mark.parametrize("mode", [m for m in MODES if m != "compile"])
def test_every_mode_agrees_with_float32(model, mode):
    if mode == "onnx":
        needs_onnx()
    x = encoded_batch()
    reference_logits, reference_values = evaluate(model, x)
    logits, values = FastEvaluator(model, mode, cache_dir=None).evaluate(x)
    tolerance = 5e-2 if mode.startswith("bf16") else 1e-4  # bfloat16 keeps 8 bits of mantissa
    assert np.abs(logits - reference_logits).max() < tolerance
    assert np.abs(values - reference_values).max() < tolerance
    valid = np.ones_like(logits, dtype=bool)
    assert np.abs(masked_softmax(logits, valid) - masked_softmax(reference_logits, valid)).max() < tolerance


def test_the_training_model_is_left_in_float32_and_refresh_picks_up_new_weights(model):
    evaluator = FastEvaluator(model, "bf16_fused", cache_dir=None)
    assert all(p.dtype == torch.float32 for p in model.parameters())
    trained = ResNet(make_game("connect_four"), num_res_blocks=2, num_hidden=16).eval()
    trained.load_state_dict(model.state_dict())
    evaluator = FastEvaluator(trained, "fp32_fused", cache_dir=None)
    before = evaluator.evaluate(encoded_batch(4))[1]
    with torch.no_grad():
        trained.value_head[-2].bias.add_(1.0)
    assert np.allclose(evaluator.evaluate(encoded_batch(4))[1], before)  # the copy keeps the old weights
    evaluator.refresh()
    assert np.allclose(evaluator.evaluate(encoded_batch(4))[1], evaluate(trained, encoded_batch(4))[1], atol=1e-5)


def test_the_onnx_mode_picks_up_new_weights_on_refresh_and_runs_on_torchs_threads(model):
    needs_onnx()
    trained = ResNet(make_game("connect_four"), num_res_blocks=2, num_hidden=16).eval()
    trained.load_state_dict(model.state_dict())
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        evaluator = FastEvaluator(trained, "onnx", cache_dir=None)
    finally:
        torch.set_num_threads(threads)
    session = evaluator.net.session
    assert session.get_session_options().intra_op_num_threads == 1
    assert session.get_providers() == ["CPUExecutionProvider"]
    x = encoded_batch(4)
    before = evaluator.evaluate(x)[1]
    with torch.no_grad():
        trained.value_head[-2].bias.add_(1.0)
    assert np.allclose(evaluator.evaluate(x)[1], before)  # the exported file keeps the old weights
    evaluator.refresh()
    assert np.abs(evaluator.evaluate(x)[1] - evaluate(trained, x)[1]).max() < 1e-4
    assert not np.allclose(evaluator.evaluate(x)[1], before, atol=1e-3)
    rates = evaluator.measure(["onnx", "fp32"], repeats=1)  # measure() times it beside the torch modes
    assert sorted(rates) == ["fp32", "onnx"] and all(rate > 0 for rate in rates.values())


def test_batched_self_play_in_the_onnx_mode_plays_the_float32_games():
    """``train --inference-mode onnx``'s path (``selfplay.play_batched``): the same seeds, the same games as fp32."""
    needs_onnx()
    from alphazero_lib.config import TrainConfig
    from alphazero_lib.selfplay import play_batched

    game = make_game("tictactoe")
    torch.manual_seed(0)
    net = ResNet(game, num_res_blocks=1, num_hidden=8).eval()
    played = {}
    for mode in ("fp32", "onnx"):
        config = TrainConfig.from_preset("tictactoe", self_play="batched", inference_mode=mode, num_searches=8)
        played[mode] = play_batched(game, net, config, num_games=4, slots=4, seed_parts=(0, 1))
    fp32, onnx = played["fp32"].samples, played["onnx"].samples
    assert len(onnx) == len(fp32) > 0
    assert all(np.array_equal(a[0], b[0]) and np.allclose(a[1], b[1]) for a, b in zip(fp32, onnx, strict=True))


def test_the_onnx_mode_without_onnxruntime_says_how_to_install_it(model, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime now raises ImportError
    with pytest.raises(ImportError, match=r"inference mode 'onnx' needs the package '(onnx|onnxscript|onnxruntime)'"):
        FastEvaluator(model, "onnx", cache_dir=None)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[onnx\]"'):
        FastEvaluator(model, "onnx", cache_dir=None)


def test_the_onnx_mode_refuses_a_model_on_a_gpu(model, monkeypatch):
    monkeypatch.setattr(inference, "model_device", lambda model: torch.device("cuda"))
    with pytest.raises(
        ValueError, match="inference mode 'onnx' runs on onnxruntime's CPU provider, but the model is on cuda"
    ):
        FastEvaluator(model, "onnx", cache_dir=None)


def test_auto_measures_once_and_caches_the_choice(model, tmp_path, monkeypatch):
    monkeypatch.setattr(inference, "_MEASURED", {})  # forget choices made earlier in this process
    first = FastEvaluator(model, "auto", batch_size=8, cache_dir=tmp_path)
    candidates = ["fp32", "fp32_cl", "fp32_fused"] + (["bf16", "bf16_cl", "bf16_fused"] if has_fast_bf16() else [])
    assert sorted(first.timings) == sorted(candidates) and min(first.timings.values()) > 0
    assert first.mode in candidates
    stored = json.loads((tmp_path / "inference_modes.json").read_text())
    assert list(stored.values()) == [first.mode]
    second = FastEvaluator(model, "auto", batch_size=8, cache_dir=tmp_path)
    assert second.mode == first.mode and second.timings == {}  # no new measurement


def test_auto_picks_the_mode_with_the_most_evaluations_per_second(model, monkeypatch):
    """Made-up measurements: the fastest mode wins wherever it stands in the list (here in the middle)."""
    monkeypatch.setattr(inference, "_MEASURED", {})
    evaluations_per_second = {"fp32": 100.0, "fp32_cl": 900.0, "fp32_fused": 300.0, "bf16": 200.0}
    measured = []

    def fake_measure(self, modes, repeats=3):
        measured.append(list(modes))
        return {mode: evaluations_per_second.get(mode, 50.0) for mode in modes}

    monkeypatch.setattr(FastEvaluator, "measure", fake_measure)
    evaluator = FastEvaluator(model, "auto", batch_size=8, cache_dir=None)
    assert evaluator.mode == "fp32_cl" and len(measured) == 1


def test_an_unknown_mode_is_an_error_that_lists_the_modes(model):
    with pytest.raises(ValueError, match="bf16_fused"):
        FastEvaluator(model, "fp8")


# Issue 52, item 3: a cache shared by processes. Each writer waits for GO, then adds its own keys one at a time
# through the library's cache writer, reading the file between writes (which must never fail); argv: CACHE GO TAG.
CACHE_WRITER = """
import sys, time
from pathlib import Path
from alphazero_lib import inference

cache, go, tag = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
while not go.exists():
    time.sleep(0.01)
for i in range(40):
    assert inference._write_cache(cache, f"{tag}-{i}", "fp32") == cache
    assert isinstance(inference._read_cache(cache), dict)
"""


def test_processes_that_share_the_cache_keep_each_others_choices(tmp_path):
    """Four processes add 40 choices each to one inference_modes.json at the same instants: every choice is there
    afterwards, the file is whole JSON, no temporary file is left. Without the lock around the read and the write,
    a writer drops the entries written since it read the file (red: 60 to 120 of the 160 kept here)."""
    import os
    import subprocess
    import sys

    cache, go = tmp_path / "cache" / "inference_modes.json", tmp_path / "go"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    writers = [
        subprocess.Popen([sys.executable, "-c", CACHE_WRITER, str(cache), str(go), f"p{n}"], env=env, text=True)
        for n in range(4)
    ]
    import time

    time.sleep(1.0)  # let them import (they wait for GO either way)
    go.touch()
    assert [writer.wait(timeout=300) for writer in writers] == [0, 0, 0, 0]
    stored = json.loads(cache.read_text())
    assert sorted(stored) == sorted(f"p{n}-{i}" for n in range(4) for i in range(40)), len(stored)
    assert not [p.name for p in cache.parent.iterdir() if p.name != cache.name]


def test_a_missing_or_damaged_cache_means_timing_again(model, tmp_path, monkeypatch, capsys):
    """A cache that another process is replacing, or that a crash damaged, is read as empty: the modes are timed
    again and the choice written back whole."""
    monkeypatch.setattr(inference, "_MEASURED", {})
    cache = tmp_path / "inference_modes.json"
    for damaged in ("", "[1, 2]"):
        cache.write_text(damaged)
        monkeypatch.setattr(inference, "_MEASURED", {})
        evaluator = FastEvaluator(model, "auto", batch_size=8, cache_dir=tmp_path)
        assert evaluator.timings and "timing inference modes" in capsys.readouterr().err
        assert json.loads(cache.read_text()) == {evaluator._cache_key(): evaluator.mode}


def test_bench_auto_records_its_choice_for_the_trainers_auto(tmp_path, monkeypatch, capsys):
    """``bench --mode auto`` measures every candidate mode; the one it found fastest goes into the shared cache
    (before, bench never wrote it: four bench processes left no inference_modes.json), where FastEvaluator's auto
    finds it without timing again."""
    from alphazero_lib.cli import main

    monkeypatch.setenv("ALPHAZERO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(inference, "_MEASURED", {})
    argv = ["bench", "selfplay", "--game", "tictactoe", "--games", "8", "--searches", "4", "--mode", "auto"]
    assert main([*argv, "--seconds", "0.5", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    cache = tmp_path / "inference_modes.json"
    assert f"(recorded for --inference-mode auto in {cache})" in printed
    (mode,) = json.loads(cache.read_text()).values()
    monkeypatch.setattr(inference, "_MEASURED", {})
    torch.manual_seed(0)
    network = ResNet(make_game("tictactoe"), num_res_blocks=4, num_hidden=64)  # the preset's shape
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # bench timed on one thread, and the choice is kept per thread count
    try:
        evaluator = FastEvaluator(network, "auto", batch_size=8)
    finally:
        torch.set_num_threads(before)
    assert evaluator.mode == mode and evaluator.timings == {}


def test_a_learners_own_game_class_takes_a_network_of_its_sizes():
    """Notebook 6 searches the learner's own ConnectFour class (not a library Game) with the shipped network."""

    class LearnersConnectFour:  # what a notebook's class looks like to the check: sizes, no library base
        row_count, column_count, action_size = 6, 7, 7

    check_network_game(LearnersConnectFour(), ResNet(C4, 1, 8))
    LearnersConnectFour.column_count = LearnersConnectFour.action_size = 8
    with pytest.raises(ValueError, match="but the search plays"):
        check_network_game(LearnersConnectFour(), ResNet(C4, 1, 8))
