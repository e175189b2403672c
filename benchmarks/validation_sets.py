"""Validation sets drawn like Pons' six test sets, labelled by the perfect solver: tune on these, report on Pons'.

    python benchmarks/validation_sets.py --out DIR [--sets middle_medium beginning_hard] [--positions 500] [--seed 0]

A setting chosen by its error on Pons' sets (a search constant, a checkpoint) is fitted to the very positions it is
then reported on. These sets are drawn the same way and are disjoint from all six of Pons' files: tune on them.

Pons' sets are classed by the moves played, L (1: at most 14, 2: 15-28, 3: more) and the moves that remain with
perfect play, R (1: at most 14, 2: 15-28, 3: more): Beginning-Hard is L1 R3, Middle-Medium L2 R2. Here a position
is a game of uniformly random moves cut after a length drawn from the Pons set's own lengths (so the lengths match),
solved with ``solver.move_scores``, and kept when its class is the set's, it is not in any Pons file and not drawn
before. Before drawing, the class rule is checked on every position of the six files (``pons_class``). Each set is
written as ``DIR/validation_<set>.txt`` in the format of Pons' files (``strength.load_set`` reads it; give the path
wherever a set name goes), through a temporary file. One core; needs the ``solver`` extra.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from alphazero_lib import solver
from alphazero_lib.games.connect_four import ConnectFour
from alphazero_lib.strength import SETS, load_set

#: Each set's class (L, R), from Pons' file names (Test_L2_R2 is Middle-Medium).
CLASSES = {
    "beginning_easy": (1, 1),
    "beginning_medium": (1, 2),
    "beginning_hard": (1, 3),
    "middle_easy": (2, 1),
    "middle_medium": (2, 2),
    "end_easy": (3, 1),
}


def remaining_moves(played: int, score: int) -> int:
    """The moves left with perfect play in a position after ``played`` moves whose exact score is ``score`` (Pons':
    the side to move wins when positive, by ``22 - score`` stones of its own in all; 0 a draw that fills the board)."""
    if score == 0:
        return 42 - played
    stones = 22 - abs(score)  # the winner's stones when the game ends
    mover_first = played % 2 == 0
    winner_first = mover_first if score > 0 else not mover_first
    return (2 * stones - 1 if winner_first else 2 * stones) - played


def band(count: int) -> int:
    """Pons' band of a count of moves: 1 for at most 14, 2 for 15-28, 3 for more."""
    return 1 if count <= 14 else 2 if count <= 28 else 3


def pons_class(played: int, score: int) -> tuple[int, int]:
    """(L, R) of a position: the band of the moves played and of the moves that remain."""
    return band(played), band(remaining_moves(played, score))


def check_rule() -> set[str]:
    """Check ``pons_class`` on every position of the six files; returns their move sequences (to keep out)."""
    seen: set[str] = set()
    for name in SETS:
        positions = load_set(name)
        for moves, score in zip(positions.moves, positions.scores, strict=True):
            if pons_class(len(moves), int(score)) != CLASSES[name]:
                raise AssertionError(f"{name} {moves} {score}: the class rule says {pons_class(len(moves), score)}")
            seen.add(str(moves))
    return seen


def draw_set(name: str, count: int, seed: int, taken: set[str]) -> tuple[list[str], int]:
    """``count`` lines of a validation set like ``name``, and how many positions were solved to find them."""
    game, rng = ConnectFour(), np.random.default_rng(seed)
    lengths = [len(moves) for moves in load_set(name).moves]
    lines, solved = [], 0
    while len(lines) < count:
        length = int(rng.choice(lengths))
        state, player, moves = game.get_initial_state(), 1, ""
        for _ in range(length):
            action = int(rng.choice(game.legal_actions(state, player)))
            state = game.get_next_state(state, action, player)
            moves += str(action + 1)
            if game.is_over(state):
                break
            player = -player
        if game.is_over(state) or moves in taken:
            continue
        taken.add(moves)
        scores = solver.move_scores(state, player)
        solved += 1
        best = max(scores.values())
        if pons_class(length, best) == CLASSES[name]:
            lines.append(f"{moves} {best} {solver.labels_of(scores)}")
    return lines, solved


def write(path: Path, name: str, lines: list[str], seed: int) -> None:
    header = (
        f"# Validation set like Pons' {name} (class L{CLASSES[name][0]} R{CLASSES[name][1]}), {len(lines)} positions,\n"
        f"# drawn by benchmarks/validation_sets.py --seed {seed}, labelled by the solver; none is in Pons' files.\n"
        "# columns: moves played (1-based columns, first player first); the exact score of the position\n"
        "#          (side to move; positive = win); per column 1..7 the result for the side to move: W, D, L, X full\n"
    )
    temporary = path.with_suffix(".tmp")
    temporary.write_text(header + "\n".join(lines) + "\n")
    temporary.replace(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the validation_<set>.txt files")
    parser.add_argument("--sets", nargs="+", default=["middle_medium", "beginning_hard"], choices=list(SETS))
    parser.add_argument("--positions", type=int, default=500, help="positions a set (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random games (default 0)")
    args = parser.parse_args()
    if args.positions < 1:
        parser.error(f"--positions must be at least 1, got {args.positions}")
    solver.require()
    args.out.mkdir(parents=True, exist_ok=True)
    taken = check_rule()
    load = os.getloadavg()[0]
    print(f"the class rule holds on all {len(taken)} positions of Pons' six files; load average {load:.2f}")
    for offset, name in enumerate(args.sets):
        start = time.perf_counter()
        lines, solved = draw_set(name, args.positions, args.seed + offset, taken)
        path = args.out / f"validation_{name}.txt"
        write(path, name, lines, args.seed)
        checked = load_set(path)  # the file reads back, every label and score checked by the loader
        print(f"{path}: {len(checked)} positions ({solved} solved) in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
