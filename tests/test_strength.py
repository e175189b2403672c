"""Pons' benchmark: the labelled positions, the error rule, the batched move choice and the strength command."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from fakes import FakeNet

from alphazero_lib.arena import wilson_interval
from alphazero_lib.choosers import batched_chooser
from alphazero_lib.cli import main
from alphazero_lib.config import SearchConfig
from alphazero_lib.games import ConnectFour, TicTacToe
from alphazero_lib.players import AlphaZeroPlayer, HumanPlayer, Player, PolicyPlayer, RandomPlayer
from alphazero_lib.specs import make_player
from alphazero_lib.strength import (
    ANCHORS,
    DATA_DIR,
    SETS,
    PositionSet,
    SetResult,
    choose_actions,
    errors_by_best_result,
    evaluate_player,
    evaluate_specs,
    format_by_best_result,
    load_set,
    mcnemar_p_value,
    move_errors,
    paired,
    paired_against_first,
)
from alphazero_lib.utils import cpu_cores

GAME = ConnectFour()

#: How many moves have been played in a set's positions (inclusive): Pons' beginning, middle and end.
MOVES_PLAYED = {"beginning": (0, 14), "middle": (15, 28), "end": (29, 41)}


# ---- the positions ------------------------------------------------------------------------------------
def drop_by_hand(sequence: str) -> np.ndarray:
    """The absolute 6x7 board after ``sequence`` (1-based columns), built cell by cell: row 0 is the top."""
    board = np.zeros((6, 7), dtype=np.int8)
    heights = [0] * 7
    for ply, char in enumerate(sequence):
        column = int(char) - 1
        board[5 - heights[column], column] = 1 if ply % 2 == 0 else -1
        heights[column] += 1
    return board


@pytest.mark.parametrize("name", SETS)
def test_every_line_loads_and_agrees_with_the_rules(name):
    lines = [line for line in (DATA_DIR / f"pons_{name}.txt").read_text().splitlines() if line and line[0] != "#"]
    positions = load_set(name)
    assert len(positions) == len(lines) == 1000
    assert positions.states.shape == (1000, 6, 7) and positions.states.dtype == np.int8
    assert positions.labels.shape == (1000, 7)
    for i, line in enumerate(lines):
        sequence, score, labels = line.split()
        assert positions.moves[i] == sequence and positions.scores[i] == int(score)
        assert "".join(positions.labels[i]) == labels
        state = positions.states[i]
        assert np.array_equal(state, drop_by_hand(sequence)), f"{name} line {i}: the board"
        # the side to move: the first player after an even number of moves, with one piece more than the other
        # after an odd number
        assert positions.to_move[i] == (1 if len(sequence) % 2 == 0 else -1)
        assert np.count_nonzero(state == 1) - np.count_nonzero(state == -1) == len(sequence) % 2
        # X exactly on the full columns, a result on every legal one (the library's rules say which are legal)
        legal = GAME.get_valid_moves(state).astype(bool)
        assert np.array_equal(positions.labels[i] == "X", ~legal), f"{name} line {i}: {labels}"
        assert set(labels[j] for j in np.flatnonzero(legal)) <= set("WDL")
        assert not GAME.is_over(state)
        best = max({"W": 1, "D": 0, "L": -1}[c] for c in labels if c != "X")
        assert best == np.sign(int(score)), f"{name} line {i}: best label against Pons' score {score}"
    # Pons' phases: the moves played in every position of the set
    low, high = MOVES_PLAYED[name.split("_")[0]]
    assert low <= min(len(m) for m in positions.moves) and max(len(m) for m in positions.moves) <= high


def test_a_limit_keeps_the_first_positions_and_the_sets_are_read_only():
    first = load_set("middle_medium", limit=7)
    assert len(first) == 7 and list(first.moves) == list(load_set("middle_medium").moves[:7])
    with pytest.raises(ValueError, match="read-only"):
        load_set("middle_easy").states[0, 0, 0] = 1
    with pytest.raises(ValueError, match="limit must be a positive integer"):
        load_set("end_easy", limit=0)


def test_unknown_set_names_and_damaged_files_are_refused_with_the_line(tmp_path):
    with pytest.raises(ValueError, match=r"unknown Pons set 'end_hard'; sets: " + ", ".join(SETS)):
        load_set("end_hard")
    cases = {
        "4453 0 DDDLDDL extra": "expected 'MOVES SCORE LABELS'",
        "4489 0 DDDDDDD": "columns 1 to 7",
        "444444 0 DDDXDDD extra": "expected",
        "4444444 0 DDDXDDD": "not a game",  # a seventh piece in a full column
        "444444 0 DDDDDDD": "X must mark exactly the full columns",
        "4453 0 DDDXDDD": "X must mark exactly the full columns",
        "4453 1 DDDDDDD": "disagrees with the sign",
        "4453 0 DDDDDD": "7 of W, D, L, X",
        "1212121 0 DDDDDDD": "the game is over",  # the first player won with the seventh move
        "12121213 0 DDDDDDD": "not a game",  # a move after the win
    }
    for line, message in cases.items():
        path = tmp_path / "bad.txt"
        path.write_text(f"# a comment\n4453 0 DDDDDDD\n{line}\n")
        with pytest.raises(ValueError, match=message) as info:
            load_set(path)
        assert "bad.txt line 3" in str(info.value)
    good = tmp_path / "good.txt"
    good.write_text("4453 1 LDDDDWD\n")
    assert "".join(load_set(good).labels[0]) == "LDDDDWD"


# ---- the error rule -----------------------------------------------------------------------------------
def test_a_move_is_an_error_when_another_legal_move_has_a_better_result():
    labels = np.array([list(row) for row in ("WDLXLWD", "DDLLLLX", "LLLLLLX", "XDDWXXX", "LDLDLDL")])
    every = [
        # columns 0..6 of each row: error or not (None: a full column, refused)
        [False, True, True, None, True, False, True],
        [False, False, True, True, True, True, None],
        [False, False, False, False, False, False, None],
        [None, True, True, False, None, None, None],
        [True, False, True, False, True, False, True],
    ]
    for row, expected in enumerate(every):
        for action, error in enumerate(expected):
            if error is None:
                with pytest.raises(ValueError, match=f"column {action} is full; legal columns"):
                    move_errors(labels[row : row + 1], [action])
            else:
                assert move_errors(labels[row : row + 1], [action])[0] == error, (row, action)
    assert move_errors(labels, [0, 0, 5, 3, 1]).tolist() == [False, False, False, False, False]
    with pytest.raises(ValueError, match="off the board"):
        move_errors(labels[:1], [7])


class OraclePlayer(Player):
    """Plays the best-labelled (``worst=False``) or worst-labelled legal move of a benchmark position."""

    def __init__(self, positions: PositionSet, worst: bool = False) -> None:
        super().__init__(GAME)
        self.name = "worst" if worst else "oracle"
        self.labels = {s.tobytes(): "".join(row) for s, row in zip(positions.states, positions.labels, strict=True)}
        self.order = "LDW" if worst else "WDL"

    def get_action(self, state: np.ndarray, player: int) -> int:
        labels = self.labels[np.asarray(state, dtype=np.int8).tobytes()]
        return min((self.order.index(c), a) for a, c in enumerate(labels) if c != "X")[1]


@pytest.mark.parametrize("name", SETS)
def test_perfect_play_makes_no_errors_and_the_worst_move_errs_wherever_results_differ(name):
    positions = load_set(name)
    (oracle,) = evaluate_player(OraclePlayer(positions), [positions], progress=False)
    assert (oracle.positions, oracle.errors, oracle.error_rate, oracle.interval[0]) == (1000, 0, 0.0, 0.0)
    (worst,) = evaluate_player(OraclePlayer(positions, worst=True), [positions], progress=False)
    mixed = sum(len({c for c in row if c != "X"}) > 1 for row in positions.labels)
    assert worst.errors == mixed > 0  # a rule that took a draw for a win (or a loss for a draw) would count fewer
    assert worst.interval == wilson_interval(worst.errors / 1000, 1000)
    assert worst.error_positions == sorted(worst.error_positions) and len(worst.error_positions) == worst.errors


# ---- choosing moves: the batched path is the player's own choice ---------------------------------------
def sample_positions(count: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """``count`` positions from every set, both sides to move: states ``[P, 6, 7]`` and ``to_move [P]``."""
    sets = [load_set(name) for name in SETS]
    states = np.concatenate([s.states[: count // len(SETS) + 1] for s in sets])[:count]
    to_move = np.concatenate([s.to_move[: count // len(SETS) + 1] for s in sets])[:count]
    assert set(to_move.tolist()) == {1, -1}
    return states, to_move


def search_configs() -> list[SearchConfig]:
    """PUCT, and every other search policy ``SearchConfig`` offers once it has a ``policy`` field (Gumbel)."""
    configs = [SearchConfig(num_searches=24, seed=0)]
    names = {f.name for f in dataclasses.fields(SearchConfig)}
    if "policy" in names:
        from alphazero_lib.config import SEARCH_POLICIES

        configs += [SearchConfig(num_searches=24, seed=0, policy=p) for p in SEARCH_POLICIES if p != "puct"]
    return configs


@pytest.mark.parametrize("config", search_configs(), ids=lambda c: getattr(c, "policy", "puct"))
@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_batched_search_chooses_the_moves_get_action_chooses(config, temperature):
    states, to_move = sample_positions(40)
    model = FakeNet(GAME, seed=3)
    batched = AlphaZeroPlayer(GAME, model, config, temperature=temperature)
    one_by_one = AlphaZeroPlayer(GAME, model, config, temperature=temperature)
    assert batched_chooser(batched) is not None
    actions = choose_actions(batched, states, to_move, batch_size=16)  # 16 + 16 + 8: batches of unequal size
    expected = [one_by_one.get_action(s, int(p)) for s, p in zip(states, to_move, strict=True)]
    assert actions.tolist() == expected
    assert len(set(expected)) > 2  # the positions ask for different moves


@pytest.mark.parametrize("sample", [False, True])
def test_batched_chooser_chooses_the_moves_get_action_chooses(sample):
    states, to_move = sample_positions(60)
    model = FakeNet(GAME, seed=5)
    batched, one_by_one = (PolicyPlayer(GAME, model, sample=sample, seed=11) for _ in range(2))
    actions = choose_actions(batched, states, to_move, batch_size=25)
    expected = [one_by_one.get_action(s, int(p)) for s, p in zip(states, to_move, strict=True)]
    assert actions.tolist() == expected
    unbatched = choose_actions(PolicyPlayer(GAME, model, sample=sample, seed=11), states, to_move, batched=False)
    assert unbatched.tolist() == expected


def test_other_players_go_position_by_position():
    states, to_move = sample_positions(12)
    player = AlphaZeroPlayer(GAME, FakeNet(GAME), SearchConfig(num_searches=4))
    player.time_limit = 1.0  # a timed search is not batched
    assert batched_chooser(player) is None
    assert batched_chooser(RandomPlayer(GAME, seed=0)) is None

    class Subclass(AlphaZeroPlayer):
        def get_action(self, state, player):
            return 0 if state[0, 0] == 0 else 1

    assert batched_chooser(Subclass(GAME, FakeNet(GAME))) is None
    one_by_one = RandomPlayer(GAME, seed=4)
    expected = [one_by_one.get_action(s, int(p)) for s, p in zip(states, to_move, strict=True)]
    assert choose_actions(RandomPlayer(GAME, seed=4), states, to_move).tolist() == expected


def test_evaluate_player_refuses_other_games_and_people():
    with pytest.raises(ValueError, match="6x7 Connect Four"):
        evaluate_player(RandomPlayer(TicTacToe()), progress=False)
    with pytest.raises(ValueError, match="6x7 Connect Four"):
        evaluate_player(RandomPlayer(ConnectFour(rows=5, columns=6)), progress=False)
    with pytest.raises(ValueError, match="cannot be benchmarked"):
        evaluate_player(HumanPlayer(GAME), progress=False)
    with pytest.raises(ValueError, match="unknown Pons set"):
        evaluate_player(RandomPlayer(GAME), ["middle_hard"], progress=False)


def test_evaluate_player_counts_the_errors_of_the_moves_it_chose():
    model = FakeNet(GAME, seed=2)
    results = evaluate_player(PolicyPlayer(GAME, model), limit=50, progress=False)
    assert [r.set_name for r in results] == list(SETS) and all(r.positions == 50 for r in results)
    for r in results:
        positions = load_set(r.set_name, limit=50)
        player = PolicyPlayer(GAME, model)
        actions = [player.get_action(s, int(p)) for s, p in zip(positions.states, positions.to_move, strict=True)]
        errors = move_errors(positions.labels, actions)
        assert r.errors == errors.sum() and r.error_positions == np.flatnonzero(errors).tolist()
        # grouped by the best result on offer, counted here from the labels' letters
        expected = {name: {"positions": 0, "errors": 0} for name in ("win", "draw", "loss")}
        for labels, error in zip(positions.labels, errors, strict=True):
            best = "win" if "W" in labels else "draw" if "D" in labels else "loss"
            expected[best]["positions"] += 1
            expected[best]["errors"] += int(error)
        assert r.by_best_result == expected and r.to_dict()["by_best_result"] == expected
        assert r.to_dict()["anchors"]["AlphaZero.jl"]["text"] == str(ANCHORS[r.set_name]["AlphaZero.jl"])


def test_errors_are_grouped_by_the_best_result_on_offer():
    labels = np.array(
        [list("WLDXLLL"), list("DLLLLLL"), list("LLLLLLX"), list("DDDDDDD"), list("LWLLLLL")], dtype="<U1"
    )
    groups = errors_by_best_result(labels, np.array([True, True, False, False, False]))
    assert groups == {
        "win": {"positions": 2, "errors": 1},
        "draw": {"positions": 2, "errors": 1},
        "loss": {"positions": 1, "errors": 0},
    }
    assert format_by_best_result(groups) == "win 1 / 2 (50.0%), draw 1 / 2 (50.0%), loss 1"
    assert format_by_best_result({}) == "win 0 / 0, draw 0 / 0, loss 0"
    with pytest.raises(ValueError, match="one error flag per position: 5 positions, 4 flags"):
        errors_by_best_result(labels, np.zeros(4, dtype=bool))


# ---- the command --------------------------------------------------------------------------------------
def test_strength_command_prints_the_table_and_json(capsys):
    args = ["strength", "--player", "policy:connect_four", "--player", "negamax:2", "--limit", "6", "--no-progress"]
    assert main(args) == 0
    out = capsys.readouterr().out
    for text in (*SETS, "policy:connect_four", "negamax:2", "95% interval", "AlphaZero.jl", "minimax-5", "~2-3%"):
        assert text in out
    assert "A = negamax:2, B = policy:connect_four" in out and out.count("McNemar exact p") == 6
    assert "Errors by the best result on offer" in out and out.count(", loss ") == 12  # two players, six sets
    assert main([*args, "--sets", "middle_medium", "end_easy", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["benchmark"] == "pons" and data["limit"] == 6 and data["seed"] == 0
    rows = data["results"]
    assert [(r["player"], r["set"]) for r in rows] == [
        ("policy:connect_four", "middle_medium"),
        ("policy:connect_four", "end_easy"),
        ("negamax:2", "middle_medium"),
        ("negamax:2", "end_easy"),
    ]
    for r in rows:
        assert r["positions"] == 6 and r["error_rate"] == r["errors"] / 6
        assert r["interval"] == list(wilson_interval(r["errors"] / 6, 6))
        groups = r["by_best_result"]
        assert sum(g["positions"] for g in groups.values()) == 6 and groups["loss"]["errors"] == 0
        assert sum(g["errors"] for g in groups.values()) == r["errors"]
    assert rows[0]["anchors"]["minimax-5"]["low"] == 0.092
    # the second player paired with the first on each set, from the positions each got wrong
    for pair, (first, second) in zip(data["paired"], [(rows[2], rows[0]), (rows[3], rows[1])], strict=True):
        mine, theirs = set(first["error_positions"]), set(second["error_positions"])
        assert (pair["first"], pair["second"], pair["set_name"]) == ("negamax:2", "policy:connect_four", first["set"])
        assert (pair["only_first"], pair["only_second"], pair["both"]) == (
            len(mine - theirs),
            len(theirs - mine),
            len(mine & theirs),
        )


# ---- the measurement in several processes --------------------------------------------------------------
def test_several_processes_measure_what_one_process_measures():
    sets = ["end_easy", "middle_medium"]
    # 90 positions in chunks of 25: the last chunk is short, and the processes take turns with four chunks a set.
    # The greedy policy has no tie-breaks to draw: one process and two choose the same moves.
    one = evaluate_player(make_player(GAME, "policy:connect_four", seed=0), sets, limit=90, progress=False)
    two = evaluate_specs(["policy:connect_four"], sets, workers=2, seed=0, limit=90, batch_size=25, progress=False)
    assert [(r.player, r.set_name, r.positions) for r in two] == [(r.player, r.set_name, r.positions) for r in one]
    for mine, theirs in zip(two, one, strict=True):
        assert (mine.errors, mine.error_positions, mine.by_best_result) == (
            theirs.errors,
            theirs.error_positions,
            theirs.by_best_result,
        )
        assert mine.seconds > 0
    assert sum(r.errors for r in one) > 0  # the comparison has errors to place
    # A search with 4 simulations ties often, and a tie-break draws from the player's generator: each chunk has a
    # fresh player, so the errors are those of a fresh player on each chunk in this process, in 2 processes or 3.
    spec = "alphazero:connect_four:4"
    expected = []
    for name in sets:
        positions, errors = load_set(name, 90), []
        for start in range(0, 90, 25):
            chunk = PositionSet(name, *(a[start : start + 25] for a in dataclasses.astuple(positions)[1:]))
            result = evaluate_player(make_player(GAME, spec, seed=0), [chunk], progress=False)[0]
            errors += [start + i for i in result.error_positions]
        expected.append(errors)
    for workers in (2, 3):
        results = evaluate_specs([spec], sets, workers=workers, seed=0, limit=90, batch_size=25, progress=False)
        assert [r.error_positions for r in results] == expected


def test_evaluate_specs_refuses_bad_input_before_any_process_starts():
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        evaluate_specs(["random"], ["end_easy"], workers=0)
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        evaluate_specs(["random"], ["end_easy"], batch_size=0)
    with pytest.raises(ValueError, match="unknown Pons set 'beginning'"):
        evaluate_specs(["random"], ["beginning"])
    with pytest.raises(ValueError, match="cannot be benchmarked"):
        evaluate_specs(["human"], ["end_easy"])
    with pytest.raises(ValueError, match="weights are for TicTacToe"):
        evaluate_specs(["alphazero:tictactoe:10"], ["end_easy"])


def test_strength_command_with_workers_prints_what_one_process_prints(capsys):
    args = ["strength", "--player", "policy:connect_four", "--sets", "middle_easy", "--limit", "30", "--no-progress"]
    assert main([*args, "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main([*args, "--json", "--workers", "2", "--batch-size", "8"]) == 0
    two = json.loads(capsys.readouterr().out)
    for row in (*one["results"], *two["results"]):
        row.pop("seconds")
    assert two == one
    with pytest.raises(SystemExit):
        main([*args, "--workers", "0"])
    assert "--workers: must be a positive integer" in capsys.readouterr().err
    most = 4 * cpu_cores()
    with pytest.raises(SystemExit):
        main([*args, "--workers", str(most + 1)])
    err = capsys.readouterr().err
    assert f"--workers: must be at most {most} (4 x the {cpu_cores()} cores" in err
    assert "more processes only wait on each other" in err


# ---- two players on the same positions ------------------------------------------------------------
@pytest.mark.parametrize(
    ("only_first", "only_second", "p_value"),
    [
        (1, 9, 22 / 1024),  # 2 * (C(10,0) + C(10,1)) / 2^10
        (9, 1, 22 / 1024),  # two-sided: the order does not matter
        (0, 5, 2 / 32),
        (3, 3, 1.0),  # an even split is no evidence at all (the doubled tail would be 1.3125)
        (0, 0, 1.0),
        (34, 69, 0.000727),  # the 5 x 128 network of 2026-11-25 (commit 64081fc) against the shipped one on end-easy
    ],
)
def test_mcnemar_exact_p_values_by_hand(only_first, only_second, p_value):
    assert mcnemar_p_value(only_first, only_second) == pytest.approx(p_value, rel=1e-3)


def test_paired_counts_the_positions_each_player_alone_gets_wrong():
    mine = SetResult("mine", "end_easy", 10, 4, error_positions=[0, 1, 2, 3])
    theirs = SetResult("theirs", "end_easy", 10, 2, error_positions=[3, 7])
    pair = paired(mine, theirs)
    assert (pair.first, pair.second, pair.only_first, pair.only_second, pair.both) == ("mine", "theirs", 3, 1, 1)
    assert pair.p_value == mcnemar_p_value(3, 1) and pair.to_dict()["p_value"] == pair.p_value
    with pytest.raises(ValueError, match="same positions"):
        paired(mine, SetResult("theirs", "middle_easy", 10, 0))
    later = SetResult("mine", "middle_easy", 10, 1, error_positions=[5])
    # every later player against the first one named, set by set, whatever the order of the sets
    results = [theirs, SetResult("theirs", "middle_easy", 10, 0), mine, later]
    assert [(p.first, p.second, p.set_name) for p in paired_against_first(results)] == [
        ("mine", "theirs", "end_easy"),
        ("mine", "theirs", "middle_easy"),
    ]
    assert paired_against_first(results[:2]) == [] and paired_against_first([]) == []


def test_strength_measures_a_set_file_in_pons_format(tmp_path, capsys):
    lines = (DATA_DIR / "pons_end_easy.txt").read_text().splitlines()
    path = tmp_path / "mine.txt"
    path.write_text("\n".join(lines[:3] + [line for line in lines[3:] if not line.startswith("#")][:4]) + "\n")
    assert main(["strength", "--player", "random", "--sets", str(path), "--no-progress", "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert (result["set"], result["positions"]) == ("mine.txt", 4)
    drawn = next(line.split() for line in lines if line.split()[1:2] == ["0"])
    path.write_text(f"{drawn[0]} 5 {drawn[2]}\n")  # a win by its score, a draw at best by its labels
    assert main(["strength", "--player", "random", "--sets", str(path), "--no-progress"]) == 2
    assert "mine.txt line 1: the best label" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--player", "random", "--sets", "end_easy", "beginning"], "unknown Pons set 'beginning'"),
        (["--player", "random", "--sets", "nowhere.txt"], "no Pons set file at nowhere.txt"),
        (["--player", "alphazero:tictactoe:10"], "weights are for TicTacToe"),
        (["--player", "human"], "cannot be benchmarked"),
        (["--player", "random", "--against", "human"], "cannot be benchmarked"),
        (["--player", "random", "--sets"], "nothing to measure"),
    ],
)
def test_strength_command_errors_are_one_line(capsys, args, message):
    assert main(["strength", *args, "--limit", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
