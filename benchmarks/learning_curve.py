"""How fast it learns: Connect Four recipes trained from zero for the same wall-clock budget on this machine,
one after the other, then each measured at the same moments of its training time.

    python benchmarks/learning_curve.py                      # connect_four_fast vs connect_four_cpu, 20 min each
    python benchmarks/learning_curve.py --minutes 5 --points 2.5 5 --games 20 --final-games 20   # a quick look
    python benchmarks/learning_curve.py --skip-training      # measure runs already trained into --out
    python benchmarks/learning_curve.py --train-only         # train on a quiet machine now, measure later
    python benchmarks/learning_curve.py --minutes 3 --points 1 2 3 --seeds 0 1 2 --sets \
        --recipes connect_four_fast "capped=connect_four_fast --train-samples 8192"   # a variant beside the recipe

A recipe is a preset's name, or ``NAME=PRESET FLAGS...``: the preset with ``train``'s flags changed (each seed's
run is named after NAME). For each recipe and seed, ``python -m alphazero_lib train --preset PRESET [FLAGS]
--time-budget MINUTES --workers 2 --seed SEED`` trains into ``OUT/NAME`` (``OUT/NAME_sSEED`` with several
``--seeds``; both recipes on two self-play worker processes: the old recipe's best setting on 2 cores, as its model
card's later iterations ran); a run cut short resumes. The clock is the run's own: the sum of its iterations' wall
times (self-play and training), as its ``history.json`` records them. At each ``--points`` minute, the last
checkpoint saved by then is measured with the same player for every recipe:

- the error rate on Pons' Middle-Medium set (and the others with ``--sets``; none with ``--sets`` alone), the
  network alone (``policy:``) and with ``--searches`` PUCT simulations (``alphazero:``), with 95% intervals
  (``alphazero_lib.strength``);
- the score against kaggle-environments' ``negamax`` over ``--games`` games (``--final-games`` at the last point),
  seats alternating, with its 95% interval.

It prints the curves side by side and the ratios, writes ``OUT/curves.json`` and a plot (``--plot``);
``--earlier FILE`` adds the curves of an earlier record's ``curves.json`` (runs whose folders are gone) to both. A
measurement is cached in ``OUT/measurements.json`` by checkpoint file and settings, so a re-run only adds what is
new. The measurements do not depend on time: ``--jobs 2`` runs two side by side, one a core (never beside a run
that trains on a time budget).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def cumulative_minutes(run_dir: Path) -> list[tuple[int, float]]:
    """``(iteration, minutes of training when it was saved)`` for every iteration the run's history records."""
    history_file = run_dir / "history.json"
    if not history_file.is_file():
        return []
    total, points = 0.0, []
    for record in json.loads(history_file.read_text()):
        total += float(record["wall_seconds"])
        points.append((int(record["iteration"]), total / 60.0))
    return points


def parse_recipe(recipe: str) -> tuple[str, str, list[str]]:
    """``(name, preset, flags)`` of a recipe: ``PRESET`` or ``NAME=PRESET FLAGS...``."""
    name, _, rest = recipe.partition("=")
    if not rest:
        return recipe, recipe, []
    preset, *flags = rest.split()
    return name, preset, flags


def run_name(recipe: str, seed: int, seeds: list[int]) -> str:
    """The folder of a recipe's run for ``seed``: its name, with ``_sSEED`` when several seeds are measured."""
    name = parse_recipe(recipe)[0]
    return name if len(seeds) == 1 else f"{name}_s{seed}"


