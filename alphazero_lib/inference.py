"""Running a policy-value network on numpy batches: the one place the searches call the model.

A model is any ``torch.nn.Module`` that maps encoded states ``[B, 3, R, C]`` (float32) to
``(policy_logits [B, A], value [B, 1])``, or any object with its own ``evaluate(encoded)``.

``evaluate(model, encoded)`` is the plain, always-correct path. ``FastEvaluator(model)`` is the fast one for
batched self-play: an inference copy of the model (BatchNorm folded into the convolutions where it pays,
channels-last memory, bfloat16 where the CPU has bf16 matrix instructions, the GPU when the model is on one, or
the network exported to ONNX and run on onnxruntime), in the mode that a quick measurement at start-up found
fastest, or the one asked for. The training model is never changed.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from alphazero_lib.config import INFERENCE_MODES

#: Inference modes ``FastEvaluator`` knows; ``"auto"`` measures the candidates and keeps the fastest.
MODES = INFERENCE_MODES
_MEASURED: dict[str, str] = {}  # cache key -> fastest mode, for this process


def model_device(model: torch.nn.Module) -> torch.device:
    """The device of the model's first parameter (CPU for a model without parameters)."""
    for p in model.parameters():
        return p.device
    return torch.device("cpu")


def check_network_game(game: Any, model: Any) -> None:
    """Raise ``ValueError`` when ``model`` (a ``ResNet``, or a ``FastEvaluator`` around one) was built for another
    game than ``game``: its outputs would not fit the game's moves. Models that do not say their game pass, and a
    game class of the learner's own (not a library ``Game``) passes when its board and moves have the sizes."""
    from alphazero_lib.games.base import Game

    trained_for = getattr(model, "game", None)
    if trained_for is None:
        trained_for = getattr(getattr(model, "source", None), "game", None)
    if not isinstance(trained_for, Game):
        return
    if isinstance(game, Game):
        differs = trained_for != game
    else:  # a course learner's own game class: it fits when the board and the moves have the network's sizes
        sizes = ("row_count", "column_count", "action_size")
        differs = any(getattr(trained_for, name) != getattr(game, name, None) for name in sizes)
    if differs:
        raise ValueError(
            f"this network plays {trained_for!r}, but the search plays {game!r}; give the search a network for {game!r}"
        )


