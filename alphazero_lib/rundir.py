"""A training run's directory: starting, resuming or replacing a run, its lock, its record and its files.

A run directory holds::

    config.json              the game, the settings, and every change a resume made to them ("changes")
    latest.pt                the newest checkpoint, with the replay buffer (what a resume continues)
    checkpoints/iter_NNNN.pt one checkpoint per iteration, without the replay buffer
    history.json, loss.png   one record per iteration, and its curves
    train.lock               while a trainer holds the directory (``run_lock``)
    STOP                     put there by hand: the trainer ends after the iteration in progress (and removes it)

Every file is written atomically (``utils.atomic_write_bytes``): a kill leaves the old file or the new one, and at
most a ``.NAME.*.tmp`` that the next ``Run.claimed`` removes. A directory holding only such files and a lock file
is a fresh directory.

One entry point decides what a run trains, ``open_run``; the trainer given the open run then claims the directory
(``Run.claimed``), which puts the checkpoint it continues from into its ``TrainingState``, and ``Run.save`` writes
that state every iteration::

    run = open_run("runs/c4", game="connect_four", preset="connect_four_fast")   # or resume=True
    trainer = build_trainer(run.game, run.config, run=run)       # the trainer writes through the open run
    trainer.learn()                                              # from the checkpoint it resumes, when there is one
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from alphazero_lib.checkpoints import (
    CheckpointError,
    TrainingState,
    load_resumable,
    save_checkpoint,
)
from alphazero_lib.config import PRESETS, SettingError, TrainConfig, setting_flags, worded
from alphazero_lib.games import make_game
from alphazero_lib.games.base import Game
from alphazero_lib.utils import atomic_write_bytes, cpu_cores

__all__ = [
    "LOCK_NAME",
    "Run",
    "RunDirLocked",
    "SettingError",
    "claim_run_dir",
    "clean_stale_temp_files",
    "find_resume_checkpoint",
    "iteration_path",
    "open_run",
    "read_json_object",
    "require_registered",
    "run_dir_holds_files",
    "run_lock",
    "saved_iterations",
    "write_config",
    "write_json",
]


# ---- deciding what a run trains -------------------------------------------------------------------------
def require_registered(game: Any) -> None:
    """Refuse, saying why, a game a run directory cannot record: one without the registry's ``Game.config``."""
    if not isinstance(getattr(game, "config", None), dict):
        raise ValueError(
            f"a run directory records its game so that a resume can rebuild it, and {type(game).__name__} has no "
            "registry description (Game.config, from make_game's registry): train a registered game into a run "
            "directory, or train this one without a run directory (build_trainer without run_dir)"
        )


