"""Maintainers: publish a training run's checkpoints as shipped weights (sha256 in the registry).

    python tools/publish_weights.py runs/tictactoe tictactoe            # every iteration, last one final
    python tools/publish_weights.py runs/connect_four connect_four --iterations 5 10 20

Writes ``alphazero_lib/weights/<name>/iter_NNNN.pt`` (model only: no optimizer, no replay buffer) and
updates ``alphazero_lib/weights/registry.json``. Then add the model card to ``weights/README.md``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from alphazero_lib.pretrained import publish


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("name")
    parser.add_argument("--iterations", type=int, nargs="*", help="which iterations (default: all)")
    args = parser.parse_args()
    found = {int(re.findall(r"\d+", p.stem)[0]): p for p in sorted((args.run_dir / "checkpoints").glob("iter_*.pt"))}
    if not found:
        raise SystemExit(f"no checkpoints in {args.run_dir / 'checkpoints'}")
    chosen = sorted(args.iterations) if args.iterations else sorted(found)
    missing = [i for i in chosen if i not in found]
    if missing:
        raise SystemExit(f"no checkpoints for iterations {missing}; found {sorted(found)}")
    for i in chosen:
        print(publish(found[i], args.name, i, final=i == chosen[-1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
