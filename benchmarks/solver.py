"""How fast the perfect solver (the ``solver`` extra, ``alphazero_lib.solver``) labels Pons' positions, set by set.

    python benchmarks/solver.py [--positions 100]

For each of the six sets it labels every k-th position (``--positions`` of them, spread over the file) with
``solver.move_labels``, checks each label against the file's, and prints the mean and the slowest time per
position beside the machine's load. One process, one core.
"""

from __future__ import annotations

import argparse
import os
import time

from alphazero_lib import solver
from alphazero_lib.strength import SETS, load_set


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=100, help="positions a set (default 100)")
    args = parser.parse_args()
    solver.require()
    print(f"load average {os.getloadavg()[0]:.2f}; {args.positions} positions a set, labels checked against the files")
    print(f"{'set':<17} {'positions':>9} {'mean ms':>8} {'max ms':>8} {'disagree':>8}")
    for name in SETS:
        positions = load_set(name)
        step = max(1, len(positions) // args.positions)
        times, disagree = [], 0
        for i in range(0, len(positions), step)[: args.positions]:
            start = time.perf_counter()
            labels = solver.move_labels(positions.states[i], int(positions.to_move[i]))
            times.append(time.perf_counter() - start)
            disagree += labels != "".join(positions.labels[i])
        mean, most = 1000 * sum(times) / len(times), 1000 * max(times)
        print(f"{name:<17} {len(times):>9} {mean:>8.1f} {most:>8.1f} {disagree:>8}")


if __name__ == "__main__":
    main()
