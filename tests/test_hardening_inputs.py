"""Issue 16, items 2 to 4: game states checked at the public API, no silent garbage from weights or settings,
and no tracebacks from the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from alphazero_lib import make_game
from alphazero_lib.checkpoints import CheckpointError, load_checkpoint, load_model, make_checkpoint, save_checkpoint
from alphazero_lib.choosers import batched_chooser
from alphazero_lib.cli import main
from alphazero_lib.config import MCTSConfig, SearchConfig, TrainConfig
from alphazero_lib.model import ResNet
from alphazero_lib.players import AlphaZeroPlayer, PolicyPlayer
from alphazero_lib.specs import make_player

TTT, C4, OTHELLO = make_game("tictactoe"), make_game("connect_four"), make_game("othello6")


# ---- item 2: game states ------------------------------------------------------------------------------
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


@pytest.mark.parametrize("game", [TTT, C4, OTHELLO])
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


def test_a_player_refuses_a_finished_game_and_a_bad_player_with_one_message():
    won = np.array([[1, 1, 1], [-1, -1, 0], [0, 0, 0]], dtype=np.int8)
    full_c4 = C4.get_initial_state()
    full_c4[2:, 0] = 1
    full_c4[5, [2, 3, 5, 6]] = -1
    model = ResNet(TTT, 1, 8)
    for game, state, spec in [
        (TTT, won, "random"),
        (TTT, won, "perfect"),
        (TTT, won, "mcts:10"),
        (C4, full_c4, "negamax:2"),
        (C4, full_c4, "random"),
    ]:
        player = make_player(game, spec, seed=0)
        with pytest.raises(ValueError, match=f"^{spec}: the game is over in this position; there is no move"):
            player.get_action(state, -1)
        with pytest.raises(ValueError, match=f"^{spec}: player must be 1 or -1 .*got 2"):
            player.get_action(game.get_initial_state(), 2)
    for player in (PolicyPlayer(TTT, model), AlphaZeroPlayer(TTT, model, SearchConfig(num_searches=4))):
        with pytest.raises(ValueError, match="the game is over"):
            player.get_action(won, -1)
        with pytest.raises(ValueError, match="player must be 1 or -1"):
            player.get_action(TTT.get_initial_state(), 0)
        # the same refusals where many positions are chosen at once (Pons' sets, games side by side)
        choose = batched_chooser(player)
        open_position = TTT.get_initial_state()
        with pytest.raises(ValueError, match=f"^{player.name}: the game is over in this position"):
            choose(np.stack([open_position, won]), np.array([1, -1]))
        with pytest.raises(ValueError, match=f"^{player.name}: player must be 1 or -1"):
            choose(np.stack([open_position]), np.array([0]))


def test_a_model_for_another_game_is_refused_by_name():
    model = ResNet(C4, 1, 8)
    with pytest.raises(
        ValueError, match=r"this model plays ConnectFour\(rows=6, columns=7, in_a_row=4\), not TicTacToe"
    ):
        AlphaZeroPlayer(TTT, model)
    with pytest.raises(ValueError, match="this model plays ConnectFour"):
        PolicyPlayer(TTT, model)


def test_negamax_depth_is_capped_with_a_message():
    with pytest.raises(ValueError, match=r"negamax depth 99 is too deep.*use 1 to 10"):
        make_player(C4, "negamax:99")
    assert make_player(C4, "negamax:10").depth == 10


# ---- item 3: weights and settings ---------------------------------------------------------------------
def test_non_finite_weights_are_refused_at_load_and_export(tmp_path):
    model = ResNet(C4, 1, 8)
    with torch.no_grad():
        model.start_block[0].weight[0, 0, 0, 0] = float("nan")
    path = save_checkpoint(tmp_path / "nan.pt", make_checkpoint(model, C4))
    with pytest.raises(CheckpointError, match=r"parameter 'start_block.0.weight' holds NaN or infinite values"):
        load_model(path)
    from alphazero_lib.kaggle import submission_source

    with pytest.raises(CheckpointError, match="holds NaN or infinite values"):
        submission_source(model)
    with pytest.raises(ValueError, match="C must be a finite non-negative number, got nan"):
        submission_source(ResNet(C4, 1, 8), C=float("nan"))
    with pytest.raises(ValueError, match="got -1"):
        submission_source(ResNet(C4, 1, 8), C=-1)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda c: c.pop("game_repr"), "'game_repr' must be a string"),
        (lambda c: c.pop("arch"), "'arch' must be a dict"),
        (lambda c: c["arch"].update(extra=1), "'arch' must be a dict with the keys"),
        (lambda c: c["arch"].update(num_hidden="8"), r"arch\['num_hidden'\] must be a positive integer"),
        (lambda c: c.update(game=["tictactoe"]), "'game' must be a dict with a 'name'"),
        (lambda c: c.update(model=[1, 2]), "'model' must be a state_dict"),
    ],
)
def test_malformed_checkpoint_dicts_raise_checkpoint_error(tmp_path, change, message):
    checkpoint = make_checkpoint(ResNet(TTT, 1, 8), TTT)
    change(checkpoint)
    path = tmp_path / "bad.pt"
    torch.save(checkpoint, path)
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(path)
    with pytest.raises(CheckpointError):
        load_model(path)


def test_a_checkpoint_naming_an_unknown_game_is_a_checkpoint_error(tmp_path):
    checkpoint = make_checkpoint(ResNet(TTT, 1, 8), TTT)
    checkpoint["game"] = {"name": "chess"}
    torch.save(checkpoint, tmp_path / "chess.pt")
    with pytest.raises(CheckpointError, match="cannot rebuild the game"):
        load_model(tmp_path / "chess.pt")


@pytest.mark.parametrize(
    "cls, settings, message",
    [
        (SearchConfig, {"num_searches": 3.0}, "SearchConfig.num_searches must be an integer, got 3.0"),
        (SearchConfig, {"num_searches": True}, "must be an integer, got True"),
        (SearchConfig, {"C": float("nan")}, "SearchConfig.C must be a finite number, got nan"),
        (SearchConfig, {"C": float("inf")}, "must be a finite number, got inf"),
        (SearchConfig, {"C": -1.0}, "C must be non-negative"),
        (SearchConfig, {"C": "2"}, "SearchConfig.C must be a number, got '2'"),
        (SearchConfig, {"seed": -1}, "SearchConfig.seed must be a non-negative integer, got -1"),
        (SearchConfig, {"pb_c_init": -1.0}, "pb_c_init must be non-negative"),
        (MCTSConfig, {"C": float("nan")}, "MCTSConfig.C must be a finite number"),
        (TrainConfig, {"augment_symmetries": "no"}, "TrainConfig.augment_symmetries must be true or false, got 'no'"),
        (TrainConfig, {"augment_symmetries": 0}, "must be true or false, got 0"),
        (TrainConfig, {"lr": float("inf")}, "TrainConfig.lr must be a finite number, got inf"),
        (TrainConfig, {"temperature": float("nan")}, "TrainConfig.temperature must be a finite number"),
        (TrainConfig, {"seed": -1}, "TrainConfig.seed must be a non-negative integer, got -1"),
        (TrainConfig, {"num_threads": 2.0}, "TrainConfig.num_threads must be an integer"),
        (TrainConfig, {"device": 3}, "TrainConfig.device must be a string"),
    ],
)
def test_config_fields_are_checked(cls, settings, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        cls(**settings)


def test_valid_configs_keep_their_values():
    assert SearchConfig(num_searches=np.int64(5), C=2).num_searches == 5
    assert TrainConfig(augment_symmetries=np.bool_(False)).augment_symmetries is False
    assert (
        TrainConfig.from_preset("connect_four_small").to_dict()
        == TrainConfig.from_preset("connect_four_small").to_dict()
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"num_searches": 5,}', "is not valid JSON"),
        ("[1, 2]", "must hold a JSON object of settings at the top level, not a list"),
        ('{"lr": Infinity}', "TrainConfig.lr must be a finite number, got inf"),
        ('{"augment_symmetries": "no"}', "augment_symmetries must be true or false"),
    ],
)
def test_train_config_files_errors_name_the_file(tmp_path, capsys, text, message):
    config = tmp_path / "settings.json"
    config.write_text(text)
    out = tmp_path / "run"
    assert main(["train", "--game", "tictactoe", "--out", str(out), "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    if "JSON" in message:
        assert str(config) in err


def test_resume_with_a_broken_config_json_names_it(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "config.json").write_text("{oops")
    assert main(["train", "--out", str(out), "--resume"]) == 2
    assert f"{out / 'config.json'} is not valid JSON" in capsys.readouterr().err


# ---- item 4: no tracebacks from the command line ------------------------------------------------------
@pytest.mark.parametrize(
    "argv, message",
    [
        (["bench", "selfplay", "--games", "0"], "argument --games: must be a positive integer, got 0"),
        (["bench", "selfplay", "--threads", "0"], "argument --threads: must be a positive integer, got 0"),
        (["bench", "selfplay", "--searches", "0"], "argument --searches: must be a positive integer, got 0"),
        (["bench", "selfplay", "--seconds", "-1"], "argument --seconds: must be a finite positive number, got -1"),
        (["kaggle-eval", "--player", "random", "--episodes", "0"], "argument --episodes: must be a positive integer"),
        (
            ["arena", "--player1", "random", "--player2", "random", "--seed", "-1"],
            "argument --seed: must be a non-negative",
        ),
        (["train", "--game", "tictactoe", "--out", "r", "--seed", "-1"], "argument --seed: must be a non-negative"),
        (["export-kaggle", "--weights", "connect_four", "--C", "nan"], "argument --C: must be a finite non-negative"),
        (["export-kaggle", "--weights", "connect_four", "--C", "-1"], "argument --C: must be a finite non-negative"),
    ],
)
def test_bad_flags_get_one_line_and_exit_code_2(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def run_cli(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_train_out_an_existing_file(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    err = run_cli(capsys, ["train", "--game", "tictactoe", "--out", str(tmp_path / "file")])
    assert "is a file, not a run directory" in err


def test_export_kaggle_out_a_directory(tmp_path, capsys):
    err = run_cli(capsys, ["export-kaggle", "--weights", "connect_four", "--out", str(tmp_path)])
    assert "is a directory; give the submission a file name" in err


def test_kaggle_eval_unknown_opponent_and_broken_player(tmp_path, capsys):
    pytest.importorskip("kaggle_environments")
    err = run_cli(capsys, ["kaggle-eval", "--player", "random", "--opponents", "bogus", "--episodes", "1"])
    assert "kaggle-environments has no agent 'bogus'" in err and "known: ['negamax', 'random']" in err
    broken = tmp_path / "broken.py"
    broken.write_text("def agent(:\n")
    err = run_cli(capsys, ["kaggle-eval", "--player", str(broken), "--episodes", "1", "--no-progress"])
    assert "broken.py fails to load (line 1): SyntaxError" in err
    broken.write_text("raise RuntimeError('boom')\n")
    err = run_cli(capsys, ["kaggle-eval", "--player", str(broken), "--episodes", "1", "--no-progress"])
    assert "fails to load: RuntimeError: boom" in err


def test_arena_negamax_too_deep(capsys):
    err = run_cli(capsys, ["arena", "--game", "connect_four", "--player1", "negamax:99", "--player2", "random"])
    assert "negamax depth 99 is too deep" in err


def test_train_config_roundtrip_through_json_still_works(tmp_path):
    config = TrainConfig.from_preset("tictactoe")
    assert TrainConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