def train(recipe: str, run_dir: Path, minutes: float, seed: int) -> None:
    """Train ``recipe`` into ``run_dir`` until its iterations add up to ``minutes`` (resuming a run cut short)."""
    _, preset, flags = parse_recipe(recipe)
    done = cumulative_minutes(run_dir)
    spent = done[-1][1] if done else 0.0
    if spent >= minutes:
        print(f"{run_dir.name}: {spent:.1f} min already trained in {run_dir}")
        return
    command = [sys.executable, "-m", "alphazero_lib", "train", "--out", str(run_dir), "--no-progress"]
    command += ["--time-budget", f"{minutes - spent:.3f}"]
    if (run_dir / "config.json").is_file():
        command += ["--resume"]
    else:
        command += ["--game", "connect_four", "--preset", preset, "--seed", str(seed), "--workers", "2", *flags]
    print(" ".join(command), flush=True)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    subprocess.run(command, check=True, env=env, cwd=ROOT)
    load = os.getloadavg()  # the 1, 5 and 15 minutes before the run ended: was the machine quiet while it trained?
    print(f"{run_dir.name}: load average {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} at the end", flush=True)
    (run_dir / "load_average.json").write_text(json.dumps(load))


def checkpoint_at(run_dir: Path, minute: float) -> tuple[int, float, Path] | None:
    """The last iteration saved by ``minute`` of training: ``(iteration, its minute, checkpoint file)``."""
    found = None
    for iteration, at in cumulative_minutes(run_dir):
        if at <= minute + 1e-9:
            found = (iteration, at, run_dir / "checkpoints" / f"iter_{iteration:04d}.pt")
    return found


SHIPPED = "connect_four_cpu (shipped run's record)"


@lru_cache(maxsize=1)
def _shipped_history() -> tuple[dict[str, Any], ...]:
    """The shipped ``connect_four_cpu`` run's history, read once (every curve point asks for it)."""
    import torch

    from alphazero_lib.pretrained import pretrained_path

    return tuple(torch.load(pretrained_path("connect_four_cpu"), weights_only=True)["history"])


def shipped_at(minute: float) -> tuple[int, float, Path] | None:
    """The shipped ``connect_four_cpu`` run as a third curve: the last published iteration by ``minute`` of the
    training time its own history recorded (model card: the machine shared with development work)."""
    from alphazero_lib.pretrained import available, pretrained_path

    total, found, published = 0.0, None, set(available()["connect_four_cpu"])
    for record in _shipped_history():
        total += float(record["wall_seconds"])
        if total / 60.0 <= minute + 1e-9 and record["iteration"] in published:
            found = (record["iteration"], total / 60.0, pretrained_path("connect_four_cpu", record["iteration"]))
    return found


REFERENCE = "default connect_four (records)"


def reference_points() -> list[Any]:
    """The default ``connect_four``'s lineage as its records measured it (``long_run.collect``: every point with
    its hours, searches and error rates), to draw beside the recipes' curves."""
    import long_run  # the script beside this one (its folder is on the path when this runs as a script)

    return long_run.collect()[0]


def measure(path: Path, sets: list[str], searches: int, games: int, seed: int) -> dict[str, Any]:
    """Error rates (network alone and with search) and the score against kaggle's negamax of one checkpoint."""
    import torch

    from alphazero_lib.arena import play_match
    from alphazero_lib.games import make_game
    from alphazero_lib.specs import make_player
    from alphazero_lib.strength import evaluate_player

    torch.set_num_threads(1)
    game = make_game("connect_four")
    result: dict[str, Any] = {"errors": {}}
    for kind, spec in (("network", f"policy:{path}"), ("search", f"alphazero:{path}:{searches}")):
        for item in evaluate_player(make_player(game, spec, seed=seed), sets, progress=False) if sets else []:
            low, high = item.interval
            result["errors"][f"{kind}/{item.set_name}"] = [item.error_rate, low, high]
    if games == 0:  # the sets alone
        return {**result, "negamax": None, "negamax_score": None}
    player = make_player(game, f"alphazero:{path}:{searches}", seed=seed)
    negamax = make_player(game, "kaggle:negamax", seed=seed + 1)
    start = time.perf_counter()
    match = play_match(game, player, negamax, games, progress=False, seed=seed)
    low, high = match.interval
    result["negamax"] = {**match.to_dict(), "seconds": round(time.perf_counter() - start, 1)}
    result["negamax_score"] = [match.score, low, high]
    return result


