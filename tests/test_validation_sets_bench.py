"""benchmarks/validation_sets.py and search_constant.py: sets drawn like Pons', and the search constant tuned there."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from alphazero_lib import solver
from alphazero_lib.strength import load_set

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def script(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


validation_sets = script("validation_sets")
search_constant = script("search_constant")

needs_solver = pytest.mark.skipif(
    not solver.available(), reason=f"the perfect solver is an optional extra: {solver.INSTALL_HINT}"
)


def test_the_moves_that_remain_follow_from_the_score():
    # after 2 moves the first player to move wins with its 5th stone (score 22 - 5 = 17): stone 9 of the game
    assert validation_sets.remaining_moves(2, 17) == 7
    # the side to move is second (3 played) and loses to the first player's 10th stone, the game's 19th
    assert validation_sets.remaining_moves(3, -12) == 16
    assert validation_sets.remaining_moves(20, 0) == 22  # a draw fills the board
    assert validation_sets.pons_class(13, 0) == (1, 3) and validation_sets.pons_class(14, 0) == (1, 2)
    assert validation_sets.pons_class(15, 0) == (2, 2)


def test_the_class_rule_puts_every_pons_position_in_its_own_set():
    assert len(validation_sets.check_rule()) == 6000


@needs_solver
def test_a_drawn_set_is_of_its_class_apart_from_pons_and_reads_back(tmp_path):
    taken = validation_sets.check_rule()
    pons = set(taken)
    lines, solved = validation_sets.draw_set("middle_medium", 6, 3, taken)
    assert len(lines) == 6 and solved >= 6
    path = tmp_path / "validation_middle_medium.txt"
    validation_sets.write(path, "middle_medium", lines, 3)
    positions = load_set(path)
    for moves, score, state, player, labels in zip(
        positions.moves, positions.scores, positions.states, positions.to_move, positions.labels, strict=True
    ):
        assert moves not in pons and validation_sets.pons_class(len(moves), int(score)) == (2, 2)
        assert "".join(labels) == solver.move_labels(state, int(player))
    assert not list(tmp_path.glob("*.tmp"))


def test_each_constant_reaches_the_search(tmp_path, monkeypatch, capsys):
    seen = []

    class Spy(search_constant.AlphaZeroPlayer):
        def __init__(self, game, model, config):
            seen.append(config.C)
            super().__init__(game, model, config)

    monkeypatch.setattr(search_constant, "AlphaZeroPlayer", Spy)
    rows = [search_constant.measure(("connect_four_cpu", c, "end_easy", 2)) for c in (2.0, 0.5)]
    assert seen == [2.0, 0.5] and [row["C"] for row in rows] == [2.0, 0.5]
    assert rows[0]["positions"] == 1000
    text = search_constant.table(rows)
    assert "connect_four_cpu on end_easy (1000 positions)" in text and len(text.splitlines()) == 4
