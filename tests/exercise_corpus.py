# ruff: noqa: E501  (the corpus holds learners' cells as text: long lines are their lines)
"""A corpus of learners' answers to the course's exercises, each with the verdict its check must give (issue 24).

Each ``Entry`` is an exercise cell as a learner might write it, for the check named ``check``:

- ``right``: a correct answer in another style than the notebook's solution (it must pass: ✅);
- ``wrong``: a plausible mistake (it must fail: ❌, and the line must contain every string in ``expect``, the
  words of the hint that fits that mistake);
- ``unfinished``: a partial answer (⏳, naming what is missing, with ``expect`` in the line).

``code`` is the whole cell, or ``Edit`` replacements applied to the notebook's solution (each must apply, so a
changed solution shows here). One ``right`` entry per exercise is marked ``downstream``: the notebook is run with
those answers in place of its exercises, and every later cell must work with them
(``tests/test_exercise_corpus.py``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """Replacements ``(old, new)`` applied in turn to the notebook's solution; each ``old`` must occur."""

    pairs: tuple[tuple[str, str], ...]

    def apply(self, solution: str) -> str:
        for old, new in self.pairs:
            if old not in solution:
                raise ValueError(f"{old!r} is not in the solution:\n{solution}")
            solution = solution.replace(old, new)
        return solution


def edit(*pairs: tuple[str, str]) -> Edit:
    return Edit(tuple(pairs))


def swap(old: str, new: str) -> Edit:
    return Edit(((old, new),))


@dataclass(frozen=True)
class Entry:
    check: str
    verdict: str  # "right", "wrong" or "unfinished"
    code: str | Edit
    expect: tuple[str, ...] = ()
    note: str = ""
    downstream: bool = False

    def source(self, solution: str) -> str:
        return self.code.apply(solution) if isinstance(self.code, Edit) else self.code


def right(check: str, code: str | Edit, note: str, downstream: bool = False) -> Entry:
    return Entry(check, "right", code, (), note, downstream)


def wrong(check: str, code: str | Edit, note: str, *expect: str) -> Entry:
    return Entry(check, "wrong", code, expect, note)


def unfinished(check: str, code: str | Edit, note: str, *expect: str) -> Entry:
    return Entry(check, "unfinished", code, expect, note)


def method(cls: str, signature: str, body: str) -> str:
    """An ``@add_to_class(cls)`` cell: ``def signature:`` with ``body`` (lines indented by four spaces)."""
    lines = "\n".join("    " + line if line else "" for line in body.strip("\n").splitlines())
    return f"@add_to_class({cls})\ndef {signature}:\n{lines}\n"


# The answers below are learners' cells, laid out by hand.
# fmt: off

# ---- notebook 1: TicTacToe ------------------------------------------------------------------------------------
T = "TicTacToe"
NB01 = [
    # get_initial_state
    right(
        "check_get_initial_state",
        method(T, "get_initial_state(self)", "return np.zeros((self.row_count, self.column_count), dtype=int)"),
        "int64 zeros",
        downstream=True,
    ),
    right(
        "check_get_initial_state",
        method(T, "get_initial_state(self)", "return np.full((3, 3), 0, dtype=np.int8)"),
        "np.full",
    ),
    wrong(
        "check_get_initial_state",
        method(T, "get_initial_state(self)", "return np.zeros((3, 3))"),
        "float zeros",
        "dtype float64 where integers",
        "dtype=np.int8",
    ),
    wrong(
        "check_get_initial_state",
        method(T, "get_initial_state(self)", "return [[0] * 3 for _ in range(3)]"),
        "a list",
        "a list, not a numpy array",
        "not a list",
    ),
    wrong(
        "check_get_initial_state",
        method(T, "get_initial_state(self)", "return np.zeros(9, dtype=np.int8)"),
        "flat board",
        "shape (9,) instead of (3, 3)",
        "2-D",
    ),
    wrong(
        "check_get_initial_state",
        "_empty = np.zeros((3, 3), dtype=np.int8)\n\n" + method(T, "get_initial_state(self)", "return _empty"),
        "one shared array",
        "an earlier call returned came back",
        "make a new one on every call",
    ),
    wrong(
        "check_get_initial_state",
        method(T, "get_intial_state(self)", "return np.zeros((3, 3), dtype=np.int8)"),
        "misspelled",
        "no method `get_initial_state`, but `get_intial_state`",
    ),
    # get_next_state
    right(
        "check_get_next_state",
        method(
            T,
            "get_next_state(self, state, action, player)",
            "new = state.copy()\nnew.flat[action] = player\nreturn new",
        ),
        "flat index",
        downstream=True,
    ),
    right(
        "check_get_next_state",
        method(
            T,
            "get_next_state(self, state, action, player)",
            "cells = np.arange(9).reshape(3, 3)\nreturn np.where(cells == action, player, state)",
        ),
        "np.where",
    ),
    wrong(
        "check_get_next_state",
        method(
            T, "get_next_state(self, state, action, player)", "state[action // 3, action % 3] = player\nreturn state"
        ),
        "in place",
        "input became",
        "state.copy()",
    ),
    wrong(
        "check_get_next_state",
        method(
            T,
            "get_next_state(self, state, action, player)",
            "new = state.copy()\nnew[action % 3, action // 3] = player\nreturn new",
        ),
        "row and column swapped",
        "swapped",
    ),
    wrong(
        "check_get_next_state",
        method(
            T,
            "get_next_state(self, state, action, player)",
            "new = state.copy()\nnew[action // 3, action % 3] = 1\nreturn new",
        ),
        "always 1",
        "not always 1",
    ),
    wrong(
        "check_get_next_state",
        method(
            T,
            "get_next_state(self, state, action, player)",
            "flat = state.reshape(-1)\nflat[action] = player\nreturn flat.reshape(3, 3)",
        ),
        "a view",
        "a view of the same memory",
    ),
    wrong(
        "check_get_next_state",
        method(
            T,
            "get_next_state(self, state, action, player)",
            "new = state.tolist()\nnew[action // 3][action % 3] = player\nreturn new",
        ),
        "a list",
        "a list, not a numpy array",
    ),
    # get_valid_moves
    right(
        "check_get_valid_moves",
        method(T, "get_valid_moves(self, state)", "return state.reshape(-1) == 0"),
        "booleans",
        downstream=True,
    ),
    right(
        "check_get_valid_moves",
        method(
            T, "get_valid_moves(self, state)", "return np.array([1 if cell == 0 else 0 for cell in state.flatten()])"
        ),
        "a comprehension, int64",
    ),
    wrong(
        "check_get_valid_moves",
        method(T, "get_valid_moves(self, state)", "return (state == 0).astype(np.uint8)"),
        "not flattened",
        "shape (3, 3) instead of (9,)",
        "flatten",
    ),
    wrong(
        "check_get_valid_moves",
        method(T, "get_valid_moves(self, state)", "return (state.reshape(-1) != 0).astype(np.uint8)"),
        "inverted",
        "EMPTY cell",
    ),
    wrong(
        "check_get_valid_moves",
        method(T, "get_valid_moves(self, state)", "return np.flatnonzero(state.reshape(-1) == 0)"),
        "the legal actions' numbers",
        "not the numbers",
    ),
    wrong(
        "check_get_valid_moves",
        method(T, "get_valid_moves(self, state)", "return [int(cell == 0) for cell in state.reshape(-1)]"),
        "a list",
        "a list, not a numpy array",
    ),
    wrong(
        "check_get_valid_moves",
        method(T, "get_valid_moves(self, state)", "return (state.reshape(-1) == 0) * 1.0"),
        "floats",
        "dtype float64 where integers",
    ),
    # check_win
    right(
        "check_check_win",
        method(
            T,
            "check_win(self, state, action)",
            """
if action is None:
    return 0
row, column = divmod(action, 3)
lines = [state[row, :], state[:, column], np.diag(state), np.diag(np.fliplr(state))]
return int(any(abs(line.sum()) == 3 for line in lines))""",
        ),
        "returns 1/0; every diagonal, sign-free",
        downstream=True,
    ),
    right(
        "check_check_win",
        method(
            T,
            "check_win(self, state, action)",
            """
if action is None:
    return False
row, column = action // 3, action % 3
player = state[row, column]
return (np.all(state[row] == player) or np.all(state[:, column] == player)
        or np.all(np.diag(state) == player) or np.all(np.diag(np.fliplr(state)) == player))""",
        ),
        "np.bool_, np.all",
    ),
    wrong(
        "check_check_win",
        Edit(
            (
                (
                    "        or (row + column == 2 and np.trace(np.fliplr(state)) == player * self.row_count)"
                    "  # the anti-diagonal\n",
                    "",
                ),
            )
        ),
        "no anti-diagonal",
        "anti-diagonal",
    ),
    wrong(
        "check_check_win",
        method(
            T,
            "check_win(self, state, action)",
            """
if action is None:
    return False
row, column = divmod(action, 3)
return bool(state[row].sum() == 3 or state[:, column].sum() == 3 or np.trace(state) == 3
            or np.trace(np.fliplr(state)) == 3)""",
        ),
        "only X's lines",
        "sums to -3",
    ),
    wrong(
        "check_check_win",
        method(
            T,
            "check_win(self, state, action)",
            """
if action is None:
    return False
row, column = divmod(action, 3)
player = state[row, column]
return bool(state[row].sum() == 3 * player or state[:, column].sum() == 3 * player)""",
        ),
        "rows and columns only",
        "two diagonals",
    ),
    wrong(
        "check_check_win",
        method(
            T,
            "check_win(self, state, action)",
            """
row, column = divmod(action, 3)
player = state[row, column]
return bool(abs(state[row].sum()) == 3 or abs(state[:, column].sum()) == 3 or abs(np.trace(state)) == 3
            or abs(np.trace(np.fliplr(state))) == 3)""",
        ),
        "no None",
        "raised TypeError",
        "return False before the action is used",
    ),
    wrong(
        "check_check_win",
        method(
            T,
            "check_win(self, state, action)",
            """
if action is None:
    return False
row, column = divmod(action, 3)
player = state[row, column]
return state[row].sum() == 3 * player or state[:, column].sum() == 3 * player or 'diagonal'""",
        ),
        "a string is not a bool",
        "not True or False",
    ),
    # get_value_and_terminated
    right(
        "check_get_value_and_terminated",
        method(
            T,
            "get_value_and_terminated(self, state, action)",
            """
if self.check_win(state, action):
    return [1.0, True]
return [0.0, bool(np.all(state != 0))]""",
        ),
        "a list of float and bool",
        downstream=True,
    ),
    right(
        "check_get_value_and_terminated",
        method(
            T,
            "get_value_and_terminated(self, state, action)",
            """
won = self.check_win(state, action)
full = not self.get_valid_moves(state).any()
return int(won), won or full""",
        ),
        "won or full",
    ),
    wrong(
        "check_get_value_and_terminated",
        method(
            T,
            "get_value_and_terminated(self, state, action)",
            """
if np.sum(self.get_valid_moves(state)) == 0:
    return 0, True
if self.check_win(state, action):
    return 1, True
return 0, False""",
        ),
        "the draw first",
        "check the win first",
    ),
    wrong(
        "check_get_value_and_terminated", swap("return 1, True", "return -1, True"), "the loser's value", "a win is 1"
    ),
    wrong(
        "check_get_value_and_terminated",
        swap("    if np.sum(self.get_valid_moves(state)) == 0:\n        return 0, True\n", ""),
        "no draw",
        "a draw is (0, True)",
    ),
    wrong(
        "check_get_value_and_terminated",
        method(
            T,
            "get_value_and_terminated(self, state, action)",
            """
if self.check_win(state, action):
    return np.array([1, True])
return np.array([0, np.sum(self.get_valid_moves(state)) == 0])""",
        ),
        "an array for the pair",
        "not a tuple",
    ),
    # get_opponent and get_opponent_value
    right(
        "check_get_opponent",
        method(T, "get_opponent(self, player)", "return {1: -1, -1: 1}[player]")
        + "\n\n"
        + method(T, "get_opponent_value(self, value)", "return 0 - value"),
        "a dict; 0 - value",
        downstream=True,
    ),
    right(
        "check_get_opponent",
        method(T, "get_opponent(self, player)", "return player * -1")
        + "\n\n"
        + method(T, "get_opponent_value(self, value)", "return -1 * value"),
        "times -1",
    ),
    wrong("check_get_opponent", swap("return -value", "return 1 - value"), "1 - value", "negating it"),
    wrong("check_get_opponent", swap("return -value", "return value"), "value unchanged", "the negated value"),
    wrong("check_get_opponent", swap("return -player", "return 3 - player"), "kaggle's marks", "not kaggle's marks"),
    wrong("check_get_opponent", swap("return -player", "return -abs(player)"), "always -1", "the opposite sign",
          "gives -1 whoever asks"),
    unfinished(
        "check_get_opponent",
        swap("return -value", 'raise NotImplementedError("later")'),
        "the second method still a stub",
        "`get_opponent_value` still raises NotImplementedError",
        "the 2 cases before agree",
    ),
    # change_perspective
    right(
        "check_change_perspective",
        method(T, "change_perspective(self, state, player)", "return state.copy() if player == 1 else -state"),
        "copy or negate",
        downstream=True,
    ),
    right(
        "check_change_perspective",
        method(T, "change_perspective(self, state, player)", "return np.multiply(state, player).astype(state.dtype)"),
        "np.multiply",
    ),
    wrong(
        "check_change_perspective",
        method(T, "change_perspective(self, state, player)", "state *= player\nreturn state"),
        "in place",
        "input became",
        "change_perspective wrote into the board it was given",
    ),
    wrong(
        "check_change_perspective",
        method(T, "change_perspective(self, state, player)", "return -state"),
        "always negates",
        "do not always negate",
    ),
    wrong(
        "check_change_perspective",
        method(T, "change_perspective(self, state, player)", "return state * -player"),
        "times -player",
        "not by -player",
    ),
    wrong(
        "check_change_perspective",
        method(
            T, "change_perspective(self, state, player)", "return np.where(state == player, 1, -1).astype(state.dtype)"
        ),
        "empties become -1",
        "empty cells stay 0",
    ),
    # play_game
    right(
        "check_play_game",
        """def play_game(game, agent_x, agent_o):
    state = game.get_initial_state()
    moves = []
    for turn in range(game.action_size):
        player = 1 if turn % 2 == 0 else -1
        action = (agent_x if player == 1 else agent_o)(state, player)
        state = game.get_next_state(state, action, player)
        moves.append(action)
        value, done = game.get_value_and_terminated(state, action)
        if done:
            return player * value, tuple(moves)
""",
        "a for loop; numpy moves in a tuple",
        downstream=True,
    ),
    right(
        "check_play_game",
        """def play_game(game, agent_x, agent_o):
    state, player, moves, agents = game.get_initial_state(), 1, [], [agent_x, agent_o]
    while True:
        move = agents[0](state, player)
        state = game.get_next_state(state, move, player)
        moves.append(int(move))
        value, over = game.get_value_and_terminated(state, move)
        if over:
            return (player if value == 1 else 0), moves
        agents.reverse()
        player = -player
""",
        "a rotating list of agents",
    ),
    wrong(
        "check_play_game",
        swap("return int(player * value), moves", "return int(value), moves"),
        "winner = value",
        "player * value",
    ),
    wrong(
        "check_play_game",
        swap("player = game.get_opponent(player)", "pass"),
        "never switches",
        "switch players after every move",
    ),
    wrong(
        "check_play_game",
        swap("agents = {1: agent_x, -1: agent_o}", "agents = {1: agent_o, -1: agent_x}"),
        "agents swapped",
        "the agents are swapped",
    ),
    wrong(
        "check_play_game",
        swap(
            "action = agents[player](state, player)",
            "action = agents[player](game.change_perspective(state, player), player)",
        ),
        "canonical board to the agents",
        "the board as it is",
    ),
    wrong(
        "check_play_game",
        swap("if terminated:", "if not game.get_valid_moves(state).any():"),
        "plays on after a win",
        "stop as soon as",
    ),
]
CORPUS = {"01_games": NB01}

