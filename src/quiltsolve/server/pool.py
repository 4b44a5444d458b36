"""The worker processes behind the front: start, run a job, stop it, replace it.

One :class:`WorkerPool` holds ``size`` slots, each served by one worker
process (:mod:`server.worker`) at a time. A caller that holds a slot (from
:class:`server.admission.Admission`) runs one job on it with :meth:`run`.
Processes come from a ``forkserver`` that has imported every solver once,
so a new or replacement worker is a fork, warm within a fraction of a second,
and no worker is forked from the multi-threaded gRPC front.

Stopping is layered, so that a slot is free again promptly whatever the job does:

1. the call's :class:`solver.StopToken` (cancel, deadline) sends ``cancel``
   to the worker, whose job returns its best answer so far within milliseconds;
2. the front sends the same ``cancel`` itself once the job's time limit has
   passed by ``overrun`` seconds;
3. a worker that has not answered ``stop_grace`` seconds after a cancel is
   killed and replaced (:class:`WorkerLost`).

A streaming job (:class:`server.jobs.StreamJob`) is run the same way by
:meth:`WorkerPool.stream`: its worker sends each update as it is made, then
the answer; a caller that stops reading early cancels the job, and the slot
is free again as soon as the worker has answered.
"""

from __future__ import annotations

import itertools
import multiprocessing
import threading
import time
from typing import Any, Callable, Iterator

from quiltsolve.solver import StopToken

from .jobs import Job

_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["quiltsolve.server.worker"])
POLL_SLICE = 0.01  # seconds between checks of the stop token while a job runs


class WorkerLost(Exception):
    """The job has no answer: its worker was killed (``killed``) or died (``died``)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class JobFailed(Exception):
    """The job raised: ``kind`` is ``input``, ``precondition`` or ``internal``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class _Worker:
    """One worker process and the front's end of its pipe."""

    def __init__(self, process: Any, conn: Any) -> None:
        self.process = process
        self.conn = conn
        self.send_lock = threading.Lock()
        self.rss = 0

    def send(self, msg: tuple) -> bool:
        with self.send_lock:
            try:
                self.conn.send(msg)
                return True
            except (OSError, ValueError):  # closed or broken: the worker is gone
                return False

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(2)
        self.conn.close()


