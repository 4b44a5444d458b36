"""SearchPlayer, search_moves and MCTSPlayer: legality, determinism, stop tokens, a tiny match."""

from __future__ import annotations

import random

import pytest

from quiltsolve.engine import ADVANCE, Advance, Buy, PlaceLeather, new_game
from quiltsolve.engine.match import run_match
from quiltsolve.engine.players.mcts import MCTSPlayer
from quiltsolve.engine.players import GreedyPlayer, RandomPlayer, make_player
from quiltsolve.engine.players.search import SearchInputError, SearchPlayer, search_moves
from quiltsolve.solver import StopToken


def midgame_state(seed: int, moves: int) -> "object":
    s = new_game(seed)
    r = RandomPlayer(seed)
    for _ in range(moves):
        if s.is_terminal():
            break
        s.apply_action(r.choose(s))
    return s


def _pending_leather_state():
    """A position where the player to move must place a leather patch."""
    for seed in range(50):
        s = new_game(seed)
        g = GreedyPlayer()
        while not s.is_terminal():
            if s.leather_to_place:
                return s
            s.apply_action(g.choose(s))
    raise AssertionError("no leather position found")


def _only_advance_state():
    """A position where advancing is the only legal move (nothing affordable)."""
    s = new_game(3)
    p = s.players[s.current_player()]
    p.buttons = 0
    assert s.num_legal_actions() == 1
    return s


@pytest.mark.parametrize("seed", [0, 7])
def test_search_deterministic_with_iteration_budget(seed):
    s = midgame_state(11, 6)
    a1 = SearchPlayer(iterations=60, seed=seed).choose(s.clone())
    a2 = SearchPlayer(iterations=60, seed=seed).choose(s.clone())
    assert a1 == a2
    assert s.is_legal(a1)


def test_search_moves_deterministic_and_sorted_and_legal():
    s = midgame_state(5, 4)
    m1 = search_moves(s, iterations=80, seed=3)
    m2 = search_moves(s, iterations=80, seed=3)
    assert [(m.action, m.win_chance, m.reason) for m in m1] == [(m.action, m.win_chance, m.reason) for m in m2]
    assert m1, "a live position has moves"
    values = [m.win_chance for m in m1]
    assert values == sorted(values, reverse=True)
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(s.is_legal(m.action) for m in m1)
    assert len({m.action for m in m1}) == len(m1)
    assert sum(type(m.action) is Advance for m in m1) == 1
    assert all(m.reason for m in m1)
    # The player plays the top suggestion.
    assert SearchPlayer(iterations=80, seed=3, reuse=False).choose(s.clone()) == m1[0].action
    assert len(search_moves(s, iterations=20, top=2)) <= 2


def test_search_handles_pending_leather():
    s = _pending_leather_state()
    a = SearchPlayer(iterations=30, seed=1).choose(s.clone())
    assert isinstance(a, PlaceLeather) and s.is_legal(a)
    moves = search_moves(s, iterations=30)
    assert moves and all(isinstance(m.action, PlaceLeather) and s.is_legal(m.action) for m in moves)


def test_search_only_advance():
    s = _only_advance_state()
    assert SearchPlayer(iterations=10).choose(s) == ADVANCE
    assert [m.action for m in search_moves(s, iterations=10)] == [ADVANCE]


def test_search_stop_token_honoured():
    s = midgame_state(2, 3)
    stop = StopToken()
    stop.set()
    # A huge budget: only the stop token can end it.
    p = SearchPlayer(iterations=10_000_000, seed=0, lookahead=False)
    moves = p.search_moves(s, stop=stop)
    assert p.last_iterations == 0
    assert moves and all(s.is_legal(m.action) for m in moves)


def test_search_stop_token_set_during_search():
    s = midgame_state(2, 3)

    class CountingStop:
        def __init__(self, after):
            self.calls, self.after = 0, after

        def is_set(self):
            self.calls += 1
            return self.calls > self.after

    # The core checks the token every few ms (the pure-Python one every iteration): the search ends at the
    # first check that finds it set, long before its iteration budget.
    for pure in (False, True):
        p = SearchPlayer(iterations=10_000_000, lookahead=False, pure=pure)
        stop = CountingStop(25)
        moves = p.search_moves(s, stop=stop)
        assert stop.calls == 26
        assert 0 < p.last_iterations < 10_000_000
        assert all(s.is_legal(m.action) for m in moves)


