"""The capstone: the learner's pieces drive the library's batched search and self-play, counted, under a budget."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from alphazero_lib import capstone
from alphazero_lib.batched_mcts import BatchedMCTS
from alphazero_lib.capstone import Capstone, CapstoneSettings, load_pieces, shown
from alphazero_lib.config import SearchConfig
from alphazero_lib.exercises import nb07_parallel
from alphazero_lib.games import ConnectFour
from alphazero_lib.games.batched_rules import BatchedRules
from alphazero_lib.model import ResNet
from alphazero_lib.strength import SETS
from alphazero_lib.training import minibatches as library_minibatches
from alphazero_lib.training import train_step as library_train_step
from tests.test_mine import cell, notebook


def positions(count: int, seed: int) -> np.ndarray:
    game, rng = ConnectFour(), np.random.default_rng(seed)
    states = []
    for _ in range(count):
        state = game.get_initial_state()
        for _ in range(int(rng.integers(0, 8))):
            moves = np.flatnonzero(game.get_valid_moves(state))
            state = game.get_next_state(state, int(rng.choice(moves)), 1)
            if game.check_win(state, None) or game.get_value_and_terminated(state, None)[1]:
                break
            state = game.change_perspective(state, -1)
        states.append(state)
    return np.stack(states)


@pytest.mark.parametrize("policy", ["puct", "gumbel"])
def test_the_exercise_backup_and_selection_give_the_library_search_exactly(policy):
    """Notebook 7's reference select_actions and backup, plugged into BatchedMCTS, change no visit and no bit."""
    game = ConnectFour()
    torch.manual_seed(0)
    model = ResNet(game, 1, 8).eval()
    config = SearchConfig(num_searches=24, seed=3, policy=policy, dirichlet_epsilon=0.0)
    states = positions(12, 0)
    plain = BatchedMCTS(game, model, config).run(states)

    def selection(children, config, root=None):
        return nb07_parallel.select_actions(
            children.value_sum, children.visit_count, children.prior, children.legal, children.parent_visits, C=config.C
        )

    puct = policy == "puct"
    hooked = BatchedMCTS(
        game, model, config, rules=BatchedRules(game), backup=nb07_parallel.backup,
        root_selection=selection if puct else None, interior_selection=selection if puct else None,
    ).run(states)  # fmt: skip
    assert np.array_equal(plain.policy, hooked.policy)
    assert np.array_equal(plain.root_value, hooked.root_value)


def test_a_wrong_backup_changes_the_search():
    """The hook is really used: a backup that forgets to flip the sign gives other visits."""
    game = ConnectFour()
    torch.manual_seed(0)
    model = ResNet(game, 1, 8).eval()
    config = SearchConfig(num_searches=24, seed=3)
    states = positions(12, 1)

    def no_flip(visit_count, value_sum, path, depth, leaf_value):
        for b in range(len(depth)):
            for level in range(depth[b] + 1):
                visit_count[b, path[level, b]] += 1
                value_sum[b, path[level, b]] += leaf_value[b]

    plain = BatchedMCTS(game, model, config).run(states).policy
    wrong = BatchedMCTS(game, model, config, backup=no_flip).run(states).policy
    assert not np.array_equal(plain, wrong)


def small(fast: bool) -> CapstoneSettings:
    return CapstoneSettings(fast=fast, games_per_iteration=4, searches=4, num_res_blocks=1, num_hidden=8,
                            batch_size=32, minutes=0.0)  # fmt: skip


@pytest.mark.parametrize("fast", [True, False])
def test_one_iteration_on_the_library_pieces_when_nothing_is_kept(home, fast, capsys):
    yours = load_pieces()
    assert yours.mine == [] and "ConnectFour.check_win" in yours.library
    assert "its checks have not passed here" in capsys.readouterr().out
    run = Capstone(yours, small(fast))
    history = run.run(minutes=0.0)  # one iteration: the budget is checked after each
    assert len(history) == 1 and history[0]["games"] == 4 and history[0]["samples"] > 0
    calls = yours.counter.per_piece
    assert calls["game_memory"] >= 4 * 2  # each game and its mirror image
    assert calls["train"] == 1 and calls["backup"] > 0 and calls["ConnectFour.get_next_state"] > 0
    assert calls["BatchedMCTS network call"] == run.mcts.stats.network_calls > 0  # read from the search's stats
    assert (calls["select_actions"] > 0) == (not fast)  # Gumbel's search selects by its own rule
    assert yours.counter.totals()["yours"] == 0


