"""``EmbeddedClient``: the same interface as :class:`clients.PlacementClient`,
answered in this process (no server needed) by the service's own core.

Each call is built into the same protobuf request the gRPC clients send
(:mod:`clients.wire`), handed to the service's
:class:`server.service.PlacementServicer` over an
:class:`server.core.InProcessCore` (the job runs in the calling thread, with
the service's limits, default time limits and stop tokens), and its answer
is read back by the same :mod:`clients.wire` functions. So the embedded
client validates, limits, names fields and treats a finished game exactly
as the service does, by construction.

>>> EmbeddedClient().solve_placement(["#" * 9] * 8 + ["#######.."], [0]).empty_after
0
"""

from __future__ import annotations

import threading
import time
from typing import Any, Iterator, Sequence

from quiltsolve import engine
import quiltsolve.engine.players.search
from quiltsolve.engine.review import MoveReview
from quiltsolve.server.core import Call, InProcessCore
from quiltsolve.server.errors import ServiceError
from quiltsolve.server.observe import SERVICE, CallRecord
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server.game_service import GAME_SERVICE, GameServicer
from quiltsolve.server.service import PlacementServicer
from quiltsolve.solver.geometry import Board, Shape
from quiltsolve.solver.patches import Patch
from quiltsolve.solver.puzzle import DEFAULT_TABLE_BYTES
from quiltsolve.solver.puzzle.generate import GeneratedPuzzle
from quiltsolve.solver.types import LookaheadResult, Objective, PlacementResult, PuzzleResult

from . import errors, wire
from .inputs import DEFAULT_LARGE_LOSS, PatchSpec, int32
from .results import MoveSuggestions


