"""``python -m quiltsolve.web``: flags, the ready line with the URL, SIGTERM; refusals (429) and shutdown (503) over HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from quiltsolve import engine
from quiltsolve.server import ServerConfig, build_server
from quiltsolve.web import HttpFace
from quiltsolve.server import positions as web_positions
from quiltsolve.web.__main__ import build_web_parser

from .conftest import serving

ROOT = Path(__file__).resolve().parents[2]


def test_flags(monkeypatch):
    monkeypatch.delenv("QUILTSOLVE_HTTP_PORT", raising=False)
    a = build_web_parser().parse_args([])
    assert (a.http_port, a.no_http, a.port) == (8080, False, int(os.environ.get("QUILTSOLVE_PORT", 50051)))
    monkeypatch.setenv("QUILTSOLVE_HTTP_PORT", "9090")
    a = build_web_parser().parse_args(["--workers", "3", "--no-http"])
    assert (a.http_port, a.no_http, a.workers) == (9090, True, 3)


def start_web(*args: str) -> subprocess.Popen:
    env = dict(os.environ, QUILTSOLVE_WORKERS="1")
    return subprocess.Popen([sys.executable, "-m", "quiltsolve.web", "--port", "0", "--fast-workers", "0", *args], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stop_web(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    proc.stdout.close()
    proc.stderr.close()


def test_ready_line_shows_the_url_then_sigterm():
    proc = start_web("--http-port", "0")
    try:
        line = proc.stdout.readline()
        assert line.startswith("quiltsolve serving on 127.0.0.1:"), line
        assert "; web app on http://127.0.0.1:" in line
        url = line.rsplit(" ", 1)[1].strip()
        assert url.endswith("/")
        assert httpx.get(url + "api/v1/healthz", timeout=10).json()["status"] == "SERVING"
        page = httpx.get(url, timeout=10)
        assert page.status_code == 200 and "<title" in page.text and "quiltsolve" in page.text
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert proc.stdout.read() == ""
    finally:
        stop_web(proc)


def test_no_http_and_a_taken_http_port():
    proc = start_web("--no-http")
    try:
        line = proc.stdout.readline()
        assert line.startswith("quiltsolve serving on 127.0.0.1:") and "http://" not in line
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        stop_web(proc)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = start_web("--http-port", str(port))
        try:
            assert proc.wait(timeout=60) == 1
            assert f"port {port} is already in use" in proc.stderr.read()
        finally:
            stop_web(proc)


@pytest.fixture(scope="module")
def tiny():
    """A server with one worker and no queue: a second expensive call is refused at once."""
    yield from serving(ServerConfig(host="127.0.0.1", port=0, workers=1, max_queue=0, fast_workers=0, grace=0.5))


def _busy_state() -> dict:
    return web_positions.to_mapping(engine.new_game(21))


def test_full_server_refuses_with_429_and_retry_after(tiny):
    server, face = tiny
    url = face.url.rstrip("/")
    long = {"state": _busy_state(), "time_limit": "3s", "top": 1}
    results = {}

    def occupy() -> None:
        results["long"] = httpx.post(url + "/api/v1/suggest-move", json=long, timeout=30)

    t = threading.Thread(target=occupy)
    t.start()
    try:
        t0 = time.monotonic()
        while server.metrics.value("quiltsolve_solves_in_progress") < 1:
            assert time.monotonic() - t0 < 10
            time.sleep(0.02)
        r = httpx.post(url + "/api/v1/suggest-move", json={**long, "time_limit": "0.2s"}, timeout=30)
        assert r.status_code == 429
        err = r.json()["error"]
        assert err["code"] == "RESOURCE_EXHAUSTED"
        assert int(r.headers["retry-after"]) >= 1 and int(r.headers["x-retry-after-ms"]) >= 1
        # Cheap calls are still answered meanwhile.
        assert httpx.get(url + "/api/v1/patches", timeout=5).status_code == 200
    finally:
        t.join(30)
    assert results["long"].status_code == 200


def test_shutting_down_answers_503(tiny):
    server, face = tiny
    url = face.url.rstrip("/")
    done = server.stop(0.5)
    r = httpx.get(url + "/api/v1/healthz", timeout=5)
    assert r.status_code == 503 and r.json()["status"] == "NOT_SERVING"
    r = httpx.post(url + "/api/v1/solve-puzzle", json={"region": {"rows": ["."]}, "pieces": ["#"],
                                                       "mode": "PUZZLE_MODE_FIND"}, timeout=5)
    assert r.status_code == 503 and r.json()["error"]["code"] == "UNAVAILABLE"
    assert done.wait(5)