TRAIN = """
def train(model, optimizer, memory, batch_size, rng):
    model.train()
    device = next(model.parameters()).device
    states = torch.tensor(np.stack([state for state, _, _ in memory]), dtype=torch.float32, device=device)
    policies = torch.tensor(np.stack([policy for _, policy, _ in memory]), dtype=torch.float32, device=device)
    values = torch.tensor(np.array([value for _, _, value in memory]), dtype=torch.float32, device=device).unsqueeze(1)
    policy_total = value_total = 0.0
    for batch in minibatches(len(memory), batch_size, rng):
        policy_loss, value_loss = train_step(model, optimizer, states[batch], policies[batch], values[batch])
        policy_total += policy_loss * len(batch)
        value_total += value_loss * len(batch)
    return {"policy_loss": policy_total / len(memory), "value_loss": value_total / len(memory)}
"""


def test_the_learners_kept_pieces_train(home):
    """Kept minibatches and train are the ones the capstone's training calls, counted as yours; train_step,
    which did not pass here, is the library's (imported into the learner's module)."""
    from alphazero_lib.exercises import nb05_self_play
    from tests.test_mine import MINIBATCHES

    ns = notebook()
    cell(ns, "import torch\nfrom alphazero_lib.exercises.nb05_self_play import library_train_step as train_step\n")
    cell(ns, MINIBATCHES)
    cell(ns, TRAIN)
    nb05_self_play.check_minibatches(ns["minibatches"])
    nb05_self_play.check_train(ns["train"])
    yours = load_pieces(quiet=True)
    assert yours.mine == ["minibatches", "train"]
    Capstone(yours, small(True)).run(minutes=0.0)
    calls, whose = yours.counter.per_piece, yours.counter.whose
    assert calls["train"] == 1 and whose["train"] == "yours"
    assert calls["minibatches"] == 1 and whose["minibatches"] == "yours"  # called by your train, in your module
    assert whose["train_step"] == "library"


def test_the_network_and_its_batches_go_to_the_device_asked_for(home):
    """The GPU path on a CPU: the model on PyTorch's meta device (shapes, no numbers). A device-aware train gets
    its batches there (meta stops at the first .item()); one that builds CPU tensors gets an error naming the fix."""
    import copy

    assert CapstoneSettings().device == "auto"
    run = Capstone(load_pieces(quiet=True), CapstoneSettings(**{**small(True).__dict__, "device": "meta"}))
    assert run.device == torch.device("meta") and next(run.model.parameters()).device.type == "meta"
    memory = [(np.zeros((3, 6, 7), np.float32), np.full(7, 1 / 7, np.float32), 1.0) for _ in range(8)]
    with pytest.raises(RuntimeError, match="meta tensors"):  # the library's train: the batches reached meta
        run.train_epoch(memory)
    ns = {"np": np, "torch": torch, "minibatches": library_minibatches, "train_step": library_train_step}
    exec(TRAIN.replace(", device=device)", ")"), ns)  # the same train, its tensors left on the CPU
    cpu_run = copy.copy(run)
    cpu_run.yours = {"train": ns["train"]}
    with pytest.raises(RuntimeError, match=r"your train \(notebook 5\) gave the network on meta its batches on"):
        cpu_run.train_epoch(memory)
    # a real GPU words it otherwise (seen on an H200 with torch 2.11: a convolution's message has no "device")
    cuda_words = ("Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same or input "
                  "should be a MKLDNN tensor and weight is a dense tensor")  # fmt: skip

    def cuda_train(*args):
        raise RuntimeError(cuda_words)

    cpu_run.yours = {"train": cuda_train}
    with pytest.raises(RuntimeError, match=r"your train \(notebook 5\) gave the network on meta its batches on"):
        cpu_run.train_epoch(memory)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="device 'cuda' was asked for, but torch sees no CUDA GPU"):
            Capstone(load_pieces(quiet=True), CapstoneSettings(**{**small(True).__dict__, "device": "cuda"}))


