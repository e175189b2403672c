"""The course's exercise checks: the learner's code against the library's, one verdict line, never raises.

A check cell in a notebook reads ``ucb1 = check_ucb1(ucb1)``. The checker runs the learner's code on many
seeded cases (edge cases first), compares every answer with the library's tested version and prints one line:

- ``✅ ucb1: agrees with the library on 200 cases; the cells below use yours``
- ``❌ ucb1: case 3 of 200, ucb1(-3.0, 10, 50, C=1.41): returned 1.02, expected 0.72 (...). Hint: ...``
- ``⏳ ucb1: not written yet; the rest of this notebook uses the library's version``

It returns the learner's code when every case agrees and the library's version otherwise, so the cells after
it always run, on the learner's code whenever it is right.

How a verdict is made (issue 24, "checks that judge like a teacher"):

- **Types count.** An answer is compared as the cells below will use it: a list is not a numpy array, a 0-d
  array or a tensor is not a float, shapes must agree, integer arrays stay integers. Booleans accept ``0``/``1``.
- **The hint fits the bug.** A checker may list the known ``Mistake``\\ s of an exercise. When a case fails, each
  mistake runs on that case; the hint of the one that reproduces the learner's output, and also agrees with the
  learner on the cases before (which the learner passed) and after, is given. Otherwise the line says neutrally
  what differs (which entry, which sign, which type, which cells of a board) and the hint says which part of the
  rule the answers break (a factor, the item of a pair, the axis, a yes/no that errs one way); the case's rule
  comes last.
- **Numbers show the difference**: printed with as many digits as it takes to tell them apart.
- **Unfinished code is named**: ``NotImplementedError`` from a method other than the exercise's own stub, or
  after some cases agreed, names that method; a missing or misspelled method is named with the class's methods.

``hint(name)`` (each notebook's module exposes one) prints an exercise's hint before any failure.
"""

from __future__ import annotations

import copy
import difflib
import inspect
import math
import numbers
import sys
import types
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PASSED = "✅"
FAILED = "❌"
NOT_WRITTEN = "⏳"
FALLBACK = "the rest of this notebook uses the library's version"


class Text(str):
    """A string shown as it is in a verdict line (no quotes): a picture of an answer, e.g. "sample 3: outcome 1"."""

    def __repr__(self) -> str:
        return str(self)


class Mismatch(Exception):
    """Raised inside a case when the learner's answer differs from the library's (carries what to show).

    ``hint`` is what is wrong, as far as the place it is raised knows for sure (an input changed, a wrong type);
    a known ``Mistake`` that reproduces the learner's output takes precedence.
    """

    def __init__(self, got: Any, expected: Any, hint: str = "") -> None:
        got_text, expected_text = show_pair(got, expected)
        super().__init__(f"returned {got_text}, expected {expected_text}")
        self.got, self.expected, self.hint = got, expected, hint


def miss(got: str, expected: str, hint: str = "") -> Mismatch:
    """A ``Mismatch`` whose two sides are pictures in words: ``raise miss("3 pieces", "4 pieces", hint)``."""
    return Mismatch(Text(got), Text(expected), hint)


def judged_in_run(got: Any, expected: Any) -> bool:
    """The ``same`` of a case whose ``run`` compares the answer itself (raising ``Mismatch`` with a hint)."""
    return True


def on_copies(
    f: Callable[..., Any], *args: Any, changed: Mismatch | Callable[[Any, tuple], Mismatch] | None, **kwargs: Any
) -> Any:
    """``f(*copies, **kwargs)``, ``copies`` being deep copies of ``args``: the learner's code never gets a case's own
    inputs, and a copy that no longer equals its input shows that it wrote into what it was given.

    Then ``changed`` is raised: a ``Mismatch``, or ``changed(answer, copies)`` where the picture shows the answer or
    the copies; ``None`` compares nothing. Keyword arguments are passed as they are, neither copied nor compared.
    """
    copies = copy.deepcopy(args)
    answer = f(*copies, **kwargs)
    if changed is not None and not all(_equal(c, a) for c, a in zip(copies, args, strict=True)):
        raise changed(answer, copies) if callable(changed) else changed
    return answer


def _equal(a: Any, b: Any) -> bool:
    return bool(np.array_equal(a, b)) if isinstance(b, np.ndarray) else bool(a == b)


@dataclass
class Case:
    """One trial: ``run(learner)`` calls the learner's code and returns its answer, to compare with ``expected``.

    ``call`` is the trial as the learner would write it, e.g. ``"ucb1(3.0, 10, 50, C=1.41)"``; ``hint`` states
    the rule this case tests (shown when no known mistake explains a failure); ``same(got, expected)`` decides
    agreement (numbers and arrays within ``1e-6`` by default, types as the cells below need them).
    """

    call: str
    run: Callable[[Any], Any]
    expected: Any
    hint: str = ""
    same: Callable[[Any, Any], bool] = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.same is None:
            self.same = same


@dataclass
class Mistake:
    """A plausible wrong answer and the hint for it: ``code`` has the learner's answer's shape.

    For a function exercise ``code`` is a function; for a method exercise (``check_method``) it is a function
    with the method's signature (``self`` first), or a dict ``{method name: function}``, patched into a subclass
    of the learner's class. A failing case runs every mistake; the first whose output is the learner's gives
    ``hint``.
    """

    hint: str
    code: Any


def planted(reference: Callable[..., Any], hints: dict[str, str]) -> list[Mistake]:
    """An exercise's known mistakes: ``reference`` (a function, or a method: ``self`` first) called with
    ``kind=`` each planted mistake of ``hints``, and that mistake's hint."""

    def with_kind(kind: str) -> Callable[..., Any]:
        return lambda *args, **kwargs: reference(*args, **kwargs, kind=kind)

    return [Mistake(hint, with_kind(kind)) for kind, hint in hints.items()]


