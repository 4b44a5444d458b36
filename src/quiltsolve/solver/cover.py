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

>>> from quiltsolve.solver.geometry import board_from_rows
>>> b = board_from_rows(["#########"] * 7 + ["####....#", "#########"])
>>> r = solve_cover(b, candidates_from([2, 0]))
>>> r.status.value, r.objective, r.empty_after, r.engine
('OPTIMAL', 4, 0, 'bitsearch')
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from itertools import compress
from typing import Any, Iterable, Sequence

from ortools.sat.python import cp_model

from . import bitsearch
from .bitboard import bit_indices, components
from .cache import byte_cached, dict_sizeof
from .geometry import BOARD_CELLS, BOARD_SIZE, FULL_BOARD, Board, Cell, Shape, ShapeError, placements, square_masks
from .geometry import completed_square
from .limits import MAX_COUNT  # copies of one candidate: the same limit as a request's
from .patches import LEATHER_PATCH_ID, LEATHER_SHAPE, patch
from .stop import StopToken
from .types import (
    Candidate, Objective, PlacedPatch, PlacementResult, SolverInputError, SolveStatus,
)

# The solver's own cap on a direct call's time limit (library users, batch
# jobs); a request through the service or a client is capped far lower, at
# solver.limits.MAX_TIME_LIMIT (60 s). Two limits, two names.
MAX_SOLVER_TIME_LIMIT = 600.0
MAX_CANDIDATES = 200      # distinct candidate entries
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
    quiltsolve.solver.geometry.ShapeError: shape is not 4-connected
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
            or not math.isfinite(time_limit) or not 0 < time_limit <= MAX_SOLVER_TIME_LIMIT:
        raise SolverInputError(f"time_limit must be a finite number of seconds in (0, {MAX_SOLVER_TIME_LIMIT:g}]")
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

@byte_cached("cover.orientation_of", dict_sizeof)
def orientation_of(shape: Shape) -> dict[int, int]:
    """mask -> orientation index, for every placement on the empty 9×9 board."""
    return {p.mask: p.orientation for p in placements(shape)}


_orientation_of = orientation_of   # the old name, still imported by engine.search and tests/solver


@dataclass
class CoverProblem:
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
    def build(cls, board: Board, cands: list[Candidate], deadline=math.inf) -> "CoverProblem":
        """Raises ``TimeoutError`` once ``deadline`` (a perf_counter value,
        or a ``bitsearch.StopClock``) has passed."""
        groups: dict = {}
        for i, c in enumerate(cands):
            if not i & 15 and time.perf_counter() > deadline:
                raise TimeoutError
            groups.setdefault((c.shape.canonical(), c.required), []).append(i)
        kinds, members = [], []
        for j, ((shape, req), idx) in enumerate(groups.items()):
            if not j & 7 and time.perf_counter() > deadline:
                raise TimeoutError
            masks = tuple(m for m in orientation_of(shape) if not m & board)
            kinds.append(bitsearch.Kind(shape.area, masks, sum(cands[i].count for i in idx), req))
            members.append(idx)
        return cls(board, cands, kinds, members)

    def placed(self, chosen: Iterable[tuple[int, int]]) -> tuple[PlacedPatch, ...]:
        """The placements of the chosen ``(kind, placement)`` pairs, as the answer lists them."""
        by_kind: dict[int, list[int]] = {}
        for t, m in chosen:
            by_kind.setdefault(t, []).append(m)
        out = []
        for t, ms in by_kind.items():
            ms.sort()
            j = 0
            for i in self.members[t]:
                c = self.cands[i]
                orient = orientation_of(c.shape)
                for m in ms[j:j + c.count]:
                    out.append(PlacedPatch(c.key, orient[m], m))
                j += c.count
        out.sort(key=lambda p: p.mask)
        return tuple(out)


