"""Losing a worker loses no call (issue 17, item 9).

* A job whose worker dies (SIGKILL from outside, the memory cap, a crash in C)
  runs again once on a fresh worker, transparently to the client.
* A request whose job has cost two workers is answered INTERNAL with its
  request id, and the same request is then refused at once for 10 minutes.
"""

from __future__ import annotations

import json
import os
import random
import signal
import threading
import time

import grpc
import pytest
from google.protobuf import duration_pb2

from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
from quiltsolve.server import ServerConfig, build_server
from quiltsolve.server.admission import Admission, Refused
from quiltsolve.server import positions
from quiltsolve.server.jobs import MovesJob, PuzzleJob, ReviewJob
from quiltsolve.server.core import POISON_LOSSES, POISON_SECONDS, Call, CoreConfig, PoisonTable, ServiceCore, job_fingerprint
from quiltsolve.server.errors import ServiceError
from quiltsolve.server.observe import SERVICE, CallRecord, Metrics, make_logger

from .conftest import play, state_json
from .jobs_for_tests import DieJob, SpinJob
from .test_load import EASY, ENDLESS_COUNT, HARD_PLACEMENT, wait_until

# ---------------------------------------------------------------- over gRPC: SIGKILLs under load

KILLS = 5
CALLS_PER_THREAD = 40        # an upper bound: the threads stop once the kills are done
LOAD_SECONDS = 90            # another upper bound on the load


def _with_limit(request, seconds: float):
    out = type(request)()
    out.CopyFrom(request)
    out.time_limit.CopyFrom(duration_pb2.Duration(nanos=int(seconds * 1e9)))
    return out


def _requests():
    """A mix of short and long calls (method, request); the long ones end at their time limit."""
    small_puzzle = pb.SolvePuzzleRequest(region=pb.Region(rows=["....."] * 3), mode=pb.PUZZLE_MODE_FIND,
                                         pieces=["####/#...", "###/.#./.#.", ".#../####"])
    return [
        ("SolvePlacement", EASY),
        ("SolvePlacement", _with_limit(HARD_PLACEMENT, 0.4)),
        ("SolvePuzzle", small_puzzle),
        ("SolvePuzzle", _with_limit(ENDLESS_COUNT, 0.3)),
        ("SuggestMove", pb.SuggestMoveRequest(state_json=state_json(play(3, 10)),
                                              time_limit=duration_pb2.Duration(nanos=200_000_000))),
    ]