# ---- comparing ---------------------------------------------------------------------------------------------------
def _is_tensor(value: Any) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def is_number(value: Any) -> bool:
    """A plain real number (Python or numpy scalar), not a bool, an array or a tensor."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _is_boolish(value: Any) -> bool:
    """``True``/``False``, numpy's bool, or the integers 0 and 1 (all work in ``if`` and in sums)."""
    if isinstance(value, (bool, np.bool_)):
        return True
    return isinstance(value, (numbers.Integral, np.integer)) and int(value) in (0, 1)


def same(got: Any, expected: Any, tol: float = 1e-6) -> bool:
    """Equal as the cells below would use it: numbers and arrays within ``tol``, shapes and types exactly.

    An expected numpy array wants a numpy array (not a list or a tensor) of the same shape, with integers where
    integers are expected (booleans and integers are interchangeable); an expected number wants a real number
    (not a 0-d array or a tensor); an expected bool accepts ``0`` and ``1``; a tuple accepts a list.
    """
    if isinstance(expected, np.ndarray):
        if not isinstance(got, np.ndarray) or got.shape != expected.shape:
            return False
        if expected.dtype.kind in "biu" and got.dtype.kind not in "biu":
            return False
        if exp_numeric(expected) and got.dtype.kind in "biuf":
            return bool(np.allclose(got.astype(np.float64), expected.astype(np.float64), atol=tol, rtol=tol))
        return bool(np.array_equal(got, expected))
    if isinstance(got, np.ndarray) and not isinstance(expected, np.ndarray):
        return False
    if isinstance(expected, (bool, np.bool_)):
        return _is_boolish(got) and bool(got) == bool(expected)
    if isinstance(got, (bool, np.bool_)) and is_number(expected):
        return False
    if is_number(expected):
        if not is_number(got):
            return False
        if math.isnan(float(expected)) or math.isnan(float(got)):
            return math.isnan(float(expected)) and math.isnan(float(got))
        return math.isclose(float(got), float(expected), rel_tol=tol, abs_tol=tol)
    if isinstance(expected, (tuple, list)) and isinstance(got, (tuple, list)):
        return len(got) == len(expected) and all(same(g, e, tol) for g, e in zip(got, expected, strict=True))
    if isinstance(expected, dict) and isinstance(got, dict):
        return set(got) == set(expected) and all(same(got[k], expected[k], tol) for k in expected)
    try:
        return bool(got == expected)
    except Exception:
        return False


def exp_numeric(array: np.ndarray) -> bool:
    """Whether an array holds numbers (booleans, integers, floats)."""
    return array.dtype.kind in "biuf"


def difference(got: Any, expected: Any, tol: float = 1e-6) -> str:
    """What differs between ``got`` and ``expected``, neutrally: a type, a shape, which entries, a sign, which cells
    of a board printed as text; or ""."""
    if isinstance(expected, str):
        return _board_difference(got, expected)
    if isinstance(expected, np.ndarray):
        if _is_tensor(got):
            return "yours is a torch tensor, not a numpy array"
        if not isinstance(got, np.ndarray):
            return f"yours is a {type(got).__name__}, not a numpy array"
        if got.shape != expected.shape:
            return f"shape {got.shape} instead of {expected.shape}"
        if expected.dtype.kind in "biu" and got.dtype.kind not in "biu":
            return f"dtype {got.dtype} where integers ({expected.dtype}) are expected"
        if not (exp_numeric(expected) and got.dtype.kind in "biuf"):
            return ""
        g, e = got.astype(np.float64).reshape(-1), expected.astype(np.float64).reshape(-1)
        wrong = np.flatnonzero(~np.isclose(g, e, atol=tol, rtol=tol))
        if len(wrong) == 0:
            return ""
        if len(wrong) == e.size and np.allclose(g, -e, atol=tol, rtol=tol) and np.any(e != 0):
            return "every entry has the opposite sign"
        first = np.unravel_index(int(wrong[0]), expected.shape)
        where = f"[{', '.join(str(int(i)) for i in first)}]"
        a, b = show_pair(float(g[wrong[0]]), float(e[wrong[0]]))
        if len(wrong) == 1:
            return f"one entry differs, {where}: yours {a}, expected {b}"
        return f"{len(wrong)} of {e.size} entries differ, the first at {where}: yours {a}, expected {b}"
    if isinstance(expected, (bool, np.bool_)):
        if _is_boolish(got):
            return f"{bool(got)} where {bool(expected)} is expected"
        return f"yours is {_kind(got)}, not True or False"
    if is_number(expected):
        if not is_number(got):
            return f"yours is {_kind(got)}, not a number" + (
                " (float(...) or .item() makes one)" if isinstance(got, np.ndarray) or _is_tensor(got) else ""
            )
        g, e = float(got), float(expected)
        if e != 0 and math.isclose(g, -e, rel_tol=tol, abs_tol=tol):
            return "the opposite sign"
        if math.isfinite(g) and math.isfinite(e) and not math.isclose(g, e, rel_tol=tol, abs_tol=tol):
            return f"yours is {abs(g - e):.3g} {'lower' if g < e else 'higher'}"
        return ""
    if isinstance(expected, (tuple, list)):
        if isinstance(got, np.ndarray) or _is_tensor(got):
            return f"yours is {_kind(got)}, not a {type(expected).__name__}"
        if not isinstance(got, (tuple, list)):
            return f"yours is {_kind(got)}, not a {type(expected).__name__} of {len(expected)}"
        if len(got) != len(expected):
            return f"{len(got)} items instead of {len(expected)}"
        for index, (g, e) in enumerate(zip(got, expected, strict=True)):
            if not same(g, e, tol):
                inner = difference(g, e, tol)
                if inner.startswith("at ["):
                    return f"at [{index}]" + inner[3:]
                return f"at [{index}]: {inner}" if inner else f"item {index} differs"
    return ""


