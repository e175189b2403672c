"""The long road to AlphaZero.jl's error rates (issue 22, target (c)), drawn from the committed records.

    python benchmarks/long_run.py                        # table of the points, and docs/long_run.png
    python benchmarks/long_run.py --plot OUT.png --set middle_easy

Reads, under ``benchmarks/results/``, each run's ``history.json`` (the wall time of every iteration, summed),
its ``trend.txt`` files (``checkpoint_trend.py``: each checkpoint's network alone on Pons' sets) and its
``strength*.txt`` files (``strength`` with search, where the player is named ``alphazero:ITERnnn:SIMS``). It
measures nothing itself: every point is a figure a command printed and a commit recorded. The plot puts the error
on one Pons set against hours of training on the 2-core CPU, the network alone as lines and with 200 and 600 PUCT
simulations as markers, beside AlphaZero.jl's published agent (600 simulations) and a depth-5 minimax.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
SETS = ("end_easy", "middle_easy", "middle_medium")

# The runs, each as its records name it: the Adam run behind connect_four_fast_5x128 (iteration 88), and its
# branch at iteration 40 with AdamW behind connect_four (iterations 172 and 200), its history holding 1-40 too.
# Each: (the folder of its history, the folders of its trend and strength records, rows to leave out: the branch's
# trend.txt ends with three checkpoints of the Adam run, named by that run's directory c4_5x128_long).
RUNS = {
    "Adam run (connect_four_fast_5x128)": ("long_5x128_2026-11-25", ("long_5x128_2026-11-25",), None),
    "AdamW branch (connect_four)": (
        "replay_reuse_2026-11-25",
        ("adamw_branch_2026-11-25", "replay_reuse_2026-11-25"),
        "c4_5x128_long/",
    ),
    # 2026-11-26: the branch resumed from iteration 200's file on another machine (its replay memory starting
    # empty), tree reuse from 207; its history holds iterations 1-200 too, so its hours go on from there
    "the branch from 200 (2026-11-26)": ("long_run_2026-11-26", ("long_run_2026-11-26",), None),
    # 2026-11-26/27: AlphaZero.jl's targets from that run's iteration 225 (its history holds 1-225 too)
    "AlphaZero.jl's targets from 225 (2026-11-27)": ("avg_targets_2026-11-27", ("avg_targets_2026-11-27",), None),
    # 2026-11-27: that branch from 276 with playout cap randomisation and 384 games an iteration (293: the default)
    "playout cap from 276 (2026-11-27)": ("playout_cap_2026-11-27", ("playout_cap_2026-11-27",), None),
    # 2026-11-27: that branch from 296 with the learning rate 2e-4 instead of 5e-4 (its history holds 1-296 too)
    "learning rate 2e-4 from 296 (2026-11-27)": ("cap_lr_2026-11-27", ("cap_lr_2026-11-27",), None),
    # 2026-11-27: that branch from 316 with the learning rate 1e-4 (its history holds 1-316 too)
    "learning rate 1e-4 from 316 (2026-11-27)": ("cap_lr1_2026-11-27", ("cap_lr1_2026-11-27",), None),
}
# AlphaZero.jl's published figures (read off its tutorial's plot; strength.ANCHORS has the same) and minimax-5.
ANCHORS = {"end_easy": (0.0, 0.0), "middle_easy": (0.0, 0.0), "middle_medium": (2.5, 3.0)}
MINIMAX_5 = {"middle_easy": 0.7, "middle_medium": 9.2}

ALONE = re.compile(r"iter_(\d{4})\S*\s.*?(\d+\.\d) / (\d+\.\d) / (\d+\.\d)%")
TABLE_ROW = re.compile(r"^alphazero:ITER(\d+):(\d+)\s+(\w+)\s+(\d+)\s+(\d+)\s")
JSON_HEADER = re.compile(r"^== .*alphazero:ITER(\d+):(\d+)\b")
JSON_ROW = re.compile(r"^\s+(\w+)\s+(\d+) positions\s+(\d+) errors")


@dataclass(frozen=True)
class Point:
    run: str
    iteration: int
    hours: float
    searches: int  # 0: the network alone
    errors: dict[str, float]  # set -> error rate in %


def hours_by_iteration(history_path: Path) -> dict[int, float]:
    """Each iteration's end in hours of training: self-play and training seconds summed over the history."""
    total, hours = 0.0, {}
    for record in json.loads(history_path.read_text()):
        total += float(record["wall_seconds"])
        hours[int(record["iteration"])] = total / 3600.0
    return hours


def alone_points(text: str, skip: str | None = None) -> dict[int, dict[str, float]]:
    """``checkpoint_trend.py`` rows (but those naming ``skip``): iteration -> the network alone's error rates (the
    last row of a repeat wins)."""
    found = {}
    for line in text.splitlines():
        match = ALONE.search(line)
        if match and not (skip and skip in line):
            found[int(match.group(1))] = dict(zip(SETS, map(float, match.groups()[1:]), strict=True))
    return found


