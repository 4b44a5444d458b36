"""The PlacementService methods: validate, run as a job in a worker process, answer.

Each unary RPC is two pure functions in :data:`RPCS`: ``plan(request,
bounds) -> Plan`` reads and checks the request (here, in the front, so bad
input never occupies a worker) into a typed job, its time limit and the
field its errors name; ``answer(request, plan, result) -> (response, log
fields)`` builds the reply. A server-streaming RPC whose one job yields
(:data:`STREAMS`: ``AnalyzePosition``, ``SolvePosition``) is the same two functions, its job a
:class:`server.jobs.StreamJob` and ``answer`` called for each update.
:class:`PlacementServicer` is a table over them:
it runs each plan's job through its core (``run_job``, ``stream_job``: a
worker process, or the caller's own for the embedded client) and answers; handlers take
``(request, call)`` where ``call`` is the transport-neutral
:class:`server.core.Call`, and raise :class:`server.errors.ServiceError`
for every non-OK answer.

>>> plan = RPCS["SuggestPlacement"].plan(pb.SuggestPlacementRequest(
...     board=pb.Board(rows=["." * 9] * 9), patch=pb.PatchRef(id=1), objective=pb.OBJECTIVE_COVER), Bounds())
>>> type(plan.job).__name__, plan.field
('RankJob', 'patch')
>>> RPCS["SuggestPlacement"].plan(pb.SuggestPlacementRequest(), Bounds())
Traceback (most recent call last):
...
quiltsolve.server.errors.BadRequest: board: required
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterator, Protocol

from quiltsolve import engine
from quiltsolve import solver
import quiltsolve.solver.puzzle
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.solver import BOARD_SIZE, BoardError, ShapeError, SolverInputError, cells_of
from quiltsolve.solver.limits import (DEFAULT_ITERATIONS_LIMIT, DEFAULT_LARGE_LOSS, DEFAULT_REPORT_INTERVAL,
                           DEFAULT_REVIEW_LIMIT, DEFAULT_SOLVE_LIMIT, DEFAULT_SUGGEST_LIMIT, MAX_ANALYSIS_TIME,
                           MAX_LARGE_LOSS, MAX_RECORD_ACTIONS, MAX_UPCOMING_COPIES)
from quiltsolve.solver.limits import (DEFAULT_SOLVE_POSITION_LIMIT, DEFAULT_SOLVE_TABLE_BYTES, MAX_SOLVE_POSITION_TIME,
                                      MIN_SOLVE_TABLE_MB)

from quiltsolve.engine.analysis import Analysis, AnalyzedMove
from quiltsolve.engine.review import BLUNDER, INACCURACY, MISTAKE, MoveReview, player_accuracy
from quiltsolve.engine.moves import MovesResult
from quiltsolve.engine.solve import SolveUpdate
from quiltsolve.engine.suggest import MoveSuggestion

from . import convert, positions, records
from .core import Call
from .errors import GAME_OVER, BadRequest, FailedPrecondition, TooLarge
from .jobs import (AnalyzeJob, GenerateJob, Job, MovesJob, PuzzleJob, R, RankJob, ReviewJob, SolveJob, SolvePositionJob,
                   StreamJob, U)

INT64_MAX = 2**63 - 1


class JobRunner(Protocol):
    """What runs a job for a call: the service's worker processes (:class:`server.core.ServiceCore`)
    or the caller's own process (:class:`server.core.InProcessCore`, the embedded client)."""

    @property
    def table_bytes(self) -> int:
        """The bound on a frontier count's table (the server's ``--table-bytes``)."""

    @property
    def table_bytes_setting(self) -> str:
        """Where that bound is set, for the refusal's words (the server's ``--table-bytes``, or the embedded
        client's ``table_bytes``)."""

    def run_job(self, call: Call, job: Job[R], requested: float, field: str, fast_first: bool = False) -> R: ...

    def stream_job(self, call: Call, job: StreamJob[U], requested: float, field: str) -> Iterator[U]: ...


