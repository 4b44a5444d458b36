"""The built image itself, with podman or docker: its configuration against deploy/Dockerfile, then
a container run read-only as in Kubernetes, checked from the host, and stopped with SIGTERM.

Opt-in, since it needs a container runtime and a built image (docs/deploy.md):
    QUILTSOLVE_IMAGE=localhost/quiltsolve:0.1.0 .venv/bin/python -m pytest tests/deploy/test_container.py
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
import uuid

import grpc
import pytest

from deploy_helpers import REPO, long_move_request
from patchwork.v1 import placement_pb2 as pb
from patchwork.v1 import placement_pb2_grpc as pbg

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


def test_container_serves_read_only_and_drains_on_sigterm(config):
    name = f"quiltsolve-test-{uuid.uuid4().hex[:8]}"
    engine("run", "-d", "--name", name, "--read-only", "--tmpfs", "/tmp", "--cap-drop", "ALL",
           "--security-opt", "no-new-privileges", "-e", "QUILTSOLVE_WORKERS=1",
           "-p", "127.0.0.1::50051", "-p", "127.0.0.1::9464", IMAGE)
    try:
        deadline = time.monotonic() + 90
        logs = ""
        while time.monotonic() < deadline:
            logs = engine("logs", name, check=False).stdout
            if "quiltsolve serving on 0.0.0.0:50051 (metrics on 0.0.0.0:9464)" in logs:
                break
            state = engine("inspect", name, "--format", "{{.State.Status}}").stdout.strip()
            assert state == "running", f"container {state}: {engine('logs', name, check=False).stderr[-2000:]}"
            time.sleep(0.5)
        else:
            raise AssertionError(f"not ready in 90 s: {logs[-2000:]}")
        port = int(re.search(r":(\d+)\s*$", engine("port", name, "50051/tcp").stdout.strip()).group(1))

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
