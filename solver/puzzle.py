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
import random
import sys
import time
from array import array
from dataclasses import dataclass
from itertools import accumulate, chain
from operator import itemgetter
from typing import Sequence

from .cache import ByteCache, deep_sizeof
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

class _Abort(Exception):
    def __init__(self, code: int):
        self.code = code


class _Clock:
    """One call's time limit and stop token: :meth:`check` raises ``_Abort``
    once either has run out. Every set-up loop calls it every few ms."""

    __slots__ = ("deadline", "stop")

    def __init__(self, deadline: float = math.inf, stop: StopToken | None = None):
        self.deadline = deadline       # time.perf_counter() value
        self.stop = stop

    def check(self) -> None:
        if self.stop is not None and self.stop.is_set():
            raise _Abort(_STOPPED)
        if time.perf_counter() >= self.deadline:
            raise _Abort(_TIMEOUT)


def _ints(values=()) -> array:
    return array("i", values)


def _zeros(k: int) -> array:
    """An array('i') of k zeros, allocated in one step."""
    return array("i", bytes(4 * k))


@dataclass(frozen=True, eq=False)
class _Problem:
    """Everything the search needs, built once per (region, pieces, mirror, use_all).

    The placement tables are flat ``array('i')`` buffers (a few bytes per
    cell instead of a tuple of Python ints per placement): placement ``p``
    has type ``ptype[p]`` and covers the sorted cells
    ``pflat[pstart[p]:pstart[p + 1]]``, in anchor, type, orientation order.
    """

    use_all: bool                            # every piece must be placed (also when areas match)
    n: int                                   # region cells
    cells: tuple[Cell, ...]                  # grid (row, col) of each region cell
    height: int
    width: int
    types: tuple[tuple[int, ...], ...]       # piece indices of each type
    counts: tuple[int, ...]
    ptype: array                             # 'i', per placement
    pstart: array                            # 'i', one more than placements
    pflat: array                             # 'i', sorted region-cell indices, placement after placement
    syms: tuple[array, ...]                  # non-identity symmetries as cell permutations ('i')
    syms_flat: array                         # the same, one after the other (for the C search)
    sym_names: tuple[str, ...]
    break_type: int
    rawmul: array                            # 'q', per placement
    symmask: array                           # 'i', per placement
    area_ok: bool                            # piece areas allow a tiling at all
    nbrs: array                              # 'i', 4 neighbour cell indices per cell, -1 = none
    hole_cap: int                            # hole check flood-fill limit (0 = off)

    @property
    def nplacements(self) -> int:
        return len(self.ptype)

    def pcells(self, p: int) -> tuple[int, ...]:
        """The sorted region-cell indices of placement ``p``."""
        return tuple(self.pflat[self.pstart[p]:self.pstart[p + 1]])

    def nbytes(self) -> int:
        """Memory held by the tables (arrays by their buffers, the rest deep)."""
        arrays = (self.ptype, self.pstart, self.pflat, self.syms_flat, self.rawmul, self.symmask,
                  self.nbrs) + self.syms
        return (sum(sys.getsizeof(a) for a in arrays) + sys.getsizeof(self)
                + deep_sizeof((self.cells, self.types, self.counts, self.sym_names)))


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


# Puzzle tables for a 20x20 region with 64 large pieces take ~8 MB (as
# tuples of Python ints they took ~42 MB); the cache is bounded in bytes,
# shared with the other solver caches (solver.cache, default 64 MiB).
_TABLES = ByteCache("puzzle.tables")


def _prepare(rows: tuple[str, ...], pieces: tuple[Shape, ...], mirror: bool, use_all: bool,
             symmetry_break: bool = True, *, deadline: float = math.inf,
             stop: StopToken | None = None) -> _Problem:
    """The cached tables of a puzzle; building them honours ``deadline``
    (a ``time.perf_counter`` value) and ``stop`` (raises ``_Abort``)."""
    key = (rows, pieces, bool(mirror), bool(use_all), bool(symmetry_break))
    prob = _TABLES.get(key)
    if prob is None:
        prob = _build(rows, pieces, bool(mirror), bool(use_all), bool(symmetry_break), _Clock(deadline, stop))
        _TABLES.put(key, prob, prob.nbytes() + deep_sizeof(key))
    return prob


