"""engine.analysis: the search reporting as it runs, ending where SuggestMove's answer (rank_moves) ends.

Every update is checked without the search: its moves are legal in the position, each principal
variation replays as moves of the game, visits add up to no more than the iterations, and a proven
answer's chances agree with the signs of its margins.
"""

from __future__ import annotations

import threading
import time

import pytest

from quiltsolve.engine import analysis, core, moves, new_game
from quiltsolve.engine.analysis import Analysis, analyze, principal_line
from quiltsolve.engine.players import GreedyPlayer
from quiltsolve.engine.players import proven as proven_mod
from quiltsolve.solver import StopToken


def greedy_states(seed: int) -> list:
    state, greedy, out = new_game(seed), GreedyPlayer(), []
    while not state.is_terminal():
        out.append(state.clone())
        state.apply_action(greedy.choose(state))
    return out


def position(seed: int, plies: int):
    return greedy_states(seed)[plies]


def check_update(state, update: Analysis, top: int | None = None) -> None:
    """What any update must hold, checked by replaying moves with the rules only."""
    assert update.player == state.current_player()
    assert update.elapsed >= 0
    if top:
        assert len(update.moves) <= top
    assert sum(m.visits for m in update.moves) <= max(update.iterations, 0)
    for m in update.moves:
        assert state.is_legal(m.action), m
        assert 0.0 <= m.win_chance <= 1.0
        assert m.line and m.line[0] == m.action
        s = state.clone()
        for a in m.line:
            assert not s.is_terminal() and s.is_legal(a), (m.line, a)
            s.apply_action(a)
        assert (m.mean_margin is None) == (m.visits == 0)
    if update.proven:
        for m in update.moves:
            assert m.proven_margin is not None and m.visits == 0
            if m.proven_margin:
                assert m.win_chance == (1.0 if m.proven_margin > 0 else 0.0)
        assert update.value == update.moves[0].proven_margin
        assert [m.proven_margin for m in update.moves] == sorted((m.proven_margin for m in update.moves),
                                                                 reverse=True)


@pytest.mark.parametrize("seed, plies", [(4, 0), (9, 12), (2, 27)])
def test_the_final_update_of_an_iteration_budget_is_rank_moves_answer(seed, plies):
    state = position(seed, plies)
    updates = list(analyze(state, iterations=300, seed=seed, top=3, report_interval=0.01))
    assert [u.final for u in updates] == [False] * (len(updates) - 1) + [True]
    for u in updates:
        check_update(state, u, top=3)
    its = [u.iterations for u in updates]
    assert its == sorted(its) and its[-1] == 300
    want = moves.rank_moves(state, iterations=300, seed=seed, top=3)
    final = updates[-1]
    assert final.suggestions() == want.moves
    assert (final.iterations, final.searched, final.proven) == (want.iterations, want.searched, want.proven)


def test_the_same_in_the_pure_python_core(monkeypatch):
    state = position(7, 5)
    c_final = list(analyze(state, iterations=60, seed=1, report_interval=None, prove=False))[-1]
    monkeypatch.setenv(core.PURE_PYTHON_ENV, "1")
    py_updates = list(analyze(state, iterations=60, seed=1, report_interval=0.001, prove=False))
    assert py_updates[-1].suggestions() == c_final.suggestions()
    assert [m.line for m in py_updates[-1].moves] == [m.line for m in c_final.moves]
    assert [(m.visits, m.mean_margin) for m in py_updates[-1].moves] == [(m.visits, m.mean_margin)
                                                                          for m in c_final.moves]


def test_a_position_the_solver_proves_is_one_final_proven_update():
    state = greedy_states(1)[-3]
    updates = list(analyze(state, iterations=200, report_interval=0.05))
    assert len(updates) == 1 or all(not u.moves for u in updates[:-1])
    final = updates[-1]
    assert final.final and final.proven and final.iterations == 0 and final.proof_nodes > 0
    check_update(state, final)
    want = moves.rank_moves(state, iterations=200)
    assert final.suggestions() == want.moves and want.proven


def test_until_stopped_reports_every_interval_and_ends_on_the_stop():
    state = position(5, 3)
    stop = StopToken()
    seen = []
    for u in analyze(state, until_stopped=True, report_interval=0.05, stop=stop, prove=False, top=2):
        seen.append(u)
        check_update(state, u, top=2)
        if sum(x.searched for x in seen) == 3:    # the first ones may wait for the root's lookahead
            stop.set()
    assert seen[-1].final and not any(u.final for u in seen[:-1])
    searched = [u for u in seen if u.searched]
    assert len(searched) == 4 and seen.index(searched[0]) == len(seen) - 4
    assert 0 < searched[0].iterations <= searched[1].iterations <= searched[2].iterations


def test_closing_the_iterator_ends_the_search_and_its_helper_threads():
    state = position(3, 8)
    it = analyze(state, until_stopped=True, report_interval=0.02)
    first = next(it)
    assert not first.final
    it.close()
    time.sleep(0.05)
    assert not [t for t in threading.enumerate() if t.name == "quiltsolve-analysis"]


def test_a_thinking_time_ends_on_time_with_a_final_update():
    state = position(6, 10)
    t0 = time.perf_counter()
    updates = list(analyze(state, time_limit=0.4, report_interval=0.05, prove=False))
    took = time.perf_counter() - t0
    assert updates[-1].final and updates[-1].searched and updates[-1].iterations > 0
    assert took < 5.0       # a generous bound: the budget is 0.4 s
    for u in updates:
        check_update(state, u)


def test_an_open_analysis_proves_the_position_when_a_later_attempt_finishes(monkeypatch):
    """The first attempt fails (here: made to), the search runs, a longer attempt proves it: the last update
    is proven, after some search."""
    state = greedy_states(1)[-3]
    calls = []
    real = proven_mod.proven_moves

    def flaky(*args, **kw):
        calls.append(kw.get("time_limit"))
        return None if len(calls) == 1 else real(*args, **{**kw, "time_limit": None})

    monkeypatch.setattr(proven_mod, "proven_moves", flaky)
    updates = list(analyze(state, until_stopped=True, time_limit=30.0, report_interval=0.02))
    final = updates[-1]
    assert final.final and final.proven and len(calls) == 2
    assert calls[1] == pytest.approx(analysis.RETRY_FACTOR * calls[0])
    assert any(u.searched and not u.proven for u in updates)
    check_update(state, final)


def test_principal_line_places_the_leather_the_search_placed():
    # a position where an advance crosses a leather space: the line lists the leather placement after it
    for s in greedy_states(3):
        after = s.clone()
        from quiltsolve.engine.actions import ADVANCE

        if not s.is_legal(ADVANCE):
            continue
        after.apply_action(ADVANCE)
        if after.leather_to_place and not after.is_terminal():
            line = principal_line(s, ADVANCE, [])
            assert line[0] == ADVANCE and len(line) == 1 + after.leather_to_place
            assert all(type(a).__name__ == "PlaceLeather" for a in line[1:])
            return
    pytest.skip("no advance onto a leather space in this game")


def test_bad_arguments():
    state = new_game(1)
    with pytest.raises(ValueError, match="iteration"):
        next(analyze(state, until_stopped=True, iterations=5))
    with pytest.raises(ValueError, match="report_interval"):
        next(analyze(state, iterations=5, report_interval=0))
