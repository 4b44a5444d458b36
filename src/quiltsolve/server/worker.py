"""The worker process: runs CPU-heavy jobs (solves, rankings, move searches, puzzles) one at a time.

The server keeps one worker per core (:mod:`server.pool`) because the
bitmask placement search and the move search are pure Python and hold the
GIL: only processes use every core. Each worker talks to the front over one
duplex pipe:

* front → worker: ``("job", id, job, end)`` (``job`` a :class:`server.jobs.Job` value) (``end`` a ``time.monotonic()`` instant: the
  clock is the machine's, shared by every process), ``("cancel", id)``, ``("exit",)``
* worker → front: ``("ready", pid, rss)`` once warmed up, then per job
  (a streaming job, :class:`server.jobs.StreamJob`, first sends each of its
  updates as ``("update", id, update)``)
  ``("ok", id, result, rss)`` or ``("error", id, kind, message, rss)`` with
  ``kind`` one of ``input`` (the client's input), ``precondition`` (a legal
  request the position cannot answer) or ``internal`` (a bug: ``message``
  is the traceback, logged by the front, never sent to a client).

A listener thread reads the pipe so that a cancel reaches the running job's
:class:`solver.StopToken` at once; the job stops within milliseconds (every
solver stage checks the token), and the front kills a worker that does not.
After a job that leaves the process above ``max_rss`` bytes, the worker says
so in its answer and exits; the front starts a fresh one.

Importing this module imports every solver (OR-Tools included), so the
front preloads it in the fork server once and each worker starts warm.
"""

from __future__ import annotations

import gc
import os
import queue
import signal
import threading
import time
import traceback
from typing import Any

from quiltsolve import engine
import quiltsolve.engine.review
import quiltsolve.engine.players.search
from quiltsolve import solver
import quiltsolve.solver.cover  # noqa: F401 - preloaded: OR-Tools and the CP-SAT models
import quiltsolve.solver.lookahead  # noqa: F401
import quiltsolve.solver.puzzle  # noqa: F401
from quiltsolve.solver import StopToken

from .jobs import failure_kind
_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes() -> int:
    """This process's resident set size, from /proc (0 where there is none)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


# ---------------------------------------------------------------- warm-up

def warm_up() -> None:
    """One-time costs paid before the worker says it is ready, not inside a call's budget."""
    board = solver.board_from_rows(["#########"] * 8 + ["##......."])
    solver.solve(board, [solver.Candidate(0, solver.PATCHES[0].shape, 1, False)], solver.Objective.COVER,
                 time_limit=1.0, workers=1)
    empty = solver.board_from_rows(["........."] * 9)
    solver.rank_placements(empty, solver.Candidate(5, solver.PATCHES[5].shape, 1, False),
                           [solver.Candidate(9, solver.PATCHES[9].shape, 1, False)], time_limit=0.2, top=1)
    solver.solve_puzzle(["....."] * 3, ["####/#...", "###/.#./.#.", ".#../####"], time_limit=1.0)
    solver.solve_puzzle(["...."] * 4, [], unlimited=["##"], count=True, method="frontier", time_limit=1.0)
    engine.players.search.warm_up()  # imports, caches, a first search; freezes the GC's view of all that


# ---------------------------------------------------------------- the loop

def main(conn: Any, cache_bytes: int | None, max_rss: int | None) -> None:
    """Entry point of a worker process (``multiprocessing`` target)."""
    # Ctrl-C reaches the whole process group: the front decides when workers stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if cache_bytes is not None and hasattr(solver, "set_cache_limit"):
        solver.set_cache_limit(cache_bytes)
    warm_up()
    jobs: queue.Queue = queue.Queue()
    tokens: dict[int, StopToken] = {}
    lock = threading.Lock()

    def listen() -> None:
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):  # the front is gone
                os._exit(0)
            if msg[0] == "job":
                with lock:
                    tokens[msg[1]] = StopToken()
                jobs.put(msg)
            elif msg[0] == "cancel":
                with lock:
                    token = tokens.get(msg[1])
                if token is not None:
                    token.set()
            else:
                jobs.put(None)
                return

    threading.Thread(target=listen, name="quiltsolve-worker-listen", daemon=True).start()
    conn.send(("ready", os.getpid(), rss_bytes()))
    while (msg := jobs.get()) is not None:
        _, job_id, job, end = msg
        time_limit = max(0.001, end - time.monotonic())
        with lock:
            token = tokens[job_id]
        # No collector pass inside a job (a full one takes 30-70 ms and would land
        # past the time limit): garbage is collected after the answer is sent.
        gc.disable()
        try:
            if getattr(job, "streaming", False):   # a StreamJob: each update as it is made, then the answer
                for update in job.stream(time_limit, token):
                    conn.send(("update", job_id, update))
                reply: tuple = ("ok", job_id, None)
            else:
                reply = ("ok", job_id, job.run(time_limit, token))
        except Exception as e:  # noqa: BLE001 - reported (a bug with its traceback), never fatal to the worker
            kind = failure_kind(e)
            reply = ("error", job_id, kind, traceback.format_exc(limit=12) if kind == "internal" else str(e))
        with lock:
            tokens.pop(job_id, None)
        rss = rss_bytes()
        try:
            conn.send(reply + (rss,))
        except Exception:  # noqa: BLE001 - an unpicklable result is a bug too
            conn.send(("error", job_id, "internal", traceback.format_exc(limit=4), rss))
        if max_rss is not None and rss > max_rss:
            break  # the front sees rss > max_rss in the answer and starts a fresh worker
        gc.enable()
        gc.collect()
    conn.close()
