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


def test_stub_is_not_written_and_the_library_stands_in(verdict):
    def square(x):
        raise NotImplementedError

    assert check("square", square, library_square, square_cases) is library_square
    assert verdict() == "⏳ square: not written yet; the rest of this notebook uses the library's version"


def test_right_code_is_returned(verdict):
    def square(x):
        return x**2

    assert check("square", square, library_square, square_cases) is square
    assert verdict() == "✅ square: agrees with the library on 3 cases; the cells below use yours"


def test_wrong_code_names_the_first_failing_case(verdict):
    assert check("square", lambda x: 2 * x, library_square, square_cases) is library_square
    line = verdict()
    assert line.startswith(
        "❌ square: case 2 of 3, square(1): returned 2, expected 1 (yours is 1 higher). Hint: multiply x by itself"
    )


@pytest.mark.parametrize("error", [ValueError("bad"), SystemExit(3), ZeroDivisionError(), RecursionError()])
def test_errors_in_learner_code_never_escape(verdict, error):
    def square(x):
        raise error

    assert check("square", square, library_square, square_cases) is library_square
    assert f"raised {type(error).__name__}" in verdict()


def test_broken_case_setup_never_escapes(verdict):
    def cases():
        raise TypeError("the class has no __init__")

    assert check("thing", object(), "library", cases) == "library"
    assert "could not set up the cases: TypeError" in verdict()


def test_same_compares_shapes_and_values():
    assert same(np.zeros((3, 3), dtype=np.int64), np.zeros((3, 3), dtype=np.int8))
    assert not same(np.zeros((3, 3)), np.zeros((3, 3), dtype=np.int8)), "floats where integers are expected"
    assert not same(np.zeros(9), np.zeros((3, 3)))
    assert not same(np.array([0.1, 0.9]), np.array([0.1, 0.8]))
    assert same((1.0, True), (1.0000000001, True)) and not same((1.0, False), (1.0, True))
    assert same(1, True) and same(np.int64(0), False), "0/1 answer a yes/no question"
    assert not same(2, True) and not same(None, 0.0) and not same(True, 1.0)
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


# ---- issue 24: types, digits, unfinished code, missing methods, hints that fit the bug ----------------------------
def test_same_wants_the_types_the_cells_below_use():
    import torch

    assert not same([0, 1], np.array([0, 1])), "a list is not an array"
    assert not same(np.array(0.5), 0.5) and not same(torch.tensor(0.5), 0.5), "a 0-d array or tensor is not a float"
    assert same(np.float32(0.5), 0.5) and same(1, 1.0)
    assert same([1.0, True], (1.0, True)), "a list where a tuple is only unpacked"


def test_numbers_are_shown_with_the_digits_that_tell_them_apart(verdict):
    check("rating", lambda: 1229.31, None, [Case("rating()", lambda f: f(), 1229.3)])
    assert "returned 1229.31, expected 1229.3 (yours is 0.01 higher)." in verdict()


def test_the_difference_is_named(verdict):
    check("flip", lambda x: -x, None, [Case("flip(2.0)", lambda f: f(2.0), 2.0)])
    assert "(the opposite sign)" in verdict()
    check("mask", lambda: [1, 0], None, [Case("mask()", lambda f: f(), np.array([1, 0]))])
    assert "(yours is a list, not a numpy array)" in verdict()
    check("planes", lambda: np.zeros(3), None, [Case("planes()", lambda f: f(), np.array([0.0, 1.0, 0.0]))])
    assert "one entry differs, [1]: yours 0, expected 1" in verdict()


def test_a_not_implemented_error_elsewhere_is_named(verdict):
    class Game:
        def double(self, x):
            return self.helper(x)

        def helper(self, x):
            raise NotImplementedError

    def cases(cls):
        return [Case(f"double({x})", lambda c, x=x: c().double(x), 2 * x) for x in range(3)]

    check_method(Game, "double", lambda self, x: 2 * x, cases)
    line = verdict()
    assert line.startswith("⏳ Game.double: `helper`, called from your code, still raises NotImplementedError"), line