def request_state(request: pb.SuggestMoveRequest | pb.AnalyzePositionRequest | pb.SolvePositionRequest
                  ) -> tuple[engine.GameState, str]:
    """The position of a SuggestMove (AnalyzePosition, SolvePosition) request and the field it came in (``state``, or the deprecated
    ``state_json``); BadRequest naming the field."""
    try:
        if request.HasField("state"):
            return positions.from_message(request.state, "state"), "state"
        if request.state_json:
            return positions.from_state_json(request.state_json, "state_json"), "state_json"
    except positions.PositionError as e:
        raise e.as_bad_request() from None
    raise BadRequest("state", "required: the position to move in (GameState)")


def suggestion_message(s: MoveSuggestion) -> pb.MoveSuggestion:
    """A ranked move on the wire: its win chance (also in the deprecated ``value``) and margin."""
    chance = float(s.win_chance) if s.win_chance is not None else 0.0
    out = pb.MoveSuggestion(move=positions.move_message(s.action), win_chance=chance, value=chance,
                            reason=str(s.reason))
    if s.margin_buttons is not None:
        out.margin_buttons = float(s.margin_buttons)
    if s.proven_margin is not None:
        out.proven_margin = int(s.proven_margin)
    return out


LABEL_MESSAGES = {None: pb.MOVE_LABEL_GOOD, INACCURACY: pb.MOVE_LABEL_INACCURACY, MISTAKE: pb.MOVE_LABEL_MISTAKE,
                  BLUNDER: pb.MOVE_LABEL_BLUNDER}
"""``engine.review`` labels (None: no label) as ``MoveLabel`` values."""


def review_message(review: MoveReview, mover_accuracy: float | None = None) -> pb.AnalyzeGameResponse:
    """One reviewed move on the wire, with its label and the mover's accuracy so far (``mover_accuracy``;
    None: this move's alone); the proven margins and the exact loss in points only where the endgame
    solver proved both moves' values."""
    accuracy = mover_accuracy if mover_accuracy is not None else player_accuracy([review.loss])
    out = pb.AnalyzeGameResponse(ply=review.ply, player=review.player, played=positions.move_message(review.played),
                                 best=positions.move_message(review.best), value_played=review.value_played,
                                 value_best=review.value_best, loss=review.loss, large=review.large,
                                 label=LABEL_MESSAGES[review.label], player_accuracy=accuracy)
    if review.loss_points is not None:
        out.loss_points = int(review.loss_points)
    if review.margin_played is not None:
        out.margin_played = int(review.margin_played)
    if review.margin_best is not None:
        out.margin_best = int(review.margin_best)
    return out


def moves_job(state: engine.GameState, field: str, *, top: int | None, seed: int,
              iterations: int | None) -> MovesJob:
    """The search job for a position; FAILED_PRECONDITION when the game is over."""
    if state.is_terminal():
        raise FailedPrecondition(f"{field}: {GAME_OVER}; there is no move to suggest")
    return MovesJob(state=state, top=top, seed=seed, iterations=iterations)


# ---------------------------------------------------------------- the RPCs: plan, then answer

@dataclass(frozen=True)
class Bounds:
    """What the server, not the request, sets for a plan: a frontier count's table bound."""

    table_bytes: int = solver.puzzle.DEFAULT_TABLE_BYTES
    table_bytes_setting: str = "the server's --table-bytes"


@dataclass(frozen=True)
class Plan(Generic[R]):
    """A checked request as work: the job, its time limit, the field its input errors name, whether it
    tries the fast lane first, and ``notes``, what the answer needs from reading the request."""

    job: Job[R]
    limit: float
    field: str
    fast_first: bool = False
    notes: Any = None


@dataclass(frozen=True)
class Rpc(Generic[R]):
    """One unary RPC as two pure functions: ``plan(request, bounds) -> Plan`` (validation; BadRequest
    naming the field) and ``answer(request, plan, result) -> (response, log fields)``.

    ``front``: the plan is cheap (bounded by the request's size, never a position or a record to
    read) and its job may be answered in the front (:meth:`server.core.ServiceCore.try_inline`), so
    an event-loop face (the gRPC face) plans it, and tries it, on the loop itself."""

    plan: Callable[[Any, Bounds], Plan[R]]
    answer: Callable[[Any, Plan[R], R], tuple[Any, dict[str, Any]]]
    front: bool = False


