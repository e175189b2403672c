"""Does the course's value head (a 3-channel convolution, then one linear layer and tanh) limit the value?

python value_head_probe.py RUN/checkpoints/iter_0149.pt RUN/latest.pt [THREADS] [EPOCHS]

The checkpoint's residual tower is frozen; fresh heads of two kinds are trained on the games of the replay memory's
last iterations but one (``latest.pt``) and measured, beside the checkpoint's own head, on the newest iteration's
games (value loss) and on Pons' Middle-Medium positions: the sign of the root value against the solver's, and a
player that picks the move whose next position the head values best (one ply of value, no search).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from alphazero_lib import make_game
from alphazero_lib.checkpoints import load_model
from alphazero_lib.strength import load_set, move_errors


def tower(model: nn.Module, states: torch.Tensor) -> torch.Tensor:
    """The residual tower's output for ``states``, kept in bfloat16 to save memory."""
    out = []
    with torch.no_grad():
        for start in range(0, len(states), 2048):
            hidden = model.start_block(states[start : start + 2048])
            for block in model.back_bone:
                hidden = block(hidden)
            out.append(hidden.to(torch.bfloat16))
    return torch.cat(out)


def course_head() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(128, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.Linear(126, 1), nn.Tanh()
    )


def mlp_head() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(128, 32, 1), nn.BatchNorm2d(32), nn.ReLU(), nn.Flatten(),
        nn.Linear(32 * 42, 256), nn.ReLU(), nn.Linear(256, 1), nn.Tanh(),
    )  # fmt: skip


def main() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    epochs = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    game = make_game("connect_four")
    model = load_model(sys.argv[1]).eval()
    chunks = torch.load(sys.argv[2], weights_only=False, map_location="cpu")["replay"]
    started = time.time()
    train_x = tower(model, torch.cat([c["states"] for c in chunks[-9:-1]]))
    train_y = torch.cat([c["values"] for c in chunks[-9:-1]])
    val_x, val_y = tower(model, chunks[-1]["states"]), chunks[-1]["values"]
    print(f"features: train {len(train_x)}, val {len(val_x)} in {time.time() - started:.0f}s", flush=True)

    positions = load_set("middle_medium")
    roots, children, moves = [], [], []  # moves: (position, column, the value of a finished game or None)
    for p in range(len(positions)):
        state, player = positions.states[p].astype(np.float32), int(positions.to_move[p])
        roots.append(game.get_encoded_state(game.change_perspective(state, player)))
        for column in range(game.action_size):
            if positions.labels[p, column] == "X":
                continue
            after = game.get_next_state(state.copy(), column, player)
            value, done = game.get_value_and_terminated(after, column)
            moves.append((p, column, value if done else None))
            children.append(game.get_encoded_state(game.change_perspective(after, -player)))
    root_x = tower(model, torch.tensor(np.stack(roots), dtype=torch.float32))
    child_x = tower(model, torch.tensor(np.stack(children), dtype=torch.float32))
    truth = np.sign(positions.scores)

    def measure(head: nn.Module, name: str) -> None:
        head.eval()
        with torch.no_grad():
            val_loss = F.mse_loss(head(val_x.float()).squeeze(1), val_y).item()
            root_values = head(root_x.float()).squeeze(1).numpy()
            child_values = head(child_x.float()).squeeze(1).numpy()
        signs = np.where(root_values > 0.33, 1, np.where(root_values < -0.33, -1, 0))
        best: dict[int, tuple[float, int]] = {}
        for (p, column, finished), value in zip(moves, child_values, strict=True):
            score = finished if finished is not None else -value  # a child's value is its mover's: the opponent's
            if p not in best or score > best[p][0]:
                best[p] = (score, column)
        errors = move_errors(positions.labels, np.array([best[p][1] for p in range(len(positions))])).mean()
        root_loss = np.mean((root_values - truth) ** 2)
        print(
            f"{name:<34} newest games value MSE {val_loss:.4f} | Pons MM root sign acc {np.mean(signs == truth):.3f} "
            f"root MSE vs sign {root_loss:.3f} | 1-ply value player error {100 * errors:.1f}%",
            flush=True,
        )

    measure(model.value_head, "own head (trained jointly)")
    for name, make in (
        ("course head (conv3 -> linear), fresh", course_head),
        ("MLP head (conv32 1x1 -> 256 -> 1), fresh", mlp_head),
    ):
        head = make()
        optimizer = torch.optim.AdamW(head.parameters(), lr=1e-3, weight_decay=0.01)
        generator = torch.Generator().manual_seed(0)
        for epoch in range(epochs):
            head.train()
            order = torch.randperm(len(train_x), generator=generator)
            for start in range(0, len(order), 256):
                batch = order[start : start + 256]
                loss = F.mse_loss(head(train_x[batch].float()).squeeze(1), train_y[batch])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            measure(head, f"{name} ep{epoch + 1}")


if __name__ == "__main__":
    main()
