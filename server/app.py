"""The gRPC face of the service: threads, limits, health, reflection, metrics, logs.

The expensive work runs in worker processes behind :class:`server.core.ServiceCore`;
the gRPC handler threads only validate, wait and answer, so health checks and
``ListPatches`` stay fast however busy the workers are.

>>> server, port = build_server(ServerConfig(port=0, workers=1, warm_up=False))
>>> server.start(); port > 0
True
>>> server.stop(0).wait(5)
True
"""

from __future__ import annotations

import contextvars
import errno
import math
import os
import socket
import ssl
import threading
import time
import traceback
from concurrent import futures
from dataclasses import dataclass
from typing import Any, Callable

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import reflection  # type: ignore[import-untyped]

from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.solver.puzzle import DEFAULT_TABLE_BYTES

from .auth import BearerTokens
from .core import Call, CoreConfig, Refusal, ServiceCore
from .errors import BadRequest, ServiceError, cut
from .observe import SERVICE, CallRecord, Metrics, make_logger
from .service import PlacementServicer

SERVICE_NAME = SERVICE  # patchwork.v1.PlacementService
assert SERVICE_NAME == pb.DESCRIPTOR.services_by_name["PlacementService"].full_name
MAX_RECEIVE_BYTES = 64 * 1024
GRPC_CORE_RECEIVE_BYTES = 4 * 1024 * 1024  # gRPC refuses larger messages itself, before any handler
CHEAP_THREADS = 8                          # handler threads kept for cheap calls however many wait
_CURRENT: contextvars.ContextVar[CallRecord] = contextvars.ContextVar("quiltsolve_call")
_DONE = object()  # a stream that ended before its first response


def cgroup_cpu_limit(path: str = "/sys/fs/cgroup/cpu.max") -> float | None:
    r"""The CPU quota of this process's cgroup (v2) in cores, or None when unlimited or unknown.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", delete=False) as f:
    ...     _ = f.write("150000 100000\n")
    >>> cgroup_cpu_limit(f.name); os.unlink(f.name)
    1.5
    """
    try:
        with open(path) as f:
            quota, period = f.read().split()[:2]
        if quota == "max":
            return None
        return int(quota) / int(period)
    except (OSError, ValueError, ZeroDivisionError):
        return None


