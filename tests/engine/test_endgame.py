"""The exact endgame solver (engine.endgame) against an independent brute-force minimax, on both backends.

The brute force here is written from the rules' public API only (``legal_actions``, ``apply_action``,
``scores``): no pruning, no table, no ordering. Positions come from seeded games (greedy and random
players mixed) cut a few plies before their end.
"""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

from quiltsolve.engine import Buy, GameState, make_player, new_game
from quiltsolve.engine.endgame import (
    CHECK_EVERY, MIN_TABLE_BYTES, EndgameArgumentError, EndgameResult, c_available, solve,
)
from quiltsolve.engine.track import BONUS_MASKS, END
from quiltsolve.solver import StopToken

BACKENDS = ["python"] + (["c"] if c_available() else [])
needs_c = pytest.mark.skipif(not c_available(), reason="the compiled endgame solver is not built")

BRUTE_LIMIT = 1500      # positions whose whole tree is larger are left out of the brute-force set


class _TooBig(Exception):
    pass


def brute(s: GameState, budget: list[int]) -> int:
    """Player 0's final margin under perfect play: plain minimax over every legal action."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooBig
    if s.is_terminal():
        a, b = s.scores()
        return a - b
    vals = []
    for act in s.legal_actions():
        c = s.clone()
        c.apply_action(act)
        vals.append(brute(c, budget))
    return max(vals) if s.current_player() == 0 else min(vals)


def brute_value(s: GameState) -> int | None:
    """The value for the player to move, or None when the tree has more than BRUTE_LIMIT nodes."""
    try:
        v = brute(s, [BRUTE_LIMIT])
    except _TooBig:
        return None
    return v if s.current_player() == 0 else -v


def game_history(seed: int, edition: str = "revised") -> list[GameState]:
    """Every position of a seeded game (greedy and random moves mixed), the last one terminal."""
    s = new_game(seed, edition)
    greedy, rnd = make_player("greedy", 0), make_player("random", seed)
    rng = random.Random(seed)
    out = []
    while not s.is_terminal():
        out.append(s.clone())
        s.apply_action((greedy if rng.random() < 0.65 else rnd).choose(s))
    out.append(s)
    return out


def view(before: GameState, after: GameState, value: int) -> int:
    """``value`` (for the player to move in ``after``) from the view of the player to move in ``before``."""
    if after.is_terminal():
        a, b = after.scores()
        return a - b if before.current_player() == 0 else b - a
    return value if after.current_player() == before.current_player() else -value


@pytest.fixture(scope="module")
def brute_set() -> list[tuple[GameState, int]]:
    """At least 500 (position, brute-force value) pairs near the end of seeded games."""
    out: list[tuple[GameState, int]] = []
    seed = 0
    while len(out) < 520:
        hist = game_history(1000 + seed)
        seed += 1
        for left in range(2, 10):
            if left >= len(hist):
                break
            s = hist[-left]
            v = brute_value(s)
            if v is not None:
                out.append((s, v))
    return out


def test_the_brute_force_set_covers_the_cases(brute_set: list[tuple[GameState, int]]) -> None:
    assert len(brute_set) >= 500
    pending = [s for s, _ in brute_set if s.leather_to_place]
    bonus_near = [s for s, _ in brute_set if s.bonus_open and any(
        min((w & ~p.board).bit_count() for w in BONUS_MASKS) <= 3 for p in s.players)]
    one_done = [s for s, _ in brute_set if END in (s.players[0].position, s.players[1].position)]
    assert len(pending) >= 5 and len(bonus_near) >= 5 and len(one_done) >= 100
    assert len({v for _, v in brute_set}) > 20


def _check_line(s: GameState, r: EndgameResult) -> None:
    c = s.clone()
    for a in r.line:
        assert a in c.legal_actions()
        c.apply_action(a)
    assert c.is_terminal()
    a0, a1 = c.scores()
    assert (a0 - a1 if s.current_player() == 0 else a1 - a0) == r.value
    if r.moves:
        assert r.line[0] == r.moves[0].action


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_equals_brute_force(brute_set: list[tuple[GameState, int]], backend: str) -> None:
    for s, v in brute_set:
        r = solve(s, time_limit=None, backend=backend)
        assert (r.proven, r.reason, r.value) == (True, "solved", v), s.to_notation()
        assert len(r.moves) == 1 and r.moves[0].margin == v
        # the best move re-checked by brute force
        c = s.clone()
        c.apply_action(r.moves[0].action)
        assert view(s, c, brute_value(c) if not c.is_terminal() else 0) == v
        _check_line(s, r)


@pytest.mark.parametrize("backend", BACKENDS)
def test_all_moves_values_equal_brute_force(brute_set: list[tuple[GameState, int]], backend: str) -> None:
    for s, v in brute_set[::4]:
        r = solve(s, time_limit=None, all_moves=True, backend=backend)
        assert r.proven and r.value == v and r.moves[0].margin == v
        assert [m.margin for m in r.moves] == sorted((m.margin for m in r.moves), reverse=True)
        # every distinct root move once (buys of one patch collapsed to the best placement)
        best: dict[Any, int] = {}
        for a in s.legal_actions():
            c = s.clone()
            c.apply_action(a)
            val = view(s, c, brute_value(c) if not c.is_terminal() else 0)
            group = a.patch_id if isinstance(a, Buy) else a
            best[group] = max(best.get(group, val), val)
        got = {(m.action.patch_id if isinstance(m.action, Buy) else m.action): m.margin for m in r.moves}
        assert got == best
        for m in r.moves:
            assert m.action in s.legal_actions()
        _check_line(s, r)


@needs_c
def test_c_and_python_agree(brute_set: list[tuple[GameState, int]]) -> None:
    """Same value, moves, line and nodes (the algorithms are identical; the tables never replace here)."""
    positions = [s for s, _ in brute_set[::3]]
    for seed in range(8):       # and larger ones: a C search of at most 3,000 nodes (~3 ms, far below 0.2 s)
        for s in game_history(5000 + seed, "original" if seed % 4 == 0 else "revised")[-12:-1]:
            r = solve(s, time_limit=0.2, backend="c", all_moves=True)
            if r.proven and r.nodes <= 3_000:
                positions.append(s)
    assert len(positions) > 200
    for s in positions:
        for all_moves in (False, True):
            rp = solve(s, time_limit=None, all_moves=all_moves, backend="python")
            rc = solve(s, time_limit=None, all_moves=all_moves, backend="c")
            assert not rp.table_full and not rc.table_full
            assert (rp.proven, rp.value, rp.moves, rp.line, rp.nodes) == (rc.proven, rc.value, rc.moves, rc.line,
                                                                          rc.nodes), s.to_notation()


def _mid_game() -> GameState:
    s = new_game(42)
    g = make_player("greedy", 0)
    for _ in range(12):
        s.apply_action(g.choose(s))
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_time_limit_never_claims_an_unfinished_proof(backend: str) -> None:
    for limit in (0.001, 0.02):
        r = solve(_mid_game(), time_limit=limit, backend=backend)
        assert (r.proven, r.value, r.moves, r.line, r.reason) == (False, None, (), (), "time")
        assert r.nodes > 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_stop_token(backend: str) -> None:
    tok = StopToken()
    tok.set()
    r = solve(_mid_game(), time_limit=None, stop=tok, backend=backend)
    assert (r.proven, r.value, r.moves, r.reason) == (False, None, (), "stopped")
    assert r.nodes == CHECK_EVERY       # the token is looked at every CHECK_EVERY nodes


@needs_c
def test_stop_from_another_thread_ends_a_c_search() -> None:
    """The C search releases the GIL and looks at the token while it runs."""
    tok = StopToken()
    out: list[EndgameResult] = []
    t = threading.Thread(target=lambda: out.append(solve(new_game(3), time_limit=None, stop=tok, backend="c")))
    t.start()
    t.join(0.05)            # the search cannot finish a whole game: it is still running
    tok.set()
    t.join(60)
    assert not t.is_alive()
    assert out[0].reason == "stopped" and not out[0].proven


@pytest.mark.parametrize("backend", BACKENDS)
def test_max_plies(brute_set: list[tuple[GameState, int]], backend: str) -> None:
    s, v = next((s, v) for s, v in brute_set if len(solve(s, time_limit=None).line) >= 4)
    plies = len(solve(s, time_limit=None).line)
    r = solve(s, time_limit=None, max_plies=0, backend=backend)
    assert (r.proven, r.value, r.reason) == (False, None, "horizon")
    r = solve(s, time_limit=None, max_plies=2, backend=backend)
    assert (r.proven, r.value, r.reason) == (False, None, "horizon")
    r = solve(s, time_limit=None, max_plies=200, backend=backend)
    assert (r.proven, r.value) == (True, v) and len(r.line) >= plies - 0


@needs_c
def test_both_backends_stop_at_the_same_node(brute_set: list[tuple[GameState, int]]) -> None:
    """A horizon or a stop token ends both searches after the same nodes."""
    for s, _ in brute_set[::25]:
        for plies in (1, 2, 3):
            rp = solve(s, time_limit=None, max_plies=plies, backend="python")
            rc = solve(s, time_limit=None, max_plies=plies, backend="c")
            assert (rp.proven, rp.value, rp.reason, rp.nodes) == (rc.proven, rc.value, rc.reason, rc.nodes)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tiny_table_is_reported_full_and_stays_exact(backend: str) -> None:
    s = game_history(7)[-7]
    big = solve(s, time_limit=None, backend=backend)
    tiny = solve(s, time_limit=None, table_bytes=MIN_TABLE_BYTES, backend=backend)
    assert big.proven and tiny.proven and tiny.value == big.value
    assert tiny.table_full and not big.table_full
    assert tiny.moves[0].margin == big.value
    _check_line(s, tiny)


@pytest.mark.parametrize("backend", BACKENDS)
def test_terminal_position(backend: str) -> None:
    final = game_history(11)[-1]
    assert final.is_terminal()
    r = solve(final, backend=backend)
    a, b = final.scores()
    assert (r.proven, r.reason, r.moves, r.line, r.nodes) == (True, "terminal", (), (), 0)
    assert r.value == (a - b if final.current_player() == 0 else b - a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pending_leather_root(brute_set: list[tuple[GameState, int]], backend: str) -> None:
    s, v = next((s, v) for s, v in brute_set if s.leather_to_place and s.players[s.current_player()].position < END)
    r = solve(s, time_limit=None, all_moves=True, backend=backend)
    assert r.proven and r.value == v
    empty = 81 - s.players[s.current_player()].board.bit_count()
    assert len(r.moves) == empty      # each empty cell is a distinct root move
    assert all(type(m.action).__name__ == "PlaceLeather" for m in r.moves)


@pytest.mark.parametrize("bad", [
    ({"state": "x"}, "state"), ({"max_plies": -1}, "max_plies"), ({"max_plies": True}, "max_plies"),
    ({"time_limit": 0}, "time_limit"), ({"time_limit": float("nan")}, "time_limit"),
    ({"time_limit": "1"}, "time_limit"), ({"stop": object()}, "stop"), ({"table_bytes": 10}, "table_bytes"),
    ({"table_bytes": 2.0**30}, "table_bytes"), ({"all_moves": 1}, "all_moves"), ({"backend": "gpu"}, "backend"),
])
def test_bad_arguments(bad: tuple[dict[str, Any], str]) -> None:
    kwargs, name = bad
    state = kwargs.pop("state", new_game(1))
    with pytest.raises(EndgameArgumentError, match=f"^{name}: "):
        solve(state, **kwargs)
    assert issubclass(EndgameArgumentError, ValueError)


# ---------------------------------------------------------------- bounds, relaxations and the anytime solve
from itertools import product  # noqa: E402

from quiltsolve.engine import endgame as eg  # noqa: E402
from quiltsolve.engine.actions import PlaceLeather  # noqa: E402
from quiltsolve.solver import PATCH_MASKS  # noqa: E402

INF = eg.INF


def searcher(backend: str, **kw: Any) -> Any:
    if backend == "c":
        return eg._CSearch(64 * 2**20, None, kw.get("stop"), None)
    return eg._Search(64 * 2**20, None, kw.get("stop"), None)


def p0(s: GameState, v: int) -> int:
    """``v`` (for the player to move in ``s``) as player 0's margin."""
    return v if s.current_player() == 0 else -v


