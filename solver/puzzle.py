"""Exact tiling puzzles: tile a region with pieces from a multiset.

``solve_puzzle`` finds one tiling (or a few), or counts them all: the raw
count and the count up to the region's symmetries.

>>> r = solve_puzzle(["...", "..."], ["##", "##", "##"], count=True)
>>> r.status.name, r.count, r.distinct
('OPTIMAL', 3, 2)
>>> r = solve_puzzle("###/#.#/###", ["#"])
>>> r.status.name, [p.cells for p in r.tilings[0]]
('OPTIMAL', [[(1, 1)]])

How it works (see ``docs/puzzle.md``): the region's cells are numbered in
scan order along its shorter side; every placement of every piece type is
listed under its *anchor* (lowest-numbered cell). The search always fills the
lowest empty cell with each placement anchored there whose piece is still
available, so each tiling is met exactly once. Identical pieces form one type
with a count, so they are never permuted. The search runs in the C extension
``solver._exactcover`` when it is built, else in an identical pure-Python
search (same order, same answers).

Symmetry: G is the set of square symmetries (rotations only when
``mirror=False``) mapping the region onto itself. Distinct tilings are counted
by Burnside: ``distinct = sum over tilings T of |Stab(T)| / |G|``. When every
piece must be used and some piece occurs once, that piece is restricted to one
placement per G-orbit (the usual symmetry break) and every tiling found stands
for ``|G| / |Stab(P)|`` raw tilings, which makes counting up to |G| times faster.
"""

from __future__ import annotations

import math
import time
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from .geometry import MAX_GRID, BoardError, Shape, ShapeError
from .stop import StopToken
from .types import PlacedPatch, PuzzleResult, SolverInputError, SolveStatus

try:  # optional C search; the pure-Python one gives the same answers
    from . import _exactcover
except ImportError:  # pragma: no cover - depends on the build
    _exactcover = None

__all__ = ["solve_puzzle", "region_symmetries", "HAVE_C_SEARCH"]

HAVE_C_SEARCH = _exactcover is not None

# Find mode flood-fills the empty areas next to each placement up to this many
# times the largest piece's area, to catch holes no piece set can fill. It cuts
# nodes 3x but costs more than it saves when counting (6x10: 0.16 s -> 0.3 s),
# so counting runs without it; finding big regions gains 2x (measured).
HOLE_CAP_FACTOR = 1

# search status codes shared with _exactcover.c
_DONE, _ENOUGH, _TIMEOUT, _STOPPED, _NODE_LIMIT = 0, 1, 2, 3, 4

# Finding one tiling has a heavy tail: the order in which piece types are
# tried decides between milliseconds and minutes on big regions (15x20 from 5
# pentomino sets: 1.7k nodes with some orders, > 2M with most). So find mode
# restarts with a seeded shuffle of the type order, with Luby's budgets of
# RESTART_NODES x (1, 1, 2, 1, 1, 2, 4, ...) search nodes, and after
# MAX_RESTARTS runs once without a budget (so INFEASIBLE is still proven).
# Node counts are the same in C and Python, so answers stay identical.
RESTART_NODES = 20_000
MAX_RESTARTS = 100


def _luby(i: int) -> int:
    """The Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, ... (i >= 1).

    >>> [_luby(i) for i in range(1, 9)]
    [1, 1, 2, 1, 1, 2, 4, 1]
    """
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while (1 << k) - 1 != i:
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1
    return 1 << (k - 1)

Cell = tuple[int, int]

# The 8 symmetries of the square acting on (r, c) in an h x w bounding box;
# the first four are the rotations (proper), the last four the reflections.
_TRANSFORMS = (
    lambda r, c, h, w: (r, c),
    lambda r, c, h, w: (c, h - 1 - r),
    lambda r, c, h, w: (h - 1 - r, w - 1 - c),
    lambda r, c, h, w: (w - 1 - c, r),
    lambda r, c, h, w: (r, w - 1 - c),
    lambda r, c, h, w: (h - 1 - r, c),
    lambda r, c, h, w: (c, r),
    lambda r, c, h, w: (w - 1 - c, h - 1 - r),
)
TRANSFORM_NAMES = ("identity", "rot90", "rot180", "rot270", "flip-lr", "flip-ud",
                   "transpose", "anti-transpose")


# ---------------------------------------------------------------- input ---

