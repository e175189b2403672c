"""kaggle-environments adapters: its built-in agents as our players, our players as its agents, and the drivers.

The drivers (one episode, an evaluation over both seats) take players or agent functions, never spec strings:
``cli.py`` and ``specs.py`` turn specs into players.

kaggle-environments is an optional extra (``pip install -e '.[kaggle]'``); it is imported only when used.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import random
import re
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np

from alphazero_lib.games.base import Game, check_board
from alphazero_lib.games.connect_four import ConnectFour
from alphazero_lib.games.tictactoe import TicTacToe
from alphazero_lib.players import Player

#: What kaggle-environments 1.12.0 prints on import for each environment whose optional packages are missing.
_LOAD_FAILED = re.compile(r"^Loading environment \S+ failed: .*$")


def import_kaggle_environments() -> ModuleType:
    """``kaggle_environments``, imported without its ``Loading environment ... failed`` lines.

    Its first import tries every bundled environment and prints one such line for each whose optional packages
    are missing (lux_ai_s2, ...), none of which the course uses. Only those lines are dropped: anything else it
    prints is printed again, and its errors propagate. Raises ``ValueError`` with the install command when
    the optional extra is not installed.
    """
    if "kaggle_environments" in sys.modules:
        return sys.modules["kaggle_environments"]
    captured = io.StringIO()
    try:
        with contextlib.redirect_stdout(captured):
            import kaggle_environments
    except ImportError as err:
        if err.name is not None and err.name.split(".")[0] == "kaggle_environments":
            raise ValueError("this needs kaggle-environments, an optional extra: pip install -e '.[kaggle]'") from None
        raise
    finally:
        kept = [line for line in captured.getvalue().splitlines(keepends=True) if not _LOAD_FAILED.match(line)]
        sys.stdout.write("".join(kept))
    return kaggle_environments


def kaggle_agents(game: Game) -> dict[str, Any]:
    """kaggle-environments' built-in agents (name -> function) for ``game``'s environment."""
    if not isinstance(game, ConnectFour | TicTacToe):
        raise ValueError(f"kaggle-environments has agents for connect_four and tictactoe only, not {game!r}")
    import_kaggle_environments()
    if isinstance(game, ConnectFour):
        from kaggle_environments.envs.connectx.connectx import agents
    else:
        from kaggle_environments.envs.tictactoe.tictactoe import agents
    return dict(agents)


def to_observation(game: Game, state: np.ndarray, player: int) -> tuple[Any, Any]:
    """``(observation, configuration)`` as kaggle agents read them: a flat board of 0/1/2 and the mover's mark."""
    import_kaggle_environments()
    from kaggle_environments.utils import Struct

    state = check_board(game, state)
    board = [0 if v == 0 else (1 if v == 1 else 2) for v in state.reshape(-1).tolist()]
    observation = Struct(board=board, mark=1 if player == 1 else 2)
    configuration = Struct(rows=game.row_count, columns=game.column_count, inarow=getattr(game, "in_a_row", 3))
    return observation, configuration


class KagglePlayer(Player):
    """One of kaggle-environments' built-in agents (e.g. ConnectX's ``negamax``), seeded and reproducible.

    The agents draw from Python's global ``random``; the player swaps in its own ``random`` state around
    every call and restores the caller's afterwards.
    """

    def __init__(self, game: Game, agent: str, seed: int | None = None) -> None:
        super().__init__(game)
        agents = kaggle_agents(game)
        if agent not in agents:
            raise ValueError(f"kaggle-environments has no agent {agent!r} for {game!r}; known: {sorted(agents)}")
        self.agent = agents[agent]
        self.takes_configuration = len(inspect.signature(self.agent).parameters) >= 2
        self.random_state = random.Random(seed).getstate()
        self.name = f"kaggle:{agent}"

    def get_action(self, state: np.ndarray, player: int) -> int:
        observation, configuration = to_observation(self.game, state, player)
        outer = random.getstate()
        random.setstate(self.random_state)
        try:
            action = self.agent(observation, configuration) if self.takes_configuration else self.agent(observation)
        finally:
            self.random_state = random.getstate()
            random.setstate(outer)
        return int(action)


# ---- our players as kaggle agents ------------------------------------------------------------------
ENVIRONMENTS = {"ConnectFour": "connectx", "TicTacToe": "tictactoe"}