@dataclasses.dataclass
class Run:
    """What ``open_run`` decided: the run directory, its game and settings, and whether it resumes or replaces.

    It owns the run's life: it claims the directory, restores a ``TrainingState`` from it (checking the game, the
    network and the optimizer, and recording each changed setting in ``changes``) and saves one every iteration.
    """

    path: Path
    game: Game
    config: TrainConfig
    resume: bool = False
    overwrite: bool = False
    changes: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # settings a resume changed

    @contextlib.contextmanager
    def claimed(
        self, state: TrainingState | None = None, say: Callable[[str], Any] = print
    ) -> Iterator[tuple[Path | None, str]]:
        """Hold the directory's lock for the block and yield ``(checkpoint, phrase)``: the checkpoint the run
        continues from, restored into ``state`` when given (``None``: the run starts at iteration 0), and a phrase
        naming it and why (``find_resume_checkpoint``). The trainer's ``learn`` removes stale temporary files.

        A resume with only damaged checkpoints is refused with the command that starts afresh; it never silently
        loops back to iteration 0.
        """
        with run_lock(self.path):
            if not self.resume:
                yield None, "a new run"
                return
            source, checkpoint, damaged, note = _resume_source(self.path)
            if source is None and ((self.path / "latest.pt").exists() or saved_iterations(self.path)):
                config_file = self.path / "config.json"
                again = f" --config {config_file}" if config_file.is_file() else f" --game {self.game.registry_name}"
                raise SettingError(
                    f"nothing intact to resume in {self.path}: {note}; start it afresh with its recorded settings: "
                    f"python -m alphazero_lib train --out {self.path}{again} --overwrite (this replaces its "
                    "checkpoints), or pick another {out}"
                )
            if source is None:
                say(f"{note}: starting {self.path} at iteration 0")
            for path, why in damaged:  # newer than the source: they would block the run, and a save replaces them
                kept = _set_aside(path)
                say(
                    f"set aside the damaged {path.relative_to(self.path)} as {kept.name} (kept, not deleted; {why}); "
                    f"resuming from {source.relative_to(self.path) if source else 'iteration 0'}"
                )
            if source is not None and state is not None:
                self.restore(state, source, checkpoint)
            yield source, note

    @classmethod
    def at(cls, path: str | os.PathLike[str], game: Game, config: TrainConfig, overwrite: bool = False) -> Run:
        """A run in ``path`` as a trainer built by hand opens it (``open_run`` decides for the command line)."""
        require_registered(game)
        return cls(Path(path), game, config, overwrite=overwrite)

    def lock(self) -> contextlib.AbstractContextManager[Path]:
        """Hold the directory's ``train.lock`` for the block (``run_lock``; re-entrant)."""
        return run_lock(self.path)

    def restore(
        self, state: TrainingState, source: str | os.PathLike[str], checkpoint: dict[str, Any] | None = None
    ) -> None:
        """Put the checkpoint ``source`` into ``state`` (``TrainingState.load``); each setting of this run that
        differs from the checkpoint's is said and recorded in ``changes`` (``setting_changes``; written to
        ``config.json``), and after a kill between ``latest.pt`` and the iteration file, that file is written again
        from the checkpoint (``history.json`` too).

        ``checkpoint``: ``source`` as the resume search already loaded and checked it (``checkpoints.load_resumable``);
        else it is loaded and checked here. Raises ``CheckpointError`` for a file that cannot continue the run, before
        anything is written."""
        if checkpoint is None:
            checkpoint = load_resumable(source)
        state.load(checkpoint, source, self.game, self.config)
        self.changes += setting_changes(checkpoint, source, self.config)
        iteration = int(checkpoint["iteration"])
        if iteration == 0:
            return
        missing, bare = iteration_path(self.path, iteration), _without_replay(checkpoint)
        with self.lock():
            write_json(self.path, "history.json", list(checkpoint.get("history", [])))
            if not missing.is_file():  # killed between writing latest.pt and the iteration file
                save_checkpoint(missing, bare)

    def begin(self, state: TrainingState, config: TrainConfig) -> None:
        """Before ``state``'s next iteration is written: stale temporary files removed, the iterations beyond it
        refused (or deleted with ``overwrite``), and ``config.json`` written with ``config`` (the run's settings
        from now on) and the changes."""
        self.config = config
        claim_run_dir(self.path, state.iteration, self.overwrite)
        write_config(self.path, self.game, config, self.changes, state.iteration)

    def save(self, state: TrainingState) -> None:
        """Write ``latest.pt`` (the state, replay buffer and all), ``checkpoints/iter_NNNN.pt`` (the same without
        the replay buffer), ``history.json`` and ``loss.png``, each atomically.

        ``latest.pt`` comes first: a process killed before the iteration file is written leaves a ``latest.pt``
        that ``find_resume_checkpoint`` resumes from exactly (and ``restore`` writes the missing file from it).
        """
        from alphazero_lib.plotting import plot_training_curves

        checkpoint = state.checkpoint(self.game, self.config, with_replay=True)
        save_checkpoint(self.path / "latest.pt", checkpoint)
        save_checkpoint(iteration_path(self.path, state.iteration), _without_replay(checkpoint))
        write_json(self.path, "history.json", state.history)
        fig, image = plot_training_curves(state.history), io.BytesIO()
        fig.savefig(image, format="png", dpi=100)
        atomic_write_bytes(self.path / "loss.png", image.getvalue())  # never a half-written picture

    def stop_asked(self, iteration: int) -> bool:
        """Whether a ``STOP`` file asks the run to end after ``iteration``, just saved (a run in the background ends
        between iterations, its workers with it); the file is removed, so a resume goes on."""
        stop = self.path / STOP_FILE
        if not stop.is_file():
            return False
        stop.unlink()
        tqdm.write(f"stopping after iteration {iteration}, as {stop} asked (removed; --resume goes on from here)")
        return True