def test_a_method_unfinished_after_some_cases_is_named(verdict):
    def square(x):
        if x < 0:
            raise NotImplementedError("negative numbers later")
        return x * x

    check("square", square, library_square, square_cases)
    line = verdict()
    assert line.startswith("⏳ square: `square` still raises NotImplementedError on case 3 of 3, square(-3)"), line
    assert "the 2 cases before agree" in line


def test_a_misspelled_method_is_named_with_the_methods_expected(verdict):
    class Game:
        def dubble(self, x):
            return 2 * x

    def cases(cls):
        return [Case("double(1)", lambda c: c().double(1), 2)]

    check_method(Game, "double", lambda self, x: 2 * x, cases)
    line = verdict()
    assert line.startswith("❌ Game.double: your Game has no method `double`, but `dubble`: rename it"), line
    assert "def double(self, x)" in line
    assert Game().double(3) == 6, "the library's method stands in"


def test_the_hint_of_the_mistake_that_reproduces_the_answer(verdict):
    from alphazero_lib.exercises.core import Mistake

    mistakes = [Mistake("you doubled", lambda x: 2 * x), Mistake("you cubed", lambda x: x**3)]
    check("square", lambda x: x * x * x, library_square, square_cases, mistakes)
    assert "Hint: you cubed." in verdict()
    check("square", lambda x: x + 1, library_square, square_cases, mistakes)
    assert "Hint: multiply x by itself." in verdict(), "no known mistake: the case's rule"


def test_a_mistake_that_only_matches_the_failing_case_is_not_blamed(verdict):
    from alphazero_lib.exercises.core import Mistake

    # x * x * x and 2 * x... both give 8 at x = 2; only cubing gives the learner's 27 at x = 3
    cases = [Case(f"square({x})", lambda f, x=x: f(x), x * x) for x in (2, 3)]
    check("square", lambda x: x**3, library_square, cases, [Mistake("you doubled the 4", lambda x: 2 * x * x / 1)])
    assert "you doubled" not in verdict()


def test_on_copies_gives_the_code_copies_and_raises_what_it_is_told_when_one_changed():
    from alphazero_lib.exercises.core import Mismatch, on_copies

    state, obs = np.zeros(3), {"board": [0, 0]}

    def writes(s, o, scale=1.0):
        s[0], o["board"][1] = 1.0, 2
        return scale

    assert on_copies(lambda s, o: s.sum(), state, obs, changed=Mismatch("changed", "unchanged")) == 0.0
    with pytest.raises(Mismatch, match="returned 'changed', expected 'unchanged'"):
        on_copies(writes, state, obs, changed=Mismatch("changed", "unchanged"))
    with pytest.raises(Mismatch) as raised:  # a function makes it from the answer and the copies written into
        on_copies(writes, state, obs, scale=2.0, changed=lambda got, given: Mismatch(given, got))
    assert raised.value.expected == 2.0 and raised.value.got[0][0] == 1.0 and raised.value.got[1]["board"] == [0, 2]
    assert on_copies(writes, state, obs, changed=None) == 1.0, "None: nothing compared"
    assert state[0] == 0.0 and obs == {"board": [0, 0]}, "the case's own inputs are never written into"


def test_planted_mistakes_call_the_reference_with_each_kind_and_its_hint():
    from alphazero_lib.exercises.core import planted

    def reference(x, y=0, kind=""):
        return (x, y, kind)

    mistakes = planted(reference, {"flip": "flip the sign", "drop": "keep it"})
    assert [m.hint for m in mistakes] == ["flip the sign", "keep it"]
    assert [m.code(1, y=2) for m in mistakes] == [(1, 2, "flip"), (1, 2, "drop")]