def _is_word(text: str) -> bool:
    """Whether ``text`` is a word or a few (letters, spaces, ``_``, ``-``, ``'``): something that can be misspelt,
    not a board or a number printed as text."""
    import re

    return re.fullmatch(r"[A-Za-z][A-Za-z _'-]*", text) is not None


def _board_cells(text: Any) -> np.ndarray | None:
    """The integers of a board printed as text (``board(state)``: ``"[[1, 0], [0, -1]]"``), or None."""
    import ast

    if not isinstance(text, str) or not text.startswith("[["):
        return None
    try:
        cells = np.array(ast.literal_eval(text))
    except (ValueError, SyntaxError):
        return None
    return cells if cells.ndim == 2 and cells.dtype.kind in "iu" else None


def _board_difference(got: Any, expected: Any) -> str:
    """Which cells of two boards printed as text differ (the first one named), or ""."""
    g, e = _board_cells(got), _board_cells(expected)
    if g is None or e is None:
        return ""
    if g.shape != e.shape:
        return f"a board of shape {g.shape} instead of {e.shape}"
    wrong = np.argwhere(g != e)
    if len(wrong) == 0:
        return ""
    r, c = (int(i) for i in wrong[0])
    if np.array_equal(g, -e):
        return "the board has every piece's sign flipped (the other player's view)"
    first = f"[{r}, {c}]: yours {int(g[r, c])}, expected {int(e[r, c])}"
    return f"the board differs in {len(wrong)} cell{'s' if len(wrong) > 1 else ''}, the first {first}"


def _kind(value: Any) -> str:
    if _is_tensor(value):
        return "a torch tensor"
    if isinstance(value, np.ndarray):
        return f"a numpy array of shape {value.shape}"
    if value is None:
        return "None"
    return f"a {type(value).__name__}"


# ---- showing -----------------------------------------------------------------------------------------------------
def show(value: Any, limit: int = 160, digits: int = 4) -> str:
    """A short, one-line, rounded picture of a value for a verdict line (``digits`` significant digits)."""
    if isinstance(value, np.ndarray):
        precision = max(3, digits - 1)
        with np.printoptions(precision=precision, suppress=True, threshold=60, linewidth=10_000):
            text = f"array({np.array2string(value, separator=', ')}, shape={value.shape})"
    elif _is_tensor(value):
        shape = tuple(value.shape)
        text = f"tensor of shape {shape}" if shape else f"tensor({show(value.item(), limit, digits)})"
    elif isinstance(value, (bool, np.bool_)):
        text = str(bool(value))
    elif isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        text = f"{float(value):.{digits}g}"
    elif isinstance(value, tuple):
        text = "(" + ", ".join(show(v, limit, digits) for v in value) + ("," if len(value) == 1 else "") + ")"
    elif isinstance(value, list):
        text = "[" + ", ".join(show(v, limit, digits) for v in value) + "]"
    else:
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def show_pair(got: Any, expected: Any, limit: int = 160) -> tuple[str, str]:
    """``show`` both, with more digits until the two pictures differ (or 17 digits, all a float has)."""
    for digits in (4, 6, 8, 10, 13, 17):
        pair = show(got, limit, digits), show(expected, limit, digits)
        if pair[0] != pair[1]:
            return pair
    return pair


def board(state: Any) -> str:
    """A state as a one-line nested list, for a case's ``call`` text: ``[[1, 0, 0], [0, -1, 0], [0, 0, 0]]``."""
    return str(np.asarray(state).astype(int).tolist())


def is_stub(code: Any) -> bool:
    """Whether ``code`` is missing: ``None``, or marked ``__stub__`` by the notebook."""
    return code is None or getattr(code, "__stub__", False)


# ---- the check -----------------------------------------------------------------------------------------------------
def check(
    name: str,
    learner: Any,
    library: Any,
    cases: Iterable[Case] | Callable[[], Iterable[Case]],
    mistakes: Sequence[Mistake] | Callable[[], Sequence[Mistake]] = (),
    own: Sequence[str] | None = None,
    adapt: Callable[[Any], Any] | None = None,
    verify: bool = True,
    remark: Callable[[], str] | None = None,
    keep_as: tuple[str, Any] | None = None,
) -> Any:
    """Run ``cases`` on the learner's code, print one verdict line, return the learner's code or the library's.

    ``cases`` may be a callable that builds them (so building them cannot raise out of a check). ``mistakes``:
    the known wrong answers, run on a failing case to choose the hint (``adapt(mistake.code)`` turns one into
    what ``case.run`` takes; ``verify=False`` trusts a mistake that reproduces the failing case without trying it
    on the other cases, for answers that keep state between cases). ``own``: the names of the exercise's
    functions, its stub first (a ``NotImplementedError`` raised elsewhere, or after some cases agreed, is named).
    Never raises (except ``KeyboardInterrupt``): whatever goes wrong in the learner's code is reported as the
    failing case. ``remark()``, when given and not empty, is added to a passing line (a deviation the check allows).
    A passing function or class is kept in ``my_alphazero/`` (``alphazero_lib.course.mine``) when it was written
    in a notebook cell; ``keep_as=(name, code)`` keeps something else (a method) under another name.
    """
    if is_stub(learner):
        return _verdict(f"{NOT_WRITTEN} {name}: not written yet; {FALLBACK}", library)
    own = list(own) if own is not None else _own_names(learner)
    try:
        cases = list(cases() if callable(cases) else cases)
    except NotImplementedError as error:  # a class whose __init__ is still the stub can break building the cases
        return _verdict(_unfinished(name, error, own, 0, None, 0), library)
    except Exception as error:  # a broken learner class can break building the cases
        return _verdict(
            f"{FAILED} {name}: could not set up the cases: {type(error).__name__}: {error}; {FALLBACK}", library
        )
    for number, case in enumerate(cases, start=1):
        where = f"{FAILED} {name}: case {number} of {len(cases)}, {case.call}:"
        try:
            got = _run_noting_warnings(case, learner)
            if not _agrees(case, got):
                raise Mismatch(got, case.expected)
        except NotImplementedError as error:
            return _verdict(_unfinished(name, error, own, number - 1, case, len(cases)), library)
        except Mismatch as miss:
            found = _diagnose(
                case,
                ("mismatch", miss.got),
                mistakes,
                adapt,
                learner if verify else None,
                cases[number:],
                agreed=cases[: number - 1],
            )
            failures = [Failure(case, miss.got, miss.hint, _warned_now())]
            if not found and verify:
                failures[0].again = _outcome(case, learner)
                failures += _later_failures(learner, cases[number:])
            hint = found or _what_it_shows(failures, sum(c.hint == case.hint for c in cases) > 1)
            differs = difference(miss.got, miss.expected)
            detail = f" ({differs})" if differs else ""
            return _verdict(f"{where} {miss}{detail}." + _hint(hint) + f" For now {_short(FALLBACK)}.", library)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # SystemExit and friends too: a check cell must never stop "Run all"
            detail = " ".join(str(error).split())[:200]
            found = _diagnose(
                case,
                ("error", type(error).__name__),
                mistakes,
                adapt,
                learner if verify else None,
                cases[number:],
                agreed=cases[: number - 1],
            )
            return _verdict(
                f"{where} raised {type(error).__name__}: {detail}.{_hint(found or case.hint)} "
                f"For now {_short(FALLBACK)}.",
                library,
            )
    note = remark() if remark is not None else ""
    note = f" ({note})" if note else ""
    if keep_as is None and isinstance(learner, type | types.FunctionType):
        keep_as = (learner.__name__, learner)
    if keep_as is not None and keep_as[1] is not None:
        from alphazero_lib.course.mine import kept_by_check

        kept_by_check(keep_as[0], keep_as[1], name)
    return _verdict(
        f"{PASSED} {name}: agrees with the library on {len(cases)} cases{note}; the cells below use yours", learner
    )


