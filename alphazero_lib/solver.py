"""Perfect Connect Four: the exact result of every move, from the optional ``solver`` extra (``bitbully``).

The solver is the yardstick of strength, never a teacher: training stays self-play alone. It labels Pons' test
positions (``strength``), plays the ``perfect`` player (``players.PerfectPlayer``) and judges the moves a player
really plays in its games (``strength.judge_games``).

``bitbully`` (PyPI; a bitboard negamax with a transposition table and a 12-ply opening book from
``bitbully-databases``) scores a Beginning-Hard position in about 1 ms (its book), a Middle-Medium one in about
50 ms, and any position 13-18 moves deep in at most 0.3 s on one core of a 2-core AMD EPYC. **Its licence is
AGPL-3.0** (its opening books are MIT): it is an optional extra that this module imports, never vendored and never
in the wheel. Install it with ``pip install -e ".[solver]"`` in a checkout (or ``pip install bitbully==0.0.79
bitbully-databases==0.0.2``); without it every function here raises ``SolverMissing``, which says so.

    from alphazero_lib.solver import move_labels
    move_labels(state, player)   # 'LLWDLLX': W, D or L for the side to move if it plays there, X a full column
"""

from __future__ import annotations

import sys
from functools import cache
from typing import Any

import numpy as np

from alphazero_lib.games.connect_four import ConnectFour

#: The one game the solver plays: 6x7, four in a row.
GAME = ConnectFour()

#: The versions the tests ran with (pyproject's ``solver`` extra pins the same).
REQUIREMENTS = ("bitbully==0.0.79", "bitbully-databases==0.0.2")

#: How to install the extra, for error messages and the notebooks (in Colab: ``%pip install ...``).
INSTALL_HINT = f'pip install -e ".[solver]" in a checkout of the course, or pip install {" ".join(REQUIREMENTS)}'


class SolverMissing(ImportError, ValueError):
    """The solver extra is not installed (a ``ValueError`` too, so the command line prints it as a one-line error)."""


def available() -> bool:
    """Whether the solver extra is installed (the tests that need it are skipped otherwise)."""
    try:
        require()
    except SolverMissing:
        return False
    return True


def require() -> None:
    """Raise ``SolverMissing``, saying how to install the extra, unless it is installed."""
    _engine()


@cache
def _engine() -> Any:
    """One ``bitbully.BitBully`` a process, with its default opening book (loaded once, about 0.2 s)."""
    try:
        from bitbully import BitBully
    except ImportError:
        raise SolverMissing(
            f"perfect Connect Four play needs the solver extra, which this Python ({sys.executable}) does not "
            f"have: {INSTALL_HINT}. bitbully is AGPL-3.0, so the course never ships it"
        ) from None
    return BitBully()


def _board(state: np.ndarray, player: int) -> Any:
    """``state`` (absolute 6x7, row 0 the top, 1 and -1 the players) as a ``bitbully.Board``, ``player`` to move."""
    from bitbully import Board

    state = np.asarray(state)
    if state.shape != (GAME.row_count, GAME.column_count):
        raise ValueError(f"the solver plays 6x7 Connect Four; got a state of shape {state.shape}")
    if player not in (1, -1):
        raise ValueError(f"player must be 1 or -1, got {player!r}")
    if not np.isin(state, (-1, 0, 1)).all():
        raise ValueError("a Connect Four state holds 0 (empty), 1 and -1 only")
    mine, theirs = int((state == player).sum()), int((state == -player).sum())
    if mine not in (theirs, theirs - 1):
        raise ValueError(
            f"player {player} cannot be to move with {mine} pieces against {theirs}: the side to move has as many "
            "pieces as the other side, or one fewer"
        )
    first = player if mine == theirs else -player  # bitbully's player 1 (the first to move) is 1, the second 2
    codes = np.where(state == first, 1, np.where(state == -first, 2, 0))
    if GAME.is_over(state):
        raise ValueError("the game is over: no move to score")
    return Board(codes.tolist())


def move_scores(state: np.ndarray, player: int) -> dict[int, int]:
    """Each legal column's exact score for ``player``, who is to move in the absolute ``state``: positive when the
    move wins (the larger, the sooner), 0 a draw, negative a loss (the more negative, the sooner). Pons' scoring.

    Raises ``SolverMissing`` without the extra and ``ValueError`` for a state that is not a position with
    ``player`` to move (pieces that do not add up, a finished game).
    """
    engine = _engine()
    return {int(column): int(score) for column, score in engine.score_all_moves(_board(state, player)).items()}


def move_labels(state: np.ndarray, player: int) -> str:
    """The seven labels of a position, in the format of Pons' set files: per column ``W``, ``D`` or ``L``, the
    result for ``player`` (to move) if it plays there, or ``X`` for a full column."""
    return labels_of(move_scores(state, player))


def labels_of(scores: dict[int, int]) -> str:
    """``move_scores``' scores as the seven labels of ``move_labels`` (a column without a score is full: ``X``)."""
    return "".join(
        "X" if column not in scores else "W" if scores[column] > 0 else "D" if scores[column] == 0 else "L"
        for column in range(GAME.column_count)
    )
