"""The installed package, away from the checkout: what Colab's install cell and ``pip install`` users get.

Builds the wheel, checks it holds the library, every shipped weights file and the registry, installs it into a
fresh virtual environment in a temporary directory, and from there (the checkout not importable) loads every
shipped model by name, plays an arena game on the command line and runs notebook 01 in a kernel of that
environment. About a minute on 2 cores; ``-m "not slow"`` leaves it out.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "alphazero_lib"

pytestmark = pytest.mark.slow


def shipped_files() -> list[str]:
    """Paths inside the wheel that must be there: every module, every shipped weights file, the registry, Pons'
    benchmark positions (``alphazero_lib.strength``), notebook 5's broken runs."""
    files = [p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts]
    files += [*PACKAGE.glob("weights/*/*.pt"), PACKAGE / "weights" / "registry.json", PACKAGE / "py.typed"]
    files += [*PACKAGE.glob("data/pons/*.txt"), PACKAGE / "data" / "pons" / "README.md"]
    files += [PACKAGE / "data" / "broken_runs.json"]  # notebook 5's broken runs (exercises.nb05_self_play)
    return sorted(p.relative_to(ROOT).as_posix() for p in files)


def run(args: list[str], cwd: Path, env: dict[str, str], timeout: int = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    """``(wheel, venv python, environment)``: the wheel built from a copy of the sources and installed in a venv."""
    work = tmp_path_factory.mktemp("wheel")
    assert ROOT not in work.parents, "the temporary directory must lie outside the checkout"
    source = work / "source"  # a copy, so the build leaves no build/ or egg-info behind in the checkout
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    shutil.copytree(PACKAGE, source / "alphazero_lib", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env |= {
        "ALPHAZERO_HEADLESS": "1",
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    env["ALPHAZERO_CACHE_DIR"] = str(work / "cache")
    pip_wheel = [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "-q"]
    run([*pip_wheel, "-w", str(work / "dist")], work, env)
    (wheel,) = (work / "dist").glob("alphazero_lib-*.whl")
    venv = work / "venv"
    # --system-site-packages: torch, numpy and the extras come from this interpreter, no downloads
    run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], work, env)
    python = venv / "bin" / "python"
    # --system-site-packages reaches the base interpreter's packages only; where this one is itself a venv (CI's),
    # torch and the rest live in its site-packages: add those folders by path. A plain .pth line puts a folder on
    # sys.path without running the .pth files inside it, so the checkout's editable install stays out of reach.
    (site_packages,) = (venv / "lib").glob("python*/site-packages")
    (site_packages / "parent_environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], work, env)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    return wheel, python, env


def test_the_wheel_holds_the_library_the_weights_and_the_registry(installed):
    wheel, _, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = shipped_files()
    assert sum(name.endswith(".pt") for name in expected) >= 3
    assert [name for name in expected if name not in names] == []
    registry = json.loads(zipfile.ZipFile(wheel).read("alphazero_lib/weights/registry.json"))
    listed = {f"alphazero_lib/weights/{r['file']}" for entry in registry.values() for r in entry["files"].values()}
    assert listed <= names and listed == {n for n in expected if n.endswith(".pt")}


LOAD_ALL = """
import sys
import alphazero_lib
from alphazero_lib.pretrained import available, load_pretrained

print(alphazero_lib.__file__)
for name, iterations in sorted(available().items()):
    for iteration in iterations:
        model = load_pretrained(name, iteration)
    final = load_pretrained(name)
    print(name, len(iterations), repr(final.game))
"""


def test_from_the_venv_every_shipped_model_loads_by_name(installed, tmp_path):
    _, python, env = installed
    lines = run([str(python), "-c", LOAD_ALL], tmp_path, env).stdout.splitlines()
    assert Path(lines[0]).is_relative_to(python.parents[1]), f"imported {lines[0]}, not the installed package"
    names = {line.split()[0] for line in lines[1:]}
    assert {"tictactoe", "connect_four", "othello6"} <= names


def test_from_the_venv_the_command_line_plays_an_arena_game(installed, tmp_path):
    _, python, env = installed
    args = ["arena", "--game", "connect_four", "--player1", "alphazero:connect_four:8", "--player2", "random"]
    done = run([str(python), "-m", "alphazero_lib", *args, "--games", "1", "--json", "--no-progress"], tmp_path, env)
    result = json.loads(done.stdout)
    assert result["games"] == 1 and result["player1"] == "alphazero:connect_four:8"


def test_from_the_venv_the_strength_command_reads_the_shipped_positions(installed, tmp_path):
    _, python, env = installed
    args = ["strength", "--player", "policy:connect_four", "--limit", "3", "--json", "--no-progress"]
    result = json.loads(run([str(python), "-m", "alphazero_lib", *args], tmp_path, env).stdout)
    names = ["beginning_easy", "beginning_medium", "beginning_hard", "middle_easy", "middle_medium", "end_easy"]
    assert [(r["set"], r["positions"]) for r in result["results"]] == [(name, 3) for name in names]


# Run inside the venv: a kernelspec of the venv's own python, then notebook 01 in it, with a last cell that
# reports where the kernel's python and library are.
EXECUTE = """
import subprocess, sys
from pathlib import Path
import nbformat
from nbclient import NotebookClient

venv, notebook = Path(sys.argv[1]), Path(sys.argv[2])
subprocess.run([sys.executable, "-m", "ipykernel", "install", "--prefix", str(venv), "--name", "venv-wheel"],
               check=True, capture_output=True)
nb = nbformat.read(notebook, as_version=4)
where = "import sys, alphazero_lib\\nprint(sys.executable)\\nprint(alphazero_lib.__file__)"
nb.cells.append(nbformat.v4.new_code_cell(where))
resources = {"metadata": {"path": str(notebook.parent)}}
NotebookClient(nb, timeout=300, kernel_name="venv-wheel", resources=resources).execute()
nbformat.write(nb, notebook)
"""


def test_from_the_venv_notebook_01_runs_on_the_installed_package(installed, tmp_path):
    _, python, env = installed
    notebook = tmp_path / "01_games.ipynb"
    shutil.copy(ROOT / "notebooks" / "01_games.ipynb", notebook)
    run([str(python), "-c", EXECUTE, str(python.parents[1]), str(notebook)], tmp_path, env, timeout=400)
    cells = json.loads(notebook.read_text())["cells"]
    text = ["".join(o.get("text", "")) for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]
    errors = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert errors == []
    assert any("Using the installed course library" in t for t in text), "the setup cell found a checkout"
    kernel_python, library = text[-1].split()
    assert Path(kernel_python).parent == python.parent, f"the kernel ran {kernel_python}, not the venv's python"
    assert Path(library).is_relative_to(python.parents[1]), f"the kernel imported {library}"
