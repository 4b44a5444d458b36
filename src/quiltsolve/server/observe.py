"""Observability: one structured JSON log line per call, and Prometheus metrics.

Each server gets its own :class:`Metrics` (a dedicated ``CollectorRegistry``)
so tests and benchmarks can run several servers in one process. Besides the
service's own metrics it carries the conventional gRPC server metrics (the
names of go-grpc-prometheus / py-grpc-prometheus), the process collector
(``process_*``) and the worker pool's gauges.

>>> m = Metrics()
>>> m.observe_call(CallRecord("patchwork.v1.PlacementService", "ListPatches"), "OK", 0.002)
>>> m.value("quiltsolve_calls_total", method="ListPatches", code="OK")
1.0
>>> m.value("grpc_server_handled_total", grpc_type="unary", grpc_service="patchwork.v1.PlacementService",
...         grpc_method="ListPatches", grpc_code="OK")
1.0
"""

from __future__ import annotations

import sys
import threading
import uuid

import structlog
from typing import Any, Iterator

from prometheus_client import (CollectorRegistry, Counter, Gauge, Histogram, PlatformCollector,
                               ProcessCollector, start_http_server)
from prometheus_client.core import GaugeMetricFamily

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class CallRecord:
    """What one call reports to its log line and metrics besides its code."""

    __slots__ = ("service", "method", "grpc_type", "request_id", "peer", "solve_status", "deadline_stop",
                 "code", "details", "extra")

    def __init__(self, service: str, method: str, grpc_type: str = "unary", request_id: str | None = None,
                 peer: str | None = None) -> None:
        self.service = service
        self.method = method
        self.grpc_type = grpc_type
        self.request_id = request_id
        self.peer = peer
        self.solve_status: str | None = None
        self.deadline_stop = False
        self.code: str | None = None       # set by the handler when it knows better than the transport
        self.details: str | None = None
        self.extra: dict[str, Any] = {}

    def ensure_request_id(self) -> str:
        """The call's request id: the client's ``x-request-id``, else a uuid4 hex made now (and logged)."""
        if self.request_id is None:
            self.request_id = uuid.uuid4().hex
        return self.request_id

    def log_fields(self, code: str, seconds: float) -> dict[str, Any]:
        fields: dict[str, Any] = {"method": self.method, "code": code, "solve_status": self.solve_status,
                                  "ms": round(seconds * 1000, 3), "request_id": self.request_id}
        if self.service != SERVICE:
            fields["service"] = self.service
        if self.deadline_stop:
            fields["deadline_stop"] = True
        if self.details is not None:
            fields["details"] = self.details
        fields.update(self.extra)
        return fields


SERVICE = "patchwork.v1.PlacementService"


