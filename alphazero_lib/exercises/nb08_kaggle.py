"""Checks for notebook 08 (Kaggle): a ConnectX / tic-tac-toe agent function around a search, and its evaluation.

The learner writes the observation -> canonical state conversion, the best legal action of a search's
probabilities, ``agent(observation, configuration)`` built from the two, the outcome of one finished episode from
the agent's side, and the evaluation over both seats. Each ``check_*`` compares with the references below (the
semantics of ``alphazero_lib.kaggle``) on many seeded cases.
"""

from __future__ import annotations

import contextlib
import io
import random
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from alphazero_lib.exercises import positions
from alphazero_lib.exercises.core import Case, Mismatch, Mistake, check, hints_for, miss, on_copies
from alphazero_lib.games import ConnectFour, TicTacToe
from alphazero_lib.kaggle import board_to_state, import_kaggle_environments
from alphazero_lib.kaggle.environment import episode_outcome, to_observation

CONNECT_FOUR, TICTACTOE = ConnectFour(), TicTacToe()
SHORT = {ConnectFour: "c4", TicTacToe: "ttt"}  # the games' names in a case's call
OUTCOMES = ("wins", "draws", "losses", "errors")
PYTHON_INT = "return a Python int (int(...)): kaggle-environments rejects a numpy integer as an invalid action"

HINTS = {
    "observation_to_state": "read observation['board'] and observation['mark'] with keys (a plain dict in the "
    "notebook, a Struct from kaggle: both take keys); reshape the board row by row to (game.row_count, "
    "game.column_count); the agent's own mark becomes 1, the other mark -1, empty stays 0; .astype(np.int8).",
    "best_legal_action": "put the illegal actions below any probability (np.where(valid_moves > 0, probabilities, "
    "-1.0)), take np.argmax (the first maximum) and return int(...).",
    "make_agent": "inside make_agent define agent(observation, configuration): state = observation_to_state(game, "
    "observation); return best_legal_action(search(state), game.get_valid_moves(state)); return agent.",
    "outcome": "your own status first (not 'DONE': an invalid action, an exception or a timeout is 'errors'); then "
    "the opponent's (the OPPONENT failed, not 'DONE' or reward None: 'wins'); then compare the two rewards, "
    "final[index] the agent's, final[1 - index] the opponent's.",
    "evaluate_both_seats": "for index, seat in enumerate(['first', 'second']): episodes times: a fresh "
    "make(environment, debug=True); run [agent, opponent] (index 0) or [opponent, agent] (index 1); count "
    "outcome(env.steps[-1], index).",
}
hint, solution = hints_for(HINTS, "08_kaggle_playoffs.ipynb")


# ---- the references (the library's semantics) -------------------------------------------------------------
def reference_observation_to_state(game: Any, observation: Any) -> np.ndarray:
    """The absolute state (``kaggle.board_to_state``) seen from the agent's mark."""
    player = 1 if observation["mark"] == 1 else -1
    return (board_to_state(game, list(observation["board"])) * player).astype(np.int8)


def reference_best_legal_action(probabilities: Any, valid_moves: Any) -> int:
    """The most probable legal action, lowest index on ties; a legal one even when every legal probability is 0
    (as ``kaggle.agent.Agent`` does: illegal columns get -1 before the argmax)."""
    return int(np.argmax(np.where(np.asarray(valid_moves) > 0, np.asarray(probabilities, dtype=np.float64), -1.0)))


def reference_make_agent(game: Any, search: Callable[[np.ndarray], Any]) -> Callable[[Any, Any], int]:
    """``agent(observation, configuration)``: canonical state, search, best legal action (a Python int)."""

    def agent(observation: Any, configuration: Any) -> int:
        state = reference_observation_to_state(game, observation)
        return reference_best_legal_action(search(state), game.get_valid_moves(state))

    return agent


reference_outcome = episode_outcome  # as ``kaggle.environment.evaluate_against_builtin`` counts its episodes


def reference_evaluate_both_seats(
    agent: Any,
    opponent: Any,
    episodes: int,
    environment: str = "connectx",
    outcome: Callable = reference_outcome,
    *,
    planted: str = "",
) -> dict:
    """``episodes`` kaggle-environments episodes with ``agent`` moving first, then as many moving second
    (``planted``: one of the check's known mistakes, ``"same seat"`` or ``"index 0"``)."""
    make = import_kaggle_environments().make
    results = {seat: dict.fromkeys(OUTCOMES, 0) for seat in ("first", "second")}
    for index, seat in enumerate(("first", "second")):
        for _ in range(episodes):
            env = make(environment, debug=True)
            env.run([agent, opponent] if index == 0 or planted == "same seat" else [opponent, agent])
            results[seat][outcome(env.steps[-1], 0 if planted == "index 0" else index)] += 1
    return results