class EmbeddedClient:
    """Answers in-process. ``seed`` goes into every request, as the gRPC clients send it.

    ``workers`` is accepted for compatibility and must be 1-64; every solve
    uses one CP-SAT worker, as the service's do, so answers match theirs.
    ``table_bytes`` bounds a frontier puzzle count's table, as the server's
    ``--table-bytes`` does (default 512 MiB); a count that needs more raises
    :class:`clients.errors.ResourceExhausted`.
    """

    target = "embedded"

    def __init__(self, *, seed: int = 0, workers: int = 1, table_bytes: int = DEFAULT_TABLE_BYTES) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 64:
            raise errors.InvalidArgument(f"bad workers {workers!r}: it must be an integer from 1 to 64")
        if isinstance(table_bytes, bool) or not isinstance(table_bytes, int) or table_bytes < 1:
            raise errors.InvalidArgument(f"bad table_bytes {table_bytes!r}: it must be a positive integer")
        self.seed = int32(seed, "seed")  # its range is checked by the service, at each call
        self.workers = workers
        core = InProcessCore(table_bytes)
        self._servicer = PlacementServicer(core)
        self._game = GameServicer(core)

    def close(self) -> None:
        """Nothing to release (for symmetry with :class:`clients.PlacementClient`)."""

    def __enter__(self) -> "EmbeddedClient":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def __repr__(self) -> str:
        return "EmbeddedClient()"

    # -- plumbing ---------------------------------------------------------
    @staticmethod
    def _call_of(method: str) -> Call:
        service = GAME_SERVICE if method in wire.GAME_METHODS else SERVICE
        return Call(peer="embedded", deadline=None, record=CallRecord(service, method))

    def _handler(self, method: str) -> Any:
        """The servicer's handler of ``method``: GameService's (``NewGame``, ...) or PlacementService's."""
        return (self._game if method in wire.GAME_METHODS else self._servicer).handler(method)

    def call(self, method: str, request: Any) -> Any:
        """One unary call as the gRPC stub makes it: ``method`` (``"SolvePlacement"``) and its request
        message in, the response message out; a refusal is the :class:`clients.ClientError` the
        gRPC clients raise for the same status."""
        try:
            return self._handler(method)(request, self._call_of(method))
        except ServiceError as e:
            raise wire.error_from_status(e.code, e.details, self.target) from None

    def stream(self, method: str, request: Any) -> Iterator[Any]:
        """A server-streaming call (``AnalyzeGame``, ``AnalyzePosition``, ``SolvePosition``): the response messages, each as it is
        computed; closing the iterator ends the call."""
        responses = self._handler(method)(request, self._call_of(method))
        try:
            yield from responses
        except ServiceError as e:
            raise wire.error_from_status(e.code, e.details, self.target) from None

    def _call(self, call: wire.Call) -> Any:
        return self.call(call.method, call.request)

    def _stream(self, call: wire.Call) -> Iterator[Any]:
        return self.stream(call.method, call.request)

    # -- the API ----------------------------------------------------------
    def solve_placement(self, board: Board | Sequence[str], patches: Sequence[PatchSpec], *,
                        objective: str | Objective = "cover",
                        time_limit: float | None = None) -> PlacementResult:
        """As :meth:`clients.PlacementClient.solve_placement`."""
        call = wire.solve_placement_call(board, patches, objective, time_limit, self.seed)
        return wire.placement_result(self._call(call))

    def suggest_placement(self, board: Board | Sequence[str], patch_id: PatchSpec,
                          upcoming: Sequence[PatchSpec] = (), *, square7: bool = False,
                          time_limit: float | None = None, top: int | None = None) -> LookaheadResult:
        """As :meth:`clients.PlacementClient.suggest_placement`."""
        call = wire.suggest_placement_call(board, patch_id, upcoming, square7, time_limit, top, self.seed)
        return wire.lookahead_result(self._call(call), call.context)

    def warm_up(self) -> float:
        """Pay the one-time costs of the move search now (imports, caches; see
        :func:`warm_up`), not inside a thinking time; returns the seconds spent."""
        return warm_up()

    def suggest_move(self, state: Any, *, time_limit: float | None = None, top: int | None = None,
                     iterations: int | None = None) -> MoveSuggestions:
        """Rank the moves with the search player (engine.players.search), as the service does.

        The answer is a list of moves, best first, that also says how much the
        search did (``iterations``, ``searched``, ``wall_time``); empty and
        ``terminal`` when the game is over. The search's one-time costs are
        paid before its clock starts (:func:`warm_up`), so even the first call
        of a process spends its whole budget searching.
        """
        call = wire.suggest_move_call(state, time_limit, top, iterations, self.seed)
        warm_up()
        return wire.move_answer(lambda: self._call(call))

    def analyze_game(self, record: Any, *, iterations: int | None = None, time_per_move: float | None = None,
                     seed: int = 0, large_loss: float = DEFAULT_LARGE_LOSS) -> Iterator[MoveReview]:
        """Review a game move by move, as the service's AnalyzeGame does:
        yields one ``engine.review.MoveReview`` per action of ``record`` (the
        engine's game record, a dict or JSON text; it may be unfinished) as
        soon as it is computed. ``iterations`` per searched position gives a
        reproducible review (capped by ``time_per_move``, default 60 s);
        without it each move gets ``time_per_move`` seconds (default 0.2).

        Bad input raises :class:`clients.InvalidArgument` at once, with the
        service's message and ``field`` (``record.actions[3]``,
        ``large_loss``): the call reviews the first move before it returns
        (the service checks the whole request, every move replayed, before
        it reviews any), and the iterator yields the others as computed."""
        call = wire.analyze_game_call(record, iterations, time_per_move, seed, large_loss)
        warm_up()
        return wire.Reviews(self._stream(call))

    def analyze_position(self, state: Any, *, iterations: int | None = None, time_limit: float | None = None,
                         until_cancelled: bool = False, top: int | None = None,
                         report_interval: float | None = None) -> wire.Analyses:
        """As :meth:`clients.PlacementClient.analyze_position`, computed in this thread as the iterator is
        read: each ``next()`` searches until the next update is due; ``close()`` ends the analysis."""
        call = wire.analyze_position_call(state, iterations, time_limit, until_cancelled, top, report_interval,
                                          self.seed)
        warm_up()
        return wire.Analyses(self._stream(call), call.context)

    def solve_position(self, state: Any, *, time_limit: float | None = None, report_interval: float | None = None,
                       table_mb: int | None = None) -> wire.Solves:
        """As :meth:`clients.PlacementClient.solve_position`, solved in this process (the solver in a helper
        thread) as the iterator is read; ``close()`` ends the solve. The table is at most the client's
        ``table_bytes``."""
        call = wire.solve_position_call(state, time_limit, report_interval, table_mb)
        return wire.Solves(self._stream(call))

    def solve_puzzle(self, region_rows_: Sequence[str] | str, pieces: Sequence[PatchSpec | Shape], *,
                     count: bool = False, mirror: bool = True, use_all: bool = True,
                     max_tilings: int = 1, time_limit: float | None = None,
                     unlimited: Sequence[PatchSpec | Shape] = (), method: str = "auto") -> PuzzleResult:
        """As :meth:`clients.PlacementClient.solve_puzzle`."""
        call = wire.solve_puzzle_call(region_rows_, pieces, count, mirror, use_all, max_tilings, time_limit,
                                      unlimited, method)
        return wire.puzzle_result(self._call(call), call.context)

    def generate_puzzle(self, *, size: tuple[int, int] | None = None, region: Sequence[str] | str | None = None,
                        family: str | None = None, pieces: Sequence[PatchSpec | Shape] | None = None,
                        difficulty: str | None = None, seed: int = 0,
                        time_limit: float | None = None) -> GeneratedPuzzle:
        """As :meth:`clients.PlacementClient.generate_puzzle`."""
        call = wire.generate_puzzle_call(size, region, family, pieces, difficulty, seed, time_limit)
        return wire.generated_puzzle(self._call(call))

    def list_patches(self) -> list[Patch]:
        """The 33 standard patches, by id."""
        return wire.patches_result(self._call(wire.list_patches_call()))


    # -- the game (patchwork.v1.GameService) --------------------------------
    # As the gRPC clients' game methods: the same requests (clients/wire.py), answered by the
    # service's GameServicer in this process.
    def new_game(self, seed: int | None = None, edition: str | None = None,
                 circle: Any = None) -> pb.NewGameResponse:
        """As :meth:`clients.PlacementClient.new_game`."""
        return self._call(wire.new_game_call(seed, edition, circle))

    def view_position(self, state: Any) -> pb.ViewPositionResponse:
        """As :meth:`clients.PlacementClient.view_position`."""
        return self._call(wire.view_position_call(state))

    def legal_moves(self, state: Any, patch_id: int | None = None) -> list[str]:
        """As :meth:`clients.PlacementClient.legal_moves`."""
        return wire.legal_moves_result(self._call(wire.legal_moves_call(state, patch_id)))

    def apply_move(self, state: Any, move: Any) -> pb.ApplyMoveResponse:
        """As :meth:`clients.PlacementClient.apply_move`."""
        return self._call(wire.apply_move_call(state, move))

    def engine_move(self, state: Any, strength: str, *, seed: int = 0) -> pb.EngineMoveResponse:
        """As :meth:`clients.PlacementClient.engine_move` (a search warms up first, as suggest_move)."""
        call = wire.engine_move_call(state, strength, seed)
        if call.time_limit is not None:
            warm_up()
        return self._call(call)

    def replay_game(self, record: Any) -> pb.ReplayGameResponse:
        """As :meth:`clients.PlacementClient.replay_game`."""
        return self._call(wire.replay_game_call(record))

    def load_position(self, text: str, *, plies: int | None = None) -> pb.LoadPositionResponse:
        """As :meth:`clients.PlacementClient.load_position`."""
        return self._call(wire.load_position_call(text, plies))

    def position_notation(self, state: Any) -> str:
        """As :meth:`clients.PlacementClient.position_notation`."""
        return wire.notation_result(self._call(wire.position_notation_call(state)))


_warm_lock = threading.Lock()
_warm_done = False


def warm_up() -> float:
    """The move search's one-time costs, paid once per process before any
    thinking clock starts (``engine.players.search.warm_up``: imports, caches, a
    first search). Returns the seconds it took (0 once done). Thread-safe."""
    global _warm_done
    if _warm_done:
        return 0.0
    with _warm_lock:
        if _warm_done:
            return 0.0
        t0 = time.perf_counter()
        engine.players.search.warm_up()
        _warm_done = True
        return time.perf_counter() - t0
