"""Deadlines, cancellation, concurrency, overload and graceful shutdown."""

from __future__ import annotations

import threading
import time
from concurrent import futures

import grpc
import pytest
from google.protobuf import duration_pb2
from grpc_health.v1 import health_pb2

from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
from quiltsolve.server import SERVICE_NAME, ServerConfig, build_server

from .conftest import MIDGAME_BOARD

# 10×10 dominoes: 258,584,046,368 tilings, so counting them one by one (the search, asked explicitly)
# never finishes; the frontier count (method auto may choose it) would answer in milliseconds.
ENDLESS_COUNT = pb.SolvePuzzleRequest(region=pb.Region(rows=["." * 10] * 10), pieces=["##"] * 50,
                                      mode=pb.PUZZLE_MODE_COUNT, time_limit=duration_pb2.Duration(seconds=60),
                                      method=pb.PUZZLE_METHOD_SEARCH)
# All 33 patches on an empty board: hard to prove; 60 s is far more than any test waits.
HARD_PLACEMENT = pb.SolvePlacementRequest(board=pb.Board(rows=["." * 9] * 9),
                                          patches=[pb.PatchRef(id=i) for i in range(33)],
                                          objective=pb.OBJECTIVE_COVER, time_limit=duration_pb2.Duration(seconds=60))
EASY = pb.SolvePlacementRequest(board=pb.Board(rows=MIDGAME_BOARD),
                                patches=[pb.PatchRef(id=5), pb.PatchRef(id=14), pb.PatchRef(id=28)],
                                objective=pb.OBJECTIVE_COVER)


def wait_until(predicate, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_deadline_caps_the_solve(stub, metrics):
    """A 60 s solve under a 0.3 s deadline: the server stops it in time and
    answers what it has (FEASIBLE / UNKNOWN), or the client sees DEADLINE_EXCEEDED."""
    before = metrics.value("quiltsolve_deadline_stops_total", method="SolvePlacement")
    statuses = ("OPTIMAL", "FEASIBLE", "UNKNOWN", "INFEASIBLE")

    def solves() -> float:
        return sum(metrics.value("quiltsolve_solves_total", method="SolvePlacement", status=s) for s in statuses)

    solves_before = solves()
    proven = False
    try:
        resp = stub.SolvePlacement(HARD_PLACEMENT, timeout=0.3)
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    else:
        assert resp.status in (pb.SOLVE_STATUS_FEASIBLE, pb.SOLVE_STATUS_UNKNOWN, pb.SOLVE_STATUS_OPTIMAL)
        assert resp.solve_time.ToTimedelta().total_seconds() < 0.3
        proven = resp.status == pb.SOLVE_STATUS_OPTIMAL
        assert solves() > solves_before   # an answer: its solve was counted
    assert wait_until(lambda: metrics.value("quiltsolve_solves_in_progress") == 0)
    # The deadline, not the solver, ended it: a deadline stop, unless a loaded machine let the deadline pass
    # while the call still waited for a worker (then no solve ran, and there was nothing to stop).
    if not proven and solves() > solves_before:
        assert wait_until(lambda: metrics.value("quiltsolve_deadline_stops_total", method="SolvePlacement")
                          >= before + 1)


def test_deadline_stops_endless_count(stub, metrics):
    before = metrics.value("quiltsolve_deadline_stops_total", method="SolvePuzzle")
    t0 = time.monotonic()
    try:
        resp = stub.SolvePuzzle(ENDLESS_COUNT, timeout=0.3)
        assert resp.status == pb.SOLVE_STATUS_FEASIBLE and resp.count > 0  # found in time: not an error
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert wait_until(lambda: metrics.value("quiltsolve_deadline_stops_total", method="SolvePuzzle") >= before + 1)
    assert wait_until(lambda: metrics.value("quiltsolve_solves_in_progress") == 0)
    assert time.monotonic() - t0 < 30  # far below the 60 s limit


def test_cancel_stops_the_solve(stub, metrics):
    before = metrics.value("quiltsolve_deadline_stops_total", method="SolvePuzzle")
    fut = stub.SolvePuzzle.future(ENDLESS_COUNT)  # no deadline: only the cancel can stop it
    assert wait_until(lambda: metrics.value("quiltsolve_solves_in_progress") >= 1)
    time.sleep(0.1)
    fut.cancel()
    with pytest.raises(grpc.FutureCancelledError):
        fut.result()
    assert wait_until(lambda: metrics.value("quiltsolve_deadline_stops_total", method="SolvePuzzle") >= before + 1)
    assert wait_until(lambda: metrics.value("quiltsolve_solves_in_progress") == 0)
    assert wait_until(lambda: metrics.value("quiltsolve_calls_total", method="SolvePuzzle", code="CANCELLED") >= 1)


def test_32_concurrent_calls_all_answered(stub):
    with futures.ThreadPoolExecutor(32) as pool:
        calls = [pool.submit(stub.SolvePlacement, EASY, timeout=60) for _ in range(24)]
        calls += [pool.submit(stub.ListPatches, pb.ListPatchesRequest(), timeout=60) for _ in range(8)]
        answers = [c.result() for c in calls]
    statuses = {a.status for a in answers[:24]}
    assert statuses == {pb.SOLVE_STATUS_OPTIMAL}
    for a in answers[:24]:
        a.ClearField("solve_time")
    assert len({a.SerializeToString() for a in answers[:24]}) == 1  # same seed, same answer
    assert all(len(a.patches) == 33 for a in answers[24:])


def _lists(stub) -> bool:
    try:
        return len(stub.ListPatches(pb.ListPatchesRequest(), timeout=5).patches) == 33
    except grpc.RpcError:
        return False


def test_graceful_shutdown_finishes_in_flight_and_refuses_new():
    server, port = build_server(ServerConfig(port=0, workers=2, grace=10.0))
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        stub = pbg.PlacementServiceStub(ch)
        assert _lists(stub)
        inflight = pb.SolvePuzzleRequest()
        inflight.CopyFrom(ENDLESS_COUNT)
        inflight.time_limit.FromMilliseconds(800)
        fut = stub.SolvePuzzle.future(inflight, timeout=30)
        assert wait_until(lambda: server.metrics.value("quiltsolve_solves_in_progress") == 1)
        done = server.stop()  # config.grace = 10 s
        check = server.health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME), None)
        assert check.status == health_pb2.HealthCheckResponse.NOT_SERVING
        check = server.health.Check(health_pb2.HealthCheckRequest(service=""), None)
        assert check.status == health_pb2.HealthCheckResponse.NOT_SERVING
        with pytest.raises(grpc.RpcError) as err:
            stub.ListPatches(pb.ListPatchesRequest(), timeout=5)
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        resp = fut.result()  # the in-flight call still gets its answer
        assert resp.status == pb.SOLVE_STATUS_FEASIBLE and resp.count > 0
        assert done.wait(10)
