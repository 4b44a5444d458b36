"""Ray for batch work: connecting to a cluster, and tiling counts split over it.

Ray is optional (``pip install 'quiltsolve[ray]'``) and imported only here,
only when a function below is called: importing this module costs nothing.

* :func:`ray_session` connects to (or starts) a cluster for one run; the
  engine's match runner and the ``suggest`` command use it too.
* :func:`count_puzzle_ray` is ``solve_puzzle(..., count=True)`` with the
  count cut into sub-problems (:mod:`solver.split`) that run as Ray tasks;
  it returns the local answer: the same raw and distinct counts and the same
  first tilings (only ``wall_time`` differs).

Addresses (``--ray``): ``auto`` — the cluster named by ``RAY_ADDRESS``, else
the one ``ray start --head`` left on this machine, else a private cluster of
this machine's cores started for the run and stopped after it; ``local`` —
always such a private cluster; ``HOST:PORT`` — a cluster's head (its GCS
port, 6379 by default); ``ray://HOST:PORT`` — a Ray Client server.

>>> check_address("auto"), check_address("10.1.2.3:6379"), check_address("ray://head:10001")
('auto', '10.1.2.3:6379', 'ray://head:10001')
>>> check_address("nowhere")
Traceback (most recent call last):
...
ValueError: --ray must be auto, local, HOST:PORT or ray://HOST:PORT, not 'nowhere'
"""

from __future__ import annotations

import logging
import os
import socket
import tempfile
import time
from contextlib import contextmanager
from typing import Any, Iterator

from .puzzle import check_options, parse_pieces, parse_region
from .split import ChunkResult, combine, count_chunk, split_count
from .types import PuzzleResult

__all__ = ["INSTALL_HINT", "RayNotInstalledError", "RayUnavailableError", "check_address", "require_ray",
           "ray_session", "count_puzzle_ray"]

INSTALL_HINT = "pip install 'quiltsolve[ray]'"
LOCAL_OBJECT_STORE = 256 * 1024 * 1024   # a private cluster moves small objects only
CONNECT_TIMEOUT = 5.0                    # seconds to reach a cluster's address before giving up
GRACE = 5.0                              # seconds past the time limit to wait for tasks' answers


class RayNotInstalledError(ValueError):
    """``--ray`` was asked for but Ray is not installed (a usage error: exit 2)."""


class RayUnavailableError(RuntimeError):
    """No Ray cluster could be reached at the address given (exit 3)."""


def check_address(address: str) -> str:
    """The ``--ray`` value, checked for form only (no connection)."""
    text = address.strip() if isinstance(address, str) else ""
    if text in ("auto", "local"):
        return text
    rest = text.removeprefix("ray://")
    host, _, port = rest.rpartition(":")
    if host and port.isdigit() and 0 < int(port) < 65536 and " " not in host:
        return text
    raise ValueError(f"--ray must be auto, local, HOST:PORT or ray://HOST:PORT, not {address!r}")


def _host_port(address: str) -> tuple[str, int]:
    host, _, port = address.removeprefix("ray://").rpartition(":")
    return host.strip("[]"), int(port)


