"""The newcomer's first hour: help texts, one default game, the playoff page's legend, announced timings."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from alphazero_lib import make_game
from alphazero_lib.animation import playoff_html
from alphazero_lib.cli import DEFAULT_GAME, build_parser, main

ROOT = Path(__file__).resolve().parents[1]


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


def test_the_command_line_page_shows_every_command():
    """docs/cli.md, the site's command-line page, has a section for each command with an example run."""
    page = (ROOT / "docs" / "cli.md").read_text()
    shown = set(re.findall(r"^\$ python -m alphazero_lib ([\w-]+)", page, re.MULTILINE))
    assert shown == set(subcommands()), f"missing from docs/cli.md: {set(subcommands()) - shown}"


def test_the_cpu_build_of_torch_comes_from_pytorchs_cpu_index():
    readme = (ROOT / "README.md").read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in readme
    pip = yaml_pip_lines((ROOT / "environment.yml").read_text())
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in pip and "torch" in pip
    assert pip.index("--extra-index-url https://download.pytorch.org/whl/cpu") < pip.index("torch")


def yaml_pip_lines(text: str) -> list[str]:
    """The entries of environment.yml's ``pip:`` list (read without a YAML parser)."""
    after = text.split("- pip:", 1)[1]
    return [line.strip()[2:] for line in after.splitlines() if line.strip().startswith("- ")]


def test_a_play_cell_shows_the_board_and_nothing_under_it(monkeypatch):
    """A notebook echoes a cell's last value: play() must return None, or a ``<PlaySession at 0x...>`` line shows."""
    pytest.importorskip("ipywidgets")
    import IPython.display

    from alphazero_lib.course import play_board as play_module

    shown = []
    monkeypatch.setattr(play_module, "interactive", lambda: True)
    monkeypatch.setattr(IPython.display, "display", shown.append)
    assert play_module.play(make_game("tictactoe"), None, title="a test") is None
    assert len(shown) == 1 and type(shown[0]).__name__ == "VBox"  # the board was shown


# ---- the Quick start block is what CI runs ------------------------------------------------------------
def quick_start() -> str:
    return (ROOT / "README.md").read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]


def fenced(text: str, language: str) -> list[list[str]]:
    """The commands of each ```language block in ``text``: one a line, comments and blank lines dropped."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    return [[c for line in block.splitlines() if (c := re.sub(r"(^|\s+)#.*$", "", line).strip())] for block in blocks]


def ci_commands() -> list[str]:
    """.ci/run's lines, comments and blank lines dropped (control lines and here-documents included)."""
    return fenced("```sh\n" + (ROOT / ".ci" / "run").read_text() + "```\n", "sh")[0]


def same_step(command: str) -> str:
    """A command as a step: how quiet it is, which index torch comes from and its exact version left out."""
    command = re.sub(r"\s+--index-url\s+\S+|\s+--quiet\b", "", command)
    return " ".join(re.sub(r"\btorch==\S+", "torch", command).split())


def test_the_quick_start_is_the_steps_ci_runs_in_order():
    linux = fenced(quick_start(), "bash")[0]
    assert linux[:3] == [
        "python3 -m venv .venv",
        "source .venv/bin/activate",
        "pip install torch --index-url https://download.pytorch.org/whl/cpu",
    ], linux
    ci = [same_step(c) for c in ci_commands()]
    position = 0
    for step in linux:  # each step of the block, in the block's order, is a step of CI
        assert same_step(step) in ci[position:], f"README step {step!r} is not in .ci/run (after {ci[:position]})"
        position = ci.index(same_step(step), position) + 1


def test_ci_installs_nothing_the_quick_start_does_not_say():
    installs = [c for c in ci_commands() if "pip install" in c or "conda install" in c]
    said = {same_step(step) for step in fenced(quick_start(), "bash")[0]}
    # the extras, each named as CI runs it: Ray for train --ray, the site's builder (the docs extra), the solver, a
    # pinned Playwright for the browser tests, and ipywidgets 7.7.1 beside the environment, for the play board as
    # Colab's widget manager meets it
    extras = {
        'pip install -e ".[distributed]"',
        'pip install -e ".[docs]"',
        'pip install -e ".[onnx]"',
        'pip install -e ".[solver]"',
        *(same_step(c) for c in installs if "playwright" in c or "ipywidgets==7" in c),
    }
    # said in the README or on a page of the site (docs/*.md: contributing names the test extras)
    pages = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    said_anywhere = " ".join(" ".join(p.read_text().split()) for p in pages)
    assert all(extra in said_anywhere for extra in extras), extras
    assert all(re.fullmatch(r"pip install playwright==[\d.]+", e) for e in extras if "playwright" in e), extras
    assert [c for c in installs if same_step(c) not in said | extras] == []


def test_the_readme_says_how_ci_installs_torch_and_why():
    (pin,) = [c for c in ci_commands() if re.match(r"pip install .*torch==", c)]
    version = re.search(r"torch==\S+", pin).group(0)
    text = " ".join(quick_start().split())
    assert f"pip install {version}" in text and "no route to PyTorch's index" in text


def test_the_windows_block_has_the_same_steps():
    linux, windows = fenced(quick_start(), "bash")[0], fenced(quick_start(), "bat")[0]
    assert windows[:2] == ["py -m venv .venv", r".venv\Scripts\activate"]
    # cmd.exe runs `a && b` too; the steps after the environment are the same lines
    assert windows[2:] == linux[2:]