def _parse_region(region_rows) -> tuple[tuple[str, ...], int, int]:
    """Rows of ``.`` (to tile) and ``#`` (not part of the region)."""
    if isinstance(region_rows, str):
        rows = [r.strip() for r in region_rows.replace("/", "\n").splitlines()]
        rows = [r for r in rows if r]
    elif isinstance(region_rows, (list, tuple)):
        rows = []
        for i, r in enumerate(region_rows):
            if not isinstance(r, str):
                raise BoardError(f"region row {i} is {type(r).__name__}, not a string")
            rows.append(r.strip())
    else:
        raise BoardError("region must be a list of strings or one string with '/' or newlines")
    if not rows:
        raise BoardError("region is empty")
    height, width = len(rows), len(rows[0])
    if height > MAX_GRID or width > MAX_GRID:
        raise BoardError(f"region grid is {height}x{width}; at most {MAX_GRID}x{MAX_GRID}")
    for i, r in enumerate(rows):
        if len(r) != width:
            raise BoardError(f"region row {i} has {len(r)} cells; row 0 has {width}")
        bad = set(r) - {".", "#"}
        if bad:
            raise BoardError(
                f"region row {i} has {sorted(bad)[0]!r}; use '.' (to tile) and '#' (not in region)")
    if not any("." in r for r in rows):
        raise BoardError("region has no cell to tile ('.')")
    return tuple(rows), height, width


def _parse_pieces(pieces) -> tuple[Shape, ...]:
    if isinstance(pieces, (str, Shape)) or not isinstance(pieces, Sequence):
        raise SolverInputError("pieces must be a list of Shape or shape strings")
    if len(pieces) == 0:
        raise SolverInputError("no pieces given")
    out = []
    for i, p in enumerate(pieces):
        if isinstance(p, Shape):
            out.append(p)
        elif isinstance(p, str):
            try:
                out.append(Shape.parse(p))
            except ShapeError as e:
                raise ShapeError(f"piece {i} ({p!r}): {e}") from None
        else:
            raise ShapeError(f"piece {i} is {type(p).__name__}; use a Shape or a string like '##./.##'")
    return tuple(out)


# ------------------------------------------------------------ tables ---

@dataclass(frozen=True)
class _Problem:
    """Everything the search needs, built once per (region, pieces, mirror, use_all)."""

    use_all: bool                            # every piece must be placed (also when areas match)
    n: int                                   # region cells
    cells: tuple[Cell, ...]                  # grid (row, col) of each region cell
    height: int
    width: int
    types: tuple[tuple[int, ...], ...]       # piece indices of each type
    counts: tuple[int, ...]
    ptype: tuple[int, ...]                   # per placement
    pcells: tuple[tuple[int, ...], ...]      # sorted region-cell indices
    syms: tuple[tuple[int, ...], ...]        # non-identity symmetries as cell permutations
    sym_names: tuple[str, ...]
    break_type: int
    rawmul: tuple[int, ...]
    symmask: tuple[int, ...]
    area_ok: bool                            # piece areas allow a tiling at all
    nbrs: tuple[int, ...]                    # 4 neighbour cell indices per cell, -1 = none
    hole_cap: int                            # hole check flood-fill limit (0 = off)


def region_symmetries(region_rows, mirror: bool = True) -> tuple[str, ...]:
    """Names of the square symmetries mapping the region onto itself.

    >>> region_symmetries(["....", "...."])
    ('identity', 'rot180', 'flip-lr', 'flip-ud')
    >>> region_symmetries(["..", ".."], mirror=False)
    ('identity', 'rot90', 'rot180', 'rot270')
    """
    rows, _, _ = _parse_region(region_rows)
    cells = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "."]
    return tuple(TRANSFORM_NAMES[k] for k in _symmetry_indices(cells, mirror))


def _symmetry_indices(cells: list[Cell], mirror: bool) -> list[int]:
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    norm = {(r - r0, c - c0) for r, c in cells}
    h = max(r for r, _ in norm) + 1
    w = max(c for _, c in norm) + 1
    out = []
    for k, f in enumerate(_TRANSFORMS):
        if not mirror and k >= 4:
            break
        if {f(r, c, h, w) for r, c in norm} == norm:
            out.append(k)
    return out


