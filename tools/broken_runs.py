"""Five Tic-Tac-Toe training runs from zero, four of them with a bug planted on purpose: the data of notebook 5's
curve-reading exercise (``alphazero_lib/data/broken_runs.json``).

    OMP_NUM_THREADS=1 python tools/broken_runs.py                      # the five runs -> alphazero_lib/data/
    OMP_NUM_THREADS=1 python tools/broken_runs.py --runs correct no_root_noise --out /tmp/two.json

Every run is the library's trainer (``training.AlphaZero`` through ``build_trainer``) with the same seed and the
same settings, ``BASE`` (the ``tictactoe`` preset with a smaller network and batched self-play, so that a run takes
minutes on a CPU), except for one thing:

- ``correct``: nothing planted;
- ``no_sign_flip``: every position of a game gets the outcome of the player who made the last move (the
  opponent's positions are not flipped) - planted here by patching ``selfplay.outcome_for`` during the run;
- ``temperature_unused``: the video's bug: the tempered distribution is computed and then not used, the move is
  drawn from the visit shares as they are (so the preset's ``T = 1.25`` plays like ``T = 1``) - planted here by
  patching ``selfplay.select_action`` during the run;
- ``no_root_noise``: ``dirichlet_epsilon = 0`` (a config setting);
- ``replay_window_1``: training on the last iteration's games only (``replay_window = 1``, a config setting), where
  the others keep the last ``BASE["replay_window"]`` iterations.

The two patched bugs exist only in this file, never as a switch of the library. After every iteration the run
records, besides the trainer's own history (losses, self-play results), three measures of the network itself on
every Tic-Tac-Toe position (``measure``): the share of perfect moves, the value head's error against the exact
game values, and how many different positions its self-play reached. Each finished run is written to the output
at once; run again, the runs already there with the same settings are kept (``--fresh`` plays them all again).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import json
import os
import platform
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from tqdm.auto import tqdm  # noqa: E402

from alphazero_lib import selfplay  # noqa: E402
from alphazero_lib.bench import cpu_model  # noqa: E402
from alphazero_lib.config import TrainConfig  # noqa: E402
from alphazero_lib.games import TicTacToe  # noqa: E402
from alphazero_lib.players import PerfectPlayer  # noqa: E402
from alphazero_lib.selection import apply_temperature  # noqa: E402
from alphazero_lib.training import AlphaZero, build_trainer  # noqa: E402

OUT = ROOT / "alphazero_lib" / "data" / "broken_runs.json"
FORMAT = 1

#: The settings every run shares: the ``tictactoe`` preset (60 searches, root noise 0.25, T = 1.25, 8 symmetries,
#: 150 games an iteration, a replay window of 2) with a 2 x 32 network, batches of 128 and batched self-play.
BASE: dict[str, Any] = dict(
    num_res_blocks=2,
    num_hidden=32,
    batch_size=128,
    num_iterations=12,
    self_play="batched",
    num_parallel_games=150,
    inference_mode="fp32",
    device="cpu",
    num_threads=1,
    seed=0,
)

#: run name -> (what is wrong, in a learner's words; how it was planted; config changes from ``BASE``)
RUNS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "correct": ("nothing: the reference run", "nothing planted", {}),
    "no_sign_flip": (
        "no value sign flip: every position gets the last mover's outcome",
        "patched in tools/broken_runs.py only: selfplay.outcome_for returns the value for the last mover to every "
        "position (the library has no such switch)",
        {},
    ),
    "temperature_unused": (
        "the video's temperature bug: the tempered distribution is computed, the move drawn from the untempered one",
        "patched in tools/broken_runs.py only: selfplay.select_action computes apply_temperature(probs, T) and "
        "draws from probs (the library has no such switch); the config keeps the preset's temperature",
        {},
    ),
    "no_root_noise": ("no Dirichlet noise at the root of the self-play search", "config: dirichlet_epsilon=0", {}),
    "replay_window_1": (
        "a replay window of 1: each iteration trains on its own games only",
        "config: replay_window=1",
        {"replay_window": 1},
    ),
}
RUNS["no_root_noise"][2]["dirichlet_epsilon"] = 0.0


# ---- the planted bugs ----------------------------------------------------------------------------------------------
def unflipped_outcome(player: int, value: float, last_player: int) -> float:
    """The sign-flip bug: the last mover's result for every position, whoever moved there."""
    return value


