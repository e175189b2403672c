"""Player specs: one short string names a player and its settings, for the CLI, notebooks and scripts.

``random``, ``human``, ``perfect`` (Tic-Tac-Toe; Connect Four with the ``solver`` extra), ``greedy`` (Othello),
``negamax:DEPTH`` (Connect Four), ``mcts:SEARCHES``, ``alphazero:WEIGHTS[:SEARCHES]`` (PUCT),
``gumbel:WEIGHTS[:SEARCHES]`` (Gumbel AlphaZero), ``policy:WEIGHTS`` (greedy policy), ``sampled:WEIGHTS``,
``value:WEIGHTS``, ``mc:WEIGHTS[:ROLLOUTS]`` (Monte-Carlo rollouts) and ``kaggle:AGENT`` (kaggle-environments' agents).
"""

from __future__ import annotations

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

SPEC_HELP = (
    "random | human | perfect | greedy | negamax:DEPTH | mcts:SEARCHES | alphazero:WEIGHTS[:SEARCHES] | "
    "gumbel:WEIGHTS[:SEARCHES] | "
    "policy:WEIGHTS | sampled:WEIGHTS | value:WEIGHTS | mc:WEIGHTS[:ROLLOUTS] | kaggle:AGENT; "
    "WEIGHTS is a checkpoint path or shipped weights by name (connect_four, or connect_four@5 for iteration 5)"
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
    from alphazero_lib.config import LIMITS

    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"player spec {spec!r}: {kind} must be a positive integer, got {text!r}")
    limit, why = {"SEARCHES": LIMITS["num_searches"], "ROLLOUTS": (MAX_ROLLOUTS, "each is a whole random game")}.get(
        kind, (None, "")
    )
    if limit is not None and int(text) > limit:
        raise ValueError(f"player spec {spec!r}: {kind} must be at most {limit:,} ({why}), got {int(text):,}")
    return int(text)


def make_player(game: Game, spec: str, seed: int | None = None) -> Player:
    """The player a spec names, e.g. ``make_player(game, "mcts:1000", seed=0)``; its ``name`` is the spec.

    Raises ``ValueError`` for an unknown or malformed spec, or a player that does not play ``game``.
    """
    spec = str(spec).strip()
    kind, _, arg = spec.partition(":")
    kind = kind.lower()
    player: Player
    if kind in ("random", "human", "perfect", "greedy") and arg:
        raise ValueError(f"player spec {spec!r}: {kind!r} takes no argument")
    if kind in ("negamax", "mcts", "alphazero", "gumbel", "policy", "sampled", "value", "mc", "kaggle") and not arg:
        raise ValueError(f"player spec {spec!r}: {kind!r} needs an argument; specs: {SPEC_HELP}")
    if kind == "random":
        player = RandomPlayer(game, seed=seed)
    elif kind == "human":
        player = HumanPlayer(game)
    elif kind == "perfect":
        player = PerfectPlayer(game, seed=seed)
    elif kind == "greedy":
        player = GreedyPlayer(game, seed=seed)
    elif kind == "negamax":
        player = NegamaxPlayer(game, depth=_positive_int("DEPTH", arg, spec), seed=seed)
    elif kind == "mcts":
        player = MCTSPlayer(game, MCTSConfig(num_searches=_positive_int("SEARCHES", arg, spec), seed=seed))
    elif kind in ("alphazero", "gumbel"):
        weights, searches = arg, SearchConfig().num_searches if kind == "alphazero" else GUMBEL_PLAY_SEARCHES
        head, _, tail = arg.rpartition(":")
        if head and tail.isdigit():
            weights, searches = head, _positive_int("SEARCHES", tail, spec)
        policy = {"alphazero": "puct", "gumbel": "gumbel"}[kind]
        config = SearchConfig(num_searches=searches, seed=seed, policy=policy)
        player = AlphaZeroPlayer(game, resolve_weights(game, weights), config)
    elif kind in ("policy", "sampled"):
        player = PolicyPlayer(game, resolve_weights(game, arg), sample=kind == "sampled", seed=seed)
    elif kind == "value":
        player = ValuePlayer(game, resolve_weights(game, arg), seed=seed)
    elif kind == "mc":
        weights, rollouts = arg, None
        head, _, tail = arg.rpartition(":")
        if head and tail.isdigit():
            weights, rollouts = head, _positive_int("ROLLOUTS", tail, spec)
        options = {} if rollouts is None else {"num_rollouts": rollouts}
        player = MonteCarloPlayer(game, resolve_weights(game, weights), seed=seed, **options)
    elif kind == "kaggle":
        from alphazero_lib.kaggle import KagglePlayer

        player = KagglePlayer(game, arg, seed=seed)
    else:
        raise ValueError(f"unknown player spec {spec!r}; specs: {SPEC_HELP}")
    player.name = spec
    return player
