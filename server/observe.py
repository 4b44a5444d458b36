"""Observability: one structured JSON log line per call, and Prometheus metrics.

Each server gets its own :class:`Metrics` (a dedicated ``CollectorRegistry``)
so tests and benchmarks can run several servers in one process.

>>> m = Metrics()
>>> m.observe_call("ListPatches", "OK", 0.002)
>>> m.value("quiltsolve_calls_total", method="ListPatches", code="OK")
1.0
"""

from __future__ import annotations

import sys
import threading

import structlog
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    """The service's metrics, all in one private registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
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
        self._http = None
        self._http_thread: threading.Thread | None = None

    def observe_call(self, method: str, code: str, seconds: float) -> None:
        self.calls.labels(method=method, code=code).inc()
        self.latency.labels(method=method).observe(seconds)

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


class _StderrSink:
    """structlog logger writing each rendered line to the *current* ``sys.stderr``.

    Looking ``sys.stderr`` up per line (rather than binding it once) keeps the
    output capturable by pytest and redirectable by embedding programs.
    """

    def _write(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    msg = debug = info = warning = warn = error = critical = exception = _write


def make_logger(name: str = "quiltsolve.server"):
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
