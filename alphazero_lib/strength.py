"""Strength on Pascal Pons' Connect Four benchmark: how often a player's move throws away a result.

Pons' test positions (``alphazero_lib/data/pons/``, see its README) come with the game-theoretic result of every
legal move for the side to move. A player is shown each position once and chooses a move; the move is an
**error** when another legal move has a better result (win > draw > loss). The error rate over a set, with its
95% Wilson interval, is AlphaZero.jl's measure, so its published figures (``ANCHORS``) sit beside ours. All six
of Pons' sets are here (``SETS``); with the optional solver extra (``alphazero_lib.solver``), ``judge_games`` also
judges every move a player chose in real games. For example::

    from alphazero_lib.games import ConnectFour
    from alphazero_lib.specs import make_player
    from alphazero_lib.strength import evaluate_player

    player = make_player(ConnectFour(), "alphazero:connect_four:200", seed=0)
    for result in evaluate_player(player, ["middle_medium"], limit=100):
        print(result)

How the moves are chosen: for the AlphaZero search player and the network's policy player the work is batched
(one ``BatchedMCTS`` search of many positions with the player's own model and ``SearchConfig``; one network call
for the policy player), then the player's own ``get_action`` runs on each position, in order, with that position's
result handed in (``batched_chooser``): its temperature, tie-breaks, random draws and search policy's move rule
are its own. Any other player is asked position by position.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from alphazero_lib.arena import MatchResult, wilson_interval
from alphazero_lib.choosers import batched_chooser
from alphazero_lib.games.base import STATE_DTYPE
from alphazero_lib.games.connect_four import ConnectFour
from alphazero_lib.players import HumanPlayer, Player

#: Where the sets live (package data: a pip install carries them).
DATA_DIR = Path(__file__).resolve().parent / "data" / "pons"

#: The labelled sets, Pons' six, in the order of the game (beginning, middle, end), easiest first within each:
#: ``load_set(name)`` reads ``DATA_DIR / f"pons_{name}.txt"``.
SETS = ("beginning_easy", "beginning_medium", "beginning_hard", "middle_easy", "middle_medium", "end_easy")

#: The error rule in words (printed with the figures).
ERROR_RULE = "a move is an error when another legal move has a better result (win > draw > loss)"

#: A move's result for the side to move, by label; a full column (``X``) is below any result.
RESULT_OF_LABEL = {"W": 1, "D": 0, "L": -1, "X": -2}
FULL_COLUMN = RESULT_OF_LABEL["X"]

#: Positions searched at once by the batched path (about 50 kB of tree a position at 200 searches; 250 ran no faster).
DEFAULT_BATCH_SIZE = 100


# ---- the published anchors ----------------------------------------------------------------------
@dataclass(frozen=True)
class Anchor:
    """A published error rate on one set: a range ``low..high`` (fractions); ``approximate`` when read off a plot."""

    low: float
    high: float
    approximate: bool = False

    def __str__(self) -> str:
        text = f"{100 * self.low:g}%" if self.low == self.high else f"{100 * self.low:g}-{100 * self.high:g}%"
        return f"~{text}" if self.approximate else text

    def to_dict(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, "approximate": self.approximate, "text": str(self)}


#: Who published each anchor (column name -> description).
ANCHOR_SOURCES = {
    "AlphaZero.jl": "AlphaZero.jl's Connect Four tutorial after 15 iterations (5x128 ResNet, 600 searches a move, "
    "about 15-30 hours on a desktop GPU), read off its plot",
    "minimax-5": "a depth-5 minimax, published beside AlphaZero.jl's figures",
}

#: Published error rates per set (``None``: not published).
ANCHORS: dict[str, dict[str, Anchor | None]] = {
    "beginning_easy": {"AlphaZero.jl": Anchor(0.0, 0.002, approximate=True), "minimax-5": Anchor(0.017, 0.017)},
    "beginning_medium": {"AlphaZero.jl": Anchor(0.015, 0.02, approximate=True), "minimax-5": Anchor(0.073, 0.073)},
    "beginning_hard": {"AlphaZero.jl": Anchor(0.06, 0.07, approximate=True), "minimax-5": Anchor(0.23, 0.23)},
    "middle_easy": {"AlphaZero.jl": Anchor(0.0, 0.001, approximate=True), "minimax-5": Anchor(0.007, 0.007)},
    "middle_medium": {"AlphaZero.jl": Anchor(0.02, 0.03, approximate=True), "minimax-5": Anchor(0.092, 0.092)},
    "end_easy": {"AlphaZero.jl": Anchor(0.0, 0.0, approximate=True), "minimax-5": Anchor(0.014, 0.014)},
}


# ---- the positions ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class PositionSet:
    """``P`` labelled Connect Four positions (6 rows x 7 columns, row 0 the top, the library's convention).

    ==========  =========  ======  ===================================================================
    field       shape      dtype   meaning
    ==========  =========  ======  ===================================================================
    moves       [P]        str     the moves played, 1-based columns, the first player first (``"4453"``)
    states      [P, 6, 7]  int8    absolute states: 1 the first player's pieces, -1 the second's
    to_move     [P]        int8    the side to move, 1 (even number of moves played) or -1
    scores      [P]        int64   Pons' exact score for the side to move (> 0 it wins, 0 draw)
    labels      [P, 7]     <U1     per column: ``W``, ``D``, ``L`` (its result for the side to move), ``X`` full
    ==========  =========  ======  ===================================================================
    """

    name: str
    moves: np.ndarray
    states: np.ndarray
    to_move: np.ndarray
    scores: np.ndarray
    labels: np.ndarray

    def __len__(self) -> int:
        return len(self.moves)

    @property
    def results(self) -> np.ndarray:
        """Each move's result for the side to move, ``[P, 7]`` int8: 1 win, 0 draw, -1 loss, -2 full column."""
        return label_results(self.labels)

    def head(self, limit: int | None) -> PositionSet:
        """The first ``limit`` positions (all when None)."""
        if limit is None:
            return self
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
            raise ValueError(f"limit must be a positive integer or None, got {limit!r}")
        return PositionSet(
            self.name, *(a[:limit] for a in (self.moves, self.states, self.to_move, self.scores, self.labels))
        )


def label_results(labels: np.ndarray) -> np.ndarray:
    """``labels [..., 7]`` (``W``/``D``/``L``/``X``) as results ``[..., 7]`` int8 (``RESULT_OF_LABEL``)."""
    labels = np.asarray(labels)
    results = np.full(labels.shape, 99, dtype=np.int8)
    for label, value in RESULT_OF_LABEL.items():
        results[labels == label] = value
    if (results == 99).any():
        raise ValueError(f"labels must be one of {sorted(RESULT_OF_LABEL)}, got {sorted(set(labels[results == 99]))}")
    return results


def move_errors(labels: np.ndarray, actions: Sequence[int] | np.ndarray) -> np.ndarray:
    """Which chosen moves are errors, ``[P]`` bool: another legal move of the position has a better result.

    ``labels [P, 7]`` as in ``PositionSet.labels``; ``actions [P]`` 0-based columns. Raises ``ValueError`` for an
    action off the board or into a full column (a player must never choose one).
    """
    results = label_results(labels)
    actions = np.asarray(actions, dtype=np.int64).reshape(-1)
    if results.ndim != 2 or len(actions) != len(results):
        raise ValueError(f"need labels [P, A] and actions [P]; got {results.shape} and {actions.shape}")
    off = np.flatnonzero((actions < 0) | (actions >= results.shape[1]))
    if off.size:
        raise ValueError(f"position {off[0]}: action {actions[off[0]]} is off the board (columns 0..6)")
    chosen = results[np.arange(len(actions)), actions]
    full = np.flatnonzero(chosen == FULL_COLUMN)
    if full.size:
        legal = np.flatnonzero(results[full[0]] != FULL_COLUMN).tolist()
        raise ValueError(f"position {full[0]}: column {actions[full[0]]} is full; legal columns: {legal}")
    return chosen < results.max(axis=1)


#: The groups of ``errors_by_best_result``, by the best result the side to move can reach.
BEST_RESULTS = {"win": 1, "draw": 0, "loss": -1}


def errors_by_best_result(labels: np.ndarray, errors: np.ndarray) -> dict[str, dict[str, int]]:
    """Positions and errors grouped by the best result the side to move can reach:
    ``{"win": {"positions": n, "errors": e}, "draw": {...}, "loss": {...}}``.

    Where the best a position offers is a loss, every move loses and none can be an error: those positions pad
    a set's error rate (383 of Middle-Medium's 1,000). Where it is a draw, the one saving move must be found among
    losing ones; where it is a win, any winning move will do. ``labels [P, 7]`` as in ``PositionSet.labels``,
    ``errors [P]`` bool as ``move_errors`` gives them.
    """
    best = label_results(labels).max(axis=1)
    errors = np.asarray(errors, dtype=bool).reshape(-1)
    if len(errors) != len(best):
        raise ValueError(f"need one error flag per position: {len(best)} positions, {len(errors)} flags")
    return {
        name: {"positions": int((best == value).sum()), "errors": int(errors[best == value].sum())}
        for name, value in BEST_RESULTS.items()
    }


def set_path(name: str) -> Path:
    """The file of a set named in ``SETS``; raises ``ValueError`` naming the sets for any other name."""
    if name not in SETS:
        raise ValueError(f"unknown Pons set {name!r}; sets: {', '.join(SETS)}")
    return DATA_DIR / f"pons_{name}.txt"


def load_set(name: str | Path, limit: int | None = None) -> PositionSet:
    """One labelled set: a name in ``SETS`` (``beginning_easy`` ... ``end_easy``), or the path of a file in the
    same format; ``limit`` keeps the first positions only.

    Every line is replayed with ``ConnectFour``'s rules and checked: the moves are legal and the game is not over,
    ``X`` marks exactly the full columns, and the best label agrees with the sign of Pons' score. Raises
    ``ValueError`` naming the file and line for a bad line, and for an unknown set name.
    """
    if isinstance(name, Path) or (isinstance(name, str) and name not in SETS and Path(name).suffix == ".txt"):
        path = Path(name)
        if not path.is_file():
            raise FileNotFoundError(f"no Pons set file at {path}")
        return _parse(path.name, path.read_text()).head(limit)
    return _load_named(str(name)).head(limit)


@cache
def _load_named(name: str) -> PositionSet:
    return _parse(name, set_path(name).read_text())


def _parse(name: str, text: str) -> PositionSet:
    """The positions of a set file's ``text`` (see ``load_set``)."""
    game = ConnectFour()
    moves, states, to_move, scores, labels = [], [], [], [], []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{name} line {number}"
        parts = line.split()
        if len(parts) != 3:
            raise ValueError(f"{where}: expected 'MOVES SCORE LABELS', got {line!r}")
        sequence, score_text, label_text = parts
        if not sequence.isdigit() or not set(sequence) <= set("1234567"):
            raise ValueError(f"{where}: moves must be columns 1 to 7, got {sequence!r}")
        try:
            score = int(score_text)
        except ValueError:
            raise ValueError(f"{where}: the score must be an integer, got {score_text!r}") from None
        if len(label_text) != game.column_count or not set(label_text) <= set(RESULT_OF_LABEL):
            raise ValueError(f"{where}: labels must be 7 of W, D, L, X; got {label_text!r}")
        state, player = game.get_initial_state(), 1
        try:
            for column in sequence:
                state = game.get_next_state(state, int(column) - 1, player)  # refuses full columns and finished games
                player = game.get_opponent(player)
        except ValueError as err:
            raise ValueError(f"{where}: the moves {sequence} are not a game: {err}") from None
        if game.is_over(state):
            raise ValueError(f"{where}: the game is over after {sequence}; no move to judge")
        full = state[0] != 0
        if not np.array_equal(full, np.array([c == "X" for c in label_text])):
            raise ValueError(f"{where}: X must mark exactly the full columns {np.flatnonzero(full) + 1} (1-based)")
        best = max(RESULT_OF_LABEL[c] for c in label_text)
        if best != int(np.sign(score)):
            raise ValueError(f"{where}: the best label ({best:+d}) disagrees with the sign of Pons' score {score}")
        moves.append(sequence)
        states.append(state)
        to_move.append(player)
        scores.append(score)
        labels.append(list(label_text))
    if not moves:
        raise ValueError(f"{name}: no positions")
    arrays = (
        np.array(moves),
        np.stack(states).astype(STATE_DTYPE),
        np.array(to_move, dtype=STATE_DTYPE),
        np.array(scores, dtype=np.int64),
        np.array(labels, dtype="<U1"),
    )
    for array in arrays:
        array.setflags(write=False)  # a loaded set is shared (cached): nobody changes it by accident
    return PositionSet(name, *arrays)


# ---- choosing moves ------------------------------------------------------------------------------
def choose_actions(
    player: Player,
    states: np.ndarray,
    to_move: np.ndarray,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    batched: bool = True,
    on_progress: Callable[[int], Any] | None = None,
) -> np.ndarray:
    """The move ``player`` chooses in each position, ``[P]`` int64 (0-based columns).

    ``states [P, R, C]`` absolute, ``to_move [P]`` the side to move (1 or -1). With ``batched`` (default) a player
    that ``batched_chooser`` knows is asked ``batch_size`` positions at a time: its moves are those of
    ``player.get_action`` one position at a time (its own rule and random draws, in order), up to the last bits of
    a batched network call. Other players, and ``batched=False``, go through ``get_action`` alone (each position a
    new game: ``player.reset()`` first). ``on_progress(n)`` is called as ``n`` more are done.
    """
    states = np.asarray(states, dtype=STATE_DTYPE)
    to_move = np.asarray(to_move).reshape(-1)
    if states.ndim != 3 or len(states) != len(to_move):
        raise ValueError(f"need states [P, R, C] and to_move [P]; got {states.shape} and {to_move.shape}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    actions = np.empty(len(states), dtype=np.int64)
    choose = batched_chooser(player) if batched else None
    if choose is None:
        for i, (state, side) in enumerate(zip(states, to_move, strict=True)):
            player.reset()
            actions[i] = player.get_action(state, int(side))
            if on_progress is not None:
                on_progress(1)
        return actions
    for start in range(0, len(states), batch_size):
        chunk = slice(start, start + batch_size)
        actions[chunk] = choose(states[chunk], to_move[chunk])
        if on_progress is not None:
            on_progress(len(states[chunk]))
    return actions


# ---- the measurement -----------------------------------------------------------------------------
@dataclass
class SetResult:
    """A player's errors on one set: ``errors`` of ``positions``, with the 95% Wilson interval of the rate."""

    player: str
    set_name: str
    positions: int
    errors: int
    seconds: float = 0.0
    error_positions: list[int] = field(default_factory=list)
    """Indices (0-based, in file order) of the positions where the move was an error."""
    by_best_result: dict[str, dict[str, int]] = field(default_factory=dict)
    """``errors_by_best_result``: positions and errors by the best result on offer (empty when not measured)."""
    against: str | None = None
    """The opponent, when the positions are those of the player's own games (``judge_games``), else None."""

    @property
    def error_rate(self) -> float:
        return self.errors / self.positions if self.positions else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.error_rate, self.positions)

    @property
    def anchors(self) -> dict[str, Anchor | None]:
        return ANCHORS.get(self.set_name, {})

    def to_dict(self) -> dict[str, Any]:
        """Everything, for JSON (rates as fractions)."""
        low, high = self.interval
        return {
            "player": self.player,
            "set": self.set_name,
            "positions": self.positions,
            "errors": self.errors,
            "error_rate": self.error_rate,
            "interval": [low, high],
            "seconds": round(self.seconds, 3),
            "anchors": {k: None if a is None else a.to_dict() for k, a in self.anchors.items()},
            "error_positions": list(self.error_positions),
            "by_best_result": {k: dict(v) for k, v in self.by_best_result.items()},
            "against": self.against,
        }

    def __str__(self) -> str:
        low, high = self.interval
        return (
            f"{self.player} on {self.set_name}: {self.errors} errors in {self.positions} positions, "
            f"{100 * self.error_rate:.1f}% [95% CI {100 * low:.1f}%, {100 * high:.1f}%]"
        )


def check_player(player: Player) -> None:
    """Raise ``ValueError`` unless ``player`` plays 6x7 Connect Four (four in a row) without a person at the keys."""
    if not isinstance(player.game, ConnectFour) or player.game != ConnectFour():
        raise ValueError(f"Pons' positions are 6x7 Connect Four; {player.name} plays {player.game!r}")
    if isinstance(player, HumanPlayer):
        raise ValueError("the human player cannot be benchmarked; name a program (e.g. policy:connect_four)")


def evaluate_player(
    player: Player,
    sets: Iterable[str | PositionSet] = SETS,
    *,
    limit: int | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = True,
) -> list[SetResult]:
    """``player``'s errors on each of ``sets`` (names in ``SETS`` or loaded ``PositionSet``s), one ``SetResult``
    each, over the first ``limit`` positions of every set (all when None). Timing covers the moves only.

    Raises ``ValueError`` for a player of another game, a person, or an unknown set name.
    """
    check_player(player)
    loaded = [s if isinstance(s, PositionSet) else load_set(s) for s in sets]
    loaded = [s.head(limit) for s in loaded]
    results = []
    for positions in loaded:
        bar = tqdm(total=len(positions), desc=f"{player.name} {positions.name}", unit="pos", disable=not progress)
        with bar:
            start = time.perf_counter()
            actions = choose_actions(
                player, positions.states, positions.to_move, batch_size=batch_size, on_progress=bar.update
            )
            seconds = time.perf_counter() - start
        results.append(_set_result(player.name, positions, actions, seconds))
    return results


def _set_result(player_name: str, positions: PositionSet, actions: np.ndarray, seconds: float) -> SetResult:
    """The ``SetResult`` of ``actions [P]``, one move per position of ``positions``, played in ``seconds``."""
    errors = move_errors(positions.labels, actions)
    return SetResult(
        player_name,
        positions.name,
        len(positions),
        int(errors.sum()),
        seconds,
        np.flatnonzero(errors).tolist(),
        errors_by_best_result(positions.labels, errors),
    )


# ---- the measurement in several processes -------------------------------------------------------
def _measure_chunk(task: tuple[str, int, str | Path, int, int, int, int]) -> tuple[np.ndarray, float]:
    """One worker's share (runs in a fresh process): ``spec``'s moves on positions ``start:stop`` of a set."""
    spec, seed, set_name, start, stop, batch_size, threads = task
    import torch

    from alphazero_lib.specs import make_player

    torch.set_num_threads(threads)
    player = make_player(ConnectFour(), spec, seed=seed)  # a fresh player a chunk: its random draws start anew
    if hasattr(player, "num_threads"):
        player.num_threads = threads
    positions = load_set(set_name)
    begin = time.perf_counter()
    actions = choose_actions(player, positions.states[start:stop], positions.to_move[start:stop], batch_size=batch_size)
    return actions, time.perf_counter() - begin


def evaluate_specs(
    specs: Sequence[str],
    sets: Iterable[str | Path] = SETS,
    *,
    workers: int = 2,
    seed: int = 0,
    limit: int | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    threads: int = 1,
    progress: bool = True,
) -> list[SetResult]:
    """``evaluate_player`` for the players that ``specs`` name (``make_player``), measured in ``workers`` processes;
    one ``SetResult`` per player and set, players outer, as the ``strength`` command prints them.

    Each set is cut into chunks of ``batch_size`` positions, and each chunk is measured by a player built afresh
    from its spec with ``seed`` (on ``threads`` torch threads), in whichever process is free. So the figures depend
    on the specs, the seed and ``batch_size``, not on ``workers`` or on which process took which chunk; they equal
    ``evaluate_player``'s in one process except where a random tie-break decides a move (a tie in visit counts,
    rare with hundreds of simulations): there the player's random generator has drawn less. ``seconds`` adds up
    the chunks' move time. Raises ``ValueError`` for a bad spec, a player of another game or a person before any
    process starts, and re-raises what a worker raised.
    """
    import concurrent.futures
    import multiprocessing

    from alphazero_lib.specs import make_player

    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    sets = list(sets)
    loaded = {name: load_set(name, limit) for name in sets}  # an unknown set fails here
    names = []
    for spec in specs:
        player = make_player(ConnectFour(), spec, seed=seed)  # a bad spec fails here, not in a worker
        check_player(player)
        names.append(player.name)
    tasks = [
        (spec, seed, name, start, min(start + batch_size, len(positions)), batch_size, threads)
        for spec in specs
        for name, positions in loaded.items()
        for start in range(0, len(positions), batch_size)
    ]
    actions = {(spec, name): np.empty(len(loaded[name]), dtype=np.int64) for spec in specs for name in loaded}
    seconds = dict.fromkeys(actions, 0.0)
    total = sum(len(positions) for positions in loaded.values()) * len(specs)
    context = multiprocessing.get_context("spawn")  # fork would copy torch's thread pool state
    with (
        tqdm(total=total, desc=f"strength, {workers} processes", unit="pos", disable=not progress) as bar,
        concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool,
    ):
        futures = {pool.submit(_measure_chunk, task): task for task in tasks}
        try:
            for future in concurrent.futures.as_completed(futures):
                spec, _, name, start, stop, _, _ = futures[future]
                chunk_actions, chunk_seconds = future.result()
                actions[spec, name][start:stop] = chunk_actions
                seconds[spec, name] += chunk_seconds
                bar.update(stop - start)
        except BaseException:
            for future in futures:
                future.cancel()  # a worker's error (or Ctrl-C) ends the measurement, not after every chunk
            raise
    results = []
    for spec, player_name in zip(specs, names, strict=True):
        for name, positions in loaded.items():
            results.append(_set_result(player_name, positions, actions[spec, name], seconds[spec, name]))
    return results


# ---- the moves of real games -----------------------------------------------------------------------
def played_positions(match: MatchResult, which: int = 1, progress: bool = False) -> tuple[PositionSet, np.ndarray]:
    """The positions where player ``which`` (1 or 2) of ``match`` chose a move in its games, labelled by the solver
    (``alphazero_lib.solver``), and the moves it chose there, ``[P]``: what ``_set_result`` judges.

    ``match.records`` are ``play_match``'s games (player 1 moved first in games 0, 2, ...); the moves of a given
    opening are left out. The set is named ``games against OPPONENT``. Raises ``SolverMissing`` without the solver.
    """
    from alphazero_lib.solver import labels_of, move_scores

    if which not in (1, 2):
        raise ValueError(f"which must be 1 or 2 (a player of the match), got {which!r}")
    game = ConnectFour()
    opponent = match.player2 if which == 1 else match.player1
    moves, states, to_move, scores, labels, actions = [], [], [], [], [], []
    bar = tqdm(match.records, desc=f"judging {match.player1 if which == 1 else match.player2}", disable=not progress)
    for i, record in enumerate(bar):
        color = 1 if (i % 2 == 0) == (which == 1) else -1  # player 1 moved first in the even-numbered games
        state, played = game.get_initial_state(), ""
        for ply, (mover, action) in enumerate(record.moves):
            if ply >= record.opening and mover == color:
                by_column = move_scores(state, mover)
                moves.append(played)
                states.append(state)
                to_move.append(mover)
                scores.append(max(by_column.values()))
                labels.append(list(labels_of(by_column)))
                actions.append(action)
            state = game.get_next_state(state, action, mover)
            played += str(action + 1)
    if not actions:
        raise ValueError(f"no moves to judge: the match has {len(match.records)} recorded games")
    positions = PositionSet(
        f"games against {opponent}",
        np.array(moves),
        np.stack(states).astype(STATE_DTYPE),
        np.array(to_move, dtype=STATE_DTYPE),
        np.array(scores, dtype=np.int64),
        np.array(labels, dtype="<U1"),
    )
    return positions, np.array(actions, dtype=np.int64)


def judge_games(
    player: Player,
    opponent: Player,
    num_games: int,
    *,
    opening_moves: int = 0,
    seed: int | None = 0,
    batched: bool = False,
    progress: bool = True,
) -> tuple[MatchResult, SetResult]:
    """Play ``num_games`` games of ``player`` against ``opponent`` (``arena.play_match``, seats alternating, each
    pair of games from one random opening of ``opening_moves`` moves; ``batched`` as there) and judge every move
    ``player`` chose with the solver: the match, and a ``SetResult`` whose positions are those moves (``errors``:
    moves that threw a result away). ``seconds`` is the match's wall time. Raises ``SolverMissing`` without the solver.
    """
    from alphazero_lib.arena import play_match
    from alphazero_lib.solver import require

    check_player(player)
    check_player(opponent)
    require()  # before the games, not after them
    start = time.perf_counter()
    match = play_match(
        player.game,
        player,
        opponent,
        num_games,
        progress=progress,
        opening_moves=opening_moves,
        seed=seed,
        batched=batched,
    )
    seconds = time.perf_counter() - start
    positions, actions = played_positions(match, 1, progress=progress)
    result = _set_result(player.name, positions, actions, seconds)
    result.against = opponent.name
    return match, result


# ---- two players on the same positions -----------------------------------------------------------
def mcnemar_p_value(only_first: int, only_second: int) -> float:
    """McNemar's exact two-sided test: the chance of a split at least this uneven of the ``only_first +
    only_second`` positions that exactly one of two equally strong players gets wrong (a fair coin per position)."""
    if min(only_first, only_second) < 0:
        raise ValueError(f"counts must be non-negative, got {only_first} and {only_second}")
    n = only_first + only_second
    tail = sum(math.comb(n, k) for k in range(min(only_first, only_second) + 1))
    return min(1.0, 2.0 * tail / 2**n)


@dataclass(frozen=True)
class Paired:
    """Two players on the same set: the positions only one of them gets wrong, those both do, and McNemar's
    exact p-value: small when the difference in errors is more than the luck of which positions each missed."""

    first: str
    second: str
    set_name: str
    only_first: int
    only_second: int
    both: int

    @property
    def p_value(self) -> float:
        return mcnemar_p_value(self.only_first, self.only_second)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "p_value": self.p_value}

    def __str__(self) -> str:
        return (
            f"{self.set_name:<16}  only A errs: {self.only_first:>4}, only B: {self.only_second:>4}, both: "
            f"{self.both:>4}; McNemar exact p = {self.p_value:.2g}"
        )


