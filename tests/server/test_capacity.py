"""Service capacity: worker processes, admission, fair shares, freed workers, port check, shutdown."""

from __future__ import annotations

import json
import os
import socket
import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
from quiltsolve.server import SERVICE_NAME, ServerConfig, build_server
from quiltsolve.server.admission import Abandoned, Admission, Expired, Refused
from .jobs_for_tests import SpinJob
from quiltsolve.server.pool import WorkerLost, WorkerPool
from quiltsolve.solver import StopToken

from ..timing import LATE
from .conftest import play, state_json
from .test_load import EASY, ENDLESS_COUNT, wait_until


@pytest.fixture
def small_server():
    """One worker, two queue places: easy to saturate."""
    made = []

    def make(**kw):
        kw.setdefault("workers", 1)
        kw.setdefault("max_queue", 2)
        server, port = build_server(ServerConfig(host="127.0.0.1", port=0, **kw))
        server.start()
        ch = grpc.insecure_channel(f"127.0.0.1:{port}")
        made.append((server, ch))
        return server, ch

    yield make
    for server, ch in made:
        ch.close()
        server.stop(0).wait(5)


SMALL_PUZZLE = pb.SolvePuzzleRequest(region=pb.Region(rows=["....."] * 3), mode=pb.PUZZLE_MODE_FIND,
                                    pieces=["####/#...", "###/.#./.#.", ".#../####"])


def _endless(seconds: float = 30) -> pb.SolvePuzzleRequest:
    req = pb.SolvePuzzleRequest()
    req.CopyFrom(ENDLESS_COUNT)
    req.time_limit.FromMilliseconds(int(seconds * 1000))
    return req


def _peer_channels(port: int, n: int):
    """``n`` channels that are distinct peers (a channel option makes gRPC open its own connection)."""
    return [grpc.insecure_channel(f"127.0.0.1:{port}", options=[("quiltsolve.test.peer", i)]) for i in range(n)]


# ---------------------------------------------------------------- admission, without a server

def test_admission_fair_share_goes_to_the_peer_below_its_share():
    a = Admission(slots=2, max_queue=4, peer_share=0.5)
    a.add_slot(0)
    a.add_slot(1)
    s1, s2 = a.acquire("A"), a.acquire("A")  # A may use every idle worker
    got: dict[str, int] = {}

    def wait(peer):
        got[peer] = a.acquire(peer, timeout=10)

    ta = threading.Thread(target=wait, args=("A",))
    ta.start()
    assert wait_until(lambda: a.stats()["queued"] == 1)
    tb = threading.Thread(target=wait, args=("B",))
    tb.start()
    assert wait_until(lambda: a.stats()["queued"] == 2)
    a.release(s1)  # A still holds one (its share): the freed slot goes to B, although A waited first
    tb.join(5)
    assert got.get("B") == s1 and "A" not in got
    a.release(s2)
    ta.join(5)
    assert got["A"] == s2


def test_admission_refuses_beyond_the_queue_with_a_retry_hint():
    a = Admission(slots=1, max_queue=2, peer_share=0.5)
    a.add_slot(0)
    a.acquire("A")
    waiting = threading.Thread(target=lambda: pytest.raises(Abandoned, a.acquire, "A", timeout=10))
    waiting.start()
    assert wait_until(lambda: a.stats()["queued"] == 1)
    with pytest.raises(Refused) as err:  # A already has its share (1) of the 2 queue places
        a.acquire("A")
    assert err.value.reason == "peer_share" and err.value.retry_after > 0
    other = threading.Thread(target=lambda: pytest.raises(Abandoned, a.acquire, "B", timeout=10))
    other.start()
    assert wait_until(lambda: a.stats()["queued"] == 2)
    with pytest.raises(Refused) as err:
        a.acquire("C")
    assert err.value.reason == "queue_full" and "retry" in str(err.value)
    a.close()  # wakes the waiters: Abandoned
    waiting.join(5)
    other.join(5)
    assert not waiting.is_alive() and not other.is_alive()


def test_admission_wait_ends_at_the_deadline_and_on_cancel():
    a = Admission(slots=1, max_queue=4)
    a.add_slot(0)
    a.acquire("A")
    t0 = time.monotonic()
    with pytest.raises(Expired):
        a.acquire("B", timeout=0.1)
    assert time.monotonic() - t0 < 2
    token = StopToken()
    threading.Timer(0.1, token.set).start()
    with pytest.raises(Abandoned):
        a.acquire("B", timeout=10, on_abandon=token.attach)
    assert a.stats()["queued"] == 0


# ---------------------------------------------------------------- the worker pool