# ---- the cases' inputs -------------------------------------------------------------------------------------
def observation(game: Any, state: np.ndarray, mark: int, plain: bool = False) -> Any:
    """The library's kaggle observation (``to_observation``) of an absolute state for mark 1 or 2: a ``Struct``,
    as kaggle-environments passes, or with ``plain`` a dict (keys only), as the notebook's own cells pass."""
    obs = to_observation(game, state, 1 if mark == 1 else -1)[0]
    obs.update(step=int(np.count_nonzero(state)), remainingOverageTime=60)
    return dict(obs) if plain else obs


def _called(f: Any, *args: Any) -> Any:
    """``f(*args)`` on copies of ``args``; a Mismatch when ``f`` changed them."""
    hint = "do not change what you are given: build new arrays."
    return on_copies(f, *args, changed=miss("changed inputs", "inputs unchanged", hint))


def _python_int(got: Any, expected: int) -> Any:
    """``got``, or a Mismatch when it is a number but not a Python int (kaggle-environments rejects those)."""
    if isinstance(got, (np.integer, np.floating, bool)) or (isinstance(got, float) and float(got).is_integer()):
        raise miss(f"{type(got).__name__}({got})", f"int({expected})", PYTHON_INT)
    return got


def _obs_text(obs: Any) -> str:
    return f"{{'board': {list(obs['board'])}, 'mark': {obs['mark']}}}"


# ---- exercise 1: observation -> canonical state ---------------------------------------------------------------
def check_observation_to_state(learner: Any) -> Callable[[Any, Any], np.ndarray]:
    """``observation_to_state(game, observation)``: the boards of seeded random Connect Four and tic-tac-toe games
    (the empty board, full boards and finished games included), each seen with mark 1 and with mark 2."""

    def cases() -> list[Case]:
        out = []
        for game, count, seed in ((CONNECT_FOUR, 60, 80), (TICTACTOE, 40, 81)):
            for k, state in enumerate(positions.game_boards(game, count, np.random.default_rng(seed))):
                for mark in (2, 1) if k % 2 else (1, 2):
                    out.append(_state_case(game, observation(game, state, mark, plain=k % 3 == 0)))
        return out

    return check("observation_to_state", learner, reference_observation_to_state, cases, STATE_MISTAKES)


def _state_case(game: Any, obs: Any) -> Case:
    def run(f: Any) -> np.ndarray:
        try:
            return _called(partial(f, game), obs)
        except AttributeError as error:
            if hasattr(obs, "board"):
                raise
            raise miss(
                f"AttributeError: {error}",
                "the state",
                "the notebook passes a plain dict: read "
                "observation['board'] and observation['mark'] with keys (kaggle's Struct takes keys "
                "too)",
            ) from None

    kind = "a dict" if type(obs) is dict else "a Struct"
    call = f"observation_to_state({SHORT[type(game)]}, {_obs_text(obs)})  # {kind}"
    return Case(call, run, reference_observation_to_state(game, obs), HINTS["observation_to_state"])


STATE_MISTAKES = [  # the reference with one change: the absolute board, empties, the board read by columns, floats
    Mistake(
        "the agent's OWN mark becomes 1 whichever it is (mark 2 too), the other mark -1",
        lambda game, obs: board_to_state(game, list(obs["board"])),
    ),
    Mistake(
        "empty cells stay 0: only the two marks become 1 and -1",
        lambda game, obs: np.where(reference_observation_to_state(game, obs) == 1, 1, -1).astype(np.int8),
    ),
    Mistake(
        "the board is flat row by row: reshape(game.row_count, game.column_count) directly",
        lambda game, obs: reference_observation_to_state(
            game,
            {"mark": obs["mark"], "board": list(np.reshape(obs["board"], (game.column_count, game.row_count)).T.flat)},
        ),
    ),
    Mistake(
        "a board of integers: .astype(np.int8) (the search and the rules compare cells with 1 and -1)",
        lambda game, obs: reference_observation_to_state(game, obs).astype(np.float64),
    ),
]