def test_the_trained_network_exports_and_plays(home, tmp_path):
    run = Capstone(load_pieces(quiet=True), small(True))
    run.run(minutes=0.0)
    path = run.export(tmp_path / "submission.py", searches=8)
    from alphazero_lib.kaggle import load_submission

    agent = load_submission(str(path))
    board = [0] * 42
    action = agent({"board": board, "mark": 1}, {"rows": 6, "columns": 7, "inarow": 4})
    assert 0 <= action < 7
    probs = run.search(8)(np.zeros((6, 7), dtype=np.int8))
    assert probs.shape == (7,) and abs(probs.sum() - 1) < 1e-9


def test_settings_follow_the_fast_recipe():
    fast = CapstoneSettings().train_config()
    assert (
        fast.search.policy == "gumbel" and fast.search.num_searches == 32 and fast.move_selection == "improved_policy"
    )
    assert fast.value_target_q_weight == 0.5 and fast.opening_moves == 2
    slow = CapstoneSettings(fast=False).train_config()
    assert slow.search.policy == "puct" and slow.search.num_searches == 64 and slow.value_target_q_weight == 0


def test_games_an_iteration_default_to_256_on_a_gpu_and_128_on_a_cpu(monkeypatch):
    """Notebook 10 and benchmarks/capstone.py read the rule from the settings (one place)."""
    assert CapstoneSettings().games() == 128 and CapstoneSettings().train_config().games_per_iteration == 128
    assert CapstoneSettings(games_per_iteration=16, device="cpu").train_config().games_per_iteration == 16
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert CapstoneSettings().games() == 256 and CapstoneSettings(device="cpu").games() == 128


def test_serial_game_seconds_runs(home):
    assert capstone.serial_game_seconds(load_pieces(quiet=True), searches=2) > 0


@pytest.mark.slow
def test_a_solved_notebook_in_a_kernel_keeps_its_code_and_the_next_uses_it(home):
    """The real path: notebook 3 solved in a Jupyter kernel keeps ResBlock and ResNet; the capstone's loader gives
    them back and a forward pass goes through the learner's code (counted, not assumed)."""
    sys.path.insert(0, str(capstone_root() / "tools"))
    import solve_notebooks

    problems, _ = solve_notebooks.run_solved(capstone_root() / "notebooks" / "03_model.ipynb", home=home)
    assert problems == []
    text = (home / "my_alphazero" / "nb03_model.py").read_text()
    assert "class ResNet(nn.Module):" in text and "@add_to_class(ResNet)" in text
    yours = load_pieces(["ResBlock", "ResNet"], quiet=True)
    assert yours.mine == ["ResBlock", "ResNet", "ResNet.forward"]
    network = yours["ResNet"](ConnectFour(), 1, 8)
    logits, value = network(torch.zeros(2, 3, 6, 7))
    assert logits.shape == (2, 7) and value.shape == (2, 1)
    assert yours.counter.per_piece["ResNet.forward"] == 1 and yours.counter.whose["ResNet.forward"] == "yours"
    assert type(network).__mro__[1].__module__ == "my_alphazero.nb03_model"


def capstone_root():
    from pathlib import Path

    return Path(__file__).resolve().parents[1]


# ---- the capstone's run directory ------------------------------------------------------------------------
def same_samples(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        np.array_equal(x[0], y[0]) and np.allclose(x[1], y[1]) and abs(float(x[2]) - float(y[2])) < 1e-6
        for x, y in zip(a, b, strict=True)  # saved as float32
    )


