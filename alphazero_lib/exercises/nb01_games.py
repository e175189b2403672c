"""Checks for notebook 01 (games): the learner's TicTacToe, method by method, and a game loop.

Each ``check_*`` compares one method of the learner's ``TicTacToe`` (written cell by cell with ``@add_to_class``)
with the library's on positions from seeded random games and the edge cases the notebook names, and returns the
class; a method that fails or is not written is replaced by the library's, so the notebook still runs.
``check_play_game`` compares a game loop with ``alphazero_lib.arena.play_game``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from alphazero_lib.arena import play_game as library_arena_game
from alphazero_lib.exercises import core
from alphazero_lib.exercises.core import Case, Mismatch, Mistake, board, check, check_method, hints_for, miss, show
from alphazero_lib.exercises.positions import played_positions
from alphazero_lib.games import TicTacToe as LibraryTicTacToe
from alphazero_lib.players import Player

LIBRARY = LibraryTicTacToe()
EMPTY = LIBRARY.get_initial_state()  # shared: the cases copy it before a learner's code gets it

HINTS = {
    "get_initial_state": "np.zeros with the board's shape, (self.row_count, self.column_count), and dtype=np.int8; "
    "make a new array on every call.",
    "get_next_state": "copy the state first (state.copy()); the cell of action a is row a // column_count, column "
    "a % column_count; write player there and return the copy.",
    "get_valid_moves": "flatten the board to one entry per action (state.reshape(-1)); a cell is legal when it is 0; "
    "return the comparison as integers (.astype(np.uint8)).",
    "check_win": "action None means no move was played yet: return False. Otherwise player = state[row, column] of "
    "the move; the lines through the cell are its row, its column and, when the cell is on them, the two diagonals "
    "(np.trace(state), np.trace(np.fliplr(state))); a line is won when it sums to 3 * player.",
    "get_value_and_terminated": "ask check_win first ((1, True): the mover won), then whether no legal move is "
    "left ((0, True): a draw); otherwise (0, False).",
    "get_opponent": "get_opponent: the other player is -player; get_opponent_value: the other side's value is -value.",
    "change_perspective": "multiply the state by player: player 1 sees it unchanged, player -1 with every piece "
    "swapped; the product is a new array (do not flip the caller's board in place).",
    "play_game": "start from game.get_initial_state() with player 1; loop: ask agent_x when player is 1, agent_o "
    "when -1, with (state, player); play the move, record it, stop when get_value_and_terminated says terminated "
    "(the winner is player * value), else switch player.",
}
hint, solution = hints_for(HINTS, "01_games.ipynb")


Agent = Callable[[np.ndarray, int], int]

# Hand-picked finished games (X moves first): each is the move list; the last move ends the game.
LAST_MOVE_WIN = [0, 1, 2, 3, 4, 5, 7, 8, 6]  # X fills the board with a win: the ninth move completes 2-4-6
EDGE_GAMES = {
    "a row": [0, 3, 1, 4, 2],  # X: top row
    "a column": [1, 0, 4, 3, 2, 6],  # O: left column
    "the main diagonal": [0, 1, 4, 2, 8],  # X: 0-4-8
    "the anti-diagonal": [2, 0, 4, 1, 6],  # X: 2-4-6
    "the anti-diagonal (O)": [0, 2, 1, 4, 8, 6],  # O: 2-4-6
    "a win on the last move": LAST_MOVE_WIN,
    "the full-board draw": [4, 0, 2, 6, 3, 5, 7, 1, 8],  # full board, no line
}


def positions(seed: int, games: int) -> list[tuple[np.ndarray, int, int]]:
    """``(state after the move, action, player who moved)`` in the edge-case games, then ``games`` random games."""
    return played_positions(LIBRARY, np.random.default_rng(seed), games, EDGE_GAMES.values())


def library(method: str) -> Callable[..., Any]:
    """The library's ``TicTacToe.<method>`` with the learner's signature (``self`` first): it stands in for theirs."""
    function = getattr(LibraryTicTacToe, method)

    def stand_in(self: Any, *args: Any, **kwargs: Any) -> Any:
        return function(LIBRARY, *(np.asarray(a) if isinstance(a, list) else a for a in args), **kwargs)

    stand_in.__name__, stand_in.__doc__ = method, function.__doc__
    stand_in.__signature__ = inspect.signature(function)  # type: ignore[attr-defined]
    return stand_in


def _case(method: str, state: np.ndarray, hint: str, untouched: bool = False, **args: Any) -> Case:
    """``TicTacToe().<method>(state, **args)`` against the library's; with ``untouched``, a changed input fails. A
    call with ``action=None`` (no move yet) is on the empty board."""
    expected = getattr(LIBRARY, method)(state, *args.values())

    def changed(got: Any, given: tuple) -> Mismatch:
        wrote = f"{method} wrote into the board it was given, so the caller's board changed: return a new array"
        return miss(
            f"{show(got)}, and your input became {board(given[0])}", f"{show(expected)} with the input unchanged", wrote
        )

    def run(c: Any) -> Any:
        return core.on_copies(getattr(c(), method), state, *args.values(), changed=changed if untouched else None)

    shown = "".join(f", {k}={v}" for k, v in args.items())
    where = "empty board" if args.get("action", 0) is None else board(state)
    return Case(f"{method}({where}{shown})", run, expected, hint)


# ---- exercise 1: the empty board ----------------------------------------------------------------------------
def check_get_initial_state(cls: type) -> type:
    """``TicTacToe.get_initial_state()``: a new ``(3, 3)`` array of zeros on every call."""

    def fresh(c: Any) -> Any:
        game = c()
        np.asarray(game.get_initial_state())[0, 0] = 1  # a caller writes on its board...
        return game.get_initial_state()  # ...the next empty board must still be empty

    def cases(c: type) -> list[Case]:
        runs = {
            "TicTacToe().get_initial_state()": (lambda c: c().get_initial_state(), HINTS["get_initial_state"]),
            "get_initial_state() after writing on an earlier empty board": (fresh, SHARED_BOARD),
        }
        return [Case(call, run, EMPTY, hint) for call, (run, hint) in runs.items()]

    return check_method(cls, "get_initial_state", library("get_initial_state"), cases, mistakes=INITIAL_MISTAKES)


SHARED_BOARD = (
    "the board an earlier call returned came back, with the move written on it: one array shared by every game; "
    "make a new one on every call (np.zeros inside get_initial_state)"
)
INITIAL_MISTAKES = [  # the library's empty board with one change
    Mistake(
        "np.zeros makes floats unless told: dtype=np.int8 (a board holds the integers -1, 0 and 1)",
        lambda self: LIBRARY.get_initial_state().astype(np.float64),
    ),
    Mistake(
        "a board is a numpy array (np.zeros), not a list: the cells below call .copy() and .reshape on it",
        lambda self: LIBRARY.get_initial_state().tolist(),
    ),
    Mistake(
        "the board is 2-D: shape (row_count, column_count), not one row of 9 cells",
        lambda self: LIBRARY.get_initial_state().reshape(-1),
    ),
]


# ---- exercise 2: a move -------------------------------------------------------------------------------------
def check_get_next_state(cls: type) -> type:
    """``get_next_state(state, action, player)``: a new array with ``player`` on cell ``action``; input unchanged."""

    def cases(c: type) -> list[Case]:
        rng = np.random.default_rng(11)
        moves = [(EMPTY, a, 1) for a in (0, 2, 5, 7, 8)] + [(EMPTY, 4, -1)]
        for state, _, _ in positions(12, 30):
            legal = np.flatnonzero(LIBRARY.get_valid_moves(state))
            if len(legal) and not LIBRARY.is_over(state):  # no move follows a win
                moves.append((state, int(rng.choice(legal)), int(rng.choice([1, -1]))))
        return [_case("get_next_state", s, HINTS["get_next_state"], True, action=a, player=p) for s, a, p in moves]

    return check_method(cls, "get_next_state", library("get_next_state"), cases, mistakes=NEXT_MISTAKES)


def _put(state: np.ndarray, cell: tuple[int, int], mark: int) -> np.ndarray:
    state[cell] = mark
    return state


NEXT_MISTAKES = [  # get_next_state with one known mistake: another cell, a fixed mark, the caller's board written on
    Mistake(
        "row and column are swapped: row = action // column_count, column = action % column_count",
        lambda self, state, a, player: _put(state.copy(), (a % 3, a // 3), player),
    ),
    Mistake(
        "write player (1 or -1) into the cell, not always 1",
        lambda self, state, a, player: _put(state.copy(), divmod(a, 3), 1),
    ),
    Mistake(
        "state.reshape(-1) is a view of the same memory: writing into it changes the caller's board; "
        "start from state.copy()",
        lambda self, state, a, player: _put(state, divmod(a, 3), player),
    ),
    Mistake(
        "cells are numbered from 0 (top left) to 8 (bottom right): row = action // 3, column = action % 3",
        lambda self, state, a, player: _put(state.copy(), divmod(a - 1, 3), player),
    ),
]


# ---- exercise 3: the legal moves ----------------------------------------------------------------------------
def check_get_valid_moves(cls: type) -> type:
    """``get_valid_moves(state)``: shape ``(9,)``, 1 on every empty cell and 0 elsewhere (uint8)."""

    def cases(c: type) -> list[Case]:
        states = [EMPTY] + [s for s, _, _ in positions(13, 30)]
        return [_case("get_valid_moves", s, HINTS["get_valid_moves"]) for s in states]

    return check_method(cls, "get_valid_moves", library("get_valid_moves"), cases, mistakes=VALID_MISTAKES)


VALID_MISTAKES = [  # the library's mask with one change
    Mistake(
        "one entry per action: flatten the board (state.reshape(-1)) so the shape is (9,)",
        lambda self, state: LIBRARY.get_valid_moves(state).reshape(state.shape),
    ),
    Mistake(
        "1 marks an EMPTY cell (a legal move), 0 a taken one", lambda self, state: 1 - LIBRARY.get_valid_moves(state)
    ),
    Mistake(
        "return a mask with one 0/1 entry per action, not the numbers of the legal actions "
        "(np.flatnonzero(mask) gives those)",
        lambda self, state: np.flatnonzero(LIBRARY.get_valid_moves(state)),
    ),
    Mistake(
        "a mask of integers (or booleans): (state.reshape(-1) == 0).astype(np.uint8), not floats",
        lambda self, state: LIBRARY.get_valid_moves(state) * 1.0,
    ),
    Mistake(
        "return a numpy array, not a list: the cells below use numpy on it",
        lambda self, state: LIBRARY.get_valid_moves(state).tolist(),
    ),
]


# ---- exercise 4: the win check ------------------------------------------------------------------------------
LINE_NAMES = {
    "row": "the row",
    "column": "the column",
    "main": "the main diagonal (np.diag(state))",
    "anti": "the anti-diagonal (np.diag(np.fliplr(state)))",
}


def _lines_through(action: int) -> dict[str, list[int]]:
    """The lines through cell ``action`` (row, column, diagonals), from the library's ``batched_rules().lines``."""
    lines = dict.fromkeys(tuple(line) for line in LIBRARY.batched_rules().lines[action].tolist())
    kinds = {1: "row", 3: "column", 4: "main", 2: "anti"}  # by the step between the line's cells
    return {kinds[cells[1] - cells[0]]: list(cells) for cells in lines}


