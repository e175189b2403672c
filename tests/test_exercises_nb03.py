"""Notebook 03's checks: the committed stub is "not written yet", the notebook's solution passes, and plausible
wrong versions fail with their first failing case. Also the network diagram helper."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from exercise_support import failing, read_notebook, run_cells, stubs_and_solutions
from torch import nn

from alphazero_lib.exercises import add_to_class
from alphazero_lib.exercises import nb03_model as nb03
from alphazero_lib.games import ConnectFour, TicTacToe
from alphazero_lib.model import ResBlock as LibraryResBlock
from alphazero_lib.model import ResNet as LibraryResNet

matplotlib.use("Agg")
CODE = stubs_and_solutions(read_notebook("03_model.ipynb"))
STUBS = [stub for stub, _ in CODE]
SOLUTIONS = [solution for _, solution in CODE]
ENCODE, RESBLOCK, LAYERS, FORWARD, PREDICT = range(5)


def namespace(upto: int, *sources: str) -> dict:
    """What the notebook has defined before exercise ``upto`` (imports and the earlier solutions), then ``sources``."""
    return run_cells(*SOLUTIONS[:upto], *sources, np=np, torch=torch, nn=nn, F=F, add_to_class=add_to_class)


def run(code: str, upto: int, name: str) -> object:
    return namespace(upto, code)[name]


def test_five_exercises():
    assert len(CODE) == 5


# ---- encode -----------------------------------------------------------------------------------------------
def test_encode_stub_solution_and_wrong(verdict):
    library = nb03.library_encode
    assert nb03.check_encode(run(STUBS[ENCODE], ENCODE, "encode")) is library
    assert verdict().startswith("⏳ encode: not written yet")
    mine = run(SOLUTIONS[ENCODE], ENCODE, "encode")
    assert nb03.check_encode(mine) is mine
    assert verdict().startswith("✅ encode: agrees with the library on 18 cases")

    def swapped(state):  # own and opponent planes swapped
        return np.stack((state == 1, state == 0, state == -1), axis=-3).astype(np.float32)

    assert nb03.check_encode(swapped) is library
    line = verdict()
    failing(line, "encode")
    assert "case 2 of 18, encode(np.array(" in line  # the empty board agrees; the first real position fails

    def batch_on_axis0(state):  # right for one state, (3, B, R, C) for a batch
        return np.stack((state == -1, state == 0, state == 1)).astype(np.float32)

    nb03.check_encode(batch_on_axis0)
    line = verdict()
    failing(line, "encode")
    assert "encode(batch of 1 states)" in line and "axis -3" in line

    def float64(state):
        return np.stack((state == -1, state == 0, state == 1), axis=-3).astype(np.float64)

    nb03.check_encode(float64)
    assert "dtype float32" in verdict()


# ---- ResBlock -----------------------------------------------------------------------------------------------
def test_resblock_stub_solution_and_wrong(verdict):
    assert nb03.check_resblock(run(STUBS[RESBLOCK], RESBLOCK, "ResBlock")) is LibraryResBlock
    assert verdict().startswith("⏳ ResBlock: not written yet")
    mine = run(SOLUTIONS[RESBLOCK], RESBLOCK, "ResBlock")
    assert nb03.check_resblock(mine) is mine
    assert verdict().startswith("✅ ResBlock: agrees with the library on 4 cases")

    relu_before_sum = SOLUTIONS[RESBLOCK].replace("return F.relu(x + residual)", "return F.relu(x) + residual")
    assert relu_before_sum != SOLUTIONS[RESBLOCK]
    assert nb03.check_resblock(run(relu_before_sum, RESBLOCK, "ResBlock")) is LibraryResBlock
    failing(verdict(), "ResBlock")

    no_padding = SOLUTIONS[RESBLOCK].replace("kernel_size=3, padding=1", "kernel_size=3")
    nb03.check_resblock(run(no_padding, RESBLOCK, "ResBlock"))
    line = verdict()
    failing(line, "ResBlock")
    assert "raised RuntimeError" in line  # the sum of a 1x1 map and a 3x3 map

    renamed = SOLUTIONS[RESBLOCK].replace("self.bn1", "self.norm1")
    nb03.check_resblock(run(renamed, RESBLOCK, "ResBlock"))
    assert "no 'bn1.weight'" in verdict()


# ---- ResNet layers -------------------------------------------------------------------------------------------
def test_resnet_layers_stub_solution_and_wrong(verdict):
    fallback = nb03.check_resnet_layers(run(STUBS[LAYERS], LAYERS, "ResNet"))
    assert verdict().startswith("⏳ ResNet layers: not written yet")
    assert issubclass(fallback, LibraryResNet) and fallback is not LibraryResNet  # add_to_class stays off the library
    mine = run(SOLUTIONS[LAYERS], LAYERS, "ResNet")
    assert nb03.check_resnet_layers(mine) is mine
    assert verdict().startswith("✅ ResNet layers: agrees with the library on 3 cases")

    no_tanh = SOLUTIONS[LAYERS].replace("            nn.Tanh(),\n", "")
    nb03.check_resnet_layers(run(no_tanh, LAYERS, "ResNet"))
    line = verdict()
    failing(line, "ResNet layers")
    assert "case 1 of 3, ResNet(TicTacToe(), num_res_blocks=4, num_hidden=64)" in line and "Tanh" in line

    flatten_first = SOLUTIONS[LAYERS].replace("nn.Linear(32 * cells, game.action_size)", "nn.Linear(32 * 9, 9)")
    nb03.check_resnet_layers(run(flatten_first, LAYERS, "ResNet"))
    line = verdict()
    failing(line, "ResNet layers")
    assert "case 3 of 3, ResNet(ConnectFour()" in line  # right for Tic-Tac-Toe only

    a_list = SOLUTIONS[LAYERS].replace("nn.ModuleList([ResBlock", "nn.Sequential(*[ResBlock")
    nb03.check_resnet_layers(run(a_list, LAYERS, "ResNet"))
    assert "nn.ModuleList" in verdict()


# ---- ResNet.forward ------------------------------------------------------------------------------------------
def test_resnet_forward_stub_solution_and_wrong(verdict):
    ns = namespace(FORWARD)
    exec(STUBS[FORWARD], ns)
    cls = nb03.check_resnet_forward(ns["ResNet"])
    assert verdict().startswith("⏳ ResNet.forward: not written yet")
    net = cls(TicTacToe(), 1, 8).eval()
    assert net(torch.zeros(2, 3, 3, 3))[0].shape == (2, 9)  # the library's forward stands in

    ns = namespace(FORWARD)
    exec(SOLUTIONS[FORWARD], ns)
    assert nb03.check_resnet_forward(ns["ResNet"]) is ns["ResNet"]
    assert verdict().startswith("✅ ResNet.forward: agrees with the library on 6 cases")
    assert ns["ResNet"].forward is ns["forward"]

    ns = namespace(FORWARD)
    first_block_only = SOLUTIONS[FORWARD].replace(
        "for block in self.back_bone:\n        x = block(x)", "x = self.back_bone[0](x)"
    )
    exec(first_block_only, ns)
    nb03.check_resnet_forward(ns["ResNet"])
    line = verdict()
    failing(line, "ResNet.forward")
    assert "case 1 of 6, ResNet(TicTacToe(), 4, 64).eval()(x of shape (1, 3, 3, 3))" in line

    ns = namespace(FORWARD)
    exec(
        SOLUTIONS[FORWARD].replace(
            "return self.policy_head(x), self.value_head(x)", "return self.value_head(x), self.policy_head(x)"
        ),
        ns,
    )
    nb03.check_resnet_forward(ns["ResNet"])
    failing(verdict(), "ResNet.forward")


def test_solution_network_loads_the_shipped_weights_strictly():
    from alphazero_lib.pretrained import load_pretrained

    shipped = load_pretrained("tictactoe")
    ns = namespace(PREDICT)
    net = ns["ResNet"](TicTacToe(), **shipped.arch)
    net.load_state_dict(shipped.state_dict(), strict=True)
    x = torch.from_numpy(TicTacToe().get_encoded_state(np.zeros((2, 3, 3), dtype=np.int8)))
    with torch.no_grad():
        for got, expected in zip(net.eval()(x), shipped.eval()(x), strict=True):
            assert torch.allclose(got, expected, atol=1e-6)


# ---- predict ---------------------------------------------------------------------------------------------------
def test_predict_stub_solution_and_wrong(verdict):
    assert nb03.check_predict(run(STUBS[PREDICT], PREDICT, "predict")) is nb03.library_predict
    assert verdict().startswith("⏳ predict: not written yet")
    mine = run(SOLUTIONS[PREDICT], PREDICT, "predict")
    assert nb03.check_predict(mine) is mine
    assert verdict().startswith("✅ predict: agrees with the library on")

    no_eval = SOLUTIONS[PREDICT].replace("    model.eval()\n", "")
    nb03.check_predict(run(no_eval, PREDICT, "predict"))
    line = verdict()
    failing(line, "predict")
    assert "case 1 of" in line and "model.eval()" in line

    no_mask = SOLUTIONS[PREDICT].replace("policy = policy * game.get_valid_moves(state)", "policy = policy * 1")
    nb03.check_predict(run(no_mask, PREDICT, "predict"))
    line = verdict()
    failing(line, "predict")
    assert "case 1 of" not in line  # the empty board has no illegal move: the first occupied one fails

    not_renormalised = SOLUTIONS[PREDICT].replace(
        "return policy / policy.sum(), value.item()", "return policy, value.item()"
    )
    nb03.check_predict(run(not_renormalised, PREDICT, "predict"))
    failing(verdict(), "predict")


def test_check_predict_leaves_the_models_alone():
    model = nb03.randomize(LibraryResNet(TicTacToe(), 1, 8), seed=1).eval()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    state = np.zeros((3, 3), dtype=np.int8)
    mine = run(SOLUTIONS[PREDICT], PREDICT, "predict")
    policy, value = mine(model, TicTacToe(), state)
    expected_policy, expected_value = nb03.library_predict(model, TicTacToe(), state)
    assert np.allclose(policy, expected_policy, atol=1e-6) and abs(value - expected_value) < 1e-6
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


# ---- the diagram ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game, blocks", [(TicTacToe(), 4), (ConnectFour(), 2)])
def test_network_boxes_follow_the_model(game, blocks):
    model = LibraryResNet(game, blocks, 16)
    boxes = nb03.network_boxes(model)
    trunk = [b for b in boxes if b[0] == "trunk"]
    assert len(trunk) == 2 + blocks
    rows, cols = game.row_count, game.column_count
    assert trunk[0][2] == f"3 x {rows} x {cols}" and trunk[-1][2] == f"16 x {rows} x {cols}"
    assert ("policy", "flatten, linear", f"{game.action_size} logits") in boxes
    assert boxes[-1] == ("value", "flatten, linear, tanh", "1 value in [-1, 1]")


def test_draw_network_draws_a_box_per_layer_group():
    import matplotlib.pyplot as plt

    model = LibraryResNet(TicTacToe(), 3, 8)
    ax = nb03.draw_network(model, title="net")
    boxes = nb03.network_boxes(model)
    assert len(ax.patches) == len(boxes) + (len(boxes) - 1)  # one arrow into every box but the input
    assert ax.get_title() == "net"
    assert sum("residual block" in t.get_text() for t in ax.texts) == 3
    plt.close(ax.figure)
