"""Issue 28 (hardening, round 2): every number has a range that fits the machine, the library validates at its
public edges, and the ConnectX adapters always play a legal column."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
import torch

from alphazero_lib import make_game
from alphazero_lib.checkpoints import CheckpointError, load_model, make_checkpoint
from alphazero_lib.cli import main
from alphazero_lib.config import SearchConfig, TrainConfig
from alphazero_lib.model import ResNet

TTT, C4, OTHELLO = make_game("tictactoe"), make_game("connect_four"), make_game("othello6")


def one_line_error(capsys, argv: list[str]) -> str:
    """Run the command line; it must fail with exit code 2 and one line on stderr (no traceback)."""
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


# ---- item 2: every number has a range that fits the machine --------------------------------------------------
@pytest.mark.parametrize(
    "argv, message",
    [
        (["bench", "selfplay", "--searches", "1000000000"], "argument --searches: must be at most 100,000 (a move"),
        (["bench", "selfplay", "--games", "1000000"], "argument --games: must be at most 16,384 (every game in flight"),
        (["bench", "selfplay", "--threads", "100000"], "argument --threads: must be at most 8 (4 x the 2 cores"),
        (["train", "--game", "tictactoe", "--out", "x", "--threads", "100000"], "must be at most 8 (4 x the 2 cores"),
        (["train", "--game", "tictactoe", "--out", "x", "--searches", "1000000000"], "at most 100,000"),
        (["train", "--game", "tictactoe", "--out", "x", "--iterations", "1000000"], "at most 100,000 (each iteration"),
        (["train", "--game", "tictactoe", "--out", "x", "--parallel-games", "10000000"], "at most 16,384"),
        (
            ["train", "--game", "tictactoe", "--out", "x", "--workers", "100000"],
            "at most 256 (each worker is a process",
        ),
        (["train", "--game", "tictactoe", "--out", "x", "--lr", "1e30"], "--lr: must be at most 1 (Adam diverges"),
        (
            ["train", "--game", "tictactoe", "--out", "x", "--seed", "12345678901234567890123"],
            "--seed: must be at most 9,223,372,036,854,775,806 (seeds are 64-bit integers for torch, and a second "
            "player gets seed + 1), got a 23-digit number",
        ),
        (["arena", "--player1", "random", "--player2", "random", "--games", "10000000"], "at most 1,000,000"),
        (["export-kaggle", "--weights", "connect_four", "--searches", "1000000000"], "--searches: must be at most"),
        (["play", "--threads", "100000"], "--threads: must be at most 8"),
    ],
)
def test_numbers_past_their_caps_are_refused_by_name_and_reason(capsys, monkeypatch, argv, message):
    import alphazero_lib.cli as cli

    monkeypatch.setattr(cli, "_cores", lambda: 2)
    assert message in one_line_error(capsys, argv)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("mcts:1000000000000", "player spec 'mcts:1000000000000': SEARCHES must be at most 100,000 (a move of"),
        ("alphazero:tictactoe:1000000000", "SEARCHES must be at most 100,000"),
        ("mc:tictactoe:10000000", "ROLLOUTS must be at most 100,000 (each is a whole random game)"),
    ],
)
def test_demo_with_an_endless_search_is_refused_at_once(capsys, spec, message):
    start = time.perf_counter()
    err = one_line_error(capsys, ["demo", "--game", "tictactoe", "--player1", spec])
    assert message in err and time.perf_counter() - start < 10


def test_workers_beyond_the_machine_are_refused_unless_on_ray(capsys, monkeypatch, tmp_path):
    import alphazero_lib.cli as cli

    monkeypatch.setattr(cli, "_cores", lambda: 2)
    tiny = tmp_path / "tiny.json"  # (two games: were the check gone, two worker processes would train at once)
    tiny.write_text(json.dumps({"num_res_blocks": 1, "num_hidden": 8, "num_searches": 2, "games_per_iteration": 2}))
    argv = ["train", "--game", "tictactoe", "--out", str(tmp_path / "r"), "--config", str(tiny), "--no-progress"]
    err = one_line_error(capsys, [*argv, "--iterations", "1", "--workers", "64"])
    assert "--workers 64 would start 64 processes on the 2 cores of this machine; at most 8" in err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"num_hidden": 1_000_000}, "TrainConfig.num_hidden must be at most 2,048 (wider networks do not fit"),
        ({"num_res_blocks": 100_000}, "TrainConfig.num_res_blocks must be at most 100"),
        ({"num_parallel_games": 10**9}, "TrainConfig.num_parallel_games must be at most 16,384"),
        ({"num_threads": 100_000}, "TrainConfig.num_threads must be at most 256"),
        ({"seed": 10**22}, "TrainConfig.seed must be at most 9,223,372,036,854,775,807 (seeds are 64-bit"),
        ({"num_searches": 10**9}, "SearchConfig.num_searches must be at most 100,000"),
        ({"lr": 1e30}, "TrainConfig.lr must be positive and at most 1"),
    ],
)
def test_config_values_past_their_caps_name_the_field_and_the_limit(tmp_path, capsys, settings, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        TrainConfig.from_dict(settings)
    config = tmp_path / "big.json"
    config.write_text(json.dumps(settings))
    err = one_line_error(
        capsys, ["train", "--game", "tictactoe", "--out", str(tmp_path / "r"), "--config", str(config)]
    )
    assert message in err


def test_a_checkpoint_recording_a_huge_network_is_refused_before_it_is_built(tmp_path, monkeypatch):
    checkpoint = make_checkpoint(ResNet(TTT, 1, 8), TTT)
    checkpoint["arch"]["num_hidden"] = 1_000_000
    torch.save(checkpoint, tmp_path / "huge.pt")
    built = []
    monkeypatch.setattr(ResNet, "__init__", lambda *args, **kwargs: built.append(1))
    with pytest.raises(CheckpointError, match=r"records an impossible network: arch\['num_hidden'\] must be at most"):
        load_model(tmp_path / "huge.pt")
    assert not built


def test_a_network_too_large_for_memory_is_refused_before_allocation(monkeypatch):
    import alphazero_lib.model as model

    assert model.resnet_parameters(C4, 100, 2048) == 7_551_692_207  # 30 GB: refused by the real cap
    monkeypatch.setattr(model, "MAX_PARAMETERS", 100_000)  # a cap that a small network passes, to plant safely
    with pytest.raises(ValueError, match=r"4 blocks x 64 channels .* would have 328,175 parameters \(0.0 GB .*at most"):
        ResNet(C4, 4, 64)
    assert ResNet(C4, 1, 8).num_parameters() == model.resnet_parameters(C4, 1, 8)


def test_search_trees_larger_than_memory_are_refused_before_allocation(monkeypatch):
    from fakes import FakeNet

    import alphazero_lib.batched_mcts as batched_mcts
    from alphazero_lib.batched_mcts import BatchedMCTS

    monkeypatch.setattr(batched_mcts, "physical_memory", lambda: 10**7)  # a 10 MB machine
    mcts = BatchedMCTS(C4, FakeNet(C4), SearchConfig(num_searches=2_000))
    states = np.zeros((16, 6, 7), dtype=np.int8)
    with pytest.raises(
        ValueError, match=r"the search trees of 16 games with 2,002 node slots each .* would take 0.0 GB"
    ):
        mcts.search(states)
    assert BatchedMCTS(C4, FakeNet(C4), SearchConfig(num_searches=10)).search(states[:4]).shape == (4, 7)
    assert batched_mcts.tree_bytes(16, 2002, C4) == 16 * 2002 * (50 + 42 + 24 * 7)


def test_a_device_torch_does_not_have_is_refused_with_the_choices():
    from alphazero_lib.training import build_trainer

    if torch.backends.mps.is_available():
        pytest.skip("this torch has MPS")
    with pytest.raises(ValueError, match="device 'mps' was asked for, but torch sees no Apple GPU"):
        build_trainer(TTT, TrainConfig(device="mps"))
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="torch sees no CUDA GPU"):
            build_trainer(TTT, TrainConfig(device="cuda"))


def test_arena_exhaustive_refuses_flags_it_would_ignore(capsys):
    err = one_line_error(
        capsys, ["arena", "--game", "tictactoe", "--player1", "perfect", "--exhaustive", "--player2", "random"]
    )
    assert "--exhaustive plays player 1 against every reply" in err and "--player2 would be ignored; drop it" in err
    argv = ["arena", "--game", "tictactoe", "--player1", "perfect", "--exhaustive", "--openings", "2"]
    assert "--openings would be ignored" in one_line_error(capsys, argv)


# ---- item 3: the library validates at its public edges ------------------------------------------------------
def random_positions(game, count: int, seed: int) -> list[np.ndarray]:
    """Positions of random games (absolute and canonical), none of them over."""
    rng, out = np.random.default_rng(seed), []
    while len(out) < count:
        state, player = game.get_initial_state(), 1
        while not game.is_over(state):
            out += [state, game.change_perspective(state, player)]
            action = int(rng.choice(np.flatnonzero(game.get_valid_moves(state, player))))
            state, player = game.get_next_state(state, action, player), -player
    return out[:count]


@pytest.mark.parametrize("game", [TTT, C4, OTHELLO], ids=repr)
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


@pytest.mark.parametrize("game", [TTT, C4, OTHELLO], ids=repr)
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


@pytest.mark.parametrize("game", [TTT, C4, OTHELLO], ids=repr)
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


@pytest.mark.parametrize("game", [TTT, C4, OTHELLO], ids=repr)
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


@pytest.mark.parametrize(
    "args, message",
    [
        ((float("nan"), 10), r"score must be a number from 0 to 1 \(a share of points\), got nan"),
        ((1.5, 10), "score must be a number from 0 to 1"),
        ((-0.1, 10), "score must be a number from 0 to 1"),
        ((0.5, 2.5), r"n must be a whole number of trials \(0 or more\), got 2.5"),
        ((0.5, -1), "n must be a whole number of trials"),
        ((0.5, 10, 0.0), "z must be a positive finite number"),
        ((0.5, 10, float("inf")), "z must be a positive finite number"),
    ],
)
def test_wilson_interval_refuses_nonsense(args, message):
    from alphazero_lib.arena import wilson_interval

    with pytest.raises(ValueError, match=message):
        wilson_interval(*args)
    assert wilson_interval(np.float64(0.5), np.int64(0)) == (0.0, 1.0)


@pytest.mark.parametrize("search", ["AlphaMCTS", "BatchedMCTS"])
def test_a_search_refuses_a_network_for_another_game(search):
    from alphazero_lib.alpha_mcts import AlphaMCTS
    from alphazero_lib.batched_mcts import BatchedMCTS
    from alphazero_lib.inference import FastEvaluator

    cls = {"AlphaMCTS": AlphaMCTS, "BatchedMCTS": BatchedMCTS}[search]
    network = ResNet(C4, 1, 8).eval()
    message = r"this network plays ConnectFour\(rows=6, columns=7, in_a_row=4\), but the search plays TicTacToe"
    with pytest.raises(ValueError, match=message):
        cls(TTT, network, SearchConfig(num_searches=4))
    with pytest.raises(ValueError, match=message):
        cls(TTT, FastEvaluator(network, "fp32", cache_dir=None), SearchConfig(num_searches=4))
    cls(C4, network, SearchConfig(num_searches=4))


def test_a_learners_own_game_class_takes_a_network_of_its_sizes():
    """Notebook 6 searches the learner's own ConnectFour class (not a library Game) with the shipped network."""
    from alphazero_lib.inference import check_network_game

    class LearnersConnectFour:  # what a notebook's class looks like to the check: sizes, no library base
        row_count, column_count, action_size = 6, 7, 7

    check_network_game(LearnersConnectFour(), ResNet(C4, 1, 8))
    LearnersConnectFour.column_count = LearnersConnectFour.action_size = 8
    with pytest.raises(ValueError, match="but the search plays"):
        check_network_game(LearnersConnectFour(), ResNet(C4, 1, 8))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: s.__setitem__((1, 0, 0), 2), r"game 1: state values must be -1, 0 or 1 .*got \[2\]"),
        (lambda s: s.__setitem__((2, 5, 0), 1), "game 2: this position cannot arise: player 1 has 2 stones"),
        (
            lambda s: s.__setitem__((0, 0, 6), -1),
            "game 0: this position cannot arise in Connect Four: the stone at row 0",
        ),
        ("won", "game 3 is already won \\(a player has 4 in a row\\); the search needs a live game"),
        ("float", r"game 1: state values must be -1, 0 or 1 .*got \[0.5\]"),
    ],
)
def test_batched_search_inputs_are_held_to_the_serial_searchs_rules(change, message):
    from fakes import FakeNet

    from alphazero_lib.alpha_mcts import AlphaMCTS
    from alphazero_lib.batched_mcts import BatchedMCTS

    states = np.zeros((4, 6, 7), dtype=np.int8)
    states[:, 5, 3] = 1  # one stone each: legal canonical positions (the mover is player -1)
    if change == "won":
        states[3, 2:, 0] = 1
        states[3, 5, 1:5] = -1
        states[3, 5, 3] = 1
        states[3, 4, 3] = -1
    elif change == "float":
        states = states.astype(float)
        states[1, 0, 0] = 0.5
    else:
        change(states)
    mcts = BatchedMCTS(C4, FakeNet(C4), SearchConfig(num_searches=4))
    with pytest.raises(ValueError, match=message):
        mcts.search(states)
    bad = int(message.split()[1].rstrip(":")) if message.startswith("game") else 0
    with pytest.raises(ValueError):  # the serial search refuses the same state
        AlphaMCTS(C4, FakeNet(C4), SearchConfig(num_searches=4)).search(np.asarray(states[bad]))
    active = np.ones(4, dtype=bool)
    active[bad] = False  # an inactive game's row is not searched, so not checked
    mcts.run(states, active)