# ---- what a wrong answer shows -----------------------------------------------------------------------------------
@dataclass
class Failure:
    """A failing case: the learner's answer, what the case's own comparison said, and the warnings raised."""

    case: Case
    got: Any
    said: str = ""  # the Mismatch's hint, where the case knows for sure what is wrong
    warned: list[str] = field(default_factory=list)
    again: tuple[str, Any] | None = None  # the outcome of the same case run a second time


_WARNED: list[str] = []


def _run_noting_warnings(case: Case, code: Any) -> Any:
    """``case.run(code)``, the messages of the warnings it raised kept for ``_warned_now()`` (even when it raises)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return case.run(code)
        finally:
            _WARNED[:] = [" ".join(str(w.message).split()) for w in caught]


def _warned_now() -> list[str]:
    return list(_WARNED)


def _later_failures(learner: Any, cases: Sequence[Case], budget: float = 1.0, most: int = 60) -> list[Failure]:
    """The learner's wrong answers on the cases after the first failing one (at most ``most``, while ``budget``
    seconds last): the evidence a hint is chosen from, beside the first failure."""
    import time

    start, out = time.perf_counter(), []
    for case in cases:
        if len(out) >= most or time.perf_counter() - start > budget:
            break
        try:
            got = _run_noting_warnings(case, learner)
            if _agrees(case, got):
                continue
            out.append(Failure(case, got, "", _warned_now()))
        except Mismatch as miss:
            out.append(Failure(case, miss.got, miss.hint, _warned_now()))
        except KeyboardInterrupt:
            raise
        except BaseException:
            continue
    return out


def _what_it_shows(failures: list[Failure], rule: bool = True) -> str:
    """The hint a wrong answer earns from what it shows, ``failures[0]`` being the first failing case.

    In turn: a warning that names the bug (a target of shape [B] broadcast against [B, 1], an overflow, a
    division by zero); an answer that changes when the same seeded case runs again (np.random in place of the
    given generator); what the first case's comparison said; an answer of the wrong type; a pattern
    over every failing case (answers in steps, a sign, a constant factor, a near miss), or over the cases after
    the first (which may be an edge case of its own); what at least half of the later failing cases' comparisons
    said; the point of the first failing case, where it has its own (``rule`` False: no other case shares its hint);
    which part of the rule the answers break (``_part_hint``); last, the rule the first failing case tests.
    """
    for failure in failures:
        for message in failure.warned:
            said = _warning_hint(message)
            if said:
                return said
    first = failures[0]
    if first.again is not None and not (first.again[0] == "mismatch" and _repeated(first.again[1], first.got)):
        return (
            "your answer changed when the same case ran a second time with the same seed: draw every random number "
            "from the generator you are given (rng.choice, rng.integers, rng.dirichlet), not np.random or random"
        )
    if first.said:
        return first.said
    kind = _type_hint(first.got, first.case.expected)
    if kind:
        return kind
    pattern = _pattern_hint(failures) or _part_hint(failures, yes_no=False) or _pattern_hint(failures[1:])
    if pattern:  # (the first failing case may be an edge case of its own)
        return pattern
    later = _most_said(failures[1:])
    if later or (first.case.hint and not rule):
        return later or first.case.hint
    return _part_hint(failures) or first.case.hint


def _part_hint(failures: list[Failure], yes_no: bool = True) -> str:
    """Which part of the rule the failing answers break, when they agree on a pattern, or "": the item of a tuple
    (or of each entry of a list) whose wrong answers show a pattern, the cells a board differs in, the axis an array
    is normalised over, the direction a yes/no answer errs in (not with ``yes_no`` False, which looks for patterns in
    numbers only)."""
    first = failures[0]
    expected = first.case.expected
    answers = [f for f in failures if type(f.got) in (tuple, list) and len(f.got) == len(f.case.expected)]
    if isinstance(expected, tuple) and len(answers) == len(failures):
        wrong = {
            i for f in answers for i, (g, e) in enumerate(zip(f.got, f.case.expected, strict=True)) if not same(g, e)
        }
        whole = "the pair" if len(expected) == 2 else f"the {len(expected)} items"
        explainers = (_pattern_hint, _part_hint) if yes_no else (_pattern_hint,)
        for explain in explainers:  # numbers that show a pattern first: a yes/no may follow them
            for index in sorted(wrong):
                inner = [
                    Failure(Case(f.case.call, f.case.run, f.case.expected[index]), f.got[index])
                    for f in answers
                    if not same(f.got[index], f.case.expected[index])
                ]
                what = explain(inner)
                if what:
                    return f"item {index} of {whole}: {what}"
    if isinstance(expected, list) and expected and all(type(e) is tuple for e in expected):  # e.g. one per child
        entries = [
            Failure(Case(f.case.call, f.case.run, e), g)
            for f in failures
            if type(f.got) is list and len(f.got) == len(f.case.expected)
            for g, e in zip(f.got, f.case.expected, strict=True)
            if not same(g, e)
        ]
        what = _part_hint(entries, yes_no) if entries else ""
        if what:
            return f"in every entry, {what}"
    if yes_no and all(_board_cells(f.case.expected) is not None for f in failures):
        return _board_difference(first.got, expected)
    if isinstance(expected, np.ndarray) and expected.ndim == 2 and isinstance(first.got, np.ndarray):
        got = first.got.astype(np.float64) if first.got.dtype.kind in "biuf" else None
        if got is not None and got.shape == expected.shape and expected.shape[0] > 1:
            rows = np.allclose(expected.sum(axis=1), 1.0)
            with np.errstate(all="ignore"):
                columns = np.allclose(np.nan_to_num(got).sum(axis=0)[got.sum(axis=0) != 0], 1.0)
            if rows and columns and not np.allclose(np.nan_to_num(got).sum(axis=1), 1.0):
                return (
                    "your columns add up to 1 where each ROW should: normalise over axis=1 (each game's own sum, "
                    "keepdims=True), not axis=0"
                )
    flags = (
        []
        if not yes_no
        else [f for f in failures if isinstance(f.case.expected, (bool, np.bool_)) and _is_boolish(f.got)]
    )
    if len(flags) >= 2 and len(flags) == len(failures):
        said = {bool(f.got) for f in flags}
        if said == {False}:
            return (
                f"in all {len(flags)} failing cases yours says False where the library says True, never the reverse: "
                f"your condition is too strict (a threshold, a comparison or a count leaves out cases that count)"
            )
        if said == {True}:
            return (
                f"in all {len(flags)} failing cases yours says True where the library says False, never the reverse: "
                f"your condition is too loose (a threshold, a comparison or a count lets in cases that do not count)"
            )
    return ""


def _most_said(failures: list[Failure]) -> str:
    """What the later cases' comparisons said, when at least half of those cases said it (numbers aside): one
    diagnosis the failures share, not one that a few edge cases give."""
    import re

    said = [f.said for f in failures if f.said]
    if not said:
        return ""
    kinds = [re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "#", text) for text in said]
    common = max(dict.fromkeys(kinds), key=kinds.count)
    return said[kinds.index(common)] if 2 * kinds.count(common) >= len(failures) else ""


def _repeated(a: Any, b: Any) -> bool:
    """Whether a second run gave the same answer (nan equal to nan: a nan answer repeated is still repeatable)."""
    if _same_output(a, b):
        return True
    try:
        return bool(np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True))
    except (TypeError, ValueError):
        return repr(a) == repr(b)


def _warning_hint(message: str) -> str:
    """A hint from a warning the learner's code raised while it gave a wrong answer, or ""."""
    import re

    sizes = re.search(
        r"target size \(torch\.Size\((\[[^]]*\])\)\) that is different to the input size "
        r"\(torch\.Size\((\[[^]]*\])\)\)",
        message,
    )
    if sizes:
        target, output = sizes.groups()
        return (
            f"PyTorch warned that a loss compared a prediction of shape {output} with targets of shape {target}: it "
            f"broadcast the two against each other, so every prediction met every target. Give both the same "
            f"shape, [B, 1] for a value (.unsqueeze(1) or .reshape(-1, 1) on the one of shape [B])"
        )
    if "overflow encountered" in message:
        return (
            f"numpy warned '{message}': a number grew past what a float holds (exp of a large logit is inf); "
            f"subtract the largest value before exp"
        )
    if "divide by zero encountered" in message or "invalid value encountered" in message:
        return f"numpy warned '{message}': a division by zero somewhere (0 / 0 is nan); guard the zero case"
    return ""