def _win_hint(state: np.ndarray, action: int) -> str:
    """The lines the move completes, or the rule where it completes none."""
    cells = state.reshape(-1)
    lines = [LINE_NAMES[kind] for kind, line in _lines_through(action).items() if abs(cells[line].sum()) == 3]
    return f"the move {action} completes {' and '.join(lines)}" if lines else HINTS["check_win"]


def check_check_win(cls: type) -> type:
    """``check_win(state, action)``: did the player who just played ``action`` complete a line through it?"""

    def cases(c: type) -> list[Case]:
        no_move = "action None means no move was played yet (the empty board): return False before the action is used"
        return [_case("check_win", EMPTY, no_move, action=None)] + [
            _case("check_win", s, _win_hint(s, a), action=a) for s, a, _ in positions(14, 40)
        ]

    return check_method(cls, "check_win", library("check_win"), cases, mistakes=WIN_MISTAKES)


def _win_mistake(skip: tuple[str, ...] = (), target: int | None = None) -> Callable[..., bool]:
    """``check_win`` that leaves out the lines in ``skip``, or compares every sum with ``target``."""

    def check_win(self: Any, state: np.ndarray, action: int | None) -> bool:
        if action is None:
            return False
        cells = state.reshape(-1)
        want = 3 * cells[action] if target is None else target
        return any(cells[line].sum() == want for kind, line in _lines_through(action).items() if kind not in skip)

    return check_win


