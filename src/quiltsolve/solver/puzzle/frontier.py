"""Counting tilings by dynamic programming over a frontier (no enumeration).

The region's cells are numbered in scan order along its shorter side (as
the search numbers them, ``tables.py``). Every placement is listed under its
*anchor*, its lowest cell; a placement covers cells up to ``reach`` ahead of
its anchor. Sweeping the cells in order, the DP's state before cell ``i`` is

* the *frontier*: which of the cells ``i .. i + reach - 1`` are already
  covered (by placements anchored before ``i``; every cell before ``i`` is),
* when some pieces come in limited copies, how many copies of each such
  piece type are used,

and the table maps each state to the number of ways to reach it (exact
integers). At cell ``i`` a state whose frontier holds ``i`` moves on; one
that does not must cover ``i`` with a placement anchored there that fits.
After the last cell the count is the sum over the states whose copies
satisfy ``use_all``. The work is (cells) x (states) x (placements per
anchor), whatever the number of tilings: 20x20 dominoes (a 49-digit count)
take about a second in C.

Distinct tilings (up to the region's symmetries G) by Burnside, without
enumerating: ``distinct = sum over g in G of fix(g) / |G|``, where ``fix(g)``,
the number of tilings that ``g`` maps to themselves, is itself a frontier
count on a smaller problem: a g-fixed tiling is a union of orbits of
placements under the cyclic group <g>; so the cells become the orbits of
cells (each named by its lowest cell), the placements the orbits of
pairwise disjoint placements (an orbit of ``m`` placements uses ``m``
copies). ``g`` and ``g**-1`` fix the same tilings (counted once).

>>> from .region import parse_pieces
>>> frontier_count(("..", "..", ".."), (), parse_pieces(["##"]), True, True, True, engine="python")
(3, 8)
>>> frontier_count(("....",) * 4, (), parse_pieces(["##"]), True, True, True, engine="python")
(36, 72)

The C twin ``solver._frontier`` runs the same DP (same tables, same
answers), values as multi-limb integers, the GIL released: its table is a
sorted array stepped by a k-way merge (few placements an anchor), a hash
table (many; two threads on big tables, ``C_THREADS``), or a dense array
indexed by the frontier (no tracked copies, at least half of the frontiers
present). It also drops dead states (a free cell that no placement anchored
at or before it can still cover): the same counts from fewer states.
"""

from __future__ import annotations

import math
import time
from array import array
from dataclasses import dataclass, replace
from typing import Sequence
from weakref import WeakKeyDictionary

from ..geometry import Shape
from ..stop import StopToken
from ..types import CountTableFull, SolverInputError
from .clock import DONE, Abort, Clock
from .tables import PlacementTables, prepare_tables

try:  # optional C DP; the pure-Python one gives the same answers
    from .. import _frontier as frontier_c
except ImportError:  # pragma: no cover - depends on the build
    frontier_c = None

__all__ = ["C_THREADS", "DEFAULT_TABLE_BYTES", "HAVE_C_FRONTIER", "FrontierProblem", "frontier_problem", "fixed_problem",
           "run_dp", "run_dp_py", "run_dp_snaps", "uses_c", "common_prefix", "puzzle_problems", "frontier_count",
           "symmetry_break",
           "count_tables", "tables_for",
           "PY_ENTRY_BYTES"]

HAVE_C_FRONTIER = frontier_c is not None
C_TABLE_FULL = 5      # the C DP's status when its tables would pass table_bytes
# Threads of the C DP's hash steps: 0 as many as the machine has cores, at
# most 2 (1 on a single core); the answers are the same whatever the number.
C_THREADS = 0

# The table bound: a frontier count whose state table would need more bytes
# than this raises CountTableFull (the search may still count the puzzle).
DEFAULT_TABLE_BYTES = 512 * 2**20

# Bytes per state, as the bound counts them: a Python dict entry with its int
# key and value (two tables, old and new, live during a step) ...
PY_ENTRY_BYTES = 2 * (104 + 8)
# (The C DP counts its allocated bytes exactly: 16-byte keys and 8 bytes per
# limb of each entry, 4 bytes per hash slot, the old and the new table.)


