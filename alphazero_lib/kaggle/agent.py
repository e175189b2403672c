"""A self-contained ConnectX agent: the course's ResNet run in numpy, and the AlphaZero search.

This module imports nothing but numpy and the standard library, because ``export-kaggle`` copies its
source into a single submission file (with the weights embedded) that runs on Kaggle without torch.
The network is the library's ``ResNet`` with every BatchNorm folded into the convolution before it.
"""

from __future__ import annotations

import base64
import ctypes
import io
import math
import time

import numpy as np


def limit_blas_threads(threads: int = 1) -> bool:
    """Ask the OpenBLAS numpy loaded to use ``threads`` threads; True if it took.

    The matrices here are tiny: one thread is fastest, and several threads that spin-wait on a busy
    machine made one network call 100x slower in our measurements. Best effort: False if not found.
    """
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        return False
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for symbol in ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_", "openblas_set_num_threads"):
            if hasattr(library, symbol):
                getattr(library, symbol)(threads)
                return True
    return False


# ---- the network, in numpy ---------------------------------------------------------------------------
def conv3x3(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """3x3 convolution with padding 1: ``x [B, H, W, C]``, ``weight [O, C, 3, 3]`` -> ``[B, H, W, O]``."""
    batch, height, width, channels = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))  # [B, H, W, C, 3, 3]
    columns = windows.reshape(batch * height * width, channels * 9)
    out = columns @ weight.reshape(weight.shape[0], channels * 9).T + bias
    return out.reshape(batch, height, width, weight.shape[0])


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


