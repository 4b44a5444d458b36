"""Typed jobs: what one request asks a worker process to compute, as a value.

Every expensive operation validates its request once (:mod:`server.service`)
into one of these frozen dataclasses; the job travels to a worker process
(:mod:`server.pool`, pickled over a pipe) or runs in the caller's process
(the embedded client), and :meth:`Job.run` computes it. A job is a pure
function of its fields, so running it again (on a fresh worker, after one
died) gives the same answer, and its pickled bytes fingerprint the request.

>>> from quiltsolve import solver
>>> job = SolveJob(board=0, candidates=(solver.Candidate(0, solver.PATCHES[0].shape, 1, False),),
...                objective=solver.Objective.COVER, seed=0)
>>> job.run(1.0, solver.StopToken()).empty_after
79
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Generic, Iterator, TypeVar

from quiltsolve import engine
import quiltsolve.engine.analysis
import quiltsolve.engine.moves
import quiltsolve.engine.players
import quiltsolve.engine.review
import quiltsolve.engine.solve
from quiltsolve import solver
import quiltsolve.solver.cover
import quiltsolve.solver.puzzle
from quiltsolve.solver import BoardError, ShapeError, SolverInputError, StopToken, UnknownPatchError
from quiltsolve.solver.puzzle import DEFAULT_TABLE_BYTES, CountTableFull

# What a job raises for input its request's checks could not see (the client's, INVALID_ARGUMENT),
# for a legal request the position cannot answer (FAILED_PRECONDITION), and for one that needs more
# than a server bound allows (RESOURCE_EXHAUSTED, no retry); anything else is a bug.
INPUT_ERRORS = (ShapeError, BoardError, UnknownPatchError, SolverInputError, engine.StateError)
PRECONDITION_ERRORS = (engine.IllegalActionError,)
TOO_LARGE_ERRORS = (CountTableFull,)


def failure_kind(error: BaseException) -> str:
    """What a job's exception means: ``input``, ``precondition``, ``too_large`` or ``internal`` (a bug).

    >>> failure_kind(CountTableFull(1 << 20)), failure_kind(KeyError("x"))
    ('too_large', 'internal')
    """
    if isinstance(error, INPUT_ERRORS):
        return "input"
    if isinstance(error, PRECONDITION_ERRORS):
        return "precondition"
    if isinstance(error, TOO_LARGE_ERRORS):
        return "too_large"
    return "internal"


INLINE_NODES = 2_000
"""Nodes of the exact bitmask pass a :meth:`SolveJob.run_inline` try may take (1-5 us each)."""
INLINE_COPIES = 12
"""Patches (copies, all candidates together) a :meth:`SolveJob.run_inline` try takes at most."""

R = TypeVar("R", covariant=True)
"""What a job's ``run`` returns: each job names it (``SolveJob`` is a ``Job[solver.PlacementResult]``), so
``run_job(job)`` is typed by its job."""


@dataclass(frozen=True)
class Job(Generic[R]):
    """One unit of work; ``run(time_limit, stop)`` returns the solver's or engine's answer, an ``R``."""

    kind: ClassVar[str] = "job"   # its name in logs

    def run(self, time_limit: float, stop: StopToken) -> R:
        raise NotImplementedError

    def run_inline(self, time_limit: float, stop: StopToken) -> R | None:
        """A short, bounded try that a service may run in its own thread instead of a worker process:
        exactly the answer :meth:`run` with ``time_limit`` would give, or None when the try cannot tell
        it within ``time_limit`` (then :meth:`run` runs as usual). None for every job without one."""
        return None


U = TypeVar("U", covariant=True)
"""What a streaming job yields: its updates (the last one its answer)."""


@dataclass(frozen=True)
class StreamJob(Job[U]):
    """A job that yields: ``stream(time_limit, stop)`` yields its updates as it makes them, the last one its
    answer (``run`` returns that one). A server-streaming RPC runs one (``server.service.STREAMS``): the
    worker sends each update as it comes (``server.pool.WorkerPool.stream``), the embedded client iterates
    in its own thread; a stop (the client's cancel, the deadline) ends it at once, with a last update."""

    kind: ClassVar[str] = "stream"
    streaming: ClassVar[bool] = True   # how the worker tells it from a unary job

    def stream(self, time_limit: float, stop: StopToken) -> Iterator[U]:
        raise NotImplementedError

    def run(self, time_limit: float, stop: StopToken) -> U:
        last = None
        for last in self.stream(time_limit, stop):
            pass
        if last is None:
            raise RuntimeError(f"the {self.kind} job yielded nothing")
        return last


@dataclass(frozen=True)
class SolveJob(Job[solver.PlacementResult]):
    """``solver.solve``: place candidate patches on a board (cover, or the 7×7 square)."""

    kind: ClassVar[str] = "solve"
    board: int
    candidates: tuple[solver.Candidate, ...]
    objective: solver.Objective
    seed: int

    def run(self, time_limit: float, stop: StopToken) -> solver.PlacementResult:
        return solver.solve(self.board, list(self.candidates), self.objective, time_limit=time_limit,
                            seed=self.seed, workers=1, stop=stop)

    def run_inline(self, time_limit: float, stop: StopToken) -> solver.PlacementResult | None:
        # The exact pass alone, at most INLINE_NODES nodes: a proof it finds is run()'s answer. More
        # than INLINE_COPIES patches to place: it would not finish so soon (the bench's 16-patch
        # boards never do), so it is not tried.
        if sum(c.count for c in self.candidates) > INLINE_COPIES:
            return None
        return solver.cover.solve_exact(self.board, list(self.candidates), self.objective, node_cap=INLINE_NODES,
                                        time_limit=time_limit, seed=self.seed, stop=stop)


RANK_RESERVE, RANK_RESERVE_FRACTION = 0.03, 0.10
"""What a SuggestPlacement keeps of its time limit for its answer's way back: at most 30 ms, at most a tenth."""


def rank_budget(time_limit: float) -> float:
    """The lookahead's own time limit within a call's ``time_limit``.

    >>> rank_budget(0.3), rank_budget(2.0), rank_budget(0.05)
    (0.27, 1.97, 0.045)
    """
    return round(time_limit - min(RANK_RESERVE, RANK_RESERVE_FRACTION * time_limit), 6)


@dataclass(frozen=True)
class RankJob(Job[solver.LookaheadResult]):
    """``solver.rank_placements``: the placements of one patch, ranked by lookahead."""

    kind: ClassVar[str] = "rank"
    board: int
    patch: solver.Candidate
    upcoming: tuple[solver.Candidate, ...]
    square7: bool
    top: int | None
    seed: int

    def run(self, time_limit: float, stop: StopToken) -> solver.LookaheadResult:
        # The lookahead uses all the time it is given (unlike a search that stops when it is sure), and
        # its answer still has to be pickled, sent and turned into up to ~450 RankedPlacements (about
        # 5-10 ms, more on a busy machine): the solver gets the limit less that, so the call keeps it.
        return solver.rank_placements(self.board, self.patch, list(self.upcoming), square7=self.square7,
                                      time_limit=rank_budget(time_limit), top=self.top, seed=self.seed,
                                      stop=stop)


@dataclass(frozen=True)
class MovesJob(Job[engine.moves.MovesResult]):
    """``engine.moves.rank_moves``: the moves of a position, best first — proven by the endgame solver
    when it finishes within its share of the time, else searched; ``iterations`` fixes the search's budget."""

    kind: ClassVar[str] = "moves"
    state: engine.GameState
    top: int | None
    seed: int
    iterations: int | None

    def run(self, time_limit: float, stop: StopToken) -> engine.moves.MovesResult:
        return engine.moves.rank_moves(self.state, time_limit=time_limit, top=self.top, seed=self.seed, stop=stop,
                                       iterations=self.iterations)


@dataclass(frozen=True)
class LevelMoveJob(Job[engine.Action]):
    """``engine.players.LevelPlayer(level, seed).choose``: the move of a level (1-8) of the engine;
    reproducible (an iteration budget, a seeded choice) unless the time limit stops its search first."""

    kind: ClassVar[str] = "level"
    state: engine.GameState
    level: int
    seed: int

    def run(self, time_limit: float, stop: StopToken) -> engine.Action:
        return quiltsolve.engine.players.LevelPlayer(self.level, self.seed).choose(self.state, stop)


@dataclass(frozen=True)
class AnalyzeJob(StreamJob[engine.analysis.Analysis]):
    """``engine.analysis.analyze``: a position's analysis as it runs (``MovesJob``'s answer, reported every
    ``report_interval`` seconds). ``iterations`` fixes the budget (the time limit then caps it); else the
    time limit is the thinking time, or, ``until_cancelled``, only a cap (the call's cancel ends it)."""

    kind: ClassVar[str] = "analyze"
    state: engine.GameState
    top: int | None
    seed: int
    iterations: int | None
    until_cancelled: bool
    report_interval: float

    def stream(self, time_limit: float, stop: StopToken) -> Iterator[engine.analysis.Analysis]:
        return engine.analysis.analyze(self.state, time_limit=time_limit, iterations=self.iterations,
                                       until_stopped=self.until_cancelled, top=self.top, seed=self.seed,
                                       stop=stop, report_interval=self.report_interval)


@dataclass(frozen=True)
class SolvePositionJob(StreamJob[engine.solve.SolveUpdate]):
    """``engine.solve.solve_position``: a position solved exactly, with progress (the proven interval of its
    value every ``report_interval`` seconds, the last update final), in a table of ``table_bytes``."""

    kind: ClassVar[str] = "solve_position"
    state: engine.GameState
    table_bytes: int
    report_interval: float

    def stream(self, time_limit: float, stop: StopToken) -> Iterator[engine.solve.SolveUpdate]:
        return engine.solve.solve_position(self.state, time_limit=time_limit, stop=stop,
                                           table_bytes=self.table_bytes, report_interval=self.report_interval)


@dataclass(frozen=True)
class ReviewJob(Job[engine.review.MoveReview]):
    """``engine.review.review_move``: one decision of a game against the search's best.

    A move that is not the best takes two searches, each of up to
    ``search_limit``; the job's time limit (twice that, perhaps cut by the
    call's deadline) caps both.
    """

    kind: ClassVar[str] = "review"
    state: engine.GameState
    action: engine.Action
    ply: int
    iterations: int | None
    seed: int
    search_limit: float
    large_loss: float

    def run(self, time_limit: float, stop: StopToken) -> engine.review.MoveReview:
        per_search = min(self.search_limit, time_limit / 2)
        return engine.review.review_move(self.state, self.action, ply=self.ply, time_limit=per_search,
                                         iterations=self.iterations, seed=self.seed, large_loss=self.large_loss,
                                         stop=stop)


@dataclass(frozen=True)
class PuzzleJob(Job[solver.PuzzleResult]):
    """``solver.solve_puzzle``: tile a region with pieces, or count the tilings."""

    kind: ClassVar[str] = "puzzle"
    rows: tuple[str, ...]
    pieces: tuple[str, ...]
    count: bool
    mirror: bool
    use_all: bool
    max_tilings: int
    unlimited: tuple[str, ...] = ()     # shapes with an unlimited supply
    method: str = "auto"                # solver.puzzle.METHODS
    table_bytes: int = DEFAULT_TABLE_BYTES  # the frontier count's table bound (the server's --table-bytes)

    def run(self, time_limit: float, stop: StopToken) -> solver.PuzzleResult:
        return quiltsolve.solver.puzzle.solve_puzzle(
            list(self.rows), list(self.pieces), count=self.count, mirror=self.mirror, use_all=self.use_all,
            max_tilings=self.max_tilings, time_limit=time_limit, stop=stop, unlimited=self.unlimited,
            method=self.method, table_bytes=self.table_bytes)


@dataclass(frozen=True)
class GenerateJob(Job[quiltsolve.solver.puzzle.GeneratedPuzzle]):
    """``solver.puzzle.generate_puzzle``: a puzzle with exactly one tiling (checked by the service first,
    with ``plan_puzzle``)."""

    kind: ClassVar[str] = "generate"
    size: tuple[int, int] | None
    region: tuple[str, ...] | None
    family: str | None
    pieces: tuple[str, ...] | None
    difficulty: str | None
    seed: int

    def run(self, time_limit: float, stop: StopToken) -> quiltsolve.solver.puzzle.GeneratedPuzzle:
        return quiltsolve.solver.puzzle.generate_puzzle(
            size=self.size, region=None if self.region is None else list(self.region), family=self.family,
            pieces=None if self.pieces is None else list(self.pieces), difficulty=self.difficulty, seed=self.seed,
            time_limit=time_limit, stop=stop)
