"""Checks for notebook 09 (evaluation): the Elo expected score, the Elo update, the Elo fit over a match table,
the Wilson score interval and the gating decision.

The references are ``alphazero_lib.arena``'s: a win scores 1, a draw 1/2, a loss 0; ``expected_score`` and
``elo_update``, ``fit_elo`` (a Bradley-Terry fit of strengths ``10 ** (rating / 400)``, whose expected score is
``expected_score``'s logistic curve) and ``wilson_interval``; the gate accepts a score at least the threshold
(``arena.gate``; no games score 1/2).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from alphazero_lib.arena import Z_95, MatchResult, elo_update, expected_score, fit_elo, wilson_interval
from alphazero_lib.exercises import core
from alphazero_lib.exercises.core import Case, Mismatch, Mistake, check, hints_for, is_number, miss, same, show

HINTS = {
    "expected_score": "1 / (1 + 10 ** ((opponent_rating - rating) / 400)): 1/2 for equal ratings, 10/11 for 400 "
    "points more.",
    "elo_update": "change = k * (score - expected_score(rating, opponent_rating)); return rating + change, "
    "opponent_rating - change.",
    "fit_elo": "played = games > 0; add prior_games / 2 to points and prior_games to games where played; wins = "
    "points.sum(axis=1); g = ones; repeat: new = wins / (games / (g[:, None] + g[None, :])).sum(axis=1) (keep g "
    "where that sum is 0), divide by exp(mean(log(new))), stop when the logs change less than tol; ratings = "
    "400 * log10(g) minus their mean.",
    "wilson_interval": "n = 0: (0, 1). Otherwise centre = (score + z^2 / 2n) / (1 + z^2 / n), half = z * sqrt(score "
    "(1 - score) / n + z^2 / 4n^2) / (1 + z^2 / n); clip to [0, 1]; exactly 0 at score 0 and 1 at score 1.",
    "gate": "a threshold outside [0, 1]: raise ValueError; score = (wins + draws / 2) / games, 1/2 without games; "
    "return (score >= threshold, score).",
}
hint, solution = hints_for(HINTS, "09_evaluation.ipynb")


# ---- the references: the library's (gating counts as arena.gate) ----------------------------------------------
reference_expected_score = expected_score
reference_elo_update = elo_update


def reference_gate(wins: int, draws: int, losses: int, threshold: float = 0.55) -> tuple[bool, float]:
    """``(accepted, score)`` as ``arena.gate`` decides on its match: ``MatchResult.score >= threshold``."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be in [0, 1], got {threshold}")
    score = MatchResult("candidate", "best", wins + draws + losses, wins, draws, losses).score
    return bool(score >= threshold), float(score)


def _cases(call: Any, rows: list, reference: Callable, run: Callable = lambda f, *a: f(*a)) -> list[Case]:
    """One Case per row ``(*args, hint)``: shown as ``call.format(*args)`` (or ``call(*args)``), run as
    ``run(learner, *args)``, compared with ``reference(*args)``."""
    text = call if callable(call) else call.format
    return [Case(text(*a), lambda f, a=a: run(f, *a), reference(*a), hint) for *a, hint in rows]


def _pair(got: Any, what: str = "(new_rating, new_opponent_rating)") -> Any:
    """Two numbers as the cells below use them (they only unpack the pair): a tuple, a list or a numpy array."""
    if isinstance(got, (tuple, list, np.ndarray)) and len(got) == 2 and all(is_number(x) for x in got):
        return tuple(float(x) for x in got)
    raise Mismatch(got, what, f"return the pair {what} (a tuple of two numbers).")


