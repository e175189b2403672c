"""The course's exercises: one checker per exercise (``check_*``), grouped by notebook.

Every checker follows ``alphazero_lib.exercises.core.check``: many seeded cases against the library's tested
version, one verdict line, never raises, returns the learner's code when it passes and the library's otherwise.
The cases' positions come from ``positions``; a known wrong answer and its hint is a ``core.Mistake``. The
notebooks' play cells import ``play`` and ``search_agent`` from here too (``alphazero_lib.course.play_board``'s);
what else the notebooks use beside the checks is in ``alphazero_lib.course``.
"""

from alphazero_lib.course.play_board import PlaySession, play, search_agent
from alphazero_lib.exercises.core import FAILED, NOT_WRITTEN, PASSED, Case, Mismatch, add_to_class, check, check_method

__all__ = [
    "FAILED",
    "NOT_WRITTEN",
    "PASSED",
    "Case",
    "Mismatch",
    "PlaySession",
    "add_to_class",
    "check",
    "check_method",
    "play",
    "search_agent",
]
