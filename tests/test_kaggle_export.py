"""The one-file ConnectX submission: numpy forward pass, the file itself, and play in kaggle-environments."""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch

from alphazero_lib import make_game
from alphazero_lib.kaggle import agent as standalone
from alphazero_lib.kaggle import export_submission, numpy_params
from alphazero_lib.kaggle.agent import NumpyResNet
from alphazero_lib.model import ResNet


def random_resnet(game, blocks=2, hidden=16, seed=0) -> ResNet:
    """A ResNet with random weights and random BatchNorm statistics (so folding is really exercised)."""
    torch.manual_seed(seed)
    model = ResNet(game, blocks, hidden)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.3, 0.3)
    return model.eval()


@pytest.mark.parametrize("options", [{}, {"rows": 5, "columns": 8, "in_a_row": 5}])
def test_numpy_forward_matches_torch(options):
    game = make_game("connect_four", **options)
    model = random_resnet(game, blocks=3, hidden=32)
    states = np.random.default_rng(0).integers(-1, 2, size=(32, game.row_count, game.column_count))
    encoded = game.get_encoded_state(states)
    with torch.no_grad():
        logits, value = model(torch.from_numpy(encoded))
    np_logits, np_value = NumpyResNet(numpy_params(model), num_res_blocks=3)(encoded)
    np.testing.assert_allclose(np_logits, logits.numpy(), atol=1e-4)
    np.testing.assert_allclose(np_value, value.numpy()[:, 0], atol=1e-4)


def load_submission(path) -> dict:
    """Execute the file the way kaggle-environments does; return its namespace."""
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def submission(tmp_path_factory):
    game = make_game("connect_four")
    path = export_submission(random_resnet(game), tmp_path_factory.mktemp("sub") / "submission.py", num_searches=50)
    return path


def test_submission_is_one_numpy_file_whose_last_callable_is_the_agent(submission):
    text = submission.read_text()
    assert "import torch" not in text and "alphazero_lib" not in text.split("# ---- generated")[0].split('"""', 2)[2]
    namespace = load_submission(submission)
    last = [v for v in namespace.values() if callable(v)][-1]
    assert last.__name__ == "agent"


def live_positions(count: int, min_full_columns: int, seed: int) -> list[tuple[np.ndarray, int]]:
    """``count`` positions ``(state, player to move)`` from random Connect Four playouts, each still in play and
    with at least ``min_full_columns`` full columns."""
    game = make_game("connect_four")
    rng = np.random.default_rng(seed)
    positions: list[tuple[np.ndarray, int]] = []
    while len(positions) < count:
        state, player = game.get_initial_state(), 1
        for _ in range(int(rng.integers(0, 40))):
            action = int(rng.choice(game.legal_actions(state)))
            state = game.get_next_state(state, action, player)
            player = -player
            if game.get_value_and_terminated(state, action)[1]:
                break
        else:
            if int((state[0] != 0).sum()) >= min_full_columns:
                positions.append((state, player))
    return positions


def test_submission_plays_legal_moves_and_takes_a_win(submission):
    agent = load_submission(submission)["agent"]
    config = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2}
    game = make_game("connect_four")
    positions = live_positions(4, 0, seed=1) + live_positions(6, 2, seed=2)
    assert len(positions) == 10 and sum(int((s[0] != 0).sum()) >= 2 for s, _ in positions) >= 6
    for state, player in positions:  # every sampled position is asked: the answer is always a legal column
        board = np.where(state == 1, 1, np.where(state == -1, 2, 0)).reshape(-1).tolist()
        mark = 1 if player == 1 else 2
        assert game.get_valid_moves(state)[agent({"board": board, "mark": mark}, config)], state
    # mark 2 has three in column 6 and wins there, whatever the (random) network thinks
    board = np.zeros((6, 7), dtype=int)
    board[3:, 6] = 2
    board[5, 0:3] = 1
    assert agent({"board": board.reshape(-1).tolist(), "mark": 2}, config) == 6