def environment_name(game: Game) -> str:
    """The kaggle-environments environment for ``game`` (``connectx`` or ``tictactoe``)."""
    name = ENVIRONMENTS.get(type(game).__name__)
    if name is None:
        raise ValueError(f"kaggle-environments plays connect_four and tictactoe only, not {game!r}")
    return name


def board_to_state(game: Game, board: list[int]) -> np.ndarray:
    """A kaggle board (flat, 0 empty, 1 and 2 the marks) as our absolute state (1, -1); ``ValueError`` for a board
    of another size or with other values."""
    flat = np.asarray(board)
    cells = game.row_count * game.column_count
    if flat.shape != (cells,):
        raise ValueError(f"a kaggle board of {game!r} is a flat list of {cells} cells, got shape {flat.shape}")
    if flat.dtype.kind not in "iu" or not np.isin(flat, (0, 1, 2)).all():
        foreign = sorted({v for v in flat.tolist() if v not in (0, 1, 2)})[:5]
        raise ValueError(f"a kaggle board holds 0 (empty), 1 and 2 (the marks), got {foreign or flat.dtype}")
    flat = flat.astype(np.int8)
    return np.where(flat == 2, -1, flat).astype(np.int8).reshape(game.row_count, game.column_count)


def as_kaggle_agent(game: Game, player: Player, time_fraction: float = 0.5) -> Any:
    """``player`` as a kaggle agent ``agent(observation, configuration) -> action``.

    It reads rows, columns and inarow from the configuration (they must match ``game``; missing ones, or no
    configuration at all, are taken to be the game's), maps the board and the mark to our state and perspective,
    and gives a searching player ``time_fraction`` of ``actTimeout`` (2 s when missing).
    """

    def entry(configuration: Any, name: str, default: Any) -> Any:
        """An entry of the configuration (a dict, a kaggle Struct, None, ...); missing or None: ``default``."""
        try:
            value = configuration[name]
        except Exception:
            return default
        return default if value is None else value

    def agent(observation: Any, configuration: Any) -> int:
        own = (game.row_count, game.column_count, getattr(game, "in_a_row", 3))
        shape = tuple(
            entry(configuration, name, value) for name, value in zip(("rows", "columns", "inarow"), own, strict=True)
        )
        if isinstance(game, ConnectFour) and shape != own:
            raise ValueError(f"this agent plays {game!r}, not rows, columns, inarow = {shape}")
        if hasattr(player, "time_limit"):
            timeout = entry(configuration, "actTimeout", 2.0)
            player.time_limit = time_fraction * (float(timeout) if isinstance(timeout, int | float) else 2.0)
        state = board_to_state(game, observation["board"])
        return int(player.get_action(state, 1 if observation["mark"] == 1 else -1))

    return agent


def environment_agent(game: Game, agent: Any) -> Any:
    """What kaggle-environments runs for ``agent``: a library ``Player`` as a kaggle agent (``as_kaggle_agent``);
    a built-in agent's name (``negamax``; ``kaggle:negamax`` also works) or an agent function as it is.

    Raises ``ValueError`` for a name that is not one of ``game``'s built-in agents, ``TypeError`` for anything else.
    """
    if isinstance(agent, Player):
        return as_kaggle_agent(game, agent)
    if isinstance(agent, str):
        name, known = agent.removeprefix("kaggle:"), kaggle_agents(game)
        if name not in known:
            raise ValueError(f"kaggle-environments has no agent {agent!r} for {game!r}; known: {sorted(known)}")
        return name
    if callable(agent):
        return agent
    raise TypeError(f"an agent is a Player, a built-in agent's name or a function, not {agent!r}")


class _CtrlC:
    """Ctrl-C during an evaluation in kaggle-environments. A ``KeyboardInterrupt`` raised inside its code is not
    safe: 1.12's ``utils.get`` swallows one in a bare ``except:`` (a long evaluation ran on), and one landing in
    ``redirect_stderr.__enter__`` leaves ``sys.stderr`` as a closed buffer (the process then died printing its
    own exit, code 1). So while its handler is in place a Ctrl-C raises at once only inside ``thinking()`` (our
    agent's move: our code, inside kaggle's blocks, which unwind cleanly); anywhere else it is remembered, and
    ``check`` between episodes raises it. Off the main thread, or with a SIGINT handler of someone else's in
    place, nothing is installed and ``check`` does nothing."""

    def __init__(self) -> None:
        self.came = False
        self.raise_now = False

    def handler(self, signum: int, frame: Any) -> None:
        self.came = True
        if self.raise_now:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def thinking(self) -> Iterator[None]:
        before, self.raise_now = self.raise_now, True
        try:
            self.check()
            yield
        finally:
            self.raise_now = before

    def check(self) -> None:
        if self.came:
            raise KeyboardInterrupt


