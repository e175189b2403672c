"""Training steps in float32 and in bfloat16 (``TrainConfig.train_precision``), side by side in one run.

python benchmarks/train_precision.py [--samples 8192] [--threads 2] [--sizes 4x64 5x128]

Times ``training.train_epoch`` over the same random Connect Four memory for each network size, once per
precision after a warm-up epoch, and prints samples per second and the ratio. bf16 pays where the CPU has
bfloat16 units (AMX or AVX512-BF16; ``inference.has_fast_bf16``); elsewhere torch emulates it, far slower, which
is why ``train_precision="auto"`` picks fp32 there. The figures need a quiet machine.
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np
import torch

from alphazero_lib import make_game
from alphazero_lib.inference import has_fast_bf16
from alphazero_lib.model import ResNet
from alphazero_lib.training import train_epoch


def samples_per_second(model: torch.nn.Module, memory: list, precision: str, batch_size: int) -> float:
    """Samples per second of one epoch over ``memory`` (after a warm-up epoch on a copy of the network)."""
    model = copy.deepcopy(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
    train_epoch(model, optimizer, memory[: 4 * batch_size], batch_size, np.random.default_rng(0), precision=precision)
    start = time.perf_counter()
    train_epoch(model, optimizer, memory, batch_size, np.random.default_rng(1), precision=precision)
    return len(memory) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=8192, help="samples in the timed epoch (default 8192)")
    parser.add_argument("--batch-size", type=int, default=256, help="samples per step (default 256, the presets')")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default 2, as training uses them)")
    parser.add_argument("--sizes", nargs="+", default=["4x64", "5x128"], help="networks, BLOCKSxCHANNELS")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    game = make_game("connect_four")
    rng = np.random.default_rng(0)
    boards = rng.integers(-1, 2, size=(args.samples, game.row_count, game.column_count))
    policies = rng.dirichlet(np.ones(game.action_size), size=args.samples).astype(np.float32)
    values = rng.uniform(-1, 1, size=args.samples).astype(np.float32)
    memory = [(game.get_encoded_state(b), p, v) for b, p, v in zip(boards, policies, values, strict=True)]
    print(
        f"train_epoch over {args.samples} Connect Four samples, batch {args.batch_size}, {args.threads} torch "
        f"thread(s), torch {torch.__version__}; fast bfloat16 here: {has_fast_bf16('cpu')}"
    )
    print(f"{'network':<10}{'fp32 samples/s':>16}{'bf16 samples/s':>16}{'bf16 / fp32':>13}")
    for size in args.sizes:
        blocks, channels = (int(part) for part in size.split("x"))
        torch.manual_seed(0)
        model = ResNet(game, blocks, channels)
        fp32, bf16 = (samples_per_second(model, memory, p, args.batch_size) for p in ("fp32", "bf16"))
        print(f"{size:<10}{fp32:>16,.0f}{bf16:>16,.0f}{bf16 / fp32:>12.2f}x")


if __name__ == "__main__":
    main()