def test_static_bounds_never_exclude_the_value(brute_set: list[tuple[GameState, int]]) -> None:
    widths = []
    for s, v in brute_set:
        lo, hi = eg._static_bounds(s)
        assert lo <= p0(s, v) <= hi, s.to_notation()
        widths.append(hi - lo)
    assert min(widths) < 10 < max(widths)       # they cut somewhere and are not a constant


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_player_relaxed_bounds_the_value(brute_set: list[tuple[GameState, int]], backend: str) -> None:
    """Rule B: player 0 deferred gives an upper bound, player 1 deferred a lower one; often the value itself."""
    tight = 0
    for s, v in brute_set[::2]:
        search = searcher(backend)
        up, low = search.ab(s, -INF, INF, 0, 1), search.ab(s, -INF, INF, 0, 2)
        assert low <= p0(s, v) <= up, s.to_notation()
        tight += low == up
    assert tight > len(brute_set[::2]) // 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_aspiration_search_of_the_lower_relaxation_is_the_full_windows(brute_set: list[tuple[GameState, int]],
                                                                           backend: str) -> None:
    """The driver's player-1 relaxation, first in an aspiration window below hi: given lo <= value <= hi it is
    the relaxation's value wherever that is >= lo (else at most lo), so never above the value."""
    retried = 0
    for s, v in brute_set[::2]:
        lo, hi = eg._static_bounds(s)
        full = searcher(backend).ab(s, -INF, INF, 0, 2)
        up = searcher(backend).ab(s, -INF, INF, 0, 1)
        for top in (hi, min(hi, up), p0(s, v)):
            if lo >= top:
                continue
            search = searcher(backend)
            got = eg._lower_relaxed(search, s, 0, lo, top)
            assert (got == full) if full >= lo else got <= lo, s.to_notation()
            assert got <= p0(s, v)
            retried += full < top - eg.ASPIRATION
    assert retried > 10      # the window missed and was widened


