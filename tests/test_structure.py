"""The library's structure (issue 14): no import cycle, one self-play loop, one config, resumes that continue
exactly what a run recorded."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import torch
from test_training import TINY

from alphazero_lib import make_game
from alphazero_lib.cli import main
from alphazero_lib.config import PRESETS, SearchConfig, TrainConfig, self_play_search

PACKAGE = Path(__file__).resolve().parents[1] / "alphazero_lib"


# ---- layers ---------------------------------------------------------------------------------------------
def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the library modules it imports, anywhere in the file (inside functions too)."""
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join([*parts[: len(parts) - node.level + 1], base]).strip(".")
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names
                ]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_library_imports_without_a_cycle():
    graph = import_graph()
    assert "alphazero_lib.selfplay" in graph and graph["alphazero_lib.training"]  # the walk sees the modules
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_planted_cycle():
    graph = import_graph()
    graph["alphazero_lib.games.base"].add("alphazero_lib.training")  # base -> training -> ... -> games.base
    assert any("alphazero_lib.games.base" in component for component in cycles(graph))


def test_games_are_played_in_one_place():
    """Only selfplay.py plays self-play games: the trainers and the benchmark call it and make no moves."""
    for name in ("training.py", "bench.py"):
        calls = {
            node.func.attr
            for node in ast.walk(ast.parse((PACKAGE / name).read_text()))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        }
        assert not calls & {"get_next_state", "get_value_and_terminated", "search"}, name


def test_selection_lives_outside_the_search_module():
    import alphazero_lib.alpha_mcts as alpha_mcts

    assert not hasattr(alpha_mcts, "select_action") and not hasattr(alpha_mcts, "apply_temperature")


# ---- one config -----------------------------------------------------------------------------------------
def test_train_config_holds_a_search_config_and_reads_older_flat_configs():
    flat = {"num_searches": 7, "C": 1.5, "dirichlet_epsilon": 0.1, "num_iterations": 2}
    config = TrainConfig.from_dict(flat)
    assert config.search == SearchConfig(num_searches=7, C=1.5, dirichlet_epsilon=0.1, dirichlet_alpha=0.3)
    assert config.num_iterations == 2 and config.self_play == "serial" and config.inference_mode == "fp32"
    assert TrainConfig.from_dict(config.to_dict()) == config
    assert json.loads(json.dumps(config.to_dict()))["search"]["num_searches"] == 7
    # search fields a config leaves out take the self-play defaults (root noise on), not SearchConfig's
    assert TrainConfig.from_dict({"search": {"num_searches": 9}}).search == self_play_search(num_searches=9)
    # the flat form overrides the nested one (the command line's flags)
    assert TrainConfig.from_dict({"search": {"num_searches": 9}, "num_searches": 4}).search.num_searches == 4
    with pytest.raises(ValueError, match=r"search\.seed must be None"):
        TrainConfig(search=SearchConfig(seed=3))
    with pytest.raises(ValueError, match="self_play must be one of"):
        TrainConfig(self_play="parallel")
    with pytest.raises(ValueError, match="unknown SearchConfig settings"):
        TrainConfig.from_dict({"search": {"num_serches": 3}})


def test_the_pb_c_schedule_reaches_self_play():
    from alphazero_lib.model import ResNet
    from alphazero_lib.selfplay import BatchedSelfPlay, SerialSelfPlay

    config = TrainConfig.from_dict({**TINY, "search": {"pb_c_base": 10.0, "pb_c_init": 0.5}})
    game = make_game("tictactoe")
    model = ResNet(game, 1, 8).eval()
    serial = SerialSelfPlay(game, model, config, (0, 0))
    batched = BatchedSelfPlay(game, model, config, 2, (0, 0))
    for search in (serial.mcts.config, batched.mcts.config):
        assert (search.pb_c_base, search.pb_c_init, search.num_searches) == (10.0, 0.5, 5)


