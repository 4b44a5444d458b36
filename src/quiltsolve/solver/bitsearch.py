"""Exact bitmask branch-and-bound for packing patches on a board.

This is the fast first stage of the placement portfolio (see
``docs/solver.md``): pure Python on plain ``int`` masks, no model to build,
so easy boards are solved and *proved* in well under a millisecond. A node
cap keeps its heavy tail away; when the cap is hit the best packing found so
far becomes the solution hint of the CP-SAT stage, which then proves.

Two search orders, both exact when they finish:

* ``piece`` order (sparse boards, total patch area <= empty cells): patches
  largest first, each is placed at one of its legal placements or skipped.
  Copies of one shape take increasing placement indices (symmetry breaking).
* ``cell`` order (dense boards, more patch area than room): the lowest free
  cell is covered by a placement anchored there, or declared waste. Waste is
  bounded by the incumbent, so near-perfect packings prune hard.

Both use the same bound: covered + max subset sum of the remaining areas that
fits into the remaining free cells (a bitset subset-sum, memoised).

>>> types = [Kind(2, (0b11, 0b110), 1, False), Kind(1, (0b1, 0b10, 0b100), 2, False)]
>>> r = pack(0b111, types)
>>> r.value, r.complete
(3, True)
"""

from __future__ import annotations

import random
import time

from dataclasses import dataclass, field
import warnings
from typing import Any, Sequence

from . import bitboard
from .bitboard import NOT_COL0, NOT_COL8, SIDE
from .bitboard import flood as _flood    # (private name: ``bitsearch.flood`` is a deprecated alias)


@dataclass(frozen=True)
class Kind:
    """One kind of patch: its area, legal masks, copies available, required."""

    area: int
    masks: tuple[int, ...]
    count: int
    required: bool = False


@dataclass
class SearchResult:
    value: int                          # cells covered by ``chosen`` (-1: none found)
    chosen: list[tuple[int, int]]       # (kind index, mask)
    complete: bool                      # search finished: ``value`` is optimal
    nodes: int
    bound: int                          # root upper bound
    stopped: bool = False               # node cap hit


class _Abort(Exception):
    pass


class _Restart(Exception):
    pass


class StopClock(float):
    """A deadline that also counts as passed once ``stop`` is set: the
    searches compare ``now() > deadline`` every 1,024 nodes."""

    stop: Any  # a StopToken (anything with is_set())

    def __new__(cls, deadline: float, stop):
        obj = super().__new__(cls, deadline)
        obj.stop = stop
        return obj

    def __lt__(self, other):
        return self.stop.is_set() or float(self) < other


# Cell search restarts: finding a near-perfect packing has a heavy tail that
# depends on the order placements are tried in, so the search restarts with a
# seeded random order of patch kinds under Luby budgets of RESTART_NODES x
# (1, 1, 2, 1, 1, 2, 4, ...) nodes, keeping the incumbent and the
# transposition table, and finally runs to completion (or the node cap).
RESTART_NODES = 10_000
MAX_RESTARTS = 60
JITTER = 1.5   # random bonus, in cells of area, when sorting kinds on a restart


def luby(i: int) -> int:
    """The Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, ... (i >= 1).

    >>> [luby(i) for i in range(1, 9)]
    [1, 1, 2, 1, 1, 2, 4, 1]
    """
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while True:
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1


def subset_sums(areas: Sequence[int]) -> int:
    """Bitset of reachable subset sums (bit s set when sum s is reachable).

    >>> bin(subset_sums([2, 3]))
    '0b101101'
    """
    r = 1
    for a in areas:
        r |= r << a
    return r


def best_sum(reach: int, cap: int) -> int:
    """Largest reachable sum <= cap.

    >>> best_sum(subset_sums([2, 3]), 4)
    3
    """
    if cap < 0:
        return -1
    return (reach & ((2 << cap) - 1)).bit_length() - 1


