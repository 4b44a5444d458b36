"""Each unary RPC is a pure plan and a pure answer (server/service.py RPCS); the servicer is a table over them."""

from __future__ import annotations

import pytest

from quiltsolve import engine, solver
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server import positions
from quiltsolve.server.core import Call, InProcessCore, job_fingerprint
from quiltsolve.server.observe import CallRecord
from quiltsolve.server.errors import BadRequest
from quiltsolve.server.service import RPCS, Bounds, PlacementServicer

SERVICE = pb.DESCRIPTOR.services_by_name["PlacementService"].full_name

EMPTY = pb.Board(rows=["." * 9] * 9)

REQUESTS = {
    "SolvePlacement": pb.SolvePlacementRequest(board=EMPTY, patches=[pb.PatchRef(id=1), pb.PatchRef(id=5)],
                                               objective=pb.OBJECTIVE_COVER),
    "SuggestPlacement": pb.SuggestPlacementRequest(board=EMPTY, patch=pb.PatchRef(id=1),
                                                   objective=pb.OBJECTIVE_COVER, top=2),
    "SuggestMove": pb.SuggestMoveRequest(state=positions.to_message(engine.new_game(3)), iterations=50, top=2),
    "SolvePuzzle": pb.SolvePuzzleRequest(region=pb.Region(rows=["...", "..."]), pieces=["###", "###"],
                                         mode=pb.PUZZLE_MODE_FIND),
    "GeneratePuzzle": pb.GeneratePuzzleRequest(height=3, width=4, pieces=["##", "###", "#", "##"]),
}


def test_every_service_method_has_a_handler():
    methods = {m.name for m in pb.DESCRIPTOR.services_by_name["PlacementService"].methods}
    servicer = PlacementServicer(InProcessCore())
    for name in methods:
        assert callable(servicer.handler(name)), name
    assert set(RPCS) <= methods


@pytest.mark.parametrize("name", sorted(REQUESTS))
def test_a_plan_is_a_pure_function_of_the_request(name):
    rpc = RPCS[name]
    first, second = rpc.plan(REQUESTS[name], Bounds()), rpc.plan(REQUESTS[name], Bounds())
    assert first == second and job_fingerprint(first.job) == job_fingerprint(second.job)


@pytest.mark.parametrize("name", sorted(REQUESTS))
def test_the_table_answers_as_plan_job_answer(name):
    """The servicer's answer is the answer function's, applied to the plan's job run directly."""
    rpc, request = RPCS[name], REQUESTS[name]
    plan = rpc.plan(request, Bounds())
    result = plan.job.run(plan.limit, solver.StopToken())
    direct, logged = rpc.answer(request, plan, result)
    direct.ClearField("solve_time")
    via = PlacementServicer(InProcessCore()).handler(name)(request, _call(name))
    via.ClearField("solve_time")
    assert via == direct
    assert isinstance(logged, dict)


def test_a_bad_request_is_refused_by_the_plan_before_any_job():
    with pytest.raises(BadRequest) as e:
        RPCS["SolvePlacement"].plan(pb.SolvePlacementRequest(), Bounds())
    assert e.value.field == "board"


def _call(method: str) -> Call:
    return Call(peer="test", deadline=None, record=CallRecord(SERVICE, method))