# iteration 200 of Connect Four (default 2026-11-26 to 2026-11-27): the 5 x 128 run's iteration 40 branched to AdamW and
# resumed with the changes its config.json lists (model card): PUCT self-play with 400 searches from longer openings,
# a longer replay window drawn 32,000 positions a pass, a constant learning rate, Dirichlet root noise from 186
ITERATION_200_CHANGES = {
    *("lr_decay_iterations", "num_threads", "train_precision", "inference_mode", "weight_decay"),
    *("optimizer", "opening_moves", "search.num_searches", "search.policy", "move_selection"),
    *("replay_window", "train_samples", "lr", "lr_final_fraction", "measure_new_games"),
    *("search.dirichlet_epsilon", "search.dirichlet_alpha"),
}


@pytest.mark.parametrize(
    "name, preset, differences",
    [
        # the shipped runs were resumed with --epochs 1, --threads and --workers (weights/README.md), and
        # recorded neither batched self-play nor the inference mode before these were settings
        (
            "connect_four_cpu",
            "connect_four_cpu",
            {"num_epochs", "num_threads", "num_workers", "inference_mode", "self_play"},
        ),
        ("othello6", "othello6_cpu", {"num_epochs", "num_threads", "replay_window", "self_play"}),
        # the 5 x 128 Gumbel network: the preset resumed with --threads 1 and --lr-decay-iterations 120, its two
        # auto settings recorded as the machine's choices (its model card)
        (
            "connect_four_fast_5x128",
            "connect_four_fast_5x128",
            {"lr_decay_iterations", "num_threads", "train_precision", "inference_mode"},
        ),
        # the default Connect Four network: iteration 200's changes (below), then tree reuse from 207, AlphaZero.jl's
        # targets from 226 (position averaging, the outcome as value target, a window of 40) and playout cap
        # randomisation with 384 games an iteration from 277, in a run of 340
        (
            "connect_four",
            "connect_four_fast_5x128",
            {
                *ITERATION_200_CHANGES,
                *("reuse_tree", "num_iterations", "position_averaging", "value_target_q_weight"),
                *("games_per_iteration", "full_search_fraction", "cheap_searches"),
            },
        ),
        ("connect_four@200", "connect_four_fast_5x128", ITERATION_200_CHANGES),
        ("tictactoe", "tictactoe", set()),
    ],
)
def test_the_presets_are_the_shipped_runs_settings(name, preset, differences):
    from alphazero_lib.checkpoints import load_checkpoint
    from alphazero_lib.specs import weights_path

    recorded = TrainConfig.from_dict(load_checkpoint(weights_path(name))["train_config"])
    assert set(recorded.changes_from(TrainConfig.from_preset(preset))) == differences


def test_presets_have_one_source():
    assert not (PACKAGE.parent / "configs").exists()  # the JSON copies are gone; PRESETS is the source
    assert {"connect_four_cpu", "othello6_cpu"} <= set(PRESETS)


# ---- resumes continue what was recorded -----------------------------------------------------------------
def run_command(out: Path, config: Path, *flags: str) -> list[str]:
    return ["train", "--game", "tictactoe", "--out", str(out), "--config", str(config), "--no-progress", *flags]


def interrupted_after_one_iteration(monkeypatch, argv: list[str]) -> None:
    """Run ``argv`` and stop it (Ctrl-C) once the first iteration is saved."""
    from alphazero_lib import rundir

    save = rundir.Run.save  # the run directory writes the trainer's checkpoints

    def save_then_stop(self, checkpoint):
        save(self, checkpoint)
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(rundir.Run, "save", save_then_stop)
        assert main(argv) == 130


