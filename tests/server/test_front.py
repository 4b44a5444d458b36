"""The front's own answers: tiny SolvePlacement jobs answered on the gRPC face's event loop.

A job with a bounded try (``SolveJob.run_inline``: the exact search alone) is answered in the front
when the try proves it within its budget, with exactly the answer its worker would give; otherwise
it goes to a worker as before (``ServiceCore.try_inline``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from quiltsolve import solver
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server import service
from quiltsolve.server.core import FRONT_FLOOR, Call, CoreConfig, InProcessCore, ServiceCore
from quiltsolve.server.jobs import INLINE_COPIES, SolveJob
from quiltsolve.server.observe import CallRecord, Metrics, make_logger
from quiltsolve.solver import StopToken

from .test_load import EASY, HARD_PLACEMENT

DATA = Path(__file__).resolve().parents[2] / "bench" / "data" / "placement-instances.json"


def _requests(per_family: int = 12) -> list[pb.SolvePlacementRequest]:
    """The bench's seeded placements: the first of each family the front can prove (cover and square7)."""
    taken: dict[str, int] = {}
    out = []
    for i in json.loads(DATA.read_text()):
        if i["family"] not in ("midgame-40-k3", "lookahead-30-k6", "square7-35-k6", "deep-20-k10"):
            continue
        if taken.get(i["family"], 0) >= per_family:
            continue
        taken[i["family"]] = taken.get(i["family"], 0) + 1
        out.append(pb.SolvePlacementRequest(
            board=pb.Board(rows=i["board"]), patches=[pb.PatchRef(id=p) for p in i["patches"]],
            objective=pb.OBJECTIVE_SQUARE7 if i["objective"] == "square7" else pb.OBJECTIVE_COVER, seed=0))
    return out


def _call(method: str = "SolvePlacement") -> Call:
    return Call(peer="test", deadline=None, record=CallRecord("patchwork.v1.PlacementService", method))


def _core(**kw) -> ServiceCore:
    """A core whose workers are never started: only its front is used."""
    kw.setdefault("workers", 1)
    kw.setdefault("max_queue", 1)
    return ServiceCore(CoreConfig(**kw), Metrics(), make_logger())


def _plain(response: pb.SolvePlacementResponse) -> bytes:
    out = pb.SolvePlacementResponse()
    out.CopyFrom(response)
    out.ClearField("solve_time")
    return out.SerializeToString(deterministic=True)


def test_an_answer_from_the_front_is_the_one_its_worker_gives():
    rpc, bounds = service.RPCS["SolvePlacement"], service.Bounds()
    proven = 0
    for request in _requests():
        job = rpc.plan(request, bounds).job
        assert isinstance(job, SolveJob)
        quick = job.run_inline(0.05, StopToken())
        if quick is None:
            continue
        proven += 1
        full = job.run(10.0, StopToken())
        assert quick.status.value in ("OPTIMAL", "INFEASIBLE")
        assert (quick.status, quick.placements, quick.objective, quick.bound, quick.empty_before,
                quick.empty_after, quick.square7, quick.engine) == \
               (full.status, full.placements, full.objective, full.bound, full.empty_before,
                full.empty_after, full.square7, full.engine)
    assert proven >= 30  # of 48: the tries do prove most of them


def test_the_service_answers_the_same_from_the_front_and_from_a_worker(stub, metrics):
    """Over gRPC (front on) and through the whole path in-process (InProcessCore: no front), byte for byte."""
    whole = service.PlacementServicer(InProcessCore())
    before = metrics.value("quiltsolve_front_tries_total", method="SolvePlacement", outcome="answered")
    requests = _requests(6)
    for request in requests:
        remote = stub.SolvePlacement(request, timeout=30)
        local = whole.solve_placement(request, _call())
        assert _plain(remote) == _plain(local)
    answered = metrics.value("quiltsolve_front_tries_total", method="SolvePlacement", outcome="answered") - before
    assert answered >= len(requests) // 2


def test_a_call_answered_in_the_front_says_so_in_its_log_line(stub, capfd):
    stub.SolvePlacement(EASY, timeout=30, metadata=[("x-request-id", "front-lane-1")])
    lines = [json.loads(x) for x in capfd.readouterr().err.splitlines() if x.startswith("{")]
    line = next(x for x in lines if x.get("request_id") == "front-lane-1")
    assert line["lane"] == "front" and line["code"] == "OK" and line["solve_status"] == "OPTIMAL"