@lru_cache(maxsize=32)
def _prepare(rows: tuple[str, ...], pieces: tuple[Shape, ...], mirror: bool,
             use_all: bool, symmetry_break: bool = True) -> _Problem:
    height, width = len(rows), len(rows[0])
    cells = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "."]
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    bh = max(r for r, _ in cells) - r0 + 1
    bw = max(c for _, c in cells) - c0 + 1
    # Scan along the shorter side: the lowest empty cell then has few
    # neighbours still open, which prunes the search far earlier (6x10
    # pentominoes: filling 6-cell columns is several times faster than rows).
    col_major = bw > bh
    key = (lambda rc: (rc[1], rc[0])) if col_major else (lambda rc: rc)
    cells.sort(key=key)
    index = {rc: i for i, rc in enumerate(cells)}
    n = len(cells)

    # identical pieces (same set of orientations) form one type with a count
    type_of: dict[Shape, int] = {}
    members: list[list[int]] = []
    for i, p in enumerate(pieces):
        k = p.canonical(mirror)
        if k not in type_of:
            type_of[k] = len(members)
            members.append([])
        members[type_of[k]].append(i)
    counts = [len(m) for m in members]
    total = sum(pieces[m[0]].area * len(m) for m in members)
    area_ok = total == n if use_all else total >= n
    # pieces that exactly fill the region must all be used: same search, but
    # the use_all pruning and the symmetry break then apply
    use_all = use_all or total == n

    # every placement, grouped by anchor cell, then type, then orientation
    found = []  # (anchor, type, orientation#, cells)
    for t, m in enumerate(members):
        for k, o in enumerate(pieces[m[0]].orientations(mirror)):
            if o.area > n:
                continue
            oc = sorted(o.cells, key=key)
            ar, ac = oc[0]
            offs = [(r - ar, c - ac) for r, c in oc]
            for (r, c) in cells:
                idx = []
                for dr, dc in offs:
                    i = index.get((r + dr, c + dc))
                    if i is None:
                        break
                    idx.append(i)
                else:
                    found.append((idx[0], t, k, tuple(sorted(idx))))
    found.sort(key=lambda f: (f[0], f[1], f[2]))
    ptype = [f[1] for f in found]
    pcells = [f[3] for f in found]

    # region symmetries as permutations of cell indices
    sym_idx = _symmetry_indices(cells, mirror)
    norm_h, norm_w = bh, bw
    syms, names = [], []
    for k in sym_idx[1:]:
        f = _TRANSFORMS[k]
        perm = []
        for r, c in cells:
            nr, nc = f(r - r0, c - c0, norm_h, norm_w)
            perm.append(index[(nr + r0, nc + c0)])
        syms.append(tuple(perm))
        names.append(TRANSFORM_NAMES[k])
    order = len(syms) + 1

    rawmul = [1] * len(found)
    symmask = [(1 << len(syms)) - 1] * len(found)
    break_type = -1
    if syms and use_all and area_ok and symmetry_break:
        # Symmetry break: a piece used exactly once keeps one placement per
        # orbit. Pick the type with the fewest orbits (X on 6x10: 8 of 32).
        by_cells = {pc: p for p, pc in enumerate(pcells)}
        best = None
        for t, cnt in enumerate(counts):
            if cnt != 1:
                continue
            ps = [p for p in range(len(found)) if ptype[p] == t]
            if not ps:
                continue
            reps, stab = [], {}
            seen = set()
            for p in ps:
                if p in seen:
                    continue
                orbit = {p}
                smask = 0
                for g, perm in enumerate(syms):
                    q = by_cells[tuple(sorted(perm[i] for i in pcells[p]))]
                    orbit.add(q)
                    if q == p:
                        smask |= 1 << g
                seen |= orbit
                reps.append(p)
                stab[p] = smask
            if best is None or len(reps) < len(best[1]):
                best = (t, reps, stab)
        if best is not None:
            t, reps, stab = best
            keep = set(reps)
            kept = [p for p in range(len(found)) if ptype[p] != t or p in keep]
            for p in reps:
                s_p = 1 + bin(stab[p]).count("1")
                rawmul[p] = order // s_p
                symmask[p] = stab[p]
            ptype = [ptype[p] for p in kept]
            pcells = [pcells[p] for p in kept]
            rawmul = [rawmul[p] for p in kept]
            symmask = [symmask[p] for p in kept]
            break_type = t

    nbrs = tuple(index.get((r + dr, c + dc), -1)
                 for r, c in cells for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)))
    max_area = max(pieces[m[0]].area for m in members)
    hole_cap = HOLE_CAP_FACTOR * max_area

    return _Problem(
        use_all=use_all, n=n, nbrs=nbrs, hole_cap=hole_cap, cells=tuple(cells), height=height, width=width,
        types=tuple(tuple(m) for m in members), counts=tuple(counts),
        ptype=tuple(ptype), pcells=tuple(pcells),
        syms=tuple(syms), sym_names=tuple(names), break_type=break_type,
        rawmul=tuple(rawmul), symmask=tuple(symmask), area_ok=area_ok,
    )


