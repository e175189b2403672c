"""Shipped weights: a registry of files inside the package, each checked against its sha256 before use.

The files live in ``alphazero_lib/weights/<name>/`` (package data, so ``pip install`` ships them and
Colab finds them) and are listed in ``alphazero_lib/weights/registry.json``; nothing is read from the
current directory. Model cards: ``weights/README.md`` at the repository root.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import torch

from alphazero_lib.checkpoints import load_checkpoint, load_model, make_checkpoint, save_checkpoint
from alphazero_lib.utils import atomic_write_bytes

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
REGISTRY_PATH = WEIGHTS_DIR / "registry.json"
_verified: set[tuple[Path, str]] = set()


def sha256_of(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def registry(path: Path | None = None) -> dict[str, Any]:
    """The registry: ``{name: {"game": ..., "final": iteration, "files": {iteration: {"file", "sha256"}}}}``."""
    path = REGISTRY_PATH if path is None else path
    if not path.is_file():
        return {}
    fix = "reinstall the package (pip install --force-reinstall ...) or restore the file"
    try:
        entries = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"the weights registry {path} is not valid JSON ({err}); {fix}") from None
    if not isinstance(entries, dict):
        raise ValueError(
            f"the weights registry {path} must hold a JSON object (name -> entry), not a {type(entries).__name__}; "
            f"{fix}"
        )
    for name, entry in entries.items():
        files = entry.get("files") if isinstance(entry, dict) else None
        if not isinstance(files, dict) or not all(
            isinstance(record, dict) and "file" in record and "sha256" in record for record in files.values()
        ):
            raise ValueError(
                f"the weights registry {path} has a malformed entry {name!r} (no 'files' of file and sha256); {fix}"
            )
        if not all(str(key).isdigit() for key in files) or "final" not in entry:
            raise ValueError(f"the weights registry {path} has a malformed entry {name!r} (iterations, 'final'); {fix}")
    return entries


def available() -> dict[str, list[int]]:
    """Shipped model names and the iterations each has, e.g. ``{"tictactoe": [1, 2, 3]}``."""
    return {name: sorted(int(i) for i in entry["files"]) for name, entry in registry().items()}


def pretrained_path(name: str, iteration: int | None = None) -> Path:
    """The verified path of a shipped checkpoint (``iteration=None``: the final one).

    Raises ``ValueError`` for an unknown name or iteration (listing what exists), ``FileNotFoundError`` for
    a listed file that is missing, and ``ValueError`` when its sha256 differs from the registry's.
    """
    entries = registry()
    if name not in entries:
        raise ValueError(f"no shipped weights named {name!r}; shipped: {sorted(entries) or 'none'}")
    entry = entries[name]
    key = str(entry["final"] if iteration is None else int(iteration))
    if key not in entry["files"]:
        raise ValueError(f"{name!r} has no iteration {key}; shipped iterations: {available()[name]}")
    record = entry["files"][key]
    path = WEIGHTS_DIR / record["file"]
    if not path.is_file():
        raise FileNotFoundError(f"shipped weights {name!r} iteration {key} are missing: {path} (reinstall the package)")
    if (path, record["sha256"]) not in _verified:
        actual = sha256_of(path)
        if actual != record["sha256"]:
            raise ValueError(
                f"{path} has been altered or damaged: sha256 {actual[:16]}... but the registry says "
                f"{record['sha256'][:16]}...; reinstall the package or restore the file"
            )
        _verified.add((path, record["sha256"]))
    return path


def load_pretrained(name: str, iteration: int | None = None, game: Any = None, device: Any = "cpu") -> torch.nn.Module:
    """A shipped model by registry name, e.g. ``load_pretrained("connect_four")`` (eval mode, ``.game`` set)."""
    return load_model(pretrained_path(name, iteration), game=game, device=device)


def publish(checkpoint_path: str | os.PathLike[str], name: str, iteration: int, final: bool = True) -> Path:
    """Maintainers: copy a training checkpoint into the package as shipped weights and register its sha256.

    Only what playing needs is kept (model, architecture, game, training config, iteration and history);
    the optimizer state and the replay buffer are dropped to keep the file small.
    """
    source = load_checkpoint(checkpoint_path)
    entries = registry()
    entry = entries.setdefault(name, {"game": source["game"], "game_repr": source["game_repr"], "files": {}})
    if entry["game_repr"] != source["game_repr"]:
        raise ValueError(f"{name!r} holds weights for {entry['game_repr']}, not {source['game_repr']}")
    model = load_model(checkpoint_path)
    keep = {k: source[k] for k in ("train_config", "history") if k in source}
    checkpoint = make_checkpoint(model, model.game, iteration=int(iteration), **keep)
    relative = f"{name}/iter_{int(iteration):04d}.pt"
    target = save_checkpoint(WEIGHTS_DIR / relative, checkpoint)
    entry["arch"] = source["arch"]
    entry["files"][str(int(iteration))] = {"file": relative, "sha256": sha256_of(target)}
    entry["files"] = dict(sorted(entry["files"].items(), key=lambda kv: int(kv[0])))
    if final or "final" not in entry:
        entry["final"] = int(iteration)
    atomic_write_bytes(REGISTRY_PATH, (json.dumps(entries, indent=2, sort_keys=True) + "\n").encode())
    return target
