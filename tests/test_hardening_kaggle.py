"""Issue 16, items 5 and 6: the exported agent never crashes and never throws a won game away; shipped
weights cannot be shadowed by a file in the current directory."""

from __future__ import annotations

import numpy as np
import pytest

from alphazero_lib import make_game
from alphazero_lib.kaggle import numpy_params
from alphazero_lib.kaggle.agent import Agent, NumpyResNet
from alphazero_lib.model import ResNet

C4 = make_game("connect_four")
CONFIG = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2}


@pytest.fixture(scope="module")
def agent():
    model = ResNet(C4, 1, 8).eval()
    return Agent(NumpyResNet(numpy_params(model), 1), rows=6, columns=7, in_a_row=4, num_searches=20, C=2.0)


def winning_board(mark: int) -> list[int]:
    """The player with ``mark`` has three in column 6 (and moves: equal stone counts for mark 1)."""
    board = np.zeros((6, 7), dtype=int)
    board[3:, 6] = mark
    board[5, 0:3] = 3 - mark
    if mark == 2:
        board[4, 0] = 1  # mark 1 has one stone more: mark 2 is to move
    return board.reshape(-1).tolist()


@pytest.mark.parametrize("length", [0, 5, 41, 43, 84])
def test_a_board_of_the_wrong_length_gets_a_legal_move(agent, length):
    move = agent({"board": [0] * length, "mark": 1}, CONFIG)
    assert move in range(7)


@pytest.mark.parametrize("mark", [3, 0, None, "1"])
def test_a_bad_mark_still_takes_the_immediate_win(agent, mark):
    observation = {"board": winning_board(2), "mark": mark}
    assert agent(observation, CONFIG) == 6  # the mover is inferred from the stone counts


@pytest.mark.parametrize("timeout", [0, 0.0, -1])
def test_no_search_time_still_takes_the_immediate_win(agent, timeout):
    for mark in (1, 2):
        assert agent({"board": winning_board(mark), "mark": mark}, {**CONFIG, "actTimeout": timeout}) == 6


def test_no_search_time_on_a_full_first_column_plays_legally(agent):
    board = np.zeros((6, 7), dtype=int)
    board[:, 3] = [1, 2, 1, 2, 1, 2]  # the centre is full; column 0 would be the naive fallback
    board[5, 0] = 1
    move = agent({"board": board.reshape(-1).tolist(), "mark": 2}, {**CONFIG, "actTimeout": 0})
    assert move in (2, 4)


def test_another_board_size_gets_a_legal_move_and_takes_a_win(agent):
    config = {"rows": 5, "columns": 6, "inarow": 4, "actTimeout": 2}
    board = np.zeros((5, 6), dtype=int)
    board[2:, 5] = 1
    board[4, 0:3] = 2
    assert agent({"board": board.reshape(-1).tolist(), "mark": 1}, config) == 5


def test_garbage_in_the_board_gets_a_legal_move(agent):
    board = [0] * 42
    board[41] = 7
    assert agent({"board": board, "mark": 1}, CONFIG) in range(7)
    assert agent({"board": ["x"] * 42, "mark": 1}, CONFIG) in range(7)
    assert agent({}, CONFIG) in range(7)


# ---- item 6 -------------------------------------------------------------------------------------------
def test_a_file_named_like_shipped_weights_does_not_shadow_them(tmp_path, monkeypatch, capsys):
    from alphazero_lib.pretrained import pretrained_path
    from alphazero_lib.specs import resolve_weights

    monkeypatch.chdir(tmp_path)
    (tmp_path / "tictactoe").write_bytes(b"not a checkpoint at all")
    model = resolve_weights(make_game("tictactoe"), "tictactoe")
    assert repr(model.game) == "TicTacToe"
    assert pretrained_path("tictactoe").is_file()
    # a path that says it is a path is still read as a file
    with pytest.raises(ValueError, match="is damaged"):
        resolve_weights(make_game("tictactoe"), "./tictactoe")


# ---- item 7 -------------------------------------------------------------------------------------------
def test_network_players_search_on_one_thread_and_restore_the_setting():
    import torch

    from alphazero_lib.config import SearchConfig
    from alphazero_lib.players import AlphaZeroPlayer, PolicyPlayer

    seen = []

    class Spy(ResNet):
        def forward(self, x):
            seen.append(torch.get_num_threads())
            return super().forward(x)

    model = Spy(C4, 1, 8).eval()
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        for player in (AlphaZeroPlayer(C4, model, SearchConfig(num_searches=3)), PolicyPlayer(C4, model)):
            player.get_action(C4.get_initial_state(), 1)
            assert torch.get_num_threads() == 2
        assert seen and set(seen) == {1}
        seen.clear()
        player = AlphaZeroPlayer(C4, model, SearchConfig(num_searches=3))
        player.num_threads = None  # the user asks for torch's setting
        player.get_action(C4.get_initial_state(), 1)
        assert set(seen) == {2}
    finally:
        torch.set_num_threads(before)