def usable_cores() -> int:
    """Cores this process may use: its CPU affinity, capped by a container's CPU quota."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    quota = cgroup_cpu_limit()
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota - 0.01)))  # a 1.5-core quota keeps 2 workers busy
    return cores


def default_workers() -> int:
    """One worker process per usable core: the solvers are CPU-bound."""
    return max(1, usable_cores())


@dataclass(frozen=True)
class ServerConfig:
    """How to run the server. ``port=0`` binds an ephemeral port.

    ``workers`` worker processes run the expensive calls; up to
    ``max_queue`` more wait (None: 8 per worker); beyond that calls are
    refused with RESOURCE_EXHAUSTED. ``peer_share`` is the fraction of the
    workers (and of the queue) one peer may hold while others wait.
    """

    host: str = "127.0.0.1"
    port: int = 50051
    workers: int = 0                       # 0: one per usable core
    max_queue: int | None = None           # None: 8 per worker
    peer_share: float = 0.5
    max_concurrent_rpcs: int | None = 1000  # gRPC's own last-resort bound on calls in flight
    metrics_port: int | None = None        # Prometheus /metrics on host:metrics_port (0 = ephemeral)
    grace: float = 5.0                     # seconds in-flight calls get on shutdown
    max_receive_bytes: int = MAX_RECEIVE_BYTES
    cache_bytes: int | None = None         # solver caches per worker (None: the solver's default)
    max_worker_rss: int | None = 1024 * 1024 * 1024  # a worker above this after a job is replaced
    fast_workers: int = 1                  # extra workers for quick solves' first try (0: none)
    fast_limit: float = 0.05               # seconds a quick solve may take on the fast lane
    warm_up: bool = True                   # start() waits until every worker is warm
    reuse_port: bool = False               # SO_REUSEPORT: several processes share one port
    tls_cert: str | None = None            # PEM certificate chain file: serve TLS instead of plain text
    tls_key: str | None = None             # PEM private key file of tls_cert
    tls_client_ca: str | None = None       # PEM CA file: clients must present a certificate it signed (mTLS)
    auth_tokens: tuple[str, ...] = ()      # bearer tokens accepted (empty: no authentication)
    reflection: bool = True                # register the reflection service
    max_connection_age: float | None = None  # seconds: clients reconnect (and re-resolve DNS) this often
    table_bytes: int = DEFAULT_TABLE_BYTES  # a frontier tiling count's table bound, per job (per worker)

    def __post_init__(self) -> None:
        if self.workers < 0:
            raise ValueError(f"workers must be >= 1 (0 = one per core), got {self.workers}")
        if self.max_queue is not None and self.max_queue < 0:
            raise ValueError(f"max_queue must be >= 0, got {self.max_queue}")
        if not 0 < self.peer_share <= 1:
            raise ValueError(f"peer_share must be in (0, 1], got {self.peer_share}")
        if self.max_concurrent_rpcs is not None and self.max_concurrent_rpcs < 1:
            raise ValueError(f"max_concurrent_rpcs must be >= 1, got {self.max_concurrent_rpcs}")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be 0-65535, got {self.port}")
        if self.grace < 0:
            raise ValueError(f"grace must be >= 0, got {self.grace}")
        if self.max_receive_bytes < 1:
            raise ValueError(f"max_receive_bytes must be >= 1, got {self.max_receive_bytes}")
        if self.cache_bytes is not None and self.cache_bytes < 0:
            raise ValueError(f"cache_bytes must be >= 0, got {self.cache_bytes}")
        if self.max_connection_age is not None and self.max_connection_age <= 0:
            raise ValueError(f"max_connection_age must be > 0 seconds, got {self.max_connection_age}")
        if self.fast_workers < 0:
            raise ValueError(f"fast_workers must be >= 0, got {self.fast_workers}")
        if not 0 < self.fast_limit <= 60:
            raise ValueError(f"fast_limit must be in (0, 60] seconds, got {self.fast_limit}")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("tls_cert and tls_key go together")
        if self.tls_client_ca is not None and self.tls_cert is None:
            raise ValueError("tls_client_ca needs tls_cert and tls_key (client certificates need TLS)")
        if any(not t or any(c.isspace() for c in t) for t in self.auth_tokens):
            raise ValueError("auth tokens must be non-empty and contain no white space")
        if self.max_worker_rss is not None and self.max_worker_rss < 1:
            raise ValueError(f"max_worker_rss must be >= 1, got {self.max_worker_rss}")
        if self.table_bytes < 1:
            raise ValueError(f"table_bytes must be >= 1, got {self.table_bytes}")

    @property
    def worker_count(self) -> int:
        return self.workers or default_workers()

    @property
    def queue_size(self) -> int:
        return 8 * self.worker_count if self.max_queue is None else self.max_queue

    @property
    def handler_threads(self) -> int:
        # Every running or queued expensive call holds a thread while it waits;
        # the rest stay free for cheap calls and for refusing the overflow.
        return self.worker_count + self.queue_size + 5 * self.fast_workers + CHEAP_THREADS


# ---------------------------------------------------------------- requests

class _Undecodable:
    """Stands in for a request whose bytes did not parse (answered INVALID_ARGUMENT)."""


class _Oversize:
    """Stands in for a request larger than the limit (answered RESOURCE_EXHAUSTED)."""

    def __init__(self, size: int) -> None:
        self.size = size


def _tolerant(parse: Callable[[bytes], Any], max_bytes: int) -> Callable[[bytes], Any]:
    # gRPC answers a deserializer exception with INTERNAL and refuses oversize
    # messages before any handler sees them (uncounted); both become values
    # here so that the handler answers, logs and counts them.
    def deserialize(data: bytes) -> Any:
        if len(data) > max_bytes:
            return _Oversize(len(data))
        try:
            return parse(data)
        except Exception:  # noqa: BLE001 - any parse failure is the client's
            return _Undecodable()
    return deserialize


def _metadata_value(metadata: Any, key: str) -> str | None:
    for k, v in metadata or ():
        if k == key:
            return cut(v if isinstance(v, str) else v.decode("utf-8", "replace"), 80)
    return None


# ---------------------------------------------------------------- every call: metrics and one log line

def _code_name(context: grpc.ServicerContext, rec: CallRecord, raised: bool) -> str:
    if rec.code is not None:
        return rec.code
    code = context.code() if hasattr(context, "code") else None
    if isinstance(code, grpc.StatusCode):
        return code.name
    return "UNKNOWN" if raised else "OK"


class _Observe(grpc.ServerInterceptor):
    """Counts (``grpc_server_*``) and logs every call of every service, health and reflection included."""

    def __init__(self, metrics: Metrics, log: Any) -> None:
        self.metrics = metrics
        self.log = log

    def intercept_service(self, continuation: Any, details: Any) -> Any:
        handler = continuation(details)
        if handler is None:
            return None
        service, _, method = details.method.lstrip("/").partition("/")
        request_id = _metadata_value(details.invocation_metadata, "x-request-id")
        kind = {(False, False): "unary", (False, True): "server_stream",
                (True, False): "client_stream", (True, True): "bidi_stream"}[
            (handler.request_streaming, handler.response_streaming)]
        attr = {"unary": "unary_unary", "server_stream": "unary_stream",
                "client_stream": "stream_unary", "bidi_stream": "stream_stream"}[kind]
        inner = getattr(handler, attr)
        new_record = lambda context: CallRecord(service, method, kind, request_id, context.peer())  # noqa: E731
        if handler.response_streaming:
            def run_stream(request: Any, context: Any) -> Any:
                rec = new_record(context)
                self.metrics.observe_start(rec)
                t0, raised = time.perf_counter(), False
                responses = inner(request, context)
                try:
                    # The method takes this record (its request id) in its first step; the
                    # context variable is set for that step only, never across a yield.
                    token = _CURRENT.set(rec)
                    try:
                        first = next(responses, _DONE)
                    finally:
                        _CURRENT.reset(token)
                    if first is not _DONE:
                        yield first
                        yield from responses
                except GeneratorExit:  # the client stopped reading: cancelled or past its deadline
                    rec.code = rec.code or "CANCELLED"
                    raise
                except BaseException:
                    raised = True
                    raise
                finally:
                    responses.close()
                    self._finish(rec, _code_name(context, rec, raised), t0)
            return handler._replace(**{attr: run_stream})

        def run(request: Any, context: Any) -> Any:
            rec = new_record(context)
            token = _CURRENT.set(rec)
            self.metrics.observe_start(rec)
            t0, raised = time.perf_counter(), False
            try:
                return inner(request, context)
            except BaseException:
                raised = True
                raise
            finally:
                _CURRENT.reset(token)
                self._finish(rec, _code_name(context, rec, raised), t0)
        return handler._replace(**{attr: run})

    def _finish(self, rec: CallRecord, code: str, t0: float) -> None:
        seconds = time.perf_counter() - t0
        self.metrics.observe_call(rec, code, seconds)
        level = "error" if code in ("INTERNAL", "UNKNOWN") else "info"
        getattr(self.log, level)("rpc", **rec.log_fields(code, seconds))


# ---------------------------------------------------------------- authentication

OPEN_SERVICES = frozenset({"grpc.health.v1.Health"})  # probes need no token


class _BearerAuth(grpc.ServerInterceptor):
    """UNAUTHENTICATED for calls without ``authorization: Bearer <token>`` (health stays open)."""

    def __init__(self, tokens: tuple[str, ...]) -> None:
        self._tokens = BearerTokens(tokens)

    def _ok(self, metadata: Any) -> bool:
        return self._tokens.accepts(_metadata_value(metadata, "authorization"))

    def intercept_service(self, continuation: Any, details: Any) -> Any:
        service = details.method.lstrip("/").partition("/")[0]
        if service in OPEN_SERVICES or self._ok(details.invocation_metadata):
            return continuation(details)
        handler = continuation(details)
        if handler is None:
            return None

        def deny(request: Any, context: Any) -> Any:
            context.abort(grpc.StatusCode.UNAUTHENTICATED,
                          "a valid 'authorization: Bearer <token>' call credential is required")

        def deny_stream(request: Any, context: Any) -> Any:
            deny(request, context)
            yield  # pragma: no cover - deny raises

        kind = (handler.request_streaming, handler.response_streaming)
        make = {(False, False): grpc.unary_unary_rpc_method_handler,
                (False, True): grpc.unary_stream_rpc_method_handler,
                (True, False): grpc.stream_unary_rpc_method_handler,
                (True, True): grpc.stream_stream_rpc_method_handler}[kind]
        return make(deny_stream if handler.response_streaming else deny,
                    request_deserializer=handler.request_deserializer,
                    response_serializer=handler.response_serializer)


def _read(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(1 << 20)
    except OSError as e:
        raise OSError(f"cannot read {what} {path!r}: {e.strerror}") from None


def server_credentials(config: ServerConfig) -> grpc.ServerCredentials | None:
    """TLS credentials from the config's PEM files (None: plain text)."""
    if config.tls_cert is None:
        return None
    cert, key = _read(config.tls_cert, "--tls-cert"), _read(config.tls_key or "", "--tls-key")
    ca = _read(config.tls_client_ca, "--tls-client-ca") if config.tls_client_ca else None
    return grpc.ssl_server_credentials([(key, cert)], root_certificates=ca, require_client_auth=ca is not None)