# ------------------------------------------------------------ search ---

class _Abort(Exception):
    def __init__(self, code: int):
        self.code = code


def _search_py(n, ptype, pcells, counts, syms, break_type, rawmul, symmask, count_all,
               max_solutions, time_limit, stop, use_all, nbrs=(), hole_cap=0, node_limit=0,
               rank=None):
    """Pure-Python twin of ``_exactcover.search``: same order, same node
    counts, same results."""
    deadline = time.monotonic() + time_limit
    full = (1 << n) - 1
    masks = [sum(1 << c for c in pc) for pc in pcells]
    groups: list[list[tuple[int, list[tuple[int, int]]]]] = [[] for _ in range(n)]
    for p, pc in enumerate(pcells):
        g = groups[pc[0]]
        if not g or g[-1][0] != ptype[p]:
            g.append((ptype[p], []))
        g[-1][1].append((p, masks[p]))
    if rank is not None:
        for g in groups:
            g.sort(key=lambda tp: rank[tp[0]])
    cnt = list(counts)
    # use_all: a type still unused once the lowest empty cell passes its last
    # anchor can never be placed; (last anchor, type) sorted, sentinel at the end
    last = [-1] * len(counts)
    for p, pc in enumerate(pcells):
        last[ptype[p]] = pc[0]
    deadlines = sorted((a, t) for t, a in enumerate(last)) + [(n + 1, 0)]
    nsym = len(syms)
    area = [0] * len(counts)
    for p, pc in enumerate(pcells):
        area[ptype[p]] = len(pc)
    border = []  # cells next to each placement
    for pc in pcells:
        inside = set(pc)
        border.append(sorted({d for c in pc for d in nbrs[4 * c:4 * c + 4] if d >= 0 and d not in inside}))

    def dead_hole(board: int, p: int) -> bool:
        """Some closed empty area (<= hole_cap cells) next to p cannot be tiled."""
        seen: set[int] = set()
        for c0 in border[p]:
            if board >> c0 & 1 or c0 in seen:
                continue
            comp = {c0}
            todo = [c0]
            while todo and len(comp) <= hole_cap:
                c = todo.pop()
                for d in nbrs[4 * c:4 * c + 4]:
                    if d >= 0 and not board >> d & 1 and d not in comp:
                        comp.add(d)
                        todo.append(d)
            seen |= comp
            if len(comp) > hole_cap:
                continue
            g, mn = 0, None
            for t, k in enumerate(cnt):
                if k and area[t]:  # area 0: the type has no placement
                    g = math.gcd(g, area[t])
                    mn = area[t] if mn is None else min(mn, area[t])
            if g == 0 or len(comp) < mn or len(comp) % g:
                return True
        return False

    stack: list[int] = []
    sols: list[tuple[int, ...]] = []
    acc = [0, 0, 0]  # raw, distinct_num, nodes

    def fixed_by(perm, label) -> bool:
        for p in stack:
            cells = pcells[p]
            q = label[perm[cells[0]]]
            if ptype[stack[q]] != ptype[p]:
                return False
            for c in cells[1:]:
                if label[perm[c]] != q:
                    return False
        return True

    def leaf() -> None:
        mul, mask = 1, (1 << nsym) - 1
        if break_type >= 0:
            for p in stack:
                if ptype[p] == break_type:
                    mul, mask = rawmul[p], symmask[p]
                    break
        acc[0] += mul
        if count_all:
            stab = 1
            if mask:
                label = [0] * n
                for k, p in enumerate(stack):
                    for c in pcells[p]:
                        label[c] = k
                for g in range(nsym):
                    if mask >> g & 1 and fixed_by(syms[g], label):
                        stab += 1
            acc[1] += stab * mul
        if len(sols) < max_solutions:
            sols.append(tuple(stack))
            if not count_all and len(sols) >= max_solutions:
                raise _Abort(_ENOUGH)

    def dfs(board: int) -> None:
        acc[2] += 1
        if acc[2] & 255 == 0:
            if time.monotonic() >= deadline:
                raise _Abort(_TIMEOUT)
            if stop is not None and stop():
                raise _Abort(_STOPPED)
        if node_limit and acc[2] > node_limit:
            raise _Abort(_NODE_LIMIT)
        free = full & ~board
        if not free:
            leaf()
            return
        a = (free & -free).bit_length() - 1
        if use_all:
            for la, t in deadlines:
                if la >= a:
                    break
                if cnt[t]:
                    return
        for t, plist in groups[a]:
            if not cnt[t]:
                continue
            cnt[t] -= 1
            try:
                for p, m in plist:
                    if board & m:
                        continue
                    stack.append(p)
                    if not hole_cap or not dead_hole(board | m, p):
                        dfs(board | m)
                    stack.pop()
            finally:
                cnt[t] += 1

    status = _DONE
    if stop is not None and stop():
        status = _STOPPED
    elif time_limit <= 0:
        status = _TIMEOUT
    else:
        try:
            dfs(0)
        except _Abort as e:
            status = e.code
    return status, acc[0], acc[1], sols, acc[2]


