"""The gRPC face's lifecycle: build the server, bind its port, start it, stop it gracefully.

The server is ``grpc.aio``: one asyncio event loop, in a thread of its own
(:class:`EventLoopThread`), receives and answers every call. Health checks,
``ListPatches`` and tiny SolvePlacement jobs are answered on the loop itself;
everything that may block (validating a large position, waiting for a worker,
a job in a worker process) runs in a thread pool beside it, so the loop stays
free however busy the workers are (:mod:`server.adapters`). The expensive work
runs in worker processes behind :class:`server.core.ServiceCore`. The parts live beside
this module: the configuration and core count (:mod:`server.config`), TLS
(:mod:`server.tls`), the interceptors around every call
(:mod:`server.interceptors`) and the PlacementService methods as gRPC
handlers (:mod:`server.adapters`).

>>> server, port = build_server(ServerConfig(port=0, workers=1, warm_up=False))
>>> server.start(); port > 0
True
>>> server.stop(0).wait(5)
True
"""

from __future__ import annotations

import asyncio
import errno
import gc
import socket
import threading
import warnings
from concurrent import futures
from typing import Any, Coroutine, TypeVar

import grpc
import grpc.aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import reflection  # type: ignore[import-untyped]

from quiltsolve.patchwork.v1 import placement_pb2 as pb

from . import config as _config, interceptors as _interceptors, tls as _tls
from .adapters import Method, StreamMethod, tolerant_deserializer
from .config import ServerConfig
from .core import CoreConfig, ServiceCore
from .interceptors import BearerAuth, ObserveCalls
from .observe import SERVICE, Metrics, make_logger
from .game_service import GAME_SERVICE, GameServicer
from .service import PlacementServicer

__all__ = ["SERVICE_NAME", "GRPC_CORE_RECEIVE_BYTES", "ServerConfig", "QuiltServer", "build_server",
           "check_port_free", "EventLoopThread", "Health"]

T = TypeVar("T")

SERVICE_NAME = SERVICE  # patchwork.v1.PlacementService
assert SERVICE_NAME == pb.DESCRIPTOR.services_by_name["PlacementService"].full_name
assert GAME_SERVICE == pb.DESCRIPTOR.services_by_name["GameService"].full_name
GRPC_CORE_RECEIVE_BYTES = 4 * 1024 * 1024  # gRPC refuses larger messages itself, before any handler

# Deprecated (0.3.0, gone in 0.4.0): names that moved out of this module, still found here with a warning.
_MOVED = {
    "MAX_RECEIVE_BYTES": _config, "CHEAP_THREADS": _config, "cgroup_cpu_limit": _config,
    "usable_cores": _config, "default_workers": _config,
    "server_credentials": _tls, "server_ssl_context": _tls,
    "OPEN_SERVICES": _interceptors,
}


def __getattr__(name: str) -> Any:
    module = _MOVED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"quiltsolve.server.app.{name} is deprecated: import it from {module.__name__}",
                  DeprecationWarning, stacklevel=2)
    return getattr(module, name)


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


# ---------------------------------------------------------------- the event loop and health

class EventLoopThread:
    """An asyncio event loop running in a daemon thread of its own: the gRPC face's loop.

    ``run(coro)`` runs a coroutine on it from any other thread and returns its result.
    """

    def __init__(self, name: str = "quiltsolve-grpc") -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        if threading.current_thread() is self.thread:
            coro.close()
            raise RuntimeError("EventLoopThread.run called from its own loop")
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    @property
    def running(self) -> bool:
        return self.thread.is_alive() and not self.loop.is_closed()

    def close(self) -> None:
        """Stop the loop and end its thread (call it from another thread)."""
        if not self.running:
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.thread.is_alive():
            self.loop.close()


class Health:
    """The health service (``grpc.health.v1``), served on the loop; its statuses set from any thread.

    ``servicer`` is grpc_health's asyncio servicer; ``set``, ``enter_graceful_shutdown`` and
    ``Check`` run its coroutines on the loop.
    """

    def __init__(self, loop: EventLoopThread) -> None:
        self.servicer = health.aio.HealthServicer()
        self._loop = loop

    def set(self, service: str, status: Any) -> None:
        self._loop.run(self.servicer.set(service, status))

    def enter_graceful_shutdown(self) -> None:
        if self._loop.running:
            self._loop.run(self.servicer.enter_graceful_shutdown())

    def Check(self, request: health_pb2.HealthCheckRequest, context: Any = None) -> health_pb2.HealthCheckResponse:
        return self._loop.run(self.servicer.Check(request, context))


# ---------------------------------------------------------------- the server