# ---- notebook 2: vanilla MCTS -----------------------------------------------------------------------------------
N = "Node"
MCTS_CLASS = '''class MCTS:
    def __init__(self, game, num_searches=1000, C=1.41, seed=None):
        self.game = game
        self.num_searches = num_searches
        self.C = C
        self.rng = np.random.default_rng(seed)
        self.root = None

    def search(self, state):
{body}
'''


def mcts_class(body: str) -> str:
    return MCTS_CLASS.format(body="\n".join("        " + line if line else "" for line in body.strip("\n").splitlines()))


SEARCH_BODY = """
root = self.root = Node(self.game, state)
for _ in range(self.num_searches):
    node = root
    while node.is_fully_expanded():
        node = node.select(self.C)
    value = node.terminal_value
    if not node.is_terminal:
        node = node.expand(self.rng)
        value = node.simulate(self.rng)
    node.backpropagate(value)
visits = np.zeros(self.game.action_size)
for child in root.children:
    visits[child.action_taken] = child.visit_count
return visits / np.sum(visits)
"""
NB02 = [
    # get_ucb
    right("check_get_ucb", method(N, "get_ucb(self, child, C)", """
mean = child.value_sum / child.visit_count
return (1 - mean) / 2 + C * np.sqrt(np.log(self.visit_count) / child.visit_count)"""), "(1 - mean) / 2, numpy",
          downstream=True),
    right("check_get_ucb", method(N, "get_ucb(self, child, C)", """
q = 1 - (child.value_sum / child.visit_count + 1) / 2
u = C * (math.log(self.visit_count) / child.visit_count) ** 0.5
return q + u"""), "** 0.5"),
    wrong("check_get_ucb", swap("q_value = 1 - (child.value_sum / child.visit_count + 1) / 2",
                                "q_value = (child.value_sum / child.visit_count + 1) / 2"), "no flip",
          "your opponent", "not (mean + 1) / 2"),
    wrong("check_get_ucb", swap("q_value = 1 - (child.value_sum / child.visit_count + 1) / 2",
                                "q_value = -child.value_sum / child.visit_count"), "no rescale", "not -mean"),
    wrong("check_get_ucb", swap("C * math.sqrt(math.log(self.visit_count) / child.visit_count)",
                                "C * math.log(self.visit_count) / child.visit_count"), "no square root",
          "square root is missing"),
    wrong("check_get_ucb", swap("math.log(self.visit_count) / child.visit_count",
                                "math.log(child.visit_count) / self.visit_count"), "visits swapped",
          "PARENT's visits"),
    wrong("check_get_ucb", swap("return q_value + C", "return np.array([q_value]) + C"), "an array of one",
          "numpy array of shape (1,), not a number"),
    # select
    right("check_select", method(N, "select(self, C)", "return max(self.children, key=lambda child: self.get_ucb(child, C))"),
          "max with a key", downstream=True),
    right("check_select", method(N, "select(self, C)", """
scores = [self.get_ucb(child, C) for child in self.children]
return self.children[int(np.argmax(scores))]"""), "argmax"),
    wrong("check_select", swap("if ucb > best_ucb:", "if ucb >= best_ucb:"), "ties to the last", "keep the FIRST child"),
    wrong("check_select", method(N, "select(self, C)", "return min(self.children, key=lambda child: self.get_ucb(child, C))"),
          "min", "HIGHEST score"),
    wrong("check_select", method(N, "select(self, C)", "return max(self.children, key=lambda child: child.visit_count)"),
          "most visited", "not by the visit count"),
    wrong("check_select", method(N, "select(self, C)",
                                 "return int(np.argmax([self.get_ucb(child, C) for child in self.children]))"),
          "returns the index", "raised AttributeError", "the child node itself"),
    # is_fully_expanded
    right("check_is_fully_expanded", method(N, "is_fully_expanded(self)",
                                            "return len(self.children) > 0 and not self.expandable_moves.any()"),
          "not any()", downstream=True),
    right("check_is_fully_expanded", method(N, "is_fully_expanded(self)",
                                            "return int(bool(self.children) and self.expandable_moves.sum() == 0)"),
          "returns 0/1"),
    wrong("check_is_fully_expanded", swap(" and len(self.children) > 0", ""), "no child check", "without legal moves"),
    wrong("check_is_fully_expanded", method(N, "is_fully_expanded(self)", "return len(self.children) > 0"),
          "any child", "not just some child"),
    wrong("check_is_fully_expanded", method(N, "is_fully_expanded(self)", "return len(self.children) == 9"),
          "nine children", "not with 9 children"),
    wrong("check_is_fully_expanded", method(N, "is_fully_expanded(self)",
                                            "return np.sum(self.expandable_moves) > 0 and len(self.children) > 0"),
          "inverted", "True where False", "is inverted: fully expanded means NONE is left"),
    # expand
    right("check_expand", method(N, "expand(self, rng)", """
moves = np.flatnonzero(self.expandable_moves)
action = int(moves[rng.integers(len(moves))])
self.expandable_moves[action] = 0
child = Node(self.game, -self.game.get_next_state(self.state, action, 1), self, action)
self.children.append(child)
return child"""), "rng.integers, negation"),
    right("check_expand", method(N, "expand(self, rng)", """
action = int(rng.permutation(np.flatnonzero(self.expandable_moves))[-1])
self.expandable_moves[action] = 0
child = Node(self.game, self.game.change_perspective(self.game.get_next_state(self.state, action, 1), -1), self, action)
self.children.append(child)
return child"""), "another order of draws: the last of a permutation", downstream=True),
    right("check_expand", method(N, "expand(self, rng)", """
action = rng.choice(np.where(self.expandable_moves == 1)[0])
self.expandable_moves[action] = 0
next_state = self.game.get_next_state(self.state, action, 1)
self.children.append(Node(self.game, self.game.change_perspective(next_state, -1), parent=self, action_taken=action))
return self.children[-1]"""), "np.where, numpy action"),
    wrong("check_expand", swap("    child_state = self.game.change_perspective(child_state, player=-1)\n", ""),
          "no flip", "then change_perspective(child_state, -1)"),
    wrong("check_expand", swap("action = int(rng.choice(np.flatnonzero(self.expandable_moves)))",
                               "action = int(np.flatnonzero(self.expandable_moves)[0])"), "the first move",
          "not the first one"),
    wrong("check_expand", swap("    self.expandable_moves[action] = 0\n", ""), "not marked", "mark the move"),
    wrong("check_expand", swap("action = int(rng.choice(np.flatnonzero(self.expandable_moves)))",
                               "action = int(np.random.choice(np.flatnonzero(self.expandable_moves)))"),
          "np.random", "not np.random"),
    wrong("check_expand", swap("action = int(rng.choice(np.flatnonzero(self.expandable_moves)))",
                               "action = int(rng.choice(np.flatnonzero(self.game.get_valid_moves(self.state))))"),
          "all legal moves", "expandable"),
    wrong("check_expand", swap("    self.children.append(child)\n", ""), "not appended", "append the new child"),
    # simulate
    right("check_simulate", method(N, "simulate(self, rng)", """
if self.is_terminal:
    return self.terminal_value
state, player = self.state.copy(), 1
while True:
    valid = self.game.get_valid_moves(state)
    action = int(rng.choice(np.flatnonzero(valid)))
    state = self.game.get_next_state(state, action, player)
    value, done = self.game.get_value_and_terminated(state, action)
    if done:
        return value * player
    player = -player"""), "value * player", downstream=True),
    right("check_simulate", Edit((("rollout_player = self.game.get_opponent(rollout_player)",
                                   "rollout_player = -rollout_player"),
                                  ("return value if rollout_player == 1 else self.game.get_opponent_value(value)",
                                   "return float(value if rollout_player == 1 else -value)"))), "float, -player"),
    wrong("check_simulate", swap("return value if rollout_player == 1 else self.game.get_opponent_value(value)",
                                 "return value"), "no negation", "negate the value"),
    wrong("check_simulate", swap("    if self.is_terminal:\n        return self.terminal_value\n", ""),
          "plays on after the end", "terminal_value"),
    wrong("check_simulate", swap("rng.choice(", "np.random.choice("), "the global generator", "returned", "changed when the same case ran a second time", "not np.random or random"),
    wrong("check_simulate", swap("return value if rollout_player == 1 else self.game.get_opponent_value(value)",
                                 "return np.array(value if rollout_player == 1 else -value)"), "a 0-d array",
          "not a number"),
    # backpropagate
    right("check_backpropagate", method(N, "backpropagate(self, value)", """
node = self
while node is not None:
    node.visit_count += 1
    node.value_sum += value
    value = -value
    node = node.parent"""), "a loop", downstream=True),
    right("check_backpropagate", method(N, "backpropagate(self, value)", """
self.visit_count, self.value_sum = self.visit_count + 1, self.value_sum + value
if self.parent:
    self.parent.backpropagate(-value)"""), "tuple assignment, -value"),
    wrong("check_backpropagate", swap("self.parent.backpropagate(self.game.get_opponent_value(value))",
                                      "self.parent.backpropagate(value)"), "no flip", "the parent gets -value"),
    wrong("check_backpropagate", swap("    if self.parent is not None:\n"
                                      "        self.parent.backpropagate(self.game.get_opponent_value(value))\n", ""),
          "the leaf only", "up to and including the root"),
    wrong("check_backpropagate", method(N, "backpropagate(self, value)", """
node, value = self, -value
while node is not None:
    node.visit_count += 1
    node.value_sum += value
    value = -value
    node = node.parent"""), "flipped from the start", "flips only for the parent"),
    wrong("check_backpropagate", swap("self.visit_count += 1", "self.visit_count += abs(value)"),
          "visits by value", "returned", "a visit counts 1 whatever the value"),
    # search
    right("check_search", mcts_class(SEARCH_BODY.replace("visits = np.zeros(self.game.action_size)\nfor child in root.children:\n    visits[child.action_taken] = child.visit_count\nreturn visits / np.sum(visits)",
                                                         "counts = np.array([sum(c.visit_count for c in root.children if c.action_taken == a) for a in range(self.game.action_size)])\nreturn counts / counts.sum()")),
          "comprehension", downstream=True),
    right("check_search", mcts_class(SEARCH_BODY.replace("    value = node.terminal_value\n    if not node.is_terminal:\n        node = node.expand(self.rng)\n        value = node.simulate(self.rng)\n",
                                                         "    if node.is_terminal:\n        value = node.terminal_value\n    else:\n        node = node.expand(self.rng)\n        value = node.simulate(self.rng)\n")),
          "if/else"),
    wrong("check_search", mcts_class(SEARCH_BODY.replace("return visits / np.sum(visits)", "return visits")),
          "counts", "visit SHARES"),
    wrong("check_search", mcts_class(SEARCH_BODY.replace("    if not node.is_terminal:\n", "    if True:\n")),
          "expands terminal nodes", "terminal_value"),
    wrong("check_search", mcts_class(SEARCH_BODY.replace("root = self.root = Node(self.game, state)",
                                                         "root = Node(self.game, state)")), "no self.root",
          "self.root"),
    wrong("check_search", mcts_class(SEARCH_BODY.replace("return visits / np.sum(visits)",
                                                         "return (visits / np.sum(visits)).tolist()")),
          "a list", "numpy array"),
    wrong("check_search", mcts_class(SEARCH_BODY.replace("    while node.is_fully_expanded():",
                                                         "    while node.children:")), "selects too early",
          "FULLY expanded"),
]
CORPUS["02_vanilla_mcts"] = NB02

