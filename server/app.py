"""Build the gRPC server: thread pool, limits, health, reflection, metrics, logs.

>>> server, port = build_server(ServerConfig(port=0, warm_up=False))
>>> server.start(); port > 0
True
>>> server.stop(0).wait(5)
True
"""

from __future__ import annotations

import os
import threading
import time
import traceback
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any, Callable

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from patchwork.v1 import placement_pb2 as pb

from .errors import BadRequest, ServiceError
from .observe import Metrics, make_logger

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["PlacementService"].full_name  # patchwork.v1.PlacementService
MAX_RECEIVE_BYTES = 64 * 1024


def default_workers() -> int:
    """Eight handler threads per usable core, 4-32.

    CP-SAT releases the GIL while it searches, and move search (SuggestMove)
    is budgeted in wall-clock time, so a call mostly waits on the clock, not
    on a free thread: with 2 threads per core, 8 concurrent SuggestMove calls
    queued behind each other (p99 350 ms at 150 ms budgets); with 8 per core
    p99 was 228 ms, and SolvePlacement throughput did not change.
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(4, min(32, 8 * cpus))


@dataclass(frozen=True)
class ServerConfig:
    """How to run the server. ``port=0`` binds an ephemeral port."""

    host: str = "127.0.0.1"
    port: int = 50051
    workers: int = field(default_factory=default_workers)
    max_concurrent_rpcs: int | None = 64   # beyond this, calls get RESOURCE_EXHAUSTED
    metrics_port: int | None = None        # Prometheus /metrics on host:metrics_port (0 = ephemeral)
    grace: float = 5.0                     # seconds in-flight calls get on shutdown
    max_receive_bytes: int = MAX_RECEIVE_BYTES
    warm_up: bool = True                   # import the solvers (OR-Tools) before serving
    reuse_port: bool = False               # SO_REUSEPORT: several processes share one port

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        if self.max_concurrent_rpcs is not None and self.max_concurrent_rpcs < 1:
            raise ValueError(f"max_concurrent_rpcs must be >= 1, got {self.max_concurrent_rpcs}")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be 0-65535, got {self.port}")
        if self.grace < 0:
            raise ValueError(f"grace must be >= 0, got {self.grace}")


class CallInfo:
    """What one call reports to its log line and metrics besides its code."""

    __slots__ = ("method", "request_id", "solve_status", "deadline_stop", "extra")

    def __init__(self, method: str, request_id: str | None) -> None:
        self.method = method
        self.request_id = request_id
        self.solve_status: str | None = None
        self.deadline_stop = False
        self.extra: dict[str, Any] = {}


class _Undecodable:
    """Stands in for a request whose bytes did not parse (answered INVALID_ARGUMENT)."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _tolerant(parse: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    # gRPC answers a deserializer exception with INTERNAL; a client sending
    # garbage deserves INVALID_ARGUMENT, so parse failures become a value.
    def deserialize(data: bytes) -> Any:
        try:
            return parse(data)
        except Exception as e:  # noqa: BLE001 - any parse failure is the client's
            return _Undecodable(e)
    return deserialize


def _request_id(context: grpc.ServicerContext) -> str | None:
    for key, value in context.invocation_metadata() or ():
        if key == "x-request-id":
            return value if isinstance(value, str) else value.decode("utf-8", "replace")
    return None