def _type_hint(got: Any, expected: Any) -> str:
    """A hint when the answer has the wrong type or container (inside a tuple too), or ""."""
    if isinstance(expected, (tuple, list)) and isinstance(got, (tuple, list)) and len(got) == len(expected):
        for index, (g, e) in enumerate(zip(got, expected, strict=True)):
            inner = _type_hint(g, e)
            if inner:
                return f"item {index} of the pair: {inner}" if len(expected) == 2 else f"item {index}: {inner}"
        return ""
    if isinstance(expected, np.ndarray):
        if _is_tensor(got):
            return "return a numpy array, not a torch tensor (.numpy() or .cpu().numpy() makes one)"
        if not isinstance(got, np.ndarray):
            return (
                f"return a numpy array (np.array(...)), not a {type(got).__name__}: the cells below call numpy's "
                f"methods (.reshape, .copy, .argmax) on it"
            )
        return ""
    if isinstance(expected, (bool, np.bool_)):
        if not _is_boolish(got):
            return f"return True or False (a comparison gives one), not {_kind(got)}"
        return ""
    if is_number(expected) and not is_number(got):
        if isinstance(got, np.ndarray) or _is_tensor(got):
            return f"return a plain number, not {_kind(got)}: float(x) or x.item() makes one"
        return f"return a number, not {_kind(got)}"
    if type(expected) is str and type(got) is str and got != expected and _is_word(expected):  # not a picture
        close = difflib.SequenceMatcher(None, got, expected).ratio() >= 0.6
        return f"{got!r} is not the word expected, {expected!r}: check its spelling" if close else ""
    if isinstance(expected, dict) and not isinstance(got, dict):
        return f"return a dict with the keys {', '.join(map(repr, expected))}, not {_kind(got)}"
    if isinstance(expected, tuple) and not isinstance(got, (tuple, list)):
        return f"return a tuple of {len(expected)} ({', '.join('...' for _ in expected)}), not {_kind(got)}"
    if isinstance(expected, list) and not isinstance(got, (tuple, list)):
        return f"return a list, not {_kind(got)}"
    return ""


