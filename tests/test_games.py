"""Rules of the three games: hand-worked positions, illegal input, and the course's API."""

from __future__ import annotations

import numpy as np
import pytest
from positions import random_positions

from alphazero_lib.games import GAMES, ConnectFour, Othello, TicTacToe, make_game

TTT, C4, OTHELLO = make_game("tictactoe"), make_game("connect_four"), make_game("othello6")
#: the game of each registry entry, by its name: the registry is the only list of games these tests read
REGISTERED, REGISTERED_NAMES = [make_game(name) for name in GAMES], list(GAMES)


def board(rows: list[str]) -> np.ndarray:
    """A state from strings: X = 1, O = -1, anything else empty."""
    return np.array([[{"X": 1, "O": -1}.get(ch, 0) for ch in row] for row in rows], dtype=np.int8)


# ---- registry and identity ------------------------------------------------------------------------
def test_make_game_names_and_options():
    assert repr(make_game("tictactoe")) == "TicTacToe"
    assert repr(make_game("connect_four")) == "ConnectFour(rows=6, columns=7, in_a_row=4)"
    assert repr(make_game("othello6")) == "Othello(size=6)"
    assert repr(make_game("othello", size=8)) == "Othello(size=8)"
    game = make_game("connect_four", rows=5, columns=8, in_a_row=5)
    assert make_game(**game.config) == game


def test_make_game_unknown_name_lists_known_ones():
    with pytest.raises(ValueError, match=r"unknown game 'chess'.*connect_four.*tictactoe"):
        make_game("chess")
    with pytest.raises(ValueError, match="bad options"):
        make_game("tictactoe", rows=4)


@pytest.mark.parametrize("size", [3, 5, 10, 2, "6"])
def test_othello_size_must_be_even_4_to_8(size):
    with pytest.raises(ValueError, match="even integer from 4 to 8"):
        Othello(size)


def test_connect_four_options_are_checked():
    with pytest.raises(ValueError, match="in_a_row=8 cannot fit"):
        ConnectFour(6, 7, 8)
    with pytest.raises(ValueError, match="rows must be a positive integer"):
        ConnectFour(0, 7, 4)


# ---- Tic-Tac-Toe ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rows, action",
    [
        (["XXX", "OO.", "..."], 0),  # top row, won at the left edge
        (["OO.", "XXX", "..."], 5),  # middle row, right edge
        (["...", "OO.", "XXX"], 7),  # bottom row
        (["XO.", "XO.", "X.."], 6),  # left column
        (["OX.", ".XO", ".X."], 1),  # middle column
        (["O.X", "O.X", "..X"], 8),  # right column
        (["XO.", "OX.", "..X"], 4),  # main diagonal, won in the centre
        (["O.X", "OX.", "X.."], 2),  # anti-diagonal, won at a corner
    ],
)
def test_tictactoe_every_line_wins(rows, action):
    game = TicTacToe()
    state = board(rows)
    assert game.check_win(state, action)
    assert game.get_value_and_terminated(state, action) == (1.0, True)
    # the same line for O: perspective does not matter to check_win
    assert game.check_win(-state, action)


def test_tictactoe_non_wins_and_draw():
    game = TicTacToe()
    assert not game.check_win(board(["XX.", "OO.", "..."]), 0)
    assert not game.check_win(board(["X.X", "O..", "..."]), 2)  # a gap is not a line
    assert game.get_value_and_terminated(board(["XX.", "OO.", "..."]), 0) == (0.0, False)
    draw = board(["XOX", "XOO", "OXX"])
    assert game.get_value_and_terminated(draw, 8) == (0.0, True)
    assert game.check_win(draw, None) is False


def test_tictactoe_perspective_and_encoding():
    game = TicTacToe()
    state = board(["X..", ".O.", "..."])
    flipped = game.change_perspective(state, -1)
    assert flipped[0, 0] == -1 and flipped[1, 1] == 1
    encoded = game.get_encoded_state(state)
    assert encoded.shape == (3, 3, 3) and encoded.dtype == np.float32
    np.testing.assert_array_equal(encoded[0], state == -1)
    np.testing.assert_array_equal(encoded[1], state == 0)
    np.testing.assert_array_equal(encoded[2], state == 1)
    batch = np.stack([state, flipped, game.get_initial_state()])
    encoded_batch = game.get_encoded_state(batch)
    assert encoded_batch.shape == (3, 3, 3, 3)
    np.testing.assert_array_equal(encoded_batch[1], game.get_encoded_state(flipped))


