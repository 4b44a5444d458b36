"""``EmbeddedClient``: the same interface as :class:`clients.PlacementClient`,
answered by the solver and engine in this process (no server needed).
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from solver.geometry import Board, Shape
from solver.patches import PATCHES, Patch
from solver.types import LookaheadResult, Objective, PlacementResult, PuzzleResult

from . import errors
from .inputs import (
    check_iterations, check_time_limit, check_top, lookahead_inputs, piece_shapes, placement_inputs, region_rows,
)


def puzzle_piece_key(index: int, shapes: Sequence[Shape]) -> Any:
    """The key a puzzle answer gives the piece with this index: the index
    itself, as ``solver.solve_puzzle`` does."""
    return index


class EmbeddedClient:
    """Answers in-process. ``seed``/``workers`` go to CP-SAT for repeatable answers."""

    target = "embedded"

    def __init__(self, *, seed: int = 0, workers: int = 1) -> None:
        self.seed = seed
        self.workers = workers

    def close(self) -> None:
        pass

    def __enter__(self) -> "EmbeddedClient":
        return self

    def __exit__(self, *exc) -> None:
        pass

    def __repr__(self) -> str:
        return "EmbeddedClient()"

    def solve_placement(self, board: Board | Sequence[str], patches: Sequence[int | str], *,
                        objective: str | Objective = "cover",
                        time_limit: float | None = None) -> PlacementResult:
        import solver

        mask, keys, obj, tl = placement_inputs(board, patches, objective, time_limit)
        kw: dict[str, Any] = {"seed": self.seed, "workers": self.workers}
        if tl is not None:
            kw["time_limit"] = tl
        with _bad_input():
            return solver.solve(mask, solver.candidates_from(keys), obj, **kw)

    def suggest_placement(self, board: Board | Sequence[str], patch_id: int | str,
                          upcoming: Sequence[int | str] = (), *, square7: bool = False,
                          time_limit: float | None = None, top: int | None = None) -> LookaheadResult:
        import solver

        mask, key, ups, tl, top = lookahead_inputs(board, patch_id, upcoming, time_limit, top)
        with _bad_input():
            return solver.rank_placements(mask, key, ups, square7=square7,
                                          time_limit=1.0 if tl is None else tl,
                                          top=top or None, seed=self.seed)

    def suggest_move(self, state: Any, *, time_limit: float | None = None, top: int | None = None,
                     iterations: int | None = None) -> list:
        """Rank the moves with the search player (engine.search), as the service does."""
        from engine.advisor import SolverAdvisor
        from engine.search import search_moves

        tl = check_time_limit(time_limit)
        top = check_top(top)
        iterations = check_iterations(iterations)
        game = load_state(state)
        with _bad_input():
            # A fixed iteration budget places buys without time-limited
            # solver calls (as the service does), so answers repeat exactly.
            return search_moves(game, advisor=None if iterations else SolverAdvisor(seed=self.seed),
                                time_limit=tl, top=top or None, seed=self.seed, iterations=iterations)

    def solve_puzzle(self, region_rows_: Sequence[str] | str, pieces: Sequence[int | str | Shape], *,
                     count: bool = False, mirror: bool = True, use_all: bool = True,
                     max_tilings: int = 1, time_limit: float | None = None) -> PuzzleResult:
        import solver

        rows = region_rows(region_rows_)
        shapes = piece_shapes(pieces)
        tl = check_time_limit(time_limit)
        kw: dict[str, Any] = {}
        if tl is not None:
            kw["time_limit"] = tl
        with _bad_input():
            return solver.solve_puzzle(rows, shapes, count=count, mirror=mirror, use_all=use_all,
                                       max_tilings=max_tilings, **kw)

    def list_patches(self) -> list[Patch]:
        return list(PATCHES)


def load_state(state: Any):
    """A ``GameState`` from a state object, a dict or the engine's JSON text."""
    import engine

    if isinstance(state, engine.GameState):
        return state
    if isinstance(state, (str, bytes)):
        try:
            state = json.loads(state)
        except ValueError as e:
            raise errors.InvalidArgument(f"bad game state: not JSON: {e}") from None
    if not isinstance(state, dict):
        raise errors.InvalidArgument("bad game state: expected a JSON object (GameState.to_json())")
    try:
        return engine.GameState.from_json(state)
    except ValueError as e:  # the engine's StateError
        raise errors.InvalidArgument(f"bad game state: {e}") from None


class _bad_input:
    """Turn the solver's / engine's input errors into ``InvalidArgument``."""

    def __enter__(self):
        return self

    def __exit__(self, typ, exc, tb):
        if exc is not None and isinstance(exc, ValueError) and not isinstance(exc, errors.ClientError):
            raise errors.InvalidArgument(str(exc)) from None
        return False
