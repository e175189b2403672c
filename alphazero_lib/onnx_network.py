"""The network as ONNX (``torch.onnx``) and onnxruntime running it behind the library's ``evaluate``.

``onnx_bytes(model)`` exports the ``ResNet`` with a free batch dimension: input ``encoded [B, 3, R, C]``
(float32), outputs ``policy_logits [B, A]`` and ``value [B, 1]``, exactly the torch forward's. It uses torch's
``torch.export``-based exporter (``dynamo=True``, the default since torch 2.9; the TorchScript one is deprecated),
which needs the packages ``onnx`` and ``onnxscript``: ``pip install -e ".[onnx]"``. ``OnnxNetwork(source)`` runs
the export on onnxruntime and has the library's ``evaluate(encoded)``, so a search can play with it: the inference
mode ``onnx`` (``inference.FastEvaluator``) and the exported web page (``web.onnx_export``, ``web.page``) both use it.
"""

from __future__ import annotations

import contextlib
import copy
import io
import logging
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

#: The pip extra that brings the exporter's and the runtime's packages.
INSTALL_HINT = 'pip install -e ".[onnx]" (or: pip install onnx onnxscript onnxruntime)'
INPUT_NAME = "encoded"
OUTPUT_NAMES = ("policy_logits", "value")
#: The largest batch the exported file accepts (the page asks for one position; tests and benchmarks for more).
MAX_BATCH = 4096


def require(module: str, why: str) -> Any:
    """Import ``module`` or raise ``ImportError`` saying what needs it and how to install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{why} needs the package {module!r}; install it with {INSTALL_HINT}") from None


def check_network(model: Any) -> None:
    """Raise ``ValueError`` unless ``model`` is a ``ResNet`` with a game (``load_model`` sets it)."""
    import torch

    if not isinstance(model, torch.nn.Module) or getattr(model, "game", None) is None or not hasattr(model, "arch"):
        raise ValueError(f"need a ResNet with .game and .arch (load_model's), got {type(model).__name__}")


def onnx_bytes(model: Any) -> bytes:
    """The ONNX file of ``model`` (a ``ResNet``) as bytes; see the module docstring for its inputs and outputs."""
    import torch

    check_network(model)
    require("onnx", "the ONNX export")
    require("onnxscript", "torch's ONNX exporter")
    game = model.game
    # a copy on the CPU in float32 and eval mode: the caller's model (maybe on a GPU, or training) is left alone
    source = model if next(model.parameters()).device.type == "cpu" else copy.deepcopy(model).to("cpu")
    example = torch.zeros(2, 3, game.row_count, game.column_count)  # batch 2: a batch of 1 would be specialised
    batch = torch.export.Dim("batch", min=1, max=MAX_BATCH)
    was_training = source.training
    source.eval()
    quiet = logging.getLogger("torch.onnx")
    level = quiet.level
    try:
        quiet.setLevel(logging.ERROR)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            warnings.simplefilter("ignore")
            program = torch.onnx.export(
                source,
                (example,),
                input_names=[INPUT_NAME],
                output_names=list(OUTPUT_NAMES),
                dynamic_shapes=({0: batch},),
                dynamo=True,
                verbose=False,
                optimize=True,
            )
            with tempfile.TemporaryDirectory() as folder:  # the program writes to a path: read it back
                path = Path(folder) / "model.onnx"
                program.save(str(path), external_data=False)
                data = path.read_bytes()
    finally:
        quiet.setLevel(level)
        source.train(was_training)
    return data


class OnnxNetwork:
    """An exported network on onnxruntime's CPU provider, with the library's ``evaluate(encoded)``.

    ``source`` is the ONNX file's path or its bytes (``onnx_bytes``). ``threads`` is onnxruntime's intra-op thread
    count (1, as the players run torch; 0 is onnxruntime's default).
    """

    def __init__(self, source: str | os.PathLike[str] | bytes, threads: int = 1) -> None:
        ort = require("onnxruntime", "running an ONNX file")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        model = source if isinstance(source, bytes) else str(source)
        self.session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])

    def evaluate(self, encoded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Policy logits ``[B, A]`` and values ``[B]`` (float32) for encoded states ``[B, 3, R, C]``."""
        x = np.ascontiguousarray(encoded, dtype=np.float32)
        logits, value = self.session.run(list(OUTPUT_NAMES), {INPUT_NAME: x})
        return logits, value.reshape(-1)
