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
        "make a new array",
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
        "action None",
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
    wrong("check_get_opponent", swap("return -player", "return -abs(player)"), "always -1", "the opposite sign"),
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
          "inverted", "True where False"),
    # expand
    right("check_expand", method(N, "expand(self, rng)", """
moves = np.flatnonzero(self.expandable_moves)
action = int(moves[rng.integers(len(moves))])
self.expandable_moves[action] = 0
child = Node(self.game, -self.game.get_next_state(self.state, action, 1), self, action)
self.children.append(child)
return child"""), "rng.integers, negation", downstream=True),
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
    wrong("check_simulate", swap("rng.choice(", "np.random.choice("), "the global generator", "returned"),
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
          "visits by value", "returned"),
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
