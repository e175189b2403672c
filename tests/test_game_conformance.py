"""Every registered game passes ``games.conformance.check_game`` (against naive reference rules where the tests
have them), and a new game is one file and a registry line (issue 26, item 2): Gomoku on 7 x 7, five in a row,
written here and nowhere else, passes the same check and trains.

The registry (``alphazero_lib.games.GAMES``) is the only list of games the tests read (issue 49, item 5): a game
registered is a game tested, here and wherever a test runs "for every game" (test_games.py, test_model.py,
test_board_style.py; the search and self-play tests over ``positions.distinct_games()``), with no test file to
edit. Naive rules in ``tests/reference.py`` (``reference_for``) are an extra check that a game may get, not a
condition for being tested."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from reference import reference_for

from alphazero_lib.games import GAMES, make_game
from alphazero_lib.games.base import Game, check_stone_counts, inverse_square_symmetry, square_symmetry
from alphazero_lib.games.conformance import GameConformanceError, check_game
from alphazero_lib.games.style import BoardStyle
from alphazero_lib.games.tictactoe import line_through

# playouts per game: every registered game, and the variants the course uses (small boards train fast)
PLAYOUTS = {"tictactoe": 400, "connect_four": 150, "othello": 8, "othello6": 30}
VARIANTS = [("connect_four", {"rows": 5, "columns": 4, "in_a_row": 3}, 150), ("othello", {"size": 4}, 150)]
CASES = [(name, {}, PLAYOUTS.get(name, 20)) for name in GAMES] + VARIANTS


@pytest.mark.parametrize(("name", "options", "playouts"), CASES, ids=[f"{n}{o or ''}" for n, o, _ in CASES])
def test_every_registered_game_conforms(name, options, playouts):
    """The shared check for every registry entry; where reference.py has naive rules for the game, every move and
    outcome of the playouts is held to them too."""
    game = make_game(name, **options)
    check_game(game, playouts=playouts, seed=11, reference=reference_for(game))


def test_the_games_of_the_library_have_naive_rules():
    """Tic-Tac-Toe, Connect Four and Othello are checked against reference.py's naive rules (a game registered
    without them is still checked by the shared conformance check above)."""
    from alphazero_lib.games import ConnectFour, Othello, TicTacToe

    for cls in (TicTacToe, ConnectFour, Othello):
        assert reference_for(cls()) is not None, cls


# A game no test file knows, registered before the tests are collected (a pytest plugin, loaded with -p).
THROWAWAY_GAME = """
from alphazero_lib.games import GAMES, TicTacToe


class Noughts(TicTacToe):
    \"\"\"Tic-Tac-Toe under another name: registered here, known to no test, with no naive rules in reference.py.\"\"\"

    registry_name = "noughts"