def test_batched_search_takes_float_states_of_minus_one_zero_and_one_as_before():
    from fakes import FakeNet

    from alphazero_lib.batched_mcts import BatchedMCTS

    states = np.stack(random_positions(C4, 8, seed=5)[1::2])  # canonical views
    config = SearchConfig(num_searches=12, seed=3)
    exact = BatchedMCTS(C4, FakeNet(C4), config).search(states)
    np.testing.assert_array_equal(BatchedMCTS(C4, FakeNet(C4), config).search(states.astype(np.float32)), exact)


@pytest.mark.parametrize(
    "text, message",
    [
        ("[1, 2]", "must hold a JSON object \\(name -> entry\\), not a list"),
        ("{oops", "is not valid JSON"),
        ('{"tictactoe": {"files": 3}}', "has a malformed entry 'tictactoe'"),
    ],
)
def test_a_damaged_weights_registry_is_named_with_the_fix(tmp_path, monkeypatch, capsys, text, message):
    import alphazero_lib.pretrained as pretrained

    registry = tmp_path / "registry.json"
    registry.write_text(text)
    monkeypatch.setattr(pretrained, "REGISTRY_PATH", registry)
    with pytest.raises(ValueError, match=message):
        pretrained.available()
    err = one_line_error(capsys, ["demo", "--game", "tictactoe", "--player1", "alphazero:tictactoe:4"])
    assert f"the weights registry {registry}" in err and "reinstall the package" in err