def test_a_run_directory_saves_every_iteration_and_a_new_capstone_continues_it(home, tmp_path):
    """The disconnect a Colab learner meets: the run saved after each iteration comes back whole in a new Capstone
    (network, optimizer, replay window, history), goes on from there, and its files are the library's own
    (``load_model`` reads them, ``find_resume_checkpoint`` finds them)."""
    import json

    from alphazero_lib.checkpoints import load_model
    from alphazero_lib.rundir import find_resume_checkpoint

    run_dir = tmp_path / "run"
    first = Capstone(load_pieces(quiet=True), small(True), run_dir=run_dir)
    assert first.start_note == f"a new run in {shown(run_dir)}"  # relative where it lies beside the working folder
    first.run(minutes=0.0)
    first.run(minutes=0.0)
    names = sorted(p.relative_to(run_dir).as_posix() for p in run_dir.rglob("*") if p.is_file())
    assert names == [
        "checkpoints/iter_0001.pt", "checkpoints/iter_0002.pt", "config.json", "history.json", "latest.pt", "loss.png"
    ]  # fmt: skip
    assert find_resume_checkpoint(run_dir)[0] == run_dir / "latest.pt"
    assert json.loads((run_dir / "history.json").read_text()) == first.history
    assert json.loads((run_dir / "config.json").read_text())["train_config"] == first.config.to_dict()
    library = load_model(run_dir / "latest.pt")
    assert all(torch.equal(v, first.model.state_dict()[k]) for k, v in library.state_dict().items())

    again = Capstone(load_pieces(quiet=True), small(True), run_dir=run_dir)
    assert again.start_note.startswith(f"resuming {shown(run_dir)} after iteration 2 (")
    assert again.history == first.history and again.seconds == first.seconds
    for k, v in first.model.state_dict().items():
        assert torch.equal(v, again.model.state_dict()[k]), k
    saved, restored = first.optimizer.state_dict()["state"], again.optimizer.state_dict()["state"]
    assert saved.keys() == restored.keys() and all(
        torch.equal(saved[i]["exp_avg"], restored[i]["exp_avg"]) for i in saved
    )
    assert len(again.replay) == 2 and all(same_samples(a, b) for a, b in zip(first.replay, again.replay, strict=True))
    (run_dir / "checkpoints" / "iter_0002.pt").unlink()  # as if killed between latest.pt and this file
    again = Capstone(load_pieces(quiet=True), small(True), run_dir=run_dir)
    assert load_model(run_dir / "checkpoints" / "iter_0002.pt").state_dict().keys() == library.state_dict().keys()
    again.run(minutes=0.0)
    assert len(again.history) == 3 and (run_dir / "checkpoints" / "iter_0003.pt").is_file()
    assert again.history[:2] == first.history


def test_a_finished_run_trains_no_more_and_a_changed_setting_is_said_and_recorded(home, tmp_path, capsys):
    import json

    run_dir = tmp_path / "run"
    Capstone(load_pieces(quiet=True), small(True), run_dir=run_dir).run()  # minutes=0: one iteration
    done = Capstone(load_pieces(quiet=True), small(True), run_dir=run_dir)
    assert done.run() == done.history and len(done.history) == 1
    assert re.search(
        r"the run has trained \d+\.\d of its 0 minutes: raise minutes to train on", capsys.readouterr().out
    )
    changed = Capstone(
        load_pieces(quiet=True), CapstoneSettings(**{**small(True).__dict__, "lr": 0.002}), run_dir=run_dir
    )
    assert changed.start_note.endswith("; lr 0.001 -> 0.002")
    assert changed.optimizer.param_groups[0]["lr"] == 0.002
    changed.run(minutes=0.0)
    recorded = json.loads((run_dir / "config.json").read_text())
    assert recorded["changes"] == [{"iteration": 2, "field": "lr", "old": 0.001, "new": 0.002}]
    assert recorded["train_config"]["lr"] == 0.002


def test_a_run_directory_refuses_what_it_cannot_continue(home, tmp_path):
    from alphazero_lib.checkpoints import CheckpointError

    run_dir = tmp_path / "run"
    Capstone(load_pieces(quiet=True), small(True), run_dir=run_dir).run()
    wider = CapstoneSettings(**{**small(True).__dict__, "num_hidden": 16})
    with pytest.raises(ValueError, match=r"set num_hidden to 16, but the network of .* has 8 channels: .* set "
                                         r"num_hidden back to 8, or start a new run"):  # fmt: skip
        Capstone(load_pieces(quiet=True), wider, run_dir=run_dir)
    (run_dir / "latest.pt").write_bytes(b"not a checkpoint")
    for path in (run_dir / "checkpoints").glob("*.pt"):
        path.write_bytes(b"")
    with pytest.raises(ValueError, match="nothing intact to resume"):
        Capstone(load_pieces(quiet=True), small(True), run_dir=run_dir)
    other = tmp_path / "notes"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"has no config\.json"):
        Capstone(load_pieces(quiet=True), small(True), run_dir=other)
    import dataclasses

    from alphazero_lib.rundir import Run
    from alphazero_lib.training import build_trainer

    library_run = tmp_path / "library"  # a run of the library's trainer, of another network: the same rule refuses it
    config = dataclasses.replace(small(True).train_config(), num_iterations=1, num_res_blocks=2)
    build_trainer(ConnectFour(), config, progress=False, run=Run.at(library_run, ConnectFour(), config)).learn()
    with pytest.raises(ValueError, match=r"set num_res_blocks to 1, but the network of .* has 2 residual blocks"):
        Capstone(load_pieces(quiet=True), small(True), run_dir=library_run)
    (library_run / "latest.pt").write_bytes(b"")  # and a damaged file is refused as the library refuses it
    with pytest.raises(CheckpointError, match=r"latest\.pt"):
        Run.at(library_run, ConnectFour(), config).restore(
            build_trainer(ConnectFour(), config).state, library_run / "latest.pt"
        )