@contextlib.contextmanager
def _ctrl_c_between_episodes(ctrl_c: _CtrlC) -> Iterator[None]:
    """Installs ``ctrl_c``'s handler for the block (see ``_CtrlC``) and puts Python's back afterwards, with
    ``sys.stdout``/``sys.stderr`` as they were on entry (kaggle-environments swaps them during a move)."""
    import signal
    import threading

    streams = sys.stdout, sys.stderr
    ours = threading.current_thread() is threading.main_thread() and (
        signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    if ours:
        signal.signal(signal.SIGINT, ctrl_c.handler)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = streams
        if ours:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def _run(game: Game, agents: list[Any], seed: Any) -> Any:
    """A fresh kaggle-environments env for ``game``, run with ``agents``; the global ``random`` (which the
    built-in agents draw from) is seeded for the run and restored afterwards. Returns the env."""
    make = import_kaggle_environments().make
    env = make(environment_name(game), debug=True)
    outer = random.getstate()
    random.seed(seed)
    try:
        env.run(agents)
    finally:
        random.setstate(outer)
    return env


def run_episode(game: Game, agent1: Any, agent2: Any, seed: int | None = 0) -> Any:
    """One kaggle-environments episode, ``agent1`` moving first; returns the env.

    Each agent is a ``Player``, a built-in agent's name or an agent function (``environment_agent``); the
    global ``random``, which the built-in agents draw from, is seeded with ``seed`` for the episode.
    """
    return _run(game, [environment_agent(game, agent1), environment_agent(game, agent2)], seed)


def episode_states(game: Game, env: Any) -> list[np.ndarray]:
    """The absolute board after every step of a finished episode (the first is the empty board)."""
    states = [board_to_state(game, step[0]["observation"]["board"]) for step in env.steps]
    return [s for i, s in enumerate(states) if i == 0 or not np.array_equal(s, states[i - 1])]


#: The line ``export-kaggle`` writes into a submission, naming the game it plays.
_EXPORTED_FOR = re.compile(r"^# ---- generated by `python -m alphazero_lib export-kaggle` for (.+) ----$", re.M)


def load_submission(path: str, game: Game | None = None) -> Any:
    """The agent of a one-file submission: its last callable, as kaggle-environments takes it.

    With ``game``, a submission for another game is refused before it runs: one exported by ``export-kaggle`` for
    another board (its header says which), or, for Tic-Tac-Toe, one that reads ConnectX's ``inarow``.
    """
    from pathlib import Path

    source = Path(path)
    if source.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a submission file")
    if not source.is_file():
        raise FileNotFoundError(f"no submission file at {path}")
    try:
        text = source.read_text(errors="replace")
    except OSError as err:
        from alphazero_lib.utils import explain_os_error

        raise explain_os_error(err, source, "read") from None
    exported = _EXPORTED_FOR.search(text)
    if game is not None and exported is not None and exported.group(1) != repr(game):
        raise ValueError(
            f"{path} was exported for {exported.group(1)} (its header says so), not {game!r}; evaluate it on its own "
            f"game (--game connect_four with the default board)"
        )
    if game is not None and isinstance(game, TicTacToe) and "inarow" in text:
        raise ValueError(f"{path} reads ConnectX's 'inarow': a Connect Four submission, not one for {game!r}")
    namespace: dict[str, Any] = {}
    try:
        exec(compile(text, str(source), "exec"), namespace)
    except Exception as err:  # a broken submission: report it as a player error, not a traceback
        where = f" (line {err.lineno})" if isinstance(err, SyntaxError) else ""
        raise ValueError(f"{path} fails to load{where}: {type(err).__name__}: {err}") from None
    agents = [value for value in namespace.values() if callable(value)]
    if not agents:
        raise ValueError(f"{path} defines no callable agent")
    return agents[-1]


def episode_outcome(final: list[dict], index: int) -> str:
    """``wins``, ``draws``, ``losses`` or ``errors`` for the agent at ``index`` from an episode's last step.

    The agent's own status other than ``DONE`` (an invalid action, an exception, a timeout) is an error; an opponent
    that failed (status not ``DONE``, reward ``None``) lost the game; otherwise the rewards decide.
    """
    ours, theirs = final[index], final[1 - index]
    if ours["status"] != "DONE":
        return "errors"
    if theirs["status"] != "DONE" or theirs["reward"] is None:
        return "wins"
    if ours["reward"] == theirs["reward"]:
        return "draws"
    return "wins" if ours["reward"] > theirs["reward"] else "losses"


def evaluate_against_builtin(
    game: Game,
    agent: Any,
    opponent: str,
    episodes: int = 10,
    seed: int = 0,
    progress: bool = True,
    name: str | None = None,
) -> dict:
    """``agent`` (a ``Player``, or an agent function such as ``load_submission``'s) against the built-in agent
    ``opponent`` in kaggle-environments, ``episodes`` on each seat; ``seed`` seeds the episodes.

    Returns wins/draws/losses/errors per seat for ``agent`` and the largest time one of its moves took, under
    ``"spec"`` its ``name`` (default: the player's name, or the function's). An invalid move or a timeout is
    an error (kaggle-environments ends the episode and scores it). Raises ``ValueError`` for an unknown opponent.
    Ctrl-C raises ``utils.Interrupted`` (a ``KeyboardInterrupt``) whose ``partial`` is the same dict over the
    episodes finished so far, with ``"interrupted": True``; the score is over those episodes.
    """
    import time

    from tqdm.auto import tqdm

    from alphazero_lib.utils import Interrupted

    known = kaggle_agents(game)
    if opponent.removeprefix("kaggle:") not in known:
        raise ValueError(f"kaggle-environments has no agent {opponent!r} for {game!r}; known: {sorted(known)}")
    if isinstance(agent, str):  # a spec or a file name: the caller builds the player (specs.make_player)
        raise TypeError(f"evaluate_against_builtin plays a Player or an agent function, not the string {agent!r}")
    base = environment_agent(game, agent)
    spec = name if name is not None else getattr(agent, "name", None) or getattr(agent, "__name__", repr(agent))
    longest = [0.0]

    ctrl_c = _CtrlC()

    def timed(observation: Any, configuration: Any) -> int:
        start = time.perf_counter()
        with ctrl_c.thinking():
            action = base(observation, configuration)
        longest[0] = max(longest[0], time.perf_counter() - start)
        return action

    results = {seat: {"wins": 0, "draws": 0, "losses": 0, "errors": 0} for seat in ("first", "second")}

    def summary(interrupted: bool) -> dict:
        total = {k: results["first"][k] + results["second"][k] for k in results["first"]}
        played = sum(total.values())
        return {
            "spec": spec,
            "opponent": opponent,
            "episodes_per_seat": episodes,
            **results,
            "total": total,
            "score": (total["wins"] + 0.5 * total["draws"]) / played if played else None,
            "max_move_seconds": round(longest[0], 3),
            "episodes_played": played,
            "interrupted": interrupted,
        }

    bar = tqdm(total=2 * episodes, desc=f"{spec} vs {opponent}", disable=not progress, leave=False)
    rng = random.Random(seed)
    try:
        with _ctrl_c_between_episodes(ctrl_c):
            for seat, index in (("first", 0), ("second", 1)):
                for _ in range(episodes):
                    agents = [timed, opponent.removeprefix("kaggle:")]
                    if index == 1:
                        agents.reverse()
                    env = _run(game, agents, rng.random())
                    ctrl_c.check()  # a Ctrl-C that came during the episode: it is not counted
                    results[seat][episode_outcome(env.steps[-1], index)] += 1
                    bar.update(1)
    except KeyboardInterrupt:
        raise Interrupted(summary(interrupted=True)) from None
    finally:
        bar.close()
    return summary(interrupted=False)


def plot_evaluation(results: list[dict], ax: Any = None) -> Any:
    """Stacked win/draw/loss bars per opponent and seat from ``evaluate_against_builtin`` results; returns the axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(1.6 * len(results) + 2, 3))
    labels, bottoms = [], np.zeros(2 * len(results))
    rows = []
    for r in results:
        for seat in ("first", "second"):
            labels.append(f"{r['opponent']}\n({seat})")
            rows.append(r[seat])
    for key, color in (("wins", "#2e7d32"), ("draws", "#9e9e9e"), ("losses", "#c62828"), ("errors", "black")):
        heights = np.array([row[key] for row in rows], dtype=float)
        ax.bar(labels, heights, bottom=bottoms, color=color, label=key)
        bottoms += heights
    ax.set_ylabel("episodes")
    ax.legend(fontsize=8, loc="lower right")
    return ax
