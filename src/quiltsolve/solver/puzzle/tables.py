"""The flat placement tables of a puzzle, built once and cached.

Placement ``p`` of a problem has type ``ptype[p]`` and covers the sorted
region cells ``pflat[pstart[p]:pstart[p + 1]]``; placements are listed by
anchor (lowest cell), then type, then orientation. The search (``search.py``,
C or Python) reads nothing else.

>>> from quiltsolve.solver.puzzle.region import parse_pieces
>>> t = prepare_tables(("...", "..."), parse_pieces(["##", "##", "##"]), True, True)
>>> t.n, t.nplacements, t.counts, t.sym_names
(6, 7, (3,), ('rot180', 'flip-lr', 'flip-ud'))
>>> t.cells                          # scanned along the shorter side
((0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2))
>>> [t.pcells(p) for p in range(3)]
[(0, 2), (0, 1), (1, 3)]
>>> sub = restrict_tables(t, [1, 3, 5])
>>> [sub.pcells(p) for p in range(sub.nplacements)]
[(0, 1), (2, 4), (3, 5)]
"""

from __future__ import annotations

import math
import sys
from array import array
from dataclasses import dataclass, replace
from itertools import accumulate, chain
from operator import itemgetter
from typing import Sequence

from ..cache import ByteCache, deep_sizeof
from ..geometry import Shape
from ..stop import StopToken
from .clock import Clock
from .region import TRANSFORM_NAMES, TRANSFORMS, Cell, symmetry_indices

__all__ = ["HOLE_CAP_FACTOR", "PlacementTables", "prepare_tables", "build_tables", "clear_table_cache",
           "restrict_tables", "TABLE_CACHE"]

# Find mode flood-fills the empty areas next to each placement up to this many
# times the largest piece's area, to catch holes no piece set can fill. It cuts
# nodes 3x but costs more than it saves when counting (6x10: 0.16 s -> 0.3 s),
# so counting runs without it; finding big regions gains 2x (measured).
HOLE_CAP_FACTOR = 1


def _ints(values=()) -> array:
    return array("i", values)


def _zeros(k: int) -> array:
    """An array('i') of k zeros, allocated in one step."""
    return array("i", bytes(4 * k))


@dataclass(frozen=True, eq=False)
class PlacementTables:
    """Everything the search needs, built once per (region, pieces, mirror, use_all).

    The placement tables are flat ``array('i')`` buffers (a few bytes per
    cell instead of a tuple of Python ints per placement): placement ``p``
    has type ``ptype[p]`` and covers the sorted cells
    ``pflat[pstart[p]:pstart[p + 1]]``, in anchor, type, orientation order.
    """

    use_all: bool                            # every limited piece must be placed (also when areas match)
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
    unlimited: tuple[bool, ...] = ()         # per type: in unlimited supply (never required; () = none)

    @property
    def required(self) -> tuple[int, ...] | None:
        """Per type, 1 when ``use_all`` requires every copy (None: all are, no type is unlimited)."""
        if not any(self.unlimited):
            return None
        return tuple(0 if u else 1 for u in self.unlimited)

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


# Puzzle tables for a 20x20 region with 64 large pieces take ~8 MB (as
# tuples of Python ints they took ~42 MB); the cache is bounded in bytes,
# shared with the other solver caches (solver.cache, default 64 MiB).
TABLE_CACHE = ByteCache("puzzle.tables")


def prepare_tables(rows: tuple[str, ...], pieces: tuple[Shape, ...], mirror: bool, use_all: bool,
                   symmetry_break: bool = True, *, deadline: float = math.inf,
                   stop: StopToken | None = None, unlimited: tuple[Shape, ...] = ()) -> PlacementTables:
    """The cached tables of a puzzle; building them honours ``deadline``
    (a ``time.perf_counter`` value) and ``stop`` (raises ``clock.Abort``)."""
    key = (rows, pieces, bool(mirror), bool(use_all), bool(symmetry_break), unlimited)
    prob = TABLE_CACHE.get(key)
    if prob is None:
        prob = build_tables(rows, pieces, bool(mirror), bool(use_all), bool(symmetry_break), Clock(deadline, stop),
                            unlimited)
        TABLE_CACHE.put(key, prob, prob.nbytes() + deep_sizeof(key))
    return prob


def clear_table_cache() -> None:
    """Drop every cached puzzle table (the cache's counters stay)."""
    TABLE_CACHE.clear()