def server_ssl_context(config: ServerConfig) -> ssl.SSLContext | None:
    """The same TLS policy for the HTTP face (None: plain text): the config's certificate and key,
    TLS 1.2 or later, and with ``tls_client_ca`` a client certificate signed by it is required."""
    if config.tls_cert is None:
        return None
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(config.tls_cert, config.tls_key)
    except (OSError, ssl.SSLError) as e:
        raise OSError(f"cannot load --tls-cert {config.tls_cert!r} / --tls-key {config.tls_key!r}: "
                      f"{getattr(e, 'strerror', None) or e}") from None
    if config.tls_client_ca:
        try:
            ctx.load_verify_locations(cafile=config.tls_client_ca)
        except (OSError, ssl.SSLError) as e:
            raise OSError(f"cannot load --tls-client-ca {config.tls_client_ca!r}: "
                          f"{getattr(e, 'strerror', None) or e}") from None
        ctx.verify_mode = ssl.CERT_REQUIRED
    else:
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


# ---------------------------------------------------------------- PlacementService methods

class _Method:
    """One PlacementService method: a Call for the core, error mapping, the answer."""

    def __init__(self, name: str, fn: Callable[[Any, Call], Any], core: ServiceCore) -> None:
        self.name = name
        self.fn = fn
        self.core = core

    def _call(self, context: grpc.ServicerContext) -> Call:
        rec = _CURRENT.get(None) or CallRecord(SERVICE_NAME, self.name)
        remaining = context.time_remaining()
        return Call(peer=context.peer() or "", record=rec,
                    deadline=None if remaining is None else time.monotonic() + remaining)

    def _open(self, request: Any, context: grpc.ServicerContext, call: Call) -> None:
        """Count the call in flight and check what the deserializer saw (raises ServiceError)."""
        self.core.enter(call)
        if not context.add_callback(call.stop.set):  # already terminated
            call.stop.set()
        if isinstance(request, _Undecodable):
            raise BadRequest("request", f"cannot parse the bytes as a {pb.DESCRIPTOR.package}."
                                        f"{self.name}Request message")
        if isinstance(request, _Oversize):
            self.core.metrics.refused.labels(method=self.name, reason="oversize").inc()
            raise ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                               f"request is {request.size} bytes; at most {self.core.max_receive_bytes}")

    @staticmethod
    def _failure(e: Exception, call: Call) -> tuple[grpc.StatusCode, str, tuple]:
        if isinstance(e, Refusal):
            return e.code, e.details, (("grpc-retry-pushback-ms", str(max(1, round(e.retry_after * 1000)))),)
        if isinstance(e, ServiceError):
            return e.code, e.details, ()
        # a bug must never surface as UNKNOWN
        call.record.extra["error"] = cut(f"{type(e).__name__}: {e}", 2000)
        call.record.extra["traceback"] = traceback.format_exc(limit=8)
        return (grpc.StatusCode.INTERNAL,
                f"internal error ({type(e).__name__}; request id {call.record.ensure_request_id()})", ())

    def _close(self, context: grpc.ServicerContext, call: Call, code: grpc.StatusCode, details: str | None,
               trailers: tuple) -> None:
        """Report the outcome; a non-OK one aborts the call (raises)."""
        if code is grpc.StatusCode.OK and not context.is_active():
            code = call.ended_code()  # the client went away (cancel or deadline) while we worked
        call.record.code = code.name
        if code is not grpc.StatusCode.OK:
            details = cut(details or code.name)
            call.record.details = details
            if trailers:
                context.set_trailing_metadata(trailers)
            context.abort(code, details)  # raises; gRPC sends this code

    def __call__(self, request: Any, context: grpc.ServicerContext) -> Any:
        call = self._call(context)
        code, details, response, trailers = grpc.StatusCode.OK, None, None, ()
        try:
            self._open(request, context, call)
            response = self.fn(request, call)
        except Exception as e:  # noqa: BLE001 - mapped to a status code
            code, details, trailers = self._failure(e, call)
        finally:
            self.core.exit(call)
        self._close(context, call, code, details, trailers)
        return response