# ---- notebook 3: the model -----------------------------------------------------------------------------------------
NB03 = [
    # encode
    right("check_encode", '''def encode(state):
    state = np.asarray(state)
    one_hot = np.eye(3, dtype=np.float32)[state + 1]  # (..., R, C, 3): -1 -> 0, 0 -> 1, 1 -> 2
    return np.moveaxis(one_hot, -1, -3)
''', "np.eye and moveaxis", downstream=True),
    right("check_encode", '''def encode(state):
    planes = [(state == value).astype(np.float32) for value in (-1, 0, 1)]
    return np.stack(planes, axis=state.ndim - 2)
''', "axis from ndim"),
    wrong("check_encode", swap("(state == -1, state == 0, state == 1)", "(state == 1, state == 0, state == -1)"),
          "own plane first", "opponent (-1), empty (0), own (1)"),
    wrong("check_encode", swap("axis=-3", "axis=0"), "batch on axis 0", "not axis 0"),
    wrong("check_encode", swap("axis=-3", "axis=-1"), "planes last", "not (R, C, 3)"),
    wrong("check_encode", swap(".astype(np.float32)", ""), "booleans", "float32"),
    wrong("check_encode", swap("return np.stack((state == -1, state == 0, state == 1), axis=-3).astype(np.float32)",
                               "return torch.tensor(np.stack((state == -1, state == 0, state == 1), axis=-3), dtype=torch.float32)"),
          "a tensor", "a numpy array"),
    # ResBlock
    right("check_resblock", '''class ResBlock(nn.Module):
    def __init__(self, num_hidden):
        super().__init__()
        self.conv1 = nn.Conv2d(num_hidden, num_hidden, 3, 1, 1)
        self.bn1 = nn.BatchNorm2d(num_hidden)
        self.conv2 = nn.Conv2d(num_hidden, num_hidden, 3, 1, 1)
        self.bn2 = nn.BatchNorm2d(num_hidden)

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += x
        return torch.relu(out)
''', "positional padding, +=", downstream=True),
    right("check_resblock", Edit((("        residual = x\n", ""), ("return F.relu(x + residual)", "return F.relu(x + self.skip)"),
                                  ("    def forward(self, x):\n", "    def forward(self, x):\n        self.skip = x\n"))),
          "the input kept on self"),
    wrong("check_resblock", swap("return F.relu(x + residual)", "return F.relu(x) + residual"), "ReLU before the sum",
          "AFTER adding"),
    wrong("check_resblock", swap("return F.relu(x + residual)", "return F.relu(x)"), "no skip", "skip connection"),
    wrong("check_resblock", swap("kernel_size=3, padding=1", "kernel_size=3"), "no padding", "raised RuntimeError",
          "padding=1 in both"),
    wrong("check_resblock", swap("self.bn1", "self.norm1"), "renamed", "no 'bn1.weight'"),
    wrong("check_resblock", swap("x = F.relu(self.bn1(self.conv1(x)))", "x = self.bn1(self.conv1(x))"),
          "no first ReLU", "between the two convolutions"),
    unfinished("check_resblock", swap("        residual = x\n        x = F.relu(self.bn1(self.conv1(x)))\n"
                                      "        x = self.bn2(self.conv2(x))\n        return F.relu(x + residual)\n",
                                      "        raise NotImplementedError\n"),
               "forward still a stub", "`forward` still raises NotImplementedError"),
    wrong("check_resblock", swap("def forward(self, x):", "def foward(self, x):"), "forward misspelled",
          "no method `forward`"),
    # ResNet layers
    right("check_resnet_layers", '''class ResNet(nn.Module):
    def __init__(self, game, num_res_blocks=4, num_hidden=64):
        super().__init__()
        self.game = game
        rows, columns = game.row_count, game.column_count

        def conv(inputs, outputs):
            return [nn.Conv2d(inputs, outputs, kernel_size=3, padding=1), nn.BatchNorm2d(outputs), nn.ReLU()]

        self.start_block = nn.Sequential(*conv(3, num_hidden))
        self.back_bone = nn.ModuleList(ResBlock(num_hidden) for _ in range(num_res_blocks))
        self.policy_head = nn.Sequential(*conv(num_hidden, 32), nn.Flatten(), nn.Linear(32 * rows * columns, game.action_size))
        self.value_head = nn.Sequential(*conv(num_hidden, 3), nn.Flatten(), nn.Linear(3 * rows * columns, 1), nn.Tanh())
''', "a helper for conv-BN-ReLU", downstream=True),
    right("check_resnet_layers", swap("cells = game.row_count * game.column_count", "cells = game.action_size if game.row_count * game.column_count == game.action_size else game.row_count * game.column_count"),
          "cells another way"),
    wrong("check_resnet_layers", swap("nn.Conv2d(3, num_hidden, kernel_size=3, padding=1)", "nn.Conv2d(3, num_hidden, kernel_size=3)"),
          "start block without padding", "case 1 of 3", "start_block", "padding=1"),
    wrong("check_resnet_layers", swap("            nn.Tanh(),\n", ""), "no Tanh", "Tanh"),
    wrong("check_resnet_layers", swap("nn.Linear(32 * cells, game.action_size)", "nn.Linear(32 * 9, 9)"),
          "Tic-Tac-Toe sizes", "case 3 of 3", "of THIS game"),
    wrong("check_resnet_layers", swap("nn.ModuleList([ResBlock", "nn.Sequential(*[ResBlock"), "a Sequential backbone",
          "nn.ModuleList"),
    wrong("check_resnet_layers", swap("nn.BatchNorm2d(num_hidden), nn.ReLU()", "nn.ReLU(), nn.BatchNorm2d(num_hidden)"),
          "ReLU before BatchNorm", "start_block"),
    wrong("check_resnet_layers", Edit((("nn.Conv2d(num_hidden, 32, kernel_size=3, padding=1)", "nn.Conv2d(num_hidden, 32, kernel_size=3)"),
                                       ("nn.Linear(32 * cells, game.action_size)", "nn.Linear(32 * (game.row_count - 2) * (game.column_count - 2), game.action_size)"))),
          "policy head shrinks the board", "policy_head"),
    # ResNet.forward
    right("check_resnet_forward", method("ResNet", "forward(self, x)", """
features = self.start_block(x)
for index in range(len(self.back_bone)):
    features = self.back_bone[index](features)
policy = self.policy_head(features)
value = self.value_head(features)
return [policy, value]"""), "a list, indices", downstream=True),
    right("check_resnet_forward", method("ResNet", "forward(self, x)", """
import functools
x = functools.reduce(lambda h, block: block(h), self.back_bone, self.start_block(x))
return self.policy_head(x), self.value_head(x)"""), "reduce"),
    wrong("check_resnet_forward", swap("for block in self.back_bone:\n        x = block(x)", "x = self.back_bone[0](x)"),
          "first block only", "EVERY block"),
    wrong("check_resnet_forward", swap("return self.policy_head(x), self.value_head(x)", "return self.value_head(x), self.policy_head(x)"),
          "swapped", "(policy logits, value)"),
    wrong("check_resnet_forward", swap("return self.policy_head(x), self.value_head(x)",
                                       "return torch.softmax(self.policy_head(x), dim=1), self.value_head(x)"),
          "softmax", "LOGITS"),
    wrong("check_resnet_forward", swap("    for block in self.back_bone:\n        x = block(x)\n", ""), "no backbone",
          "through the backbone"),
    wrong("check_resnet_forward", swap("return self.policy_head(x), self.value_head(x)",
                                       "return self.policy_head(x).detach().numpy(), self.value_head(x).detach().numpy()"),
          "numpy outputs", "torch tensors"),
    # predict
    right("check_predict", '''def predict(model, game, state):
    model.eval()
    with torch.inference_mode():
        logits, value = model(torch.from_numpy(encode(state)[None]))
    logits = logits[0].numpy().astype(np.float64)
    logits[game.get_valid_moves(state) == 0] = -np.inf
    policy = np.exp(logits - logits.max())
    return policy / policy.sum(), float(value)
''', "mask the logits, float()", downstream=True),
    right("check_predict", '''def predict(model, game, state):
    model.eval()
    x = torch.tensor(encode(state)).unsqueeze(0)
    with torch.no_grad():
        logits, value = model(x)
    policy = torch.softmax(logits, dim=-1)[0].numpy() * game.get_valid_moves(state)
    return policy / np.sum(policy), np.float32(value.item())
''', "a numpy float"),
    wrong("check_predict", swap("    model.eval()\n", ""), "no eval()", "model.eval()"),
    wrong("check_predict", Edit((("    policy = policy * game.get_valid_moves(state)\n", ""),)), "no mask",
          "illegal moves get probability 0"),
    wrong("check_predict", swap("return policy / policy.sum(), value.item()", "return policy, value.item()"),
          "no renormalisation", "divide by the sum"),
    wrong("check_predict", swap("return policy / policy.sum(), value.item()", "return policy / policy.sum(), value"),
          "the value as a tensor", "torch tensor, not a number", "value.item()"),
    wrong("check_predict", swap("policy = torch.softmax(logits, dim=1).squeeze(0).numpy()",
                                "policy = torch.softmax(logits, dim=1).numpy()"), "a batch axis left",
          "shape (1, 9) instead of (9,)"),
    wrong("check_predict", swap("policy = torch.softmax(logits, dim=1).squeeze(0).numpy()",
                                "policy = torch.softmax(logits, dim=0).squeeze(0).numpy()"), "softmax over the batch",
          "returned", "over the ACTIONS, dim=1"),
]
CORPUS["03_model"] = NB03

