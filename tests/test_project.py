"""The project around the library: lint, the README's quick start, CI, the CLI and helpers."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from alphazero_lib import seed_everything
from alphazero_lib.cli import main
from alphazero_lib.utils import atomic_write_bytes

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]])
def test_ruff(args):
    ruff = shutil.which("ruff")
    assert ruff, "ruff is not installed: pip install -e '.[dev]'"
    result = subprocess.run([ruff, *args], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "README's Quick start has no ```bash block"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def test_readme_quick_start_ends_with_two_commands_that_ci_runs_verbatim():
    """The block's set-up steps (venv, torch) are checked against .ci/run in test_newcomer.py; its last two lines,
    the main job and the test command, are run by CI exactly as written."""
    commands = quick_start_commands()
    assert len(commands) >= 2 and commands[-1] == "python -m pytest"
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    for command in commands[-2:]:
        assert command in ci_lines, f"the README's command {command!r} is not run by .ci/run"


def test_demo_plays_a_whole_game(capsys):
    assert main(["demo", "--game", "tictactoe", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith(("X wins", "O wins", "draw"))


def test_cli_runs_as_a_module():
    result = subprocess.run(
        [sys.executable, "-m", "alphazero_lib", "demo", "--game", "othello6"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "Othello(size=6)" in result.stdout


def test_seed_everything_makes_runs_repeat():
    import random

    import torch

    def draw():
        rng = seed_everything(42)
        return random.random(), np.random.rand(), torch.rand(1).item(), rng.random()

    assert draw() == draw()


def test_atomic_write_leaves_no_partial_file(tmp_path):
    target = tmp_path / "sub" / "file.bin"
    atomic_write_bytes(target, b"abc")
    assert target.read_bytes() == b"abc"

    with pytest.raises(TypeError):
        atomic_write_bytes(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"abc"  # the old content survives a failed write
    assert [p.name for p in target.parent.iterdir()] == ["file.bin"]  # no temporary file left behind


def test_atomic_write_gives_usual_permissions(tmp_path):
    import os

    umask = os.umask(0o022)
    try:
        atomic_write_bytes(tmp_path / "f.bin", b"x")
    finally:
        os.umask(umask)
    assert (tmp_path / "f.bin").stat().st_mode & 0o777 == 0o644
