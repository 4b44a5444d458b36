"""Run the service with the web app: ``python -m quiltsolve.web [server flags] [--http-port P | --no-http]``.

The gRPC server's own flags (``python -m quiltsolve.server --help``) plus:

* ``--http-port`` (env ``QUILTSOLVE_HTTP_PORT``; default 8080; 0 = any free
  port): the web app and the HTTP API on the same host as gRPC;
* ``--no-http``: gRPC only, as ``python -m quiltsolve.server``;
* ``--http-rate-limit N`` / ``--http-rate-burst B`` (env
  ``QUILTSOLVE_HTTP_RATE_LIMIT`` / ``QUILTSOLVE_HTTP_RATE_BURST``; default
  off): at most N API requests a second per client, B at once;
* ``--trusted-proxy IP|CIDR`` (repeatable; env ``QUILTSOLVE_TRUSTED_PROXIES``,
  comma-separated): believe ``X-Forwarded-For`` from these peers only;
* ``--cors-origin ORIGIN`` (repeatable; env ``QUILTSOLVE_CORS_ORIGINS``,
  comma-separated; default none: CORS off).

``--tls-cert`` / ``--tls-key`` / ``--tls-client-ca`` and
``--auth-token-file`` secure both faces alike (docs/web.md, "Security").

The ready line adds the URL: ``quiltsolve serving on 127.0.0.1:50051; web
app on http://127.0.0.1:8080/`` (``https://`` with TLS). SIGTERM / SIGINT
stop both faces gracefully.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from quiltsolve.server.__main__ import build_parser, config_from_args, serve

from .face import HttpFace
from .security import HttpSecurity


def _env_port(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"error: {name}={raw!r} is not an integer") from None


def _env_number(name: str, kind: type = float) -> Any:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return kind(raw)
    except ValueError:
        raise SystemExit(f"error: {name}={raw!r} is not {'an integer' if kind is int else 'a number'}") from None


def _env_list(name: str) -> list[str]:
    return [v.strip() for v in os.environ.get(name, "").split(",") if v.strip()]


def build_web_parser() -> argparse.ArgumentParser:
    p = build_parser(prog="python -m quiltsolve.web",
                     description="Run the quiltsolve service: gRPC, and the web app with its HTTP API.")
    g = p.add_argument_group("web app")
    g.add_argument("--http-port", type=int, default=_env_port("QUILTSOLVE_HTTP_PORT", 8080),
                   help="HTTP port of the web app and the JSON API, on --host (env QUILTSOLVE_HTTP_PORT; "
                        "default 8080; 0 = any free port); HTTPS with --tls-cert, bearer tokens with "
                        "--auth-token-file, as for gRPC")
    g.add_argument("--no-http", action="store_true", help="serve gRPC only")
    g.add_argument("--http-rate-limit", type=float, metavar="N",
                   default=_env_number("QUILTSOLVE_HTTP_RATE_LIMIT"),
                   help="at most N API requests a second per client; more are answered 429 with Retry-After "
                        "(env QUILTSOLVE_HTTP_RATE_LIMIT; default off)")
    g.add_argument("--http-rate-burst", type=int, metavar="B",
                   default=_env_number("QUILTSOLVE_HTTP_RATE_BURST", int),
                   help="API requests a client may make at once under --http-rate-limit "
                        "(env QUILTSOLVE_HTTP_RATE_BURST; default twice N)")
    g.add_argument("--trusted-proxy", action="append", metavar="IP|CIDR", default=None,
                   help="a reverse proxy whose X-Forwarded-For is believed, for the rate limit and the log "
                        "(repeatable, or comma-separated; env QUILTSOLVE_TRUSTED_PROXIES; default none)")
    g.add_argument("--cors-origin", action="append", metavar="ORIGIN", default=None,
                   help="let pages from this origin (scheme://host[:port]) call the API cross-origin "
                        "(repeatable; env QUILTSOLVE_CORS_ORIGINS, comma-separated; default none: CORS off)")
    return p


def security_from_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> HttpSecurity:
    """The HttpSecurity of the parsed flags (their environment fallbacks included); p.error on bad values."""
    proxies = args.trusted_proxy if args.trusted_proxy is not None else _env_list("QUILTSOLVE_TRUSTED_PROXIES")
    origins = args.cors_origin if args.cors_origin is not None else _env_list("QUILTSOLVE_CORS_ORIGINS")
    try:
        return HttpSecurity(rate_limit=args.http_rate_limit, rate_burst=args.http_rate_burst,
                            trusted_proxies=tuple(proxies), cors_origins=tuple(origins))
    except ValueError as e:
        p.error(str(e))
        raise  # unreachable: p.error exits


def main(argv: list[str] | None = None) -> int:
    p = build_web_parser()
    args = p.parse_args(argv)
    if not 0 <= args.http_port <= 65535:
        p.error(f"--http-port must be 0-65535, got {args.http_port}")
    config = config_from_args(p, args)
    security = security_from_args(p, args)  # checked even with --no-http: a bad flag is never silently ignored
    faces = []
    if not args.no_http:
        faces.append(HttpFace(port=args.http_port, security=security))
    return serve(config, faces)


if __name__ == "__main__":
    sys.exit(main())