# ---- exercise 2: the best legal action -------------------------------------------------------------------------
def check_best_legal_action(learner: Any) -> Callable[[Any, Any], int]:
    """``best_legal_action(probabilities, valid_moves)``: mass on illegal actions, ties, all-zero legal
    probabilities, a single legal action, and 150 seeded random vectors over 7 columns and 9 cells."""

    def cases() -> list[Case]:
        rng = np.random.default_rng(82)
        rows = [
            ([0.1, 0.2, 0.7, 0, 0, 0, 0], [1, 1, 0, 1, 1, 1, 1], "the best column (2) is full: skip it."),
            (
                [0, 0, 0, 1.0, 0, 0, 0],
                [1, 1, 1, 0, 1, 1, 1],
                "every legal column has probability 0: still answer a LEGAL column (the lowest).",
            ),
            (
                [0.0] * 7,
                [0, 0, 1, 1, 0, 0, 0],
                "all zeros: an argmax of probabilities * valid_moves can land on an illegal column 0.",
            ),
            ([0.3, 0.3, 0.4, 0, 0, 0, 0], [1, 1, 0, 1, 1, 1, 1], "ties go to the lowest legal index."),
            ([0.5] + [0.0] * 8, [0, 0, 0, 0, 1, 0, 0, 0, 0], "one legal cell: play it."),
        ]
        for k in range(150):
            size = 7 if k % 3 else 9
            valid = (rng.random(size) < rng.uniform(0.2, 1.0)).astype(np.uint8)
            valid[rng.integers(size)] = 1
            probs = rng.dirichlet(np.full(size, 0.5))
            probs = np.round(probs, 1) if k % 5 == 0 else probs  # ties
            rows.append((probs, valid, HINTS["best_legal_action"]))
        return [_action_case(np.asarray(p, dtype=np.float64), np.asarray(v, dtype=np.uint8), h) for p, v, h in rows]

    return check("best_legal_action", learner, reference_best_legal_action, cases, ACTION_MISTAKES)


def _action_case(probabilities: np.ndarray, valid: np.ndarray, hint: str) -> Case:
    expected = reference_best_legal_action(probabilities, valid)
    call = f"best_legal_action({np.round(probabilities, 3).tolist()}, {valid.tolist()})"
    return Case(
        call,
        lambda f: _python_int(_called(f, probabilities, valid), expected),
        expected,
        hint,
        same=lambda got, want: type(got) is int and got == want,
    )


ACTION_MISTAKES = [  # the reference with one change: a mask by product, no mask, numpy's integer, ties to the last
    Mistake(
        "probabilities * valid_moves leaves 0 on the illegal actions, which ties with legal actions of "
        "probability 0 and can win the argmax: put them BELOW any probability (-1)",
        lambda p, v: reference_best_legal_action(p * v, np.ones_like(v)),
    ),
    Mistake("mask the illegal actions before the argmax", lambda p, v: reference_best_legal_action(p, np.ones_like(v))),
    Mistake(PYTHON_INT, lambda p, v: np.int64(reference_best_legal_action(p, v))),
    Mistake(
        "ties go to the LOWEST index: np.argmax takes the first maximum",
        lambda p, v: len(p) - 1 - reference_best_legal_action(p[::-1], v[::-1]),
    ),
]


# ---- exercise 3: the agent function ---------------------------------------------------------------------------
def _own_pieces(state: np.ndarray) -> np.ndarray:
    """A stand-in search that prefers the columns / cells where the mover (1) is strong."""
    s = np.asarray(state)
    if s.shape == (3, 3):
        score = np.array([[np.sum(s[r] == 1) + np.sum(s[:, c] == 1) for c in range(3)] for r in range(3)])
        score = (score + 0.1 * np.arange(9).reshape(3, 3)) * (s == 0)
        return score.reshape(-1) / max(score.sum(), 1e-9)
    score = (s == 1).sum(axis=0) + 0.5 * (s == -1).sum(axis=0) + 0.01 * np.arange(s.shape[1])
    return score / score.sum()


def _likes_full(state: np.ndarray) -> np.ndarray:
    """A stand-in search that puts weight on full columns and taken cells, as an untrained one may."""
    s = np.asarray(state)
    flat = s[0] if s.shape[0] == 6 else s.reshape(-1)
    score = (flat != 0) * 2.0 + 0.01 * np.arange(flat.size) + (s == -1).sum() % 3
    return score / score.sum()


