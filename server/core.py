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
* :meth:`ServiceCore.close` drains: new calls are refused with UNAVAILABLE,
  calls in flight get the grace period, then every one left is stopped.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import grpc

from solver import StopToken

from .admission import Abandoned, Admission, Expired, Refused
from .errors import BadRequest, FailedPrecondition, ServiceError
from .jobs import INPUT_ERRORS, PRECONDITION_ERRORS, Job
from .observe import CallRecord, Metrics
from .pool import JobFailed, WorkerLost, WorkerPool

# Keep this much of the caller's remaining deadline for building and sending
# the answer: 20 ms plus 10% of what is left, at most 100 ms.
MARGIN_FIXED, MARGIN_FRACTION, MARGIN_MAX = 0.02, 0.10, 0.10
MIN_SOLVE_TIME = 0.002
FAST_WAIT = 0.02            # seconds a call waits for the fast lane before it goes to the main lane
FAST_QUEUE_PER_WORKER = 4


def _status(result: Any) -> str | None:
    return getattr(getattr(result, "status", None), "value", None)


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


class Refusal(ServiceError):
    """RESOURCE_EXHAUSTED with a retry hint in seconds."""

    def __init__(self, details: str, retry_after: float) -> None:
        super().__init__(grpc.StatusCode.RESOURCE_EXHAUSTED, details)
        self.retry_after = retry_after


class ServiceCore:
    """Admission, worker processes and drain for every face of the service."""

    def __init__(self, config: CoreConfig, metrics: Metrics, log) -> None:
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
        self._lock = threading.Condition()
        self._closed = False
        self._active: set[Call] = set()

    @property
    def max_receive_bytes(self) -> int:
        return self.config.max_receive_bytes

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
    def run_job(self, call: Call, job: Job, requested: float, field: str,
                fast_first: bool = False) -> Any:
        """Run ``job`` for ``call`` in a worker process and return its result.

        ``requested`` is the request's time limit; the call's deadline caps it.
        With ``fast_first`` the job first gets up to ``fast_limit`` seconds on
        the fast lane (workers kept for such tries, so that quick solves never
        wait behind long searches); an answer proven there is final, anything
        else goes on in the main lane with the rest of the time limit.
        Errors the job reports become INVALID_ARGUMENT naming ``field`` (bad
        input), FAILED_PRECONDITION (a position with no answer) or INTERNAL.
        """
        if call.stop.is_set():
            raise ServiceError(call.ended_code(), "the call ended before its solve started")
        if fast_first and self.fast is not None:
            t0 = time.monotonic()
            tried = self._run_on(self.fast, call, job, min(requested, self.config.fast_limit), field,
                                 wait=FAST_WAIT)
            if tried is not None:
                result, capped = tried
                if (_status(result) in ("OPTIMAL", "INFEASIBLE") or capped or call.stop.is_set()
                        or requested <= self.config.fast_limit):
                    call.record.extra["lane"] = "fast"
                    return self._report(call, result, capped)
                requested = max(MIN_SOLVE_TIME, requested - (time.monotonic() - t0))
                call.record.extra["lane"] = "fast+main"
        tried = self._run_on(self.admission, call, job, requested, field, wait=None)
        assert tried is not None  # the main lane waits or raises
        return self._report(call, *tried)

    def _run_on(self, lane: Admission, call: Call, job: Job, requested: float,
                field: str, wait: float | None) -> tuple[Any, bool] | None:
        """``(result, capped by the deadline)`` from a worker of ``lane``.

        ``wait`` bounds the wait for a slot of a lane that may be skipped:
        None is returned (instead of an error) when no slot came in time.
        """
        method = call.record.method
        remaining = call.time_remaining()
        timeout = remaining if wait is None else (wait if remaining is None else min(wait, remaining))
        wake_holder: list = []
        try:
            slot = lane.acquire(call.peer, timeout=timeout,
                                on_abandon=lambda wake: (wake_holder.append(wake), call.stop.attach(wake)))
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
        good = True
        try:
            limit, capped = deadline_budget(requested, call.time_remaining())
            if call.stop.is_set():
                raise ServiceError(call.ended_code(), "the call ended before its solve started")
            self.metrics.solving.inc()
            try:
                result, good = self.pool.run(slot, job, limit, call.stop)
            except JobFailed as e:
                if e.kind == "input":
                    raise BadRequest(field, e.message) from None
                if e.kind == "precondition":
                    raise FailedPrecondition(f"{field}: {e.message}") from None
                call.record.extra["traceback"] = e.message
                raise ServiceError(grpc.StatusCode.INTERNAL, "internal error in the solver") from None
            except WorkerLost as e:
                good = False
                call.record.extra["worker"] = e.reason
                if wait is not None and e.reason == "killed" and not call.stop.is_set():
                    return None  # a lane that may be skipped: the main lane tries with the full budget
                if call.stop.is_set():
                    raise ServiceError(call.ended_code(), "the call ended; its solve was stopped") from None
                if e.reason == "killed":
                    raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED,
                                       "the solve did not stop at its time limit and was ended") from None
                raise ServiceError(grpc.StatusCode.INTERNAL, "the worker process running the solve "
                                                             "exited; retry") from None
            finally:
                self.metrics.solving.dec()
        finally:
            if good:
                lane.release(slot)
            else:
                lane.retire(slot)
        return result, capped

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
        (self.admission if slot < self.config.workers else self.fast).add_slot(slot)

    def _worker_restarted(self, reason: str) -> None:
        self.metrics.worker_restarts.labels(reason=reason).inc()
        self.log.warning("worker_restart", reason=reason)


class InProcessCore:
    """Runs each job in the caller's thread, with the service's limits and error mapping.

    The embedded client's core: the same :class:`server.service.PlacementServicer`
    over it validates, names fields and refuses exactly as the service does;
    only where the job runs differs (no worker processes, no admission: the
    caller is the only client). The call's deadline caps the time limit and
    its stop token stops the job, as in a worker.
    """

    def run_job(self, call: Call, job: Job, requested: float, field: str, fast_first: bool = False) -> Any:
        if call.stop.is_set():
            raise ServiceError(call.ended_code(), "the call ended before its solve started")
        limit, _ = deadline_budget(requested, call.time_remaining())
        try:
            result = job.run(limit, call.stop)
        except INPUT_ERRORS as e:
            raise BadRequest(field, str(e)) from None
        except PRECONDITION_ERRORS as e:
            raise FailedPrecondition(f"{field}: {e}") from None
        status = _status(result)
        if status is not None:
            call.record.solve_status = status
        return result
