"""The position codec's one check of a starting circle (server.positions.from_circle): NewGame's circle, and a
record's, name the entry at fault; a good circle is the engine's own start of it."""

from __future__ import annotations

import random

import pytest

from quiltsolve import engine
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server import positions, records
from quiltsolve.solver import PATCHES
from quiltsolve.solver.limits import CIRCLE_PATCHES


def shuffled(seed: int) -> list[int]:
    """A circle a person might lay out: every patch but 0 in a seeded order, patch 0 last."""
    rest = list(range(1, len(PATCHES)))
    random.Random(seed).shuffle(rest)
    return rest + [0]


def test_the_limit_is_the_number_of_patches():
    assert CIRCLE_PATCHES == len(PATCHES) == len(engine.new_game(0).circle)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("edition", engine.EDITIONS)
def test_a_good_circle_is_the_engine_s_start_of_it(seed, edition):
    circle = shuffled(seed)
    state = positions.from_circle(circle, edition)
    assert state == engine.GameState.from_circle(circle, edition)
    assert state.circle == circle and state.available_patches() == circle[:3] and state.edition == edition


def _fault(circle: list, field: str = "circle") -> tuple[str, str]:
    with pytest.raises(positions.PositionError) as e:
        positions.from_circle(circle, "revised", field)
    return e.value.field, e.value.message


def test_each_fault_names_the_entry_or_the_list():
    circle = shuffled(7)
    assert _fault(circle[:3] + [circle[1]] + circle[4:]) == ("circle[3]", f"patch {circle[1]} is listed twice (also circle[1])")
    assert _fault(circle[:5] + [len(PATCHES)] + circle[6:])[0] == "circle[5]"
    assert _fault([-2] + circle[1:])[0] == "circle[0]"
    field, message = _fault(circle[:10] + [0])
    missing = sorted(set(range(len(PATCHES))) - set(circle[:10] + [0]))
    assert field == "circle" and message.endswith(f"(missing: {', '.join(map(str, missing))})")
    assert _fault(circle + [circle[0]])[0] == f"circle[{len(PATCHES)}]"    # one too many is a repeat
    field, message = _fault([0] + circle[:-1])
    assert field == f"circle[{len(PATCHES) - 1}]" and "patch 0 is circle[0]" in message
    assert _fault([], "request.circle") == ("request.circle", _fault([])[1])


def test_a_record_s_circle_gets_the_same_check():
    circle = shuffled(3)
    bad = circle[:8] + [circle[2]] + circle[9:]
    with pytest.raises(records.RecordError) as e:
        records.start(pb.GameRecord(edition=pb.EDITION_REVISED, circle=bad, actions=["advance"]))
    assert (e.value.field, e.value.message) == ("record.circle[8]", _fault(bad, "record.circle")[1])
    assert records.start(pb.GameRecord(edition=pb.EDITION_ORIGINAL, circle=circle)) == \
        engine.GameState.from_circle(circle, "original")
