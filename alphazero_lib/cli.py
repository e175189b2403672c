"""The command line: ``python -m alphazero_lib COMMAND --help``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from alphazero_lib.config import (
    DEVICES,
    FLAG_GROUPS,
    MAX_SEED,
    MAX_THREADS,
    SearchConfig,
    cap_of,
    choices_of,
    field_docs,
    setting_flags,
)
from alphazero_lib.games import GAMES, make_game
from alphazero_lib.utils import cpu_cores

#: Every command that takes --game plays Connect Four unless told otherwise (train alone asks for it).
DEFAULT_GAME = "connect_four"
#: The games kaggle-environments has: the playoff and kaggle-eval commands offer these only.
KAGGLE_GAMES = ("connect_four", "tictactoe")
#: playoff's players when none are given: the shipped model against kaggle's strongest built-in agent.
PLAYOFF_DEFAULTS = {
    "connect_four": ("alphazero:connect_four", "kaggle:negamax"),
    "tictactoe": ("alphazero:tictactoe", "kaggle:reaction"),
}


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``prog: error: argument --games: must be ... (see --help)``, exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _whole_number_example(text: str) -> str:
    """How to write ``text`` as a whole number where it is one written as a float (``"1e3"``: ``", written without a
    decimal point or exponent, for example 1000"``), else ``""``."""
    try:
        value = float(text)
    except ValueError:
        return ""
    return f", written without a decimal point or exponent, for example {int(value)}" if value.is_integer() else ""


def _integer(text: str, least: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}{_whole_number_example(text)}, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
    return value


def _positive_int(text: str) -> int:
    return _integer(text, 1, "a positive integer")


def _non_negative_int(text: str) -> int:
    return _integer(text, 0, "a non-negative integer")


def _seed(text: str) -> int:
    value = _integer(text, 0, "a non-negative integer (a seed)")
    if value > MAX_SEED - 1:
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_SEED - 1:,} (seeds are 64-bit integers for torch, and a second player gets "
            f"seed + 1), got a {len(str(value))}-digit number"
        )
    return value


def _limited(name: str, least: int = 1) -> Callable[[str], int]:
    """An argparse type: an integer from ``least`` up to the cap of the setting ``name`` (``config.cap_of``), whose
    error gives the reason."""
    limit, why = cap_of(name)
    return _bounded(limit, why, least)


def _bounded(limit: int, why: str, least: int = 1) -> Callable[[str], int]:
    """An argparse type: an integer from ``least`` up to ``limit`` (``why`` says why)."""

    def parse(text: str) -> int:
        value = _integer(text, least, "a positive integer" if least == 1 else "a non-negative integer")
        if value > limit:
            raise argparse.ArgumentTypeError(f"must be at most {limit:,} ({why}), got {value:,}")
        return value

    return parse


def _file_ending(*suffixes: str, what: str) -> Callable[[str], str]:
    """An argparse type: a file name that ends in one of ``suffixes`` (any case), since ``what`` is written there;
    refused when the command starts, before any work."""

    def parse(text: str) -> str:
        if not text.lower().endswith(suffixes):
            raise argparse.ArgumentTypeError(
                f"must be a file name ending in {' or '.join(suffixes)} ({what} is written there), got {text!r}"
            )
        return text

    return parse


def _per_core(what: str, ceiling: int | None = None):
    """An argparse type for a count of ``what`` (threads, processes): 1 to 4 per core of this machine, and at most
    ``ceiling`` when given."""

    def parse(text: str) -> int:
        value, most = _integer(text, 1, "a positive integer"), 4 * cpu_cores()
        if ceiling is not None:
            most = min(most, ceiling)
        if value > most:
            raise argparse.ArgumentTypeError(
                f"must be at most {most} (4 x the {cpu_cores()} cores of this machine: more {what} only wait on each "
                f"other), got {value:,}"
            )
        return value

    return parse


_threads = _per_core("threads", MAX_THREADS)
_workers = _per_core("processes")


def _number(text: str, positive: bool) -> float:
    import math

    what = "a finite positive number" if positive else "a finite non-negative number"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text}")
    return value


def _positive_float(text: str) -> float:
    return _number(text, positive=True)


def _learning_rate(text: str) -> float:
    value = _number(text, positive=True)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be at most 1 (Adam diverges far below that), got {text}")
    return value


