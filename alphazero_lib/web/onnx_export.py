"""The network as an ONNX file for the web page: ``export_onnx(model, path)`` writes it, after the export-kaggle checks.

The export itself and onnxruntime behind ``evaluate`` are ``alphazero_lib.onnx_network``'s (the inference mode
``onnx`` uses them too); their names are importable from here as well. ``check_exportable`` refuses what cannot be
exported (not a ``ResNet`` with a game) or should not be (weights with NaN or infinity), with export-kaggle's errors.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from alphazero_lib.checkpoints import check_finite
from alphazero_lib.onnx_network import INSTALL_HINT, OnnxNetwork, check_network, onnx_bytes, require
from alphazero_lib.utils import atomic_write_bytes

__all__ = ["INSTALL_HINT", "OnnxNetwork", "check_exportable", "export_onnx", "onnx_bytes", "require"]


def check_exportable(model: Any) -> None:
    """Raise ``ValueError`` unless ``model`` is a ``ResNet`` with finite weights and a game (``load_model`` sets it).

    Non-finite weights get the checkpoints' own error (``CheckpointError``, a ``ValueError``), as export-kaggle's.
    """
    check_network(model)
    check_finite(model.state_dict(), f"the {model.game!r} model")


def export_onnx(model: Any, out: str | os.PathLike[str]) -> Path:
    """Write ``model``'s ONNX file to ``out`` (atomically: a temporary file, then a rename); returns the path."""
    out = Path(out)
    if out.is_dir():
        raise ValueError(f"{out} is a directory; give the ONNX file a name, e.g. {out / 'model.onnx'}")
    check_exportable(model)
    atomic_write_bytes(out, onnx_bytes(model))
    return out
