"""The built image itself, with podman or docker: its configuration against deploy/Dockerfile, then
a container run read-only as in Kubernetes, checked from the host over gRPC and HTTP (the health
endpoint and the web app's page through the published port), and stopped with SIGTERM.

Opt-in, since it needs a container runtime and a built image (docs/deploy.md):
    QUILTSOLVE_IMAGE=localhost/quiltsolve:0.2.0 .venv/bin/python -m pytest tests/deploy/test_container.py
``QUILTSOLVE_CONTAINER_ENGINE`` picks podman or docker (default: whichever is on PATH, podman
first); with podman, ``CONTAINERS_CONF`` is passed on (deploy/containers-sandbox.conf in the
project's sandbox).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
import uuid

import grpc
import pytest

from deploy_helpers import HEALTHZ, REPO, long_move_request
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg

IMAGE = os.environ.get("QUILTSOLVE_IMAGE")
ENGINE = os.environ.get("QUILTSOLVE_CONTAINER_ENGINE") or shutil.which("podman") or shutil.which("docker")
pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not IMAGE, reason="set QUILTSOLVE_IMAGE to a built image (deploy/build-image.sh) to run "
                                         "the container checks"),
    pytest.mark.skipif(not ENGINE, reason="no container runtime (podman or docker) on PATH"),
]
GRACE = 5.0  # the image's default --grace


def engine(*args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    res = subprocess.run([ENGINE, *args], capture_output=True, text=True, timeout=timeout)
    if check and res.returncode != 0:
        raise AssertionError(f"{ENGINE} {' '.join(args)}: {res.stderr.strip()[-1500:]}")
    return res


@pytest.fixture(scope="module")
def config() -> dict:
    res = engine("image", "inspect", IMAGE, check=False)
    if res.returncode != 0:
        pytest.skip(f"image {IMAGE} not found: build it with deploy/build-image.sh")
    (info,) = json.loads(res.stdout)
    return info


def test_image_configuration_is_the_dockerfiles(config, dockerfile):
    c = config["Config"]
    assert c["Entrypoint"] == dockerfile.last("ENTRYPOINT").exec_form()
    assert not c.get("Cmd")
    assert {int(p.split("/")[0]) for p in c["ExposedPorts"]} == dockerfile.exposed()
    assert c["User"] == dockerfile.last("USER").args
    assert c.get("StopSignal") == "SIGTERM"
    # kept only in the docker image format (deploy/build-image.sh builds with --format docker);
    # docker shows it in Config, podman beside it
    health = c.get("Healthcheck") or config.get("Healthcheck")
    assert health, "no HEALTHCHECK in the image (built as OCI? use --format docker)"
    assert health["Test"] == ["CMD", *dockerfile.last("HEALTHCHECK").exec_form()]
    env = dict(e.split("=", 1) for e in c["Env"])
    for k, v in dockerfile.env().items():
        if k != "PATH":
            assert env[k] == v, k
    print(f"image {IMAGE}: {config['Size'] / 1e6:.0f} MB")


def run_until_ready(name: str, ready_line: str, *args: str) -> None:
    """``run -d`` the image read-only, as in Kubernetes, with one worker; wait for its ready line."""
    engine("run", "-d", "--name", name, "--read-only", "--tmpfs", "/tmp", "--cap-drop", "ALL",
           "--security-opt", "no-new-privileges", "-e", "QUILTSOLVE_WORKERS=1", *args, IMAGE)
    deadline = time.monotonic() + 90
    logs = ""
    while time.monotonic() < deadline:
        logs = engine("logs", name, check=False).stdout
        if ready_line in logs:
            return
        state = engine("inspect", name, "--format", "{{.State.Status}}").stdout.strip()
        assert state == "running", f"container {state}: {engine('logs', name, check=False).stderr[-2000:]}"
        time.sleep(0.5)
    raise AssertionError(f"not ready in 90 s: {logs[-2000:]}")


def published(name: str, port: int) -> int:
    """The host port (on 127.0.0.1) that the container's ``port`` is published on."""
    return int(re.search(r":(\d+)\s*$", engine("port", name, f"{port}/tcp").stdout.strip()).group(1))


def get(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.headers.get_content_type(), r.read()


def test_container_serves_read_only_and_drains_on_sigterm(config):
    name = f"quiltsolve-test-{uuid.uuid4().hex[:8]}"
    try:
        run_until_ready(name, "quiltsolve serving on 0.0.0.0:50051 (metrics on 0.0.0.0:9464); "
                              "web app on http://0.0.0.0:8080/",
                        "-p", "127.0.0.1::50051", "-p", "127.0.0.1::8080", "-p", "127.0.0.1::9464")
        port, http_port = published(name, 50051), published(name, 8080)

        # health from the host through the published port, and the image's own HEALTHCHECK
        check = subprocess.run([sys.executable, str(REPO / "deploy" / "healthcheck.py"), "--address",
                                f"127.0.0.1:{port}", "--service", "patchwork.v1.PlacementService"],
                               capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, check.stderr
        if os.path.basename(ENGINE) == "podman":
            assert engine("healthcheck", "run", name, check=False).returncode == 0

        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = pbg.PlacementServiceStub(channel)
        resp = stub.SolvePlacement(pb.SolvePlacementRequest(
            board=pb.Board(rows=["........."] * 5 + ["#########"] * 4),
            patches=[pb.PatchRef(id=5), pb.PatchRef(id=8)], objective=pb.OBJECTIVE_COVER), timeout=20)
        assert resp.status == pb.SOLVE_STATUS_OPTIMAL

        # the HTTP face through its published port: the readiness probe's endpoint, the web app's
        # page (the installed package's index.html), and the API
        status, kind, body = get(f"http://127.0.0.1:{http_port}{HEALTHZ}")
        assert (status, kind, json.loads(body)["status"]) == (200, "application/json", "SERVING")
        status, kind, page = get(f"http://127.0.0.1:{http_port}/")
        assert (status, kind) == (200, "text/html")
        assert page == (REPO / "src" / "quiltsolve" / "web" / "static" / "index.html").read_bytes()
        status, kind, body = get(f"http://127.0.0.1:{http_port}/api/v1/patches")
        assert (status, kind) == (200, "application/json") and len(json.loads(body)["patches"]) == 33

        in_flight = stub.SuggestMove.future(long_move_request(20), timeout=60)
        time.sleep(0.5)
        t0 = time.monotonic()
        engine("kill", "--signal", "TERM", name)
        code = int(engine("wait", name, timeout=GRACE + 30).stdout.strip().splitlines()[-1])
        took = time.monotonic() - t0
        assert code == 0
        assert took <= GRACE + 1 + 1.5, f"the container took {took:.2f} s to stop"
        assert in_flight.result(timeout=10).suggestions
        channel.close()
        assert '"event": "shutdown"' in engine("logs", name, check=False).stderr
    finally:
        engine("rm", "-f", name, check=False)


def test_the_http_port_follows_quiltsolve_http_port(config):
    name = f"quiltsolve-test-{uuid.uuid4().hex[:8]}"
    try:
        run_until_ready(name, "web app on http://0.0.0.0:8081/", "-e", "QUILTSOLVE_HTTP_PORT=8081",
                        "-p", "127.0.0.1::8081")
        assert get(f"http://127.0.0.1:{published(name, 8081)}{HEALTHZ}")[0] == 200
    finally:
        engine("rm", "-f", name, check=False)
