"""Small helpers: seeding, devices, torch threads, atomic file writes."""

from __future__ import annotations

import contextlib
import os
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np


def seed_everything(seed: int) -> np.random.Generator:
    """Seed Python's ``random``, numpy's global generator and torch (CPU and CUDA); return a numpy Generator."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    try:
        import torch
    except ImportError:  # torch is a dependency, but games and vanilla MCTS do not need it
        pass
    else:
        torch.manual_seed(seed)
        if torch.cuda.is_available():
            torch.cuda.manual_seed_all(seed)
    return np.random.default_rng(seed)


def resolve_device(device: str = "auto") -> Any:
    """A ``torch.device`` for ``"auto"`` (CUDA when present, else CPU), ``"cpu"`` or ``"cuda"``."""
    import torch

    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} was asked for, but torch sees no CUDA GPU; use 'cpu' or 'auto'")
    return torch.device(device)


@contextlib.contextmanager
def cpu_threads(model: Any, num_threads: int | None) -> Iterator[None]:
    """Run torch on ``num_threads`` CPU threads inside the block when ``model`` is on the CPU (None: unchanged)."""
    import torch

    if num_threads is None or next(model.parameters()).device.type != "cpu":
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(num_threads)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def one_cpu_thread(model: Any) -> contextlib.AbstractContextManager[None]:
    """One torch thread while a CPU model sees batches of one (two threads spin-wait on a busy 2-core machine)."""
    return cpu_threads(model, 1)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during long work (a match, an evaluation): ``partial`` holds the results finished so far.

    A ``KeyboardInterrupt``, so code that does not look for it stops as before; the command line prints
    ``partial`` before it exits.
    """

    def __init__(self, partial: Any) -> None:
        super().__init__("interrupted")
        self.partial = partial


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual permissions
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class SourceCode:
    """Source text that notebooks show as a highlighted Markdown code block (plain text elsewhere)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_markdown_(self) -> str:
        return f"```python\n{self.text.rstrip()}\n```"

    def __repr__(self) -> str:
        return self.text


def show_source(obj: Any) -> SourceCode:
    """The source of a library function or class, for display in a notebook."""
    import inspect

    return SourceCode(inspect.getsource(obj))
