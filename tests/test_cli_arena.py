"""The arena, play and demo commands, player specs and their errors."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from alphazero_lib import checkpoints, make_game, make_player
from alphazero_lib.arena import play_match
from alphazero_lib.cli import main
from alphazero_lib.model import ResNet
from alphazero_lib.players import AlphaZeroPlayer, MCTSPlayer, NegamaxPlayer, PolicyPlayer


def test_arena_json_is_valid_and_complete(capsys):
    code = main(["arena", "--game", "tictactoe", "--player1", "perfect", "--player2", "random", "--games", "6"])
    assert code == 0
    assert "perfect vs random: 6 games" in capsys.readouterr().out
    args = ["arena", "--game", "tictactoe", "--player1", "perfect", "--player2", "random", "--games", "6"]
    code = main([*args, "--seed", "3", "--json", "--no-progress"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["game"] == "tictactoe" and data["player1"] == "perfect" and data["player2"] == "random"
    assert data["games"] == 6 and data["seed"] == 3
    for side in ("player1", "player2"):
        totals = data["results"][side]
        for seat in ("first", "second"):
            assert sum(totals[seat].values()) == 3
        assert totals["wins"] + totals["draws"] + totals["losses"] == 6
    assert data["results"]["player1"]["losses"] == 0
    assert data["results"]["player1"]["wins"] == data["results"]["player2"]["losses"]
    low, high = data["score_interval"]
    assert 0 <= low <= data["score"] <= high <= 1 and "Wilson" in data["interval"]


def test_arena_is_reproducible_with_a_seed(capsys):
    args = ["arena", "--game", "connect_four", "--player1", "mcts:20", "--player2", "random"]
    args += ["--games", "4", "--json", "--no-progress"]
    runs = []
    for _ in range(2):
        assert main(args) == 0
        runs.append(json.loads(capsys.readouterr().out))
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("game", "spec", "message"),
    [
        ("tictactoe", "minimax", "unknown player spec 'minimax'"),
        ("tictactoe", "negamax:4", "Connect Four only"),
        ("connect_four", "negamax:deep", "DEPTH must be a positive integer"),
        ("connect_four", "mcts", "needs an argument"),
        ("connect_four", "mcts:0", "SEARCHES must be a positive integer"),
        ("connect_four", "random:3", "takes no argument"),
        ("othello6", "perfect", "Tic-Tac-Toe and 6x7 Connect Four only"),
        ("connect_four", "greedy", "Othello only"),
        ("connect_four", "alphazero:/no/such/weights.pt:50", "neither a file nor shipped weights"),
        ("connect_four", "policy:/no/such/weights.pt", "neither a file nor shipped weights"),
        ("othello6", "kaggle:negamax", "connect_four and tictactoe only"),
    ],
)
def test_spec_errors_are_messages_not_tracebacks(capsys, game, spec, message):
    code = main(["arena", "--game", game, "--player1", spec, "--player2", "random", "--games", "2"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_weights_for_another_game_are_refused(tmp_path, capsys):
    connect_four = make_game("connect_four")
    model = ResNet(connect_four, num_res_blocks=1, num_hidden=8)
    path = checkpoints.save_checkpoint(tmp_path / "c4.pt", checkpoints.make_checkpoint(model, connect_four))
    player = make_player(connect_four, f"alphazero:{path}:7", seed=0)
    assert isinstance(player, AlphaZeroPlayer) and player.mcts.config.num_searches == 7
    assert player.name == f"alphazero:{path}:7"
    assert player.get_action(connect_four.get_initial_state(), 1) in range(7)
    code = main(["arena", "--game", "tictactoe", "--player1", f"policy:{path}", "--player2", "random"])
    assert code == 2
    expected = f"error: {path}: weights are for ConnectFour(rows=6, columns=7, in_a_row=4), not TicTacToe\n"
    assert capsys.readouterr().err == expected  # the game check, not an architecture mismatch


def test_specs_build_the_right_players():
    game = make_game("connect_four")
    assert isinstance(make_player(game, "negamax:3"), NegamaxPlayer)
    player = make_player(game, " MCTS:25 ", seed=1)
    assert isinstance(player, MCTSPlayer) and player.mcts.config.num_searches == 25 and player.name == "MCTS:25"
    assert make_player(game, "human").name == "human"


def test_weights_resolution_is_one_hook(monkeypatch):
    from alphazero_lib import specs

    game = make_game("tictactoe")
    seen = []
    monkeypatch.setattr(specs, "resolve_weights", lambda g, text: seen.append(text) or object())
    player = make_player(game, "alphazero:shipped-ttt:12")
    assert seen == ["shipped-ttt"] and player.mcts.config.num_searches == 12
    assert isinstance(make_player(game, "policy:C:/weights/x.pt"), PolicyPlayer) and seen[-1] == "C:/weights/x.pt"


def test_play_a_person_against_perfect(monkeypatch, capsys):
    answers = iter(["4", "0", "0", "2", "6", "3", "5", "7", "8", "1"])  # repeats and occupied cells are re-asked
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["play", "--game", "tictactoe", "--opponent", "perfect", "--first", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "you (X) vs perfect (O)" in out and out.strip().splitlines()[-1] in ("you drew", "you lost")
    assert out.count("---+---+---") >= 2 * 5  # the board after every move


def test_demo_accepts_player_specs(capsys):
    assert main(["demo", "--game", "tictactoe", "--player1", "perfect", "--player2", "perfect"]) == 0
    out = capsys.readouterr().out
    assert "perfect (X) vs perfect (O)" in out and out.strip().endswith("draw")


def test_kaggle_agents_play_our_positions():
    pytest.importorskip("kaggle_environments")
    from alphazero_lib.kaggle import KagglePlayer

    game = make_game("connect_four")
    negamax = KagglePlayer(game, "negamax", seed=0)
    state = np.zeros((6, 7), dtype=np.int8)
    state[5, :3] = -1  # O to move (player -1, mark 2) wins in column 3 at once
    state[4, :2] = state[5, 6] = 1
    assert negamax.get_action(state, -1) == 3
    tictactoe = make_game("tictactoe")
    reaction = make_player(tictactoe, "kaggle:reaction", seed=0)
    assert reaction.get_action(np.array([[1, 1, 0], [-1, -1, 0], [0, 0, 0]], dtype=np.int8), 1) == 2
    with pytest.raises(ValueError, match="no agent 'nope'"):
        KagglePlayer(game, "nope")


def test_arena_prints_the_games_so_far_on_ctrl_c(monkeypatch, capsys):
    import alphazero_lib.specs
    from alphazero_lib.players import Player
    from alphazero_lib.utils import Interrupted

    class StopsAfter(Player):
        """Plays the first legal move; after ``moves`` moves it raises ``KeyboardInterrupt``, as Ctrl-C would."""

        def __init__(self, game, moves: int) -> None:
            super().__init__(game)
            self.moves, self.name = moves, "stopper"

        def get_action(self, state, player):
            if self.moves == 0:
                raise KeyboardInterrupt
            self.moves -= 1
            return int(np.flatnonzero(self.game.get_valid_moves(state))[0])

    real = alphazero_lib.specs.make_player
    game = make_game("tictactoe")
    try:  # 7 moves: the first game (5 of its moves at most) ends, a later one does not
        play_match(game, StopsAfter(game, 7), real(game, "random", seed=0), 10, progress=False)
    except Interrupted as stop:
        assert 1 <= stop.partial.games < 10
    except KeyboardInterrupt:
        pytest.fail("a plain KeyboardInterrupt: the finished games were thrown away")
    else:
        pytest.fail("the interrupt was swallowed")

    def make(game, spec, seed=None):
        return StopsAfter(game, 7) if spec == "stopper" else real(game, spec, seed=seed)

    monkeypatch.setattr(alphazero_lib.specs, "make_player", make)
    args = ["arena", "--game", "tictactoe", "--player1", "stopper", "--player2", "random", "--games", "10"]
    assert main([*args, "--no-progress"]) == 130
    out, err = capsys.readouterr()
    assert out.startswith("TicTacToe: stopper vs random: ") and "(interrupted: " in out and " of 10 games)" in out
    assert "(interrupted: 0 of" not in out and err.strip() == "interrupted"
    assert main([*args, "--no-progress", "--json"]) == 130
    data = json.loads(capsys.readouterr().out)
    assert data["interrupted"] is True and data["games_asked"] == 10 and 1 <= data["games"] < 10


def test_openings_longer_than_a_game_are_refused_at_once_with_the_longest_possible(capsys, monkeypatch, one_line_error):
    """Issue 52, item 8: ``arena --openings 50`` in Tic-Tac-Toe failed after 1,000 random tries, saying only that no
    opening was found. Now before any try: a game lasts at most 9 moves, so an opening has at most 8; and 8 works."""
    from alphazero_lib.games import TicTacToe

    moves = []
    real = TicTacToe.get_next_state
    monkeypatch.setattr(TicTacToe, "get_next_state", lambda self, *a, **kw: moves.append(a) or real(self, *a, **kw))
    argv = ["arena", "--game", "tictactoe", "--player1", "random", "--player2", "random", "--games", "2"]
    err = one_line_error([*argv, "--openings", "50"])
    assert (
        err == "error: a 50-move opening cannot leave TicTacToe open: its games last at most 9 moves, so an "
        "opening has at most 8"
    ), err
    assert moves == []  # not one random try
    monkeypatch.undo()
    assert main([*argv, "--openings", "8", "--json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["train", "--game", "tictactoe", "--out", "run", "--iterations", "1e3"],
            "argument --iterations: must be a "
            "whole number, written without a decimal point or exponent, for example 1000, got '1e3'",
        ),
        (
            ["train", "--game", "tictactoe", "--out", "run", "--iterations", "2.5"],
            "argument --iterations: must be a whole number, got '2.5'",
        ),
        (
            ["arena", "--player1", "random", "--games", "1e2"],
            "argument --games: must be a positive integer, written "
            "without a decimal point or exponent, for example 100, got '1e2'",
        ),
    ],
)
def test_a_whole_number_written_as_a_float_is_refused_with_how_to_write_it(argv, message, one_line_error):
    """Issue 52, item 8: ``train --iterations 1e3`` said only "must be an integer, got '1e3'"."""
    assert message in one_line_error(argv)


# ---- flags and specs past their limits (issues 16 and 28) ------------------------------------------------------------
def test_arena_negamax_too_deep(one_line_error):
    err = one_line_error(["arena", "--game", "connect_four", "--player1", "negamax:99", "--player2", "random"])
    assert "negamax depth 99 is too deep" in err


@pytest.mark.parametrize(
    "spec, message",
    [
        ("mcts:1000000000000", "player spec 'mcts:1000000000000': SEARCHES must be at most 100,000 (a move of"),
        ("alphazero:tictactoe:1000000000", "SEARCHES must be at most 100,000"),
        ("mc:tictactoe:10000000", "ROLLOUTS must be at most 100,000 (each is a whole random game)"),
    ],
)
def test_demo_with_an_endless_search_is_refused_at_once(one_line_error, spec, message):
    start = time.perf_counter()
    err = one_line_error(["demo", "--game", "tictactoe", "--player1", spec])
    assert message in err and time.perf_counter() - start < 10


def test_arena_exhaustive_refuses_flags_it_would_ignore(one_line_error):
    err = one_line_error(
        ["arena", "--game", "tictactoe", "--player1", "perfect", "--exhaustive", "--player2", "random"]
    )
    assert "--exhaustive plays player 1 against every reply" in err and "--player2 would be ignored; drop it" in err
    argv = ["arena", "--game", "tictactoe", "--player1", "perfect", "--exhaustive", "--openings", "2"]
    assert "--openings would be ignored" in one_line_error(argv)
