"""Players: perfect play checked exhaustively, negamax against a brute-force search, the network players."""

from __future__ import annotations

import numpy as np
import pytest
from fakes import ConstantNet, FakeNet
from positions import TACTICS

from alphazero_lib import make_game
from alphazero_lib.choosers import batched_chooser
from alphazero_lib.config import MCTSConfig, SearchConfig
from alphazero_lib.model import ResNet
from alphazero_lib.negamax import WIN_SCORE, ConnectFourSolver
from alphazero_lib.players import (
    AlphaZeroPlayer,
    GreedyPlayer,
    HumanPlayer,
    MCTSPlayer,
    MonteCarloPlayer,
    NegamaxPlayer,
    PerfectPlayer,
    PolicyPlayer,
    RandomPlayer,
    ValuePlayer,
)
from alphazero_lib.specs import make_player

TTT, C4 = make_game("tictactoe"), make_game("connect_four")


def absolute(state: np.ndarray, player: int) -> np.ndarray:
    """A canonical test position handed to a player who plays ``player``."""
    return (state * player).astype(np.int8)


# ---- perfect Tic-Tac-Toe -----------------------------------------------------------------------
def test_perfect_player_never_loses_from_any_line_on_either_seat():
    game = make_game("tictactoe")
    perfect = PerfectPlayer(game)
    finished = {"games": 0}

    def explore(state, player, perfect_side):
        if player == perfect_side:  # every move the perfect player might choose
            values = perfect.action_values(state, player)
            actions = [a for a, v in values.items() if v == max(values.values())]
        else:  # every reply
            actions = game.legal_actions(state)
        for action in actions:
            child = game.get_next_state(state, action, player)
            value, terminal = game.get_value_and_terminated(child, action)
            if terminal:
                finished["games"] += 1
                assert not (value == 1 and player != perfect_side), f"perfect player lost:\n{game.render(child)}"
            else:
                explore(child, -player, perfect_side)

    for side in (1, -1):
        explore(game.get_initial_state(), 1, side)
    assert finished["games"] > 500


def test_perfect_values_match_known_positions():
    game = make_game("tictactoe")
    perfect = PerfectPlayer(game, seed=0)
    assert set(perfect.action_values(game.get_initial_state(), 1).values()) == {0}  # every opening draws
    corner = game.get_next_state(game.get_initial_state(), 0, 1)
    values = perfect.action_values(corner, -1)
    assert values[4] == 0 and values[1] == -1  # only the centre holds against a corner opening
    for _name, _game, state, best in TACTICS[:2]:
        assert perfect.get_action(absolute(state, -1), -1) == best  # as O, on absolute states
    with pytest.raises(ValueError, match="Tic-Tac-Toe and 6x7 Connect Four only"):
        PerfectPlayer(make_game("othello6"))


# ---- negamax Connect Four ----------------------------------------------------------------------
def brute_force(solver: ConnectFourSolver, own: int, mask: int, plies: int, depth: int) -> float:
    """Plain negamax (no pruning) with the same rules and heuristic."""
    moves = [c for c in solver.order if not mask & solver.top[c]]
    for c in moves:
        if solver.is_win(own | ((mask + solver.bottom[c]) & solver.column_mask[c])):
            return WIN_SCORE - plies - 1
    if not moves or plies + 1 >= solver.size:
        return 0
    if depth == 0:
        return solver.heuristic(own, mask ^ own)
    best = -float("inf")
    for c in moves:
        move = (mask + solver.bottom[c]) & solver.column_mask[c]
        new_mask = mask | move
        best = max(best, -brute_force(solver, new_mask ^ (own | move), new_mask, plies + 1, depth - 1))
    return best


def random_position(game, rng, moves):
    state, player = game.get_initial_state(), 1
    for _ in range(moves):
        action = int(rng.choice(game.legal_actions(state)))
        nxt = game.get_next_state(state, action, player)
        if game.get_value_and_terminated(nxt, action)[1]:
            break
        state, player = nxt, -player
    return state, player