def area_bound(free: int, kinds: Sequence[Kind]) -> int:
    """Root bound: best subset sum of the areas that fits the free cells."""
    areas = []
    for k in kinds:
        if k.masks:
            areas.extend([k.area] * min(k.count, len(k.masks)))
    return best_sum(subset_sums(areas), free.bit_count())


def coverable(free: int, kinds: Sequence[Kind]) -> int:
    """Cells of ``free`` that at least one legal placement can cover."""
    u = 0
    for k in kinds:
        for m in k.masks:
            if m & free == m:
                u |= m
    return u


# How often (in nodes) the searches look at the clock and the stop token. A
# node costs 1-30 us, so the deadline is met within a few ms.
CHECK_EVERY = 64


def _late(deadline) -> bool:
    return time.perf_counter() > deadline


class Prepared:
    """:func:`pack`'s set-up for one (free cells, kinds) pair: the kinds'
    masks inside the free cells, the coverable cells, the root bound, and
    (built on first use) the placements by anchor and by covered cell.

    Several packs of the same board (the square-7 windows, tried one after
    the other) share it instead of building it again each time. Building
    honours ``deadline`` / ``stop`` (raises ``TimeoutError``)."""

    __slots__ = ("free", "kinds", "cov", "bound", "_anchored", "_by_cell")

    def __init__(self, free: int, kinds: Sequence[Kind], deadline: float = float("inf"), stop=None):
        if stop is not None:
            deadline = StopClock(deadline, stop)
        out = []
        for i, k in enumerate(kinds):
            if not i & 7 and _late(deadline):
                raise TimeoutError
            out.append(Kind(k.area, tuple(m for m in k.masks if m & free == m), k.count, k.required))
        self.free = free
        self.kinds = out
        self.cov = coverable(free, out)
        self.bound = min(area_bound(self.cov, out), self.cov.bit_count())
        self._anchored: dict[int, list[tuple[int, int, int]]] | None = None
        self._by_cell: dict[int, list[tuple[int, int, int]]] | None = None

    def anchored(self, deadline=float("inf")) -> dict[int, list[tuple[int, int, int]]]:
        """Lowest cell -> (kind, mask, area) anchored there, biggest kinds first. Do not modify."""
        if self._anchored is None:
            self._anchored = _placement_tables(self.kinds, deadline)
        return self._anchored

    def by_cell(self, deadline=float("inf")) -> dict[int, list[tuple[int, int, int]]]:
        """Cell -> (kind, mask, area) covering it, biggest kinds first. Do not modify."""
        if self._by_cell is None:
            self._by_cell = _placement_tables(self.kinds, deadline, by_cell=True)
        return self._by_cell


def _placement_tables(kinds: Sequence[Kind], deadline=float("inf"), by_cell: bool = False):
    """Lowest cell -> the placements anchored there (``by_cell``: cell -> the
    placements covering it), as lists of (kind, mask, area), biggest kinds
    first (ties: kind order), then mask order."""
    out: dict[int, list[tuple[int, int, int]]] = {}
    for j, t in enumerate(sorted(range(len(kinds)), key=lambda t: (-kinds[t].area, t))):
        if not j & 3 and _late(deadline):
            raise TimeoutError
        a = kinds[t].area
        for m in kinds[t].masks:
            item = (t, m, a)
            if not by_cell:
                out.setdefault((m & -m).bit_length() - 1, []).append(item)
                continue
            mm = m
            while mm:
                low = mm & -mm
                out.setdefault(low.bit_length() - 1, []).append(item)
                mm ^= low
    return out