# --------------------------------------------------------------- API ---

def solve_puzzle(region_rows, pieces, *, count: bool = False, mirror: bool = True,
                 use_all: bool = True, max_tilings: int = 1, time_limit: float = 10.0,
                 stop: StopToken | None = None) -> PuzzleResult:
    """Tile ``region_rows`` exactly with pieces from the multiset ``pieces``.

    ``region_rows``: rows (list of strings, or one string with ``/`` or
    newlines) of ``.`` (a cell to tile) and ``#`` (not in the region), at most
    20×20. ``pieces``: ``Shape`` objects or shape strings such as ``"##./.##"``;
    repeats are copies. ``mirror``: pieces may be flipped. ``use_all``: every
    piece must be used (else: cover the region with some of them).

    Find mode (``count=False``): up to ``max_tilings`` tilings; OPTIMAL when
    that many were found or the search finished with at least one,
    INFEASIBLE when proven none, FEASIBLE when time ran out after some,
    UNKNOWN when time ran out with none.

    Count mode: ``count`` (raw) and ``distinct`` (up to the region's
    symmetries; rotations only when ``mirror=False``) with the first
    ``max_tilings`` tilings; OPTIMAL when exact, INFEASIBLE (0, 0) when there
    is none, FEASIBLE with lower bounds when time ran out, UNKNOWN with
    (0, 0) when time ran out before any tiling was found.

    Tilings are tuples of ``PlacedPatch(key=piece index, orientation=index
    into pieces[key].orientations(mirror), mask=bit r*width+c, width)``.
    """
    return _solve_puzzle(region_rows, pieces, count=count, mirror=mirror, use_all=use_all,
                         max_tilings=max_tilings, time_limit=time_limit, stop=stop)


