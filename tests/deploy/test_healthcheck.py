"""deploy/healthcheck.py (the image's HEALTHCHECK and the TLS overlay's exec probes), and the web face's
/api/v1/healthz (the pods' readiness probe), against real servers."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

import kustomize_lite
from deploy_helpers import BASE, PRODUCTION, REPO, container_env, long_move_request, server_container
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg

HEALTHCHECK = REPO / "deploy" / "healthcheck.py"
SERVICE = "patchwork.v1.PlacementService"


def run_check(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The health check as the container runtime or the kubelet runs it: a process of its own."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("QUILTSOLVE_")}
    return subprocess.run([sys.executable, str(HEALTHCHECK), *args], env={**base, **(env or {})},
                          capture_output=True, text=True, timeout=60)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_default_address_follows_the_servers_environment():
    sys.path.insert(0, str(HEALTHCHECK.parent))
    try:
        import healthcheck
    finally:
        sys.path.remove(str(HEALTHCHECK.parent))
    assert healthcheck.default_address({}) == "127.0.0.1:50051"
    assert healthcheck.default_address({"QUILTSOLVE_HOST": "0.0.0.0", "QUILTSOLVE_PORT": "6000"}) == "127.0.0.1:6000"
    assert healthcheck.default_address({"QUILTSOLVE_HOST": "::"}) == "127.0.0.1:50051"
    assert healthcheck.default_address({"QUILTSOLVE_HOST": "10.1.2.3"}) == "10.1.2.3:50051"
    assert healthcheck.default_address({"QUILTSOLVE_HOST": "fd00::1"}) == "[fd00::1]:50051"


def test_serving_not_found_not_serving_and_nothing_there(serve):
    server, port = serve()
    env = {"QUILTSOLVE_HOST": "0.0.0.0", "QUILTSOLVE_PORT": str(port)}  # as in the image
    ok = run_check(env=env)
    assert ok.returncode == 0, ok.stderr
    assert "SERVING" in ok.stdout
    ready = run_check("--service", SERVICE, env=env)
    assert ready.returncode == 0, ready.stderr
    unknown = run_check("--service", "no.such.Service", env=env)
    assert unknown.returncode == 1 and "NOT_FOUND" in unknown.stderr
    server.stop(0).wait(5)
    gone = run_check("--timeout", "1", env=env)
    assert gone.returncode == 1 and "unhealthy" in gone.stderr
    nothing = run_check("--address", f"127.0.0.1:{free_port()}", "--timeout", "0.5")
    assert nothing.returncode == 1 and "UNAVAILABLE" in nothing.stderr


def test_not_serving_while_the_server_drains(serve):
    server, port = serve(grace=4.0)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    in_flight = pbg.PlacementServiceStub(channel).SuggestMove.future(long_move_request(10), timeout=30)
    time.sleep(0.5)
    server.stop()  # graceful: health turns NOT_SERVING at once while the call in flight drains
    res = run_check("--address", f"127.0.0.1:{port}", "--timeout", "2")
    assert res.returncode == 1
    assert "NOT_SERVING" in res.stderr
    assert in_flight.result().suggestions  # the drained call still got its answer
    channel.close()


def test_bad_arguments_exit_2():
    assert run_check("--cert", "c.pem").returncode == 2  # --key missing
    assert run_check("--ca", "ca.pem").returncode == 2  # --ca without --tls


@pytest.fixture(scope="module")
def overlay_pki(tmp_path_factory, make_certs) -> tuple[Path, dict[str, str]]:
    """A CA and a server certificate for the production overlay's service name only (not 127.0.0.1),
    and the overlay's health-check environment."""
    env = container_env(server_container(kustomize_lite.build(PRODUCTION)))
    name = env["QUILTSOLVE_HEALTH_SERVER_NAME"]
    d = make_certs(tmp_path_factory.mktemp("pki"), f"DNS:{name}", ("tls",), "quiltsolve deploy test CA")
    for pem, crt in (("tls.pem", "tls.crt"), ("ca.pem", "ca.crt")):  # the names a Kubernetes TLS Secret uses
        (d / pem).rename(d / crt)
    return d, env


def test_the_overlays_tls_probe_works_with_tls_and_tokens(serve, overlay_pki):
    """What the production pods run: TLS with a certificate for the Service's DNS name, bearer
    tokens on; the probe connects to 127.0.0.1 and checks the certificate against that name."""
    d, overlay_env = overlay_pki
    server, port = serve(tls_cert=str(d / "tls.crt"), tls_key=str(d / "tls.key"), auth_tokens=("s3cret",))
    # the overlay's variables, with the Secret's mount replaced by this directory
    env = {k: v.replace("/etc/quiltsolve/tls", str(d)) for k, v in overlay_env.items()
           if k.startswith("QUILTSOLVE_HEALTH_")}
    env["QUILTSOLVE_PORT"] = str(port)
    for args in ([], ["--service", SERVICE]):
        res = run_check("--timeout=3", *args, env=env)
        assert res.returncode == 0, res.stderr  # no token needed: health stays open
    # the name matters: without the override the certificate does not match 127.0.0.1
    no_name = {k: v for k, v in env.items() if k != "QUILTSOLVE_HEALTH_SERVER_NAME"}
    assert run_check("--timeout=2", env=no_name).returncode == 1
    # a plain-text check (what the kubelet's gRPC probe does) fails against the TLS port
    assert run_check("--timeout=2", "--address", f"127.0.0.1:{port}").returncode == 1


def test_the_readiness_endpoint_answers_without_a_token_and_fails_while_draining(serve):
    """The pods' readiness probe (the kubelet's httpGet, which sends no Authorization header):
    SERVING with bearer tokens on, as the gRPC health service does; not 200 once a drain starts."""
    import urllib.error
    import urllib.request

    from quiltsolve.web.face import HttpFace

    probe = server_container(kustomize_lite.build(BASE))["readinessProbe"]["httpGet"]
    server, _ = serve(auth_tokens=("s3cret",), grace=4.0)
    face = HttpFace(port=0)
    face.start(server)
    url = f"http://127.0.0.1:{face.port}{probe['path']}"
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            assert (r.status, json.loads(r.read())["status"]) == (200, "SERVING")
        stopping = server.stop(4.0)  # graceful: calls refused at once, the drain runs in the background
        time.sleep(0.3)
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(url, timeout=5)
        assert e.value.code == 503 and json.loads(e.value.read())["status"] == "NOT_SERVING"
        assert stopping.wait(10)
    finally:
        face.stop()
        face.join(10)
