"""--ray input errors, without a cluster: exit 2 (one line) for bad usage or Ray missing, 3 when no cluster answers."""

from __future__ import annotations

import io
import logging
import socket
import sys

import pytest

from quiltsolve.clients.cli import main as suggest_main
from quiltsolve.engine.__main__ import main as engine_main
from quiltsolve.solver.ray_count import RayNotInstalledError, check_address, require_ray

MATCH = ["match", "--a", "greedy", "--b", "random", "--games", "2"]
PUZZLE = ["puzzle", "..../....", "--piece", "####", "--piece", "####", "--count"]


@pytest.fixture(autouse=True)
def no_driver_connection():
    """These tests need a process that is not connected to Ray: the other Ray tests share one cluster
    (tests/ray/conftest.py), so the driver leaves it for each test here and joins it again after."""
    ray = sys.modules.get("ray")
    if ray is None or not ray.is_initialized():
        yield
        return
    address = ray.get_runtime_context().gcs_address
    ray.shutdown()
    try:
        yield
    finally:
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_suggest(args) -> tuple[int, str]:
    err = io.StringIO()
    code = suggest_main(args, stdout=io.StringIO(), stderr=err)
    return code, err.getvalue()


@pytest.mark.parametrize("address", ["", "nowhere", "host:", "host:0", "host:99999", ":6379", "a b:1"])
def test_malformed_addresses(address, capsys):
    with pytest.raises(ValueError, match="--ray must be"):
        check_address(address)
    assert engine_main(MATCH + ["--ray", address]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--ray must be auto, local, HOST:PORT or ray://HOST:PORT" in err
    code, err = run_suggest(PUZZLE + ["--ray", address])
    assert code == 2 and err.count("\n") == 1 and "--ray must be" in err


def test_ray_not_installed_names_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)      # `import ray` now fails
    with pytest.raises(RayNotInstalledError):
        require_ray("auto")
    assert engine_main(MATCH + ["--ray", "auto"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'quiltsolve[ray]'" in err
    code, err = run_suggest(PUZZLE + ["--ray", "auto"])
    assert code == 2 and err.count("\n") == 1 and "pip install 'quiltsolve[ray]'" in err


def test_ray_with_server_or_without_count_is_a_usage_error(capsys):
    assert engine_main(MATCH + ["--ray", "auto", "--server", "127.0.0.1:1"]) == 2
    assert "--ray and --server cannot be combined" in capsys.readouterr().err
    code, err = run_suggest(PUZZLE + ["--ray", "auto", "--server", "127.0.0.1:1"])
    assert code == 2 and "--ray and --server cannot be combined" in err
    code, err = run_suggest(PUZZLE[:-1] + ["--ray", "auto"])
    assert code == 2 and "use it with suggest puzzle ... --count" in err


def test_no_cluster_at_the_address_is_exit_3(capsys):
    pytest.importorskip("ray")
    address = f"127.0.0.1:{closed_port()}"
    assert engine_main(MATCH + ["--ray", address]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"no Ray cluster answers at {address}" in err
    code, err = run_suggest(PUZZLE + ["--ray", address])
    assert code == 3 and err.count("\n") == 1 and f"no Ray cluster answers at {address}" in err
