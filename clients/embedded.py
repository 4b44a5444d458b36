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
import threading
import time
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from solver import limits
from solver.geometry import Board, Shape
from solver.patches import PATCHES, Patch
from solver.types import LookaheadResult, Objective, PlacementResult, PuzzleResult

from . import errors
from .inputs import (
    DEFAULT_LARGE_LOSS, DEFAULT_TIME_PER_MOVE, PatchSpec, check_seed, lookahead_inputs, move_inputs,
    placement_inputs, puzzle_inputs, review_inputs,
)
from .results import MoveSuggestions, searched_by_reasons

if TYPE_CHECKING:
    import engine
    from engine.review import MoveReview

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

    def warm_up(self) -> float:
        """Pay the one-time costs of the move search now (imports, caches; see
        :func:`warm_up`), not inside a thinking time; returns the seconds spent."""
        return warm_up()

    def suggest_move(self, state: Any, *, time_limit: float | None = None, top: int | None = None,
                     iterations: int | None = None) -> MoveSuggestions:
        """Rank the moves with the search player (engine.search), as the service does.

        The answer is a list of moves, best first, that also says how much the
        search did (``iterations``, ``searched``, ``wall_time``). The search's
        one-time costs are paid before its clock starts (:func:`warm_up`), so
        even the first call of a process spends its whole budget searching.
        """
        text, tl, top, iterations = move_inputs(state, time_limit, top, iterations)
        game = load_state(text)
        if tl is None:
            tl = limits.DEFAULT_SUGGEST_LIMIT if iterations is None else limits.DEFAULT_ITERATIONS_LIMIT
        if game.is_terminal():
            return MoveSuggestions([], iterations=0, searched=False, wall_time=0.0)
        warm_up()
        with _bad_input("bad game state: "):
            return run_search(game, time_limit=tl, top=top, seed=self.seed, iterations=iterations)

    def analyze_game(self, record: Any, *, iterations: int | None = None, time_per_move: float | None = None,
                     seed: int = 0, large_loss: float = DEFAULT_LARGE_LOSS) -> Iterator[MoveReview]:
        """Review a game move by move, as the service's AnalyzeGame does:
        yields one ``engine.review.MoveReview`` per action of ``record`` (the
        engine's game record, a dict or JSON text; it may be unfinished) as
        soon as it is computed. ``iterations`` per searched position gives a
        reproducible review (capped by ``time_per_move``, default 60 s);
        without it each move gets ``time_per_move`` seconds (default 0.2).
        Bad input raises :class:`clients.InvalidArgument` at once."""
        rec, iterations, tpm, seed, large = review_inputs(record, iterations, time_per_move, seed, large_loss)
        if tpm is None:
            tpm = limits.DEFAULT_ITERATIONS_LIMIT if iterations is not None else DEFAULT_TIME_PER_MOVE
        return self._reviews(rec, iterations, tpm, seed, large)

    def _reviews(self, record: dict, iterations: int | None, time_per_move: float, seed: int,
                 large_loss: float) -> Iterator[MoveReview]:
        from engine.review import review_game

        warm_up()
        with _bad_input("bad record: "):
            yield from review_game(record, time_limit=time_per_move, iterations=iterations, seed=seed,
                                   large_loss=large_loss)

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


_warm_lock = threading.Lock()
_warm_done = False


def warm_up() -> float:
    """The move search's one-time costs, paid once per process before any
    thinking clock starts: the engine's and the solver's imports (the
    lookahead placement and OR-Tools) and their first-use caches, through
    ``engine.search.warm_up()`` when the engine has it, else by a tiny
    search and one lookahead ranking. Returns the seconds it took (0 once
    done). Thread-safe."""
    global _warm_done
    if _warm_done:
        return 0.0
    with _warm_lock:
        if _warm_done:
            return 0.0
        t0 = time.perf_counter()
        import engine
        import engine.advisor
        import engine.search
        import solver

        solver.rank_placements  # noqa: B018 - imports the lookahead placement (and OR-Tools) now
        warm = getattr(engine.search, "warm_up", None)
        if warm is not None:
            warm()
        else:
            state: Any = engine.new_game(0)
            solver.rank_placements(0, state.available_patches()[0], state.circle[1:7], time_limit=0.2)
            engine.search.search_moves(state, iterations=20, top=1, seed=0)
        _warm_done = True
        return time.perf_counter() - t0


def run_search(state: engine.GameState, *, time_limit: float, top: int | None, seed: int,
               iterations: int | None) -> MoveSuggestions:
    """Rank the moves of ``state`` with the engine's search and say how much it
    searched: ``engine.search.search`` (its ``SearchResult``) when the engine
    has it; else the search player itself, whose ``last_iterations`` counts
    the root iterations it ran. ``time_limit`` is the thinking time, or with
    ``iterations`` a cap on the wall time."""
    import engine.search as es

    search = getattr(es, "search", None)
    if search is not None:
        r = search(state, time_limit=time_limit, top=top, seed=seed, stop=None, iterations=iterations)
        return MoveSuggestions(r.moves, iterations=int(r.iterations), searched=bool(r.searched),
                               wall_time=float(r.wall_time))
    # An engine without search(): the player search_moves() builds, kept to read its count.
    t0 = time.perf_counter()
    if iterations is None:
        from engine.advisor import SolverAdvisor

        player = es.SearchPlayer(time_limit=time_limit, seed=seed, advisor=SolverAdvisor(seed=seed), reuse=False)
    else:
        # A fixed budget places buys without time-limited solver calls, so answers repeat exactly.
        player = es.SearchPlayer(iterations=iterations, seed=seed, advisor=None, reuse=False, time_cap=time_limit)
    moves = player.search_moves(state, top=top)
    wall = time.perf_counter() - t0
    n = getattr(player, "last_iterations", None)
    if isinstance(n, int) and not isinstance(n, bool):
        searched = n > 0 and searched_by_reasons(moves)
    else:
        n, searched = None, searched_by_reasons(moves)
    return MoveSuggestions(moves, iterations=n, searched=searched, wall_time=wall)


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

