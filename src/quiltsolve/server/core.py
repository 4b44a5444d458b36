"""The transport-neutral service core: validate → admit → run in a worker process → answer.

The gRPC face (:mod:`server.app`) and any other face (HTTP) hand the core a
request message and a :class:`Call` (who asks, until when, a stop token
that their transport sets on cancellation); the core answers with the
response message or raises :class:`server.errors.ServiceError`.

* Cheap methods (``ListPatches``) are answered in the caller's thread and
  never wait behind expensive ones.
* Expensive methods validate their request here, then wait for a worker
  slot (:mod:`server.admission`: bounded queue, fair shares, refusals with a
  retry hint), then run as a job in a worker process (:mod:`server.pool`)
  whose time limit is the request's, capped by the call's deadline.
* A job whose worker dies under it (SIGKILL from outside, an OOM kill, a
  crash in C) runs again once on a fresh worker: every job is a pure
  function of its request. A request whose job has cost two workers, whatever
  the cause, is answered INTERNAL with its request id and then refused at
  once for ten minutes (:class:`PoisonTable`, keyed by :func:`job_fingerprint`).
* A streaming job (:class:`server.jobs.StreamJob`, for a server-streaming
  RPC) is admitted and limited the same way and holds its worker until it
  ends; its updates come back as the worker sends them
  (:meth:`ServiceCore.stream_job`), and a cancelled call frees its worker
  within milliseconds.
* :meth:`ServiceCore.close` drains: new calls are refused with UNAVAILABLE,
  calls in flight get the grace period, then every one left is stopped.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Iterator

import grpc

from quiltsolve.solver import StopToken
from quiltsolve.solver.puzzle import DEFAULT_TABLE_BYTES

from .admission import Abandoned, Admission, Expired, Refused
from .errors import BadRequest, FailedPrecondition, ServiceError, TooLarge
from .jobs import Job, R, StreamJob, U, failure_kind
from .observe import CallRecord, Metrics
from .pool import JobFailed, StreamOutcome, WorkerLost, WorkerPool

# Keep this much of the caller's remaining deadline for building and sending
# the answer: 20 ms plus 10% of what is left, at most 100 ms.
MARGIN_FIXED, MARGIN_FRACTION, MARGIN_MAX = 0.02, 0.10, 0.10
MIN_SOLVE_TIME = 0.002
FAST_WAIT = 0.02            # seconds a call waits for the fast lane before it goes to the main lane
FAST_QUEUE_PER_WORKER = 4
POISON_LOSSES = 2           # workers one call's job may cost: the first death is retried, the second is final
POISON_SECONDS = 600.0      # how long the same request is then refused at once
POISON_ENTRIES = 1024       # requests remembered at most (the oldest are forgotten first)


def _status(result: Any) -> str | None:
    return getattr(getattr(result, "status", None), "value", None)


def job_refusal(kind: str, message: str, field: str) -> ServiceError:
    """The answer to a job that refused its input (``input``: INVALID_ARGUMENT naming ``field``),
    cannot answer the position (``precondition``: FAILED_PRECONDITION) or needs more than a server
    bound allows (``too_large``: RESOURCE_EXHAUSTED without a retry hint), wherever it ran."""
    if kind == "input":
        return BadRequest(field, message)
    if kind == "too_large":
        return TooLarge(message)
    return FailedPrecondition(f"{field}: {message}")


def deadline_budget(requested: float, remaining: float | None) -> tuple[float, bool]:
    """The solve's time limit and whether the call's deadline capped it.

    >>> deadline_budget(10.0, None)
    (10.0, False)
    >>> deadline_budget(10.0, 1.0)
    (0.9, True)
    >>> deadline_budget(0.5, 30.0)
    (0.5, False)
    """
    if remaining is None:
        return requested, False
    margin = min(MARGIN_MAX, MARGIN_FIXED + MARGIN_FRACTION * remaining)
    available = round(remaining - margin, 6)
    if available < MIN_SOLVE_TIME:
        raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED,
                           f"the call's deadline ({remaining * 1000:.0f} ms left) leaves no time to solve")
    if available < requested:
        return available, True
    return requested, False


def job_fingerprint(job: Any) -> bytes:
    """The identity of a job for :class:`PoisonTable`: a SHA-256 of its pickle.

    ``job`` is the typed job a request is validated into (a frozen
    :class:`server.jobs.Job` of ints, strs, tuples, enums, candidates and game
    states); jobs are pure functions of their fields. Pickle is deterministic for
    the same request bytes: the front builds the same object graph from them
    by the same code path, so dict insertion orders, set layouts and which
    objects are shared (pickle's memo) all come out the same. It is not a
    semantic identity: two different requests that mean the same job (say,
    the same patches listed in another order) are two fingerprints.

    >>> from quiltsolve.server.jobs import PuzzleJob
    >>> def tile(count):
    ...     return PuzzleJob(rows=("...",), pieces=("###",), count=count, mirror=True, use_all=True, max_tilings=1)
    >>> job_fingerprint(tile(False)) == job_fingerprint(tile(False)), job_fingerprint(tile(False)) == job_fingerprint(tile(True))
    (True, False)
    """
    return hashlib.sha256(pickle.dumps(job, protocol=5)).digest()


class PoisonTable:
    """Requests refused at once for ``seconds`` after their job cost :data:`POISON_LOSSES` workers.

    Keyed by :func:`job_fingerprint`, each entry keeps the request id of the
    call that lost the workers. Bounded: at most ``size`` entries, the
    oldest forgotten first; entries expire on ``clock`` (a monotonic clock,
    injectable for tests).

    >>> now = [0.0]
    >>> t = PoisonTable(seconds=600, size=2, clock=lambda: now[0])
    >>> t.add(b"a", "req-1"); t.get(b"a")
    ('req-1', 600.0)
    >>> now[0] = 600.0; t.get(b"a") is None
    True
    """

    def __init__(self, seconds: float = POISON_SECONDS, size: int = POISON_ENTRIES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if size < 1:
            raise ValueError(f"size must be >= 1, got {size}")
        self.seconds = seconds
        self.size = size
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: OrderedDict[bytes, tuple[float, str]] = OrderedDict()  # fingerprint -> (until, request id)

    def add(self, fingerprint: bytes, request_id: str) -> None:
        with self._lock:
            now = self.clock()
            self._entries.pop(fingerprint, None)
            self._entries[fingerprint] = (now + self.seconds, request_id)
            self._expire(now)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def get(self, fingerprint: bytes) -> tuple[str, float] | None:
        """``(request id, seconds left)`` while ``fingerprint`` is refused, else None."""
        with self._lock:
            now = self.clock()
            self._expire(now)
            entry = self._entries.get(fingerprint)
            return None if entry is None else (entry[1], entry[0] - now)

    def __len__(self) -> int:
        with self._lock:
            self._expire(self.clock())
            return len(self._entries)

    def _expire(self, now: float) -> None:
        # One lifetime for all: insertion order is expiry order.
        while self._entries:
            fingerprint, (until, _) = next(iter(self._entries.items()))
            if until > now:
                return
            del self._entries[fingerprint]


@dataclass(eq=False)
class Call:
    """One call as the core sees it, whatever the transport.

    ``deadline`` is a ``time.monotonic()`` instant (None: no deadline);
    ``stop`` is set by the transport when the client cancels or the deadline
    passes (and by the core when it shuts down); ``record`` collects what
    the call's log line and metrics report.
    """

    peer: str
    deadline: float | None
    record: CallRecord
    stop: StopToken = field(default_factory=StopToken)

    def time_remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def ended_code(self) -> grpc.StatusCode:
        """Why a stopped call stopped: its deadline passed, or it was cancelled."""
        remaining = self.time_remaining()
        if remaining is not None and remaining <= 0:
            return grpc.StatusCode.DEADLINE_EXCEEDED
        return grpc.StatusCode.CANCELLED


@dataclass(frozen=True)
class CoreConfig:
    """The core's limits (``ServerConfig`` carries them from the flags)."""

    workers: int
    max_queue: int
    peer_share: float = 0.5
    cache_bytes: int | None = None
    max_worker_rss: int | None = None
    stop_grace: float = 0.5     # seconds a stopped job may take before its worker is killed
    max_receive_bytes: int = 64 * 1024
    fast_workers: int = 1       # extra workers for the first, short try of quick solves (0: none)
    fast_limit: float = 0.05    # seconds a job may take on the fast lane
    table_bytes: int = DEFAULT_TABLE_BYTES  # a frontier count's table bound per job (RESOURCE_EXHAUSTED above)


class Refusal(ServiceError):
    """RESOURCE_EXHAUSTED with a retry hint in seconds."""

    def __init__(self, details: str, retry_after: float) -> None:
        super().__init__(grpc.StatusCode.RESOURCE_EXHAUSTED, details)
        self.retry_after = retry_after


class ServiceCore:
    """Admission, worker processes and drain for every face of the service."""

    def __init__(self, config: CoreConfig, metrics: Metrics, log: Any,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.metrics = metrics
        self.log = log
        self.admission = Admission(config.workers, config.max_queue, config.peer_share)
        self.fast = (Admission(config.fast_workers, FAST_QUEUE_PER_WORKER * config.fast_workers, peer_share=1.0)
                     if config.fast_workers else None)
        self.pool = WorkerPool(config.workers + config.fast_workers, on_ready=self._worker_ready, cache_bytes=config.cache_bytes,
                               max_rss=config.max_worker_rss, stop_grace=config.stop_grace,
                               on_restart=self._worker_restarted, log=log)
        metrics.bind_core({"main": self.admission, "fast": self.fast}, self.pool)
        self.poison = PoisonTable(clock=clock)
        metrics.poison_entries.set_function(lambda: len(self.poison))
        self._lock = threading.Condition()
        self._closed = False
        self._active: set[Call] = set()

    @property
    def max_receive_bytes(self) -> int:
        return self.config.max_receive_bytes

    @property
    def table_bytes(self) -> int:
        """The bound on a frontier count's table (bytes), passed to every puzzle job."""
        return self.config.table_bytes

    table_bytes_setting = "the server's --table-bytes"   # the refusal names the server's option

    # ------------------------------------------------------------ lifecycle
    def start(self, wait_ready: bool = True, timeout: float = 120.0) -> bool:
        """Start the workers; with ``wait_ready``, return once they are all warm."""
        self.pool.start()
        return self.pool.wait_ready(timeout) if wait_ready else True

    def enter(self, call: Call) -> None:
        """Count ``call`` in flight, or refuse it (UNAVAILABLE) once closing."""
        with self._lock:
            if self._closed:
                raise ServiceError(grpc.StatusCode.UNAVAILABLE,
                                   "the server is shutting down; retry (another replica may answer)")
            self._active.add(call)

    def exit(self, call: Call) -> None:
        with self._lock:
            self._active.discard(call)
            if not self._active:
                self._lock.notify_all()

    def close(self, grace: float) -> None:
        """Refuse new calls, give those in flight ``grace`` seconds, then stop the rest and the workers.

        Returns within about ``grace`` + 0.5 s whatever is in flight.
        """
        with self._lock:
            self._closed = True
            self._lock.wait_for(lambda: not self._active, grace)
            left = list(self._active)
        self.admission.close()
        if self.fast is not None:
            self.fast.close()
        for call in left:
            call.stop.set()
        with self._lock:  # stopped jobs answer within ms; workers still busy then are killed
            self._lock.wait_for(lambda: not self._active, min(self.config.stop_grace, 0.4))
        self.pool.close(timeout=0.3)

    # ------------------------------------------------------------ running a job
    def run_job(self, call: Call, job: Job[R], requested: float, field: str,
                fast_first: bool = False) -> R:
        """Run ``job`` for ``call`` in a worker process and return its result.

        ``requested`` is the request's time limit; the call's deadline caps it.
        With ``fast_first`` the job first gets up to ``fast_limit`` seconds on
        the fast lane (workers kept for such tries, so that quick solves never
        wait behind long searches); an answer proven there is final, anything
        else goes on in the main lane with the rest of the time limit.
        Errors the job reports become INVALID_ARGUMENT naming ``field`` (bad
        input), FAILED_PRECONDITION (a position with no answer) or INTERNAL.

        Lost workers: every worker the job costs (``died`` under it, or
        ``killed`` by the pool because it did not stop in time), in either
        lane, counts once against the call's budget of :data:`POISON_LOSSES`.
        After the first loss the job runs again in the main lane with the
        full ``requested`` time limit (capped by what is left of the
        deadline): after a death in the main lane (re-admitted at the head of
        the queue), or after any loss in the fast lane (whose fallback to the
        main lane *is* that retry, so a fast-first job too costs at most two
        workers). A main-lane job killed for overrunning its time limit is
        not run again (DEADLINE_EXCEEDED, as before). The second loss answers
        INTERNAL with the request id, and the same request (its
        :func:`job_fingerprint`) is refused at once for :data:`POISON_SECONDS`.
        """
        if call.stop.is_set():
            raise ServiceError(call.ended_code(), "the call ended before its solve started")
        fingerprint = self._fingerprint(job)  # computed when first needed, once
        self._refuse_poisoned(call, fingerprint)
        losses: list[str] = []  # the reasons of the workers this call's job has cost, both lanes
        if fast_first and self.fast is not None:
            t0 = time.monotonic()
            try:
                tried = self._run_on(self.fast, call, job, min(requested, self.config.fast_limit), field,
                                     wait=FAST_WAIT, fingerprint=fingerprint)
            except WorkerLost as e:
                self._lost(call, fingerprint, losses, e.reason, "fast")
                tried = None  # the main lane runs it with the full time limit: the call's one retry
            if tried is not None:
                result, capped = tried
                if (_status(result) in ("OPTIMAL", "INFEASIBLE") or capped or call.stop.is_set()
                        or requested <= self.config.fast_limit):
                    call.record.extra["lane"] = "fast"
                    return self._report(call, result, capped)
                requested = max(MIN_SOLVE_TIME, requested - (time.monotonic() - t0))
                call.record.extra["lane"] = "fast+main"
        retry = False
        while True:  # at most POISON_LOSSES tries in all: _lost raises at the last loss
            try:
                tried = self._run_on(self.admission, call, job, requested, field, wait=None, retry=retry,
                                     fingerprint=fingerprint)
            except WorkerLost as e:
                self._lost(call, fingerprint, losses, e.reason, "main")
                retry = True
                continue
            assert tried is not None  # the main lane waits or raises
            return self._report(call, *tried)

    def _fingerprint(self, job: Job) -> Callable[[], bytes | None]:
        """The job's fingerprint, made on first use: only a call that meets a non-empty poison table,
        or whose job costs a worker, pays for pickling and hashing its job."""
        memo: list[bytes | None] = []

        def fingerprint() -> bytes | None:
            if not memo:
                try:
                    memo.append(job_fingerprint(job))
                except Exception as e:  # noqa: BLE001 - bookkeeping must not fail a call: it only goes untracked
                    self.log.error("job_fingerprint_failed", kind=job.kind, error=f"{type(e).__name__}: {e}")
                    memo.append(None)
            return memo[0]

        return fingerprint

    @staticmethod
    def request_id(call: Call) -> str:
        """The call's request id: the client's ``x-request-id``, else one made now (and logged with the call)."""
        return call.record.ensure_request_id()

    def _refuse_poisoned(self, call: Call, fingerprint: Callable[[], bytes | None] | None) -> None:
        if fingerprint is None or not len(self.poison):
            return
        key = fingerprint()
        hit = None if key is None else self.poison.get(key)
        if hit is None:
            return
        poisoner, left = hit
        self.metrics.poison_refused.labels(method=call.record.method).inc()
        call.record.extra["poisoned_by"] = poisoner
        raise ServiceError(grpc.StatusCode.INTERNAL,
                           f"the same request killed {POISON_LOSSES} worker processes (request id {poisoner}); "
                           f"it is refused for {POISON_SECONDS / 60:.0f} minutes ({left:.0f} s left)")

    def _lost(self, call: Call, fingerprint: Callable[[], bytes | None], losses: list[str], reason: str,
              lane: str) -> None:
        """Count a worker the call's job cost; raise the call's answer unless the job runs again."""
        if self._closed and call.stop.is_set():  # our own shutdown ended the job: not the request's doing
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down; retry")
        losses.append(reason)
        rec, method = call.record, call.record.method
        rec.extra["worker"] = reason
        rec.extra["workers_lost"] = list(losses)
        if len(losses) >= POISON_LOSSES:
            request_id = self.request_id(call)
            key = fingerprint()
            if key is not None:
                self.poison.add(key, request_id)
            self.metrics.poisoned.labels(method=method).inc()
            self.log.error("request_poisoned", method=method, request_id=request_id, workers_lost=list(losses),
                           refused_for=POISON_SECONDS)
            raise ServiceError(grpc.StatusCode.INTERNAL,
                               f"the request killed {len(losses)} worker processes (request id {request_id}); "
                               f"the same request is refused for {POISON_SECONDS / 60:.0f} minutes")
        if call.stop.is_set():
            raise ServiceError(call.ended_code(), "the call ended; its solve was stopped")
        if reason == "killed" and lane == "main":
            raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED,
                               "the solve did not stop at its time limit and was ended")
        request_id = self.request_id(call)
        rec.extra["retried"] = True
        self.metrics.retries.labels(method=method, reason=reason).inc()
        self.log.warning("job_retry", method=method, request_id=request_id, reason=reason, lane=lane)

    def _run_on(self, lane: Admission, call: Call, job: Job, requested: float,
                field: str, wait: float | None, retry: bool = False,
                fingerprint: Callable[[], bytes | None] | None = None) -> tuple[Any, bool] | None:
        """``(result, capped by the deadline)`` from a worker of ``lane``.

        ``wait`` bounds the wait for a slot of a lane that may be skipped:
        None is returned (instead of an error) when no slot came in time.
        ``retry``: the call lost its worker in this lane; it waits first and
        is not refused. Raises :class:`WorkerLost` (the slot retired) when
        the job cost its worker. ``fingerprint``: checked against the poison
        table again once a worker is there (another call may have poisoned
        the same request while this one waited).
        """
        slot = self._acquire(lane, call, wait, retry)
        if slot is None:
            return None
        good = True
        try:
            limit, capped = deadline_budget(requested, call.time_remaining())
            if call.stop.is_set():
                raise ServiceError(call.ended_code(), "the call ended before its solve started")
            self._refuse_poisoned(call, fingerprint)
            self.metrics.solving.inc()
            try:
                result, good = self.pool.run(slot, job, limit, call.stop)
            except JobFailed as e:
                raise self._job_failed(e, call, field) from None
            except WorkerLost:
                good = False  # the pool is replacing the worker: the slot comes back through _worker_ready
                raise
            finally:
                self.metrics.solving.dec()
        finally:
            if good:
                lane.release(slot)
            else:
                lane.retire(slot)
        return result, capped

    def _acquire(self, lane: Admission, call: Call, wait: float | None, retry: bool) -> int | None:
        """A slot of ``lane`` for ``call`` (see :meth:`_run_on`: None when ``wait`` ran out or the lane refused
        a call that may skip it); the refusals, the deadline and the cancel as ServiceErrors."""
        method = call.record.method
        remaining = call.time_remaining()
        timeout = remaining if wait is None else (wait if remaining is None else min(wait, remaining))
        wake_holder: list = []

        def on_abandon(wake: Callable[[], None]) -> None:
            wake_holder.append(wake)
            call.stop.attach(wake)

        try:
            return lane.acquire(call.peer, timeout=timeout, retry=retry, on_abandon=on_abandon)
        except Refused as e:
            if wait is not None:
                return None
            self.metrics.refused.labels(method=method, reason=e.reason).inc()
            call.record.extra["refused"] = e.reason
            raise Refusal(str(e), e.retry_after) from None
        except Expired:
            if wait is not None:
                return None
            raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED,
                               "the deadline passed while the call waited for a worker") from None
        except Abandoned:
            if self._closed:
                raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down; retry") from None
            raise ServiceError(call.ended_code(), "the call ended while it waited for a worker") from None
        finally:
            for wake in wake_holder:
                call.stop.detach(wake)

    def _job_failed(self, e: JobFailed, call: Call, field: str) -> ServiceError:
        """The answer to a job that raised in its worker."""
        if e.kind == "too_large":  # a refusal too, though no retry cures it: counted with them
            self.metrics.refused.labels(method=call.record.method, reason="table_full").inc()
            call.record.extra["refused"] = "table_full"
        if e.kind != "internal":
            return job_refusal(e.kind, e.message, field)
        call.record.extra["traceback"] = e.message
        return ServiceError(grpc.StatusCode.INTERNAL, f"internal error in the solver "
                                                      f"(request id {self.request_id(call)})")

    # ------------------------------------------------------------ streaming a job
    def stream_job(self, call: Call, job: StreamJob[U], requested: float, field: str) -> Iterator[U]:
        """The updates of a streaming ``job`` (:class:`server.jobs.StreamJob`) run for ``call`` on a worker,
        each as the worker sends it.

        Admitted, limited and answered like :meth:`run_job`'s jobs, in the main lane (a stream holds its
        worker for its whole time limit): the queue, the refusals, the deadline capping ``requested``, the
        poison table, one retry after a lost worker, but only before its first update (after one, the call
        ends INTERNAL: the updates it has seen cannot be taken back). A stop of the call (its cancel, its
        deadline) stops the job at once: its worker sends its last update and answers, and the slot is
        free. So does closing this iterator (the face stopped reading), which returns once the slot is free
        (or its worker replaced); either way a ``stream_cancelled`` line logs how long freeing it took.
        """
        if call.stop.is_set():
            raise ServiceError(call.ended_code(), "the call ended before its solve started")
        fingerprint = self._fingerprint(job)
        self._refuse_poisoned(call, fingerprint)
        stopped: list[float] = []
        mark = lambda: stopped.append(time.monotonic())  # noqa: E731 - when the call was stopped
        call.stop.attach(mark)
        losses: list[str] = []
        retry, sent = False, 0
        try:
            while True:
                inner = self._stream_on(call, job, requested, field, retry, fingerprint)
                try:
                    for update in inner:
                        sent += 1
                        yield update
                    return
                except WorkerLost as e:
                    self._lost(call, fingerprint, losses, e.reason, "main")
                    if sent:
                        raise ServiceError(grpc.StatusCode.INTERNAL,
                                           f"the worker running the call was lost after {sent} updates "
                                           f"(request id {self.request_id(call)})") from None
                    retry = True
                except GeneratorExit:
                    stopped.append(time.monotonic())
                    raise
                finally:
                    inner.close()   # the slot is free (or retired) when this returns
        finally:
            call.stop.detach(mark)
            if stopped:
                freed = time.monotonic() - min(stopped)
                call.record.extra["cancelled_after_updates"] = sent
                self.log.info("stream_cancelled", method=call.record.method,
                              request_id=self.request_id(call), updates=sent, freed_ms=round(freed * 1000, 1))

    def _stream_on(self, call: Call, job: StreamJob[U], requested: float, field: str, retry: bool,
                   fingerprint: Callable[[], bytes | None]) -> Generator[U, None, None]:
        """The updates of ``job`` from a worker of the main lane (as :meth:`_run_on` runs a unary job)."""
        lane = self.admission
        slot = self._acquire(lane, call, None, retry)
        assert slot is not None  # the main lane waits or raises
        outcome = StreamOutcome()
        try:
            limit, _ = deadline_budget(requested, call.time_remaining())
            if call.stop.is_set():
                raise ServiceError(call.ended_code(), "the call ended before its solve started")
            self._refuse_poisoned(call, fingerprint)
            self.metrics.solving.inc()
            try:
                yield from self.pool.stream(slot, job, limit, call.stop, outcome)
            except JobFailed as e:
                raise self._job_failed(e, call, field) from None
            finally:
                self.metrics.solving.dec()
        finally:
            if outcome.good:
                lane.release(slot)
            else:
                lane.retire(slot)

    def _report(self, call: Call, result: Any, capped: bool) -> Any:
        method = call.record.method
        status = _status(result)
        if status is not None:
            call.record.solve_status = status
            self.metrics.solves.labels(method=method, status=status).inc()
        if call.stop.is_set() or (capped and status in ("FEASIBLE", "UNKNOWN")):
            call.record.deadline_stop = True
            self.metrics.deadline_stops.labels(method=method).inc()
        return result

    # ------------------------------------------------------------ workers
    def _worker_ready(self, slot: int) -> None:
        lane = self.admission if slot < self.config.workers else self.fast
        assert lane is not None  # slots past config.workers are the fast lane's
        lane.add_slot(slot)

    def _worker_restarted(self, reason: str) -> None:
        self.metrics.worker_restarts.labels(reason=reason).inc()
        self.log.warning("worker_restart", reason=reason)