def test_a_job_beyond_the_front_goes_to_a_worker(stub, metrics):
    before = metrics.value("quiltsolve_front_tries_total", method="SolvePlacement", outcome="passed")
    request = pb.SolvePlacementRequest()
    request.CopyFrom(HARD_PLACEMENT)
    request.time_limit.FromMilliseconds(300)
    answer = stub.SolvePlacement(request, timeout=30)
    assert answer.status in (pb.SOLVE_STATUS_FEASIBLE, pb.SOLVE_STATUS_OPTIMAL)
    assert metrics.value("quiltsolve_front_tries_total", method="SolvePlacement", outcome="passed") == before + 1


def test_a_try_is_bounded_and_some_jobs_are_never_tried():
    many = SolveJob(board=0, candidates=tuple(solver.cover.candidates_from(range(1, 17))),
                    objective=solver.Objective.COVER, seed=0)
    assert sum(c.count for c in many.candidates) > INLINE_COPIES
    assert many.run_inline(1.0, StopToken()) is None            # not tried at all
    # deep-20-k10/102000 of the bench: ten patches on a board with 50 empty cells, proven in a few ms
    board = solver.board_from_rows([".......##", "....##.##", ".....####", ".....####", ".....####", ".......##",
                                    "........#", "........#", "........."])
    ten = solver.cover.candidates_from([0, 2, 3, 8, 9, 11, 19, 21, 24, 26])
    assert solver.cover.solve_exact(board, ten, node_cap=10, time_limit=1.0) is None     # no proof in 10 nodes
    assert solver.cover.solve_exact(board, ten, node_cap=10**6, time_limit=1e-6) is None  # nor in a microsecond
    proof = solver.cover.solve_exact(board, ten, node_cap=10**7, time_limit=10.0)
    assert proof is not None and proof.placements == solver.solve(board, ten).placements
    stopped = StopToken()
    stopped.set()
    easy = service.RPCS["SolvePlacement"].plan(EASY, service.Bounds()).job
    assert easy.run_inline(0.05, stopped) is None
    assert easy.run_inline(0.05, StopToken()) is not None


def test_the_fronts_budget_is_the_measured_trip_to_a_worker():
    core = _core(front_limit=0.002)
    assert core.front_budget() == pytest.approx(0.001)          # before any trip: 1 ms
    slow = solver.PlacementResult(solver.SolveStatus.OPTIMAL, (), 0, 0, 0, 0, None, 0.001, "bitsearch")
    for _ in range(200):
        core._note_trip(0.011, slow)                             # trips of 10 ms beyond the job
    assert core.front_budget() == pytest.approx(0.002)          # capped by front_limit
    for _ in range(200):
        core._note_trip(0.001, slow)                             # trips of nothing
    assert core.front_budget() == pytest.approx(FRONT_FLOOR * 0.002)
    assert _core(front_limit=0).front_budget() == 0


def test_no_try_without_a_budget_or_with_a_poisoned_request():
    easy = service.RPCS["SolvePlacement"].plan(EASY, service.Bounds())
    off = _core(front_limit=0)
    assert off.try_inline(_call(), easy.job, easy.limit) is None
    on = _core(front_limit=0.5)     # a budget no busy machine runs out of: this test is about when a try is made
    call = _call()
    result = on.try_inline(call, easy.job, easy.limit)
    assert result is not None and call.record.extra["lane"] == "front"
    assert on.metrics.value("quiltsolve_front_tries_total", method="SolvePlacement", outcome="answered") == 1
    on.poison.add(b"someone", "req-1")
    assert on.try_inline(_call(), easy.job, easy.limit) is None


def test_the_front_never_loads_or_tools():
    code = ("import sys; import quiltsolve.server.app; from quiltsolve.server import service; "
            "from quiltsolve.server.core import InProcessCore; "
            "from quiltsolve.patchwork.v1 import placement_pb2 as pb; "
            "from quiltsolve.solver import StopToken; "
            "rq = pb.SolvePlacementRequest(board=pb.Board(rows=['#########'] * 8 + ['##.......']), "
            "patches=[pb.PatchRef(id=0)], objective=pb.OBJECTIVE_COVER); "
            "job = service.RPCS['SolvePlacement'].plan(rq, service.Bounds()).job; "
            "assert job.run_inline(5.0, StopToken()) is not None; "
            "assert 'ortools' not in sys.modules, 'ortools loaded'")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_front_limit_is_checked():
    from quiltsolve.server import ServerConfig

    with pytest.raises(ValueError, match="front_limit"):
        ServerConfig(front_limit=-0.001)
    with pytest.raises(ValueError, match="front_limit"):
        ServerConfig(front_limit=0.5)
