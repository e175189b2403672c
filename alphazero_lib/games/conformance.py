"""What every game must do to work with the library's searches, trainer and players: one check, run over every
registered game by the tests, and the first thing to run on a new game.

    >>> from alphazero_lib.games import make_game
    >>> from alphazero_lib.games.conformance import check_game
    >>> check_game(make_game("tictactoe"), playouts=5)

``check_game`` plays seeded random games and raises ``GameConformanceError`` naming the first rule the game
breaks, with the position. It checks:

- the API members (``games/base.py`` lists them) and an identity that ``make_game`` rebuilds;
- no call changes its input (states and policies);
- encoded states: three float32 planes, for one state and for a batch;
- the symmetries: a round trip gives the input back, and the legal moves move with the board;
- the legal-move mask is exactly the set of actions ``get_next_state`` accepts, and a finished game accepts none;
- the game ends within ``max_game_length``;
- the batched rules (``game.batched_rules()``, or the generic loop) equal the game's own rules;
- with a ``reference`` (naive rules written independently), every move and outcome agrees with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from alphazero_lib.games import GAMES, make_game
from alphazero_lib.games.base import STATE_DTYPE, Game
from alphazero_lib.games.batched_rules import batched_rules_for

__all__ = ["REQUIRED_MEMBERS", "GameConformanceError", "Reference", "check_game"]

#: What a game provides (``games/base.py``): attributes, then methods (the abstract ones and those with defaults).
REQUIRED_MEMBERS = (
    "row_count",
    "column_count",
    "action_size",
    "registry_name",
    "board_style",
    "options",
    "config",
    "max_game_length",
    "get_initial_state",
    "get_valid_moves",
    "get_next_state",
    "check_win",
    "get_value_and_terminated",
    "get_opponent",
    "get_opponent_value",
    "change_perspective",
    "get_encoded_state",
    "num_symmetries",
    "apply_symmetry",
    "invert_symmetry",
    "get_symmetries",
    "action_to_string",
    "string_to_action",
    "render",
    "batched_rules",
)


class GameConformanceError(AssertionError):
    """A game breaks a rule the library relies on; the message names the rule and the position."""


@dataclass(frozen=True)
class Reference:
    """Naive rules written independently of the game's code, to compare random playouts with.

    ``valid(state, player) -> set of actions``; ``next(state, action, player) -> state``;
    ``outcome(state, mover) -> (value for the mover, terminated)``.
    """

    valid: Callable[[np.ndarray, int], set[int]]
    next: Callable[[np.ndarray, int, int], np.ndarray]
    outcome: Callable[[np.ndarray, int], tuple[float, bool]]


def check_game(game: Game, *, playouts: int = 20, seed: int = 0, reference: Reference | None = None) -> None:
    """Play ``playouts`` seeded random games of ``game`` and check every rule in the module's docstring.

    Raises ``GameConformanceError`` for the first rule broken, saying which and where.
    """
    _check_members(game)
    rng = np.random.default_rng(seed)
    rules = batched_rules_for(game)
    canonical: list[np.ndarray] = []
    for number in range(playouts):
        state, player = game.get_initial_state(), 1
        for ply in range(game.max_game_length + 1):
            where = f"{game!r}, playout {number} (seed {seed}), move {ply + 1}, player {player}:\n{game.render(state)}"
            _require(ply < game.max_game_length, f"{where}\nthe game did not end within max_game_length")
            mask = _check_position(game, state, player, rng, where, reference)
            canonical.append(game.change_perspective(state, player))
            action = int(rng.choice(np.flatnonzero(mask)))
            before = state.copy()
            child = game.get_next_state(state, action, player)
            _same(state, before, f"{where}\nget_next_state changed its input state")
            value, terminated = game.get_value_and_terminated(child, action)
            _require(value in (-1.0, 0.0, 1.0), f"{where}\nget_value_and_terminated gave the value {value!r}")
            _require(
                game.check_win(child, action) == (terminated and value == 1.0),
                f"{where}\ncheck_win after {action} disagrees with get_value_and_terminated ({value}, {terminated})",
            )
            if reference is not None:
                _same(child, reference.next(before, action, player), f"{where}\nafter {action}: not the reference's")
                expected = reference.outcome(child, player)
                _require(
                    (value, terminated) == expected,
                    f"{where}\nafter {action}: {(value, terminated)}, the reference says {expected}",
                )
            state = child
            if terminated:
                refused = [a for a in range(game.action_size) if _accepts(game, state, a, -player)]
                _require(not refused, f"{where}\nthe game is over after {action}, yet get_next_state accepts {refused}")
                break
            player = -player
    _check_batched(game, rules, np.stack(canonical), rng)


# ---- the checks ---------------------------------------------------------------------------------------------
def _check_members(game: Game) -> None:
    missing = [name for name in REQUIRED_MEMBERS if not hasattr(game, name)]
    _require(not missing, f"{game!r} lacks {missing} (games/base.py lists what a game implements)")
    shape = (game.row_count, game.column_count)
    initial = game.get_initial_state()
    _require(
        isinstance(initial, np.ndarray) and initial.shape == shape and initial.dtype == STATE_DTYPE,
        f"{game!r}: get_initial_state() must be an int8 array of shape {shape}",
    )
    config = game.config
    _require(config.get("name") == game.registry_name, f"{game!r}: config['name'] must be its registry_name")
    if game.registry_name in GAMES:
        _require(make_game(**config) == game, f"{game!r}: make_game(**game.config) rebuilds another game")


def _check_position(
    game: Game, state: np.ndarray, player: int, rng: np.random.Generator, where: str, reference: Reference | None
) -> np.ndarray:
    """The checks on one position before a move; returns the legal-move mask."""
    before = state.copy()

    def untouched(call: str) -> None:
        _same(state, before, f"{where}\n{call} changed its input state")

    mask = np.asarray(game.get_valid_moves(state, player))
    untouched("get_valid_moves")
    _require(mask.shape == (game.action_size,), f"{where}\nget_valid_moves has shape {mask.shape}")
    _require(mask.any(), f"{where}\nan unfinished game where the player to move has no legal action")
    accepted = [a for a in range(game.action_size) if _accepts(game, state, a, player)]
    legal = [int(a) for a in np.flatnonzero(mask)]
    _require(accepted == legal, f"{where}\nget_valid_moves says {legal}, get_next_state accepts {accepted}")
    if reference is not None:
        expected = sorted(reference.valid(state, player))
        _require(legal == expected, f"{where}\nlegal moves {legal}, the reference says {expected}")

    encoded = game.get_encoded_state(state)
    untouched("get_encoded_state")
    planes = (3, game.row_count, game.column_count)
    _require(
        encoded.shape == planes and encoded.dtype == np.float32,
        f"{where}\nget_encoded_state gives {encoded.shape} {encoded.dtype}, not {planes} float32",
    )
    batch = game.get_encoded_state(np.stack([state, state]))
    _require(batch.shape == (2, *planes), f"{where}\nget_encoded_state of a batch of 2 gives {batch.shape}")

    canonical = game.change_perspective(state, player)
    untouched("change_perspective")
    kept_canonical = canonical.copy()
    policy = rng.random(game.action_size)
    kept_policy = policy.copy()
    pairs = game.get_symmetries(canonical, policy)
    _same(canonical, kept_canonical, f"{where}\nget_symmetries changed its input state")
    _same(policy, kept_policy, f"{where}\nget_symmetries changed its input policy")
    _require(len(pairs) == game.num_symmetries, f"{where}\nget_symmetries gives {len(pairs)} pairs")
    valid = game.get_valid_moves(canonical)
    for k, (moved_state, moved_policy) in enumerate(pairs):
        back_state, back_policy = game.invert_symmetry(k, moved_state, moved_policy)
        _same(back_state, canonical, f"{where}\ninvert_symmetry({k}) does not give the state back")
        _same(back_policy, policy, f"{where}\ninvert_symmetry({k}) does not give the policy back")
        _, moved_valid = game.apply_symmetry(k, canonical, valid)
        _same(game.get_valid_moves(moved_state), moved_valid, f"{where}\nsymmetry {k} does not move the legal moves")
    game.render(state)
    game.action_to_string(legal[0])
    untouched("render")
    return mask


def _check_batched(game: Game, rules: Any, states: np.ndarray, rng: np.random.Generator) -> None:
    """The batched rules on every canonical position of the playouts equal the game's own rules."""
    before = states.copy()
    valid = rules.valid_moves(states)
    expected_valid = np.array([game.get_valid_moves(s) for s in states], dtype=bool)
    _same(valid, expected_valid, f"{game!r}: the batched rules' legal moves differ from get_valid_moves")
    actions = np.array([rng.choice(np.flatnonzero(v)) for v in expected_valid])
    children, values, terminated, child_valid = rules.step(states, actions)
    _same(states, before, f"{game!r}: the batched rules changed their input states")
    for i, (state, action) in enumerate(zip(states, actions, strict=True)):
        where = f"{game!r}: batched rules, canonical position {i} and action {action}:\n{game.render(state)}"
        child = game.change_perspective(game.get_next_state(state, int(action), 1), -1)
        _same(children[i], child, f"{where}\nthe child state differs from the game's")
        outcome = game.get_value_and_terminated(child, int(action))
        _require((values[i], terminated[i]) == outcome, f"{where}\n{(values[i], terminated[i])}, the game: {outcome}")
        _same(child_valid[i], game.get_valid_moves(child).astype(bool), f"{where}\nthe child's legal moves differ")


# ---- helpers --------------------------------------------------------------------------------------------------
def _accepts(game: Game, state: np.ndarray, action: int, player: int) -> bool:
    try:
        game.get_next_state(state, action, player)
    except ValueError:
        return False
    return True


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise GameConformanceError(message)


def _same(actual: Any, expected: Any, message: str) -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    _require(actual.shape == expected.shape and np.array_equal(actual, expected), message)