def test_hint_and_solution_on_request(capsys):
    from alphazero_lib.exercises.nb01_games import hint, solution

    hint("check_win")
    assert capsys.readouterr().out.startswith("Hint for check_win: ")
    hint("chek_win")
    assert capsys.readouterr().out.startswith("Hint for check_win: "), "a close name is understood"
    solution("check_win")
    assert "def check_win(self, state, action):" in capsys.readouterr().out
    hint("nothing")
    assert "the exercises: get_initial_state" in capsys.readouterr().out


# ---- the checks' one source of positions ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["tictactoe", "connect_four", "othello"])
def test_random_game_plays_legal_moves_to_the_end_or_the_limit(name):
    from alphazero_lib import make_game
    from alphazero_lib.exercises.positions import random_game

    game = make_game(name)
    for seed in range(5):
        moves = random_game(game, np.random.default_rng(seed))
        again = random_game(game, np.random.default_rng(seed))
        assert [a for _, a, _, _ in moves] == [a for _, a, _, _ in again]  # the seed decides
        state, player = game.get_initial_state(), 1
        for after, action, mover, ended in moves:
            assert mover == player and game.get_valid_moves(state, player)[action]
            state = game.get_next_state(state, action, player)
            assert np.array_equal(after, state)
            assert ended == game.get_value_and_terminated(state, action)[1]
            player = -player
        assert moves[-1][3] and not any(ended for *_, ended in moves[:-1])
        short = random_game(game, np.random.default_rng(seed), max_moves=3)
        assert [a for _, a, _, _ in short] == [a for _, a, _, _ in moves][:3]


def _live_and_canonical(game, state, in_a_row):
    """Canonical (the player to move is 1: equal counts when X moves, one more -1 when O does), not over, a legal
    move left."""
    from reference import has_line

    mine, theirs = np.count_nonzero(state == 1), np.count_nonzero(state == -1)
    return (
        theirs - mine in (0, 1)  # X (1 here when X moves) never has fewer pieces than O
        and game.get_valid_moves(state).any()
        and not has_line(state, 1, in_a_row)
        and not has_line(state, -1, in_a_row)
    )


@pytest.mark.parametrize("ended", ["before", "redraw"])
def test_live_positions_are_canonical_and_not_over(ended):
    from alphazero_lib.exercises import positions
    from alphazero_lib.games import ConnectFour, TicTacToe

    for game, in_a_row in ((TicTacToe(), 3), (ConnectFour(), 4)):
        states = positions.batch(game, 40, np.random.default_rng(3), 13, ended=ended)
        assert states.shape == (40, game.row_count, game.column_count)
        assert len({s.tobytes() for s in states}) > 20
        assert all(_live_and_canonical(game, s, in_a_row) for s in states)
        live = positions.live_positions(game, 20, seed=4)
        assert np.array_equal(live[0], game.get_initial_state()) and len(live) > 3
        assert all(_live_and_canonical(game, s, in_a_row) for s in live)


def test_kept_positions_include_finished_games_and_absolute_ones_keep_x_as_1():
    from alphazero_lib.exercises import positions
    from alphazero_lib.games import TicTacToe

    game = TicTacToe()
    kept = positions.random_positions(game, 60, np.random.default_rng(5), 10, canonical=False)
    assert any(game.is_over(s) for s in kept)
    assert all(np.count_nonzero(s == 1) - np.count_nonzero(s == -1) in (0, 1) for s in kept)  # X moved first
    boards = positions.game_boards(game, 25, np.random.default_rng(6))
    assert len(boards) == 25 and np.array_equal(boards[0], game.get_initial_state())
    assert any(game.is_over(b) for b in boards) and sum(not b.any() for b in boards) >= 2  # games one after another
    played = positions.played_positions(game, np.random.default_rng(7), 2, scripted=[[0, 3, 1, 4, 2]])
    assert [a for _, a, _ in played[:5]] == [0, 3, 1, 4, 2] and [p for _, _, p in played[:5]] == [1, -1, 1, -1, 1]
    assert game.check_win(played[4][0], 2) and sum(game.is_over(s) for s, _, _ in played) == 3  # three games