class WorkerPool:
    """``size`` worker processes; ``on_ready(slot)`` is called whenever a slot's worker is ready."""

    def __init__(self, size: int, *, on_ready: Callable[[int], None], cache_bytes: int | None = None,
                 max_rss: int | None = None, stop_grace: float = 0.5, overrun: float = 0.03,
                 on_restart: Callable[[str], None] | None = None, log: Any = None) -> None:
        if size < 1:
            raise ValueError(f"size must be >= 1, got {size}")
        self.size = size
        self.cache_bytes = cache_bytes
        self.max_rss = max_rss
        self.stop_grace = stop_grace
        self.overrun = overrun
        self._on_ready = on_ready
        self._on_restart = on_restart
        self._log = log
        self._workers: list[_Worker | None] = [None] * size
        self._ids = itertools.count(1)
        self._closed = threading.Event()
        self._ready = [threading.Event() for _ in range(size)]
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    # ------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Start every worker in the background; :meth:`wait_ready` waits for them."""
        for slot in range(self.size):
            self._spawn_async(slot)

    def wait_ready(self, timeout: float | None = None) -> bool:
        end = None if timeout is None else time.monotonic() + timeout
        for ev in self._ready:
            left = None if end is None else max(0.0, end - time.monotonic())
            if not ev.wait(left):
                return False
        return True

    def close(self, timeout: float = 1.0) -> None:
        """Ask every worker to exit; kill those still there after ``timeout`` seconds."""
        self._closed.set()
        with self._lock:
            workers = [w for w in self._workers if w is not None]
            self._workers = [None] * self.size
        for w in workers:
            w.send(("exit",))
        end = time.monotonic() + timeout
        for w in workers:
            w.process.join(max(0.0, end - time.monotonic()))
        for w in workers:
            w.kill()
        for t in self._threads:
            t.join(timeout)

    def rss(self) -> list[int]:
        """Each slot's worker RSS in bytes as last reported (0: none yet)."""
        with self._lock:
            return [w.rss if w is not None else 0 for w in self._workers]

    def pids(self) -> list[int | None]:
        with self._lock:
            return [w.process.pid if w is not None else None for w in self._workers]

    def _spawn_async(self, slot: int) -> None:
        t = threading.Thread(target=self._spawn, args=(slot,), name=f"quiltsolve-spawn-{slot}", daemon=True)
        self._threads = [x for x in self._threads if x.is_alive()] + [t]
        t.start()

    def _spawn(self, slot: int) -> None:
        # start-up time: server.worker preloads OR-Tools and the CP-SAT models (~400 ms, numpy, pandas) for
        # the workers; the front only names worker.main for the fork server, so it imports it on first spawn.
        from . import worker

        delay = 0.1
        while not self._closed.is_set():
            front, back = _CONTEXT.Pipe(duplex=True)
            proc = _CONTEXT.Process(target=worker.main, args=(back, self.cache_bytes, self.max_rss),
                                    name=f"quiltsolve-worker-{slot}", daemon=True)
            try:
                proc.start()
            except Exception as e:  # noqa: BLE001 - e.g. out of processes: try again
                self._note("worker_start_failed", slot=slot, error=f"{type(e).__name__}: {e}")
                self._closed.wait(delay)
                delay = min(5.0, delay * 2)
                continue
            back.close()
            w = _Worker(proc, front)
            try:
                ok = front.poll(120) and front.recv()[0] == "ready"
            except (EOFError, OSError):
                ok = False
            if not ok or self._closed.is_set():
                w.kill()
                if not self._closed.is_set():
                    self._note("worker_start_failed", slot=slot, error="no ready message")
                    self._closed.wait(delay)
                    delay = min(5.0, delay * 2)
                continue
            with self._lock:
                if self._closed.is_set():
                    w.kill()
                    return
                self._workers[slot] = w
            self._ready[slot].set()
            self._on_ready(slot)
            return

    def _replace(self, slot: int, w: _Worker, reason: str) -> None:
        with self._lock:
            if self._workers[slot] is w:
                self._workers[slot] = None
        w.kill()
        if self._on_restart is not None:
            self._on_restart(reason)
        if not self._closed.is_set():
            self._spawn_async(slot)

    def _note(self, event: str, **fields: Any) -> None:
        if self._log is not None:
            self._log.warning(event, **fields)

    # ------------------------------------------------------------ running a job
    def run(self, slot: int, job: Job, time_limit: float, stop: StopToken) -> tuple[Any, bool]:
        """Run ``job`` on ``slot``'s worker: ``(result, slot_still_good)``.

        ``slot_still_good`` is False when the worker is being replaced (it
        exceeded ``max_rss``, was killed or died): the caller must not hand
        the slot out again; :meth:`start`'s ``on_ready`` will, once the new
        worker is ready. Raises :class:`JobFailed` or :class:`WorkerLost`.
        """
        outcome = StreamOutcome()
        for _ in self._exchange(slot, job, time_limit, stop, outcome):
            pass  # a unary job sends no updates
        return outcome.result, outcome.good

    def stream(self, slot: int, job: Job, time_limit: float, stop: StopToken, outcome: "StreamOutcome") -> Iterator[Any]:
        """Run a streaming job (:class:`server.jobs.StreamJob`) on ``slot``'s worker: its updates, each as the
        worker sends it. ``outcome.good`` then says whether the slot is still good (as :meth:`run`'s).

        Closed early (the caller stopped reading: the call was cancelled), it cancels the job and waits
        for the worker's answer (at most ``stop_grace`` seconds, then the worker is killed and replaced), so
        the slot is free again, or retired, when the close returns. Raises :class:`JobFailed` or
        :class:`WorkerLost`.
        """
        return self._exchange(slot, job, time_limit, stop, outcome)

    def _exchange(self, slot: int, job: Job, time_limit: float, stop: StopToken,
                  outcome: "StreamOutcome") -> Iterator[Any]:
        with self._lock:
            w = self._workers[slot]
        if w is None:
            raise WorkerLost("died", "no worker on this slot")
        job_id = next(self._ids)
        # The end, not the length: a worker that starts late (still collecting garbage
        # from its last job) takes its lateness out of this job's time, not the caller's.
        if not w.send(("job", job_id, job, time.monotonic() + time_limit)):
            self._replace(slot, w, "died")
            raise WorkerLost("died", "the worker process is gone")

        def cancel() -> None:
            w.send(("cancel", job_id))

        watch = _Watch(time.monotonic() + time_limit + self.overrun, self.stop_grace)
        stop.attach(cancel)
        reply = None
        try:
            while True:
                reply = watch.receive(w, stop, cancel)
                if reply[0] != "update":
                    break
                yield reply[2]
        except WorkerLost as e:
            outcome.good = False
            self._replace(slot, w, e.reason)
            raise
        except GeneratorExit:  # the caller stopped reading: end the job, free the slot
            outcome.good = self._drain(slot, w, cancel, watch)
            raise
        finally:
            stop.detach(cancel)
        status, _, payload, rss = reply[0], reply[1], reply[2:-1], reply[-1]
        w.rss = rss
        good = self.max_rss is None or rss <= self.max_rss
        outcome.good = good
        if not good:
            self._replace(slot, w, "max_rss")
        if status == "ok":
            outcome.result = payload[0]
            return
        raise JobFailed(payload[0], payload[1])

    def _drain(self, slot: int, w: _Worker, cancel: Callable[[], None], watch: "_Watch") -> bool:
        """After an early close: cancel the job and read on to its answer; whether the slot is still good."""
        cancel()
        token = StopToken()
        token.set()             # the job is being cancelled: the watch gives it stop_grace, then gives up
        try:
            reply = watch.receive(w, token, lambda: None)
            while reply[0] == "update":
                reply = watch.receive(w, token, lambda: None)
        except WorkerLost as e:
            self._replace(slot, w, e.reason)
            return False
        w.rss = reply[-1]
        if self.max_rss is not None and w.rss > self.max_rss:
            self._replace(slot, w, "max_rss")
            return False
        return True