def search_points(text: str) -> dict[tuple[int, int], dict[str, float]]:
    """``strength`` rows of ``alphazero:ITERnnn:SIMS`` players, in its table or its per-player block:
    (iteration, simulations) -> set -> error rate in %."""
    found: dict[tuple[int, int], dict[str, float]] = {}
    block = None
    for line in text.splitlines():
        row = TABLE_ROW.match(line)
        if row:
            iteration, sims, name, positions, errors = row.groups()
            found.setdefault((int(iteration), int(sims)), {})[name] = 100.0 * int(errors) / int(positions)
            continue
        header = JSON_HEADER.match(line)
        if header:
            block = (int(header.group(1)), int(header.group(2)))
            continue
        row = JSON_ROW.match(line)
        if row and block is not None:
            name, positions, errors = row.groups()
            found.setdefault(block, {})[name] = 100.0 * int(errors) / int(positions)
        elif line.startswith("=="):
            block = None
    return found


def collect(results: Path = RESULTS) -> tuple[list[Point], list[str]]:
    """Every point of the runs' records with its hours, and a note for each one left out (no recorded time)."""
    points, notes = [], []
    for run, (history_dir, record_dirs, skip) in RUNS.items():
        hours = hours_by_iteration(results / history_dir / "history.json")
        alone: dict[int, dict[str, float]] = {}
        searched: dict[tuple[int, int], dict[str, float]] = {}
        for name in record_dirs:
            folder = results / name
            if not folder.is_dir():
                continue
            for path in sorted(folder.glob("trend*.txt")):
                alone.update(alone_points(path.read_text(), skip))
            for path in sorted(folder.glob("strength*.txt")):  # one checkpoint's sets may lie in several files
                for key, errors in search_points(path.read_text()).items():
                    searched.setdefault(key, {}).update(errors)
        rows = [(i, 0, e) for i, e in alone.items()] + [(i, s, e) for (i, s), e in searched.items()]
        for iteration, searches, errors in sorted(rows):
            if iteration not in hours:
                notes.append(f"{run}: iteration {iteration} has no recorded time (its history ends at {max(hours)})")
                continue
            points.append(Point(run, iteration, hours[iteration], searches, errors))
    return points, notes


def table(points: list[Point], set_name: str) -> str:
    lines = [f"{'run':38}{'iteration':>10}{'hours':>8}  {'player':16}{set_name:>14}"]
    for p in points:
        if set_name in p.errors:
            player = "network alone" if p.searches == 0 else f"{p.searches} simulations"
            lines.append(f"{p.run:38}{p.iteration:>10}{p.hours:>8.2f}  {player:16}{p.errors[set_name]:>13.1f}%")
    return "\n".join(lines)


def plot(points: list[Point], set_name: str, out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    palette = ("tab:grey", "tab:blue", "tab:orange", "tab:purple", "tab:brown", "tab:olive", "tab:cyan")
    colours = dict(zip(RUNS, palette, strict=True))
    fig, ax = plt.subplots(figsize=(9, 5))
    for run, colour in colours.items():
        # this run's points measured on the set with so many searches (0: alone), as (hours, error, iteration)
        def measured(searches, run=run):
            return [
                (p.hours, p.errors[set_name], p.iteration)
                for p in points
                if p.run == run and p.searches == searches and set_name in p.errors
            ]

        alone = [(hours, error) for hours, error, _ in measured(0)]
        if alone:
            ax.plot(*zip(*alone, strict=True), color=colour, lw=1.2, label=f"{run}: network alone")
        for searches, marker in ((200, "o"), (600, "*")):
            shown = [(hours, error) for hours, error, _ in measured(searches)]
            if shown:
                size = 110 if marker == "*" else 40
                ax.scatter(
                    *zip(*shown, strict=True),
                    color=colour,
                    marker=marker,
                    s=size,
                    zorder=3,
                    label=f"{run}: {searches} PUCT simulations",
                )
        last = None  # dense markers (neighbouring checkpoints) get one label for a stretch of 0.4 hours
        for hours, error, iteration in measured(600):
            if last is None or hours - last >= 0.4:
                ax.annotate(
                    f"it. {iteration}",
                    (hours, error),
                    textcoords="offset points",
                    xytext=(8, -4),
                    fontsize=8,
                    color=colour,
                )
                last = hours
    low, high = ANCHORS[set_name]
    label = "AlphaZero.jl, 600 simulations (published)"
    ax.axhspan(low, max(high, low + 0.15), color="tab:green", alpha=0.25, label=label)
    if set_name in MINIMAX_5:
        ax.axhline(MINIMAX_5[set_name], color="tab:red", ls="--", lw=1, label="depth-5 minimax (published)")
    ax.set_xlabel("hours of training on a 2-core CPU (self-play and training, summed)")
    ax.set_ylabel(f"errors on Pons' {set_name.replace('_', '-')} set (%)")
    top = max(e[set_name] for p in points for e in [p.errors] if set_name in e)
    ax.set_ylim(0, top * 1.45)  # room for the legend above the curves
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper right", ncol=2)
    ax.set_title("Connect Four, 5 x 128 ResNet: the road to AlphaZero.jl's error rates")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", dest="set_name", choices=SETS, default="middle_medium")
    parser.add_argument("--plot", type=Path, default=Path(__file__).resolve().parent.parent / "docs" / "long_run.png")
    parser.add_argument("--results", type=Path, default=RESULTS, help="the records (default: benchmarks/results)")
    args = parser.parse_args(argv)
    points, notes = collect(args.results)
    print(table(points, args.set_name))
    for note in notes:
        print(f"left out: {note}")
    print(f"wrote {plot(points, args.set_name, args.plot)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