def earlier_curves(file: Path) -> dict[str, list[dict[str, Any]]]:
    """The curves an earlier run of this script wrote to ``file`` (its ``curves.json``). A file that is not such a
    record is refused, saying what was wrong, before anything is measured."""
    try:
        curves = json.loads(file.read_text())["curves"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SystemExit(f"--earlier {file}: not a curves.json of learning_curve.py ({error!r})") from None
    if not isinstance(curves, dict):
        raise SystemExit(f"--earlier {file}: its 'curves' is a {type(curves).__name__}, not a dict of runs")
    return curves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--recipes", nargs="+", default=["connect_four_fast", "connect_four_cpu"], help="PRESET or NAME=PRESET FLAGS"
    )
    parser.add_argument("--minutes", type=float, default=20.0, help="wall-clock training budget per recipe")
    parser.add_argument("--points", type=float, nargs="+", default=[5.0, 10.0, 15.0, 20.0], help="minutes measured")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="one run of every recipe for each seed")
    parser.add_argument("--out", default=str(ROOT / "runs" / "learning_curve"), help="where the runs are trained")
    parser.add_argument("--sets", nargs="*", default=["middle_medium"], help="Pons' sets to measure (none: alone)")
    parser.add_argument("--searches", type=int, default=100, help="PUCT simulations of the measured player")
    parser.add_argument("--games", type=int, default=40, help="games against negamax at each point (0: none)")
    parser.add_argument("--final-games", type=int, default=100, help="games against negamax at the last point")
    parser.add_argument(
        "--reference",
        action="store_true",
        help="draw the default connect_four's recorded curve beside (benchmarks/long_run.py's points)",
    )
    parser.add_argument(
        "--earlier",
        nargs="+",
        default=[],
        metavar="FILE",
        help="curves.json of earlier records: their curves printed and drawn after these runs' (not measured again)",
    )
    parser.add_argument("--skip-training", action="store_true", help="measure the runs already in --out")
    parser.add_argument("--train-only", action="store_true", help="train the runs, measure nothing (yet)")
    parser.add_argument("--shipped", action="store_true", help="also measure the shipped run's iterations by minute")
    parser.add_argument("--jobs", type=int, default=1, help="measurements run side by side (one core each)")
    parser.add_argument("--plot", default=None, help="write the curves as a PNG here")
    parser.add_argument("--json", action="store_true", help="print the curves as one JSON object")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1 (measurements side by side), got {args.jobs}")
    if min(args.games, args.final_games) < 0:
        parser.error(f"--games and --final-games must be 0 (no match) or more, got {args.games}, {args.final_games}")
    earlier = {name: points for file in args.earlier for name, points in earlier_curves(Path(file)).items()}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = {run_name(r, seed, args.seeds): (r, seed) for seed in args.seeds for r in args.recipes}
    if not args.skip_training:
        for name, (recipe, seed) in runs.items():
            train(recipe, out / name, args.minutes, seed)
    if args.train_only:
        return 0

    cache_file = out / "measurements.json"
    cache = json.loads(cache_file.read_text()) if cache_file.is_file() else {}
    points: dict[str, list[tuple[float, int, float, str]]] = {}
    todo: dict[str, tuple[str, Path, int, int]] = {}
    last = max(args.points)
    for name in [*runs, *([SHIPPED] if args.shipped else [])]:
        seed = runs[name][1] if name in runs else args.seeds[0]
        points[name] = []
        for minute in sorted(args.points):
            found = shipped_at(minute) if name == SHIPPED else checkpoint_at(out / name, minute)
            if found is None:
                continue
            iteration, at, path = found
            games = args.final_games if minute == last else args.games
            key = f"{path}|{','.join(args.sets)}|{args.searches}|{games}|{seed}"
            points[name].append((minute, iteration, at, key))
            if key not in cache:
                todo[key] = (f"{name} iteration {iteration} ({at:.1f} min)", path, games, seed)
    # the measurements do not depend on time: --jobs of them run side by side, each on one core
    with ProcessPoolExecutor(max_workers=min(args.jobs, max(len(todo), 1))) as pool:
        running = {}
        for key, (what, path, games, seed) in todo.items():
            print(f"measuring {what} ...", flush=True)
            running[pool.submit(measure, path, args.sets, args.searches, games, seed)] = key
        for done in as_completed(running):
            cache[running[done]] = done.result()
            tmp = cache_file.with_suffix(".tmp")
            tmp.write_text(json.dumps(cache, indent=1))
            tmp.replace(cache_file)
    curves = {
        name: [{"minute": m, "iteration": i, "trained_minutes": at, **cache[key]} for m, i, at, key in found]
        for name, found in points.items()
    }
    curves.update({name: points for name, points in earlier.items() if name not in curves})  # a new run wins

    summary = {
        "recipes": args.recipes,
        "minutes": args.minutes,
        "seeds": args.seeds,
        "searches": args.searches,
        "load_average": os.getloadavg(),
        "training_load_average": {
            name: json.loads((out / name / "load_average.json").read_text())
            for name in runs
            if (out / name / "load_average.json").is_file()
        },
        "curves": curves,
    }
    (out / "curves.json").write_text(json.dumps(summary, indent=1))
    if args.json:
        print(json.dumps(summary))
    else:
        print_table(curves, args.sets, args.searches)
    if args.plot:
        plot(curves, args.sets, args.plot, args.searches, reference_points() if args.reference else [])
    return 0


