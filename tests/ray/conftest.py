"""A small local Ray cluster for the Ray tests: 2 CPUs, no dashboard, one per test module.

The machine is shared: the cluster gets at most 2 CPUs and a small object
store, stays on the loopback address, sends no usage reports, and is shut
down at the end of each module that uses it.
"""

from __future__ import annotations

import logging
import os

import pytest

# read when ray is first imported (here, or by solver.ray_count)
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")   # services on 127.0.0.1
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_gcs_server_port_wait_time_s", "120")     # Ray's default 30 s, on a busy machine


@pytest.fixture(scope="module")
def ray_cluster():
    """Ray, initialised on a fresh private cluster for this module; its GCS address is ``ray.gcs_address``."""
    ray = pytest.importorskip("ray", reason="the Ray tests need the ray extra: pip install 'quiltsolve[ray]'")
    assert not ray.is_initialized()
    for attempt in (1, 2):   # on a loaded machine the GCS or the raylet can miss Ray's start-up wait once
        try:
            ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=128 * 1024 * 1024,
                     logging_level=logging.ERROR, log_to_driver=False)
            break
        except Exception:  # noqa: BLE001 - a late raylet is a bare Exception ("timed out during startup")
            ray.shutdown()
            if attempt == 2:
                raise
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def gcs_address(ray_cluster) -> str:
    address = ray_cluster.get_runtime_context().gcs_address
    assert address.startswith("127.0.0.1:"), address
    return address
