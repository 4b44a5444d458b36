"""``suggest solve POSITION --ray auto|local|ADDRESS [--workers N]``: the exact solve on a Ray cluster.

:func:`ray_solve` checks the request as the service would (its own
validation: the same limits, the same messages naming the field), then runs
:func:`engine.ray_solve.solve_position_ray` and yields its updates, the
same :class:`engine.solve.SolveUpdate` values every client yields. Ray is
imported only here, only with ``--ray``.

Errors: ``--ray`` with ``--server``, malformed, or Ray not installed —
``ValueError`` (the command's exit 2); a bad time limit, report interval or
table size — :class:`clients.errors.InvalidArgument` naming the field (exit
2); no cluster at the address, or a task that fails there —
:class:`clients.errors.ServiceUnavailable` (exit 3).
"""

from __future__ import annotations

from typing import Any, Iterator

from quiltsolve.engine.solve import SolveUpdate
from quiltsolve.server.errors import ServiceError
from quiltsolve.server.service import Bounds, plan_solve_position
from quiltsolve.server.jobs import SolvePositionJob
from quiltsolve.solver.ray_count import RayUnavailableError, check_address, require_ray

from . import errors, wire


def ray_solve(state: Any, *, address: str, workers: int | None = None, time_limit: float | None = None,
              report_interval: float | None = None, table_mb: int | None = None,
              server: str | None = None) -> Iterator[SolveUpdate]:
    """The updates of the solve of ``state`` on the Ray cluster at ``address`` (``workers`` actors, by default
    one per CPU of the cluster), checked first as the service checks a SolvePosition request; closing the
    iterator stops the solve."""
    if server:
        raise ValueError("--ray and --server cannot be combined: the solve runs on the Ray cluster")
    if workers is not None and workers < 1:
        raise errors.InvalidArgument(f"workers: must be at least 1, got {workers}", field="workers")
    call = wire.solve_position_call(state, time_limit, report_interval, table_mb)
    try:
        plan = plan_solve_position(call.request, Bounds())
    except ServiceError as e:
        raise wire.error_from_status(e.code, e.details, "ray") from None
    job = plan.job
    assert isinstance(job, SolvePositionJob)
    target = check_address(address)
    require_ray(target)
    return _updates(job, target, workers, plan.limit)


def _updates(job: SolvePositionJob, address: str, workers: int | None, limit: float) -> Iterator[SolveUpdate]:
    from quiltsolve.engine.ray_solve import solve_position_ray

    try:
        yield from solve_position_ray(job.state, address=address, workers=workers, time_limit=limit,
                                      table_bytes=job.table_bytes, report_interval=job.report_interval)
    except RayUnavailableError as e:
        raise errors.ServiceUnavailable(str(e)) from None