# ---- Connect Four ---------------------------------------------------------------------------------
C4_WINS = [
    # (rows, winning column) -- board row 0 is the top
    ([".......", ".......", ".......", ".......", ".......", "XXXXOOO"], 0),  # horizontal, left edge
    ([".......", ".......", ".......", ".......", ".......", "OOOXXXX"], 6),  # horizontal, right edge
    ([".......", ".......", "X......", "X......", "XO.....", "XOO...."], 0),  # vertical, left edge, top-ish
    (["......X", "......X", "......X", "......X", "......O", "....OOO"], 6),  # vertical reaching the top row
    ([".......", ".......", "...X...", "..XO...", ".XOO...", "XOOX..."], 3),  # diagonal /, from the corner
    ([".......", ".......", "...X...", "...OX..", "...OOX.", "...XOOX"], 3),  # diagonal \, to the corner
    (["...X...", "..XO...", ".XOO...", "XOOX...", "OXXO...", "XOOX..."], 3),  # diagonal / through the top row
    (["...X...", "...OX..", "...OOX.", "...XOOX", "...OXXO", "...XOOX"], 3),  # diagonal \ from the top row
]


@pytest.mark.parametrize("rows, column", C4_WINS)
def test_connect_four_every_direction_and_edge(rows, column):
    game = ConnectFour()
    state = board(rows)
    assert game.check_win(state, column)
    assert game.get_value_and_terminated(state, column) == (1.0, True)


def test_connect_four_three_is_not_enough_and_gravity():
    game = ConnectFour()
    state = board([".......", ".......", ".......", ".......", ".......", "XXX.OOO"])
    for col in (0, 1, 2, 4, 5, 6):
        assert not game.check_win(state, col)
    won = game.get_next_state(state, 3, 1)
    assert won[5, 3] == 1 and game.check_win(won, 3)
    with pytest.raises(ValueError, match="already over in this state"):  # no move follows a win
        game.get_next_state(won, 3, -1)
    blocked = game.get_next_state(board(["......."] * 5 + ["XXX..OO"]), 3, -1)
    stacked = game.get_next_state(blocked, 3, 1)
    assert blocked[5, 3] == -1 and stacked[4, 3] == 1 and not game.check_win(stacked, 3)


def test_connectx_parameters():
    game = ConnectFour(rows=5, columns=8, in_a_row=5)
    assert (game.row_count, game.column_count, game.action_size) == (5, 8, 8)
    state = board(["........", "........", "........", "OOOO....", "XXXX...."])
    assert not game.check_win(state, 0)
    state = game.get_next_state(state, 4, 1)
    assert game.check_win(state, 4)


def test_connect_four_draw_on_full_board():
    game = ConnectFour(rows=2, columns=2, in_a_row=2)
    state = board(["XO", "OX"])
    # a full 2x2 board with a diagonal is a win, not a draw
    assert game.check_win(state, 0)
    game = ConnectFour(rows=2, columns=4, in_a_row=3)
    state = board(["OXOX", "XOXO"])
    assert game.get_value_and_terminated(state, 3) == (0.0, True)


# ---- illegal input --------------------------------------------------------------------------------
def test_illegal_actions_say_what_and_what_is_legal():
    game = ConnectFour()
    state = game.get_initial_state()
    for move in range(6):
        state = game.get_next_state(state, 3, 1 if move % 2 == 0 else -1)
    with pytest.raises(ValueError, match=r"column 3 is full; legal now: \[0, 1, 2, 4, 5, 6\]"):
        game.get_next_state(state, 3, -1)
    with pytest.raises(ValueError, match=r"action 7 is out of range; actions are 0..6"):
        game.get_next_state(state, 7, 1)
    with pytest.raises(ValueError, match=r"action -1 is out of range"):
        game.get_next_state(state, -1, 1)
    with pytest.raises(ValueError, match=r"must be an integer.*2.0 \(float\)"):
        game.get_next_state(state, 2.0, 1)
    with pytest.raises(ValueError, match=r"must be an integer.*'2'"):
        game.get_next_state(state, "2", 1)
    with pytest.raises(ValueError, match=r"must be an integer.*True"):
        game.get_next_state(state, True, 1)
    with pytest.raises(ValueError, match="player must be 1 or -1"):
        game.get_next_state(state, 2, 0)
    assert game.get_next_state(state, np.int64(2), 1)[5, 2] == 1  # numpy integers are fine

    ttt = TicTacToe()
    state = ttt.get_next_state(ttt.get_initial_state(), 4, 1)
    with pytest.raises(ValueError, match=r"action 4 \(4\) is illegal: cell 4 is occupied; legal now: \[0, 1, 2, 3, 5"):
        ttt.get_next_state(state, 4, -1)