@pytest.mark.parametrize("fast_workers", [0, 1])
def test_sigkilled_workers_under_load_lose_no_call(fast_workers):
    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=2, fast_workers=fast_workers,
                                             max_queue=16))
    server.start()
    ch = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = pbg.PlacementServiceStub(ch)
    requests = _requests()
    outcomes: list[tuple[str, str, str]] = []   # (method, code, details)
    lock = threading.Lock()
    kills_done = threading.Event()
    end = time.monotonic() + LOAD_SECONDS

    def load(seed: int) -> None:
        rng = random.Random(seed)
        for i in range(CALLS_PER_THREAD):
            if kills_done.is_set() or time.monotonic() > end:
                return
            method, request = rng.choice(requests)
            try:
                getattr(stub, method)(request, timeout=30, metadata=[("x-request-id", f"load-{seed}-{i}")])
                outcome = (method, "OK", "")
            except grpc.RpcError as e:
                outcome = (method, e.code().name, e.details() or "")
            with lock:
                outcomes.append(outcome)

    replaced = 0

    def killer() -> None:
        nonlocal replaced
        rng = random.Random(7)
        try:
            for _ in range(KILLS):
                # Longer than any job of the mix takes (0.4 s at most): the retry of the job just
                # killed ends before the next kill, which could otherwise hit it a second time.
                time.sleep(1.0)
                if not wait_until(lambda: server.core.admission.stats()["busy"] >= 1, 20):
                    continue
                pids = [(slot, pid) for slot, pid in enumerate(server.core.pool.pids()) if pid is not None]
                slot, pid = rng.choice(pids)
                os.kill(pid, signal.SIGKILL)
                # the front notices at once if the worker was busy, at its next job if idle
                if wait_until(lambda: server.core.pool.pids()[slot] not in (None, pid), 30):
                    replaced += 1
        finally:
            kills_done.set()

    try:
        threads = [threading.Thread(target=load, args=(s,)) for s in range(3)] + [threading.Thread(target=killer)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(LOAD_SECONDS + 60)
        assert not any(t.is_alive() for t in threads)
        failed = [o for o in outcomes if o[1] != "OK"]
        assert outcomes and not failed, failed
        assert replaced == KILLS
        assert server.metrics.value("quiltsolve_worker_restarts_total", reason="died") >= KILLS
        retries = sum(server.metrics.value("quiltsolve_job_retries_total", method=m, reason="died")
                      for m in ("SolvePlacement", "SolvePuzzle", "SuggestMove"))
        assert retries >= 1
    finally:
        ch.close()
        server.stop(0).wait(5)


POISON_ROWS = ["...", "..."]  # a puzzle the test turns into a job that always kills its worker


def test_a_poison_request_over_grpc_names_its_request_id(monkeypatch):
    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0, max_queue=4))
    real = server.core.run_job

    def run_job(call, job, *rest, **kw):
        if isinstance(job, PuzzleJob) and list(job.rows) == POISON_ROWS:
            job = DieJob(wraps=job)
        return real(call, job, *rest, **kw)

    monkeypatch.setattr(server.core, "run_job", run_job)
    server.start()
    ch = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = pbg.PlacementServiceStub(ch)
    poison = pb.SolvePuzzleRequest(region=pb.Region(rows=POISON_ROWS), pieces=["##"], mode=pb.PUZZLE_MODE_FIND)
    died = lambda: server.metrics.value("quiltsolve_worker_restarts_total", reason="died")  # noqa: E731
    try:
        with pytest.raises(grpc.RpcError) as err:
            stub.SolvePuzzle(poison, timeout=60, metadata=[("x-request-id", "grpc-poison-1")])
        assert err.value.code() == grpc.StatusCode.INTERNAL
        assert "request id grpc-poison-1" in err.value.details()
        assert died() == 2
        assert wait_until(lambda: server.core.admission.stats()["free"] == 1, 60)
        # The same request bytes again, without a request id: refused at once, naming the first call's id.
        with pytest.raises(grpc.RpcError) as err:
            stub.SolvePuzzle(poison, timeout=60)
        assert err.value.code() == grpc.StatusCode.INTERNAL
        assert "request id grpc-poison-1" in err.value.details() and "refused" in err.value.details()
        assert died() == 2
        # Another request is served.
        other = pb.SolvePuzzleRequest(region=pb.Region(rows=["..", ".."]), pieces=["##", "##"],
                                      mode=pb.PUZZLE_MODE_FIND)
        assert stub.SolvePuzzle(other, timeout=60).status == pb.SOLVE_STATUS_OPTIMAL
        assert server.metrics.value("quiltsolve_poison_refused_total", method="SolvePuzzle") == 1
    finally:
        ch.close()
        server.stop(0).wait(5)


def test_a_stream_names_its_request_id_too(monkeypatch, capfd):
    """AnalyzeGame: the stream's record (x-request-id) reaches the core; a poison move ends the stream."""
    from .test_rpcs import record_of_play

    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0, max_queue=4))
    real = server.core.run_job

    def run_job(call, job, *rest, **kw):
        if isinstance(job, ReviewJob) and job.ply == 1:
            job = DieJob(wraps=job)
        return real(call, job, *rest, **kw)

    monkeypatch.setattr(server.core, "run_job", run_job)
    server.start()
    ch = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = pbg.PlacementServiceStub(ch)
    got = []
    try:
        req = pb.AnalyzeGameRequest(record=record_of_play(21, 2), iterations=20, seed=1)
        with pytest.raises(grpc.RpcError) as err:
            for review in stub.AnalyzeGame(req, timeout=60, metadata=[("x-request-id", "stream-1")]):
                got.append(review.ply)
        assert got == [0]
        assert err.value.code() == grpc.StatusCode.INTERNAL and "request id stream-1" in err.value.details()
    finally:
        ch.close()
        server.stop(0).wait(5)
    lines = [json.loads(x) for x in capfd.readouterr().err.splitlines() if x.startswith("{")]
    rpc = [x for x in lines if x.get("event") == "rpc" and x.get("method") == "AnalyzeGame"]
    assert [(x["request_id"], x["code"]) for x in rpc] == [("stream-1", "INTERNAL")]
    assert "request id stream-1" in rpc[0]["details"]