@dataclass(frozen=True)
class FrontStep:
    """What a method's front step did: the ``response`` when it answered, else ``rest``, the rest of
    the call's work (it may block: run it in a thread), which returns the response."""

    response: Any = None
    rest: Callable[[], Any] | None = None


def plan_solve_placement(request: pb.SolvePlacementRequest, bounds: Bounds) -> Plan[solver.PlacementResult]:
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
    job = SolveJob(board=board, candidates=tuple(cands), objective=objective, seed=seed)
    return Plan(job, limit, "patches", fast_first=True, notes=(board, index_of))


def answer_solve_placement(request: pb.SolvePlacementRequest, plan: Plan[solver.PlacementResult],
                           result: solver.PlacementResult) -> tuple[pb.SolvePlacementResponse, dict[str, Any]]:
    board, index_of = plan.notes
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
    return response, {}


def plan_suggest_placement(request: pb.SuggestPlacementRequest, bounds: Bounds) -> Plan[solver.LookaheadResult]:
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
    job = RankJob(board=board, patch=patch, upcoming=tuple(upcoming), square7=square7, top=top, seed=seed)
    return Plan(job, limit, "patch")


def answer_suggest_placement(request: pb.SuggestPlacementRequest, plan: Plan[solver.LookaheadResult],
                             result: solver.LookaheadResult) -> tuple[pb.SuggestPlacementResponse, dict[str, Any]]:
    ranked = []
    for rp in result.ranked:
        placed = convert.placed_patch(rp.placement, {})
        msg = pb.RankedPlacement(placement=placed, value=rp.value, bound=rp.bound, proven=rp.proven)
        if rp.square7 is not None:
            msg.square7.CopyFrom(convert.cell(rp.square7))
        ranked.append(msg)
    return pb.SuggestPlacementResponse(status=convert.solve_status(result.status), ranked=ranked,
                                       solve_time=convert.duration(result.wall_time)), {}


def plan_suggest_move(request: pb.SuggestMoveRequest, bounds: Bounds) -> Plan[MovesResult]:
    top = convert.top(request.top)
    seed = convert.seed(request.seed)
    iterations = convert.iterations(request.iterations)
    # A fixed iteration budget runs to its end unless the client caps it.
    limit = convert.time_limit(request, "time_limit",
                               DEFAULT_SUGGEST_LIMIT if iterations is None else DEFAULT_ITERATIONS_LIMIT)
    state, field = request_state(request)
    # The search player (engine.players.search) ranks the moves in a worker; with
    # a fixed iteration budget the time limit only caps the wall time.
    return Plan(moves_job(state, field, top=top, seed=seed, iterations=iterations), limit, field,
                notes=state.current_player())


def answer_suggest_move(request: pb.SuggestMoveRequest, plan: Plan[MovesResult],
                        result: MovesResult) -> tuple[pb.SuggestMoveResponse, dict[str, Any]]:
    suggestions = [suggestion_message(s) for s in result.moves]
    proven = bool(result.proven) and all(s.proven_margin is not None for s in result.moves)
    response = pb.SuggestMoveResponse(suggestions=suggestions, player=plan.notes, iterations=result.iterations,
                                      searched=result.searched, solve_time=convert.duration(result.wall_time),
                                      proven=proven)
    return response, {"iterations": result.iterations, "searched": result.searched, "proven": proven}


def plan_analyze_position(request: pb.AnalyzePositionRequest, bounds: Bounds) -> Plan[Analysis]:
    """SuggestMove's checks and budgets (the same fields, limits and defaults), or ``until_cancelled``:
    then the time limit is only a cap, :data:`~solver.limits.MAX_ANALYSIS_TIME`."""
    top = convert.top(request.top)
    seed = convert.seed(request.seed)
    iterations = convert.iterations(request.iterations)
    if request.until_cancelled:
        for name, given in (("iterations", iterations is not None), ("time_limit", request.HasField("time_limit"))):
            if given:
                raise BadRequest("until_cancelled", f"an analysis until cancelled takes no {name}; "
                                                    f"give one budget: iterations, time_limit or until_cancelled")
        limit = MAX_ANALYSIS_TIME
    else:
        limit = convert.time_limit(request, "time_limit",
                                   DEFAULT_SUGGEST_LIMIT if iterations is None else DEFAULT_ITERATIONS_LIMIT)
    interval = convert.report_interval(request, "report_interval", DEFAULT_REPORT_INTERVAL)
    state, field = request_state(request)
    moves = moves_job(state, field, top=top, seed=seed, iterations=iterations)  # the game-over refusal
    job = AnalyzeJob(state=moves.state, top=top, seed=seed, iterations=iterations,
                     until_cancelled=request.until_cancelled, report_interval=interval)
    return Plan(job, limit, field, notes=state.current_player())