def _numbers(value: Any) -> np.ndarray | None:
    """The numbers in an answer (a number, an array, a tuple of them) as one float vector, or None."""
    if is_number(value) or (isinstance(value, (bool, np.bool_))):
        return np.array([float(value)])
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return value.astype(np.float64).reshape(-1)
    if isinstance(value, (tuple, list)) and value:
        parts = [_numbers(v) for v in value]
        if all(p is not None for p in parts):
            return np.concatenate(parts)
    return None


def _pattern_hint(failures: list[Failure]) -> str:
    """A hint from what the wrong answers have in common over the failing cases, or "".

    Only numeric answers of the expected size count, and at least three failing cases: answers that move in steps
    where the library's vary (floor division), the opposite sign everywhere, one constant factor, or answers
    within a thousandth of the library's everywhere (a rounded constant).
    """
    pairs = []
    for failure in failures:
        got, expected = _numbers(failure.got), _numbers(failure.case.expected)
        if got is None or expected is None or got.shape != expected.shape or not np.all(np.isfinite(got)):
            continue
        if isinstance(failure.case.expected, (bool, np.bool_)) or (
            isinstance(failure.case.expected, np.ndarray) and failure.case.expected.dtype.kind in "biu"
        ):
            continue  # booleans and integers: no factor or rounding to find
        pairs.append((got, expected))
    if len(pairs) < 3:
        return ""
    got = np.concatenate([g for g, _ in pairs])
    expected = np.concatenate([e for _, e in pairs])
    wrong = ~np.isclose(got, expected, rtol=1e-6, atol=1e-6)
    g, e = got[wrong], expected[wrong]
    if len(g) < 3:
        return ""
    with np.errstate(all="ignore"):
        ratio = g / e
    for factor, what in (
        (100.0, "a percentage where a fraction is meant: no * 100"),
        (0.01, "a fraction where a percentage is meant"),
    ):
        if np.all(e != 0) and np.allclose(g, factor * e, rtol=0.02, atol=min(factor, 1) / 2):  # rounded ones too
            return f"in all {len(pairs)} failing cases yours is about {factor:g} times the library's answer: {what}"
    distinct_got = len(np.unique(np.round(g, 9)))
    distinct_expected = len(np.unique(np.round(e, 9)))
    if np.all(g == np.round(g)) and not np.all(e == np.round(e)):
        return (
            f"in all {len(pairs)} failing cases your answers are whole numbers where the library's are not: "
            f"something is rounded, e.g. floor division // (or int()) where / is meant"
        )
    if distinct_expected >= 6 and distinct_got * 3 <= distinct_expected:
        shown = ", ".join(show(float(v)) for v in np.unique(np.round(g, 9))[:4])
        return (
            f"over {len(pairs)} failing cases your answers take only {distinct_got} values ({shown}"
            f"{', ...' if distinct_got > 4 else ''}) where the library's take {distinct_expected}: something is "
            f"rounded on the way, e.g. floor division // (or int()) where / is meant"
        )
    relative = np.abs(g - e) / np.maximum(np.abs(e), 1e-9)
    if np.max(relative) < 1e-3:
        return (
            f"in all {len(pairs)} failing cases yours is within {show(float(np.max(relative)) * 100, digits=2)}% "
            f"of the library's answer: the formula looks right and a constant is rounded (1.96 for "
            f"1.959963984540054..., 3.14 for pi) or computed in float32"
        )
    if np.all(e != 0):
        ratio = g / e
        if np.allclose(ratio, -1.0, rtol=1e-6, atol=1e-9):
            return f"in all {len(pairs)} failing cases yours has the opposite sign: one sign is flipped"
        if np.allclose(ratio, ratio[0], rtol=1e-6, atol=1e-9):
            return (
                f"in all {len(pairs)} failing cases yours is {show(float(ratio[0]))} times the library's answer: a "
                f"factor is off (a missing or extra constant, a /2, a percentage)"
            )
    return ""


def _agrees(case: Case, got: Any) -> bool:
    return bool(case.same(got, case.expected))


def _outcome(case: Case, code: Any) -> tuple[str, Any]:
    """What ``code`` does on ``case``: ``("value", v)`` agreeing or not, ``("mismatch", got)``, ``("error", type)``."""
    try:
        with warnings.catch_warnings():  # a diagnosis' own runs stay quiet in the notebook
            warnings.simplefilter("ignore")
            got = case.run(code)
        if not _agrees(case, got):
            return "mismatch", got
        return "value", got
    except Mismatch as miss:
        return "mismatch", miss.got
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        return "error", type(error).__name__


