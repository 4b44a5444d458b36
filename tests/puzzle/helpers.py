"""``solve``: ``solve_puzzle`` through the public ``PuzzleProblem``, with a
choice of search engine and of the symmetry break (the tests run both
engines; ``solve_puzzle`` itself always takes the fastest)."""

from __future__ import annotations

import time
from dataclasses import replace

from quiltsolve.solver.puzzle import HAVE_C_SEARCH, PrepareInterrupted, PuzzleProblem
from quiltsolve.solver.types import PuzzleResult, SolveStatus

ENGINES = ["python"] + (["c"] if HAVE_C_SEARCH else [])


def solve(rows, pieces, *, count=False, mirror=True, use_all=True, max_tilings=1, time_limit=10.0, stop=None,
          engine="auto", symmetry_break=True) -> PuzzleResult:
    """As ``solve_puzzle(...)``: ``time_limit`` and ``stop`` cover the table build and the search."""
    t0 = time.perf_counter()
    try:
        problem = PuzzleProblem.prepare(rows, pieces, mirror=mirror, use_all=use_all,
                                        symmetry_break=symmetry_break, time_limit=time_limit, stop=stop)
    except PrepareInterrupted:
        return PuzzleResult(SolveStatus.UNKNOWN, count=0 if count else None, distinct=0 if count else None,
                            wall_time=time.perf_counter() - t0)
    left = max(t0 + time_limit - time.perf_counter(), 1e-9)
    run = problem.count if count else problem.find
    r = run(max_tilings=max_tilings, time_limit=left, stop=stop, engine=engine)
    return replace(r, wall_time=time.perf_counter() - t0)
