"""The search: the C extension ``solver._exactcover`` and its pure-Python twin.

Both fill the lowest empty cell with each placement anchored there whose
piece is still available, in table order (so each tiling is met exactly
once), with the same pruning and node counts: same answers, the C one 10-50x
faster. :func:`count_search` and :func:`find_search` run one call's search
(the find one with restarts) on either; :func:`search_once` is one pass.

>>> from .region import parse_pieces
>>> from .tables import prepare_tables
>>> t = prepare_tables(("...", "..."), parse_pieces(["##", "##", "##"]), True, True)
>>> status, raw, burnside, sols, nodes = count_search(t, 5, 10.0, None, "python")
>>> status == DONE, raw, burnside // (len(t.syms) + 1), sols
(True, 3, 2, [(0, 2, 6), (1, 3, 5), (1, 4, 6)])
>>> count_search(t, 5, 10.0, None, "auto") == count_search(t, 5, 10.0, None, "python")
True
"""

from __future__ import annotations

import math
import random
import time

from ..bitsearch import luby
from ..geometry import MAX_GRID
from ..stop import StopToken
from ..types import SolverInputError
from .clock import DONE, ENOUGH, NODE_LIMIT, STOPPED, TIMEOUT, Abort, Clock
from .tables import PlacementTables

try:  # optional C search; the pure-Python one gives the same answers
    from .. import _exactcover as exactcover
except ImportError:  # pragma: no cover - depends on the build
    exactcover = None

__all__ = ["HAVE_C_SEARCH", "ENGINES", "FIND_RESTART_NODES", "MAX_FIND_RESTARTS", "exactcover", "check_engine",
           "PyTables", "search_py", "search_once", "count_search", "find_search"]

HAVE_C_SEARCH = exactcover is not None
ENGINES = ("auto", "c", "python")

# Finding one tiling has a heavy tail: the order in which piece types are
# tried decides between milliseconds and minutes on big regions (15x20 from 5
# pentomino sets: 1.7k nodes with some orders, > 2M with most). So find mode
# restarts with a seeded shuffle of the type order, with Luby's budgets of
# FIND_RESTART_NODES x (1, 1, 2, 1, 1, 2, 4, ...) search nodes, and after
# MAX_FIND_RESTARTS runs once without a budget (so INFEASIBLE is still proven).
# Node counts are the same in C and Python, so answers stay identical. (The
# placement search's restarts, solver.bitsearch, have their own budgets.)
FIND_RESTART_NODES = 20_000
MAX_FIND_RESTARTS = 100


def check_engine(engine: str) -> bool:
    """Whether ``engine`` (``"auto"``, ``"c"`` or ``"python"``) runs the C search."""
    if engine not in ENGINES:
        raise SolverInputError(f"unknown engine {engine!r}")
    if engine == "c" and exactcover is None:
        raise SolverInputError("the C search (solver._exactcover) is not built")
    return engine != "python" and exactcover is not None


_BITS = [1 << i for i in range(MAX_GRID * MAX_GRID + 1)]


class PyTables:
    """What the pure-Python search derives from a problem (placement masks,
    anchor groups, cells next to each placement), built once per call and
    shared by its restarts; the build honours ``clock``."""

    def __init__(self, prob: PlacementTables, clock: Clock, hole: bool):
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
        # (types in unlimited supply are never required: their deadline is past the end)
        required = prob.required
        if required is not None:
            last = [a if required[t] else n + 1 for t, a in enumerate(last)]
        self.deadlines = sorted((a, t) for t, a in enumerate(last) if a <= n) + [(n + 1, 0)]
        self.leaf_check = required is not None
        self.area = area
        self.border = border
        self.hole = hole