FAIL_LOW_MOVE = "r 45,11,8gt7dv20w35q,777776774777777771001001763 46,33,mlrjuhno,577141761770760740770760770 64caebf9pi1ks 0 -"
"""A 1 s self-play game's position (deal 5,059, ply 42; 15 spaces left) whose solve once ended in "no child
reaches the proven value": the last null-window test failed low and left in the table the first placement of
patch 6 (its group's relaxed bound was the node's loosest fail-soft bound), which the value's move was then
read from. The other placement of patch 6 keeps the value 0."""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_failed_low_nodes_move_is_not_the_values_move(backend: str) -> None:
    s = GameState.from_notation(FAIL_LOW_MOVE)
    r = solve(s, time_limit=None, backend=backend)
    assert (r.proven, r.value) == (True, 0)
    assert r.moves[0].action.to_str() == "buy 6 6,0;6,1;6,2;6,3;7,0;7,1"
    _check_line(s, r)
    plain = solve(s, time_limit=None, backend=backend, _relax=False)   # no rule B: no group bounds at all
    assert (plain.value, plain.moves[0].action) == (0, r.moves[0].action)
    worse = s.clone()
    worse.apply_action(next(a for a in s.legal_actions() if a.to_str() == "buy 6 6,0;6,1;6,2;6,3;7,2;7,3"))
    w = solve(worse, time_limit=None, backend=backend)
    assert view(s, worse, w.value) == -4     # the placement the table once gave loses 4 points


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_tables_move_after_both_null_window_tests_reaches_the_value(brute_set: list[tuple[GameState, int]],
                                                                         backend: str) -> None:
    """The driver's last steps: a null-window test on each side of the value (in either order), then the
    value's move read from the table (``_mover_move``). The table keeps a move only where it proves the bound
    stored, never the "best" of a node where every move failed (the loosest fail-soft bound, a group's
    relaxed bound say): that move once ended a 1 s player's proof in "no child reaches the proven value"."""
    checked = 0
    for s, v in brute_set:
        value = p0(s, v)
        for order in ((value - 1, value), (value, value + 1)), ((value, value + 1), (value - 1, value)):
            search = searcher(backend)
            for a, b in order:
                search.ab(s, a, b, 0)
            move = eg._mover_move(search, s, value, None)
            c = s.clone()
            c.apply_action(move)
            after = brute_value(c)
            if after is None:
                continue
            assert (after if c.current_player() == 0 else -after) == value, (s.to_notation(), move.to_str())
            checked += 1
    assert checked > len(brute_set)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_group_bound_bounds_every_move_of_the_group(brute_set: list[tuple[GameState, int]], backend: str) -> None:
    """``ab_after`` (the mover deferred after any placement of a patch, or any leather cell) is a bound of the
    exact value of every move of the group, on the mover's side."""
    groups = 0
    for s, _ in brute_set[::3]:
        by: dict[Any, list[Any]] = {}
        for a in s.legal_actions():
            if isinstance(a, (Buy, PlaceLeather)):
                by.setdefault(a.patch_id if isinstance(a, Buy) else "leather", []).append(a)
        for acts in by.values():
            if len(acts) < 2 or len(acts) > 60:
                continue
            groups += 1
            bound = searcher(backend).ab_after(s, acts[0], -INF, INF, 1)
            values = []
            for a in acts:
                c = s.clone()
                c.apply_action(a)
                values.append(p0(s, view(s, c, brute_value(c) if not c.is_terminal() else 0)))
            if s.current_player() == 0:
                assert max(values) <= bound, s.to_notation()
            else:
                assert min(values) >= bound, s.to_notation()
    assert groups > 50


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_report_of_the_anytime_solve_holds_the_value(brute_set: list[tuple[GameState, int]],
                                                           backend: str) -> None:
    for s, v in brute_set[::5]:
        reports = list(eg.solve_progress(s, backend=backend, table_bytes=2**20))
        for r in reports:
            assert r.lower <= v <= r.upper and r.nodes >= 0 and r.elapsed >= 0, s.to_notation()
        for a, b in zip(reports, reports[1:]):
            assert a.lower <= b.lower and b.upper <= a.upper and a.nodes <= b.nodes
        last = reports[-1]
        assert [r.stage for r in reports].count("done") == 1 and last.stage == "done"
        assert last.result is not None and last.result.proven and last.result.value == v
        assert last.lower == last.upper == v and last.line == last.result.line
        _check_line(s, last.result)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_unfinished_anytime_solve_claims_only_its_interval(backend: str) -> None:
    s = game_history(7)[-11]    # about 40,000 nodes: far more than the time limits below allow
    exact = solve(s, time_limit=None)        # the built backend: without a compiler, the Python one
    assert exact.proven
    for limit in (0.002, 0.02):
        reports = list(eg.solve_progress(s, time_limit=limit, backend=backend))
        last = reports[-1].result
        assert last is not None and (last.proven, last.value, last.moves) in ((False, None, ()),
                                                                             (True, exact.value, last.moves))
        for r in reports:
            assert r.lower <= exact.value <= r.upper     # type: ignore[operator]