def _without_replay(checkpoint: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in checkpoint.items() if key != "replay"}


def setting_changes(checkpoint: dict[str, Any], path: Any, config: TrainConfig) -> list[dict[str, Any]]:
    """On a resume, the settings of ``config`` that differ from those ``checkpoint`` recorded: each said, and
    returned as ``{"iteration", "field", "old", "new"}`` for ``config.json``'s list of changes."""
    recorded = checkpoint.get("train_config")
    if not isinstance(recorded, dict):
        return []
    try:
        before = TrainConfig.from_dict(recorded)
    except ValueError as err:
        tqdm.write(f"note: {path} records settings this version cannot read ({err}); resuming with the given ones")
        return []
    start = int(checkpoint["iteration"]) + 1
    changes = []
    for name, (old, new) in config.changes_from(before).items():
        tqdm.write(f"resuming with a change: {name} {old!r} -> {new!r} (from iteration {start})")
        changes.append({"iteration": start, "field": name, "old": old, "new": new})
    return changes


def open_run(
    out: str | os.PathLike[str],
    *,
    game: str | Game | None = None,
    preset: str | None = None,
    config_file: str | os.PathLike[str] | None = None,
    overrides: dict[str, Any] | None = None,
    resume: bool | None = False,
    overwrite: bool = False,
    say: Callable[[str], Any] = print,
) -> Run:
    """Decide what the run in ``out`` trains; nothing is written yet (``Run.claimed`` takes the directory).

    A new run takes its settings from ``config_file`` (a JSON object of ``TrainConfig`` settings, or a run's own
    ``config.json`` with its game), else from ``preset`` (default: the preset named like the game, if any); a
    directory that already holds a run is refused unless ``overwrite``. A resume (``resume=True``) continues what
    the run's ``config.json`` recorded, or without it what its newest intact checkpoint recorded (said);
    ``config_file`` or ``preset`` are then applied as changes; ``resume=None`` resumes a directory that holds a run
    and starts one in any other. ``overrides`` (``TrainConfig`` fields, search fields flat) go over everything; a
    new run given settings that only batched self-play reads plays batched self-play.

    Refused with a ``SettingError`` that names the settings: a resume that would change the network's shape,
    settings of batched self-play for a run that plays serial self-play, ``ray_cpus_per_actor`` off Ray, and more
    than 4 local workers per core.
    """
    run_dir = Path(out)
    overrides = dict(overrides or {})
    if run_dir.exists() and not run_dir.is_dir():
        raise SettingError(f"{{out}} {run_dir} is a file, not a run directory; pick a directory")
    if resume is None:
        resume = run_dir_holds_files(run_dir) and not overwrite
    if resume and overwrite:
        raise SettingError("{resume} and {overwrite} contradict each other: continue the run or replace it, not both")
    if not resume and run_dir_holds_files(run_dir) and not overwrite:
        raise SettingError(
            f"{{out}} {run_dir} already holds a run; continue it ({{resume}}), replace its checkpoints "
            "({overwrite}), or pick another {out}"
        )
    batched = _batched_only(overrides)
    if batched and not resume and "self_play" not in overrides:
        overrides["self_play"] = "batched"  # settings that only batched self-play reads ask for it
    if game is not None and not isinstance(game, str):
        require_registered(game)
    if not resume:
        new_game, config = _started(game, preset, config_file, overrides)
    else:
        new_game, config = _resumed(run_dir, game, preset, config_file, overrides, say)
    if "ray_cpus_per_actor" in batched and config.executor != "ray":
        raise SettingError(
            "{ray_cpus_per_actor} sets the CPUs of each Ray actor, but this run's self-play does not run on Ray; "
            "run it on Ray, or drop {ray_cpus_per_actor}"
        )
    if config.self_play == "serial" and batched:
        raise SettingError(
            f"{', '.join(f'{{{name}}}' for name in batched)} set batched self-play, but this run plays serial "
            f"self-play{' (recorded in its config.json)' if resume else ''}; set {{self_play}} to 'batched' to switch"
        )
    most, workers = 4 * cpu_cores(), config.num_workers
    if config.self_play == "batched" and config.executor != "ray" and workers > most:
        raise SettingError(
            f"{{num_workers}} {workers} would start {workers} processes on the {cpu_cores()} cores of this machine; "
            f"at most {most} (4 per core: more only wait on each other), or run them on Ray"
        )
    return Run(run_dir, new_game, config, resume=resume, overwrite=overwrite)