def test_alpha_beta_finds_the_same_best_moves_as_brute_force():
    game = make_game("connect_four", rows=5, columns=5, in_a_row=4)
    solver = ConnectFourSolver(game)
    rng = np.random.default_rng(0)
    for _ in range(12):
        state, player = random_position(game, rng, int(rng.integers(0, 14)))
        scores = solver.move_scores(state, player, depth=3)
        own, mask = solver.from_state(state, player)
        exact = {}
        for c in scores:
            move = (mask + solver.bottom[c]) & solver.column_mask[c]
            if solver.is_win(own | move):
                exact[c] = WIN_SCORE - mask.bit_count() - 1
            else:
                new_mask = mask | move
                exact[c] = -brute_force(solver, new_mask ^ (own | move), new_mask, mask.bit_count() + 1, 2)
        best = max(exact.values())
        assert {c for c, s in scores.items() if s == max(scores.values())} == {c for c, s in exact.items() if s == best}
        assert max(scores.values()) == best


def test_bitboard_wins_agree_with_the_game():
    game = make_game("connect_four")
    solver = ConnectFourSolver(game)
    rng = np.random.default_rng(1)
    for _ in range(30):
        state, player = game.get_initial_state(), 1
        while True:
            action = int(rng.choice(game.legal_actions(state)))
            state = game.get_next_state(state, action, player)
            own, _ = solver.from_state(state, player)
            assert solver.is_win(own) == game.check_win(state, action)
            if game.get_value_and_terminated(state, action)[1]:
                break
            player = -player


@pytest.mark.parametrize("player", [1, -1])
def test_negamax_takes_the_win_and_blocks(player):
    game = make_game("connect_four")
    negamax = NegamaxPlayer(game, depth=4, seed=0)
    for _name, _game, state, best in TACTICS[2:]:
        assert negamax.get_action(absolute(state, player), player) == best
    with pytest.raises(ValueError, match="Connect Four only"):
        NegamaxPlayer(make_game("tictactoe"))
    with pytest.raises(ValueError, match="depth"):
        NegamaxPlayer(game, depth=0)


# ---- Othello greedy ----------------------------------------------------------------------------
def test_greedy_maximises_discs_now():
    game = make_game("othello6")
    greedy = GreedyPlayer(game, seed=0)
    rng = np.random.default_rng(2)
    state, player = game.get_initial_state(), 1
    for _ in range(12):
        action = greedy.get_action(state, player)
        counts = {
            a: int(np.sum(game.get_next_state(state, a, player) == player)) for a in game.legal_actions(state, player)
        }
        assert counts[action] == max(counts.values())
        state = game.get_next_state(state, int(rng.choice(game.legal_actions(state, player))), player)
        player = -player
    with pytest.raises(ValueError, match="Othello only"):
        GreedyPlayer(make_game("tictactoe"))


# ---- people ------------------------------------------------------------------------------------
def test_human_player_asks_again_with_the_reason():
    game = make_game("tictactoe")
    answers, said = iter(["banana", "4", "9", " 2 "]), []
    human = HumanPlayer(game, input_fn=lambda prompt: next(answers), output_fn=said.append)
    state = np.zeros((3, 3), dtype=np.int8)
    state[1, 1] = 1
    assert human.get_action(state, -1) == 2
    assert len(said) == 3
    assert "cannot read 'banana'" in said[0] and "occupied" in said[1] and "out of range" in said[2]


# ---- network players ---------------------------------------------------------------------------
def test_policy_players_follow_the_network_on_legal_moves():
    game = make_game("tictactoe")
    logits = np.array([9.0, 0, 0, 0, 5.0, 0, 0, 0, 1.0])
    state = np.zeros((3, 3), dtype=np.int8)
    state[0, 0] = -1  # the network's favourite cell is taken
    greedy = PolicyPlayer(game, ConstantNet(game, logits=logits), seed=0)
    assert greedy.get_action(state, 1) == 4
    sampled = PolicyPlayer(game, ConstantNet(game, logits=logits), sample=True, seed=0)
    draws = [sampled.get_action(state, 1) for _ in range(300)]
    assert 0 not in draws and draws.count(4) > 250 and len(set(draws)) > 1


@pytest.mark.parametrize("name", ["tictactoe-win", "tictactoe-block"])
def test_value_and_monte_carlo_players_see_the_rules(name):
    _name, game_name, state, best = next(t for t in TACTICS if t[0] == name)
    game = make_game(game_name)
    uniform = ConstantNet(game)
    if name.endswith("win"):  # a finished game is scored by the rules, whatever the value head says
        assert ValuePlayer(game, uniform, seed=0).get_action(state, 1) == best
    mc = MonteCarloPlayer(game, uniform, top_k=9, num_rollouts=20, depth=9, seed=0)
    assert mc.get_action(absolute(state, -1), -1) == best


