"""Run the placement service: ``python -m quiltsolve.server [--host H] [--port P] [--workers N]``.

Flags fall back to the environment (``QUILTSOLVE_HOST``, ``QUILTSOLVE_PORT``,
``QUILTSOLVE_WORKERS``, ``QUILTSOLVE_METRICS_PORT``), then to defaults
(127.0.0.1, 50051, one worker process per core). Prints one line on stdout
when it is ready (and a JSON ``ready`` log line); logs (one JSON line per
call) go to stderr. SIGTERM / SIGINT stop
it gracefully: health turns NOT_SERVING, new calls are refused, in-flight
calls get ``--grace`` seconds. A second signal stops at once.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from typing import Any, Protocol, Sequence

from .app import QuiltServer, ServerConfig, build_server
from .config import default_workers


def _env_int(name: str, default: int | None) -> int | None:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"error: {name}={raw!r} is not an integer") from None


def _size(text: str) -> int:
    """Bytes from ``123``, ``64K``, ``512M``, ``1G`` (binary multiples)."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:], 1)
    try:
        value = int(t[:-1] if mult > 1 else t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 65536, 64M or 1G") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    return value * mult


def build_parser(prog: str = "python -m quiltsolve.server",
                 description: str = "Run the quiltsolve gRPC placement service.") -> argparse.ArgumentParser:
    """The server's flags; other launchers (the web app's) add theirs to it."""
    p = argparse.ArgumentParser(prog=prog, description=description)
    p.add_argument("--host", default=os.environ.get("QUILTSOLVE_HOST") or "127.0.0.1",
                   help="interface to bind (env QUILTSOLVE_HOST; default 127.0.0.1); a port already taken "
                        "on any address the name resolves to is a start-up error")
    p.add_argument("--port", type=int, default=_env_int("QUILTSOLVE_PORT", 50051),
                   help="port, 0 for any free one (env QUILTSOLVE_PORT; default 50051)")
    p.add_argument("--workers", type=int, default=_env_int("QUILTSOLVE_WORKERS", None),
                   help=f"worker processes for the CPU-heavy calls (env QUILTSOLVE_WORKERS; default one per "
                        f"usable core, a container's CPU quota included: {default_workers()} here)")
    p.add_argument("--max-queue", type=int, default=_env_int("QUILTSOLVE_MAX_QUEUE", None),
                   help="expensive calls that may wait for a worker; beyond them calls are refused at once "
                        "with RESOURCE_EXHAUSTED and a retry hint (env QUILTSOLVE_MAX_QUEUE; default 8 per worker)")
    p.add_argument("--peer-share", type=float, default=0.5,
                   help="fraction of the workers, and of the queue, one peer may hold while others wait "
                        "(default 0.5)")
    p.add_argument("--fast-workers", type=int, default=1,
                   help="extra worker processes that give every SolvePlacement a first, short try, so quick "
                        "solves never wait behind long searches (default 1; 0 turns the fast lane off)")
    p.add_argument("--fast-limit", type=float, default=0.05,
                   help="seconds a SolvePlacement may take on the fast lane before it goes on in the main "
                        "lane (default 0.05)")
    p.add_argument("--cache-bytes", type=_size, default=None,
                   help="solver cache size per worker, e.g. 64M (default: the solver's, see docs/api.md)")
    p.add_argument("--max-worker-rss", type=_size, default=ServerConfig.max_worker_rss,
                   help="a worker whose memory exceeds this after a call is replaced by a fresh one "
                        "(default 1G)")
    p.add_argument("--table-bytes", type=_size, default=ServerConfig.table_bytes,
                   help="memory bound of one frontier tiling count's table in a worker, e.g. 256M; a count "
                        "that needs more is answered RESOURCE_EXHAUSTED (HTTP 507) at once (default 512M; "
                        "keep it below --max-worker-rss, see docs/api.md)")
    p.add_argument("--max-concurrent-rpcs", type=int, default=_env_int("QUILTSOLVE_MAX_CONCURRENT_RPCS", 1000),
                   help="gRPC's own last-resort bound on calls in flight, far above the queue (default 1000)")
    p.add_argument("--metrics-port", type=int, default=_env_int("QUILTSOLVE_METRICS_PORT", None),
                   help="serve Prometheus /metrics on this port (env QUILTSOLVE_METRICS_PORT; default off)")
    p.add_argument("--grace", type=float, default=5.0,
                   help="seconds in-flight calls may take to finish on shutdown (default 5); shutdown "
                        "ends within grace + 1 s")
    p.add_argument("--tls-cert", metavar="PEM", help="serve TLS with this certificate chain (with --tls-key)")
    p.add_argument("--tls-key", metavar="PEM", help="the private key of --tls-cert")
    p.add_argument("--tls-client-ca", metavar="PEM",
                   help="require client certificates signed by this CA (mutual TLS; needs --tls-cert)")
    p.add_argument("--auth-token-file", metavar="FILE", default=os.environ.get("QUILTSOLVE_AUTH_TOKEN_FILE"),
                   help="require 'authorization: Bearer <token>' with a token from this file, one per line "
                        "(env QUILTSOLVE_AUTH_TOKEN_FILE); the health service stays open for probes")
    p.add_argument("--no-reflection", action="store_true", help="do not register the reflection service")
    p.add_argument("--max-connection-age", type=float, default=None, metavar="SECONDS",
                   help="close each client connection (gracefully) after this long, so clients re-resolve "
                        "DNS and spread over replicas added later (default: never)")
    return p


def _tokens(path: str | None) -> tuple[str, ...]:
    if not path:
        return ()
    try:
        with open(path, encoding="utf-8") as f:
            tokens = tuple(line.strip() for line in f.read(1 << 20).splitlines() if line.strip())
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"--auth-token-file {path!r}: {getattr(e, 'strerror', None) or e}") from None
    if not tokens:
        raise ValueError(f"--auth-token-file {path!r} holds no token")
    return tokens