def test_the_shared_positions_are_what_they_say():
    from alphazero_lib.exercises import positions
    from alphazero_lib.games import TicTacToe

    game = TicTacToe()
    legal = [int(a) for a in np.flatnonzero(game.get_valid_moves(positions.WIN_AT_2))]
    wins = [a for a in legal if game.get_value_and_terminated(game.get_next_state(positions.WIN_AT_2, a, 1), a)[0]]
    assert wins == [2]
    assert np.flatnonzero(game.get_valid_moves(positions.ONE_MOVE_LEFT)).tolist() == [8]
    assert game.get_value_and_terminated(game.get_next_state(positions.ONE_MOVE_LEFT, 8, 1), 8) == (0, True)


# ---- hints from what the answer shows (issue 50) ---------------------------------------------------------------
def halves_cases():
    """An edge case first (its rule is special), then general cases with their own rule."""
    cases = [Case("half(0)", lambda f: f(0), 0.0, hint="zero stays zero")]
    cases += [Case(f"half({x})", lambda f, x=x: f(x), x / 2, hint="divide by 2") for x in range(1, 40, 3)]
    return cases


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        (lambda x: x // 2 if x else 1.0, "floor division //"),  # steps: the edge case fails first
        (lambda x: x / 3 if x else 1.0, "0.6667 times the library's answer"),
        (lambda x: -x / 2 if x else 1.0, "opposite sign"),
        (lambda x: x * 0.50001 if x else 1.0, "within 0.002% of the library's answer"),
    ],
)
def test_the_hint_comes_from_every_failing_case_not_the_first(verdict, wrong, words):
    check("half", wrong, lambda x: x / 2, halves_cases)
    line = verdict()
    assert line.startswith("❌ half: case 1 of 14, half(0)"), line
    assert words in line and "zero stays zero" not in line, line


def test_an_edge_case_alone_keeps_its_own_rule(verdict):
    check("half", lambda x: x / 2 if x else 1.0, lambda x: x / 2, halves_cases)
    assert "Hint: zero stays zero." in verdict()


def test_a_wrong_type_gets_a_hint_about_the_type(verdict):
    check("half", lambda x: [x / 2], lambda x: x / 2, halves_cases)
    assert "Hint: return a number, not a list." in verdict()
    check(
        "halves",
        lambda x: list(x / 2),
        lambda x: x / 2,
        lambda: [Case("halves", lambda f: f(np.ones(3)), np.ones(3) / 2)],
    )
    assert "Hint: return a numpy array (np.array(...)), not a list" in verdict()


def test_a_broadcasting_warning_names_the_shapes(verdict):
    import torch
    import torch.nn.functional as F

    prediction = torch.zeros(4, 1)

    def cases():
        return [Case("loss(targets)", lambda f: f(prediction, torch.ones(4)), 1.0, hint="the mean squared error")]

    def loss(prediction, targets):  # [4, 1] against [4]: broadcast to [4, 4], with a warning
        return float(F.mse_loss(prediction, targets)) + 0.5

    check("loss", loss, None, cases)
    line = verdict()
    assert "a prediction of shape [4, 1] with targets of shape [4]" in line and "[B, 1]" in line, line


def test_what_a_later_case_knows_for_sure_beats_the_first_cases_rule(verdict):
    from alphazero_lib.exercises.core import Mismatch

    def run(f, x):
        got = f(x)
        if x and got != x / 2:
            raise Mismatch(got, x / 2, "the later cases see that yours adds one")
        return got

    def cases():
        return [Case("half(0)", lambda f: f(0), 0.0, hint="zero stays zero")] + [
            Case(f"half({x})", lambda f, x=x: run(f, x), x / 2, hint="divide by 2") for x in (1, 5, 9)
        ]

    check("half", lambda x: x / 2 + 1, lambda x: x / 2, cases)
    line = verdict()
    assert line.startswith("❌ half: case 1 of 4, half(0)") and "Hint: the later cases see that yours adds one" in line