class _Drain:
    """Counts the calls in flight and, once closed, turns new ones away.

    Graceful shutdown drains here instead of relying on ``grpc.Server.stop``
    alone: during the core's shutdown, calls racing it were sometimes
    answered CANCELLED (in-flight ones included; gRPC issue 41785), while a
    drained server refuses new calls with a clear UNAVAILABLE and stops the
    core only when nothing is left in flight.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._closed = False
        self._active = 0

    def enter(self) -> bool:
        with self._cond:
            if self._closed:
                return False
            self._active += 1
            return True

    def exit(self) -> None:
        with self._cond:
            self._active -= 1
            if self._active == 0:
                self._cond.notify_all()

    def close_and_wait(self, timeout: float) -> bool:
        """Refuse new calls; True when the calls in flight all ended within ``timeout``."""
        with self._cond:
            self._closed = True
            return self._cond.wait_for(lambda: self._active == 0, timeout)


class _Wrapped:
    """Runs one handler: error mapping, one log line, metrics."""

    def __init__(self, method: str, handler: Callable, metrics: Metrics, log, drain: _Drain) -> None:
        self.method = method
        self.handler = handler
        self.metrics = metrics
        self.log = log
        self.drain = drain

    def __call__(self, request: Any, context: grpc.ServicerContext) -> Any:
        t0 = time.perf_counter()
        call = CallInfo(self.method, _request_id(context))
        code, details, response = grpc.StatusCode.OK, None, None
        entered = self.drain.enter()
        try:
            if not entered:
                raise ServiceError(grpc.StatusCode.UNAVAILABLE,
                                   "the server is shutting down; retry (another replica may answer)")
            if isinstance(request, _Undecodable):
                raise BadRequest("request", f"cannot parse {self.method} request: {request.error}")
            response = self.handler(request, context, call)
        except ServiceError as e:
            code, details = e.code, e.details
        except Exception as e:  # noqa: BLE001 - a bug must never surface as UNKNOWN
            code, details = grpc.StatusCode.INTERNAL, f"internal error ({type(e).__name__})"
            call.extra["error"] = f"{type(e).__name__}: {e}"
            call.extra["traceback"] = traceback.format_exc(limit=8)
        finally:
            if entered:
                self.drain.exit()
        if code is grpc.StatusCode.OK and not context.is_active():
            # The client went away (cancel or deadline) while we worked.
            remaining = context.time_remaining()
            code = grpc.StatusCode.DEADLINE_EXCEEDED if remaining is not None and remaining <= 0 \
                else grpc.StatusCode.CANCELLED
        seconds = time.perf_counter() - t0
        self.metrics.observe_call(self.method, code.name, seconds)
        fields = {"method": self.method, "code": code.name, "solve_status": call.solve_status,
                  "ms": round(seconds * 1000, 3), "request_id": call.request_id}
        if call.deadline_stop:
            fields["deadline_stop"] = True
        if details is not None:
            fields["details"] = details
        fields.update(call.extra)
        level = "error" if code is grpc.StatusCode.INTERNAL else "info"
        getattr(self.log, level)("rpc", **fields)
        if code is not grpc.StatusCode.OK:
            context.abort(code, details or code.name)  # raises; gRPC sends this code
        return response


class QuiltServer:
    """The running gRPC server plus its health service and metrics.

    ``start``, ``wait_for_termination`` and ``stop`` behave like
    ``grpc.Server``'s; ``stop`` first marks every health status NOT_SERVING.
    """

    def __init__(self, server: grpc.Server, config: ServerConfig, health_servicer: health.HealthServicer,
                 metrics: Metrics, executor: futures.ThreadPoolExecutor, log, drain: _Drain) -> None:
        self.grpc_server = server
        self._drain = drain
        self._done = threading.Event()
        self.config = config
        self.health = health_servicer
        self.metrics = metrics
        self.metrics_port: int | None = None
        self.log = log
        self._executor = executor
        self._stopped = threading.Event()

    def start(self) -> None:
        self.grpc_server.start()
        if self.config.metrics_port is not None:
            self.metrics_port = self.metrics.serve_http(self.config.host, self.config.metrics_port)
        self.health.set("", health_pb2.HealthCheckResponse.SERVING)
        self.health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)

    def stop(self, grace: float | None = None) -> threading.Event:
        """Graceful stop: health NOT_SERVING, refuse new calls (UNAVAILABLE), let
        in-flight ones finish for ``grace`` seconds (default ``config.grace``),
        then stop the gRPC core, cancelling what is left. Returns an event set
        when the server has fully stopped. A second call with a smaller grace
        (e.g. a second Ctrl-C) cuts the wait short."""
        grace = self.config.grace if grace is None else grace
        self.health.enter_graceful_shutdown()
        if self._stopped.is_set():
            self.grpc_server.stop(grace)
            return self._done
        self._stopped.set()

        def _finish() -> None:
            t0 = time.monotonic()
            self._drain.close_and_wait(grace)
            # A drained handler may still be sending its answer: the core gets
            # what is left of the grace (at least a moment) to deliver it.
            self.grpc_server.stop(max(min(grace, 0.5), grace - (time.monotonic() - t0))).wait()
            self.metrics.close()
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._done.set()

        threading.Thread(target=_finish, name="quiltsolve-stop", daemon=True).start()
        return self._done

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        return self.grpc_server.wait_for_termination(timeout)


def build_server(config: ServerConfig | None = None) -> tuple[QuiltServer, int]:
    """A configured, bound, not yet started server and its port."""
    from .service import PlacementServicer

    config = config or ServerConfig()
    metrics = Metrics()
    log = make_logger()
    executor = futures.ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="quiltsolve")
    server = grpc.server(
        executor,
        maximum_concurrent_rpcs=config.max_concurrent_rpcs,
        options=[
            ("grpc.max_receive_message_length", config.max_receive_bytes),
            # Off by default so a second server cannot silently share a port;
            # on for the worker processes of `python -m server --processes N`.
            ("grpc.so_reuseport", 1 if config.reuse_port else 0),
        ],
    )
    servicer = PlacementServicer(metrics)
    drain = _Drain()
    handlers = {}
    for method in pb.DESCRIPTOR.services_by_name["PlacementService"].methods:
        req_cls = getattr(pb, method.input_type.name)
        resp_cls = getattr(pb, method.output_type.name)
        handlers[method.name] = grpc.unary_unary_rpc_method_handler(
            _Wrapped(method.name, servicer.handler(method.name), metrics, log, drain),
            request_deserializer=_tolerant(req_cls.FromString),
            response_serializer=resp_cls.SerializeToString,
        )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))

    health_servicer = health.HealthServicer(experimental_non_blocking=True,
                                            experimental_thread_pool=futures.ThreadPoolExecutor(max_workers=1))
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
        server,
    )
    port = server.add_insecure_port(f"{config.host}:{config.port}")
    if port == 0:
        raise OSError(f"cannot bind {config.host}:{config.port}")
    if config.warm_up:
        servicer.warm_up()
    return QuiltServer(server, config, health_servicer, metrics, executor, log, drain), port
