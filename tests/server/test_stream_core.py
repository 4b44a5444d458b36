"""The core's streaming jobs on real worker processes (server.core.ServiceCore.stream_job, server.pool.WorkerPool.
stream): updates as the worker sends them; one retry after a lost worker, only before the first update; a
closed iterator frees the slot at once (or, for a job deaf to its stop, once its worker is replaced)."""

from __future__ import annotations

import json
import time

import grpc
import pytest

from quiltsolve.server.core import Call, CoreConfig, InProcessCore, ServiceCore
from quiltsolve.server.errors import ServiceError
from quiltsolve.server.observe import SERVICE, CallRecord, Metrics, make_logger
from quiltsolve.solver import StopToken

from .jobs_for_tests import CountJob


@pytest.fixture(scope="module")
def core():
    core = ServiceCore(CoreConfig(workers=1, max_queue=2, fast_workers=0, stop_grace=0.3), Metrics(), make_logger())
    assert core.start(timeout=120)
    yield core
    core.close(0)


def _call(request_id: str | None = None) -> Call:
    return Call(peer="test-peer", deadline=None, record=CallRecord(SERVICE, "TestStream", request_id=request_id))


def _free(core: ServiceCore, timeout: float = 30) -> bool:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if core.admission.stats()["free"] == core.admission.slots:
            return True
        time.sleep(0.005)
    return False


def test_updates_come_as_the_worker_sends_them_and_the_slot_is_free_after(core):
    assert list(core.stream_job(_call(), CountJob(count=4), 10.0, "x")) == [0, 1, 2, 3]
    assert _free(core)
    assert list(InProcessCore().stream_job(_call(), CountJob(count=4), 10.0, "x")) == [0, 1, 2, 3]
    assert CountJob(count=4).run(1.0, StopToken()) == 3     # a streaming job run whole: its last update


def test_a_worker_lost_before_the_first_update_is_retried_once(core, tmp_path):
    before = core.pool.pids()[0]
    call = _call()
    got = list(core.stream_job(call, CountJob(count=3, die_after=0, marker=str(tmp_path / "once")), 10.0, "x"))
    assert got == [0, 1, 2] and call.record.extra["workers_lost"] == ["died"]
    assert _free(core) and core.pool.pids()[0] not in (None, before)


def test_a_worker_lost_after_updates_ends_the_call_internal(core, tmp_path):
    call = _call("req-stream-1")
    got = []
    with pytest.raises(ServiceError) as e:
        for update in core.stream_job(call, CountJob(count=5, die_after=2, marker=str(tmp_path / "m")), 10.0, "x"):
            got.append(update)
    assert got == [0, 1] and e.value.code == grpc.StatusCode.INTERNAL
    assert "after 2 updates" in e.value.details and "req-stream-1" in e.value.details
    assert _free(core)


def test_closing_the_stream_cancels_the_job_and_frees_the_slot_logged(core, capfd):
    capfd.readouterr()
    stream = core.stream_job(_call("req-close"), CountJob(count=None), 30.0, "x")
    assert [next(stream) for _ in range(3)] == [0, 1, 2]
    t0 = time.monotonic()
    stream.close()
    assert core.admission.stats()["free"] == 1        # free when close() returns
    assert time.monotonic() - t0 < 2.0
    lines = [json.loads(x) for x in capfd.readouterr().err.splitlines() if x.startswith("{")]
    logged = [x for x in lines if x.get("event") == "stream_cancelled"]
    assert logged and logged[0]["request_id"] == "req-close" and logged[0]["updates"] == 3


def test_a_job_deaf_to_its_stop_costs_its_worker_and_the_slot_comes_back(core):
    before = core.pool.pids()[0]
    stream = core.stream_job(_call(), CountJob(count=None, honour=False), 30.0, "x")
    next(stream)
    stream.close()                          # waits stop_grace (0.3 s), then the worker is killed and replaced
    assert _free(core) and core.pool.pids()[0] not in (None, before)
    assert core.metrics.value("quiltsolve_worker_restarts_total", reason="killed") >= 1


def test_a_cancelled_call_stops_the_job_with_its_last_update(core):
    call = _call()
    updates = []
    for update in core.stream_job(call, CountJob(count=None), 30.0, "x"):
        updates.append(update)
        if len(updates) == 2:
            call.stop.set()
    assert updates[:2] == [0, 1] and updates[-1] == -1
    assert _free(core)
