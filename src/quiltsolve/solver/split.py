"""Split a tiling count into independent sub-problems (for Ray, or any pool).

The count search (:mod:`solver.puzzle`) always fills the lowest empty cell
with each placement anchored there. A *prefix* is the first few choices of
that search: placement ``p1`` at the lowest cell, then ``p2`` at the lowest
cell left empty, and so on. The sub-problem of a prefix is the same search
with the placements restricted so that only that prefix can be chosen: at the
prefix's anchors only the prefix's placements remain, and every placement
that overlaps a prefix cell (or belongs to a piece type the prefix used up)
is dropped — it could never be placed below that prefix anyway. Its search
tree is exactly the subtree of the full search under the prefix, with the
same stack at every leaf, so:

* every tiling is counted in exactly one sub-problem, with the same
  symmetry-break multiplier: the raw counts add up to the local raw count;
* the Burnside numerators (``sum |Stab(T)| x multiplier``) add up too, and
  the distinct count is their sum divided by ``|G|`` — the very number the
  local count gives, with the same symmetry break; no fallback is needed;
* the first tilings, taken in prefix order, are the local count's first
  tilings, so the answer is the local ``PuzzleResult`` (all but wall time).

Prefixes are cut breadth-first, a level at a time, until there are at least
``parts`` of them (dead ends — no placement fits the lowest cell, or a piece
that must be used can no longer be placed — are dropped on the way).
Sub-problems are dealt out round-robin into ``chunks`` so that neighbouring
(similar-sized) subtrees land in different chunks.

>>> PENT = ["#####", "##/##/#.", "###/#../#..", "###/.#./.#.", "#../##./.##", "#.../####",
...         ".#./###/.#.", ".##/##./.#.", "##../.###", "#.#/###", "..#/###/#..", ".#../####"]
>>> plan = split_count(["." * 20] * 3, PENT, parts=8)
>>> len(plan.prefixes) >= 8
True
>>> r = count_split(["." * 20] * 3, PENT, parts=8, chunks=3)
>>> r.status.name, r.count, r.distinct
('OPTIMAL', 8, 2)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from .geometry import Shape
from .puzzle import CountTally, PuzzleProblem, check_engine, check_options
from .types import PuzzleResult, SolverInputError

__all__ = ["SplitPlan", "ChunkResult", "split_count", "count_chunk", "combine", "count_split"]

DEFAULT_PARTS = 64       # sub-problems to aim for
MAX_DEPTH = 6            # never cut deeper than this many placements


@dataclass(frozen=True)
class ChunkResult:
    """What counting one chunk of prefixes gives (sent back from a worker)."""

    index: int                               # the chunk's number
    finished: bool                           # every prefix of the chunk searched to the end
    raw: tuple[int, ...]                     # raw count per prefix (chunk order)
    burnside: tuple[int, ...]                # Burnside numerator per prefix
    sols: tuple[tuple[tuple[int, ...], ...], ...]  # first tilings per prefix, as placement indices
    nodes: int
    seconds: float


@dataclass(frozen=True)
class SplitPlan:
    """A count cut into sub-problems: everything a worker needs is plain data."""

    rows: tuple[str, ...]
    shapes: tuple[Shape, ...]
    mirror: bool
    use_all: bool
    placements: int                          # placements in the prepared problem (a consistency check)
    prefixes: tuple[tuple[int, ...], ...]    # in the full search's order
    area_ok: bool
    order: int                               # |G|, the region's symmetries

    def chunks(self, n: int) -> list[tuple[int, ...]]:
        """Prefix numbers dealt round-robin into ``n`` chunks (none empty)."""
        n = max(1, min(n, len(self.prefixes)))
        return [tuple(range(i, len(self.prefixes), n)) for i in range(n)]


def split_count(region_rows, pieces, *, mirror: bool = True, use_all: bool = True,
                parts: int = DEFAULT_PARTS, max_depth: int = MAX_DEPTH) -> SplitPlan:
    """Cut the count of ``solve_puzzle(region_rows, pieces, count=True, ...)`` into prefixes.

    Same inputs (and input errors) as :func:`solver.solve_puzzle`.
    """
    if isinstance(parts, bool) or not isinstance(parts, int) or parts < 1:
        raise SolverInputError(f"parts must be an int >= 1, not {parts!r}")
    prob = PuzzleProblem.prepare(region_rows, pieces, mirror=mirror, use_all=use_all)
    plan: dict[str, Any] = dict(rows=prob.rows, shapes=prob.shapes, mirror=prob.mirror, use_all=prob.use_all,
                placements=prob.nplacements, area_ok=prob.area_ok, order=prob.order)
    if not prob.area_ok:
        return SplitPlan(prefixes=(), **plan)
    level: list[tuple[int, ...]] = [()]
    for _ in range(max_depth):
        if len(level) >= parts:
            break
        nxt: list[tuple[int, ...]] = []
        grew = False
        for pre in level:
            ch = prob.extensions(pre)
            if ch is None:
                nxt.append(pre)              # a complete tiling: its own sub-problem
            else:
                nxt.extend(ch)
                grew = True
        level = nxt
        if not grew:
            break
    return SplitPlan(prefixes=tuple(level), **plan)


def _plan_problem(plan: SplitPlan) -> PuzzleProblem:
    return PuzzleProblem.prepare(plan.rows, plan.shapes, mirror=plan.mirror, use_all=plan.use_all)


def count_chunk(plan: SplitPlan, index: int, prefixes: Iterable[tuple[int, ...]], max_tilings: int,
                deadline: float, engine: str = "auto") -> ChunkResult:
    """Count the sub-problems of ``prefixes`` (this is what a worker runs).

    ``deadline`` is a ``time.time()`` instant: a prefix started after it, or
    whose search runs past it, leaves the chunk unfinished (lower bounds).
    """
    t0 = time.perf_counter()
    prob = _plan_problem(plan)
    if prob.nplacements != plan.placements:
        raise RuntimeError(f"the worker's solver builds {prob.nplacements} placements, the plan "
                           f"{plan.placements}: different quiltsolve versions?")
    check_engine(engine)
    raw: list[int] = []
    burnside: list[int] = []
    sols: list[tuple[tuple[int, ...], ...]] = []
    nodes = 0
    finished = True
    for prefix in prefixes:
        remaining = deadline - time.time()
        if not finished or remaining <= 0:
            finished = False
            raw.append(0)
            burnside.append(0)
            sols.append(())
            continue
        tally = prob.restrict(prefix).tally(max_tilings, remaining, engine=engine)
        finished = tally.finished
        raw.append(tally.raw)
        burnside.append(tally.burnside)
        sols.append(tally.tilings)
        nodes += tally.nodes
    return ChunkResult(index=index, finished=finished, raw=tuple(raw), burnside=tuple(burnside),
                       sols=tuple(sols), nodes=nodes, seconds=time.perf_counter() - t0)


def combine(plan: SplitPlan, parts: Sequence[Sequence[int]], results: Sequence[ChunkResult | None],
            max_tilings: int, wall_time: float) -> PuzzleResult:
    """The ``PuzzleResult`` of the whole count from its chunks (``None``: a chunk that never answered)."""
    prob = _plan_problem(plan)
    per_prefix: list[CountTally | None] = [None] * len(plan.prefixes)
    for ks, res in zip(parts, results):
        if res is None:
            continue
        for j, k in enumerate(ks):
            per_prefix[k] = CountTally(finished=res.finished, raw=res.raw[j], burnside=res.burnside[j],
                                       tilings=res.sols[j], nodes=0)
    # the full search's order: the local first tilings
    return prob.result(CountTally.merge(per_prefix, max_tilings), max_tilings, wall_time)


def count_split(region_rows, pieces, *, mirror: bool = True, use_all: bool = True, max_tilings: int = 1,
                time_limit: float = 10.0, parts: int = DEFAULT_PARTS, chunks: int = 1,
                map_chunks: Callable | None = None, engine: str = "auto") -> PuzzleResult:
    """The count of ``solve_puzzle(..., count=True)`` through the split.

    ``map_chunks(plan, parts, max_tilings, deadline) -> list[ChunkResult | None]``
    runs the chunks (default: here, one after the other, with the search
    ``engine``: ``"auto"``, ``"c"`` or ``"python"``).
    """
    check_options(count=True, max_tilings=max_tilings, time_limit=time_limit, engine=engine)
    t0 = time.perf_counter()
    plan = split_count(region_rows, pieces, mirror=mirror, use_all=use_all, parts=parts)
    if not plan.area_ok:
        return combine(plan, [], [], max_tilings, time.perf_counter() - t0)
    deadline = time.time() + time_limit - (time.perf_counter() - t0)
    groups = plan.chunks(chunks)
    if map_chunks is None:
        results = [count_chunk(plan, i, [plan.prefixes[k] for k in ks], max_tilings, deadline, engine)
                   for i, ks in enumerate(groups)]
    else:
        results = map_chunks(plan, groups, max_tilings, deadline)
    return combine(plan, groups, results, max_tilings, time.perf_counter() - t0)
