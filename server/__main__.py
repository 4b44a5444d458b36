"""Run the placement service: ``python -m server [--host H] [--port P] [--workers N]``.

Flags fall back to the environment (``QUILTSOLVE_HOST``, ``QUILTSOLVE_PORT``,
``QUILTSOLVE_WORKERS``, ``QUILTSOLVE_METRICS_PORT``), then to defaults
(127.0.0.1, 50051, eight threads per core). Prints one line on stdout when it
is ready; logs (one JSON line per call) go to stderr. SIGTERM / SIGINT stop
it gracefully: health turns NOT_SERVING, new calls are refused, in-flight
calls get ``--grace`` seconds. A second signal stops at once.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from .app import ServerConfig, build_server, default_workers


def _env_int(name: str, default: int | None) -> int | None:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"error: {name}={raw!r} is not an integer") from None


def parse_args(argv: list[str] | None = None) -> ServerConfig:
    p = argparse.ArgumentParser(prog="python -m server", description="Run the quiltsolve gRPC placement service.")
    p.add_argument("--host", default=os.environ.get("QUILTSOLVE_HOST") or "127.0.0.1",
                   help="interface to bind (env QUILTSOLVE_HOST; default 127.0.0.1)")
    p.add_argument("--port", type=int, default=_env_int("QUILTSOLVE_PORT", 50051),
                   help="port, 0 for any free one (env QUILTSOLVE_PORT; default 50051)")
    p.add_argument("--workers", type=int, default=_env_int("QUILTSOLVE_WORKERS", None),
                   help=f"handler threads (env QUILTSOLVE_WORKERS; default {default_workers()} here)")
    p.add_argument("--max-concurrent-rpcs", type=int, default=_env_int("QUILTSOLVE_MAX_CONCURRENT_RPCS", 64),
                   help="calls beyond this are refused with RESOURCE_EXHAUSTED (default 64)")
    p.add_argument("--metrics-port", type=int, default=_env_int("QUILTSOLVE_METRICS_PORT", None),
                   help="serve Prometheus /metrics on this port (env QUILTSOLVE_METRICS_PORT; default off)")
    p.add_argument("--grace", type=float, default=5.0,
                   help="seconds in-flight calls may take to finish on shutdown (default 5)")
    a = p.parse_args(argv)
    try:
        return ServerConfig(host=a.host, port=a.port, workers=a.workers or default_workers(),
                            max_concurrent_rpcs=a.max_concurrent_rpcs, metrics_port=a.metrics_port,
                            grace=a.grace)
    except ValueError as e:
        p.error(str(e))
        raise  # unreachable: p.error exits


# Move search (SuggestMove) is pure-Python CPU work that holds the GIL; with the
# default 5 ms switch interval, gRPC's I/O threads wait behind every busy
# search thread and 8 concurrent 150 ms searches answered at p50 415 ms.
# A 0.5 ms interval brought that to 191 ms (p99 635 -> 249 ms) on 2 cores.
GIL_SWITCH_INTERVAL = 0.0005


def main(argv: list[str] | None = None) -> int:
    config = parse_args(argv)
    sys.setswitchinterval(GIL_SWITCH_INTERVAL)
    try:
        server, port = build_server(config)
    except (OSError, RuntimeError) as e:
        print(f"error: cannot serve on {config.host}:{config.port}: {e}", file=sys.stderr)
        return 1
    stop = threading.Event()
    signals = {"n": 0}

    def on_signal(signum, frame) -> None:
        signals["n"] += 1
        if signals["n"] > 1:  # second Ctrl-C: no more grace
            server.grpc_server.stop(0)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    server.start()
    extra = f" (metrics on {config.host}:{server.metrics_port})" if server.metrics_port is not None else ""
    print(f"quiltsolve serving on {config.host}:{port}{extra}", flush=True)
    while not stop.wait(0.5):  # a timed wait lets signal handlers run promptly
        pass
    server.stop(config.grace).wait()
    server.log.info("shutdown", grace=config.grace)
    return 0


if __name__ == "__main__":
    sys.exit(main())