# ---------------------------------------------------------------- the core, directly


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def make_core():
    made = []

    def make(workers: int = 1, fast_workers: int = 0, clock=time.monotonic, **kw) -> ServiceCore:
        core = ServiceCore(CoreConfig(workers=workers, max_queue=4, fast_workers=fast_workers, **kw), Metrics(),
                           make_logger(), clock=clock)
        made.append(core)
        assert core.start(timeout=120)
        return core

    yield make
    for core in made:
        core.close(0)


def _call(request_id: str | None = None, deadline: float | None = None) -> Call:
    return Call(peer="test-peer", deadline=deadline, record=CallRecord(SERVICE, "Test", request_id=request_id))


def _restarts(core: ServiceCore, reason: str = "died") -> float:
    return core.metrics.value("quiltsolve_worker_restarts_total", reason=reason)


def _all_ready(core: ServiceCore) -> bool:
    lanes = [core.admission] + ([core.fast] if core.fast is not None else [])
    return all(lane.stats()["free"] == lane.slots for lane in lanes)


def test_a_job_whose_worker_dies_runs_again_on_a_fresh_worker(make_core, tmp_path):
    core = make_core()
    first = core.pool.pids()[0]
    call = _call()  # no x-request-id: one is made for the call
    assert core.run_job(call, DieJob(**{"marker": str(tmp_path / "died-once")}), 5.0, "x") == "survived"
    assert _restarts(core) == 1
    assert core.metrics.value("quiltsolve_job_retries_total", method="Test", reason="died") == 1
    assert core.metrics.value("quiltsolve_poisoned_requests_total", method="Test") == 0
    assert call.record.extra["workers_lost"] == ["died"] and call.record.extra["retried"]
    assert len(call.record.request_id) == 32  # uuid4 hex, in the call's log line and the retry's
    assert core.pool.pids()[0] not in (None, first)


def test_a_request_that_kills_two_workers_is_refused_for_ten_minutes(make_core, tmp_path):
    clock = FakeClock()
    core = make_core(clock=clock)
    poison = {"marker": None}

    with pytest.raises(ServiceError) as err:
        core.run_job(_call("poison-1"), DieJob(**poison), 5.0, "x")
    assert err.value.code == grpc.StatusCode.INTERNAL
    assert "request id poison-1" in err.value.details and "killed 2 worker processes" in err.value.details
    assert _restarts(core) == POISON_LOSSES == 2  # exactly two workers, the second one final
    assert core.metrics.value("quiltsolve_job_retries_total", method="Test", reason="died") == 1
    assert core.metrics.value("quiltsolve_poisoned_requests_total", method="Test") == 1
    assert core.metrics.value("quiltsolve_poisoned_requests_held") == 1
    assert wait_until(lambda: _all_ready(core), 60)
    pids = core.pool.pids()

    # The same request, from another call, within 10 minutes: refused before it reaches a worker.
    clock.now += POISON_SECONDS - 1
    again = _call("poison-2")
    with pytest.raises(ServiceError) as err:
        core.run_job(again, DieJob(**{"marker": None}), 5.0, "x")  # equal args, another dict
    assert err.value.code == grpc.StatusCode.INTERNAL and "request id poison-1" in err.value.details
    assert again.record.extra["poisoned_by"] == "poison-1"
    assert _restarts(core) == 2 and core.pool.pids() == pids
    assert core.metrics.value("quiltsolve_poison_refused_total", method="Test") == 1

    # A different request is served.
    assert core.run_job(_call(), SpinJob(**{"seconds": 0.01}), 5.0, "x") == "done"
    assert core.run_job(_call(), DieJob(**{"marker": str(tmp_path / "other")}), 5.0, "x") == "survived"
    assert _restarts(core) == 3

    # Ten minutes after, the same request runs again (and costs its two workers again).
    clock.now += 1
    assert wait_until(lambda: _all_ready(core), 60)
    with pytest.raises(ServiceError) as err:
        core.run_job(_call(), DieJob(**poison), 5.0, "x")
    assert err.value.code == grpc.StatusCode.INTERNAL and "request id poison-1" not in err.value.details
    assert _restarts(core) == 5
    assert core.metrics.value("quiltsolve_poisoned_requests_total", method="Test") == 2


