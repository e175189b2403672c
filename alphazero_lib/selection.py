"""Choosing a move from a search's visit-count distribution: the temperature rule.

Temperature is not part of any search: every search returns visit shares ``probs [A]``, and the caller (self-play,
a player, the arena) turns them into a move here.
"""

from __future__ import annotations

import numpy as np


def apply_temperature(probs: np.ndarray, temperature: float) -> np.ndarray:
    """``probs ** (1 / temperature)`` renormalised, ``[A]``; temperature 0 puts equal mass on the maxima.

    Raises ``ValueError`` for a negative temperature or a distribution without positive mass.
    """
    probs = np.asarray(probs, dtype=np.float64)
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    top = probs.max(initial=0.0)
    if not top > 0:
        raise ValueError(f"probabilities need some positive mass, got {probs}")
    if temperature == 0:
        weights = (probs == top).astype(np.float64)
    else:
        weights = (probs / top) ** (1.0 / temperature)  # the maximum becomes 1, so the sum never underflows
    return weights / weights.sum()


def select_action(probs: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """An action drawn from ``probs [A]`` sharpened by ``temperature``; 0 is argmax with a random tie-break."""
    return int(rng.choice(len(probs), p=apply_temperature(probs, temperature)))


def temperature_at(temperature: float, temperature_moves: int | None, move_number: int) -> float:
    """The temperature of a game's ``move_number``-th move (0-based): ``temperature`` for the first
    ``temperature_moves`` moves (every move when None), then 0 (the most visited move)."""
    return temperature if temperature_moves is None or move_number < temperature_moves else 0.0