def test_pool_runs_jobs_in_parallel_processes():
    ready = []
    pool = WorkerPool(2, on_ready=ready.append)
    pool.start()
    try:
        assert pool.wait_ready(60)
        pids = pool.pids()
        assert len(set(pids)) == 2 and os.getpid() not in pids
        spans = {}

        def run(slot):
            t0 = time.monotonic()
            result, good = pool.run(slot, SpinJob(0.6), 5.0, StopToken())
            spans[slot] = (t0, time.monotonic(), result, good)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        (a0, a1, ra, ga), (b0, b1, rb, gb) = spans[0], spans[1]
        assert ra == rb == "done" and ga and gb
        assert max(a0, b0) < min(a1, b1)  # the two pure-Python jobs overlapped in time
    finally:
        pool.close()


def test_pool_kills_a_job_that_ignores_its_stop_and_replaces_the_worker():
    ready = []
    restarts = []
    pool = WorkerPool(1, on_ready=ready.append, on_restart=restarts.append, stop_grace=0.1)
    pool.start()
    try:
        assert pool.wait_ready(60)
        first = pool.pids()[0]
        token = StopToken()
        threading.Timer(0.2, token.set).start()
        t0 = time.monotonic()
        with pytest.raises(WorkerLost) as err:
            pool.run(0, SpinJob(30, honour=False), 60.0, token)
        assert err.value.reason == "killed" and time.monotonic() - t0 < 5
        assert restarts == ["killed"]
        assert wait_until(lambda: len(ready) == 2, 60)  # a fresh worker took the slot
        assert pool.pids()[0] not in (None, first)
        result, good = pool.run(0, SpinJob(0.01), 5.0, StopToken())
        assert result == "done" and good
    finally:
        pool.close()


def test_pool_stops_a_job_at_its_time_limit():
    pool = WorkerPool(1, on_ready=lambda slot: None)
    pool.start()
    try:
        assert pool.wait_ready(60)
        t0 = time.monotonic()
        result, good = pool.run(0, SpinJob(30), 0.2, StopToken())
        assert result == "stopped" and good and time.monotonic() - t0 < 5
    finally:
        pool.close()


# ---------------------------------------------------------------- the server under load

@pytest.mark.parametrize("front_limit", [ServerConfig.front_limit, 0.0])
def test_cheap_calls_are_not_starved_and_overflow_is_refused(small_server, front_limit):
    server, ch = small_server(workers=1, max_queue=2, front_limit=front_limit)
    stub = pbg.PlacementServiceStub(ch)
    health = health_pb2_grpc.HealthStub(ch)
    long_calls = [stub.SolvePuzzle.future(_endless(), timeout=60)]
    assert wait_until(lambda: server.metrics.value("quiltsolve_solves_in_progress") == 1)
    peers = _peer_channels(server.port, 2)
    long_calls += [pbg.PlacementServiceStub(c).SolvePuzzle.future(_endless(), timeout=60) for c in peers]
    assert wait_until(lambda: server.core.admission.stats()["queued"] == 2)
    try:
        # Every worker busy, the queue full: cheap calls still answer at once.
        for _ in range(20):
            t0 = time.monotonic()
            assert health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=5).status == \
                health_pb2.HealthCheckResponse.SERVING
            assert len(stub.ListPatches(pb.ListPatchesRequest(), timeout=5).patches) == 33
            assert time.monotonic() - t0 < 1.5 + LATE
        # A quick SolvePlacement is answered in the front (front_limit > 0) or on the fast lane, past
        # the long calls.
        for _ in range(10):
            t0 = time.monotonic()
            assert stub.SolvePlacement(EASY, timeout=5).status == pb.SOLVE_STATUS_OPTIMAL
            assert time.monotonic() - t0 < 1.5 + LATE
        # One more expensive call is refused at once, with a retry hint.
        t0 = time.monotonic()
        with pytest.raises(grpc.RpcError) as err:
            stub.SolvePuzzle(_endless(), timeout=10)
        assert time.monotonic() - t0 < 2 + LATE
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        trailers = dict(err.value.trailing_metadata() or ())
        assert int(trailers["grpc-retry-pushback-ms"]) > 0
        assert "retry" in err.value.details()
        m = server.metrics
        assert m.value("quiltsolve_refused_total", method="SolvePuzzle", reason="queue_full") == 1
        assert m.value("grpc_server_handled_total", grpc_type="unary", grpc_service=SERVICE_NAME,
                       grpc_method="SolvePuzzle", grpc_code="RESOURCE_EXHAUSTED") == 1
        assert m.value("grpc_server_handled_total", grpc_type="unary", grpc_service=SERVICE_NAME,
                       grpc_method="SolvePlacement", grpc_code="OK") == 10
        assert m.value("grpc_server_handled_total", grpc_type="unary", grpc_service="grpc.health.v1.Health",
                       grpc_method="Check", grpc_code="OK") >= 20
        assert m.value("grpc_server_started_total", grpc_type="unary", grpc_service=SERVICE_NAME,
                       grpc_method="ListPatches") >= 20
        assert m.value("quiltsolve_queue_depth", lane="main") == 2
        assert m.value("quiltsolve_workers_busy", lane="main") == 1
    finally:
        for f in long_calls:
            f.cancel()
        for c in peers:
            c.close()


