"""The command line's flags (cli.py): a bad or oversized number gets one line naming the flag, its limit and why,
and exit code 2, never a traceback (issues 16 and 28). The arena's, train's and kaggle's own errors are tested
beside their subjects (test_cli_arena.py, test_rundir.py, test_kaggle*.py)."""

from __future__ import annotations

import json

import pytest

from alphazero_lib.cli import main


@pytest.mark.parametrize(
    "argv, message",
    [
        (["bench", "selfplay", "--games", "0"], "argument --games: must be a positive integer, got 0"),
        (["bench", "selfplay", "--threads", "0"], "argument --threads: must be a positive integer, got 0"),
        (["bench", "selfplay", "--searches", "0"], "argument --searches: must be a positive integer, got 0"),
        (["bench", "selfplay", "--seconds", "-1"], "argument --seconds: must be a finite positive number, got -1"),
        (["kaggle-eval", "--player", "random", "--episodes", "0"], "argument --episodes: must be a positive integer"),
        (
            ["arena", "--player1", "random", "--player2", "random", "--seed", "-1"],
            "argument --seed: must be a non-negative",
        ),
        (["train", "--game", "tictactoe", "--out", "r", "--seed", "-1"], "argument --seed: must be a non-negative"),
        (["export-kaggle", "--weights", "connect_four", "--C", "nan"], "argument --C: must be a finite non-negative"),
        (["export-kaggle", "--weights", "connect_four", "--C", "-1"], "argument --C: must be a finite non-negative"),
    ],
)
def test_bad_flags_get_one_line_and_exit_code_2(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["bench", "selfplay", "--searches", "1000000000"], "argument --searches: must be at most 100,000 (a move"),
        (["bench", "selfplay", "--games", "1000000"], "argument --games: must be at most 16,384 (every game in flight"),
        (["bench", "selfplay", "--threads", "100000"], "argument --threads: must be at most 8 (4 x the 2 cores"),
        (["train", "--game", "tictactoe", "--out", "x", "--threads", "100000"], "must be at most 8 (4 x the 2 cores"),
        (["train", "--game", "tictactoe", "--out", "x", "--searches", "1000000000"], "at most 100,000"),
        (["train", "--game", "tictactoe", "--out", "x", "--iterations", "1000000"], "at most 100,000 (each iteration"),
        (["train", "--game", "tictactoe", "--out", "x", "--parallel-games", "10000000"], "at most 16,384"),
        (
            ["train", "--game", "tictactoe", "--out", "x", "--workers", "100000"],
            "at most 256 (each worker is a process",
        ),
        (["train", "--game", "tictactoe", "--out", "x", "--lr", "1e30"], "--lr: must be at most 1 (Adam diverges"),
        (
            ["train", "--game", "tictactoe", "--out", "x", "--seed", "12345678901234567890123"],
            "--seed: must be at most 9,223,372,036,854,775,806 (seeds are 64-bit integers for torch, and a second "
            "player gets seed + 1), got a 23-digit number",
        ),
        (["arena", "--player1", "random", "--player2", "random", "--games", "10000000"], "at most 1,000,000"),
        (["export-kaggle", "--weights", "connect_four", "--searches", "1000000000"], "--searches: must be at most"),
        (["play", "--threads", "100000"], "--threads: must be at most 8"),
    ],
)
def test_numbers_past_their_caps_are_refused_by_name_and_reason(one_line_error, monkeypatch, argv, message):
    import alphazero_lib.cli as cli

    monkeypatch.setattr(cli, "cpu_cores", lambda: 2)
    assert message in one_line_error(argv)


def test_workers_beyond_the_machine_are_refused_unless_on_ray(one_line_error, monkeypatch, tmp_path):
    import alphazero_lib.rundir as rundir

    monkeypatch.setattr(rundir, "cpu_cores", lambda: 2)  # the run's rule (open_run), reported under the flag
    tiny = tmp_path / "tiny.json"  # (two games: were the check gone, two worker processes would train at once)
    tiny.write_text(json.dumps({"num_res_blocks": 1, "num_hidden": 8, "num_searches": 2, "games_per_iteration": 2}))
    argv = ["train", "--game", "tictactoe", "--out", str(tmp_path / "r"), "--config", str(tiny), "--no-progress"]
    err = one_line_error([*argv, "--iterations", "1", "--workers", "64"])
    assert "--workers 64 would start 64 processes on the 2 cores of this machine; at most 8" in err
    assert not (tmp_path / "r").exists()