class _StreamMethod(_Method):
    """A server-streaming PlacementService method: ``fn`` yields the responses."""

    def __call__(self, request: Any, context: grpc.ServicerContext) -> Any:
        call = self._call(context)
        code, details, trailers = grpc.StatusCode.OK, None, ()
        try:
            self._open(request, context, call)
            for response in self.fn(request, call):
                yield response
        except Exception as e:  # noqa: BLE001 - mapped to a status code
            code, details, trailers = self._failure(e, call)
        finally:
            self.core.exit(call)
        self._close(context, call, code, details, trailers)


# ---------------------------------------------------------------- binding

def check_port_free(host: str, port: int) -> None:
    """Raise OSError when ``port`` is taken on any address ``host`` resolves to.

    gRPC binds every address a name resolves to and succeeds if any one
    binds, so ``localhost`` could serve on [::1] beside another server on
    127.0.0.1: a port taken anywhere we would bind is an error instead.
    """
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise OSError(f"cannot resolve host {host!r}: {e.strerror}") from None
    for family, kind, proto, _, addr in infos:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC does
            if family == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                s.bind(addr)
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    raise OSError(f"port {port} is already in use on {addr[0]}") from None
                if e.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):
                    continue  # gRPC skips such an address too
                raise


# ---------------------------------------------------------------- the server

