"""``PlacementClient``: the placement service over gRPC, with plain Python
values in and out.

>>> c = PlacementClient("ipv4:127.0.0.1:1,127.0.0.1:2", deadline=0.2, retries=0)
>>> c.target, c.deadline
('ipv4:127.0.0.1:1,127.0.0.1:2', 0.2)
>>> c.close()

Scaling out: the service is stateless, so the client balances its calls
round-robin over every address its target resolves to: a list
(``ipv4:HOST:P1,HOST:P2``) or a DNS name with several A records
(``dns:///quiltsolve-headless.default.svc:50051`` for a headless Kubernetes
service). Calls failing with ``UNAVAILABLE`` are retried by gRPC itself,
following the retry policy of the channel's service config
(:func:`clients.wire.service_config`).

:class:`clients.AsyncPlacementClient` (``clients/aio_client.py``) is the
same client for ``asyncio``; both build their requests and read their
answers with :mod:`clients.wire`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import grpc

from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pb_grpc
from quiltsolve.solver.geometry import Board, Shape
from quiltsolve.solver.patches import Patch
from quiltsolve.solver.puzzle.generate import GeneratedPuzzle
from quiltsolve.solver.types import LookaheadResult, Objective, PlacementResult, PuzzleResult

from . import errors, wire
from .inputs import DEFAULT_LARGE_LOSS, PatchSpec
from .results import MoveSuggestions
from .wire import DEADLINE_SLACK, error_from_rpc  # noqa: F401 - re-exported

if TYPE_CHECKING:
    from quiltsolve.engine.review import MoveReview

Pem = bytes | str | os.PathLike[str]


class PlacementClient:
    """Client of the ``patchwork.v1.PlacementService``.

    ``target`` is any gRPC target: ``HOST:PORT``, ``ipv4:HOST:P1,HOST:P2`` or
    ``dns:///NAME:PORT``; calls are balanced round-robin over its addresses.
    Each call has a ``deadline`` (seconds; stretched to the request's time
    limit plus a little slack). gRPC retries calls failing with
    ``UNAVAILABLE`` up to ``retries`` times (0-4), waiting a random time up to
    ``backoff`` seconds, doubled after each retry. Every failure is raised
    as a :class:`clients.errors.ClientError`.

    ``tls=True`` connects with TLS: ``ca`` is the PEM certificate (bytes or a
    file path) the server's certificate must chain to (default: the system
    roots); ``cert`` and ``key`` are the client's certificate and private
    key for servers that ask for one. ``token`` is sent with every call as
    ``authorization: Bearer TOKEN`` metadata (use TLS to keep it secret).
    ``options`` are extra gRPC channel options.
    """

    def __init__(self, target: str, *, deadline: float = 5.0, retries: int = 3, backoff: float = 0.1,
                 seed: int = 0, tls: bool = False, ca: Pem | None = None, cert: Pem | None = None,
                 key: Pem | None = None, token: str | None = None,
                 options: Iterable[tuple[str, Any]] = ()) -> None:
        s = wire.ChannelSettings.make(target, deadline=deadline, retries=retries, backoff=backoff, seed=seed,
                                      options=options, tls=tls, ca=ca, cert=cert, key=key, token=token)
        self._settings = s
        self.target, self.deadline, self.retries, self.seed = s.target, s.deadline, s.retries, s.seed
        self._channel = s.open_channel(grpc)
        self._stub = pb_grpc.PlacementServiceStub(self._channel)
        self._game_stub = pb_grpc.GameServiceStub(self._channel)

    # -- plumbing ---------------------------------------------------------
    def close(self) -> None:
        """Close the channel; calls in flight are cancelled."""
        self._channel.close()

    def __enter__(self) -> "PlacementClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PlacementClient({self.target!r}, deadline={self.deadline})"

    def _call(self, call: wire.Call) -> Any:
        method = getattr(self._stub, call.method)
        try:
            return method(call.request, timeout=wire.call_timeout(self.deadline, call.time_limit),
                          metadata=self._settings.metadata or None)
        except grpc.RpcError as e:
            raise error_from_rpc(e, self.target) from None

    def _stream(self, call: wire.Call) -> Iterator[Any]:
        """The responses of a server-streaming call, each as it arrives; the
        call is cancelled when the caller stops reading early."""
        responses = None
        try:
            responses = getattr(self._stub, call.method)(
                call.request, timeout=wire.call_timeout(self.deadline, call.time_limit),
                metadata=self._settings.metadata or None)
            yield from responses
        except grpc.RpcError as e:
            raise error_from_rpc(e, self.target) from None
        finally:
            if responses is not None:
                responses.cancel()

    def warm_up(self) -> float:
        """Connect now (within the deadline), so the first call's time goes to
        the answer; returns the seconds it took. ``ServiceUnavailable`` when
        nothing answers at the target."""
        import time

        t0 = time.perf_counter()
        try:
            grpc.channel_ready_future(self._channel).result(timeout=self.deadline)
        except grpc.FutureTimeoutError:
            raise errors.ServiceUnavailable(f"service unavailable at {self.target}: no connection within "
                                            f"{self.deadline:g} s") from None
        return time.perf_counter() - t0

    # -- the API ----------------------------------------------------------
    def solve_placement(self, board: Board | Sequence[str], patches: Sequence[PatchSpec], *,
                        objective: str | Objective = "cover",
                        time_limit: float | None = None) -> PlacementResult:
        """Best placements of the candidate ``patches`` (ids or shapes; a
        repeated one is another copy) on ``board`` (a mask or 9 rows):
        ``objective`` "cover" (most cells covered) or "square7" (first
        complete a 7×7 window). ``time_limit``: seconds, at most 60."""
        call = wire.solve_placement_call(board, patches, objective, time_limit, self.seed)
        return wire.placement_result(self._call(call))

    def suggest_placement(self, board: Board | Sequence[str], patch_id: PatchSpec,
                          upcoming: Sequence[PatchSpec] = (), *, square7: bool = False,
                          time_limit: float | None = None, top: int | None = None) -> LookaheadResult:
        """The placements of ``patch_id`` on ``board``, best first, ranked by
        how many cells of the ``upcoming`` patches still fit afterwards
        (``square7``: aim for the 7×7 window too); ``top`` of them (None: all)."""
        call = wire.suggest_placement_call(board, patch_id, upcoming, square7, time_limit, top, self.seed)
        return wire.lookahead_result(self._call(call), call.context)

    def suggest_move(self, state: Any, *, time_limit: float | None = None, top: int | None = None,
                     iterations: int | None = None) -> MoveSuggestions:
        """Ranked moves for the player to move in ``state`` (a ``GameState``,
        its ``to_json()`` dict or JSON text), best first; empty when the game
        is over. ``iterations`` gives a fixed, repeatable search budget. The
        answer is a list that also says how much the service searched
        (``iterations``, ``searched``, ``wall_time``)."""
        call = wire.suggest_move_call(state, time_limit, top, iterations, self.seed)
        return wire.move_answer(lambda: self._call(call))

    def analyze_game(self, record: Any, *, iterations: int | None = None, time_per_move: float | None = None,
                     seed: int = 0, large_loss: float = DEFAULT_LARGE_LOSS) -> Iterator[MoveReview]:
        """Review a game move by move with the service's ``AnalyzeGame``
        (server streaming): yields one ``engine.review.MoveReview`` per action
        of ``record`` (the engine's game record, a dict or JSON text; it may be
        unfinished) as each arrives. ``iterations`` per searched position gives
        a reproducible review; without it each move gets ``time_per_move``
        seconds (the service's default 0.2).

        Bad input raises :class:`clients.InvalidArgument` at once, with the
        service's message and ``field``: the call waits for the first
        review (the service checks the whole request, every move replayed,
        before it reviews any) and the iterator yields the others as they
        arrive; closing it early cancels the call."""
        call = wire.analyze_game_call(record, iterations, time_per_move, seed, large_loss)
        return wire.Reviews(self._stream(call))

    def analyze_position(self, state: Any, *, iterations: int | None = None, time_limit: float | None = None,
                         until_cancelled: bool = False, top: int | None = None,
                         report_interval: float | None = None) -> wire.Analyses:
        """Analyse ``state`` (a ``GameState``, its ``to_json()`` dict or JSON text, a notation) with the
        service's ``AnalyzePosition`` (server streaming): an iterator of ``engine.analysis.Analysis``
        updates, one every ``report_interval`` seconds (the service's default 0.2), the last with ``final``
        set. The budget: ``iterations`` (the same answer every run: the final update is
        :meth:`suggest_move`'s for the same iterations), ``time_limit`` seconds (default 1), or
        ``until_cancelled`` (until :meth:`~clients.wire.Analyses.close`, at most 600 s).

        Bad input raises :class:`clients.InvalidArgument` at once (the call waits for the first update);
        a finished game is one final update with no moves. Closing the iterator (or leaving a ``with``
        block) cancels the call: the service stops the search at once."""
        call = wire.analyze_position_call(state, iterations, time_limit, until_cancelled, top, report_interval,
                                          self.seed)
        return wire.Analyses(self._stream(call), call.context)

    def solve_position(self, state: Any, *, time_limit: float | None = None, report_interval: float | None = None,
                       table_mb: int | None = None) -> wire.Solves:
        """Solve ``state`` (a ``GameState``, its ``to_json()`` dict or JSON text, a notation) exactly with the
        service's ``SolvePosition`` (server streaming): an iterator of ``engine.solve.SolveUpdate`` values,
        one every ``report_interval`` seconds (the service's default 0.2), each with the proven interval
        ``[lower, upper]`` of the value (the mover's final margin under perfect play), the nodes, the time
        and the best line so far; the last one ``final``: exact (``value``, ``line`` a principal variation)
        or the interval when ``time_limit`` (default 60 s, at most 600) passed. ``table_mb`` sizes the
        solver's table in MiB (the service's default 256, at most its bound).

        Bad input raises :class:`clients.InvalidArgument` at once (the call waits for the first update).
        Closing the iterator (or leaving a ``with`` block) cancels the call: the service stops the solver
        at once and its worker is free."""
        call = wire.solve_position_call(state, time_limit, report_interval, table_mb)
        return wire.Solves(self._stream(call))

    def solve_puzzle(self, region_rows_: Sequence[str] | str, pieces: Sequence[PatchSpec | Shape], *,
                     count: bool = False, mirror: bool = True, use_all: bool = True,
                     max_tilings: int = 1, time_limit: float | None = None,
                     unlimited: Sequence[PatchSpec | Shape] = (), method: str = "auto") -> PuzzleResult:
        """Tile the region (rows of ``.`` to tile and ``#``) exactly with the
        ``pieces`` (shapes or ids, each used at most once; ``use_all``: every
        one) and the ``unlimited`` shapes (any number of copies each), or
        ``count`` the tilings; ``mirror``: pieces may be flipped. ``method``
        (``auto``, ``search``, ``frontier``) chooses how a count is made; the
        result's ``method`` says which did. Counts are exact ints of any size."""
        call = wire.solve_puzzle_call(region_rows_, pieces, count, mirror, use_all, max_tilings, time_limit,
                                      unlimited, method)
        return wire.puzzle_result(self._call(call), call.context)

    def generate_puzzle(self, *, size: tuple[int, int] | None = None, region: Sequence[str] | str | None = None,
                        family: str | None = None, pieces: Sequence[PatchSpec | Shape] | None = None,
                        difficulty: str | None = None, seed: int = 0,
                        time_limit: float | None = None) -> GeneratedPuzzle:
        """A puzzle whose tilings, up to the region's symmetries, number exactly one
        (``solver.puzzle.generate_puzzle``): cut from a ``size`` (height, width) box, or the given
        ``region``; pieces from a ``family`` (pentominoes, tetrominoes, patches; the default
        pentominoes) or the given ``pieces``; ``difficulty`` easy, medium or hard (None: any).
        ``status`` UNKNOWN when time ran out before one was found."""
        call = wire.generate_puzzle_call(size, region, family, pieces, difficulty, seed, time_limit)
        return wire.generated_puzzle(self._call(call))

    def list_patches(self) -> list[Patch]:
        """The 33 standard patches, by id."""
        return wire.patches_result(self._call(wire.list_patches_call()))

    # -- the game (patchwork.v1.GameService) --------------------------------
    # The game's helpers, as the browser app calls them: the answers are the response messages
    # (clients/wire.py builds the requests; the service checks them).
    def new_game(self, seed: int | None = None, edition: str | None = None,
                 circle: Any = None) -> pb.NewGameResponse:
        """A new game: its state, view and record (``seed`` None: a random deal, in ``record.seed``), or,
        with ``circle`` (33 patch ids, clockwise from the neutral token, patch 0 last), the game set up from it."""
        return self._game_call(wire.new_game_call(seed, edition, circle))

    def view_position(self, state: Any) -> pb.ViewPositionResponse:
        """The position (any form) checked and normalised, with its view."""
        return self._game_call(wire.view_position_call(state))

    def legal_moves(self, state: Any, patch_id: int | None = None) -> list[str]:
        """Every legal move's text, in the engine's order (of one patch only with ``patch_id``)."""
        return wire.legal_moves_result(self._game_call(wire.legal_moves_call(state, patch_id)))

    def apply_move(self, state: Any, move: Any) -> pb.ApplyMoveResponse:
        """``move`` (text or an engine action) played: the player, the move, the state and view after."""
        return self._game_call(wire.apply_move_call(state, move))

    def engine_move(self, state: Any, strength: str, *, seed: int = 0) -> pb.EngineMoveResponse:
        """The move of ``strength`` ("random", "greedy", "search:SECONDS", "search:Nit") played."""
        return self._game_call(wire.engine_move_call(state, strength, seed))

    def replay_game(self, record: Any) -> pb.ReplayGameResponse:
        """Every position of a game record (a dict or JSON text): its plies and views."""
        return self._game_call(wire.replay_game_call(record))

    def load_position(self, text: str, *, plies: int | None = None) -> pb.LoadPositionResponse:
        """A position from text (notation, state JSON, GameState JSON or a record, to ``plies`` moves)."""
        return self._game_call(wire.load_position_call(text, plies))

    def position_notation(self, state: Any) -> str:
        """A position's one-line notation."""
        return wire.notation_result(self._game_call(wire.position_notation_call(state)))

    def _game_call(self, call: wire.Call) -> Any:
        method = getattr(self._game_stub, call.method)
        try:
            return method(call.request, timeout=wire.call_timeout(self.deadline, call.time_limit),
                          metadata=self._settings.metadata or None)
        except grpc.RpcError as e:
            raise error_from_rpc(e, self.target) from None