def _solve_puzzle(region_rows, pieces, *, count=False, mirror=True, use_all=True,
                  max_tilings=1, time_limit=10.0, stop=None, engine: str = "auto",
                  symmetry_break: bool = True) -> PuzzleResult:
    """``solve_puzzle`` with a choice of search (``"auto"``, ``"c"`` or
    ``"python"``) and a switch for the symmetry break (for tests and bench)."""
    t0 = time.perf_counter()
    rows, height, width = _parse_region(region_rows)
    shapes = _parse_pieces(pieces)
    if isinstance(max_tilings, bool) or not isinstance(max_tilings, int) or max_tilings < 0:
        raise SolverInputError(f"max_tilings must be an int >= 0, not {max_tilings!r}")
    if not count and max_tilings == 0:
        raise SolverInputError("max_tilings must be >= 1 when finding tilings (count=False)")
    if (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
            or not math.isfinite(time_limit) or time_limit <= 0):
        raise SolverInputError(f"time_limit must be a positive number of seconds, not {time_limit!r}")
    if stop is not None and not callable(getattr(stop, "is_set", None)):
        raise SolverInputError("stop must be a StopToken (an object with is_set())")
    if engine not in ("auto", "c", "python"):
        raise SolverInputError(f"unknown engine {engine!r}")
    if engine == "c" and _exactcover is None:
        raise SolverInputError("the C search (solver._exactcover) is not built")

    prob = _prepare(rows, shapes, bool(mirror), bool(use_all), bool(symmetry_break))

    def done(status, tilings=(), raw=None, distinct=None) -> PuzzleResult:
        return PuzzleResult(status=status, tilings=tuple(tilings), count=raw, distinct=distinct,
                            wall_time=time.perf_counter() - t0, width=width, height=height)

    if not prob.area_ok:
        return done(SolveStatus.INFEASIBLE, raw=0 if count else None, distinct=0 if count else None)

    search = _exactcover.search if (engine != "python" and _exactcover is not None) else _search_py
    deadline = t0 + time_limit
    stop_fn = None if stop is None else stop.is_set
    attempt = 0
    while True:
        # counting visits every tiling whatever the order: no restarts
        last = count or attempt >= MAX_RESTARTS
        rank = None
        if attempt:
            rank = list(range(len(prob.counts)))
            random.Random(attempt).shuffle(rank)
        remaining = max(deadline - time.perf_counter(), 1e-6)
        status, raw, distinct_num, sols, _nodes = search(
            prob.n, prob.ptype, prob.pcells, prob.counts, prob.syms, prob.break_type,
            prob.rawmul, prob.symmask, bool(count), int(max_tilings), float(remaining), stop_fn,
            prob.use_all, prob.nbrs, 0 if count else prob.hole_cap,
            0 if last else RESTART_NODES * _luby(attempt + 1), rank)
        if status != _NODE_LIMIT:
            break
        attempt += 1
    tilings = _expand(prob, shapes, sols, mirror, max_tilings)
    finished = status in (_DONE, _ENOUGH)
    if not count:
        if tilings:
            return done(SolveStatus.OPTIMAL if finished else SolveStatus.FEASIBLE, tilings)
        return done(SolveStatus.INFEASIBLE if finished else SolveStatus.UNKNOWN)
    order = len(prob.syms) + 1
    if finished:
        if distinct_num % order:  # Burnside's sum is always a multiple of |G|
            raise AssertionError(f"symmetry count {distinct_num} not divisible by {order}")
        st = SolveStatus.OPTIMAL if raw else SolveStatus.INFEASIBLE
        return done(st, tilings, raw, distinct_num // order)
    # time ran out: both counts are lower bounds (each orbit adds at most 1)
    st = SolveStatus.FEASIBLE if raw else SolveStatus.UNKNOWN
    return done(st, tilings, raw, distinct_num // order)


def _expand(prob: _Problem, shapes: tuple[Shape, ...], sols, mirror: bool,
            limit: int) -> list[tuple[PlacedPatch, ...]]:
    """Found tilings as PlacedPatch tuples (at most ``limit``).

    With the symmetry break the search only meets tilings whose break piece
    sits on an orbit representative; their images under the region's
    symmetries are tilings too, so each is expanded into its orbit to hand
    back genuinely different raw tilings.
    """
    out: list[tuple[PlacedPatch, ...]] = []
    seen: set[frozenset] = set()
    for sol in sols:
        base = [(prob.ptype[p], prob.pcells[p]) for p in sol]
        images = [base]
        if prob.break_type >= 0:
            for perm in prob.syms:
                images.append(sorted((t, tuple(sorted(perm[i] for i in cs))) for t, cs in base))
        for img in images:
            key = frozenset(img)
            if key in seen:
                continue
            seen.add(key)
            out.append(_to_tiling(prob, shapes, sorted(img, key=lambda tc: tc[1][0]), mirror))
            if len(out) >= limit:
                return out
    return out


def _to_tiling(prob: _Problem, shapes: tuple[Shape, ...], pieces, mirror: bool) -> tuple[PlacedPatch, ...]:
    # copies of one type are handed out in input order, in the order placed
    nxt = [0] * len(prob.types)
    out = []
    for t, cs in pieces:
        i = prob.types[t][nxt[t]]
        nxt[t] += 1
        grid = [prob.cells[c] for c in cs]
        k = shapes[i].orientations(mirror).index(Shape.from_cells(grid))
        mask = sum(1 << (r * prob.width + c) for r, c in grid)
        out.append(PlacedPatch(key=i, orientation=k, mask=mask, width=prob.width))
    return tuple(out)