WIN_MISTAKES = [
    Mistake("the anti-diagonal (cells 2, 4, 6: np.trace(np.fliplr(state))) is a line too", _win_mistake(("anti",))),
    Mistake("the main diagonal (cells 0, 4, 8: np.trace(state)) is a line too", _win_mistake(("main",))),
    Mistake(
        "the two diagonals are lines too: np.trace(state) and np.trace(np.fliplr(state))",
        _win_mistake(("main", "anti")),
    ),
    Mistake(
        "O's line sums to -3: compare each sum with 3 * player, where player = state[row, column]",
        _win_mistake(target=3),
    ),
]


# ---- exercise 5: value and terminated -----------------------------------------------------------------------
VALUE_HINTS = {  # (board full, the move won): the rule the case tests, and the hint of the mistake that breaks it
    (True, True): "a full board that is also a win is a win: check the win first, then the draw",
    (True, False): "a full board without a line ends the game too: a draw is (0, True)",
    (False, True): "the value is for the player who just moved: a win is 1 (the loser's -1 comes later, from "
    "get_opponent_value)",
    (False, False): "not over yet: (0, False)",
}


def check_get_value_and_terminated(cls: type) -> type:
    """``get_value_and_terminated(state, action)``: ``(1, True)`` a win for the mover, ``(0, True)`` a draw."""

    def cases(c: type) -> list[Case]:
        moves = [(EMPTY, None)] + [(s, a) for s, a, _ in positions(15, 40)]
        rules = [VALUE_HINTS[not LIBRARY.get_valid_moves(s).any(), LIBRARY.check_win(s, a)] for s, a in moves]
        return [_case("get_value_and_terminated", s, rule, action=a) for (s, a), rule in zip(moves, rules, strict=True)]

    return check_method(
        cls, "get_value_and_terminated", library("get_value_and_terminated"), cases, mistakes=VALUE_MISTAKES
    )


