"""How the server runs: :class:`ServerConfig`, and how many cores this process may use.

``workers=0`` means one worker process per usable core: the CPU affinity,
capped by a container's cgroup CPU quota (:func:`cgroup_cpu_limit`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from quiltsolve.solver.puzzle import DEFAULT_TABLE_BYTES

MAX_RECEIVE_BYTES = 64 * 1024
CHEAP_THREADS = 8                          # handler threads kept for cheap calls however many wait


def cgroup_cpu_limit(path: str = "/sys/fs/cgroup/cpu.max") -> float | None:
    r"""The CPU quota of this process's cgroup (v2) in cores, or None when unlimited or unknown.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", delete=False) as f:
    ...     _ = f.write("150000 100000\n")
    >>> cgroup_cpu_limit(f.name); os.unlink(f.name)
    1.5
    """
    try:
        with open(path) as f:
            quota, period = f.read().split()[:2]
        if quota == "max":
            return None
        return int(quota) / int(period)
    except (OSError, ValueError, ZeroDivisionError):
        return None


def usable_cores() -> int:
    """Cores this process may use: its CPU affinity, capped by a container's CPU quota."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    quota = cgroup_cpu_limit()
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota - 0.01)))  # a 1.5-core quota keeps 2 workers busy
    return cores


def default_workers() -> int:
    """One worker process per usable core: the solvers are CPU-bound."""
    return max(1, usable_cores())


@dataclass(frozen=True)
class ServerConfig:
    """How to run the server. ``port=0`` binds an ephemeral port.

    ``workers`` worker processes run the expensive calls; up to
    ``max_queue`` more wait (None: 8 per worker); beyond that calls are
    refused with RESOURCE_EXHAUSTED. ``peer_share`` is the fraction of the
    workers (and of the queue) one peer may hold while others wait.
    """

    host: str = "127.0.0.1"
    port: int = 50051
    workers: int = 0                       # 0: one per usable core
    max_queue: int | None = None           # None: 8 per worker
    peer_share: float = 0.5
    max_concurrent_rpcs: int | None = 1000  # gRPC's own last-resort bound on calls in flight
    metrics_port: int | None = None        # Prometheus /metrics on host:metrics_port (0 = ephemeral)
    grace: float = 5.0                     # seconds in-flight calls get on shutdown
    max_receive_bytes: int = MAX_RECEIVE_BYTES
    cache_bytes: int | None = None         # solver caches per worker (None: the solver's default)
    max_worker_rss: int | None = 1024 * 1024 * 1024  # a worker above this after a job is replaced
    fast_workers: int = 1                  # extra workers for quick solves' first try (0: none)
    fast_limit: float = 0.05               # seconds a quick solve may take on the fast lane
    warm_up: bool = True                   # start() waits until every worker is warm
    reuse_port: bool = False               # SO_REUSEPORT: several processes share one port
    tls_cert: str | None = None            # PEM certificate chain file: serve TLS instead of plain text
    tls_key: str | None = None             # PEM private key file of tls_cert
    tls_client_ca: str | None = None       # PEM CA file: clients must present a certificate it signed (mTLS)
    auth_tokens: tuple[str, ...] = ()      # bearer tokens accepted (empty: no authentication)
    reflection: bool = True                # register the reflection service
    max_connection_age: float | None = None  # seconds: clients reconnect (and re-resolve DNS) this often
    table_bytes: int = DEFAULT_TABLE_BYTES  # a frontier tiling count's table bound, per job (per worker)

    def __post_init__(self) -> None:
        if self.workers < 0:
            raise ValueError(f"workers must be >= 1 (0 = one per core), got {self.workers}")
        if self.max_queue is not None and self.max_queue < 0:
            raise ValueError(f"max_queue must be >= 0, got {self.max_queue}")
        if not 0 < self.peer_share <= 1:
            raise ValueError(f"peer_share must be in (0, 1], got {self.peer_share}")
        if self.max_concurrent_rpcs is not None and self.max_concurrent_rpcs < 1:
            raise ValueError(f"max_concurrent_rpcs must be >= 1, got {self.max_concurrent_rpcs}")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be 0-65535, got {self.port}")
        if self.grace < 0:
            raise ValueError(f"grace must be >= 0, got {self.grace}")
        if self.max_receive_bytes < 1:
            raise ValueError(f"max_receive_bytes must be >= 1, got {self.max_receive_bytes}")
        if self.cache_bytes is not None and self.cache_bytes < 0:
            raise ValueError(f"cache_bytes must be >= 0, got {self.cache_bytes}")
        if self.max_connection_age is not None and self.max_connection_age <= 0:
            raise ValueError(f"max_connection_age must be > 0 seconds, got {self.max_connection_age}")
        if self.fast_workers < 0:
            raise ValueError(f"fast_workers must be >= 0, got {self.fast_workers}")
        if not 0 < self.fast_limit <= 60:
            raise ValueError(f"fast_limit must be in (0, 60] seconds, got {self.fast_limit}")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("tls_cert and tls_key go together")
        if self.tls_client_ca is not None and self.tls_cert is None:
            raise ValueError("tls_client_ca needs tls_cert and tls_key (client certificates need TLS)")
        if any(not t or any(c.isspace() for c in t) for t in self.auth_tokens):
            raise ValueError("auth tokens must be non-empty and contain no white space")
        if self.max_worker_rss is not None and self.max_worker_rss < 1:
            raise ValueError(f"max_worker_rss must be >= 1, got {self.max_worker_rss}")
        if self.table_bytes < 1:
            raise ValueError(f"table_bytes must be >= 1, got {self.table_bytes}")

    @property
    def worker_count(self) -> int:
        return self.workers or default_workers()

    @property
    def queue_size(self) -> int:
        return 8 * self.worker_count if self.max_queue is None else self.max_queue

    @property
    def handler_threads(self) -> int:
        # Every running or queued expensive call holds a thread while it waits;
        # the rest stay free for cheap calls and for refusing the overflow.
        return self.worker_count + self.queue_size + 5 * self.fast_workers + CHEAP_THREADS