def evaluate(model: Any, encoded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Policy logits ``[B, A]`` and values ``[B]`` (float32 numpy) for encoded states ``[B, 3, R, C]``.

    Runs under ``torch.inference_mode`` with the model in eval mode (BatchNorm uses running statistics).
    An object with its own ``evaluate(encoded)`` (e.g. ``FastEvaluator``) is asked directly.
    """
    if hasattr(model, "evaluate"):  # an evaluator with its own fast path
        return model.evaluate(encoded)
    model.eval()
    with torch.inference_mode():
        x = torch.as_tensor(np.ascontiguousarray(encoded, dtype=np.float32), device=model_device(model))
        logits, value = model(x)
        return logits.float().cpu().numpy(), value.float().reshape(-1).cpu().numpy()


def masked_softmax(logits: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Softmax over legal actions only, ``[..., A]`` float64; illegal actions get 0.

    Where the network gives every legal action zero probability (underflow, or non-finite logits) the result
    is uniform over the legal actions instead of a division by zero; a row without legal actions is all 0.
    """
    logits = np.asarray(logits, dtype=np.float64)
    valid = np.asarray(valid, dtype=bool)
    shifted = np.where(valid, logits, -np.inf)
    top = np.max(shifted, axis=-1, keepdims=True)
    if np.isfinite(top).all():  # the usual case: the best legal action gets exp(0) = 1, so the sum is >= 1
        weights = np.exp(shifted - top)  # exp(-inf) = 0 for illegal actions
        return weights / weights.sum(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        weights = np.where(valid, np.exp(shifted - top), 0.0)
    weights = np.where(np.isfinite(weights), weights, 0.0)
    total = weights.sum(axis=-1, keepdims=True)
    uniform = valid / np.maximum(valid.sum(axis=-1, keepdims=True), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        probs = np.where(total > 0, weights / np.where(total > 0, total, 1.0), uniform)
    return probs


# ---- the fast path ---------------------------------------------------------------------------------------
def has_fast_bf16(device: torch.device | str = "cpu") -> bool:
    """Whether bfloat16 runs fast here: a CUDA GPU with bf16, or a CPU with bf16 units (x86: AVX512-BF16 or AMX;
    Arm: BF16); bf16 emulated in software is slower than float32.

    On Linux the CPU's flags decide (``cpu_flags``): oneDNN's own probe also says yes for AVX-512 without bf16
    units, where one emulated bf16 forward of the 9 x 128 network at batch 16 took 4.2 s against 0.17 s in fp32.
    Elsewhere oneDNN's probe is all there is.
    """
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    if device.type != "cpu":
        return False
    flags = cpu_flags()
    if flags is not None:
        return bool(flags & {"avx512_bf16", "amx_bf16", "bf16"})
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def cpu_flags() -> set[str] | None:
    """The CPU's feature flags (``/proc/cpuinfo``'s ``flags``, or ``Features`` on Arm), or None where the system
    does not list them (macOS, Windows)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() in ("flags", "Features"):
            return set(value.split())
    return None


def fold_batch_norm(model: torch.nn.Module) -> torch.nn.Module:
    """An eval-mode copy with every BatchNorm folded into the convolution before it (``torch.fx``).

    Raises ``ValueError`` when the model cannot be traced.
    """
    import warnings

    with warnings.catch_warnings():  # torch's own fx code trips its deprecation of torch.jit.script_method
        warnings.simplefilter("ignore", DeprecationWarning)
        from torch.fx.experimental.optimization import fuse

        try:
            return fuse(copy.deepcopy(model).eval())
        except Exception as err:  # tracing fails on data-dependent control flow
            raise ValueError(f"cannot fold BatchNorm in {type(model).__name__}: {err}") from None


def auto_modes(device: torch.device | str = "cpu") -> list[str]:
    """The modes ``"auto"`` chooses among on ``device``: the float32 ones, and the bfloat16 ones where it has
    bfloat16 units (``has_fast_bf16``). ``compile`` and ``onnx`` run only when asked for by name: their refresh
    compiles or exports again, seconds an iteration."""
    modes = ["fp32", "fp32_cl", "fp32_fused"]
    if has_fast_bf16(device):
        modes += ["bf16", "bf16_cl", "bf16_fused"]
    return modes


def onnx_network(model: torch.nn.Module, threads: int) -> Any:
    """``model`` exported to ONNX (in memory) and opened on onnxruntime's CPU provider with ``threads`` intra-op
    threads: an ``onnx_network.OnnxNetwork``. Raises ``ImportError`` naming the ``onnx`` extra where a package
    is missing, and ``ValueError`` for a model that cannot be exported (``onnx_network.check_network``)."""
    from alphazero_lib.onnx_network import OnnxNetwork, onnx_bytes, require

    for module in ("onnx", "onnxscript", "onnxruntime"):  # before seconds of export: say at once what is missing
        require(module, "inference mode 'onnx'")
    return OnnxNetwork(onnx_bytes(model), threads=threads)


class FastEvaluator:
    """The fastest inference of a policy-value network this machine offers, behind ``evaluate(encoded)``.

    ``mode`` is one of ``MODES`` or ``"auto"``:

    - ``fp32`` / ``fp32_cl``: float32, contiguous or channels-last memory;
    - ``fp32_fused``: float32, channels-last, BatchNorm folded into the convolutions;
    - ``bf16`` / ``bf16_cl``: bfloat16 autocast (float32 weights, bf16 matmuls), contiguous or channels-last;
    - ``bf16_fused``: BatchNorm folded, then the whole copy in bfloat16, channels-last;
    - ``compile``: ``torch.compile`` of the folded copy (slow to start; only pays for long runs, never "auto");
    - ``onnx``: the network exported with ``torch.onnx`` and run on onnxruntime's CPU provider, on as many threads
      as torch has (the ``onnx`` extra: ``pip install -e ".[onnx]"``; ``ImportError`` saying so without it). Each
      ``refresh()`` exports again, seconds where the torch modes take a tenth of one, so "auto" leaves it out; on a
      loaded 2-core AMD EPYC one iteration of batched self-play still ran 1.10-1.18x faster than in torch's fastest
      fp32 mode, the export included (``benchmarks/results/onnx_inference_2026-11-28``). CPU models only
      (``ValueError`` for a GPU one).

    ``"auto"`` times the candidates on a batch of ``batch_size`` (bf16 ones only where ``has_fast_bf16``) and
    keeps the fastest; the choice is cached per architecture, batch size, device and torch version in memory
    and in ``cache_dir/inference_modes.json`` (default ``~/.cache/alphazero_lib``; ``cache_dir=None``: memory
    only). The model is copied: training goes on in float32 and ``refresh()`` picks up its new weights.
    """

    def __init__(
        self,
        model: torch.nn.Module,
        mode: str = "auto",
        *,
        batch_size: int = 64,
        cache_dir: str | os.PathLike[str] | None = "default",
    ) -> None:
        if mode != "auto" and mode not in MODES:
            raise ValueError(f"unknown inference mode {mode!r}; modes: {['auto', *MODES]}")
        self.source = model
        self.device = model_device(model)
        if mode == "onnx" and self.device.type != "cpu":
            raise ValueError(
                f"inference mode 'onnx' runs on onnxruntime's CPU provider, but the model is on {self.device.type}; "
                "use a torch mode there (e.g. fp32, or auto)"
            )
        self.batch_size = int(batch_size)
        self.cache_path = _cache_path(cache_dir)
        self.timings: dict[str, float] = {}  # mode -> evaluations per second, when "auto" measured them
        self.mode = self._choose_mode() if mode == "auto" else mode
        self.refresh()

    # ---- building the inference copy ------------------------------------------------------------------
    def refresh(self) -> None:
        """Rebuild the inference copy from the source model's current weights (call after training)."""
        self.net, self.input_dtype, self.autocast = self._build(self.mode)

    def _build(self, mode: str) -> tuple[Any, torch.dtype, bool]:
        """``(network, input dtype, bf16 autocast)`` for ``mode``."""
        if mode == "onnx":
            return onnx_network(self.source, torch.get_num_threads()), torch.float32, False
        net = copy.deepcopy(self.source).eval()
        if mode in ("fp32_fused", "bf16_fused", "compile"):
            net = fold_batch_norm(net)
        if mode != "fp32" and mode != "bf16":
            net = net.to(memory_format=torch.channels_last)
        if mode == "bf16_fused":
            return net.to(torch.bfloat16), torch.bfloat16, False
        if mode == "compile":
            return torch.compile(net, dynamic=True), torch.float32, False
        return net, torch.float32, mode in ("bf16", "bf16_cl")

    def _candidates(self) -> list[str]:
        return auto_modes(self.device)

    def _cache_key(self) -> str:
        shapes = [(name, tuple(p.shape)) for name, p in self.source.state_dict().items()]
        digest = hashlib.sha256(repr((type(self.source).__name__, shapes)).encode()).hexdigest()[:16]
        return f"{digest}|b{self.batch_size}|{self.device.type}|t{torch.get_num_threads()}|torch{torch.__version__}"

    def _choose_mode(self) -> str:
        key = self._cache_key()
        if key in _MEASURED:
            return _MEASURED[key]
        stored = _read_cache(self.cache_path).get(key)
        if stored in MODES:
            _MEASURED[key] = stored
            return stored
        candidates = self._candidates()
        where = f"cached in {self.cache_path}" if self.cache_path is not None else "kept for this process"
        print(  # a first run on a machine pauses here for a while: say why (stderr, so --json stays clean)
            f"timing inference modes {', '.join(candidates)} once for this network and machine ({where}); "
            f"pass an explicit mode (e.g. fp32) to skip",
            file=sys.stderr,
        )
        self.timings = self.measure(candidates)
        best = max(self.timings, key=self.timings.get)
        self.remember(best)
        return best

    def remember(self, mode: str) -> Path | None:
        """Record ``mode`` as the fastest for this network, batch size and machine, where ``"auto"`` looks next: in
        memory, and in the cache file shared by every process (``bench --mode auto`` records what it measured
        there). Returns the cache file (None: memory only, or it could not be written)."""
        key = self._cache_key()
        _MEASURED[key] = mode
        return _write_cache(self.cache_path, key, mode)

    def measure(self, modes: list[str] | tuple[str, ...], repeats: int = 3) -> dict[str, float]:
        """Evaluations per second of each mode at ``batch_size`` (best of ``repeats`` short runs).

        The modes take turns within each repeat, so a change in the machine's load hits them all alike.
        """
        encoded = self._example_batch()
        runs = {}
        for mode in modes:
            try:
                net, dtype, autocast = self._build(mode)
            except ValueError:
                continue  # e.g. a model that cannot be folded
            runs[mode] = (net, self._to_input(encoded, mode, dtype), autocast)
            self._forward(*runs[mode]).cpu()  # warm-up (allocations, kernel choice)
        calls = max(2, 512 // self.batch_size)
        best = dict.fromkeys(runs, float("inf"))
        for _ in range(repeats):
            for mode, (net, x, autocast) in runs.items():
                start = time.perf_counter()
                for _ in range(calls):
                    self._forward(net, x, autocast).cpu()  # .cpu() waits for a GPU to finish
                best[mode] = min(best[mode], (time.perf_counter() - start) / calls)
        return {mode: self.batch_size / seconds for mode, seconds in best.items()}

    def _example_batch(self) -> np.ndarray:
        """A batch of plausible encoded states (random boards), ``[batch_size, 3, R, C]``."""
        game = getattr(self.source, "game", None)
        rows, columns = (game.row_count, game.column_count) if game is not None else (6, 7)
        boards = np.random.default_rng(0).integers(-1, 2, size=(self.batch_size, rows, columns))
        return np.stack((boards == -1, boards == 0, boards == 1), axis=1).astype(np.float32)

    # ---- running it ---------------------------------------------------------------------------------
    def _to_input(self, encoded: np.ndarray, mode: str, dtype: torch.dtype) -> Any:
        if mode == "onnx":  # onnxruntime takes numpy
            return np.ascontiguousarray(encoded, dtype=np.float32)
        x = torch.from_numpy(np.ascontiguousarray(encoded, dtype=np.float32)).to(self.device, non_blocking=True)
        if mode != "fp32" and mode != "bf16":
            x = x.contiguous(memory_format=torch.channels_last)
        return x.to(dtype)

    def _forward(self, net: Any, x: torch.Tensor, autocast: bool) -> torch.Tensor:
        """One forward pass; logits and values side by side, ``[B, A + 1]`` float32 on the model's device."""
        if not isinstance(net, torch.nn.Module):  # onnxruntime (mode "onnx")
            logits, value = net.evaluate(x)
            return torch.from_numpy(np.concatenate((logits, value.reshape(-1, 1)), axis=1))
        with torch.inference_mode(), torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=autocast):
            logits, value = net(x)
            return torch.cat((logits.float(), value.float().reshape(-1, 1)), dim=1)

    def evaluate(self, encoded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Policy logits ``[B, A]`` and values ``[B]`` (float32 numpy) for encoded states ``[B, 3, R, C]``.

        One transfer to the device and one back per call.
        """
        x = self._to_input(encoded, self.mode, self.input_dtype)
        if self.mode == "onnx":
            return self.net.evaluate(x)
        out = self._forward(self.net, x, self.autocast).cpu().numpy()
        return out[:, :-1], out[:, -1]

    def __repr__(self) -> str:
        return f"FastEvaluator({type(self.source).__name__}, mode={self.mode!r}, device={self.device.type})"


def _cache_path(cache_dir: str | os.PathLike[str] | None) -> Path | None:
    if cache_dir is None:
        return None
    if cache_dir == "default":
        base = os.environ.get("ALPHAZERO_CACHE_DIR") or Path.home() / ".cache" / "alphazero_lib"
        return Path(base) / "inference_modes.json"
    return Path(cache_dir) / "inference_modes.json"


def _read_cache(path: Path | None) -> dict[str, str]:
    """The cache's ``{key: mode}``; a missing, damaged or half-written one is ``{}``: time again, never an error."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}  # a missing or damaged cache only costs a new measurement
    return data if isinstance(data, dict) else {}


def _write_cache(path: Path | None, key: str, mode: str) -> Path | None:
    """Add ``key: mode`` to the cache that every process on the machine shares (``utils.update_json_file``: read
    and written under a lock, written atomically, so concurrent writers keep each other's entries); the path, or
    None where it cannot be written."""
    if path is None:
        return None
    from alphazero_lib.utils import update_json_file

    try:
        update_json_file(path, lambda data: data.update({key: mode}))
    except OSError:
        return None  # a read-only home directory: keep the choice in memory only
    return path