def analyzed_move_message(m: AnalyzedMove) -> pb.AnalyzedMove:
    """A move of an analysis on the wire: as a MoveSuggestion, with its visits, mean margin and line."""
    out = pb.AnalyzedMove(move=positions.move_message(m.action), win_chance=float(m.win_chance), reason=str(m.reason),
                          visits=m.visits, principal_variation=[positions.move_message(a) for a in m.line])
    if m.mean_margin is not None:
        out.mean_margin = float(m.mean_margin)
    if m.proven_margin is not None:
        out.proven_margin = int(m.proven_margin)
    return out


def answer_analyze_position(request: pb.AnalyzePositionRequest, plan: Plan[Analysis],
                            update: Analysis) -> tuple[pb.AnalyzePositionUpdate, dict[str, Any]]:
    out = pb.AnalyzePositionUpdate(moves=[analyzed_move_message(m) for m in update.moves], player=plan.notes,
                                   iterations=update.iterations, searched=update.searched, proven=update.proven,
                                   final=update.final, elapsed=convert.duration(update.elapsed))
    if update.value is not None:
        out.proven_margin = int(update.value)
    return out, {"iterations": update.iterations, "searched": update.searched, "proven": update.proven}


def solve_table_bytes(table_mb: int, bounds: Bounds) -> int:
    """A SolvePosition's table in bytes from its ``table_mb``: 0 → the default
    (:data:`~solver.limits.DEFAULT_SOLVE_TABLE_BYTES`, or the server's bound when lower); below
    :data:`~solver.limits.MIN_SOLVE_TABLE_MB`, INVALID_ARGUMENT; more than the server's bound (``bounds``: its
    ``--table-bytes``), RESOURCE_EXHAUSTED (the client cannot raise the bound; a smaller table can do).

    >>> solve_table_bytes(0, Bounds(2**30)) == DEFAULT_SOLVE_TABLE_BYTES, solve_table_bytes(0, Bounds(2**21))
    (True, 2097152)
    >>> solve_table_bytes(2048, Bounds(2**30))
    Traceback (most recent call last):
    ...
    quiltsolve.server.errors.TooLarge: a table of 2048 MiB (table_mb) is more than the bound of 1024 MiB (the server's --table-bytes); ask for less, or 0 for the default
    """
    if table_mb == 0:
        return min(DEFAULT_SOLVE_TABLE_BYTES, bounds.table_bytes)
    if table_mb < MIN_SOLVE_TABLE_MB:
        raise BadRequest("table_mb", f"{table_mb}; must be at least {MIN_SOLVE_TABLE_MB} (0 means "
                                     f"{DEFAULT_SOLVE_TABLE_BYTES // 2**20})")
    if table_mb * 2**20 > bounds.table_bytes:
        raise TooLarge(f"a table of {table_mb} MiB (table_mb) is more than the bound of "
                       f"{bounds.table_bytes / 2**20:g} MiB ({bounds.table_bytes_setting}); ask for less, or 0 for "
                       f"the default")
    return table_mb * 2**20


def plan_solve_position(request: pb.SolvePositionRequest, bounds: Bounds) -> Plan[SolveUpdate]:
    """A position's exact solve: its time limit (at most :data:`~solver.limits.MAX_SOLVE_POSITION_TIME`), the
    report interval (AnalyzePosition's rule), the table's size (:func:`solve_table_bytes`), the position."""
    limit = convert.time_limit(request, "time_limit", DEFAULT_SOLVE_POSITION_LIMIT, MAX_SOLVE_POSITION_TIME)
    interval = convert.report_interval(request, "report_interval", DEFAULT_REPORT_INTERVAL)
    table = solve_table_bytes(request.table_mb, bounds)
    state, field = request_state(request)
    return Plan(SolvePositionJob(state=state, table_bytes=table, report_interval=interval), limit, field)


