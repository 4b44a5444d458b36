"""Lookahead placement: rank where to put a patch so later patches still fit.

:func:`rank_placements` scores every legal placement of ``patch`` by the best
*Cover* value (cells the ``upcoming`` patches can still cover, each optional)
of the board that placement leaves, optionally with completing a 7×7 window
as the first goal. Ties among the leaders are broken by playing the upcoming
patches out in their order (each must be placed if it fits, as in the game):
more cells placed, then the more compact empty region; remaining ties by a
cheap board-quality score (:func:`quality`), then by the smaller mask, so the
ranking is deterministic.

Work is shared across placements: every packing found is kept as a
*witness*; a placement that misses all of a witness's cells inherits its
value, and when that value meets the placement's area bound it is proven
without any search. Only the rest run the exact bitmask search
(:mod:`solver.bitsearch`) under a per-placement node budget.

>>> from quiltsolve.solver.geometry import board_from_rows
>>> b = board_from_rows(["#########"] * 8 + ["#...#...#"])
>>> r = rank_placements(b, 1, [1])
>>> [(p.placement.mask.bit_length() - 1 - 72, p.value, p.proven) for p in r.ranked]
[(3, 3, True), (7, 3, True)]
"""

from __future__ import annotations

import math
import time
from typing import Sequence

from . import bitsearch
from .bitboard import COL0, COL8, ROW0, ROW8, SIDE, contacts, flood, neighbours_outside
from .cover import MAX_SOLVER_TIME_LIMIT, CoverProblem, candidates_from, orientation_of
from .geometry import BOARD_CELLS, FULL_BOARD, Board, Cell, completed_square, square_masks
from .stop import StopToken
from .types import Candidate, LookaheadResult, PlacedPatch, RankedPlacement, SolverInputError, SolveStatus

# Node budget of one placement's exact search, and of all of them together.
NODE_CAP_ONE = 4_000
NODE_CAP_ALL = 200_000
MAX_UPCOMING = 64

# A placement's snug fit: the sides of ``m`` touching a filled cell or the
# board's border (``touch_score(0, 1) == 2``, a corner cell), the same measure
# as the engine's. Kept under its old name.
touch_score = contacts


def pocket_cells(free: Board, near: Board, limit: int = 3) -> int:
    """Empty cells in regions of at most ``limit`` cells next to ``near``.

    Such pockets only fit the smallest patches, so they tend to stay empty.
    """
    nb = neighbours_outside(near) & free
    lost = 0
    while nb:
        comp, small = flood(nb & -nb, free, limit)
        nb &= ~comp
        if small:
            lost += comp.bit_count()
    return lost


def dead_ends(board: Board) -> int:
    """Empty cells with at least three blocked sides (filled or border).

    >>> dead_ends(FULL_BOARD & ~1)   # lone empty corner cell
    1
    """
    free = FULL_BOARD & ~board
    up = free & (ROW0 | (board << SIDE))
    down = free & (ROW8 | (board >> SIDE))
    left = free & (COL0 | ((board << 1) & ~COL0))
    right = free & (COL8 | ((board >> 1) & ~COL8))
    return ((up & down & (left | right)) | (left & right & (up | down))).bit_count()


POCKET_LIMIT = 3
POCKET_WEIGHT = 2
DEAD_END_WEIGHT = 1
# Re-ranking of the leaders (same value as the best) by a forced-order
# rollout of the upcoming patches; measured on the sequence benchmark
# (100 orders): 79.6 cells without it, 80.5 with 8 leaders, 4 branches and
# 60 nodes, at 0.45 s per sequence.
LEADERS = 8
SEQ_BRANCH = 4
SEQ_NODES = 60


def quality(board: Board, m: Board) -> int:
    """Tie-break score (higher is better): hug filled cells and borders, do
    not cut off small pockets, do not leave dead-end cells."""
    after = board | m
    return (touch_score(board, m) - POCKET_WEIGHT * pocket_cells(FULL_BOARD & ~after, m, POCKET_LIMIT)
            - DEAD_END_WEIGHT * dead_ends(after))


def free_perimeter(board: Board) -> int:
    """Edges between an empty cell and a filled cell or the border.

    >>> free_perimeter(FULL_BOARD & ~1), free_perimeter(0)
    (4, 36)
    """
    free = FULL_BOARD & ~board
    return ((free & (ROW0 | (board << SIDE))).bit_count() + (free & (ROW8 | (board >> SIDE))).bit_count()
            + (free & (COL0 | ((board << 1) & ~COL0))).bit_count()
            + (free & (COL8 | ((board >> 1) & ~COL8))).bit_count())