def untempered_select_action(probs: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """The video's temperature bug: the tempered distribution is computed, then the move is drawn from ``probs``."""
    apply_temperature(probs, temperature)  # computed, never used (as in the video before its closing fixes)
    probs = np.asarray(probs, dtype=np.float64)
    return int(rng.choice(len(probs), p=probs / probs.sum()))


PATCHES = {
    "no_sign_flip": ("outcome_for", unflipped_outcome),
    "temperature_unused": ("select_action", untempered_select_action),
}


@contextlib.contextmanager
def planted(run: str) -> Iterator[None]:
    """Inside the block, ``alphazero_lib.selfplay`` plays with ``run``'s bug (nothing for the config-only runs)."""
    if run not in PATCHES:
        yield
        return
    name, bug = PATCHES[run]
    original = getattr(selfplay, name)
    setattr(selfplay, name, bug)
    try:
        yield
    finally:
        setattr(selfplay, name, original)


def run_config(run: str, base: dict[str, Any] | None = None) -> TrainConfig:
    """The ``TrainConfig`` of ``run``: the ``tictactoe`` preset, ``base`` (default ``BASE``), the run's changes."""
    return TrainConfig.from_preset("tictactoe", **{**(BASE if base is None else base), **RUNS[run][2]})


# ---- measures of the network on every position ------------------------------------------------------------------
@dataclasses.dataclass
class Positions:
    """Every non-terminal Tic-Tac-Toe position reachable from the empty board, seen by its mover (mover = 1)."""

    states: np.ndarray  # [N, 3, 3] canonical
    encoded: np.ndarray  # [N, 3, 3, 3] float32
    legal: np.ndarray  # [N, 9] bool
    perfect: np.ndarray  # [N, 9] bool: the moves that keep the game-theoretic value
    values: np.ndarray  # [N] the exact value for the mover: 1 win, 0 draw, -1 loss
    matters: np.ndarray  # [N] bool: some legal move is worse than the best (the choice matters)


def all_positions(game: TicTacToe | None = None) -> Positions:
    """``Positions`` of Tic-Tac-Toe, their exact values and perfect moves from ``PerfectPlayer``."""
    game = game or TicTacToe()
    perfect = PerfectPlayer(game)
    seen: dict[bytes, np.ndarray] = {}
    frontier = [game.get_initial_state()]
    while frontier:
        state = frontier.pop()
        key = state.astype(np.int8).tobytes()
        if key in seen:
            continue
        seen[key] = state
        for action in game.legal_actions(state):
            child = game.get_next_state(state, action, 1)
            _, over = game.get_value_and_terminated(child, action)
            if not over:
                frontier.append(game.change_perspective(child, -1))
    states = np.stack([seen[k] for k in sorted(seen)])
    legal = np.zeros((len(states), game.action_size), dtype=bool)
    best = np.zeros_like(legal)
    values = np.zeros(len(states))
    for i, state in enumerate(states):
        action_values = perfect.action_values(state, 1)
        top = max(action_values.values())
        values[i] = top
        for action, value in action_values.items():
            legal[i, action] = True
            best[i, action] = value == top
    encoded = game.get_encoded_state(states).astype(np.float32)
    return Positions(states, encoded, legal, best, values, best.sum(1) < legal.sum(1))


def canonical_key(board: np.ndarray) -> bytes:
    """One key for a 3x3 board and its 7 rotations and reflections."""
    variants = [np.rot90(b, k) for b in (board, board.T) for k in range(4)]
    return min(v.astype(np.int8).tobytes() for v in variants)


def distinct_positions(samples: list) -> int:
    """Different positions among self-play samples (encoded states), symmetric copies counted once."""
    keys = set()
    for encoded, _, _ in samples:
        board = np.asarray(encoded[2] - encoded[0]).round().astype(np.int8)  # planes: opponent, empty, own
        keys.add(canonical_key(board))
    return len(keys)


def measure(model: torch.nn.Module, positions: Positions) -> dict[str, float]:
    """The network alone (no search) on every position: ``perfect_moves``, the share of the positions where the
    choice matters in which its most likely legal move is a perfect one; ``value_error``, the mean squared error
    of its value head against the exact values (1, 0, -1)."""
    model.eval()
    with torch.no_grad():
        logits, value = model(torch.as_tensor(positions.encoded))
    logits = logits.numpy().astype(np.float64)
    logits[~positions.legal] = -np.inf
    top = logits.argmax(1)
    good = positions.perfect[np.arange(len(top)), top]
    error = (value.numpy()[:, 0].astype(np.float64) - positions.values) ** 2
    return {"perfect_moves": float(good[positions.matters].mean()), "value_error": float(error.mean())}


class MeasuredTrainer(AlphaZero):
    """The library's trainer, measuring the network after every iteration (``measure``, ``distinct_positions``)."""

    def self_play_iteration(self) -> list:
        samples = super().self_play_iteration()
        self._distinct = distinct_positions(samples)
        return samples

    positions: Positions
    bar: Any = None  # a progress bar, one step per iteration
    label: str = ""  # the run's name in the progress bar

    def iteration_record(self) -> dict[str, Any]:
        measures = measure(self.model, self.positions)
        if self.bar is not None:
            self.bar.update()
            self.bar.set_postfix_str(
                f"{self.label} {self.iteration + 1}: perfect moves {measures['perfect_moves']:.2f}"
            )
        return {**super().iteration_record(), **measures, "distinct_positions": self._distinct}


# ---- running ------------------------------------------------------------------------------------------------------
SERIES = (
    "policy_loss",
    "value_loss",
    "draw_rate",
    "first_player_win_rate",
    "perfect_moves",
    "value_error",
    "distinct_positions",
)


def train_run(run: str, base: dict[str, Any] | None = None, bar: Any = None) -> dict[str, Any]:
    """Train ``run`` from zero; its record: what was planted, its config, the series per iteration, wall time."""
    config = run_config(run, base)
    positions = all_positions()
    start, cpu = time.perf_counter(), time.process_time()
    trainer = build_trainer(TicTacToe(), config, progress=False, trainer_class=MeasuredTrainer)
    trainer.positions = positions
    trainer.bar, trainer.label = bar, run
    with planted(run), contextlib.redirect_stdout(sys.stderr):  # the trainer's line per iteration goes to stderr
        history = trainer.learn()
    series: dict[str, list] = {"iteration": [], **{name: [] for name in SERIES}}
    for record in history:
        games = record["games"]
        row = {
            "iteration": record["iteration"],
            "policy_loss": record["policy_loss"],
            "value_loss": record["value_loss"],
            "draw_rate": record["draws"] / games,
            "first_player_win_rate": record["first_player_wins"] / games,
            "perfect_moves": record["perfect_moves"],
            "value_error": record["value_error"],
            "distinct_positions": record["distinct_positions"],
        }
        for key, value in row.items():
            series[key].append(round(value, 4) if isinstance(value, float) else value)
    cause, how, changes = RUNS[run]
    return {
        "cause": cause,
        "planted": how,
        "changes": changes,
        "config": config.to_dict(),
        "wall_seconds": round(time.perf_counter() - start, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "series": series,
    }


def machine() -> str:
    """The CPU model, cores and the versions that make the numbers."""
    model = cpu_model()
    return (
        f"{model}, {os.cpu_count()} cores; Python {platform.python_version()}, torch {torch.__version__}, "
        f"numpy {np.__version__}; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", nargs="+", choices=list(RUNS), default=list(RUNS), help="which runs (default all)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"the JSON file (default {OUT.relative_to(ROOT)})")
    parser.add_argument("--iterations", type=int, default=BASE["num_iterations"], help="learn iterations per run")
    parser.add_argument("--games", type=int, help="self-play games per iteration (default the preset's 150)")
    parser.add_argument("--fresh", action="store_true", help="play every run again, even those already in --out")
    args = parser.parse_args(argv)
    base = {**BASE, "num_iterations": args.iterations}
    if args.games:
        base.update(games_per_iteration=args.games, num_parallel_games=args.games)
    data: dict[str, Any] = {"format": FORMAT, "metadata": {}, "runs": {}}
    if args.out.is_file() and not args.fresh:
        old = json.loads(args.out.read_text())
        if old.get("format") == FORMAT:
            data["runs"] = {
                name: record
                for name, record in old["runs"].items()
                if name in args.runs and record["config"] == run_config(name, base).to_dict()
            }
    todo = [run for run in args.runs if run not in data["runs"]]
    if len(todo) < len(args.runs):
        print(f"kept from {args.out}: {', '.join(r for r in args.runs if r not in todo)}", file=sys.stderr)
    command = "OMP_NUM_THREADS=1 python tools/broken_runs.py " + " ".join(argv)
    with tqdm(total=len(todo) * base["num_iterations"], desc="iterations", unit="it") as bar:
        for run in todo:
            data["runs"][run] = train_run(run, base, bar)
            data["runs"] = {name: data["runs"][name] for name in RUNS if name in data["runs"]}
            data["metadata"] = {
                "command": command.strip(),
                "seed": base["seed"],
                "preset": "tictactoe",
                "base": base,
                "machine": machine(),
                "date": datetime.date.today().isoformat(),
                "wall_seconds": round(sum(r["wall_seconds"] for r in data["runs"].values()), 1),
                "series": {
                    "policy_loss": "cross-entropy against the search's policy, last epoch of the iteration",
                    "value_loss": "squared error against the value targets, last epoch of the iteration",
                    "draw_rate": "share of the iteration's self-play games that were drawn",
                    "first_player_win_rate": "share of the iteration's self-play games won by X",
                    "perfect_moves": "after training, the network alone (its most likely legal move, no search) on "
                    "every reachable position where some move is worse than the best: the share of perfect moves",
                    "value_error": "after training, the mean squared error of the value head against the exact "
                    "value (1, 0, -1 for the mover) over every reachable non-terminal position",
                    "distinct_positions": "different positions (symmetric copies once) in the iteration's self-play",
                },
                "planted_outside_the_library": sorted(PATCHES),
            }
            args.out.parent.mkdir(parents=True, exist_ok=True)
            tmp = args.out.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=1) + "\n")
            tmp.replace(args.out)
    for name, record in data["runs"].items():
        s = record["series"]
        print(
            f"{name:>18}: policy loss {s['policy_loss'][-1]:.3f}, value loss {s['value_loss'][-1]:.3f}, draws "
            f"{s['draw_rate'][-1]:.2f}, perfect moves {s['perfect_moves'][-1]:.3f}, value error "
            f"{s['value_error'][-1]:.3f}, positions {s['distinct_positions'][-1]} ({record['wall_seconds']:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