def _batched_only(overrides: dict[str, Any]) -> list[str]:
    """The settings that ``overrides`` moves from their defaults and that only batched self-play reads: those
    declared in the ``self_play`` flag group (``config.setting``) but ``self_play`` itself, and the executor."""
    group, default = {name: kind for _, _, name, kind in setting_flags()}, TrainConfig()
    batched = [name for name in overrides if group.get(name) == "self_play" and name != "self_play"] + ["executor"]
    return [name for name in batched if name in overrides and overrides[name] != getattr(default, name)]


def _started(
    game: str | Game | None, preset: str | None, config_file: Any, overrides: dict[str, Any]
) -> tuple[Game, TrainConfig]:
    """A new run's game and settings: ``config_file``'s, else ``preset``'s (the game's own preset by default)."""
    recorded_game = None
    if config_file is not None:
        _, settings, recorded_game = _settings_file_or_preset(config_file, None, None)
    elif preset is not None or (isinstance(game, str) and game in PRESETS):
        _, settings, _ = _settings_file_or_preset(None, preset or game, None)
    else:
        settings = {}
    if game is None and recorded_game is None:
        raise SettingError(
            "{game} is required for a new run"
            + (" (unless {config_file} is a run's config.json)" if config_file is not None else "")
        )
    config = TrainConfig.from_dict({**settings, **overrides})
    named = make_game(game) if isinstance(game, str) else game
    if named is not None and recorded_game is not None and recorded_game != named:
        raise SettingError(f"{{config_file}} {config_file} is a run for {recorded_game!r}, not {named!r}")
    return named or recorded_game, config


def _resumed(
    run_dir: Path, game: str | Game | None, preset: str | None, config_file: Any, overrides: dict[str, Any], say: Any
) -> tuple[Game, TrainConfig]:
    """A resumed run's game and settings: its record, with ``config_file`` or ``preset`` applied as a change (said)
    and ``overrides`` over it; a change of the network's shape is refused (``TrainConfig.resumed_with``)."""
    recorded_game, train_settings, origin = _recorded_run(run_dir, game if isinstance(game, str) else None)
    if "self_play" not in train_settings and "self_play" not in overrides:
        raise SettingError(
            f"{run_dir / 'config.json'} predates the record of serial or batched self-play: resume it once with "
            "{self_play} 'serial' or 'batched' ('batched' if it was started with {num_parallel_games})"
        )
    given = None
    if config_file is not None or preset is not None:  # applied as a change, or refused with the reason
        given = _settings_file_or_preset(config_file, preset, recorded_game)
    try:
        recorded = TrainConfig.from_dict(train_settings)
    except ValueError as err:
        raise ValueError(f"{run_dir}: the run's recorded settings are invalid: {err}") from None
    config = recorded
    if given is not None:
        source, changed, _ = given
        config = recorded.resumed_with(changed, f"{source} sets", run_dir)
        changes = config.changes_from(recorded)
        say(
            f"resuming with {worded(source)} applied to the run's recorded settings: "
            + (f"{len(changes)} change(s), listed below" if changes else "it changes none of them")
        )
    if origin is not None:
        say(origin)
    config = config.resumed_with(overrides, None, run_dir)  # a setting given alone is named itself
    named = make_game(game) if isinstance(game, str) else game
    if named is not None and named != recorded_game:
        raise SettingError(f"{{out}} {run_dir} is a run for {recorded_game!r}, not {named!r}")
    return recorded_game, config


