"""SolvePosition over gRPC: the proven interval narrowing to the exact value, as the engine's solve finds it; a
cancel stops the solver and frees its worker at once (logged); the deadline and the time limit end it with
the interval proven; it is admitted like any expensive call; bad requests name their field."""

from __future__ import annotations

import json
import time

import grpc
import pytest

from quiltsolve import engine
from quiltsolve.engine.solve import solve_exact
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
from quiltsolve.server import ServerConfig, build_server, positions

FREE_BOUND = 1.0    # seconds: generous for a busy machine (the target, 50 ms, is bench solve's row)
EIGHT = ("r 47,37,tirvpmf2w3g,777577557557777077077005005 46,12,l97aq0u6k8n,777777777743741740770774770 "
         "j4he1odbsc5 1 -", 3)
HARD = ("r 26,0,tnmhc3d,775777677577423401400 25,2,au1gqriv,000000000000611775767577777 "
        "l0kb68f9opes7j42w5 1 -")   # 20 plies into seed 7's game: far from solved in a minute


def request(notation: str, **kw) -> pb.SolvePositionRequest:
    return pb.SolvePositionRequest(state=positions.to_message(engine.GameState.from_notation(notation)), **kw)


def test_the_interval_narrows_to_the_engines_value(stub):
    updates = list(stub.SolvePosition(request(EIGHT[0], report_interval={"nanos": 50_000_000}), timeout=60))
    assert [u.final for u in updates] == [False] * (len(updates) - 1) + [True]
    last = updates[-1]
    assert last.reason == pb.SOLVE_REASON_SOLVED and last.HasField("value") and last.value == EIGHT[1]
    assert last.lower == last.upper == EIGHT[1] and last.player == 1
    # before the last: running; a value only once the interval has closed (the line may still be being found)
    assert all(u.reason == pb.SOLVE_REASON_RUNNING for u in updates[:-1])
    assert all(u.value == EIGHT[1] if u.HasField("value") else u.lower < u.upper for u in updates[:-1])
    for a, b in zip(updates, updates[1:]):
        assert a.lower <= b.lower and b.upper <= a.upper
    local = solve_exact(engine.GameState.from_notation(EIGHT[0]))
    assert [positions.move_of(m) for m in last.line] == list(local.line)
    assert (last.nodes, last.probes, last.table_bytes) == (local.nodes, local.probes, 256 * 2**20)


def test_a_cancel_frees_the_worker_at_once_and_is_logged(running, stub, capfd):
    server, _ = running
    admission = server.core.admission
    slots = admission.stats()["slots"]
    capfd.readouterr()
    responses = stub.SolvePosition(request(HARD, report_interval={"nanos": 50_000_000}), timeout=60)
    got = [next(responses) for _ in range(3)]
    assert all(not u.final and u.lower < u.upper for u in got)
    assert admission.stats()["free"] == slots - 1        # the solve holds one worker
    t0 = time.monotonic()
    responses.cancel()
    while admission.stats()["free"] < slots and time.monotonic() - t0 < 10:
        time.sleep(0.001)
    freed = time.monotonic() - t0
    assert admission.stats()["free"] == slots
    assert freed < FREE_BOUND, f"the worker was free {freed * 1000:.0f} ms after the cancel"
    with pytest.raises(grpc.RpcError) as e:
        next(responses)
    assert e.value.code() == grpc.StatusCode.CANCELLED
    lines: list = []
    # The call's two log lines come after its stream closes, in either order (the face logs the call as it ends,
    # the stream its cancel when its generator is closed): slow under load, so wait for both.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        lines += [json.loads(x) for x in capfd.readouterr().err.splitlines() if x.startswith("{")]
        if {x.get("event") for x in lines if x.get("method") == "SolvePosition"} >= {"rpc", "stream_cancelled"}:
            break
        time.sleep(0.05)
    cancelled = [x for x in lines if x.get("event") == "stream_cancelled" and x.get("method") == "SolvePosition"]
    assert cancelled and cancelled[0]["updates"] >= 3 and cancelled[0]["freed_ms"] < FREE_BOUND * 1000
    rpc = [x for x in lines if x.get("event") == "rpc" and x.get("method") == "SolvePosition"]
    assert rpc and rpc[0]["code"] == "CANCELLED"


