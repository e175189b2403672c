"""The self-play module's contracts that the trainer tests reach only indirectly: seeds, progress, tree reuse."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_training import TINY

from alphazero_lib import make_game
from alphazero_lib.config import TrainConfig
from alphazero_lib.model import ResNet
from alphazero_lib.selfplay import BatchedSelfPlay, SerialSelfPlay, derived_seed, play_batched, play_serial


@pytest.fixture(scope="module")
def setup():
    game = make_game("tictactoe")
    torch.manual_seed(0)
    return game, ResNet(game, 1, 8).eval()


def test_the_seeds_come_from_the_seed_parts(setup):
    """Worker w's games must be the same wherever they run (process pool, Ray): both seeds follow seed_parts."""
    game, model = setup
    config = TrainConfig.from_dict({**TINY, "self_play": "batched"})
    for games in (SerialSelfPlay(game, model, config, (7, 3)), BatchedSelfPlay(game, model, config, 2, (7, 3))):
        assert games.mcts.config.seed == derived_seed(7, 3, 1)
        expected = np.random.default_rng(derived_seed(7, 3, 2)).bit_generator.state
        assert games.rng.bit_generator.state == expected
    assert BatchedSelfPlay(game, model, config, 2, (7, 3)).mcts.reuse_tree is False  # only when asked


def test_progress_is_reported_once_a_game(setup):
    game, model = setup
    config = TrainConfig.from_dict({**TINY, "self_play": "batched"})
    for play in (
        lambda tick: play_serial(game, model, config, 3, (0, 0), lambda: tick(1)),
        lambda tick: play_batched(game, model, config, 3, 2, (0, 0), lambda: tick(1)),
    ):
        ticks: list[int] = []
        result = play(ticks.append)
        assert len(ticks) == result.games.games == 3


@pytest.mark.parametrize("name", ["tictactoe", "connect_four"])
def test_tree_reuse_keeps_a_subtree_for_every_continued_move_and_none_for_a_new_game(name):
    """With reuse, every move but a game's first starts from the subtree of the move before (the played move
    always has visits); a slot whose game ended starts its next game from an empty tree."""
    game = make_game(name)
    torch.manual_seed(0)
    model = ResNet(game, 1, 8).eval()
    config = TrainConfig.from_dict({**TINY, "self_play": "batched", "reuse_tree": True})
    result = play_batched(game, model, config, 7, 3, (0, 0))
    assert result.games.games == 7
    assert result.search["reused_roots"] == result.games.positions - result.games.games