def pack(
    free: int,
    kinds: Sequence[Kind],
    *,
    must: int = 0,
    floor: int = -1,
    node_cap: int = 50_000,
    order: str | None = None,
    target: int | None = None,
    deadline: float = float("inf"),
    seed: int = 0,
    stop=None,
    prepared: Prepared | None = None,
) -> SearchResult:
    """Maximise covered cells of ``free`` with the given kinds.

    ``must``: cells that have to be covered (never waste). ``floor``: only
    solutions covering more than this are of interest (a known incumbent).
    ``target``: stop as soon as a solution reaching it is found (a proven
    upper bound). Masks in ``kinds`` must already avoid filled cells.
    ``deadline`` (``time.perf_counter`` value) and ``stop`` (anything with
    ``is_set()``) are checked on entry, during the set-up and every
    ``CHECK_EVERY`` nodes; so is ``node_cap``. Stopped before the search,
    the answer is ``value -1, complete False`` with a valid bound.
    ``prepared``: the set-up of this (free, kinds) pair, to share it between
    calls (see :class:`Prepared`).
    """
    if stop is not None:
        deadline = StopClock(deadline, stop)
    if prepared is not None and prepared.free != free:
        raise ValueError("prepared tables are for other free cells")
    if _late(deadline):
        return SearchResult(-1, [], False, 0, prepared.bound if prepared else free.bit_count(), True)
    if prepared is None:
        try:
            prepared = Prepared(free, kinds, deadline)
        except TimeoutError:
            return SearchResult(-1, [], False, 0, free.bit_count(), True)
    kinds = prepared.kinds
    if any(k.required and len(k.masks) < k.count for k in kinds):
        return SearchResult(-1, [], True, 0, -1)
    req_area = sum(k.area * k.count for k in kinds if k.required)
    if req_area > free.bit_count() or must & ~free:
        return SearchResult(-1, [], True, 0, -1)
    cov = prepared.cov
    if must & ~cov:
        return SearchResult(-1, [], True, 0, -1)
    bound = prepared.bound
    if target is None or target > bound:
        target = bound
    total = sum(k.area * min(k.count, len(k.masks)) for k in kinds)
    if order is None:
        # Piece order when there is plenty of room (measured: cell order has
        # a tail on sparse boards, piece order an exponential one on dense).
        order = "piece" if total <= 0.85 * cov.bit_count() and not must else "cell"
    if order == "piece":
        return _piece_search(cov, kinds, floor, node_cap, target, bound, deadline)
    try:
        anchored = prepared.anchored(deadline)
        by_cell = prepared.by_cell(deadline) if must else {}
    except TimeoutError:
        return SearchResult(-1, [], False, 0, bound, True)
    return _cell_search(cov, free, kinds, must, floor, node_cap, target, bound, deadline, seed=seed,
                        anchored=anchored, by_cell=by_cell)


def _piece_search(free, kinds, floor, node_cap, target, bound, deadline) -> SearchResult:
    # Items: one per copy, largest area first (ties: kind order), copies of a
    # kind adjacent so they can take increasing placement indices.
    order = sorted(range(len(kinds)), key=lambda t: (-kinds[t].area, t))
    items: list[int] = []
    for t in order:
        items.extend([t] * min(kinds[t].count, len(kinds[t].masks)))
    n = len(items)
    # suffix[k]: subset sums of the items k..n-1; next_kind[k]: first item of
    # a different kind (where "skip this copy" jumps to).
    suffix = [1] * (n + 1)
    for k in range(n - 1, -1, -1):
        suffix[k] = suffix[k + 1] | (suffix[k + 1] << kinds[items[k]].area)
    next_kind = [n] * (n + 1)
    for k in range(n - 2, -1, -1):
        next_kind[k] = next_kind[k + 1] if items[k + 1] == items[k] else k + 1
    req_suffix = [0] * (n + 1)
    for k in range(n - 1, -1, -1):
        req_suffix[k] = req_suffix[k + 1] + (kinds[items[k]].area if kinds[items[k]].required else 0)
    areas = [kinds[t].area for t in items]
    masks = [kinds[t].masks for t in items]
    required = [kinds[t].required for t in items]
    same_next = [k + 1 < n and items[k + 1] == items[k] for k in range(n)]

    best = [floor, None]
    nodes = [0]
    path: list[tuple[int, int]] = []

    now = time.perf_counter

    def rec(k: int, free: int, covered: int, start: int) -> None:
        nodes[0] += 1
        if nodes[0] > node_cap or (not nodes[0] % CHECK_EVERY and now() > deadline):
            raise _Abort
        if k == n:
            if covered > best[0]:
                best[0] = covered
                best[1] = list(path)
                if covered >= target:
                    raise _Abort
            return
        fc = free.bit_count()
        if req_suffix[k] > fc:
            return
        ub = covered + ((suffix[k] & ((2 << fc) - 1)).bit_length() - 1)
        if ub <= best[0]:
            return
        a = areas[k]
        ms = masks[k]
        t = items[k]
        nxt_same = same_next[k]
        for idx in range(start, len(ms)):
            m = ms[idx]
            if m & free == m:
                path.append((t, m))
                rec(k + 1, free ^ m, covered + a, idx + 1 if nxt_same else 0)
                path.pop()
        if not required[k]:
            rec(next_kind[k], free, covered, 0)

    complete = True
    try:
        rec(0, free, 0, 0)
    except _Abort:
        complete = best[0] >= target
    stopped = not complete
    if best[1] is None:
        return SearchResult(-1, [], complete, nodes[0], bound, stopped)
    return SearchResult(best[0], best[1], complete, nodes[0], bound, stopped)