def _value_with(change: Callable[..., tuple[float, bool]]) -> Callable[..., tuple[float, bool]]:
    """``get_value_and_terminated`` with one known mistake: ``change(full, value, terminated)`` of the library's."""

    def get_value_and_terminated(self: Any, state: np.ndarray, action: int | None) -> tuple[float, bool]:
        return change(not LIBRARY.get_valid_moves(state).any(), *LIBRARY.get_value_and_terminated(state, action))

    return get_value_and_terminated


VALUE_MISTAKES = [
    Mistake(VALUE_HINTS[True, True], _value_with(lambda full, value, over: (0, True) if full else (value, over))),
    Mistake(VALUE_HINTS[False, True], _value_with(lambda full, value, over: (-value, over))),
    Mistake(VALUE_HINTS[True, False], _value_with(lambda full, value, over: (value, value == 1))),
]


# ---- exercise 6: the opponent -------------------------------------------------------------------------------
def check_get_opponent(cls: type) -> type:
    """``get_opponent(player)`` (1 <-> -1) and ``get_opponent_value(value)``, checked together."""
    methods = ["get_opponent", "get_opponent_value"]
    calls = [(methods[0], p) for p in (1, -1)] + [(methods[1], v) for v in (1.0, -1.0, 0.0, 0.25, -0.6)]

    def cases(c: type) -> list[Case]:
        return [
            Case(f"{m}({x})", lambda c, m=m, x=x: getattr(c(), m)(x), getattr(LIBRARY, m)(x), HINTS["get_opponent"])
            for m, x in calls
        ]

    return check_method(cls, methods, [library(m) for m in methods], cases, mistakes=OPPONENT_MISTAKES)


OPPONENT_MISTAKES = [
    Mistake(
        "a value is seen from the other side by negating it: 1 (a win) becomes -1 (a loss), 0 stays 0",
        {"get_opponent_value": lambda self, value: 1 - value},
    ),
    Mistake(
        "the other player's value is the negated value (-value), not the same value",
        {"get_opponent_value": lambda self, value: value},
    ),
    Mistake(
        "the players here are 1 and -1 (not kaggle's marks 1 and 2): the other player is -player",
        {"get_opponent": lambda self, player: 3 - player},
    ),
    Mistake(
        "get_opponent gives -1 whoever asks: the other player depends on the player given, -player (1 for -1)",
        {"get_opponent": lambda self, player: -1},
    ),
]


