"""A long run's checkpoints side by side: the network alone on Pons' sets and head to head with a reference.

python benchmarks/checkpoint_trend.py RUN/checkpoints/iter_0027.pt RUN/checkpoints/iter_0045.pt ...
python benchmarks/checkpoint_trend.py --reference connect_four_cpu --games 100 CHECKPOINT ...

For each checkpoint, in about ten seconds (the network alone needs no search): its policy player's error rates
on Pons' three sets, its policy player against the reference's (``--games`` games from random 2-move openings,
seats alternating, the same openings for every checkpoint) with the 95% interval of the score, and the value
the network gives the empty board (the first player wins Connect Four with perfect play), and its dead channels
(convolution outputs with every weight below 1e-6: ``checkpoints.dead_channels``). A cheap probe to
watch a background run by: the model cards' figures come from ``strength`` and ``arena`` with search.
"""

from __future__ import annotations

import argparse

import torch

from alphazero_lib import make_game, make_player
from alphazero_lib.arena import play_match, wilson_interval
from alphazero_lib.checkpoints import dead_channels
from alphazero_lib.strength import evaluate_player


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoints", nargs="+", help="checkpoint files (or shipped weights by name)")
    parser.add_argument("--reference", default="connect_four", help="weights to play against (default connect_four)")
    parser.add_argument("--games", type=int, default=100, help="games against the reference (default 100)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    game = make_game("connect_four")
    reference = make_player(game, f"policy:{args.reference}", seed=1)
    empty = torch.tensor(game.get_encoded_state(game.get_initial_state())[None], dtype=torch.float32)
    print(f"policy players; head to head against policy:{args.reference}, {args.games} games, 2-move openings")
    columns = f"{'+':>4} {'=':>4} {'-':>4}  {'score [95% CI]':<20} {'alone: ee / me / mm':<22} v(empty)  dead"
    print(f"{'checkpoint':<40} {columns}")
    for weights in args.checkpoints:
        player = make_player(game, f"policy:{weights}", seed=0)
        match = play_match(game, player, reference, args.games, False, opening_moves=2, seed=0)
        score = (match.wins + match.draws / 2) / match.games
        low, high = wilson_interval(score, match.games)
        errors = " / ".join(f"{100 * r.error_rate:.1f}" for r in evaluate_player(player, progress=False))
        with torch.no_grad():
            value = player.model(empty)[1].item()
        dead, channels = dead_channels(player.model)
        print(
            f"{weights[-40:]:<40} {match.wins:>4} {match.draws:>4} {match.losses:>4}  "
            f"{f'{score:.3f} [{low:.2f}, {high:.2f}]':<20} {errors + '%':<22} {value:+.2f}     {dead}/{channels}",
            flush=True,
        )


if __name__ == "__main__":
    main()
