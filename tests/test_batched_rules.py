"""The vectorised rules of games/batched_rules.py (that they equal each game's own rules on random playouts:
test_game_conformance.py)."""

from __future__ import annotations

import numpy as np
import pytest

from alphazero_lib import make_game
from alphazero_lib.games.batched_rules import BatchedRules, LineGameRules, batched_rules_for


# ---- batched rules ---------------------------------------------------------------------------------------
# (the batched rules equal the game's own on random playouts: games.conformance.check_game, test_game_conformance)
def test_the_line_games_offer_vectorised_rules_and_the_others_get_the_loop():
    kinds = {name: type(batched_rules_for(make_game(name))) for name in ("tictactoe", "connect_four", "othello6")}
    assert kinds == {"tictactoe": LineGameRules, "connect_four": LineGameRules, "othello6": BatchedRules}


def test_batched_rules_reject_an_illegal_move():
    game = make_game("connect_four")
    state = np.zeros((1, 6, 7), dtype=np.int8)
    state[0, :, 2] = 1  # column 2 is full
    with pytest.raises(ValueError, match="illegal action 2"):
        batched_rules_for(game).child_states(state, np.array([2]))
