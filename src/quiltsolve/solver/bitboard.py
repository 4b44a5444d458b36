"""Bitboard helpers for the 9×9 quilt board: the one vocabulary of the solver and the engine.

A board (or a patch placement) is a plain int, bit ``row * 9 + col`` set for
a covered cell. Every function that looks at a placement on a board takes
``(board, mask)`` in that order. ``engine.board`` re-exports these and adds
the bonus-window measures; grids of other sizes (puzzles) use
:mod:`solver.geometry`'s width-taking helpers instead.

>>> contacts(0, 0b11)        # cells 0,0 and 0,1 on an empty board: top edge twice, left edge once
3
>>> neighbours(1) == (1 << 1) | (1 << 9)
True
>>> neighbours_outside(0b11) == (1 << 2) | (0b11 << 9)
True
>>> holes(FULL & ~1), holes(FULL & ~3), holes(0)
(1, 1.0, 0)
>>> lone_cells(FULL ^ 1), lone_cells(FULL ^ 3), lone_cells(0)
(1, 0, 0)
>>> flood(1, 0b111, 81), list(bit_indices(0b101)), components(0b101 | 1 << 80) == [1, 4, 1 << 80]
((7, True), [0, 2], True)
"""

from __future__ import annotations

from typing import Iterator

from .geometry import BOARD_CELLS, BOARD_SIZE, FULL_BOARD

__all__ = [
    "COL0", "COL8", "EDGES", "FULL", "NOT_COL0", "NOT_COL8", "ROW0", "ROW8", "SIDE", "bit_indices", "components",
    "contact_planes", "contacts", "edge_sides", "flood", "holes", "lone_cells", "neighbours", "neighbours_outside",
    "one_open", "pocket_penalty",
]

Mask = int

SIDE = BOARD_SIZE
"""Cells per row and per column."""
FULL: Mask = FULL_BOARD
ROW0: Mask = (1 << SIDE) - 1
ROW8: Mask = ROW0 << (SIDE * (SIDE - 1))
COL0: Mask = sum(1 << (SIDE * r) for r in range(SIDE))
COL8: Mask = COL0 << (SIDE - 1)
# Shifting a mask one column left or right must not wrap into the next row:
# mask the source column first (or the target column after).
NOT_COL0: Mask = FULL ^ COL0
NOT_COL8: Mask = FULL ^ COL8
EDGES: tuple[Mask, Mask, Mask, Mask] = (ROW0, ROW8, COL0, COL8)
assert BOARD_CELLS == SIDE * SIDE


