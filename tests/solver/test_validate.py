"""The solver-free validator rejects every kind of bad answer."""

import pytest

from quiltsolve import solver
from quiltsolve.solver.geometry import Shape, mask_of
from quiltsolve.solver.types import Candidate, PlacedPatch
from quiltsolve.solver.validate import ValidationError, validate_placements, validate_tiling

DOM = Shape.parse("##")
L3 = Shape.parse("#./##")
C = [Candidate(0, DOM, 1), Candidate("#./##", L3, 1, True)]
GOOD = [PlacedPatch(0, 0, 0b11), PlacedPatch("#./##", 0, mask_of([(1, 0), (2, 0), (2, 1)]))]


def test_accepts_good():
    validate_placements(0, C, GOOD)


@pytest.mark.parametrize("bad, msg", [
    ([PlacedPatch(0, 0, 0b11), GOOD[1], PlacedPatch(0, 0, 0b1100)], "used 2 times"),
    ([PlacedPatch(0, 0, 0b11)], "required"),
    ([PlacedPatch(0, 0, 0b11), PlacedPatch("#./##", 0, mask_of([(0, 1), (1, 1), (1, 2)]))], "overlaps another"),
    ([PlacedPatch(0, 0, 0b101), GOOD[1]], "not a patch shape"),
    ([PlacedPatch(0, 0, 0b111), GOOD[1]], "not an orientation"),
    ([PlacedPatch(0, 1, 0b11), GOOD[1]], "says orientation"),
    ([PlacedPatch(0, 0, 1 << 80 | 1 << 81), GOOD[1]], "outside"),
    ([PlacedPatch(0, 1, mask_of([(0, 8), (1, 8)]) >> 0), GOOD[1]], None),   # legal vertical domino
    ([PlacedPatch(0, 0, 0b1 << 8 | 0b1 << 9), GOOD[1]], "not a patch shape"),   # wraps the edge
    ([PlacedPatch(7, 0, 0b11), GOOD[1]], "not a candidate"),
    ([PlacedPatch(0, 0, 0), GOOD[1]], "empty"),
])
def test_rejects_bad(bad, msg):
    if msg is None:
        validate_placements(0, C, bad)
        return
    with pytest.raises(ValidationError, match=msg):
        validate_placements(0, C, bad)


def test_overlap_with_filled():
    with pytest.raises(ValidationError, match="filled"):
        validate_placements(0b10, C, GOOD)


def test_validation_error_is_value_error():
    assert issubclass(ValidationError, ValueError)


def test_tiling_ok_and_errors():
    pieces = [DOM, DOM]
    region = 0b1111  # 2×2 on a 2-wide grid
    ok = [PlacedPatch(0, 0, 0b11, 2), PlacedPatch(1, 0, 0b1100, 2)]
    validate_tiling(region, 2, 2, pieces, ok)
    with pytest.raises(ValidationError, match="not covered"):
        validate_tiling(region, 2, 2, pieces, ok[:1], use_all=False)
    with pytest.raises(ValidationError, match="used twice"):
        validate_tiling(region, 2, 2, pieces, [ok[0], PlacedPatch(0, 0, 0b1100, 2)])
    with pytest.raises(ValidationError, match="leaves the region"):
        validate_tiling(0b0111, 2, 2, pieces, ok)
    with pytest.raises(ValidationError, match="piece index"):
        validate_tiling(region, 2, 2, pieces, [PlacedPatch(5, 0, 0b11, 2)])
    with pytest.raises(ValidationError, match="not used"):
        validate_tiling(0b11, 2, 2, pieces, ok[:1])
    validate_tiling(0b11, 2, 2, pieces, ok[:1], use_all=False)


def test_tiling_mirror_forbidden():
    s = Shape.parse("##./.##")
    mirrored = s.mirror()          # Z vs S: only reachable with a mirror
    assert mirrored not in s.orientations(mirror=False)
    mask = mask_of(mirrored.cells, 3)
    validate_tiling(mask, 3, 2, [s], [PlacedPatch(0, s.orientations().index(mirrored), mask, 3)])
    with pytest.raises(ValidationError, match="mirror"):
        validate_tiling(mask, 3, 2, [s], [PlacedPatch(0, 0, mask, 3)], mirror=False)


def test_standard_patch_candidates():
    c = solver.candidates_from([5])
    for p in solver.placements(solver.patch(5).shape)[:50]:
        validate_placements(0, c, [PlacedPatch(5, p.orientation, p.mask)])
