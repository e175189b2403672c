"""The capstone measured: the learner's own AlphaZero (notebook 10) trained for the default budget, then played.

    python tools/solve_notebooks.py notebooks/0[3-8]_*.ipynb --home runs/solved   # the solved run keeps the code
    python benchmarks/capstone.py --home runs/solved --minutes 20 --games 50 --out runs/capstone

It loads the learner's pieces from ``HOME/my_alphazero`` (the library's stand in where a check did not pass, and the
first line says which), trains with ``alphazero_lib.capstone.Capstone`` for ``--minutes`` of wall time,
then plays Kaggle's ``negamax`` ``--games`` episodes on each seat with the learner's agent (their ``AlphaMCTS`` and
``make_agent``, counted by their ``evaluate_both_seats``), and ``random``; exports the submission file and plays it
too. It prints every figure with its 95% Wilson interval, the calls made by the learner's code and the library's,
and writes them to ``OUT/capstone.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def score(counts: dict[str, int]) -> tuple[float, int]:
    games = sum(counts.values())
    return (counts["wins"] + 0.5 * counts["draws"]) / max(1, games), games


def line(name: str, results: dict[str, dict[str, int]]) -> str:
    from alphazero_lib.arena import wilson_interval

    parts = []
    for seat, counts in results.items():
        value, games = score(counts)
        low, high = wilson_interval(value, games)
        parts.append(
            f"{seat}: {counts['wins']}-{counts['draws']}-{counts['losses']} (W-D-L, {counts['errors']} errors), "
            f"score {value:.2f} [{low:.2f}, {high:.2f}]"
        )
    return f"{name}: " + "; ".join(parts)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="the folder holding my_alphazero/")
    parser.add_argument("--minutes", type=float, default=20.0, help="training budget (wall-clock minutes)")
    parser.add_argument("--games", type=int, default=50, help="episodes against negamax on each seat")
    parser.add_argument("--random-games", type=int, default=10, help="episodes against random on each seat")
    parser.add_argument("--searches", type=int, default=100, help="the agent's searches a move")
    parser.add_argument("--puct", action="store_true", help="train with PUCT (notebook 5's AlphaZero), not Gumbel")
    parser.add_argument(
        "--games-per-iteration",
        type=int,
        default=None,
        help="self-play games an iteration (default: notebook 10's, 256 with a CUDA GPU, else 128)",
    )
    parser.add_argument("--device", default="auto", help="where the network trains: auto (default), cpu or cuda")
    parser.add_argument(
        "--network",
        type=Path,
        default=None,
        help="play with this network.pt (an earlier run's, e.g. trained on a GPU) instead of training",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help="folder for capstone.json and submission.py")
    args = parser.parse_args(argv)
    os.environ["MY_ALPHAZERO_HOME"] = str(args.home.resolve())

    import torch

    from alphazero_lib.capstone import Capstone, CapstoneSettings, load_pieces, serial_game_seconds
    from alphazero_lib.kaggle import load_submission

    torch.set_num_threads(1)
    yours = load_pieces()
    serial = serial_game_seconds(yours, searches=32, seed=args.seed)
    print(f"your serial self_play: {serial:.2f} s for one game of 32 searches a move (fresh network)")
    from alphazero_lib.bench import device_name

    settings = CapstoneSettings(
        minutes=args.minutes,
        fast=not args.puct,
        games_per_iteration=args.games_per_iteration,
        seed=args.seed,
        device=args.device,
    )
    games = settings.games()
    capstone = Capstone(yours, settings)
    print(
        f"{settings.num_res_blocks} x {settings.num_hidden} ResNet, {games} games an iteration, "
        f"{args.minutes:g} min, network on {device_name(capstone.device)}",
        flush=True,
    )
    start = time.perf_counter()
    if args.network is not None:  # an earlier run's network: play it, train nothing
        capstone.model.load_state_dict(torch.load(args.network, map_location=capstone.device, weights_only=True))
        print(f"playing {args.network} (no training)", flush=True)
    else:
        capstone.run(
            on_iteration=lambda r: print(
                f"iteration {r['iteration']}: {r['games']} games, {r['samples']} samples, policy loss "
                f"{r['policy_loss']:.3f}, value loss {r['value_loss']:.3f}, {r['minutes']:.1f} min",
                flush=True,
            )
        )
    train_seconds = time.perf_counter() - start
    print(yours.counter.report())
    training_calls = dict(yours.counter.per_piece)

    evaluate = yours["evaluate_both_seats"]
    agent = capstone.agent(args.searches)
    start = time.perf_counter()
    against_negamax = evaluate(agent, "negamax", args.games)
    print(line(f"your agent ({args.searches} searches) vs negamax", against_negamax), flush=True)
    against_random = evaluate(agent, "random", args.random_games)
    print(line("your agent vs random", against_random), flush=True)
    play_seconds = time.perf_counter() - start

    args.out.mkdir(parents=True, exist_ok=True)
    # for Pons' sets and later matches; CPU tensors, which any machine opens (a GPU run's own would need map_location)
    torch.save(capstone.library_network().state_dict(), args.out / "network.pt")
    path = capstone.export(args.out / "submission.py", searches=args.searches)  # the search of the agent above
    submission = load_submission(str(path))
    sub_negamax = evaluate(submission, "negamax", args.random_games)
    print(line("the submission file vs negamax", sub_negamax), flush=True)
    sub_random = evaluate(submission, "random", args.random_games)
    print(line("the submission file vs random", sub_random), flush=True)

    record = {
        "command": "python benchmarks/capstone.py " + " ".join(argv),
        "settings": settings.__dict__,
        "yours": yours.mine,
        "library": yours.library,
        "serial_game_seconds": serial,
        "train_seconds": train_seconds,
        "history": capstone.history,
        "training_calls": training_calls,
        "training_calls_by_whom": {p: yours.counter.whose[p] for p in training_calls},
        "against_negamax": against_negamax,
        "against_random": against_random,
        "play_seconds": play_seconds,
        "submission_against_negamax": sub_negamax,
        "submission_against_random": sub_random,
        "cpu": os.cpu_count(),
        "device": device_name(capstone.device),
    }
    (args.out / "capstone.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    print(f"wrote {args.out / 'capstone.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