def test_othello_illegal_actions():
    game = Othello(6)
    state = game.get_initial_state()
    with pytest.raises(ValueError, match=r"a disc on a1 flips nothing; legal now: \[8, 13, 22, 27\]"):
        game.get_next_state(state, 0, 1)
    with pytest.raises(ValueError, match=r"cell c3 is occupied"):
        game.get_next_state(state, 14, 1)
    with pytest.raises(ValueError, match=r"passing is allowed only when you have no move"):
        game.get_next_state(state, game.pass_action, 1)


# ---- Othello --------------------------------------------------------------------------------------
def test_othello_initial_position():
    for n in (4, 6, 8):
        game = Othello(n)
        state = game.get_initial_state()
        h = n // 2
        assert state[h - 1, h - 1] == state[h, h] == -1
        assert state[h - 1, h] == state[h, h - 1] == 1
        assert np.count_nonzero(state) == 4
        assert game.action_size == n * n + 1
        # the first player's four opening moves, as in every Othello book
        expected = sorted([(h - 2) * n + (h - 1), (h - 1) * n + (h - 2), h * n + (h + 1), (h + 1) * n + h])
        assert game.legal_actions(state, 1) == expected
    assert Othello(8).action_to_string(19) == "d3"


def test_othello_flips_in_all_eight_directions():
    game = Othello(6)
    # X on d4 (row 3, col 3) surrounded by O lines ending in X in all eight directions
    state = board(
        [
            "X..X..",
            ".O.O.X",
            "..OOO.",
            "XOO.OX",
            "..OOO.",
            ".X.X.X",
        ]
    )
    state[0, 0] = 1
    action = 3 * 6 + 3
    assert game.get_valid_moves(state, 1)[action] == 1
    after = game.get_next_state(state, action, 1)
    expected = state.copy()
    for r, c in [(2, 2), (1, 1), (2, 3), (1, 3), (2, 4), (3, 4), (4, 4), (4, 3), (4, 2), (3, 2), (3, 1), (3, 3)]:
        expected[r, c] = 1
    np.testing.assert_array_equal(after, expected)
    assert np.sum(after == -1) == 0


def test_othello_pass_handling():
    game = Othello(4)
    # O on a1 sits on the edge: X cannot flank it, so X must pass; O on d1 flanks b1 and c1
    state = board(["OXX.", "....", "....", "...."])
    assert game.legal_actions(state, -1) == [3]  # O on d1 flips b1 and c1
    mask = game.get_valid_moves(state, 1)
    assert mask[game.pass_action] == 1 and mask.sum() == 1  # X must pass
    assert game.legal_actions(state, 1) == [game.pass_action]
    passed = game.get_next_state(state, game.pass_action, 1)
    np.testing.assert_array_equal(passed, state)
    assert game.get_value_and_terminated(passed, game.pass_action) == (0.0, False)
    with pytest.raises(ValueError, match="passing is allowed only when you have no move"):
        game.get_next_state(state, game.pass_action, -1)


def test_othello_terminal_scoring():
    game = Othello(4)
    # a full board, X ahead 9-7: X's last move wins
    state = board(["XXXX", "XXXX", "XOOO", "OOOO"])
    assert game.is_over(state)
    assert game.get_value_and_terminated(state, 0) == (1.0, True)
    assert game.check_win(state, 0)
    assert game.get_value_and_terminated(state, 15) == (-1.0, True)  # O just moved and lost
    assert not game.check_win(state, 15)
    draw = board(["XXXX", "XXXX", "OOOO", "OOOO"])
    assert game.get_value_and_terminated(draw, 0) == (0.0, True)
    # not full, but neither side can move: over, scored by discs
    stuck = board(["XX..", "....", "....", "...."])
    assert game.is_over(stuck)
    assert game.get_valid_moves(stuck, 1).sum() == 0 and game.get_valid_moves(stuck, -1).sum() == 0
    assert game.get_value_and_terminated(stuck, 1) == (1.0, True)
    with pytest.raises(ValueError, match="the game is over"):
        game.get_next_state(stuck, game.pass_action, 1)
    assert game.get_value_and_terminated(game.get_initial_state(), None) == (0.0, False)