GAMES["noughts"] = (Noughts, {})
"""


def test_a_game_registered_is_a_game_tested(tmp_path):
    """Register a throwaway game (in a plugin, nowhere in the project) and run the test files that test every game:
    each runs its "every game" tests for it too, the conformance check included, and they pass."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "throwaway_game.py").write_text(THROWAWAY_GAME)
    tests = Path(__file__).parent
    files = [tests / name for name in ("test_game_conformance.py", "test_games.py", "test_model.py")]
    files.append(tests / "test_search_policies.py")  # every policy's conformance, over distinct_games()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "pytest", *map(str, files), "-p", "throwaway_game", "-o", "addopts=", "-q"]
    command += ["-p", "no:cacheprovider", "-k", "noughts or Noughts", "-rA"]
    done = subprocess.run(command, capture_output=True, text=True, env={**env, "OMP_NUM_THREADS": "1"}, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    passed = {line.split("::")[1].split("[")[0] for line in done.stdout.splitlines() if line.startswith("PASSED")}
    assert {
        "test_every_registered_game_conforms",  # the shared check, without naive rules
        "test_values_other_than_minus_one_zero_and_one_are_refused",
        "test_every_position_of_real_games_passes_the_checks_from_both_views",
        "test_every_picture_of_a_board_refuses_what_is_not_one",
        "test_forward_shapes_and_value_range",
        "test_batched_equals_serial_game_by_game_without_noise",  # each search policy on it
    } <= passed, done.stdout[-3000:]


# ---- a new game, in this file only ---------------------------------------------------------------------------
class Gomoku(Game):
    """Gomoku on a small square board: place a stone on any empty cell; five in a row wins (free-style)."""

    registry_name = "gomoku"
    _line_length = 5
    board_style = BoardStyle(
        background="#dcb35c",
        pieces="disc",
        colors=("#111111", "#f5f5f5"),
        color_names=("black", "white"),
        grid_color="#000000",
    )

    def __init__(self, size: int = 7) -> None:
        self.size = self.row_count = self.column_count = int(size)
        self.action_size = self.size * self.size

    @property
    def options(self) -> dict[str, Any]:
        return {"size": self.size}

    @property
    def max_game_length(self) -> int:
        return self.action_size

    def get_valid_moves(self, state: np.ndarray, player: int = 1) -> np.ndarray:
        return (self.check_state(state).reshape(-1) == 0).astype(np.uint8)

    def _apply(self, state: np.ndarray, action: int, player: int) -> None:
        state[divmod(action, self.size)] = player

    def check_win(self, state: np.ndarray, action: int | None) -> bool:
        state = self.check_state(state, reachable=False)
        return action is not None and line_through(state, *divmod(int(action), self.size), 5)

    def _check_position(self, data: bytes) -> None:
        check_stone_counts(data)

    @property
    def num_symmetries(self) -> int:
        return 8

    def apply_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k, policy = self._check_symmetry(k, policy)
        board = policy.reshape(self.size, self.size)
        return square_symmetry(k, state).copy(), square_symmetry(k, board).reshape(-1).copy()

    def invert_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k, policy = self._check_symmetry(k, policy)
        board = policy.reshape(self.size, self.size)
        return inverse_square_symmetry(k, state).copy(), inverse_square_symmetry(k, board).reshape(-1).copy()

    def action_to_string(self, action: int) -> str:
        row, column = divmod(int(action), self.size)
        return f"{'abcdefghijklmnopqrs'[column]}{self.size - row}"

    def render(self, state: np.ndarray) -> str:
        return "\n".join(" ".join({1: "X", -1: "O", 0: "."}[int(v)] for v in row) for row in state)


@pytest.fixture
def gomoku(monkeypatch) -> Game:
    monkeypatch.setitem(GAMES, "gomoku", (Gomoku, {}))  # the registry line
    return make_game("gomoku")


def test_a_game_written_in_one_file_conforms(gomoku):
    check_game(gomoku, playouts=12, seed=3)


def test_a_game_written_in_one_file_trains_and_plays(gomoku, tmp_path):
    """Batched self-play (the generic batched rules), a saved run that resumes, and a player of its network."""
    from alphazero_lib.arena import play_match
    from alphazero_lib.config import SearchConfig
    from alphazero_lib.players import AlphaZeroPlayer, RandomPlayer
    from alphazero_lib.rundir import open_run
    from alphazero_lib.training import build_trainer

    tiny = dict(
        num_res_blocks=1,
        num_hidden=8,
        num_searches=8,
        games_per_iteration=4,
        num_parallel_games=4,
        self_play="batched",
        num_iterations=2,
        batch_size=32,
        device="cpu",
        num_threads=1,
    )
    run = open_run(tmp_path / "run", game="gomoku", overrides=tiny)
    trainer = build_trainer(run.game, run.config, progress=False, run=run)
    history = trainer.learn()
    assert [r["iteration"] for r in history] == [1, 2] and all(r["samples"] > 0 for r in history)
    assert json.loads((run.path / "config.json").read_text())["game"] == {"name": "gomoku", "size": 7}
    resumed = open_run(run.path, resume=True, overrides={"num_iterations": 3}, say=lambda _: None)
    again = build_trainer(resumed.game, resumed.config, progress=False, run=resumed)
    again.resume()
    assert again.iteration == 2 and again.replay  # the replay buffer came back with the weights
    again.learn()
    assert again.iteration == 3
    player = AlphaZeroPlayer(gomoku, again.model, SearchConfig(num_searches=4))
    result = play_match(gomoku, player, RandomPlayer(gomoku, seed=0), num_games=2, progress=False, seed=0)
    assert result.games == 2


# ---- the check goes red on the faults it names --------------------------------------------------------------
class MutatingGomoku(Gomoku):
    def get_valid_moves(self, state: np.ndarray, player: int = 1) -> np.ndarray:
        mask = super().get_valid_moves(state, player)
        if np.count_nonzero(state) == 3:
            state.flat[np.flatnonzero(state)[0]] *= -1  # changes the caller's board
        return mask


class LeakyMask(Gomoku):
    def _valid_moves(self, state: np.ndarray, player: int) -> np.ndarray:
        return super().get_valid_moves(state, player)  # what get_next_state goes by

    def get_valid_moves(self, state: np.ndarray, player: int = 1) -> np.ndarray:
        mask = super().get_valid_moves(state, player)
        occupied = np.flatnonzero(np.asarray(state).reshape(-1))
        if len(occupied):
            mask[occupied[0]] = 1  # an occupied cell said legal
        return mask


class WrongBatchedRules(Gomoku):
    def batched_rules(self) -> Any:
        from alphazero_lib.games.batched_rules import BatchedRules

        class Rules(BatchedRules):
            def value_and_terminated(self, child_states, actions):
                values, terminated = super().value_and_terminated(child_states, actions)
                return values, terminated & (values > 0)  # a full board is never the end

        return Rules(self)


class OneWaySymmetry(Gomoku):
    def invert_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.apply_symmetry(k, state, policy)  # right for flips and half turns only


class NeverEnds(Gomoku):
    _line_length = None  # a won game still accepts moves


@pytest.mark.parametrize(
    ("cls", "options", "message"),
    [
        (MutatingGomoku, {}, "get_valid_moves changed its input state"),
        (LeakyMask, {}, "get_valid_moves says"),
        (WrongBatchedRules, {"size": 3}, "batched rules"),
        (OneWaySymmetry, {}, "invert_symmetry(1) does not give the"),
        (NeverEnds, {}, "the game is over after"),
    ],
)
def test_the_check_names_a_planted_fault(cls, options, message):
    with pytest.raises(GameConformanceError) as caught:
        check_game(cls(**options), playouts=6, seed=0)
    assert message in str(caught.value), str(caught.value)
