"""Losing a worker loses no call (issue 17, item 9).

* A job whose worker dies (SIGKILL from outside, the memory cap, a crash in C)
  runs again once on a fresh worker, transparently to the client.
* A request whose job has cost two workers is answered INTERNAL with its
  request id, and the same request is then refused at once for 10 minutes.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time

import grpc
from google.protobuf import duration_pb2

from patchwork.v1 import placement_pb2 as pb
from patchwork.v1 import placement_pb2_grpc as pbg
from server import ServerConfig, build_server

from .conftest import play, state_json
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


def test_sigkilled_workers_under_load_lose_no_call():
    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=2, fast_workers=0, max_queue=16))
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
                time.sleep(0.3)
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