class CountingToken:
    def __init__(self) -> None:
        self.looks = 0

    def is_set(self) -> bool:
        self.looks += 1
        return False


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_stop_token_is_looked_at_every_check_every_nodes(backend: str) -> None:
    """Every CHECK_EVERY nodes, packing steps included (they count as nodes): a worker is free within
    CHECK_EVERY units of work of a cancel."""
    for s in game_history(3)[-9:-4]:
        tok = CountingToken()
        r = solve(s, time_limit=None, stop=tok, backend=backend)
        assert r.proven and tok.looks == r.nodes // CHECK_EVERY


def test_the_table_stays_within_its_bytes() -> None:
    for tb in (MIN_TABLE_BYTES, 10**6, 3 * 2**20 + 7):
        assert eg._Search(tb, None, None, None).size * eg.ENTRY_BYTES <= tb
        if c_available():
            assert eg._C.Searcher(tb, -1, -1.0, None).slots * eg._C.ENTRY_BYTES <= tb


def _brute_fit(region: int, pieces: tuple[int, ...]) -> bool:
    if not pieces:
        return True
    return any(not m & ~region and _brute_fit(region & ~m, pieces[1:]) for m in PATCH_MASKS[pieces[0]])


def _brute_claim(region: int, pieces: tuple[int, ...], leathers: int) -> bool:
    """Some packing of all pieces leaves at most ``leathers`` empty cells in some 7x7 window."""
    def go(reg: int, rest: tuple[int, ...]) -> bool:
        if not rest:
            return any((w & reg).bit_count() <= leathers for w in BONUS_MASKS)
        return any(not m & ~reg and go(reg & ~m, rest[1:]) for m in PATCH_MASKS[rest[0]])
    return go(region, pieces)


