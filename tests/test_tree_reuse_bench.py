"""benchmarks/tree_reuse.py: self-play with and without tree reuse, the same settings and seeds, side by side."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "tree_reuse.py"
spec = importlib.util.spec_from_file_location("tree_reuse", SCRIPT)
tree_reuse = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tree_reuse)


def test_reuse_on_keeps_subtrees_and_costs_fewer_evaluations_a_position_than_off(capsys):
    rows = tree_reuse.compare("tictactoe", games=4, rounds=2, searches=24)
    assert [(r["round"], r["reuse_tree"]) for r in rows] == [(0, False), (0, True), (1, False), (1, True)]
    for off, on in (rows[0:2], rows[2:4]):
        assert off["reused_roots"] == 0 and 0 < on["reused_roots"] < on["positions"]
        assert on["network_evaluations"] / on["positions"] < off["network_evaluations"] / off["positions"]
        assert off["simulations"] == 24 * off["positions"]  # a fresh search runs its whole budget every move
    text = tree_reuse.summary(rows)
    cost = {
        reuse: sum(r["network_evaluations"] for r in rows if r["reuse_tree"] is reuse)
        / sum(r["positions"] for r in rows if r["reuse_tree"] is reuse)
        for reuse in (False, True)
    }
    ratio = float(re.search(r"evaluations a position x(\d+\.\d+)", text).group(1))
    assert ratio == round(cost[True] / cost[False], 2)
    assert tree_reuse.main(["--weights", "tictactoe", "--games", "2", "--rounds", "1", "--searches", "8"]) == 0
    assert "ratio on / off" in capsys.readouterr().out
