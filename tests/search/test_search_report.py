"""engine.players.search.search: the report (moves, iterations, searched, wall time),
warm_up, and the time limit / stop token honoured by the whole search."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import pytest

from quiltsolve.engine import new_game
from quiltsolve.engine.players import GreedyPlayer, RandomPlayer
from quiltsolve.engine.players.search import SearchResult, search, search_moves, warm_up
from quiltsolve.solver import StopToken

from ..timing import LATE
from .test_search import midgame_state


def test_fresh_process_warm_up_then_search_searches():
    # In a cold process the imports (solver lookahead, OR-Tools) used to eat
    # the budget: "not searched (stopped): greedy choice".
    code = """
import json, sys
from quiltsolve.engine import new_game
from quiltsolve.engine.players import RandomPlayer
from quiltsolve.engine.players.search import search, warm_up
s = new_game(7); r = RandomPlayer(7)
for _ in range(20):
    s.apply_action(r.choose(s))
warm_up()
res = search(s, time_limit=0.3)
print(json.dumps({"searched": res.searched, "iterations": res.iterations, "wall": res.wall_time,
                  "n": len(res.moves), "reason": res.moves[0].reason,
                  "legal": all(s.is_legal(m.action) for m in res.moves)}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout.strip().splitlines()[-1])
    assert rep["searched"] is True and rep["iterations"] > 0, rep
    assert "not searched" not in rep["reason"]
    assert rep["legal"] and rep["n"] >= 1
    assert 0.2 < rep["wall"] < 0.8, rep


def test_search_report_matches_search_moves():
    s = midgame_state(5, 4)
    r = search(s, iterations=60, seed=3)
    assert isinstance(r, SearchResult)
    assert r.searched and r.iterations == 60 and r.wall_time > 0
    assert r.moves == search_moves(s, iterations=60, seed=3)
    assert all(s.is_legal(m.action) for m in r.moves)
    assert len(search(s, iterations=20, top=2).moves) <= 2


def test_stopped_before_any_iteration_says_so():
    s = midgame_state(2, 3)
    stop = StopToken()
    stop.set()
    r = search(s, iterations=10_000_000, stop=stop)
    assert (r.searched, r.iterations) == (False, 0)
    assert len(r.moves) == 1 and s.is_legal(r.moves[0].action)
    assert "not searched" in r.moves[0].reason
    assert search_moves(s, iterations=10_000_000, stop=stop) == r.moves


def test_finished_game_has_no_moves():
    s = new_game(1)
    g = GreedyPlayer()
    while not s.is_terminal():
        s.apply_action(g.choose(s))
    r = search(s, iterations=5)
    assert r.moves == [] and r.iterations == 0 and not r.searched


@pytest.mark.parametrize("seed", [3, 11])
def test_time_limit_honoured_with_the_lookahead(seed):
    warm_up(freeze_gc=False)
    s = midgame_state(seed, 15)
    r = search(s, time_limit=0.2)
    assert r.searched and r.iterations > 0
    assert 0.15 < r.wall_time < 0.2 + LATE, r.wall_time
    assert all(s.is_legal(m.action) for m in r.moves)


def test_stop_token_from_another_thread_ends_a_long_search():
    warm_up(freeze_gc=False)
    s = midgame_state(7, 12)
    token, when = StopToken(), []

    def fire():
        time.sleep(0.1)
        when.append(time.perf_counter())
        token.set()

    threading.Thread(target=fire, daemon=True).start()
    r = search(s, time_limit=30.0, stop=token)       # the advisor calls get 2.5 s each
    done = time.perf_counter()
    assert when and done - when[0] < LATE, done - when[0]
    assert r.wall_time < 0.1 + LATE
    assert r.moves and all(s.is_legal(m.action) for m in r.moves)


def test_warm_up_is_idempotent_and_quick_the_second_time():
    warm_up(freeze_gc=False)
    t0 = time.perf_counter()
    warm_up(freeze_gc=False)
    assert time.perf_counter() - t0 < 0.05


def test_a_cold_process_never_waits_for_the_lookahead_inside_a_move():
    """The first moves of a fresh process do not import OR-Tools on their clock (it took 0.4-2 s): a budget
    too short for the lookahead never starts its import; a longer one starts it in a background thread and
    plays the snug placement meanwhile."""
    code = """
import json, sys
from quiltsolve.engine import new_game
from quiltsolve.engine.players import make_player
from quiltsolve.engine.players import root_placement
s = new_game(5)
tiny = make_player("search:0.01", 1)
a = tiny.choose(s)
after_tiny = ("ortools" in sys.modules, bool(root_placement._importer), s.is_legal(a))
b = make_player("search:0.2", 1).choose(s)
started = bool(root_placement._importer)
root_placement._importer[0].join(120)
print(json.dumps({"tiny": after_tiny, "legal": s.is_legal(b), "started": started,
                  "ready": root_placement.lookahead_ready(start=False)}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout.strip().splitlines()[-1])
    assert rep["tiny"] == [False, False, True], rep
    assert rep["legal"] and rep["started"] and rep["ready"], rep
