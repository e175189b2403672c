"""Running a policy-value network on numpy batches: the one place the searches call the model.

A model is any ``torch.nn.Module`` that maps encoded states ``[B, 3, R, C]`` (float32) to
``(policy_logits [B, A], value [B, 1])``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


def model_device(model: torch.nn.Module) -> torch.device:
    """The device of the model's first parameter (CPU for a model without parameters)."""
    for p in model.parameters():
        return p.device
    return torch.device("cpu")


def evaluate(model: Any, encoded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Policy logits ``[B, A]`` and values ``[B]`` (float32 numpy) for encoded states ``[B, 3, R, C]``.

    Runs under ``torch.inference_mode`` with the model in eval mode (BatchNorm uses running statistics).
    """
    if hasattr(model, "evaluate"):  # an evaluator with its own fast path (see the parallel self-play issue)
        return model.evaluate(encoded)
    model.eval()
    with torch.inference_mode():
        x = torch.as_tensor(np.ascontiguousarray(encoded, dtype=np.float32), device=model_device(model))
        logits, value = model(x)
        return logits.float().cpu().numpy(), value.float().reshape(-1).cpu().numpy()


def masked_softmax(logits: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Softmax over legal actions only, ``[..., A]``; illegal actions get 0.

    Where the network gives every legal action zero probability (underflow) the result is uniform over
    the legal actions instead of a division by zero.
    """
    logits = np.asarray(logits, dtype=np.float64)
    valid = np.asarray(valid).astype(bool)
    shifted = np.where(valid, logits, -np.inf)
    top = np.max(shifted, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    weights = np.where(valid, np.exp(shifted - top), 0.0)
    total = weights.sum(axis=-1, keepdims=True)
    uniform = valid / np.maximum(valid.sum(axis=-1, keepdims=True), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        probs = np.where(total > 0, weights / np.where(total > 0, total, 1.0), uniform)
    return probs