# ---- exercise 7: perspective --------------------------------------------------------------------------------
def check_change_perspective(cls: type) -> type:
    """``change_perspective(state, player)``: the board as ``player`` sees it (their pieces 1); input unchanged."""

    def cases(c: type) -> list[Case]:
        states = [s for s, _, _ in positions(16, 15)]
        return [
            _case("change_perspective", s, HINTS["change_perspective"], True, player=p) for s in states for p in (1, -1)
        ]

    return check_method(cls, "change_perspective", library("change_perspective"), cases, mistakes=PERSPECTIVE_MISTAKES)


PERSPECTIVE_MISTAKES = [  # the library's with one change: always -1, -player, empty cells changed too
    Mistake(
        "player 1 sees the board as it is: multiply by player (1 changes nothing), do not always negate",
        lambda self, state, player: LIBRARY.change_perspective(state, -1),
    ),
    Mistake(
        "the player's own pieces become 1: multiply by player, not by -player",
        lambda self, state, player: LIBRARY.change_perspective(state, -player),
    ),
    Mistake(
        "empty cells stay 0: multiply by player instead of mapping every cell to 1 or -1",
        lambda self, state, player: np.where(state == player, 1, -1).astype(state.dtype),
    ),
]


# ---- exercise 8: a game loop --------------------------------------------------------------------------------
class _AgentPlayer(Player):
    """An agent function ``(state, player) -> action`` as a library ``Player``."""

    def __init__(self, agent: Agent) -> None:
        super().__init__(LIBRARY)
        self.agent = agent

    def get_action(self, state: np.ndarray, player: int) -> int:
        return int(self.agent(state, player))


def library_play_game(game: Any, agent_x: Agent, agent_o: Agent) -> tuple[int, list[int]]:
    """The library's game loop (``arena.play_game``): ``(winner, moves)``, winner 1 (X), -1 (O) or 0 (draw)."""
    record = library_arena_game(game, _AgentPlayer(agent_x), _AgentPlayer(agent_o))
    return record.winner, [action for _, action in record.moves]


def random_agent(seed: int) -> Agent:
    """An agent that plays a uniformly random empty cell, from its own seeded generator."""
    rng = np.random.default_rng(seed)

    def agent(state: np.ndarray, player: int) -> int:
        return int(rng.choice(np.flatnonzero(np.asarray(state).reshape(-1) == 0)))

    agent.__name__ = f"random_agent({seed})"
    return agent


def scripted_agent(moves: Sequence[int]) -> Agent:
    """An agent that plays ``moves`` in order and complains when it is asked for more (the game should be over)."""
    queue = list(moves)

    def agent(state: np.ndarray, player: int) -> int:
        if not queue:
            raise miss(
                "another call to an agent whose moves ran out",
                "no such call",
                "an agent was asked once more "
                "than it had turns: either the game went on after its end, or the wrong agent was asked "
                "(agent_x moves when player is 1, agent_o when it is -1).",
            )
        return int(queue.pop(0))

    return agent


def reading_agent(name: str) -> Agent:
    """Plays the first empty cell after ``player``'s last piece: handed the canonical board (or the wrong player),
    it plays another move."""

    def agent(state: np.ndarray, player: int) -> int:
        cells = np.asarray(state).reshape(-1)
        mine = np.flatnonzero(cells == player)
        start = int(mine[-1]) + 1 if len(mine) else (0 if player == 1 else 8)
        for step in range(9):
            cell = (start + step) % 9
            if cells[cell] == 0:
                return cell
        raise ValueError("no empty cell")

    agent.__name__ = name
    return agent


SCRIPTED_GAMES = {  # play_game's scripted cases, by what they test
    "X wins on a row": EDGE_GAMES["a row"],
    "O wins on a column": EDGE_GAMES["a column"],
    "X wins on the anti-diagonal": EDGE_GAMES["the anti-diagonal"],
    "a full-board draw": EDGE_GAMES["the full-board draw"],
    "O wins on the anti-diagonal": EDGE_GAMES["the anti-diagonal (O)"],
    "X wins with the ninth move": LAST_MOVE_WIN,
}
WINNER = "the winner is the player who made the last move: player * value (value is 1 for the mover, whoever it is)"
AS_IT_IS = "agents get the board as it is (X = 1, O = -1) and the player to move, not the board from their side"


