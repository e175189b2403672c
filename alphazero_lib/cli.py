"""The command line: ``python -m alphazero_lib COMMAND --help``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from alphazero_lib.games import GAMES, make_game


def _add_game_argument(parser: argparse.ArgumentParser, default: str = "tictactoe") -> None:
    parser.add_argument("--game", default=default, choices=sorted(GAMES), help=f"which game (default {default})")


# ---- demo -----------------------------------------------------------------------------------------
def _demo(args: argparse.Namespace) -> int:
    """Play one game between two random players and print every position."""
    from alphazero_lib.players import RandomPlayer

    game = make_game(args.game)
    players = {1: RandomPlayer(game, seed=args.seed), -1: RandomPlayer(game, seed=args.seed + 1)}
    state, player = game.get_initial_state(), 1
    print(f"{game}: random (X) vs random (O)\n\n{game.render(state)}")
    while True:
        action = players[player].get_action(state, player)
        state = game.get_next_state(state, action, player)
        mark = "X" if player == 1 else "O"
        print(f"\n{mark} plays {game.action_to_string(action)}\n{game.render(state)}")
        value, terminated = game.get_value_and_terminated(state, action)
        if terminated:
            winner = player if value > 0 else -player if value < 0 else 0
            print("\n" + ("draw" if winner == 0 else f"{'X' if winner == 1 else 'O'} wins"))
            return 0
        player = game.get_opponent(player)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="python -m alphazero_lib", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser("demo", help="watch one game between two players in the terminal")
    _add_game_argument(demo, default="connect_four")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
