"""engine.solve: a position solved exactly with progress, the proven interval narrowing to the value.

Checked against an independent brute-force minimax (written from the rules' public API only) and against
``engine.endgame.solve``; both backends give the same answers, node for node; every update's interval holds
the value, and narrows; a time limit, a stop or closing the iterator ends the solve at once with the interval
proven so far.
"""

from __future__ import annotations

import random
import threading
import time

import pytest

from quiltsolve.engine import GameState, make_player, new_game
from quiltsolve.engine.endgame import MIN_TABLE_BYTES, EndgameArgumentError, c_available, solve
from quiltsolve.engine.solve import solve_exact, solve_position, solve_split, static_bounds
from quiltsolve.solver import StopToken

BACKENDS = ["python"] + (["c"] if c_available() else [])

# Positions of seeded search:200it self-play games (bench endgame's), with their values for the player to move.
EIGHT = ("r 47,37,tirvpmf2w3g,777577557557777077077005005 46,12,l97aq0u6k8n,777777777743741740770774770 "
         "j4he1odbsc5 1 -", 3)          # seed 3001, 8 plies before the end
TEN = ("r 45,22,tirvpmf2w3g,777577557557777077077005005 44,10,l97aq0u6k8n,777777777743741740770774770 "
       "j4he1odbsc5 1 -", 4)            # seed 3001, 10 plies before the end
TWELVE = ("r 38,10,c2vndg3qr8a,577770776776757703703705607 37,10,bt5huf49,000000030430576574774777777 "
          "ke1m7lowpsj0i6 0L1 -", 12)   # seed 1, 12 plies before the end: solved in a few seconds
HARD = ("r 26,0,tnmhc3d,775777677577423401400 25,2,au1gqriv,000000000000611775767577777 "
        "l0kb68f9opes7j42w5 1 -")   # 20 plies into seed 7's game: far from solved in a minute


def brute(s: GameState, budget: list[int]) -> int:
    """Player 0's final margin under perfect play: plain minimax over every legal action."""
    budget[0] -= 1
    if budget[0] < 0:
        raise OverflowError
    if s.is_terminal():
        a, b = s.scores()
        return a - b
    vals = []
    for act in s.legal_actions():
        c = s.clone()
        c.apply_action(act)
        vals.append(brute(c, budget))
    return max(vals) if s.current_player() == 0 else min(vals)


@pytest.fixture(scope="module")
def brute_set() -> list[tuple[GameState, int]]:
    """About 150 (position, player 0's value) pairs near the end of seeded games, greedy and random moves."""
    out: list[tuple[GameState, int]] = []
    seed = 0
    while len(out) < 150:
        s = new_game(5000 + seed, "revised" if seed % 2 else "original")
        greedy, rnd = make_player("greedy", 0), make_player("random", seed)
        rng = random.Random(seed)
        hist = []
        while not s.is_terminal():
            hist.append(s.clone())
            s.apply_action((greedy if rng.random() < 0.65 else rnd).choose(s))
        hist.append(s)
        seed += 1
        for left in range(1, 9):
            if left < len(hist):
                try:
                    out.append((hist[-left], brute(hist[-left], [1500])))
                except OverflowError:
                    pass
    return out


def own(state: GameState, v0: int) -> int:
    """Player 0's margin as the player to move's."""
    return v0 if state.current_player() == 0 else -v0


def replays_to(state: GameState, line, value: int) -> bool:
    """Whether ``line`` is legal from ``state`` and ends the game with ``value`` for the player to move."""
    s = state.clone()
    for a in line:
        if s.is_terminal() or not s.is_legal(a):
            return False
        s.apply_action(a)
    a, b = s.scores()
    return s.is_terminal() and own(state, a - b) == value


def test_static_bounds_hold_the_value(brute_set):
    assert len({v for _, v in brute_set}) > 15
    for s, v in brute_set:
        lo, hi = static_bounds(s)
        assert lo <= v <= hi, s.to_notation()
    over = new_game(2)
    while not over.is_terminal():
        over.apply_action(over.legal_actions()[0])
    a, b = over.scores()
    assert static_bounds(over) == (a - b, a - b)


