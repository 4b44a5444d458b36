"""Flat per-patch tables: attribute lookups on ``solver.Patch`` objects are the players' hot path.

Also importable from ``engine.state``.

>>> COST[0], TIME[0], INCOME[0], AREA[0], N_PATCHES
(2, 1, 0, 2, 33)
"""

from __future__ import annotations

from quiltsolve.solver import PATCH_MASKS, PATCHES

from .track import FULL

__all__ = ["AREA", "BOARD_MAX", "COST", "INCOME", "MASK_SETS", "N_PATCHES", "TIME"]

N_PATCHES = len(PATCHES)
COST: tuple[int, ...] = tuple(p.buttons for p in PATCHES)
TIME: tuple[int, ...] = tuple(p.time for p in PATCHES)
INCOME: tuple[int, ...] = tuple(p.income for p in PATCHES)
AREA: tuple[int, ...] = tuple(p.area for p in PATCHES)
MASK_SETS: tuple[frozenset[int], ...] = tuple(frozenset(m) for m in PATCH_MASKS)
BOARD_MAX = FULL