def paired(first: SetResult, second: SetResult) -> Paired:
    """Compare two players' results on the same set, position by position."""
    if (first.set_name, first.positions) != (second.set_name, second.positions):
        raise ValueError(
            f"paired results must be on the same positions: {first.set_name} ({first.positions}) and "
            f"{second.set_name} ({second.positions})"
        )
    a, b = set(first.error_positions), set(second.error_positions)
    return Paired(first.player, second.player, first.set_name, len(a - b), len(b - a), len(a & b))


def paired_against_first(results: Sequence[SetResult]) -> list[Paired]:
    """Every other player against the first one named, set by set (the order of ``evaluate_player``'s results);
    the moves of played games (``judge_games``) are positions of their own, never paired."""
    results = [r for r in results if r.against is None]
    if not results:
        return []
    reference = results[0].player
    by_set = {r.set_name: r for r in results if r.player == reference}
    return [paired(r, by_set[r.set_name]) for r in results if r.player != reference and r.set_name in by_set]


def format_by_best_result(groups: dict[str, dict[str, int]]) -> str:
    """``errors_by_best_result``'s groups on one line: ``win 23 / 447 (5.1%), draw 20 / 170 (11.8%), loss 383``."""
    parts = []
    for name in BEST_RESULTS:
        group = groups.get(name, {"positions": 0, "errors": 0})
        n, e = group["positions"], group["errors"]
        if name == "loss":
            parts.append(f"{name} {n}")
        else:
            parts.append(f"{name} {e} / {n} ({100 * e / n:.1f}%)" if n else f"{name} 0 / 0")
    return ", ".join(parts)