@pytest.mark.parametrize("how", [solve_exact, solve_split], ids=["progress", "split"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_value_is_the_brute_force_one(brute_set, backend, how):
    for s, v in brute_set:
        last = how(s, time_limit=None, backend=backend)
        assert (last.final, last.exact, last.value) == (True, True, own(s, v)), s.to_notation()
        assert last.reason == ("terminal" if s.is_terminal() else "solved")
        assert replays_to(s, last.line, last.value)


@pytest.mark.skipif(not c_available(), reason="the compiled endgame solver is not built")
@pytest.mark.parametrize("how", [solve_exact, solve_split], ids=["progress", "split"])
def test_both_backends_search_the_same_nodes(how):
    s = GameState.from_notation(EIGHT[0])
    c, py = (how(s, time_limit=None, backend=b) for b in ("c", "python"))
    assert (c.value, c.nodes, c.probes, c.line) == (py.value, py.nodes, py.probes, py.line)
    assert c.value == EIGHT[1] == solve(s, time_limit=None).value


@pytest.mark.parametrize("notation, value", [EIGHT, TEN, TWELVE], ids=["8 plies", "10 plies", "12 plies"])
def test_the_split_driver_narrows_to_the_same_value(notation, value):
    """What the Ray path runs, with one worker: every update's interval holds the value, narrowing."""
    s = GameState.from_notation(notation)
    seen = []
    from quiltsolve.engine import solve as module

    control = module.Control(None, None)
    worker = module.LocalWorker("c" if c_available() else "python", 2**24, control)
    driver = module.Driver(s, worker, worker.children, 2**24, control)
    seen = list(module.run_driver(driver, 0.01))
    assert seen[-1].exact and seen[-1].value == value and seen[-1].reason == "solved"
    for a, b in zip(seen, seen[1:]):
        assert a.lower <= b.lower and b.upper <= a.upper
    assert all(u.lower <= value <= u.upper for u in seen) and replays_to(s, seen[-1].line, value)


def test_twelve_plies_from_the_end_the_interval_narrows_to_the_value():
    """The issue's "done when", on a position 12 plies from the end that the solver proves in a second."""
    s = GameState.from_notation(TWELVE[0])
    updates = list(solve_position(s, time_limit=120, report_interval=0.02))
    assert [u.final for u in updates] == [False] * (len(updates) - 1) + [True]
    assert len({(u.lower, u.upper) for u in updates}) >= 4        # it narrows step by step
    last = updates[-1]
    assert (last.exact, last.value, last.reason) == (True, TWELVE[1], "solved")
    for a, b in zip(updates, updates[1:]):
        assert a.lower <= b.lower and b.upper <= a.upper and a.nodes <= b.nodes
    assert all(u.lower <= last.value <= u.upper for u in updates)
    assert updates[0].upper - updates[0].lower > 50     # before any search: the bounds without search
    assert any(u.lower < u.upper and u.line for u in updates)
    assert replays_to(s, last.line, last.value)
    assert last.table_bytes == 256 * 2**20 and last.probes >= 2


def test_a_time_limit_ends_with_the_interval_proven_so_far():
    s = GameState.from_notation(TEN[0])
    t0 = time.monotonic()
    last = solve_exact(s, time_limit=0.05)
    assert time.monotonic() - t0 < 2.0
    assert last.final and last.reason in ("time", "solved")
    assert last.lower <= TEN[1] <= last.upper
    if last.exact:          # closed before the limit (the limit may still have cut the line short)
        assert last.value == TEN[1]
    else:
        assert last.reason == "time" and last.value is None and last.lower < last.upper


def test_a_stop_and_a_close_end_the_solve_at_once():
    s = GameState.from_notation(HARD)
    stop = StopToken()
    updates = solve_position(s, time_limit=60, stop=stop, report_interval=0.05)
    first = next(updates)
    assert not first.final and first.lower < first.upper
    next(updates)
    t0 = time.monotonic()
    stop.set()
    rest = list(updates)
    assert time.monotonic() - t0 < 1.0
    assert rest[-1].final and rest[-1].reason == "stopped" and not rest[-1].exact
    # closing the iterator early stops the solver's thread too
    updates = solve_position(s, time_limit=60, report_interval=0.05)
    next(updates)
    next(updates)
    t0 = time.monotonic()
    updates.close()
    assert time.monotonic() - t0 < 1.0
    assert not [t for t in threading.enumerate() if t.name == "quiltsolve-solve"]


def test_a_tiny_table_gives_the_same_value():
    s = GameState.from_notation(EIGHT[0])
    last = solve_exact(s, time_limit=None, table_bytes=MIN_TABLE_BYTES)
    assert last.value == EIGHT[1] and last.table_full and last.table_bytes == MIN_TABLE_BYTES


def test_a_finished_game_is_its_margin():
    s = new_game(7)
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    (only,) = list(solve_position(s))
    a, b = s.scores()
    assert only.final and only.exact and only.reason == "terminal" and only.value == own(s, a - b)


@pytest.mark.parametrize("kw, field", [
    ({"time_limit": 0}, "time_limit"), ({"report_interval": -1.0}, "report_interval"),
    ({"table_bytes": 10}, "table_bytes"), ({"backend": "fortran"}, "backend"), ({"stop": object()}, "stop"),
])
def test_bad_arguments_name_themselves(kw, field):
    with pytest.raises(EndgameArgumentError, match=f"^{field}:"):
        next(solve_position(GameState.from_notation(EIGHT[0]), **kw))
    with pytest.raises(EndgameArgumentError, match="^state:"):
        next(solve_position("r 0,5,-,0"))    # type: ignore[arg-type]
