"""Dead code: vulture over the library, the tools and benchmarks, and the notebooks' code cells, which call much of
the library (the checks, the widgets) and which vulture cannot read as notebooks.

    python tools/dead_code.py            # exit 0 when vulture finds nothing; else its findings and exit 3

What vulture cannot see is in ``tools/vulture_allow.py``, each entry with its reason; dead code that another change
is deleting waits in ``tools/vulture_pending.py``. Tests do not count as
callers: a function only its own test calls is dead (delete it with its test, unless the documentation names it).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ["alphazero_lib", "tools", "benchmarks"]
ALLOW = [ROOT / "tools" / "vulture_allow.py", ROOT / "tools" / "vulture_pending.py"]


def notebook_code(notebook: Path) -> str:
    """The notebook's code cells as one Python file, IPython's ``%`` and ``!`` lines left out."""
    cells = []
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type == "code":
            lines = cell.source.splitlines()
            cells.append("\n".join(line for line in lines if not line.lstrip().startswith(("%", "!"))))
    return "\n\n".join(cells) + "\n"


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
            (Path(folder) / f"nb_{notebook.stem}.py").write_text(notebook_code(notebook))
        command = [sys.executable, "-m", "vulture", *SCANNED, *map(str, ALLOW), folder]
        found = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    print(found.stdout.replace(folder, "notebooks (code cells)"), end="")
    print(found.stderr, end="", file=sys.stderr)
    return found.returncode


if __name__ == "__main__":
    sys.exit(main())