def test_packing_answers_are_exact() -> None:
    """The relaxation's packing questions against a plain enumeration (small regions, exact answers)."""
    rnd = random.Random(5)
    small = [pid for pid in range(33) if len(PATCH_MASKS[pid]) and bin(PATCH_MASKS[pid][0]).count("1") <= 4]
    counts = {True: 0, False: 0}
    for _ in range(150):
        w = BONUS_MASKS[rnd.randrange(len(BONUS_MASKS))]
        region = 0
        for cell in rnd.sample([i for i in range(81) if w >> i & 1], rnd.randrange(6, 14)):
            region |= 1 << cell
        region |= rnd.getrandbits(81) & rnd.getrandbits(81) & rnd.getrandbits(81)
        pieces = tuple(sorted(rnd.sample(small, rnd.randrange(1, 4))))
        bits = sum(1 << p for p in pieces)
        packer = eg._Packer(lambda: None)
        fit = packer.fits(region, bits)
        assert fit == _brute_fit(region, pieces)
        counts[fit] += 1
        if fit:
            for leathers in (0, 2):
                assert packer.claims(region, bits, leathers) == _brute_claim(region, pieces, leathers)
    assert min(counts.values()) > 20


@needs_c
def test_c_and_python_agree_on_the_relaxations_and_the_reports(brute_set: list[tuple[GameState, int]]) -> None:
    """Rule B's searches and the anytime reports: the same values and nodes in both backends."""
    for s, _ in brute_set[1::7]:
        for defer in (1, 2):
            a, b = searcher("python"), searcher("c")
            assert (a.ab(s, -INF, INF, 0, defer), a.nodes) == (b.ab(s, -INF, INF, 0, defer), b.nodes)
        rp = [(r.lower, r.upper, r.nodes, r.stage) for r in eg.solve_progress(s, backend="python")]
        rc = [(r.lower, r.upper, r.nodes, r.stage) for r in eg.solve_progress(s, backend="c")]
        assert rp == rc, s.to_notation()


