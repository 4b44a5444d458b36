"""The gRPC face's lifecycle: build the server, bind its port, start it, stop it gracefully.

The expensive work runs in worker processes behind :class:`server.core.ServiceCore`;
the gRPC handler threads only validate, wait and answer, so health checks and
``ListPatches`` stay fast however busy the workers are. The parts live beside
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

import errno
import socket
import threading
import warnings
from concurrent import futures
from typing import Any

import grpc
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
           "check_port_free"]

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
        self.health.set(GAME_SERVICE, health_pb2.HealthCheckResponse.SERVING)

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
    credentials = _tls.server_credentials(config)
    interceptors: list[grpc.ServerInterceptor] = [ObserveCalls(metrics, log)]
    if config.auth_tokens:
        interceptors.append(BearerAuth(config.auth_tokens))
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
    placement = PlacementServicer(core)
    game = GameServicer(core)
    for service_name, servicer in ((SERVICE_NAME, placement), (GAME_SERVICE, game)):
        handlers = {}
        wrap: type[Method] | type[StreamMethod]
        for method in pb.DESCRIPTOR.services_by_name[service_name.rpartition(".")[2]].methods:
            req_cls = getattr(pb, method.input_type.name)
            resp_cls = getattr(pb, method.output_type.name)
            if method.server_streaming:
                make, wrap = grpc.unary_stream_rpc_method_handler, StreamMethod
            else:
                make, wrap = grpc.unary_unary_rpc_method_handler, Method
            handlers[method.name] = make(
                wrap(method.name, servicer.handler(method.name), core),
                request_deserializer=tolerant_deserializer(req_cls.FromString, config.max_receive_bytes),
                response_serializer=resp_cls.SerializeToString,
            )
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service_name, handlers),))
    health_servicer = health.HealthServicer(experimental_non_blocking=True,
                                            experimental_thread_pool=futures.ThreadPoolExecutor(max_workers=1))
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
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
    return QuiltServer(server, port, config, core, health_servicer, metrics, executor, log), port