def _recorded_run(run_dir: Path, game_name: str | None) -> tuple[Game, dict, str | None]:
    """The game and recorded settings of the run in ``run_dir``, and a note when they come from a checkpoint.

    From ``config.json``; without one, from the newest intact checkpoint's record (said in the note). When there is
    neither, the error says which command starts a run there (one that the directory's contents allow).
    """
    path = run_dir / "config.json"
    if path.is_file():
        saved = read_json_object(path)
        game_entry, settings = saved.get("game"), saved.get("train_config")
        if not isinstance(game_entry, dict) or not isinstance(settings, dict):
            raise ValueError(f"{path} is not a run's config: it needs a 'game' object and a 'train_config' object")
        try:
            return make_game(**game_entry), dict(settings), None
        except (ValueError, TypeError) as err:
            raise ValueError(f"{path}: cannot rebuild the game {game_entry!r}: {err}") from None
    if path.exists():
        raise ValueError(f"{path} is a directory where the run's config file is expected; move it away")
    start = f"python -m alphazero_lib train --game {game_name or 'GAME'} --out {run_dir}"
    if not run_dir.exists():
        raise ValueError(f"nothing to resume: {run_dir} does not exist; start a run there with: {start}")
    source, checkpoint, _, note = _resume_source(run_dir) if run_dir.is_dir() else (None, None, [], "")
    if source is None:
        if not run_dir_holds_files(run_dir):
            raise ValueError(
                f"nothing to resume in {run_dir}: it holds no run (no config.json, no checkpoint); "
                f"start one there with: {start}"
            )
        raise SettingError(
            f"nothing to resume in {run_dir}: it has no config.json and {note}; start afresh there with: "
            f"{start} --overwrite (this replaces what it holds), or pick another {{out}}"
        )
    settings = checkpoint.get("train_config")
    if not isinstance(settings, dict):
        raise SettingError(
            f"{run_dir} has no config.json, and {source.name} does not record the run's settings; start afresh "
            f"with: {start} --overwrite, or pick another {{out}}"
        )
    try:
        recorded_game = make_game(**checkpoint["game"])
    except (ValueError, TypeError) as err:
        raise ValueError(f"{source}: cannot rebuild the game {checkpoint['game']!r}: {err}") from None
    note = f"{run_dir} has no config.json: resuming with the settings recorded in {source.name} (config.json is "
    return recorded_game, dict(settings), note + "written again)"


def _settings_file_or_preset(
    config_file: str | os.PathLike[str] | None, preset: str | None, game: Game | None
) -> tuple[str, dict, Game | None]:
    """``(what, TrainConfig settings, the game it names or None)`` from ``config_file`` or ``preset`` (``what``
    names the setting as ``SettingError`` does, ``"{preset} NAME"``).

    A run's own ``config.json`` may be given as ``config_file``: its recorded settings are used, its game checked
    against ``game`` (when given) and returned.
    """
    if config_file is None:
        if preset not in PRESETS:
            raise SettingError(f"unknown {{preset}} {preset!r}; presets: {sorted(PRESETS)}")
        return f"{{preset}} {preset}", dict(PRESETS[preset]), None
    path = Path(config_file)
    settings = read_json_object(path)
    if "train_config" not in settings:
        return f"{{config_file}} {path}", settings, None
    game_entry, recorded = settings.get("game"), settings.get("train_config")
    if not isinstance(game_entry, dict) or not isinstance(recorded, dict):
        raise ValueError(f"{path} looks like a run's config but needs a 'game' object and a 'train_config' object")
    try:
        recorded_game = make_game(**game_entry)
    except (ValueError, TypeError) as err:
        raise ValueError(f"{path}: cannot rebuild the game {game_entry!r}: {err}") from None
    if game is not None and recorded_game != game:
        raise SettingError(f"{{config_file}} {path} is the config of a run for {recorded_game!r}, not {game!r}")
    return f"{{config_file}} {path}", dict(recorded), recorded_game


