"""Where to place a patch: the advisor protocol and its in-process solver.

An *advisor* answers one question for the engine's players: "I am about to
place ``patch_id`` on ``board``; these patches come next in the circle; rank
the placements". :class:`SolverAdvisor` answers it in-process with
``solver.rank_placements``; ``clients.PlacementClient`` answers it through
the gRPC service (the engine finds that one through the
``quiltsolve.advisors`` entry point group, never by importing ``clients``).
"""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

from solver import Board, LookaheadResult

ADVISOR_ENTRY_POINTS = "quiltsolve.advisors"


@runtime_checkable
class Advisor(Protocol):
    def suggest_placement(self, board: Board, patch_id: int | str, upcoming: Sequence[int | str], *,
                          square7: bool = False, time_limit: float | None = None) -> LookaheadResult:
        ...


class SolverAdvisor:
    """Rank placements with the solver, in this process.

    ``seed`` and ``workers`` are passed to CP-SAT so answers are repeatable.
    """

    def __init__(self, *, time_limit: float = 1.0, seed: int = 0, top: int | None = None) -> None:
        self.time_limit = time_limit
        self.seed = seed
        self.top = top

    def suggest_placement(self, board: Board, patch_id: int | str, upcoming: Sequence[int | str], *,
                          square7: bool = False, time_limit: float | None = None,
                          stop=None) -> LookaheadResult:
        from solver import rank_placements

        return rank_placements(
            board, patch_id, list(upcoming), square7=square7,
            time_limit=self.time_limit if time_limit is None else time_limit,
            top=self.top, seed=self.seed, stop=stop,
        )

    def __repr__(self) -> str:
        return f"SolverAdvisor(time_limit={self.time_limit})"


class LocalAdvisor:
    """A solver-free advisor for tests and fallbacks: ranks placements by a
    snug fit (edges touching filled cells or the border) and by the tiny
    pockets of empty cells they leave. ``value`` is the upcoming patches'
    total area (it does not look ahead), ``proven`` is False.
    """

    def suggest_placement(self, board: Board, patch_id: int | str, upcoming: Sequence[int | str] = (), *,
                          square7: bool = False, time_limit: float | None = None) -> LookaheadResult:
        import time

        from solver import (
            LEATHER_PATCH_ID, LEATHER_SHAPE, PATCHES, PlacedPatch, RankedPlacement, Shape, SolveStatus,
            placements,
        )

        from .suggest import contacts, holes

        t0 = time.perf_counter()

        def shape_of(key):
            if isinstance(key, str):
                return Shape.parse(key)
            return LEATHER_SHAPE if key == LEATHER_PATCH_ID else PATCHES[key].shape

        shape = shape_of(patch_id)
        up_area = sum(shape_of(u).area for u in upcoming)
        scored = []
        for pl in placements(shape):
            if pl.mask & board:
                continue
            score = 0.1 * contacts(board, pl.mask) - 1.5 * holes(board | pl.mask)
            scored.append((-score, pl.mask, pl.orientation))
        scored.sort()
        ranked = tuple(
            RankedPlacement(PlacedPatch(patch_id, o, m), value=up_area, bound=up_area, proven=False)
            for _, m, o in scored)
        status = SolveStatus.FEASIBLE if ranked else SolveStatus.INFEASIBLE
        return LookaheadResult(status, ranked, time.perf_counter() - t0)

    def __repr__(self) -> str:
        return "LocalAdvisor()"


def advisor_from_entry_point(name: str, *args, **kwargs) -> Advisor:
    """Build a registered advisor, e.g. ``advisor_from_entry_point("grpc", "host:50051")``.

    Raises ``LookupError`` when no such advisor is installed.
    """
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=ADVISOR_ENTRY_POINTS) if ep.name == name]
    if not found:
        raise LookupError(f"no advisor {name!r} in entry point group {ADVISOR_ENTRY_POINTS!r} "
                          "(is the project installed with pip install -e .?)")
    return found[0].load()(*args, **kwargs)
