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


def test_a_stream_is_a_plan_then_an_answer_per_update_of_its_job():
    """STREAMS: the plan is pure, its job a StreamJob; the servicer's updates are the answer function's,
    applied to the job's updates (the last one compared: how many come before it depends on the clock)."""
    from quiltsolve.server.jobs import StreamJob
    from quiltsolve.server.service import STREAMS

    assert set(STREAMS) <= {m.name for m in pb.DESCRIPTOR.services_by_name["PlacementService"].methods
                             if m.server_streaming}
    request = pb.AnalyzePositionRequest(state=positions.to_message(engine.new_game(3)), iterations=300, top=2,
                                        seed=1, report_interval={"nanos": 50_000_000})
    rpc = STREAMS["AnalyzePosition"]
    plan = rpc.plan(request, Bounds())
    assert plan == rpc.plan(request, Bounds()) and isinstance(plan.job, StreamJob)
    assert job_fingerprint(plan.job) == job_fingerprint(rpc.plan(request, Bounds()).job)
    direct = [rpc.answer(request, plan, u) for u in plan.job.stream(plan.limit, solver.StopToken())]
    via = list(PlacementServicer(InProcessCore()).handler("AnalyzePosition")(request, _call("AnalyzePosition")))
    for answer in (direct[-1][0], via[-1]):
        answer.ClearField("elapsed")
    assert via[-1] == direct[-1][0] and via[-1].final and direct[-1][1]["iterations"] == 300
    assert plan.job.run(plan.limit, solver.StopToken()).iterations == 300     # run: the last update


def test_a_bad_request_is_refused_by_the_plan_before_any_job():
    with pytest.raises(BadRequest) as e:
        RPCS["SolvePlacement"].plan(pb.SolvePlacementRequest(), Bounds())
    assert e.value.field == "board"


def _call(method: str) -> Call:
    return Call(peer="test", deadline=None, record=CallRecord(SERVICE, method))


# ---------------------------------------------------------------- GameService (server/game_service.py)

def test_every_game_method_has_a_handler():
    from quiltsolve.server.game_service import GAME_RPCS, GameServicer

    methods = {m.name for m in pb.DESCRIPTOR.services_by_name["GameService"].methods}
    servicer = GameServicer(InProcessCore())
    for name in methods:
        assert callable(servicer.handler(name)), name
    assert set(GAME_RPCS) == methods - {"EngineMove"}


def test_an_engine_move_by_the_search_is_suggest_move_s_job():
    """A search strength plans SuggestMove's job (top 1) with SuggestMove's limits and seed rule; a quick
    player's move plans no job (it is chosen in the front)."""
    from quiltsolve.server.game_service import FrontMove, plan_engine_move
    from quiltsolve.server.jobs import MovesJob
    from quiltsolve.solver.limits import DEFAULT_ITERATIONS_LIMIT, DEFAULT_SUGGEST_LIMIT

    state = positions.to_message(engine.new_game(3))
    plan = plan_engine_move(pb.EngineMoveRequest(state=state, strength="search:300it"))
    suggest = RPCS["SuggestMove"].plan(pb.SuggestMoveRequest(state=state, top=1, iterations=300), Bounds())
    assert isinstance(plan.job, MovesJob) and plan.job == suggest.job and plan.job.seed == 0
    assert plan.limit == suggest.limit == DEFAULT_ITERATIONS_LIMIT and plan.field == "state"
    assert job_fingerprint(plan.job) == job_fingerprint(
        plan_engine_move(pb.EngineMoveRequest(state=state, strength="search:300it")).job)
    timed = plan_engine_move(pb.EngineMoveRequest(state=state, strength="search", seed=4))
    assert timed.limit == DEFAULT_SUGGEST_LIMIT and timed.job.seed == 4 and timed.job.iterations is None
    assert plan_engine_move(pb.EngineMoveRequest(state=state, strength="search:60")).limit == 60
    assert isinstance(plan_engine_move(pb.EngineMoveRequest(state=state, strength="greedy")), FrontMove)
    for strength in ("search:0", "search:60.5", "search:200001it", "search:0it", "search:nan", "strong", ""):
        with pytest.raises(BadRequest) as err:
            plan_engine_move(pb.EngineMoveRequest(state=state, strength=strength))
        assert err.value.field == "strength", strength


def test_suggest_placement_leaves_its_answer_time_inside_the_limit(monkeypatch):
    """The lookahead runs to the time it is given, so the RankJob gives it the call's limit less the
    answer's way back (rank_budget), and the call answers inside its limit (the overrun row of bench service)."""
    from quiltsolve.server import jobs
    seen = []
    monkeypatch.setattr(solver, "rank_placements", lambda *a, time_limit, **k: seen.append(time_limit))
    plan = RPCS["SuggestPlacement"].plan(REQUESTS["SuggestPlacement"], Bounds())
    from quiltsolve.solver.stop import StopToken
    plan.job.run(0.3, StopToken())
    plan.job.run(5.0, StopToken())
    assert seen == [jobs.rank_budget(0.3), jobs.rank_budget(5.0)] == [0.27, 4.97]
