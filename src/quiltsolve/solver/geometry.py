"""Polyomino geometry on integer bitboards.

A board is a plain ``int``: bit ``row * width + col`` is set when that cell is
filled. The quilt board is 9×9 (81 bits); puzzle grids may be any size up to
20×20, so every function that builds masks takes the grid ``width`` and
``height`` (default 9×9).

>>> s = Shape.parse("##./.##")
>>> s.area, len(s.orientations())
(4, 4)
>>> cells_of(mask_of([(0, 0), (8, 8)]))
[(0, 0), (8, 8)]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Iterable, Sequence, TypeAlias

from .cache import byte_cached, uniform_sizeof

Board: TypeAlias = int
"""A set of cells as a bitmask; bit ``r * width + c``."""

Cell: TypeAlias = tuple[int, int]

BOARD_SIZE = 9
BOARD_CELLS = BOARD_SIZE * BOARD_SIZE
FULL_BOARD: Board = (1 << BOARD_CELLS) - 1
MAX_GRID = 20
MAX_SHAPE_CELLS = 81


class ShapeError(ValueError):
    """A shape is empty, not 4-connected, too large or badly written."""


class BoardError(ValueError):
    """A board description has the wrong size or unknown characters."""


def _normalise(cells: Iterable[Cell]) -> frozenset[Cell]:
    cells = list(cells)
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def _is_connected(cells: frozenset[Cell]) -> bool:
    start = next(iter(cells))
    seen = {start}
    stack = [start]
    while stack:
        r, c = stack.pop()
        for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if n in cells and n not in seen:
                seen.add(n)
                stack.append(n)
    return len(seen) == len(cells)


@dataclass(frozen=True, order=True)
class Shape:
    """A polyomino, normalised so its top-left bounding corner is (0, 0).

    ``cells`` is sorted row-major; two shapes are equal when their cells are.
    """

    cells: tuple[Cell, ...]

    @classmethod
    def from_cells(cls, cells: Iterable[Cell]) -> "Shape":
        cells = frozenset(cells)
        if not cells:
            raise ShapeError("shape is empty")
        if len(cells) > MAX_SHAPE_CELLS:
            raise ShapeError(f"shape has {len(cells)} cells, more than {MAX_SHAPE_CELLS}")
        norm = _normalise(cells)
        if not _is_connected(norm):
            raise ShapeError("shape is not 4-connected")
        return cls(tuple(sorted(norm)))

    @classmethod
    def from_rows(cls, rows: Sequence[str]) -> "Shape":
        """Build from rows of ``#`` (cloth) and ``.`` (hole).

        >>> Shape.from_rows(["#.", "##"]).cells
        ((0, 0), (1, 0), (1, 1))
        """
        if isinstance(rows, str):
            raise ShapeError("rows must be a list of strings")
        if len(rows) > MAX_SHAPE_CELLS:
            raise ShapeError(f"shape has {len(rows)} rows, more than {MAX_SHAPE_CELLS}")
        cells = []
        for r, row in enumerate(rows):
            if len(row) > MAX_SHAPE_CELLS:
                raise ShapeError(f"shape row {r} is longer than {MAX_SHAPE_CELLS}")
            for c, ch in enumerate(row):
                if ch == "#":
                    cells.append((r, c))
                elif ch != ".":
                    raise ShapeError(f"shape row {r} has {ch!r}; use '#' and '.'")
        return cls.from_cells(cells)

    @classmethod
    def parse(cls, text: str) -> "Shape":
        """Parse ``"##./.##"`` (rows separated by ``/``, newlines or spaces).

        >>> Shape.parse("###/.#.").to_str()
        '###/.#.'
        """
        if not isinstance(text, str):
            raise ShapeError("shape must be a string")
        rows = [r for r in text.replace("\n", "/").replace(" ", "/").split("/") if r != ""]
        if not rows:
            raise ShapeError("shape is empty")
        return cls.from_rows(rows)

    @property
    def area(self) -> int:
        return len(self.cells)

    @property
    def height(self) -> int:
        return max(r for r, _ in self.cells) + 1

    @property
    def width(self) -> int:
        return max(c for _, c in self.cells) + 1

    def rows(self) -> list[str]:
        cells = set(self.cells)
        return [
            "".join("#" if (r, c) in cells else "." for c in range(self.width))
            for r in range(self.height)
        ]

    def to_str(self) -> str:
        return "/".join(self.rows())

    def rotate(self) -> "Shape":
        """A quarter turn clockwise."""
        h = self.height
        return Shape(tuple(sorted(_normalise((c, h - 1 - r) for r, c in self.cells))))

    def mirror(self) -> "Shape":
        """The mirror image (left-right)."""
        w = self.width
        return Shape(tuple(sorted(_normalise((r, w - 1 - c) for r, c in self.cells))))

    def orientations(self, mirror: bool = True) -> tuple["Shape", ...]:
        """Distinct rotations (and mirror images), in a fixed order.

        Index 0 is the shape as written; duplicates are removed keeping the
        first occurrence, so an orientation index is stable.
        """
        return _orientations(self, mirror)

    def canonical(self, mirror: bool = True) -> "Shape":
        """The smallest orientation: equal for shapes that are the same piece."""
        return min(self.orientations(mirror))


# Shapes come from callers (custom patches, puzzle pieces), so these caches
# share the solver's byte budget (solver.cache) instead of growing forever.
@byte_cached("geometry.orientations")
def _orientations(shape: Shape, mirror: bool) -> tuple[Shape, ...]:
    out: list[Shape] = []
    s = shape
    for _ in range(4):
        if s not in out:
            out.append(s)
        s = s.rotate()
    if mirror:
        s = shape.mirror()
        for _ in range(4):
            if s not in out:
                out.append(s)
            s = s.rotate()
    return tuple(out)


def mask_of(cells: Iterable[Cell], width: int = BOARD_SIZE) -> Board:
    m = 0
    for r, c in cells:
        m |= 1 << (r * width + c)
    return m


def cells_of(mask: Board, width: int = BOARD_SIZE) -> list[Cell]:
    out = []
    while mask:
        low = mask & -mask
        i = low.bit_length() - 1
        out.append(divmod(i, width))
        mask ^= low
    return out


@dataclass(frozen=True)
class Placement:
    """One orientation of a shape at one position.

    ``orientation`` indexes ``shape.orientations(mirror)``; ``mask`` holds
    the covered cells on a grid of the given width.
    """

    orientation: int
    row: int
    col: int
    mask: Board


def placements(
    shape: Shape, height: int = BOARD_SIZE, width: int = BOARD_SIZE, mirror: bool = True
) -> tuple[Placement, ...]:
    """Every placement of ``shape`` inside a ``height``×``width`` grid.

    Ordered by orientation, then row, then column. Distinct orientations give
    distinct masks, so no mask repeats.

    >>> len(placements(Shape.parse("##")))
    144
    """
    return _placements(shape, height, width, bool(mirror))


@byte_cached("geometry.placements", uniform_sizeof)
def _placements(shape: Shape, height: int, width: int, mirror: bool) -> tuple[Placement, ...]:
    out = []
    for k, o in enumerate(shape.orientations(mirror)):
        base = mask_of(o.cells, width)
        for r in range(height - o.height + 1):
            for c in range(width - o.width + 1):
                out.append(Placement(k, r, c, base << (r * width + c)))
    return tuple(out)


def placement_masks(shape: Shape, height: int = BOARD_SIZE, width: int = BOARD_SIZE,
                    mirror: bool = True) -> tuple[Board, ...]:
    return _masks(shape, height, width, mirror)


@byte_cached("geometry.masks", uniform_sizeof)
def _masks(shape: Shape, height: int, width: int, mirror: bool) -> tuple[Board, ...]:
    return tuple(p.mask for p in placements(shape, height, width, mirror))


def board_from_rows(rows: Sequence[str], size: int = BOARD_SIZE) -> Board:
    """Parse ``size`` rows of ``.`` (empty) and ``#`` (filled).

    >>> board_from_rows(["#" + "." * 8] + ["." * 9] * 8)
    1
    """
    if isinstance(rows, str):
        rows = [r for r in rows.replace("/", "\n").splitlines() if r.strip() != ""]
    if len(rows) != size:
        raise BoardError(f"board has {len(rows)} rows; expected {size}")
    m = 0
    for r, row in enumerate(rows):
        row = row.strip()
        if len(row) != size:
            raise BoardError(f"board row {r} has {len(row)} cells; expected {size}")
        for c, ch in enumerate(row):
            if ch == "#":
                m |= 1 << (r * size + c)
            elif ch != ".":
                raise BoardError(f"board row {r} has {ch!r}; use '.' (empty) and '#' (filled)")
    return m


_ROW_CHARS = str.maketrans("01", ".#")


def board_to_rows(board: Board, size: int = BOARD_SIZE) -> list[str]:
    """The rows of a board, ``#`` filled and ``.`` empty (bit ``r*size + c`` is row r, column c).

    >>> board_to_rows(0b11 | 1 << 80)[0], board_to_rows(1 << 80)[8]
    ('##.......', '........#')
    """
    # one binary string, cut into rows and read right to left (bit 0 is the first cell)
    bits = format(board, f"0{size * size}b")[::-1].translate(_ROW_CHARS)
    return [bits[r * size:(r + 1) * size] for r in range(size)]


def square_masks(side: int = 7, size: int = BOARD_SIZE) -> tuple[tuple[Cell, Board], ...]:
    """Every ``side``×``side`` window on the board: ((row, col), mask)."""
    return _square_masks(side, size)


@cache
def _square_masks(side: int, size: int) -> tuple[tuple[Cell, Board], ...]:
    out = []
    for r in range(size - side + 1):
        for c in range(size - side + 1):
            out.append(((r, c), mask_of(((r + i, c + j) for i in range(side) for j in range(side)), size)))
    return tuple(out)


def completed_square(board: Board, side: int = 7, size: int = BOARD_SIZE) -> Cell | None:
    """The first (row-major) fully covered ``side``×``side`` window, or None."""
    for corner, m in square_masks(side, size):
        if board & m == m:
            return corner
    return None