def _diagnose(
    case: Case,
    outcome: tuple[str, Any],
    mistakes: Any,
    adapt: Callable[[Any], Any] | None,
    learner: Any = None,
    cases: Sequence[Case] = (),
    budget: float = 1.0,
    most: int = 200,
    agreed: Sequence[Case] = (),
) -> str:
    """The hint of the known mistake that gives the learner's ``outcome`` on the failing ``case``, or "".

    When several mistakes reproduce it, or to make sure one does, they are also run on other cases (at most ``most``
    of them, while ``budget`` seconds last): first on ``agreed``, the cases before the failing one, where the learner
    agreed with the library (a mistake that fails one of them is not the learner's: "count both ways" is not the
    hint of a win check that passed the line completed in its middle), then beside the learner on ``cases``. A
    mistake that answers differently from the learner anywhere is not the learner's.
    """
    import time

    try:
        mistakes = list(mistakes() if callable(mistakes) else mistakes)
    except Exception:
        return ""
    codes = []
    for mistake in mistakes:
        try:
            codes.append((mistake, adapt(mistake.code) if adapt is not None else mistake.code))
        except Exception:
            continue
    candidates = [(m, code) for m, code in codes if _same_outcome(_outcome(case, code), outcome, case)]
    if not candidates or learner is None:
        return candidates[0][0].hint if candidates else ""
    start = time.perf_counter()
    known = [(other, True) for other in agreed] + [(other, False) for other in cases]
    for other, agrees in known[:most]:
        if other is case or len(candidates) == 0 or time.perf_counter() - start > budget:
            break
        mine = ("value", None) if agrees else _outcome(other, learner)
        candidates = [(m, code) for m, code in candidates if _same_outcome(_outcome(other, code), mine, other)]
    return candidates[0][0].hint if candidates else ""


def _same_outcome(theirs: tuple[str, Any], mine: tuple[str, Any], case: Case) -> bool:
    """Two runs of ``case`` did the same: both agreed with the library, or failed the same way (the same wrong
    answer, within the case's own tolerance)."""
    if theirs[0] != mine[0]:
        return False
    if mine[0] == "value":
        return True
    if mine[0] == "error":
        return theirs[1] == mine[1]
    if _same_output(theirs[1], mine[1]):
        return True
    if isinstance(theirs[1], str) or isinstance(mine[1], str):
        return False
    try:  # the case's own comparison, where it tells this wrong answer from the right one
        return not case.same(mine[1], case.expected) and bool(case.same(theirs[1], mine[1]))
    except Exception:
        return False


def _same_output(a: Any, b: Any) -> bool:
    """Whether two wrong answers are the same answer (arrays only match arrays; text pictures match as text)."""
    try:
        if isinstance(a, str) or isinstance(b, str):
            return isinstance(a, str) and isinstance(b, str) and a == b
        if isinstance(a, np.ndarray) != isinstance(b, np.ndarray):
            return False
        if _is_boolish(a) and _is_boolish(b) and (isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_))):
            return bool(a) == bool(b)
        if same(a, b, tol=1e-6) or same(b, a, tol=1e-6):
            return True
        x, y = _numbers(a), _numbers(b)  # a nan where the other has a nan is the same answer
        return (
            x is not None
            and y is not None
            and type(a) is type(b)
            and np.shape(a) == np.shape(b)
            and x.shape == y.shape
            and bool(np.any(np.isnan(x)))
            and bool(np.allclose(x, y, rtol=1e-6, atol=1e-6, equal_nan=True))
        )
    except Exception:
        return False


def _own_names(learner: Any) -> list[str]:
    """The functions that make up the learner's answer: a function's name; a class's methods, ``__init__`` first."""
    if isinstance(learner, type):
        names = [k for k, v in vars(learner).items() if inspect.isfunction(v)]
        return sorted(names, key=lambda k: k != "__init__")
    return [getattr(learner, "__name__", "")]


def _raised_in(error: BaseException) -> str:
    """The name of the function that raised ``error`` (the innermost frame)."""
    tb = error.__traceback__
    name = ""
    while tb is not None:
        name = tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    return name


def _unfinished(name: str, error: BaseException, own: list[str], agreed: int, case: Case | None, total: int) -> str:
    """The verdict for a ``NotImplementedError``: "not written yet" for the exercise's own stub, else named."""
    function = _raised_in(error)
    if function == "_forward_unimplemented":  # torch: the class has no method called forward
        return (
            f"{FAILED} {name}: your module has no method `forward` (torch calls it when the module is called); "
            f"check its name and indentation; {FALLBACK}"
        )
    if agreed == 0 and own and function == own[0]:
        return f"{NOT_WRITTEN} {name}: not written yet; {FALLBACK}"
    where = f" on case {agreed + 1} of {total}, {case.call}" if case is not None else ""
    before = f"; the {agreed} case{'s' if agreed != 1 else ''} before agree" if agreed else ""
    if function in own:
        what = f"`{function}` still raises NotImplementedError{where}{before}"
    else:
        what = f"`{function}`, called from your code, still raises NotImplementedError{where}{before}"
    return f"{NOT_WRITTEN} {name}: {what}; {FALLBACK}"


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


