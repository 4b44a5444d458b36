"""AnalyzePosition over gRPC: updates while the search runs, the last one SuggestMove's answer; a cancel
stops the search and frees its worker at once, and the server logs it.

Every update is checked without the search: its moves are legal, each principal variation replays as
moves of the game, the visits add up to no more than the iterations, a proven answer's chances follow
the signs of its margins.
"""

from __future__ import annotations

import json
import threading
import time

import grpc
import pytest

from quiltsolve import engine
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
from quiltsolve.server import ServerConfig, build_server, positions

from .conftest import endgame, play

FREE_BOUND = 1.0    # seconds: generous for a busy machine (the target, 50 ms, is bench analyze's row)


def check_update(state: engine.GameState, u: pb.AnalyzePositionUpdate, top: int = 0) -> None:
    assert u.player == state.current_player()
    assert not top or len(u.moves) <= top
    assert sum(m.visits for m in u.moves) <= u.iterations
    for m in u.moves:
        action = positions.move_of(m.move)
        assert state.is_legal(action), m.move.text
        assert 0 <= m.win_chance <= 1
        line = [positions.move_of(x) for x in m.principal_variation]
        assert line and line[0] == action
        s = state.clone()
        for a in line:
            assert not s.is_terminal() and s.is_legal(a)
            s.apply_action(a)
        assert m.HasField("mean_margin") == (m.visits > 0)
    if u.proven:
        assert u.final and u.proven_margin == u.moves[0].proven_margin
        for m in u.moves:
            assert m.HasField("proven_margin") and m.visits == 0
            if m.proven_margin:
                assert m.win_chance == (1.0 if m.proven_margin > 0 else 0.0)


def request(state, **kw) -> pb.AnalyzePositionRequest:
    return pb.AnalyzePositionRequest(state=positions.to_message(state), **kw)


@pytest.mark.parametrize("state, seed", [(play(11, 14), 2), (play(4, 28), 5), (endgame(1, 3), 0)],
                         ids=["midgame", "late", "proven"])
def test_the_last_update_is_suggest_moves_answer(stub, state, seed):
    updates = list(stub.AnalyzePosition(request(state, iterations=2000, seed=seed, top=4,
                                                report_interval={"nanos": 50_000_000}), timeout=120))
    assert updates and [u.final for u in updates] == [False] * (len(updates) - 1) + [True]
    for u in updates:
        check_update(state, u, top=4)
    assert [u.iterations for u in updates] == sorted(u.iterations for u in updates)
    final = updates[-1]
    answer = stub.SuggestMove(pb.SuggestMoveRequest(state=positions.to_message(state), iterations=2000, seed=seed,
                                                    top=4), timeout=120)
    assert [(m.move, m.win_chance, m.reason, m.HasField("proven_margin") and m.proven_margin) for m in final.moves] \
        == [(m.move, m.win_chance, m.reason, m.HasField("proven_margin") and m.proven_margin)
            for m in answer.suggestions]
    assert (final.iterations, final.searched, final.proven, final.player) == \
        (answer.iterations, answer.searched, answer.proven, answer.player)


def test_a_cancel_frees_the_worker_at_once_and_is_logged(running, stub, capfd):
    server, _ = running
    admission = server.core.admission
    slots = admission.stats()["slots"]
    capfd.readouterr()
    state = play(7, 9)
    responses = stub.AnalyzePosition(request(state, until_cancelled=True, report_interval={"nanos": 50_000_000},
                                             top=3), timeout=60)
    got = []
    for u in responses:
        check_update(state, u, top=3)
        got.append(u)
        if sum(x.searched for x in got) == 3:
            break
    assert admission.stats()["free"] == slots - 1        # the analysis holds one worker
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
    # the worker is free for the next call, which finds it warm
    assert stub.SuggestMove(pb.SuggestMoveRequest(state=positions.to_message(state), iterations=50),
                            timeout=30).iterations == 50
    lines = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        lines += [json.loads(x) for x in capfd.readouterr().err.splitlines() if x.startswith("{")]
        if any(x.get("method") == "AnalyzePosition" and x.get("event") == "rpc" for x in lines):
            break
        time.sleep(0.05)
    cancelled = [x for x in lines if x.get("event") == "stream_cancelled"]
    assert cancelled and cancelled[0]["method"] == "AnalyzePosition" and cancelled[0]["updates"] >= 3
    assert cancelled[0]["freed_ms"] < FREE_BOUND * 1000
    rpc = [x for x in lines if x.get("event") == "rpc" and x.get("method") == "AnalyzePosition"]
    assert rpc and rpc[0]["code"] == "CANCELLED" and rpc[0]["request_id"] == cancelled[0]["request_id"]


