"""A pytest plugin for nbval runs: every notebook cell's new outputs (their text; images by size) and time, one JSON
line a cell, in ``$ALPHAZERO_CELL_RECORDS/<worker>.jsonl``. ``benchmarks/gpu/compare_cells.py`` reads them beside the
stored outputs. Used by ``benchmarks/gpu/run.sh``: ``python -m pytest notebooks -p benchmarks.gpu.record_cells``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest


def output_text(output: dict) -> dict:
    """A notebook output's kind and text (a cell's output as nbval or a stored notebook holds it): stream text, an
    error's name and value, or a display's text/plain (images and HTML: their size)."""
    kind = output.get("output_type")
    if kind == "stream":
        return {"type": kind, "name": output.get("name"), "text": _joined(output.get("text", ""))}
    if kind == "error":
        return {"type": kind, "text": f"{output.get('ename')}: {output.get('evalue')}"}
    data = output.get("data", {})
    shown = {key: len(str(value)) for key, value in data.items() if key != "text/plain"}
    return {"type": kind, "text": _joined(data.get("text/plain", "")), "sizes": shown}


def _joined(text: str | list[str]) -> str:
    return "".join(text) if isinstance(text, list) else text  # a stored notebook keeps text as a list of lines


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield
    if call.when != "call" or not hasattr(item, "test_outputs"):
        return
    folder = os.environ.get("ALPHAZERO_CELL_RECORDS")
    if not folder:
        return
    record = {
        "notebook": Path(str(item.fspath)).name,
        "cell": item.cell_num,
        "seconds": round(call.stop - call.start, 3),
        "failed": call.excinfo is not None,
        "error": None if call.excinfo is None else str(call.excinfo.value)[:4000],
        "outputs": [output_text(dict(output)) for output in (item.test_outputs or [])],
    }
    path = Path(folder) / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as out:
        out.write(json.dumps(record) + "\n")