class StreamOutcome:
    """What :meth:`WorkerPool.stream` leaves for its caller: whether the slot is still good, and a unary
    job's result."""

    def __init__(self) -> None:
        self.good = True
        self.result: Any = None


class _Watch:
    """Reads one job's messages from its worker: cancels it once its stop token is set or its time limit
    (``limit_end``, overrun included) has passed, and gives up ``stop_grace`` seconds after that."""

    def __init__(self, limit_end: float, stop_grace: float) -> None:
        self.limit_end = limit_end
        self.stop_grace = stop_grace
        self.cancelled_at: float | None = None

    def receive(self, w: _Worker, stop: StopToken, cancel: Callable[[], None]) -> tuple:
        """The worker's next message (an update or the answer); :class:`WorkerLost` when it does not come."""
        while True:
            now = time.monotonic()
            if self.cancelled_at is None and (stop.is_set() or now >= self.limit_end):
                if not stop.is_set():
                    cancel()  # past its time limit: the job must return what it has
                self.cancelled_at = now
            if self.cancelled_at is not None and now >= self.cancelled_at + self.stop_grace:
                raise WorkerLost("killed", "the job did not stop when asked; its worker was replaced")
            try:
                if w.conn.poll(POLL_SLICE):
                    return w.conn.recv()
            except (EOFError, OSError):
                code = w.process.exitcode
                raise WorkerLost("died", f"the worker process exited unexpectedly (exit code {code})") from None
