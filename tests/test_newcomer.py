"""The newcomer's first hour: help texts, one default game, the playoff page's legend, announced timings."""

from __future__ import annotations

import argparse
import json

import pytest

from alphazero_lib import make_game
from alphazero_lib.animation import playoff_html
from alphazero_lib.cli import DEFAULT_GAME, build_parser, main


def subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_top_level_help_is_plain_text():
    text = build_parser().format_help()
    assert "``" not in text and ":class:" not in text
    assert "COMMAND --help" in text


def test_every_command_with_a_game_defaults_to_the_same_one():
    defaults = {}
    for name, parser in subcommands().items():
        for action in parser._actions:
            if "--game" in action.option_strings and action.default is not None:
                defaults[name] = action.default
    assert {"demo", "arena", "play", "playoff", "bench", "kaggle-eval"} <= set(defaults)
    assert set(defaults.values()) == {DEFAULT_GAME}, defaults


def test_playoff_help_names_its_default_players_and_offers_only_kaggle_games():
    text = " ".join(subcommands()["playoff"].format_help().split())
    assert "default alphazero:connect_four" in text and "default kaggle:negamax" in text
    assert "{connect_four,tictactoe}" in text and "othello" not in text
    with pytest.raises(SystemExit):
        build_parser().parse_args(["playoff", "--game", "othello6"])


def test_playoff_defaults_follow_the_game(tmp_path, capsys):
    pytest.importorskip("kaggle_environments")
    out = tmp_path / "ttt.html"
    assert main(["playoff", "--game", "tictactoe", "--out", str(out)]) == 0
    assert "alphazero:tictactoe (X) vs kaggle:reaction (O)" in capsys.readouterr().out
    assert "X: alphazero:tictactoe (moves first)" in out.read_text()


@pytest.mark.parametrize(
    ("game", "first", "second"),
    [("connect_four", "red = X: me", "yellow = O: you"), ("tictactoe", "X: me", "O: you")],
)
def test_the_page_has_a_legend_matching_the_marks(game, first, second):
    g = make_game(game)
    page = playoff_html(g, [g.get_initial_state()], names=("me", "you"))
    legend = page.split('<div id="legend">', 1)[1].split("</div>", 1)[0]
    assert first in legend and second in legend
    data = json.loads(page.split("const DATA = ", 1)[1].split(";\n", 1)[0])
    if game == "connect_four":  # the legend's words name the colours the board is drawn in
        assert data["colors"]["1"] in legend and data["colors"]["-1"] in legend


def test_measuring_inference_modes_is_announced_on_stderr(capsys):
    from alphazero_lib.inference import _MEASURED, FastEvaluator
    from alphazero_lib.model import ResNet

    model = ResNet(make_game("tictactoe"), num_res_blocks=1, num_hidden=8).eval()
    FastEvaluator(model, "fp32", batch_size=2, cache_dir=None)
    assert capsys.readouterr().err == ""
    _MEASURED.clear()
    evaluator = FastEvaluator(model, "auto", batch_size=2, cache_dir=None)
    err = capsys.readouterr().err
    assert "timing inference modes" in err and "fp32" in err and len(err.splitlines()) == 1
    assert evaluator.mode in err
