"""Where to place a patch: the advisor protocol and its in-process solver.

An *advisor* answers one question for the engine's players: "I am about to
place ``patch_id`` on ``board``; these patches come next in the circle; rank
the placements". :class:`SolverAdvisor` answers it in-process with
``solver.rank_placements``; ``clients.PlacementClient`` answers it through
the gRPC service (the engine finds that one through the
``quiltsolve.advisors`` entry point group, never by importing ``clients``).
"""

from __future__ import annotations

import importlib.metadata
import time
from importlib.metadata import EntryPoint
from typing import Any, Protocol, Sequence, runtime_checkable

from quiltsolve import solver
from quiltsolve.solver import (
    LEATHER_PATCH_ID, LEATHER_SHAPE, PATCHES, Board, LookaheadResult, PlacedPatch, RankedPlacement, Shape,
    SolveStatus, StopToken, placements,
)

from .board import contacts, holes


class Stop(Protocol):
    """What a ``stop`` may be: a ``solver.StopToken`` or anything with ``is_set()``."""

    def is_set(self) -> bool:
        """Whether to stop now."""
        ...

__all__ = ["ADVISOR_ENTRY_POINTS", "Advisor", "LocalAdvisor", "PluginError", "SolverAdvisor",
           "advisor_from_entry_point", "load_entry_point"]

ADVISOR_ENTRY_POINTS = "quiltsolve.advisors"


class PluginError(ImportError):
    """A registered plug-in (entry point) that cannot be loaded; the message names it and why."""


@runtime_checkable
class Advisor(Protocol):
    """Ranks the placements of a patch: the question the engine's players ask."""

    def suggest_placement(self, board: Board, patch_id: int | str, upcoming: Sequence[int | str], *,
                          square7: bool = False, time_limit: float | None = None) -> LookaheadResult:
        """The placements of ``patch_id`` on ``board``, best first, looking ahead at ``upcoming``."""
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
                          stop: StopToken | None = None) -> LookaheadResult:
        """``solver.rank_placements`` (its first call imports the lookahead and OR-Tools); ``stop`` cancels it."""
        result: LookaheadResult = solver.rank_placements(
            board, patch_id, list(upcoming), square7=square7,
            time_limit=self.time_limit if time_limit is None else time_limit,
            top=self.top, seed=self.seed, stop=stop,
        )
        return result

    def __repr__(self) -> str:
        return f"SolverAdvisor(time_limit={self.time_limit})"


def _shape_of(key: int | str) -> Shape:
    if isinstance(key, str):
        return Shape.parse(key)
    return LEATHER_SHAPE if key == LEATHER_PATCH_ID else PATCHES[key].shape


class LocalAdvisor:
    """A solver-free advisor for tests and fallbacks: ranks placements by a
    snug fit (edges touching filled cells or the border) and by the tiny
    pockets of empty cells they leave. ``value`` is the upcoming patches'
    total area (it does not look ahead), ``proven`` is False.
    """

    def suggest_placement(self, board: Board, patch_id: int | str, upcoming: Sequence[int | str] = (), *,
                          square7: bool = False, time_limit: float | None = None) -> LookaheadResult:
        """Every placement that fits, snuggest first (instant; ``square7`` and ``time_limit`` are ignored)."""
        t0 = time.perf_counter()
        shape = _shape_of(patch_id)
        up_area = sum(_shape_of(u).area for u in upcoming)
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


def load_entry_point(ep: EntryPoint) -> Any:
    """``ep.load()``, with a plug-in that fails to import reported as :class:`PluginError` naming it."""
    try:
        return ep.load()
    except (ImportError, AttributeError) as e:
        raise PluginError(f"plug-in {ep.name!r} of entry point group {ep.group!r} ({ep.value}) cannot be "
                          f"loaded: {type(e).__name__}: {e}") from e


def advisor_from_entry_point(name: str, *args: Any, **kwargs: Any) -> Advisor:
    """Build a registered advisor, e.g. ``advisor_from_entry_point("grpc", "host:50051")``.

    Raises ``LookupError`` when no such advisor is installed, and
    :class:`PluginError` (an ``ImportError``) naming the plug-in when it is
    installed but broken (its module or its dependencies fail to import).
    """
    found = [ep for ep in importlib.metadata.entry_points(group=ADVISOR_ENTRY_POINTS) if ep.name == name]
    if not found:
        raise LookupError(f"no advisor {name!r} in entry point group {ADVISOR_ENTRY_POINTS!r} "
                          "(is the project installed with pip install -e .?)")
    advisor: Advisor = load_entry_point(found[0])(*args, **kwargs)
    return advisor
