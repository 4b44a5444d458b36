"""``suggest puzzle REGION --piece ... --count --ray auto|local|ADDRESS`` (and ``suggest solve --ray``).

:func:`ray_client` wraps the command's client so that ``solve_puzzle`` with
``count=True`` splits the count over a Ray cluster
(:func:`solver.ray_count.count_puzzle_ray`); the answer is the local one
(same raw and distinct counts, same first tiling). Everything else goes to
the wrapped (embedded) client. Ray is imported only here, only with ``--ray``.

Errors: ``--ray`` without ``--count``, with ``--server``, malformed, or Ray
not installed — ``ValueError`` (the command's exit 2); unlimited pieces
(``--piece 'SHAPE*'``) or ``--method frontier`` —
:class:`clients.errors.InvalidArgument` (exit 2: the split is the search's;
the frontier count needs no cluster); no cluster at the address —
:class:`clients.errors.ServiceUnavailable` (exit 3).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from quiltsolve.server.errors import ServiceError
from quiltsolve.server.service import puzzle_job
from quiltsolve.solver.geometry import Shape
# Ray itself is imported by solver.ray_count only when a count runs: importing it costs nothing.
from quiltsolve.solver.ray_count import RayUnavailableError, check_address, count_puzzle_ray, require_ray
from quiltsolve.solver.types import PuzzleResult

from . import errors, wire
from .ray_solve import RaySolveClient


class RayCountClient:
    """A client whose puzzle counts run on Ray; other calls go to ``inner``."""

    def __init__(self, inner: Any, address: str) -> None:
        self._inner = inner
        self.address = address

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def solve_puzzle(self, region_rows_: Sequence[str] | str, pieces: Sequence[int | str | Shape], *,
                     count: bool = False, mirror: bool = True, use_all: bool = True,
                     max_tilings: int = 1, time_limit: float | None = None,
                     unlimited: Sequence[int | str | Shape] = (), method: str = "auto") -> PuzzleResult:
        """As ``EmbeddedClient.solve_puzzle``; counts (``count=True``) run on the Ray cluster, by the
        search split into sub-problems: unlimited pieces and ``method="frontier"`` are refused
        (``InvalidArgument``, naming the field) — the frontier count runs without Ray."""
        if not count:
            return self._inner.solve_puzzle(region_rows_, pieces, count=count, mirror=mirror, use_all=use_all,
                                            max_tilings=max_tilings, time_limit=time_limit, unlimited=unlimited,
                                            method=method)

        # The request the service would get, checked by the service's own validation.
        call = wire.solve_puzzle_call(region_rows_, pieces, count, mirror, use_all, max_tilings, time_limit,
                                      unlimited, method)
        try:
            job, limit = puzzle_job(call.request)
        except ServiceError as e:
            raise wire.error_from_status(e.code, e.details, "ray") from None
        if job.unlimited:
            raise errors.InvalidArgument("unlimited_pieces: --ray splits the search's count, which needs a "
                                         "fixed multiset of pieces; count unlimited pieces without --ray "
                                         "(the frontier count)", field="unlimited_pieces")
        if job.method == "frontier":
            raise errors.InvalidArgument("method: --ray splits the search's count; the frontier count runs "
                                         "without --ray", field="method")
        rows, shapes = list(job.rows), [Shape.parse(t) for t in job.pieces]
        kw: dict[str, Any] = {"time_limit": limit} if call.request.HasField("time_limit") else {}
        try:
            result = count_puzzle_ray(rows, shapes, mirror=job.mirror, use_all=job.use_all,
                                      max_tilings=job.max_tilings, address=self.address, **kw)
        except RayUnavailableError as e:
            raise errors.ServiceUnavailable(str(e)) from None
        return dataclasses.replace(result, method="search")


def ray_client(args: Any, client: Any) -> Any:
    """The ``suggest`` command's client for ``--ray`` (checks the options first): a :class:`RayCountClient`
    (``puzzle --count``) or a :class:`clients.ray_solve.RaySolveClient` (``solve``)."""
    command = getattr(args, "command", None)
    if command == "solve":
        if getattr(args, "server", None):
            raise ValueError("--ray and --server cannot be combined: the solve runs on the Ray cluster")
        address = check_address(args.ray)
        require_ray(address)
        return RaySolveClient(client, address, getattr(args, "workers", None))
    if command != "puzzle" or not getattr(args, "count", False):
        raise ValueError("--ray splits tiling counts and solves: use it with suggest puzzle ... --count, or suggest "
                         "solve")
    if getattr(args, "server", None):
        raise ValueError("--ray and --server cannot be combined: the count runs on the Ray cluster")
    address = check_address(args.ray)
    require_ray(address)
    return RayCountClient(client, address)
