"""What a search is, for the code that takes one: one ``Protocol`` for the serial searches and one for the batched.

- ``SerialSearch``: ``search(canonical state [R, C]) -> policy [A]``: ``mcts.MCTS``, ``alpha_mcts.AlphaMCTS``, the
  course's own MCTS and AlphaMCTS. Players (``players.SearchPlayer``) and serial self-play take one (or its bound
  ``search`` method).
- ``BatchedSearch``: ``search(canonical states [B, R, C]) -> policies [B, A]`` and ``run`` (the whole
  ``search_policies.SearchOutput``): ``batched_mcts.BatchedMCTS``, and the capstone's search driven by the learner's
  pieces. Batched self-play (``selfplay.BatchedSelfPlay``) takes one.

The states are canonical: the player to move owns the 1s.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["BatchedSearch", "SerialSearch"]


@runtime_checkable
class SerialSearch(Protocol):
    """A search of one position: its policy over the actions (visit shares, or Gumbel's improved policy)."""

    def search(self, state: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class BatchedSearch(Protocol):
    """A search of many positions at once, one network call per simulation for all of them."""

    def search(self, states: np.ndarray, active: np.ndarray | None = None) -> np.ndarray: ...

    def run(
        self, states: np.ndarray, active: np.ndarray | None = None, num_simulations: np.ndarray | int | None = None
    ) -> Any: ...
