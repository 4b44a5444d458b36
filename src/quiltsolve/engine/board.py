"""Bitboard helpers: every measure the engine and its players compute on a board mask.

A board (or a patch placement) is a plain int, bit ``row * 9 + col`` set for
a covered cell. Every function that looks at a placement on a board takes
``(board, mask)`` in that order. The masks and the measures are the
solver's (:mod:`solver.bitboard`, re-exported here under the same names);
the bonus-window ones, which follow the game's bonus tile, are this module's.

>>> contacts(0, 0b11)        # cells 0,0 and 0,1 on an empty board: top edge twice, left edge once
3
>>> neighbours(1) == (1 << 1) | (1 << 9)
True
>>> holes(FULL & ~1), holes(FULL & ~3), holes(0)
(1, 1.0, 0)
>>> lone_cells(FULL ^ 1), lone_cells(FULL ^ 3), lone_cells(0)
(1, 0, 0)
>>> completes_window(FULL), best_window_fill(0)
(True, 0)
"""

from __future__ import annotations

from quiltsolve.solver.bitboard import (
    COL0, COL8, EDGES, FULL, NOT_COL0, NOT_COL8, ROW0, ROW8, SIDE, Mask, contact_planes, contacts, edge_sides, holes,
    lone_cells, neighbours, one_open, pocket_penalty,
)

from .track import BONUS_MASKS

__all__ = [
    "COL0", "COL8", "EDGES", "FULL", "NOT_COL0", "NOT_COL8", "ROW0", "ROW8", "SIDE", "best_window_fill",
    "completes_window", "contact_planes", "contacts", "edge_sides", "holes", "lone_cells", "neighbours",
    "one_open", "pocket_penalty",
]


def completes_window(board: Mask) -> bool:
    """Whether ``board`` covers a whole 7×7 window (the bonus tile's condition)."""
    if board.bit_count() < 49:
        return False
    return any(board & m == m for m in BONUS_MASKS)


def best_window_fill(board: Mask) -> int:
    """Most covered cells in any 7×7 window."""
    return max((board & m).bit_count() for m in BONUS_MASKS)
