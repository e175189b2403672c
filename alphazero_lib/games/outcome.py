"""Who won, and what a finished game was worth to each mover: one rule for self-play, matches and the arena.

``get_value_and_terminated(state, action)`` scores a finished game for the player who just played ``action``
(1 a win, 0 a draw; no game here lets a mover lose by their own move, but -1 is handled). Every other view of
the result derives from that value and that player.
"""

from __future__ import annotations


def winner_of(value: float, last_player: int) -> int:
    """The winner (1, -1, or 0 for a draw) of a game whose last move, by ``last_player``, was worth ``value``."""
    return int(last_player) if value > 0 else -int(last_player) if value < 0 else 0


def outcome_for(player: int, value: float, last_player: int) -> float:
    """The finished game's result seen by ``player``, when ``value`` is its result for ``last_player``."""
    return value if player == last_player else -value