# ---- notebook 10's outputs: the stored full run, and the quick run the tests make -----------------------------
NOTEBOOK = capstone_root() / "notebooks" / "10_capstone.ipynb"
SEAT_LINE = re.compile(
    r"^(your agent|submission) vs (negamax|random)\s+(first|second)\s+seat: (\d+)-(\d+)-(\d+) \(W-D-L, (\d+) errors\), "
    r"score (\d\.\d\d) \(95%: (\d\.\d\d)-(\d\.\d\d)\)$",
    re.MULTILINE,
)
PONS_ROW = re.compile(
    r"^(yours alone|yours, \d+ searches|shipped fast, alone)\s+(" + "|".join(SETS) + r")\s+(\d+)\s+(\d+)\s+"
    r"(\d+\.\d)%",
    re.MULTILINE,
)
ITERATION = re.compile(
    r"^iteration (\d+): (\d+) games, \d+ samples, policy loss \d\.\d+, value loss \d\.\d+; network alone: vs negamax:2 "
    r"(\d\.\d\d), errors on Pons' positions \d+\.\d%; (\d+\.\d) min$",
    re.MULTILINE,
)


def cell_with(cells: list[str], marker: str) -> int:
    """The index of the one code cell whose source holds ``marker``."""
    found = [i for i, source in enumerate(cells) if marker in source]
    assert len(found) == 1, f"notebook 10: {len(found)} cells hold {marker!r}"
    return found[0]


def read_outputs(sources: list[str], printed: dict[int, str]) -> dict:
    """What notebook 10 printed, read into figures: the settings, the iterations, the games on each seat, Pons' rows
    (``sources``: every cell's source; ``printed``: cell index -> the text it printed)."""
    text = {name: printed.get(cell_with(sources, marker), "") for name, marker in (
        ("pieces", "yours = load_pieces()"), ("settings", "settings = CapstoneSettings("),
        ("run", "history = run.run("), ("episode", 'env.run([agent, "negamax"])'),
        ("evaluation", 'report("your agent"'), ("pons", "format_table(results)"), ("submission", "run.export("),
    )}  # fmt: skip
    settings = re.fullmatch(
        r"4 x 64 ResNet, 32 gumbel simulations a move, (\d+) games an iteration, ([\d.]+) min, on cpu\n",
        text["settings"],
    )
    assert settings, text["settings"]
    seats = {}
    for name in ("evaluation", "submission"):
        for who, opponent, seat, *counts in SEAT_LINE.findall(text[name]):
            wins, draws, losses, errors = map(int, counts[:4])
            games = wins + draws + losses
            assert errors == 0 and f"{(wins + 0.5 * draws) / games:.2f}" == counts[4], (who, opponent, seat)
            seats[who, opponent, seat] = (wins, draws, losses)
    assert len(seats) == 8, f"four seats' lines for the agent and four for the submission: {sorted(seats)}"
    rows = PONS_ROW.findall(text["pons"])
    assert len(rows) == 3 * len({name for _, name, *_ in rows}), text["pons"]  # three players on every set
    assert all(f"{100 * int(e) / int(n):.1f}" == rate for _, _, n, e, rate in rows), text["pons"]
    iterations = ITERATION.findall(text["run"])
    assert [int(i) for i, *_ in iterations] == list(range(1, len(iterations) + 1)) and iterations, text["run"]
    episode = re.match(r"(\d+) moves; rewards \[(-?1|0), (-?1|0)\] \(yours first\)\n", text["episode"])
    assert episode, text["episode"]
    assert re.fullmatch(r"wrote my_submission\.py \(\d+ kB\)", text["submission"].splitlines()[0])
    return {
        "games": int(settings[1]), "minutes": float(settings[2]), "text": text, "seats": seats,
        "pons": {(player, name): int(errors) for player, name, _, errors, _ in rows},
        "positions": {int(n) for _, _, n, _, _ in rows}, "iterations": iterations,
    }  # fmt: skip


