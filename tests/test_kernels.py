"""The library's decisions do not depend on the CPU's kernels or on torch's thread count.

nbval checks the notebooks on the machine that runs it; another CPU runs other float kernels (AVX-512 here,
AVX2 or plain SSE elsewhere) and other machines other thread counts. ``.ci/run`` runs the notebooks a second
time under ``KERNEL_SETTINGS`` (and two torch threads in the kernel, where the notebooks ask for one). This module
checks the same two changes on the library's network paths directly, where a failure is easier to read:

- the settings take effect (torch reports its generic kernels, oneDNN reports AVX2), so the CI run means
  what it says;
- with the shipped models, the serial and the batched search give the same visit counts, and a whole game of
  AlphaZero against negamax the same moves, with 1 or 2 threads and with the default or the generic kernels;
  the networks' outputs agree to within 1e-4 (not bit for bit: that is the point).

Measured on the AMD EPYC (AVX-512) that made the outputs: the generic kernels move the shipped networks' logits
by up to 4e-6 and change no decision; two threads leave these small batches' outputs bit for bit the same
(torch does not split work this small), so the thread half guards against a regression more than it bites today.

What it does not cover: training (float sums over minibatches differ in the last bits, and a live training run
that plays different games from then on is kept out of nbval's checked cells for that reason), and GPUs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

#: What another x86 CPU without AVX-512 would run: ATen's generic (no-SIMD-dispatch) kernels, oneDNN's and
#: MKL's AVX2 code paths. The values are the ones torch 2.13 (oneDNN 3.x, MKL 2024) reads; see .ci/run.
KERNEL_SETTINGS = {"ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"}

pytestmark = pytest.mark.slow

PROBE = """
import json, sys
import numpy as np
import torch

from alphazero_lib import make_game
from alphazero_lib.alpha_mcts import AlphaMCTS
from alphazero_lib.arena import play_game
from alphazero_lib.batched_mcts import BatchedMCTS
from alphazero_lib.config import SearchConfig
from alphazero_lib.inference import evaluate
from alphazero_lib.pretrained import load_pretrained
from alphazero_lib.specs import make_player

torch.set_num_threads(int(sys.argv[1]))
out = {"capability": torch.backends.cpu.get_cpu_capability(), "threads": torch.get_num_threads()}
for name in ("tictactoe", "connect_four", "othello6"):
    game, model = make_game(name), load_pretrained(name)
    rng = np.random.default_rng(0)
    states, state, player = [], game.get_initial_state(), 1
    for _ in range(4):  # positions along one random game, each from the mover's side
        states.append(game.change_perspective(state, player))
        action = int(rng.choice(np.flatnonzero(game.get_valid_moves(state if player == 1 else -state))))
        state, player = game.get_next_state(state, action, player), -player
    config = SearchConfig(num_searches=64, seed=0)
    serial = [AlphaMCTS(game, model, config).search(s) for s in states]
    batched = BatchedMCTS(game, model, config).search(np.stack(states))
    logits, values = evaluate(model, game.get_encoded_state(np.stack(states)))
    out[name] = {
        "serial": [np.rint(p * 64).astype(int).tolist() for p in serial],
        "batched": np.rint(np.asarray(batched) * 64).astype(int).tolist(),
        "logits": np.asarray(logits, dtype=float).tolist(),
        "values": np.asarray(values, dtype=float).tolist(),
    }
game = make_game("connect_four")
first = make_player(game, "alphazero:connect_four:50", seed=0)
second = make_player(game, "negamax:2", seed=1)
out["game"] = [action for _, action in play_game(game, first, second).moves]
print(json.dumps(out))
"""


def probe(threads: int, settings: dict[str, str] | None = None) -> dict:
    """The probe's results in a fresh interpreter with ``threads`` torch threads under ``settings``."""
    env = {k: v for k, v in os.environ.items() if k not in KERNEL_SETTINGS}
    env |= {"PYTHONPATH": str(ROOT), "OMP_WAIT_POLICY": "PASSIVE", **(settings or {})}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(threads)], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def baseline() -> dict:
    return probe(1)


def test_the_kernel_settings_take_effect():
    env = {**os.environ, **KERNEL_SETTINGS, "ONEDNN_VERBOSE": "1", "PYTHONPATH": str(ROOT)}
    code = (
        "import torch; print(torch.backends.cpu.get_cpu_capability())\n"
        "with torch.no_grad(): torch.nn.Conv2d(3, 8, 3)(torch.randn(2, 3, 6, 7))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "DEFAULT" in done.stdout.splitlines()
    isa = [line for line in (done.stdout + done.stderr).splitlines() if ",isa:" in line]
    assert isa and all("AVX2" in line and "512" not in line for line in isa), isa


@pytest.mark.parametrize(
    ("threads", "settings"),
    [(2, None), (1, KERNEL_SETTINGS), (2, KERNEL_SETTINGS)],
    ids=["2-threads", "generic-kernels", "generic-kernels-2-threads"],
)
def test_decisions_agree_across_kernels_and_threads(baseline, threads, settings):
    other = probe(threads, settings)
    assert other["threads"] == threads
    if settings:
        assert other["capability"] == "DEFAULT"
    for name in ("tictactoe", "connect_four", "othello6"):
        assert other[name]["serial"] == baseline[name]["serial"], name
        assert other[name]["batched"] == baseline[name]["batched"], name
        for key in ("logits", "values"):
            np.testing.assert_allclose(other[name][key], baseline[name][key], rtol=0, atol=1e-4, err_msg=name)
    assert other["game"] == baseline["game"]


def test_ci_runs_the_notebooks_again_under_these_settings():
    lines = (ROOT / ".ci" / "run").read_text().replace("\\\n", " ").splitlines()
    second = [line for line in lines if "pytest notebooks" in line]
    assert len(second) == 1, "the second nbval run is missing from .ci/run"
    for key, value in {**KERNEL_SETTINGS, "ALPHAZERO_TORCH_THREADS": "2"}.items():
        assert f"{key}={value}" in second[0].split(), key
    assert "IPYTHONDIR=" in second[0]
