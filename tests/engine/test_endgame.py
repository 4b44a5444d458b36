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
