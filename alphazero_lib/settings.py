"""A setting, declared once: ``setting(default, allowed=..., choices=..., cap=..., flag=..., group=...)`` in a
dataclass field's metadata, and ``check_fields``, which checks a dataclass's fields against their declarations.
The configs (``alphazero_lib.config``) and the search policies' own settings (``alphazero_lib.search_policies``)
declare theirs with it."""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable, Collection
from dataclasses import Field, field, fields
from typing import Any

import numpy as np

#: ``train``'s help groups of setting flags: a field's ``group`` -> the group's title ("" is the command's own list).
FLAG_GROUPS = {
    "": "",
    "schedule": "search policy, targets and schedule (TrainConfig fields; see its docstrings)",
    "self_play": "how self-play runs (recorded in the run's config.json)",
}


#: A number setting's rule beyond its type: ``(test, what a person is told is allowed)``.
Allowed = tuple[Callable[[Any], bool], str]

POSITIVE: Allowed = (lambda v: v >= 1, "a positive integer")
NON_NEGATIVE_INT: Allowed = (lambda v: v >= 0, "a non-negative integer")
NON_NEGATIVE: Allowed = (lambda v: v >= 0, "non-negative")
UNIT: Allowed = (lambda v: 0 <= v <= 1, "in [0, 1]")
FRACTION: Allowed = (lambda v: 0 < v <= 1, "in (0, 1]")
AT_LEAST_ONE: Allowed = (lambda v: v >= 1, "at least 1")

#: Caps on the numbers of a config (and the command line's flags): ``(cap, the reason a person reads when a value
#: is refused)``. Past these a run does not finish, or does not fit the memory of the machines this runs on.
MAX_SEARCHES = 100_000
MAX_SEED = 2**63 - 1
SEARCHES_CAP = (
    MAX_SEARCHES,
    "a move of that many simulations takes minutes on a CPU, and the batched search "
    "keeps num_searches + 2 tree nodes per game in memory",
)
SEED_CAP = (MAX_SEED, "seeds are 64-bit integers for torch")


NOT_GIVEN: Any = object()  # ``setting``'s ``self_play`` when a setting's self-play value is its default


def self_play_defaults(cls: type) -> dict[str, Any]:
    """The settings of ``cls`` (a dataclass of ``setting`` fields) whose declaration gives a self-play value, with
    that value: what a self-play search takes where a run names none."""
    return {f.name: f.metadata["self_play"] for f in fields(cls) if "self_play" in f.metadata}


def setting(
    default: Any,
    *,
    allowed: Allowed | None = None,
    choices: Collection[str] | None = None,
    cap: tuple[int, str] | None = None,
    flag: bool | str = False,
    group: str = "",
    self_play: Any = NOT_GIVEN,
    network: str | None = None,
) -> Any:
    """A setting, declared once: its default, what it allows beyond its type (``allowed``: a test
    and its words; ``choices``: the strings it takes; ``cap``: the largest number and why), and whether ``train``
    takes it on its command line (``flag``: True for ``--`` and the field's name with hyphens, or the flag's own
    name) in which help group (``FLAG_GROUPS``). A search setting may give the value that self-play takes instead
    of the default when a run names none (``self_play``; ``self_play_defaults`` reads it); a setting of the network's
    shape names what it counts there (``network``, e.g. "channels": a resume keeps the weights, so it cannot change
    it). Its type is the field's annotation and its help the field's docstring: ``check_fields`` and
    ``setting_flags`` read them all."""
    if group not in FLAG_GROUPS:
        raise ValueError(f"unknown flag group {group!r}; groups: {sorted(FLAG_GROUPS)}")
    metadata: dict[str, Any] = {"allowed": allowed, "choices": choices, "cap": cap}
    if self_play is not NOT_GIVEN:
        metadata["self_play"] = self_play
    if network is not None:
        metadata["network"] = network
    if flag:
        metadata.update(flag="" if flag is True else flag, group=group)
    return field(default=default, metadata=metadata)


def _check_cap(where: str, cap: tuple[int, str] | None, value: Any) -> None:
    if cap is not None and isinstance(value, int) and value > cap[0]:
        limit, why = cap
        raise ValueError(f"{where} must be at most {limit:,} ({why}), got {value:,}")


def check_fields(obj: Any) -> None:
    """Check every field's type against its annotation, and its value against its declaration (``setting``),
    with a message that names the field.

    ``int`` fields take integers only (not ``True``, not ``3.0``); ``float`` fields take finite real numbers
    (not NaN or infinity, not booleans); ``bool`` fields take ``True`` or ``False`` only (``"no"`` is not
    false); ``str`` fields take strings; ``... | None`` also takes ``None``. Raises ``ValueError``.
    """
    for f in fields(obj):
        value = getattr(obj, f.name)
        annotation = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
        kinds = [part.strip() for part in annotation.split("|")]
        if value is None and "None" in kinds:
            continue
        where = f"{type(obj).__name__}.{f.name}"
        if "bool" in kinds:
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{where} must be true or false, got {value!r} ({type(value).__name__})")
            setattr(obj, f.name, bool(value))
        elif "int" in kinds:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
                raise ValueError(f"{where} must be an integer, got {value!r} ({type(value).__name__})")
            setattr(obj, f.name, int(value))
        elif "float" in kinds:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
                raise ValueError(f"{where} must be a number, got {value!r} ({type(value).__name__})")
            if not math.isfinite(value):
                raise ValueError(f"{where} must be a finite number, got {value!r}")
        elif "str" in kinds and not isinstance(value, str):
            raise ValueError(f"{where} must be a string, got {value!r} ({type(value).__name__})")
    for f in fields(obj):
        where, value = f"{type(obj).__name__}.{f.name}", getattr(obj, f.name)
        if value is not None:
            _check_allowed(where, f, value)
        _check_cap(where, f.metadata.get("cap"), value)


def _check_allowed(where: str, f: Field, value: Any) -> None:
    """Raise ``ValueError`` naming ``where`` when ``value`` is not what the field's ``allowed`` or ``choices``
    allow, saying what is."""
    if f.metadata.get("allowed") is not None:
        allowed, says = f.metadata["allowed"]
    elif f.metadata.get("choices") is not None:
        choices = tuple(f.metadata["choices"])
        allowed = choices.__contains__
        says = f"'auto' or one of {list(choices[1:])}" if choices[0] == "auto" else f"one of {list(choices)}"
    else:
        return
    if not allowed(value):
        shown = repr(value) if isinstance(value, str) else value
        raise ValueError(f"{where} must be {says}, got {shown}")


@functools.cache
def field_docs(cls: type) -> dict[str, str]:
    """Each field's docstring (the string under it in the class body), read from the source: the command line's
    help comes from here."""
    import ast
    import inspect
    import itertools
    import textwrap

    docs = {}
    for owner in reversed(cls.__mro__[:-1]):  # a base class's fields first, as ``fields`` orders them
        body = ast.parse(textwrap.dedent(inspect.getsource(owner))).body[0].body
        for node, after in itertools.pairwise(body):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                    docs[node.target.id] = " ".join(str(after.value.value).split())
    return docs
