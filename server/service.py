"""The PlacementService handlers: validate, solve within the call's budget, answer.

Each handler takes ``(request, context, call)`` where ``call`` is the
:class:`server.app.CallInfo` it reports its solve status to. Handlers raise
:class:`server.errors.ServiceError` for every non-OK answer.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Callable

import grpc

import solver
from patchwork.v1 import placement_pb2 as pb
from solver import (BOARD_SIZE, BoardError, ShapeError, SolverInputError, StopToken,
                    UnknownPatchError, cells_of)

from . import convert
from .errors import BadRequest, FailedPrecondition, ServiceError
from .observe import Metrics

DEFAULT_SOLVE_LIMIT = 10.0      # SolvePlacement / SolvePuzzle, seconds
DEFAULT_SUGGEST_LIMIT = 1.0     # SuggestPlacement / SuggestMove, seconds
MAX_UPCOMING_COPIES = 128
# Keep this much of the caller's remaining deadline for building and sending
# the answer: 20 ms plus 10% of what is left, at most 100 ms.
MARGIN_FIXED, MARGIN_FRACTION, MARGIN_MAX = 0.02, 0.10, 0.10
MIN_SOLVE_TIME = 0.002
INT64_MAX = 2**63 - 1

_INPUT_ERRORS = (ShapeError, BoardError, UnknownPatchError, SolverInputError)


def deadline_budget(requested: float, remaining: float | None) -> tuple[float, bool]:
    """The solve's time limit and whether the call's deadline capped it.

    >>> deadline_budget(10.0, None)
    (10.0, False)
    >>> deadline_budget(10.0, 1.0)
    (0.9, True)
    >>> deadline_budget(0.5, 30.0)
    (0.5, False)
    """
    if remaining is None:
        return requested, False
    margin = min(MARGIN_MAX, MARGIN_FIXED + MARGIN_FRACTION * remaining)
    available = round(remaining - margin, 6)
    if available < MIN_SOLVE_TIME:
        raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED,
                           f"the call's deadline ({remaining * 1000:.0f} ms left) leaves no time to solve")
    if available < requested:
        return available, True
    return requested, False


class PlacementServicer:
    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def handler(self, name: str) -> Callable:
        return {
            "SolvePlacement": self.solve_placement,
            "SuggestPlacement": self.suggest_placement,
            "SuggestMove": self.suggest_move,
            "SolvePuzzle": self.solve_puzzle,
            "ListPatches": self.list_patches,
        }[name]

    @staticmethod
    def warm_up() -> None:
        """Import the solvers (OR-Tools takes 0.5-1.6 s) before the first call."""
        for name in ("solve", "rank_placements", "solve_puzzle"):
            try:
                getattr(solver, name)
            except Exception:  # noqa: BLE001 - a broken solver fails its calls, not the server
                pass
        try:
            import engine.suggest  # noqa: F401
        except Exception:  # noqa: BLE001
            pass

    # ------------------------------------------------------------ plumbing
    def _solve(self, context, call, requested: float, run: Callable[[float, StopToken], object],
               field: str):
        """Run ``run(time_limit, stop)`` under the call's deadline and cancellation."""
        limit, capped = deadline_budget(requested, context.time_remaining())
        token = StopToken()
        if not context.add_callback(token.set):  # already terminated
            token.set()
        if token.is_set() or not context.is_active():
            raise ServiceError(grpc.StatusCode.CANCELLED, "the call ended before the solve started")
        self.metrics.solving.inc()
        try:
            result = run(limit, token)
        except _INPUT_ERRORS as e:
            raise BadRequest(field, str(e)) from None
        finally:
            self.metrics.solving.dec()
        status = getattr(getattr(result, "status", None), "value", None)
        if status is not None:
            call.solve_status = status
            self.metrics.solves.labels(method=call.method, status=status).inc()
        # The call's termination callback only fires early on cancel/expiry.
        if token.is_set() or (capped and status in ("FEASIBLE", "UNKNOWN")):
            call.deadline_stop = True
            self.metrics.deadline_stops.labels(method=call.method).inc()
        return result

    # ------------------------------------------------------------ handlers
    def list_patches(self, request: pb.ListPatchesRequest, context, call) -> pb.ListPatchesResponse:
        return pb.ListPatchesResponse(patches=[convert.patch_message(p) for p in solver.PATCHES])

    def solve_placement(self, request: pb.SolvePlacementRequest, context, call) -> pb.SolvePlacementResponse:
        if not request.HasField("board"):
            raise BadRequest("board", "required")
        board = convert.board_mask(request.board)
        specs = convert.patch_specs(request.patches, "patches", allow_empty=False)
        objective = convert.objective(request.objective)
        limit = convert.time_limit(request, "time_limit", DEFAULT_SOLVE_LIMIT)
        seed = convert.seed(request.seed)
        cands = []
        for s in specs:
            count = s.count
            if not s.required:  # more copies than could ever fit only grow the model
                count = min(count, max(1, (BOARD_SIZE * BOARD_SIZE) // s.shape.area))
            cands.append(solver.Candidate(s.key, s.shape, count, s.required))
        index_of = {s.key: i for i, s in enumerate(specs)}

        def run(time_limit: float, stop: StopToken):
            return solver.solve(board, cands, objective, time_limit=time_limit, seed=seed, workers=1, stop=stop)

        result = self._solve(context, call, limit, run, "patches")
        after = board
        for p in result.placements:
            after |= p.mask
        response = pb.SolvePlacementResponse(
            status=convert.solve_status(result.status),
            placements=[convert.placed_patch(p, index_of) for p in result.placements],
            board_after=pb.Board(rows=convert.board_rows(after)),
            covered=result.objective, bound=result.bound,
            empty_before=result.empty_before, empty_after=result.empty_after,
            solve_time=convert.duration(result.wall_time),
        )
        if result.square7 is not None:
            response.square7.CopyFrom(convert.cell(result.square7))
        return response

    def suggest_placement(self, request: pb.SuggestPlacementRequest, context, call) -> pb.SuggestPlacementResponse:
        if not request.HasField("board"):
            raise BadRequest("board", "required")
        board = convert.board_mask(request.board)
        if not request.HasField("patch"):
            raise BadRequest("patch", "required: the patch to place now")
        spec = convert.patch_spec(request.patch, "patch")
        upcoming_specs = convert.patch_specs(request.upcoming, "upcoming", allow_empty=True)
        if sum(s.count for s in upcoming_specs) > MAX_UPCOMING_COPIES:
            raise BadRequest("upcoming", f"more than {MAX_UPCOMING_COPIES} patches in total")
        square7 = convert.objective(request.objective) is solver.Objective.SQUARE7
        top = convert.top(request.top)
        limit = convert.time_limit(request, "time_limit", DEFAULT_SUGGEST_LIMIT)
        seed = convert.seed(request.seed)

        # Candidates keep each patch's key (id, -1 for leather, or shape text) and count.
        patch = solver.Candidate(spec.key, spec.shape, 1, False)
        upcoming = [solver.Candidate(s.key, s.shape, s.count, False) for s in upcoming_specs]

        def run(time_limit: float, stop: StopToken):
            return solver.rank_placements(board, patch, upcoming, square7=square7,
                                          time_limit=time_limit, top=top, seed=seed, stop=stop)

        result = self._solve(context, call, limit, run, "patch")
        ranked = []
        for rp in result.ranked:
            placed = convert.placed_patch(rp.placement, {})
            msg = pb.RankedPlacement(placement=placed, value=rp.value, bound=rp.bound, proven=rp.proven)
            if rp.square7 is not None:
                msg.square7.CopyFrom(convert.cell(rp.square7))
            ranked.append(msg)
        return pb.SuggestPlacementResponse(status=convert.solve_status(result.status), ranked=ranked,
                                           solve_time=convert.duration(result.wall_time))

    def suggest_move(self, request: pb.SuggestMoveRequest, context, call) -> pb.SuggestMoveResponse:
        import engine
        from engine.search import search_moves

        text = request.state_json
        if not text:
            raise BadRequest("state_json", "required: a game state from GameState.to_json()")
        if len(text) > convert.MAX_STATE_JSON:
            raise BadRequest("state_json", f"{len(text)} characters; at most {convert.MAX_STATE_JSON}")
        top = convert.top(request.top)
        seed = convert.seed(request.seed)
        iterations = convert.iterations(request.iterations)
        # A fixed iteration budget runs to its end unless the client caps it.
        limit = convert.time_limit(request, "time_limit",
                                   DEFAULT_SUGGEST_LIMIT if iterations is None else convert.MAX_TIME_LIMIT)
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as e:
            raise BadRequest("state_json", f"not valid JSON: {e}") from None
        if not isinstance(data, dict):
            raise BadRequest("state_json", f"must be a JSON object, not {type(data).__name__}")
        try:
            state = engine.GameState.from_json(data)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as e:
            # StateError names the field path; the others are shapes of JSON
            # the engine's checks did not foresee, still the client's input.
            raise BadRequest("state_json", str(e) or type(e).__name__) from None
        if state.is_terminal():
            raise FailedPrecondition("state_json: the game is over (both time tokens on space 53); "
                                     "there is no move to suggest")
        player = state.current_player()

        def run(time_limit: float, stop: StopToken):
            t0 = time.perf_counter()
            # The search player (engine.search) ranks the moves; with a fixed
            # iteration budget the time limit only caps the wall time.
            moves = search_moves(state, time_limit=time_limit, top=top, seed=seed, stop=stop,
                                 iterations=iterations)
            return _Suggestions(list(moves), time.perf_counter() - t0)

        try:
            result = self._solve(context, call, limit, run, "state_json")
        except engine.IllegalActionError as e:
            raise FailedPrecondition(f"state_json: {e}") from None
        except engine.StateError as e:
            raise BadRequest("state_json", str(e)) from None
        suggestions = [pb.MoveSuggestion(move=move_message(s.action), value=float(s.value), reason=str(s.reason))
                       for s in result.moves]
        return pb.SuggestMoveResponse(suggestions=suggestions, player=player,
                                      solve_time=convert.duration(result.wall_time))

    def solve_puzzle(self, request: pb.SolvePuzzleRequest, context, call) -> pb.SolvePuzzleResponse:
        if not request.HasField("region"):
            raise BadRequest("region", "required")
        rows = convert.region_rows(request.region)
        shapes = convert.pieces(request.pieces)
        count = convert.puzzle_count_mode(request.mode)
        if request.max_tilings < 0 or request.max_tilings > convert.MAX_TILINGS:
            raise BadRequest("max_tilings", f"{request.max_tilings} out of range 0-{convert.MAX_TILINGS} (0 means 1)")
        max_tilings = request.max_tilings or 1
        limit = convert.time_limit(request, "time_limit", DEFAULT_SOLVE_LIMIT)
        texts = [s.to_str() for s in shapes]

        def run(time_limit: float, stop: StopToken):
            return solver.solve_puzzle(rows, texts, count=count, mirror=not request.no_mirror,
                                       use_all=not request.allow_unused, max_tilings=max_tilings,
                                       time_limit=time_limit, stop=stop)

        result = self._solve(context, call, limit, run, "pieces")
        width = result.width or len(rows[0])
        tilings = [pb.Tiling(placements=[_piece_message(p, texts, width) for p in tiling])
                   for tiling in result.tilings]
        response = pb.SolvePuzzleResponse(status=convert.solve_status(result.status), tilings=tilings,
                                          width=width, height=result.height or len(rows),
                                          solve_time=convert.duration(result.wall_time))
        # Counts are int64 on the wire; a count that large is only a lower bound anyway.
        if result.count is not None:
            response.count = min(result.count, INT64_MAX)
        if result.distinct is not None:
            response.distinct = min(result.distinct, INT64_MAX)
        return response


@dataclass(frozen=True)
class _Suggestions:
    """The engine's suggestions with their wall time (no CP-SAT status)."""

    moves: list
    wall_time: float


def _piece_message(p, texts: list[str], width: int) -> pb.PlacedPatch:
    """A puzzle piece placement; the key is the piece index or its shape text."""
    key = p.key
    if isinstance(key, int) and 0 <= key < len(texts):
        index = key
    else:
        index = texts.index(key) if key in texts else 0
    return pb.PlacedPatch(shape=texts[index], patch_index=index, orientation=p.orientation,
                          cells=[convert.cell(rc) for rc in sorted(cells_of(p.mask, p.width or width))])


def move_message(action) -> pb.Move:
    """An engine action as a :class:`pb.Move`, from its stable text form."""
    text = action.to_str()
    words = text.split()
    if words[0] == "buy":
        cells = [tuple(map(int, rc.split(","))) for rc in words[2].split(";")]
        return pb.Move(kind=pb.MOVE_KIND_BUY, patch_id=int(words[1]), text=text,
                       cells=[convert.cell(rc) for rc in cells])
    if words[0] == "leather":
        r, c = map(int, words[1].split(","))
        return pb.Move(kind=pb.MOVE_KIND_LEATHER, text=text, cells=[pb.Cell(row=r, col=c)])
    return pb.Move(kind=pb.MOVE_KIND_ADVANCE, text=text)