def test_a_cancelled_calls_worker_is_free_again_at_once(small_server):
    server, ch = small_server(workers=1, max_queue=4)
    stub = pbg.PlacementServiceStub(ch)
    pid = server.core.pool.pids()[0]
    for request, rpc in ((_endless(), stub.SolvePuzzle),
                         (pb.SuggestMoveRequest(state_json=state_json(play(3, 12)), time_limit={"seconds": 60}),
                          stub.SuggestMove)):
        fut = rpc.future(request, timeout=60)
        assert wait_until(lambda: server.metrics.value("quiltsolve_solves_in_progress") == 1)
        time.sleep(0.2)
        queued = stub.SolvePuzzle.future(SMALL_PUZZLE, timeout=30)  # waits for the one main worker
        assert wait_until(lambda: server.core.admission.stats()["queued"] == 1)
        t0 = time.monotonic()
        fut.cancel()
        assert queued.result().status == pb.SOLVE_STATUS_OPTIMAL
        assert time.monotonic() - t0 < 2  # far from the 60 s the cancelled solve had
    # The solves stopped when asked: the worker was never killed.
    assert server.core.pool.pids()[0] == pid
    assert server.metrics.value("quiltsolve_worker_restarts_total", reason="killed") == 0


def test_worker_over_its_memory_limit_is_replaced(small_server):
    # Every answer is "too big"; front_limit 0: the easy solve goes to the worker, not the front.
    server, ch = small_server(workers=1, fast_workers=0, max_worker_rss=1, front_limit=0)
    stub = pbg.PlacementServiceStub(ch)
    pids = set()
    for _ in range(3):
        assert stub.SolvePlacement(EASY, timeout=60).status == pb.SOLVE_STATUS_OPTIMAL
        assert wait_until(lambda: server.core.admission.stats()["free"] == 1, 60)
        pids.add(server.core.pool.pids()[0])
    assert len(pids) == 3
    assert server.metrics.value("quiltsolve_worker_restarts_total", reason="max_rss") == 3


def test_oversize_request_is_counted_and_logged(small_server, capfd):
    server, ch = small_server(max_receive_bytes=1024)
    stub = pbg.PlacementServiceStub(ch)
    big = pb.SolvePuzzleRequest(region=pb.Region(rows=["." * 20] * 20), pieces=["#" * 20] * 60,
                                mode=pb.PUZZLE_MODE_FIND)
    with pytest.raises(grpc.RpcError) as err:
        stub.SolvePuzzle(big, timeout=10)
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "at most 1024" in err.value.details()
    assert server.metrics.value("quiltsolve_refused_total", method="SolvePuzzle", reason="oversize") == 1
    lines = [json.loads(x) for x in capfd.readouterr().err.splitlines() if x.startswith("{")]
    assert any(x.get("method") == "SolvePuzzle" and x["code"] == "RESOURCE_EXHAUSTED" for x in lines)


def test_shutdown_under_load_ends_within_grace_plus_one_second(small_server):
    server, ch = small_server(workers=2, max_queue=4, grace=0.5)
    stub = pbg.PlacementServiceStub(ch)
    calls = [stub.SolvePuzzle.future(_endless(60), timeout=120) for _ in range(6)]
    assert wait_until(lambda: server.core.admission.stats()["busy"] == 2
                      and server.core.admission.stats()["queued"] >= 1)
    t0 = time.monotonic()
    assert server.stop().wait(10)
    elapsed = time.monotonic() - t0
    assert elapsed < 0.5 + 1.0, elapsed
    codes = set()
    for f in calls:
        try:
            resp = f.result(timeout=10)
            codes.add("OK" if resp.status == pb.SOLVE_STATUS_FEASIBLE else resp.status)
        except grpc.RpcError as e:
            codes.add(e.code().name)
    assert codes <= {"OK", "UNAVAILABLE", "CANCELLED", "RESOURCE_EXHAUSTED"}, codes


# ---------------------------------------------------------------- binding

def test_a_port_taken_on_any_address_is_a_start_up_error():
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        for host in ("127.0.0.1", "localhost"):
            with pytest.raises(OSError, match="already in use"):
                build_server(ServerConfig(host=host, port=port, workers=1, warm_up=False))
    finally:
        holder.close()


def test_two_servers_cannot_share_a_port():
    first, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=1, warm_up=False))
    try:
        with pytest.raises(OSError, match="already in use"):
            build_server(ServerConfig(host="localhost", port=port, workers=1, warm_up=False))
    finally:
        first.stop(0).wait(5)
