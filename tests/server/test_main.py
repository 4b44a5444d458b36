"""``python -m quiltsolve.server``: flags and environment, one ready line, health, SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from quiltsolve.server import SERVICE_NAME
from quiltsolve.server.__main__ import parse_args

ROOT = Path(__file__).resolve().parents[2]


def test_flags_and_environment(monkeypatch):
    for k in ("QUILTSOLVE_HOST", "QUILTSOLVE_PORT", "QUILTSOLVE_WORKERS", "QUILTSOLVE_METRICS_PORT"):
        monkeypatch.delenv(k, raising=False)
    c = parse_args([])
    assert (c.host, c.port, c.metrics_port) == ("127.0.0.1", 50051, None) and c.workers >= 1
    monkeypatch.setenv("QUILTSOLVE_HOST", "0.0.0.0")
    monkeypatch.setenv("QUILTSOLVE_PORT", "6000")
    monkeypatch.setenv("QUILTSOLVE_WORKERS", "3")
    c = parse_args([])
    assert (c.host, c.port, c.workers) == ("0.0.0.0", 6000, 3)
    c = parse_args(["--port", "7000", "--workers", "5", "--host", "::1", "--metrics-port", "0"])
    assert (c.host, c.port, c.workers, c.metrics_port) == ("::1", 7000, 5, 0)


def test_table_bytes_flag_sets_the_frontier_bound_for_both_launchers(capsys):
    import pytest

    from quiltsolve.solver.puzzle import DEFAULT_TABLE_BYTES
    from quiltsolve.web.__main__ import build_web_parser

    assert parse_args([]).table_bytes == DEFAULT_TABLE_BYTES == 512 * 2**20
    assert parse_args(["--table-bytes", "64M"]).table_bytes == 64 * 2**20
    web = build_web_parser()
    assert web.parse_args(["--table-bytes", "1G"]).table_bytes == 2**30  # the web server shares the flag
    for bad in ("lots", "0"):
        with pytest.raises(SystemExit):
            parse_args(["--table-bytes", bad])
        assert "table" in capsys.readouterr().err


def test_serve_then_sigterm():
    env = dict(os.environ, QUILTSOLVE_PORT="0", QUILTSOLVE_WORKERS="2")
    proc = subprocess.Popen([sys.executable, "-m", "quiltsolve.server", "--metrics-port", "0"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("quiltsolve serving on 127.0.0.1:"), line
        port = int(line.split()[3].split(":")[1])
        metrics_port = int(line.rsplit(":", 1)[1].rstrip(")\n"))
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            h = health_pb2_grpc.HealthStub(ch)
            resp = h.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=10)
            assert resp.status == health_pb2.HealthCheckResponse.SERVING
        text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
        assert "quiltsolve_calls_total" in text or "quiltsolve_calls" in text
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert proc.stdout.read() == ""  # exactly one line on stdout
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
