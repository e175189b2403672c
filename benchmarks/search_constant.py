"""The test-time search's exploration constant C: a network's error at N searches for several C, side by side.

    python benchmarks/search_constant.py --weights W [W ...] --sets SET_OR_FILE [...] [--C 1 1.5 2 3 4]
        [--searches 600] [--jobs 2] [--json OUT]

The ``alphazero`` player searches with PUCT and ``SearchConfig``'s C (2.0) whatever network it holds. A network
trained on Gumbel targets, or longer, may want another. Choose C on sets that are not the ones reported: the files
of ``benchmarks/validation_sets.py`` (give their paths to ``--sets``), never Pons' six, which only confirm.

Each (weights, C, set) is measured in a process of its own on one torch thread, ``--jobs`` at a time; the table gives
each C's errors with the Wilson interval, and against the first C the positions only one of the two gets wrong
(``strength.mcnemar_p_value``: small when the difference is more than chance).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import torch

from alphazero_lib import make_game
from alphazero_lib.config import SearchConfig
from alphazero_lib.players import AlphaZeroPlayer
from alphazero_lib.specs import resolve_weights
from alphazero_lib.strength import evaluate_player, load_set, mcnemar_p_value


def measure(task: tuple[str, float, str, int]) -> dict:
    """One network with one C on one set: the errors, their positions and the seconds."""
    weights, c, set_name, searches = task
    torch.set_num_threads(1)
    game = make_game("connect_four")
    player = AlphaZeroPlayer(game, resolve_weights(game, weights), SearchConfig(num_searches=searches, C=c, seed=0))
    result = evaluate_player(player, [load_set(set_name)], progress=False)[0]
    return {"weights": weights, "C": c, "set": set_name, **result.to_dict()}


WIDTHS = (5, 6, 6, 14, 7, 7, 6)


def table(rows: list[dict]) -> str:
    lines = []
    for weights in dict.fromkeys(r["weights"] for r in rows):
        for set_name in dict.fromkeys(r["set"] for r in rows):
            chosen = [r for r in rows if r["weights"] == weights and r["set"] == set_name]
            base = set(chosen[0]["error_positions"])
            lines.append(f"{weights} on {Path(set_name).name} ({chosen[0]['positions']} positions):")
            heads = ("C", "errors", "rate", "95% interval", "only it", "only C0", "p")
            lines.append("  " + " ".join(f"{head:>{width}}" for head, width in zip(heads, WIDTHS, strict=True)))
            for r in chosen:
                errors = set(r["error_positions"])
                low, high = r["interval"]
                only, only_base = len(errors - base), len(base - errors)
                lines.append(
                    f"  {r['C']:>5g} {r['errors']:>6} {100 * r['error_rate']:>5.1f}% "
                    f"[{100 * low:>4.1f}, {100 * high:>4.1f}] {only:>7} {only_base:>7} "
                    f"{mcnemar_p_value(only, only_base):>6.3f}"
                )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", nargs="+", required=True, help="checkpoint paths or shipped weights by name")
    parser.add_argument("--sets", nargs="+", required=True, help="set names or set files (validation_sets.py)")
    parser.add_argument("--C", nargs="+", type=float, default=[2.0, 1.0, 1.5, 3.0, 4.0], help="the first is C0")
    parser.add_argument("--searches", type=int, default=600, help="PUCT simulations a move (default 600)")
    parser.add_argument("--jobs", type=int, default=2, help="processes at once (default 2)")
    parser.add_argument("--json", type=Path, help="write every result here too")
    args = parser.parse_args()
    if args.jobs < 1 or args.searches < 1 or min(args.C) < 0:
        parser.error("--jobs and --searches must be at least 1 and every --C at least 0")
    for name in args.sets:
        load_set(name)  # an unknown name or a bad file fails here, before any work
    tasks = [(w, c, s, args.searches) for w in args.weights for s in args.sets for c in args.C]
    print(f"{len(tasks)} measurements, {args.jobs} at a time; load average {os.getloadavg()[0]:.2f}", flush=True)
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(measure, tasks))
    print(table(rows))
    print(f"{time.perf_counter() - start:.0f} s; load average {os.getloadavg()[0]:.2f}")
    if args.json:
        temporary = args.json.with_suffix(".tmp")
        temporary.write_text(json.dumps(rows, indent=1))
        temporary.replace(args.json)


if __name__ == "__main__":
    main()