class NumpyResNet:
    """Inference-only ResNet: ``params`` maps names to float32 arrays (BatchNorm folded into the convs)."""

    def __init__(self, params: dict[str, np.ndarray], num_res_blocks: int) -> None:
        self.p = params
        self.num_res_blocks = num_res_blocks

    def __call__(self, encoded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Encoded states ``[B, 3, R, C]`` -> (policy logits ``[B, A]``, values ``[B]``)."""
        p = self.p
        x = np.ascontiguousarray(np.transpose(encoded, (0, 2, 3, 1)), dtype=np.float32)
        x = relu(conv3x3(x, p["start.w"], p["start.b"]))
        for i in range(self.num_res_blocks):
            h = relu(conv3x3(x, p[f"block{i}.conv1.w"], p[f"block{i}.conv1.b"]))
            h = conv3x3(h, p[f"block{i}.conv2.w"], p[f"block{i}.conv2.b"])
            x = relu(h + x)
        heads = []
        for head in ("policy", "value"):
            h = relu(conv3x3(x, p[f"{head}.conv.w"], p[f"{head}.conv.b"]))
            flat = np.transpose(h, (0, 3, 1, 2)).reshape(h.shape[0], -1)  # torch flattens [C, H, W]
            heads.append(flat @ p[f"{head}.linear.w"].T + p[f"{head}.linear.b"])
        return heads[0], np.tanh(heads[1][:, 0])


def decode_weights(blob: str) -> dict[str, np.ndarray]:
    """Arrays from the base64 text of an ``.npz`` archive (as ``export-kaggle`` embeds them)."""
    with np.load(io.BytesIO(base64.b64decode(blob))) as archive:
        return {name: archive[name] for name in archive.files}


# ---- Connect Four rules (canonical states: the mover's pieces are 1) --------------------------------
def legal_columns(state: np.ndarray) -> np.ndarray:
    """The open columns of ``state`` (top cell empty), in increasing order."""
    return np.flatnonzero(state[0] == 0)


def drop(state: np.ndarray, column: int) -> np.ndarray:
    """The state after the mover (1) drops a piece in ``column``, seen from the opponent (a new array)."""
    out = state.copy()
    row = np.flatnonzero(out[:, column] == 0)[-1]
    out[row, column] = 1
    return -out


def wins(state: np.ndarray, column: int, in_a_row: int) -> bool:
    """Whether the piece on top of ``column`` completes ``in_a_row`` in a line."""
    rows, columns = state.shape
    row = np.flatnonzero(state[:, column] != 0)[0]
    player = state[row, column]
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            r, c = row + sign * dr, column + sign * dc
            while 0 <= r < rows and 0 <= c < columns and state[r, c] == player:
                count += 1
                r, c = r + sign * dr, c + sign * dc
        if count >= in_a_row:
            return True
    return False


def outcome(state: np.ndarray, column: int, in_a_row: int) -> float | None:
    """The value for the mover of ``state``, just after the opponent dropped a piece in ``column``: -1.0 if
    that piece won, 0.0 for a full board (a draw), None while the game goes on."""
    if wins(state, column, in_a_row):
        return -1.0
    if legal_columns(state).size == 0:
        return 0.0
    return None


# ---- the search ---------------------------------------------------------------------------------------
class Node:
    """A search node; ``state`` is canonical for the player to move here."""

    __slots__ = ("children", "priors", "state", "terminal_value", "value_sum", "visit_count")

    def __init__(self, state: np.ndarray, terminal_value: float | None) -> None:
        self.state = state
        self.terminal_value = terminal_value  # value for the player to move, if the game is over
        self.children: dict[int, Node] = {}
        self.priors: dict[int, float] = {}
        self.visit_count = 0
        self.value_sum = 0.0


class Agent:
    """AlphaZero search (PUCT, no noise, most-visited move) within a time budget per move."""

    def __init__(self, net: NumpyResNet, rows: int, columns: int, in_a_row: int, num_searches: int, C: float):
        limit_blas_threads(1)
        self.net, self.rows, self.columns, self.in_a_row = net, rows, columns, in_a_row
        self.num_searches, self.C = num_searches, C

    def expand(self, node: Node) -> float:
        """Evaluate ``node`` with the network, store its priors, return its value for its mover."""
        s = node.state
        encoded = np.stack((s == -1, s == 0, s == 1)).astype(np.float32)[None]
        logits, value = self.net(encoded)
        legal = legal_columns(s)
        z = logits[0, legal] - logits[0, legal].max()
        probs = np.exp(z) / np.exp(z).sum()
        node.priors = {int(a): float(p) for a, p in zip(legal, probs, strict=True)}
        return float(value[0])

    def child(self, node: Node, action: int) -> Node:
        if action not in node.children:
            state = drop(node.state, action)
            node.children[action] = Node(state, outcome(state, action, self.in_a_row))
        return node.children[action]

    def select(self, node: Node) -> int:
        sqrt_n = math.sqrt(node.visit_count)
        best, best_score = -1, -math.inf
        for action, prior in node.priors.items():
            child = node.children.get(action)
            n = child.visit_count if child else 0
            q = -child.value_sum / n if n else 0.0
            score = q + self.C * prior * sqrt_n / (1 + n)
            if score > best_score:
                best, best_score = action, score
        return best

    def search(self, state: np.ndarray, deadline: float | None = None) -> np.ndarray:
        """Visit counts per column for the canonical ``state``: ``num_searches`` simulations, fewer if
        ``deadline`` (a ``time.perf_counter()`` value) would pass first (a simulation starts only if the slowest one
        so far still fits before it); one visit on an immediate win."""
        root = Node(state, None)
        self.expand(root)
        root.visit_count = 1
        for action in list(root.priors):  # an immediate win needs no search
            if self.child(root, action).terminal_value == -1.0:
                counts = np.zeros(self.columns)
                counts[action] = 1
                return counts
        slowest = 0.0  # the longest simulation so far: one more starts only if one that long still fits
        for _ in range(self.num_searches):
            began = time.perf_counter()
            if deadline is not None and began + slowest > deadline:
                break
            node, path = root, [root]
            while node.priors and node.terminal_value is None:
                node = self.child(node, self.select(node))
                path.append(node)
            value = node.terminal_value if node.terminal_value is not None else self.expand(node)
            for visited in reversed(path):
                visited.value_sum += value
                visited.visit_count += 1
                value = -value
            slowest = max(slowest, time.perf_counter() - began)
        counts = np.zeros(self.columns)
        for action, child in root.children.items():
            counts[action] = child.visit_count
        return counts

    def __call__(self, observation: dict, configuration: dict) -> int:
        """The move for ``observation`` (flat ``board`` of 0/1/2, ``mark``): never raises, never illegal.

        A board or configuration that is not the one trained for, or a mark other than 1 or 2, gets a legal
        move without the network: an immediate win if there is one, else the centre-most open column. With
        little or no time (``actTimeout`` 0) the search still takes an immediate win.
        """
        start = time.perf_counter()
        try:
            return self._play(observation, configuration, start)
        except Exception:  # whatever went wrong, a legal move beats a crash (which loses the game)
            return fallback_move(observation, configuration)

    def _play(self, observation: dict, configuration: dict, start: float) -> int:
        board = np.asarray(observation["board"])
        rows, columns, in_a_row = board_shape(board.size, configuration)
        mark = observation.get("mark")
        if board.size != rows * columns or mark not in (1, 2) or not np.isin(board, (0, 1, 2)).all():
            return fallback_move(observation, configuration)
        board = board.reshape(rows, columns)
        state = np.where(board == mark, 1, np.where(board == 0, 0, -1)).astype(np.int8)
        legal = legal_columns(state)
        if (rows, columns, in_a_row) != (self.rows, self.columns, self.in_a_row):
            return centre_or_win(state, in_a_row)  # not our board: no network, but never a thrown-away win
        budget = 0.5 * float(configuration.get("actTimeout", 2.0))
        if not budget > 0 or legal.size == 1:
            return centre_or_win(state, in_a_row)
        counts = self.search(state, deadline=start + budget)
        if counts.max() <= 0:  # the time ran out before the first simulation
            return centre_or_win(state, in_a_row)
        counts[state[0] != 0] = -1  # never an illegal move
        return int(np.argmax(counts))


def centre_or_win(state: np.ndarray, in_a_row: int) -> int:
    """Without search: a column that wins at once for the mover (1), else the centre-most legal column."""
    legal = legal_columns(state)
    for column in legal:
        if wins(-drop(state, int(column)), int(column), in_a_row):
            return int(column)
    return int(legal[np.argmin(np.abs(legal - (state.shape[1] - 1) / 2))])


def setting(configuration: dict, name: str, default: int) -> int:
    """A positive whole number from the configuration (a dict, a kaggle Struct, None, ...), else ``default``."""
    try:
        value = configuration[name]
        return int(value) if not isinstance(value, bool) and int(value) == value and value > 0 else default
    except Exception:
        return default


def board_shape(cells: int, configuration: dict) -> tuple[int, int, int]:
    """``(rows, columns, in_a_row)`` of a board of ``cells`` cells: the configuration's where they fit it, else
    ConnectX's 7 columns (or the configuration's, when 7 cannot be) and the rows read off the board."""
    rows, columns = setting(configuration, "rows", 0), setting(configuration, "columns", 7)
    if rows * columns != cells:
        columns = 7 if cells % 7 == 0 or cells % columns else columns
        rows = cells // columns or 6
    return rows, columns, setting(configuration, "inarow", 4)


def fallback_move(observation: dict, configuration: dict) -> int:
    """A legal column for any observation and configuration: the board read as far as it makes sense, a win
    taken if seen, else the centre-most open column (never a full one while one is open)."""
    try:
        board = np.asarray(observation["board"], dtype=float).reshape(-1)
    except Exception:
        board = np.zeros(0)
    rows, columns, in_a_row = board_shape(board.size, configuration)
    top = np.concatenate([board[:columns], np.zeros(max(columns - board.size, 0))])
    legal = [c for c in range(columns) if top[c] == 0] or list(range(columns))
    try:
        mark = observation.get("mark")
        if mark not in (1, 2):  # the side to move has no more stones than the other: infer it
            mark = 1 if (board == 1).sum() == (board == 2).sum() else 2
        if board.size == rows * columns and np.isin(board, (0, 1, 2)).all():
            state = np.where(board == mark, 1, np.where(board == 0, 0, -1)).astype(np.int8).reshape(rows, columns)
            return centre_or_win(state, in_a_row)
    except Exception:
        pass
    return int(min(legal, key=lambda c: abs(c - (columns - 1) / 2)))