def read_json_object(path: Path) -> dict:
    """A JSON file whose top level is an object; errors name the file."""
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a JSON file of settings")
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is not valid JSON: {err}") from None
    except OSError as err:
        from alphazero_lib.utils import explain_os_error

        raise explain_os_error(err, path, "read") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} must hold a JSON object of settings at the top level, not a {type(data).__name__}")
    return data


# ---- what a trainer writes --------------------------------------------------------------------------------
def write_json(run_dir: str | os.PathLike[str], name: str, data: Any) -> None:
    """``run_dir/name`` as indented JSON, written atomically."""
    atomic_write_bytes(Path(run_dir) / name, (json.dumps(data, indent=1) + "\n").encode())


def write_config(
    run_dir: str | os.PathLike[str], game: Game, config: TrainConfig, changes: list[dict[str, Any]], iteration: int
) -> None:
    """``config.json``: the game, the settings, and every change a resume made to them (the ones already recorded
    there, then ``changes``)."""
    recorded: list[dict[str, Any]] = []
    saved = Path(run_dir) / "config.json"
    if iteration > 0 and saved.is_file():
        try:
            recorded = json.loads(saved.read_text()).get("changes", [])
        except (ValueError, AttributeError):
            recorded = []
        if not isinstance(recorded, list) or not all(isinstance(c, dict) for c in recorded):
            tqdm.write(f"note: {saved}'s 'changes' is not a list of changes; it is written afresh")
            recorded = []
    recorded += [c for c in changes if c not in recorded]
    data: dict[str, Any] = {"game": game.config, "train_config": config.to_dict()}
    if recorded:
        data["changes"] = recorded
    write_json(run_dir, "config.json", data)


def claim_run_dir(run_dir: str | os.PathLike[str], iteration: int, overwrite: bool) -> None:
    """Before a trainer at ``iteration`` writes: remove stale temporary files (saying so), and refuse to replace
    the iterations saved beyond it (unless ``overwrite``, which deletes them)."""
    run_dir = Path(run_dir)
    for stale in clean_stale_temp_files(run_dir):
        tqdm.write(f"removed {stale.name}, left behind by an interrupted write")
    later = [p for n, p in saved_iterations(run_dir) if n > iteration]
    latest = run_dir / "latest.pt"
    if iteration == 0 and latest.is_file():
        later.append(latest)
    if later and not overwrite:
        raise SettingError(
            f"{run_dir} already holds a run ({', '.join(p.name for p in later[:3])}"
            f"{', ...' if len(later) > 3 else ''}) beyond iteration {iteration}; continue it ({{resume}}) or "
            "replace it ({overwrite})"
        )
    for path in later:
        path.unlink()


# ---- the files of a run -----------------------------------------------------------------------------------
def iteration_path(run_dir: str | os.PathLike[str], iteration: int) -> Path:
    """``run_dir/checkpoints/iter_NNNN.pt``: the checkpoint written after ``iteration`` learn iterations."""
    return Path(run_dir) / "checkpoints" / f"iter_{iteration:04d}.pt"


def saved_iterations(run_dir: str | os.PathLike[str]) -> list[tuple[int, Path]]:
    """``(iteration, path)`` of every ``checkpoints/iter_NNNN.pt`` in ``run_dir``, oldest first (unchecked)."""
    found = []
    for path in (Path(run_dir) / "checkpoints").glob("iter_*.pt"):
        digits = path.stem[len("iter_") :]
        if digits.isdigit():
            found.append((int(digits), path))
    return sorted(found)


#: The lock file a trainer holds in its run directory while it may write there (``run_lock``).
LOCK_NAME = "train.lock"

