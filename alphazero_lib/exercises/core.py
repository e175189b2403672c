"""The course's exercise checks: the learner's code against the library's, one verdict line, never raises.

A check cell in a notebook reads ``ucb1 = check_ucb1(ucb1)``. The checker runs the learner's code on many
seeded cases (edge cases first), compares every answer with the library's tested version and prints one line:

- ``✅ ucb1: agrees with the library on 200 cases; the cells below use yours``
- ``❌ ucb1: case 3 of 200, ucb1(-3.0, 10, 50, C=1.41): returned 1.02, expected 0.72. Hint: ...``
- ``⏳ ucb1: not written yet; the rest of this notebook uses the library's version``

It returns the learner's code when every case agrees and the library's version otherwise, so the cells after
it always run, on the learner's code whenever it is right.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PASSED = "✅"
FAILED = "❌"
NOT_WRITTEN = "⏳"


class Mismatch(Exception):
    """Raised inside a case when the learner's answer differs from the library's (carries what to show)."""

    def __init__(self, got: Any, expected: Any, hint: str = "") -> None:
        super().__init__(f"returned {show(got)}, expected {show(expected)}")
        self.got, self.expected, self.hint = got, expected, hint


@dataclass
class Case:
    """One trial: ``run(learner)`` calls the learner's code and returns its answer, to compare with ``expected``.

    ``call`` is the trial as the learner would write it, e.g. ``"ucb1(3.0, 10, 50, C=1.41)"``; ``hint`` says
    what is most likely wrong when this case fails; ``same(got, expected)`` decides agreement (numbers and
    arrays within ``1e-6`` by default).
    """

    call: str
    run: Callable[[Any], Any]
    expected: Any
    hint: str = ""
    same: Callable[[Any, Any], bool] = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.same is None:
            self.same = same


def same(got: Any, expected: Any, tol: float = 1e-6) -> bool:
    """Equal, with numbers and arrays compared within ``tol`` and shapes compared exactly."""
    if isinstance(expected, np.ndarray) or isinstance(got, np.ndarray):
        try:
            got_a, exp_a = np.asarray(got), np.asarray(expected)
        except Exception:
            return False
        if got_a.shape != exp_a.shape:
            return False
        if exp_a.dtype.kind in "biuf" and got_a.dtype.kind in "biuf":
            return bool(np.allclose(got_a.astype(np.float64), exp_a.astype(np.float64), atol=tol, rtol=tol))
        return bool(np.array_equal(got_a, exp_a))
    if isinstance(expected, bool) or isinstance(got, bool):
        return isinstance(got, (bool, np.bool_)) and bool(got) == bool(expected)
    if isinstance(expected, numbers.Number) and isinstance(got, numbers.Number):
        if math.isnan(float(expected)) or math.isnan(float(got)):
            return math.isnan(float(expected)) and math.isnan(float(got))
        return math.isclose(float(got), float(expected), rel_tol=tol, abs_tol=tol)
    if isinstance(expected, (tuple, list)) and isinstance(got, (tuple, list)):
        return len(got) == len(expected) and all(same(g, e, tol) for g, e in zip(got, expected, strict=True))
    try:
        return bool(got == expected)
    except Exception:
        return False


def show(value: Any, limit: int = 160) -> str:
    """A short, one-line, rounded picture of a value for a verdict line."""
    if isinstance(value, np.ndarray):
        with np.printoptions(precision=3, suppress=True, threshold=60, linewidth=10_000):
            text = f"array({np.array2string(value, separator=', ')}, shape={value.shape})"
    elif isinstance(value, (bool, np.bool_)):
        text = str(bool(value))
    elif isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        text = f"{float(value):.4g}"
    elif isinstance(value, tuple):
        text = "(" + ", ".join(show(v, limit) for v in value) + ("," if len(value) == 1 else "") + ")"
    elif isinstance(value, list):
        text = "[" + ", ".join(show(v, limit) for v in value) + "]"
    else:
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def board(state: Any) -> str:
    """A state as a one-line nested list, for a case's ``call`` text: ``[[1, 0, 0], [0, -1, 0], [0, 0, 0]]``."""
    return str(np.asarray(state).astype(int).tolist())