RENDERED_AFTER_FIRST_LEGAL_MOVE = {
    "TicTacToe": [" X | 1 | 2", "---+---+---", " 3 | 4 | 5", "---+---+---", " 6 | 7 | 8"],
    "ConnectFour(rows=6, columns=7, in_a_row=4)": ["| . . . . . . . |"] * 5 + ["| X . . . . . . |", "  0 1 2 3 4 5 6"],
    # X plays c2 (action 8) and turns c3: three X's around one O
    "Othello(size=6)": [
        "  a b c d e f",
        "1 . . . . . .",
        "2 . . X . . .",
        "3 . . X X . .",
        "4 . . X O . .",
        "5 . . . . . .",
        "6 . . . . . .",
    ],
}


def test_renderings_show_the_pieces():
    for game in (TicTacToe(), ConnectFour(), Othello(6)):
        state = game.get_initial_state()
        action = game.legal_actions(state)[0]
        text = game.render(game.get_next_state(state, action, 1))
        assert text.splitlines() == RENDERED_AFTER_FIRST_LEGAL_MOVE[repr(game)], text


def test_string_to_action_round_trips():
    for game in REGISTERED:
        for action in range(game.action_size):
            assert game.string_to_action(game.action_to_string(action)) == action
    with pytest.raises(ValueError, match="cannot read 'zz' as a move"):
        Othello(6).string_to_action("zz")


def test_draw_board_with_heatmap():
    import matplotlib.pyplot as plt

    from alphazero_lib.plotting import draw_board

    for game in REGISTERED:
        state = game.get_initial_state()
        heat = game.get_valid_moves(state).astype(float)
        ax = draw_board(game, state, heatmap=heat / heat.sum(), title=repr(game))
        assert ax.get_title() == repr(game)
        texts = [t.get_text() for t in ax.texts]
        assert any(t.startswith("0.") for t in texts)  # the heatmap values are written on the board
        plt.close(ax.figure)


def test_no_move_follows_a_win():
    ttt = TicTacToe()
    won = board(["XXX", "OO.", "..."])
    with pytest.raises(ValueError, match=r"already over in this state \(a player has 3 in a row\)"):
        ttt.get_next_state(won, 5, -1)
    assert ttt.get_next_state(board(["XX.", "OO.", "..."]), 2, 1)[0, 2] == 1  # one short of a line: fine


