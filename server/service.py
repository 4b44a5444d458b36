"""The PlacementService methods: validate, run as a job in a worker process, answer.

Each method takes ``(request, call)`` where ``call`` is the transport-neutral
:class:`server.core.Call`. Validation happens here, in the front, so bad
input never occupies a worker; the solve itself is a job that
:meth:`server.core.ServiceCore.run_job` runs in a worker process. Methods
raise :class:`server.errors.ServiceError` for every non-OK answer.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterator

import solver
from patchwork.v1 import placement_pb2 as pb
from solver import BOARD_SIZE, cells_of
from solver.limits import (DEFAULT_ITERATIONS_LIMIT, DEFAULT_LARGE_LOSS, DEFAULT_REVIEW_LIMIT,
                           DEFAULT_SOLVE_LIMIT, DEFAULT_SUGGEST_LIMIT, MAX_LARGE_LOSS, MAX_RECORD_ACTIONS,
                           MAX_UPCOMING_COPIES)

from . import convert
from .core import Call, ServiceCore
from .errors import BadRequest, FailedPrecondition

INT64_MAX = 2**63 - 1


def parse_state_json(text: str, field: str = "state_json"):
    """The engine's :class:`GameState` from the client's JSON text; BadRequest naming ``field``.

    Messages never carry internal exception text: the engine's StateError
    names the path inside the state; anything else the engine trips over is
    "not a valid game state".
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise BadRequest(field, f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except RecursionError:
        raise BadRequest(field, "not valid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise BadRequest(field, f"must be a JSON object, not {type(data).__name__}")
    return engine_state(data, field)


def engine_state(data: dict, field: str):
    """``engine.GameState.from_json(data)``, its errors as BadRequest naming ``field``."""
    import engine

    try:
        return engine.GameState.from_json(data)
    except engine.StateError as e:
        raise BadRequest(field, str(e)) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError, OverflowError):
        raise BadRequest(field, "not a valid game state (see the state JSON schema in docs/engine.md)") from None


class PlacementServicer:
    def __init__(self, core: ServiceCore) -> None:
        self.core = core

    def handler(self, name: str) -> Callable[[Any, Call], Any]:
        return {
            "SolvePlacement": self.solve_placement,
            "SuggestPlacement": self.suggest_placement,
            "SuggestMove": self.suggest_move,
            "SolvePuzzle": self.solve_puzzle,
            "ListPatches": self.list_patches,
            "AnalyzeGame": self.analyze_game,
        }[name]

    # ------------------------------------------------------------ handlers
    def list_patches(self, request: pb.ListPatchesRequest, call: Call) -> pb.ListPatchesResponse:
        return pb.ListPatchesResponse(patches=[convert.patch_message(p) for p in solver.PATCHES])

    def solve_placement(self, request: pb.SolvePlacementRequest, call: Call) -> pb.SolvePlacementResponse:
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
        result = self.core.run_job(call, "solve", {"board": board, "candidates": cands, "objective": objective,
                                                   "seed": seed}, limit, "patches", fast_first=True)
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

    def suggest_placement(self, request: pb.SuggestPlacementRequest, call: Call) -> pb.SuggestPlacementResponse:
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

        result = self.core.run_job(call, "rank", {"board": board, "patch": patch, "upcoming": upcoming,
                                                  "square7": square7, "top": top, "seed": seed}, limit, "patch")
        ranked = []
        for rp in result.ranked:
            placed = convert.placed_patch(rp.placement, {})
            msg = pb.RankedPlacement(placement=placed, value=rp.value, bound=rp.bound, proven=rp.proven)
            if rp.square7 is not None:
                msg.square7.CopyFrom(convert.cell(rp.square7))
            ranked.append(msg)
        return pb.SuggestPlacementResponse(status=convert.solve_status(result.status), ranked=ranked,
                                           solve_time=convert.duration(result.wall_time))

    def suggest_move(self, request: pb.SuggestMoveRequest, call: Call) -> pb.SuggestMoveResponse:
        if request.HasField("state"):
            field = "state"
        elif request.state_json:
            field = "state_json"
            if len(request.state_json) > convert.MAX_STATE_JSON:
                raise BadRequest("state_json", f"{len(request.state_json)} characters; "
                                               f"at most {convert.MAX_STATE_JSON}")
        else:
            raise BadRequest("state", "required: the position to move in (GameState)")
        top = convert.top(request.top)
        seed = convert.seed(request.seed)
        iterations = convert.iterations(request.iterations)
        # A fixed iteration budget runs to its end unless the client caps it.
        limit = convert.time_limit(request, "time_limit",
                                   DEFAULT_SUGGEST_LIMIT if iterations is None else DEFAULT_ITERATIONS_LIMIT)
        if field == "state":
            state = engine_state(convert.game_state_json(request.state), "state")
        else:
            state = parse_state_json(request.state_json)
        if state.is_terminal():
            raise FailedPrecondition(f"{field}: the game is over (both time tokens on space 53); "
                                     "there is no move to suggest")
        player = state.current_player()
        # The search player (engine.search) ranks the moves in a worker; with
        # a fixed iteration budget the time limit only caps the wall time.
        result = self.core.run_job(call, "moves", {"state": state, "top": top, "seed": seed,
                                                   "iterations": iterations}, limit, field)
        suggestions = [pb.MoveSuggestion(move=move_message(s.action), value=float(s.value), reason=str(s.reason))
                       for s in result.moves]
        call.record.extra.update(iterations=result.iterations, searched=result.searched)
        return pb.SuggestMoveResponse(suggestions=suggestions, player=player, iterations=result.iterations,
                                      searched=result.searched, solve_time=convert.duration(result.wall_time))

    def analyze_game(self, request: pb.AnalyzeGameRequest, call: Call) -> Iterator[pb.AnalyzeGameResponse]:
        """One AnalyzeGameResponse per move of the record, each from its own job (so calls interleave)."""
        if not request.HasField("record"):
            raise BadRequest("record", "required: the game to review (GameRecord)")
        plies = record_plies(request.record, "record")
        iterations = convert.iterations(request.iterations)
        limit = convert.time_limit(request, "time_per_move",
                                   DEFAULT_REVIEW_LIMIT if iterations is None else DEFAULT_ITERATIONS_LIMIT)
        seed = convert.seed(request.seed)
        large = request.large_loss or DEFAULT_LARGE_LOSS
        if not 0 < large <= MAX_LARGE_LOSS:
            raise BadRequest("large_loss", f"{large:g}; must be in (0, {MAX_LARGE_LOSS:g}] "
                                           f"(0 means {DEFAULT_LARGE_LOSS:g})")
        for ply, (state, action) in enumerate(plies):
            # A move that is not the best takes two searches, each of up to `limit`
            # (as engine.review does in-process): the job gets twice the limit.
            review = self.core.run_job(call, "review", {"state": state, "action": action, "ply": ply,
                                                        "iterations": iterations, "seed": seed,
                                                        "search_limit": limit, "large_loss": large},
                                       2 * limit, f"record.actions[{ply}]")
            yield pb.AnalyzeGameResponse(ply=ply, player=review.player, played=move_message(review.played),
                                         best=move_message(review.best), value_played=review.value_played,
                                         value_best=review.value_best, loss=review.loss, large=review.large)

    def solve_puzzle(self, request: pb.SolvePuzzleRequest, call: Call) -> pb.SolvePuzzleResponse:
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
        result = self.core.run_job(call, "puzzle", {"rows": rows, "pieces": texts, "count": count,
                                                    "mirror": not request.no_mirror,
                                                    "use_all": not request.allow_unused,
                                                    "max_tilings": max_tilings}, limit, "pieces")
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


def _piece_message(p, texts: list[str], width: int) -> pb.PlacedPatch:
    """A puzzle piece placement; the key is the piece index or its shape text."""
    key = p.key
    if isinstance(key, int) and 0 <= key < len(texts):
        index = key
    else:
        index = texts.index(key) if key in texts else 0
    return pb.PlacedPatch(shape=texts[index], patch_index=index, orientation=p.orientation,
                          cells=[convert.cell(rc) for rc in sorted(cells_of(p.mask, p.width or width))])


def record_plies(record: pb.GameRecord, field: str) -> list[tuple[Any, Any]]:
    """(state before, action) for every move of a record, replayed and checked here in the front."""
    import engine

    edition = convert.edition(record.edition, f"{field}.edition")
    if len(record.actions) > MAX_RECORD_ACTIONS:
        raise BadRequest(f"{field}.actions", f"{len(record.actions)} moves; at most {MAX_RECORD_ACTIONS}")
    if not record.actions:
        raise BadRequest(f"{field}.actions", "no moves to review")
    try:
        state = engine.GameState.from_circle(list(record.circle), edition)
    except (ValueError, TypeError) as e:
        raise BadRequest(f"{field}.circle", str(e)) from None
    plies = []
    for i, text in enumerate(record.actions):
        if state.is_terminal():
            raise BadRequest(f"{field}.actions[{i}]", "the game is already over before this move")
        try:
            action = engine.parse_action(text)
            before = state.clone()
            state.apply_action(action)
        except ValueError as e:  # ActionSyntaxError, IllegalActionError
            raise BadRequest(f"{field}.actions[{i}]", str(e)) from None
        plies.append((before, action))
    return plies


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