# Pockets up to this size are measured exactly by the cell search's bound.
_POCKET = 10


def _cell_search(free, all_free, kinds, must, floor, node_cap, target, bound, deadline,
                 restarts=True, seed=0, anchored=None, by_cell=None) -> SearchResult:
    nk = len(kinds)
    # Placements anchored at their lowest cell, biggest patches first
    # (shared tables: never modified here; a restart sorts copies).
    if anchored is None:
        anchored = _placement_tables(kinds)
    if must and by_cell is None:
        by_cell = _placement_tables(kinds, by_cell=True)
    # Cells that must be covered are branched on first, over every placement
    # covering them: the window of a 7×7 goal is an exact cover problem, and
    # the cells outside it only matter once it is done.
    covering: dict[int, list[tuple[int, int, int]]] = {}
    if must:
        mm = must
        while mm:
            low = mm & -mm
            i = low.bit_length() - 1
            if i in by_cell:
                covering[i] = by_cell[i]
            mm ^= low
    counts = [min(k.count, len(k.masks)) for k in kinds]
    # Remaining multiset encoded as a mixed-radix int, for the bound cache.
    weight = []
    w = 1
    for c in counts:
        weight.append(w)
        w *= c + 1
    areas = [k.area for k in kinds]
    req_area0 = sum(k.area * counts[t] for t, k in enumerate(kinds) if k.required)
    reqd = [k.required for k in kinds]
    reach_cache: dict[int, int] = {}

    def reach(key: int) -> int:
        r = reach_cache.get(key)
        if r is None:
            r = 1
            for t in range(nk):
                c = (key // weight[t]) % (counts[t] + 1)
                for _ in range(c):
                    r |= r << areas[t]
            reach_cache[key] = r
        return r

    best = [floor, None]
    nodes = [0]
    path: list[tuple[int, int]] = []
    cnt = list(counts)
    key0 = sum(c * w for c, w in zip(counts, weight))
    full = (1 << 81) - 1
    now = time.perf_counter

    # Transposition table: (free cells, remaining multiset) -> most extra
    # cells a finished subtree was shown unable to beat. The same state is
    # reached by placing the same patches in different arrangements.
    seen: dict[tuple[int, int], int] = {}

    limit = [node_cap]

    def rec(free: int, covered: int, key: int, req_left: int, touched: int) -> None:
        nodes[0] += 1
        if nodes[0] > limit[0]:
            raise _Abort if limit[0] >= node_cap else _Restart
        if not nodes[0] % CHECK_EVERY and now() > deadline:
            raise _Abort
        st = (free, key)
        cap = seen.get(st)
        if cap is not None and covered + cap <= best[0]:
            return
        _rec(free, covered, key, req_left, touched)
        # Finished without abort: nothing here beats ``best`` (any better
        # leaf would have raised ``best`` itself).
        if len(seen) < 1_000_000:
            seen[st] = best[0] - covered

    def _rec(free: int, covered: int, key: int, req_left: int, touched: int) -> None:
        r = reach(key)
        # Pockets next to the last change: a pocket smaller than every
        # remaining patch is dead (dropped for good); one that the remaining
        # areas cannot fill exactly loses at least its shortfall.
        lost = 0
        # (bitboard.neighbours written out: this runs at every node)
        nb = ((touched << SIDE) | (touched >> SIDE) | ((touched << 1) & NOT_COL0)
              | ((touched >> 1) & NOT_COL8)) & free
        while nb:
            comp, small = _flood(nb & -nb, free, _POCKET)
            nb &= ~comp
            if small:
                sz = comp.bit_count()
                fit = (r & ((2 << sz) - 1)).bit_length() - 1
                if fit == 0:
                    if comp & must:
                        return
                    free &= ~comp
                else:
                    lost += sz - fit
        if not free:
            if covered > best[0] and req_left == 0:
                best[0] = covered
                best[1] = list(path)
                if covered >= target:
                    raise _Abort
            return
        fc = free.bit_count()
        if req_left > fc - lost:
            return
        ub = covered + ((r & ((2 << (fc - lost)) - 1)).bit_length() - 1)
        if ub <= best[0]:
            return
        mf = free & must
        if mf:
            if not r >> mf.bit_count():
                return      # the remaining patches are too small for the window
            low = mf & -mf
            for t, m, a in covering.get(low.bit_length() - 1, ()):
                if cnt[t] and m & free == m:
                    cnt[t] -= 1
                    path.append((t, m))
                    rec(free ^ m, covered + a, key - weight[t], req_left - (a if reqd[t] else 0), m)
                    path.pop()
                    cnt[t] += 1
            return
        low = free & -free
        for t, m, a in anchored.get(low.bit_length() - 1, ()):
            if cnt[t] and m & free == m:
                cnt[t] -= 1
                path.append((t, m))
                rec(free ^ m, covered + a, key - weight[t], req_left - (a if reqd[t] else 0), m)
                path.pop()
                cnt[t] += 1
        if not low & must:
            rec(free ^ low, covered, key, req_left, low)

    complete = True
    rng = random.Random(seed)
    attempt = 1
    try:
        while True:
            limit[0] = node_cap
            if restarts and attempt <= MAX_RESTARTS:
                limit[0] = min(node_cap, nodes[0] + RESTART_NODES * luby(attempt))
            try:
                rec(free, 0, key0, req_area0, 0)
                break
            except _Restart:
                attempt += 1
                # Jitter around "biggest first": that order is good, only
                # its ties and near-ties are worth reshuffling.
                rank = [-areas[t] + JITTER * rng.random() for t in range(nk)]
                anchored = {i: sorted(lst, key=lambda tma: rank[tma[0]]) for i, lst in anchored.items()}
                path.clear()
                cnt[:] = counts
    except _Abort:
        complete = best[0] >= target
    stopped = not complete
    if best[1] is None:
        return SearchResult(-1, [], complete, nodes[0], bound, stopped)
    return SearchResult(best[0], best[1], complete, nodes[0], bound, stopped)


# Moved to solver.bitboard in 0.3.0 (one set of bitboard helpers); the old
# names warn until 0.4.0.
_MOVED = {"flood": "flood", "neighbours": "neighbours_outside"}


def __getattr__(name: str) -> Any:
    new = _MOVED.get(name)
    if new is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"solver.bitsearch.{name} is deprecated; use solver.bitboard.{new}", DeprecationWarning,
                  stacklevel=2)
    return getattr(bitboard, new)