def test_an_answer_that_changes_between_two_runs_of_one_seeded_case_is_named(verdict):
    def cases():
        return [
            Case(f"noisy({s})", lambda f, s=s: f(np.random.default_rng(s)), float(s), hint="add the seed")
            for s in (1, 2)
        ]

    def noisy(rng):  # the global generator in place of the one given
        return float(np.random.random())

    check("noisy", noisy, None, cases)
    assert "changed when the same case ran a second time" in verdict()
    check("noisy", lambda rng: rng.random(), None, cases)  # the given generator: repeatable, so the case's rule
    assert "Hint: add the seed." in verdict()


def test_a_misspelled_word_is_named(verdict):
    check("word", lambda: "loss", None, lambda: [Case("word()", lambda f: f(), "losses", hint="the agent's side")])
    assert "'loss' is not the word expected, 'losses': check its spelling" in verdict()


# ---- the hint names the bug (issue 62, item 4) -------------------------------------------------------------------
def test_a_mistake_that_fails_a_case_the_learner_passed_is_not_the_learners(verdict):
    """Both wrong answers fail case 4 alike, and the 30 cases after it; only one also passes case 1, as the learner
    did (the cases before the failing one are tried first)."""
    from alphazero_lib.exercises.core import Mistake

    def cases():
        return [Case(f"f({x})", lambda f, x=x: f(x), x >= 2, hint="x >= 2") for x in (0, 1, 5, 2, *range(10, 40))]

    mistakes = [Mistake("MISTAKE-A", lambda x: x > 2 or x == 0), Mistake("MISTAKE-B", lambda x: x > 2)]
    check("f", lambda x: x > 2, lambda x: x >= 2, cases, mistakes)
    assert "Hint: MISTAKE-B." in verdict()


def test_a_nan_answer_matches_a_mistake_that_gives_nan(verdict):
    from alphazero_lib.exercises.core import Mistake

    def cases():
        return [Case("f(a)", lambda f: f(np.array([1.0, 0.0])), np.array([1.0, 0.0]), hint="the rule")]

    with np.errstate(all="ignore"):
        check("f", lambda a: a / 0, lambda a: a, cases, [Mistake("divided by zero", lambda a: a / a.sum() / 0)])
    assert "Hint: divided by zero." in verdict()


def test_a_board_printed_as_text_is_never_spell_checked(verdict):
    def cases():
        return [Case("child()", lambda f: f(), "[[-1, 0], [0, 0]]", hint="the rule")]

    check("child", lambda: "[[1, 0], [0, 0]]", lambda: "[[-1, 0], [0, 0]]", cases)
    line = verdict()
    assert "spelling" not in line and "every piece's sign flipped" in line


def test_a_pair_names_its_wrong_item_and_a_percentage(verdict):
    def cases():
        return [Case(f"g({x})", lambda f, x=x: f(x), (x > 3, x / 10), hint="shared rule") for x in range(1, 9)]

    check("g", lambda x: (x >= 3, 10.0 * x + 0.01), lambda x: (x > 3, x / 10), cases)
    assert "Hint: item 1 of the pair:" in (line := verdict()) and "about 100 times" in line


def test_a_yes_no_that_errs_one_way_is_called_too_strict(verdict):
    def cases():
        return [Case(f"h({x})", lambda f, x=x: f(x), x >= 4, hint="shared rule") for x in range(9)]

    check("h", lambda x: x == 4, lambda x: x >= 4, cases)
    assert "yours says False where the library says True, never the reverse: your condition is too strict" in verdict()
