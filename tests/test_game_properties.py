"""Properties over thousands of seeded random playouts, checked against naive reference rules."""

from __future__ import annotations

import numpy as np
import pytest
from reference import has_line, othello_moves, othello_play

from alphazero_lib.games import ConnectFour, Game, Othello, TicTacToe

# (game, number of seeded random playouts)
PLAYOUTS = [
    (TicTacToe(), 3000),
    (ConnectFour(), 2000),
    (ConnectFour(rows=5, columns=4, in_a_row=3), 1000),
    (Othello(4), 1000),
    (Othello(6), 500),
    (Othello(8), 100),
]
IDS = [repr(g) for g, _ in PLAYOUTS]


def reference_valid(game: Game, state: np.ndarray, player: int) -> set[int]:
    """Legal actions by the reference rules."""
    if isinstance(game, Othello):
        moves = othello_moves(state, player)
        if moves:
            return set(moves)
        return {game.pass_action} if othello_moves(state, -player) else set()
    if isinstance(game, ConnectFour):
        return {c for c in range(game.column_count) if state[0, c] == 0}
    return {a for a in range(9) if state.reshape(-1)[a] == 0}


def reference_next(game: Game, state: np.ndarray, action: int, player: int) -> np.ndarray:
    if isinstance(game, Othello):
        return othello_play(state, action, player)
    out = state.copy()
    if isinstance(game, ConnectFour):
        row = max(r for r in range(game.row_count) if out[r, action] == 0)
        out[row, action] = player
    else:
        out.reshape(-1)[action] = player
    return out


def reference_outcome(game: Game, state: np.ndarray, mover: int) -> tuple[float, bool]:
    """(value for the mover, terminated) by brute force."""
    if isinstance(game, Othello):
        if othello_moves(state, 1) or othello_moves(state, -1):
            return 0.0, False
        diff = int(np.sum(state == mover)) - int(np.sum(state == -mover))
        return float(np.sign(diff)), True
    in_a_row = game.in_a_row if isinstance(game, ConnectFour) else 3
    if has_line(state, mover, in_a_row):
        return 1.0, True
    return 0.0, not (state == 0).any()


@pytest.mark.parametrize("game, n_games", PLAYOUTS, ids=IDS)
def test_random_playouts_agree_with_reference(game: Game, n_games: int):
    rng = np.random.default_rng(1234)
    lengths = []
    for g in range(n_games):
        state, player = game.get_initial_state(), 1
        for ply in range(game.max_game_length + 1):
            assert ply < game.max_game_length, "game did not end within its maximum length"
            mask = game.get_valid_moves(state, player)
            assert set(np.flatnonzero(mask)) == reference_valid(game, state, player)
            action = int(rng.choice(np.flatnonzero(mask)))
            before = state.copy()
            state = game.get_next_state(state, action, player)
            np.testing.assert_array_equal(state, reference_next(game, before, action, player))
            value, terminated = game.get_value_and_terminated(state, action)
            ref_value, ref_terminated = reference_outcome(game, state, player)
            assert (value, terminated) == (ref_value, ref_terminated), (g, ply, game.render(state))
            assert game.check_win(state, action) == (terminated and value == 1.0)
            if terminated:
                lengths.append(ply + 1)
                break
            player = -player
    assert len(lengths) == n_games
    assert max(lengths) <= game.max_game_length


@pytest.mark.parametrize("game, n_games", PLAYOUTS, ids=IDS)
def test_valid_mask_is_exactly_what_does_not_raise_and_inputs_are_untouched(game: Game, n_games: int):
    rng = np.random.default_rng(99)
    for _ in range(max(20, n_games // 20)):
        state, player, terminated = game.get_initial_state(), 1, False
        while not terminated:
            mask = game.get_valid_moves(state, player)
            before = state.copy()
            for action in range(game.action_size):
                try:
                    game.get_next_state(state, action, player)
                    accepted = True
                except ValueError:
                    accepted = False
                assert accepted == bool(mask[action]), (action, game.render(state))
            # no call of the API changes its input
            game.get_valid_moves(state, player)
            game.get_encoded_state(state)
            game.change_perspective(state, -1)
            game.get_symmetries(state, mask.astype(float))
            game.render(state)
            np.testing.assert_array_equal(state, before)
            action = int(rng.choice(np.flatnonzero(mask)))
            state = game.get_next_state(state, action, player)
            game.check_win(state, action)
            after = state.copy()
            _, terminated = game.get_value_and_terminated(state, action)
            np.testing.assert_array_equal(state, after)
            player = -player


@pytest.mark.parametrize("game, n_games", PLAYOUTS, ids=IDS)
def test_symmetries_are_consistent(game: Game, n_games: int):
    rng = np.random.default_rng(7)
    expected_count = 2 if isinstance(game, ConnectFour) else 8
    assert game.num_symmetries == expected_count
    for _ in range(max(20, n_games // 10)):
        state, player, terminated = game.get_initial_state(), 1, False
        while not terminated:
            canonical = game.change_perspective(state, player)
            policy = rng.random(game.action_size)
            pairs = game.get_symmetries(canonical, policy)
            assert len(pairs) == expected_count
            np.testing.assert_array_equal(pairs[0][0], canonical)
            np.testing.assert_array_equal(pairs[0][1], policy)
            valid = game.get_valid_moves(canonical)
            for k, (sym_state, sym_policy) in enumerate(pairs):
                assert sym_policy.shape == policy.shape
                assert sorted(sym_policy) == sorted(policy)  # a permutation of the entries
                back_state, back_policy = game.invert_symmetry(k, sym_state, sym_policy)
                np.testing.assert_array_equal(back_state, canonical)
                np.testing.assert_array_equal(back_policy, policy)
                # the legal moves of the transformed state are the transformed legal moves
                _, sym_valid = game.apply_symmetry(k, canonical, valid)
                np.testing.assert_array_equal(game.get_valid_moves(sym_state), sym_valid)
            action = int(rng.choice(np.flatnonzero(game.get_valid_moves(state, player))))
            state = game.get_next_state(state, action, player)
            _, terminated = game.get_value_and_terminated(state, action)
            player = -player