def print_table(curves: dict[str, list[dict[str, Any]]], sets: list[str], searches: int) -> None:
    """The curves side by side, each set's error rates and the score against negamax where games were played,
    then the ratios of the first two recipes at their last points on the first set."""
    print(
        f"\nerrors on {', '.join(sets) or 'no Pons set'} (network alone / with {searches} PUCT simulations) and "
        f"score against kaggle negamax ({searches} PUCT simulations)"
    )
    for recipe, points in curves.items():
        print(f"\n{recipe}")
        head = "".join(f"{name[:17]:>27} " for name in sets)
        print(f"{'minute':>7} {'iter':>5} {'trained':>8} {head}{'vs negamax':>28}")
        for p in points:
            errors = ""
            for name in sets:
                net = p["errors"][f"network/{name}"][0]
                err, low, high = p["errors"][f"search/{name}"]
                errors += f"{100 * net:7.1f}% {100 * err:5.1f}% [{100 * low:4.1f}, {100 * high:4.1f}] "
            match = "not played"
            if p["negamax_score"] is not None:
                score, slow, shigh = p["negamax_score"]
                match = f"{score:6.3f} [{slow:.3f}, {shigh:.3f}] of {p['negamax'].get('games', '?')}"
            print(f"{p['minute']:7.1f} {p['iteration']:5d} {p['trained_minutes']:7.1f}m {errors}{match:>28}")
    names = list(curves)[:2]
    if sets and len(names) == 2 and curves[names[0]] and curves[names[1]]:
        set_name = sets[0]
        a, b = curves[names[0]][-1], curves[names[1]][-1]
        err_a, err_b = a["errors"][f"search/{set_name}"][0], b["errors"][f"search/{set_name}"][0]
        scores = ""
        if a["negamax_score"] is not None and b["negamax_score"] is not None:
            scores = f"; score vs negamax {a['negamax_score'][0]:.3f} vs {b['negamax_score'][0]:.3f}"
        print(f"\nat {a['minute']:.0f} min: error {names[0]} / {names[1]} = {err_a / max(err_b, 1e-9):.2f}{scores}")
        reached = [p for p in curves[names[0]] if p["errors"][f"search/{set_name}"][0] <= err_b]
        if reached:
            print(
                f"{names[0]} reaches {names[1]}'s final error ({100 * err_b:.1f}%) by minute "
                f"{reached[0]['minute']:.0f}: {b['minute'] / reached[0]['minute']:.1f}x faster"
            )


