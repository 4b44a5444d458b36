"""What the image does, without a container runtime: deploy/build-image-steps.sh run on a build
context made by .dockerignore's rules, into a fresh venv, then the installed program started with
the Dockerfile's ENTRYPOINT (quiltsolve-web) and environment, checked with its HEALTHCHECK, called
over gRPC and HTTP (the health endpoint, the web app's page), and stopped with SIGTERM while a
call is in flight.

Needs PyPI (or pip's cache) for the dependency wheels, as ``make test`` does; takes about a
minute. ``QUILTSOLVE_SKIP_IMAGE_STEPS=1`` skips it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import zipfile
from pathlib import Path

import grpc
import pytest

from deploy_helpers import HEALTHZ, REPO, dockerignore_patterns, ignored, long_move_request
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(os.environ.get("QUILTSOLVE_SKIP_IMAGE_STEPS") == "1",
                       reason="QUILTSOLVE_SKIP_IMAGE_STEPS=1"),
]
PREFIX = "/opt/quiltsolve"
GRACE = 2.0


def make_context(dest: Path) -> list[str]:
    """Copy the repository as a container build would see it; returns the copied paths."""
    patterns = dockerignore_patterns(REPO / ".dockerignore")
    copied = []
    for root, dirs, files in os.walk(REPO):
        rel_root = Path(root).relative_to(REPO).as_posix()
        rel = (lambda n: n if rel_root == "." else f"{rel_root}/{n}")
        dirs[:] = [d for d in dirs if not ignored(rel(d), patterns)]
        for f in files:
            if not ignored(rel(f), patterns):
                target = dest / rel(f)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(Path(root) / f, target)
                copied.append(rel(f))
    return copied


def pins(constraints: Path) -> dict[str, str]:
    out = {}
    for line in constraints.read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            out[re.sub(r"[-_.]+", "_", name).lower()] = version
    return out


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUILTSOLVE_", "PYTHON"))}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory, dockerfile) -> dict:
    tmp = tmp_path_factory.mktemp("image")
    context, dist, prefix = tmp / "context", tmp / "dist", tmp / "opt" / "quiltsolve"
    copied = make_context(context)
    env = clean_env(PYTHON=sys.executable, TMPDIR=str(tmp))
    t0 = time.monotonic()
    wheels = subprocess.run(["sh", str(context / "deploy" / "build-image-steps.sh"), "wheels", str(context),
                             str(dist)], env=env, capture_output=True, text=True, timeout=480)
    assert wheels.returncode == 0, wheels.stdout[-3000:] + wheels.stderr[-3000:]
    t1 = time.monotonic()
    # the runtime stage installs from the built wheels only: no index, no pip config of this machine
    install_env = {k: v for k, v in env.items() if not k.startswith("PIP_")}
    install_env["PIP_CONFIG_FILE"] = os.devnull
    install = subprocess.run(["sh", str(dist / "build-image-steps.sh"), "install", str(dist), str(prefix)],
                             env=install_env, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    print(f"wheels step {t1 - t0:.0f} s, install step {time.monotonic() - t1:.0f} s")
    return {"tmp": tmp, "context": context, "dist": dist, "prefix": prefix, "copied": copied,
            "wheels_log": wheels.stdout + wheels.stderr, "install_log": install.stdout + install.stderr}


def test_the_build_context_holds_the_source_and_nothing_else(installed):
    copied = set(installed["copied"])
    assert "CHANGELOG.md" not in copied  # a changelog edit must not rebuild the wheels
    for needed in ("pyproject.toml", "setup.py", "README.md", "constraints.txt", "src/quiltsolve/solver/_exactcover.c",
                   "src/quiltsolve/server/__main__.py", "src/quiltsolve/web/__main__.py",
                   "src/quiltsolve/web/static/index.html",
                   "deploy/build-image-steps.sh", "deploy/healthcheck.py",
                   "deploy/Dockerfile"):
        assert needed in copied, needed
    for path in copied:
        assert not path.startswith((".venv/", ".git/", "tests/", "deploy/kubernetes/")), path
        assert "__pycache__" not in path and not path.endswith(".so"), path


def test_every_wheel_is_pinned_by_constraints(installed):
    want = pins(REPO / "constraints.txt")
    wheels = sorted((installed["dist"] / "wheels").glob("*.whl"))
    names = set()
    for w in wheels:
        name, version = w.name.split("-")[:2]
        key = name.lower()
        names.add(key)
        if key == "quiltsolve":
            continue
        assert key in want, f"{w.name} is not pinned in constraints.txt"
        assert want[key] == version, f"{w.name}: constraints.txt pins {want[key]}"
    assert {"quiltsolve", "ortools", "grpcio", "grpcio_health_checking"} <= names


def test_the_install_step_checks_what_the_build_stage_made(installed, tmp_path):
    sums = (installed["dist"] / "SHA256SUMS").read_text().splitlines()
    listed = {line.split(maxsplit=1)[1].removeprefix("./") for line in sums}
    assert {"constraints.txt", "healthcheck.py", "build-image-steps.sh"} <= listed
    assert {p.name for p in (installed["dist"] / "wheels").glob("*.whl")} == \
        {n.removeprefix("wheels/") for n in listed if n.startswith("wheels/")}
    # a changed file is refused
    bad = tmp_path / "dist"
    shutil.copytree(installed["dist"], bad)
    with open(bad / "healthcheck.py", "a") as f:
        f.write("# changed\n")
    res = subprocess.run(["sh", str(bad / "build-image-steps.sh"), "install", str(bad), str(tmp_path / "venv")],
                         env=clean_env(), capture_output=True, text=True, timeout=120)
    assert res.returncode != 0 and "SHA256SUMS" in res.stderr
    assert not (tmp_path / "venv").exists()


def test_the_c_search_is_compiled_when_a_compiler_is_present(installed):
    (wheel,) = (installed["dist"] / "wheels").glob("quiltsolve-*.whl")
    ext = [n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("quiltsolve/solver/_exactcover") and n.endswith(".so")]
    has_cc = shutil.which(os.environ.get("CC", "cc")) is not None
    if not has_cc:
        pytest.skip("no C compiler here: the wheel falls back to the pure-Python search")
    assert ext, "a compiler is present but the wheel has no compiled search"
    assert wheel.name.endswith("-linux_x86_64.whl") or "linux" in wheel.name
    assert "C search compiled" in installed["install_log"]
    core = [n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("quiltsolve/engine/_core") and n.endswith(".so")]
    assert core, "a compiler is present but the wheel has no compiled game core"
    assert "game core compiled" in installed["install_log"]
    endgame = [n for n in zipfile.ZipFile(wheel).namelist()
               if n.startswith("quiltsolve/engine/_endgame") and n.endswith(".so")]
    assert endgame, "a compiler is present but the wheel has no compiled endgame solver"
    assert "endgame solver compiled" in installed["install_log"]


def test_the_venv_holds_the_installed_server_only(installed, tmp_path):
    prefix = installed["prefix"]
    out = subprocess.run([str(prefix / "bin" / "python"), "-P", "-c",
                          "from quiltsolve import server, solver, web; import importlib.util as u; print(server.__file__); "
                          "print(web.__file__); print(u.find_spec('pip') is None)"],
                         cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    where, web_where, no_pip = out.stdout.split()
    assert where.startswith(str(prefix)), "the server must come from the venv, not the source tree"
    assert web_where.startswith(str(prefix))
    # the console scripts: the image's entry point and the gRPC-only one, run by the venv's python
    for script in ("quiltsolve-web", "quiltsolve-server"):
        first = (prefix / "bin" / script).read_text().splitlines()[0]
        assert first == f"#!{prefix}/bin/python", (script, first)
    assert no_pip == "True", "pip is removed from the runtime venv"
    assert (prefix / "healthcheck.py").read_text() == (REPO / "deploy" / "healthcheck.py").read_text()


def _image_command(instr: list[str], prefix: Path) -> list[str]:
    cmd = [a.replace(PREFIX, str(prefix)) for a in instr]
    if cmd[0].endswith("/tini"):
        tini = shutil.which("tini")
        cmd = [tini, *cmd[1:]] if tini else cmd[2:]  # tini -- CMD ...; without tini, CMD itself
    return cmd


def test_the_installed_server_serves_checks_healthy_and_drains_on_sigterm(installed, dockerfile, tmp_path):
    prefix = installed["prefix"]
    image_env = dockerfile.env()
    env = clean_env(**{k: v for k, v in image_env.items() if k != "PATH"})
    env["PATH"] = f"{prefix}/bin:" + os.environ["PATH"]
    # as the image, but on loopback, any free ports, one worker, a short grace
    env.update(QUILTSOLVE_HOST="127.0.0.1", QUILTSOLVE_PORT="0", QUILTSOLVE_METRICS_PORT="0",
               QUILTSOLVE_HTTP_PORT="0", QUILTSOLVE_WORKERS="1")
    cmd = _image_command(dockerfile.last("ENTRYPOINT").exec_form(), prefix) + [f"--grace={GRACE}"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stderr: list[str] = []
    reader = threading.Thread(target=lambda: stderr.extend(proc.stderr), daemon=True)
    reader.start()
    try:
        ready = {}
        t = threading.Thread(target=lambda: ready.setdefault("line", proc.stdout.readline()), daemon=True)
        t.start()
        t.join(90)
        line = ready.get("line", "")
        m = re.match(r"quiltsolve serving on 127\.0\.0\.1:(\d+) \(metrics on 127\.0\.0\.1:(\d+)\); "
                     r"web app on http://127\.0\.0\.1:(\d+)/$", line.strip())
        assert m, f"no ready line: {line!r}; stderr: {''.join(stderr)[-2000:]}"
        port, metrics_port, http_port = (int(g) for g in m.groups())

        # the image's HEALTHCHECK command, as the container runtime runs it
        health = _image_command(dockerfile.last("HEALTHCHECK").exec_form(), prefix)
        check = subprocess.run(health, env={**env, "QUILTSOLVE_PORT": str(port)}, capture_output=True, text=True,
                               timeout=60)
        assert check.returncode == 0, check.stderr
        assert "SERVING" in check.stdout

        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = pbg.PlacementServiceStub(channel)
        assert len(stub.ListPatches(pb.ListPatchesRequest(), timeout=10).patches) == 33
        resp = stub.SolvePlacement(pb.SolvePlacementRequest(
            board=pb.Board(rows=["........."] * 5 + ["#########"] * 4),
            patches=[pb.PatchRef(id=5), pb.PatchRef(id=8)], objective=pb.OBJECTIVE_COVER), timeout=20)
        assert resp.status == pb.SOLVE_STATUS_OPTIMAL and len(resp.placements) == 2
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as r:
            metrics = r.read().decode()
        assert 'quiltsolve_workers{lane="main"} 1.0' in metrics
        # the HTTP face: the readiness probe's endpoint and the web app's page, from the installed package
        with urllib.request.urlopen(f"http://127.0.0.1:{http_port}{HEALTHZ}", timeout=10) as r:
            assert (r.status, json.load(r)["status"]) == (200, "SERVING")
        with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/", timeout=10) as r:
            assert r.status == 200 and r.headers.get_content_type() == "text/html"
            assert r.read() == (REPO / "src" / "quiltsolve" / "web" / "static" / "index.html").read_bytes()

        # SIGTERM with a call in flight: the call is answered, the process ends within grace + 1 s
        in_flight = stub.SuggestMove.future(long_move_request(20), timeout=60)
        time.sleep(0.5)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=GRACE + 10)
        took = time.monotonic() - t0
        assert code == 0
        assert took <= GRACE + 1 + 1.0, f"shutdown took {took:.2f} s"
        assert in_flight.result(timeout=10).suggestions
        channel.close()
        reader.join(5)
        assert any('"event": "shutdown"' in line for line in stderr), "".join(stderr)[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