def test_a_fast_lane_death_is_the_one_retry_of_a_fast_first_job(make_core, tmp_path):
    core = make_core(workers=1, fast_workers=1)
    # Dies on the fast lane, then runs in the main lane: one worker lost, one retry.
    call = _call("fast-1")
    assert core.run_job(call, DieJob(**{"marker": str(tmp_path / "m")}), 5.0, "x", fast_first=True) == "survived"
    assert _restarts(core) == 1 and call.record.extra["workers_lost"] == ["died"]
    assert core.metrics.value("quiltsolve_job_retries_total", method="Test", reason="died") == 1
    # Always dies: the fast-lane death and the main-lane death are the two, not three.
    assert wait_until(lambda: _all_ready(core), 60)
    with pytest.raises(ServiceError) as err:
        core.run_job(_call("fast-2"), DieJob(**{"marker": None}), 5.0, "x", fast_first=True)
    assert err.value.code == grpc.StatusCode.INTERNAL and "request id fast-2" in err.value.details
    assert _restarts(core) == 3
    # The same request without the fast lane is the same request: refused.
    with pytest.raises(ServiceError) as err:
        core.run_job(_call(), DieJob(**{"marker": None}), 5.0, "x")
    assert "request id fast-2" in err.value.details and _restarts(core) == 3


def test_a_killed_and_a_dead_worker_count_alike(make_core, tmp_path):
    """Fast lane: killed for not stopping (counts as one); main lane: dies (the second): INTERNAL."""
    core = make_core(workers=1, fast_workers=1, stop_grace=0.1, fast_limit=0.05)
    go = tmp_path / "go"
    job = {"wait_for": str(go), "marker": None}
    result: dict = {}

    def run() -> None:
        try:
            core.run_job(_call("mixed-1"), DieJob(**job), 5.0, "x", fast_first=True)
        except ServiceError as e:
            result["error"] = e

    t = threading.Thread(target=run)
    t.start()
    # The fast-lane job ignores its stop and is killed; then the main lane runs it: let it die.
    assert wait_until(lambda: _restarts(core, "killed") == 1, 60)
    assert wait_until(lambda: core.metrics.value("quiltsolve_solves_in_progress") == 1, 60)
    go.touch()
    t.join(60)
    assert not t.is_alive()
    assert result["error"].code == grpc.StatusCode.INTERNAL and "request id mixed-1" in result["error"].details
    assert _restarts(core, "killed") == 1 and _restarts(core, "died") == 1
    assert core.metrics.value("quiltsolve_job_retries_total", method="Test", reason="killed") == 1


def test_a_call_that_ended_while_its_worker_died_is_not_run_again(make_core, tmp_path):
    core = make_core(workers=1, stop_grace=30)
    go = tmp_path / "go"
    call = _call("ended-1")
    result: dict = {}

    def run() -> None:
        try:
            core.run_job(call, DieJob(**{"wait_for": str(go), "marker": str(tmp_path / "m")}), 20.0, "x")
        except ServiceError as e:
            result["error"] = e

    t = threading.Thread(target=run)
    t.start()
    assert wait_until(lambda: core.metrics.value("quiltsolve_solves_in_progress") == 1, 60)
    call.stop.set()  # the client cancels; the job does not listen, then dies
    go.touch()
    t.join(60)
    assert not t.is_alive()
    assert result["error"].code == grpc.StatusCode.CANCELLED
    assert _restarts(core) == 1
    assert core.metrics.value("quiltsolve_job_retries_total", method="Test", reason="died") == 0