def build_tables(rows: tuple[str, ...], pieces: tuple[Shape, ...], mirror: bool, use_all: bool,
                 symmetry_break: bool, clock: Clock, unlimited: tuple[Shape, ...] = ()) -> PlacementTables:
    """The tables of a puzzle (not cached); ``clock`` raises ``Abort`` when out of time.

    ``unlimited`` shapes are in unlimited supply: each is one type whose copies
    (``region area // its area``, so the search never runs out) are never
    required; its members are its index ``len(pieces) + j`` repeated (a
    tiling's ``PlacedPatch.key`` for it). ``use_all`` requires the limited
    pieces only."""
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
        canon = p.canonical(mirror)
        if canon not in type_of:
            type_of[canon] = len(members)
            members.append([])
        members[type_of[canon]].append(i)
    counts = [len(m) for m in members]
    areas = [pieces[m[0]].area for m in members]
    total = sum(a * c for a, c in zip(areas, counts))
    is_unlimited = [False] * len(members)
    for j, unl in enumerate(unlimited):
        canon = unl.canonical(mirror)
        if canon in type_of:   # checked by the caller (problem.py); kept for direct callers
            raise ValueError(f"unlimited piece {unl.to_str()!r} is also a limited piece")
        type_of[canon] = len(members)
        members.append([len(pieces) + j] * max(1, n // unl.area))
        counts.append(len(members[-1]))
        areas.append(unl.area)
        is_unlimited.append(True)
    if any(is_unlimited):
        area_ok = total <= n if use_all else True
    else:
        area_ok = total == n if use_all else total >= n
    # pieces that exactly fill the region must all be used: same search, but
    # the use_all pruning and the symmetry break then apply
    use_all = use_all or (total == n and not any(is_unlimited))
    pieces = pieces + unlimited
    nbrs = _ints(index.get((r + dr, c + dc), -1)
                 for r, c in cells for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)))
    hole_cap = HOLE_CAP_FACTOR * max(areas)
    if not area_ok:  # answered INFEASIBLE without a search: no placement tables
        return PlacementTables(use_all=use_all, n=n, cells=tuple(cells), height=height, width=width,
                        types=tuple(tuple(m) for m in members), counts=tuple(counts), ptype=_ints(),
                        pstart=_ints([0]), pflat=_ints(), syms=(), syms_flat=_ints(), sym_names=(),
                        break_type=-1, rawmul=array("q"), symmask=_ints(), area_ok=False, nbrs=nbrs,
                        hole_cap=hole_cap, unlimited=tuple(is_unlimited))

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
    by_type: list[list[list[tuple[int, ...]]]] = []   # per type, per orientation: placements by anchor
    for t, per in enumerate(shapes):
        found: list[list[tuple[int, ...]]] = []
        for k, offs in per:
            clock.check()
            cols = [grid[base + du * vp + dv: base + du * vp + dv + span] for du, dv in offs]
            found.append([tup for tup in zip(*cols) if -1 not in tup])
        by_type.append(found)

    # region symmetries as permutations of cell indices
    sym_idx = symmetry_indices(cells, mirror)
    syms: list[list[int]] = []
    names = []
    for k in sym_idx[1:]:
        transform = TRANSFORMS[k]
        perm = []
        for r, c in cells:
            nr, nc = transform(r - r0, c - c0, bh, bw)
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
        sizes = sorted((sum(len(f) for f in by_type[t]), t) for t, cnt in enumerate(counts)
                       if cnt == 1 and not is_unlimited[t])
        # (orbits, type, representatives, stabiliser masks)
        best: tuple[int, int, list[tuple[int, ...]], dict[tuple[int, ...], int]] | None = None
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
            reps: list[tuple[int, ...]] = []
            stab: dict[tuple[int, ...], int] = {}
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
    return PlacementTables(
        use_all=use_all, n=n, nbrs=nbrs, hole_cap=hole_cap, cells=tuple(cells), height=height, width=width,
        types=tuple(tuple(m) for m in members), counts=tuple(counts),
        ptype=ptype, pstart=pstart, pflat=pflat, syms=sym_arrays,
        syms_flat=_ints(chain.from_iterable(syms)), sym_names=tuple(names), break_type=break_type,
        rawmul=rawmul, symmask=symmask, area_ok=area_ok, unlimited=tuple(is_unlimited),
    )



def restrict_tables(tables: PlacementTables, keep: Sequence[int]) -> PlacementTables:
    """``tables`` with only the placements ``keep`` (indices, still in anchor order)."""
    ptype, pstart, pflat = _ints(tables.ptype[p] for p in keep), _ints([0]), _ints()
    for p in keep:
        pflat.extend(tables.pflat[tables.pstart[p]:tables.pstart[p + 1]])
        pstart.append(len(pflat))
    return replace(tables, ptype=ptype, pstart=pstart, pflat=pflat,
                   rawmul=array("q", (tables.rawmul[p] for p in keep)),
                   symmask=_ints(tables.symmask[p] for p in keep))