SOLVE_REASONS = {"running": pb.SOLVE_REASON_RUNNING, "solved": pb.SOLVE_REASON_SOLVED,
                 "time": pb.SOLVE_REASON_TIME_LIMIT, "stopped": pb.SOLVE_REASON_STOPPED,
                 "terminal": pb.SOLVE_REASON_GAME_OVER}
"""``engine.solve.SolveUpdate.reason`` as ``SolveReason`` values."""


def solve_update_message(update: SolveUpdate) -> pb.SolvePositionUpdate:
    """An update of a position's solve on the wire."""
    out = pb.SolvePositionUpdate(player=update.player, lower=update.lower, upper=update.upper,
                                 line=[positions.move_message(a) for a in update.line], nodes=update.nodes,
                                 elapsed=convert.duration(update.elapsed), final=update.final,
                                 reason=SOLVE_REASONS[update.reason], probes=update.probes,
                                 table_full=update.table_full, table_bytes=update.table_bytes)
    if update.value is not None:
        out.value = update.value
    return out


def answer_solve_position(request: pb.SolvePositionRequest, plan: Plan[SolveUpdate],
                          update: SolveUpdate) -> tuple[pb.SolvePositionUpdate, dict[str, Any]]:
    return solve_update_message(update), {"lower": update.lower, "upper": update.upper, "nodes": update.nodes,
                                          "solve_reason": update.reason}


def plan_solve_puzzle(request: pb.SolvePuzzleRequest, bounds: Bounds) -> Plan[solver.PuzzleResult]:
    job, limit = puzzle_job(request, bounds.table_bytes)
    return Plan(job, limit, "method" if job.method == "frontier" else "pieces")


def answer_solve_puzzle(request: pb.SolvePuzzleRequest, plan: Plan[solver.PuzzleResult],
                        result: solver.PuzzleResult) -> tuple[pb.SolvePuzzleResponse, dict[str, Any]]:
    job = plan.job
    assert isinstance(job, PuzzleJob)
    rows, texts = list(job.rows), list(job.pieces) + list(job.unlimited)  # patch_index: pieces, then unlimited
    width = result.width or len(rows[0])
    tilings = [pb.Tiling(placements=[_piece_message(p, texts, width) for p in tiling])
               for tiling in result.tilings]
    response = pb.SolvePuzzleResponse(status=convert.solve_status(result.status), tilings=tilings,
                                      width=width, height=result.height or len(rows),
                                      solve_time=convert.duration(result.wall_time),
                                      method=convert.method_value(result.method))
    if job.count:
        set_count(response, result.count or 0, result.distinct or 0)
    return response, {"puzzle_method": result.method}  # "method" is the RPC's name in the log line


def plan_generate_puzzle(request: pb.GeneratePuzzleRequest,
                         bounds: Bounds) -> Plan[quiltsolve.solver.puzzle.GeneratedPuzzle]:
    job, limit, field = generate_job(request)
    return Plan(job, limit, field)


def answer_generate_puzzle(request: pb.GeneratePuzzleRequest, plan: Plan[quiltsolve.solver.puzzle.GeneratedPuzzle],
                           result: quiltsolve.solver.puzzle.GeneratedPuzzle
                           ) -> tuple[pb.GeneratePuzzleResponse, dict[str, Any]]:
    texts = list(result.pieces)
    width = result.width
    response = pb.GeneratePuzzleResponse(
        status=convert.solve_status(result.status), pieces=texts,
        count=min(result.count, INT64_MAX), distinct=min(result.distinct, INT64_MAX),
        difficulty_nodes=min(result.nodes, INT64_MAX), difficulty=convert.difficulty_value(result.difficulty),
        width=width, height=result.height, attempts=result.attempts,
        solve_time=convert.duration(result.wall_time))
    if result.rows:  # none when time ran out
        response.region.rows.extend(result.rows)
    if result.solution:
        response.solution.CopyFrom(pb.Tiling(placements=[_piece_message(p, texts, width)
                                                         for p in result.solution]))
    return response, {"attempts": result.attempts}