def search_py(tables: PyTables, counts, syms, break_type, rawmul, symmask, count_all,
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
            if g == 0:
                return True
            assert mn is not None  # g > 0: some type has an area
            if len(comp) < mn or len(comp) % g:
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

    leaf_check = use_all and tables.leaf_check

    def leaf() -> None:
        if leaf_check and any(cnt[t] for _, t in deadlines[:-1]):
            return   # a required piece left over (only the unlimited ones may be)
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
                raise Abort(ENOUGH)

    def dfs(board: int) -> None:
        acc[2] += 1
        if not acc[2] & 15:
            if time.monotonic() >= deadline:
                raise Abort(TIMEOUT)
            if stop is not None and stop():
                raise Abort(STOPPED)
        if node_limit and acc[2] > node_limit:
            raise Abort(NODE_LIMIT)
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

    status = DONE
    if stop is not None and stop():
        status = STOPPED
    elif time_limit <= 0:
        status = TIMEOUT
    else:
        try:
            dfs(0)
        except Abort as e:
            status = e.code
    return status, acc[0], acc[1], sols, acc[2]


class _Run:
    """One call's searches of one table set: the engine, the pure-Python
    search's tables (built under ``clock``: may raise ``Abort``) and, for the
    C search, the stop token wired to a flag it reads without the GIL."""

    def __init__(self, tables: PlacementTables, use_c: bool, stop: StopToken | None, clock: Clock,
                 hole: bool):
        self.tables = tables
        self.use_c = use_c
        self.stop = stop
        self.py = None if use_c else PyTables(tables, clock, hole)
        self.flag = bytearray(1)

    def _set_flag(self) -> None:
        self.flag[0] = 1

    def __enter__(self) -> "_Run":
        if self.use_c and self.stop is not None:
            self.stop.attach(self._set_flag)
        return self

    def __exit__(self, *exc) -> None:
        if self.use_c and self.stop is not None:
            self.stop.detach(self._set_flag)

    def search(self, count: bool, max_tilings: int, deadline: float, hole_cap: int = 0, node_limit: int = 0,
               rank: list[int] | None = None) -> tuple:
        t = self.tables
        remaining = deadline - time.perf_counter()
        if self.stop is not None and self.stop.is_set():
            return STOPPED, 0, 0, [], 0
        if remaining <= 0:
            return TIMEOUT, 0, 0, [], 0
        if self.use_c:
            return exactcover.search(
                t.n, t.ptype, t.pstart, t.pflat, t.counts, t.syms_flat, t.break_type, t.rawmul, t.symmask,
                bool(count), int(max_tilings), float(remaining), None if self.stop is None else self.flag,
                t.use_all, t.nbrs, hole_cap, node_limit, rank, t.required)
        assert self.py is not None
        return search_py(self.py, t.counts, t.syms, t.break_type, t.rawmul, t.symmask, bool(count),
                         int(max_tilings), float(remaining), None if self.stop is None else self.stop.is_set,
                         t.use_all, hole_cap, node_limit, rank)


def search_once(tables: PlacementTables, *, count: bool, max_tilings: int, time_limit: float,
                stop: StopToken | None = None, engine: str = "auto", hole_cap: int = 0, node_limit: int = 0,
                rank: list[int] | None = None) -> tuple:
    """One pass of the search, no restarts: ``(status, raw, Burnside numerator,
    tilings as placement-index tuples, nodes)``; ``status`` is a ``clock`` code."""
    deadline = time.perf_counter() + time_limit
    use_c = check_engine(engine)
    clock = Clock(deadline, stop)
    try:
        clock.check()
        run = _Run(tables, use_c, stop, clock, hole=hole_cap > 0)
    except Abort as e:
        return e.code, 0, 0, [], 0
    with run:
        return run.search(count, max_tilings, deadline, hole_cap, node_limit, rank)


def count_search(tables: PlacementTables, max_tilings: int, time_limit: float, stop: StopToken | None = None,
                 engine: str = "auto") -> tuple:
    """Count every tiling (the first ``max_tilings`` kept): ``(status, raw,
    Burnside numerator, first tilings as placement-index tuples, nodes)``.
    Counting visits every tiling whatever the order: no restarts."""
    return search_once(tables, count=True, max_tilings=max_tilings, time_limit=time_limit, stop=stop,
                       engine=engine)


def find_search(tables: PlacementTables, max_tilings: int, time_limit: float, stop: StopToken | None = None,
                engine: str = "auto") -> tuple[int, list[tuple[int, ...]]]:
    """Find up to ``max_tilings`` tilings, with the seeded restarts:
    ``(status, tilings as placement-index tuples)``. Out of time or stopped,
    the tilings are those of the attempt that found the most."""
    deadline = time.perf_counter() + time_limit
    use_c = check_engine(engine)
    clock = Clock(deadline, stop)
    try:
        clock.check()
        run = _Run(tables, use_c, stop, clock, hole=tables.hole_cap > 0)
    except Abort as e:
        return e.code, []
    best: list[tuple[int, ...]] | None = None
    with run:
        attempt = 0
        while True:
            last = attempt >= MAX_FIND_RESTARTS
            rank = None
            if attempt:
                rank = list(range(len(tables.counts)))
                random.Random(attempt).shuffle(rank)
            node_limit = 0 if last else FIND_RESTART_NODES * luby(attempt + 1)
            status, _raw, _num, sols, _nodes = run.search(False, max_tilings, deadline, tables.hole_cap,
                                                          node_limit, rank)
            if best is None or len(sols) > len(best):
                best = sols
            if status != NODE_LIMIT:
                break
            attempt += 1
    if status not in (DONE, ENOUGH):
        sols = best
    return status, sols
