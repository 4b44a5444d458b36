"""``suggest solve POSITION --ray auto|local|ADDRESS [--workers N]``: the exact solve on a Ray cluster.

:class:`RaySolveClient` wraps the command's client so that ``solve_position``
runs :func:`engine.ray_solve.solve_position_ray` (the root's moves and their
replies as tasks on solver actors) after checking the request as the service
would (its own validation: the same limits, the same messages naming the
field); it yields the same :class:`engine.solve.SolveUpdate` values every
client yields. Everything else goes to the wrapped (embedded) client. Ray is
imported only when a solve runs (``solver.ray_count.ray_session``).

Errors: ``--ray`` with ``--server``, malformed, or Ray not installed —
``ValueError`` (the command's exit 2); a bad time limit, report interval or
table size — :class:`clients.errors.InvalidArgument` naming the field (exit
2); no cluster at the address, or a task that fails there —
:class:`clients.errors.ServiceUnavailable` (exit 3).
"""

from __future__ import annotations

from typing import Any, Iterator

from quiltsolve.engine.ray_solve import solve_position_ray
from quiltsolve.engine.solve import SolveUpdate
from quiltsolve.server.errors import ServiceError
from quiltsolve.server.jobs import SolvePositionJob
from quiltsolve.server.service import Bounds, plan_solve_position
from quiltsolve.solver.ray_count import RayUnavailableError

from . import errors, wire


class RaySolveClient:
    """A client whose position solves run on Ray (``workers`` actors; None: one per CPU of the cluster); other
    calls go to ``inner``."""

    def __init__(self, inner: Any, address: str, workers: int | None = None) -> None:
        if workers is not None and workers < 1:
            raise errors.InvalidArgument(f"workers: must be at least 1, got {workers}", field="workers")
        self._inner = inner
        self.address = address
        self.workers = workers

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def solve_position(self, state: Any, *, time_limit: float | None = None, report_interval: float | None = None,
                       table_mb: int | None = None) -> Iterator[SolveUpdate]:
        """As ``EmbeddedClient.solve_position``, on the Ray cluster: the request is checked first (bad input
        raises at once, naming the field), then the updates come as the solve runs; closing the iterator stops
        it."""
        call = wire.solve_position_call(state, time_limit, report_interval, table_mb)
        try:
            plan = plan_solve_position(call.request, Bounds())
        except ServiceError as e:
            raise wire.error_from_status(e.code, e.details, "ray") from None
        job = plan.job
        assert isinstance(job, SolvePositionJob)
        return self._updates(job, plan.limit)

    def _updates(self, job: SolvePositionJob, limit: float) -> Iterator[SolveUpdate]:
        try:
            yield from solve_position_ray(job.state, address=self.address, workers=self.workers, time_limit=limit,
                                          table_bytes=job.table_bytes, report_interval=job.report_interval)
        except RayUnavailableError as e:
            raise errors.ServiceUnavailable(str(e)) from None
