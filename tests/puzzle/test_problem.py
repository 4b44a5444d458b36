"""The public puzzle object: PuzzleProblem.prepare / extensions / restrict /
tally / count / find / result. Known counts, the sub-problems of a prefix
level adding up to the full count, every tiling checked by the solver-free
validator, both search engines."""

from __future__ import annotations

import pytest

from quiltsolve import solver
from quiltsolve.solver.puzzle import CountTally, PrepareInterrupted, PuzzleProblem, solve_puzzle
from quiltsolve.solver.stop import StopToken
from quiltsolve.solver.types import SolverInputError, SolveStatus
from quiltsolve.solver.validate import validate_tiling

from .helpers import ENGINES
from .test_limits import BIG, large_pieces

PENTOMINOES = ["#####", "##/##/#.", "###/#../#..", "###/.#./.#.", "#../##./.##", "#.../####",
               ".#./###/.#.", ".##/##./.#.", "##../.###", "#.#/###", "..#/###/#..", ".#../####"]
HOLE8 = ["." * 8] * 3 + ["...##..."] * 2 + ["." * 8] * 3
ONE_SIDED_4 = ["####", "###/#..", "###/..#", "##/##", "###/.#.", "##./.##", ".##/##."] * 4

# (rows, pieces, mirror, use_all, raw, distinct): the counts tests/puzzle/test_puzzle.py knows
KNOWN = [
    (["." * 20] * 3, PENTOMINOES, True, True, 8, 2),
    (["." * 15] * 4, PENTOMINOES, True, True, 1472, 368),
    (["." * 10] * 6, PENTOMINOES, True, True, 9356, 2339),
    (HOLE8, PENTOMINOES, True, True, 520, 65),
    (["...."] * 4, ONE_SIDED_4, False, False, 117, 37),
    (["." * 7] * 2, ["##"] * 7, True, True, 21, None),
    (["...."] * 4, ["##"] * 8, True, True, 36, None),
]
SLOW = {(6, 10), (8, 8)}     # counted in C only (the pure-Python count takes seconds)