class Metrics:
    """The service's metrics, all in one private registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        self.grpc_started = Counter("grpc_server_started", "RPCs started on the server",
                                    ["grpc_type", "grpc_service", "grpc_method"], registry=r)
        self.grpc_handled = Counter("grpc_server_handled", "RPCs completed on the server, whatever their code",
                                    ["grpc_type", "grpc_service", "grpc_method", "grpc_code"], registry=r)
        self.grpc_seconds = Histogram("grpc_server_handling_seconds", "RPC handling time in the server",
                                      ["grpc_type", "grpc_service", "grpc_method"], buckets=LATENCY_BUCKETS,
                                      registry=r)
        self.refused = Counter("quiltsolve_refused", "Calls refused with RESOURCE_EXHAUSTED, by reason "
                                                     "(queue_full, peer_share, oversize, table_full)",
                               ["method", "reason"], registry=r)
        self.worker_restarts = Counter("quiltsolve_worker_restarts", "Worker processes replaced, by reason "
                                                                     "(killed, died, max_rss)",
                                       ["reason"], registry=r)
        self.retries = Counter("quiltsolve_job_retries", "Jobs run again on a fresh worker after their worker "
                                                         "was lost (died; or killed in the fast lane), by method "
                                                         "and reason", ["method", "reason"], registry=r)
        self.poisoned = Counter("quiltsolve_poisoned_requests", "Calls answered INTERNAL because their job cost "
                                                                "2 worker processes (the request is then refused "
                                                                "for 10 minutes)", ["method"], registry=r)
        self.poison_refused = Counter("quiltsolve_poison_refused", "Calls refused at once with INTERNAL: the same "
                                                                   "request cost 2 workers less than 10 minutes ago",
                                      ["method"], registry=r)
        self.poison_entries = Gauge("quiltsolve_poisoned_requests_held", "Requests being refused right now "
                                                                         "(after costing 2 workers)", registry=r)
        self.calls = Counter("quiltsolve_calls", "RPCs answered, by method and status code",
                             ["method", "code"], registry=r)
        self.latency = Histogram("quiltsolve_call_seconds", "RPC latency in the server, by method",
                                 ["method"], buckets=LATENCY_BUCKETS, registry=r)
        self.solves = Counter("quiltsolve_solves", "Solves finished, by method and solve status",
                              ["method", "status"], registry=r)
        self.deadline_stops = Counter("quiltsolve_deadline_stops",
                                      "Solves cut short by the call's deadline or cancellation",
                                      ["method"], registry=r)
        self.solving = Gauge("quiltsolve_solves_in_progress", "Solves running right now", registry=r)
        self._http: Any = None  # prometheus_client's WSGIServer once serve_http ran
        self._http_thread: threading.Thread | None = None

    def bind_core(self, lanes: dict, pool: Any) -> None:
        """Report the admission lanes (name → Admission or None) and the worker pool as gauges."""
        self.registry.register(_CoreCollector(lanes, pool))

    def observe_start(self, rec: CallRecord) -> None:
        self.grpc_started.labels(rec.grpc_type, rec.service, rec.method).inc()

    def observe_call(self, rec: CallRecord, code: str, seconds: float) -> None:
        self.grpc_handled.labels(rec.grpc_type, rec.service, rec.method, code).inc()
        self.grpc_seconds.labels(rec.grpc_type, rec.service, rec.method).observe(seconds)
        if rec.service == SERVICE:
            self.calls.labels(method=rec.method, code=code).inc()
            self.latency.labels(method=rec.method).observe(seconds)

    def value(self, name: str, **labels: str) -> float:
        """Current value of one sample (0.0 when it was never touched)."""
        v = self.registry.get_sample_value(name, labels)
        return 0.0 if v is None else v

    def serve_http(self, host: str, port: int) -> int:
        """Expose ``/metrics`` over HTTP; returns the bound port (0 = ephemeral)."""
        self._http, self._http_thread = start_http_server(port, addr=host, registry=self.registry)
        return self._http.server_address[1]

    def close(self) -> None:
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None


class _CoreCollector:
    """Gauges of the admission lanes and the workers, computed when scraped."""

    def __init__(self, lanes: dict, pool: Any) -> None:
        self.lanes = {name: lane for name, lane in lanes.items() if lane is not None}
        self.pool = pool

    def collect(self) -> Iterator[GaugeMetricFamily]:
        stats = {name: lane.stats() for name, lane in self.lanes.items()}
        for name, key, text in (("quiltsolve_workers", "slots", "Worker processes configured, by lane"),
                                ("quiltsolve_workers_busy", "busy", "Worker processes running a job, by lane"),
                                ("quiltsolve_queue_depth", "queued", "Calls waiting for a worker, by lane")):
            family = GaugeMetricFamily(name, text, labels=["lane"])
            for lane, st in stats.items():
                family.add_metric([lane], st[key])
            yield family
        rss = GaugeMetricFamily("quiltsolve_worker_rss_bytes", "Resident memory of each worker process, "
                                                               "as of its last answer", labels=["worker"])
        for i, value in enumerate(self.pool.rss()):
            rss.add_metric([str(i)], value)
        yield rss


class _StderrSink:
    """structlog logger writing each rendered line to the *current* ``sys.stderr``.

    Looking ``sys.stderr`` up per line (rather than binding it once) keeps the
    output capturable by pytest and redirectable by embedding programs.
    """

    def _write(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    msg = debug = info = warning = warn = error = critical = exception = _write


def make_logger(name: str = "quiltsolve.server") -> Any:
    """A JSON-lines structlog logger that does not touch structlog's global config."""
    return structlog.wrap_logger(
        _StderrSink(),
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(sort_keys=False),
        ],
        logger_name=name,
    )
