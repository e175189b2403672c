"""kaggle-environments is imported without its ``Loading environment ... failed`` lines, and nothing else is hidden."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IMPORT = "from alphazero_lib.kaggle import import_kaggle_environments as f; print('module', f().__name__)"


def run(code: str, extra_path: Path | None = None) -> subprocess.CompletedProcess[str]:
    path = [str(extra_path)] if extra_path else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, str(ROOT)])}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def fake_package(tmp_path: Path, body: str) -> Path:
    """A stand-in ``kaggle_environments`` whose import runs ``body``."""
    package = tmp_path / "kaggle_environments"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(body))
    return tmp_path


def test_the_real_import_prints_no_loading_lines():
    pytest.importorskip("kaggle_environments")
    done = run(IMPORT)
    assert done.returncode == 0, done.stderr
    assert "Loading environment" not in done.stdout + done.stderr
    assert done.stdout.strip() == "module kaggle_environments"


def test_only_the_loading_lines_are_dropped(tmp_path):
    path = fake_package(
        tmp_path,
        """
        print("Loading environment lux_ai_s2 failed: No module named 'vec_noise'")
        print("a warning the user should see")
        print("Loading environment other failed: boom")
        """,
    )
    done = run(IMPORT, path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["a warning the user should see", "module kaggle_environments"]


def test_errors_inside_the_package_propagate(tmp_path):
    path = fake_package(tmp_path, 'print("Loading environment x failed: y")\nprint("before")\n1 / 0\n')
    done = run(IMPORT, path)
    assert done.returncode != 0
    assert "ZeroDivisionError" in done.stderr
    assert "before" in done.stdout and "Loading environment" not in done.stdout


def test_a_missing_dependency_of_the_package_is_not_reported_as_a_missing_extra(tmp_path):
    path = fake_package(tmp_path, "import a_module_that_is_not_there\n")
    done = run(IMPORT, path)
    assert "ModuleNotFoundError" in done.stderr and "a_module_that_is_not_there" in done.stderr


def test_without_the_extra_the_error_names_the_install_command(tmp_path):
    blocker = tmp_path / "kaggle_environments.py"
    blocker.write_text("raise ModuleNotFoundError('not installed', name='kaggle_environments')\n")
    code = "import alphazero_lib.kaggle as k\ntry: k.import_kaggle_environments()\nexcept ValueError as e: print(e)"
    done = run(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "pip install -e '.[kaggle]'" in done.stdout