RPCS: dict[str, Rpc[Any]] = {
    "SolvePlacement": Rpc(plan_solve_placement, answer_solve_placement, front=True),
    "SuggestPlacement": Rpc(plan_suggest_placement, answer_suggest_placement),
    "SuggestMove": Rpc(plan_suggest_move, answer_suggest_move),
    "SolvePuzzle": Rpc(plan_solve_puzzle, answer_solve_puzzle),
    "GeneratePuzzle": Rpc(plan_generate_puzzle, answer_generate_puzzle),
}
"""The unary RPCs that run a job, by name: the servicer runs each as plan → job → answer."""

STREAMS: dict[str, Rpc[Any]] = {
    "AnalyzePosition": Rpc(plan_analyze_position, answer_analyze_position),
    "SolvePosition": Rpc(plan_solve_position, answer_solve_position),
}
"""The server-streaming RPCs whose one job yields (a :class:`server.jobs.StreamJob`), by name: the servicer
runs each as plan → job → an answer per update (``answer(request, plan, update)``), the last one's log fields
kept for the call's log line."""


class PlacementServicer:
    """The service: a table over the RPCs (:data:`RPCS`, the streamed :data:`STREAMS`, plus ListPatches, which
    runs no job, and the streamed AnalyzeGame, a job a move)."""

    def __init__(self, core: JobRunner) -> None:
        self.core = core
        self.bounds = Bounds(core.table_bytes, core.table_bytes_setting)

    def handler(self, name: str) -> Callable[[Any, Call], Any]:
        if name in RPCS:
            rpc = RPCS[name]
            return lambda request, call: self.run(rpc, request, call)
        if name in STREAMS:
            stream = STREAMS[name]
            return lambda request, call: self.stream(stream, request, call)
        return {"ListPatches": self.list_patches, "AnalyzeGame": self.analyze_game}[name]

    def front(self, name: str) -> Callable[[Any, Call], FrontStep] | None:
        """The method's front step, for a face that serves calls on an event loop (the gRPC face):
        work that never blocks and takes about a millisecond at most, run on the loop itself. None: the
        whole method may block (it runs in a thread).

        SolvePlacement (an :class:`Rpc` with ``front``) is planned there, and its job tried in the
        front (:meth:`server.core.ServiceCore.try_inline`): a tiny one is answered at once, with the
        answer its worker would give; any other hands back the rest (:class:`FrontStep`). ListPatches
        is answered there."""
        if name == "ListPatches":
            return lambda request, call: FrontStep(self.list_patches(request, call))
        rpc = RPCS.get(name)
        if rpc is None or not rpc.front:
            return None
        return lambda request, call: self.front_step(rpc, request, call)

    def front_step(self, rpc: Rpc[R], request: Any, call: Call) -> FrontStep:
        """An RPC's plan and its job's try in the front (when the core has one): the answer, or the rest."""
        plan = rpc.plan(request, self.bounds)
        try_inline = getattr(self.core, "try_inline", None)
        if plan.fast_first and try_inline is not None:
            result = try_inline(call, plan.job, plan.limit)
            if result is not None:
                return FrontStep(self._answer(rpc, request, call, plan, result))
        return FrontStep(rest=lambda: self._finish(rpc, request, call, plan))

    def run(self, rpc: Rpc[R], request: Any, call: Call) -> Any:
        """One unary RPC: its plan, the job (tried in the front, else on a worker), its answer (and the
        answer's log fields)."""
        step = self.front_step(rpc, request, call)
        return step.response if step.rest is None else step.rest()

    def _finish(self, rpc: Rpc[R], request: Any, call: Call, plan: Plan[R]) -> Any:
        try:
            result = self.core.run_job(call, plan.job, plan.limit, plan.field, fast_first=plan.fast_first)
        except TooLarge:  # the solver's words speak to its caller; the client cannot raise the bound
            if not isinstance(plan.job, PuzzleJob):
                raise
            raise TooLarge(table_full(plan.job.table_bytes, self.bounds.table_bytes_setting)) from None
        return self._answer(rpc, request, call, plan, result)

    @staticmethod
    def _answer(rpc: Rpc[Any], request: Any, call: Call, plan: Plan[Any], result: Any) -> Any:
        response, logged = rpc.answer(request, plan, result)
        call.record.extra.update(logged)
        return response

    def stream(self, rpc: Rpc[Any], request: Any, call: Call) -> Iterator[Any]:
        """One server-streaming RPC of :data:`STREAMS`: its plan (checked before the first update), its
        streaming job on a worker, an answer per update."""
        plan = rpc.plan(request, self.bounds)
        assert isinstance(plan.job, StreamJob)
        for update in self.core.stream_job(call, plan.job, plan.limit, plan.field):
            response, logged = rpc.answer(request, plan, update)
            call.record.extra.update(logged)
            yield response

    # The RPCs by their method names, as the clients' tests and the embedded client call them.
    def solve_placement(self, request: pb.SolvePlacementRequest, call: Call) -> pb.SolvePlacementResponse:
        return self.run(RPCS["SolvePlacement"], request, call)

    def suggest_placement(self, request: pb.SuggestPlacementRequest, call: Call) -> pb.SuggestPlacementResponse:
        return self.run(RPCS["SuggestPlacement"], request, call)

    def suggest_move(self, request: pb.SuggestMoveRequest, call: Call) -> pb.SuggestMoveResponse:
        return self.run(RPCS["SuggestMove"], request, call)

    def solve_puzzle(self, request: pb.SolvePuzzleRequest, call: Call) -> pb.SolvePuzzleResponse:
        return self.run(RPCS["SolvePuzzle"], request, call)

    def generate_puzzle(self, request: pb.GeneratePuzzleRequest, call: Call) -> pb.GeneratePuzzleResponse:
        return self.run(RPCS["GeneratePuzzle"], request, call)

    def analyze_position(self, request: pb.AnalyzePositionRequest, call: Call) -> Iterator[pb.AnalyzePositionUpdate]:
        return self.stream(STREAMS["AnalyzePosition"], request, call)

    def solve_position(self, request: pb.SolvePositionRequest, call: Call) -> Iterator[pb.SolvePositionUpdate]:
        return self.stream(STREAMS["SolvePosition"], request, call)

    def list_patches(self, request: pb.ListPatchesRequest, call: Call) -> pb.ListPatchesResponse:
        return pb.ListPatchesResponse(patches=[convert.patch_message(p) for p in solver.PATCHES])

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
        losses: tuple[list[float], list[float]] = ([], [])     # each player's losses so far: their accuracy
        for ply, (state, action) in enumerate(plies):
            # A move that is not the best takes two searches, each of up to `limit`
            # (as engine.review does in-process): the job gets twice the limit.
            job = ReviewJob(state=state, action=action, ply=ply, iterations=iterations, seed=seed,
                            search_limit=limit, large_loss=large)
            review = self.core.run_job(call, job, 2 * limit, f"record.actions[{ply}]")
            losses[review.player].append(review.loss)
            yield review_message(review, player_accuracy(losses[review.player]))