def check(problem: PuzzleProblem, tiling) -> None:
    rows = problem.rows
    mask = sum(1 << (r * problem.width + c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == ".")
    validate_tiling(mask, problem.width, problem.height, list(problem.shapes), list(tiling),
                    use_all=problem.use_all, mirror=problem.mirror)


def engines_for(rows):
    return [e for e in ENGINES if e == "c" or (len(rows), len(rows[0])) not in SLOW]


@pytest.mark.parametrize("rows, pieces, mirror, use_all, raw, distinct", KNOWN)
def test_count_and_find_give_the_known_counts(rows, pieces, mirror, use_all, raw, distinct):
    p = PuzzleProblem.prepare(rows, pieces, mirror=mirror, use_all=use_all)
    assert (p.width, p.height, p.mirror, p.use_all, p.restricted) == (len(rows[0]), len(rows), mirror, use_all, False)
    assert p.area_ok and p.nplacements > 0 and p.order == len(p.symmetries)
    for engine in engines_for(rows):
        r = p.count(max_tilings=3, time_limit=60, engine=engine)
        assert (r.status, r.count) == (SolveStatus.OPTIMAL, raw)
        if distinct is not None:
            assert r.distinct == distinct
        assert len(r.tilings) == 3 and len(set(r.tilings)) == 3
        for t in r.tilings:
            check(p, t)
        f = p.find(max_tilings=2, engine=engine)
        assert f.status is SolveStatus.OPTIMAL and len(f.tilings) == 2 and f.count is None
        for t in f.tilings:
            check(p, t)
    # solve_puzzle is a thin function over the object: the same answers
    s = solve_puzzle(rows, pieces, count=True, mirror=mirror, use_all=use_all, max_tilings=3, time_limit=60)
    r = p.count(max_tilings=3, time_limit=60)
    assert (s.status, s.count, s.distinct, s.tilings) == (r.status, r.count, r.distinct, r.tilings)
    assert solve_puzzle(rows, pieces, mirror=mirror, use_all=use_all).tilings == p.find().tilings


@pytest.mark.parametrize("rows, pieces, mirror, use_all, raw, distinct", KNOWN)
@pytest.mark.parametrize("depth", [1, 2])
def test_restricted_prefixes_add_up_to_the_full_count(rows, pieces, mirror, use_all, raw, distinct, depth):
    p = PuzzleProblem.prepare(rows, pieces, mirror=mirror, use_all=use_all)
    level = [()]
    for _ in range(depth):
        level = [c for pre in level for c in (p.extensions(pre) or [pre])]
    assert len(level) > 1
    engine = "c" if "c" in ENGINES else "python"
    full = p.tally(max_tilings=5, time_limit=60, engine=engine)
    tallies = []
    for k, pre in enumerate(level):
        sub = p.restrict(pre)
        assert sub.restricted and sub.prefix == tuple(sorted(pre)) and sub.order == p.order
        t = sub.tally(max_tilings=5, time_limit=60, engine=engine)
        assert t.finished
        if k < 5:
            r = sub.count(max_tilings=5, time_limit=60, engine=engine)
            assert (r.count, r.distinct) == (t.raw, None)       # distinct: whole problems only
            for tiling in r.tilings:
                check(p, tiling)
        tallies.append(t)
    assert sum(t.raw for t in tallies) == full.raw == raw
    assert sum(t.burnside for t in tallies) == full.burnside
    if distinct is not None:
        assert full.burnside // p.order == distinct
    merged = CountTally.merge(tallies, max_tilings=5)
    assert merged.tilings == full.tilings           # prefix order is the search's order
    a, b = p.result(merged, max_tilings=5), p.count(max_tilings=5, time_limit=60, engine=engine)
    assert (a.status, a.count, a.distinct, a.tilings) == (b.status, b.count, b.distinct, b.tilings)


@pytest.mark.skipif(len(ENGINES) < 2, reason="C search not built")
def test_restricted_problems_same_in_c_and_python():
    p = PuzzleProblem.prepare(HOLE8, PENTOMINOES)
    for pre in p.extensions()[:4]:
        sub = p.restrict(pre)
        a = sub.tally(max_tilings=10, time_limit=60, engine="c")
        b = sub.tally(max_tilings=10, time_limit=60, engine="python")
        assert a == b
        a, b = sub.find(engine="c"), sub.find(engine="python")
        assert a.tilings == b.tilings and a.status is b.status


def test_restrict_of_a_restricted_problem():
    p = PuzzleProblem.prepare(["." * 15] * 4, PENTOMINOES)
    first = p.extensions()[0]
    sub = p.restrict(first)
    # the sub-problem's own numbering: at the first cell only the prefix's placement is left
    assert sub.extensions() == [(0,)]
    level2 = p.extensions(first)
    direct = sum(p.restrict(pre).tally().raw for pre in level2)
    own = sub.extensions(sub.extensions()[0])
    nested = sum(sub.restrict(pre).tally().raw for pre in own)
    assert direct == nested == sub.tally().raw
    assert {sub.restrict(pre).prefix for pre in own} == {tuple(sorted(pre)) for pre in level2}


def test_extensions_ends_and_dead_ends():
    p = PuzzleProblem.prepare(["...", "..."], ["##"] * 3)
    assert p.extensions() == [(0,), (1,)]
    tiling = p.tally(max_tilings=1).tilings[0]
    assert p.extensions(tiling) is None
    # use_all: an unused piece whose last anchor has passed is a dead end
    q = PuzzleProblem.prepare(["...."], ["##", "#", "#"])
    assert all(q.extensions(pre) is not None for pre in q.extensions())


def test_infeasible_by_area():
    p = PuzzleProblem.prepare(["...", "..."], ["###", "##"])
    assert not p.area_ok and p.extensions() == [] and p.symmetries == ("identity",)
    assert p.find().status is SolveStatus.INFEASIBLE
    r = p.count()
    assert (r.status, r.count, r.distinct) == (SolveStatus.INFEASIBLE, 0, 0)
    assert p.tally() == CountTally(finished=True, raw=0, burnside=0, tilings=(), nodes=0)


@pytest.mark.parametrize("prefix, match", [
    ((0, 0), "overlaps"), ((-1,), "placement number"), ((True,), "placement number"), (("0",), "placement number"),
])
def test_restrict_rejects_bad_prefixes(prefix, match):
    p = PuzzleProblem.prepare(["...", "..."], ["##"] * 3)
    with pytest.raises(SolverInputError, match=match):
        p.restrict(prefix)


def test_restrict_rejects_too_many_copies():
    p = PuzzleProblem.prepare(["....", "...."], ["##", "##/##", "##"], symmetry_break=False)
    t = p.tables
    square = t.ptype[next(q for q in range(p.nplacements) if len(t.pcells(q)) == 4)]
    squares = [q for q in range(p.nplacements) if t.ptype[q] == square]
    masks = [sum(1 << c for c in t.pcells(q)) for q in squares]
    pair = next((a, b) for i, a in enumerate(squares) for j, b in enumerate(squares)
                if i < j and not masks[i] & masks[j])
    with pytest.raises(SolverInputError, match="copies"):
        p.restrict(pair)


@pytest.mark.parametrize("call, kw", [
    ("count", dict(max_tilings=-1)), ("count", dict(time_limit=0)), ("count", dict(engine="fortran")),
    ("find", dict(max_tilings=0)), ("find", dict(stop=object())), ("tally", dict(time_limit=float("inf"))),
])
def test_bad_options(call, kw):
    p = PuzzleProblem.prepare(["..", ".."], ["##", "##"])
    with pytest.raises(SolverInputError):
        getattr(p, call)(**kw)


def test_prepare_input_errors_are_solve_puzzles():
    for args in ((["..x"], ["#"]), ([".."], "##"), ([".."], [])):
        with pytest.raises(ValueError) as a:
            PuzzleProblem.prepare(*args)
        with pytest.raises(ValueError) as b:
            solve_puzzle(*args)
        assert type(a.value) is type(b.value) and str(a.value) == str(b.value)


def test_prepare_honours_its_limit_and_stop():
    PuzzleProblem.clear_cache()
    with pytest.raises(PrepareInterrupted) as e:
        PuzzleProblem.prepare(BIG, large_pieces(11), use_all=False, time_limit=0.005)
    assert not e.value.stopped and isinstance(e.value, TimeoutError)
    token = StopToken()
    token.set()
    with pytest.raises(PrepareInterrupted) as e:
        PuzzleProblem.prepare(BIG, large_pieces(12), use_all=False, stop=token)
    assert e.value.stopped
    # a stopped token still stops the search of cached tables
    p = PuzzleProblem.prepare(["." * 12] * 12, ["##"] * 72)
    r = p.count(stop=token)
    assert (r.status, r.count) == (SolveStatus.UNKNOWN, 0)


def test_lazy_export_and_cache():
    assert solver.PuzzleProblem is PuzzleProblem
    PuzzleProblem.prepare(["..."], ["###"])
    assert solver.cache_info()["caches"]["puzzle.tables"]["entries"] >= 1
    PuzzleProblem.clear_cache()
    assert solver.cache_info()["caches"]["puzzle.tables"]["entries"] == 0
    p = PuzzleProblem.prepare(["..", ".."], ["##", "##"])
    assert "2x2" in repr(p) and p.nbytes() > 0 and p.placement_cells(0) == ((0, 0), (0, 1))
