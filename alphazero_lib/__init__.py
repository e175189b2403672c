"""AlphaZero from Scratch: the tested library behind the notebook course."""

from alphazero_lib.games import ConnectFour, Game, Othello, TicTacToe, make_game
from alphazero_lib.utils import seed_everything

__version__ = "0.1.0"

__all__ = ["ConnectFour", "Game", "Othello", "TicTacToe", "make_game", "seed_everything"]
