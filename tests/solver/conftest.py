"""Shared helpers for solver tests: a brute force for tiny boards."""

from __future__ import annotations

import pytest

from quiltsolve.solver.geometry import FULL_BOARD, square_masks
from quiltsolve.solver.patches import PATCH_MASKS


def brute_cover(board: int, cands, square7: bool = False) -> int:
    """Best covered area by exhaustive search (-1: no answer). Tiny boards only."""
    from quiltsolve.solver.cover import orientation_of
    items = []
    for c in cands:
        masks = [m for m in orientation_of(c.shape) if not m & board]
        items += [(c, masks)] * c.count
    best = -1

    def ok(occ):
        if any(c.required for c, _ in items):
            pass
        if square7:
            return any(occ & wm == wm for _c, wm in square_masks(7))
        return True

    def rec(i, occ, covered, used_req):
        nonlocal best
        if i == len(items):
            if all(used_req.get(c.key, 0) == c.count for c, _ in items if c.required) and ok(occ):
                best = max(best, covered)
            return
        c, masks = items[i]
        if not c.required:
            rec(i + 1, occ, covered, used_req)
        for m in masks:
            if not m & occ:
                u = dict(used_req)
                u[c.key] = u.get(c.key, 0) + 1
                rec(i + 1, occ | m, covered + m.bit_count(), u)

    rec(0, board, 0, {})
    return best


@pytest.fixture
def brute():
    return brute_cover