# ---- exercise 1: expected score ----------------------------------------------------------------------------
def check_expected_score(learner: Any) -> Callable[[float, float], float]:
    """``expected_score(rating, opponent_rating)``: equal ratings, 400 points apart, far apart, negative ratings,
    and 200 seeded random pairs."""

    def cases() -> list[Case]:
        pairs = [(0, 0), (1500, 1500), (400, 0), (0, 400), (2000, 0), (0, 2000), (-350, 50), (100.5, 99.5)]
        rng = np.random.default_rng(90)
        pairs += [tuple(map(float, np.round(rng.normal(0, 400, 2), 1))) for _ in range(200)]
        rows = [(a, b, HINTS["expected_score"]) for a, b in pairs]
        return _cases("expected_score({}, {})", rows, reference_expected_score)

    return check("expected_score", learner, reference_expected_score, cases, EXPECTED_MISTAKES)


EXPECTED_MISTAKES = [
    Mistake(
        "a HIGHER rating than the opponent's must give MORE than 1/2: the exponent is (opponent_rating - rating) / 400",
        lambda r, o: 1 / (1 + 10 ** ((r - o) / 400)),
    ),
    Mistake(
        "Elo's curve is in base 10 with a scale of 400: 10 ** (difference / 400), not e ** (difference / 400)",
        lambda r, o: 1 / (1 + math.exp((o - r) / 400)),
    ),
    Mistake(
        "the scale is 400 points (400 points more: 10 to 1 odds), not 200", lambda r, o: 1 / (1 + 10 ** ((o - r) / 200))
    ),
    Mistake(
        "an expected score is a share of the points, between 0 and 1, not a percentage",
        lambda r, o: 100 / (1 + 10 ** ((o - r) / 400)),
    ),
]


# ---- exercise 2: Elo update ------------------------------------------------------------------------------------
def check_elo_update(learner: Any) -> Callable[..., tuple[float, float]]:
    """``elo_update(rating, opponent_rating, score, k=32)``: a win, a draw and a loss between equals, an upset, a
    draw between unequal players, ``k=16`` and ``k=0``, and 200 seeded random games."""

    def cases() -> list[Case]:
        trials = [
            (1500, 1500, 1, 32),
            (1500, 1500, 0.5, 32),
            (1500, 1500, 0, 32),
            (1200, 1600, 1, 32),
            (1600, 1200, 0.5, 32),
            (1600, 1200, 0.5, 16),
            (1000, 1400, 0, 0),
        ]
        rng = np.random.default_rng(91)
        for _ in range(200):
            a, b = (float(x) for x in np.round(rng.normal(1500, 300, 2), 1))
            trials.append((a, b, float(rng.choice([0, 0.5, 1])), float(rng.choice([10, 16, 32]))))
        draw = "a draw against a stronger player is worth MORE than expected: the weaker one gains."
        rows = [(a, b, s, k, draw if s == 0.5 and a != b else HINTS["elo_update"]) for a, b, s, k in trials]
        return _cases(
            "elo_update({}, {}, {}, k={})", rows, reference_elo_update, lambda f, a, b, s, k: _pair(f(a, b, s, k=k))
        )

    return check("elo_update", learner, reference_elo_update, cases, UPDATE_MISTAKES)


def _update_with(kind: str) -> Callable[..., tuple[float, float]]:
    def elo_update(r: float, o: float, s: float, k: float = 32) -> tuple[float, float]:
        change = (32 if kind == "k fixed" else k) * (s - (0.5 if kind == "1/2" else reference_expected_score(r, o)))
        new = {"both gain": (r + change, o + change), "sign": (r - change, o + change), "one": (r + change, o)}
        pair = new.get(kind, (r + change, o - change))
        return tuple(round(x) for x in pair) if kind == "rounded" else pair

    return elo_update


UPDATE_MISTAKES = [
    Mistake(
        "the opponent LOSES what the first player gains: opponent_rating - change (the sum of the two stays)",
        _update_with("both gain"),
    ),
    Mistake(
        "the change is k * (score - expected): a result better than expected raises the rating", _update_with("sign")
    ),
    Mistake("both ratings change: return (rating + change, opponent_rating - change)", _update_with("one")),
    Mistake(
        "compare the score with the EXPECTED score (expected_score(rating, opponent_rating)), not with 1/2",
        _update_with("1/2"),
    ),
    Mistake(
        "keep the ratings unrounded (round them only to print): the next update starts from the exact ones",
        _update_with("rounded"),
    ),
    Mistake("k is a parameter: use the k you are given (32 is only its default)", _update_with("k fixed")),
]


