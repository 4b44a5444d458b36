"""Puzzle input: the region's rows, the pieces, the region's symmetries.

>>> parse_region("../..")
(('..', '..'), 2, 2)
>>> [p.to_str() for p in parse_pieces(["##", "#/#"])]
['##', '#/#']
>>> region_symmetries(["....", "...."])
('identity', 'rot180', 'flip-lr', 'flip-ud')
>>> region_symmetries(["..", ".."], mirror=False)
('identity', 'rot90', 'rot180', 'rot270')
"""

from __future__ import annotations

from typing import Sequence

from ..geometry import MAX_GRID, BoardError, Shape, ShapeError
from ..types import SolverInputError

__all__ = ["Cell", "TRANSFORMS", "TRANSFORM_NAMES", "parse_region", "parse_pieces", "parse_unlimited", "region_cells",
           "symmetry_indices", "region_symmetries"]

Cell = tuple[int, int]

# The 8 symmetries of the square acting on (r, c) in an h x w bounding box;
# the first four are the rotations (proper), the last four the reflections.
TRANSFORMS = (
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


def parse_region(region_rows) -> tuple[tuple[str, ...], int, int]:
    """``(rows, height, width)`` of a region given as rows of ``.`` (to tile)
    and ``#`` (not part of the region), or one string with ``/`` or newlines."""
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


def parse_pieces(pieces, allow_empty: bool = False, field: str = "piece") -> tuple[Shape, ...]:
    """The pieces as ``Shape`` objects (``Shape`` or shape strings such as ``"##./.##"``)."""
    if isinstance(pieces, (str, Shape)) or not isinstance(pieces, Sequence):
        name = "pieces" if field == "piece" else field
        raise SolverInputError(f"{name} must be a list of Shape or shape strings")
    if len(pieces) == 0 and not allow_empty:
        raise SolverInputError("no pieces given")
    out = []
    for i, p in enumerate(pieces):
        if isinstance(p, Shape):
            out.append(p)
        elif isinstance(p, str):
            try:
                out.append(Shape.parse(p))
            except ShapeError as e:
                raise ShapeError(f"{field} {i} ({p!r}): {e}") from None
        else:
            raise ShapeError(f"{field} {i} is {type(p).__name__}; use a Shape or a string like '##./.##'")
    return tuple(out)


def parse_unlimited(unlimited, mirror: bool = True) -> tuple[Shape, ...]:
    """The shapes in unlimited supply as ``Shape`` objects, each once
    (repeats, also as other orientations, are merged).

    >>> [s.to_str() for s in parse_unlimited(["##", "#/#", "###"])]
    ['##', '###']
    """
    shapes = parse_pieces(unlimited, allow_empty=True, field="unlimited")
    seen: set[Shape] = set()
    out = []
    for s in shapes:
        canon = s.canonical(mirror)
        if canon not in seen:
            seen.add(canon)
            out.append(s)
    return tuple(out)


def region_cells(rows: Sequence[str]) -> list[Cell]:
    """The (row, col) of every ``.`` cell, row by row."""
    return [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "."]


def symmetry_indices(cells: Sequence[Cell], mirror: bool) -> list[int]:
    """Indices into ``TRANSFORMS`` of the symmetries mapping ``cells`` onto themselves."""
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    norm = {(r - r0, c - c0) for r, c in cells}
    h = max(r for r, _ in norm) + 1
    w = max(c for _, c in norm) + 1
    out = []
    for k, f in enumerate(TRANSFORMS):
        if not mirror and k >= 4:
            break
        if {f(r, c, h, w) for r, c in norm} == norm:
            out.append(k)
    return out


def region_symmetries(region_rows, mirror: bool = True) -> tuple[str, ...]:
    """Names of the square symmetries mapping the region onto itself.

    >>> region_symmetries("###/#.#/###")
    ('identity', 'rot90', 'rot180', 'rot270', 'flip-lr', 'flip-ud', 'transpose', 'anti-transpose')
    """
    rows, _, _ = parse_region(region_rows)
    return tuple(TRANSFORM_NAMES[k] for k in symmetry_indices(region_cells(rows), mirror))