def check_make_agent(learner: Any) -> Callable[[Any, Any], Callable[[Any, Any], int]]:
    """``make_agent(game, search)``: two stand-in searches (one prefers the mover's own columns, so a wrong
    perspective shows) on live positions of seeded random Connect Four and tic-tac-toe games, both marks."""

    def cases() -> list[Case]:
        out = []
        for game, count, seed in ((CONNECT_FOUR, 50, 83), (TICTACTOE, 30, 84)):
            boards = positions.game_boards(game, count, np.random.default_rng(seed))
            live = [s for s in boards if not game.is_over(s)]
            for k, state in enumerate(live):
                for name, search in (("own_pieces", _own_pieces), ("likes_full", _likes_full)):
                    out.append(_agent_case(game, name, search, observation(game, state, 1 + (k + len(name)) % 2)))
        return out

    return check("make_agent", learner, reference_make_agent, cases, AGENT_MISTAKES)


AGENT_MISTAKES = [
    Mistake(
        "play the best LEGAL action: best_legal_action(probabilities, game.get_valid_moves(state)), not the "
        "plain argmax (the search may put weight on a full column)",
        lambda game, search: lambda obs, conf: int(np.argmax(search(reference_observation_to_state(game, obs)))),
    ),
]


def _agent_case(game: Any, name: str, search: Callable, obs: Any) -> Case:
    import_kaggle_environments()
    from kaggle_environments.utils import Struct

    conf = Struct(actTimeout=1)  # kaggle's configuration: tic-tac-toe's has no rows or columns
    if isinstance(game, ConnectFour):
        conf = Struct(rows=game.row_count, columns=game.column_count, inarow=game.in_a_row, actTimeout=2)
    expected = reference_make_agent(game, search)(obs, conf)
    canonical = reference_observation_to_state(game, obs)

    def run(f: Any) -> int:
        seen = []

        def recording(state: np.ndarray) -> Any:
            seen.append(np.array(state, copy=True))
            return search(state)

        try:
            agent = f(game, recording)
        except (NameError, TypeError) as error:  # the inner function called where it is defined
            raise Mismatch(
                f"{type(error).__name__}: {error}",
                "a function agent(observation, configuration)",
                "make_agent returns the agent function itself (return agent), not a call of it: kaggle calls it "
                "with each observation later",
            ) from None
        if not callable(agent):
            raise Mismatch(agent, "a function agent(observation, configuration)", "return the inner agent function.")
        got = agent(obs, conf)
        if len(seen) != 1:
            raise miss(f"{len(seen)} searches", "1 search", "call the search exactly once per move.")
        if not np.array_equal(np.asarray(seen[0]).reshape(canonical.shape), canonical):
            raise Mismatch(
                seen[0], canonical, "search the CANONICAL state (the agent's pieces as 1): convert the observation."
            )
        return _python_int(got, expected)

    call = f"make_agent({SHORT[type(game)]}, {name})({_obs_text(obs)}, configuration)"
    return Case(call, run, expected, HINTS["make_agent"])


# ---- exercise 4: one episode's outcome -------------------------------------------------------------------------
def check_outcome(learner: Any) -> Callable[[list[dict], int], str]:
    """``outcome(final, index)``: wins, losses and draws, the agent's own invalid action, exception or timeout,
    and the opponent's, each seen from both indices."""

    def cases() -> list[Case]:
        done = ((1, -1), (-1, 1), (0, 0))
        finals = [[{"reward": a, "status": "DONE"}, {"reward": b, "status": "DONE"}] for a, b in done]
        for status in ("INVALID", "ERROR", "TIMEOUT"):
            finals.append([{"reward": None, "status": status}, {"reward": 0, "status": "DONE"}])
            finals.append([{"reward": 0, "status": "DONE"}, {"reward": None, "status": status}])
        finals.append([{"reward": 0.5, "status": "DONE"}, {"reward": 0.5, "status": "DONE"}])  # another env's draw
        return [_outcome_case(final, index) for final in finals for index in (0, 1)]

    return check("outcome", learner, reference_outcome, cases, OUTCOME_MISTAKES)


def _outcome_case(final: list[dict], index: int) -> Case:
    text = [{k: f[k] for k in ("reward", "status")} for f in final]
    return Case(
        f"outcome({text}, {index})",
        lambda f: _called(f, final, index),
        reference_outcome(final, index),
        HINTS["outcome"],
    )


OUTCOME_MISTAKES = [  # the reference read from index 0, or with the opponent's failure as the agent's error
    Mistake(
        "read the episode from the agent's side: final[index] is the agent, final[1 - index] the opponent",
        lambda final, index: episode_outcome(final, 0),
    ),
    Mistake(
        "an OPPONENT that failed (an invalid action, an exception, a timeout) lost the game: that is a win for "
        "the agent, not an error of its own",
        lambda final, index: (
            "errors" if episode_outcome(final, 1 - index) == "errors" else episode_outcome(final, index)
        ),
    ),
    Mistake(
        "look at the OPPONENT's status before the rewards: an opponent that failed (not 'DONE', its reward None) lost "
        "the game, a win for the agent whatever the two rewards are",
        lambda final, index: _rewards_only(final[index], final[1 - index]),
    ),
]


