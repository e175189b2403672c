"""The perfect Connect Four solver (the optional ``solver`` extra): the labels of Pons' six sets, the ``perfect``
player, the errors of the moves a player really plays, and the message without the extra."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from alphazero_lib import solver
from alphazero_lib.arena import play_match
from alphazero_lib.cli import main
from alphazero_lib.games import ConnectFour
from alphazero_lib.players import PerfectPlayer, Player, RandomPlayer
from alphazero_lib.specs import make_player
from alphazero_lib.strength import SETS, judge_games, load_set, move_errors, played_positions

GAME = ConnectFour()

needs_solver = pytest.mark.skipif(
    not solver.available(), reason=f"the perfect solver is an optional extra: {solver.INSTALL_HINT}"
)


def board(sequence: str) -> tuple[np.ndarray, int]:
    """The absolute state after ``sequence`` (1-based columns) and the side to move."""
    state, player = GAME.get_initial_state(), 1
    for column in sequence:
        state = GAME.get_next_state(state, int(column) - 1, player)
        player = -player
    return state, player


@needs_solver
@pytest.mark.parametrize("name", SETS)
def test_the_solver_labels_a_sample_of_every_set_as_the_files_do(name):
    positions = load_set(name)
    sample = range(7, len(positions), 53)  # 19 positions a set, spread over the file
    for i in sample:
        labels = solver.move_labels(positions.states[i], int(positions.to_move[i]))
        assert labels == "".join(positions.labels[i]), f"{name} position {i} ({positions.moves[i]})"
        best = max(solver.move_scores(positions.states[i], int(positions.to_move[i])).values())
        assert best == positions.scores[i]  # Pons' published score of the position


@needs_solver
def test_the_solver_reads_either_seat_and_refuses_what_is_not_a_position():
    # the empty board: only the centre wins for the first player, Pons' score 1 (a win with his last piece)
    assert solver.move_labels(GAME.get_initial_state(), 1) == "LLDWDLL"
    assert max(solver.move_scores(GAME.get_initial_state(), 1).values()) == 1
    state, player = board("444444")
    assert player == 1 and solver.move_labels(state, 1)[3] == "X"
    # the same position with the colours swapped (a state where -1 moved first) gets the same labels
    assert solver.move_labels(-state, -1) == solver.move_labels(state, 1)
    state, player = board("4455667")  # X: 4, 5, 6 on the bottom, O on top of them, X's 7 closes 4-5-6-7
    assert GAME.is_over(state) and player == -1
    with pytest.raises(ValueError, match="the game is over"):
        solver.move_scores(state, player)
    state, player = board("445566")  # X to move with 4, 5, 6 on the bottom: 3 or 7 wins at once
    assert solver.move_labels(state, player)[2] == "W" and solver.move_labels(state, player)[6] == "W"
    assert solver.move_scores(state, player)[2] == 18  # Pons: 22 - the winner's stones when it wins = 22 - 4
    state, player = board("44556")  # O to move against an open three: every move loses
    assert solver.move_labels(state, player) == "LLLLLLL"
    with pytest.raises(ValueError, match="cannot be to move with 3 pieces against 2"):
        solver.move_scores(state, -player)
    with pytest.raises(ValueError, match="6x7 Connect Four"):
        solver.move_scores(np.zeros((6, 6), dtype=np.int8), 1)
    with pytest.raises(ValueError, match="player must be 1 or -1"):
        solver.move_scores(state, 2)


# ---- the perfect player -------------------------------------------------------------------------------
@needs_solver
def test_the_perfect_player_wins_at_once_blocks_and_never_throws_a_result_away():
    perfect = make_player(GAME, "perfect", seed=0)
    assert isinstance(perfect, PerfectPlayer) and perfect.name == "perfect"
    state, player = board("445566")  # X to move with 4, 5, 6 on the bottom
    assert perfect.get_action(state, player) in (2, 6)  # a win now, not a later one
    state, player = board("11223")  # O to move: X's 1-2-3 has one open end
    assert perfect.get_action(state, player) == 3  # the one block
    state, player = board("4455")
    values = perfect.action_values(state, player)
    assert set(values.values()) <= {1, 0, -1} and perfect.get_action(state, player) in {
        a for a, v in values.items() if v == max(values.values())
    }
    # on Pons' positions its move is never an error
    for name in ("beginning_hard", "middle_medium"):
        positions = load_set(name, limit=25)
        actions = [perfect.get_action(s, int(p)) for s, p in zip(positions.states, positions.to_move, strict=True)]
        assert not move_errors(positions.labels, actions).any()


@needs_solver
def test_the_perfect_player_wins_every_game_it_moves_first_and_loses_none():
    perfect, opponent = make_player(GAME, "perfect", seed=0), make_player(GAME, "negamax:3", seed=1)
    result = play_match(GAME, perfect, opponent, 4, progress=False)
    assert result.wins_first == 2 and result.losses == 0  # the first player wins Connect Four with perfect play


def test_the_perfect_player_refuses_games_it_cannot_solve():
    with pytest.raises(ValueError, match="Tic-Tac-Toe and 6x7 Connect Four only"):
        PerfectPlayer(ConnectFour(rows=5, columns=6))
    with pytest.raises(ValueError, match="Tic-Tac-Toe and 6x7 Connect Four only"):
        make_player(ConnectFour(rows=6, columns=7, in_a_row=3), "perfect")


# ---- without the extra -------------------------------------------------------------------------------
@pytest.fixture
def no_solver(monkeypatch):
    """As if bitbully were not installed (``import bitbully`` raises ImportError)."""
    solver._engine.cache_clear()
    monkeypatch.setitem(sys.modules, "bitbully", None)
    yield
    solver._engine.cache_clear()


def test_without_the_extra_the_error_names_it_and_how_to_install_it(no_solver, capsys):
    assert not solver.available()
    for call in (lambda: make_player(GAME, "perfect"), lambda: solver.move_labels(GAME.get_initial_state(), 1)):
        with pytest.raises(solver.SolverMissing) as info:
            call()
        text = str(info.value)
        assert "solver extra" in text and 'pip install -e ".[solver]"' in text and "bitbully==0.0.79" in text
        assert "AGPL-3.0" in text
    assert make_player(make_game_tictactoe(), "perfect").name == "perfect"  # Tic-Tac-Toe needs no solver
    args = ["strength", "--player", "random", "--sets", "--against", "random", "--games", "2", "--no-progress"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "solver extra" in err and err.count("\n") == 1


def make_game_tictactoe():
    from alphazero_lib.games import TicTacToe

    return TicTacToe()


# ---- the moves of real games -----------------------------------------------------------------------
class WorstPlayer(Player):
    """Plays the worst-labelled legal move (by the solver), the lowest column among equals."""

    name = "worst"

    def get_action(self, state: np.ndarray, player: int) -> int:
        scores = solver.move_scores(state, player)
        return min(scores, key=lambda a: (np.sign(scores[a]), a))


@needs_solver
def test_judge_games_judges_the_players_own_moves_on_both_seats():
    worst, opponent = WorstPlayer(GAME), RandomPlayer(GAME, seed=3)
    match, result = judge_games(worst, opponent, 4, opening_moves=2, seed=5, progress=False)
    assert match.games == 4 and len(match.records) == 4 and result.against == opponent.name
    # every position is one where the worst player chose, after the opening, on both seats
    colours = {record.moves[ply][0] for record in match.records for ply in range(2, len(record.moves))}
    assert colours == {1, -1}
    chosen = sum(
        1
        for i, record in enumerate(match.records)
        for ply, (mover, _) in enumerate(record.moves)
        if ply >= 2 and mover == (1 if i % 2 == 0 else -1)
    )
    assert result.positions == chosen > 0
    # the worst move errs wherever the results on offer differ, and nowhere else
    positions, _ = played_positions(match, 1)
    mixed = sum(len({c for c in row if c != "X"}) > 1 for row in positions.labels)
    assert result.errors == mixed > 0
    assert positions.moves[0] == "".join(str(a + 1) for _, a in match.records[0].moves[: len(positions.moves[0])])
    # the opponent's moves, judged from the other seat: a different set of positions
    theirs, _ = played_positions(match, 2)
    assert len(theirs) == sum(len(r.moves) for r in match.records) - 4 * 2 - result.positions


@needs_solver
def test_perfect_moves_in_real_games_are_never_errors_and_the_command_prints_them(capsys):
    _, result = judge_games(make_player(GAME, "perfect", seed=0), RandomPlayer(GAME, seed=1), 2, progress=False)
    assert result.errors == 0 and result.positions > 0
    args = ["strength", "--player", "negamax:2", "--sets", "--against", "negamax:3", "--games", "2", "--no-progress"]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (row,) = data["results"]
    assert row["set"] == "games against negamax:3" and row["against"] == "negamax:3"
    assert row["positions"] > 0 and row["errors"] == len(row["error_positions"])
    assert data["paired"] == []
    assert main(args) == 0
    assert "games against negamax:3" in capsys.readouterr().out