def _on_off(text: str) -> bool:
    if text not in ("on", "off"):
        raise argparse.ArgumentTypeError(f"must be on or off, got {text!r}")
    return text == "on"


def _non_negative_float(text: str) -> float:
    return _number(text, positive=False)


_THREADS_HELP = "torch threads for a network player's move (default 1: one state at a time runs best on one)"


def _set_threads(threads: int | None, *players: object) -> None:
    """Give network players ``threads`` torch threads a move (they default to one)."""
    if threads is not None:
        for player in players:
            if hasattr(player, "num_threads"):
                player.num_threads = threads


def _add_game_argument(
    parser: argparse.ArgumentParser, default: str = DEFAULT_GAME, games: Sequence[str] | None = None
) -> None:
    choices = sorted(games or GAMES)
    parser.add_argument("--game", default=default, choices=choices, help=f"which game (default {default})")


def _spec_help() -> str:
    from alphazero_lib.specs import spec_help

    return spec_help()


# ---- demo -----------------------------------------------------------------------------------------
def _demo(args: argparse.Namespace) -> int:
    """Play one game between two players (random by default) and print every position."""
    from alphazero_lib.arena import play_game
    from alphazero_lib.specs import make_player

    game = make_game(args.game)
    first = make_player(game, args.player1, seed=args.seed)
    second = make_player(game, args.player2, seed=args.seed + 1)
    print(f"{game}: {first.name} (X) vs {second.name} (O)\n")
    play_game(game, first, second, log=print)
    return 0


def _demo_arguments(parser: argparse.ArgumentParser) -> None:
    _add_game_argument(parser)
    parser.add_argument("--seed", type=_seed, default=0, help="random seed (default 0)")
    parser.add_argument("--player1", default="random", metavar="SPEC", help="first player's spec (default random)")
    parser.add_argument("--player2", default="random", metavar="SPEC", help="second player's spec (default random)")


# ---- arena ----------------------------------------------------------------------------------------
def _arena(args: argparse.Namespace) -> int:
    """Play a match with alternating first player; print the results by seat or one JSON object."""
    import json

    from alphazero_lib.arena import exhaustive_check, play_match
    from alphazero_lib.specs import make_player
    from alphazero_lib.utils import Interrupted

    game = make_game(args.game)
    player1 = make_player(game, args.player1, seed=args.seed)
    if args.exhaustive:
        from alphazero_lib.players import PerfectPlayer

        ignored = [flag for flag, value in (("--player2", args.player2), ("--openings", args.openings)) if value]
        if ignored:
            raise ValueError(
                f"--exhaustive plays player 1 against every reply (and every perfect one) from the empty board, so "
                f"{' and '.join(ignored)} would be ignored; drop {'them' if len(ignored) > 1 else 'it'}"
            )

        perfect = PerfectPlayer(game)  # raises a clear error for a game it does not play
        results = [exhaustive_check(game, player1, seat, replies) for replies in (None, perfect) for seat in (1, -1)]
        if args.json:
            print(json.dumps({"game": args.game, "player": args.player1, "lines": [vars(r) for r in results]}))
        else:
            print("\n".join(f"{args.player1} {r}" for r in results))
        return 0
    if args.player2 is None:
        raise ValueError("--player2 is required (unless --exhaustive)")
    seed2 = None if args.seed is None else args.seed + 1
    player2 = make_player(game, args.player2, seed=seed2)
    _set_threads(args.threads, player1, player2)
    interrupted = False
    try:
        progress = not args.no_progress
        openings = args.openings or 0
        result = play_match(game, player1, player2, args.games, progress, opening_moves=openings, seed=args.seed)
    except Interrupted as stop:  # Ctrl-C: the games finished so far
        result, interrupted = stop.partial, True
    if args.json:
        settings = {"game": args.game, "seed": args.seed, "opening_moves": args.openings or 0}
        print(json.dumps({**settings, **result.to_dict(), "games_asked": args.games, "interrupted": interrupted}))
    else:
        print(f"{game}: {result}" + (f" (interrupted: {result.games} of {args.games} games)" if interrupted else ""))
    if interrupted:
        print("interrupted", file=sys.stderr)
        return 130
    return 0