def add_to_class(cls: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator that adds a function to ``cls`` as a method (d2l's trick for writing a class cell by cell)."""

    def register(function: Callable[..., Any]) -> Callable[..., Any]:
        setattr(cls, function.__name__, function)
        return function

    return register


def with_methods(cls: type, methods: Any, name: str | None = None) -> type:
    """A subclass of ``cls`` (same name) with ``methods`` (a dict, or one function named as its method) in it."""
    if callable(methods) and not isinstance(methods, dict):
        methods = {methods.__name__: methods}
    return type(cls.__name__, (cls,), dict(methods))


def missing_method(cls: type, method: str, signature: str = "", how: str = "") -> str:
    """The verdict's text when ``cls`` has no ``method`` of its own: the close names and the methods it has.

    ``how`` says where the method is written (default: a cell with ``@add_to_class(cls)``)."""
    mine = sorted(k for k, v in vars(cls).items() if callable(v) and not k.startswith("__"))
    close = difflib.get_close_matches(method, mine, n=1, cutoff=0.6)
    call = f"def {method}({signature})" if signature else f"def {method}(...)"
    if close:
        return (
            f"{FAILED} {cls.__name__}.{method}: your {cls.__name__} has no method `{method}`, but `{close[0]}`: "
            f"rename it ({call}); its methods: {', '.join(mine)}; {FALLBACK}"
        )
    has = f" (its methods: {', '.join(mine)})" if mine else ""
    how = how or f"run the cell that defines it, with @add_to_class({cls.__name__}) above {call}"
    name = f"{cls.__name__}.{method}"
    return f"{NOT_WRITTEN} {name}: your {cls.__name__} has no method `{method}` yet{has}; {how}; {FALLBACK}"


def check_method(
    cls: type,
    method: str | Sequence[str],
    library_function: Callable[..., Any] | Sequence[Callable[..., Any]],
    cases: Callable[[type], list[Case]],
    name: str | None = None,
    mistakes: Sequence[Any] = (),
) -> type:
    """Check ``cls.method`` on ``cases(cls)``; on failure put ``library_function`` in its place. Returns ``cls``.

    ``library_function`` has the method's signature (``self`` first), so the learner's other methods keep working.
    ``mistakes``: known wrong versions of the method (``Mistake(hint, function)``), tried on a failing case.
    Methods written in one cell (the class's own body) are checked together: ``method`` and ``library_function``
    are then lists, each mistake a dict ``{method name: function}``, and a pass keeps the whole class.
    """
    methods = [method] if isinstance(method, str) else list(method)
    functions = [library_function] if callable(library_function) else list(library_function)
    name = name or f"{getattr(cls, '__name__', cls)}.{' and '.join(methods)}"
    if not isinstance(cls, type):
        print(f"{FAILED} {name}: expected a class, got {show(cls)}; run the cell that defines it first", flush=True)
        return cls
    owns = [cls.__dict__.get(m) for m in methods]
    missing = [(m, f) for m, f, own in zip(methods, functions, owns, strict=True) if own is None]
    if missing:
        line = missing_method(cls, missing[0][0], _plain_signature(missing[0][1]))
        result = _verdict(line.replace(f"{cls.__name__}.{missing[0][0]}:", f"{name}:", 1), None)
    else:
        keep_as = (f"{cls.__name__}.{methods[0]}", owns[0]) if cls.__module__ == "__main__" else ("", None)
        result = check(
            name,
            None if any(is_stub(own) for own in owns) else cls,
            None,
            lambda: cases(cls),
            mistakes,
            own=methods,
            adapt=lambda code: with_methods(cls, code if isinstance(code, dict) else {methods[0]: code}),
            keep_as=keep_as if len(methods) == 1 else None,
        )
    if result is None:  # not written or wrong: the library's method stands in
        for method_name, function in zip(methods, functions, strict=True):
            setattr(cls, method_name, _stand_in(method_name, function))
    return cls


def _plain_signature(function: Callable[..., Any]) -> str:
    """``"self, state, action"``: the parameter names of ``function``."""
    try:
        return ", ".join(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return ""


def _stand_in(method: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def stand_in(self: Any, *args: Any, **kwargs: Any) -> Any:
        return function(self, *args, **kwargs)

    stand_in.__name__ = stand_in.__qualname__ = method
    stand_in.__doc__ = function.__doc__
    stand_in.__stub__ = True  # type: ignore[attr-defined]  # checked again, a stand-in counts as "not written yet"
    return stand_in


# ---- hints on request ------------------------------------------------------------------------------------------------
def hints_for(hints: dict[str, str], notebook: str) -> tuple[Callable[[str], None], Callable[[str], None]]:
    """``hint(name)`` and ``solution(name)`` for one notebook's exercises (Kaggle Learn's ``q.hint()`` habit).

    ``hint`` prints the exercise's hint; ``solution`` prints the notebook's collapsed solution when the notebook
    is found in the checkout, and otherwise says where it is. Unknown names list the known ones.
    """

    def key(name: str) -> str | None:
        text = str(name).strip()
        lower = {k.lower(): k for k in hints}
        for candidate in (text, text.replace(".", "_"), text.split(".")[-1]):
            candidate = candidate.lower()
            for form in (candidate, candidate.removeprefix("check_"), candidate.removesuffix("_value")):
                if form in lower:
                    return lower[form]
        close = difflib.get_close_matches(text.split(".")[-1].lower(), list(lower), n=1, cutoff=0.6)
        if not close:
            print(f"No exercise called {name!r} here; the exercises: {', '.join(hints)}.")
        return lower[close[0]] if close else None

    def hint(name: str) -> None:
        found = key(name)
        if found is not None:
            print(f"Hint for {found}: {hints[found]}")

    def solution(name: str) -> None:
        found = key(name)
        if found is None:
            return
        code = notebook_solution(notebook, found)
        if code is None:
            print(f"The solution of {found} is in the collapsed 'Solution' block below its check cell.")
        else:
            print(code.rstrip("\n"))

    return hint, solution


def notebook_solution(notebook: str, exercise: str) -> str | None:
    """The solution code of ``exercise`` (its check is ``check_<exercise>``) in the course notebook ``notebook``."""
    import json
    import re
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "notebooks" / notebook
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return None
    text = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells]
    pattern = re.compile(rf"\bcheck_{re.escape(exercise)}\(")
    for index, cell in enumerate(cells):
        if (
            cell["cell_type"] == "code"
            and "check" in cell.get("metadata", {}).get("tags", [])
            and pattern.search(text[index])
        ):
            for later in range(index + 1, len(cells)):
                if cells[later]["cell_type"] == "markdown" and text[later].lstrip().startswith(
                    "<details><summary>Solution"
                ):
                    match = re.search(r"```python\n(.*?)```", text[later], re.DOTALL)
                    return match.group(1) if match else None
            return None
    return None