def is_stub(code: Any) -> bool:
    """Whether ``code`` is missing: ``None``, or marked ``__stub__`` by the notebook."""
    return code is None or getattr(code, "__stub__", False)


def check(name: str, learner: Any, library: Any, cases: Iterable[Case] | Callable[[], Iterable[Case]]) -> Any:
    """Run ``cases`` on the learner's code, print one verdict line, return the learner's code or the library's.

    ``cases`` may be a callable that builds them (so building them cannot raise out of a check). Never raises
    (except ``KeyboardInterrupt``): whatever goes wrong in the learner's code is reported as the failing case.
    """
    fallback = "the rest of this notebook uses the library's version"
    if is_stub(learner):
        return _verdict(f"{NOT_WRITTEN} {name}: not written yet; {fallback}", library)
    try:
        cases = list(cases() if callable(cases) else cases)
    except Exception as error:  # a broken learner class can break building the cases
        return _verdict(
            f"{FAILED} {name}: could not set up the cases: {type(error).__name__}: {error}; {fallback}", library
        )
    for number, case in enumerate(cases, start=1):
        where = f"{FAILED} {name}: case {number} of {len(cases)}, {case.call}:"
        try:
            got = case.run(learner)
            if not case.same(got, case.expected):
                raise Mismatch(got, case.expected, case.hint)
        except NotImplementedError:
            return _verdict(f"{NOT_WRITTEN} {name}: not written yet; {fallback}", library)
        except Mismatch as miss:
            hint = miss.hint or case.hint
            return _verdict(f"{where} {miss}." + _hint(hint) + f" For now {_short(fallback)}.", library)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # SystemExit and friends too: a check cell must never stop "Run all"
            detail = " ".join(str(error).split())[:200]
            hint = _hint(case.hint)
            return _verdict(
                f"{where} raised {type(error).__name__}: {detail}.{hint} For now {_short(fallback)}.", library
            )
    return _verdict(
        f"{PASSED} {name}: agrees with the library on {len(cases)} cases; the cells below use yours", learner
    )


def _hint(hint: str) -> str:
    """`` Hint: ...`` ending with a full stop, or nothing."""
    hint = " ".join(hint.split())
    if not hint:
        return ""
    return f" Hint: {hint}" + ("" if hint[-1] in ".!?" else ".")


def _short(fallback: str) -> str:
    return fallback.replace("the rest of this notebook", "the notebook")


def _verdict(line: str, result: Any) -> Any:
    print(line, file=sys.stdout, flush=True)
    return result


def stub(function: Callable[..., Any]) -> Callable[..., Any]:
    """Mark an exercise's placeholder (its body raises ``NotImplementedError``); checks report it as not written."""
    function.__stub__ = True  # type: ignore[attr-defined]
    return function


def add_to_class(cls: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator that adds a function to ``cls`` as a method (d2l's trick for writing a class cell by cell)."""

    def register(function: Callable[..., Any]) -> Callable[..., Any]:
        setattr(cls, function.__name__, function)
        return function

    return register


def check_method(
    cls: type,
    method: str,
    library_function: Callable[..., Any],
    cases: Callable[[type], list[Case]],
    name: str | None = None,
) -> type:
    """Check ``cls.method`` on ``cases(cls)``; on failure put ``library_function`` in its place. Returns ``cls``.

    ``library_function`` has the method's signature (``self`` first), so the learner's other methods keep working.
    """
    name = name or f"{cls.__name__}.{method}"
    if not isinstance(cls, type):
        print(f"{FAILED} {name}: expected a class, got {show(cls)}; run the cell that defines it first", flush=True)
        return cls
    own = cls.__dict__.get(method)
    learner = None if own is None or is_stub(own) else cls
    result = check(name, learner, None, lambda: cases(cls))
    if result is None:  # not written or wrong: the library's method stands in

        def stand_in(self, *args, **kwargs):
            return library_function(self, *args, **kwargs)

        stand_in.__name__ = stand_in.__qualname__ = method
        stand_in.__doc__ = library_function.__doc__
        stand_in.__stub__ = True  # checked again, a stand-in counts as "not written yet"
        setattr(cls, method, stand_in)
    return cls
