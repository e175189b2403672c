"""Player specs: one short string names a player and its settings, for the CLI, notebooks and scripts.

``KINDS`` is the table of kinds, one entry each (``random``, ``perfect``, ``negamax:DEPTH``, ``mcts:SEARCHES``,
``alphazero:WEIGHTS[:SEARCHES]``, ``kaggle:AGENT``, ...): its grammar, its help (``spec_help``) and the player it
builds. A new kind of player is one entry there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alphazero_lib.config import MCTSConfig, SearchConfig
from alphazero_lib.games.base import Game
from alphazero_lib.players import (
    AlphaZeroPlayer,
    GreedyPlayer,
    HumanPlayer,
    MCTSPlayer,
    MonteCarloPlayer,
    NegamaxPlayer,
    PerfectPlayer,
    Player,
    PolicyPlayer,
    RandomPlayer,
    ValuePlayer,
)

#: ``gumbel:WEIGHTS`` without a count: Gumbel AlphaZero needs few simulations (the fast recipe trains with 32)
GUMBEL_PLAY_SEARCHES = 64


def weights_path(text: str) -> Path:
    """The checkpoint file named by ``text``: shipped weights by registry name (``connect_four``, or
    ``connect_four@5`` for iteration 5; sha256-checked), else a checkpoint path. A shipped name always means the
    shipped weights; a file of the same name is read when written as a path (``./connect_four``).

    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` for a bad iteration.
    """
    from alphazero_lib.pretrained import available, pretrained_path

    name, _, iteration = text.partition("@")
    if name in available():  # shipped names come first: a file of that name in the current directory is not read
        if iteration and not iteration.isdigit():
            raise ValueError(f"weights {text!r}: the iteration after '@' must be a number")
        return pretrained_path(name, int(iteration) if iteration else None)
    path = Path(text).expanduser()
    if not path.is_file():
        shipped = ", ".join(sorted(available())) or "none yet"
        raise FileNotFoundError(f"weights {text!r} are neither a file nor shipped weights (shipped: {shipped})")
    return path


def resolve_weights(game: Game | None, text: str) -> Any:
    """The network named by ``text`` (see ``weights_path``) for ``game``.

    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` for weights of another game.
    """
    from alphazero_lib.checkpoints import load_model

    return load_model(weights_path(text), game)


#: The most rollouts a move of ``mc:WEIGHTS:ROLLOUTS`` may take (each is a whole random game).
MAX_ROLLOUTS = 100_000


def _positive_int(kind: str, text: str, spec: str) -> int:
    from alphazero_lib.config import cap_of

    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"player spec {spec!r}: {kind} must be a positive integer, got {text!r}")
    limit, why = {"SEARCHES": cap_of("num_searches"), "ROLLOUTS": (MAX_ROLLOUTS, "each is a whole random game")}.get(
        kind, (None, "")
    )
    if limit is not None and int(text) > limit:
        raise ValueError(f"player spec {spec!r}: {kind} must be at most {limit:,} ({why}), got {int(text):,}")
    return int(text)


@dataclass(frozen=True)
class Kind:
    """One kind of player spec: ``NAME``, ``NAME:ARGUMENT`` or ``NAME:WEIGHTS[:COUNT]``.

    ``argument`` is what follows the colon (``None``: nothing may; ``number``: a positive integer), ``count`` the
    optional number after the weights (``SEARCHES``, ``ROLLOUTS``) and ``default`` its value when left out
    (``None``: the player's own default); ``build(game, argument, count, seed)`` makes the player."""

    build: Callable[[Game, str, int | None, int | None], Player]
    argument: str | None = None
    number: bool = False
    count: str | None = None
    default: Callable[[], int] | None = None

    def grammar(self, name: str) -> str:
        """The spec's form, e.g. ``alphazero:WEIGHTS[:SEARCHES]``."""
        if self.argument is None:
            return name
        return f"{name}:{self.argument}" + (f"[:{self.count}]" if self.count else "")


def _kaggle_player(game: Game, agent: str, _: int | None, seed: int | None) -> Player:
    from alphazero_lib.kaggle import KagglePlayer

    return KagglePlayer(game, agent, seed=seed)


def _search_player(policy: str) -> Callable[[Game, str, int | None, int | None], Player]:
    def build(game: Game, weights: str, searches: int | None, seed: int | None) -> Player:
        config = SearchConfig(num_searches=searches, seed=seed, policy=policy)
        return AlphaZeroPlayer(game, resolve_weights(game, weights), config)

    return build


#: Every kind of player spec, by name: the grammar, the help and ``make_player`` all come from here.
KINDS: dict[str, Kind] = {
    "random": Kind(lambda game, _, __, seed: RandomPlayer(game, seed=seed)),
    "human": Kind(lambda game, _, __, seed: HumanPlayer(game)),
    # Tic-Tac-Toe; Connect Four with the solver extra
    "perfect": Kind(lambda game, _, __, seed: PerfectPlayer(game, seed=seed)),
    # Othello: the most discs now
    "greedy": Kind(lambda game, _, __, seed: GreedyPlayer(game, seed=seed)),
    "negamax": Kind(
        lambda game, depth, _, seed: NegamaxPlayer(game, depth=int(depth), seed=seed), argument="DEPTH", number=True
    ),
    "mcts": Kind(
        lambda game, searches, _, seed: MCTSPlayer(game, MCTSConfig(num_searches=int(searches), seed=seed)),
        argument="SEARCHES",
        number=True,
    ),
    "alphazero": Kind(
        _search_player("puct"), argument="WEIGHTS", count="SEARCHES", default=lambda: SearchConfig().num_searches
    ),
    "gumbel": Kind(
        _search_player("gumbel"), argument="WEIGHTS", count="SEARCHES", default=lambda: GUMBEL_PLAY_SEARCHES
    ),
    "policy": Kind(
        lambda game, weights, _, seed: PolicyPlayer(game, resolve_weights(game, weights), seed=seed), argument="WEIGHTS"
    ),
    "sampled": Kind(
        lambda game, weights, _, seed: PolicyPlayer(game, resolve_weights(game, weights), sample=True, seed=seed),
        argument="WEIGHTS",
    ),
    "value": Kind(
        lambda game, weights, _, seed: ValuePlayer(game, resolve_weights(game, weights), seed=seed), argument="WEIGHTS"
    ),
    "mc": Kind(
        lambda game, weights, rollouts, seed: MonteCarloPlayer(
            game, resolve_weights(game, weights), seed=seed, **({} if rollouts is None else {"num_rollouts": rollouts})
        ),
        argument="WEIGHTS",
        count="ROLLOUTS",
    ),
    # kaggle-environments' agents: kaggle:negamax, kaggle:random
    "kaggle": Kind(_kaggle_player, argument="AGENT"),
}


def spec_help() -> str:
    """Every kind's grammar, for ``--help`` and error messages (from ``KINDS``)."""
    return (
        " | ".join(kind.grammar(name) for name, kind in KINDS.items())
        + "; WEIGHTS is a checkpoint path or shipped weights by name (connect_four, or connect_four@5 for iteration 5)"
    )


def make_player(game: Game, spec: str, seed: int | None = None) -> Player:
    """The player a spec names, e.g. ``make_player(game, "mcts:1000", seed=0)``; its ``name`` is the spec.

    Raises ``ValueError`` for an unknown or malformed spec, or a player that does not play ``game``.
    """
    spec = str(spec).strip()
    name, _, argument = spec.partition(":")
    name = name.lower()
    if name not in KINDS:
        raise ValueError(f"unknown player spec {spec!r}; specs: {spec_help()}")
    kind = KINDS[name]
    if kind.argument is None and argument:
        raise ValueError(f"player spec {spec!r}: {name!r} takes no argument")
    if kind.argument is not None and not argument:
        raise ValueError(f"player spec {spec!r}: {name!r} needs an argument; specs: {spec_help()}")
    count = None
    if kind.count is not None:
        head, _, tail = argument.rpartition(":")
        if head and tail.isdigit():
            argument, count = head, _positive_int(kind.count, tail, spec)
        elif kind.default is not None:
            count = kind.default()
    elif kind.number:
        argument = str(_positive_int(kind.argument, argument, spec))
    player = kind.build(game, argument, count, seed)
    player.name = spec
    return player
