"""Plain-value inputs and answers of the solver's public API.

Every answer carries a :class:`SolveStatus`, its placements, objective value,
proven bound and wall time, so a caller always knows whether it is proven.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from .geometry import Board, Cell, Shape, cells_of, BOARD_SIZE


class SolveStatus(enum.Enum):
    OPTIMAL = "OPTIMAL"        # proven best
    FEASIBLE = "FEASIBLE"      # a solution, not proven best (see ``bound``)
    INFEASIBLE = "INFEASIBLE"  # proven: no solution exists
    UNKNOWN = "UNKNOWN"        # time ran out with no solution


class Objective(enum.Enum):
    COVER = "cover"      # maximise covered cells
    SQUARE7 = "square7"  # complete some 7×7 window, then maximise covered cells


class SolverInputError(ValueError):
    """A request the solver cannot accept (bad limits, bad candidate list...)."""


class CountTableFull(MemoryError):
    """A count by dynamic programming over a frontier (``method="frontier"``
    of ``solve_puzzle``) needed a table bigger than its bound
    (``table_bytes``, default 512 MiB): the count was given up."""

    def __init__(self, table_bytes: int):
        super().__init__(f"the frontier count's table would pass its bound of {table_bytes} bytes "
                         f"({table_bytes / 2**20:g} MiB); count by search, or raise table_bytes")
        self.table_bytes = table_bytes


PatchKey = int | str
"""A standard patch id (int), ``-1`` for leather, or a custom shape's text."""


@dataclass(frozen=True)
class Candidate:
    """A patch the solver may place.

    ``count`` copies are available; ``required`` means every copy must be
    placed (the answer is INFEASIBLE if that is impossible).
    """

    key: PatchKey
    shape: Shape
    count: int = 1
    required: bool = False


@dataclass(frozen=True)
class PlacedPatch:
    """One patch on the board: which candidate, which orientation, which cells."""

    key: PatchKey
    orientation: int   # index into candidate.shape.orientations()
    mask: Board        # covered cells, bit r*width+c
    width: int = BOARD_SIZE

    @property
    def cells(self) -> list[Cell]:
        return cells_of(self.mask, self.width)


@dataclass(frozen=True)
class PlacementResult:
    """Answer of ``solve_cover`` / ``solve_square7``."""

    status: SolveStatus
    placements: tuple[PlacedPatch, ...]
    objective: int            # cells covered by the placements
    bound: int                # proven upper bound on ``objective``
    empty_before: int
    empty_after: int
    square7: Cell | None      # top-left corner of a completed 7×7 window
    wall_time: float          # seconds
    engine: str = "cp-sat"    # which search produced/proved it


@dataclass(frozen=True)
class RankedPlacement:
    placement: PlacedPatch
    value: int                # best Cover value (cells of upcoming patches still placeable)
    bound: int
    proven: bool
    square7: Cell | None = None


@dataclass(frozen=True)
class LookaheadResult:
    """Answer of ``rank_placements``: best first."""

    status: SolveStatus
    ranked: tuple[RankedPlacement, ...]
    wall_time: float


@dataclass(frozen=True)
class PuzzleResult:
    """Answer of ``solve_puzzle``."""

    status: SolveStatus
    tilings: tuple[tuple[PlacedPatch, ...], ...] = ()  # found tilings (at most what was asked)
    count: int | None = None          # raw count, when counting
    distinct: int | None = None       # count up to the region's symmetries
    wall_time: float = 0.0
    width: int = 0
    height: int = 0
    method: str | None = None         # which method counted: "search" or "frontier" (None: not a count)
