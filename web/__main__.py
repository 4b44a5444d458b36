"""Run the service with the web app: ``python -m web [server flags] [--http-port P | --no-http]``.

The gRPC server's own flags (``python -m server --help``) plus:

* ``--http-port`` (env ``QUILTSOLVE_HTTP_PORT``; default 8080; 0 = any free
  port): the web app and the HTTP API on the same host as gRPC;
* ``--no-http``: gRPC only, as ``python -m server``.

The ready line adds the URL: ``quiltsolve serving on 127.0.0.1:50051; web
app on http://127.0.0.1:8080/``. SIGTERM / SIGINT stop both faces
gracefully.
"""

from __future__ import annotations

import os
import sys

from server.__main__ import build_parser, config_from_args, serve


def _env_port(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"error: {name}={raw!r} is not an integer") from None


def build_web_parser():
    p = build_parser(prog="python -m web",
                     description="Run the quiltsolve service: gRPC, and the web app with its HTTP API.")
    g = p.add_argument_group("web app")
    g.add_argument("--http-port", type=int, default=_env_port("QUILTSOLVE_HTTP_PORT", 8080),
                   help="HTTP port of the web app and the JSON API, on --host (env QUILTSOLVE_HTTP_PORT; "
                        "default 8080; 0 = any free port)")
    g.add_argument("--no-http", action="store_true", help="serve gRPC only")
    return p


def main(argv: list[str] | None = None) -> int:
    p = build_web_parser()
    args = p.parse_args(argv)
    if not 0 <= args.http_port <= 65535:
        p.error(f"--http-port must be 0-65535, got {args.http_port}")
    config = config_from_args(p, args)
    faces = []
    if not args.no_http:
        from .face import HttpFace

        faces.append(HttpFace(port=args.http_port))
    return serve(config, faces)


if __name__ == "__main__":
    sys.exit(main())