# ---- exercise 3: the Elo fit ---------------------------------------------------------------------------------------
def check_fit_elo(learner: Any) -> Callable[..., np.ndarray]:
    """``fit_elo(points, games, prior_games=1.0)`` against ``arena.fit_elo``, within 0.01 Elo: two players, a chain,
    a player who played nobody, no games at all, ``prior_games`` 0 and 2, and 30 seeded random tables."""

    def cases() -> list[Case]:
        tables = [
            ([[0, 2], [2, 0]], [[0, 4], [4, 0]], 1.0, "an even match: both ratings 0."),
            ([[0, 3], [1, 0]], [[0, 4], [4, 0]], 0.0, "3 of 4 points: 400 * log10(3) apart, each side half of it."),
            (
                [[0, 10], [0, 0]],
                [[0, 10], [10, 0]],
                1.0,
                "a perfect record: the prior draws (prior_games, each worth 1/2 to both) keep it finite.",
            ),
            (
                [[0, 3, 0], [1, 0, 2.5], [0, 1.5, 0]],
                [[0, 4, 0], [4, 0, 4], [0, 4, 0]],
                1.0,
                "only pairs that played get prior draws (games > 0).",
            ),
            (
                [[0, 3, 0], [1, 0, 0], [0, 0, 0]],
                [[0, 4, 0], [4, 0, 0], [0, 0, 0]],
                1.0,
                "a player without games keeps its strength (no division by 0), then everything is normalised.",
            ),
            (np.zeros((3, 3)), np.zeros((3, 3)), 1.0, "no games at all: every rating 0."),
            (
                [[0, 5, 6], [1, 0, 3], [0, 3, 0]],
                [[0, 6, 6], [6, 0, 6], [6, 6, 0]],
                2.0,
                "prior_games=2: two virtual draws per pair that played.",
            ),
        ]
        rng = np.random.default_rng(92)
        for _ in range(30):
            n = int(rng.integers(2, 7))
            games = np.triu(rng.integers(0, 9, (n, n)) * (rng.random((n, n)) < 0.8), 1)
            games = games + games.T
            points = np.round(np.triu(games * rng.random((n, n)), 1) * 2) / 2
            points = points + np.triu(games - points, 1).T
            prior = float(rng.choice([0.5, 1.0, 2.0]))
            tables.append((points, games, prior, "follow the MM update and normalise every iteration."))
        out = []
        for points, games, prior, hint in tables:
            points, games = np.asarray(points, dtype=float), np.asarray(games, dtype=float)

            def run(f: Any, points=points, games=games, prior=prior) -> np.ndarray:
                changed = miss("changed tables", "tables unchanged", "do not add the prior into the arrays given.")
                return core.on_copies(f, points, games, prior_games=prior, changed=changed)

            call = f"fit_elo({points.tolist()}, {games.astype(int).tolist()}, prior_games={prior})"
            expected = fit_elo(points, games, prior_games=prior)
            out.append(Case(call, run, expected, hint, same=lambda got, e, g=games: _same_ratings(got, e, g, shifted)))
        return out

    shifted: list[str] = []

    def remark() -> str:
        if not shifted:
            return ""
        return (
            f"on {len(shifted)} table{'s' if len(shifted) > 1 else ''} whose players are not all connected by games "
            "your ratings differ from the MM steps' by shifting a group that never met the others: the games cannot "
            "tell those apart, so both count"
        )

    return check("fit_elo", learner, fit_elo, cases, FIT_MISTAKES, remark=remark)