def test_value_player_prefers_what_the_value_head_likes():
    game = make_game("tictactoe")

    class CentreHater(ConstantNet):  # value +1 for the player to move whenever the opponent holds the centre
        def forward(self, x):
            logits, _ = super().forward(x)
            return logits, (x[:, 0, 1, 1] * 1.0)[:, None]

    assert ValuePlayer(game, CentreHater(game), seed=0).get_action(game.get_initial_state(), 1) != 4


def test_search_players_are_seeded_and_legal():
    game = make_game("connect_four")
    state = game.get_initial_state()
    for make in (
        lambda: MCTSPlayer(game, MCTSConfig(num_searches=50), seed=5),
        lambda: AlphaZeroPlayer(game, FakeNet(game), SearchConfig(num_searches=30), seed=5),
        lambda: AlphaZeroPlayer(game, FakeNet(game), SearchConfig(num_searches=30), temperature=1.0, seed=5),
        lambda: MonteCarloPlayer(game, FakeNet(game), num_rollouts=3, depth=3, seed=5),
        lambda: RandomPlayer(game, seed=5),
        lambda: NegamaxPlayer(game, depth=2, seed=5),
    ):
        a, b = make(), make()
        moves = [a.get_action(state, 1) for _ in range(5)]
        assert moves == [b.get_action(state, 1) for _ in range(5)]
        assert all(0 <= m < 7 for m in moves)


def test_alphazero_player_takes_the_win_on_either_seat():
    _name, game_name, state, best = TACTICS[2]
    game = make_game(game_name)
    player = AlphaZeroPlayer(game, ConstantNet(game), SearchConfig(num_searches=100), seed=0)
    assert player.get_action(state, 1) == best
    assert player.get_action(absolute(state, -1), -1) == best
    assert player.mcts.last_search_stats.num_searches == 100


def test_mc_spec_takes_a_rollout_count():
    from fakes import ConstantNet

    from alphazero_lib import make_game, make_player

    game = make_game("tictactoe")
    import alphazero_lib.specs as specs

    original = specs.resolve_weights
    specs.resolve_weights = lambda g, text: ConstantNet(g)
    try:
        assert make_player(game, "mc:any:3").num_rollouts == 3
        assert make_player(game, "mc:any").num_rollouts == 10
    finally:
        specs.resolve_weights = original


def test_a_search_player_plays_the_most_visited_move_of_a_function_or_an_object():
    from alphazero_lib.players import SearchPlayer

    game = make_game("tictactoe")
    shares = np.array([0.1, 0.0, 0.3, 0.0, 0.3, 0.0, 0.2, 0.1, 0.0])

    class Search:
        def search(self, state):
            return shares

    seen = []
    by_function = SearchPlayer(game, lambda state: seen.append(state.copy()) or shares, "f")
    assert (
        by_function.get_action(game.get_initial_state(), 1)
        == 2
        == SearchPlayer(game, Search()).get_action(game.get_initial_state(), -1)
    )  # the first of the tied maxima
    state = game.get_next_state(game.get_initial_state(), 4, 1)
    by_function.get_action(state, -1)
    assert seen[-1][1, 1] == -1  # it searched the canonical state: the mover's pieces are 1
    with pytest.raises(TypeError, match="needs a search function"):
        SearchPlayer(game, 3)


def test_the_searches_are_what_their_protocols_say():
    from alphazero_lib.alpha_mcts import AlphaMCTS
    from alphazero_lib.batched_mcts import BatchedMCTS
    from alphazero_lib.mcts import MCTS
    from alphazero_lib.searches import BatchedSearch, SerialSearch

    game = make_game("tictactoe")
    serial = [MCTS(game, MCTSConfig(num_searches=2)), AlphaMCTS(game, FakeNet(game), SearchConfig(num_searches=2))]
    batched = BatchedMCTS(game, FakeNet(game), SearchConfig(num_searches=2))
    assert all(isinstance(s, SerialSearch) for s in serial) and isinstance(batched, BatchedSearch)
    assert not any(isinstance(s, BatchedSearch) for s in serial)  # no run(): a serial search is not batched
    states = np.stack([game.get_initial_state()] * 3)
    assert batched.search(states).shape == (3, 9) and serial[1].search(states[0]).shape == (9,)