class QuiltServer:
    """The running gRPC server plus its core, health service and metrics.

    ``start``, ``wait_for_termination`` and ``stop`` behave like
    ``grpc.Server``'s; ``stop`` first marks every health status NOT_SERVING.
    The ``grpc.aio`` server (``grpc_server``) runs on its own event loop
    (``loop``, an :class:`EventLoopThread`); blocking work runs in ``executor``.
    """

    def __init__(self, server: grpc.aio.Server, port: int, config: ServerConfig, core: ServiceCore,
                 health_servicer: Health, metrics: Metrics, executor: futures.ThreadPoolExecutor, log: Any,
                 loop: EventLoopThread) -> None:
        self.grpc_server = server
        self.port = port
        self.config = config
        self.core = core
        self.health = health_servicer
        self.metrics = metrics
        self.metrics_port: int | None = None
        self.log = log
        self.loop = loop
        self._executor = executor
        self._done = threading.Event()
        self._stopped = threading.Event()

    def start(self) -> None:
        """Start the workers (waiting until warm when ``config.warm_up``), then serve."""
        self.core.start(wait_ready=self.config.warm_up)
        self.loop.run(self.grpc_server.start())
        if self.config.metrics_port is not None:
            self.metrics_port = self.metrics.serve_http(self.config.host, self.config.metrics_port)
        self.health.set("", health_pb2.HealthCheckResponse.SERVING)
        self.health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
        self.health.set(GAME_SERVICE, health_pb2.HealthCheckResponse.SERVING)
        # Everything made so far (modules, the solver's tables, the servers) lives as long as the
        # process: out of the collector's sight, a full collection walks only what calls make since,
        # and no longer pauses the loop for tens of milliseconds.
        gc.freeze()

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
            return self._done
        self._stopped.set()

        def _finish() -> None:
            try:
                self.core.close(grace)
                # A drained handler may still be sending its answer: the gRPC core
                # gets a moment to deliver it.
                if self.loop.running:
                    self.loop.run(self.grpc_server.stop(0.2), timeout=10)
            finally:
                self.metrics.close()
                self._executor.shutdown(wait=False, cancel_futures=True)
                self.loop.close()
                self._done.set()

        threading.Thread(target=_finish, name="quiltsolve-stop", daemon=True).start()
        return self._done

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        """Block until the server has stopped or ``timeout`` seconds passed; True on timeout (as ``grpc.Server``)."""
        return not self._done.wait(timeout)


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
                                  fast_limit=config.fast_limit, table_bytes=config.table_bytes,
                                  front_limit=config.front_limit), metrics, log)
    if config.max_worker_rss is not None and config.table_bytes > config.max_worker_rss:
        # Allowed (the bound is the operator's), but every count that large then costs its worker.
        log.warning("table_bytes_above_max_worker_rss", table_bytes=config.table_bytes,
                    max_worker_rss=config.max_worker_rss)
    executor = futures.ThreadPoolExecutor(max_workers=config.handler_threads, thread_name_prefix="quiltsolve")
    credentials = _tls.server_credentials(config)
    loop = EventLoopThread()
    try:
        server, port, health_servicer = loop.run(_build(config, core, metrics, log, executor, credentials, loop))
    except BaseException:
        loop.close()
        executor.shutdown(wait=False)
        raise
    return QuiltServer(server, port, config, core, health_servicer, metrics, executor, log, loop), port


async def _build(config: ServerConfig, core: ServiceCore, metrics: Metrics, log: Any,
                 executor: futures.ThreadPoolExecutor, credentials: Any,
                 loop: EventLoopThread) -> tuple[grpc.aio.Server, int, Health]:
    """The ``grpc.aio`` server, made and bound on its own loop."""
    interceptors: list[grpc.aio.ServerInterceptor] = [ObserveCalls(metrics, log)]
    if config.auth_tokens:
        interceptors.append(BearerAuth(config.auth_tokens))
    server = grpc.aio.server(
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
    placement = PlacementServicer(core)
    game = GameServicer(core)
    for service_name, servicer in ((SERVICE_NAME, placement), (GAME_SERVICE, game)):
        handlers = {}
        for method in pb.DESCRIPTOR.services_by_name[service_name.rpartition(".")[2]].methods:
            req_cls = getattr(pb, method.input_type.name)
            resp_cls = getattr(pb, method.output_type.name)
            fn = servicer.handler(method.name)
            adapter: Method
            if method.server_streaming:
                make, adapter = grpc.unary_stream_rpc_method_handler, StreamMethod(method.name, fn, core, executor)
            else:
                make = grpc.unary_unary_rpc_method_handler
                adapter = Method(method.name, fn, core, executor, front=servicer.front(method.name))
            handlers[method.name] = make(
                adapter,
                request_deserializer=tolerant_deserializer(req_cls.FromString, config.max_receive_bytes),
                response_serializer=resp_cls.SerializeToString,
            )
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service_name, handlers),))
    health_servicer = Health(loop)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer.servicer, server)
    if config.reflection:
        reflection.enable_server_reflection(
            (SERVICE_NAME, GAME_SERVICE, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
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
    return server, port, health_servicer