def test_each_game_counts_its_board_symmetries():
    counts = {
        name: make_game(name, **options).num_symmetries
        for name, options in [("tictactoe", {}), ("connect_four", {}), ("othello6", {}), ("othello", {"size": 4})]
    }
    assert counts == {"tictactoe": 8, "connect_four": 2, "othello6": 8, "othello": 8}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_picture_of_a_board_refuses_what_is_not_one(name):
    """Issue 52, item 4: render, draw_board, the animation's frames and the Kaggle adapters refuse a
    wrong shape or foreign values with get_next_state's ValueError. Before, TicTacToe.render(np.full((3, 3), 7))
    raised a bare KeyError: 7 and render(np.zeros((4, 4))) drew a garbled 3 x 3 picture."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from alphazero_lib.animation import final_position, game_frames, playoff_html
    from alphazero_lib.plotting import draw_board

    game = make_game(name)
    rows, cols = game.row_count, game.column_count
    wrong_shape = np.zeros((rows + 1, cols + 1), dtype=np.int8)
    foreign = np.full((rows, cols), 7)
    shape_error = (
        rf"{type(game).__name__}.*needs a state of shape \({rows}, {cols}\), got shape \({rows + 1}, {cols + 1}\)"
    )
    value_error = r"state values must be -1, 0 or 1 \(empty, the players\); got \[7\]"
    for state, message in ((wrong_shape, shape_error), (foreign, value_error)):
        with pytest.raises(ValueError, match=message):
            game.get_next_state(state, 0, 1)  # the message every other entry point repeats
        with pytest.raises(ValueError, match=message):
            game.render(state)
        with pytest.raises(ValueError, match=message):
            draw_board(game, state)
        good = game.get_initial_state()
        for draw in (game_frames, final_position, playoff_html):
            with pytest.raises(ValueError, match=message):
                draw(game, [good, state])
    plt.close("all")
    assert game.render(game.get_initial_state()).count("\n") >= rows - 1  # a board still renders


def test_the_kaggle_adapters_refuse_what_is_not_a_board():
    pytest.importorskip("kaggle_environments")
    from alphazero_lib.kaggle.environment import board_to_state, to_observation

    game = make_game("tictactoe")
    with pytest.raises(ValueError, match=r"needs a state of shape \(3, 3\), got shape \(4, 4\)"):
        to_observation(game, np.zeros((4, 4)), 1)
    with pytest.raises(ValueError, match=r"a kaggle board of TicTacToe is a flat list of 9 cells, got shape \(10,\)"):
        board_to_state(game, [0] * 10)
    with pytest.raises(ValueError, match=r"a kaggle board holds 0 \(empty\), 1 and 2 \(the marks\), got \[3\]"):
        board_to_state(game, [0] * 8 + [3])
    assert board_to_state(game, [1, 2, 0] * 3).tolist() == [[1, -1, 0]] * 3


# ---- what the rules refuse: states, actions, players and symmetries (issues 16 and 28) -------------------------------
@pytest.mark.parametrize("game, shape", [(TTT, (4, 4)), (C4, (7, 6)), (C4, (42,)), (OTHELLO, (8, 8)), (TTT, (1, 3, 3))])
def test_a_state_of_the_wrong_shape_is_refused(game, shape):
    state = np.zeros(shape, dtype=np.int8)
    expected = rf"needs a state of shape \({game.row_count}, {game.column_count}\), got shape \({shape[0]}"
    for call in (
        lambda: game.get_next_state(state, 0, 1),
        lambda: game.get_valid_moves(state),
        lambda: game.get_value_and_terminated(state, 0),
        lambda: game.change_perspective(state, -1),
    ):
        with pytest.raises(ValueError, match=expected):
            call()


@pytest.mark.parametrize("game", REGISTERED, ids=REGISTERED_NAMES)
def test_values_other_than_minus_one_zero_and_one_are_refused(game):
    state = game.get_initial_state().astype(np.int64)
    state[-1, -1] = 200  # as int8 this would wrap to -56
    with pytest.raises(ValueError, match=r"state values must be -1, 0 or 1 .*got \[200\]"):
        game.get_next_state(state, 0, 1)
    wrapped = game.get_initial_state()
    wrapped[-1, -1] = 2
    with pytest.raises(ValueError, match=r"got \[2\]"):
        game.get_valid_moves(wrapped)


def test_is_over_sees_a_win_anywhere_and_a_full_board():
    won = np.array([[1, 1, 1], [-1, -1, 0], [0, 0, 0]], dtype=np.int8)
    assert TTT.is_over(won) and TTT.is_over(-won)
    assert not TTT.is_over(TTT.get_initial_state())
    c4 = C4.get_initial_state()
    c4[2:, 6] = -1  # four in a column, far from any recent move
    c4[5, [0, 1, 3, 4]] = 1  # (and as many stones of the other player: a reachable position)
    assert C4.is_over(c4)
    c4[2, 6] = 0
    assert not C4.is_over(c4)


@pytest.mark.parametrize("game", REGISTERED, ids=REGISTERED_NAMES)
@pytest.mark.parametrize("action", [2.0, 2.5, "2", True, -1, 99, [2]])
def test_check_win_and_get_value_and_terminated_refuse_bad_actions(game, action):
    state = game.get_initial_state()
    if not isinstance(action, int) or isinstance(action, bool):
        message = rf"action must be None or an integer in \[0, {game.action_size}\), got"
    else:
        message = rf"action {action} is out of range; actions are 0..{game.action_size - 1}"
    for call in (game.check_win, game.get_value_and_terminated):
        with pytest.raises(ValueError, match=message):
            call(state, action)
    assert game.check_win(state, np.int64(1)) is False and game.get_value_and_terminated(state, None) == (0.0, False)


@pytest.mark.parametrize("game", REGISTERED, ids=REGISTERED_NAMES)
@pytest.mark.parametrize("player", [7, 0, 2, True, 1.0 + 1e-9, "1"])
def test_get_valid_moves_refuses_a_player_other_than_one_or_minus_one(game, player):
    with pytest.raises(ValueError, match=r"player must be 1 or -1, got"):
        game.get_valid_moves(game.get_initial_state(), player)


def test_a_floating_connect_four_stone_is_refused_everywhere_a_move_is_made_or_searched():
    """Everywhere a game goes on from the board; check_win and get_value_and_terminated only look for a line and
    take hand-made boards (the course draws them), as ``test_line_checks_take_hand_made_boards`` says."""
    state = C4.get_initial_state()
    state[3, 2] = 1  # row 3 of 6: two empty cells below it
    state[5, 0] = -1
    message = r"cannot arise in Connect Four: the stone at row 3, column 2 floats above an empty cell"
    for call in (
        lambda: C4.get_next_state(state, 0, 1),
        lambda: C4.get_valid_moves(state),
        lambda: C4.change_perspective(state, -1),
        lambda: C4.is_over(state),
    ):
        with pytest.raises(ValueError, match=message):
            call()


@pytest.mark.parametrize("game", [TTT, C4], ids=repr)
def test_stone_counts_no_game_reaches_are_refused(game):
    state = game.get_initial_state()
    state[-1, :2] = 1  # two stones of player 1, none of player -1 (bottom row: gravity holds)
    with pytest.raises(ValueError, match="player 1 has 2 stones and player -1 has 0, but the players take turns"):
        game.get_next_state(state, 2, -1)
    with pytest.raises(ValueError, match="player 1 has 0 stones and player -1 has 2"):
        game.get_valid_moves(-state)


@pytest.mark.parametrize("game", REGISTERED, ids=REGISTERED_NAMES)
def test_every_position_of_real_games_passes_the_checks_from_both_views(game):
    for state in random_positions(game, 300, seed=28):
        game.check_state(state)
        game.check_state(-state)


@pytest.mark.parametrize("game", [TTT, C4], ids=repr)
def test_get_encoded_state_refuses_wrong_shapes_and_values(game):
    rows, cols = game.row_count, game.column_count
    for shape in [(rows, cols + 1), (rows * cols,), (2, 2, rows, cols), (3, rows, cols + 1)]:
        with pytest.raises(ValueError, match=rf"encodes a state \({rows}, {cols}\) or a batch .*got shape"):
            game.get_encoded_state(np.zeros(shape, dtype=np.int8))
    bad = np.zeros((4, rows, cols), dtype=np.int8)
    bad[2, 0, 0] = 3
    with pytest.raises(ValueError, match=r"state values must be -1, 0 or 1 .*got \[3\]"):
        game.get_encoded_state(bad)
    with pytest.raises(ValueError, match=r"got \[0.5\]"):
        game.get_encoded_state(np.full((rows, cols), 0.5))
    assert game.get_encoded_state(bad[:2]).shape == (2, 3, rows, cols)


@pytest.mark.parametrize("game", REGISTERED, ids=REGISTERED_NAMES)
def test_apply_symmetry_refuses_an_index_out_of_range_and_a_policy_of_another_length(game):
    state, policy = game.get_initial_state(), np.arange(game.action_size, dtype=float)
    for k in (game.num_symmetries, 9, -1, 1.0, True):
        for call in (game.apply_symmetry, game.invert_symmetry):
            with pytest.raises(ValueError, match=rf"symmetry k must be an integer from 0 to {game.num_symmetries - 1}"):
                call(k, state, policy)
    with pytest.raises(ValueError, match=rf"policy must have one entry per action, shape \({game.action_size},\)"):
        game.apply_symmetry(0, state, policy[:-1])
    for k in range(game.num_symmetries):
        back = game.invert_symmetry(k, *game.apply_symmetry(k, state, policy))
        np.testing.assert_array_equal(back[1], policy)


def test_line_checks_take_hand_made_boards():
    """The notebooks ask "four in a row here?" of boards no game reaches: the line checks answer, the rest refuse."""
    state = C4.get_initial_state()
    state[5, 0:4] = 1  # four of player 1, none of player -1: unreachable, but a clear line
    assert C4.check_win(state, 3) is True and C4.get_value_and_terminated(state, 3) == (1.0, True)
    with pytest.raises(ValueError, match="cannot arise"):
        C4.get_valid_moves(state)