class InProcessCore:
    """Runs each job in the caller's thread, with the service's limits and error mapping.

    The embedded client's core: the same :class:`server.service.PlacementServicer`
    over it validates, names fields and refuses exactly as the service does;
    only where the job runs differs (no worker processes, no admission: the
    caller is the only client). The call's deadline caps the time limit and
    its stop token stops the job, as in a worker. ``table_bytes`` bounds a
    frontier count's table, as the server's ``--table-bytes`` does.
    """

    def __init__(self, table_bytes: int = DEFAULT_TABLE_BYTES) -> None:
        if isinstance(table_bytes, bool) or not isinstance(table_bytes, int) or table_bytes < 1:
            raise ValueError(f"table_bytes must be a positive integer, got {table_bytes!r}")
        self.table_bytes = table_bytes
        self.table_bytes_setting = "the embedded client's table_bytes"   # the caller's own bound

    def run_job(self, call: Call, job: Job[R], requested: float, field: str, fast_first: bool = False) -> R:
        if call.stop.is_set():
            raise ServiceError(call.ended_code(), "the call ended before its solve started")
        limit, _ = deadline_budget(requested, call.time_remaining())
        try:
            result = job.run(limit, call.stop)
        except Exception as e:
            kind = failure_kind(e)
            if kind == "internal":
                raise  # a bug: the face answers INTERNAL and logs it, as for any handler
            raise job_refusal(kind, str(e), field) from None
        status = _status(result)
        if status is not None:
            call.record.solve_status = status
        return result

    def stream_job(self, call: Call, job: StreamJob[U], requested: float, field: str) -> Iterator[U]:
        """The updates of a streaming job, computed in the caller's thread as it reads them; closing the
        iterator ends the job."""
        if call.stop.is_set():
            raise ServiceError(call.ended_code(), "the call ended before its solve started")
        limit, _ = deadline_budget(requested, call.time_remaining())
        try:
            yield from job.stream(limit, call.stop)
        except Exception as e:
            kind = failure_kind(e)
            if kind == "internal":
                raise
            raise job_refusal(kind, str(e), field) from None
