"""solver.split without Ray: the split count is the local count, exactly.

Raw counts, distinct counts (Burnside numerators summed over the
sub-problems, same symmetry break), statuses and the first tilings must
equal the local count (``PuzzleProblem.count``) for every way of cutting the count.
"""

from __future__ import annotations

import random
import time

import pytest

from quiltsolve.solver.geometry import Shape
from quiltsolve.solver.puzzle import PuzzleProblem, solve_puzzle
from quiltsolve.solver.split import combine, count_chunk, count_split, split_count
from quiltsolve.solver.types import SolverInputError, SolveStatus

from ..puzzle.helpers import ENGINES, solve

PENTOMINOES = ["#####", "##/##/#.", "###/#../#..", "###/.#./.#.", "#../##./.##", "#.../####",
               ".#./###/.#.", ".##/##./.#.", "##../.###", "#.#/###", "..#/###/#..", ".#../####"]
HOLE8 = ["." * 8] * 3 + ["...##..."] * 2 + ["." * 8] * 3


def same(a, b) -> None:
    assert (a.status, a.count, a.distinct) == (b.status, b.count, b.distinct)
    assert a.tilings == b.tilings
    assert (a.width, a.height) == (b.width, b.height)


@pytest.mark.parametrize("rows, raw, distinct", [
    (["." * 10] * 6, 9356, 2339),
    (["." * 12] * 5, 4040, 1010),
    (HOLE8, 520, 65),
])
@pytest.mark.parametrize("parts, chunks", [(1, 1), (8, 3), (40, 7), (500, 16)])
def test_pentomino_counts_split(rows, raw, distinct, parts, chunks):
    local = solve_puzzle(rows, PENTOMINOES, count=True, max_tilings=3, time_limit=60)
    got = count_split(rows, PENTOMINOES, max_tilings=3, time_limit=60, parts=parts, chunks=chunks)
    assert (got.count, got.distinct) == (raw, distinct)
    same(got, local)


def test_prefixes_are_in_search_order_and_partition_the_count():
    rows = ["." * 10] * 6
    plan = split_count(rows, PENTOMINOES, parts=30)
    assert len(plan.prefixes) >= 30
    assert list(plan.prefixes) == sorted(plan.prefixes)          # depth-first order of the search
    assert len(set(plan.prefixes)) == len(plan.prefixes)
    prob = PuzzleProblem.prepare(plan.rows, plan.shapes)
    for pre in plan.prefixes:                                     # each prefix is a partial tiling
        cells = [c for p in pre for c in prob.placement_cells(p)]
        assert len(cells) == len(set(cells))
    one = count_chunk(plan, 0, plan.prefixes, 0, time.time() + 60)
    assert one.finished and sum(one.raw) == 9356 and sum(one.burnside) == 2339 * plan.order


def _random_case(rng: random.Random):
    pool = ["#", "##", "###", "##/#.", "####", "##/##", "###/.#.", "###/#..", "##./.##"]
    h, w = rng.randint(2, 4), rng.randint(2, 5)
    rows = ["." * w] * h if rng.random() < 0.5 else [
        "".join("#" if rng.random() < 0.15 else "." for _ in range(w)) for _ in range(h)]
    if not any("." in r for r in rows):
        rows[0] = "." + rows[0][1:]
    n = sum(r.count(".") for r in rows)
    pieces, area = [], 0
    while area < n:
        p = rng.choice(pool)
        pieces.append(p)
        area += Shape.parse(p).area
    use_all = rng.random() < 0.5
    if use_all:
        while area > n:
            area -= Shape.parse(pieces.pop()).area
        pieces += ["#"] * (n - area)
    return rows, pieces, rng.random() < 0.7, use_all


@pytest.mark.parametrize("seed", range(60))
def test_random_cases_split_equal_local(seed):
    rng = random.Random(seed)
    rows, pieces, mirror, use_all = _random_case(rng)
    parts, chunks = rng.choice([(1, 1), (4, 2), (16, 5), (100, 9)])
    for engine in ENGINES:
        local = solve(rows, pieces, count=True, mirror=mirror, use_all=use_all, max_tilings=4, engine=engine)
        got = count_split(rows, pieces, mirror=mirror, use_all=use_all, max_tilings=4, parts=parts,
                          chunks=chunks, engine=engine)
        same(got, local)


def test_infeasible_and_no_prefix():
    r = count_split(["...", "..."], ["###", "##"])            # areas do not match
    assert (r.status, r.count, r.distinct) == (SolveStatus.INFEASIBLE, 0, 0)
    r = count_split(["##.", "...", "#.."], ["###", "###"])      # the areas match, but no tiling
    local = solve_puzzle(["##.", "...", "#.."], ["###", "###"], count=True)
    same(r, local)
    assert r.status is SolveStatus.INFEASIBLE


def test_out_of_time_gives_lower_bounds():
    rows = ["." * 10] * 6
    plan = split_count(rows, PENTOMINOES, parts=8)
    parts = plan.chunks(4)
    results = [count_chunk(plan, i, [plan.prefixes[k] for k in ks], 2, time.time() + 60) if i == 0 else None
               for i, ks in enumerate(parts)]               # only the first chunk answered
    r = combine(plan, parts, results, 2, 0.1)
    assert r.status is SolveStatus.FEASIBLE and 0 < r.count < 9356 and r.distinct <= 2339
    late = [count_chunk(plan, i, [plan.prefixes[k] for k in ks], 0, time.time() - 1) for i, ks in enumerate(parts)]
    r = combine(plan, parts, late, 0, 0.1)
    assert (r.status, r.count, r.distinct) == (SolveStatus.UNKNOWN, 0, 0)


@pytest.mark.parametrize("kw", [dict(parts=0), dict(parts=True), dict(max_tilings=-1), dict(time_limit=0)])
def test_bad_options(kw):
    with pytest.raises(SolverInputError):
        count_split(["..", ".."], ["##", "##"], **kw)


def test_bad_region_is_the_local_error():
    with pytest.raises(ValueError, match="region"):
        split_count(["..x"], ["#"])
