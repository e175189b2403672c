"""Search throughput: vanilla-MCTS simulations per second per game, and negamax positions per second.

python benchmarks/search.py [--searches 2000] [--depth 4] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from alphazero_lib import make_game
from alphazero_lib.config import MCTSConfig
from alphazero_lib.mcts import MCTS
from alphazero_lib.negamax import ConnectFourSolver


def opening_positions(game, count: int, plies: int, seed: int) -> list[tuple[np.ndarray, int]]:
    """Positions after ``plies`` random moves (absolute state, player to move), all still undecided."""
    rng, positions = np.random.default_rng(seed), []
    while len(positions) < count:
        state, player = game.get_initial_state(), 1
        for _ in range(plies):
            action = int(rng.choice(game.legal_actions(state, player)))
            state = game.get_next_state(state, action, player)
            if game.get_value_and_terminated(state, action)[1]:
                break
            player = -player
        else:
            positions.append((state, player))
    return positions


def bench_mcts(game_name: str, searches: int, repeats: int) -> float:
    """Best-of-``repeats`` simulations per second from the opening position."""
    game = make_game(game_name)
    best = 0.0
    for seed in range(repeats):
        mcts = MCTS(game, MCTSConfig(num_searches=searches, seed=seed))
        start = time.perf_counter()
        mcts.search(game.get_initial_state())
        best = max(best, searches / (time.perf_counter() - start))
    return best


def bench_negamax(depth: int, positions: int) -> tuple[float, float]:
    """Positions (nodes) per second and mean seconds per move over random Connect Four middlegames."""
    game = make_game("connect_four")
    solver = ConnectFourSolver(game)
    start = time.perf_counter()
    for state, player in opening_positions(game, positions, plies=8, seed=0):
        solver.move_scores(state, player, depth)
    elapsed = time.perf_counter() - start
    return solver.nodes / elapsed, elapsed / positions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=2000, help="MCTS simulations per search (default 2000)")
    parser.add_argument("--depth", type=int, default=4, help="negamax depth in plies (default 4)")
    parser.add_argument("--repeats", type=int, default=3, help="searches per game; the best is reported")
    parser.add_argument("--positions", type=int, default=20, help="Connect Four positions for negamax")
    args = parser.parse_args()
    print(f"vanilla MCTS, {args.searches} simulations from the opening (best of {args.repeats}):")
    for game_name in ("tictactoe", "connect_four", "othello6"):
        print(f"  {game_name:<14} {bench_mcts(game_name, args.searches, args.repeats):>9,.0f} simulations/s")
    nodes_per_second, seconds_per_move = bench_negamax(args.depth, args.positions)
    print(f"negamax depth {args.depth}, Connect Four after 8 random plies ({args.positions} positions):")
    print(f"  {nodes_per_second:>9,.0f} positions/s, {seconds_per_move * 1000:.1f} ms per move")


if __name__ == "__main__":
    main()