def same_run(one: Path, other: Path) -> None:
    first = torch.load(one / "latest.pt", weights_only=True)
    second = torch.load(other / "latest.pt", weights_only=True)
    for key, value in first["model"].items():
        torch.testing.assert_close(second["model"][key], value, rtol=0, atol=0, msg=key)
    keys = ("games", "positions", "samples", "first_player_wins", "policy_loss", "value_loss")
    assert [{k: r[k] for k in keys} for r in first["history"]] == [{k: r[k] for k in keys} for r in second["history"]]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_resume_with_no_flags_continues_batched_self_play_exactly(tmp_path, monkeypatch, capsys, workers):
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({**TINY, "games_per_iteration": 4, "num_iterations": 2, "num_epochs": 1}))
    flags = ["--parallel-games", "3", *(["--workers", str(workers)] if workers > 1 else [])]
    assert main(run_command(tmp_path / "straight", config, *flags)) == 0
    interrupted_after_one_iteration(monkeypatch, run_command(tmp_path / "split", config, *flags))
    saved = json.loads((tmp_path / "split" / "config.json").read_text())["train_config"]
    assert (saved["self_play"], saved["num_parallel_games"], saved["num_workers"]) == ("batched", 3, workers)
    capsys.readouterr()

    assert main(["train", "--out", str(tmp_path / "split"), "--resume", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "after iteration 1 of 2" in printed and "batched self-play (3 games in flight" in printed
    assert "resuming with a change" not in printed
    same_run(tmp_path / "straight", tmp_path / "split")


def test_a_resume_states_each_change_and_refuses_a_contradiction(tmp_path, monkeypatch, capsys):
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({**TINY, "games_per_iteration": 2, "num_iterations": 2, "num_epochs": 1}))
    out = tmp_path / "run"
    interrupted_after_one_iteration(monkeypatch, run_command(out, config))  # serial self-play
    capsys.readouterr()

    assert main(["train", "--out", str(out), "--resume", "--workers", "2"]) == 2
    assert "--workers set batched self-play, but this run plays serial self-play" in capsys.readouterr().err

    argv = ["train", "--out", str(out), "--resume", "--no-progress", "--lr", "0.0005", "--searches", "6"]
    assert main([*argv, "--iterations", "3"]) == 0
    printed = capsys.readouterr().out
    assert "resuming with a change: lr 0.001 -> 0.0005 (from iteration 2)" in printed
    assert "resuming with a change: search.num_searches 5 -> 6" in printed
    saved = json.loads((out / "config.json").read_text())
    assert saved["train_config"]["lr"] == 0.0005 and saved["train_config"]["search"]["num_searches"] == 6
    assert {(c["field"], c["old"], c["new"]) for c in saved["changes"]} == {
        ("lr", 0.001, 0.0005),
        ("search.num_searches", 5, 6),
        ("num_iterations", 2, 3),
    }
    assert torch.load(out / "latest.pt", weights_only=True)["optimizer"]["param_groups"][0]["lr"] == 0.0005


def test_a_config_from_before_the_self_play_record_must_say_which(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    old = {key: value for key, value in TrainConfig.from_dict(TINY).to_dict().items() if key != "self_play"}
    (out / "config.json").write_text(json.dumps({"game": make_game("tictactoe").config, "train_config": old}))
    assert main(["train", "--out", str(out), "--resume"]) == 2
    assert "predates the record of serial or batched self-play" in capsys.readouterr().err


def test_auto_inference_is_measured_once_and_recorded(tmp_path):
    from alphazero_lib.inference import MODES
    from alphazero_lib.rundir import Run
    from alphazero_lib.training import build_trainer

    config = TrainConfig.from_dict({**TINY, "self_play": "batched", "inference_mode": "auto", "num_epochs": 1})
    game = make_game("tictactoe")
    trainer = build_trainer(game, config, progress=False, run=Run.at(tmp_path, game, config))
    trainer.learn()
    recorded = json.loads((tmp_path / "config.json").read_text())["train_config"]["inference_mode"]
    assert recorded in MODES and recorded == trainer.config.inference_mode


# ---- each setting declared once (issue 26, item 4) ------------------------------------------------------------
def test_train_flags_come_from_the_config_fields():
    import argparse

    from alphazero_lib import cli
    from alphazero_lib.config import choices_of, field_docs, setting_flags

    train = next(
        action for action in cli.build_parser()._actions if isinstance(action, argparse._SubParsersAction)
    ).choices["train"]
    by_flag = {action.option_strings[0]: action for action in train._actions if action.option_strings}
    declared = setting_flags()
    assert len(declared) >= 30 and len({flag for flag, *_ in declared}) == len(declared)  # one flag per setting
    for flag, owner, name, _ in declared:
        assert by_flag[flag].dest == name, flag  # the value reaches the run under the field's own name
        assert by_flag[flag].help.endswith(f"({owner.__name__}.{name})"), flag
        assert cli._first_sentence(field_docs(owner)[name]).replace("%", "%%") in by_flag[flag].help, flag
        if choices_of(name) and len(choices_of(name)) <= 3:
            assert tuple(by_flag[flag].choices) == choices_of(name), flag


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--opening-moves", "-1", "TrainConfig.opening_moves must be a non-negative integer, got -1"),
        ("--full-search-fraction", "1.5", "TrainConfig.full_search_fraction must be in (0, 1], got 1.5"),
        ("--gumbel-considered", "0", "SearchConfig.gumbel_considered must be a positive integer, got 0"),
        ("--inference-mode", "fp64", "TrainConfig.inference_mode must be 'auto' or one of"),
    ],
)
def test_a_flag_is_checked_by_its_dataclass_with_its_words(capsys, flag, value, words):
    """The flag's error is the dataclass's message under the flag's name: one check, in the dataclass."""
    with pytest.raises(SystemExit):
        main(["train", "--game", "tictactoe", "--out", "unused", flag, value])
    err = capsys.readouterr().err
    assert f"argument {flag}: must {words.split(' must ', 1)[1]}" in err, err