class QuiltServer:
    """The running gRPC server plus its core, health service and metrics.

    ``start``, ``wait_for_termination`` and ``stop`` behave like
    ``grpc.Server``'s; ``stop`` first marks every health status NOT_SERVING.
    """

    def __init__(self, server: grpc.Server, port: int, config: ServerConfig, core: ServiceCore,
                 health_servicer: health.HealthServicer, metrics: Metrics,
                 executor: futures.ThreadPoolExecutor, log: Any) -> None:
        self.grpc_server = server
        self.port = port
        self.config = config
        self.core = core
        self.health = health_servicer
        self.metrics = metrics
        self.metrics_port: int | None = None
        self.log = log
        self._executor = executor
        self._done = threading.Event()
        self._stopped = threading.Event()

    def start(self) -> None:
        """Start the workers (waiting until warm when ``config.warm_up``), then serve."""
        self.core.start(wait_ready=self.config.warm_up)
        self.grpc_server.start()
        if self.config.metrics_port is not None:
            self.metrics_port = self.metrics.serve_http(self.config.host, self.config.metrics_port)
        self.health.set("", health_pb2.HealthCheckResponse.SERVING)
        self.health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)

    def stop(self, grace: float | None = None) -> threading.Event:
        """Graceful stop: health NOT_SERVING, refuse new calls (UNAVAILABLE), let
        in-flight ones finish for ``grace`` seconds (default ``config.grace``),
        then stop what is left (solves, workers, the gRPC core). Returns an
        event set when the server has fully stopped, within about grace + 1 s.
        A second call with a smaller grace (e.g. a second Ctrl-C) cuts the wait short."""
        grace = self.config.grace if grace is None else grace
        self.health.enter_graceful_shutdown()
        if self._stopped.is_set():
            self.core.close(0)
            self.grpc_server.stop(0)
            return self._done
        self._stopped.set()

        def _finish() -> None:
            self.core.close(grace)
            # A drained handler may still be sending its answer: the gRPC core
            # gets a moment to deliver it.
            self.grpc_server.stop(0.2).wait()
            self.metrics.close()
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._done.set()

        threading.Thread(target=_finish, name="quiltsolve-stop", daemon=True).start()
        return self._done

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        return self.grpc_server.wait_for_termination(timeout)


