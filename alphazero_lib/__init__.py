"""AlphaZero from Scratch: the tested library behind the notebook course."""

from alphazero_lib.games import ConnectFour, Game, Othello, TicTacToe, make_game
from alphazero_lib.utils import seed_everything


def __getattr__(name: str):
    """``make_player`` is imported on first use: it pulls in torch, which the games do not need."""
    if name == "make_player":
        from alphazero_lib.specs import make_player

        return make_player
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = ["ConnectFour", "Game", "Othello", "TicTacToe", "make_game", "make_player", "seed_everything"]