def plot(
    curves: dict[str, list[dict[str, Any]]], sets: list[str], path: str, searches: int, reference: list[Any] = ()
) -> None:
    """A panel for each set (the error with search against training minutes) and one for the score against negamax
    where games were played; one line per run, the runs of one recipe (``NAME_sSEED``) in one colour. With
    ``reference`` (``long_run.Point``s), the default ``connect_four``'s recorded points with the same searches, where
    its records measured the set, as grey crosses."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from alphazero_lib.strength import ANCHORS as PUBLISHED

    played = any(p["negamax_score"] is not None for points in curves.values() for p in points)
    panels = len(sets) + played
    fig, axes = plt.subplots(1, panels, figsize=(5 * panels, 4), squeeze=False)
    colours: dict[str, str] = {}
    for run, points in curves.items():
        recipe = run.rsplit("_s", 1)[0] if run.rsplit("_s", 1)[-1].isdigit() else run
        first = recipe not in colours
        colours.setdefault(recipe, f"C{len(colours)}")
        style = {"color": colours[recipe], "label": recipe if first else None}
        minutes = [p["trained_minutes"] for p in points]
        for ax, set_name in zip(axes[0], sets, strict=False):
            errors = [100 * p["errors"][f"search/{set_name}"][0] for p in points]
            low = [100 * p["errors"][f"search/{set_name}"][1] for p in points]
            high = [100 * p["errors"][f"search/{set_name}"][2] for p in points]
            ax.plot(minutes, errors, marker="o", **style)
            ax.fill_between(minutes, low, high, alpha=0.2, color=colours[recipe])
        measured = [p for p in points if p["negamax_score"] is not None]
        if measured:
            scores = [p["negamax_score"][0] for p in measured]
            axes[0][-1].errorbar(
                [p["trained_minutes"] for p in measured],
                scores,
                marker="o",
                capsize=3,
                yerr=[
                    [s - p["negamax_score"][1] for s, p in zip(scores, measured, strict=True)],
                    [p["negamax_score"][2] - s for s, p in zip(scores, measured, strict=True)],
                ],
                **style,
            )
    # the reference up to half as long again as the longest curve: the same hours are what a candidate is judged by
    until = 1.5 * max((p["trained_minutes"] for points in curves.values() for p in points), default=0.0)
    for ax, set_name in zip(axes[0], sets, strict=False):
        drawn = [
            (60 * p.hours, p.errors[set_name])
            for p in reference
            if p.searches == searches and set_name in p.errors and 60 * p.hours <= until
        ]
        if drawn:
            ax.plot(*zip(*drawn, strict=True), "x", color="grey", label=f"{REFERENCE}, {searches} simulations")
        for name, anchor in PUBLISHED.get(set_name, {}).items():
            if anchor is None:
                continue
            ax.axhspan(100 * anchor.low, 100 * anchor.high + 0.05, color="grey", alpha=0.3)
            ax.text(0.01, 100 * anchor.high, name, transform=ax.get_yaxis_transform(), fontsize=8, va="bottom")
        ax.set(xlabel="training minutes (2 cores)", ylabel=f"errors on {set_name} (%)", ylim=(0, None))
        ax.legend()
    if played:
        right = axes[0][-1]
        right.set(xlabel="training minutes (2 cores)", ylabel="score against kaggle negamax", ylim=(0, 1.02))
        right.axhline(0.95, color="grey", linestyle=":", linewidth=1)
        right.legend(loc="lower right")
    fig.tight_layout()
    tmp = Path(path).with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=110)
    tmp.replace(path)


if __name__ == "__main__":
    raise SystemExit(main())