def build_server(config: ServerConfig | None = None) -> tuple[QuiltServer, int]:
    """A configured, bound, not yet started server and its port.

    Raises OSError when the port is taken on any address the host resolves to.
    """
    config = config or ServerConfig()
    if not config.reuse_port:
        check_port_free(config.host, config.port)
    metrics = Metrics()
    log = make_logger()
    core = ServiceCore(CoreConfig(workers=config.worker_count, max_queue=config.queue_size,
                                  peer_share=config.peer_share, cache_bytes=config.cache_bytes,
                                  max_worker_rss=config.max_worker_rss,
                                  max_receive_bytes=config.max_receive_bytes, fast_workers=config.fast_workers,
                                  fast_limit=config.fast_limit, table_bytes=config.table_bytes), metrics, log)
    if config.max_worker_rss is not None and config.table_bytes > config.max_worker_rss:
        # Allowed (the bound is the operator's), but every count that large then costs its worker.
        log.warning("table_bytes_above_max_worker_rss", table_bytes=config.table_bytes,
                    max_worker_rss=config.max_worker_rss)
    executor = futures.ThreadPoolExecutor(max_workers=config.handler_threads, thread_name_prefix="quiltsolve")
    credentials = server_credentials(config)
    interceptors: list[grpc.ServerInterceptor] = [_Observe(metrics, log)]
    if config.auth_tokens:
        interceptors.append(_BearerAuth(config.auth_tokens))
    server = grpc.server(
        executor,
        interceptors=interceptors,
        maximum_concurrent_rpcs=config.max_concurrent_rpcs,
        options=[
            ("grpc.max_receive_message_length", max(GRPC_CORE_RECEIVE_BYTES, 2 * config.max_receive_bytes)),
            # Off by default so a second server cannot silently share a port.
            ("grpc.so_reuseport", 1 if config.reuse_port else 0),
        ] + ([] if config.max_connection_age is None else [
            # GOAWAY after this age (calls in flight get the grace): clients reconnect and
            # re-resolve, so replicas an autoscaler adds get their share of long-lived clients.
            ("grpc.max_connection_age_ms", int(config.max_connection_age * 1000)),
            ("grpc.max_connection_age_grace_ms", int(max(config.grace, 1.0) * 1000)),
        ]),
    )
    servicer = PlacementServicer(core)
    handlers = {}
    wrap: type[_Method] | type[_StreamMethod]
    for method in pb.DESCRIPTOR.services_by_name["PlacementService"].methods:
        req_cls = getattr(pb, method.input_type.name)
        resp_cls = getattr(pb, method.output_type.name)
        if method.server_streaming:
            make, wrap = grpc.unary_stream_rpc_method_handler, _StreamMethod
        else:
            make, wrap = grpc.unary_unary_rpc_method_handler, _Method
        handlers[method.name] = make(
            wrap(method.name, servicer.handler(method.name), core),
            request_deserializer=_tolerant(req_cls.FromString, config.max_receive_bytes),
            response_serializer=resp_cls.SerializeToString,
        )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))

    health_servicer = health.HealthServicer(experimental_non_blocking=True,
                                            experimental_thread_pool=futures.ThreadPoolExecutor(max_workers=1))
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if config.reflection:
        reflection.enable_server_reflection(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
            server,
        )
    address = f"{config.host}:{config.port}"
    try:
        port = (server.add_insecure_port(address) if credentials is None
                else server.add_secure_port(address, credentials))
    except RuntimeError as e:  # gRPC's word for a port it could not bind
        raise OSError(f"cannot bind {address}: {e}") from None
    if port == 0:
        raise OSError(f"cannot bind {config.host}:{config.port}")
    return QuiltServer(server, port, config, core, health_servicer, metrics, executor, log), port