def _game_case(call: str, make: Any, agents: Callable[[], tuple[Agent, Agent]], hint: str) -> Case:
    """``play_game(make(), *agents())`` against the library's loop with the same (fresh) agents."""
    return Case(call, lambda f: _as_result(f(make(), *agents())), library_play_game(LIBRARY, *agents()), hint)


def check_play_game(play_game: Callable[..., Any], game_class: type | None = None) -> Callable[..., Any]:
    """``play_game(game, agent_x, agent_o) -> (winner, moves)`` on scripted and seeded random games, on the library's
    game and, if given, on ``game_class()``."""

    def cases() -> list[Case]:
        out = []
        for label, moves in SCRIPTED_GAMES.items():
            xs, os = moves[0::2], moves[1::2]
            hint = "a full board without a line is a draw: winner 0" if label == "a full-board draw" else WINNER
            out.append(
                _game_case(
                    f"play_game(TicTacToe(), X plays {xs}, O plays {os})  # {label}",
                    LibraryTicTacToe,
                    lambda xs=xs, os=os: (scripted_agent(xs), scripted_agent(os)),
                    hint,
                )
            )
        games = [("TicTacToe()", LibraryTicTacToe)] + ([("your TicTacToe()", game_class)] if game_class else [])
        for label, make in games:
            reading = f"play_game({label}, reading_agent, reading_agent)  # each plays after its own last piece"
            out.append(_game_case(reading, make, lambda: (reading_agent("x"), reading_agent("o")), AS_IT_IS))
            out += [
                _game_case(
                    f"play_game({label}, random_agent({2 * s}), random_agent({2 * s + 1}))",
                    make,
                    lambda s=s: (random_agent(2 * s), random_agent(2 * s + 1)),
                    HINTS["play_game"],
                )
                for s in range(20)
            ]
        return out

    return check("play_game", play_game, library_play_game, cases, PLAY_MISTAKES)


def _loop(
    game: Any,
    agent_x: Agent,
    agent_o: Agent,
    *,
    winner: str = "player * value",
    switch: bool = True,
    swap: bool = False,
    canonical: bool = False,
    stop: bool = True,
) -> tuple[int, list[int]]:
    """The game loop with one known mistake switched on (for the diagnosis)."""
    agents = {1: agent_o, -1: agent_x} if swap else {1: agent_x, -1: agent_o}
    state, player, moves = game.get_initial_state(), 1, []
    while True:
        seen = game.change_perspective(state, player) if canonical else state
        action = agents[player](seen, player)
        state = game.get_next_state(state, action, player)
        moves.append(int(action))
        value, terminated = game.get_value_and_terminated(state, action)
        if terminated and (stop or not game.get_valid_moves(state).any()):
            return (int(value) if winner == "value" else int(player * value)), moves
        if switch:
            player = game.get_opponent(player)


PLAY_MISTAKES = [
    Mistake(WINNER, lambda g, x, o: _loop(g, x, o, winner="value")),
    Mistake(
        "switch players after every move: player = game.get_opponent(player)",
        lambda g, x, o: _loop(g, x, o, switch=False),
    ),
    Mistake(
        "agent_x plays X (player 1) and moves first; agent_o plays O (player -1): the agents are swapped",
        lambda g, x, o: _loop(g, x, o, swap=True),
    ),
    Mistake(AS_IT_IS, lambda g, x, o: _loop(g, x, o, canonical=True)),
    Mistake(
        "stop as soon as get_value_and_terminated says the game is over, a win before the board is full",
        lambda g, x, o: _loop(g, x, o, stop=False),
    ),
]


def _as_result(result: Any) -> Any:
    """``(winner, moves)`` as plain ints: any pair of a whole number and a sequence of whole numbers serves."""

    def whole(value: Any) -> bool:
        try:
            return not isinstance(value, (bool, np.bool_)) and float(value) == int(value)
        except (TypeError, ValueError):
            return False

    try:
        winner, moves = result
    except (TypeError, ValueError):
        raise Mismatch(result, "(winner, moves)", "return the pair (winner, moves)") from None
    if not whole(winner) or isinstance(moves, (str, bytes)) or not all(whole(m) for m in moves):
        raise Mismatch(
            result, "(winner, moves)", "the winner is 1, -1 or 0 and moves a list of the actions (ints) played"
        )
    return int(winner), [int(m) for m in moves]