@dataclass(frozen=True)
class FrontierProblem:
    """One DP: ``n`` cells in sweep order, placements by anchor.

    ``groups[a]`` holds the placements anchored at cell ``a`` as
    ``(mask, slot, mult)``: ``mask`` has bit ``d`` for the cell ``a + d``
    (bit 0 always set), ``slot`` is the tracked type (-1: not tracked) and
    ``mult`` the copies it uses. Tracked type ``k`` may use at most
    ``caps[k]`` copies, and with ``need_full[k]`` exactly that many (its
    last anchor is ``last[k]``: past it, a state short of them is dropped).
    """

    n: int
    reach: int
    groups: tuple[tuple[tuple[int, int, int], ...], ...]
    caps: tuple[int, ...]
    need_full: tuple[bool, ...]
    last: tuple[int, ...]
    # With a symmetry break (frontier_problem's ``broken``): the order of the
    # region's symmetry group, about how many times fewer states the DP keeps
    # than without it (the cost estimate of ``choose.py`` divides by it).
    break_order: int = 1
    # With use_all and no unlimited type: a tracked slot whose copies follow
    # from the others' and the cells covered (-1: none); it adds no states,
    # which the cost estimate knows.
    implied_slot: int = -1

    @property
    def shifts(self) -> tuple[int, ...]:
        """Bit offset of each tracked type's used-copies field in a state's copies word."""
        out, at = [], 0
        for c in self.caps:
            out.append(at)
            at += c.bit_length()
        return tuple(out)

    @property
    def copy_bits(self) -> int:
        return sum(c.bit_length() for c in self.caps)

    @property
    def placements(self) -> int:
        return sum(map(len, self.groups))


def _tracked(tables: PlacementTables, caps: Sequence[int], areas: Sequence[int], n: int,
             keep: int = -1) -> list[bool]:
    """Which types the state must count copies of.

    Not those in unlimited supply, nor (without ``use_all``) those whose
    copies could cover the region on their own (they never run out). With
    ``use_all`` and no unlimited type, the pieces' areas add up to the
    region's, and the copies used of any one type follow from the others'
    and the cells covered: tracking it adds no state, but it lets the dead
    states' check and the drop past its last anchor see it (tracking all 12
    pentominoes once each is 1.5-1.9x faster than leaving one untracked).
    So a type goes untracked only where the copies word would pass the C
    DP's 64 bits: the one with the most copies (never ``keep``, the symmetry
    break's type: its states must die as soon as the sweep passes its last
    kept placement).
    """
    ntypes = len(caps)
    unl = tables.unlimited or (False,) * ntypes
    track = [not unl[t] and caps[t] > 0 for t in range(ntypes)]
    if not tables.use_all:
        for t in range(ntypes):
            if caps[t] * areas[t] >= n:
                track[t] = False
    elif not any(unl) and sum(caps[t].bit_length() for t in range(ntypes) if track[t]) > 64:
        cand = [t for t in range(ntypes) if track[t] and t != keep]
        if cand:
            track[max(cand, key=lambda t: (caps[t], -t))] = False
    return track


