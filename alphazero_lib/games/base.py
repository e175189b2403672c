"""The game interface every search, player and trainer in the library relies on.

States are numpy arrays of shape ``(row_count, column_count)`` holding 0 (empty), 1 (the first player)
and -1 (the second player). The search works on *canonical* states: the state seen from the player to
move, whose pieces are 1 (``change_perspective(state, player)``).

A new game is one file with a ``Game`` subclass and one line in ``games/__init__.py``'s ``GAMES``. It implements:

- ``registry_name`` and ``board_style`` (class attributes); ``row_count``, ``column_count`` and ``action_size``
  (set in ``__init__``); ``options`` (the constructor's arguments) and ``max_game_length`` (properties);
- the rules: ``get_valid_moves`` (a uint8 mask), ``_apply`` (play a legal action in place) and ``check_win``
  (did the action just played win?); ``get_next_state``, ``get_value_and_terminated`` and ``change_perspective``
  come from here and check their input;
- the symmetries: ``num_symmetries``, ``apply_symmetry`` and ``invert_symmetry`` (1, identity only, is allowed);
- for people: ``action_to_string`` and ``render``.

Optional: ``_line_length`` (games won by a line: a finished game refuses moves), ``_check_position`` (positions
no game reaches), ``_illegal_reason`` (why a move is illegal), ``batched_rules`` (vectorised rules for the
batched search). ``games.conformance.check_game(game)`` then checks all of it on random playouts; the test suite
runs it over every registered game.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from alphazero_lib.games.style import BoardStyle

STATE_DTYPE = np.int8


class Game(ABC):
    """A two-player, zero-sum, perfect-information board game with the course's API."""

    row_count: int
    column_count: int
    action_size: int
    #: The registry name ``make_game`` knows this game by.
    registry_name: str
    #: How the board is drawn (``plotting.draw_board``, ``animation.playoff_html``): colours and piece style as data.
    board_style: BoardStyle

    # ---- identity -------------------------------------------------------------------------------
    @property
    @abstractmethod
    def options(self) -> dict[str, Any]:
        """Constructor options that rebuild this exact game with ``make_game``."""

    @property
    def config(self) -> dict[str, Any]:
        """``{"name": registry name, **options}``: enough to rebuild the game (stored in checkpoints)."""
        return {"name": self.registry_name, **self.options}

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"{type(self).__name__}({opts})" if opts else type(self).__name__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    @property
    @abstractmethod
    def max_game_length(self) -> int:
        """An upper bound on the number of actions in one game."""

    # ---- rules ----------------------------------------------------------------------------------
    def get_initial_state(self) -> np.ndarray:
        """The empty board, shape ``(row_count, column_count)``."""
        return np.zeros((self.row_count, self.column_count), dtype=STATE_DTYPE)

    @abstractmethod
    def get_valid_moves(self, state: np.ndarray, player: int = 1) -> np.ndarray:
        """A ``uint8`` mask of shape ``(action_size,)``: 1 where ``player`` may play."""

    @abstractmethod
    def _apply(self, state: np.ndarray, action: int, player: int) -> None:
        """Play a legal ``action`` for ``player`` on ``state`` in place (called on a copy)."""

    def get_next_state(self, state: np.ndarray, action: int, player: int) -> np.ndarray:
        """A new state after ``player`` plays ``action``; ``state`` is left unchanged.

        Raises ``ValueError`` for a state of the wrong shape or with values other than -1, 0 and 1, a finished
        game (a player already has a winning line), a player other than 1 or -1, and an illegal action (naming
        it and the legal ones). The line check is a few big-integer operations (about 2 us).
        """
        state = self.check_state(state)
        if self._has_line(state):
            raise ValueError(
                f"the game is already over in this state (a player has {self._line_length} in a row); "
                f"no move can follow it"
            )
        player = self._check_player(player)
        action = self._check_action(state, action, player)
        next_state = np.array(state, dtype=STATE_DTYPE, copy=True)
        self._apply(next_state, action, player)
        return next_state

    @abstractmethod
    def check_win(self, state: np.ndarray, action: int | None) -> bool:
        """Whether the player who just played ``action`` (already on ``state``) has won."""

    def get_value_and_terminated(self, state: np.ndarray, action: int | None) -> tuple[float, bool]:
        """``(value, terminated)`` after ``action``; value is 1 if its player won, -1 lost, 0 otherwise.

        Raises ``ValueError`` for a state that ``check_state`` refuses, and an action that is not ``None`` or an
        integer in ``[0, action_size)``.
        """
        state = self.check_state(state, reachable=False)
        action = self._check_action_index(action)
        if action is None:
            return 0.0, False
        if self._win(state, action):
            return 1.0, True
        if not self._valid_moves(state, 1).any():
            return 0.0, True
        return 0.0, False

    def get_opponent(self, player: int) -> int:
        """The other player: 1 <-> -1."""
        return -player

    def get_opponent_value(self, value: float) -> float:
        """A value seen from the other player's side."""
        return -value

    def change_perspective(self, state: np.ndarray, player: int) -> np.ndarray:
        """The state as seen by ``player`` (their pieces become 1); a new array."""
        return (self.check_state(state) * self._check_player(player)).astype(STATE_DTYPE)

    def legal_actions(self, state: np.ndarray, player: int = 1) -> list[int]:
        """The legal actions as a sorted list of ints."""
        return [int(a) for a in np.flatnonzero(self.get_valid_moves(state, player))]

    def batched_rules(self) -> Any:
        """Vectorised rules on batches of canonical states for the batched search (a ``batched_rules.BatchedRules``),
        or ``None``: the search then loops over this game's own methods. Optional: a speed-up, never a need."""
        return None

    # ---- network input --------------------------------------------------------------------------
    def get_encoded_state(self, state: np.ndarray) -> np.ndarray:
        """Three float32 planes (opponent, empty, own): ``(R, C) -> (3, R, C)``, ``(B, R, C) -> (B, 3, R, C)``.

        Raises ``ValueError`` for another shape or values other than -1, 0 and 1 (a cheap check).
        """
        state = np.asarray(state)
        if state.shape[-2:] != (self.row_count, self.column_count) or state.ndim not in (2, 3):
            raise ValueError(
                f"{self!r} encodes a state ({self.row_count}, {self.column_count}) or a batch (B, {self.row_count}, "
                f"{self.column_count}), got shape {state.shape}"
            )
        _check_values(state)
        planes = np.stack((state == -1, state == 0, state == 1), axis=-3)
        return planes.astype(np.float32)

    # ---- symmetries -----------------------------------------------------------------------------
    @property
    @abstractmethod
    def num_symmetries(self) -> int:
        """How many board symmetries the rules are invariant under (identity included)."""

    @abstractmethod
    def apply_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Symmetry ``k`` applied to a state ``(R, C)`` and a per-action vector ``(action_size,)``."""

    @abstractmethod
    def invert_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The inverse of ``apply_symmetry(k, ...)``."""

    def get_symmetries(self, state: np.ndarray, policy: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """All ``(state, policy)`` pairs equivalent under the board's symmetries, identity first."""
        return [self.apply_symmetry(k, state, policy) for k in range(self.num_symmetries)]

    # ---- people ---------------------------------------------------------------------------------
    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """A short label for an action, as a person would type it."""

    def string_to_action(self, text: str) -> int:
        """Parse a person's input (a label from ``action_to_string`` or an action number)."""
        text = text.strip().lower()
        for action in range(self.action_size):
            if self.action_to_string(action).lower() == text:
                return action
        try:
            return int(text)
        except ValueError:
            raise ValueError(
                f"cannot read {text!r} as a move; type one of "
                f"{[self.action_to_string(a) for a in range(min(self.action_size, 10))]}..."
            ) from None

    @abstractmethod
    def render(self, state: np.ndarray) -> str:
        """A text picture of the board (X = first player = 1, O = second player = -1). Raises ``ValueError`` for a
        state that is not a board of this game (``check_state(state, reachable=False)``)."""

    # ---- validation -----------------------------------------------------------------------------
    #: How many equal pieces in a line end the game (Tic-Tac-Toe, Connect Four); None: no such rule.
    _line_length: int | None = None

    def check_state(self, state: Any, reachable: bool = True) -> np.ndarray:
        """``state`` as an array, after checking it is one board: shape ``(row_count, column_count)``, values
        -1, 0 and 1 only, and (with ``reachable``) a position the game can reach (Tic-Tac-Toe and Connect Four: the
        players' stone counts differ by at most one; Connect Four: no stone above an empty cell). Raises
        ``ValueError`` saying what is wrong (cheap: a shape compare and a few byte scans, about a microsecond).

        ``check_win`` and ``get_value_and_terminated`` only ask whether a board holds a line, so they take any
        board (``reachable=False``): the course draws hand-made boards ("four in a row here?") to teach them."""
        array = np.asarray(state)
        if array.shape != (self.row_count, self.column_count):
            raise ValueError(
                f"{self!r} needs a state of shape ({self.row_count}, {self.column_count}), got shape {array.shape}"
            )
        if array.dtype == STATE_DTYPE:
            data = array.tobytes()
            if data.translate(None, _STATE_BYTES):  # what is left is not -1, 0 or 1
                _check_values(array)
        else:
            _check_values(array)
            data = array.astype(STATE_DTYPE).tobytes()
        if reachable:
            self._check_position(data)
        return array

    def _check_symmetry(self, k: Any, policy: Any) -> tuple[int, np.ndarray]:
        """``k`` as an int in ``[0, num_symmetries)`` and ``policy`` as an array of ``action_size`` entries."""
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 0 <= k < self.num_symmetries:
            raise ValueError(f"symmetry k must be an integer from 0 to {self.num_symmetries - 1}, got {k!r}")
        policy = np.asarray(policy)
        if policy.shape != (self.action_size,):
            raise ValueError(f"policy must have one entry per action, shape ({self.action_size},); got {policy.shape}")
        return int(k), policy

    def _check_position(self, data: bytes) -> None:  # noqa: B027 (a hook: most games check nothing more)
        """Raise ``ValueError`` for a board that no game reaches (subclasses: stone counts, gravity); ``data`` is
        the board's bytes as int8 (values already checked: 0, 1 and 255 for -1)."""

    def is_over(self, state: np.ndarray) -> bool:
        """Whether the game has ended in ``state``: a player has a winning line, or nobody can move."""
        state = self.check_state(state)
        return self._has_line(state) or not self._valid_moves(state, 1).any()

    # the rules on a state already checked by the public method that calls them (no second check)
    def _valid_moves(self, state: np.ndarray, player: int) -> np.ndarray:
        return self.get_valid_moves(state, player)

    def _win(self, state: np.ndarray, action: int | None) -> bool:
        return self.check_win(state, action)

    def _has_line(self, state: np.ndarray) -> bool:
        """Whether either player already has ``_line_length`` pieces in a line (the game is over)."""
        if self._line_length is None:
            return False
        checker = self.__dict__.get("_lines")
        if checker is None:
            checker = self.__dict__["_lines"] = LineDetector(self.row_count, self.column_count, self._line_length)
        return checker.any_line(state)

    @staticmethod
    def _check_player(player: int) -> int:
        if player not in (1, -1) or isinstance(player, bool):
            raise ValueError(f"player must be 1 or -1, got {player!r}")
        return int(player)

    def _illegal_reason(self, state: np.ndarray, action: int, player: int) -> str:
        """Why a well-formed but illegal action is illegal (subclasses add detail)."""
        return "it is not legal here"

    def _check_action_index(self, action: Any) -> int | None:
        """``action`` as an int in ``[0, action_size)``, or ``None``; anything else raises ``ValueError``."""
        if action is None or (type(action) is int and 0 <= action < self.action_size):  # the common case, fast
            return action
        if isinstance(action, bool) or not isinstance(action, numbers.Integral):
            raise ValueError(
                f"action must be None or an integer in [0, {self.action_size}), got {action!r} "
                f"({type(action).__name__})"
            )
        if not 0 <= action < self.action_size:
            raise ValueError(f"action {action} is out of range; actions are 0..{self.action_size - 1}")
        return int(action)

    def _check_action(self, state: np.ndarray, action: Any, player: int) -> int:
        if isinstance(action, bool) or not isinstance(action, numbers.Integral):
            raise ValueError(
                f"action must be an integer in [0, {self.action_size}), got {action!r} ({type(action).__name__})"
            )
        action = int(action)
        if not 0 <= action < self.action_size:
            raise ValueError(
                f"action {action} is out of range; actions are 0..{self.action_size - 1}; "
                f"legal now: {self.legal_actions(state, player)}"
            )
        if not self._valid_moves(state, player)[action]:
            raise ValueError(
                f"action {action} ({self.action_to_string(action)}) is illegal: "
                f"{self._illegal_reason(state, action, player)}; legal now: {self.legal_actions(state, player)}"
            )
        return action


_STATE_BYTES = bytes([0, 1, 255])  # -1, 0 and 1 as int8 bytes


def check_board(game: Any, state: Any) -> np.ndarray:
    """``state`` as an array, after checking that it is a board of ``game``: its shape and values -1, 0 and 1, any
    position (what drawing and rendering need). A library game checks it as ``check_state(state, reachable=False)``
    does, with the same ``ValueError``; a game class of the learner's own is checked for the same two things."""
    check = getattr(game, "check_state", None)
    if check is not None:
        return check(state, reachable=False)
    array = np.asarray(state)
    shape = (getattr(game, "row_count", None), getattr(game, "column_count", None))
    if array.shape != shape:
        raise ValueError(f"{game!r} needs a state of shape ({shape[0]}, {shape[1]}), got shape {array.shape}")
    _check_values(array)
    return array


def _check_values(array: np.ndarray) -> None:
    """Raise ``ValueError`` unless ``array`` (any shape) holds -1, 0 and 1 only."""
    if array.dtype == STATE_DTYPE:
        bad = array.tobytes().translate(None, _STATE_BYTES)  # what is left is not -1, 0 or 1
    elif array.dtype.kind in "iufb":
        bad = bool(((array != 0) & (array != 1) & (array != -1)).any())
    else:
        raise ValueError(f"a state holds numbers -1, 0 and 1, got dtype {array.dtype}")
    if bad:
        values = sorted({v for v in np.unique(array).tolist() if v not in (-1, 0, 1)})
        raise ValueError(f"state values must be -1, 0 or 1 (empty, the players); got {values[:5]}")


def check_stone_counts(data: bytes) -> None:
    """Raise ``ValueError`` unless the players' stone counts differ by at most one (they alternate, nothing is
    ever removed): true of every position of Tic-Tac-Toe and Connect Four, from either player's view. ``data``:
    the board's int8 bytes."""
    first, second = data.count(1), data.count(255)
    if not -1 <= first - second <= 1:
        raise ValueError(
            f"this position cannot arise: player 1 has {first} stones and player -1 has {second}, but the players "
            f"take turns, so the counts differ by at most one"
        )


class LineDetector:
    """Whether a board holds ``in_a_row`` equal non-empty pieces in a line, in a few big-integer operations.

    The int8 board's bytes are read as one integer (8 bits a cell; 1 is 0x01 and -1 is 0xFF). Player 1's
    pieces become bit 0 of their cell, player -1's bit 4, so one pass of shifted ANDs per direction checks
    both players at once; a mask keeps the starting cells whose line fits on the board.
    """

    def __init__(self, rows: int, columns: int, in_a_row: int) -> None:
        self.in_a_row = in_a_row
        cells = rows * columns
        self.low = sum(1 << (8 * i) for i in range(cells))
        self.directions = []
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            starts = 0
            for r in range(rows):
                for c in range(columns):
                    end_r, end_c = r + dr * (in_a_row - 1), c + dc * (in_a_row - 1)
                    if 0 <= end_r < rows and 0 <= end_c < columns:
                        starts |= 0x11 << (8 * (r * columns + c))
            if starts:
                self.directions.append((8 * (dr * columns + dc), starts))

    def any_line(self, state: np.ndarray) -> bool:
        """``state`` ``(rows, columns)`` of -1/0/1: whether either player has ``in_a_row`` in a line."""
        if state.dtype != STATE_DTYPE:
            state = state.astype(STATE_DTYPE)
        x = int.from_bytes(state.tobytes(), "little")
        low = self.low
        second = (x >> 1) & low  # player -1
        pieces = ((x & low) ^ second) | (second << 4)  # player 1 on bit 0, player -1 on bit 4
        k = self.in_a_row
        for shift, starts in self.directions:
            line = pieces & starts
            for i in range(1, k):
                if not line:
                    break
                line &= pieces >> (i * shift)
            if line:
                return True
        return False


def square_symmetry(k: int, board: np.ndarray) -> np.ndarray:
    """Symmetry ``k`` (0..7) of the square: ``k % 4`` quarter turns, then a left-right flip if ``k >= 4``."""
    out = np.rot90(board, k % 4)
    return np.fliplr(out) if k >= 4 else out


def inverse_square_symmetry(k: int, board: np.ndarray) -> np.ndarray:
    """The inverse of ``square_symmetry(k, ...)``."""
    out = np.fliplr(board) if k >= 4 else board
    return np.rot90(out, -(k % 4))