# ---- refusals and threads (issue 16) ---------------------------------------------------------------------------------
def test_a_player_refuses_a_finished_game_and_a_bad_player_with_one_message():
    won = np.array([[1, 1, 1], [-1, -1, 0], [0, 0, 0]], dtype=np.int8)
    full_c4 = C4.get_initial_state()
    full_c4[2:, 0] = 1
    full_c4[5, [2, 3, 5, 6]] = -1
    model = ResNet(TTT, 1, 8)
    for game, state, spec in [
        (TTT, won, "random"),
        (TTT, won, "perfect"),
        (TTT, won, "mcts:10"),
        (C4, full_c4, "negamax:2"),
        (C4, full_c4, "random"),
    ]:
        player = make_player(game, spec, seed=0)
        with pytest.raises(ValueError, match=f"^{spec}: the game is over in this position; there is no move"):
            player.get_action(state, -1)
        with pytest.raises(ValueError, match=f"^{spec}: player must be 1 or -1 .*got 2"):
            player.get_action(game.get_initial_state(), 2)
    for player in (PolicyPlayer(TTT, model), AlphaZeroPlayer(TTT, model, SearchConfig(num_searches=4))):
        with pytest.raises(ValueError, match="the game is over"):
            player.get_action(won, -1)
        with pytest.raises(ValueError, match="player must be 1 or -1"):
            player.get_action(TTT.get_initial_state(), 0)
        # the same refusals where many positions are chosen at once (Pons' sets, games side by side)
        choose = batched_chooser(player)
        open_position = TTT.get_initial_state()
        with pytest.raises(ValueError, match=f"^{player.name}: the game is over in this position"):
            choose(np.stack([open_position, won]), np.array([1, -1]))
        with pytest.raises(ValueError, match=f"^{player.name}: player must be 1 or -1"):
            choose(np.stack([open_position]), np.array([0]))


def test_a_model_for_another_game_is_refused_by_name():
    model = ResNet(C4, 1, 8)
    with pytest.raises(
        ValueError, match=r"this model plays ConnectFour\(rows=6, columns=7, in_a_row=4\), not TicTacToe"
    ):
        AlphaZeroPlayer(TTT, model)
    with pytest.raises(ValueError, match="this model plays ConnectFour"):
        PolicyPlayer(TTT, model)


def test_negamax_depth_is_capped_with_a_message():
    with pytest.raises(ValueError, match=r"negamax depth 99 is too deep.*use 1 to 10"):
        make_player(C4, "negamax:99")
    assert make_player(C4, "negamax:10").depth == 10


def test_network_players_search_on_one_thread_and_restore_the_setting():
    import torch

    from alphazero_lib.config import SearchConfig
    from alphazero_lib.players import AlphaZeroPlayer, PolicyPlayer

    seen = []

    class Spy(ResNet):
        def forward(self, x):
            seen.append(torch.get_num_threads())
            return super().forward(x)

    model = Spy(C4, 1, 8).eval()
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        for player in (AlphaZeroPlayer(C4, model, SearchConfig(num_searches=3)), PolicyPlayer(C4, model)):
            player.get_action(C4.get_initial_state(), 1)
            assert torch.get_num_threads() == 2
        assert seen and set(seen) == {1}
        seen.clear()
        player = AlphaZeroPlayer(C4, model, SearchConfig(num_searches=3))
        player.num_threads = None  # the user asks for torch's setting
        player.get_action(C4.get_initial_state(), 1)
        assert set(seen) == {2}
    finally:
        torch.set_num_threads(before)


def test_a_new_kind_of_player_is_one_entry_in_the_table(monkeypatch):
    import alphazero_lib.specs as specs

    class FirstLegal(RandomPlayer):
        def get_action(self, state, player):
            return int(self.game.legal_actions(state)[self.offset])

    def build(game, offset, _, seed):
        player = FirstLegal(game, seed=seed)
        player.offset = int(offset)
        return player

    monkeypatch.setitem(specs.KINDS, "nth", specs.Kind(build, argument="N", number=True))
    game = make_game("connect_four")
    player = make_player(game, "nth:2", seed=0)
    assert player.name == "nth:2" and player.get_action(game.get_initial_state(), 1) == 2
    assert "nth:N" in specs.spec_help()
    with pytest.raises(ValueError, match=r"'nth' needs an argument; specs: random .*nth:N"):
        make_player(game, "nth")
    with pytest.raises(ValueError, match="N must be a positive integer"):
        make_player(game, "nth:x")
    # every kind's grammar is in the help, in the table's order
    assert specs.spec_help().split(";")[0].split(" | ") == [k.grammar(n) for n, k in specs.KINDS.items()]
