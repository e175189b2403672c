"""Small helpers: seeding, devices, torch threads, atomic file writes."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np


def cpu_cores() -> int:
    """The CPU cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


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
    if str(device).startswith("mps") and not (torch.backends.mps.is_available() and torch.backends.mps.is_built()):
        raise ValueError(f"device {device!r} was asked for, but torch sees no Apple GPU (MPS); use 'cpu' or 'auto'")
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise ValueError(
            f"device {device!r} is not a device torch knows ({err}); use 'auto', 'cpu' or 'cuda'"
        ) from None
    if resolved.type == "cuda" and resolved.index is not None and resolved.index >= torch.cuda.device_count():
        raise ValueError(
            f"device {device!r} was asked for, but torch sees {torch.cuda.device_count()} CUDA GPU(s); "
            f"use 'cuda' or 'cuda:0'"
        )
    return resolved


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


class FileWriteError(OSError):
    """A file or directory could not be written; the message names the path, the reason and what to do.

    ``errno`` is the original error's (``errno.ENOSPC``, ``errno.EROFS``, ...); ``str()`` is the message.
    """


def explain_os_error(err: OSError, path: str | os.PathLike[str], doing: str = "write") -> FileWriteError:
    """``err`` (from writing ``path``) as a ``FileWriteError`` a person can act on: which path, why, what to do.

    Full disks and quotas, read-only file systems, permissions, a file where a directory is expected and the
    reverse get their own advice; anything else keeps the system's words. ``doing`` is what failed (``"write"``,
    ``"read"``, ``"create the directory"``, ...).
    """
    import errno as codes

    if isinstance(err, FileWriteError):
        return err
    path = Path(path)
    reason = err.strerror or str(err)
    where = path.parent if path.parent != path else path
    unchanged = f"; {path} was left as it was" if doing == "write" and path.is_file() else ""
    if doing == "read" and err.errno in (codes.EACCES, codes.EPERM):
        advice = f"permission denied: you may not read {path}; ask its owner, or copy it somewhere you can read"
    elif doing == "read" and err.errno == codes.ENOENT:
        advice = "there is no such file"
    elif err.errno in (codes.ENOSPC, codes.EDQUOT):
        advice = f"the disk is full ({reason}); free some space or write somewhere else, then run this again"
    elif err.errno == codes.EROFS:
        advice = "the file system is read-only; write somewhere else (another --out) or mount it writable"
    elif err.errno in (codes.EACCES, codes.EPERM):
        advice = (
            f"permission denied: you may not write in {where}; pick a directory you own, or make it writable "
            f"(chmod u+w {where})"
        )
    elif err.errno in (codes.ENOTDIR, codes.EEXIST) and _file_in_the_way(path) is not None:
        blocker = _file_in_the_way(path)
        advice = f"{blocker} is a file where a directory is expected; move it away or pick another path"
    elif err.errno == codes.EISDIR or path.is_dir():
        advice = f"{path} is a directory where a file is expected; give a file name, or move the directory away"
    elif err.errno == codes.EFBIG:
        advice = f"the file is too large for this file system or for this process's limit (ulimit -f) ({reason})"
    else:
        advice = reason
    error = FileWriteError(f"cannot {doing} {path}: {advice}{unchanged}")
    error.errno = err.errno  # (strerror and filename stay unset: they would replace the message in str())
    return error


def _file_in_the_way(path: Path) -> Path | None:
    """The first existing non-directory among ``path``'s parents (a file where a directory is expected)."""
    for parent in reversed([path, *path.parents][1:]):
        if parent.exists() and not parent.is_dir():
            return parent
    if path.exists() and not path.is_dir():
        return path
    return None


def replace_folder(staging: str | os.PathLike[str], out: str | os.PathLike[str]) -> None:
    """Put the finished folder ``staging`` at ``out``, in its place: what was at ``out`` is retired beside it and
    removed. Each step is one rename (``staging`` is beside ``out``), so ``out`` is never half old and half new."""
    staging, out = Path(staging), Path(out)
    if not out.exists():
        os.replace(staging, out)
        return
    retired = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.old.", suffix=".tmp"))
    os.replace(out, retired / out.name)
    os.replace(staging, out)
    shutil.rmtree(retired, ignore_errors=True)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``.

    A failure (full disk, read-only file system, permissions, ...) leaves ``path`` as it was and raises
    ``FileWriteError`` saying which path and what to do.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise explain_os_error(err, path.parent, "create the directory") from None
    if path.is_dir():
        raise explain_os_error(IsADirectoryError(21, "Is a directory"), path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as err:
        raise explain_os_error(err, path) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual permissions
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        raise explain_os_error(err, path) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def update_json_file(path: str | os.PathLike[str], change: Any) -> dict[str, Any]:
    """Read the JSON object in ``path``, apply ``change(data)`` (it changes ``data`` in place), write it back
    atomically; returns what was written.

    For files that several processes share (the inference-mode cache in the user's home): the read and the
    write happen under an exclusive ``flock`` on ``path``'s directory, so two processes that add an entry each at
    the same instant keep both (without it the later write drops the earlier one's entry). A missing, damaged or
    non-object file reads as ``{}``. Where there is no ``flock`` (Windows) the update is atomic but unlocked.
    """
    import json

    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise explain_os_error(err, path.parent, "create the directory") from None
    with _directory_lock(path.parent):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = {}
        data = data if isinstance(data, dict) else {}
        change(data)
        atomic_write_bytes(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())
    return data


@contextlib.contextmanager
def _directory_lock(folder: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``folder`` itself for the block (nothing is created there); none without flock."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor drops the lock
