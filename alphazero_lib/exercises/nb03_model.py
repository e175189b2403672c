"""Checks for notebook 03 (the model): the encoding, ResBlock, ResNet's layers and forward, and a prediction.

Each ``check_*`` compares the learner's code with the library's (``Game.get_encoded_state``, ``alphazero_lib.model``,
``alphazero_lib.inference``) on seeded cases; ``draw_network`` draws the network for the notebook's diagram.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import torch
from torch import nn

from alphazero_lib.exercises import core
from alphazero_lib.exercises.core import Case, Mismatch, Mistake, board, check, check_method, hints_for, miss, same
from alphazero_lib.exercises.positions import random_positions
from alphazero_lib.games import ConnectFour, TicTacToe
from alphazero_lib.inference import evaluate, masked_softmax
from alphazero_lib.model import ResBlock as LibraryResBlock
from alphazero_lib.model import ResNet as LibraryResNet

CLOSE = partial(same, tol=1e-5)  # float32 networks: the same arithmetic in another order differs in the last bits

HINTS = {
    "encode": "compare the state with -1, 0 and 1 (three boolean arrays), np.stack them on axis=-3 (that works for "
    "one state and for a batch) and .astype(np.float32).",
    "resblock": "__init__: conv1, bn1, conv2, bn2 (Conv2d(num_hidden, num_hidden, kernel_size=3, padding=1) and "
    "BatchNorm2d(num_hidden)); forward: keep x as the residual, relu(bn1(conv1(x))), bn2(conv2(...)), add the "
    "residual, relu.",
    "resnet_layers": "start_block = Sequential(Conv2d(3, num_hidden, 3, padding=1), BatchNorm2d, ReLU); back_bone = "
    "nn.ModuleList of num_res_blocks ResBlocks; the heads: Conv2d to 32 (policy) or 3 (value) channels with "
    "padding=1, BatchNorm2d, ReLU, Flatten, Linear(channels * cells, action_size or 1), and Tanh for the value.",
    "resnet_forward": "x = self.start_block(x); for block in self.back_bone: x = block(x); return "
    "self.policy_head(x), self.value_head(x) (the logits, no softmax).",
    "predict": "model.eval(); x = torch.tensor(encode(state)).unsqueeze(0); under torch.no_grad() run the model; "
    "softmax the logits over dim 1, squeeze the batch axis, .numpy(); zero the illegal moves and divide by the sum; "
    "the value as value.item().",
}
hint, solution = hints_for(HINTS, "03_model.ipynb")


def random_states(game: Any, count: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``count`` absolute positions of ``game`` cut anywhere in a random game (``positions.random_positions``)."""
    return random_positions(game, count, rng, game.row_count * game.column_count, canonical=False)


def _numpy(outputs: Any) -> Any:
    if isinstance(outputs, torch.Tensor):
        return outputs.detach().cpu().numpy()
    return tuple(_numpy(o) for o in outputs) if isinstance(outputs, (tuple, list)) else outputs


# ---- exercise 1: the encoding -------------------------------------------------------------------------------
ORDER = "the planes' order is opponent (-1), empty (0), own (1)"
BATCH = "a batch (B, R, C) gives (B, 3, R, C): stack the planes on axis -3 (before the board's two axes), not axis 0"
PLANES_FIRST = (
    "the planes come before the board's axes: (3, R, C), not (R, C, 3) (stack on axis -3, or np.moveaxis(..., -1, -3))"
)


def library_encode(state: np.ndarray) -> np.ndarray:
    """The library's encoding (``Game.get_encoded_state``) of a Tic-Tac-Toe or Connect Four state ``(R, C)`` or
    batch ``(B, R, C)``, the game chosen by the board's shape."""
    state = np.asarray(state)
    return (ConnectFour() if state.shape[-2:] == (6, 7) else TicTacToe()).get_encoded_state(state)


