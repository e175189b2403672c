"""One place for the repository's address: pyproject.toml; every Colab badge and setup cell agrees with it."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("set_repository", ROOT / "tools" / "set_repository.py")
set_repository = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(set_repository)
NOTEBOOKS = set_repository.notebooks(ROOT)


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def setup_cell(path: Path) -> str | None:
    """The source of the notebook's setup cell (the code cell with the ``REPOSITORY = ...`` line), if any."""
    return next((source(c) for c in cells(path) if c["cell_type"] == "code" and "REPOSITORY = " in source(c)), None)


def test_pyproject_names_a_github_repository():
    assert set_repository.SLUG.fullmatch(set_repository.repository(ROOT))


def test_every_badge_and_setup_cell_agrees_with_pyproject():
    assert NOTEBOOKS
    assert set_repository.disagreements(ROOT) == []


def test_the_check_catches_a_stale_badge_and_a_stale_setup_cell(tmp_path):
    copy = tmp_path / "copy"
    (copy / "notebooks").mkdir(parents=True)
    shutil.copy(ROOT / "pyproject.toml", copy)
    first = NOTEBOOKS[0]
    repo = set_repository.repository(ROOT)
    text = first.read_text()
    assert repo in text
    (copy / "notebooks" / first.name).write_text(text.replace(repo, "someone/else"))
    problems = set_repository.disagreements(copy)
    assert any("badge" in p and "someone/else" in p for p in problems), problems
    if setup_cell(first) is not None:
        assert any('REPOSITORY = "someone/else"' in p for p in problems), problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_notebook_opens_with_the_setup_cell(path):
    code = [source(c) for c in cells(path) if c["cell_type"] == "code"]
    expected = set_repository.SETUP_CELL.format(repository=set_repository.repository(ROOT))
    assert code and code[0] == expected, (
        f"{path.name}: the first code cell is not the setup cell of tools/set_repository.py"
    )


def run_setup_cell(cwd: Path, *python_flags: str) -> subprocess.CompletedProcess[str]:
    code = set_repository.SETUP_CELL.format(repository="someone/else") + "\nprint(sys.path[0])"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [sys.executable, *python_flags, "-c", code]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, timeout=60)


def test_the_setup_cell_uses_the_checkout_and_says_so():
    done = run_setup_cell(ROOT / "notebooks")
    assert done.returncode == 0, done.stderr
    said, path = done.stdout.splitlines()
    assert said == "Using the course library from this checkout." and Path(path) == ROOT


def test_the_setup_cell_outside_a_checkout_and_outside_colab_installs_nothing(tmp_path):
    done = run_setup_cell(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Using the installed course library")


def test_the_setup_cell_without_the_library_says_what_is_missing_and_how_to_install_it(tmp_path):
    done = run_setup_cell(tmp_path, "-S")  # -S: no site-packages, so alphazero_lib cannot be imported
    assert done.returncode != 0 and done.stdout == "", done.stdout
    error = done.stderr.strip().splitlines()
    assert error[-2].startswith("ModuleNotFoundError: The course library alphazero_lib is not installed"), error
    assert sys.executable in error[-2]  # the kernel's Python, which may not be the terminal's
    assert error[-1] == '%pip install "alphazero_lib[kaggle] @ git+https://github.com/someone/else"'


def test_set_repository_rewrites_every_copy_and_nothing_else(tmp_path):
    copy = tmp_path / "copy"
    (copy / "notebooks").mkdir(parents=True)
    for name in ("pyproject.toml", "README.md", "notebooks/README.md"):
        shutil.copy(ROOT / name, copy / name)
    for path in NOTEBOOKS:
        shutil.copy(path, copy / "notebooks")
    old = set_repository.repository(ROOT)
    tool = [sys.executable, str(ROOT / "tools" / "set_repository.py"), "--root", str(copy)]
    done = subprocess.run([*tool, "ada/alphazero-course"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert set_repository.repository(copy) == "ada/alphazero-course"
    assert set_repository.disagreements(copy) == []
    readmes = [copy / "README.md", copy / "notebooks" / "README.md"]
    for path in [copy / "pyproject.toml", *readmes, *set_repository.notebooks(copy)]:
        text = path.read_text()
        assert old not in text, path.name
        original = (ROOT / path.relative_to(copy)).read_text()
        assert text == original.replace(old, "ada/alphazero-course"), f"{path.name}: more than the address changed"
    for path in set_repository.notebooks(copy):
        assert set_repository.badge_url("ada/alphazero-course", path.name) in path.read_text()
    assert subprocess.run([*tool, "--check"], capture_output=True, timeout=60).returncode == 0
    refused = subprocess.run([*tool, "not a repository"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "OWNER/NAME" in refused.stderr


def test_the_setup_cell_in_colab_installs_and_keeps_your_code_on_drive(tmp_path):
    """Colab simulated: google.colab's drive records the mount, pip is not run; the cell installs, mounts Drive and
    points MY_ALPHAZERO_HOME at DRIVE_FOLDER (a temporary folder here), and with the box unticked mounts nothing."""
    fake_colab = textwrap.dedent(
        """
        import os, subprocess, sys, types
        mounted, installs = [], []
        drive = types.ModuleType("google.colab.drive")
        drive.mount = mounted.append
        colab = types.ModuleType("google.colab")
        colab.drive = drive
        google = types.ModuleType("google")
        google.colab = colab
        sys.modules.update({"google": google, "google.colab": colab, "google.colab.drive": drive})
        subprocess.run = lambda command, **kwargs: installs.append(command)
        """
    )
    folder = tmp_path / "drive" / "alphazero-course"
    cell = set_repository.SETUP_CELL.format(repository="someone/else")
    cell = cell.replace('"/content/drive/MyDrive/alphazero-course"', repr(str(folder)))
    report = "\nprint(mounted, len(installs), os.environ.get('MY_ALPHAZERO_HOME'))"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MY_ALPHAZERO_HOME")}
    for keep in (True, False):
        code = fake_colab + cell.replace("KEEP_ON_DRIVE = True", f"KEEP_ON_DRIVE = {keep}") + report
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == "Installed the course library from github.com/someone/else."
        if keep:
            assert lines[-1] == f"['/content/drive'] 1 {folder}" and folder.is_dir(), done.stdout
            assert "Your code is kept in" in done.stdout
        else:
            assert lines[-1] == "[] 1 None", done.stdout
