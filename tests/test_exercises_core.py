"""The exercise machinery: one verdict line, never raises, the learner's code only when every case agrees."""

from __future__ import annotations

import numpy as np
import pytest

from alphazero_lib.exercises import PlaySession, add_to_class, check, check_method
from alphazero_lib.exercises.core import Case, same, show
from alphazero_lib.games import TicTacToe


def library_square(x):
    return x * x


def square_cases():
    return [
        Case(f"square({x})", lambda f, x=x: f(x), library_square(x), hint="multiply x by itself") for x in (0, 1, -3)
    ]


def verdict(capsys) -> str:
    out = capsys.readouterr().out
    assert out.count("\n") == 1, f"one verdict line, got {out!r}"
    return out.strip()


def test_stub_is_not_written_and_the_library_stands_in(capsys):
    def square(x):
        raise NotImplementedError

    assert check("square", square, library_square, square_cases) is library_square
    assert verdict(capsys) == "⏳ square: not written yet; the rest of this notebook uses the library's version"


def test_right_code_is_returned(capsys):
    def square(x):
        return x**2

    assert check("square", square, library_square, square_cases) is square
    assert verdict(capsys) == "✅ square: agrees with the library on 3 cases; the cells below use yours"


def test_wrong_code_names_the_first_failing_case(capsys):
    assert check("square", lambda x: 2 * x, library_square, square_cases) is library_square
    line = verdict(capsys)
    assert line.startswith("❌ square: case 2 of 3, square(1): returned 2, expected 1. Hint: multiply x by itself")


@pytest.mark.parametrize("error", [ValueError("bad"), SystemExit(3), ZeroDivisionError(), RecursionError()])
def test_errors_in_learner_code_never_escape(capsys, error):
    def square(x):
        raise error

    assert check("square", square, library_square, square_cases) is library_square
    assert f"raised {type(error).__name__}" in verdict(capsys)


def test_broken_case_setup_never_escapes(capsys):
    def cases():
        raise TypeError("the class has no __init__")

    assert check("thing", object(), "library", cases) == "library"
    assert "could not set up the cases: TypeError" in verdict(capsys)


def test_same_compares_shapes_and_values():
    assert same(np.zeros((3, 3)), np.zeros((3, 3), dtype=np.int8))
    assert not same(np.zeros(9), np.zeros((3, 3)))
    assert not same(np.array([0.1, 0.9]), np.array([0.1, 0.8]))
    assert same((1.0, True), (1.0000000001, True)) and not same((1.0, False), (1.0, True))
    assert not same(1, True) and not same(None, 0.0)
    assert show(np.array([0.12345, 1.0])) == "array([0.123, 1. ], shape=(2,))"


def test_check_method_patches_the_library_in_and_keeps_the_rest():
    class Game:
        def __init__(self):
            self.size = 3

        def double(self, x):
            raise NotImplementedError

    def library_double(self, x):
        return 2 * x

    def cases(cls):
        return [Case(f"double({x})", lambda c, x=x: c().double(x), 2 * x) for x in range(3)]

    assert check_method(Game, "double", library_double, cases) is Game
    assert Game().double(4) == 8  # the stand-in works
    check_method(Game, "double", library_double, cases)  # checked again: still "not written", not "agrees"

    @add_to_class(Game)
    def double(self, x):
        return x + x

    check_method(Game, "double", library_double, cases)
    assert Game.double is double


def test_check_method_verdicts(capsys):
    class Game:
        def double(self, x):
            raise NotImplementedError

    def cases(cls):
        return [Case(f"double({x})", lambda c, x=x: c().double(x), 2 * x) for x in range(3)]

    check_method(Game, "double", lambda self, x: 2 * x, cases)
    check_method(Game, "double", lambda self, x: 2 * x, cases)
    lines = capsys.readouterr().out.splitlines()
    assert all(line.startswith("⏳ Game.double: not written yet") for line in lines) and len(lines) == 2


def test_play_session_person_against_agent():
    game = TicTacToe()
    session = PlaySession(game, lambda state, player: int(np.flatnonzero(state.reshape(-1) == 0)[0]), human=1)
    assert session.click(4).startswith("The agent played 0")
    assert session.click(4).startswith("4 is not legal now")
    session.click(3)  # agent plays 1
    assert session.click(5) == "You won."
    assert session.click(8) == "The game is over: press 'New game'."
    session.human = -1
    session.new_game()
    assert session.moves == [0] and session.player == -1


def test_play_session_two_people():
    session = PlaySession(TicTacToe(), None)
    for action in (0, 3, 1, 4):
        assert session.click(action) in ("O to move.", "X to move.")
    assert session.click(2) == "X won."


def test_hints_end_with_a_full_stop(capsys):
    cases = [Case("square(2)", lambda f: f(2), 4, hint="multiply x by itself")]
    check("square", lambda x: x, library_square, cases)
    assert "Hint: multiply x by itself. For now" in capsys.readouterr().out
