"""The course's policy-value network: a small ResNet with a policy head and a value head."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from alphazero_lib.games.base import Game
from alphazero_lib.inference import evaluate, model_device
from alphazero_lib.utils import resolve_device

#: The most trainable parameters a ``ResNet`` may have (800 MB of float32 weights; the shipped ones have < 3 million).
MAX_PARAMETERS = 200_000_000


def resnet_parameters(game: Game, num_res_blocks: int, num_hidden: int) -> int:
    """The trainable parameters of ``ResNet(game, num_res_blocks, num_hidden)``, counted without building it."""
    h, cells, actions = num_hidden, game.row_count * game.column_count, game.action_size
    start = 27 * h + h + 2 * h  # 3x3 convolution from 3 planes, its bias, BatchNorm
    blocks = num_res_blocks * 2 * (9 * h * h + h + 2 * h)
    policy = 9 * h * 32 + 32 + 64 + 32 * cells * actions + actions
    value = 9 * h * 3 + 3 + 6 + 3 * cells + 1
    return start + blocks + policy + value


class ResBlock(nn.Module):
    """conv3x3-BN-ReLU-conv3x3-BN, plus the block's input (the skip), then ReLU: ``[B, H, R, C] -> same``."""

    def __init__(self, num_hidden: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(num_hidden, num_hidden, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(num_hidden)
        self.conv2 = nn.Conv2d(num_hidden, num_hidden, kernel_size=3, padding=1)
        self.bn2 = nn.BatchNorm2d(num_hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        residual = x
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.bn2(self.conv2(x))
        return F.relu(x + residual)


class ResNet(nn.Module):
    """AlphaZero's network: encoded states ``[B, 3, R, C]`` -> (policy logits ``[B, A]``, value ``[B, 1]``).

    ``model.arch`` holds ``{"num_res_blocks", "num_hidden"}`` (stored in checkpoints); ``model.game`` the game.
    """

    def __init__(self, game: Game, num_res_blocks: int = 4, num_hidden: int = 64, device: Any = "cpu") -> None:
        super().__init__()
        from alphazero_lib.config import check_limit

        for name, value in (("num_res_blocks", num_res_blocks), ("num_hidden", num_hidden)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
            check_limit(f"ResNet's {name}", name, int(value))
        size = resnet_parameters(game, int(num_res_blocks), int(num_hidden))
        if size > MAX_PARAMETERS:  # said before a byte is allocated
            raise ValueError(
                f"a ResNet of {num_res_blocks} blocks x {num_hidden} channels for {game!r} would have {size:,} "
                f"parameters ({4 * size / 1e9:.1f} GB of float32 weights, three times that to train with Adam); "
                f"at most {MAX_PARAMETERS:,}: use fewer blocks or channels"
            )
        self.game = game
        self.arch = {"num_res_blocks": int(num_res_blocks), "num_hidden": int(num_hidden)}
        cells = game.row_count * game.column_count

        self.start_block = nn.Sequential(
            nn.Conv2d(3, num_hidden, kernel_size=3, padding=1), nn.BatchNorm2d(num_hidden), nn.ReLU()
        )
        self.back_bone = nn.ModuleList([ResBlock(num_hidden) for _ in range(num_res_blocks)])
        self.policy_head = nn.Sequential(
            nn.Conv2d(num_hidden, 32, kernel_size=3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(32 * cells, game.action_size),
        )
        self.value_head = nn.Sequential(
            nn.Conv2d(num_hidden, 3, kernel_size=3, padding=1),
            nn.BatchNorm2d(3),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(3 * cells, 1),
            nn.Tanh(),
        )
        self.to(resolve_device(device) if isinstance(device, str) else torch.device(device))

    @property
    def device(self) -> torch.device:
        """Where the parameters live (follows ``model.to(...)``)."""
        return model_device(self)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``x [B, 3, R, C]`` -> (policy logits ``[B, A]``, value in [-1, 1] ``[B, 1]``)."""
        x = self.start_block(x)
        for block in self.back_bone:
            x = block(x)
        return self.policy_head(x), self.value_head(x)

    def predict(self, encoded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Policy logits ``[B, A]`` and values ``[B]`` (numpy) for encoded states ``[B, 3, R, C]`` or ``[3, R, C]``.

        Runs in eval mode under ``torch.inference_mode`` (see ``alphazero_lib.inference.evaluate``).
        """
        encoded = np.asarray(encoded, dtype=np.float32)
        expected = (3, self.game.row_count, self.game.column_count)
        if encoded.shape[-3:] != expected or encoded.ndim not in (3, 4):
            raise ValueError(f"expected encoded states [B, 3, R, C] with (3, R, C) = {expected}, got {encoded.shape}")
        if encoded.ndim == 3:
            encoded = encoded[None]
        return evaluate(self, encoded)

    def num_parameters(self) -> int:
        """How many trainable numbers the network has."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def summary(self) -> str:
        """A few readable lines: game, blocks, width, parameter count per part and in total."""
        parts = {
            "start block": self.start_block,
            f"{len(self.back_bone)} residual blocks": self.back_bone,
            "policy head": self.policy_head,
            "value head": self.value_head,
        }
        lines = [f"ResNet for {self.game}: {self.arch['num_res_blocks']} blocks x {self.arch['num_hidden']} channels"]
        for name, module in parts.items():
            lines.append(f"  {name:<22} {sum(p.numel() for p in module.parameters()):>10,} parameters")
        lines.append(f"  {'total':<22} {self.num_parameters():>10,} parameters on {self.device}")
        return "\n".join(lines)