# ---- notebook 4: the AlphaZero search ------------------------------------------------------------------------------
NB04 = [
    # get_ucb
    right("check_get_ucb", method(N, "get_ucb(self, child, C)", """
q = 0.0 if not child.visit_count else -child.value_sum / child.visit_count
return float(q + C * child.prior * np.sqrt(self.visit_count) / (child.visit_count + 1))"""), "numpy sqrt, float()",
          downstream=True),
    right("check_get_ucb", method(N, "get_ucb(self, child, C)", """
u = C * child.prior * self.visit_count ** 0.5 / (1 + child.visit_count)
if child.visit_count == 0:
    return u
return u - child.value_sum / child.visit_count"""), "** 0.5, early return"),
    wrong("check_get_ucb", swap("q_value = -(child.value_sum / child.visit_count)", "q_value = child.value_sum / child.visit_count"),
          "no negation", "Q = -(value_sum / visit_count)"),
    wrong("check_get_ucb", swap("q_value = -(child.value_sum / child.visit_count)",
                                "q_value = 1 - (child.value_sum / child.visit_count + 1) / 2"), "vanilla's Q",
          "not vanilla MCTS's rescaled"),
    wrong("check_get_ucb", method(N, "get_ucb(self, child, C)", """
q = -(child.value_sum / child.visit_count)
return q + C * child.prior * math.sqrt(self.visit_count) / (1 + child.visit_count)"""), "divides by zero",
          "raised ZeroDivisionError", "no division by zero"),
    wrong("check_get_ucb", swap("math.sqrt(self.visit_count)", "self.visit_count"), "no square root",
          "square root of the PARENT's visits"),
    wrong("check_get_ucb", swap("/ (1 + child.visit_count)", "/ child.visit_count if child.visit_count else 0"),
          "no 1 +", "returned", "divides by (1 + child.visit_count), which is never 0"),
    # select
    right("check_select", method(N, "select(self, C)", "return max(self.children, key=lambda child: self.get_ucb(child, C))"),
          "max with a key", downstream=True),
    right("check_select", method(N, "select(self, C)", """
scores = np.array([self.get_ucb(child, C) for child in self.children])
return self.children[int(np.flatnonzero(scores == scores.max())[0])]"""), "the first of the maxima"),
    wrong("check_select", swap("if ucb > best_ucb:", "if ucb >= best_ucb:"), "ties to the last", "keep the FIRST child"),
    wrong("check_select", method(N, "select(self, C)", "return min(self.children, key=lambda child: self.get_ucb(child, C))"),
          "min", "LARGEST score"),
    wrong("check_select", method(N, "select(self, C)", "return max(self.children, key=lambda child: child.prior)"),
          "the prior alone", "not by the prior alone"),
    wrong("check_select", method(N, "select(self, C)", "return max(range(len(self.children)), key=lambda i: self.get_ucb(self.children[i], C))"),
          "the index", "raised AttributeError", "not its position in self.children"),
    # expand
    right("check_expand", method(N, "expand(self, game, priors)", """
valid = game.get_valid_moves(self.state)
for action in range(game.action_size):
    if valid[action]:
        child_state = -game.get_next_state(self.state, action, 1)
        self.children.append(Node(child_state, self, action, priors[action]))"""), "range and negation", downstream=True),
    right("check_expand", method(N, "expand(self, game, priors)", """
self.children += [Node(game.change_perspective(game.get_next_state(self.state, a, 1), -1), parent=self,
                       action_taken=a, prior=float(priors[a]))
                  for a in np.flatnonzero(game.get_valid_moves(self.state))]"""), "a comprehension, numpy actions"),
    wrong("check_expand", swap("        child_state = game.change_perspective(child_state, -1)\n", ""), "no flip",
          "seen by the opponent"),
    wrong("check_expand", method(N, "expand(self, game, priors)", """
for index, action in enumerate(np.flatnonzero(game.get_valid_moves(self.state))):
    child_state = game.change_perspective(game.get_next_state(self.state, int(action), 1), -1)
    self.children.append(Node(child_state, parent=self, action_taken=int(action), prior=priors[index]))"""),
          "prior by index", "priors[action]"),
    wrong("check_expand", swap("for action in np.flatnonzero(game.get_valid_moves(self.state)):", "for action in range(game.action_size):"),
          "every action", "raised ValueError", "is occupied", "only the legal moves get a child"),
    wrong("check_expand", swap("child_state = game.get_next_state(self.state, int(action), 1)",
                               "child_state = game.get_next_state(self.state, int(action), -1)"), "played by -1",
          "returned", "play the move for player 1"),
    wrong("check_expand", swap("child_state = game.get_next_state(self.state, int(action), 1)", "child_state = self.state.copy()"),
          "the move not played", "item 2 of the 3 items: the board differs in 1 cell, the first [0, 0]: yours 0, expected -1"),
    # masked_policy
    right("check_masked_policy", '''def masked_policy(logits, valid):
    masked = np.where(valid == 1, logits, -np.inf)
    weights = np.exp(masked - masked.max())
    return weights / weights.sum()
''', "-inf on illegal moves", downstream=True),
    right("check_masked_policy", '''def masked_policy(logits, valid):
    legal = valid.astype(bool)
    weights = np.where(legal, np.exp(logits - logits[legal].max()), 0.0)
    return weights / weights.sum()
''', "the largest legal logit, np.where"),
    wrong("check_masked_policy", '''def masked_policy(logits, valid):
    p = np.exp(logits - logits.max()) * valid
    return p / p.sum()
''', "the max over all logits", "returned array([nan,", "the largest LEGAL logit", "0 / 0 is nan"),
    wrong("check_masked_policy", '''def masked_policy(logits, valid):
    weights = np.exp(logits) * valid
    return weights / weights.sum()
''', "no shift", "overflows"),
    wrong("check_masked_policy", '''def masked_policy(logits, valid):
    weights = np.exp(logits - logits.max())
    return weights * valid / weights.sum()
''', "the sum over all moves", "LEGAL moves only"),
    wrong("check_masked_policy", '''def masked_policy(logits, valid):
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()
''', "no mask", "exactly 0"),
    wrong("check_masked_policy", swap("return weights / weights.sum()", "return list(weights / weights.sum())"),
          "a list", "not a numpy array"),
    # add_dirichlet_noise
    right("check_dirichlet_noise", '''def add_dirichlet_noise(priors, valid, epsilon, alpha, rng):
    legal = valid.astype(bool)
    noise = np.zeros(len(priors))
    noise[legal] = rng.dirichlet(np.full(legal.sum(), alpha))
    return np.where(legal, (1 - epsilon) * priors + epsilon * noise, priors)
''', "np.where"),
    right("check_dirichlet_noise", '''def add_dirichlet_noise(priors, valid, epsilon, alpha, rng):
    legal = np.flatnonzero(valid)
    gammas = rng.gamma(alpha, size=len(priors))[legal]
    mixed = np.array(priors, dtype=float)
    mixed[legal] = (1 - epsilon) * mixed[legal] + epsilon * gammas / gammas.sum()
    return mixed
''', "another order of draws: a gamma draw per cell, the legal ones normalised", downstream=True),
    right("check_dirichlet_noise", '''def add_dirichlet_noise(priors, valid, epsilon, alpha, rng):
    out = priors.copy()
    legal = np.flatnonzero(valid)
    out[legal] = out[legal] * (1 - epsilon) + rng.dirichlet(alpha * np.ones(len(legal))) * epsilon
    return out
''', "copy"),
    wrong("check_dirichlet_noise", swap("noise = rng.dirichlet([alpha] * len(legal))",
                                        "noise = rng.dirichlet([alpha] * len(priors))[legal]"), "noise over every action",
          "not over every action"),
    wrong("check_dirichlet_noise", swap("noise = rng.dirichlet([alpha] * len(legal))",
                                        "noise = np.random.dirichlet([alpha] * len(legal))"), "np.random",
          "not from np.random"),
    wrong("check_dirichlet_noise", swap("(1 - epsilon) * priors[legal] + epsilon * noise", "epsilon * priors[legal] + (1 - epsilon) * noise"),
          "weights swapped", "the noise's share"),
    wrong("check_dirichlet_noise", swap("priors = np.array(priors, dtype=np.float64)", "priors = np.asarray(priors)"),
          "in place", "priors untouched"),
    wrong("check_dirichlet_noise", swap("(1 - epsilon) * priors[legal] + epsilon * noise", "priors[legal] + epsilon * noise"),
          "prior not scaled", "(1 - epsilon) too"),
    wrong("check_dirichlet_noise", '''def add_dirichlet_noise(priors, valid, epsilon, alpha, rng):
    noise = rng.dirichlet([alpha] * len(priors))
    mixed = ((1 - epsilon) * priors + epsilon * noise) * valid
    return mixed / mixed.sum()
''', "the video's: every action, masked, renormalised", "followed by a mask"),
    wrong("check_dirichlet_noise", swap("noise = rng.dirichlet([alpha] * len(legal))", "noise = rng.dirichlet([1 / alpha] * len(legal))"),
          "alpha inverted", "concentration"),
    wrong("check_dirichlet_noise", swap("noise = rng.dirichlet([alpha] * len(legal))", "noise = rng.dirichlet([alpha * len(legal)] * len(legal))"),
          "alpha times the legal moves", "too even or too spiky"),
    # search
    right("check_search", Edit((("    counts = np.zeros(game.action_size)\n    for child in root.children:\n"
                                 "        counts[child.action_taken] = child.visit_count\n    return counts / counts.sum()",
                                 "    visits = {child.action_taken: child.visit_count for child in root.children}\n"
                                 "    counts = np.array([visits.get(a, 0) for a in range(game.action_size)], dtype=float)\n"
                                 "    return counts / counts.sum()"),
                                ("        value = -value\n        if not is_terminal:",
                                 "        if is_terminal:\n            value = -value\n        else:"))),
          "a dict of visits; the sign in an if", downstream=True),
    right("check_search", Edit((("        while node.is_expanded():", "        while len(node.children) > 0:"),
                                ("priors = masked_policy(logits, valid)", "priors = masked_policy(np.asarray(logits), np.asarray(valid))"))),
          "len(children)"),
    wrong("check_search", swap("node.expand(game, masked_policy(logits, game.get_valid_moves(node.state)))",
                               "node.expand(game, masked_policy(logits, np.ones(game.action_size)))"),
          "leaves not masked", "at EVERY node you expand"),
    wrong("check_search", swap("        value = -value\n", ""), "terminal sign", "the leaf's value is -value"),
    wrong("check_search", swap("    root.visit_count = 1\n", ""), "root not visited", "root.visit_count = 1"),
    wrong("check_search", swap("self.rng)", "np.random.default_rng(config.seed))"), "a new generator", "once, in __init__"),
    wrong("check_search", swap("logits, value = self.evaluate(node.state)", "logits, value = self.evaluate(node.state)\n            value = -value"),
          "network sign", "back it up as it is"),
]
CORPUS["04_alphazero_search"] = NB04