def games_a_seat(outputs: dict) -> dict[tuple[str, str], int]:
    return {(who, opponent): sum(counts) for (who, opponent, _), counts in outputs["seats"].items()}


def test_the_submission_searches_like_the_agent_it_is_read_beside():
    """The agent (sections 3-5) and the submission file (section 6) search with the same number of simulations, so
    their games can be read side by side (the standalone agent's PUCT is the library's: C 2, no noise)."""
    import nbformat

    sources = [c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells]
    assert "agent = run.agent(SEARCHES)" in sources[cell_with(sources, 'env.run([agent, "negamax"])')]
    assert 'run.export("my_submission.py", searches=SEARCHES)' in sources[cell_with(sources, "run.export(")]


@pytest.mark.slow
def test_the_quick_run_prints_what_the_stored_full_run_shows(home, tmp_path, fake_ort, monkeypatch):
    """nbval ignores the run's cells (the stored outputs are the full run's): here the notebook runs as the tests run
    it (quick, no my_alphazero/) and every ignored cell's content is read: the settings, each iteration, the games on
    both seats (every one counted, scores that add up), Pons' rows on all six sets (the solver's judgement of the
    agent's games, or how to install it), the submission written and played, and the
    agent's web page beside it (onnxruntime-web's files stood in for; without the onnx extra, what to install)."""
    import importlib.util

    from tests.notebook_runner import NotebookRun

    assert __import__("os").environ.get("ALPHAZERO_CAPSTONE_QUICK") == "1"
    monkeypatch.setenv("ALPHAZERO_ORT_WEB", str(fake_ort))
    run = NotebookRun(NOTEBOOK).run(tmp_path)
    sources = [c.source for c in run.notebook.cells]
    outputs = read_outputs(sources, run.printed)
    assert (outputs["games"], outputs["minutes"]) == (16, 0.3)
    assert outputs["text"]["pieces"].startswith("Yours: none.\nThe library's: ConnectFour.get_next_state")
    assert games_a_seat(outputs) == {
        ("your agent", "negamax"): 2, ("your agent", "random"): 2, ("submission", "negamax"): 1,
        ("submission", "random"): 1,
    }  # fmt: skip
    assert outputs["positions"] == {20} and {name for _, name in outputs["pons"]} == set(SETS)
    assert "the solver judged its" in outputs["text"]["pons"] or (
        "the perfect solver is not installed" in outputs["text"]["pons"] and "pip install" in outputs["text"]["pons"]
    )
    assert all(int(games) == 16 for _, games, _, _ in outputs["iterations"])
    assert "calls into the course's pieces: yours 0 (0%)" in outputs["text"]["run"]
    web = run.printed[cell_with(sources, "export_web(")]
    if all(importlib.util.find_spec(m) for m in ("onnx", "onnxscript", "onnxruntime")):
        assert web.startswith("wrote my_agent_web/: serve it with  python -m http.server --directory my_agent_web")
        page = tmp_path / "my_agent_web"
        config = __import__("json").loads((page / "config.json").read_text())
        assert (page / "model.onnx").stat().st_size > 0 and config["searches"] == 20  # the quick run's SEARCHES
    else:
        assert web.startswith("no web page here:") and "pip install" in web, web


def stored_outputs() -> tuple[list[str], dict[int, str], str]:
    """Notebook 10 as committed: its cells' sources, what each code cell printed, and its closing note."""
    import nbformat

    cells = nbformat.read(NOTEBOOK, as_version=4).cells
    printed = {
        i: "".join(o.get("text", "") for o in c.outputs if o.get("output_type") == "stream")
        for i, c in enumerate(cells)
        if c.cell_type == "code"
    }
    closing = next(c.source for c in cells if c.cell_type == "markdown" and c.source.startswith("> ## What you built"))
    return [c.source for c in cells], printed, closing


