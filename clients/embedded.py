"""``EmbeddedClient``: the same interface as :class:`clients.PlacementClient`,
answered by the solver and engine in this process (no server needed).

It accepts exactly the inputs the service accepts (the same checks in
:mod:`clients.inputs`, the same :mod:`solver.limits`) and uses the
service's default time limits.

>>> EmbeddedClient().solve_placement(["#" * 9] * 8 + ["#######.."], [0]).empty_after
0
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Sequence

from solver import limits
from solver.geometry import Board, Shape
from solver.patches import PATCHES, Patch
from solver.types import LookaheadResult, Objective, PlacementResult, PuzzleResult

from . import errors
from .inputs import (
    PatchSpec, check_seed, lookahead_inputs, move_inputs, placement_inputs, puzzle_inputs,
)

if TYPE_CHECKING:
    import engine
    from engine.suggest import MoveSuggestion

# What the solver and engine raise for input they cannot handle: huge
# numbers (OverflowError), deep nesting (RecursionError), and the rest of
# their narrow input errors (all ValueError subclasses).
_INPUT_ERRORS = (ValueError, ArithmeticError, RecursionError)


def puzzle_piece_key(index: int, shapes: Sequence[Shape]) -> Any:
    """The key a puzzle answer gives the piece with this index: the index
    itself, as ``solver.solve_puzzle`` does."""
    return index


class EmbeddedClient:
    """Answers in-process. ``seed``/``workers`` go to CP-SAT for repeatable answers."""

    target = "embedded"

    def __init__(self, *, seed: int = 0, workers: int = 1) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 64:
            raise errors.InvalidArgument(f"bad workers {workers!r}: it must be an integer from 1 to 64")
        self.seed = check_seed(seed)
        self.workers = workers

    def close(self) -> None:
        """Nothing to release (for symmetry with :class:`clients.PlacementClient`)."""

    def __enter__(self) -> "EmbeddedClient":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def __repr__(self) -> str:
        return "EmbeddedClient()"

    def solve_placement(self, board: Board | Sequence[str], patches: Sequence[PatchSpec], *,
                        objective: str | Objective = "cover",
                        time_limit: float | None = None) -> PlacementResult:
        """As :meth:`clients.PlacementClient.solve_placement`."""
        import solver

        mask, keys, obj, tl = placement_inputs(board, patches, objective, time_limit)
        with _bad_input():
            return solver.solve(mask, solver.candidates_from(keys), obj, seed=self.seed, workers=self.workers,
                                time_limit=limits.DEFAULT_SOLVE_LIMIT if tl is None else tl)

    def suggest_placement(self, board: Board | Sequence[str], patch_id: PatchSpec,
                          upcoming: Sequence[PatchSpec] = (), *, square7: bool = False,
                          time_limit: float | None = None, top: int | None = None) -> LookaheadResult:
        """As :meth:`clients.PlacementClient.suggest_placement`."""
        import solver

        mask, key, ups, tl, top = lookahead_inputs(board, patch_id, upcoming, time_limit, top)
        with _bad_input():
            return solver.rank_placements(mask, key, ups, square7=square7,
                                          time_limit=limits.DEFAULT_SUGGEST_LIMIT if tl is None else tl,
                                          top=top or None, seed=self.seed)

    def suggest_move(self, state: Any, *, time_limit: float | None = None, top: int | None = None,
                     iterations: int | None = None) -> list[MoveSuggestion]:
        """Rank the moves with the search player (engine.search), as the service does."""
        from engine.advisor import SolverAdvisor
        from engine.search import search_moves

        text, tl, top, iterations = move_inputs(state, time_limit, top, iterations)
        game = load_state(text)
        if tl is None:
            tl = limits.DEFAULT_SUGGEST_LIMIT if iterations is None else limits.DEFAULT_ITERATIONS_LIMIT
        with _bad_input("bad game state: "):
            # A fixed iteration budget places buys without time-limited
            # solver calls (as the service does), so answers repeat exactly.
            return search_moves(game, advisor=None if iterations else SolverAdvisor(seed=self.seed),
                                time_limit=tl, top=top or None, seed=self.seed, iterations=iterations)

    def solve_puzzle(self, region_rows_: Sequence[str] | str, pieces: Sequence[PatchSpec | Shape], *,
                     count: bool = False, mirror: bool = True, use_all: bool = True,
                     max_tilings: int = 1, time_limit: float | None = None) -> PuzzleResult:
        """As :meth:`clients.PlacementClient.solve_puzzle`."""
        import solver

        rows, shapes, max_tilings, tl = puzzle_inputs(region_rows_, pieces, max_tilings, time_limit)
        with _bad_input():
            return solver.solve_puzzle(rows, shapes, count=count, mirror=mirror, use_all=use_all,
                                       max_tilings=max_tilings,
                                       time_limit=limits.DEFAULT_SOLVE_LIMIT if tl is None else tl)

    def list_patches(self) -> list[Patch]:
        """The 33 standard patches, by id."""
        return list(PATCHES)


def load_state(state: Any) -> engine.GameState:
    """A ``GameState`` from a state object, a dict or the engine's JSON text;
    :class:`clients.InvalidArgument` for anything else (never another error)."""
    import engine

    if isinstance(state, engine.GameState):
        return state
    if isinstance(state, (str, bytes)):
        try:
            state = json.loads(state)
        except (ValueError, RecursionError) as e:
            reason = "nested too deeply" if isinstance(e, RecursionError) else str(e)
            raise errors.InvalidArgument(f"bad game state: not JSON: {reason}") from None
    if not isinstance(state, dict):
        raise errors.InvalidArgument("bad game state: expected a JSON object (GameState.to_json())")
    try:
        return engine.GameState.from_json(state)
    except (*_INPUT_ERRORS, TypeError, KeyError, IndexError, AttributeError) as e:
        # StateError names the field path; the others are shapes of JSON the
        # engine's checks did not foresee, still the caller's input.
        raise errors.InvalidArgument(f"bad game state: {e or type(e).__name__}") from None


class _bad_input:
    """Turn the solver's / engine's input errors into ``InvalidArgument``."""

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix

    def __enter__(self) -> "_bad_input":
        return self

    def __exit__(self, typ: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        if isinstance(exc, _INPUT_ERRORS) and not isinstance(exc, errors.ClientError):
            message = "nested too deeply" if isinstance(exc, RecursionError) else str(exc) or type(exc).__name__
            raise errors.InvalidArgument(f"{self.prefix}{message}") from None