# ---- notebook 5: self-play and training -------------------------------------------------------------------------
NB05 = [
    # apply_temperature
    right("check_apply_temperature", '''def apply_temperature(probs, temperature):
    if temperature == 0:
        best = np.isclose(probs, np.max(probs), rtol=0, atol=0)
        return best / best.sum()
    weights = np.power(probs, 1.0 / temperature)
    return weights / np.sum(weights)
''', "np.power, booleans divided", downstream=True),
    right("check_apply_temperature", '''def apply_temperature(probs, temperature):
    probs = np.array(probs, dtype=float)
    if temperature > 0:
        probs = probs ** (1 / temperature)
    else:
        probs = np.where(probs == probs.max(), 1.0, 0.0)
    return probs / probs.sum()
''', "np.where"),
    wrong("check_apply_temperature", swap("return weights / weights.sum()", "return weights"), "no renormalisation",
          "divide by the sum"),
    wrong("check_apply_temperature", swap("weights = probs ** (1 / temperature)", "weights = probs ** temperature"),
          "power T", "not to the power temperature"),
    wrong("check_apply_temperature", swap("weights = (probs == probs.max()).astype(np.float64)",
                                          "weights = np.eye(len(probs))[np.argmax(probs)]"), "one maximum at T = 0",
          "SHARE the mass"),
    wrong("check_apply_temperature", '''def apply_temperature(probs, temperature):
    weights = probs ** (1 / temperature)
    return weights / weights.sum()
''', "T = 0 divides", "raised ZeroDivisionError",
    "temperature 0 is a case of its own"),
    wrong("check_apply_temperature", swap("return weights / weights.sum()", "return (weights / weights.sum()).tolist()"),
          "a list", "not a numpy array"),
    wrong("check_apply_temperature", '''def apply_temperature(probs, temperature):
    if temperature == 0:
        probs[:] = probs == probs.max()
    else:
        probs **= 1 / temperature
    probs /= probs.sum()
    return probs
''', "in place", "the input was changed"),
    # game_memory
    right("check_game_memory", '''def game_memory(game, history, value, last_player):
    return [(game.get_encoded_state(state), probs, value * player * last_player) for state, probs, player in history]
''', "value * player * last_player", downstream=True),
    right("check_game_memory", '''def game_memory(game, history, value, last_player):
    samples = []
    for state, probs, player in reversed(history):
        samples.insert(0, (encode(state) if False else game.get_encoded_state(state), probs,
                           float(value if player == last_player else -value)))
    return samples
''', "built backwards, floats"),
    wrong("check_game_memory", swap("outcome = value if player == last_player else game.get_opponent_value(value)",
                                    "outcome = value"), "the last mover's value everywhere", "seen by ITS mover"),
    wrong("check_game_memory", swap("outcome = value if player == last_player else game.get_opponent_value(value)",
                                    "outcome = -value if player == last_player else value"), "flipped",
          "the others the opposite"),
    wrong("check_game_memory", swap("game.get_encoded_state(state)", "game.get_encoded_state(game.change_perspective(state, player))"),
          "flipped twice", "already canonical"),
    wrong("check_game_memory", swap("game.get_encoded_state(state)", "state"), "not encoded",
          "store game.get_encoded_state(state)"),
    wrong("check_game_memory", swap("    for state, probs, player in history:", "    for state, probs, player in history[:-1]:"),
          "the last position left out", "one sample per position"),
    # self_play
    right("check_self_play", '''def self_play(game, search, rng, temperature=1.25):
    history, state, player = [], game.get_initial_state(), 1
    done = False
    while not done:
        canonical = state * player
        probs = search(canonical)
        history.append((canonical, probs, player))
        action = int(rng.choice(len(probs), p=apply_temperature(probs, temperature)))
        state = game.get_next_state(state, action, player)
        value, done = game.get_value_and_terminated(state, action)
        last, player = player, -player
    return game_memory(game, history, value, last)
''', "while not done; state * player", downstream=True),
    right("check_self_play", Edit((("action = rng.choice(game.action_size, p=apply_temperature(probs, temperature))",
                                    "shaped = apply_temperature(probs, temperature)\n        action = rng.choice(np.arange(game.action_size), p=shaped)"),)),
          "np.arange"),
    wrong("check_self_play", swap("action = rng.choice(", "action = np.random.choice("), "the global generator",
          "changed when the same case ran a second time", "not np.random or random"),
    wrong("check_self_play", swap("p=apply_temperature(probs, temperature)", "p=probs"), "temperature ignored",
          "apply_temperature(probs, temperature)"),
    wrong("check_self_play", Edit((("history.append((canonical, probs, player))\n        action = rng.choice(game.action_size, p=apply_temperature(probs, temperature))",
                                    "probs = apply_temperature(probs, temperature)\n        history.append((canonical, probs, player))\n        action = rng.choice(game.action_size, p=probs)"),)),
          "stores the shaped probabilities", "store the search's probabilities"),
    wrong("check_self_play", swap("probs = search(canonical)", "probs = search(state)"), "searches the absolute board",
          "CANONICAL state"),
    wrong("check_self_play", swap("return game_memory(game, history, value, player)", "return game_memory(game, history, value, game.get_opponent(player))"),
          "the wrong last player", "made the last move"),
    wrong("check_self_play", swap("action = rng.choice(game.action_size, p=apply_temperature(probs, temperature))",
                                  "action = int(np.argmax(probs))"), "argmax", "returned"),
    # minibatches
    right("check_minibatches", '''def minibatches(num_samples, batch_size, rng):
    order = np.arange(num_samples)
    rng.shuffle(order)
    batches = np.array_split(order, range(batch_size, num_samples, batch_size))
    if len(batches) > 1 and len(batches[-1]) == 1:
        batches = batches[:-2] + [np.concatenate(batches[-2:])]
    return batches
''', "shuffle in place, array_split", downstream=True),
    right("check_minibatches", '''def minibatches(num_samples, batch_size, rng):
    order = rng.permutation(num_samples).tolist()
    out = []
    while order:
        take = len(order) if len(order) == batch_size + 1 and num_samples > batch_size else batch_size
        out.append(order[:take])
        order = order[take:]
    return out
''', "lists of ints"),
    wrong("check_minibatches", swap("order[start : start + batch_size]", "order[start : min(num_samples - 1, start + batch_size)]"),
          "the video's slice", "drops the last sample"),
    wrong("check_minibatches", swap("    if len(batches) > 1 and len(batches[-1]) == 1:\n        batches[-2] = np.concatenate([batches[-2], batches[-1]])\n        batches.pop()\n", ""),
          "a batch of one kept", "a one-sample step is a noisy one"),
    wrong("check_minibatches", swap("order = rng.permutation(num_samples)", "order = np.arange(num_samples)"),
          "no shuffle", "rng.permutation"),
    wrong("check_minibatches", swap("    if len(batches) > 1 and len(batches[-1]) == 1:\n        batches[-2] = np.concatenate([batches[-2], batches[-1]])\n        batches.pop()\n",
                                    "    if len(batches) > 1 and len(batches[-1]) == 1:\n        batches.pop()\n"),
          "a batch of one dropped", "every sample exactly once"),
    # train_step
    right("check_train_step", '''def train_step(model, optimizer, states, policy_targets, value_targets):
    optimizer.zero_grad()
    logits, value = model(states)
    log_probs = torch.log_softmax(logits, dim=1)
    policy_loss = -(policy_targets * log_probs).sum(dim=1).mean()
    value_loss = ((value - value_targets) ** 2).mean()
    (policy_loss + value_loss).backward()
    optimizer.step()
    return float(policy_loss), float(value_loss)
''', "losses by hand, zero_grad first", downstream=True),
    right("check_train_step", Edit((("    (policy_loss + value_loss).backward()\n", "    policy_loss.backward(retain_graph=True)\n    value_loss.backward()\n"),)),
          "two backward calls"),
    wrong("check_train_step", swap("    optimizer.zero_grad()\n", ""), "no zero_grad", "zero_grad() before backward()"),
    wrong("check_train_step", Edit((("    optimizer.zero_grad()\n    (policy_loss + value_loss).backward()\n    optimizer.step()\n",
                                     "    optimizer.zero_grad()\n    optimizer.step()\n    (policy_loss + value_loss).backward()\n"),)),
          "step before backward", "never changed", "zero_grad(), loss.backward(), optimizer.step()"),
    wrong("check_train_step", Edit((("    optimizer.zero_grad()\n    (policy_loss + value_loss).backward()\n    optimizer.step()\n",
                                     "    (policy_loss + value_loss).backward()\n    optimizer.zero_grad()\n    optimizer.step()\n"),)),
          "zero_grad between", "never changed", "zero_grad(), loss.backward(), optimizer.step()"),
    wrong("check_train_step", swap("F.cross_entropy(policy_logits, policy_targets)", "F.cross_entropy(torch.softmax(policy_logits, dim=1), policy_targets)"),
          "softmax first", "no softmax before it"),
    wrong("check_train_step", swap("return policy_loss.item(), value_loss.item()", "return policy_loss, value_loss"),
          "tensors", "plain floats"),
    wrong("check_train_step", swap("(policy_loss + value_loss).backward()", "policy_loss.backward()"), "policy loss only",
          "SUM of both losses"),
    wrong("check_train_step", swap("F.mse_loss(value, value_targets)", "F.mse_loss(value.squeeze(), value_targets)"),
          "the value squeezed to [B]", "a prediction of shape [2] with targets of shape [2, 1]", "broadcast"),
    # train
    right("check_train", '''def train(model, optimizer, memory, batch_size, rng):
    model.train()
    states, policies, values = (np.array(column) for column in zip(*memory))
    device = next(model.parameters()).device
    states = torch.from_numpy(states.astype(np.float32)).to(device)
    policies = torch.from_numpy(policies.astype(np.float32)).to(device)
    values = torch.from_numpy(values.astype(np.float32)).reshape(-1, 1).to(device)
    sums = np.zeros(2)
    for batch in minibatches(len(memory), batch_size, rng):
        sums += np.array(train_step(model, optimizer, states[batch], policies[batch], values[batch])) * len(batch)
    policy_loss, value_loss = sums / len(memory)
    return {"policy_loss": float(policy_loss), "value_loss": float(value_loss)}
''', "zip(*memory), a numpy sum", downstream=True),
    right("check_train", Edit((("    policy_total = value_total = 0.0\n", "    totals = {'policy_loss': 0.0, 'value_loss': 0.0}\n"),
                               ("        policy_total += policy_loss * len(batch)\n        value_total += value_loss * len(batch)\n",
                                "        totals['policy_loss'] += policy_loss * len(batch)\n        totals['value_loss'] += value_loss * len(batch)\n"),
                               ('    return {"policy_loss": policy_total / len(memory), "value_loss": value_total / len(memory)}',
                                "    return {key: total / len(memory) for key, total in totals.items()}"))),
          "a dict of totals"),
    wrong("check_train", swap("    model.train()\n", ""), "no train mode", "model.train() first"),
    wrong("check_train", swap("    device = next(model.parameters()).device\n", "    device = torch.device('cpu')\n"),
          "batches on the CPU", "the tensors go where the model is"),
    wrong("check_train", Edit((("    device = next(model.parameters()).device\n", ""),
                               (", device=device)", ")"))),
          "no device at all", "the tensors go where the model is"),
    wrong("check_train", Edit((("policy_total += policy_loss * len(batch)", "policy_total += policy_loss"),
                               ("value_total += value_loss * len(batch)", "value_total += value_loss"),
                               ('return {"policy_loss": policy_total / len(memory), "value_loss": value_total / len(memory)}',
                                'count = len(minibatches(len(memory), batch_size, np.random.default_rng(0)))\n    return {"policy_loss": policy_total / count, "value_loss": value_total / count}'))),
          "mean per batch", "per SAMPLE"),
    wrong("check_train", Edit((("    for batch in minibatches(len(memory), batch_size, rng):",
                                "    order = rng.permutation(len(memory))\n    for batch in [order[i : i + batch_size] for i in range(0, len(memory), batch_size)]:"),)),
          "its own batches", "minibatches(len(memory)"),
    wrong("check_train", swap('return {"policy_loss": policy_total / len(memory), "value_loss": value_total / len(memory)}',
                              'return {"policy_loss": torch.tensor(policy_total / len(memory)), "value_loss": value_total / len(memory)}'),
          "a tensor loss", "plain numbers"),
    wrong("check_train", swap(", device=device).unsqueeze(1)", ", device=device)"), "value targets of shape [B]",
          "your value targets reach train_step with shape [4]", "[4, 4]", ".unsqueeze(1)"),
    # learn
    right("check_learn", '''def learn(play_game, train_epoch, num_iterations, num_games, num_epochs):
    records = []
    for iteration in range(num_iterations):
        memory = [sample for _ in range(num_games) for sample in play_game()]
        losses = [train_epoch(memory) for _ in range(num_epochs)][-1]
        records.append(dict(iteration=iteration + 1, games=num_games, samples=len(memory),
                            policy_loss=losses["policy_loss"], value_loss=losses["value_loss"]))
    return records
''', "comprehensions", downstream=True),
    right("check_learn", swap('history.append({"iteration": iteration, "games": num_games, "samples": len(memory), **losses})',
                              'history.append({**losses, "samples": len(memory), "games": num_games, "iteration": iteration, "note": "extra keys are fine"})'),
          "another key order, an extra key"),
    wrong("check_learn", Edit((("    history = []\n", "    history, memory = [], []\n"), ("        memory = []\n", ""))),
          "memory never reset", "fresh memory"),
    wrong("check_learn", Edit((("        for _ in range(num_epochs):\n            losses = train_epoch(memory)\n",
                                "        losses = None\n        for _ in range(num_epochs):\n            epoch = train_epoch(memory)\n            losses = losses or epoch\n"),)),
          "the first epoch's losses", "LAST epoch"),
    wrong("check_learn", swap("for iteration in range(1, num_iterations + 1):", "for iteration in range(num_iterations):"),
          "from 0", "numbered from 1"),
    wrong("check_learn", Edit((("        for _ in range(num_games):\n            memory += play_game()\n        for _ in range(num_epochs):\n            losses = train_epoch(memory)\n",
                                "        for _ in range(num_games):\n            memory += play_game()\n            for _ in range(num_epochs):\n                losses = train_epoch(memory)\n"),)),
          "trains after every game", "epochs"),
    # diagnosis (section 11: four broken runs read from their curves)
    right("check_diagnosis", '''diagnosis = {"a": "Replay_Window_1", "b": "no value sign flip", "c": "No Dirichlet noise",
             "d": "the video's temperature bug"}
''', "a dict, not a function; other spellings", downstream=True),
    right("check_diagnosis", '''def diagnosis():
    causes = ["replay window of 1", "no sign flip", "no root noise", "temperature unused"]
    return list(zip("ABCD", causes))
''', "a list of pairs"),
    wrong("check_diagnosis", swap('"A": "replay window 1", "B": "no sign flip"', '"A": "no sign flip", "B": "replay window 1"'),
          "A and B swapped", "2 of 4 runs right", "A is not 'no sign flip': look at A at iteration 1",
          "B is not 'replay window 1': look at B's value loss, low and flat"),
    wrong("check_diagnosis", swap('"C": "no root noise", "D": "temperature unused"', '"C": "no root noise", "D": "no root noise"'),
          "both exploration bugs called noise", "3 of 4 runs right", "D is not 'no root noise'",
          "policy loss and perfect moves, on the reference's", "Each cause fits exactly one run."),
    wrong("check_diagnosis", '''def diagnosis():
    return {"replay window 1": "A", "no sign flip": "B", "no root noise": "C", "temperature unused": "D"}
''', "causes as keys", "the keys are the run labels A to D"),
    wrong("check_diagnosis", swap('"B": "no sign flip"', '"B": "value targets wrong"'),
          "own words", "'value targets wrong' (run B) is not one of the causes", "'no sign flip'"),
    unfinished("check_diagnosis", swap('"C": "no root noise", "D": "temperature unused"', '"C": ..., "D": None'),
               "two left open", "no cause yet for runs C, D"),
    unfinished("check_diagnosis", '''def diagnosis():
    """Each run's cause: {"A": cause, "B": cause, "C": cause, "D": cause}, every cause one of CAUSES."""
    answer = {"B": "no sign flip"}
    return answer
''', "only the loudest one", "no cause yet for runs A, C, D"),
]
CORPUS["05_self_play_training"] = NB05

# ---- notebook 6: Connect Four ------------------------------------------------------------------------------------
C4 = "ConnectFour"
NB06 = [
    # get_next_state
    right("check_get_next_state", method(C4, "get_next_state(self, state, action, player)", """
for row in range(self.row_count - 1, -1, -1):
    if state[row, action] == 0:
        new = state.copy()
        new[row, action] = player
        return new
raise ValueError(f"column {action} has no room")"""), "a loop from the bottom", downstream=True),
    right("check_get_next_state", method(C4, "get_next_state(self, state, action, player)", """
if state[0, action] != 0:
    raise ValueError("full")
row = self.row_count - 1 - int(np.count_nonzero(state[:, action]))
new = np.array(state)
new[row, action] = player
return new"""), "count the pieces"),
    wrong("check_get_next_state", swap("row = empty_rows[-1]", "row = empty_rows[0]"), "lands on top",
          "LOWEST empty row"),
    wrong("check_get_next_state", swap("next_state = state.copy()", "next_state = state"), "in place",
          "copy it first"),
    wrong("check_get_next_state", swap('        raise ValueError(f"column {action} is full")\n', '        return state\n'),
          "a full column ignored", "raise ValueError"),
    wrong("check_get_next_state", swap("next_state[row, action] = player", "next_state[row, action] = 1"),
          "always 1", "not always 1"),
    wrong("check_get_next_state", swap("return next_state", "return next_state.tolist()"), "a list",
          "not a numpy array"),
    # get_valid_moves
    right("check_get_valid_moves", method(C4, "get_valid_moves(self, state)", "return np.any(state == 0, axis=0)"),
          "booleans: any empty cell", downstream=True),
    right("check_get_valid_moves", method(C4, "get_valid_moves(self, state)",
                                          "return np.array([int(state[0, c] == 0) for c in range(self.column_count)])"),
          "a comprehension"),
    wrong("check_get_valid_moves", swap("state[0] == 0", "state[-1] == 0"), "the bottom row", "TOP cell"),
    wrong("check_get_valid_moves", method(C4, "get_valid_moves(self, state)", "return (state == 0).sum(axis=0)"),
          "counts empty cells", "not the number of empty cells"),
    wrong("check_get_valid_moves", method(C4, "get_valid_moves(self, state)", "return (state.reshape(-1) == 0).astype(np.uint8)"),
          "per cell", "not one per cell"),
    wrong("check_get_valid_moves", method(C4, "get_valid_moves(self, state)", "return [int(v == 0) for v in state[0]]"),
          "a list", "not a numpy array"),
    # check_win
    right("check_check_win", method(C4, "check_win(self, state, action)", """
if action is None:
    return 0
row = int(np.argmax(state[:, action] != 0))
player = state[row, action]
for dr, dc in [(0, 1), (1, 0), (1, 1), (1, -1)]:
    cells = [(row + k * dr, action + k * dc) for k in range(-3, 4)]
    line = [state[r, c] == player if 0 <= r < 6 and 0 <= c < 7 else False for r, c in cells]
    run = best = 0
    for hit in line:
        run = run + 1 if hit else 0
        best = max(best, run)
    if best >= self.in_a_row:
        return 1
return 0"""), "windows of 7, returns 1/0", downstream=True),
    right("check_check_win", method(C4, "check_win(self, state, action)", """
if action is None:
    return False
row = next(r for r in range(self.row_count) if state[r, action] != 0)
player = state[row, action]
board = np.pad(state == player, 3)
r, c = row + 3, action + 3
windows = [board[r, c - 3:c + 4], board[r - 3:r + 4, c],
           np.diagonal(board[r - 3:r + 4, c - 3:c + 4]), np.diagonal(np.fliplr(board[r - 3:r + 4, c - 3:c + 4]))]
return any(np.convolve(w.astype(int), np.ones(4, dtype=int), mode="valid").max() == 4 for w in windows)"""),
          "padding and convolutions"),
    wrong("check_check_win", method(C4, "check_win(self, state, action)", """
if action is None:
    return False
row = np.min(np.flatnonzero(state[:, action] != 0))
player = state[row, action]
for dr, dc in [(0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 1), (-1, -1)]:
    r, c, found = row, action, 0
    while 0 <= r < 6 and 0 <= c < 7 and state[r, c] == player:
        r, c, found = r + dr, c + dc, found + 1
    if found >= 4:
        return True
return False"""), "one way at a time", "count both ways"),
    wrong("check_check_win", swap("for d_row, d_column in [(0, 1), (1, 0), (1, 1), (1, -1)]", "for d_row, d_column in [(0, 1), (1, 0)]"),
          "no diagonals", "two diagonals"),
    wrong("check_check_win", swap("for d_row, d_column in [(0, 1), (1, 0), (1, 1), (1, -1)]", "for d_row, d_column in [(0, 1), (1, 0), (1, 1)]"),
          "one diagonal", "both diagonals"),
    wrong("check_check_win", swap("row = np.min(np.flatnonzero(state[:, action] != 0))", "row = np.max(np.flatnonzero(state[:, action] != 0))"),
          "the bottom piece", "TOP piece"),
    wrong("check_check_win", swap(">= self.in_a_row", ">= 3"), "three in a row", "not 3"),
    wrong("check_check_win", swap(">= self.in_a_row", "== self.in_a_row"), "exactly four", "LONGER than in_a_row wins too", "not =="),
    wrong("check_check_win", swap(">= self.in_a_row", "> self.in_a_row"), "more than four", "exactly in_a_row pieces in a line is a win", "not >"),
    wrong("check_check_win", swap("state[r, c] == player", "state[r, c] != 0"), "any colour", "only the mover's pieces"),
    wrong("check_check_win", swap("    if action is None:\n        return False\n", ""), "None not handled",
          "raised ValueError", "(None) means no win"),
]
CORPUS["06_connect_four"] = NB06