def test_search_terminal_and_bad_input():
    s = new_game(1)
    g = GreedyPlayer()
    while not s.is_terminal():
        s.apply_action(g.choose(s))
    assert search_moves(s, iterations=5) == []
    with pytest.raises(ValueError):
        SearchPlayer(iterations=5).choose(s)
    with pytest.raises(SearchInputError):
        SearchPlayer(iterations=0)
    with pytest.raises(SearchInputError):
        SearchPlayer(time_limit=-1)


def test_search_random_positions_always_legal():
    rng = random.Random(4)
    p = SearchPlayer(iterations=15, seed=2)
    for k in range(12):
        s = midgame_state(rng.randrange(1000), rng.randrange(0, 40))
        if s.is_terminal():
            continue
        a = p.choose(s.clone())
        assert s.is_legal(a), a


def test_registered_specs():
    p = make_player("search:0.25", 3)
    assert isinstance(p, SearchPlayer) and p.time_limit == 0.25 and p.seed == 3
    q = make_player("search:40it", 3)
    assert q.iterations == 40
    m = make_player("mcts:300", 1)
    assert isinstance(m, MCTSPlayer) and m.iterations == 300
    for bad in ("search:x", "search:0", "mcts:-5", "mcts:abc"):
        with pytest.raises(ValueError):
            make_player(bad, 0)


def test_mcts_deterministic_and_legal():
    s = midgame_state(9, 5)
    a1 = MCTSPlayer(iterations=40, seed=5).choose(s.clone())
    a2 = MCTSPlayer(iterations=40, seed=5).choose(s.clone())
    assert a1 == a2 and s.is_legal(a1)
    leather = _pending_leather_state()
    a = MCTSPlayer(iterations=40, seed=5).choose(leather.clone())
    assert isinstance(a, PlaceLeather) and leather.is_legal(a)
    assert MCTSPlayer(iterations=40).choose(_only_advance_state()) == ADVANCE
    with pytest.raises(ValueError):
        MCTSPlayer(iterations=0)


def test_tiny_match_smoke():
    summary = run_match(SearchPlayer(iterations=8, seed=1), MCTSPlayer(iterations=8, seed=2), games=2, seed=3,
                        names=("search:8it", "mcts:8"))
    assert summary.games == 2 and summary.wins_a + summary.wins_b == 2


def test_root_buy_uses_given_advisor():
    """With an advisor, the root buys sit where the advisor ranks best (among its top value)."""
    from quiltsolve.engine.advisor import LocalAdvisor

    s = new_game(6)
    moves = search_moves(s, iterations=20, advisor=LocalAdvisor())
    adv = LocalAdvisor()
    for m in moves:
        if isinstance(m.action, Buy):
            c = s.circle
            i = c.index(m.action.patch_id)
            res = adv.suggest_placement(s.players[0].board, m.action.patch_id, (c[i + 1:] + c[:i])[:6])
            assert m.action.mask in {r.placement.mask for r in res.ranked}


def test_bench_players_smoke(capsys):
    from bench.bench_players import main

    assert main(["--games", "2", "--budget", "0.01", "--tables", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "search:0.01 vs greedy | 2 |" in out
    assert main(["--tables", "nope"]) == 2


class _UnfinishedAdvisor:
    """An advisor whose ranking ran out of time (FEASIBLE): its best placement is the least snug one."""

    def __init__(self):
        self.asked = 0

    def suggest_placement(self, board, patch_id, upcoming, *, square7=False, time_limit=None):
        from quiltsolve.engine.policy import placement_score
        from quiltsolve.solver import PATCH_MASKS, LookaheadResult, PlacedPatch, RankedPlacement, SolveStatus

        self.asked += 1
        worst = min((m for m in PATCH_MASKS[patch_id] if not m & board), key=lambda m: placement_score(board, m))
        ranked = (RankedPlacement(PlacedPatch(patch_id, 0, worst), 10, 10, False),)
        return LookaheadResult(SolveStatus.FEASIBLE, ranked, 0.0)


def test_search_ignores_an_unfinished_lookahead_and_asks_it_once():
    """``search`` takes the snug placement when the lookahead did not prove its ranking (and remembers
    that, per board, patch and upcoming patches); ``search-v1`` keeps trusting it (tests/search/test_search_v1.py)."""
    from quiltsolve.engine.policy import tight_placement

    s = new_game(6)
    adv = _UnfinishedAdvisor()
    player = SearchPlayer(iterations=30, seed=0, advisor=adv)
    board = s.players[0].board
    for _ in range(2):
        moves = player.search_moves(s)
        buys = [m.action for m in moves if isinstance(m.action, Buy)]
        assert buys and all(b.mask == tight_placement(board, b.patch_id) for b in buys)
    assert adv.asked == len(buys)          # the second search asked nothing again
