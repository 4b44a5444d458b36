"""The public puzzle object: :class:`PuzzleProblem`, and ``solve_puzzle`` over it.

Prepare a puzzle once (its placement tables are built and cached), then
count or find its tilings, or cut the count into sub-problems:

>>> PENT = ["#####", "##/##/#.", "###/#../#..", "###/.#./.#.", "#../##./.##", "#.../####",
...         ".#./###/.#.", ".##/##./.#.", "##../.###", "#.#/###", "..#/###/#..", ".#../####"]
>>> p = PuzzleProblem.prepare(["." * 20] * 3, PENT)
>>> r = p.count()
>>> r.status.name, r.count, r.distinct
('OPTIMAL', 8, 2)
>>> p.find().status.name
'OPTIMAL'
>>> subs = [p.restrict(pre) for pre in p.extensions()]
>>> sum(s.tally().raw for s in subs), sum(s.tally().burnside for s in subs) // p.order
(8, 2)
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Iterable, Sequence

from ..geometry import Shape
from ..stop import StopToken
from ..types import CountTableFull, PuzzleResult, SolverInputError, SolveStatus
from .choose import METHODS, check_method, choose_method, search_budget
from .clock import DONE, ENOUGH, NODE_LIMIT, STOPPED, Abort, Clock
from .frontier import DEFAULT_TABLE_BYTES, count_tables, tables_for
from .region import parse_pieces, parse_region, parse_unlimited
from .result import CountTally, count_status, expand, find_status
from .search import check_engine, count_search, find_search, search_once
from .tables import PlacementTables, clear_table_cache, prepare_tables, restrict_tables

__all__ = ["PuzzleProblem", "PrepareInterrupted", "check_options", "check_table_bytes", "solve_puzzle",
           "METHODS", "DEFAULT_TABLE_BYTES"]

# With method="frontier" the count lists no tilings by itself: the first
# max_tilings are then found by a find search given at most this long.
FIND_AFTER_FRONTIER = 1.0


class PrepareInterrupted(TimeoutError):
    """:meth:`PuzzleProblem.prepare` ran out of time (``stopped`` False) or
    its stop token was set (``stopped`` True) while building the tables
    (tables cut short are not cached)."""

    def __init__(self, stopped: bool):
        super().__init__("stopped while building the placement tables" if stopped
                         else "out of time while building the placement tables")
        self.stopped = stopped


def _check_time_limit(time_limit) -> None:
    if (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
            or not math.isfinite(time_limit) or time_limit <= 0):
        raise SolverInputError(f"time_limit must be a positive number of seconds, not {time_limit!r}")


def _check_stop(stop) -> None:
    if stop is not None and not callable(getattr(stop, "is_set", None)):
        raise SolverInputError("stop must be a StopToken (an object with is_set())")


def check_table_bytes(table_bytes) -> None:
    """``table_bytes`` must be a positive int: ``SolverInputError`` naming it."""
    if isinstance(table_bytes, bool) or not isinstance(table_bytes, int) or table_bytes <= 0:
        raise SolverInputError(f"table_bytes must be a positive int, not {table_bytes!r}")


def check_options(*, count: bool, max_tilings, time_limit, stop=None, engine: str = "auto") -> None:
    """The options of a count (``count=True``) or find, checked: ``SolverInputError``.

    >>> check_options(count=False, max_tilings=0, time_limit=1.0)
    Traceback (most recent call last):
    ...
    quiltsolve.solver.types.SolverInputError: max_tilings must be >= 1 when finding tilings (count=False)
    """
    if isinstance(max_tilings, bool) or not isinstance(max_tilings, int) or max_tilings < 0:
        raise SolverInputError(f"max_tilings must be an int >= 0, not {max_tilings!r}")
    if not count and max_tilings == 0:
        raise SolverInputError("max_tilings must be >= 1 when finding tilings (count=False)")
    _check_time_limit(time_limit)
    _check_stop(stop)
    check_engine(engine)


def _parse_all(pieces, unlimited, mirror) -> tuple[tuple[Shape, ...], tuple[Shape, ...]]:
    """The limited pieces and the unlimited shapes (duplicates merged), checked."""
    unl = parse_unlimited(unlimited, mirror)
    shapes = parse_pieces(pieces, allow_empty=bool(unl))
    limited = {p.canonical(mirror) for p in shapes}
    for u in unl:
        if u.canonical(mirror) in limited:
            raise SolverInputError(f"unlimited: shape {u.to_str()!r} is also one of the (limited) pieces")
    return shapes, unl


class PuzzleProblem:
    """A tiling puzzle with its placement tables built: count it, find
    tilings, or cut its count into sub-problems (:meth:`extensions`,
    :meth:`restrict`).

    Made by :meth:`prepare` (or :meth:`restrict`). Placements are numbered
    as in the tables (by anchor cell, then piece type, then orientation);
    a *prefix* is a tuple of placement numbers, the first choices of the
    count search.
    """

    __slots__ = ("rows", "shapes", "unlimited", "mirror", "use_all", "symmetry_break", "tables", "prefix",
                 "_root", "_index", "_aux")

    def __init__(self, rows: tuple[str, ...], shapes: tuple, mirror: bool, use_all: bool, symmetry_break: bool,
                 tables: PlacementTables, *, root: PlacementTables | None = None,
                 index: Sequence[int] | None = None, prefix: tuple[int, ...] = (),
                 unlimited: tuple[Shape, ...] = ()):
        self.rows = rows                       # the region's rows, as parsed
        self.shapes = shapes                   # the pieces, as Shape objects
        self.unlimited = unlimited             # the shapes in unlimited supply (keys len(shapes) + j)
        self.mirror = mirror
        self.use_all = use_all                 # as asked (the tables force it when the areas match)
        self.symmetry_break = symmetry_break
        self.tables = tables                   # solver.puzzle.tables.PlacementTables
        self.prefix = prefix                   # the placements restricted to, in the unrestricted numbering
        self._root = tables if root is None else root
        self._index = index                    # placement number -> unrestricted number (None: same)
        self._aux: dict = {}

    # ----------------------------------------------------------- making ---

    @classmethod
    def prepare(cls, region_rows, pieces, *, mirror: bool = True, use_all: bool = True,
                symmetry_break: bool = True, time_limit: float | None = None,
                stop: StopToken | None = None, unlimited=()) -> PuzzleProblem:
        """The puzzle of ``solve_puzzle(region_rows, pieces, mirror=..., use_all=...,
        unlimited=...)``, its tables built (or taken from the cache).

        Same inputs and input errors as :func:`solve_puzzle`. ``time_limit``
        (seconds) and ``stop`` bound the table build: :class:`PrepareInterrupted`
        when either runs out first. ``symmetry_break=False`` turns the
        symmetry break off (same counts, slower; for tests and benchmarks).

        >>> p = PuzzleProblem.prepare("..../....", ["##"] * 4)
        >>> p.width, p.height, p.nplacements, p.order, p.symmetries
        (4, 2, 10, 4, ('identity', 'rot180', 'flip-lr', 'flip-ud'))
        """
        rows, _, _ = parse_region(region_rows)
        shapes, unl = _parse_all(pieces, unlimited, mirror)
        if time_limit is not None:
            _check_time_limit(time_limit)
        _check_stop(stop)
        deadline = math.inf if time_limit is None else time.perf_counter() + time_limit
        try:
            return cls._prepare(rows, shapes, mirror, use_all, symmetry_break, deadline, stop, unl)
        except Abort as e:
            raise PrepareInterrupted(stopped=e.code == STOPPED) from None

    @classmethod
    def _prepare(cls, rows, shapes, mirror, use_all, symmetry_break, deadline, stop,
                 unlimited: tuple[Shape, ...] = ()) -> PuzzleProblem:
        tables = prepare_tables(rows, shapes, bool(mirror), bool(use_all), bool(symmetry_break),
                                deadline=deadline, stop=stop, unlimited=unlimited)
        return cls(rows, shapes, bool(mirror), bool(use_all), bool(symmetry_break), tables, unlimited=unlimited)

    @staticmethod
    def clear_cache() -> None:
        """Drop every cached puzzle table (``solver.cache_info()["caches"]["puzzle.tables"]``)."""
        clear_table_cache()

    # ------------------------------------------------------------ facts ---

    @property
    def width(self) -> int:
        return self.tables.width

    @property
    def height(self) -> int:
        return self.tables.height

    @property
    def nplacements(self) -> int:
        """Placements in the tables."""
        return self.tables.nplacements

    @property
    def area_ok(self) -> bool:
        """Whether the piece areas allow a tiling at all (else: INFEASIBLE, no tables)."""
        return self.tables.area_ok

    @property
    def order(self) -> int:
        """``|G|``: the number of the region's symmetries counted (identity included)."""
        return len(self._root.syms) + 1

    @property
    def symmetries(self) -> tuple[str, ...]:
        """The names of those symmetries (as :func:`region_symmetries`)."""
        return ("identity",) + self._root.sym_names if self.area_ok else ("identity",)

    @property
    def restricted(self) -> bool:
        """Whether this is the sub-problem of a prefix (made by :meth:`restrict`)."""
        return self._index is not None

    def nbytes(self) -> int:
        """Memory held by the placement tables."""
        return self.tables.nbytes()

    def placement_cells(self, p: int) -> tuple[tuple[int, int], ...]:
        """The grid ``(row, col)`` cells covered by placement ``p``.

        >>> PuzzleProblem.prepare(["..", ".."], ["##", "##"]).placement_cells(0)
        ((0, 0), (0, 1))
        """
        return tuple(self.tables.cells[c] for c in self.tables.pcells(p))

    # ------------------------------------------------ counts and tilings ---

    def tally(self, max_tilings: int = 1, time_limit: float = 10.0, stop: StopToken | None = None,
              engine: str = "auto") -> CountTally:
        """Count every tiling: the raw numbers (``CountTally``), which add up
        over the sub-problems of one level of :meth:`extensions`.

        ``engine``: ``"auto"`` (the C search when it is built), ``"c"`` or
        ``"python"``; the two give the same answers.

        >>> t = PuzzleProblem.prepare(["...", "..."], ["##"] * 3).tally(max_tilings=2, engine="python")
        >>> t.finished, t.raw, t.burnside, t.tilings
        (True, 3, 8, ((0, 2, 6), (1, 3, 5)))
        """
        check_options(count=True, max_tilings=max_tilings, time_limit=time_limit, stop=stop, engine=engine)
        return self._tally(max_tilings, time.perf_counter() + time_limit, stop, engine)

    def _tally(self, max_tilings: int, deadline: float, stop, engine: str) -> CountTally:
        if not self.area_ok:
            return CountTally(finished=True, raw=0, burnside=0, tilings=(), nodes=0)
        status, raw, num, sols, nodes = count_search(self.tables, max_tilings, deadline - time.perf_counter(),
                                                     stop, engine)
        return CountTally(finished=status in (DONE, ENOUGH), raw=raw, burnside=num,
                          tilings=self._unrestricted(sols), nodes=nodes)

    def count(self, max_tilings: int = 1, time_limit: float = 10.0, stop: StopToken | None = None,
              engine: str = "auto", method: str = "search",
              table_bytes: int = DEFAULT_TABLE_BYTES) -> PuzzleResult:
        """Count every tiling: ``solve_puzzle(..., count=True)``'s answer (the
        first ``max_tilings`` tilings with it; 0 is allowed).

        ``method``: ``"search"`` (enumerate the tilings; the default here,
        and what ``"auto"`` takes on a restricted problem), ``"frontier"`` (dynamic
        programming over a frontier, :mod:`.frontier`; :class:`CountTableFull`
        past ``table_bytes``) or ``"auto"`` (:mod:`.choose`). The answer's
        ``method`` says which one counted.

        OPTIMAL / INFEASIBLE when exact, FEASIBLE / UNKNOWN with lower bounds
        when ``time_limit`` or ``stop`` ran out. On a restricted problem
        ``distinct`` is None (Burnside's numerator of a subtree need not be a
        multiple of ``|G|``: add the sub-problems' :meth:`tally` instead).

        >>> r = PuzzleProblem.prepare(["...", "..."], ["##"] * 3).count(max_tilings=0)
        >>> r.status.name, r.count, r.distinct, r.tilings
        ('OPTIMAL', 3, 2, ())
        """
        check_options(count=True, max_tilings=max_tilings, time_limit=time_limit, stop=stop, engine=engine)
        check_method(method)
        check_table_bytes(table_bytes)
        if self.restricted and method == "frontier":
            raise SolverInputError("method must be 'search' (or 'auto') on a restricted problem, not 'frontier'")
        t0 = time.perf_counter()
        return self._count(max_tilings, t0 + time_limit, stop, engine, t0, method, table_bytes)

    def _count(self, max_tilings: int, deadline: float, stop, engine: str, t0: float, method: str = "search",
               table_bytes: int = DEFAULT_TABLE_BYTES) -> PuzzleResult:
        if method == "auto":
            try:
                method = choose_method(self, Clock(deadline, stop))
            except Abort:
                return PuzzleResult(status=SolveStatus.UNKNOWN, count=0, distinct=0, width=self.width,
                                    height=self.height, wall_time=time.perf_counter() - t0)
            if method == "search":
                # the search first, within a budget the frontier would beat
                budget = search_budget(self)
                if budget:
                    status, raw, num, sols, nodes = search_once(
                        self.tables, count=True, max_tilings=max_tilings, time_limit=deadline - time.perf_counter(),
                        stop=stop, engine=engine, node_limit=budget)
                    if status != NODE_LIMIT or not self.area_ok:
                        tally = CountTally(finished=status in (DONE, ENOUGH), raw=raw, burnside=num,
                                           tilings=self._unrestricted(sols), nodes=nodes)
                        return replace(self._result(tally, max_tilings, deadline), wall_time=time.perf_counter() - t0)
                    method = "frontier"
            if method == "frontier":
                try:
                    return self._count_frontier(max_tilings, deadline, stop, engine, t0, table_bytes)
                except CountTableFull:
                    method = "search"
        elif method == "frontier":
            return self._count_frontier(max_tilings, deadline, stop, engine, t0, table_bytes)
        tally = self._tally(max_tilings, deadline, stop, engine)
        return replace(self._result(tally, max_tilings, deadline), wall_time=time.perf_counter() - t0)

    def _count_frontier(self, max_tilings: int, deadline: float, stop, engine: str, t0: float,
                        table_bytes: int) -> PuzzleResult:
        """The count by the frontier DP; the first ``max_tilings`` tilings by a
        short find search (at most ``FIND_AFTER_FRONTIER`` s)."""
        base = PuzzleResult(status=SolveStatus.UNKNOWN, count=0, distinct=0, width=self.width,
                            height=self.height, method="frontier")
        if not self.area_ok:
            return replace(base, status=SolveStatus.INFEASIBLE, wall_time=time.perf_counter() - t0)
        try:
            tables = tables_for(self.tables, self.rows, self.shapes, self.unlimited, self.mirror, self.use_all,
                                deadline=deadline, stop=stop)
            raw, num = count_tables(tables, True, Clock(deadline, stop), table_bytes,
                                    "python" if engine == "python" else "auto")
        except Abort:
            return replace(base, wall_time=time.perf_counter() - t0)
        assert num is not None
        if num % self.order:  # Burnside's sum is a multiple of |G|
            raise AssertionError(f"symmetry count {num} not divisible by {self.order}")
        tilings: tuple = ()
        if raw and max_tilings:
            left = min(deadline - time.perf_counter(), FIND_AFTER_FRONTIER)
            if left > 0:
                status, sols = find_search(self.tables, max_tilings, left, stop, engine)
                tilings = tuple(expand(self._root, self.shapes + self.unlimited, self._unrestricted(sols),
                                       self.mirror, max_tilings, deadline))
        return replace(base, status=count_status(True, raw), tilings=tilings, count=raw, distinct=num // self.order,
                       wall_time=time.perf_counter() - t0)

    def result(self, tally: CountTally, max_tilings: int, wall_time: float = 0.0) -> PuzzleResult:
        """The count's ``PuzzleResult`` from a tally (e.g. the sub-problems'
        tallies, merged by :meth:`CountTally.merge`): its first ``max_tilings``
        tilings expanded, ``distinct = burnside // order``.

        >>> p = PuzzleProblem.prepare(["...", "..."], ["##"] * 3)
        >>> tallies = [p.restrict(pre).tally() for pre in p.extensions()]
        >>> r = p.result(CountTally.merge(tallies, max_tilings=1), max_tilings=1)
        >>> r.status.name, r.count, r.distinct, r.tilings == p.count().tilings
        ('OPTIMAL', 3, 2, True)
        """
        return self._result(tally, max_tilings, math.inf, wall_time)

    def _result(self, tally: CountTally, max_tilings: int, deadline: float, wall_time: float = 0.0) -> PuzzleResult:
        tilings = expand(self._root, self.shapes + self.unlimited, tally.tilings, self.mirror, max_tilings, deadline)
        distinct = None
        if not self.restricted:
            if tally.finished and tally.burnside % self.order:  # Burnside's sum is a multiple of |G|
                raise AssertionError(f"symmetry count {tally.burnside} not divisible by {self.order}")
            distinct = tally.burnside // self.order    # cut short: a lower bound (each orbit adds <= 1)
        return PuzzleResult(status=count_status(tally.finished, tally.raw), tilings=tuple(tilings),
                            count=tally.raw, distinct=distinct, wall_time=wall_time, width=self.width,
                            height=self.height, method="search")

    def find(self, max_tilings: int = 1, time_limit: float = 10.0, stop: StopToken | None = None,
             engine: str = "auto") -> PuzzleResult:
        """Find up to ``max_tilings`` (>= 1) tilings: ``solve_puzzle(...)``'s answer.

        OPTIMAL when that many were found or the search ended with at least
        one, INFEASIBLE when proven none, FEASIBLE / UNKNOWN when time ran out
        with some / none.

        >>> r = PuzzleProblem.prepare("###/#.#/###", ["#"]).find()
        >>> r.status.name, [p.cells for p in r.tilings[0]]
        ('OPTIMAL', [[(1, 1)]])
        >>> PuzzleProblem.prepare(["...", "..."], ["###", "##/#."]).find().status.name
        'INFEASIBLE'
        """
        check_options(count=False, max_tilings=max_tilings, time_limit=time_limit, stop=stop, engine=engine)
        t0 = time.perf_counter()
        return self._find(max_tilings, t0 + time_limit, stop, engine, t0)

    def _find(self, max_tilings: int, deadline: float, stop, engine: str, t0: float) -> PuzzleResult:
        tilings: list = []
        finished = True
        if self.area_ok:
            status, sols = find_search(self.tables, max_tilings, deadline - time.perf_counter(), stop, engine)
            finished = status in (DONE, ENOUGH)
            tilings = expand(self._root, self.shapes + self.unlimited, self._unrestricted(sols), self.mirror,
                             max_tilings, deadline)
        return PuzzleResult(status=find_status(finished, bool(tilings)), tilings=tuple(tilings),
                            wall_time=time.perf_counter() - t0, width=self.width, height=self.height)

    # ------------------------------------------------------ sub-problems ---

    def _facts(self) -> tuple[list[int], list[list[int]], list[int]]:
        """Placement masks, placements by anchor, last anchor of each type (made once)."""
        facts = self._aux.get("facts")
        if facts is None:
            t = self.tables
            masks = [sum(1 << c for c in t.pcells(p)) for p in range(t.nplacements)]
            by_anchor: list[list[int]] = [[] for _ in range(t.n)]
            last = [-1] * len(t.counts)
            for p in range(t.nplacements):
                anchor = t.pflat[t.pstart[p]]
                by_anchor[anchor].append(p)
                last[t.ptype[p]] = anchor
            facts = self._aux["facts"] = (masks, by_anchor, last)
        return facts

    def _board(self, prefix: Sequence[int]) -> tuple[int, list[int]]:
        """The cells a set of placements covers, and the copies left of each type."""
        t = self.tables
        masks = self._facts()[0]
        board = 0
        cnt = list(t.counts)
        for p in prefix:
            if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < t.nplacements:
                raise SolverInputError(f"placement {p!r} is not a placement number in [0, {t.nplacements})")
            if board & masks[p]:
                raise SolverInputError(f"placement {p} overlaps an earlier placement of the prefix")
            board |= masks[p]
            cnt[t.ptype[p]] -= 1
            if cnt[t.ptype[p]] < 0:
                raise SolverInputError(f"placement {p} uses more copies of a piece than there are")
        return board, cnt

    def extensions(self, prefix: Sequence[int] = ()) -> list[tuple[int, ...]] | None:
        """The count search's choices after ``prefix``: ``prefix + (p,)`` for
        every placement ``p`` it tries at the lowest empty cell, in search
        order (``[]``: a dead end; ``None``: ``prefix`` is a whole tiling).

        The sub-problems (:meth:`restrict`) of one level of extensions split
        the count: their raw counts and Burnside numerators add up to this
        problem's, and their first tilings, in order, are its first tilings.

        >>> p = PuzzleProblem.prepare(["...", "..."], ["##"] * 3)
        >>> p.extensions(), p.extensions((0,)), p.extensions((0, 2, 6))
        ([(0,), (1,)], [(0, 2)], None)
        """
        if not self.area_ok:
            return []
        prefix = tuple(prefix)
        board, cnt = self._board(prefix)
        masks, by_anchor, last = self._facts()
        t = self.tables
        free = ((1 << t.n) - 1) & ~board
        if not free:
            return None
        a = (free & -free).bit_length() - 1
        unl = t.unlimited or (False,) * len(cnt)
        if t.use_all and any(cnt[k] and last[k] < a and not unl[k] for k in range(len(cnt))):
            return []
        return [prefix + (p,) for p in by_anchor[a] if cnt[t.ptype[p]] and not board & masks[p]]

    def restrict(self, prefix: Sequence[int]) -> PuzzleProblem:
        """The sub-problem of ``prefix`` (placement numbers of this problem,
        pairwise disjoint): the same search, with only the prefix's
        placements kept on its cells and every placement that overlaps them
        (or belongs to a piece the prefix used up) dropped.

        Its search is this one's subtree under the prefix (every tiling met
        there, with the same symmetry-break multiplier), so over one level of
        :meth:`extensions` the sub-problems' counts add up to this problem's.
        Its tilings (in :meth:`tally`) are numbered as in the unrestricted
        problem, so tallies of different sub-problems can be merged; as
        ``PlacedPatch`` tuples (:meth:`count`, :meth:`find`) they are expanded
        into their orbits like the whole problem's, so with the symmetry
        break an image need not hold the prefix.

        >>> p = PuzzleProblem.prepare(["...", "..."], ["##"] * 3)
        >>> [p.restrict(pre).count().count for pre in p.extensions()]
        [1, 2]
        >>> sub = p.restrict((1,))
        >>> sub.prefix, sub.nplacements, sub.extensions(), sub.restrict((0, 1)).prefix
        ((1,), 5, [(0,)], (1, 3))
        """
        prefix = tuple(prefix)
        board, cnt = self._board(prefix)
        masks = self._facts()[0]
        ptype = self.tables.ptype
        chosen = set(prefix)
        # sorted: table order (by anchor), as the search needs; for a prefix of
        # the search this is the prefix followed by the placements after it
        keep = sorted(chosen.union(p for p, m in enumerate(masks) if cnt[ptype[p]] and not board & m))
        index = keep if self._index is None else [self._index[k] for k in keep]
        root_prefix = tuple(sorted(set(self.prefix).union(
            p if self._index is None else self._index[p] for p in prefix)))
        return PuzzleProblem(self.rows, self.shapes, self.mirror, self.use_all, self.symmetry_break,
                             restrict_tables(self.tables, keep), root=self._root, index=index,
                             prefix=root_prefix, unlimited=self.unlimited)

    def _unrestricted(self, sols: Iterable[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
        if self._index is None:
            return tuple(tuple(s) for s in sols)
        ix = self._index
        return tuple(tuple(ix[i] for i in s) for s in sols)

    def __repr__(self) -> str:
        more = f", prefix={self.prefix}" if self.restricted else ""
        unl = f", {len(self.unlimited)} unlimited" if self.unlimited else ""
        return (f"PuzzleProblem({self.height}x{self.width}, {len(self.shapes)} pieces{unl}, mirror={self.mirror}, "
                f"use_all={self.use_all}, {self.nplacements} placements{more})")


# ------------------------------------------------------------------ API ---

def solve_puzzle(region_rows, pieces, *, count: bool = False, mirror: bool = True,
                 use_all: bool = True, max_tilings: int = 1, time_limit: float = 10.0,
                 stop: StopToken | None = None, unlimited=(), method: str = "auto",
                 table_bytes: int = DEFAULT_TABLE_BYTES) -> PuzzleResult:
    """Tile ``region_rows`` exactly with pieces from the multiset ``pieces``.

    ``region_rows``: rows (list of strings, or one string with ``/`` or
    newlines) of ``.`` (a cell to tile) and ``#`` (not in the region), at most
    20×20. ``pieces``: ``Shape`` objects or shape strings such as ``"##./.##"``;
    repeats are copies. ``mirror``: pieces may be flipped. ``use_all``: every
    piece must be used (else: cover the region with some of them).
    ``unlimited``: shapes in unlimited supply (as many of each as needed;
    ``use_all`` applies to the limited pieces only); in tilings their key is
    ``len(pieces) + j`` for ``unlimited[j]``.

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

    ``method`` (count mode): ``"search"`` enumerates the tilings,
    ``"frontier"`` counts them by dynamic programming over a frontier (no
    tilings visited; raises ``CountTableFull`` when its table would pass
    ``table_bytes``; cut short it answers UNKNOWN with 0 / 0; the tilings
    returned, if any were asked, come from a short find search),
    ``"auto"`` picks the one estimated faster (``docs/puzzle.md``) and falls
    back to the search when the frontier table fills up. The answer's
    ``method`` names the one that counted.

    Tilings are tuples of ``PlacedPatch(key=piece index, orientation=index
    into pieces[key].orientations(mirror), mask=bit r*width+c, width)``.
    The same as ``PuzzleProblem.prepare(...)`` then ``.count(...)`` or
    ``.find(...)``, with one time limit over both.

    >>> r = solve_puzzle(["...", "..."], ["##", "##", "##"], count=True)
    >>> r.status.name, r.count, r.distinct
    ('OPTIMAL', 3, 2)
    """
    t0 = time.perf_counter()
    rows, height, width = parse_region(region_rows)
    shapes, unl = _parse_all(pieces, unlimited, mirror)
    check_options(count=count, max_tilings=max_tilings, time_limit=time_limit, stop=stop)
    check_method(method)
    check_table_bytes(table_bytes)
    deadline = t0 + time_limit
    try:
        problem = PuzzleProblem._prepare(rows, shapes, mirror, use_all, True, deadline, stop, unl)
    except Abort:
        return PuzzleResult(status=SolveStatus.UNKNOWN, count=0 if count else None,
                            distinct=0 if count else None, wall_time=time.perf_counter() - t0,
                            width=width, height=height)
    if count:
        return problem._count(max_tilings, deadline, stop, "auto", t0, method, table_bytes)
    return problem._find(max_tilings, deadline, stop, "auto", t0)