def generate_job(request: pb.GeneratePuzzleRequest) -> tuple[GenerateJob, float, str]:
    """The checked job of a GeneratePuzzle request, its time limit and the field its inputs came in
    (BadRequest naming the field)."""
    has_region = request.HasField("region")
    if has_region and (request.height or request.width):
        raise BadRequest("region", "give a region or height and width, not both")
    size = None
    if request.height or request.width:
        for name in ("height", "width"):
            v = getattr(request, name)
            if not 1 <= v <= convert.MAX_GRID:
                raise BadRequest(name, f"{v}; must be 1-{convert.MAX_GRID} (both 0: the default box)")
        size = (request.height, request.width)
    rows = tuple(convert.region_rows(request.region)) if has_region else None
    family = convert.piece_family(request.family)
    pieces = None
    if request.pieces:
        if family is not None:
            raise BadRequest("pieces", "give a family or pieces, not both")
        pieces = tuple(s.to_str() for s in convert.pieces(request.pieces))
    elif family is None:
        family = "pentominoes"
    difficulty = convert.puzzle_difficulty(request.difficulty)
    seed = convert.seed(request.seed)
    limit = convert.time_limit(request, "time_limit", DEFAULT_SOLVE_LIMIT)
    field = "region" if has_region else "pieces" if pieces is not None else "family"
    try:
        solver.puzzle.plan_puzzle(size=size, region=rows, family=family, pieces=pieces, difficulty=difficulty)
    except (SolverInputError, ShapeError, BoardError) as e:
        raise BadRequest(field, str(e)) from None
    job = GenerateJob(size=size, region=rows, family=family, pieces=pieces, difficulty=difficulty, seed=seed)
    return job, limit, field