def _result(prob: CoverProblem, status: SolveStatus, chosen, bound: int, t0: float, engine: str,
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

def _sym_tables() -> list[list[int]]:
    """The 8 symmetries of the 9×9 square as cell permutations (identity first)."""
    n = BOARD_SIZE
    maps = [lambda r, c: (r, c), lambda r, c: (c, n - 1 - r), lambda r, c: (n - 1 - r, n - 1 - c),
            lambda r, c: (n - 1 - c, r), lambda r, c: (r, n - 1 - c), lambda r, c: (n - 1 - r, c),
            lambda r, c: (c, r), lambda r, c: (n - 1 - c, n - 1 - r)]
    out = []
    for f in maps:
        perm = [0] * BOARD_CELLS
        for i in range(BOARD_CELLS):
            r, c = f(*divmod(i, n))
            perm[i] = r * n + c
        out.append(perm)
    return out


_SYMS = _sym_tables()


def _apply(perm: list[int], m: int) -> int:
    out = 0
    for i in bit_indices(m):
        out |= 1 << perm[i]
    return out


def _board_symmetries(board: Board) -> list[list[int]]:
    """Symmetries of the square that map ``board`` onto itself (identity included)."""
    return [p for p in _SYMS if _apply(p, board) == board]


# A CP-SAT solve has a fixed cost before it looks at its time limit (model
# checks, copies, presolve set-up): measured 150-250 ns per placement cell of
# the model on the 2-core machine (200 custom candidates on an empty board,
# 400k cells: 70-100 ms whatever the limit). A solve gets the time left minus
# this estimate, and is not started when less than 1.5x the estimate is left.
CP_FIXED_PER_TERM = 3e-7
# Freeing the Python side of a model: ~0.7 us per placement variable.
CP_FREE_PER_VAR = 1e-6

# Solves of the descent after the first one (target = the bound) use
# CP-SAT's automatic search (which still tries the decision strategy): they
# are mostly refutations, where activity-based branching does better than the
# fixed cell order (measured on fragmented random boards: p90 142 vs 307 ms).
AUTO_AFTER_FIRST = True
SYMMETRY_BREAKING = True
CELL_RANK = list(range(BOARD_CELLS))


def _cp_params(solver: cp_model.CpSolver, time_limit: float, seed: int, workers: int) -> None:
    p = solver.parameters
    p.num_workers = workers
    p.max_time_in_seconds = max(time_limit, 1e-3)
    p.random_seed = seed
    # Probing dominates the default run time on these small models.
    p.cp_model_probing_level = 0
    # The cell-order decision strategy (see _CpModel) is what finds dense
    # packings; CP-SAT's activity heuristics wander (measured: 10x slower,
    # several opening boards unproven in 10 s).
    p.search_branching = cp_model.FIXED_SEARCH
    # The LP adds nothing to these 0/1 packing models but time.
    p.linearization_level = 0
    p.log_search_progress = False


@dataclass
class _CpModel:
    """The CP-SAT model of one Cover / Square-7×7 problem, in feasibility form.

    One Boolean per (kind, legal mask) and one ``empty`` Boolean per
    coverable cell: every cell is covered exactly once or empty. ``obj`` is
    an integer variable equal to the covered area, through the kind counts
    (``sum(area_k * used_k)``) and through the cells (``ncov - sum(empty)``);
    its domain (the reachable subset sums of the areas up to the bound, and
    from the target on) is what each solve of the descent changes.
    """

    model: cp_model.CpModel
    terms: int            # placement cells in the model (its size, for the fixed cost of a solve)
    kind: list[int]       # kind of each placement Boolean
    mask: list[int]       # its mask
    index: list[int]      # its variable index
    obj: Any              # IntVar: covered cells
    sums: list[int]       # reachable covered areas <= bound, ascending


def _identity_rank() -> bool:
    return CELL_RANK == list(range(BOARD_CELLS))


def _cp_build(prob: CoverProblem, cov: Board, windows, bound: int, deadline=math.inf) -> _CpModel | None:
    """None when the required kinds cannot be placed at all.

    Building a model with tens of thousands of placements takes a while
    (~10 us each), so every step looks at ``deadline`` (a perf_counter
    value, or a ``bitsearch.StopClock``) and raises ``TimeoutError``.
    Freeing a half-built model takes time too (~40 ms for 55k placements,
    about the most MAX_CANDIDATES custom shapes give), so it gives up that
    much earlier.
    """
    clock = time.perf_counter

    def check() -> None:
        # stop early enough to also free what was built before the deadline
        if clock() + CP_FREE_PER_VAR * len(index) > deadline:
            raise TimeoutError

    model = cp_model.CpModel()
    kinds = prob.kinds
    cell_vars: dict[int, list] = {i: [] for i in bit_indices(cov)}
    anchored: dict[int, list] = {}
    used, used_areas, areas = [], [], []
    empty: dict[int, Any] = {}  # cell -> its BoolVar
    # (plain int lists, not a tuple per placement: fewer objects for the
    # garbage collector, whose full passes cost tens of ms on big models)
    kind_of: list[int] = []
    mask_of: list[int] = []
    index: list[int] = []
    req_area = 0
    identity = _identity_rank()
    # Symmetry breaking: when the board is symmetric (the empty opening
    # board has all 8 symmetries) any packing can be mapped so that one
    # single-copy kind takes the smallest mask of its orbit; it keeps only
    # those placements. (Every kind's placement set, the windows and the
    # bounds are invariant under a symmetry of the board.)
    keep_min = -1
    syms = _board_symmetries(prob.board) if SYMMETRY_BREAKING else []
    if len(syms) > 1:
        single = [t for t, k in enumerate(kinds) if k.count == 1 and k.masks]
        if single:
            keep_min = max(single, key=lambda t: (kinds[t].area, len(kinds[t].masks), -t))
    # Biggest kinds first, and among equal areas the kind with the fewest
    # placements (the most constrained): the order the decision strategy
    # tries the placements anchored at one cell in. (Measured, forced
    # opening-0-k16: max 2.1 -> 1.2 s; by index or most placements first:
    # 2.0 s; smallest first: one unproven in 20 s.)
    new_bool = model.new_bool_var
    for t in sorted(range(len(kinds)), key=lambda t: (-kinds[t].area, len(kinds[t].masks), t)):
        check()
        k = kinds[t]
        vs = []
        for m in k.masks:
            if m & cov != m:
                continue
            if t == keep_min and any(_apply(p, m) < m for p in syms[1:]):
                continue
            v = new_bool("")
            vs.append(v)
            kind_of.append(t)
            mask_of.append(m)
            index.append(v.index)
            if identity:
                low = (m & -m).bit_length() - 1
            else:
                low = min(bit_indices(m), key=CELL_RANK.__getitem__)
            anchored.setdefault(low, []).append(v)
            mm = m
            while mm:
                b = mm & -mm
                cell_vars[b.bit_length() - 1].append(v)
                mm ^= b
        if k.required:
            if len(vs) < k.count:
                return None
            req_area += k.area * k.count
        if not vs:
            continue
        # Identical copies are one kind: a count, never per-copy variables.
        n = min(k.count, len(vs))
        u = model.new_int_var(n if k.required else 0, n, "")
        model.add(u == cp_model.LinearExpr.sum(vs))
        used.append(u)
        used_areas.append(k.area)
        areas.extend([k.area] * n)
    # Per 4-connected region of coverable cells, what fits is the best
    # subset sum of the areas that have a placement inside it (placements
    # never straddle regions); the fits add up to a bound of their own.
    fits = []
    comps = components(cov)
    if len(comps) > 1:
        for comp in comps:
            check()
            inside = []
            for k in kinds:
                n = sum(1 for m in k.masks if m & comp == m)
                inside.extend([k.area] * min(k.count, n))
            fits.append((comp, bitsearch.best_sum(bitsearch.subset_sums(inside), comp.bit_count())))
        bound = min(bound, sum(f for _c, f in fits))
    reach = bitsearch.subset_sums(areas)
    sums = [s for s in range(req_area, bound + 1) if reach >> s & 1]
    if not sums:
        return None
    obj = model.new_int_var_from_domain(cp_model.Domain.from_values(sums), "covered")
    # Through the kind counts: linear propagation then knows the most area
    # left, e.g. that every patch bigger than the slack must be used.
    model.add(obj == cp_model.LinearExpr.weighted_sum(used, used_areas))
    for j, (i, vs) in enumerate(cell_vars.items()):
        if not j & 7:
            check()
        e = model.new_bool_var("")
        empty[i] = e
        model.add_exactly_one(vs + [e])
    check()
    ncov = cov.bit_count()
    model.add(obj + cp_model.LinearExpr.sum(list(empty.values())) == ncov)
    # Per 4-connected region: at most its fit can be covered, i.e. at least
    # the rest stays empty.
    for comp, fit in fits:
        if fit < comp.bit_count():
            model.add(cp_model.LinearExpr.sum([empty[i] for i in bit_indices(comp)]) >= comp.bit_count() - fit)
    if windows is not None:
        zs = []
        for _corner, wm in windows:
            z = model.new_bool_var("")
            zs.append(z)
            for i in bit_indices(wm & ~prob.board):
                model.add_implication(z, empty[i].Not())
        model.add_bool_or(zs)
    # Decision strategy: the lowest undecided cell is covered by a placement
    # anchored there (biggest kinds first) or left empty -- the bitmask cell
    # search's order, with CP-SAT's propagation and clause learning on top.
    # (Written into the proto here, as CpModel.add_decision_strategy does,
    # in steps that look at the clock: one call takes 0.1-0.2 s on big models.)
    strategy = model.proto.search_strategy.add()
    for i in (sorted(bit_indices(cov), key=CELL_RANK.__getitem__) if not identity else bit_indices(cov)):
        check()
        for v in anchored.get(i, []) + [empty[i]]:
            expr = strategy.exprs.add()
            expr.vars.append(v.index)
            expr.coeffs.append(1)
    strategy.variable_selection_strategy = cp_model.CHOOSE_FIRST
    strategy.domain_reduction_strategy = cp_model.SELECT_MAX_VALUE
    return _CpModel(model, sum(m.bit_count() for m in mask_of), kind_of, mask_of, index, obj, sums)


class _SolveStopper:
    """Ends a ``CpSolver.solve`` when the token is set, even in the instant
    before it starts: ``stop_search`` is a no-op until ``solve`` has created
    its search, so when the token fires during the call a helper thread keeps
    asking (every 2 ms) until the solve has returned."""

    def __init__(self, solver: cp_model.CpSolver):
        self.solver = solver
        self.done = False

    def __call__(self) -> None:
        self.solver.stop_search()
        if not self.done:
            threading.Thread(target=self._repeat, daemon=True, name="cp-sat-stop").start()

    def _repeat(self) -> None:
        while not self.done:
            self.solver.stop_search()
            time.sleep(0.002)


def _cp_run(cm: _CpModel, lo: int, hi: int, time_limit: float, seed: int, workers: int,
            stop: StopToken | None, fixed: bool = True):
    """Look for a packing covering between ``lo`` and ``hi`` cells.

    Returns (cp status, chosen or None)."""
    vals = [s for s in cm.sums if lo <= s <= hi]
    if not vals:
        return cp_model.INFEASIBLE, None
    dom = cm.model.proto.variables[cm.obj.index].domain
    dom.clear()
    dom.extend(cp_model.Domain.from_values(vals).flattened_intervals())
    solver = cp_model.CpSolver()
    _cp_params(solver, time_limit, seed, workers)
    if not fixed and AUTO_AFTER_FIRST:
        solver.parameters.search_branching = cp_model.AUTOMATIC_SEARCH
    stopper = None
    if stop is not None:
        if stop.is_set():
            return cp_model.UNKNOWN, None
        stopper = _SolveStopper(solver)
        stop.attach(stopper)
    try:
        st = solver.solve(cm.model)
    finally:
        if stopper is not None:
            stopper.done = True
            assert stop is not None  # stopper is only made with a stop token
            stop.detach(stopper)
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        values = list(solver.response_proto.solution)
        return cp_model.FEASIBLE, list(compress(zip(cm.kind, cm.mask), map(values.__getitem__, cm.index)))
    return st, None


def _cp_solve(prob: CoverProblem, free: Board, windows: Sequence[tuple[Cell, Board]] | None,
              hint: list[tuple[int, int]] | None, bound: int, floor: int,
              time_limit: float, seed: int, workers: int, stop: StopToken | None,
              cov: Board | None = None):
    """Returns (status, chosen, bound). ``windows``: square-7 mode.

    A search over feasibility problems rather than one optimisation: "cover
    between T and ub cells" first for T = ub = the bound (on the bench the
    optimum meets the bound on every dense board, and there the empty-cell
    budget is tiny, so propagation cuts hard), then bisection between the
    best packing and the proven bound: a refuted T lowers ub below T, a
    found packing raises the best value. Done when they meet. Out of time
    (or stopped) while building the model: UNKNOWN with ``bound``.
    """
    t_end = time.perf_counter() + time_limit
    if cov is None:
        cov = bitsearch.coverable(free, prob.kinds)
    try:
        cm = _cp_build(prob, cov, windows, bound,
                       t_end if stop is None else bitsearch.StopClock(t_end, stop))
    except TimeoutError:
        return SolveStatus.UNKNOWN, None, bound
    if cm is None:
        return SolveStatus.INFEASIBLE, None, -1
    best, best_val = None, -1
    if hint:
        best, best_val = list(hint), sum(prob.kinds[t].area for t, _ in hint)
    lo = max(floor, 0)
    ub = cm.sums[-1]
    first = True
    fixed_cost = CP_FIXED_PER_TERM * cm.terms
    while ub > best_val and ub >= lo:
        left = t_end - time.perf_counter()
        if left <= 1.5 * fixed_cost or (stop is not None and stop.is_set()):
            break
        # The bound itself first (usually met on dense boards); then, with
        # no packing yet, any packing (the strategy finds one greedily; none
        # proves INFEASIBLE); then bisection between the best packing and the
        # proven bound.
        above = [s for s in cm.sums if max(best_val, lo - 1) < s <= ub]
        if first:
            target = ub
        elif best is None:
            target = above[0]
        else:
            target = above[(len(above) - 1) // 2]
        st, chosen = _cp_run(cm, target, ub, left - fixed_cost, seed, workers, stop, fixed=first or best is None)
        first = False
        if chosen is not None:
            best, best_val = chosen, sum(prob.kinds[t].area for t, _ in chosen)
            continue
        if st != cp_model.INFEASIBLE:
            break
        below = [s for s in cm.sums if s < target]
        ub = below[-1] if below else -1
    if best is None:
        if ub < lo:
            return SolveStatus.INFEASIBLE, None, -1
        return SolveStatus.UNKNOWN, None, ub
    if ub <= best_val:
        return SolveStatus.OPTIMAL, best, best_val
    return SolveStatus.FEASIBLE, best, ub


# ------------------------------------------------------------------ solvers

def _solve_impl(board, candidates, square7: bool, time_limit, seed, workers, stop,
                node_cap: int | None = None) -> PlacementResult:
    t0 = time.perf_counter()
    if node_cap is None:
        node_cap = NODE_CAP
    cands = _check(board, candidates, time_limit, seed, workers)
    t_end = t0 + time_limit
    # Every stage, set-up included, looks at this clock (the stop token too).
    clock = t_end if stop is None else bitsearch.StopClock(t_end, stop)
    empty_cells = BOARD_CELLS - board.bit_count()
    if stop is not None and stop.is_set():
        return _result(CoverProblem(board, cands, [], []), SolveStatus.UNKNOWN, None, empty_cells, t0, "none")
    try:
        prob = CoverProblem.build(board, cands, clock)
    except TimeoutError:
        return _result(CoverProblem(board, cands, [], []), SolveStatus.UNKNOWN, None, empty_cells, t0, "none")
    free = FULL_BOARD & ~board
    try:
        prep = bitsearch.Prepared(free, prob.kinds, clock)
    except TimeoutError:
        return _result(prob, SolveStatus.UNKNOWN, None, empty_cells, t0, "none")
    cov = prep.cov
    bound = prep.bound
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
                           stop=stop, prepared=prep)
        best_val, best_chosen, complete = r.value, r.chosen if r.value >= 0 else None, r.complete
    else:
        # One exact search per window that could be completed, best first;
        # the incumbent prunes the later windows. Windows whose own bound
        # cannot beat the incumbent are skipped.
        budget = node_cap
        assert windows is not None  # square7: the windows were listed above
        for corner, wm in sorted(windows, key=lambda cw: (cw[1] & ~board).bit_count()):
            if best_val >= bound:
                break
            if budget <= 0:
                complete = False
                break
            r = bitsearch.pack(free, prob.kinds, must=wm & ~board, floor=best_val,
                               node_cap=budget, target=bound, deadline=deadline, seed=seed, stop=stop,
                               prepared=prep)
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
                              remaining, seed, workers, stop, cov=cov)
    if st == SolveStatus.UNKNOWN and best_chosen is not None:
        return _result(prob, SolveStatus.FEASIBLE, best_chosen, b, t0, "bitsearch")
    if st == SolveStatus.FEASIBLE and best_chosen is not None and best_val > sum(
            prob.kinds[t].area for t, _ in chosen):
        chosen = best_chosen
    return _result(prob, st, chosen, b, t0, "cp-sat")


def _square_bound(board: Board, cov: Board, windows, prob: CoverProblem) -> int:
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
