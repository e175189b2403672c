"""Choosing a player's moves for many positions at once: one batched search or network call, then the player's
own ``get_action`` on each position with that position's result handed in.

``batched_chooser(player)`` is what ``strength.choose_actions`` (Pons' benchmark positions) and
``arena.play_match(..., batched=True)`` (games played side by side) ask a player for; it knows
``AlphaZeroPlayer`` and ``PolicyPlayer`` and answers None for every other player (they move one position at a
time).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from alphazero_lib.games.base import STATE_DTYPE
from alphazero_lib.inference import evaluate, masked_softmax
from alphazero_lib.players import AlphaZeroPlayer, Player, PolicyPlayer

#: ``(states [M, R, C] absolute, to_move [M]) -> actions [M]``: a player's moves for a batch of positions.
BatchChooser = Callable[[np.ndarray, np.ndarray], np.ndarray]


class _SearchReplay:
    """Stands in for an ``AlphaZeroPlayer``'s ``AlphaMCTS`` during one ``get_action``: ``search`` hands back the
    batched search's result for that position (``last_output`` its ``SearchOutput`` row, as ``AlphaMCTS`` keeps it);
    any other attribute (``config``, ``stats``, ...) is the real search's."""

    def __init__(self, real: Any, canonical: np.ndarray, output: Any) -> None:
        self._real, self._canonical, self.last_output = real, canonical, output

    def search(self, state: np.ndarray, deadline: float | None = None) -> np.ndarray:
        if not np.array_equal(state, self._canonical):
            raise RuntimeError("the player searched another position than the batched search did")
        return self.last_output.policy

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _row(output: Any, i: int) -> Any:
    """Game ``i``'s part of a batched ``SearchOutput`` (every field indexed ``[i]``)."""
    return type(output)(**{f.name: getattr(output, f.name)[i] for f in dataclasses.fields(output)})


def batched_chooser(player: Player) -> BatchChooser | None:
    """A function that chooses ``player``'s moves for many positions at once, or None where there is none.

    The batch's searching or network work is done in one go, then the player's own ``get_action`` runs on each
    position in order with that position's result handed in, so whatever it makes of a result (temperature, the
    tie-break and its random generator, a search policy's own move choice) is the player's rule, not a copy of it:

    - ``AlphaZeroPlayer``: one ``BatchedMCTS.run`` with the player's model and its search's ``SearchConfig``
      (whatever that config names: PUCT, Gumbel, ...), no tree reuse; ``get_action`` then sees a stand-in search
      (``_SearchReplay``) that returns the position's row.
    - ``PolicyPlayer``: one network call; ``get_action`` then sees the position's masked softmax as its ``policy``.

    Subclasses that override ``get_action``, and a search with a time limit, return None (position by position).
    Every position is checked first as ``get_action`` checks it (``Player.check_turn``): a finished game, or a
    side to move other than 1 or -1, is refused with the player's message before any search.
    """
    choose = _chooser(player)
    if choose is None:
        return None

    def checked(states: np.ndarray, to_move: np.ndarray) -> np.ndarray:
        sides = to_move.tolist() if isinstance(to_move, np.ndarray) else to_move  # Python ints for check_turn
        for state, side in zip(states, sides, strict=True):
            player.check_turn(state, side)
        return choose(states, to_move)

    return checked


def _chooser(player: Player) -> BatchChooser | None:
    """``batched_chooser``'s function before the positions' check."""
    if type(player).get_action is AlphaZeroPlayer.get_action and player.time_limit is None:
        from alphazero_lib.batched_mcts import BatchedMCTS

        search = BatchedMCTS(player.game, player.model, player.mcts.config, reuse_tree=False)

        def choose_searched(states: np.ndarray, to_move: np.ndarray) -> np.ndarray:
            canonical = states * to_move[:, None, None].astype(STATE_DTYPE)  # the mover's pieces are 1
            output = search.run(canonical)
            real, actions = player.mcts, np.empty(len(states), dtype=np.int64)
            try:
                for i in range(len(states)):
                    player.mcts = _SearchReplay(real, canonical[i], _row(output, i))
                    actions[i] = player.get_action(states[i], int(to_move[i]))
            finally:
                player.mcts = real
            return actions

        return choose_searched
    if type(player).get_action is PolicyPlayer.get_action:
        from alphazero_lib.games.batched_rules import batched_rules_for

        game, model, rules = player.game, player.model, batched_rules_for(player.game)

        def choose_from_policy(states: np.ndarray, to_move: np.ndarray) -> np.ndarray:
            canonical = states * to_move[:, None, None].astype(STATE_DTYPE)
            logits, _ = evaluate(model, game.get_encoded_state(canonical))
            probs = masked_softmax(logits, rules.valid_moves(canonical))  # [M, A], as NetworkPlayer.policy
            actions = np.empty(len(states), dtype=np.int64)
            try:
                for i in range(len(states)):

                    def policy(state: np.ndarray, side: int, i: int = i) -> np.ndarray:
                        if side != to_move[i] or not np.array_equal(state, states[i]):
                            raise RuntimeError("the player asked about another position than the batch")
                        return probs[i]

                    player.policy = policy  # shadows the method for this one move
                    actions[i] = player.get_action(states[i], int(to_move[i]))
            finally:
                player.__dict__.pop("policy", None)
            return actions

        return choose_from_policy
    return None