@pytest.mark.parametrize("how", ["time_limit", "deadline"])
def test_the_time_limit_and_the_deadline_end_it_with_the_interval(running, stub, how):
    server, _ = running
    kw = {"time_limit": {"nanos": 800_000_000}} if how == "time_limit" else {}
    t0 = time.monotonic()
    updates, code = [], "OK"
    try:
        for u in stub.SolvePosition(request(HARD, **kw), timeout=1.0 if how == "deadline" else 30):
            updates.append(u)
    except grpc.RpcError as e:
        code = e.code().name
    took = time.monotonic() - t0
    assert code in (("OK", "DEADLINE_EXCEEDED") if how == "deadline" else ("OK",)) and 0.5 < took < 3.0
    if code == "OK":
        last = updates[-1]
        assert last.final and last.reason == pb.SOLVE_REASON_TIME_LIMIT and last.lower < last.upper
        assert not last.HasField("value")
    slots = server.core.admission.stats()["slots"]
    while server.core.admission.stats()["free"] < slots and time.monotonic() - t0 < 10:
        time.sleep(0.01)
    assert server.core.admission.stats()["free"] == slots


@pytest.mark.parametrize("kw, field", [
    ({"time_limit": {"seconds": 601}}, "time_limit"),
    ({"time_limit": {"seconds": -1}}, "time_limit"),
    ({"report_interval": {"nanos": 10_000_000}}, "report_interval"),
    ({"table_mb": -1}, "table_mb"),
])
def test_bad_requests_name_their_field(stub, kw, field):
    with pytest.raises(grpc.RpcError) as e:
        list(stub.SolvePosition(request(EIGHT[0], **kw), timeout=30))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and e.value.details().startswith(f"{field}:")
    with pytest.raises(grpc.RpcError) as e:
        list(stub.SolvePosition(pb.SolvePositionRequest(), timeout=30))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and e.value.details().startswith("state:")


def test_a_finished_game_and_state_json(stub):
    over = engine.new_game(2)
    while not over.is_terminal():
        over.apply_action(over.legal_actions()[0])
    (only,) = list(stub.SolvePosition(pb.SolvePositionRequest(state_json=json.dumps(over.to_json())), timeout=30))
    a, b = over.scores()
    assert only.final and only.reason == pb.SOLVE_REASON_GAME_OVER
    assert only.value == only.lower == only.upper == (a - b if over.current_player() == 0 else b - a)


@pytest.fixture(scope="module")
def one_worker():
    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0, max_queue=0,
                                             table_bytes=64 * 2**20))
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    yield server, pbg.PlacementServiceStub(channel)
    channel.close()
    server.stop(0).wait(5)


def test_a_solve_is_admitted_like_any_expensive_call(one_worker):
    """It holds the one worker: with no queue, a second call is refused with a retry hint until it ends; the
    table is the server's bound at most (here 64 MiB: less than the default 256)."""
    server, stub = one_worker
    responses = stub.SolvePosition(request(HARD, report_interval={"nanos": 50_000_000}), timeout=60)
    first = next(responses)
    assert first.table_bytes == 64 * 2**20
    other = pbg.PlacementServiceStub(grpc.insecure_channel(f"127.0.0.1:{server.port}"))
    try:
        with pytest.raises(grpc.RpcError) as e:
            list(other.SolvePosition(request(EIGHT[0]), timeout=30))
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert dict(e.value.trailing_metadata()).get("grpc-retry-pushback-ms")
        with pytest.raises(grpc.RpcError) as e:
            list(other.SolvePosition(request(EIGHT[0], table_mb=128), timeout=30))
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "the server's --table-bytes" in e.value.details()
        assert not dict(e.value.trailing_metadata() or ()).get("grpc-retry-pushback-ms")
    finally:
        responses.cancel()
    t0 = time.monotonic()
    while server.core.admission.stats()["free"] < 1 and time.monotonic() - t0 < 10:
        time.sleep(0.002)
    assert list(other.SolvePosition(request(EIGHT[0]), timeout=30))[-1].value == EIGHT[1]