def _arena_arguments(parser: argparse.ArgumentParser) -> None:
    _add_game_argument(parser)
    parser.add_argument("--player1", required=True, metavar="SPEC", help=f"player spec: {_spec_help()}")
    parser.add_argument("--player2", metavar="SPEC", help="the other player's spec")
    parser.add_argument(
        "--games",
        type=_bounded(1_000_000, "a million games take days even for random players"),
        default=10,
        help="games to play (default 10)",
    )
    parser.add_argument("--seed", type=_seed, default=0, help="seed of player 1; player 2 gets seed + 1 (default 0)")
    parser.add_argument(
        "--openings",
        type=_limited("opening_moves", least=0),
        default=None,
        metavar="K",
        help="start each pair of games from a random K-move opening",
    )
    parser.add_argument(
        "--exhaustive",
        action="store_true",
        help="Tic-Tac-Toe: player 1 on both seats against every reply, and against every perfect reply",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a summary line")
    parser.add_argument("--threads", type=_threads, default=None, help=_THREADS_HELP)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


# ---- play -----------------------------------------------------------------------------------------
def _play(args: argparse.Namespace) -> int:
    """A person against any player in the terminal; the board is redrawn after every move."""
    from alphazero_lib.arena import play_game
    from alphazero_lib.players import HumanPlayer
    from alphazero_lib.specs import make_player

    game = make_game(args.game)
    opponent = make_player(game, args.opponent, seed=args.seed)
    _set_threads(args.threads, opponent)
    human = HumanPlayer(game)
    human.name = "you"
    first, second = (human, opponent) if args.first else (opponent, human)
    print(f"{game}: {first.name} (X) vs {second.name} (O)\n")
    record = play_game(game, first, second, log=print)
    you = 1 if args.first else -1
    print("you " + ("drew" if record.winner == 0 else "won" if record.winner == you else "lost"))
    return 0


def _play_arguments(parser: argparse.ArgumentParser) -> None:
    _add_game_argument(parser)
    parser.add_argument("--opponent", default="random", metavar="SPEC", help=f"player spec: {_spec_help()}")
    parser.add_argument("--first", action="store_true", help="you move first (X)")
    parser.add_argument("--threads", type=_threads, default=None, help=_THREADS_HELP)
    parser.add_argument("--seed", type=_seed, default=None, help="the opponent's seed (default: fresh)")


# ---- train ----------------------------------------------------------------------------------------
#: Flags that parse more than their field's own check, as every command's flag of that name does: the machine's
#: cores, the words other commands share. Every other setting flag is its field's alone (``config.setting_flags``).
_FLAG_PARSERS: dict[str, Callable[[str], object]] = {"--seed": _seed, "--threads": _threads, "--lr": _learning_rate}


def _config_flag(group: argparse._ActionsContainer, flag: str, owner: type, name: str) -> None:
    """Add ``flag`` for the field ``name`` of ``owner`` (TrainConfig or SearchConfig), its value under ``args.name``:
    parsed by its annotation, limited to the field's ``choices``, checked by the dataclass (its message, under the
    flag's name), helped by its docstring."""
    from dataclasses import fields

    kind = str(next(f.type for f in fields(owner) if f.name == name))
    first = _first_sentence(field_docs(owner)[name]).replace("%", "%%")
    parse = _FLAG_PARSERS.get(flag)
    if parse is None:
        kinds = {"bool": _on_off, "int": _integer_text, "float": _float_text}
        parse = next((kinds[k] for k in kinds if k in kind), str)

    def checked(text: str) -> object:
        value = parse(text)
        try:
            owner(**{name: value})  # the dataclass's own checks, one field at a time
        except ValueError as err:
            raise argparse.ArgumentTypeError(_without_owner(str(err))) from None
        return value

    choices = choices_of(name)
    metavar = "|".join(choices) if choices and len(choices) > 3 else None
    group.add_argument(
        flag,
        dest=name,
        type=checked,
        default=None,
        choices=choices if metavar is None else None,
        metavar=metavar or ("N" if "int" in kind else "X" if "float" in kind else "on|off" if "bool" in kind else None),
        help=f"{first} ({owner.__name__}.{name})",
    )


def _first_sentence(doc: str) -> str:
    """A docstring's first sentence (a full stop outside parentheses ends it), without reST's double backticks."""
    text, depth = doc.replace("``", ""), 0
    for i, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if depth == 0 and text.startswith(". ", i):
            return text[:i]
    return text.rstrip(".")


def _integer_text(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number{_whole_number_example(text)}, got {text!r}") from None


def _float_text(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None


def _without_owner(message: str) -> str:
    """A dataclass's ``"TrainConfig.num_iterations must be ..."`` as a flag's ``"must be ..."``."""
    import re

    return re.sub(r"^(?:\w+\.)?\w+ must ", "must ", message, count=1)


def _train(args: argparse.Namespace) -> int:
    """Train (or resume) an AlphaZero run in ``--out``: a checkpoint every iteration, resumable with --resume.

    What the run trains, and which settings it refuses, is ``rundir.open_run``'s decision (a new run from
    ``--config``, ``--preset`` or the game's preset; a resume from the run's record, with ``--config``/``--preset``
    and the flags applied as said changes); ``main`` reports its refusals under the flags' names.
    """
    from alphazero_lib.rundir import open_run
    from alphazero_lib.training import build_trainer

    overrides = {name: getattr(args, name) for _, _, name, _ in setting_flags() if getattr(args, name) is not None}
    if args.ray is not None:  # --ray [ADDRESS]: self-play actors on Ray (a local instance without an address)
        overrides.update(executor="ray", ray_address=None if args.ray == "local" else args.ray)
    run = open_run(
        args.out,
        game=args.game,
        preset=args.preset,
        config_file=args.config_file,
        overrides=overrides,
        resume=args.resume,
        overwrite=args.overwrite,
    )
    config = run.config
    if config.executor == "ray":
        from alphazero_lib.executors import import_ray

        import_ray()  # before anything is written: a missing Ray is said now, with the command that installs it
    trainer = build_trainer(run.game, config, progress=not args.no_progress, run=run)
    trainer.resume()  # the checkpoint the run continues from, said before the network is (learn would do it too)
    print(
        f"{trainer.model.summary().splitlines()[0]} on {trainer.model.device}; {config.self_play} self-play"
        + (
            f" ({config.num_parallel_games} games in flight, {config.num_workers} worker(s), "
            f"inference {config.inference_mode})"
            if config.self_play == "batched"
            else ""
        )
        + (f" on Ray ({config.ray_address or 'a local instance'})" if config.executor == "ray" else "")
        + f"; run dir {run.path}"
    )
    trainer.learn(None if args.time_budget is None else 60.0 * args.time_budget)
    print(f"done: {trainer.iteration} iterations; weights in {run.path / 'latest.pt'}")
    return 0


def _train_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default=None, choices=sorted(GAMES), help="which game (required for a new run)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--preset", default=None, help="a TrainConfig preset (default: the game's, if any)")
    source.add_argument("--config", dest="config_file", default=None, metavar="FILE", help="TrainConfig fields as JSON")
    parser.add_argument("--out", required=True, metavar="RUN_DIR", help="run directory (checkpoints, history, plots)")
    parser.add_argument("--resume", action="store_true", help="continue the run in RUN_DIR where it stopped")
    parser.add_argument(
        "--overwrite", action="store_true", help="start afresh in a RUN_DIR that holds a run, replacing its checkpoints"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars (the per-iteration lines stay)")
    parser.add_argument(
        "--time-budget",
        type=_positive_float,
        default=None,
        metavar="MINUTES",
        help="stop after the iteration that passes this many minutes of wall time (--resume continues)",
    )
    groups = {key: parser.add_argument_group(title) if title else parser for key, title in FLAG_GROUPS.items()}
    for flag, owner, name, group in setting_flags():
        _config_flag(groups[group], flag, owner, name)
    groups["self_play"].add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="batched self-play on Ray actors, one per --workers: a local Ray instance, or the cluster at ADDRESS "
        '(e.g. auto, HOST:6379); needs pip install -e ".[distributed]"',
    )


# ---- bench ----------------------------------------------------------------------------------------
def _bench(args: argparse.Namespace) -> int:
    """Throughput figures: ``bench selfplay`` compares serial and batched self-play on one network."""
    import json
    import time

    from alphazero_lib.bench import format_selfplay, selfplay_benchmark

    result = selfplay_benchmark(
        args.game,
        preset=args.preset,
        num_searches=args.searches,
        num_games=args.games,
        seconds=args.seconds,
        mode=args.mode,
        reuse_tree=args.reuse_tree,
        threads=args.threads,
        progress=not args.no_progress,
        spent_before=time.perf_counter() - args.started,  # --seconds counts from the command's start (torch's import)
        device=args.device,
    )
    print(json.dumps(result, indent=1) if args.json else format_selfplay(result))
    return 0


def _bench_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", choices=["selfplay"], help="which benchmark")
    _add_game_argument(parser)
    parser.add_argument("--preset", default=None, help="network size and search settings (default: the game's)")
    parser.add_argument(
        "--searches", type=_limited("num_searches"), default=None, help="search simulations per move (default: preset)"
    )
    parser.add_argument(
        "--games",
        type=_limited("num_parallel_games"),
        default=64,
        help="games in flight in batched self-play (default 64)",
    )
    parser.add_argument(
        "--seconds",
        type=_positive_float,
        default=60.0,
        help="the whole command's time (default 60): a fifth of what is left after loading torch and building the "
        "network times the network alone, the rest self-play; a call under way always finishes, so it may run over "
        "by one network call of each kind timed and one self-play move of each side (the searches are cut to fit), "
        "plus Python's start-up",
    )
    parser.add_argument(
        "--mode",
        default="auto",
        help="inference mode of batched self-play, the only one timed (default auto: every mode that can win here; "
        "bf16 only on a CPU with bfloat16 units)",
    )
    parser.add_argument(
        "--threads",
        type=_threads,
        default=1,
        help="torch threads (default 1, as the players: a second thread spin-waits when the machine is busy)",
    )
    parser.add_argument(
        "--device",
        choices=DEVICES,
        default="cpu",
        help="where the network runs (default cpu; auto: a CUDA GPU when there is one); the search trees stay on "
        "the CPU",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--reuse-tree", action="store_true", help="keep the played move's subtree between moves")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


# ---- export-kaggle --------------------------------------------------------------------------------
def _export_kaggle(args: argparse.Namespace) -> int:
    """Write a one-file ConnectX submission (numpy only at play time) for Connect Four weights."""
    from alphazero_lib.kaggle import export_submission
    from alphazero_lib.specs import resolve_weights

    model = resolve_weights(None, args.weights)
    path = export_submission(model, args.out, num_searches=args.searches, C=args.C)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB): {model.game!r}, up to {args.searches} searches a move")
    return 0


def _export_kaggle_arguments(parser: argparse.ArgumentParser) -> None:
    _add_export_arguments(parser, "submission.py", "the file to write", "search simulations per move at most")


# ---- export-web -----------------------------------------------------------------------------------
def _export_web(args: argparse.Namespace) -> int:
    """Write a folder with a static page that plays the weights as alphazero:W:N does (onnxruntime-web)."""
    from alphazero_lib.specs import resolve_weights
    from alphazero_lib.web.page import export_web, page_size

    model = resolve_weights(None, args.weights)
    settings = {"num_searches": args.searches, "C": args.C, "ort_web": args.ort_web, "title": args.title}
    out = export_web(model, args.out, source=args.weights, **settings)
    total = page_size(out)["total"]
    print(
        f"wrote {out}/ ({total / 1e6:.1f} MB): {model.game!r}, {args.searches} searches a move by default; serve it "
        f"with `python -m http.server --directory {out} 8000` and open http://localhost:8000 (not from file://)"
    )
    return 0


def _export_web_arguments(parser: argparse.ArgumentParser) -> None:
    searches = "search simulations per move, the page's default (the player can change it)"
    _add_export_arguments(parser, "alphazero_web", "the folder to write", searches)
    parser.add_argument(
        "--ort-web",
        default=None,
        metavar="DIR",
        help="where onnxruntime-web's npm files are (default $ALPHAZERO_ORT_WEB, else ~/.cache/alphazero_lib/"
        "onnxruntime-web-VERSION; the error says the npm command that installs them)",
    )
    parser.add_argument("--title", default=None, help="the page's title (default: the weights' name)")


# ---- playoff --------------------------------------------------------------------------------------
def _playoff(args: argparse.Namespace) -> int:
    """One game in kaggle-environments, written as a self-contained HTML animation (and optionally a GIF)."""

    from alphazero_lib.animation import playoff_html, save_gif
    from alphazero_lib.kaggle import episode_states, kaggle_agents, run_episode
    from alphazero_lib.specs import make_player
    from alphazero_lib.utils import atomic_write_bytes

    game = make_game(args.game)

    def playoff_agent(spec: str, seed: int) -> object:
        """A kaggle built-in by name (``negamax``; ``kaggle:negamax`` also works), else the player ``spec`` names."""
        name = spec.removeprefix("kaggle:")
        return name if name in kaggle_agents(game) else make_player(game, spec, seed=seed)

    default1, default2 = PLAYOFF_DEFAULTS[args.game]
    args.player1, args.player2 = args.player1 or default1, args.player2 or default2
    agents = playoff_agent(args.player1, args.seed), playoff_agent(args.player2, args.seed + 1)
    env = run_episode(game, *agents, seed=args.seed)
    states = episode_states(game, env)
    rewards = [agent["reward"] for agent in env.steps[-1]]
    statuses = [agent["status"] for agent in env.steps[-1]]
    if statuses != ["DONE", "DONE"]:
        result = f"ended with statuses {statuses}"
    elif rewards[0] == rewards[1]:
        result = "draw"
    else:
        result = f"{args.player1 if rewards[0] > rewards[1] else args.player2} wins"
    captions = [f"move {i}" for i in range(len(states) - 1)] + [f"move {len(states) - 1}: {result}"]
    title = f"{args.player1} (X) vs {args.player2} (O)"
    out = Path(args.out)
    page = playoff_html(
        game, states, captions, title=title, players=f"{game!r}: {result}", names=(args.player1, args.player2)
    )
    atomic_write_bytes(out, page.encode())  # a failed write (full disk) leaves the old page whole
    print(f"{title}: {result} in {len(states) - 1} moves; wrote {out}")
    if args.gif:
        print(f"wrote {save_gif(game, states, args.gif, captions)}")  # atomic too
    return 0


def _playoff_arguments(parser: argparse.ArgumentParser) -> None:
    _add_game_argument(parser, games=KAGGLE_GAMES)
    parser.add_argument(
        "--player1",
        default=None,
        metavar="SPEC",
        help="first player: a spec or kaggle:NAME (default alphazero:connect_four, the shipped model; "
        "alphazero:tictactoe with --game tictactoe)",
    )
    parser.add_argument(
        "--player2",
        default=None,
        metavar="SPEC",
        help="second player (default kaggle:negamax; kaggle:reaction with --game tictactoe)",
    )
    parser.add_argument(
        "--out",
        default="playoff.html",
        type=_file_ending(".html", ".htm", what="an HTML page"),
        help="HTML file to write (default playoff.html)",
    )
    parser.add_argument(
        "--gif", default=None, type=_file_ending(".gif", what="an animated GIF"), help="also write an animated GIF here"
    )
    parser.add_argument("--seed", type=_seed, default=0, help="seed for both players (default 0)")


# ---- kaggle-eval ----------------------------------------------------------------------------------
def _kaggle_eval(args: argparse.Namespace) -> int:
    """A player or a submission file against kaggle's built-in agents, N episodes on each seat."""
    import json

    from alphazero_lib.kaggle import evaluate_against_builtin, load_submission
    from alphazero_lib.specs import make_player
    from alphazero_lib.utils import Interrupted

    game = make_game(args.game)

    def fresh_agent() -> object:
        """The submission file's agent, or the player the spec names: a new one, seeded alike, per opponent."""
        if args.player.endswith(".py"):
            return load_submission(args.player, game)  # a submission for another game is refused
        return make_player(game, args.player, seed=args.seed)

    results = []
    try:  # Ctrl-C: the results so far are printed, the opponent under way with the episodes it finished
        for opponent in args.opponents:
            results.append(
                evaluate_against_builtin(
                    game,
                    fresh_agent(),
                    opponent,
                    episodes=args.episodes,
                    seed=args.seed,
                    progress=not args.no_progress,
                    name=args.player,
                )
            )
    except Interrupted as stop:
        results.append(stop.partial)
    interrupted = bool(results) and results[-1]["interrupted"]
    if args.json:
        print(json.dumps(results))
    else:
        for r in results:
            score = "no episode finished" if r["score"] is None else f"score {r['score']:.3f}"
            stopped = f" (interrupted: {r['episodes_played']} of {2 * r['episodes_per_seat']} episodes)"
            print(
                f"{r['spec']} vs {r['opponent']}: first seat {r['first']}, second seat {r['second']}; "
                f"{score}; slowest move {r['max_move_seconds']:.3f} s{stopped if r['interrupted'] else ''}"
            )
    if interrupted:
        left = args.opponents[len(results) :]
        print(f"interrupted{'; not played: ' + ', '.join(left) if left else ''}", file=sys.stderr)
        return 130
    return 0


def _kaggle_eval_arguments(parser: argparse.ArgumentParser) -> None:
    _add_game_argument(parser, games=KAGGLE_GAMES)
    parser.add_argument("--player", required=True, help="a player spec, or a submission .py file")
    parser.add_argument("--opponents", nargs="+", default=["negamax", "random"], help="kaggle agents")
    parser.add_argument(
        "--episodes",
        type=_bounded(100_000, "an episode takes a second or more"),
        default=100,
        help="episodes on each seat (default 100)",
    )
    parser.add_argument("--seed", type=_seed, default=0, help="seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON list")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


# ---- strength -------------------------------------------------------------------------------------
def _strength(args: argparse.Namespace) -> int:
    """Error rates on Pons' labelled Connect Four positions, per player and set, beside the published figures."""
    import json

    import torch

    from alphazero_lib.solver import require as require_solver
    from alphazero_lib.specs import make_player
    from alphazero_lib.strength import (
        ANCHOR_SOURCES,
        ERROR_RULE,
        SETS,
        check_player,
        evaluate_player,
        evaluate_specs,
        format_table,
        judge_games,
        load_set,
        paired_against_first,
    )

    args.sets = list(SETS) if args.sets is None else args.sets
    for name in args.sets:
        load_set(name)  # an unknown set or a damaged file fails before any model loads
    if not args.sets and args.against is None:
        raise ValueError("nothing to measure: name Pons' sets with --sets, or games with --against SPEC")
    game = make_game("connect_four")
    players = [make_player(game, spec, seed=args.seed) for spec in args.player]
    opponent = None
    if args.against is not None:
        opponent = make_player(game, args.against, seed=None if args.seed is None else args.seed + 1)
        require_solver()  # before any measurement, not after the sets
    for player in [*players, *([opponent] if opponent else [])]:
        check_player(player)
    _set_threads(args.threads, *players)
    if args.threads is not None:
        torch.set_num_threads(args.threads)  # the batched path's network calls
    results = []
    if args.workers > 1:
        results = evaluate_specs(
            args.player,
            args.sets,
            workers=args.workers,
            seed=args.seed,
            limit=args.limit,
            batch_size=args.batch_size,
            threads=args.threads or 1,
            progress=not args.no_progress,
        )
    for player in players if args.workers == 1 else ():
        results += evaluate_player(
            player, args.sets, limit=args.limit, batch_size=args.batch_size, progress=not args.no_progress
        )
    if opponent is not None:
        for player in players:
            _, played = judge_games(
                player,
                opponent,
                args.games,
                opening_moves=args.openings,
                seed=args.seed,
                progress=not args.no_progress,
            )
            results.append(played)
    if args.json:
        summary = {"benchmark": "pons", "error_rule": ERROR_RULE, "seed": args.seed, "limit": args.limit}
        comparisons = [c.to_dict() for c in paired_against_first(results)]
        print(
            json.dumps(
                {
                    **summary,
                    "anchor_sources": ANCHOR_SOURCES,
                    "results": [r.to_dict() for r in results],
                    "paired": comparisons,
                }
            )
        )
    else:
        print(format_table(results))
    return 0


def _strength_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--player",
        required=True,
        action="append",
        metavar="SPEC",
        help=f"a player spec (repeat for more): {_spec_help()}",
    )
    parser.add_argument(
        "--sets",
        nargs="*",
        default=None,
        metavar="SET",
        help="which of Pons' sets, by name (default all six, beginning_easy to end_easy, 1,000 positions each; an "
        "unknown name lists them), or a .txt file of positions in their format (benchmarks/validation_sets.py writes "
        "such files); --sets alone measures none, for --against",
    )
    parser.add_argument(
        "--against",
        metavar="SPEC",
        default=None,
        help="also play --games games against this player and judge every move each --player chose with the perfect "
        'solver (the solver extra: pip install -e ".[solver]"), e.g. negamax:4 or perfect',
    )
    parser.add_argument(
        "--games", type=_positive_int, default=20, help="games against --against, seats alternating (default 20)"
    )
    parser.add_argument(
        "--openings",
        type=_non_negative_int,
        default=2,
        help="random opening moves before each pair of games against --against (default 2; 0 for none)",
    )
    parser.add_argument("--limit", type=_positive_int, default=None, help="the first N positions of each set only")
    parser.add_argument("--seed", type=_seed, default=0, help="the players' seed (default 0)")
    parser.add_argument(
        "--batch-size",
        type=_bounded(4_096, "positions searched at once share memory"),
        default=100,
        help="positions searched at once by network players (100)",
    )
    parser.add_argument("--threads", type=_threads, default=None, help="torch threads (default: torch's)")
    parser.add_argument(
        "--workers",
        type=_workers,
        default=1,
        help="measure in N processes, a chunk of --batch-size positions at a time, each on --threads torch threads "
        "(default 1); the figures equal one process's except where a random tie-break decides a move",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _add_export_arguments(parser: argparse.ArgumentParser, out: str, out_help: str, searches_help: str) -> None:
    """The flags both exports take: the weights, where to write, and the search the exported agent runs."""
    parser.add_argument("--weights", required=True, help="a checkpoint path or shipped weights (e.g. connect_four)")
    parser.add_argument("--out", default=out, help=f"{out_help} (default {out})")
    parser.add_argument("--searches", type=_limited("num_searches"), default=200, help=f"{searches_help} (default 200)")
    parser.add_argument(
        "--C", type=_non_negative_float, default=SearchConfig.C, help=f"PUCT exploration constant ({SearchConfig.C})"
    )


#: The commands: name -> (help, the function that adds its arguments, the function that runs it).
_COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {
    "demo": ("watch one game between two players in the terminal", _demo_arguments, _demo),
    "train": ("train AlphaZero by self-play into a run directory (resumable)", _train_arguments, _train),
    "arena": ("a match between two players, alternating who starts", _arena_arguments, _arena),
    "play": ("play against any player in the terminal", _play_arguments, _play),
    "bench": ("throughput figures (serial vs batched self-play)", _bench_arguments, _bench),
    "export-kaggle": (
        "write a one-file ConnectX submission for Connect Four weights",
        _export_kaggle_arguments,
        _export_kaggle,
    ),
    "export-web": (
        "write a static web page (ONNX, onnxruntime-web) that plays Connect Four or Tic-Tac-Toe",
        _export_web_arguments,
        _export_web,
    ),
    "playoff": ("one kaggle-environments game, written as an HTML animation", _playoff_arguments, _playoff),
    "kaggle-eval": ("a player or submission file vs kaggle's built-in agents", _kaggle_eval_arguments, _kaggle_eval),
    "strength": (
        "error rates on Pons' labelled Connect Four positions, beside AlphaZero.jl's figures",
        _strength_arguments,
        _strength,
    ),
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand (``_COMMANDS``)."""
    parser = _Parser(
        prog="python -m alphazero_lib",
        description="AlphaZero from Scratch on the command line: play, watch and pit players, train, benchmark, "
        f"and run Kaggle playoffs. Commands play {DEFAULT_GAME} unless --game says otherwise.",
        epilog="Run 'python -m alphazero_lib COMMAND --help' for one command's options.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (help_text, add_arguments, run) in _COMMANDS.items():
        command = commands.add_parser(name, help=help_text)
        add_arguments(command)
        command.set_defaults(func=run, flags=_flags_of(command))
    return parser


def _flags_of(command: argparse.ArgumentParser) -> dict[str, str]:
    """A command's long flag for each of its arguments' destinations (a setting's name, an ``open_run`` argument's):
    how ``main`` names, in the library's errors (``config.SettingError``), the settings that this command sets."""
    return {
        action.dest: next(flag for flag in action.option_strings if flag.startswith("--"))
        for action in command._actions
        if any(flag.startswith("--") for flag in action.option_strings)
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    import time

    started = time.perf_counter()  # before the parser, whose player specs load torch
    args = build_parser().parse_args(argv)
    args.started = started
    try:
        return int(args.func(args) or 0)
    except (ValueError, OSError) as err:  # FileNotFoundError, IsADirectoryError, ... are OSErrors
        from alphazero_lib.config import SettingError

        print(f"error: {err.naming(args.flags) if isinstance(err, SettingError) else err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
