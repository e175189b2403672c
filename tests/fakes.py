"""Fake policy-value networks for search tests: deterministic functions of the encoded input."""

from __future__ import annotations

import numpy as np
import torch

from alphazero_lib.games.base import Game


class FakeNet(torch.nn.Module):
    """Logits and value are fixed (seeded numpy) linear functions of the encoded planes; no training, no noise.

    ``logits = x @ W_policy``, ``value = tanh(x @ w_value)``, computed in float64 so the numbers do not
    depend on the BLAS in use. Input ``[B, 3, R, C]``; output ``([B, A], [B, 1])``.
    """

    def __init__(self, game: Game, seed: int = 0) -> None:
        super().__init__()
        rng = np.random.default_rng(seed)
        size = 3 * game.row_count * game.column_count
        self.register_buffer("w_policy", torch.as_tensor(rng.standard_normal((size, game.action_size)) * 0.3))
        self.register_buffer("w_value", torch.as_tensor(rng.standard_normal(size) * 0.3))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        flat = x.double().flatten(1)
        return (flat @ self.w_policy).float(), torch.tanh(flat @ self.w_value).float()[:, None]


class ConstantNet(torch.nn.Module):
    """Every state gets the same logits (uniform by default) and value 0: search guided by the rules alone."""

    def __init__(self, game: Game, logits: float | np.ndarray = 0.0, value: float = 0.0) -> None:
        super().__init__()
        self.logits = torch.as_tensor(np.broadcast_to(logits, (game.action_size,)).copy(), dtype=torch.float32)
        self.value = float(value)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        batch = x.shape[0]
        return self.logits.expand(batch, -1).clone(), torch.full((batch, 1), self.value)
