"""The standalone ConnectX agent held to the library (issue 14, item 5).

``alphazero_lib.kaggle.agent`` is the fourth PUCT search of the project, with its own Connect Four rules, and the
one that plays on Kaggle. Its rules must agree with ``ConnectFour`` and its search, without a deadline, must give
``AlphaMCTS``'s visit counts for the same network and settings.
"""

from __future__ import annotations

import numpy as np
import pytest
from positions import crowded_board
from reference import has_line
from test_kaggle_export import random_resnet

from alphazero_lib import make_game
from alphazero_lib.alpha_mcts import AlphaMCTS
from alphazero_lib.config import SearchConfig
from alphazero_lib.kaggle import agent as standalone
from alphazero_lib.kaggle import numpy_params
from alphazero_lib.kaggle.agent import Agent, NumpyResNet
from alphazero_lib.model import ResNet

C4 = make_game("connect_four")

#: (rows, columns, in_a_row), the number of random games, and the fewest draws they must reach: the standard board,
#: a wide one with five in a row (random games rarely fill it), and a small one whose games often end full.
BOARDS = [((6, 7, 4), 1000, 1), ((5, 8, 5), 400, 0), ((4, 5, 4), 600, 50)]


def library_verdict(game, state: np.ndarray, action: int) -> float | None:
    """``ConnectFour``'s verdict on ``state`` after ``action``, as the agent's ``outcome`` states it: -1.0 for the
    player now to move (the piece just dropped won), 0.0 for a draw, None while the game goes on."""
    value, over = game.get_value_and_terminated(state, action)
    if value == 1:
        return -1.0
    return 0.0 if over else None


@pytest.mark.parametrize("board, games, min_draws", BOARDS, ids=["6x7_4", "5x8_5", "4x5_4"])
def test_rules_agree_with_connect_four_on_random_playouts(board, games, min_draws):
    """Every position of ``games`` seeded random games, every legal column in it (the one played and the others):
    the open columns, the state after the drop and the win/draw verdict are ``ConnectFour``'s. Each game's end
    is also checked against a brute-force line search (``reference.has_line``)."""
    rows, columns, in_a_row = board
    game = make_game("connect_four", rows=rows, columns=columns, in_a_row=in_a_row)
    rng = np.random.default_rng(sum(board))
    verdicts = {-1.0: 0, 0.0: 0, None: 0}
    for _ in range(games):
        state, player = game.get_initial_state(), 1
        while True:
            canonical = game.change_perspective(state, player)  # the mover's pieces are 1, as the agent sees it
            before = canonical.copy()
            legal = standalone.legal_columns(canonical)
            assert legal.tolist() == np.flatnonzero(game.get_valid_moves(state)).tolist(), state
            for column in legal.tolist():
                after = standalone.drop(canonical, column)  # seen by the opponent, who moves next
                following = game.get_next_state(state, column, player)
                assert np.array_equal(after, game.change_perspective(following, -player)), (state, column)
                verdict = library_verdict(game, following, column)
                assert standalone.outcome(after, column, in_a_row) == verdict, (state, column)
                verdicts[verdict] += 1
            assert np.array_equal(canonical, before)  # drop returns a new array
            column = int(rng.choice(legal))
            state = game.get_next_state(state, column, player)
            if game.get_value_and_terminated(state, column)[1]:
                after = game.change_perspective(state, -player)
                assert standalone.wins(after, column, in_a_row) == has_line(state, player, in_a_row), state
                break
            player = -player
    # not vacuous: many wins (more than one a game: the columns not played count too), positions in play, draws
    assert verdicts[-1.0] > games and verdicts[None] > 10 * games and verdicts[0.0] >= min_draws, verdicts


# ---- the search --------------------------------------------------------------------------------------------------
def live_canonical_positions(game, count: int, seed: int) -> list[np.ndarray]:
    """Positions from seeded random games, still in play, as the player to move sees them, up to the ``count``-th
    one where the mover cannot win at once."""
    rng = np.random.default_rng(seed)
    positions: list[np.ndarray] = []
    quiet = 0
    while quiet < count:
        state, player = game.get_initial_state(), 1
        for _ in range(int(rng.integers(0, game.row_count * game.column_count))):
            column = int(rng.choice(np.flatnonzero(game.get_valid_moves(state))))
            state, player = game.get_next_state(state, column, player), -player
            if game.get_value_and_terminated(state, column)[1]:
                break
        else:
            positions.append(game.change_perspective(state, player))
            quiet += not winning_columns(game, positions[-1])
    return positions


def winning_columns(game, canonical: np.ndarray) -> list[int]:
    """The columns where the mover (1) wins at once, by ``ConnectFour``'s rules."""
    return [
        column
        for column in np.flatnonzero(game.get_valid_moves(canonical)).tolist()
        if game.get_value_and_terminated(game.get_next_state(canonical, column, 1), column)[0] == 1
    ]