def _same_ratings(got: Any, expected: np.ndarray, games: np.ndarray, shifted: list, tol: float = 1e-2) -> bool:
    """Mean 0 and ``expected``'s differences within each group of players connected by games: the games do not
    tell a group's offset (other maximum-likelihood methods than the MM steps may shift it), noted in ``shifted``."""
    if not isinstance(got, np.ndarray) or got.shape != expected.shape or got.dtype.kind not in "iuf":
        return False
    if not np.all(np.isfinite(got)) or abs(float(got.mean())) > tol:
        return False
    if np.allclose(got, expected, atol=tol, rtol=0):
        return True
    reach = (games > 0) | (games.T > 0) | np.eye(len(got), dtype=bool)
    for _ in range(len(got)):  # who reaches whom through games
        reach = (reach.astype(int) @ reach.astype(int)) > 0
    groups = [list(group) for group in {tuple(np.flatnonzero(row)) for row in reach}]
    centred = [(got[g] - got[g].mean(), expected[g] - expected[g].mean()) for g in groups]
    shift = len(groups) > 1 and all(np.allclose(mine, theirs, atol=tol, rtol=0) for mine, theirs in centred)
    shifted += ["shifted"] if shift else []
    return shift


FIT_MISTAKES = [
    Mistake(
        "add the prior_games virtual draws first (prior_games / 2 points and prior_games games to every pair that "
        "played): without them a perfect record has no finite rating",
        lambda p, g, prior_games=1.0: fit_elo(p, g, 0.0),
    ),
    Mistake(
        "prior draws only for pairs that played (games > 0): a pair that never met stays unconnected",
        lambda p, g, prior_games=1.0: fit_elo(
            p + prior_games / 2 * (1 - np.eye(len(p))), g + prior_games * (1 - np.eye(len(p))), 0.0
        ),
    ),
    Mistake(
        "W_i = sum_j points[i, j] is what player i SCORED (the row), not what it conceded (the column)",
        lambda p, g, prior_games=1.0: fit_elo(p.T, g, prior_games),
    ),
    Mistake(
        "ratings are 400 * log10(g), not 400 * ln(g)",
        lambda p, g, prior_games=1.0: fit_elo(p, g, prior_games) * math.log(10),
    ),
    Mistake(
        "subtract the MEAN rating at the end, so the ratings have mean 0",
        lambda p, g, prior_games=1.0: fit_elo(p, g, prior_games) - fit_elo(p, g, prior_games)[0],
    ),
]


# ---- exercise 4: Wilson interval ---------------------------------------------------------------------------------
def check_wilson_interval(learner: Any) -> Callable[..., tuple[float, float]]:
    """``wilson_interval(score, n, z=Z_95)`` against ``arena.wilson_interval``: no games, all wins, all losses, a
    single game, scores with draws, z = 1 and 2.576, and 200 seeded random (score, n)."""

    def cases() -> list[Case]:
        trials = [
            (0.5, 0, Z_95, "no games: nothing is known, (0, 1)."),
            (1.0, 20, Z_95, "all wins: the upper end is exactly 1, the lower end well below it."),
            (0.0, 20, Z_95, "all losses: the lower end is exactly 0."),
            (1.0, 1, Z_95, "one game: a very wide interval."),
            (0.55, 20, Z_95, "the centre is pulled towards 1/2: (score + z^2 / 2n) / (1 + z^2 / n)."),
            (0.525, 20, 1.0, "z is a parameter: use it."),
            (0.9, 100, 2.576, "z is a parameter: use it."),
        ]
        rng = np.random.default_rng(93)
        for _ in range(200):
            n = int(rng.integers(1, 400))
            score = float(rng.integers(0, 2 * n + 1)) / (2 * n)
            trials.append((score, n, Z_95, HINTS["wilson_interval"]))
        return _cases(
            lambda s, n, z: f"wilson_interval({s:.4g}, {n}{'' if z == Z_95 else f', z={z}'})",
            trials,
            wilson_interval,
            _interval,
        )

    return check("wilson_interval", learner, wilson_interval, cases, WILSON_MISTAKES)


