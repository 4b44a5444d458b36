"""Golden counts: legal placements and orientations of the 33 patches."""

import pytest

from quiltsolve.solver.geometry import Shape, ShapeError, placements
from quiltsolve.solver.patches import LEATHER_MASKS, PATCH_MASKS, PATCHES

# Legal placements of each standard patch on an empty 9×9 board (ids 0-32).
GOLDEN_PLACEMENTS = [144, 126, 108, 90, 64, 448, 384, 192, 192, 392, 224, 192, 196, 224, 196, 168, 168,
                     448, 448, 384, 384, 49, 70, 84, 98, 256, 256, 224, 224, 384, 168, 168, 196]
GOLDEN_ORIENTATIONS = [2, 2, 2, 2, 1, 8, 8, 4, 4, 8, 4, 4, 4, 4, 4, 4, 4, 8, 8, 8, 8, 1, 2, 2, 2, 4, 4,
                       4, 4, 8, 4, 4, 4]


def test_golden_placement_counts():
    assert [len(m) for m in PATCH_MASKS] == GOLDEN_PLACEMENTS
    assert sum(GOLDEN_PLACEMENTS) == 7349
    assert len(LEATHER_MASKS) == 81


def test_golden_orientation_counts():
    assert [len(p.shape.orientations()) for p in PATCHES] == GOLDEN_ORIENTATIONS


@pytest.mark.parametrize("pid", range(33))
def test_placements_match_formula(pid):
    # Independent of the placement generator: (10-h)(10-w) per orientation.
    shape = PATCHES[pid].shape
    expect = sum((10 - o.height) * (10 - o.width) for o in shape.orientations())
    masks = PATCH_MASKS[pid]
    assert len(masks) == expect == len(set(masks))
    assert all(m.bit_count() == shape.area and m >> 81 == 0 for m in masks)


def test_no_mirror_orientations():
    s = Shape.parse("##./.##")           # S tetromino: 2 rotations, 4 with mirrors
    assert len(s.orientations(mirror=False)) == 2
    assert len(s.orientations()) == 4
    assert len(placements(s, 9, 9, False)) == 2 * 8 * 7


@pytest.mark.parametrize("text", ["", "#.#", "..", "#x", "#/./#"])
def test_shape_errors(text):
    with pytest.raises(ShapeError):
        Shape.parse(text)


def test_shape_error_is_value_error():
    assert issubclass(ShapeError, ValueError)
