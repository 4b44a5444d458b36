"""The compiled core (engine._core) against the Python engine and its pure-Python twin (engine._core_py).

Every C half skips cleanly when the extension is not built (CI builds it:
``test_c_core_is_built`` fails there unless ``QUILTSOLVE_ALLOW_NO_C=1``).
"""

from __future__ import annotations

import json
import os
import random
import threading
from pathlib import Path

import pytest

from quiltsolve.engine import core, new_game, replay_steps
from quiltsolve.engine.actions import ADVANCE, LEATHER_ACTIONS, Advance, Buy, PlaceLeather
from quiltsolve.engine.errors import IllegalActionError
from quiltsolve.engine.players import GreedyPlayer, RandomPlayer
from quiltsolve.engine.policy import leather_cell, tight_placement
from quiltsolve.engine.players.search import SearchPlayer, search_moves
from quiltsolve.engine.state import GameState
from quiltsolve.solver import PATCH_MASKS

C = core.c_module()   # the extension, or None when it is not built

needs_c = pytest.mark.skipif(C is None, reason="the compiled core (engine._core) is not built")

GOLDEN = [json.loads(line) for line in
          (Path(__file__).parents[1] / "data" / "golden-games.jsonl").read_text().splitlines() if line.strip()]


def test_c_core_is_built():
    # Optional so an install never fails, but on our machines (gcc present) a silent build failure would hide
    # a 30x slowdown.
    if os.environ.get("QUILTSOLVE_ALLOW_NO_C") != "1":
        assert core.HAVE_C_CORE, "engine._core did not build; set QUILTSOLVE_ALLOW_NO_C=1 to accept"


def _key(a) -> int:
    """The core's one-int key of an action (``legal_keys_bulk``)."""
    t = type(a)
    if t is Buy:
        return a.mask | a.patch_id << 81
    if t is PlaceLeather:
        return a.mask
    return -1


def _golden_positions() -> list[tuple[GameState, object]]:
    out = []
    for rec in GOLDEN:
        out.extend((before, action) for _, before, action in replay_steps(rec))
    return out


def _game_positions(chunk: int, want: int) -> list[tuple[GameState, object]]:
    """(position, move played) from seeded games: random vs greedy, random vs random, greedy vs greedy."""
    out: list[tuple[GameState, object]] = []
    g = 0
    while len(out) < want:
        seed = chunk * 100_000 + g
        kind = g % 3
        a = RandomPlayer(seed)
        b = GreedyPlayer() if kind == 0 else RandomPlayer(seed + 1)
        players = (GreedyPlayer(), GreedyPlayer()) if kind == 2 and g % 2 else (a, b)
        s = new_game(seed, "original" if g % 4 == 1 else "revised")
        if kind == 2 and g % 2:    # greedy vs greedy is deterministic: start from a few random moves
            r = RandomPlayer(seed)
            for _ in range(g % 7):
                s.apply_action(r.choose(s))
        while not s.is_terminal():
            act = players[s.current_player()].choose(s)
            out.append((s.clone(), act))
            s.apply_action(act)
        g += 1
    return out[:want]


# ------------------------------------------------------------------ state, legal actions, apply
def test_core_tuple_round_trips_in_python_and_c():
    for before, _ in _golden_positions()[::7]:
        t = before.core_tuple()
        assert GameState.from_core_tuple(t) == before
        assert GameState.from_core_tuple(t).core_tuple() == t
        if C is not None:
            assert C.roundtrip(t) == t


@needs_c
def test_golden_records_legal_actions_and_apply_identical():
    pos = _golden_positions()
    keys = C.legal_keys_bulk([s.core_tuple() for s, _ in pos])
    assert len(pos) > 5000
    for (s, action), k in zip(pos, keys):
        assert [_key(a) for a in s.iter_legal_actions()] == k
        err, after = C.apply(s.core_tuple(), core.action_tuple(action))
        want = s.clone()
        want.apply_action(action)
        assert err == 0 and after == want.core_tuple()
    # every legal action of every 25th position
    for s, _ in pos[::25]:
        afters = C.apply_all(s.core_tuple())
        acts = s.legal_actions()
        assert len(afters) == len(acts)
        for a, t in zip(acts, afters):
            x = s.clone()
            x.apply_action(a)
            assert x.core_tuple() == t, a