def _is_loopback(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")


def _prepare_env(address: str) -> None:
    # No usage reports to the outside. A cluster on this machine alone stays on
    # the loopback address (Ray otherwise binds its services to the address of
    # the route out, which no other machine here needs); this is read when ray
    # is first imported, so it only takes effect in a fresh process.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_gcs_server_port_wait_time_s", "120")   # Ray's 30 s is short on a busy machine
    if address in ("auto", "local") or _is_loopback(_host_port(address)[0]):
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def require_ray(address: str = "auto"):
    """``import ray`` (after setting its environment), or :class:`RayNotInstalledError`."""
    _prepare_env(check_address(address))
    try:
        import ray
    except ImportError:
        raise RayNotInstalledError(f"--ray needs Ray, which is not installed: {INSTALL_HINT}") from None
    return ray


def _reachable(address: str) -> bool:
    try:
        with socket.create_connection(_host_port(address), timeout=CONNECT_TIMEOUT):
            return True
    except (OSError, ValueError):
        return False


def _running_cluster() -> str | None:
    """The address of the cluster to join for ``auto``, or None to start a private one."""
    env = os.environ.get("RAY_ADDRESS", "").strip()
    if env and env not in ("auto", "local"):
        return check_address(env)
    try:  # written by `ray start --head` (and removed by `ray stop`)
        with open(os.path.join(tempfile.gettempdir(), "ray", "ray_current_cluster")) as f:
            found = f.read().strip()
        check_address(found)
    except (OSError, ValueError):
        return None
    return found if _reachable(found) else None


@contextmanager
def ray_session(address: str = "auto", *, num_cpus: int | None = None) -> Iterator[Any]:
    """Ray, connected to the cluster at ``address`` for the ``with`` block.

    When Ray is already initialised in this process (a test's cluster, a
    notebook) that connection is used as it is and left open. Otherwise the
    session connects (or starts a private cluster with ``num_cpus`` CPUs, all
    by default) and shuts down at the end. :class:`RayUnavailableError` when
    nothing answers at the address.
    """
    target = check_address(address)
    ray = require_ray(target)
    if ray.is_initialized():
        yield ray
        return
    quiet = dict(logging_level=logging.ERROR, log_to_driver=False)
    if target == "local":
        join = None
    elif target == "auto":
        join = _running_cluster()
    else:
        join = target
    if join is not None and not _reachable(join):
        raise RayUnavailableError(f"no Ray cluster answers at {join} (start one with `ray start --head`, "
                                  f"or use --ray local)")
    try:
        if join is None:
            ray.init(address="local", num_cpus=num_cpus, include_dashboard=False,
                     object_store_memory=LOCAL_OBJECT_STORE, **quiet)
        else:
            ray.init(address=join, **quiet)
    except Exception as e:  # noqa: BLE001 - version mismatch, auth, a dying cluster: one clear line
        raise RayUnavailableError(f"cannot start or join a Ray cluster ({join or 'local'}): "
                                  f"{' '.join(str(e).split())[:300]}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def cluster_cpus(ray) -> int:
    """CPUs of the connected cluster (at least 1)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _chunk_task(plan, index, prefixes, max_tilings, deadline) -> ChunkResult:
    return count_chunk(plan, index, prefixes, max_tilings, deadline)


_REMOTE: dict[str, object] = {}


def _remote(ray, fn):
    """``ray.remote(fn)``, made once per process."""
    key = f"{fn.__module__}.{fn.__qualname__}"
    if key not in _REMOTE:
        _REMOTE[key] = ray.remote(num_cpus=1, max_retries=0)(fn)
    return _REMOTE[key]


def count_puzzle_ray(region_rows, pieces, *, mirror: bool = True, use_all: bool = True, max_tilings: int = 1,
                     time_limit: float = 10.0, address: str = "auto", parts: int | None = None,
                     chunks: int | None = None, num_cpus: int | None = None) -> PuzzleResult:
    """``solve_puzzle(region_rows, pieces, count=True, ...)`` with the count split over Ray.

    The count is cut into at least ``parts`` sub-problems (default 4 per
    chunk) dealt into ``chunks`` Ray tasks (default 4 per cluster CPU). The
    answer is the local one: OPTIMAL / INFEASIBLE with exact counts, or —
    when ``time_limit`` runs out first — FEASIBLE / UNKNOWN with lower bounds
    (tasks still running then are cancelled). ``wall_time`` counts from the
    moment the cluster is joined. ``num_cpus`` sizes a private cluster.
    """
    check_options(count=True, max_tilings=max_tilings, time_limit=time_limit)
    parse_region(region_rows)            # input errors before any connection
    parse_pieces(pieces)
    with ray_session(address, num_cpus=num_cpus) as ray:
        # the clock starts once connected: starting a private cluster takes seconds
        t0 = time.perf_counter()
        deadline = time.time() + time_limit
        n_chunks = chunks or 4 * cluster_cpus(ray)
        plan = split_count(region_rows, pieces, mirror=mirror, use_all=use_all,
                           parts=parts or 4 * n_chunks)
        groups = plan.chunks(n_chunks) if plan.prefixes else []
        results: list[ChunkResult | None] = [None] * len(groups)
        if groups:
            task = _remote(ray, _chunk_task)
            plan_ref = ray.put(plan)
            refs = [task.remote(plan_ref, i, [plan.prefixes[k] for k in ks], max_tilings, deadline)
                    for i, ks in enumerate(groups)]
            index = {r: i for i, r in enumerate(refs)}
            pending = list(refs)
            try:
                while pending:
                    left = deadline + GRACE - time.time()
                    if left <= 0:
                        break
                    ready, pending = ray.wait(pending, num_returns=1, timeout=left)
                    for r in ready:
                        try:
                            results[index[r]] = ray.get(r)
                        except ray.exceptions.RayError as e:  # a worker died, a version mismatch...
                            cause = getattr(e, "cause", None) or e
                            raise RayUnavailableError(f"a count task failed on the cluster: "
                                                      f"{' '.join(str(cause).split())[:300]}") from None
            finally:
                for r in pending:
                    ray.cancel(r, force=True)
        wall = time.perf_counter() - t0
    return combine(plan, groups, results, max_tilings, wall)
