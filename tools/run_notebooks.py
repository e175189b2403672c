"""Execute course notebooks in place and leave them clean for nbval and Colab.

    python tools/run_notebooks.py notebooks/01_games.ipynb [...]   # or no argument: every notebook

Runs each notebook top to bottom in a fresh ``python3`` kernel (headless: play cells stay quiet), numbers
the cells 1..n, drops per-cell timing metadata and any widget or Colab metadata, and prints the wall time
per notebook.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def clean(nb: nbformat.NotebookNode) -> None:
    """Normalise metadata: kernelspec python3, no widgets/Colab, no timings; one output per run of printed text."""
    nb.metadata = nbformat.from_dict({"kernelspec": KERNELSPEC, "language_info": {"name": "python"}})
    for cell in nb.cells:
        for key in ("execution", "collapsed", "scrolled", "colab", "id", "outputId"):
            cell.metadata.pop(key, None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)


def coalesce_streams(outputs: list) -> list:
    """Consecutive stdout (or stderr) outputs as one: a busy kernel may send a line's end in a message of its own."""
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.output_type == "stream"
            and previous is not None
            and previous.output_type == "stream"
            and previous.name == output.name
        ):
            previous.text += output.text
        else:
            merged.append(output)
    return merged


def run(path: Path, timeout: int = 600) -> float:
    """Execute one notebook in place; return its wall time in seconds."""
    nb = nbformat.read(path, as_version=4)
    os.environ["ALPHAZERO_HEADLESS"] = "1"  # play cells print one line instead of showing a board
    os.environ["ALPHAZERO_CAPSTONE_QUICK"] = "1"  # the capstone's stored outputs come from its quick run
    import tempfile

    # stored outputs as a learner without solutions sees them: no my_alphazero/ kept yet
    os.environ["MY_ALPHAZERO_HOME"] = tempfile.mkdtemp(prefix="my_alphazero_home_")
    start = time.perf_counter()
    NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    elapsed = time.perf_counter() - start
    clean(nb)
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str]) -> int:
    paths = [Path(p) for p in argv] or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    for path in paths:
        print(f"{path.name}: {run(path):.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