def _interval(f: Any, score: float, n: int, z: float) -> tuple[float, float]:
    """The learner's ``(low, high)``; if off and neither end is clipped, a Mismatch naming the part that is off:
    the centre, the half width or, both off by one factor, their shared denominator."""
    got, expected = _pair(f(score, n, z=z), "(low, high)"), wilson_interval(score, n, z=z)
    if same(got, expected) or n <= 0 or not all(0.0 < x < 1.0 for x in (*got, *expected)):
        return got
    (centre, half), (right_centre, right_half) = [((low + high) / 2, (high - low) / 2) for low, high in (got, expected)]
    if math.isclose(centre, right_centre, rel_tol=1e-6, abs_tol=1e-9):
        factor = " (an extra factor z)" if math.isclose(half / right_half, z, rel_tol=1e-6) else ""
        raise Mismatch(
            got,
            expected,
            f"your interval's centre is right and its half width is not ({half:.4g} "
            f"instead of {right_half:.4g}{factor}): half = z * sqrt(score (1 - score) / n + z^2 / "
            f"(4 n^2)) / (1 + z^2 / n)",
        )
    if math.isclose(half, right_half, rel_tol=1e-6, abs_tol=1e-9):
        raise Mismatch(
            got,
            expected,
            f"your interval's width is right and its centre is not ({centre:.4g} instead "
            f"of {right_centre:.4g}): centre = (score + z^2 / (2 n)) / (1 + z^2 / n), the whole numerator "
            f"over the denominator",
        )
    if right_half > 0 and math.isclose(centre / right_centre, half / right_half, rel_tol=1e-6):
        raise Mismatch(
            got,
            expected,
            f"your centre and half width are both {centre / right_centre:.4g} times the "
            f"library's: the denominator they share, 1 + z^2 / n, is off",
        )
    return got