def test_a_retry_with_no_time_left_is_deadline_exceeded(make_core, tmp_path):
    core = make_core(workers=2, stop_grace=30)
    go = tmp_path / "go"
    call = _call("late-1", deadline=time.monotonic() + 1.0)
    result: dict = {}

    def run() -> None:
        try:
            core.run_job(call, DieJob(**{"wait_for": str(go), "marker": str(tmp_path / "m")}), 20.0, "x")
        except ServiceError as e:
            result["error"] = e

    t = threading.Thread(target=run)
    t.start()
    assert wait_until(lambda: core.metrics.value("quiltsolve_solves_in_progress") == 1, 60)
    assert wait_until(lambda: call.time_remaining() < 0, 10)
    go.touch()  # the worker dies after the call's deadline: no time is left to run it again
    t.join(60)
    assert not t.is_alive()
    assert result["error"].code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert _restarts(core) == 1  # no second worker was spent


def test_a_request_poisoned_while_it_waited_is_refused_once_it_has_a_worker(make_core):
    core = make_core(workers=1)
    busy = _call("busy-1")
    holder = threading.Thread(target=lambda: core.run_job(busy, SpinJob(**{"seconds": 30}), 60.0, "x"))
    holder.start()
    assert wait_until(lambda: core.metrics.value("quiltsolve_solves_in_progress") == 1, 60)
    poison = {"marker": None}
    result: dict = {}

    def run() -> None:
        try:
            core.run_job(_call("late-twin"), DieJob(**poison), 5.0, "x")
        except ServiceError as e:
            result["error"] = e

    waiter = threading.Thread(target=run)
    waiter.start()
    assert wait_until(lambda: core.admission.stats()["queued"] == 1, 60)
    core.poison.add(job_fingerprint((DieJob(**poison))), "twin-1")  # as if an identical call had just lost two
    busy.stop.set()
    holder.join(60)
    waiter.join(60)
    assert not holder.is_alive() and not waiter.is_alive()
    assert result["error"].code == grpc.StatusCode.INTERNAL and "request id twin-1" in result["error"].details
    assert _restarts(core) == 0
    assert wait_until(lambda: core.admission.stats()["free"] == 1)  # the slot was given back, not lost


# ---------------------------------------------------------------- the pieces

def test_a_retry_is_never_refused_and_waits_first():
    a = Admission(slots=1, max_queue=1, peer_share=1.0)
    a.add_slot(0)
    held = a.acquire("A")
    got: dict[str, int] = {}
    tb = threading.Thread(target=lambda: got.setdefault("B", a.acquire("B", timeout=10)))
    tb.start()
    assert wait_until(lambda: a.stats()["queued"] == 1)
    with pytest.raises(Refused):
        a.acquire("C", timeout=10)  # the queue is full
    tr = threading.Thread(target=lambda: got.setdefault("R", a.acquire("R", timeout=10, retry=True)))
    tr.start()
    assert wait_until(lambda: a.stats()["queued"] == 2)  # admitted beyond the queue bound
    a.retire(held)
    a.add_slot(0)  # the replacement worker: to the retry, although B waited longer
    assert wait_until(lambda: "R" in got)
    assert "B" not in got
    a.release(got["R"])
    tb.join(10)
    tr.join(10)
    assert got == {"R": 0, "B": 0}


def test_the_same_request_bytes_give_the_same_job_fingerprint():
    text = state_json(play(5, 12))
    a, b = positions.from_state_json(text), positions.from_state_json(text)  # two calls, two parses
    job = lambda state, seed=1: MovesJob(state=state, top=3, seed=seed, iterations=None)  # noqa: E731
    assert a is not b and job_fingerprint(job(a)) == job_fingerprint(job(b))
    assert job_fingerprint(job(a)) != job_fingerprint(job(a, seed=2))
    assert job_fingerprint(job(a)) != job_fingerprint(MovesJob(state=a, top=2, seed=1, iterations=None))
    assert len(job_fingerprint(job(a))) == 32


def test_poison_table_is_bounded_and_expires():
    clock = FakeClock()
    table = PoisonTable(seconds=600, size=3, clock=clock)
    for i in range(5):
        table.add(bytes([i]), f"req-{i}")
        clock.now += 1
    assert len(table) == 3 and table.get(b"\x00") is None and table.get(b"\x04")[0] == "req-4"
    clock.now += 600 - 3  # entry 2 was added at 1002, now is 1602
    assert table.get(b"\x02") is None and table.get(b"\x03") is not None
    clock.now += 10
    assert len(table) == 0