def _rewards_only(ours: dict, theirs: dict) -> str:
    """``episode_outcome`` without its look at the opponent's status: a failed opponent's reward None is compared."""
    if ours["status"] != "DONE":
        return "errors"
    if ours["reward"] == theirs["reward"]:
        return "draws"
    return "wins" if ours["reward"] == 1 else "losses"


# ---- exercise 5: both seats -----------------------------------------------------------------------------------
def _column_agent(order: list[int]) -> Callable[[Any, Any], int]:
    """A deterministic agent: the first free column (ConnectX) or cell (tic-tac-toe) in ``order``."""

    def agent(observation: Any, configuration: Any) -> int:
        board = observation["board"]
        cells = range(configuration.get("columns", 3)) if "rows" in configuration else range(len(board))
        free = [c for c in order if c in cells and board[c] == 0]
        return int(free[0])

    return agent


def _both_seats(f: Any, agent: Any, opponent: Any, episodes: int, env: str) -> Any:
    """The learner's counts with the library's ``outcome`` (Python's ``random`` state kept), as plain dicts of ints
    where they can be (a defaultdict or Counter compares the same); a Mismatch when a seat's counts do not add up to
    ``episodes`` games."""
    state = random.getstate()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            got = f(agent, opponent, episodes, env, outcome=reference_outcome)
    finally:
        random.setstate(state)
    with contextlib.suppress(Exception):
        got = {seat: {k: int(got[seat].get(k, 0)) for k in OUTCOMES} for seat in ("first", "second")}
    for seat, counts in got.items() if isinstance(got, dict) and set(got) == {"first", "second"} else ():
        if isinstance(counts, dict) and all(isinstance(v, int) for v in counts.values()):
            n = sum(counts.values())
            if n != episodes:
                raise Mismatch(
                    got,
                    f"{episodes} games on each seat",
                    f"your counts on the {seat!r} seat add up to "
                    f"{n} game{'s' if n != 1 else ''}, not episodes = {episodes}: play exactly `episodes` "
                    f"games on each seat, one outcome counted per game",
                )
    return got


def check_evaluate_both_seats(learner: Any) -> Callable[..., dict[str, dict[str, int]]]:
    """``evaluate_both_seats(agent, opponent, episodes, environment="connectx", outcome=outcome)``: deterministic
    agents (leftmost legal, centre-first, rightmost, one that always plays an illegal column) in ConnectX and
    tic-tac-toe, 1 or 2 episodes a seat, so both sides of the comparison play the very same games."""
    agents = {
        "left": _column_agent(list(range(9))),
        "centre": _column_agent([3, 2, 4, 1, 5, 0, 6]),
        "right": _column_agent(list(range(8, -1, -1))),
        "illegal": lambda obs, conf: 99,
        "ttt_centre": _column_agent([4, 0, 2, 6, 8, 1, 3, 5, 7]),
    }
    trials = [
        ("left", "centre", 1, "connectx"),
        ("centre", "left", 2, "connectx"),
        ("right", "centre", 1, "connectx"),
        ("illegal", "left", 1, "connectx"),
        ("left", "illegal", 1, "connectx"),
        ("ttt_centre", "left", 1, "tictactoe"),
        ("left", "right", 2, "tictactoe"),
    ]

    def cases() -> list[Case]:
        out = []
        for a_name, o_name, episodes, env in trials:
            args = (agents[a_name], agents[o_name], episodes, env)
            with contextlib.redirect_stdout(io.StringIO()):  # kaggle-environments prints invalid actions
                expected = reference_evaluate_both_seats(*args)
            call = f"evaluate_both_seats({a_name}, {o_name}, {episodes}, {env!r})"
            out.append(Case(call, lambda f, args=args: _both_seats(f, *args), expected, HINTS["evaluate_both_seats"]))
        return out

    return check("evaluate_both_seats", learner, reference_evaluate_both_seats, cases, SEATS_MISTAKES)


SEATS_MISTAKES = [
    Mistake(
        "in the 'second' games the agent moves second: put it at index 1 of the list of agents, [opponent, agent]",
        partial(reference_evaluate_both_seats, planted="same seat"),
    ),
    Mistake(
        "read each episode's outcome with the agent's index: 0 in the 'first' games, 1 in the 'second' games",
        partial(reference_evaluate_both_seats, planted="index 0"),
    ),
]
