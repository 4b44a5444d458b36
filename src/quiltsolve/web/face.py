"""``HttpFace``: the web app served by uvicorn in a thread of its own, beside the gRPC face.

``server.__main__.serve(config, faces=[HttpFace(port=8080)])`` starts it
once the gRPC server (and its warm workers) are up; ``start`` returns the URL
for the ready line. The listening socket is bound here, so a port already
taken is a start-up error (``OSError``), as for the gRPC port.

>>> from quiltsolve.server import ServerConfig, build_server
>>> server, _ = build_server(ServerConfig(port=0, workers=1, fast_workers=0, warm_up=False))
>>> server.start()
>>> face = HttpFace(port=0)
>>> face.start(server).startswith("web app on http://127.0.0.1:")
True
>>> face.stop(); face.join(5)
True
>>> server.stop(0).wait(5)
True
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
from typing import Any

import uvicorn
from starlette.applications import Starlette

from quiltsolve.server.app import check_port_free
from quiltsolve.server.tls import server_ssl_context

from .app import create_app
from .security import HttpSecurity


def _bind(host: str, port: int) -> socket.socket:
    if port:
        check_port_free(host, port)
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    try:
        sock.bind(addr)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


class HttpFace:
    """The HTTP face: ``start(server) -> "web app on http://HOST:PORT/"``, ``stop()``.

    It follows the server's security settings: with ``tls_cert`` it serves
    HTTPS with the same certificate (and, with ``tls_client_ca``, requires
    client certificates, as gRPC does); with ``auth_tokens`` the API needs
    the same bearer tokens. ``security`` adds the web-only settings (rate
    limit, trusted proxies, CORS).
    """

    def __init__(self, host: str | None = None, port: int = 8080, static: bool = True,
                 security: HttpSecurity | None = None) -> None:
        self.host = host
        self.port = port
        self.static = static
        self.security = security or HttpSecurity()
        self.url: str | None = None
        self.app: Starlette | None = None
        self._uvicorn: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self._tls: ssl.SSLContext | None = None

    def start(self, server: Any) -> str:
        host = self.host if self.host is not None else server.config.host
        tls = server_ssl_context(server.config)  # before binding: a bad certificate is a start-up error
        if tls is not None:
            tls.set_alpn_protocols(["http/1.1"])
        self._sock = _bind(host, self.port)
        self.port = self._sock.getsockname()[1]
        self.app = app = create_app(server.core, server.metrics, server.log, threads=server.config.handler_threads,
                                    static=self.static, tokens=server.config.auth_tokens, security=self.security)
        grace = server.config.grace
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                                timeout_graceful_shutdown=grace + 1.5, timeout_keep_alive=5,
                                server_header=False, date_header=True)
        self._tls = tls
        self._uvicorn = uvicorn.Server(config)
        started = threading.Event()
        failed: list[BaseException] = []

        def run() -> None:
            try:
                asyncio.run(self._serve(started))
            except BaseException as e:  # noqa: BLE001 - reported to start()
                failed.append(e)
                started.set()

        # Not a daemon: at exit, Python waits for the answers still being sent.
        self._thread = threading.Thread(target=run, name="quiltsolve-http", daemon=False)
        self._thread.start()
        if not started.wait(30) or failed:
            self.stop()
            raise RuntimeError(f"the HTTP server did not start: {failed[0] if failed else 'timeout'}")
        shown = f"[{host}]" if ":" in host else host
        self.url = f"{'https' if tls is not None else 'http'}://{shown}:{self.port}/"
        return f"web app on {self.url}"

    async def _serve(self, started: threading.Event) -> None:
        assert self._uvicorn is not None and self._sock is not None
        server = self._uvicorn
        config = server.config
        if not config.loaded:
            config.load()
        if self._tls is not None:
            # uvicorn's startup wraps our own socket in this context: loop.create_server(sock=..., ssl=config.ssl)
            config.ssl = self._tls
        server.lifespan = config.lifespan_class(config)
        # uvicorn's own startup, on the socket bound in start(); no signal handlers in a thread.
        await server.startup(sockets=[self._sock])
        if not server.started:
            raise RuntimeError("uvicorn could not start")
        started.set()
        await server.main_loop()
        await server.shutdown(sockets=[self._sock])

    def stop(self) -> None:
        """Stop accepting connections; answers in flight are still sent (see :meth:`join`)."""
        if self._uvicorn is not None:
            self._uvicorn.should_exit = True

    def join(self, timeout: float | None = None) -> bool:
        """Wait until the HTTP server has ended; True when it has."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()