#: The file that asks a trainer to end after the iteration in progress is saved (``touch RUN/STOP``).
STOP_FILE = "STOP"


class RunDirLocked(ValueError):
    """Another live trainer holds the run directory (its ``train.lock``)."""


_held_locks: dict[Path, list[Any]] = {}  # resolved run directory -> [lock file descriptor, depth]


@contextlib.contextmanager
def run_lock(run_dir: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold ``run_dir/train.lock`` for the block: one trainer writes into a run directory at a time.

    The lock file names its holder (pid, host, start time, command). It is an ``flock`` on the file, which the
    kernel drops when the holder dies however it dies (kill -9 included), so a dead holder never blocks: the next
    trainer takes the lock and rewrites the file. A second live trainer gets ``RunDirLocked`` naming the first.
    Re-entrant within one process (the command line holds it around ``learn``, which takes it too). The file is
    deleted when the lock is released. Yields the lock file's path.
    """
    key = Path(run_dir).resolve()
    held = _held_locks.get(key)
    if held is not None:
        held[1] += 1
        try:
            yield key / LOCK_NAME
        finally:
            held[1] -= 1
        return
    fd = _acquire_lock(key)
    _held_locks[key] = [fd, 1]
    try:
        yield key / LOCK_NAME
    finally:
        del _held_locks[key]
        with contextlib.suppress(OSError):
            (key / LOCK_NAME).unlink()  # while still holding it: a waiting opener sees another inode and retries
        os.close(fd)


def _lock_holder_text() -> str:
    import datetime
    import socket
    import sys

    started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    program = "python -m alphazero_lib" if sys.argv[0].endswith("__main__.py") else os.path.basename(sys.argv[0])
    command = " ".join([program, *sys.argv[1:]])[:300]
    holder = {"pid": os.getpid(), "host": socket.gethostname(), "started": started, "command": command}
    return json.dumps(holder) + "\n"


def _describe_holder(text: str, lock_path: Path) -> str:
    import socket

    try:
        holder = json.loads(text)
        pid, host = int(holder["pid"]), str(holder["host"])
    except (ValueError, KeyError, TypeError):
        return f"a trainer (its lock file {lock_path} does not say which)"
    where = "on this machine" if host == socket.gethostname() else f"on the machine {host}"
    command = f" ({holder['command']})" if holder.get("command") else ""
    return f"pid {pid} {where}, running since {holder.get('started', '?')}{command}"


def _acquire_lock(run_dir: Path) -> int:
    """Create or take over ``run_dir/train.lock`` and lock it; returns its file descriptor."""
    from alphazero_lib.utils import explain_os_error

    path = run_dir / LOCK_NAME
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise explain_os_error(err, run_dir, "create the run directory") from None
    try:
        import fcntl
    except ImportError:  # no flock (Windows): an exclusive create, a stale file removed when its pid is gone
        return _acquire_lock_without_flock(path)
    for _ in range(20):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise explain_os_error(err, path, "create the run's lock file") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 4096, 0).decode(errors="replace")
            os.close(fd)
            raise RunDirLocked(
                f"{run_dir} is in use by another trainer: {_describe_holder(holder, path)}; wait for it to finish "
                f"or stop it, then run this again (a trainer that died leaves no lock behind)"
            ) from None
        try:
            current = os.stat(path).st_ino
        except FileNotFoundError:
            current = None
        if current == os.fstat(fd).st_ino:  # still the file at the path (not one its last holder just deleted)
            text = _lock_holder_text().encode()
            os.ftruncate(fd, 0)
            os.pwrite(fd, text, 0)
            return fd
        os.close(fd)
    raise RunDirLocked(f"{run_dir}: could not take its lock file {path} (other trainers keep replacing it)")


def _acquire_lock_without_flock(path: Path) -> int:
    for _ in range(20):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            text = path.read_text(errors="replace") if path.is_file() else ""
            try:
                pid = int(json.loads(text)["pid"])
                os.kill(pid, 0)  # raises if no such process
            except (ValueError, KeyError, TypeError, ProcessLookupError):
                path.unlink(missing_ok=True)  # its holder is gone
                continue
            except OSError:
                pass
            raise RunDirLocked(
                f"{path.parent} is in use by another trainer: {_describe_holder(text, path)}; wait for it to finish "
                f"or stop it, then run this again"
            ) from None
        os.write(fd, _lock_holder_text().encode())
        return fd
    raise RunDirLocked(f"{path.parent}: could not take its lock file {path}")


def run_dir_holds_files(run_dir: str | os.PathLike[str]) -> bool:
    """Whether ``run_dir`` holds anything besides a lock file and the temporary files of interrupted writes
    (which a new run may replace without ``overwrite``)."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        return False
    for path in run_dir.iterdir():
        if path.name == LOCK_NAME or (path.name.startswith(".") and path.name.endswith(".tmp")):
            continue
        if path.name == "checkpoints" and path.is_dir() and not run_dir_holds_files(path):
            continue
        return True
    return False


def clean_stale_temp_files(run_dir: str | os.PathLike[str]) -> list[Path]:
    """Delete the ``.NAME.*.tmp`` files an interrupted atomic write left in ``run_dir``; returns them."""
    removed = []
    for folder in (Path(run_dir), Path(run_dir) / "checkpoints"):
        for path in folder.glob(".*.tmp"):
            if path.is_file():
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def find_resume_checkpoint(run_dir: str | os.PathLike[str]) -> tuple[Path | None, str]:
    """The checkpoint to resume ``run_dir`` from, and a phrase naming it and why (``None`` if there is none).

    ``latest.pt`` (which holds the replay buffer) wins unless the newest intact ``checkpoints/iter_NNNN.pt`` is
    further on; damaged or truncated files are skipped and named in the sentence.
    """
    source, _, _, note = _resume_source(Path(run_dir))
    return source, note


def _resume_source(
    run_dir: Path,
) -> tuple[Path | None, dict[str, Any] | None, list[tuple[Path, str]], str]:
    """``(checkpoint file to resume from or None, it loaded and checked, the damaged files skipped with why, the
    phrase)``."""
    skipped: list[tuple[Path, str]] = []
    best: tuple[int, Path, dict[str, Any]] | None = None
    latest, saved = run_dir / "latest.pt", saved_iterations(run_dir)

    def why(err: Exception, path: Path) -> str:
        return str(err).splitlines()[0].replace(f"{path}: ", "").replace(f"{path} ", "")[:160]

    if latest.is_file():
        try:
            checkpoint = load_resumable(latest)
            best = (int(checkpoint["iteration"]), latest, checkpoint)
        except (CheckpointError, ValueError, TypeError) as err:
            skipped.append((latest, why(err, latest)))
    for number, path in reversed(saved):
        if best is not None and number <= best[0]:
            break
        try:
            checkpoint = load_resumable(path, number)
        except (CheckpointError, ValueError, TypeError) as err:
            skipped.append((path, why(err, path)))
            continue
        best = (number, path, checkpoint)
        break
    note = f"; skipped damaged {', '.join(f'{p.name} ({reason})' for p, reason in skipped)}" if skipped else ""
    if best is None:
        return None, None, skipped, f"no intact checkpoint in {run_dir}{note}"
    number, path, checkpoint = best
    if path == latest:
        return path, checkpoint, skipped, f"{path}{note}"
    reason = "latest.pt is missing, damaged or older, so the replay buffer starts empty"
    return path, checkpoint, skipped, f"{path}, the newest intact iteration ({reason}{note})"


def _set_aside(path: Path) -> Path:
    """Rename a damaged checkpoint to ``NAME.damaged`` (``NAME.damaged.2``, ... if taken), never deleting it: a
    resume continues from an older file, and the damaged one neither blocks it nor is lost. Returns the new path."""
    target, n = path.with_name(path.name + ".damaged"), 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.damaged.{n}")
    path.rename(target)
    return target