def _normal_interval(score: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """The textbook normal approximation, a planted mistake."""
    if n <= 0:
        return 0.0, 1.0
    half = z * math.sqrt(score * (1 - score) / n)
    return max(0.0, score - half), min(1.0, score + half)


WILSON_MISTAKES = [
    Mistake(
        "that is the normal approximation (score +- z * sqrt(p(1-p)/n)); Wilson's interval has the centre "
        "(score + z^2 / 2n) / (1 + z^2 / n) and its own half width",
        _normal_interval,
    ),
    Mistake(
        "z is a parameter: use the z you are given (Z_95 is only its default)",
        lambda score, n, z=Z_95: wilson_interval(score, n),
    ),
    Mistake(
        "z is a parameter: use the z you are given, not a fixed 1.96 (the default Z_95 = 1.959963984540054... "
        "is the exact 95% value)",
        lambda score, n, z=Z_95: wilson_interval(score, n, 1.96),
    ),
]


# ---- exercise 5: gating ------------------------------------------------------------------------------------------
def check_gate(learner: Any) -> Callable[..., tuple[bool, float]]:
    """``gate(wins, draws, losses, threshold=0.55)``: at the threshold, just below, all wins, all losses, no games,
    other thresholds, the ends 0 and 1 (valid), thresholds outside [0, 1], and 150 seeded random matches."""

    def cases() -> list[Case]:
        trials = [
            (11, 0, 9, 0.55, "exactly at the threshold is accepted (>=, not >)."),
            (10, 2, 8, 0.55, "a draw counts half a point: 11 points of 20."),
            (10, 1, 9, 0.55, "10.5 of 20 is below 0.55."),
            (20, 0, 0, 0.55, "all wins: score 1."),
            (0, 0, 20, 0.55, "all losses: score 0."),
            (0, 0, 0, 0.55, "no games: score 1/2 (as MatchResult.score), not a division by zero."),
            (0, 0, 0, 0.5, "no games: score 1/2 reaches a threshold of 1/2."),
            (5, 10, 5, 0.5, "only draws and even results score 1/2."),
            (12, 0, 8, 0.6, "use the threshold you are given."),
            (0, 0, 5, 0.0, "a threshold of 0 is valid (the ends of [0, 1] belong to it): everyone is accepted."),
            (5, 0, 0, 1.0, "a threshold of 1 is valid: only a perfect score is accepted."),
            (4, 1, 0, 1.0, "a threshold of 1 is valid: 4.5 of 5 is below it."),
        ]
        rng = np.random.default_rng(94)
        for _ in range(150):
            w, d, lo = (int(x) for x in rng.integers(0, 15, 3))
            trials.append((w, d, lo, float(rng.choice([0.5, 0.55, 0.6])), "score = (wins + draws / 2) / games."))
        outside = [(5, 0, 5, t, "a threshold outside [0, 1] is a mistake: raise ValueError.") for t in (1.5, -0.1)]
        call = "gate({}, {}, {}, threshold={})"
        refused = _cases(call, outside, lambda *_: "ValueError", _raises)
        return _cases(call, trials, reference_gate, _gate_pair) + refused

    return check("gate", learner, reference_gate, cases, GATE_MISTAKES)


def _gate_pair(f: Any, w: int, d: int, lo: int, threshold: float) -> tuple[Any, Any]:
    got = f(w, d, lo, threshold=threshold)
    if not (isinstance(got, (tuple, list)) and len(got) == 2):
        raise Mismatch(got, reference_gate(w, d, lo, threshold), "return the pair (accepted, score).")
    return (got[0], got[1])


def _raises(f: Any, w: int, d: int, lo: int, threshold: float) -> str:
    try:
        got = f(w, d, lo, threshold=threshold)
    except ValueError:
        return "ValueError"
    return f"no error (returned {show(got)})"


def _strict_gate(wins: int, draws: int, losses: int, threshold: float = 0.55) -> tuple[bool, float]:
    score = reference_gate(wins, draws, losses, threshold)[1]
    return score > threshold, score


def _unchecked_gate(wins: int, draws: int, losses: int, threshold: float = 0.55) -> tuple[bool, float]:
    score = reference_gate(wins, draws, losses)[1]
    return score >= threshold, score


GATE_MISTAKES = [  # reference_gate with one change each
    Mistake("exactly at the threshold is accepted: score >= threshold, not >", _strict_gate),
    Mistake(
        "a draw counts half a point: score = (wins + draws / 2) / games",
        lambda w, d, lo, threshold=0.55: reference_gate(w, 0, d + lo, threshold),
    ),
    Mistake(
        "draws // 2 is floor division: an odd number of draws loses its last half point; draws / 2 keeps it",
        lambda w, d, lo, threshold=0.55: reference_gate(w + d // 2, 0, lo + d - d // 2, threshold),
    ),
    Mistake("a threshold outside [0, 1] is a mistake in the caller's code: raise ValueError", _unchecked_gate),
    Mistake(
        "the score is a fraction of the points, between 0 and 1 (as the threshold), not a percentage: no * 100",
        lambda w, d, lo, threshold=0.55: (lambda accepted, score: (accepted, 100 * score))(
            *reference_gate(w, d, lo, threshold)
        ),
    ),
    Mistake(
        "0 and 1 are valid thresholds (the interval [0, 1] includes its ends): raise only outside it",
        lambda w, d, lo, threshold=0.55: reference_gate(w, d, lo, threshold if 0 < threshold < 1 else math.nan),
    ),
]


def simulate_games(true_ratings: np.ndarray, num_games: int, seed: int) -> list[tuple[int, int, float]]:
    """``(i, j, score of i)`` for ``num_games`` random pairings drawn with the Elo model (draws impossible)."""
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(num_games):
        i, j = rng.choice(len(true_ratings), 2, replace=False)
        p = reference_expected_score(true_ratings[i], true_ratings[j])
        games.append((int(i), int(j), float(rng.random() < p)))
    return games