# ---- notebook 7: parallel self-play -------------------------------------------------------------------------------
P = "MCTSParallel"
BACKWARDS_LOOP = "        for i in reversed(range(len(spgs))):  # backwards: deleting game i leaves the games before it in place\n            spg = spgs[i]\n"
NB07 = [
    # SPG
    right("check_spg", '''class SPG:
    def __init__(self, game):
        self.state, self.memory, self.root, self.node = game.get_initial_state(), [], None, None
''', "one line", downstream=True),
    right("check_spg", '''class SPG:
    def __init__(self, game, memory=None):
        self.state = np.array(game.get_initial_state())
        self.memory = list(memory or [])
        self.root = self.node = None
''', "memory=None default"),
    wrong("check_spg", '''class SPG:
    memory = []

    def __init__(self, game):
        self.state = game.get_initial_state()
        self.root = None
        self.node = None
''', "memory in the class body", "ONE list shared"),
    wrong("check_spg", '''class SPG:
    def __init__(self, game, memory=[]):
        self.state = game.get_initial_state()
        self.memory = memory
        self.root = None
        self.node = None
''', "a default list", "its own list"),
    wrong("check_spg", swap("        self.node = None\n", ""), "no node", "node = None too"),
    wrong("check_spg", swap("self.state = game.get_initial_state()", "self.state = np.zeros((3, 3), dtype=np.int8)"),
          "a 3 x 3 board for every game", "game.get_initial_state()", "has 6 x 7 cells"),
    wrong("check_spg", swap("self.memory = []", "self.memory = ()"), "a tuple memory", "memory is a list, []",
          "a tuple has no append"),
    # expand_roots
    right("check_expand_roots", method(P, "expand_roots(self, states, spgs)", """
priors, _ = self.evaluate(states)
for b in range(len(spgs)):
    prior = priors[b].copy()
    if self.config.dirichlet_epsilon:
        legal = self.game.get_valid_moves(states[b]) == 1
        noise = self.rng.dirichlet(np.full(legal.sum(), self.config.dirichlet_alpha))
        prior[legal] = (1 - self.config.dirichlet_epsilon) * prior[legal] + self.config.dirichlet_epsilon * noise
    root = Node(states[b])
    root.visit_count = 1
    root.expand(self.game, prior)
    spgs[b].root = root"""), "a copy per game, boolean mask", downstream=True),
    right("check_expand_roots", Edit((("for b, spg in enumerate(spgs):", "for b, (state, spg) in enumerate(zip(states, spgs)):"),
                                      ("self.game.get_valid_moves(states[b])", "self.game.get_valid_moves(state)"),
                                      ("spg.root = Node(states[b])", "spg.root = Node(state)"))), "zip"),
    wrong("check_expand_roots", method(P, "expand_roots(self, states, spgs)", """
priors, _ = self.evaluate(states)
eps = self.config.dirichlet_epsilon
if eps > 0:
    noise = self.rng.dirichlet([self.config.dirichlet_alpha] * self.game.action_size, size=len(states))
    valid = np.stack([self.game.get_valid_moves(s) for s in states])
    priors = ((1 - eps) * priors + eps * noise) * valid
    priors /= priors.sum(axis=1, keepdims=True)
for b, spg in enumerate(spgs):
    spg.root = Node(states[b])
    spg.root.visit_count = 1
    spg.root.expand(self.game, priors[b])"""), "the video's noise", "LEGAL moves"),
    wrong("check_expand_roots", swap("        spg.root.visit_count = 1\n", ""), "root not visited", "visit_count = 1"),
    wrong("check_expand_roots", method(P, "expand_roots(self, states, spgs)", """
for b, spg in enumerate(spgs):
    priors, _ = self.evaluate(states[b:b + 1])
    spg.root = Node(states[b])
    spg.root.visit_count = 1
    spg.root.expand(self.game, priors[0])"""), "a call per game", "one call"),
    wrong("check_expand_roots", swap("noise = self.rng.dirichlet(", "noise = np.random.dirichlet("), "np.random",
          "not from np.random"),
    # simulate
    right("check_simulate", method(P, "simulate(self, spgs)", """
waiting = []
for spg in spgs:
    node = spg.root
    while node.children:
        node = node.select(self.config)
    value, done = self.game.get_value_and_terminated(node.state, node.action_taken)
    spg.node = None if done else node
    if done:
        node.backpropagate(-value)
    else:
        waiting.append(node)
if waiting:
    priors, values = self.evaluate(np.array([node.state for node in waiting]))
    for node, prior, value in zip(waiting, priors, values):
        node.expand(self.game, prior)
        node.backpropagate(value)"""), "a list of waiting leaves", downstream=True),
    right("check_simulate", swap("spg.node.backpropagate(float(value))", "spg.node.backpropagate(value.item())"),
          "value.item()"),
    wrong("check_simulate", swap("        value = -value\n", ""), "terminal sign", "back up -value"),
    wrong("check_simulate", swap("spg.node.backpropagate(float(value))", "spg.node.backpropagate(-float(value))"),
          "network sign", "back it up as it is"),
    wrong("check_simulate", method(P, "simulate(self, spgs)", """
for spg in spgs:
    node = spg.root
    while node.is_expanded():
        node = node.select(self.config)
    value, is_terminal = self.game.get_value_and_terminated(node.state, node.action_taken)
    if is_terminal:
        node.backpropagate(-value)
    else:
        priors, values = self.evaluate(node.state[None])
        node.expand(self.game, priors[0])
        node.backpropagate(float(values[0]))"""), "a call per game", "at most 1", "one call"),
    wrong("check_simulate", swap("        spg.node = None\n", ""), "stale leaves", "reset spg.node = None"),
    # search
    right("check_search", method(P, "search(self, states, spgs)", """
self.expand_roots(states, spgs)
for _ in range(self.config.num_searches):
    self.simulate(spgs)
counts = np.array([[sum(c.visit_count for c in spg.root.children if c.action_taken == a)
                    for a in range(self.game.action_size)] for spg in spgs], dtype=float)
return counts / counts.sum(axis=-1, keepdims=True)"""), "comprehension", downstream=True),
    right("check_search", swap("    return counts / counts.sum(axis=1, keepdims=True)",
                               "    return np.stack([row / row.sum() for row in counts])"), "row by row"),
    wrong("check_search", swap("    return counts / counts.sum(axis=1, keepdims=True)", "    return counts"),
          "counts", "visit SHARES"),
    wrong("check_search", swap("    return counts / counts.sum(axis=1, keepdims=True)", "    return counts / counts.sum()"),
          "one sum for all games", "each game (row) by its own sum"),
    wrong("check_search", swap("    return counts / counts.sum(axis=1, keepdims=True)", "    return counts / counts.sum(axis=0, keepdims=True)"),
          "axis 0", "returned array([[nan,", "each game (row) over its own moves", "axis=0 sums one action"),
    wrong("check_search", swap("    return counts / counts.sum(axis=1, keepdims=True)",
                               "    return [row / row.sum() for row in counts]"), "a list of rows", "one numpy array"),
    wrong("check_search", swap("    for _ in range(self.config.num_searches):\n        self.simulate(spgs)\n",
                               "    for _ in range(self.config.num_searches - 1):\n        self.simulate(spgs)\n"),
          "one simulation short", "returned", "run num_searches simulations"),
    # parallel_self_play
    right("check_parallel_self_play", """def parallel_self_play(game, search, num_games, rng, temperature=1.25):
    return_memory = []
    player = 1
    spGames = [SPG(game) for spg in range(num_games)]
    while len(spGames) > 0:
        states = np.stack([spg.state for spg in spGames])
        neutral_states = states * player
        search(neutral_states, spGames)
        for i in range(len(spGames))[::-1]:
            spg = spGames[i]
            action_probs = np.zeros(game.action_size)
            for child in spg.root.children:
                action_probs[child.action_taken] = child.visit_count
            action_probs /= np.sum(action_probs)
            spg.memory.append((spg.root.state, action_probs, player))
            temperature_action_probs = apply_temperature(action_probs, temperature)
            action = rng.choice(game.action_size, p=temperature_action_probs)
            spg.state = game.get_next_state(spg.state, action, player)
            value, is_terminal = game.get_value_and_terminated(spg.state, action)
            if is_terminal:
                for hist_neutral_state, hist_action_probs, hist_player in spg.memory:
                    hist_outcome = value if hist_player == player else game.get_opponent_value(value)
                    return_memory.append((game.get_encoded_state(hist_neutral_state), hist_action_probs, hist_outcome))
                del spGames[i]
        player = game.get_opponent(player)
    return return_memory
""", "the video's way: probabilities read from spg.root", downstream=True),
    right("check_parallel_self_play", """def parallel_self_play(game, search, num_games, rng, temperature=1.25):
    memory = []
    games = [SPG(game) for _ in range(num_games)]
    moves = 0
    while games:
        player = 1 if moves % 2 == 0 else -1
        states = np.array([game.change_perspective(g.state, player) for g in games])
        probs = search(states, games)
        still_playing = []
        for g, state, p in zip(games, states, probs):
            g.memory.append((state, p, player))
            action = int(rng.choice(len(p), p=apply_temperature(p, temperature)))
            g.state = game.get_next_state(g.state, action, player)
            value, done = game.get_value_and_terminated(g.state, action)
            if done:
                memory.extend((game.get_encoded_state(s), q, float(value * mover * player)) for s, q, mover in g.memory)
            else:
                still_playing.append(g)
        games = still_playing
        moves += 1
    return memory
""", "forwards, a new list, zip, outcome value * mover * player"),
    wrong("check_parallel_self_play", swap("                del spgs[i]\n", ""), "finished games stay",
          "searched after it ended", "take a game out of the list when it ends"),
    wrong("check_parallel_self_play", edit((BACKWARDS_LOOP, "        for i, spg in enumerate(spgs):\n"),
                                           ("del spgs[i]", "spgs.remove(spg)")),
          "removed while looping forwards", "one move per game and step", "skips the game after it"),
    wrong("check_parallel_self_play", swap(BACKWARDS_LOOP, "        for i in range(len(spgs)):\n            spg = spgs[i]\n"),
          "del while counting up", "raised IndexError", "deleting spgs[i] while i counts up"),
    wrong("check_parallel_self_play", swap("memory += game_memory(game, spg.memory, value, player)",
                                           "memory += [(game.get_encoded_state(s), p, value) for s, p, _ in spg.memory]"),
          "outcome not flipped", "seen by ITS mover"),
    wrong("check_parallel_self_play", swap("game_memory(game, spg.memory, value, player)",
                                           "game_memory(game, spg.memory, value, game.get_opponent(player))"),
          "the wrong last player", "outcome is seen by the player who moved there"),
    wrong("check_parallel_self_play", edit(("memory, player = [], 1", "memory, player, history = [], 1, []"),
                                           ("spg.memory.append(", "history.append("),
                                           ("game_memory(game, spg.memory,", "game_memory(game, history,")),
          "one history for all games", "one list for all games"),
    wrong("check_parallel_self_play", edit((BACKWARDS_LOOP, "        for i, spg in enumerate(reversed(spgs)):\n"),
                                           ("del spgs[i]", "spgs.remove(spg)")),
          "enumerate(reversed(spgs))", "row i of probs"),
    wrong("check_parallel_self_play", edit(("        player = game.get_opponent(player)\n", ""),
                                           ("                del spgs[i]\n", "                del spgs[i]\n            player = game.get_opponent(player)\n")),
          "player flipped per game", "flip player once per step"),
    wrong("check_parallel_self_play", swap("p=apply_temperature(probs[i], temperature)", "p=probs[i]"),
          "temperature ignored", "apply_temperature(probs[i], temperature)"),
    wrong("check_parallel_self_play", swap("search(states, spgs)", "search(np.stack([spg.state for spg in spgs]), spgs)"),
          "absolute boards", "as it is", "game.change_perspective(spg.state, player)"),
    wrong("check_parallel_self_play", edit(("        probs = search(states, spgs)\n", ""),
                                           ("            spg = spgs[i]\n", "            spg = spgs[i]\n            probs = {i: search(states[i:i + 1], [spg])[0]}\n")),
          "one search call per game", "the first search call got 1 game", "in ONE call per step"),
    wrong("check_parallel_self_play", swap("    while spgs:\n", "    while len(spgs) == num_games:\n"),
          "stops when the first game ends", "not finished when the loop returned", "while any game is still playing"),
    unfinished("check_parallel_self_play", """def parallel_self_play(game, search, num_games, rng, temperature=1.25):
    memory, player = [], 1
    spgs = [SPG(game) for _ in range(num_games)]
    while spgs:
        states = np.stack([game.change_perspective(spg.state, player) for spg in spgs])
        probs = search(states, spgs)
        raise NotImplementedError("a move in every game")
    return memory
""", "the moves not written", "not written yet"),
    unfinished("check_parallel_self_play", """def play_move(game, spg, state, probs, player, rng, temperature):
    raise NotImplementedError("later")


def parallel_self_play(game, search, num_games, rng, temperature=1.25):
    memory, player = [], 1
    spgs = [SPG(game) for _ in range(num_games)]
    while spgs:
        states = np.stack([game.change_perspective(spg.state, player) for spg in spgs])
        probs = search(states, spgs)
        for i in reversed(range(len(spgs))):
            if play_move(game, spgs[i], states[i], probs[i], player, rng, temperature):
                memory += game_memory(game, spgs[i].memory, 1, player)
                del spgs[i]
        player = game.get_opponent(player)
    return memory
""", "a helper still a stub", "`play_move`, called from your code, still raises NotImplementedError"),
    # select_actions
    right("check_select_actions", '''def select_actions(value_sum, visit_count, prior, legal, parent_visits, C=2.0):
    actions = []
    for b in range(len(prior)):
        best, best_score = -1, -np.inf
        for a in np.flatnonzero(legal[b]):
            q = -value_sum[b, a] / visit_count[b, a] if visit_count[b, a] > 0 else 0.0
            score = q + C * prior[b, a] * np.sqrt(parent_visits[b]) / (1 + visit_count[b, a])
            if score > best_score:
                best, best_score = a, score
        actions.append(best)
    return np.array(actions)
''', "loops", downstream=True),
    right("check_select_actions", '''def select_actions(value_sum, visit_count, prior, legal, parent_visits, C=2.0):
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.nan_to_num(-value_sum / visit_count)
    u = C * prior * np.sqrt(parent_visits).reshape(-1, 1) / (1 + visit_count)
    score = np.ma.masked_array(q + u, mask=~np.asarray(legal, dtype=bool))
    return np.asarray(score.argmax(axis=1), dtype=np.int64)
''', "nan_to_num, a masked array"),
    wrong("check_select_actions", swap("q_value = np.where(visit_count > 0, -value_sum / np.maximum(visit_count, 1), 0.0)",
                                       "q_value = np.where(visit_count > 0, value_sum / np.maximum(visit_count, 1), 0.0)"),
          "Q's sign", "-value_sum / visit_count"),
    wrong("check_select_actions", swap("q_value = np.where(visit_count > 0, -value_sum / np.maximum(visit_count, 1), 0.0)",
                                       "q_value = -value_sum / visit_count"), "0 / 0", "nan"),
    wrong("check_select_actions", swap("return np.where(legal, q_value + exploration, -np.inf).argmax(axis=1)",
                                       "return ((q_value + exploration) * legal).argmax(axis=1)"), "masked by multiplying",
          "np.where(legal, score, -np.inf)"),
    wrong("check_select_actions", swap("return np.where(legal, q_value + exploration, -np.inf).argmax(axis=1)",
                                       "return np.where(legal, q_value + exploration, -np.inf).argmax(axis=1).tolist()"),
          "a list", "not a numpy array"),
    wrong("check_select_actions", swap("np.sqrt(parent_visits)[:, None]", "np.sqrt(parent_visits)"), "no broadcast axis",
          "raised ValueError", "give it the axis of the actions"),
    # backup
    # on_path and level_signs: the backup's first two steps
    right("check_on_path", '''def on_path(path, depth):
    return np.less_equal.outer(np.arange(path.shape[0]), depth)
''', "np.less_equal.outer"),
    right("check_on_path", '''def on_path(path, depth):
    mask = np.zeros(path.shape, dtype=bool)
    for b, d in enumerate(depth):
        mask[: d + 1, b] = True
    return mask
''', "a loop over the games", downstream=True),
    wrong("check_on_path", swap("<= np.asarray(depth)[None, :]", "< np.asarray(depth)[None, :]"), "strictly below",
          "levels <= depth (not <)"),
    wrong("check_on_path", '''def on_path(path, depth):
    return path > 0
''', "the nodes instead of the depth", "read depth, not the node numbers"),
    wrong("check_on_path", swap("return np.arange(len(path))[:, None] <= np.asarray(depth)[None, :]",
                                "return np.arange(len(path))[None, :] <= np.asarray(depth)[:, None]"), "transposed", "rows are levels"),
    wrong("check_on_path", swap("return np.arange(len(path))[:, None] <= np.asarray(depth)[None, :]",
                                "return np.where(np.arange(len(path))[:, None] <= np.asarray(depth)[None, :], 1, 0)"),
          "ones and zeros", "dtype bool"),
    right("check_level_signs", '''def level_signs(path, depth):
    return (-1.0) ** (np.asarray(depth)[None, :] - np.arange(len(path))[:, None])
''', "powers of -1"),
    right("check_level_signs", '''def level_signs(path, depth):
    signs = np.empty(path.shape)
    for b, d in enumerate(depth):
        for level in range(len(path)):
            signs[level, b] = 1.0 if (d - level) % 2 == 0 else -1.0
    return signs
''', "loops", downstream=True),
    wrong("check_level_signs", '''def level_signs(path, depth):
    return np.where(np.arange(len(path))[:, None] % 2 == 0, 1.0, -1.0) * np.ones(path.shape)
''', "from the root", "count from the LEAF"),
    wrong("check_level_signs", swap("return np.where(distance % 2 == 0, 1.0, -1.0)", "return np.where(distance % 2 == 0, -1.0, 1.0)"),
          "the leaf negative", "the leaf gets +leaf_value"),
    wrong("check_level_signs", swap("return np.where(distance % 2 == 0, 1.0, -1.0)", "return (distance % 2).astype(float)"),
          "the parity itself", "not the parity 0 or 1", "+1 where depth[b] - level is even"),
    wrong("check_level_signs", swap("return np.where(distance % 2 == 0, 1.0, -1.0)", "return np.where(distance % 2 == 0, 1.0, -1.0).T"),
          "transposed", "one row per level"),
    right("check_backup", '''def backup(visit_count, value_sum, path, depth, leaf_value):
    for b in range(len(depth)):
        for level in range(depth[b] + 1):
            sign = 1 if (depth[b] - level) % 2 == 0 else -1
            visit_count[b, path[level, b]] += 1
            value_sum[b, path[level, b]] += sign * leaf_value[b]
''', "loops from the root down", downstream=True),
    right("check_backup", '''def backup(visit_count, value_sum, path, depth, leaf_value):
    value = np.array(leaf_value, dtype=float)
    for level in range(len(path) - 1, -1, -1):
        active = depth >= level
        games = np.flatnonzero(active)
        nodes = path[level, games]
        visit_count[games, nodes] += 1
        value_sum[games, nodes] += np.where((depth[games] - level) % 2 == 0, 1, -1) * value[games]
''', "level by level, vectorised"),
    wrong("check_backup", swap("signs = level_signs(path, depth)", "signs = np.ones(path.shape)"),
          "no flip", "flip the value's sign"),
    wrong("check_backup", swap("signs = level_signs(path, depth)", "signs = -level_signs(path, depth)"),
          "the leaf flipped", "the leaf itself gets +leaf_value"),
    wrong("check_backup", swap("mask = on_path(path, depth)", "mask = on_path(path, depth) | (np.asarray(depth) >= 0)"),
          "every level", "node 0", "below a game's leaf (level > depth[b]) are not on its path"),
    wrong("check_backup", '''def backup(visit_count, value_sum, path, depth, leaf_value):
    visit_count = visit_count.copy()
    value_sum = value_sum.copy()
    for b in range(len(depth)):
        value = leaf_value[b]
        for level in range(depth[b], -1, -1):
            visit_count[b, path[level, b]] += 1
            value_sum[b, path[level, b]] += value
            value = -value
    return visit_count, value_sum
''', "copies instead of in place", "returned", "did not change (yours returned new arrays instead)", "in place"),
]
CORPUS["07_parallel_self_play"] = NB07

