"""One set of bitboard helpers (solver.bitboard): the engine's names are the solver's, the moved names warn."""

from __future__ import annotations

import random

import pytest

from quiltsolve.engine import board
from quiltsolve.solver import bitboard, bitsearch


def test_engine_board_reexports_the_solvers_helpers():
    for name in ("COL0", "COL8", "EDGES", "FULL", "NOT_COL0", "NOT_COL8", "ROW0", "ROW8", "SIDE", "contact_planes",
                 "contacts", "edge_sides", "holes", "lone_cells", "neighbours", "one_open", "pocket_penalty"):
        assert getattr(board, name) is getattr(bitboard, name), name
    assert set(board.__all__) - set(bitboard.__all__) == {"best_window_fill", "completes_window"}


@pytest.mark.parametrize(("old", "new"), [("flood", "flood"), ("neighbours", "neighbours_outside")])
def test_moved_bitsearch_names_warn_and_are_the_same_objects(old, new):
    with pytest.warns(DeprecationWarning, match=f"solver.bitboard.{new}"):
        moved = getattr(bitsearch, old)
    assert moved is getattr(bitboard, new)
    with pytest.raises(AttributeError):
        bitsearch.nope  # noqa: B018


def test_flood_and_components_agree_with_neighbours():
    rng = random.Random(3)
    for _ in range(200):
        free = rng.getrandbits(81) & rng.getrandbits(81) | rng.getrandbits(81)
        comps = bitboard.components(free)
        assert sum(comps) == free and all(c & -c for c in comps)
        for c in comps:
            assert not bitboard.neighbours_outside(c) & free          # closed: nothing free beside it
            assert bitboard.neighbours_outside(c) == bitboard.neighbours(c) & ~c
        assert [1 << i for i in bitboard.bit_indices(free)] == [free & (1 << i) for i in range(81) if free >> i & 1]