def test_a_deadline_ends_an_open_analysis(running, stub):
    """The call's deadline caps an analysis until cancelled: it ends with its final update just before (on a
    busy machine the update may miss the deadline: then the call ends DEADLINE_EXCEEDED), and its worker is
    free again."""
    server, _ = running
    state = play(2, 6)
    t0 = time.monotonic()
    updates, code = [], "OK"
    try:
        for u in stub.AnalyzePosition(request(state, until_cancelled=True), timeout=2.0):
            updates.append(u)
    except grpc.RpcError as e:
        code = e.code().name
    took = time.monotonic() - t0
    assert code in ("OK", "DEADLINE_EXCEEDED") and 1.0 < took < 4.0
    assert sum(not u.final for u in updates) >= 2      # 0.2 s apart by default
    if code == "OK":
        assert updates[-1].final and updates[-1].searched and updates[-1].iterations > 0
    slots = server.core.admission.stats()["slots"]
    while server.core.admission.stats()["free"] < slots and time.monotonic() - t0 < 10:
        time.sleep(0.01)
    assert server.core.admission.stats()["free"] == slots


@pytest.mark.parametrize("kw, code, field", [
    ({"until_cancelled": True, "iterations": 10}, "INVALID_ARGUMENT", "until_cancelled"),
    ({"until_cancelled": True, "time_limit": {"seconds": 2}}, "INVALID_ARGUMENT", "until_cancelled"),
    ({"report_interval": {"nanos": 10_000_000}}, "INVALID_ARGUMENT", "report_interval"),
    ({"report_interval": {"seconds": 61}}, "INVALID_ARGUMENT", "report_interval"),
    ({"time_limit": {"seconds": 61}}, "INVALID_ARGUMENT", "time_limit"),
    ({"iterations": 200_001}, "INVALID_ARGUMENT", "iterations"),
    ({"top": -1}, "INVALID_ARGUMENT", "top"),
])
def test_bad_requests_name_their_field(stub, kw, code, field):
    with pytest.raises(grpc.RpcError) as e:
        list(stub.AnalyzePosition(request(play(1, 4), **kw), timeout=30))
    assert e.value.code().name == code and e.value.details().startswith(f"{field}:")


def test_a_finished_game_and_a_missing_state(stub):
    over = engine.new_game(2)
    while not over.is_terminal():
        over.apply_action(over.legal_actions()[0])
    with pytest.raises(grpc.RpcError) as e:
        list(stub.AnalyzePosition(request(over), timeout=30))
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION and e.value.details().startswith("state:")
    with pytest.raises(grpc.RpcError) as e:
        list(stub.AnalyzePosition(pb.AnalyzePositionRequest(iterations=5), timeout=30))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and e.value.details().startswith("state:")


@pytest.fixture(scope="module")
def one_worker():
    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0, max_queue=0))
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    yield server, pbg.PlacementServiceStub(channel), channel
    channel.close()
    server.stop(0).wait(5)


def test_an_analysis_is_admitted_like_any_expensive_call(one_worker):
    """It holds the one worker: with no queue, a second call is refused with a retry hint until it ends."""
    server, stub, channel = one_worker
    state = play(5, 5)
    responses = stub.AnalyzePosition(request(state, until_cancelled=True, report_interval={"nanos": 50_000_000}),
                                     timeout=60)
    next(responses)
    other = pbg.PlacementServiceStub(grpc.insecure_channel(f"127.0.0.1:{server.port}"))
    try:
        with pytest.raises(grpc.RpcError) as e:
            list(other.AnalyzePosition(request(state, iterations=10), timeout=30))
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert dict(e.value.trailing_metadata()).get("grpc-retry-pushback-ms")
    finally:
        responses.cancel()
    t0 = time.monotonic()
    while server.core.admission.stats()["free"] < 1 and time.monotonic() - t0 < 10:
        time.sleep(0.002)
    assert [u.final for u in other.AnalyzePosition(request(state, iterations=10), timeout=30)][-1]


def test_an_analysis_read_by_two_threads_at_once_is_two_calls(stub):
    """Two analyses at once each get a worker of their own and end with their own answer."""
    states = [play(8, 10), play(9, 11)]
    finals: list = [None, None]

    def run(i):
        finals[i] = list(stub.AnalyzePosition(request(states[i], iterations=500, seed=i), timeout=60))[-1]

    threads = [threading.Thread(target=run, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for state, final in zip(states, finals):
        assert final is not None and final.final and final.iterations == 500
        check_update(state, final)