def config_from_args(p: argparse.ArgumentParser, a: argparse.Namespace) -> ServerConfig:
    try:
        return ServerConfig(host=a.host, port=a.port, workers=a.workers or default_workers(), max_queue=a.max_queue,
                            peer_share=a.peer_share, fast_workers=a.fast_workers, fast_limit=a.fast_limit,
                            cache_bytes=a.cache_bytes, max_worker_rss=a.max_worker_rss,
                            max_concurrent_rpcs=a.max_concurrent_rpcs, metrics_port=a.metrics_port,
                            grace=a.grace, tls_cert=a.tls_cert, tls_key=a.tls_key, tls_client_ca=a.tls_client_ca,
                            auth_tokens=_tokens(a.auth_token_file), reflection=not a.no_reflection,
                            max_connection_age=a.max_connection_age, table_bytes=a.table_bytes)
    except ValueError as e:
        p.error(str(e))
        raise  # unreachable: p.error exits


def parse_args(argv: list[str] | None = None) -> ServerConfig:
    p = build_parser()
    return config_from_args(p, p.parse_args(argv))


class Face(Protocol):
    """Another face of the same service (e.g. HTTP), started beside the gRPC one."""

    def start(self, server: QuiltServer) -> str:
        """Start serving over ``server.core``; return what the ready line should say, e.g. a URL."""

    def stop(self) -> None:
        """Stop serving (the core is stopped afterwards)."""


def serve(config: ServerConfig, faces: Sequence[Face] = ()) -> int:
    """Run the gRPC server (and ``faces``) until SIGTERM / SIGINT; the process's exit code."""
    try:
        server, port = build_server(config)
    except (OSError, RuntimeError) as e:
        print(f"error: cannot serve on {config.host}:{config.port}: {e}", file=sys.stderr)
        return 1
    stop = threading.Event()
    signals = {"n": 0}

    def on_signal(signum: int, frame: Any) -> None:
        signals["n"] += 1
        if signals["n"] > 1:  # second Ctrl-C: no more grace
            server.stop(0)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    server.start()
    started: list[Face] = []
    try:
        also = []
        for face in faces:
            also.append(face.start(server))
            started.append(face)
    except (OSError, RuntimeError) as e:
        print(f"error: cannot serve: {e}", file=sys.stderr)
        for face in started:
            face.stop()
        server.stop(0).wait()
        return 1
    extra = " (TLS)" if config.tls_cert else ""
    extra += f" (metrics on {config.host}:{server.metrics_port})" if server.metrics_port is not None else ""
    extra += "".join(f"; {a}" for a in also)
    print(f"quiltsolve serving on {config.host}:{port}{extra}", flush=True)
    server.log.info("ready", host=config.host, port=port, metrics_port=server.metrics_port,
                    workers=config.worker_count, max_queue=config.queue_size, pid=os.getpid(), also=also,
                    tls=config.tls_cert is not None, mtls=config.tls_client_ca is not None,
                    auth=bool(config.auth_tokens), reflection=config.reflection)
    while not stop.wait(0.5):  # a timed wait lets signal handlers run promptly
        pass
    for face in started:
        face.stop()
    server.stop(config.grace).wait()
    server.log.info("shutdown", grace=config.grace)
    return 0


def main(argv: list[str] | None = None) -> int:
    return serve(parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