# ---- notebook 8: a Kaggle agent ------------------------------------------------------------------------------------
NB08 = [
    # observation_to_state
    right("check_observation_to_state", '''def observation_to_state(game, observation):
    flat = np.asarray(observation["board"], dtype=np.int8)
    own, other = observation["mark"], 3 - observation["mark"]
    state = (flat == own).astype(np.int8) - (flat == other).astype(np.int8)
    return state.reshape(game.row_count, -1)
''', "difference of two masks", downstream=True),
    right("check_observation_to_state", '''def observation_to_state(game, observation):
    sign = {0: 0, observation["mark"]: 1, 3 - observation["mark"]: -1}
    cells = [[sign[observation["board"][r * game.column_count + c]] for c in range(game.column_count)]
             for r in range(game.row_count)]
    return np.array(cells, dtype=np.int64)
''', "a dict of signs, int64"),
    wrong("check_observation_to_state", '''def observation_to_state(game, observation):
    board = np.array(observation.board).reshape(game.row_count, game.column_count)
    return np.where(board == 0, 0, np.where(board == observation.mark, 1, -1)).astype(np.int8)
''', "attribute access", "plain dict", "observation['board']"),
    wrong("check_observation_to_state", '''def observation_to_state(game, observation):
    board = np.array(observation["board"]).reshape(game.row_count, game.column_count)
    return np.where(board == 2, -1, board).astype(np.int8)
''', "mark 1 always own", "OWN mark"),
    wrong("check_observation_to_state", swap("np.where(board == 0, 0, np.where(board == mark, 1, -1))", "np.where(board == mark, 1, -1)"),
          "empties become -1", "empty cells stay 0"),
    wrong("check_observation_to_state", swap('board = np.array(observation["board"]).reshape(game.row_count, game.column_count)',
                                             'board = np.array(observation["board"]).reshape(game.column_count, game.row_count).T'),
          "column by column", "row by row"),
    wrong("check_observation_to_state", swap(".astype(np.int8)", ".astype(float)"), "floats", "dtype float64 where integers"),
    wrong("check_observation_to_state", swap('return np.where(board == 0, 0, np.where(board == mark, 1, -1)).astype(np.int8)',
                                             'return np.where(board == 0, 0, np.where(board == mark, 1, -1)).astype(np.int8).tolist()'),
          "a list", "not a numpy array"),
    # best_legal_action
    right("check_best_legal_action", '''def best_legal_action(probabilities, valid_moves):
    legal = np.flatnonzero(valid_moves)
    return int(legal[np.argmax(np.asarray(probabilities)[legal])])
''', "argmax among the legal ones", downstream=True),
    right("check_best_legal_action", '''def best_legal_action(probabilities, valid_moves):
    best, best_p = None, None
    for action, (p, ok) in enumerate(zip(probabilities, valid_moves)):
        if ok and (best is None or p > best_p):
            best, best_p = action, p
    return best
''', "a loop"),
    wrong("check_best_legal_action", swap("return int(np.argmax(masked))", "return int(np.argmax(np.asarray(probabilities) * valid_moves))"),
          "multiplied by the mask", "BELOW any probability"),
    wrong("check_best_legal_action", swap("return int(np.argmax(masked))", "return int(np.argmax(probabilities))"),
          "no mask", "mask the illegal actions"),
    wrong("check_best_legal_action", swap("return int(np.argmax(masked))", "return np.argmax(masked)"), "numpy integer",
          "Python int"),
    wrong("check_best_legal_action", swap("return int(np.argmax(masked))", "return int(len(masked) - 1 - np.argmax(masked[::-1]))"),
          "ties to the highest", "LOWEST index"),
    # make_agent
    right("check_make_agent", '''def make_agent(game, search):
    return lambda observation, configuration: best_legal_action(
        search(observation_to_state(game, observation)),
        game.get_valid_moves(observation_to_state(game, observation)),
    )
''', "a lambda", downstream=True),
    right("check_make_agent", '''def make_agent(game, search):
    class Agent:
        def __call__(self, observation, configuration):
            state = observation_to_state(game, observation)
            return int(best_legal_action(search(state), game.get_valid_moves(state)))

    return Agent()
''', "a callable object"),
    wrong("check_make_agent", Edit((("        state = observation_to_state(game, observation)\n",
                                     "        board = np.array(observation['board']).reshape(game.row_count, game.column_count)\n"
                                     "        state = np.where(board == 2, -1, board).astype(np.int8)\n"),)),
          "the absolute board", "CANONICAL"),
    wrong("check_make_agent", swap("return best_legal_action(probabilities, game.get_valid_moves(state))",
                                   "return int(np.argmax(probabilities))"), "no mask", "best LEGAL action"),
    wrong("check_make_agent", swap("return best_legal_action(probabilities, game.get_valid_moves(state))",
                                   "return np.argmax(np.where(game.get_valid_moves(state) > 0, probabilities, -1))"),
          "numpy integer", "Python int"),
    wrong("check_make_agent", swap("probabilities = search(state)", "probabilities = search(state)\n        search(state)"),
          "two searches", "exactly once"),
    wrong("check_make_agent", swap("    return agent\n", "    return agent(observation, configuration)\n"),
          "calls the agent", "NameError", "returns the agent function itself"),
    # outcome
    right("check_outcome", '''def outcome(final, index):
    me, them = final[index], final[1 - index]
    if me["status"] in ("INVALID", "ERROR", "TIMEOUT"):
        return "errors"
    if them["status"] in ("INVALID", "ERROR", "TIMEOUT"):
        return "wins"
    return {1: "wins", 0: "draws", -1: "losses"}[int(np.sign(me["reward"] - them["reward"]))]
''', "statuses listed; the sign of the difference", downstream=True),
    right("check_outcome", '''def outcome(final, index):
    statuses = [step["status"] for step in final]
    if statuses[index] != "DONE":
        return "errors"
    if statuses[1 - index] != "DONE":
        return "wins"
    mine, theirs = final[index]["reward"], final[1 - index]["reward"]
    return "draws" if mine == theirs else ("wins" if mine > theirs else "losses")
''', "statuses first"),
    wrong("check_outcome", '''def outcome(final, index):
    ours, theirs = final[index], final[1 - index]
    if ours['status'] != 'DONE':
        return 'errors'
    if ours['reward'] == theirs['reward']:
        return 'draws'
    return 'wins' if ours['reward'] == 1 else 'losses'
''', "rewards compared with None",
    "OPPONENT's status before the rewards"),
    wrong("check_outcome", Edit((("ours, theirs = final[index], final[1 - index]", "ours, theirs = final[0], final[1]"),)),
          "always index 0", "final[index] is the agent"),
    wrong("check_outcome", swap('    if theirs["status"] != "DONE" or theirs["reward"] is None:\n        return "wins"\n',
                                '    if theirs["status"] != "DONE" or theirs["reward"] is None:\n        return "errors"\n'),
          "the opponent's failure as an error", "not an error of its own"),
    wrong("check_outcome", swap('return "wins" if ours["reward"] > theirs["reward"] else "losses"',
                                'return "wins" if ours["reward"] > theirs["reward"] else "loss"'), "a misspelled key",
          "returned 'loss', expected 'losses'", "check its spelling"),
    # evaluate_both_seats
    right("check_evaluate_both_seats", '''def evaluate_both_seats(agent, opponent, episodes, environment="connectx", outcome=outcome):
    from collections import Counter

    results = {}
    for seat, players in (("first", [agent, opponent]), ("second", [opponent, agent])):
        index = players.index(agent)
        tally = Counter({"wins": 0, "draws": 0, "losses": 0, "errors": 0})
        for _ in range(episodes):
            env = make(environment, debug=True)
            steps = env.run(players)
            tally[outcome(steps[-1], index)] += 1
        results[seat] = dict(tally)
    return results
''', "a Counter, the steps env.run returns", downstream=True),
    right("check_evaluate_both_seats", Edit((('    results = {}\n', '    results = {"first": None, "second": None}\n'),)),
          "results made first"),
    wrong("check_evaluate_both_seats", swap("agents = [agent, opponent] if index == 0 else [opponent, agent]", "agents = [agent, opponent]"),
          "the agent first on both seats", "index 1"),
    wrong("check_evaluate_both_seats", swap("counts[outcome(env.steps[-1], index)] += 1", "counts[outcome(env.steps[-1], 0)] += 1"),
          "always index 0", "the agent's index"),
    wrong("check_evaluate_both_seats", swap("        results[seat] = counts\n    return results",
                                            "        results[seat] = counts\n    return [results['first'], results['second']]"),
          "a list of the two seats", "returned [{", "return a dict with the keys 'first', 'second'"),
    wrong("check_evaluate_both_seats", swap("        for _ in range(episodes):", "        for _ in range(episodes // 2 or 1):"),
          "half the episodes", "returned", "add up to 1 game, not episodes = 2"),
]
CORPUS["08_kaggle_playoffs"] = NB08