_prepare.cache_clear = _TABLES.clear  # type: ignore[attr-defined]


def _build(rows: tuple[str, ...], pieces: tuple[Shape, ...], mirror: bool, use_all: bool,
           symmetry_break: bool, clock: _Clock) -> _Problem:
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
        if not i & 7:
            clock.check()
        k = p.canonical(mirror)
        if k not in type_of:
            type_of[k] = len(members)
            members.append([])
        members[type_of[k]].append(i)
    counts = [len(m) for m in members]
    areas = [pieces[m[0]].area for m in members]
    total = sum(a * c for a, c in zip(areas, counts))
    area_ok = total == n if use_all else total >= n
    # pieces that exactly fill the region must all be used: same search, but
    # the use_all pruning and the symmetry break then apply
    use_all = use_all or total == n
    nbrs = _ints(index.get((r + dr, c + dc), -1)
                 for r, c in cells for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)))
    hole_cap = HOLE_CAP_FACTOR * max(areas)
    if not area_ok:  # answered INFEASIBLE without a search: no placement tables
        return _Problem(use_all=use_all, n=n, cells=tuple(cells), height=height, width=width,
                        types=tuple(tuple(m) for m in members), counts=tuple(counts), ptype=_ints(),
                        pstart=_ints([0]), pflat=_ints(), syms=(), syms_flat=_ints(), sym_names=(),
                        break_type=-1, rawmul=array("q"), symmask=_ints(), area_ok=False, nbrs=nbrs,
                        hole_cap=hole_cap)

    # Every placement of every orientation, enumerated in scan coordinates
    # (u, v), in which the cell order is row-major: a cell's index is looked
    # up in a padded grid, so all anchors of one orientation come out of one
    # zip over shifted slices, each placement's cells already sorted and its
    # anchor (lowest cell) first.
    def uv(r: int, c: int) -> tuple[int, int]:
        return (c - c0, r - r0) if col_major else (r - r0, c - c0)

    U, V = (bw, bh) if col_major else (bh, bw)
    shapes = []   # per type: [(orientation number, offsets (du, dv) from the anchor)]
    pad_u = pad_v = 1
    for t, m in enumerate(members):
        clock.check()
        per = []
        for k, o in enumerate(pieces[m[0]].orientations(mirror)):
            pts = sorted(uv(r, c) for r, c in o.cells)
            au, av = pts[0]
            offs = [(u - au, v - av) for u, v in pts]
            du = max(d for d, _ in offs)
            dv_lo = min(d for _, d in offs)
            dv_hi = max(d for _, d in offs)
            if o.area > n or du >= U or dv_hi - dv_lo >= V:
                continue    # bigger than the region's bounding box
            pad_u = max(pad_u, du)
            pad_v = max(pad_v, dv_hi - dv_lo)
            per.append((k, offs))
        shapes.append(per)
    vp = V + pad_v                       # padded row: a shifted cell never wraps into the region
    base = vp                            # one padding row in front (anchors to the left of a cell)
    grid = [-1] * (base + (U + pad_u) * vp)
    for i, (r, c) in enumerate(cells):
        u, v = uv(r, c)
        grid[base + u * vp + v] = i
    span = U * vp
    by_type: list[list[tuple[int, ...]]] = []   # per type: placements, by orientation then anchor
    for t, per in enumerate(shapes):
        found: list[tuple[int, ...]] = []
        for k, offs in per:
            clock.check()
            cols = [grid[base + du * vp + dv: base + du * vp + dv + span] for du, dv in offs]
            found.append([tup for tup in zip(*cols) if -1 not in tup])
        by_type.append(found)

    # region symmetries as permutations of cell indices
    sym_idx = _symmetry_indices(cells, mirror)
    syms: list[list[int]] = []
    names = []
    for k in sym_idx[1:]:
        f = _TRANSFORMS[k]
        perm = []
        for r, c in cells:
            nr, nc = f(r - r0, c - c0, bh, bw)
            perm.append(index[(nr + r0, nc + c0)])
        syms.append(perm)
        names.append(TRANSFORM_NAMES[k])
    order = len(syms) + 1

    break_type = -1
    break_info: dict[tuple[int, ...], tuple[int, int]] = {}   # kept placement -> (rawmul, symmask)
    if syms and use_all and symmetry_break:
        # Symmetry break: a piece used exactly once keeps one placement per
        # orbit. Pick the type with the fewest orbits (X on 6x10: 8 of 32),
        # the lowest type among equals. An orbit has at most |G| placements,
        # so types are tried by placement count and the rest skipped as
        # soon as they cannot have fewer orbits.
        sizes = sorted((sum(len(f) for f in by_type[t]), t) for t, cnt in enumerate(counts) if cnt == 1)
        best = None   # (orbits, type, representatives, stabiliser masks)
        for size, t in sizes:
            if not size:
                continue
            lower = -(-size // order)
            if best is not None and (lower, t) > (best[0], best[1]):
                if lower > best[0]:
                    break
                continue
            # (anchor, orientation) order: the order of the final tables
            tups = sorted((tup for f in by_type[t] for tup in f), key=itemgetter(0))
            seen: set[tuple[int, ...]] = set()
            reps, stab = [], {}
            for j, tup in enumerate(tups):
                if tup in seen:
                    continue
                if not j & 127:
                    clock.check()
                smask = 0
                seen.add(tup)
                for g, perm in enumerate(syms):
                    img = tuple(sorted([perm[i] for i in tup]))
                    seen.add(img)
                    if img == tup:
                        smask |= 1 << g
                reps.append(tup)
                stab[tup] = smask
            if best is None or (len(reps), t) < (best[0], best[1]):
                best = (len(reps), t, reps, stab)
        if best is not None:
            _n_orbits, break_type, reps, stab = best
            for tup in reps:
                s = stab[tup]
                break_info[tup] = (order // (1 + bin(s).count("1")), s)
            by_type[break_type] = [reps]

    # Final order: by anchor, then type, then orientation (each type's lists
    # are by orientation, then anchor; bucketing by anchor keeps that order).
    bucket_t: list[list[int]] = [[] for _ in range(n)]
    bucket_c: list[list[tuple[int, ...]]] = [[] for _ in range(n)]
    npl = nflat = 0
    for t, found in enumerate(by_type):
        for f in found:
            clock.check()
            npl += len(f)
            nflat += len(f) * areas[t]
            for tup in f:
                a = tup[0]
                bucket_t[a].append(t)
                bucket_c[a].append(tup)
    del by_type
    # The arrays are allocated once and filled anchor by anchor (growing an
    # array by many extends copies it again and again; one conversion of a
    # big list is a long step that never looks at the clock).
    ptype = _zeros(npl)
    pstart = _zeros(npl + 1)
    pflat = _zeros(nflat)
    rawmul = array("q", [1]) * npl
    symmask = _ints([(1 << len(syms)) - 1]) * npl
    p0 = f0 = 0
    for a in range(n):
        if not a & 15:
            clock.check()
        ts, cs = bucket_t[a], bucket_c[a]
        if not ts:
            continue
        k = len(ts)
        if break_type >= 0 and break_type in ts:
            for j, t in enumerate(ts):
                if t == break_type:
                    rawmul[p0 + j], symmask[p0 + j] = break_info[cs[j]]
        ptype[p0:p0 + k] = _ints(ts)
        pstart[p0 + 1:p0 + k + 1] = _ints(list(accumulate((areas[t] for t in ts), initial=f0))[1:])
        flat = _ints(list(chain.from_iterable(cs)))
        pflat[f0:f0 + len(flat)] = flat
        p0 += k
        f0 += len(flat)
        bucket_t[a] = bucket_c[a] = None   # type: ignore[call-overload]
    sym_arrays = tuple(_ints(perm) for perm in syms)
    return _Problem(
        use_all=use_all, n=n, nbrs=nbrs, hole_cap=hole_cap, cells=tuple(cells), height=height, width=width,
        types=tuple(tuple(m) for m in members), counts=tuple(counts),
        ptype=ptype, pstart=pstart, pflat=pflat, syms=sym_arrays,
        syms_flat=_ints(chain.from_iterable(syms)), sym_names=tuple(names), break_type=break_type,
        rawmul=rawmul, symmask=symmask, area_ok=area_ok,
    )


# ------------------------------------------------------------ search ---

_BITS = [1 << i for i in range(MAX_GRID * MAX_GRID + 1)]


class _PyTables:
    """What the pure-Python search derives from a problem (placement masks,
    anchor groups, cells next to each placement), built once per call and
    shared by its restarts; the build honours ``clock``."""

    def __init__(self, prob: _Problem, clock: _Clock, hole: bool):
        ptype, pstart, pflat, n = prob.ptype, prob.pstart, prob.pflat, prob.n
        bits = _BITS
        npl = prob.nplacements
        masks: list[int] = []
        for p0 in range(0, npl, 2048):
            clock.check()
            for p in range(p0, min(npl, p0 + 2048)):
                masks.append(sum(map(bits.__getitem__, pflat[pstart[p]:pstart[p + 1]])))
        groups: list[list[tuple[int, list[tuple[int, int]]]]] = [[] for _ in range(n)]
        for p in range(npl):
            if not p & 4095:
                clock.check()
            g = groups[pflat[pstart[p]]]
            t = ptype[p]
            if not g or g[-1][0] != t:
                g.append((t, []))
            g[-1][1].append((p, masks[p]))
        ntypes = len(prob.counts)
        last = [-1] * ntypes
        area = [0] * ntypes
        for p in range(npl):
            last[ptype[p]] = pflat[pstart[p]]
            area[ptype[p]] = pstart[p + 1] - pstart[p]
        border: list[list[int]] = []
        if hole:
            nbrs = prob.nbrs
            for p in range(npl):
                if not p & 1023:
                    clock.check()
                pc = pflat[pstart[p]:pstart[p + 1]]
                inside = set(pc)
                border.append(sorted({d for c in pc for d in nbrs[4 * c:4 * c + 4]
                                      if d >= 0 and d not in inside}))
        self.n = n
        self.ptype = ptype
        self.pstart = pstart
        self.pflat = pflat
        self.nbrs = prob.nbrs
        self.groups = groups
        # use_all: a type still unused once the lowest empty cell passes its last
        # anchor can never be placed; (last anchor, type) sorted, sentinel at the end
        self.deadlines = sorted((a, t) for t, a in enumerate(last)) + [(n + 1, 0)]
        self.area = area
        self.border = border
        self.hole = hole


def _search_py(tables: _PyTables, counts, syms, break_type, rawmul, symmask, count_all,
               max_solutions, time_limit, stop, use_all, hole_cap=0, node_limit=0, rank=None):
    """Pure-Python twin of ``_exactcover.search``: same order, same node
    counts, same results. Polls the clock and ``stop`` every 16 nodes."""
    deadline = time.monotonic() + time_limit
    n = tables.n
    full = (1 << n) - 1
    ptype, pstart, pflat, nbrs = tables.ptype, tables.pstart, tables.pflat, tables.nbrs
    groups = tables.groups
    if rank is not None:
        groups = [sorted(g, key=lambda tp: rank[tp[0]]) for g in groups]
    cnt = list(counts)
    deadlines = tables.deadlines
    nsym = len(syms)
    area = tables.area
    border = tables.border
    if hole_cap and not tables.hole:
        raise ValueError("hole check needs tables built with hole=True")

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
            cells = pflat[pstart[p]:pstart[p + 1]]
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
                    for c in pflat[pstart[p]:pstart[p + 1]]:
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
        if not acc[2] & 15:
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

    ``time_limit`` and ``stop`` cover the whole call, the building of the
    placement tables included (they are cached, see ``solver.cache_info``).

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
    deadline = t0 + time_limit
    clock = _Clock(deadline, stop)

    def done(status, tilings=(), raw=None, distinct=None) -> PuzzleResult:
        return PuzzleResult(status=status, tilings=tuple(tilings), count=raw, distinct=distinct,
                            wall_time=time.perf_counter() - t0, width=width, height=height)

    def out_of_time() -> PuzzleResult:
        return done(SolveStatus.UNKNOWN, raw=0 if count else None, distinct=0 if count else None)

    use_c = engine != "python" and _exactcover is not None
    try:
        prob = _prepare(rows, shapes, bool(mirror), bool(use_all), bool(symmetry_break),
                        deadline=deadline, stop=stop)
        if not prob.area_ok:
            return done(SolveStatus.INFEASIBLE, raw=0 if count else None, distinct=0 if count else None)
        clock.check()
        tables = None if use_c else _PyTables(prob, clock, hole=not count and prob.hole_cap > 0)
    except _Abort:
        return out_of_time()

    hole_cap = 0 if count else prob.hole_cap
    flag = bytearray(1)   # the C search reads it without the GIL; the token's callback sets it

    def set_flag() -> None:
        flag[0] = 1

    if use_c and stop is not None:
        stop.attach(set_flag)
    try:
        best = None   # (status, raw, distinct_num, sols) of the attempt with the most tilings
        attempt = 0
        while True:
            # counting visits every tiling whatever the order: no restarts
            last = count or attempt >= MAX_RESTARTS
            rank = None
            if attempt:
                rank = list(range(len(prob.counts)))
                random.Random(attempt).shuffle(rank)
            node_limit = 0 if last else RESTART_NODES * _luby(attempt + 1)
            remaining = deadline - time.perf_counter()
            if stop is not None and stop.is_set():
                result = (_STOPPED, 0, 0, [], 0)
            elif remaining <= 0:
                result = (_TIMEOUT, 0, 0, [], 0)
            elif use_c:
                result = _exactcover.search(
                    prob.n, prob.ptype, prob.pstart, prob.pflat, prob.counts, prob.syms_flat,
                    prob.break_type, prob.rawmul, prob.symmask, bool(count), int(max_tilings),
                    float(remaining), None if stop is None else flag, prob.use_all, prob.nbrs, hole_cap,
                    node_limit, rank)
            else:
                result = _search_py(
                    tables, prob.counts, prob.syms, prob.break_type, prob.rawmul, prob.symmask,
                    bool(count), int(max_tilings), float(remaining), None if stop is None else stop.is_set,
                    prob.use_all, hole_cap, node_limit, rank)
            status, raw, distinct_num, sols, _nodes = result
            if best is None or len(sols) > len(best[3]):
                best = (status, raw, distinct_num, sols)
            if status != _NODE_LIMIT:
                break
            attempt += 1
    finally:
        if use_c and stop is not None:
            stop.detach(set_flag)
    finished = status in (_DONE, _ENOUGH)
    if not finished and not count:
        # out of time or stopped: the attempt that found the most tilings
        sols = best[3]
    tilings = _expand(prob, shapes, sols, mirror, max_tilings, deadline)
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


# Past the deadline, turning found tilings into PlacedPatch tuples stops
# after this many (at least one is always returned).
_EXPAND_LATE = 16


def _expand(prob: _Problem, shapes: tuple[Shape, ...], sols, mirror: bool,
            limit: int, deadline: float = math.inf) -> list[tuple[PlacedPatch, ...]]:
    """Found tilings as PlacedPatch tuples (at most ``limit``).

    With the symmetry break the search only meets tilings whose break piece
    sits on an orbit representative; their images under the region's
    symmetries are tilings too, so each is expanded into its orbit to hand
    back genuinely different raw tilings. Once ``deadline`` has passed only a
    few more are built (a time-limited answer may hold fewer tilings than
    were found).
    """
    out: list[tuple[PlacedPatch, ...]] = []
    seen: set[frozenset] = set()
    for j, sol in enumerate(sols):
        if j and not j % _EXPAND_LATE and time.perf_counter() >= deadline:
            break
        base = [(prob.ptype[p], prob.pcells(p)) for p in sol]
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
