"""Solver-free checks of placement and tiling answers.

Everything here uses geometry only (no search): a placement is accepted when
its cells are inside the grid, overlap nothing, and form one orientation of
its patch's shape. Tests run every solver answer through these checks.

>>> from quiltsolve.solver.types import Candidate, PlacedPatch
>>> from quiltsolve.solver.geometry import Shape
>>> c = [Candidate(0, Shape.parse("##"))]
>>> validate_placements(0, c, [PlacedPatch(0, 0, 0b11)])
>>> validate_placements(0b1, c, [PlacedPatch(0, 0, 0b11)])
Traceback (most recent call last):
...
quiltsolve.solver.validate.ValidationError: placement 0 (key 0) overlaps filled cells [(0, 0)]
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from .geometry import Board, Shape, ShapeError, cells_of
from .types import Candidate, PlacedPatch


class ValidationError(ValueError):
    """A placement answer breaks a rule (overlap, wrong shape, overuse...)."""


def _check_grid(width: int, height: int) -> None:
    for name, v in (("width", width), ("height", height)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 64:
            raise ValidationError(f"{name} must be an int in [1, 64]")


def _check_shape(i: int, p: PlacedPatch, shape: Shape, width: int, height: int,
                 mirror: bool) -> None:
    if isinstance(p.mask, bool) or not isinstance(p.mask, int) or p.mask <= 0:
        raise ValidationError(f"placement {i} (key {p.key!r}) has an empty or non-int mask")
    if p.mask >> (width * height):
        raise ValidationError(f"placement {i} (key {p.key!r}) lies outside the {height}x{width} grid")
    cells = cells_of(p.mask, width)
    try:
        got = Shape.from_cells(cells)
    except ShapeError as e:
        raise ValidationError(f"placement {i} (key {p.key!r}) is not a patch shape: {e}") from None
    # A mask of a row-major grid can wrap around the right edge; from_cells
    # on (row, col) pairs already sees the wrapped cells apart, so a wrapped
    # mask fails the connectivity or shape check below.
    orients = shape.orientations(mirror)
    if got not in orients:
        raise ValidationError(
            f"placement {i} (key {p.key!r}) covers {got.to_str()!r}, not an orientation of {shape.to_str()!r}"
            + ("" if mirror else " (mirror images not allowed)"))
    if not isinstance(p.orientation, int) or not 0 <= p.orientation < len(orients) \
            or orients[p.orientation] != got:
        raise ValidationError(
            f"placement {i} (key {p.key!r}) says orientation {p.orientation!r}, but its cells are orientation "
            f"{orients.index(got)}")


def validate_placements(board: Board, candidates: Sequence[Candidate], placements: Sequence[PlacedPatch],
                        width: int = 9, height: int = 9) -> None:
    """Raise :class:`ValidationError` unless ``placements`` is a legal answer.

    Checks: each placement inside the grid, a legal orientation of its
    candidate's shape, no overlap with filled cells or with each other, each
    candidate used at most ``count`` times, and required ones used exactly
    ``count`` times.
    """
    _check_grid(width, height)
    if isinstance(board, bool) or not isinstance(board, int) or board < 0 or board >> (width * height):
        raise ValidationError("board must be a non-negative int mask inside the grid")
    by_key: dict[Any, Candidate] = {}
    for c in candidates:
        if c.key in by_key:
            prev = by_key[c.key]
            by_key[c.key] = Candidate(c.key, c.shape, prev.count + c.count, c.required or prev.required)
        else:
            by_key[c.key] = c
    used: Counter = Counter()
    occ = board
    for i, p in enumerate(placements):
        if not isinstance(p, PlacedPatch):
            raise ValidationError(f"placement {i} is not a PlacedPatch")
        found = by_key.get(p.key)
        if found is None:
            raise ValidationError(f"placement {i} uses key {p.key!r}, which is not a candidate")
        c = found
        _check_shape(i, p, c.shape, width, height, True)
        if p.mask & board:
            raise ValidationError(
                f"placement {i} (key {p.key!r}) overlaps filled cells {cells_of(p.mask & board, width)}")
        if p.mask & occ:
            raise ValidationError(
                f"placement {i} (key {p.key!r}) overlaps another placement at {cells_of(p.mask & occ, width)}")
        occ |= p.mask
        used[p.key] += 1
        if used[p.key] > c.count:
            raise ValidationError(f"key {p.key!r} used {used[p.key]} times; only {c.count} available")
    for c in by_key.values():
        if c.required and used[c.key] != c.count:
            raise ValidationError(f"required key {c.key!r} used {used[c.key]} of {c.count} times")


def validate_tiling(region_mask: Board, width: int, height: int, pieces: Sequence[Shape],
                    placements: Sequence[PlacedPatch], *, use_all: bool = True, mirror: bool = True,
                    unlimited: Sequence[Shape] = ()) -> None:
    """Raise :class:`ValidationError` unless ``placements`` tile ``region_mask`` exactly.

    ``pieces`` is a multiset; each ``PlacedPatch.key`` is an index into it and
    every index is used at most once (exactly once when ``use_all``).
    ``unlimited`` shapes may be used any number of times, as key
    ``len(pieces) + j`` for ``unlimited[j]``.
    ``mirror=False`` forbids mirror images. Orientation indices refer to
    ``pieces[key].orientations(mirror)``.

    >>> from quiltsolve.solver.geometry import Shape
    >>> validate_tiling(0b1111, 2, 2, [Shape.parse("##")] * 2,
    ...                 [PlacedPatch(0, 0, 0b11, 2), PlacedPatch(1, 0, 0b1100, 2)])
    """
    _check_grid(width, height)
    if isinstance(region_mask, bool) or not isinstance(region_mask, int) or region_mask < 0 \
            or region_mask >> (width * height):
        raise ValidationError("region must be a non-negative int mask inside the grid")
    seen: set[int] = set()
    occ = 0
    for i, p in enumerate(placements):
        if not isinstance(p, PlacedPatch):
            raise ValidationError(f"placement {i} is not a PlacedPatch")
        nkeys = len(pieces) + len(unlimited)
        if isinstance(p.key, bool) or not isinstance(p.key, int) or not 0 <= p.key < nkeys:
            raise ValidationError(f"placement {i} has key {p.key!r}; expected a piece index 0-{nkeys - 1}")
        if p.key < len(pieces):
            if p.key in seen:
                raise ValidationError(f"piece {p.key} is used twice")
            seen.add(p.key)
            shape = pieces[p.key]
        else:
            shape = unlimited[p.key - len(pieces)]
        _check_shape(i, p, shape, width, height, mirror)
        if p.mask & ~region_mask:
            raise ValidationError(f"placement {i} (piece {p.key}) leaves the region at "
                                  f"{cells_of(p.mask & ~region_mask, width)}")
        if p.mask & occ:
            raise ValidationError(f"placement {i} (piece {p.key}) overlaps another piece at "
                                  f"{cells_of(p.mask & occ, width)}")
        occ |= p.mask
    if occ != region_mask:
        raise ValidationError(f"cells not covered: {cells_of(region_mask & ~occ, width)}")
    if use_all and len(seen) != len(pieces):
        missing = sorted(set(range(len(pieces))) - seen)
        raise ValidationError(f"pieces not used: {missing}")