# ---- item 6: the ConnectX adapters always play a legal column; kaggle-eval refuses another game's submission -----
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


def crowded_board() -> np.ndarray:
    """Columns 0 (the naive fallback) and 3 (the centre) full, the rest open; 7 stones each."""
    board = np.zeros((6, 7), dtype=int)
    board[:, 0] = [1, 2, 1, 2, 1, 2]
    board[:, 3] = [2, 1, 2, 1, 2, 1]
    board[5, 5], board[5, 6] = 1, 2
    return board


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


def test_our_players_as_kaggle_agents_take_a_missing_configuration_as_their_game():
    from alphazero_lib.kaggle import as_kaggle_agent
    from alphazero_lib.players import RandomPlayer

    board = crowded_board().reshape(-1).tolist()
    agent = as_kaggle_agent(C4, RandomPlayer(C4, seed=0))
    for configuration in (None, {}, {"rows": 6, "columns": 7}, {"actTimeout": None}):
        assert agent({"board": board, "mark": 1}, configuration) in (1, 2, 4, 5, 6)
    with pytest.raises(ValueError, match=r"this agent plays ConnectFour\(rows=6, columns=7, in_a_row=4\), not rows"):
        agent({"board": board, "mark": 1}, {"rows": 5, "columns": 7, "inarow": 4})
    ttt = as_kaggle_agent(TTT, RandomPlayer(TTT, seed=0))
    assert ttt({"board": [1, 0, 0, 0, 2, 0, 0, 0, 0], "mark": 1}, None) in (1, 2, 3, 5, 6, 7, 8)


