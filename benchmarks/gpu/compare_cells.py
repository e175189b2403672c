"""Set the notebooks' cells as another machine ran them (``record_cells.py``'s JSON lines) beside their stored outputs.

    python benchmarks/gpu/compare_cells.py RECORDS_FOLDER [--json OUT.json]

For each notebook: its cells' time in all, and every code cell whose text output (streams, errors, displays'
text/plain; the sanitizers of ``notebooks/sanitize.cfg`` applied to both sides, as nbval does) differs from the stored
one, with both texts (cells numbered as nbval numbers them: code cells only, from 0) and whether nbval compares
that cell (``# NBVAL_IGNORE_OUTPUT`` not in it) or not.
"""

from __future__ import annotations

import argparse
import configparser
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks.gpu.record_cells import output_text  # noqa: E402 (after the checkout is on the path)


def sanitizers() -> list[tuple[re.Pattern, str]]:
    config = configparser.ConfigParser(interpolation=None)
    config.read(ROOT / "notebooks" / "sanitize.cfg")
    return [(re.compile(config[name]["regex"]), config[name]["replace"]) for name in config.sections()]


def text_of(outputs: list[dict], rules: list[tuple[re.Pattern, str]]) -> str:
    """Outputs as ``record_cells.output_text`` gives them, sanitized; images and HTML count by kind only (their bytes
    vary with the renderer)."""
    parts = []
    for output in outputs:
        text = output["text"]
        for pattern, replacement in rules:
            text = pattern.sub(replacement, text)
        parts.append(f"[{output['type']}] {text.strip()}")
    return "\n".join(parts)


def compare(records_folder: Path) -> dict[str, dict]:
    rules = sanitizers()
    records: dict[str, dict[int, dict]] = {}
    for path in sorted(records_folder.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            records.setdefault(record["notebook"], {})[record["cell"]] = record
    report = {}
    for name, cells in sorted(records.items()):
        notebook = json.loads((ROOT / "notebooks" / name).read_text())["cells"]
        stored = [cell for cell in notebook if cell["cell_type"] == "code"]  # nbval numbers the code cells
        differing = []
        for number, record in sorted(cells.items()):
            cell = stored[number]
            source = "".join(cell["source"])
            stored_outputs = [output_text(output) for output in cell.get("outputs", [])]
            old, new = text_of(stored_outputs, rules), text_of(record["outputs"], rules)
            if old != new:
                differing.append(
                    {
                        "cell": number,
                        "compared_by_nbval": "NBVAL_IGNORE_OUTPUT" not in source,
                        "first_line": next((ln for ln in source.splitlines() if not ln.startswith("#")), "")[:100],
                        "stored": old,
                        "new": new,
                        "failed": record["failed"],
                    }
                )
        report[name] = {
            "seconds": round(sum(r["seconds"] for r in cells.values()), 1),
            "cells_run": len(cells),
            "failed": sum(r["failed"] for r in cells.values()),
            "differing": differing,
        }
    return report


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("records", type=Path, help="the folder of record_cells.py's JSON lines")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args(argv)
    report = compare(args.records)
    for name, entry in report.items():
        print(
            f"{name}: {entry['seconds']:.1f} s, {entry['cells_run']} cells, {entry['failed']} failed, "
            f"{len(entry['differing'])} with other text than stored"
        )
        for cell in entry["differing"]:
            checked = "compared by nbval" if cell["compared_by_nbval"] else "NBVAL_IGNORE_OUTPUT"
            print(f"  cell {cell['cell']} ({checked}): {cell['first_line']}")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