SEARCHES = [  # board options, C, simulations, positions compared, a flat policy (every prior equal: ties)
    ({}, 2.0, 40, 40, False),
    ({}, 1.0, 150, 8, False),
    ({"rows": 5, "columns": 8, "in_a_row": 5}, 3.0, 60, 20, False),
    ({}, 0.0, 30, 10, False),
    ({}, 2.0, 40, 10, True),
]


@pytest.mark.parametrize(
    "options, C, num_searches, count, flat_policy",
    SEARCHES,
    ids=["6x7-C2-40", "6x7-C1-150", "5x8_5-C3-60", "6x7-C0-30", "6x7-C2-40-flat"],
)
def test_search_gives_alpha_mcts_visit_counts(options, C, num_searches, count, flat_policy):
    """The agent's search without a deadline, on the numpy copy of a torch ``ResNet`` (built as the export builds
    it: BatchNorm folded by ``numpy_params``), against ``AlphaMCTS`` on the torch network itself, with the same
    ``C``, no noise and the same number of simulations: the visit counts are equal, exactly. ``C = 0`` and a
    flat policy (the policy head zeroed: every legal prior equal) make exact ties, which both break to the lowest
    column.

    The two networks agree to about 1e-7 here (float32 numpy against torch), so a PUCT near-tie could in
    principle tip; none does on these seeded positions (and the agent fed the torch network's outputs gives the
    same counts on them). A position where the mover wins at once is answered by the agent without a search (one
    visit on the lowest winning column), which ``AlphaMCTS`` does not do: those are checked apart.
    """
    game = make_game("connect_four", **options)
    model = random_resnet(game, blocks=2, hidden=16, seed=1)
    if flat_policy:
        model.policy_head[4].weight.data.zero_()
        model.policy_head[4].bias.data.zero_()
    rows, columns, in_a_row = game.row_count, game.column_count, game.in_a_row
    net = standalone.NumpyResNet(numpy_params(model), num_res_blocks=2)
    agent = standalone.Agent(net, rows, columns, in_a_row, num_searches=num_searches, C=C)
    compared = spread = won = 0
    for canonical in live_canonical_positions(game, count, seed=7):
        counts = agent.search(canonical)  # no deadline: every simulation runs
        wins = winning_columns(game, canonical)
        if wins:
            assert counts.tolist() == np.eye(columns)[wins[0]].tolist(), canonical
            won += 1
            continue
        config = SearchConfig(num_searches=num_searches, C=C, dirichlet_epsilon=0.0, seed=0)
        probs = AlphaMCTS(game, model, config).search(canonical)
        expected = np.rint(probs * num_searches)
        np.testing.assert_allclose(probs * num_searches, expected, atol=1e-9)
        assert counts.tolist() == expected.tolist(), canonical
        compared += 1
        spread += int(np.count_nonzero(counts) > 1)
    assert compared == count and spread >= count // 2 and won > 0  # visits over several columns, and some wins


# ---- whatever Kaggle sends, a legal column and no won game thrown away (issues 16 and 28) ----------------------------
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


CONFIGURATIONS = [
    None,
    {},
    {"rows": 6, "columns": 7},  # no inarow
    {"rows": 6, "columns": 7, "inarow": None, "actTimeout": None},
    {"rows": "x", "columns": "seven", "inarow": "4"},
    {"rows": 6, "columns": 1000, "inarow": 4},
    {"rows": 14, "columns": 3, "inarow": 4},
    {"columns": 0, "rows": -6},
    {"columns": True, "rows": True, "inarow": True},
    {"columns": 2.5},
    [6, 7, 4],
    "connectx",
]


@pytest.fixture(scope="module")
def standalone_agent():
    from alphazero_lib.kaggle import numpy_params
    from alphazero_lib.kaggle.agent import Agent, NumpyResNet

    model = ResNet(C4, 1, 8).eval()
    return Agent(NumpyResNet(numpy_params(model), 1), rows=6, columns=7, in_a_row=4, num_searches=8, C=2.0)


@pytest.mark.parametrize("configuration", CONFIGURATIONS, ids=repr)
@pytest.mark.parametrize("mark", [1, 2, None])
def test_the_standalone_agent_and_its_fallback_play_a_legal_column_whatever_the_configuration(
    standalone_agent, configuration, mark
):
    from alphazero_lib.kaggle.agent import fallback_move

    board = crowded_board()
    observation = {"board": board.reshape(-1).tolist(), "mark": mark}
    open_columns = set(np.flatnonzero(board[0] == 0).tolist())
    assert standalone_agent(observation, configuration) in open_columns
    assert fallback_move(observation, configuration) in open_columns
    assert fallback_move({"board": "garbage"}, configuration) in range(7)


@pytest.mark.parametrize("configuration", [None, {}, {"rows": 6, "columns": 7}], ids=repr)
def test_a_configuration_without_inarow_still_takes_the_win(standalone_agent, configuration):
    board = np.zeros((6, 7), dtype=int)
    board[3:, 6] = 1  # three of mark 1 in column 6
    board[5, 0:3] = 2
    assert standalone_agent({"board": board.reshape(-1).tolist(), "mark": 1}, configuration) == 6
