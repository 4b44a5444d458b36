"""Cover and Square-7×7 placement: maximise covered cells of a quilt board.

Public API (see ``docs/solver.md``):

* :func:`candidates_from` builds :class:`~solver.types.Candidate` lists.
* :func:`solve_cover` maximises covered cells.
* :func:`solve_square7` completes a 7×7 window, then maximises covered cells.
* :func:`solve` dispatches on an :class:`~solver.types.Objective`.

The solver is a portfolio: an exact bitmask branch-and-bound
(:mod:`solver.bitsearch`) with a node cap runs first and proves most boards by
itself (``engine="bitsearch"``); otherwise a one-Boolean-per-placement CP-SAT
model, hinted with the best packing found, proves (``engine="cp-sat"``).

>>> from solver.geometry import board_from_rows
>>> b = board_from_rows(["#########"] * 7 + ["####....#", "#########"])
>>> r = solve_cover(b, candidates_from([2, 0]))
>>> r.status.value, r.objective, r.empty_after, r.engine
('OPTIMAL', 4, 0, 'bitsearch')
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import cache
from typing import Iterable, Sequence

from ortools.sat.python import cp_model

from . import bitsearch
from .geometry import BOARD_CELLS, BOARD_SIZE, FULL_BOARD, Board, Cell, Shape, ShapeError, placements, square_masks
from .geometry import completed_square
from .patches import LEATHER_PATCH_ID, LEATHER_SHAPE, patch
from .stop import StopToken
from .types import (
    Candidate, Objective, PlacedPatch, PlacementResult, SolverInputError, SolveStatus,
)

MAX_TIME_LIMIT = 600.0
MAX_CANDIDATES = 200      # distinct candidate entries
MAX_COUNT = BOARD_CELLS   # copies of one candidate
MAX_WORKERS = 16
# Node budget of the exact bitmask pass before CP-SAT takes over (about
# 1-5 us a node). Midgame boards need under 1,000 nodes; dense 16-patch
# boards up to ~10^6, where CP-SAT is far slower still. The pass also stops
# at BITSEARCH_SHARE of the time limit so CP-SAT always gets its turn.
NODE_CAP = 2_000_000
BITSEARCH_SHARE = 0.6


# ---------------------------------------------------------------- candidates

def _as_shape(item) -> Shape:
    if isinstance(item, Shape):
        return item
    if isinstance(item, str):
        return Shape.parse(item)
    raise SolverInputError(f"cannot use {item!r} as a patch: give a patch id, a shape string, a Shape or a Candidate")


def candidates_from(items: Iterable) -> list[Candidate]:
    """Candidates from patch ids, shape strings, ``Shape``s or ``Candidate``s.

    Repeated entries add to ``count`` (in first-seen order). ``-1`` is the
    1×1 leather patch.

    >>> [(c.key, c.count) for c in candidates_from([0, 3, 0, "##./.##"])]
    [(0, 2), (3, 1), ('##./.##', 1)]
    >>> candidates_from(["#.#"])
    Traceback (most recent call last):
    ...
    solver.geometry.ShapeError: shape is not 4-connected
    """
    if isinstance(items, (str, bytes, int, Shape, Candidate)):
        items = [items]
    try:
        items = list(items)
    except TypeError:
        raise SolverInputError("candidates must be a list of patch ids, shape strings or Candidates") from None
    order: list = []
    merged: dict = {}
    for item in items:
        if isinstance(item, Candidate):
            if not isinstance(item.shape, Shape):
                raise SolverInputError(f"candidate {item.key!r} has no Shape")
            c = item
        elif isinstance(item, bool):
            raise SolverInputError(f"cannot use {item!r} as a patch id")
        elif isinstance(item, int):
            if item == LEATHER_PATCH_ID:
                c = Candidate(LEATHER_PATCH_ID, LEATHER_SHAPE)
            else:
                c = Candidate(item, patch(item).shape)
        else:
            shape = _as_shape(item)
            c = Candidate(shape.to_str(), shape)
        if not isinstance(c.count, int) or isinstance(c.count, bool):
            raise SolverInputError(f"candidate {c.key!r}: count must be an int")
        prev = merged.get(c.key)
        if prev is None:
            merged[c.key] = c
            order.append(c.key)
        else:
            if prev.required != c.required:
                raise SolverInputError(f"candidate {c.key!r} is given both required and optional")
            if prev.shape != c.shape:
                raise SolverInputError(f"candidate {c.key!r} is given with two different shapes")
            merged[c.key] = Candidate(c.key, c.shape, prev.count + c.count, c.required)
    return [merged[k] for k in order]


def _check(board, candidates, time_limit, seed, workers) -> list[Candidate]:
    if isinstance(board, bool) or not isinstance(board, int) or not 0 <= board <= FULL_BOARD:
        raise SolverInputError("board must be an int bitmask in [0, 2**81)")
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) \
            or not math.isfinite(time_limit) or not 0 < time_limit <= MAX_TIME_LIMIT:
        raise SolverInputError(f"time_limit must be a finite number of seconds in (0, {MAX_TIME_LIMIT:g}]")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
        raise SolverInputError("seed must be an int in [0, 2**31)")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise SolverInputError(f"workers must be an int in [1, {MAX_WORKERS}]")
    if candidates is None:
        raise SolverInputError("candidates must be a list")
    cands = candidates if all(isinstance(c, Candidate) for c in candidates) else None
    if cands is None or len({c.key for c in cands}) != len(cands):
        cands = candidates_from(candidates)
    if len(cands) > MAX_CANDIDATES:
        raise SolverInputError(f"{len(cands)} candidates; at most {MAX_CANDIDATES}")
    for c in cands:
        if not isinstance(c.shape, Shape):
            raise SolverInputError(f"candidate {c.key!r} has no Shape")
        if isinstance(c.count, bool) or not isinstance(c.count, int) or not 1 <= c.count <= MAX_COUNT:
            raise SolverInputError(f"candidate {c.key!r}: count must be in [1, {MAX_COUNT}]")
    return list(cands)


# ------------------------------------------------------------------ problem

@cache
def _orientation_of(shape: Shape) -> dict[int, int]:
    """mask -> orientation index, for every placement on the empty 9×9 board."""
    return {p.mask: p.orientation for p in placements(shape)}


@dataclass
class _Problem:
    """Candidates grouped into kinds: one kind per (shape, required) pair.

    Candidates with the same shape (e.g. standard patches 17 and 18) become
    one kind with the summed count, which removes their symmetry from every
    search; placements are handed back to the member keys afterwards.
    """

    board: Board
    cands: list[Candidate]
    kinds: list[bitsearch.Kind]
    members: list[list[int]]        # kind -> candidate indices

    @classmethod
    def build(cls, board: Board, cands: list[Candidate]) -> "_Problem":
        groups: dict = {}
        for i, c in enumerate(cands):
            groups.setdefault((c.shape.canonical(), c.required), []).append(i)
        kinds, members = [], []
        for (shape, req), idx in groups.items():
            masks = tuple(m for m in _orientation_of(shape) if not m & board)
            kinds.append(bitsearch.Kind(shape.area, masks, sum(cands[i].count for i in idx), req))
            members.append(idx)
        return cls(board, cands, kinds, members)

    def placed(self, chosen: Iterable[tuple[int, int]]) -> tuple[PlacedPatch, ...]:
        by_kind: dict[int, list[int]] = {}
        for t, m in chosen:
            by_kind.setdefault(t, []).append(m)
        out = []
        for t, ms in by_kind.items():
            ms.sort()
            j = 0
            for i in self.members[t]:
                c = self.cands[i]
                orient = _orientation_of(c.shape)
                for m in ms[j:j + c.count]:
                    out.append(PlacedPatch(c.key, orient[m], m))
                j += c.count
        out.sort(key=lambda p: p.mask)
        return tuple(out)


def _result(prob: _Problem, status: SolveStatus, chosen, bound: int, t0: float, engine: str,
            square: Cell | None = None) -> PlacementResult:
    placed = prob.placed(chosen) if chosen is not None else ()
    covered = sum(p.mask.bit_count() for p in placed)
    empty = BOARD_CELLS - prob.board.bit_count()
    if chosen is not None and status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
        after = prob.board
        for p in placed:
            after |= p.mask
        square = completed_square(after)
    if status == SolveStatus.OPTIMAL:
        bound = covered
    if status in (SolveStatus.INFEASIBLE,):
        placed, covered = (), 0
    bound = 0 if status == SolveStatus.INFEASIBLE else max(bound, covered)
    return PlacementResult(status, placed, covered, bound, empty, empty - covered, square,
                           time.perf_counter() - t0, engine)


# ------------------------------------------------------------------ CP-SAT

def _cp_params(solver: cp_model.CpSolver, time_limit: float, seed: int, workers: int) -> None:
    p = solver.parameters
    p.num_workers = workers
    p.max_time_in_seconds = max(time_limit, 1e-3)
    p.random_seed = seed
    # Probing dominates the default run time on these small models.
    p.cp_model_probing_level = 0
    p.log_search_progress = False


def _cp_solve(prob: _Problem, free: Board, windows: Sequence[tuple[Cell, Board]] | None,
              hint: list[tuple[int, int]] | None, bound: int, floor: int,
              time_limit: float, seed: int, workers: int, stop: StopToken | None):
    """Returns (status, chosen, bound). ``windows``: square-7 mode."""
    model = cp_model.CpModel()
    kinds = prob.kinds
    cell_vars: dict[int, list] = {}
    all_vars, all_areas, var_of = [], [], {}
    for t, k in enumerate(kinds):
        vs = []
        for m in k.masks:
            if m & free != m:
                continue
            v = model.new_bool_var("")
            vs.append(v)
            var_of[(t, m)] = v
            all_vars.append(v)
            all_areas.append(k.area)
            mm = m
            while mm:
                low = mm & -mm
                cell_vars.setdefault(low.bit_length() - 1, []).append(v)
                mm ^= low
        if k.required:
            if len(vs) < k.count:
                return SolveStatus.INFEASIBLE, None, -1
            model.add(cp_model.LinearExpr.sum(vs) == k.count)
        elif len(vs) > k.count:
            model.add(cp_model.LinearExpr.sum(vs) <= k.count)
    for vs in cell_vars.values():
        if len(vs) > 1:
            model.add_at_most_one(vs)
    obj = cp_model.LinearExpr.weighted_sum(all_vars, all_areas)
    # Redundant area bound (subset-sum of areas vs. coverable cells): lets
    # CP-SAT stop as soon as the hint or a solution reaches it.
    model.add(obj <= bound)
    if floor >= 0:
        model.add(obj >= floor)
    if windows is not None:
        zs = []
        for _corner, wm in windows:
            z = model.new_bool_var("")
            zs.append(z)
            need = wm & ~prob.board
            while need:
                low = need & -need
                i = low.bit_length() - 1
                need ^= low
                model.add_bool_or(cell_vars.get(i, []) + [z.Not()])
        model.add_bool_or(zs)
    model.maximize(obj)
    if hint:
        chosen = set(hint)
        for (t, m), v in var_of.items():
            model.add_hint(v, (t, m) in chosen)
    solver = cp_model.CpSolver()
    _cp_params(solver, time_limit, seed, workers)
    if stop is not None:
        if stop.is_set():
            return SolveStatus.UNKNOWN, None, bound
        stop.attach(solver.stop_search)
    try:
        st = solver.solve(model)
    finally:
        if stop is not None:
            stop.detach(solver.stop_search)
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        chosen = [tm for tm, v in var_of.items() if solver.boolean_value(v)]
        b = min(bound, int(math.floor(solver.best_objective_bound + 1e-6)))
        return (SolveStatus.OPTIMAL if st == cp_model.OPTIMAL else SolveStatus.FEASIBLE), chosen, b
    if st == cp_model.INFEASIBLE:
        return SolveStatus.INFEASIBLE, None, -1
    return SolveStatus.UNKNOWN, None, bound


# ------------------------------------------------------------------ solvers

def _solve_impl(board, candidates, square7: bool, time_limit, seed, workers, stop,
                node_cap: int | None = None) -> PlacementResult:
    t0 = time.perf_counter()
    if node_cap is None:
        node_cap = NODE_CAP
    cands = _check(board, candidates, time_limit, seed, workers)
    prob = _Problem.build(board, cands)
    free = FULL_BOARD & ~board
    if stop is not None and stop.is_set():
        return _result(prob, SolveStatus.UNKNOWN, None, BOARD_CELLS - board.bit_count(), t0, "none")
    cov = bitsearch.coverable(free, prob.kinds)
    bound = min(bitsearch.area_bound(cov, prob.kinds), cov.bit_count())
    windows = None
    if square7:
        windows = [(c, m) for c, m in square_masks(7) if not (m & ~board & ~cov)]
        if not windows:
            return _result(prob, SolveStatus.INFEASIBLE, None, -1, t0, "bitsearch")
        bound = min(bound, _square_bound(board, cov, windows, prob))
        if bound < 0:
            return _result(prob, SolveStatus.INFEASIBLE, None, -1, t0, "bitsearch")

    best_val, best_chosen, complete = -1, None, True
    deadline = t0 + BITSEARCH_SHARE * time_limit
    if not square7:
        r = bitsearch.pack(free, prob.kinds, node_cap=node_cap, target=bound, deadline=deadline, seed=seed,
                           stop=stop)
        best_val, best_chosen, complete = r.value, r.chosen if r.value >= 0 else None, r.complete
    else:
        # One exact search per window that could be completed, best first;
        # the incumbent prunes the later windows. Windows whose own bound
        # cannot beat the incumbent are skipped.
        budget = node_cap
        for corner, wm in sorted(windows, key=lambda cw: (cw[1] & ~board).bit_count()):
            if best_val >= bound:
                break
            if budget <= 0:
                complete = False
                break
            r = bitsearch.pack(free, prob.kinds, must=wm & ~board, floor=best_val,
                               node_cap=budget, target=bound, deadline=deadline, seed=seed, stop=stop)
            budget -= r.nodes
            if r.value > best_val:
                best_val, best_chosen = r.value, r.chosen
            if not r.complete:
                complete = False
    if complete or (best_chosen is not None and best_val >= bound):
        if best_chosen is None:
            return _result(prob, SolveStatus.INFEASIBLE, None, -1, t0, "bitsearch")
        return _result(prob, SolveStatus.OPTIMAL, best_chosen, best_val, t0, "bitsearch")

    remaining = time_limit - (time.perf_counter() - t0)
    if remaining <= 0 or (stop is not None and stop.is_set()):
        st = SolveStatus.FEASIBLE if best_chosen is not None else SolveStatus.UNKNOWN
        return _result(prob, st, best_chosen, bound, t0, "bitsearch")
    st, chosen, b = _cp_solve(prob, free, windows, best_chosen, bound, -1,
                              remaining, seed, workers, stop)
    if st == SolveStatus.UNKNOWN and best_chosen is not None:
        return _result(prob, SolveStatus.FEASIBLE, best_chosen, b, t0, "bitsearch")
    if st == SolveStatus.FEASIBLE and best_chosen is not None and best_val > sum(
            prob.kinds[t].area for t, _ in chosen):
        chosen = best_chosen
    return _result(prob, st, chosen, b, t0, "cp-sat")


def _square_bound(board: Board, cov: Board, windows, prob: _Problem) -> int:
    """Required-area check for the square: a window needs its empty cells covered."""
    total = sum(k.area * min(k.count, len(k.masks)) for k in prob.kinds)
    need = min((wm & ~board).bit_count() for _c, wm in windows)
    if need > total:
        return -1
    return bitsearch.area_bound(cov, prob.kinds)


def solve_cover(board: Board, candidates: Sequence, *, time_limit: float = 10.0, seed: int = 0,
                workers: int = 1, stop: StopToken | None = None) -> PlacementResult:
    """Choose placements that maximise covered cells of ``board``.

    Every candidate is optional (``count`` copies) unless ``required``; an
    INFEASIBLE answer means the required patches cannot all be placed.
    """
    return _solve_impl(board, candidates, False, time_limit, seed, workers, stop)


def solve_square7(board: Board, candidates: Sequence, *, time_limit: float = 10.0, seed: int = 0,
                  workers: int = 1, stop: StopToken | None = None) -> PlacementResult:
    """Complete some 7×7 window, and among those answers maximise covered cells.

    INFEASIBLE when no window can be completed; ``square7`` holds the corner
    of the completed window (first in row-major order).
    """
    return _solve_impl(board, candidates, True, time_limit, seed, workers, stop)


def solve(board: Board, candidates: Sequence, objective: Objective | str = Objective.COVER,
          **kw) -> PlacementResult:
    """Dispatch on the objective (``Objective`` or its string value)."""
    try:
        objective = Objective(objective)
    except ValueError:
        raise SolverInputError(f"unknown objective {objective!r}; use 'cover' or 'square7'") from None
    if objective == Objective.SQUARE7:
        return solve_square7(board, candidates, **kw)
    return solve_cover(board, candidates, **kw)