def symmetry_break(tables: PlacementTables, clock: Clock | None = None) -> tuple[int, dict[tuple[int, ...], int]]:
    """The identity DP's symmetry break: ``(type, {kept placement: weight})``,
    or ``(-1, {})`` where none applies.

    As the search's (``tables.py``): with ``use_all``, a region with
    symmetries and a piece used exactly once, that piece keeps one placement
    per orbit under the region's symmetries G (its first in the sweep, the
    type with the fewest orbits, the lowest among equals: X on 6x10, 8 of
    32). Every tiling puts that piece on exactly one placement, so the raw
    count is the sum over the kept placements P of ``|orbit(P)|`` times the
    tilings with the piece on P: each kept placement counts with that
    weight. The DP's states are the fewer for it: none holds the piece
    elsewhere, and once the sweep passes the last kept placement every state
    without it is dropped (12 pentominoes once each on 6x10: 5x faster).
    """
    syms = tables.syms
    if not syms or not tables.use_all:
        return -1, {}
    order = len(syms) + 1
    unl = tables.unlimited or (False,) * len(tables.counts)
    by_type: dict[int, list[int]] = {}
    for p in range(tables.nplacements):
        t = tables.ptype[p]
        if tables.counts[t] == 1 and not unl[t]:
            by_type.setdefault(t, []).append(p)
    best: tuple[int, int, dict[tuple[int, ...], int]] | None = None
    for size, t in sorted((len(ps), t) for t, ps in by_type.items()):
        if best is not None and -(-size // order) > best[0]:
            break        # an orbit has at most |G| placements: no fewer orbits from here on
        orbits: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
        for j, p in enumerate(by_type[t]):
            if clock is not None and not j & 1023:
                clock.check()
            cells = tables.pcells(p)
            images = {cells}
            images.update(tuple(sorted(g[c] for c in cells)) for g in syms)
            orbits.setdefault(min(images), images)
        if best is None or (len(orbits), t) < (best[0], best[1]):
            best = (len(orbits), t, {rep: len(images) for rep, images in orbits.items()})
    if best is None:
        return -1, {}
    return best[1], best[2]


def _build(n: int, placements: Sequence[tuple[tuple[int, ...], int, int]], caps: Sequence[int],
           track: Sequence[bool], required: Sequence[bool]) -> FrontierProblem | None:
    """A FrontierProblem from placements ``(sorted cells, type, mult)``; None when no tiling can exist."""
    slot_of: dict[int, int] = {}
    for t, tr in enumerate(track):
        if tr:
            slot_of[t] = len(slot_of)
    groups: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
    covered = bytearray(n)
    last = [-1] * len(slot_of)
    mults: dict[int, int] = {}
    reach = 1
    for cells, t, m in placements:
        a = cells[0]
        mask = 0
        for c in cells:
            mask |= 1 << (c - a)
            covered[c] = 1
        reach = max(reach, cells[-1] - a + 1)
        s = slot_of.get(t, -1)
        if m > caps[t]:
            continue
        groups[a].append((mask, s, m if s >= 0 else 1))   # untracked: the copies used do not matter
        mults[t] = math.gcd(mults.get(t, 0), m)
        if s >= 0:
            last[s] = max(last[s], a)
    if not all(covered):
        return None    # some cell no placement covers
    for t, c in enumerate(caps):
        if required[t] and c and (t not in mults or c % mults[t]):
            return None   # the copies of t cannot all be used
    return FrontierProblem(
        n=n, reach=reach, groups=tuple(tuple(g) for g in groups),
        caps=tuple(caps[t] for t in slot_of), need_full=tuple(required[t] for t in slot_of),
        last=tuple(last))


def _required(tables: PlacementTables) -> list[bool]:
    unl = tables.unlimited or (False,) * len(tables.counts)
    return [tables.use_all and not u for u in unl]


def _areas(tables: PlacementTables) -> list[int]:
    areas = [0] * len(tables.counts)
    for p in range(tables.nplacements):
        areas[tables.ptype[p]] = tables.pstart[p + 1] - tables.pstart[p]
    return areas


def frontier_problem(tables: PlacementTables, clock: Clock | None = None,
                     broken: tuple[int, dict[tuple[int, ...], int]] = (-1, {})) -> FrontierProblem | None:
    """The DP counting every tiling of ``tables`` (built without the search's
    symmetry break), with ``broken`` (:func:`symmetry_break`) its own break:
    the break type's kept placements only, each listed as many times as its
    weight (the DP sums the copies: the count times the weight). ``clock``
    (checked every 4,096 placements) may raise ``Abort``."""
    n = tables.n
    caps = list(tables.counts)
    btype, kept = broken
    track = _tracked(tables, caps, _areas(tables), n, keep=btype)
    pls = []
    for p in range(tables.nplacements):
        if clock is not None and not p & 4095:
            clock.check()
        cells, t = tables.pcells(p), tables.ptype[p]
        if t == btype:
            for _ in range(kept.get(cells, 0)):
                pls.append((cells, t, 1))
        else:
            pls.append((cells, t, 1))
    prob = _build(n, pls, caps, track, _required(tables))
    if prob is not None and btype >= 0:
        prob = replace(prob, break_order=len(tables.syms) + 1)
    if prob is not None and prob.caps and tables.use_all and not any(tables.unlimited or ()):
        caps_left = prob.caps
        prob = replace(prob, implied_slot=max(range(len(caps_left)), key=caps_left.__getitem__))
    return prob


def _group(perm: Sequence[int]) -> list[list[int]]:
    """The powers of a cell permutation, identity excluded."""
    out = []
    ident = list(range(len(perm)))
    cur = list(perm)
    while cur != ident:
        out.append(cur)
        cur = [perm[c] for c in cur]
    return out


def fixed_problem(tables: PlacementTables, perm: Sequence[int], clock: Clock | None = None,
                  keep: int = -1) -> FrontierProblem | None:
    """The DP counting the tilings that the symmetry ``perm`` maps to
    themselves: over the orbits of cells and of placements under ``<perm>``;
    ``keep``: a type to track in any case (the identity's break type, so
    that both DPs track the same types); ``clock`` (checked every 1,024
    placements) may raise ``Abort``."""
    n = tables.n
    powers = _group(perm)
    rep = list(range(n))
    for g in powers:
        for c in range(n):
            if g[c] < rep[c]:
                rep[c] = g[c]
    reps = sorted(set(rep))
    rank = {c: i for i, c in enumerate(reps)}
    caps = list(tables.counts)
    track = _tracked(tables, caps, _areas(tables), n, keep=keep)
    pls = []
    for p in range(tables.nplacements):
        if clock is not None and not p & 1023:
            clock.check()
        cells = tables.pcells(p)
        images = {cells}
        for g in powers:
            images.add(tuple(sorted(g[c] for c in cells)))
        if min(images) != cells:
            continue      # the orbit is listed once, by its smallest member
        m = len(images)
        if len(set().union(*images)) != m * len(cells):
            continue      # images overlap: never in a fixed tiling
        qcells = tuple(sorted({rank[rep[c]] for c in cells}))
        pls.append((qcells, tables.ptype[p], m))
    pls.sort(key=lambda x: x[0][0])
    return _build(len(reps), pls, caps, track, _required(tables))


# A snapshot of a DP's table before some cell: ("py", table) with the Python
# DP's keys (frontier << copy_bits | copies), or ("c", limbs, entries) as the
# C DP hands it back. A fixed-point count starts from the identity count's
# snapshot where their tables still agree (see common_prefix).
Snapshot = tuple


def _to_py(snap: Snapshot, cb: int) -> dict[int, int]:
    if snap[0] == "py":
        return snap[1]
    _, limbs, data = snap
    words = array("Q")
    words.frombytes(data)
    w = 2 + limbs
    out = {}
    for k in range(0, len(words), w):
        v = 0
        for j in range(limbs - 1, -1, -1):
            v = v << 64 | words[k + 2 + j]
        out[words[k] << cb | words[k + 1]] = v
    return out


def _to_c(snap: Snapshot, cb: int) -> tuple[int, bytes]:
    if snap[0] == "c":
        return snap[1], snap[2]
    table = snap[1]
    limbs = max(1, max((v.bit_length() for v in table.values()), default=1) + 63 >> 6)
    words = array("Q")
    cmask = (1 << cb) - 1
    # the C DP keeps its entries sorted by (copies, frontier)
    for key, v in sorted(table.items(), key=lambda kv: (kv[0] & cmask, kv[0] >> cb)):
        words.append(key >> cb)
        words.append(key & cmask)
        for _ in range(limbs):
            words.append(v & 0xFFFFFFFFFFFFFFFF)
            v >>= 64
    return limbs, words.tobytes()


def run_dp_py(prob: FrontierProblem, clock: Clock, table_bytes: int, init: tuple[int, Snapshot] | None = None,
              snaps: Sequence[int] = ()) -> tuple[int, dict[int, Snapshot]]:
    """The pure-Python DP: the number of tilings of ``prob``, and the
    snapshots asked for (``snaps``: cells); ``init``: ``(cell, snapshot)`` to start from."""
    n, groups = prob.n, prob.groups
    shifts = prob.shifts
    caps = prob.caps
    cb = prob.copy_bits
    cmask = (1 << cb) - 1
    fields = [((1 << c.bit_length()) - 1, s, c) for c, s in zip(caps, shifts)]
    # per cell: the tracked types whose last anchor is this cell and must be full
    expire: list[list[int]] = [[] for _ in range(n)]
    for k, a in enumerate(prob.last):
        if prob.need_full[k]:
            if a < 0:
                return 0, {}
            expire[a].append(k)
    # placement transitions, precomputed per anchor: (mask << cb, slot, add, field mask, cap limit)
    steps = []
    for a in range(n):
        lst = []
        for mask, s, m in groups[a]:
            if s < 0:
                lst.append((mask << cb, 0, 0, 0))
            else:
                fm, sh, cap = fields[s]
                lst.append((mask << cb, m << sh, fm << sh, (cap - m) << sh))
        steps.append(lst)
    limit = max(1, table_bytes // PY_ENTRY_BYTES)
    bit0 = 1 << cb
    i0, table = (0, {0: 1}) if init is None else (init[0], _to_py(init[1], cb))
    want = set(snaps)
    taken: dict[int, Snapshot] = {}
    for i in range(i0, n):
        if i in want:
            taken[i] = ("py", table)
        clock.check()
        new: dict[int, int] = {}
        get = new.get
        lst = steps[i]
        for j, (key, val) in enumerate(table.items()):
            if not j & 4095 and j:
                clock.check()
            if key & bit0:
                k2 = (key >> (cb + 1) << cb) | (key & cmask)
                new[k2] = get(k2, 0) + val
                continue
            for mask, add, fm, lim in lst:
                if key & mask:
                    continue
                if fm and (key & fm) > lim:
                    continue
                k2 = key | mask
                k2 = (k2 >> (cb + 1) << cb) | ((k2 & cmask) + add)
                new[k2] = get(k2, 0) + val
        for k in expire[i]:
            fm, sh, cap = fields[k]
            full = cap << sh
            fm <<= sh
            new = {key: v for key, v in new.items() if key & fm == full}
        if len(new) > limit:
            raise CountTableFull(table_bytes)
        table = new
    if n in want:
        taken[n] = ("py", table)
    total = 0
    need = [(fields[k][0] << fields[k][1], fields[k][2] << fields[k][1])
            for k in range(len(caps)) if prob.need_full[k]]
    for key, v in table.items():
        if key >> cb == 0 and all(key & fm == full for fm, full in need):
            total += v
    return total, taken


def uses_c(prob: FrontierProblem, engine: str = "auto") -> bool:
    """Whether ``run_dp`` runs ``prob`` in C: built, not ``engine="python"``,
    and its state fits the C keys (a frontier and a copies word of 64 bits each)."""
    if engine == "c" and frontier_c is None:
        raise SolverInputError("the C frontier counter (solver._frontier) is not built")
    return engine != "python" and frontier_c is not None and prob.reach <= 64 and prob.copy_bits <= 64


def run_dp(prob: FrontierProblem, clock: Clock, table_bytes: int, engine: str = "auto",
           init: tuple[int, Snapshot] | None = None, snaps: Sequence[int] = ()) -> int:
    """The number of tilings of ``prob``, by the C DP (when :func:`uses_c`)
    or the pure-Python one."""
    return run_dp_snaps(prob, clock, table_bytes, engine, init, snaps)[0]


def run_dp_snaps(prob: FrontierProblem, clock: Clock, table_bytes: int, engine: str = "auto",
                 init: tuple[int, Snapshot] | None = None,
                 snaps: Sequence[int] = ()) -> tuple[int, dict[int, Snapshot]]:
    """:func:`run_dp` with the snapshots of its table before the cells ``snaps``."""
    if not uses_c(prob, engine):
        return run_dp_py(prob, clock, table_bytes, init, snaps)
    return _run_dp_c(prob, clock, table_bytes, init, snaps)


def c_arrays(prob: FrontierProblem) -> tuple:
    """The C DP's flat tables of ``prob`` (see ``solver/_frontier.c``)."""
    shifts, caps = prob.shifts, prob.caps
    fields = [((1 << c.bit_length()) - 1) << sh for c, sh in zip(caps, shifts)]
    pstart, masks, adds, fms, lims = array("q", [0]), array("Q"), array("Q"), array("Q"), array("Q")
    for g in prob.groups:
        for mask, slot, m in g:
            masks.append(mask)
            if slot < 0:
                adds.append(0)
                fms.append(0)
                lims.append(0)
            else:
                adds.append(m << shifts[slot])
                fms.append(fields[slot])
                lims.append((caps[slot] - m) << shifts[slot])
        pstart.append(len(masks))
    expire: list[list[int]] = [[] for _ in range(prob.n)]
    for k, a in enumerate(prob.last):
        if prob.need_full[k] and a >= 0:
            expire[a].append(k)
    estart, efm, efull = array("q", [0]), array("Q"), array("Q")
    for ks in expire:
        for k in ks:
            efm.append(fields[k])
            efull.append(caps[k] << shifts[k])
        estart.append(len(efm))
    need = [k for k in range(len(caps)) if prob.need_full[k]]
    need_fm = array("Q", [fields[k] for k in need])
    need_full = array("Q", [caps[k] << shifts[k] for k in need])
    return pstart, masks, adds, fms, lims, estart, efm, efull, need_fm, need_full


def _run_dp_c(prob: FrontierProblem, clock: Clock, table_bytes: int, init: tuple[int, Snapshot] | None,
              snaps: Sequence[int]) -> tuple[int, dict[int, Snapshot]]:
    if any(prob.need_full[k] and a < 0 for k, a in enumerate(prob.last)):
        return 0, {}
    clock.check()
    c_init = None if init is None else (init[0],) + _to_c(init[1], prob.copy_bits)
    flag = bytearray(1)

    def set_flag() -> None:
        flag[0] = 1

    stop = clock.stop
    if stop is not None:
        stop.attach(set_flag)
    try:
        left = max(0.0, clock.deadline - time.perf_counter()) if math.isfinite(clock.deadline) else 1e18
        status, data, _peak, taken = frontier_c.count(prob.n, prob.reach, *c_arrays(prob), table_bytes, left, flag,
                                                      c_init, list(snaps), C_THREADS)
    finally:
        if stop is not None:
            stop.detach(set_flag)
    if status == C_TABLE_FULL:
        raise CountTableFull(table_bytes)
    if status != DONE:
        raise Abort(status)
    return int.from_bytes(data, "little"), {k: ("c", limbs, raw) for k, limbs, raw in taken}


def tables_for(tables: PlacementTables, rows: tuple[str, ...], shapes: tuple[Shape, ...],
               unlimited: tuple[Shape, ...], mirror: bool, use_all: bool, *, deadline: float = math.inf,
               stop: StopToken | None = None) -> PlacementTables:
    """The tables the frontier counts from: ``tables`` when they have no
    symmetry break, else the (cached) tables built without it."""
    if tables.break_type < 0:
        return tables
    return prepare_tables(rows, shapes, mirror, use_all, False, deadline=deadline, stop=stop, unlimited=unlimited)


def common_prefix(a: FrontierProblem, b: FrontierProblem) -> int:
    """The number of first cells over which the DPs of ``a`` and ``b`` keep
    the same table: same placements anchored there (as sets), same tracked
    types, the same drops. ``b`` may start from ``a``'s snapshot there."""
    if (a.caps, a.need_full) != (b.caps, b.need_full):
        return 0
    k = 0
    limit = min(a.n, b.n)
    while k < limit and sorted(a.groups[k]) == sorted(b.groups[k]):
        k += 1
    for la, lb in zip(a.last, b.last):
        if la != lb and min(la, lb) < k:
            k = min(la, lb) + 1 if min(la, lb) >= 0 else 0
    return k


# The frontier problems of a puzzle (identity, then one per cyclic subgroup
# of its symmetries), kept while its tables are (the tables are cached), for
# tables of at most CACHE_PLACEMENTS placements: as Python tuples they take
# several times the tables' bytes, which the byte-bounded cache does not see.
@dataclass
class _Problems:
    break_type: int                              # the identity DP's symmetry break (-1: none)
    dps: list[FrontierProblem | None]            # the identity's, then the fixed-point ones once built


_PROBLEMS: WeakKeyDictionary = WeakKeyDictionary()
CACHE_PLACEMENTS = 20_000


def puzzle_problems(tables: PlacementTables, clock: Clock | None = None,
                    fixed: bool = True) -> list[FrontierProblem | None]:
    """The identity's DP (with its :func:`symmetry_break`), then (``fixed``)
    the fixed-point DP of each cyclic subgroup ``<g>`` of the region's
    symmetries (in the order of ``tables.syms``, each subgroup once); None
    where no tiling can exist. Built once per tables (kept while they are),
    under ``clock``."""
    got = _PROBLEMS.get(tables)
    if got is None:
        broken = symmetry_break(tables, clock)
        got = _Problems(broken[0], [frontier_problem(tables, clock, broken)])
        if tables.nplacements <= CACHE_PLACEMENTS:
            _PROBLEMS[tables] = got
    if fixed and len(got.dps) == 1:
        more = []
        seen: set[frozenset] = set()
        for perm in tables.syms:
            key = frozenset(tuple(g) for g in _group(perm))
            if key not in seen:
                seen.add(key)
                more.append(fixed_problem(tables, perm, clock, keep=got.break_type))
        got.dps.extend(more)     # all or none: a build cut short keeps nothing
    return got.dps if fixed else got.dps[:1]


def _subgroup_sizes(tables: PlacementTables) -> list[int]:
    """How many symmetries of ``tables.syms`` generate each distinct cyclic subgroup, in order."""
    sizes: dict[frozenset, int] = {}
    for perm in tables.syms:
        key = frozenset(tuple(g) for g in _group(perm))
        sizes[key] = sizes.get(key, 0) + 1
    return list(sizes.values())


def frontier_count(rows: tuple[str, ...], shapes: tuple[Shape, ...], unlimited: tuple[Shape, ...], mirror: bool,
                   use_all: bool, distinct: bool, *, deadline: float = math.inf, stop: StopToken | None = None,
                   table_bytes: int = DEFAULT_TABLE_BYTES, engine: str = "auto") -> tuple[int, int | None]:
    """``(raw count, Burnside's numerator)`` of a puzzle by the frontier DP
    (the numerator None unless ``distinct``; ``distinct = numerator // |G|``).

    Raises ``clock.Abort`` when ``deadline`` (a ``time.perf_counter`` value)
    or ``stop`` runs out, :class:`CountTableFull` past ``table_bytes``.
    """
    tables = prepare_tables(rows, shapes, mirror, use_all, False, deadline=deadline, stop=stop,
                            unlimited=unlimited)
    return count_tables(tables, distinct, Clock(deadline, stop), table_bytes, engine)


def count_tables(tables: PlacementTables, distinct: bool, clock: Clock, table_bytes: int = DEFAULT_TABLE_BYTES,
                 engine: str = "auto") -> tuple[int, int | None]:
    """:func:`frontier_count` of the puzzle of ``tables`` (built without the symmetry break)."""
    if tables.break_type >= 0:
        raise ValueError("the frontier counts from tables without the symmetry break")
    if not tables.area_ok:
        return 0, 0 if distinct else None
    probs = puzzle_problems(tables, clock, fixed=distinct)
    ident, fixed = probs[0], probs[1:] if distinct else []
    if ident is None:
        return 0, 0 if distinct else None
    # a fixed-point DP starts from the identity's table where the two still
    # agree (a fold at the end of the sweep: rot180, the flip along it), when
    # that saves at least a quarter of its cells
    starts = [0 if fp is None else common_prefix(ident, fp) for fp in fixed]
    starts = [k if fp is not None and 4 * k >= fp.n else 0 for k, fp in zip(starts, fixed)]
    raw, taken = run_dp_snaps(ident, clock, table_bytes, engine, snaps=sorted({k for k in starts if k}))
    if not distinct:
        return raw, None
    if raw == 0:
        return 0, 0
    total = raw
    for fp, k, times in zip(fixed, starts, _subgroup_sizes(tables)):
        if fp is None:
            continue
        init = (k, taken[k]) if k else None
        total += times * run_dp(fp, clock, table_bytes, engine, init)
    return raw, total
