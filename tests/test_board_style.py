"""How boards are drawn: each game declares a ``BoardStyle`` (plain data) and the drawing code knows no game by name.

The drawing modules (``plotting``, ``animation``) import no concrete game class, the games import nothing outside
their package (no cycle), and a made-up game with a style of its own draws, as a figure and as a page.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_rgba
from test_animation import CHROMIUM_FLAGS

from alphazero_lib.animation import playoff_html
from alphazero_lib.games import GAMES, BoardStyle, ConnectFour, Game, Othello, TicTacToe
from alphazero_lib.games.base import inverse_square_symmetry, square_symmetry
from alphazero_lib.plotting import draw_board

LIBRARY = Path(__file__).resolve().parents[1] / "alphazero_lib"


def imports(path: Path) -> list[tuple[str, str]]:
    """``(module, name)`` for every import in a file, inside functions and ``TYPE_CHECKING`` blocks too (a relative
    import's module keeps its leading dots)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found += [("." * node.level + (node.module or ""), alias.name) for alias in node.names]
    return found


def concrete_games() -> set[type]:
    """Every ``Game`` subclass the library defines (the registry's and any other)."""
    classes, todo = set(), [Game]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub.__module__.startswith("alphazero_lib.") and sub not in classes:
                classes.add(sub)
                todo.append(sub)
    return classes


@pytest.mark.parametrize("module", ["plotting.py", "animation.py"])
def test_drawing_modules_know_no_game_by_name(module):
    classes = concrete_games()
    assert {TicTacToe, ConnectFour, Othello} <= classes
    class_names = {cls.__name__ for cls in classes}
    path = LIBRARY / module
    for source, name in imports(path):
        assert name not in class_names, f"{module} imports the game class {name} from {source}"
        if source.startswith("alphazero_lib.games"):
            allowed = {("alphazero_lib.games.base", "Game"), ("alphazero_lib.games.base", "check_board")}
            assert (source, name) in allowed or source == "alphazero_lib.games.style", (
                f"{module} imports {name or source} from {source}: only the Game type, check_board and the style module"
            )
    # nor does it branch on a class's or the registry's name (``type(game).__name__ == "ConnectFour"``)
    words = class_names | set(GAMES)
    for node in ast.walk(ast.parse(path.read_text())):
        word = {ast.Name: "id", ast.Attribute: "attr", ast.Constant: "value"}.get(type(node))
        assert word is None or getattr(node, word) not in words, f"{module} names {getattr(node, word)!r}"


def test_games_import_nothing_outside_their_package():
    """The games are the bottom layer: no drawing (or any other library) import, not even inside a function."""
    for path in sorted((LIBRARY / "games").glob("*.py")):
        for source, name in imports(path):
            assert not source.startswith(".."), f"games/{path.name} imports {name} from {source}, outside the games"
            if source.startswith("alphazero_lib"):
                assert source.startswith("alphazero_lib.games"), (
                    f"games/{path.name} imports {name or source} from {source}"
                )


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_registered_game_declares_a_style(name):
    cls, _ = GAMES[name]
    assert isinstance(cls.board_style, BoardStyle)


def test_a_style_choice_outside_the_listed_words_is_refused():
    with pytest.raises(ValueError, match=r"pieces must be one of \['disc', 'mark'\], got 'stone'"):
        BoardStyle(background="#ffffff", pieces="stone", colors=("#000000", "#ffffff"), color_names=("a", "b"))


# ---- a made-up game: the drawing code has never heard of it ------------------------------------------------------
class Stones(Game):
    """Three in a line on a 4 x 5 board; action 20 skips the turn. Drawn with light and dark discs on wood."""

    registry_name = "stones"
    _line_length = 3
    board_style = BoardStyle(
        background="#d7b377",
        pieces="disc",
        colors=("#202020", "#fafafa"),
        color_names=("dark", "light"),
        grid_color="#5d4037",
        coordinates="letters",
    )

    def __init__(self) -> None:
        self.row_count, self.column_count = 4, 5
        self.action_size = 21

    @property
    def options(self) -> dict:
        return {}

    @property
    def max_game_length(self) -> int:
        return 40

    @property
    def num_symmetries(self) -> int:
        return 1

    def get_valid_moves(self, state: np.ndarray, player: int = 1) -> np.ndarray:
        return np.append(np.asarray(state).reshape(-1) == 0, True).astype(np.uint8)

    def _apply(self, state: np.ndarray, action: int, player: int) -> None:
        if action < 20:
            state[divmod(action, 5)] = player

    def check_win(self, state: np.ndarray, action: int | None) -> bool:
        return self._has_line(np.asarray(state))

    def apply_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return square_symmetry(k, state), policy

    def invert_symmetry(self, k: int, state: np.ndarray, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return inverse_square_symmetry(k, state), policy

    def action_to_string(self, action: int) -> str:
        return "skip" if action == 20 else str(action)

    def render(self, state: np.ndarray) -> str:
        return "\n".join("".join(".XO"[int(v)] for v in row) for row in np.asarray(state))


class Letters(Stones):
    """The same game drawn with letters B and W."""

    board_style = dataclasses.replace(Stones.board_style, pieces="mark", marks=("B", "W"))


def stones_game() -> tuple[Stones, list[np.ndarray]]:
    game = Stones()
    states = [game.get_initial_state()]
    for action, player in [(7, 1), (12, -1), (20, 1), (3, -1)]:
        states.append(game.get_next_state(states[-1], action, player))
    return game, states


def test_a_made_up_game_draws_from_its_style():
    import matplotlib.patches as mpatches
    import matplotlib.pyplot as plt

    game, states = stones_game()
    state = states[-1]
    heat = game.get_valid_moves(state).astype(float)
    heat[20] = 4.0
    ax = draw_board(game, state, heatmap=heat / heat.sum())
    style = game.board_style
    background = [p for p in ax.patches if isinstance(p, mpatches.Rectangle) and p.get_width() == 5]
    assert [p.get_facecolor() for p in background] == [to_rgba(style.background)]
    discs = sorted((c.center, c.get_facecolor()) for c in ax.patches if isinstance(c, mpatches.Circle))
    assert discs == [((2, 1), to_rgba("#202020")), ((2, 2), to_rgba("#fafafa")), ((3, 0), to_rgba("#fafafa"))]
    assert len(ax.lines) == 3 + 4 and {line.get_color() for line in ax.lines} == {"#5d4037"}
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c", "d", "e"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "2", "3", "4"]
    assert len(ax.texts) == 17 and ax.get_xlabel() == "skip: 0.19"  # 17 empty cells; the skip action below
    plt.close(ax.figure)

    ax = draw_board(Letters(), state)
    marks = sorted((t.get_position(), t.get_text(), t.get_color()) for t in ax.texts)
    assert marks == [((2, 1), "B", "#202020"), ((2, 2), "W", "#fafafa"), ((3, 0), "W", "#fafafa")]
    plt.close(ax.figure)


def test_a_made_up_game_plays_on_the_page_in_its_colours():
    game, states = stones_game()
    page = playoff_html(game, states, names=("me", "you"))
    data = json.loads(page.split("const DATA = ", 1)[1].split(";\n", 1)[0])
    assert (data["background"], data["pieces"], data["grid"]) == ("#d7b377", "disc", "#5d4037")
    assert data["colors"] == {"1": "#202020", "-1": "#fafafa"}
    legend = page.split('<div id="legend">', 1)[1].split("</div>", 1)[0]
    assert "dark = X: me (moves first)" in legend and "light = O: you (moves second)" in legend
    letters = playoff_html(Letters(), states, names=("me", "you"))
    assert json.loads(letters.split("const DATA = ", 1)[1].split(";\n", 1)[0])["marks"] == {"1": "B", "-1": "W"}
    assert "B: me (moves first)" in letters


def test_a_game_without_a_style_is_told_so():
    class Plain(Stones):
        board_style = None

    with pytest.raises(TypeError, match="Plain declares no board_style"):
        draw_board(Plain(), Plain().get_initial_state())
    with pytest.raises(TypeError, match="Plain declares no board_style"):
        playoff_html(Plain(), [Plain().get_initial_state()])


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_a_made_up_game_renders_in_headless_chromium(tmp_path):
    """The page's script reads the style from the data: the made-up game's letters, lines and board show."""
    from PIL import Image

    _, states = stones_game()
    page = tmp_path / "stones.html"
    page.write_text(playoff_html(Letters(), states))
    shot = tmp_path / "last.png"
    subprocess.run(
        [
            "chromium",
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=600,650",
            f"--screenshot={shot}",
            f"{page.as_uri()}#step=last",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    pixels = np.asarray(Image.open(shot).convert("RGB")).astype(int)

    def where(hex_colour: str) -> np.ndarray:
        rgb = np.array([int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)])
        return np.abs(pixels - rgb).max(-1) <= 8

    board = where("#d7b377")
    assert board.sum() > 40_000  # the board (5 x 4 cells of 64 px) ...
    rows, cols = np.nonzero(board)
    inside = np.zeros_like(board)  # (the page's text is dark too: count on the board only)
    inside[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1] = True
    assert (where("#5d4037") & inside).sum() > 1_000  # ... its lines ...
    assert 100 < (where("#202020") & inside).sum() < 1_500  # ... and one dark B: a letter's strokes, not a disc
