"""Answers: found tilings as ``PlacedPatch`` tuples, count tallies, ``PuzzleResult``.

A search hands back tilings as tuples of placement numbers (indices into the
tables); :func:`expand` turns them into ``PlacedPatch`` tuples in the grid as
given, expanding each into its orbit when the symmetry break was on.
:class:`CountTally` is a count's raw numbers, which add up over the
sub-problems of a split count (:mod:`solver.split`).

>>> a = CountTally(finished=True, raw=2, burnside=4, tilings=((1, 5),), nodes=10)
>>> b = CountTally(finished=False, raw=1, burnside=2, tilings=((2, 3),), nodes=4)
>>> CountTally.merge([a, b], max_tilings=1)
CountTally(finished=False, raw=3, burnside=6, tilings=((1, 5),), nodes=14)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..geometry import Shape
from ..types import PlacedPatch, SolveStatus
from .tables import PlacementTables

__all__ = ["CountTally", "expand", "to_tiling", "count_status", "find_status"]


@dataclass(frozen=True)
class CountTally:
    """The raw numbers of one count search (or of several, merged).

    ``burnside`` is Burnside's numerator: the sum over the tilings met of
    ``|Stab(T)|`` times the symmetry-break multiplier; the distinct count of
    a whole problem is ``burnside // |G|``. ``tilings`` are the first ones
    met, as placement numbers of the unrestricted problem.
    """

    finished: bool                           # searched to the end (else: lower bounds)
    raw: int                                 # raw tilings counted
    burnside: int                            # sum of |Stab(T)| x multiplier
    tilings: tuple[tuple[int, ...], ...]     # the first tilings, as placement numbers
    nodes: int                               # search nodes

    @classmethod
    def merge(cls, tallies: Iterable[CountTally | None], max_tilings: int) -> CountTally:
        """The tallies added up, in order (their first tilings, up to
        ``max_tilings``); ``None`` stands for one that never answered."""
        finished, raw, burnside, nodes = True, 0, 0, 0
        sols: list[tuple[int, ...]] = []
        for t in tallies:
            if t is None:
                finished = False
                continue
            finished &= t.finished
            raw += t.raw
            burnside += t.burnside
            nodes += t.nodes
            sols.extend(t.tilings[:max(0, max_tilings - len(sols))])
        return cls(finished=finished, raw=raw, burnside=burnside, tilings=tuple(sols), nodes=nodes)


def count_status(finished: bool, raw: int) -> SolveStatus:
    """A count's status: OPTIMAL / INFEASIBLE when exact, FEASIBLE / UNKNOWN when cut short."""
    if finished:
        return SolveStatus.OPTIMAL if raw else SolveStatus.INFEASIBLE
    return SolveStatus.FEASIBLE if raw else SolveStatus.UNKNOWN


def find_status(finished: bool, found: bool) -> SolveStatus:
    """A find's status: OPTIMAL / INFEASIBLE when the search ended, FEASIBLE / UNKNOWN when cut short."""
    if found:
        return SolveStatus.OPTIMAL if finished else SolveStatus.FEASIBLE
    return SolveStatus.INFEASIBLE if finished else SolveStatus.UNKNOWN


# Past the deadline, turning found tilings into PlacedPatch tuples stops
# after this many (at least one is always returned).
EXPAND_LATE = 16


def expand(tables: PlacementTables, shapes: tuple[Shape, ...], sols: Iterable[Sequence[int]], mirror: bool,
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
        if j and not j % EXPAND_LATE and time.perf_counter() >= deadline:
            break
        base = [(tables.ptype[p], tables.pcells(p)) for p in sol]
        images = [base]
        if tables.break_type >= 0:
            for perm in tables.syms:
                images.append(sorted((t, tuple(sorted(perm[i] for i in cs))) for t, cs in base))
        for img in images:
            key = frozenset(img)
            if key in seen:
                continue
            seen.add(key)
            out.append(to_tiling(tables, shapes, sorted(img, key=lambda tc: tc[1][0]), mirror))
            if len(out) >= limit:
                return out
    return out


def to_tiling(tables: PlacementTables, shapes: tuple[Shape, ...], pieces, mirror: bool) -> tuple[PlacedPatch, ...]:
    """One tiling, given as ``(type, sorted region cells)`` pairs, as ``PlacedPatch``
    tuples; copies of one type are handed out in input order, in the order placed."""
    nxt = [0] * len(tables.types)
    out = []
    for t, cs in pieces:
        i = tables.types[t][nxt[t]]
        nxt[t] += 1
        grid = [tables.cells[c] for c in cs]
        k = shapes[i].orientations(mirror).index(Shape.from_cells(grid))
        mask = sum(1 << (r * tables.width + c) for r, c in grid)
        out.append(PlacedPatch(key=i, orientation=k, mask=mask, width=tables.width))
    return tuple(out)