def test_the_stored_outputs_are_a_full_run_with_every_piece_yours():
    """What a reader sees without running anything: the default settings (20 minutes, 128 games an iteration), every
    piece the learner's, 50 games a seat against negamax and 10 against random, 200 of Pons' positions a set, 10
    games a seat for the submission; and the closing note quotes those same figures and says what the run took."""
    sources, printed, closing = stored_outputs()
    outputs = read_outputs(sources, printed)
    assert (outputs["games"], outputs["minutes"]) == (128, 20.0)
    assert printed[cell_with(sources, 'print("quick run')] == "full run\n"
    pieces = outputs["text"]["pieces"]
    assert pieces.startswith("Yours: ConnectFour.get_next_state") and pieces.endswith("The library's: none.\n")
    assert games_a_seat(outputs) == {
        ("your agent", "negamax"): 50, ("your agent", "random"): 10, ("submission", "negamax"): 10,
        ("submission", "random"): 10,
    }  # fmt: skip
    assert outputs["positions"] == {200}
    iterations = outputs["iterations"]
    assert all(int(games) == 128 for _, games, _, _ in iterations)
    # the whole budget spent (its minutes count the measurements between iterations too; the lines' do not)
    assert f"time budget of 1200 s spent after iteration {len(iterations)}" in outputs["text"]["run"]
    assert "calls into the course's pieces:" in outputs["text"]["run"] and "(100%)" in outputs["text"]["run"]

    def record(who: str, opponent: str, seat: str) -> str:
        return "-".join(map(str, outputs["seats"][who, opponent, seat]))

    quoted = {
        f"trained {len(iterations)} iterations",
        f"{record('your agent', 'negamax', 'first')} moving first and {record('your agent', 'negamax', 'second')} "
        "moving second",
        f"{record('submission', 'negamax', 'first')} and {record('submission', 'negamax', 'second')} against `negamax`",
    }
    one_line = " ".join(closing.split())
    assert all(q in one_line for q in quoted), (sorted(q for q in quoted if q not in one_line), one_line)
    for (player, name), errors in outputs["pons"].items():
        if player != "shipped fast, alone" and name == "middle_medium":
            assert f"{100 * errors / 200:.1f}%" in one_line, (player, name)
    assert re.search(r"took \d+ minutes", one_line) and "AMD EPYC" in one_line


def test_the_start_note_names_the_run_folder_without_a_tools_folder(tmp_path, monkeypatch):
    """A stored output names no machine's or tool's folders (a stored run once printed
    ``../runs/capstone_home/capstone_run``): a run in the folder that holds ``my_alphazero/`` (``RUN_DIR``'s default)
    is named there, and where that is said in words, wherever the notebook runs from; a run beside the working
    folder by its relative path; one elsewhere in full, so the learner can find it."""
    from alphazero_lib.course import mine

    tool_home = tmp_path / "runs" / "capstone_home"  # where tools/solve_notebooks.py --home keeps the learner's files
    (tmp_path / "notebooks").mkdir()
    tool_home.mkdir(parents=True)
    monkeypatch.setenv(mine.HOME_VARIABLE, str(tool_home))
    monkeypatch.chdir(tmp_path / "notebooks")
    try:
        kept = Capstone(load_pieces(quiet=True), small(True), run_dir=tool_home / "capstone_run")
        assert kept.start_note == "a new run in capstone_run (beside your my_alphazero/)"
        assert "runs/capstone_home" not in kept.start_note and "../" not in kept.start_note
        elsewhere = Capstone(load_pieces(quiet=True), small(True), run_dir=tmp_path / "elsewhere")
        assert elsewhere.start_note == "a new run in ../elsewhere"
        assert capstone.shown(Path("/")) == "/"
    finally:
        for name in [m for m in sys.modules if m == mine.PACKAGE or m.startswith(mine.PACKAGE + ".")]:
            del sys.modules[name]