def format_table(results: Sequence[SetResult]) -> str:
    """The results as a text table, the published anchors beside each set, and a line on the error rule."""
    width = max([len("player"), *(len(r.player) for r in results)])
    set_width = max([13, *(len(r.set_name) for r in results)])
    sources = list(ANCHOR_SOURCES)
    head = (
        f"{'player':<{width}}  {'set':<{set_width}}  {'positions':>9}  {'errors':>6}  {'error rate':>10}  "
        f"{'95% interval':<15}  " + "  ".join(f"{s:>12}" for s in sources) + f"  {'seconds':>8}"
    )
    lines = [f"Pons' Connect Four benchmark: {ERROR_RULE}", head]
    for r in results:
        low, high = r.interval
        interval = f"[{100 * low:.1f}, {100 * high:.1f}]%"
        anchors = "  ".join(f"{r.anchors.get(s) or '-'!s:>12}" for s in sources)
        lines.append(
            f"{r.player:<{width}}  {r.set_name:<{set_width}}  {r.positions:>9}  {r.errors:>6}  "
            f"{100 * r.error_rate:>9.1f}%  {interval:<15}  {anchors}  {r.seconds:>8.1f}"
        )
    lines += [f"{name}: {text}" for name, text in ANCHOR_SOURCES.items()]
    broken_down = [r for r in results if r.by_best_result]
    if broken_down:
        lines.append("Errors by the best result on offer (where every move loses, no move can err):")
    for r in broken_down:
        lines.append(f"  {r.player:<{width}}  {r.set_name:<{set_width}}  {format_by_best_result(r.by_best_result)}")
    comparisons = paired_against_first(results)
    if comparisons:
        lines.append("Paired on the same positions, each later player (A) against the first one named (B):")
    for i, c in enumerate(comparisons):
        if i == 0 or c.first != comparisons[i - 1].first:
            lines.append(f"A = {c.first}, B = {c.second}")
        lines.append(f"  {c}")
    return "\n".join(lines)