def test_submission_searches_legal_columns_only(submission):
    """With full columns on the board, the root's priors and every visit stay on the open columns."""
    namespace = load_submission(submission)
    searcher = namespace["_AGENT"]
    for state, player in live_positions(5, 2, seed=3):
        canonical = (state * player).astype(np.int8)
        legal = np.flatnonzero(canonical[0] == 0).tolist()
        root = namespace["Node"](canonical, None)
        searcher.expand(root)
        assert sorted(root.priors) == legal and sum(root.priors.values()) == pytest.approx(1.0)
        counts = searcher.search(canonical, deadline=time.perf_counter() + 60)
        assert set(np.flatnonzero(counts).tolist()) <= set(legal)
        assert counts.sum() in (1, searcher.num_searches)  # an immediate win, or every simulation


# ---- the standalone module itself (the submission runs a copy of its source, which mutation testing cannot see) ----
# (its rules and its visit counts against the library's: test_standalone_agent.py)
def module_agent(num_searches: int = 40) -> standalone.Agent:
    game = make_game("connect_four")
    net = standalone.NumpyResNet(numpy_params(random_resnet(game)), num_res_blocks=2)
    return standalone.Agent(net, 6, 7, 4, num_searches=num_searches, C=2.0)


def test_module_agent_searches_open_columns_and_takes_a_win():
    searcher = module_agent()
    config = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2}
    for state, player in live_positions(5, 2, seed=5):
        canonical = (state * player).astype(np.int8)
        legal = np.flatnonzero(canonical[0] == 0).tolist()
        root = standalone.Node(canonical, None)
        value = searcher.expand(root)
        assert sorted(root.priors) == legal and sum(root.priors.values()) == pytest.approx(1.0) and -1 < value < 1
        counts = searcher.search(canonical, deadline=time.perf_counter() + 60)
        assert set(np.flatnonzero(counts).tolist()) <= set(legal)
        assert counts.sum() in (1, searcher.num_searches)
        board = np.where(state == 1, 1, np.where(state == -1, 2, 0)).reshape(-1).tolist()
        assert searcher({"board": board, "mark": 1 if player == 1 else 2}, config) in legal
    board = np.zeros((6, 7), dtype=int)
    board[3:, 6] = 2
    board[5, 0:3] = 1
    flat = board.reshape(-1).tolist()
    assert searcher({"board": flat, "mark": 2}, config) == 6  # its own win
    assert searcher({"board": flat, "mark": 1}, config) == 3  # mark 1 wins first, at column 3
    # a board that is not its own: the centre-most open column, without a search
    assert searcher({"board": [0] * 35, "mark": 1}, {"rows": 5, "columns": 7, "inarow": 4}) == 3
    other = [0] * 35
    other[3] = 1  # a piece in the top row of column 3: that column is full, the nearest open ones are 2 and 4
    assert searcher({"board": other, "mark": 2}, {"rows": 5, "columns": 7, "inarow": 4}) == 2


def test_the_search_starts_no_simulation_that_would_end_past_its_deadline(monkeypatch):
    """Kaggle's move time: a simulation starts only if the slowest one so far still fits (the submission's slowest
    move was 1.012 s against its 1-second budget when the clock was checked only before each simulation)."""
    searcher = module_agent(num_searches=100)
    clock = {"now": 0.0}
    monkeypatch.setattr(standalone.time, "perf_counter", lambda: clock["now"])
    expand = searcher.expand

    def slow_expand(node):  # every network call takes 0.25 s on the fake clock
        clock["now"] += 0.25
        return expand(node)

    monkeypatch.setattr(searcher, "expand", slow_expand)
    state = np.zeros((6, 7), dtype=np.int8)
    counts = searcher.search(state, deadline=1.0)
    assert clock["now"] <= 1.0 and counts.sum() == 3  # the root's evaluation, then three simulations in the second


def test_export_refuses_other_games(tmp_path):
    with pytest.raises(ValueError, match="needs a Connect Four model"):
        export_submission(random_resnet(make_game("tictactoe")), tmp_path / "x.py")


def test_submission_in_kaggle_environments(submission):
    kaggle_environments = pytest.importorskip("kaggle_environments")
    for agents in ([str(submission), "random"], ["random", str(submission)]):
        env = kaggle_environments.make("connectx", debug=True)
        start = time.perf_counter()
        env.run(agents)
        final = env.steps[-1]
        assert all(agent.status == "DONE" for agent in final), [agent.status for agent in final]
        assert time.perf_counter() - start < 120


def test_export_kaggle_out_a_directory(tmp_path, one_line_error):
    err = one_line_error(["export-kaggle", "--weights", "connect_four", "--out", str(tmp_path)])
    assert "is a directory; give the submission a file name" in err