def table_full(table_bytes: int, setting: str = "the server's --table-bytes") -> str:
    """What a client is told when a frontier count's table would pass the bound (set by ``setting``).

    >>> table_full(512 << 20)
    "the frontier count's table would pass the bound of 536870912 bytes (512 MiB, the server's --table-bytes); count with PUZZLE_METHOD_SEARCH, or a smaller region"
    >>> table_full(1 << 20, "the embedded client's table_bytes").split(";")[0]
    "the frontier count's table would pass the bound of 1048576 bytes (1 MiB, the embedded client's table_bytes)"
    """
    return (f"the frontier count's table would pass the bound of {table_bytes} bytes "
            f"({table_bytes / 2**20:g} MiB, {setting}); count with PUZZLE_METHOD_SEARCH, or a smaller region")


def set_count(response: pb.SolvePuzzleResponse, count: int, distinct: int) -> None:
    """A count's fields: the exact decimal strings always, the int64 fields only when the number fits
    (a larger one is never clamped: a client reading only ``count`` sees it unset, not wrong).

    >>> r = pb.SolvePuzzleResponse(); set_count(r, 2**70, 5); r.HasField("count"), r.count_decimal, r.distinct
    (False, '1180591620717411303424', 5)
    """
    response.count_decimal, response.distinct_decimal = str(count), str(distinct)
    if count <= INT64_MAX:
        response.count = count
    if distinct <= INT64_MAX:
        response.distinct = distinct


def puzzle_job(request: pb.SolvePuzzleRequest,
               table_bytes: int = solver.puzzle.DEFAULT_TABLE_BYTES) -> tuple[PuzzleJob, float]:
    """The checked job of a SolvePuzzle request and its time limit (BadRequest naming the field); also what
    ``suggest puzzle --count --ray`` checks its request with before the count runs on Ray. ``table_bytes``
    bounds a frontier count's table (the server's ``--table-bytes``)."""
    if not request.HasField("region"):
        raise BadRequest("region", "required")
    rows = convert.region_rows(request.region)
    mirror = not request.no_mirror
    shapes, unlimited = convert.puzzle_pieces(request.pieces, request.unlimited_pieces, mirror)
    count = convert.puzzle_count_mode(request.mode)
    method = convert.puzzle_method(request.method)
    if method == "frontier" and not count:
        raise BadRequest("method", "PUZZLE_METHOD_FRONTIER only counts (PUZZLE_MODE_COUNT); finding tilings "
                                   "uses the search")
    if request.max_tilings < 0 or request.max_tilings > convert.MAX_TILINGS:
        raise BadRequest("max_tilings", f"{request.max_tilings} out of range 0-{convert.MAX_TILINGS} (0 means 1)")
    limit = convert.time_limit(request, "time_limit", DEFAULT_SOLVE_LIMIT)
    job = PuzzleJob(rows=tuple(rows), pieces=tuple(s.to_str() for s in shapes), count=count,
                    mirror=mirror, use_all=not request.allow_unused,
                    max_tilings=request.max_tilings or 1, unlimited=tuple(s.to_str() for s in unlimited),
                    method=method, table_bytes=table_bytes)
    return job, limit


def _piece_message(p: Any, texts: list[str], width: int) -> pb.PlacedPatch:
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
    try:
        return records.plies(record, field)
    except records.RecordError as e:
        raise e.as_bad_request() from None
