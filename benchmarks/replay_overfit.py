"""How much a run learns its positions by heart: each checkpoint's losses on every iteration's games in the replay
memory, the games it has trained on beside those it has not.

python benchmarks/replay_overfit.py RUN                      # the replay memory of RUN/latest.pt, its last 6 networks
python benchmarks/replay_overfit.py RUN --replay COPY.pt --networks 130 131 136

A run's ``latest.pt`` holds the games of its last ``replay_window`` iterations. Each row is one network
(``RUN/checkpoints/iter_NNNN.pt``), each column one iteration's games: the policy loss (cross-entropy with the
search's distribution) and the value loss (squared error against the value target), as training measures them, ``*``
on the games that network has trained on. A network that generalises has about the same losses on the games it has
not seen (the next iteration's) as on those it has; losses far lower on its own games mean more games, or fewer
passes over each (``--train-samples``), would teach it more. ``--measure-new-games on`` records the unseen column
during training.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from alphazero_lib.checkpoints import load_checkpoint, load_model, replay_from_tensors
from alphazero_lib.rundir import iteration_path
from alphazero_lib.training import sample_losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="the run directory (its checkpoints/ holds the networks)")
    parser.add_argument("--replay", type=Path, help="the checkpoint holding the replay memory (default RUN/latest.pt)")
    parser.add_argument(
        "--networks",
        type=int,
        nargs="+",
        help="iterations whose networks to measure (default: the last 6, the one before the oldest games first)",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    saved = load_checkpoint(args.replay or args.run / "latest.pt")
    if "replay" not in saved:
        raise SystemExit(f"{args.replay or args.run / 'latest.pt'} holds no replay memory (only latest.pt does)")
    last = saved["iteration"]
    first = last - len(saved["replay"]) + 1  # the memory's oldest games; only the last 6 iterations' are read
    shown = {
        first + i: replay_from_tensors(chunk)
        for i, chunk in enumerate(saved["replay"])
        if i >= len(saved["replay"]) - 6
    }
    networks = args.networks or list(range(min(shown) - 1, last + 1))[-6:]
    print(
        f"replay memory after iteration {last}: the games of iterations {first}-{last}; columns "
        f"{min(shown)}-{last}, policy loss / value loss, * = trained on"
    )
    print(f"{'network':<8} " + " ".join(f"{f'games {k}':<16}" for k in shown) + "  seen / next (value)")
    for network in networks:
        model = load_model(iteration_path(args.run, network))
        cells, seen, unseen = [], [], None
        for iteration, samples in shown.items():
            losses = sample_losses(model, samples)
            trained = iteration <= network
            cells.append(f"{losses['policy_loss']:.3f}/{losses['value_loss']:.3f}{'*' if trained else ' '}")
            if trained:
                seen.append(losses["value_loss"])
            elif iteration == network + 1:
                unseen = losses["value_loss"]
        ratio = f"{sum(seen) / len(seen):.3f} / {unseen:.3f}" if seen and unseen is not None else ""
        print(f"{network:<8} " + " ".join(f"{cell:<16}" for cell in cells) + f"  {ratio}", flush=True)


if __name__ == "__main__":
    main()