def test_kaggle_eval_refuses_a_submission_for_another_game(tmp_path, capsys):
    from alphazero_lib.kaggle import export_submission, load_submission

    exported = export_submission(ResNet(C4, 1, 8).eval(), tmp_path / "submission.py", num_searches=4)
    argv = ["kaggle-eval", "--game", "tictactoe", "--player", str(exported), "--episodes", "1", "--no-progress"]
    err = one_line_error(capsys, argv)
    assert f"{exported} was exported for ConnectFour(rows=6, columns=7, in_a_row=4) (its header says so)" in err
    assert "not TicTacToe" in err
    with pytest.raises(
        ValueError, match=r"exported for ConnectFour\(rows=6, columns=7, in_a_row=4\) .*not ConnectFour"
    ):
        load_submission(str(exported), make_game("connect_four", rows=5, columns=6))
    assert callable(load_submission(str(exported), C4))
    handwritten = tmp_path / "mine.py"
    handwritten.write_text("def agent(observation, configuration):\n    return configuration.inarow % 3\n")
    err = one_line_error(capsys, [*argv[:4], str(handwritten), *argv[5:]])
    assert "reads ConnectX's 'inarow': a Connect Four submission, not one for TicTacToe" in err


def test_line_checks_take_hand_made_boards():
    """The notebooks ask "four in a row here?" of boards no game reaches: the line checks answer, the rest refuse."""
    state = C4.get_initial_state()
    state[5, 0:4] = 1  # four of player 1, none of player -1: unreachable, but a clear line
    assert C4.check_win(state, 3) is True and C4.get_value_and_terminated(state, 3) == (1.0, True)
    with pytest.raises(ValueError, match="cannot arise"):
        C4.get_valid_moves(state)


def test_a_checkpoint_with_negative_batchnorm_variances_is_refused(tmp_path):
    from alphazero_lib.checkpoints import save_checkpoint

    model = ResNet(TTT, 1, 8)
    with torch.no_grad():
        model.back_bone[0].bn1.running_var[3] = -0.5
    path = save_checkpoint(tmp_path / "negative.pt", make_checkpoint(model, TTT))
    with pytest.raises(CheckpointError, match=r"'back_bone.0.bn1.running_var' holds negative variances, which no"):
        load_model(path)