def _seq_value(board: Board, seq, areas, cap: int, deadline: float = math.inf,
               stop: StopToken | None = None) -> tuple[int, int] | None:
    """Play the upcoming patches out in order, each one *placed if it fits*
    (we choose where): a small depth-first search over the best few
    placements (touch rule) of each, bounded by the areas still to come.

    Returns the best (cells placed, -perimeter of the empty region) over the
    leaves; cells placed never exceed the Cover value ``cap``. Once a path
    has placed ``cap`` cells only the best-touch placement is followed, so
    easy boards cost a single path. None when ``deadline`` or ``stop`` cut
    it short (the clock is read at every node).
    """
    n = len(seq)
    suffix = [1] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] | (suffix[i + 1] << areas[i])
    best = [(-1, 0)]
    nodes = [0]

    def rec(i: int, board: Board, placed: int) -> None:
        if time.perf_counter() > deadline or (stop is not None and stop.is_set()):
            raise TimeoutError
        if i == n or nodes[0] >= SEQ_NODES:
            sc = (placed, -free_perimeter(board))
            if sc > best[0]:
                best[0] = sc
            return
        nodes[0] += 1
        fc = BOARD_CELLS - board.bit_count()
        if placed + bitsearch.best_sum(suffix[i], fc) < best[0][0]:
            return
        cands = [m for m in seq[i] if not m & board]
        if not cands:
            rec(i + 1, board, placed)
            return
        cands.sort(key=lambda m: (-touch_score(board, m), m))
        for m in cands[:SEQ_BRANCH if placed < cap else 1]:
            rec(i + 1, board | m, placed + areas[i])

    try:
        rec(0, board, 0)
    except TimeoutError:
        return None
    return best[0]


def _check(board, time_limit, top, seed):
    if isinstance(board, bool) or not isinstance(board, int) or not 0 <= board <= FULL_BOARD:
        raise SolverInputError("board must be an int bitmask in [0, 2**81)")
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) \
            or not math.isfinite(time_limit) or not 0 < time_limit <= MAX_SOLVER_TIME_LIMIT:
        raise SolverInputError(f"time_limit must be a finite number of seconds in (0, {MAX_SOLVER_TIME_LIMIT:g}]")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise SolverInputError("top must be None or an int >= 1")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
        raise SolverInputError("seed must be an int in [0, 2**31)")


def _evaluate(free: Board, prob: CoverProblem, square7: bool, node_cap: int, deadline: float,
              floor: int = -1, stop: StopToken | None = None):
    """Best cover (or square-then-cover) of ``free``: (value, chosen, complete, bound, corner, nodes).

    The passes (cover, then one per 7×7 window) share one set-up of the
    board (:class:`bitsearch.Prepared`); each looks at the clock first.
    """
    try:
        prep = bitsearch.Prepared(free, prob.kinds, deadline, stop)
    except TimeoutError:
        return 0, None, False, free.bit_count(), None, 0
    r = bitsearch.pack(free, prob.kinds, node_cap=node_cap, deadline=deadline, floor=floor, stop=stop,
                       prepared=prep)
    value, chosen, complete, bound = max(r.value, 0), r.chosen, r.complete, max(r.bound, 0)
    nodes = r.nodes
    if not square7:
        return value, chosen, complete, bound, None, nodes
    board = FULL_BOARD & ~free
    best_v, best_c, best_corner, sq_complete = -1, None, None, True
    done = completed_square(board)
    if done is not None:
        return value, chosen, complete, bound, done, nodes
    most = sum(k.area * min(k.count, len(k.masks)) for k in prob.kinds)
    for corner, wm in square_masks(7):
        need = wm & free
        if need.bit_count() > most:
            continue     # the upcoming patches together are too small
        if time.perf_counter() > deadline or (stop is not None and stop.is_set()):
            sq_complete = False
            break
        rs = bitsearch.pack(free, prob.kinds, must=need, floor=best_v, node_cap=node_cap,
                            deadline=deadline, stop=stop, prepared=prep)
        nodes += rs.nodes
        if rs.value > best_v:
            best_v, best_c, best_corner = rs.value, rs.chosen, corner
        sq_complete &= rs.complete
    if best_c is None:
        # No window can be completed (proven only when every search finished).
        return value, chosen, complete and sq_complete, bound, None, nodes
    return best_v, best_c, sq_complete, bound, best_corner, nodes