def bit_indices(mask: Mask) -> Iterator[int]:
    """The indices (``row * 9 + col``) of the cells of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def neighbours(mask: Mask) -> Mask:
    """Cells 4-adjacent to ``mask`` (on the board; ``mask`` itself may be among them)."""
    return (((mask & NOT_COL8) << 1) | ((mask & NOT_COL0) >> 1) | (mask << SIDE) | (mask >> SIDE)) & FULL


def neighbours_outside(mask: Mask) -> Mask:
    """Cells 4-adjacent to ``mask`` and not in it."""
    return neighbours(mask) & ~mask


def flood(seed: Mask, free: Mask, limit: int) -> tuple[Mask, bool]:
    """The empty area around ``seed`` within ``free``, grown until it exceeds
    ``limit`` cells: ``(area, closed)``, ``closed`` False when it was cut
    short at the limit."""
    comp = seed
    while True:
        # neighbours() written out: the cell search calls this at every node.
        new = (comp | (comp << SIDE) | (comp >> SIDE) | ((comp << 1) & NOT_COL0) | ((comp >> 1) & NOT_COL8)) & free
        if new == comp:
            return comp, True
        comp = new
        if comp.bit_count() > limit:
            return comp, False


def components(free: Mask) -> list[Mask]:
    """The 4-connected components of ``free``, lowest cell first."""
    out = []
    while free:
        comp, _ = flood(free & -free, free, BOARD_CELLS)
        out.append(comp)
        free &= ~comp
    return out


def edge_sides(mask: Mask) -> int:
    """Sides of the cells of ``mask`` on the border of the board."""
    return ((mask & ROW0).bit_count() + (mask & ROW8).bit_count() + (mask & COL0).bit_count()
            + (mask & COL8).bit_count())


def contacts(board: Mask, mask: Mask) -> int:
    """Sides of the cells of ``mask`` that touch a covered cell of ``board`` or the board's border (snug fit).

    >>> contacts(1, 1 << 1)      # cell 0,1 beside covered 0,0: left neighbour and top edge
    2
    """
    return (edge_sides(mask) + (mask & (board << SIDE)).bit_count() + (mask & (board >> SIDE)).bit_count()
            + (mask & ((board & NOT_COL8) << 1)).bit_count() + (mask & ((board & NOT_COL0) >> 1)).bit_count())


def contact_planes(board: Mask) -> tuple[Mask, Mask, Mask]:
    """Bit planes of the number (0-4) of covered-or-edge sides of every cell.

    ``contacts(board, mask) == (mask & p0).bit_count() + 2 * (mask & p1).bit_count()
    + 4 * (mask & p2).bit_count()`` for the planes ``p0, p1, p2``: one call per
    board, then three popcounts per placement.

    >>> p0, p1, p2 = contact_planes(1)
    >>> (2 & p0).bit_count() + 2 * (2 & p1).bit_count() + 4 * (2 & p2).bit_count() == contacts(1, 2)
    True
    """
    u = ((board << SIDE) & FULL) | ROW0
    d = (board >> SIDE) | ROW8
    lf = ((board & NOT_COL8) << 1) | COL0
    rt = ((board & NOT_COL0) >> 1) | COL8
    s1, c1 = u ^ d, u & d
    s2, c2 = lf ^ rt, lf & rt
    a = s1 & s2
    return s1 ^ s2, c1 ^ c2 ^ a, (c1 & c2) | (c1 & a) | (c2 & a)


def one_open(empty: Mask) -> Mask:
    """Cells of ``empty`` with exactly one neighbour in ``empty``."""
    u = (empty << SIDE) & FULL
    d = empty >> SIDE
    lf = (empty & NOT_COL8) << 1
    rt = (empty & NOT_COL0) >> 1
    s1, c1 = u ^ d, u & d
    s2, c2 = lf ^ rt, lf & rt
    # count == 1: bit0 set and no carries anywhere.
    return empty & (s1 ^ s2) & ~(s1 & s2) & ~c1 & ~c2


def lone_cells(board: Mask) -> int:
    """Empty cells with no empty neighbour (they can only take a leather patch)."""
    empty = FULL ^ board
    return (empty & ~neighbours(empty)).bit_count()


def holes(board: Mask) -> float:
    """Empty cells cut off in tiny pockets: a lone cell counts 1, a 2-cell pocket 0.5 each."""
    empty = FULL & ~board
    lone = empty & ~neighbours(empty)
    out: float = lone.bit_count()
    rest = empty & ~lone
    # 2-cell pockets: an empty cell with exactly one empty neighbour whose
    # only empty neighbour is it. Flood fill only the small remainder.
    while rest:
        low = rest & -rest
        comp = low
        for _ in range(2):
            grown = (comp | neighbours(comp)) & rest
            if grown == comp:
                break
            comp = grown
        if comp.bit_count() == 2 and not (neighbours(comp) & rest & ~comp):
            out += 1.0
            rest &= ~comp
            continue
        # Larger region: drop the whole component at once.
        while True:
            grown = (comp | neighbours(comp)) & rest
            if grown == comp:
                break
            comp = grown
        rest &= ~comp
    return out


def pocket_penalty(board: Mask, mask: Mask) -> float:
    """Empty cells next to ``mask`` that placing it on ``board`` leaves in a pocket: 2 per lone cell, 1 per 2-cell pocket.

    >>> pocket_penalty(FULL ^ 0b111, 0b101)    # the middle cell of the row's gap is left alone
    2.0
    """
    after = board | mask
    empty = FULL ^ after
    near = neighbours(mask) & empty
    if not near:
        return 0.0
    en = neighbours(empty)
    lone = near & ~en
    pen = 2.0 * lone.bit_count()
    # A pocket of two: an empty cell whose only empty neighbour has no other.
    rest = near & ~lone
    while rest:
        c = rest & -rest
        rest ^= c
        nb = neighbours(c) & empty
        if nb.bit_count() == 1 and (neighbours(nb) & empty) == c:
            pen += 1.0
            rest &= ~nb
    return pen