def test_the_config_module_needs_no_torch():
    import subprocess
    import sys

    code = "import sys, alphazero_lib.config; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_a_config_recorded_under_an_older_name_is_read_under_the_present_one():
    old = TrainConfig.from_dict({"num_self_play_iterations": 7})  # the shipped runs' records say this
    assert old.games_per_iteration == 7 and "num_self_play_iterations" not in old.to_dict()
    with pytest.raises(ValueError, match="gives both 'num_self_play_iterations' and its present name"):
        TrainConfig.from_dict({"num_self_play_iterations": 7, "games_per_iteration": 8})


def test_no_table_of_the_library_is_keyed_by_a_setting_name():
    """A setting is declared once, in its field (``settings.setting``: type, default, bounds, choices, cap, flag, the
    self-play value, the network's unit, help): no module-level table of the library keys anything by a setting's
    name (two or more of them). The presets are values of the settings, not declarations, and stay."""
    from dataclasses import fields

    from alphazero_lib.capstone import CapstoneSettings
    from alphazero_lib.config import setting_owners

    names = {f.name for owner in (*setting_owners(), CapstoneSettings) for f in fields(owner)}
    tables = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
            value = getattr(node, "value", None)
            if not isinstance(target, ast.Name) or target.id == "PRESETS":
                continue
            if isinstance(value, ast.Dict):
                keys = [key.value for key in value.keys if isinstance(key, ast.Constant)]
            elif isinstance(value, ast.Call) and getattr(value.func, "id", None) == "dict":
                keys = [keyword.arg for keyword in value.keywords]
            elif isinstance(value, (ast.Tuple, ast.List)):
                pairs = [item for item in value.elts if isinstance(item, ast.Tuple) and item.elts]
                keys = [pair.elts[0].value for pair in pairs if isinstance(pair.elts[0], ast.Constant)]
            else:
                continue
            keyed = [key for key in keys if key in names]
            if len(keyed) > 1:  # one name alone may be an exercise's or a flag group's ("search", "self_play")
                tables.append(f"{path.relative_to(PACKAGE)}: {target.id}, keyed by {keyed}")
    assert tables == []
