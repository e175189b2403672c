"""Checkpoints: save and load a network with everything needed to trust it (game, architecture, config).

A checkpoint is a plain dict (so ``torch.load(..., weights_only=True)`` can read it) with the keys:

- ``format_version`` (int, ``FORMAT_VERSION``), ``kind`` (``"alphazero_lib checkpoint"``)
- ``game`` (``game.config``: ``{"name": registry name, **options}``) and ``game_repr`` (``repr(game)``)
- ``arch`` (``{"num_res_blocks", "num_hidden"}``) and ``model`` (the ResNet's ``state_dict``)
- optional: ``optimizer`` (its ``state_dict``), ``train_config`` (``TrainConfig.to_dict()``), ``iteration``
  (completed learn iterations), ``history`` (a list of per-iteration dicts), ``best_model`` (the gated best
  network's ``state_dict``, with gating only) and ``replay`` (the replay buffer, in ``latest.pt`` only).
"""

from __future__ import annotations

import dataclasses
import io
import os
import pickle
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from alphazero_lib.config import MAX_ITERATIONS, TrainConfig
from alphazero_lib.games import make_game
from alphazero_lib.games.base import Game
from alphazero_lib.utils import atomic_write_bytes, explain_os_error, resolve_device

FORMAT_VERSION = 1
KIND = "alphazero_lib checkpoint"


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: damaged, another game, another architecture or an unknown format."""


def make_checkpoint(model: torch.nn.Module, game: Game, **extra: Any) -> dict[str, Any]:
    """The checkpoint dict for ``model`` (a ``ResNet``) on ``game``, plus ``extra`` keys (see the module doc)."""
    return {
        "format_version": FORMAT_VERSION,
        "kind": KIND,
        "game": dict(game.config),
        "game_repr": repr(game),
        "arch": dict(model.arch),
        "model": model.state_dict(),
        **extra,
    }


def save_checkpoint(path: str | os.PathLike[str], checkpoint: dict[str, Any]) -> Path:
    """Write ``checkpoint`` atomically (temporary file, then ``os.replace``); returns the path.

    Every tensor is written as a CPU tensor (a GPU run's weights and Adam moments too), so that any machine opens the
    file, also with a plain ``torch.load`` and no ``map_location``; a resume moves them back where the network is."""
    buffer = io.BytesIO()
    torch.save(_on_cpu(checkpoint), buffer)
    atomic_write_bytes(path, buffer.getvalue())
    return Path(path)


def _on_cpu(value: Any) -> Any:
    """``value`` with every tensor in its dicts, lists and tuples moved to the CPU (CPU tensors are kept as is)."""
    if isinstance(value, torch.Tensor):
        return value.cpu()
    if isinstance(value, dict):
        return {key: _on_cpu(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_on_cpu(item) for item in value)
    return value


def load_checkpoint(path: str | os.PathLike[str], map_location: Any = "cpu") -> dict[str, Any]:
    """Read a checkpoint dict with ``weights_only=True``.

    Raises ``FileNotFoundError`` naming the path, and ``CheckpointError`` for a damaged or truncated file,
    one that is not an alphazero_lib checkpoint, or an unknown ``format_version``.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}")
    try:
        with warnings.catch_warnings():  # torch's own (e.g. on a foreign pickle protocol) would reach the user
            warnings.simplefilter("ignore")
            checkpoint = torch.load(path, map_location=map_location, weights_only=True)
    except PermissionError as err:  # not ours to read: not a damaged file
        raise explain_os_error(err, path, "read") from None
    except pickle.UnpicklingError as err:
        raise CheckpointError(
            f"{path} holds objects other than tensors, dicts, lists, strings and numbers{_named_object(err)}, or is "
            f"damaged; refusing to unpickle it: a checkpoint needs nothing else, and unpickling anything else can run "
            f"code hidden in the file"
        ) from None
    except Exception as err:  # zip errors, EOF, ...: torch raises several kinds for a cut-off file
        raise CheckpointError(f"{path} is not a readable torch file (damaged or truncated?): {err}") from None
    if not isinstance(checkpoint, dict) or checkpoint.get("kind") != KIND:
        raise CheckpointError(f"{path} is a torch file but not an alphazero_lib checkpoint (no 'kind': {KIND!r})")
    version = checkpoint.get("format_version")
    if version != FORMAT_VERSION:
        raise CheckpointError(
            f"{path} has checkpoint format version {version!r}; this alphazero_lib reads version {FORMAT_VERSION}"
        )
    check_structure(checkpoint, path)
    return checkpoint


