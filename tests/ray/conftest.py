"""A small local Ray cluster for the Ray tests: 2 CPUs, no dashboard, one per test module.

The machine is shared: the cluster gets at most 2 CPUs and a small object
store, stays on the loopback address, sends no usage reports, and is shut
down at the end of each module that uses it.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

# read when ray is first imported (here, or by solver.ray_count)
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")   # services on 127.0.0.1
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_AUTH_MODE", "disabled")    # a private loopback cluster: `ray start` and the driver alike
os.environ.setdefault("RAY_gcs_server_port_wait_time_s", "120")     # Ray's default 30 s, on a busy machine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_cli(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).with_name("ray")), *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="package")
def ray_cluster():
    """Ray, connected to a fresh private cluster for the Ray tests (one for all of them: a start and a stop
    cost some 13 s); its GCS address is ``ray.gcs_address``.

    The cluster is started by the ``ray start`` command, in a process of its own: started from
    the test process (``ray.init(address="local")``), Ray forks its raylet with a ``preexec_fn``
    from a process that holds gRPC servers and channels, and that fork can hang in their fork
    handlers. ``subprocess.run`` without ``preexec_fn`` runs no fork handler.
    """
    ray = pytest.importorskip("ray", reason="the Ray tests need the ray extra: pip install 'quiltsolve[ray]'")
    assert not ray.is_initialized()
    port = _free_port()
    start = ("start", "--head", f"--port={port}", "--node-ip-address=127.0.0.1", "--num-cpus=2",
             "--include-dashboard=false", f"--object-store-memory={128 * 1024 * 1024}", "--disable-usage-stats")
    for attempt in (1, 2):   # on a loaded machine the GCS or the raylet can miss Ray's start-up wait once
        started = _ray_cli(*start, timeout=240)
        if started.returncode == 0:
            break
        _ray_cli("stop", "--force", timeout=60)
        if attempt == 2:
            pytest.fail(f"ray start failed: {started.stderr[-2000:]}")
    try:
        ray.init(address=f"127.0.0.1:{port}", logging_level=logging.ERROR, log_to_driver=False)
        yield ray
    finally:
        ray.shutdown()
        _ray_cli("stop", "--force", timeout=60)


@pytest.fixture(scope="package")
def gcs_address(ray_cluster) -> str:
    address = ray_cluster.get_runtime_context().gcs_address
    assert address.startswith("127.0.0.1:"), address
    return address