def test_the_budget_note_estimates_the_iterations_and_warns_on_a_busy_machine():
    """The quiet run's pace (a minute an iteration of 128 games at 32 searches) scaled by the work an iteration and
    by the share of the cores the run gets, ``cores / (load + 1)``; a warning only above a load of one a core."""
    quiet = capstone.budget_note(20, 128, 32, load=0.3, cores=2)
    assert quiet.startswith("about 20 iterations fit in 20 minutes here: an estimate, not a measurement,")
    assert "load average, 0.3 over the last minute on 2 cores" in quiet and "busy" not in quiet
    busy = capstone.budget_note(20, 128, 32, load=9.0, cores=2)  # the stored busy run: it trained 4
    assert busy.startswith("about 4 iterations fit in 20 minutes")
    assert busy.splitlines()[1] == (
        "this machine is busy (load average 9.0 on 2 cores): fewer iterations fit in the budget, and the figures will "
        "be weaker than a quiet machine's"
    )
    assert "busy" not in capstone.budget_note(20, 128, 32, load=2.0, cores=2)  # a load of one a core: not yet
    assert capstone.budget_note(20, 256, 32, load=0.0, cores=16).startswith("about 10 iterations")  # twice the work
    assert capstone.budget_note(20, 128, 64, load=3.0, cores=2).startswith("about 5 iterations")  # half the cores
    assert capstone.budget_note(0.3, 128, 32, load=0.0, cores=2).startswith("about 1 iteration fits")
    unknown = capstone.budget_note(20, 128, 32, load=None, cores=2)
    assert unknown.startswith("about 20 iterations") and "no load average, so it assumes a quiet machine" in unknown
    assert "a CPU's estimate" in capstone.budget_note(20, 256, 32, load=0.0, cores=2, on_gpu=True)


def test_the_start_note_says_what_fits_in_the_minutes_left(home, tmp_path, monkeypatch):
    monkeypatch.setattr(capstone, "machine_load", lambda: 9.0)
    monkeypatch.setattr(capstone, "cpu_cores", lambda: 2)
    settings = CapstoneSettings(**{**small(True).__dict__, "minutes": 20.0})
    where, fits = Capstone(load_pieces(quiet=True), settings, run_dir=tmp_path / "run").start_note.split("\n", 1)
    assert where == "a new run in run (beside your my_alphazero/)" and fits == capstone.budget_note(20, 4, 4, 9.0, 2)
    assert fits.splitlines()[1].startswith("this machine is busy")


def test_the_settings_not_given_are_the_fast_presets(monkeypatch):
    """A change of the ``connect_four_fast`` preset reaches the capstone (its settings are written once)."""
    from alphazero_lib.config import PRESETS

    changed = {"lr": 0.003, "num_hidden": 32, "replay_window": 4, "num_epochs": 2, "games_per_iteration": 64}
    monkeypatch.setitem(PRESETS, "connect_four_fast", {**PRESETS["connect_four_fast"], **changed})
    settings = CapstoneSettings(device="cpu")
    assert (settings.lr, settings.num_hidden, settings.replay_window, settings.epochs, settings.games()) == (
        0.003, 32, 4, 2, 64
    )  # fmt: skip
    config = settings.train_config()
    assert (config.lr, config.num_hidden, config.replay_window, config.num_epochs) == (0.003, 32, 4, 2)
    assert CapstoneSettings(lr=0.01, num_hidden=16).train_config().lr == 0.01
    assert CapstoneSettings(fast=False).train_config().batch_size == PRESETS["connect_four_fast"]["batch_size"]


def test_each_iteration_counts_the_games_it_trains_on(home):
    """The batched self-play ends several games in one step, and those an iteration does not take wait for the next:
    each iteration counts the games whose samples it took, no more (the stored run prints these counts)."""
    settings = CapstoneSettings(**{**small(True).__dict__, "games_per_iteration": 16})  # several end together here
    run = Capstone(load_pieces(quiet=True), settings)
    for _ in range(4):
        run.run(minutes=0.0)
    counts = [(r["games"], r["first_player_wins"] + r["draws"] + r["second_player_wins"]) for r in run.history]
    assert counts == [(16, 16)] * 4, counts


def test_the_live_curve_of_errors_on_pons_positions_tells_a_trained_network_from_a_fresh_one():
    """The live figure's second measure of the network alone (``pons_error_rate``): the shipped fast network errs
    on far fewer of the six sets' positions than a fresh one."""
    from alphazero_lib.capstone import pons_error_rate
    from alphazero_lib.pretrained import load_pretrained

    torch.manual_seed(0)
    fresh = pons_error_rate(ResNet(ConnectFour(), 1, 8).eval(), positions=50)
    trained = pons_error_rate(load_pretrained("connect_four_fast"), positions=50)
    assert trained < 0.25 and fresh > trained + 0.1, (trained, fresh)
