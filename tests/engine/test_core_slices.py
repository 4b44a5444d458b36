"""The search run in slices (engine.core.CoreSearcher): the same tree as one call, in C and in Python,
with the same principal variations.

Every C half skips cleanly when the extension is not built.
"""

from __future__ import annotations

import threading

import pytest

from quiltsolve.engine import core, new_game
from quiltsolve.engine.actions import ADVANCE, Buy
from quiltsolve.engine.players import GreedyPlayer

C = core.c_module()
BACKENDS = (True, False) if C is not None else (True,)   # pure


def _position(seed: int, plies: int):
    s = new_game(seed)
    greedy = GreedyPlayer()
    for _ in range(plies):
        s.apply_action(greedy.choose(s))
    return s


def _root(s):
    return [ADVANCE] + [a for a in s.legal_actions() if isinstance(a, Buy)][:3]


def _stats(report):
    return report.iterations, report.nodes, [(c.action, c.n, c.w, c.wins, c.margin) for c in report.children]


@pytest.mark.parametrize("pure", BACKENDS)
def test_slices_give_the_tree_of_one_call(pure):
    s = _position(5, 9)
    root = _root(s)
    one = core.run_search(s, root, seed=7, iterations=250, pure=pure)
    sliced = core.CoreSearcher(s, root, seed=7, pure=pure)
    ends = [sliced.run(iterations=n) for n in (1, 30, 30, 111, 250, 250)]
    assert ends == [1, 30, 30, 111, 250, 250]
    assert _stats(sliced.report()) == _stats(one)
    assert sum(c.n for c in one.children) == 250


def test_c_and_python_slices_agree_with_their_principal_variations():
    if C is None:
        pytest.skip("the compiled core (engine._core) is not built")
    for seed, plies in ((2, 0), (8, 14), (3, 31)):
        s = _position(seed, plies)
        if s.is_terminal():
            continue
        root = _root(s)
        searchers = [core.CoreSearcher(s, root, seed=seed, node_cap=500, pure=pure) for pure in (False, True)]
        for n in (5, 60, 200):
            reports = []
            for searcher in searchers:
                searcher.run(iterations=n)
                reports.append(searcher.report(pv_depth=6))
            c, py = reports
            assert (c.backend, py.backend) == ("c", "python")
            assert _stats(c) == _stats(py)
            assert [ch.pv for ch in c.children] == [ch.pv for ch in py.children]
        # the principal variations are real lines: the most visited reply, at most 6 deep
        assert all(len(ch.pv) <= 6 for ch in c.children)
        assert any(ch.pv for ch in c.children)


@pytest.mark.parametrize("pure", BACKENDS)
def test_a_principal_variation_follows_the_most_visited_replies(pure):
    s = _position(4, 6)
    searcher = core.CoreSearcher(s, _root(s), seed=1, pure=pure)
    searcher.run(iterations=400)
    report = searcher.report(pv_depth=3)
    best = max(report.children, key=lambda ch: ch.n)
    assert len(best.pv) == 3
    # The first move of the line after the best child is a legal move in the position after that child.
    after = s.clone()
    after.apply_action(best.action)
    from quiltsolve.engine.policy import place_pending_leather

    place_pending_leather(after)
    assert after.is_legal(best.pv[0])
    assert report.children[0].pv == () or report.children[0].n > 1
    assert core.CoreSearcher(s, _root(s), seed=1, pure=pure).report(pv_depth=3).children == []


@pytest.mark.parametrize("pure", BACKENDS)
def test_a_set_stop_token_runs_no_iteration_and_a_time_slice_honours_at_least(pure):
    s = _position(6, 3)
    searcher = core.CoreSearcher(s, _root(s), seed=0, pure=pure)
    stop = threading.Event()
    stop.set()
    assert searcher.run(iterations=100, stop=stop) == 0
    assert searcher.run(time_limit=0.0, at_least=4) == 4
    with pytest.raises(ValueError, match="budget"):
        searcher.run()
    with pytest.raises(ValueError, match="pv_depth"):
        searcher.report(pv_depth=-1)


def test_bad_roots_are_refused_as_by_run_search():
    s = new_game(1)
    for pure in BACKENDS:
        with pytest.raises(ValueError, match="not legal"):
            core.CoreSearcher(s, [Buy(0, 0)], seed=0, pure=pure)
    over = _position(1, 0)
    while not over.is_terminal():
        over.apply_action(GreedyPlayer().choose(over))
    with pytest.raises(ValueError, match="over"):
        core.CoreSearcher(over, [ADVANCE], seed=0)


def test_one_c_search_refuses_a_second_thread_while_it_runs():
    if C is None:
        pytest.skip("the compiled core (engine._core) is not built")
    s = _position(9, 5)
    searcher = core.CoreSearcher(s, _root(s), seed=0)
    inside = threading.Event()
    release = threading.Event()

    class Stop:
        def is_set(self) -> bool:
            inside.set()
            return release.wait(0) and True

    t = threading.Thread(target=lambda: searcher.run(time_limit=30.0, stop=Stop()))
    t.start()
    assert inside.wait(10)
    try:
        with pytest.raises(RuntimeError, match="another thread"):
            searcher.report()
    finally:
        release.set()
        t.join(10)
    assert searcher.report().iterations == searcher.iterations > 0