@needs_c
@pytest.mark.parametrize("chunk", range(4))
def test_100k_game_positions_legal_actions_identical(chunk):
    """4 × 25,000 positions of seeded random and greedy games: legal actions (in order) and the move played."""
    pos = _game_positions(chunk, 25_000)
    tuples = [s.core_tuple() for s, _ in pos]
    keys = C.legal_keys_bulk(tuples)
    for (s, action), t, k in zip(pos, tuples, keys):
        assert [_key(a) for a in s.iter_legal_actions()] == k, s
        assert C.num_legal_actions(t) == s.num_legal_actions()
        err, after = C.apply(t, core.action_tuple(action))
        want = s.clone()
        want.apply_action(action)
        assert err == 0 and after == want.core_tuple()
        assert C.scores(after)[:2] == want.scores()


def test_facade_legal_actions_and_apply_both_paths():
    s = new_game(5)
    r = RandomPlayer(5)
    for _ in range(40):
        if s.is_terminal():
            break
        for pure in (False, True):
            assert core.legal_actions(s, pure=pure) == s.legal_actions()
        a = r.choose(s)
        want = s.clone()
        want.apply_action(a)
        for pure in (False, True):
            assert core.apply(s, a, pure=pure).core_tuple() == want.core_tuple()
        s = want


@needs_c
def test_fuzz_random_positions_and_actions_against_python():
    """Legal and illegal actions on random positions: the core refuses exactly what the engine refuses."""
    rng = random.Random(18)
    pos = _game_positions(9, 3000)
    n_illegal = 0
    for s, played in pos:
        t = s.core_tuple()
        cands = [played]
        for _ in range(6):
            k = rng.randrange(6)
            if k == 0:
                cands.append(ADVANCE)
            elif k == 1:
                cands.append(LEATHER_ACTIONS[rng.randrange(81)])
            elif k == 2:
                pid = rng.randrange(33)
                cands.append(Buy(pid, rng.choice(PATCH_MASKS[pid])))
            elif k == 3:
                front = s.available_patches()
                if front:
                    pid = rng.choice(front)
                    cands.append(Buy(pid, rng.choice(PATCH_MASKS[pid])))
            elif k == 4:
                cands.append(Buy(rng.randrange(33), rng.getrandbits(81)))
            else:
                acts = s.legal_actions()
                if acts:
                    cands.append(rng.choice(acts))
        for a in cands:
            want = s.clone()
            try:
                want.apply_action(a)
                ok = True
            except IllegalActionError:
                ok = False
            err, after = C.apply(t, core.action_tuple(a))
            assert (err == 0) == ok, (a, err)
            if ok:
                assert after == want.core_tuple()
            else:
                n_illegal += 1
                assert after == t        # unchanged
                with pytest.raises(IllegalActionError):
                    core.apply(s, a)
    assert n_illegal > 1000


@needs_c
def test_bad_tuples_are_value_errors():
    t = new_game(1).core_tuple()
    for bad in ((), t[:9], (99,) + t[1:], t[:6] + ((40,),) + t[7:], t[:8] + ((0, 0, -1, 0, 0, 0, 0, ()),) + t[9:]):
        with pytest.raises((ValueError, OverflowError)):
            C.legal_actions(bad)
    with pytest.raises(ValueError):
        C.apply(t, (7, 0, 0))
    with pytest.raises(ValueError):
        C.search(t, [(0, 0, 0)] * 9, 0, 1, -1.0, 0, None, 0.5, 0.25, 0.1, 100)
    with pytest.raises(ValueError):
        C.search(t, [(2, 0, 1)], 0, 1, -1.0, 0, None, 0.5, 0.25, 0.1, 100)   # not legal: no leather pending
    with pytest.raises(ValueError, match="budget"):
        C.search(t, [(0, 0, 0)], 0, -1, -1.0, 0, None, 0.5, 0.25, 0.1, 100)
    for pure in (False, True):
        with pytest.raises(ValueError, match="budget"):
            core.run_search(new_game(1), [ADVANCE], seed=0, pure=pure)
        with pytest.raises(ValueError, match="root action"):
            core.run_search(new_game(1), [LEATHER_ACTIONS[0]], seed=0, iterations=1, pure=pure)


# ------------------------------------------------------------------ policy: placement, leather, playouts
@needs_c
def test_rng_streams_identical():
    for seed in (0, 1, 2**63 + 5, 2**64 - 1):
        assert C.rng_doubles(seed, 50) == core.Rng(seed).doubles(50)


@needs_c
def test_tight_placement_and_leather_cell_identical():
    boards = {s.players[s.current_player()].board for s, _ in _game_positions(5, 4000)}
    for board in sorted(boards):
        for pid in range(0, 33, 4):
            assert C.tight_placement(board, pid) == tight_placement(board, pid), (board, pid)
        if board != (1 << 81) - 1:
            for bonus_open in (True, False):
                assert C.leather_cell(board, bonus_open) == leather_cell(board, bonus_open)