# ---- notebook 9: evaluation ------------------------------------------------------------------------------------------
NB09 = [
    # expected_score
    right("check_expected_score", '''def expected_score(rating, opponent_rating):
    gamma, gamma_opponent = 10 ** (rating / 400), 10 ** (opponent_rating / 400)
    return gamma / (gamma + gamma_opponent)
''', "strengths", downstream=True),
    right("check_expected_score", '''def expected_score(rating, opponent_rating):
    return float(1 / (1 + np.power(10.0, (opponent_rating - rating) / 400)))
''', "np.power, float()"),
    wrong("check_expected_score", swap("(opponent_rating - rating)", "(rating - opponent_rating)"), "the sign", "MORE than 1/2"),
    wrong("check_expected_score", '''def expected_score(rating, opponent_rating):
    return 1 / (1 + np.exp((opponent_rating - rating) / 400))
''', "base e", "base 10"),
    wrong("check_expected_score", swap("/ 400", "/ 200"), "scale 200", "not 200"),
    wrong("check_expected_score", swap("return 1 / (1 + 10 ** ((opponent_rating - rating) / 400))",
                                       "return 100 / (1 + 10 ** ((opponent_rating - rating) / 400))"), "a percentage",
          "not a percentage"),
    wrong("check_expected_score", swap("return 1 / (1 + 10 ** ((opponent_rating - rating) / 400))",
                                       "return np.array([1 / (1 + 10 ** ((opponent_rating - rating) / 400))])"),
          "an array of one", "not a number"),
    wrong("check_expected_score", swap("/ 400", "// 400"), "floor division", "rounded on the way", "floor division //"),
    wrong("check_expected_score", swap("10 ** ((opponent_rating - rating) / 400)", "10 ** int((opponent_rating - rating) / 400)"),
          "int() of the exponent", "rounded on the way"),
    # elo_update
    right("check_elo_update", '''def elo_update(rating, opponent_rating, score, k=32):
    ratings = np.array([rating, opponent_rating], dtype=float)
    change = k * (score - expected_score(rating, opponent_rating))
    return ratings + np.array([change, -change])
''', "a numpy array of the two", downstream=True),
    right("check_elo_update", '''def elo_update(rating, opponent_rating, score, k=32):
    new_opponent = opponent_rating + k * ((1 - score) - expected_score(opponent_rating, rating))
    return [rating + (opponent_rating - new_opponent), new_opponent]
''', "from the opponent's side, a list"),
    wrong("check_elo_update", swap("return rating + change, opponent_rating - change", "return rating + change, opponent_rating + change"),
          "both gain", "LOSES what the first player gains"),
    wrong("check_elo_update", swap("change = k * (score - expected_score(rating, opponent_rating))",
                                   "change = k * (expected_score(rating, opponent_rating) - score)"), "the sign",
          "better than expected raises"),
    wrong("check_elo_update", swap("return rating + change, opponent_rating - change", "return rating + change, opponent_rating"),
          "the opponent unchanged", "both ratings change"),
    wrong("check_elo_update", swap("change = k * (score - expected_score(rating, opponent_rating))", "change = 32 * (score - expected_score(rating, opponent_rating))"),
          "k fixed at 32", "k is a parameter"),
    wrong("check_elo_update", swap("change = k * (score - expected_score(rating, opponent_rating))", "change = k * (score - 0.5)"),
          "against 1/2", "not with 1/2"),
    wrong("check_elo_update", swap("return rating + change, opponent_rating - change", "return rating + change"),
          "one rating", "return the pair"),
    wrong("check_elo_update", swap("return rating + change, opponent_rating - change",
                                   "return round(rating + change), round(opponent_rating - change)"), "rounded",
          "returned (1229, 1571), expected (1229.09, 1570.91)", "unrounded"),
    # fit_elo
    right("check_fit_elo", '''def fit_elo(points, games, prior_games=1.0, iterations=10_000, tol=1e-10):
    played = games > 0
    points = points + prior_games / 2 * played
    games = games + prior_games * played
    ratings = np.zeros(len(points))
    for _ in range(iterations):  # Newton steps on the log-likelihood, in natural-log strengths
        s = ratings * np.log(10) / 400
        p = 1 / (1 + np.exp(s[None, :] - s[:, None]))
        gradient = (points - games * p).sum(axis=1)
        hessian = -np.diag((games * p * (1 - p)).sum(axis=1)) + games * p * (1 - p)
        hessian -= 1e-9 * np.eye(len(s))
        step = np.linalg.solve(hessian, -gradient)
        s = s + step
        ratings = s * 400 / np.log(10)
        if np.max(np.abs(step)) < 1e-12:
            break
    return ratings - ratings.mean()
''', "Newton's method on the likelihood", downstream=True),
    right("check_fit_elo", '''def fit_elo(points, games, prior_games=1.0, iterations=10_000, tol=1e-10):
    played = np.asarray(games) > 0
    points = np.asarray(points, dtype=float) + 0.5 * prior_games * played
    games = np.asarray(games, dtype=float) + prior_games * played
    strength = np.ones(len(points))
    for _ in range(iterations):  # Zermelo's iteration without normalising each step
        denominator = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = np.where(denominator > 0, points.sum(axis=1) / np.where(denominator > 0, denominator, 1), strength)
        new = np.maximum(new, 1e-300)
        done = np.max(np.abs(np.log(new) - np.log(strength))) < tol
        strength = new
        if done:
            break
    ratings = 400 * np.log10(strength)
    return ratings - ratings.mean()
''', "MM without the per-step normalisation"),
    wrong("check_fit_elo", Edit((("    points = np.asarray(points, dtype=float) + 0.5 * prior_games * played\n", "    points = np.asarray(points, dtype=float)\n"),
                                 ("    games = np.asarray(games, dtype=float) + prior_games * played\n", "    games = np.asarray(games, dtype=float)\n"))),
          "no prior draws", "prior_games virtual draws"),
    wrong("check_fit_elo", Edit((("    played = np.asarray(games, dtype=float) > 0\n", "    played = ~np.eye(len(games), dtype=bool)\n"),)),
          "prior for every pair", "only for pairs that played"),
    wrong("check_fit_elo", swap("wins = points.sum(axis=1)", "wins = points.sum(axis=0)"), "points conceded",
          "not what it conceded"),
    wrong("check_fit_elo", swap("ratings = 400 * np.log10(strength)", "ratings = 400 * np.log(strength)"), "natural log",
          "not 400 * ln(g)"),
    wrong("check_fit_elo", swap("return ratings - ratings.mean()", "return ratings - ratings[0]"), "player 0 at 0",
          "mean 0"),
    wrong("check_fit_elo", swap("return ratings - ratings.mean()", "return list(ratings - ratings.mean())"), "a list",
          "not a numpy array"),
    # wilson_interval
    right("check_wilson_interval", '''Z_95 = 1.959963984540054


def wilson_interval(score, n, z=Z_95):
    if n == 0:
        return np.array([0.0, 1.0])
    a = 1 + z ** 2 / n
    b = score + z ** 2 / (2 * n)
    c = z * np.sqrt(score * (1 - score) / n + z ** 2 / (4 * n ** 2))
    low = 0.0 if score == 0 else max(0.0, (b - c) / a)
    high = 1.0 if score == 1 else min(1.0, (b + c) / a)
    return np.array([low, high])
''', "a numpy array of the two", downstream=True),
    right("check_wilson_interval", '''Z_95 = 1.959963984540054


def wilson_interval(score, n, z=Z_95):
    if n <= 0:
        return [0.0, 1.0]
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * ((score * (1 - score) + z * z / (4 * n)) / n) ** 0.5
    return [float(np.clip(centre - half, 0, 1)) if score > 0 else 0.0, float(np.clip(centre + half, 0, 1)) if score < 1 else 1.0]
''', "a list, np.clip"),
    wrong("check_wilson_interval", '''Z_95 = 1.959963984540054


def wilson_interval(score, n, z=Z_95):
    if n == 0:
        return 0.0, 1.0
    half = z * np.sqrt(score * (1 - score) / n)
    return max(0.0, score - half), min(1.0, score + half)
''', "the normal approximation", "normal approximation"),
    wrong("check_wilson_interval", swap("def wilson_interval(score, n, z=Z_95):\n", "def wilson_interval(score, n, z=Z_95):\n    z = Z_95\n"),
          "z ignored", "z is a parameter"),
    wrong("check_wilson_interval", swap("centre = (score + z * z / (2 * n)) / denominator", "centre = score"),
          "the centre not pulled", "returned", "width is right and its centre is not"),
    wrong("check_wilson_interval", swap("    if n <= 0:\n        return 0.0, 1.0\n", ""), "n = 0 divides",
          "raised ZeroDivisionError", "no games"),
    wrong("check_wilson_interval", swap("    return (0.0 if score <= 0 else float(low)), (1.0 if score >= 1 else float(high))",
                                        "    return {'low': float(low), 'high': float(high)}"), "a dict", "(low, high)"),
    wrong("check_wilson_interval", swap("def wilson_interval(score, n, z=Z_95):\n", "def wilson_interval(score, n, z=Z_95):\n    z = 1.96\n"),
          "z fixed at 1.96", "z is a parameter", "not a fixed 1.96"),
    wrong("check_wilson_interval", swap("centre = (score + z * z / (2 * n)) / denominator", "centre = score + z * z / (2 * n) / denominator"),
          "z^2/2n alone over the denominator", "centre is not", "the whole numerator"),
    wrong("check_wilson_interval", swap("z * z / (4 * n * n)", "z * z / (4 * n)"), "z^2/4n in the root",
          "centre is right and its half width is not", "z^2 / (4 n^2)"),
    wrong("check_wilson_interval", swap("denominator = 1 + z * z / n", "denominator = 1 + z * z / (2 * n)"), "z^2/2n in the denominator",
          "the denominator they share"),
    wrong("check_wilson_interval", swap("half = z * np.sqrt", "half = z * z * np.sqrt"), "z squared outside the root",
          "centre is right and its half width is not", "an extra factor z"),
    # gate
    right("check_gate", '''def gate(wins, draws, losses, threshold=0.55):
    if threshold < 0 or threshold > 1:
        raise ValueError("the threshold is a score between 0 and 1")
    points, games = wins + draws / 2, wins + draws + losses
    score = points / games if games > 0 else 0.5
    return int(score >= threshold), score
''', "1/0 for accepted", downstream=True),
    right("check_gate", '''def gate(wins, draws, losses, threshold=0.55):
    if not 0 <= threshold <= 1:
        raise ValueError(threshold)
    results = [1.0] * wins + [0.5] * draws + [0.0] * losses
    score = float(np.mean(results)) if results else 0.5
    return [bool(score >= threshold), score]
''', "a list of results, a list back"),
    wrong("check_gate", swap("return score >= threshold, score", "return score > threshold, score"), "> instead of >=", ">="),
    wrong("check_gate", swap("score = (wins + 0.5 * draws) / games if games else 0.5", "score = (wins + draws // 2) / games if games else 0.5"),
          "draws // 2", "floor division", "draws / 2 keeps it"),
    wrong("check_gate", swap("score = (wins + 0.5 * draws) / games if games else 0.5", "score = wins / games if games else 0.5"),
          "draws ignored", "a draw counts half a point"),
    wrong("check_gate", swap('    if not 0.0 <= threshold <= 1.0:\n        raise ValueError(f"threshold must be in [0, 1], got {threshold}")\n', ""),
          "no ValueError", "raise ValueError"),
    wrong("check_gate", swap("score = (wins + 0.5 * draws) / games if games else 0.5", "score = (wins + 0.5 * draws) / games"),
          "no games divides", "raised ZeroDivisionError", "no games"),
    wrong("check_gate", swap("return score >= threshold, score", "return score >= threshold, 100 * score"), "a percentage",
          "returned (True, 55", "not a percentage: no * 100"),
    wrong("check_gate", swap("return score >= threshold, score", "return score >= threshold, round(100 * score, 1)"), "a rounded percentage",
          "about 100 times the library's answer: a percentage where a fraction is meant"),
    wrong("check_gate", swap("score = (wins + 0.5 * draws) / games if games else 0.5", "score = 100 * (wins + 0.5 * draws) / games if games else 50.0"),
          "a percentage against the threshold", "item 1 of the pair", "about 100 times the library's answer: a percentage"),
    wrong("check_gate", swap("return score >= threshold, score", "return score >= threshold"), "only the decision",
          "the pair (accepted, score)"),
    wrong("check_gate", swap("if not 0.0 <= threshold <= 1.0:", "if not 0.0 < threshold < 1.0:"), "0 and 1 refused",
          "0 and 1 are valid thresholds"),
]
CORPUS["09_evaluation"] = NB09