def _named_object(err: Exception) -> str:
    """`` (it names posix.system)`` when torch's refusal names the Python object the file asked for, else ``""``.

    Only that name is kept: torch's message goes on to advise loading the file with ``weights_only=False``, the very
    step that would run what a malicious file hides, and no message of ours passes that advice on."""
    import re

    found = re.search(r"GLOBAL ([\w.]+)", str(err)) or re.search(r"Unsupported global: ([\w.]+)", str(err))
    return f" (it names {found.group(1)})" if found else ""


ARCH_KEYS = ("num_res_blocks", "num_hidden")


def check_structure(checkpoint: dict[str, Any], path: Any = "checkpoint") -> None:
    """Raise ``CheckpointError`` unless the dict has a ``game`` (with a name), ``game_repr``, ``arch`` (exactly
    ``num_res_blocks`` and ``num_hidden``, positive integers) and ``model`` (a dict of tensors)."""
    game = checkpoint.get("game")
    if not isinstance(game, dict) or not isinstance(game.get("name"), str):
        raise CheckpointError(f"{path} is malformed: 'game' must be a dict with a 'name', got {game!r}")
    if not isinstance(checkpoint.get("game_repr"), str):
        raise CheckpointError(f"{path} is malformed: 'game_repr' must be a string, got {checkpoint.get('game_repr')!r}")
    arch = checkpoint.get("arch")
    if not isinstance(arch, dict) or sorted(arch) != sorted(ARCH_KEYS):
        raise CheckpointError(f"{path} is malformed: 'arch' must be a dict with the keys {ARCH_KEYS}, got {arch!r}")
    from alphazero_lib.config import check_limit

    for key in ARCH_KEYS:
        value = arch[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise CheckpointError(f"{path} is malformed: arch[{key!r}] must be a positive integer, got {value!r}")
        try:  # checked before a network of that size is built
            check_limit(f"arch[{key!r}]", key, value)
        except ValueError as err:
            raise CheckpointError(f"{path} records an impossible network: {err}") from None
    for key in ("model", "best_model"):
        if key in checkpoint or key == "model":
            weights = checkpoint.get(key)
            if not isinstance(weights, dict) or not all(isinstance(v, torch.Tensor) for v in weights.values()):
                raise CheckpointError(f"{path} is malformed: {key!r} must be a state_dict (a dict of tensors)")


def check_finite(state_dict: dict[str, Any], path: Any = "checkpoint") -> None:
    """Raise ``CheckpointError`` naming the first parameter or buffer that holds NaN or infinity, or a BatchNorm
    running variance below zero (which no training produces: the file is damaged or forged)."""
    for name, tensor in state_dict.items():
        if isinstance(tensor, torch.Tensor) and tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise CheckpointError(f"{path}: parameter {name!r} holds NaN or infinite values; refusing these weights")
        if name.endswith("running_var") and isinstance(tensor, torch.Tensor) and bool((tensor < 0).any()):
            raise CheckpointError(
                f"{path}: {name!r} holds negative variances, which no training produces; refusing these weights"
            )


def check_game(checkpoint: dict[str, Any], game: Game, path: Any = "checkpoint") -> None:
    """Raise ``CheckpointError`` unless the checkpoint was trained on ``game`` (same rules and board)."""
    if checkpoint["game_repr"] != repr(game):
        raise CheckpointError(f"{path}: weights are for {checkpoint['game_repr']}, not {game!r}")


def load_state(model: torch.nn.Module, state_dict: dict[str, Any], path: Any = "checkpoint") -> None:
    """``model.load_state_dict`` with an error that names the architectures when they differ.

    Weights holding NaN or infinity are refused with ``CheckpointError`` before anything is loaded.
    """
    check_finite(state_dict, path)
    try:
        model.load_state_dict(state_dict)
    except RuntimeError as err:
        arch = getattr(model, "arch", type(model).__name__)
        detail = " ".join(str(err).split())[:400]
        raise CheckpointError(
            f"{path}: the stored weights do not fit a model with architecture {arch} (state_dict mismatch: {detail})"
        ) from None


def flush_subnormal(model: torch.nn.Module) -> int:
    """Set the weights and buffers smaller in magnitude than the dtype's smallest normal number to zero; returns
    how many there were.

    Weight decay drives the weights of unused channels down towards zero, through the subnormal range where an x86
    CPU multiplies in slow microcode: a 5 x 128 network trained 70 iterations held 80,000 such weights in one
    convolution and moved 10x slower in float32 (21 ms against 2 ms a position). Zeroing them changes no output
    by more than float32 rounding (each contributes less than 1e-38 times an activation).
    """
    flushed = 0
    with torch.no_grad():
        for tensor in (*model.parameters(), *model.buffers()):
            if tensor.is_floating_point():
                small = (tensor.abs() < torch.finfo(tensor.dtype).tiny) & (tensor != 0)
                flushed += int(small.sum())
                tensor.masked_fill_(small, 0.0)
    return flushed


def dead_channels(model: torch.nn.Module, below: float = 1e-6) -> tuple[int, int]:
    """``(dead, all)``: the output channels of the model's convolutions whose weights are all smaller than
    ``below`` in magnitude, and all their output channels.

    Such a channel sees nothing of the position: after its batch norm it passes the same constant whatever the
    input, and gets no gradient to come back by. Adam with an L2 weight decay (``TrainConfig.optimizer`` "adam")
    let 230 of the 640 first-convolution channels of the 5 x 128 ``connect_four_fast_5x128`` network die this way.
    """
    dead = total = 0
    for module in model.modules():
        if isinstance(module, torch.nn.Conv2d):
            sizes = module.weight.detach().flatten(1).abs().amax(dim=1)
            dead += int((sizes < below).sum())
            total += sizes.numel()
    return dead, total


def load_model(
    path: str | os.PathLike[str], game: Game | None = None, device: Any = "cpu", model: torch.nn.Module | None = None
) -> torch.nn.Module:
    """The trained ``ResNet`` from a checkpoint, in eval mode, with ``.game`` (the game it plays) and ``.arch``.

    ``game`` (optional) must be the game the weights were trained for; ``None`` rebuilds it from the
    checkpoint. ``model`` (optional) receives the weights instead of a new ``ResNet`` built from the stored
    architecture. With gating, the best network (``best_model``) is loaded, otherwise ``model``.
    Raises ``FileNotFoundError`` or ``CheckpointError`` (a ``ValueError``) saying what is wrong.
    """
    from alphazero_lib.model import ResNet

    checkpoint = load_checkpoint(path)
    if game is None:
        try:
            game = make_game(**checkpoint["game"])
        except ValueError as err:
            raise CheckpointError(f"{path}: cannot rebuild the game {checkpoint['game']!r}: {err}") from None
    check_game(checkpoint, game, path)
    if model is None:
        try:
            model = ResNet(game, **checkpoint["arch"], device="cpu")
        except ValueError as err:  # a network too large for this machine: said before anything is allocated
            raise CheckpointError(f"{path} records a network that cannot be built here: {err}") from None
    load_state(model, checkpoint["best_model"] if "best_model" in checkpoint else checkpoint["model"], path)
    flush_subnormal(model)  # for playing: subnormal weights make CPU arithmetic 10x slower (see flush_subnormal)
    model.to(resolve_device(device) if isinstance(device, str) else device)
    model.game = game
    model.eval()
    return model


# ---- the training state: what a run saves every iteration and a resume puts back ------------------------------
@dataclasses.dataclass
class TrainingState:
    """What a run saves after every iteration and a resume puts back (``Run.save``, ``Run.restore``): the network,
    its optimizer, the replay buffer (one list of ``(state [3, R, C], policy [A], value)`` samples per recent
    iteration, oldest first), the history (one record per completed iteration), the iterations done, and with
    gating the best network."""

    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    replay: list[list[tuple]] = dataclasses.field(default_factory=list)
    history: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    iteration: int = 0
    best_model: torch.nn.Module | None = None

    def checkpoint(self, game: Game, config: TrainConfig, with_replay: bool = False) -> dict[str, Any]:
        """The checkpoint dict of this state, trained on ``game`` with ``config`` (``with_replay``: the replay
        buffer too, as ``latest.pt`` holds it)."""
        extra: dict[str, Any] = {
            "optimizer": self.optimizer.state_dict(),
            "train_config": config.to_dict(),
            "iteration": self.iteration,
            "history": self.history,
        }
        if self.best_model is not None:
            extra["best_model"] = self.best_model.state_dict()
        if with_replay:
            extra["replay"] = [replay_to_tensors(games) for games in self.replay]
        return make_checkpoint(self.model, game, **extra)

    def load(self, checkpoint: dict[str, Any], path: Any, game: Game, config: TrainConfig) -> None:
        """Continue from ``checkpoint`` (read from ``path``): weights, optimizer state, iterations, history, replay.

        Raises ``CheckpointError`` for another game, another network, or an optimizer state that does not fit it
        (``Run.restore`` has checked that the file can continue a run: ``checkpoints.check_resumable``). The
        optimizer then takes ``config``'s ``lr``, ``weight_decay`` and ``optimizer`` (Adam or AdamW): a resume that
        asks for other ones gets them, and Adam's moments carry over (Adam and AdamW keep the same ones).
        """
        replay = replay_of(checkpoint, path)
        check_game(checkpoint, game, path)
        load_state(self.model, checkpoint["model"], path)
        if self.best_model is not None:
            load_state(self.best_model, checkpoint.get("best_model", checkpoint["model"]), path)
        try:
            self.optimizer.load_state_dict(checkpoint["optimizer"])
        except (ValueError, KeyError, TypeError, RuntimeError) as err:
            raise CheckpointError(f"{path}: its optimizer state does not fit this network ({err})") from None
        for group in self.optimizer.param_groups:  # the saved groups carry the old settings
            group["lr"], group["weight_decay"] = config.lr, config.weight_decay
            if isinstance(self.optimizer, torch.optim.Adam) and "decoupled_weight_decay" in group:
                group["decoupled_weight_decay"] = config.optimizer == "adamw"  # a saved group's may differ
        self.iteration, self.history, self.replay = int(checkpoint["iteration"]), list(checkpoint["history"]), replay


# ---- resuming a run -------------------------------------------------------------------------------------------
def load_resumable(path: str | os.PathLike[str], iteration: int | None = None) -> dict[str, Any]:
    """``load_checkpoint``, and then ``check_resumable``: a checkpoint that can continue a run (``iteration``: the
    number its ``iter_NNNN.pt`` name says). Raises ``CheckpointError`` (or ``FileNotFoundError``) otherwise."""
    checkpoint = load_checkpoint(path)
    check_resumable(checkpoint, path, iteration)
    return checkpoint


REPLAY_VALUE_SLACK = 0.1
"""How far past [-1, 1] a replay buffer's value may lie and still resume (clipped back): until commit 70a9b1f's fix,
tree reuse counted a kept root's own evaluation twice, so value targets of up to (budget + 2) / (budget + 1) were
written to ``latest.pt`` (1.0012 with 400 searches and half of the target from the search)."""


def check_resumable(checkpoint: dict[str, Any], path: Any = "checkpoint", iteration: int | None = None) -> None:
    """Raise ``CheckpointError`` unless a loaded checkpoint can continue a run.

    It needs the optimizer's state, an ``iteration`` from 0 to ``config.MAX_ITERATIONS`` that its history agrees
    with (and ``iteration`` when given: the number in an ``iter_NNNN.pt`` name), finite weights, and a replay
    buffer (``latest.pt``) of the game's shapes: states ``[N, 3, R, C]`` of 0/1 planes, policies ``[N, A]``
    that are distributions, values ``[N]`` in [-1, 1] (up to ``REPLAY_VALUE_SLACK``, which the resume clips).
    """
    optimizer = checkpoint.get("optimizer")
    if not isinstance(optimizer, dict) or not isinstance(optimizer.get("param_groups"), list):
        raise CheckpointError(f"{path} has no optimizer state, which a resume needs (a file for playing only?)")
    number = checkpoint.get("iteration")
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= MAX_ITERATIONS:
        raise CheckpointError(f"{path} claims iteration {number!r}, not a whole number from 0 to {MAX_ITERATIONS:,}")
    history = checkpoint.get("history", [])
    if not isinstance(history, list) or len(history) != number:
        recorded = len(history) if isinstance(history, list) else repr(history)
        raise CheckpointError(f"{path} claims iteration {number:,}, but its history records {recorded} iterations")
    if iteration is not None and number != iteration:
        raise CheckpointError(f"{path} holds iteration {number:,}, not the {iteration} its name says")
    for key in ("model", "best_model"):
        if key in checkpoint:
            check_finite(checkpoint[key], path)
    replay = checkpoint.get("replay", [])
    if not isinstance(replay, list):
        raise CheckpointError(f"{path} has a malformed replay buffer: a {type(replay).__name__}, not a list")
    if not replay:
        return
    try:
        game = make_game(**checkpoint["game"])
    except (ValueError, TypeError) as err:
        raise CheckpointError(f"{path}: cannot rebuild the game {checkpoint['game']!r}: {err}") from None
    planes = (3, game.row_count, game.column_count)
    for i, data in enumerate(replay):
        where = f"{path} has a malformed replay buffer (iteration {i + 1} of {len(replay)} in it)"
        if not isinstance(data, dict) or sorted(data) != ["policies", "states", "values"]:
            raise CheckpointError(f"{where}: not a dict of states, policies and values")
        states, policies, values = data["states"], data["policies"], data["values"]
        if not all(isinstance(x, torch.Tensor) and x.is_floating_point() for x in (states, policies, values)):
            raise CheckpointError(f"{where}: states, policies and values must be float tensors")
        if states.numel() == policies.numel() == values.numel() == 0:
            continue
        n = values.shape[0] if values.dim() == 1 else -1
        if tuple(states.shape) != (n, *planes) or tuple(policies.shape) != (n, game.action_size):
            raise CheckpointError(
                f"{where}: shapes {tuple(states.shape)}, {tuple(policies.shape)}, {tuple(values.shape)}; "
                f"{game!r} needs [N, {', '.join(map(str, planes))}], [N, {game.action_size}], [N]"
            )
        if not all(bool(torch.isfinite(x).all()) for x in (states, policies, values)):
            raise CheckpointError(f"{where}: it holds NaN or infinite values")
        if bool(((states != 0) & (states != 1)).any()) or bool((values.abs() > 1 + REPLAY_VALUE_SLACK).any()):
            raise CheckpointError(f"{where}: states must be 0/1 planes and values in [-1, 1]")
        if bool((policies < 0).any()) or not torch.allclose(policies.sum(1), torch.ones(n), atol=1e-3):
            raise CheckpointError(f"{where}: its policies are not probability distributions")


def replay_to_tensors(memory: list[tuple]) -> dict[str, torch.Tensor]:
    """One iteration's samples as three float32 tensors (what a checkpoint can hold under ``weights_only``)."""
    if not memory:
        return {"states": torch.zeros(0), "policies": torch.zeros(0), "values": torch.zeros(0)}
    columns = [np.stack([np.asarray(sample[k], dtype=np.float32) for sample in memory]) for k in range(3)]
    return {
        name: torch.from_numpy(column) for name, column in zip(("states", "policies", "values"), columns, strict=True)
    }


def replay_of(checkpoint: dict[str, Any], path: Any) -> list[list[tuple]]:
    """A checkpoint's replay buffer, one list of samples per iteration; value targets past [-1, 1] (written by
    the tree reuse that counted a root's evaluation twice, ``check_resumable``'s slack) are clipped, and said."""
    replay = checkpoint.get("replay", [])
    clipped = sum(int((games["values"].abs() > 1).sum()) for games in replay)
    if clipped:
        tqdm.write(f"{path}: {clipped:,} value targets of its replay buffer lay past [-1, 1]; clipped to it")
    return [replay_from_tensors(games) for games in replay]


def replay_from_tensors(data: dict[str, torch.Tensor]) -> list[tuple]:
    """The inverse of ``replay_to_tensors``; values clipped to [-1, 1] (``REPLAY_VALUE_SLACK``)."""
    states, policies, values = (data[k].numpy() for k in ("states", "policies", "values"))
    values = np.clip(values, -1, 1)
    return [(states[i], policies[i], np.float32(values[i])) for i in range(len(values))]