@needs_c
@pytest.mark.parametrize("policy", [core.RANDOM, core.GREEDY])
def test_playouts_identical(policy):
    pos = _game_positions(6, 600)[::6]
    for i, (s, _) in enumerate(pos):
        if s.is_terminal():
            continue
        a = core.playout(s, i, policy)
        b = core.playout(s, i, policy, pure=True)
        assert a.core_tuple() == b.core_tuple()
        assert a.is_terminal()
    s = pos[3][0]
    assert core.playouts(s, 9, 30, policy) == core.playouts(s, 9, 30, policy, pure=True)


# ------------------------------------------------------------------ the search
def _leather_position() -> GameState:
    for seed in range(50):
        s = new_game(seed)
        g = GreedyPlayer()
        while not s.is_terminal():
            if s.leather_to_place:
                return s
            s.apply_action(g.choose(s))
    raise AssertionError("no leather position")


def _search_positions() -> list[GameState]:
    pos = [s for s, _ in _game_positions(7, 2000)[::150] if not s.is_terminal()]
    return pos + [_leather_position(), new_game(3)]


def test_fixed_iteration_search_identical_in_c_and_python_and_repeatable():
    for i, s in enumerate(_search_positions()):
        answers = []
        for pure in (True, False, False):
            if not pure and C is None:
                continue
            p = SearchPlayer(iterations=150, seed=i, pure=pure)
            moves = p.search_moves(s)
            answers.append(([(m.action, m.win_chance, m.reason) for m in moves], p.last_iterations, p.last_nodes))
        assert all(a == answers[0] for a in answers), i
        assert answers[0][1] == 150


def test_node_cap_is_the_same_rule_in_c_and_python():
    s = new_game(11)
    root = [ADVANCE] + [a for a in s.legal_actions() if isinstance(a, Buy)][:2]
    res = [core.run_search(s, root, seed=4, iterations=300, node_cap=40, pure=pure)
           for pure in ((True, False) if C is not None else (True,))]
    assert all(r.nodes == 40 for r in res)
    assert all(r == res[0] or (r.children, r.iterations) == (res[0].children, res[0].iterations) for r in res)
    assert sum(ch.n for ch in res[0].children) == 300


@needs_c
def test_run_search_stats_identical_across_seeds():
    s = _search_positions()[1]
    root = [a for a in s.legal_actions()][:1] + [a for a in s.legal_actions() if isinstance(a, Buy)][-3:]
    for seed in (0, 1, 2**40 + 3):
        a = core.run_search(s, root, seed=seed, iterations=120, exploration=0.7, margin_weight=0.4, epsilon=0.2)
        b = core.run_search(s, root, seed=seed, iterations=120, exploration=0.7, margin_weight=0.4, epsilon=0.2,
                            pure=True)
        assert (a.iterations, a.nodes, a.children) == (b.iterations, b.nodes, b.children)
        assert [c.action for c in a.children] == root


def test_pure_python_env_var_forces_the_python_path(monkeypatch):
    monkeypatch.setenv(core.PURE_PYTHON_ENV, "1")
    assert core.backend() == "python" and not core.use_c()
    s = new_game(2)
    assert core.run_search(s, [ADVANCE], seed=1, iterations=3).backend == "python"
    monkeypatch.delenv(core.PURE_PYTHON_ENV)
    assert core.backend() == ("c" if C is not None else "python")
    assert core.backend(pure=True) == "python"


def test_search_moves_report_real_iterations():
    s = _search_positions()[0]
    p = SearchPlayer(iterations=77, seed=2)
    p.search_moves(s)
    assert p.last_iterations == 77
    assert search_moves(s, iterations=77, seed=2) == p.search_moves(s)


@needs_c
def test_two_threads_search_concurrently():
    """The core releases the GIL while it searches: two searches in two threads both make progress while the
    other is still running (each one's stop token waits until it has seen the other progress)."""
    s = _search_positions()[1]
    root = [ADVANCE] + [a for a in s.legal_actions() if isinstance(a, Buy)][:2]
    calls = [0, 0]
    lock = threading.Lock()

    class Stop:
        def __init__(self, me: int) -> None:
            self.me = me

        def is_set(self) -> bool:
            with lock:
                calls[self.me] += 1
                return calls[1 - self.me] >= 3 and calls[self.me] >= 3

    results: list[object] = [None, None]

    def run(i: int) -> None:
        results[i] = core.run_search(s, root, seed=i, iterations=50_000_000, time_limit=60.0, stop=Stop(i))

    ts = [threading.Thread(target=run, args=(i,)) for i in (0, 1)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    assert all(isinstance(r, core.CoreSearch) for r in results)
    assert all(0 < r.iterations < 50_000_000 for r in results)   # type: ignore[attr-defined]
    assert min(calls) >= 3