@pytest.mark.parametrize("backend", BACKENDS)
def test_relaxation_off_gives_the_same_answers(brute_set: list[tuple[GameState, int]], backend: str) -> None:
    for s, v in brute_set[3::11]:
        on = solve(s, time_limit=None, backend=backend)
        off = solve(s, time_limit=None, backend=backend, _relax=False)
        assert on.value == off.value == v


@needs_c
def test_the_compiled_solver_has_the_same_constants() -> None:
    """A stale build would count other nodes: its constants are the driver's."""
    assert (eg._C.CHECK_EVERY, eg._C.PACK_STEPS, eg._C.MIN_GROUP, eg._C.PACK_CACHE, eg._C.PACK_CACHE_MIN,
            eg._C.PACK_GROW_NODES) == (eg.CHECK_EVERY, eg.PACK_STEPS, eg.MIN_GROUP, eg.PACK_CACHE, eg.PACK_CACHE_MIN,
                                       eg.PACK_GROW_NODES)


@needs_c
def test_c_and_python_size_the_packing_cache_alike(brute_set: list[tuple[GameState, int]]) -> None:
    """The packing cache's slots follow table_bytes (pack_slots) in both backends: the same nodes with a small
    table (the fewest slots) and a mid-sized one."""
    assert eg.pack_slots(eg.MIN_TABLE_BYTES) == eg.PACK_CACHE_MIN and eg.pack_slots(2**40) == eg.PACK_CACHE
    for table_bytes in (2**20, 32 * 2**20):
        for s, v in brute_set[5::40]:
            rp = solve(s, time_limit=None, table_bytes=table_bytes, backend="python")
            rc = solve(s, time_limit=None, table_bytes=table_bytes, backend="c")
            assert (rp.value, rp.line, rp.nodes) == (rc.value, rc.line, rc.nodes) and rp.value == v


@needs_c
def test_c_and_python_grow_the_packing_cache_alike(brute_set: list[tuple[GameState, int]]) -> None:
    """The packing cache starts small and grows at grow_nodes (PACK_GROW_NODES, here 40 nodes):
    the same values and nodes in both backends, and the same values as without growing."""
    grown = 0
    for s, v in brute_set[7::12]:
        got = []
        py = eg._Search(64 * 2**20, None, None, None, grow_nodes=40)
        for search in (py, eg._CSearch(64 * 2**20, None, None, None, grow_nodes=40)):
            up = search.ab(s, -INF, INF, 0, 1)
            exact = search.ab(s, -INF, INF, 0)
            got.append((up, exact, search.nodes))
        assert got[0] == got[1] and got[0][1] == p0(s, v), s.to_notation()
        grown += py.packer.slots == eg.pack_slots(64 * 2**20) > eg.PACK_CACHE_MIN
        assert search.ab(s, -INF, INF, 0) == eg._CSearch(64 * 2**20, None, None, None).ab(s, -INF, INF, 0)
    assert grown > 5