def rank_placements(board: Board, patch, upcoming: Sequence = (), *, square7: bool = False,
                    time_limit: float = 1.0, top: int | None = None, seed: int = 0,
                    stop: StopToken | None = None) -> LookaheadResult:
    """Rank every legal placement of ``patch`` on ``board``, best first.

    ``patch`` and ``upcoming`` items are anything :func:`candidates_from`
    accepts; upcoming patches are all optional. A placement's ``value`` is
    the most cells the upcoming patches can still cover after it (with
    ``square7``, placements that still allow completing a 7×7 window come
    first, valued by the best such answer). Status: OPTIMAL when every value
    is proven, FEASIBLE when some are not (time or node budget), INFEASIBLE
    when the patch has no legal placement, UNKNOWN when stopped first.
    """
    t0 = time.perf_counter()
    _check(board, time_limit, top, seed)
    pcs = candidates_from([patch])
    if len(pcs) != 1:
        raise SolverInputError("patch must be a single patch")
    shape = pcs[0].shape
    key = pcs[0].key
    if upcoming is None:
        upcoming = ()
    if isinstance(upcoming, (str, int, Candidate)):
        upcoming = [upcoming]
    upcoming = list(upcoming)
    if len(upcoming) > MAX_UPCOMING:
        raise SolverInputError(f"{len(upcoming)} upcoming patches; at most {MAX_UPCOMING}")
    ups = [Candidate(c.key, c.shape, c.count, False) for c in candidates_from(upcoming)] if upcoming else []
    orient = orientation_of(shape)
    legal = [m for m in orient if not m & board]
    if not legal:
        return LookaheadResult(SolveStatus.INFEASIBLE, (), time.perf_counter() - t0)
    if stop is not None and stop.is_set():
        return LookaheadResult(SolveStatus.UNKNOWN, (), time.perf_counter() - t0)
    prob = CoverProblem.build(board, ups)
    # The upcoming patches in their order, for the forced-order rollout.
    seq_c = [c for item in upcoming for c in candidates_from([item]) for _ in range(c.count)]
    seq = [tuple(orientation_of(c.shape)) for c in seq_c]
    seq_areas = [c.shape.area for c in seq_c]
    # Area bound shared by all placements: subset sums of the upcoming areas.
    areas = []
    for k in prob.kinds:
        areas.extend([k.area] * min(k.count, len(k.masks)))
    reach = bitsearch.subset_sums(areas)
    deadline = t0 + time_limit
    budget = NODE_CAP_ALL
    witnesses: list[tuple[Board, int, list]] = []   # (cells used, value, chosen)
    rows = []
    all_proven = True
    free0 = FULL_BOARD & ~board
    for m in legal:
        free = free0 & ~m
        cheap = bitsearch.best_sum(reach, free.bit_count())
        value, proven, bound, corner = None, False, cheap, None
        if not square7:
            for used, v, _ch in witnesses:
                if not used & m and v >= cheap:
                    value, proven = v, True
                    break
        if value is None:
            out_of_time = time.perf_counter() > deadline or (stop is not None and stop.is_set())
            if out_of_time or budget <= 0:
                # Keep whatever a witness still gives; unproven.
                value = max([v for used, v, _c in witnesses if not used & m] + [0])
                proven = cheap == 0 and not square7
            else:
                v, chosen, complete, bound, corner, nodes = _evaluate(
                    free, prob, square7, min(NODE_CAP_ONE, budget), deadline, stop=stop)
                bound = min(bound, cheap)
                budget -= nodes
                value, proven = v, complete
                if chosen:
                    used = 0
                    for _t, cm in chosen:
                        used |= cm
                    if not square7:
                        witnesses.append((used, v, chosen))
        all_proven &= proven
        rows.append(((corner is not None) if square7 else False, value, quality(board, m), m,
                     RankedPlacement(PlacedPatch(key, orient[m], m), value, value if proven else max(bound, value), proven, corner)))
    rows.sort(key=lambda r: (not r[0], -r[1], -r[2], r[3]))
    if LEADERS and seq and len(rows) > 1 and time.perf_counter() < deadline:
        # Among the leaders (equal value), play the upcoming patches out in
        # their order, each placed if it fits (best few by the touch rule):
        # prefer more cells placed, then the most compact empty region left
        # (smallest perimeter), then ``quality``, then the smaller mask.
        # Cut short by the clock or ``stop``, the leaders keep that order.
        head = [r for r in rows[:LEADERS] if (r[0], r[1]) == (rows[0][0], rows[0][1])]
        scored: list = []
        cut_short = False
        for r in head:
            sv = _seq_value(board | r[3], seq, seq_areas, r[1], deadline, stop)
            if sv is None:
                cut_short = True
                break
            placed, compact = sv
            scored.append((-placed, -compact, -r[2], r[3], r))
        if not cut_short:
            scored.sort(key=lambda x: x[:4])
            rows[:len(head)] = [x[4] for x in scored]
    ranked = tuple(r[4] for r in rows)
    if top is not None:
        ranked = ranked[:top]
    status = SolveStatus.OPTIMAL if all_proven else SolveStatus.FEASIBLE
    return LookaheadResult(status, ranked, time.perf_counter() - t0)