def check_encode(encode: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """``encode(state)``: ``(R, C) -> (3, R, C)`` and ``(B, R, C) -> (B, 3, R, C)`` float32, planes opponent/empty/own,
    on single states and batches; the input must not change."""

    def cases() -> list[Case]:
        rng = np.random.default_rng(3)
        states = [
            state
            for game in (TicTacToe(), ConnectFour())
            for state in [game.get_initial_state(), *random_states(game, 6, rng)]
        ]
        states += [np.stack(random_states(TicTacToe(), size, rng)) for size in (1, 2, 5)]
        states += [np.stack(random_states(ConnectFour(), 3, rng))]
        return [_encode_case(state) for state in states]

    return check("encode", encode, library_encode, cases, ENCODE_MISTAKES)


ENCODE_MISTAKES = [  # the library's encoding with one change
    Mistake(ORDER, lambda state: library_encode(-np.asarray(state))),  # own, empty, opponent
    Mistake(ORDER, lambda state: np.roll(library_encode(state), -1, axis=-3)),  # empty, own, opponent
    Mistake(BATCH, lambda state: np.moveaxis(library_encode(state), -3, 0)),
    Mistake(PLANES_FIRST, lambda state: np.moveaxis(library_encode(state), -3, -1)),
]


def _encode_case(state: np.ndarray) -> Case:
    expected = library_encode(state)

    def run(encode: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        changed = miss("the state changed", "the state untouched", "build new arrays; do not write into the state.")
        got = core.on_copies(encode, state, changed=changed)
        if not isinstance(got, np.ndarray):
            raise Mismatch(got, expected, "return a numpy array (np.stack(...)); the cells below give it to torch.")
        if got.shape != expected.shape:
            raise Mismatch(got, expected, PLANES_FIRST if state.ndim == 2 else BATCH)
        if got.dtype != np.float32:
            raise miss(f"dtype {got.dtype}", "dtype float32", "torch's layers want float32: .astype(np.float32).")
        return got

    call = f"encode(np.array({board(state)}))" if state.ndim == 2 else f"encode(batch of {len(state)} states)"
    return Case(call, run, expected, ORDER)


# ---- helpers for the network checks --------------------------------------------------------------------------
def randomize(module: nn.Module, seed: int) -> nn.Module:
    """Give every weight and BatchNorm running statistic seeded random values (so a wrong wiring shows)."""
    generator = torch.Generator().manual_seed(seed)

    def draw(tensor: torch.Tensor, scale: float, shift: float = 0.0) -> None:
        tensor.copy_(torch.randn(tensor.shape, generator=generator) * scale + shift)

    with torch.no_grad():
        for layer in module.modules():
            if isinstance(layer, nn.BatchNorm2d):
                draw(layer.weight, 0.2, 1.0)
                draw(layer.bias, 0.2)
                draw(layer.running_mean, 0.3)
                layer.running_var.copy_(torch.rand(layer.running_var.shape, generator=generator) * 2 + 0.5)
            elif isinstance(layer, (nn.Conv2d, nn.Linear)):
                draw(layer.weight, 0.1)
                draw(layer.bias, 0.1)
    return module


SHAPE_HINTS = {  # a wrongly shaped Linear (2 axes), a wrongly shaped convolution or BatchNorm
    True: "a head's Linear takes channels * rows * columns of THIS game (game.row_count * game.column_count) and "
    "gives game.action_size logits (policy) or 1 value",
    False: "Conv2d(in_channels, out_channels, kernel_size=3, padding=1); the heads have 32 (policy) and 3 (value) "
    "channels",
}


def compare_shapes(got: nn.Module, expected: nn.Module, what: str) -> None:
    """Raise ``Mismatch`` naming the first missing, extra or wrongly shaped entry of the state dict."""
    mine, theirs = ({n: tuple(t.shape) for n, t in m.state_dict().items()} for m in (got, expected))
    missing, extra = [n for n in theirs if n not in mine], [n for n in mine if n not in theirs]
    if missing:
        raise miss(
            f"no {missing[0]!r} in your {what}'s state_dict",
            f"{missing[0]} of shape {theirs[missing[0]]}",
            "use exactly the library's attribute names and layer order (a Sequential numbers its layers 0, 1, ...).",
        )
    if extra:
        raise miss(
            f"an extra {extra[0]!r} of shape {mine[extra[0]]}",
            f"only {sorted(theirs)[:3]}...",
            "only the library's layers: convolutions with bias, BatchNorm2d, Linear.",
        )
    for name, shape in theirs.items():
        if mine[name] != shape:
            raise miss(f"{name} of shape {mine[name]}", f"shape {shape}", SHAPE_HINTS[len(shape) == 2])


# ---- exercise 2: ResBlock -------------------------------------------------------------------------------------
BLOCK_CASES = [(4, 1, 3, 3, "eval"), (8, 4, 3, 3, "eval"), (16, 2, 6, 7, "eval"), (8, 4, 3, 3, "train")]


def check_resblock(learner: type) -> type:
    """``ResBlock(num_hidden)``: the library's names and shapes, and its output (within ``1e-5``, eval and train)
    with the library block's random state dict loaded strictly."""

    def cases() -> list[Case]:
        out = []
        for number, (hidden, batch, rows, cols, mode) in enumerate(BLOCK_CASES):
            library = randomize(LibraryResBlock(hidden), seed=10 + number)
            x = torch.randn(batch, hidden, rows, cols, generator=torch.Generator().manual_seed(20 + number))
            out.append(
                Case(
                    f"ResBlock({hidden}).{mode}()(x of shape {tuple(x.shape)})",
                    partial(_run_block, hidden=hidden, library=library, x=x, mode=mode),
                    _numpy(getattr(copy.deepcopy(library), mode)()(x)),
                    HINTS["resblock"],
                    CLOSE,
                )
            )
        return out

    return check("ResBlock", learner, LibraryResBlock, cases, RESBLOCK_MISTAKES, own=["__init__", "forward"])


def _block(kind: str) -> type:
    """The library's ResBlock with one known mistake in its forward."""

    def forward(self: Any, x: torch.Tensor) -> torch.Tensor:
        h = self.bn1(self.conv1(x))
        h = self.bn2(self.conv2(h if kind == "no first relu" else torch.relu(h)))
        if kind == "relu before sum":
            return torch.relu(h) + x
        return torch.relu(h) if kind == "no skip" else h + x if kind == "no last relu" else torch.relu(h + x)

    return type("ResBlock", (LibraryResBlock,), {"forward": forward})


def _unpadded(cls: type, *convolutions: str) -> type:
    """The library's ``cls`` without padding in ``convolutions`` (a known mistake: a 3x3 kernel shrinks the board)."""

    def __init__(self: Any, *args: Any) -> None:
        cls.__init__(self, *args)
        for name in convolutions:
            self.get_submodule(name).padding = (0, 0)

    return type(cls.__name__, (cls,), {"__init__": __init__})


RESBLOCK_MISTAKES = [
    Mistake("the last ReLU comes AFTER adding the block's input: relu(bn2(conv2(...)) + x)", _block("relu before sum")),
    Mistake("add the block's input (the skip connection) before the last ReLU", _block("no skip")),
    Mistake("the sum goes through a ReLU: return relu(x + residual)", _block("no last relu")),
    Mistake("a ReLU between the two convolutions: relu(bn1(conv1(x)))", _block("no first relu")),
    Mistake(
        "padding=1 in both convolutions: a 3x3 kernel without padding shrinks the board, and the sum with the "
        "block's input needs the same size",
        _unpadded(LibraryResBlock, "conv1", "conv2"),
    ),
]


def _run_block(cls: type, hidden: int, library: nn.Module, x: torch.Tensor, mode: str) -> np.ndarray:
    block = cls(hidden)
    compare_shapes(block, library, "ResBlock")
    block.load_state_dict(library.state_dict(), strict=True)
    getattr(block, mode)()
    with torch.no_grad():
        return _numpy(block(x.clone()))


# ---- exercise 3: ResNet's layers -----------------------------------------------------------------------------
ARCHS = [(TicTacToe(), 4, 64), (TicTacToe(), 1, 8), (ConnectFour(), 2, 16)]


def check_resnet_layers(learner: type) -> type:
    """``ResNet(game, num_res_blocks, num_hidden).__init__``: the library's parts, names, shapes and layer types,
    each part's output on the library's input for it. Falls back to a fresh subclass of the library's ``ResNet``
    (so a later ``@add_to_class(ResNet)`` never changes the library's class)."""
    fallback = type("ResNet", (LibraryResNet,), {"__doc__": LibraryResNet.__doc__})

    def cases() -> list[Case]:
        out = []
        for number, (game, blocks, hidden) in enumerate(ARCHS):
            library = randomize(LibraryResNet(game, blocks, hidden), seed=50 + number).eval()
            x = torch.rand(2, 3, game.row_count, game.column_count, generator=torch.Generator().manual_seed(number))
            out.append(
                Case(
                    f"ResNet({type(game).__name__}(), num_res_blocks={blocks}, num_hidden={hidden}), each "
                    f"part on x of shape {tuple(x.shape)}",
                    partial(_run_layers, game=game, blocks=blocks, hidden=hidden, library=library, x=x),
                    _parts(library, x),
                    HINTS["resnet_layers"],
                    CLOSE,
                )
            )
        return out

    return check("ResNet layers", learner, fallback, cases, LAYER_MISTAKES, own=["__init__"])


def _parts(net: nn.Module, x: torch.Tensor, inputs: tuple[np.ndarray, ...] | None = None) -> tuple[np.ndarray, ...]:
    """Each part's output on ``x`` (eval mode): start block, every residual block, policy head, value head; given
    ``inputs`` (the library's parts), each part runs on the library's input for it, so a wrong part shows alone."""
    with torch.no_grad():
        outputs = [net.start_block(x.clone())]
        for i, block in enumerate(net.back_bone):
            outputs.append(block(outputs[-1] if inputs is None else torch.from_numpy(inputs[i])))
        h = outputs[-1] if inputs is None else torch.from_numpy(inputs[len(net.back_bone)])
        outputs += [net.policy_head(h), net.value_head(h)]
    return tuple(o.numpy() for o in outputs)


def _run_layers(cls: type, game: Any, blocks: int, hidden: int, library: nn.Module, x: torch.Tensor) -> Any:
    net = cls(game, blocks, hidden)
    compare_shapes(net, library, "ResNet")
    if not isinstance(getattr(net, "back_bone", None), nn.ModuleList):
        raise miss(type(net.back_bone).__name__, "nn.ModuleList", "back_bone = nn.ModuleList([...]).")
    for part in ("start_block", "policy_head", "value_head"):
        mine, theirs = ([type(m).__name__ for m in getattr(n, part).children()] for n in (net, library))
        if mine != theirs:
            raise miss(
                f"{part}: {mine}",
                f"{part}: {theirs}",
                "the heads end in Flatten then Linear; the value head ends with Tanh (a value in [-1, 1]).",
            )
    net.load_state_dict(library.state_dict(), strict=True)
    net.eval()
    inputs = _parts(library, x)
    got = _parts(net, x, inputs)
    names = ["start_block"] + [f"back_bone[{i}]" for i in range(len(net.back_bone))] + ["policy_head", "value_head"]
    for name, mine, theirs in zip(names, got, inputs, strict=True):
        if mine.shape != theirs.shape or not CLOSE(mine, theirs):
            hint = "kernel_size=3 with padding=1 keeps the board's size" if mine.shape != theirs.shape else ""
            mean = [f"shape {a.shape}, mean {float(a.mean()):.6g}" for a in (mine, theirs)]
            raise miss(f"{name} gives {mean[0]}", mean[1], f"{name}: {hint or HINTS['resnet_layers']}")
    return got


LAYER_MISTAKES = [
    Mistake(
        "padding=1 in the start block's convolution: without it a 3x3 kernel shrinks the board",
        _unpadded(LibraryResNet, "start_block.0"),
    ),
    Mistake(
        "padding=1 in the heads' convolutions too: kernel_size=3, padding=1 keeps the board's size",
        _unpadded(LibraryResNet, "policy_head.0", "value_head.0"),
    ),
]


# ---- exercise 4: ResNet.forward ------------------------------------------------------------------------------
def check_resnet_forward(learner: type) -> type:
    """``ResNet.forward(x)``: ``[B, 3, R, C] -> (logits [B, A], value [B, 1])`` equal to the library's for the same
    random state dict, in eval mode, within ``1e-5``; the library's forward stands in when it fails."""

    def cases(cls: type) -> list[Case]:
        out = []
        for number, (game, blocks, hidden) in enumerate(ARCHS):
            library = randomize(LibraryResNet(game, blocks, hidden), seed=30 + number).eval()
            for batch in (1, 3):
                shape = (batch, 3, game.row_count, game.column_count)
                x = torch.rand(shape, generator=torch.Generator().manual_seed(batch))
                with torch.no_grad():
                    expected = _numpy(library(x))
                out.append(
                    Case(
                        f"ResNet({type(game).__name__}(), {blocks}, {hidden}).eval()(x of shape {shape})",
                        partial(_run_forward, game=game, blocks=blocks, hidden=hidden, library=library, x=x),
                        expected,
                        HINTS["resnet_forward"],
                        CLOSE,
                    )
                )
        return out

    return check_method(
        learner, "forward", LibraryResNet.forward, cases, name="ResNet.forward", mistakes=FORWARD_MISTAKES
    )


def _forward_with(kind: str) -> Callable[..., Any]:
    def forward(self: Any, x: torch.Tensor) -> Any:
        x = self.start_block(x)
        for block in self.back_bone[:1] if kind == "first block" else [] if kind == "no blocks" else self.back_bone:
            x = block(x)
        if kind == "swapped":
            return self.value_head(x), self.policy_head(x)
        policy = self.policy_head(x)
        return torch.softmax(policy, dim=1) if kind == "softmax" else policy, self.value_head(x)

    return forward


FORWARD_MISTAKES = [
    Mistake(
        "EVERY block of the backbone, in turn: for block in self.back_bone: x = block(x)", _forward_with("first block")
    ),
    Mistake("the features go through the backbone's blocks before the heads", _forward_with("no blocks")),
    Mistake("the order of the pair is (policy logits, value)", _forward_with("swapped")),
    Mistake(
        "return the policy LOGITS (no softmax): the loss and the masking apply their own softmax",
        _forward_with("softmax"),
    ),
]


def _run_forward(cls: type, game: Any, blocks: int, hidden: int, library: nn.Module, x: torch.Tensor) -> Any:
    net = cls(game, blocks, hidden)
    net.load_state_dict(library.state_dict(), strict=True)
    net.eval()
    with torch.no_grad():
        got = net(x.clone())
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Mismatch(got, "(policy logits, value)", "return a pair: policy_head(x), value_head(x).")
    if not all(isinstance(t, torch.Tensor) for t in got):
        raise Mismatch(
            tuple(type(t).__name__ for t in got),
            ("Tensor", "Tensor"),
            "return torch tensors (training computes losses and gradients from them), not numpy arrays",
        )
    return _numpy(tuple(got))


# ---- exercise 5: one prediction ------------------------------------------------------------------------------
def library_predict(model: nn.Module, game: Any, state: np.ndarray) -> tuple[np.ndarray, float]:
    """The library's answer: legal-move probabilities ``[A]`` and the value for the mover of a canonical state."""
    logits, values = evaluate(model, game.get_encoded_state(state)[None])
    return np.asarray(masked_softmax(logits[0], game.get_valid_moves(state)), dtype=np.float64), float(values[0])


def check_predict(predict: Callable[..., Any]) -> Callable[..., Any]:
    """``predict(model, game, state) -> (policy [A], value)``: eval mode, no gradients, softmax over legal moves, on
    seeded random networks handed over in training mode (so forgetting ``eval()`` shows)."""

    def cases() -> list[Case]:
        rng = np.random.default_rng(5)
        out = []
        for number, game in enumerate((TicTacToe(), TicTacToe(), ConnectFour())):
            model = randomize(LibraryResNet(game, 1, 8), seed=40 + number)
            for state in [game.get_initial_state(), *random_states(game, 3, rng)]:
                if game.get_valid_moves(state).any():
                    out.append(
                        Case(
                            f"predict(model, {type(game).__name__}(), np.array({board(state)}))",
                            partial(_run_predict, model=model, game=game, state=state),
                            library_predict(copy.deepcopy(model), game, state),
                            HINTS["predict"],
                            CLOSE,
                        )
                    )
        return out

    return check("predict", predict, library_predict, cases, PREDICT_MISTAKES)


def _predict_with(kind: str) -> Callable[..., Any]:
    def predict(model: nn.Module, game: Any, state: np.ndarray) -> Any:
        if kind != "no eval":
            model.eval()
        with torch.no_grad():
            logits, value = model(torch.tensor(game.get_encoded_state(state)).unsqueeze(0))
        policy = torch.softmax(logits, dim=0 if kind == "softmax over the batch" else 1).squeeze(0).numpy()
        if kind != "no mask":
            policy = policy * game.get_valid_moves(state)
            policy = policy if kind == "no renormalise" else policy / policy.sum()
        return policy[None] if kind == "batch axis" else policy, value if kind == "tensor value" else value.item()

    return predict


PREDICT_MISTAKES = [
    Mistake(
        "model.eval() before the forward pass: in training mode BatchNorm normalises with this one "
        "position's statistics instead of the running ones",
        _predict_with("no eval"),
    ),
    Mistake(
        "illegal moves get probability 0: multiply by game.get_valid_moves(state), then renormalise",
        _predict_with("no mask"),
    ),
    Mistake(
        "after zeroing the illegal moves, divide by the sum so the legal ones add up to 1",
        _predict_with("no renormalise"),
    ),
    Mistake(
        "the value as a Python float: value.item() (a tensor does not print with :+.2f)", _predict_with("tensor value")
    ),
    Mistake("drop the batch axis of one: .squeeze(0), shape (action_size,)", _predict_with("batch axis")),
    Mistake(
        "a softmax over the ACTIONS, dim=1 (or -1): over dim 0, the batch axis of one position, every entry "
        "becomes 1, and after the mask the policy is uniform on the legal moves",
        _predict_with("softmax over the batch"),
    ),
]


def _run_predict(predict: Callable[..., Any], model: nn.Module, game: Any, state: np.ndarray) -> Any:
    net = copy.deepcopy(model).train()  # a network straight from training: the learner must switch it
    changed = miss("the state changed", "the state untouched", "encode a copy; do not write into the state.")
    got = core.on_copies(partial(predict, net, game), state, changed=changed)
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Mismatch(got, "(policy, value)", "return the pair (policy as a numpy array [A], value as a float).")
    return tuple(got)


# ---- the network diagram --------------------------------------------------------------------------------------
def network_boxes(model: nn.Module) -> list[tuple[str, str, str]]:
    """The diagram's boxes, input to outputs: ``(column, label, shape)``; column is "trunk", "policy" or "value".

    Reads a ResNet with the course's names (``start_block``, ``back_bone``, ``policy_head``, ``value_head``) and
    its game (``model.game``)."""
    game = model.game
    cells = f"{game.row_count} x {game.column_count}"
    hidden = model.start_block[0].out_channels
    residual = "conv, BN, ReLU, conv, BN, + skip, ReLU"
    return [
        ("trunk", "encoded state", f"3 x {cells}"),
        ("trunk", "start block\nconv 3x3, BN, ReLU", f"{hidden} x {cells}"),
        *[("trunk", f"residual block {i + 1}\n{residual}", f"{hidden} x {cells}") for i in range(len(model.back_bone))],
        ("policy", "policy head\nconv 3x3, BN, ReLU", f"{model.policy_head[0].out_channels} x {cells}"),
        ("policy", "flatten, linear", f"{game.action_size} logits"),
        ("value", "value head\nconv 3x3, BN, ReLU", f"{model.value_head[0].out_channels} x {cells}"),
        ("value", "flatten, linear, tanh", "1 value in [-1, 1]"),
    ]


def draw_network(model: nn.Module, ax: Any = None, title: str | None = None) -> Any:
    """Draw ``model`` (a course ResNet) as boxes and arrows: the trunk, then the two heads side by side."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    boxes = network_boxes(model)
    trunk, head = sum(b[0] == "trunk" for b in boxes), max(sum(b[0] == k for b in boxes) for k in ("policy", "value"))
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.95 * (trunk + head) + 0.5))
    colours = {"trunk": "#dbe9f6", "policy": "#fde0c5", "value": "#d9f0d3"}
    centres = {"trunk": 0.5, "policy": 0.25, "value": 0.75}
    width, box_height = 0.42, 0.62
    last: dict[str, tuple[float, float]] = {}  # the centre of each column's last box; the heads start below the trunk
    for kind, label, shape in boxes:
        above = last.get(kind, last.get("trunk"))
        x, y = centres[kind], float(trunk + head) if above is None else above[1] - 1.0
        ax.add_patch(
            FancyBboxPatch(
                (x - width / 2, y - box_height / 2),
                width,
                box_height,
                boxstyle="round,pad=0.02",
                facecolor=colours[kind],
                edgecolor="#444444",
                linewidth=1.0,
            )
        )
        ax.text(x, y + 0.08, label, ha="center", va="center", fontsize=8)
        ax.text(x, y - 0.22, shape, ha="center", va="center", fontsize=7, color="#555555", style="italic")
        if above is not None:
            ax.add_patch(
                FancyArrowPatch(
                    (above[0], above[1] - box_height / 2),
                    (x, y + box_height / 2),
                    arrowstyle="-|>",
                    mutation_scale=10,
                    color="#444444",
                )
            )
        last[kind] = (x, y)
    ax.set_xlim(0, 1)
    ax.set_ylim(0.5, trunk + head + 0.5)
    ax.axis("off")
    if title:
        ax.set_title(title)
    return ax
