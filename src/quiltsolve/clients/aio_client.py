"""``AsyncPlacementClient``: :class:`clients.PlacementClient` for ``asyncio``
(``grpc.aio``): the same constructor, the same methods as coroutines, the
same answers and errors. Requests and answers go through :mod:`clients.wire`,
like the blocking client's.

    async with AsyncPlacementClient("127.0.0.1:50051") as c:
        result = await c.solve_placement(board, [12, "##./.##"])

Create it inside the running event loop that will use it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, AsyncGenerator, AsyncIterator, Iterable, Sequence, cast

import grpc
import grpc.aio

from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pb_grpc
from quiltsolve.solver.geometry import Board, Shape
from quiltsolve.solver.patches import Patch
from quiltsolve.solver.puzzle.generate import GeneratedPuzzle
from quiltsolve.solver.types import LookaheadResult, Objective, PlacementResult, PuzzleResult

from . import errors, wire
from .inputs import DEFAULT_LARGE_LOSS, PatchSpec
from .results import MoveSuggestions

if TYPE_CHECKING:
    from quiltsolve.engine.analysis import Analysis
    from quiltsolve.engine.review import MoveReview
    from quiltsolve.engine.solve import SolveUpdate

Pem = bytes | str | os.PathLike[str]


class AsyncPlacementClient:
    """Asyncio client of the ``patchwork.v1.PlacementService``: the
    arguments of :class:`clients.PlacementClient` (target, deadline, retries
    through gRPC's retry policy, TLS, bearer token), and its methods as
    ``async def``."""

    def __init__(self, target: str, *, deadline: float = 5.0, retries: int = 3, backoff: float = 0.1,
                 seed: int = 0, tls: bool = False, ca: Pem | None = None, cert: Pem | None = None,
                 key: Pem | None = None, token: str | None = None,
                 options: Iterable[tuple[str, Any]] = ()) -> None:
        s = wire.ChannelSettings.make(target, deadline=deadline, retries=retries, backoff=backoff, seed=seed,
                                      options=options, tls=tls, ca=ca, cert=cert, key=key, token=token)
        self._settings = s
        self.target, self.deadline, self.retries, self.seed = s.target, s.deadline, s.retries, s.seed
        self._channel = s.open_channel(grpc.aio)
        self._stub = pb_grpc.PlacementServiceStub(self._channel)
        self._game_stub = pb_grpc.GameServiceStub(self._channel)

    # -- plumbing ---------------------------------------------------------
    async def close(self) -> None:
        """Close the channel; calls in flight are cancelled."""
        await self._channel.close()

    async def __aenter__(self) -> "AsyncPlacementClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"AsyncPlacementClient({self.target!r}, deadline={self.deadline})"

    async def _call(self, call: wire.Call) -> Any:
        method = getattr(self._stub, call.method)
        try:
            return await method(call.request, timeout=wire.call_timeout(self.deadline, call.time_limit),
                                metadata=self._settings.metadata or None)
        except grpc.RpcError as e:
            raise wire.error_from_rpc(e, self.target) from None

    async def _stream(self, call: wire.Call) -> AsyncIterator[Any]:
        stream = getattr(self._stub, call.method)(
            call.request, timeout=wire.call_timeout(self.deadline, call.time_limit),
            metadata=self._settings.metadata or None)
        try:
            async for response in stream:
                yield response
        except grpc.RpcError as e:
            raise wire.error_from_rpc(e, self.target) from None
        finally:
            stream.cancel()

    async def warm_up(self) -> float:
        """As :meth:`clients.PlacementClient.warm_up`: connect now."""
        import asyncio
        import time

        t0 = time.perf_counter()
        try:
            await asyncio.wait_for(self._channel.channel_ready(), timeout=self.deadline)
        except asyncio.TimeoutError:
            raise errors.ServiceUnavailable(f"service unavailable at {self.target}: no connection within "
                                            f"{self.deadline:g} s") from None
        return time.perf_counter() - t0

    # -- the API (as PlacementClient's) -----------------------------------
    async def solve_placement(self, board: Board | Sequence[str], patches: Sequence[PatchSpec], *,
                              objective: str | Objective = "cover",
                              time_limit: float | None = None) -> PlacementResult:
        """As :meth:`clients.PlacementClient.solve_placement`."""
        call = wire.solve_placement_call(board, patches, objective, time_limit, self.seed)
        return wire.placement_result(await self._call(call))

    async def suggest_placement(self, board: Board | Sequence[str], patch_id: PatchSpec,
                                upcoming: Sequence[PatchSpec] = (), *, square7: bool = False,
                                time_limit: float | None = None, top: int | None = None) -> LookaheadResult:
        """As :meth:`clients.PlacementClient.suggest_placement`."""
        call = wire.suggest_placement_call(board, patch_id, upcoming, square7, time_limit, top, self.seed)
        return wire.lookahead_result(await self._call(call), call.context)

    async def suggest_move(self, state: Any, *, time_limit: float | None = None, top: int | None = None,
                           iterations: int | None = None) -> MoveSuggestions:
        """As :meth:`clients.PlacementClient.suggest_move`."""
        call = wire.suggest_move_call(state, time_limit, top, iterations, self.seed)
        try:
            response = await self._call(call)
        except errors.ClientError as e:
            if wire.game_over(e):
                return wire.game_over_answer()
            raise
        return wire.move_result(response)

    def analyze_game(self, record: Any, *, iterations: int | None = None, time_per_move: float | None = None,
                     seed: int = 0, large_loss: float = DEFAULT_LARGE_LOSS) -> AsyncIterator[MoveReview]:
        """As :meth:`clients.PlacementClient.analyze_game`, as an async
        iterator (``async for review in client.analyze_game(record)``).

        A value that cannot be put in the request (a record that is not a
        JSON object, a str where a number goes) raises
        :class:`clients.InvalidArgument` at once; what the service refuses
        (a range, an illegal move) raises it at the first ``__anext__``,
        before any move is reviewed, with the service's message and
        ``field``."""
        call = wire.analyze_game_call(record, iterations, time_per_move, seed, large_loss)
        return self._reviews(call)

    async def _reviews(self, call: wire.Call) -> AsyncIterator[MoveReview]:
        async for response in self._stream(call):
            yield wire.review_result(response)

    def analyze_position(self, state: Any, *, iterations: int | None = None, time_limit: float | None = None,
                         until_cancelled: bool = False, top: int | None = None,
                         report_interval: float | None = None) -> AsyncIterator[Analysis]:
        """As :meth:`clients.PlacementClient.analyze_position`, as an async iterator
        (``async for update in client.analyze_position(state)``): what the service refuses raises at the
        first ``__anext__``; ``aclose()`` (or leaving the loop early) cancels the call."""
        call = wire.analyze_position_call(state, iterations, time_limit, until_cancelled, top, report_interval,
                                          self.seed)
        return self._analyses(call)

    async def _analyses(self, call: wire.Call) -> AsyncIterator[Analysis]:
        stream = cast(AsyncGenerator[Any, None], self._stream(call))
        try:
            try:
                first = await stream.__anext__()
            except StopAsyncIteration:
                return
            except errors.ClientError as e:
                if not wire.game_over(e):
                    raise
                yield wire.analysis_result(wire.game_over_update(call.context))
                return
            yield wire.analysis_result(first)
            async for response in stream:
                yield wire.analysis_result(response)
        finally:
            await stream.aclose()

    def solve_position(self, state: Any, *, time_limit: float | None = None, report_interval: float | None = None,
                       table_mb: int | None = None) -> AsyncIterator[SolveUpdate]:
        """As :meth:`clients.PlacementClient.solve_position`, as an async iterator (``async for update in
        client.solve_position(state)``): what the service refuses raises at the first ``__anext__``;
        ``aclose()`` (or leaving the loop early) cancels the call and the service stops the solver."""
        call = wire.solve_position_call(state, time_limit, report_interval, table_mb)
        return self._solves(call)

    async def _solves(self, call: wire.Call) -> AsyncIterator[SolveUpdate]:
        stream = cast(AsyncGenerator[Any, None], self._stream(call))
        try:
            async for response in stream:
                yield wire.solve_update(response)
        finally:
            await stream.aclose()

    async def solve_puzzle(self, region_rows_: Sequence[str] | str, pieces: Sequence[PatchSpec | Shape], *,
                           count: bool = False, mirror: bool = True, use_all: bool = True,
                           max_tilings: int = 1, time_limit: float | None = None,
                           unlimited: Sequence[PatchSpec | Shape] = (), method: str = "auto") -> PuzzleResult:
        """As :meth:`clients.PlacementClient.solve_puzzle`."""
        call = wire.solve_puzzle_call(region_rows_, pieces, count, mirror, use_all, max_tilings, time_limit,
                                      unlimited, method)
        return wire.puzzle_result(await self._call(call), call.context)

    async def generate_puzzle(self, *, size: tuple[int, int] | None = None, region: Sequence[str] | str | None = None,
                        family: str | None = None, pieces: Sequence[PatchSpec | Shape] | None = None,
                        difficulty: str | None = None, seed: int = 0,
                        time_limit: float | None = None) -> GeneratedPuzzle:
        """As :meth:`clients.PlacementClient.generate_puzzle`."""
        call = wire.generate_puzzle_call(size, region, family, pieces, difficulty, seed, time_limit)
        return wire.generated_puzzle(await self._call(call))

    async def list_patches(self) -> list[Patch]:
        """As :meth:`clients.PlacementClient.list_patches`."""
        return wire.patches_result(await self._call(wire.list_patches_call()))

    # -- the game (patchwork.v1.GameService) --------------------------------
    # The game's helpers, as the browser app calls them: the answers are the response messages
    # (clients/wire.py builds the requests; the service checks them).
    async def new_game(self, seed: int | None = None, edition: str | None = None,
                 circle: Any = None) -> pb.NewGameResponse:
        """A new game: its state, view and record (``seed`` None: a random deal, in ``record.seed``), or,
        with ``circle`` (33 patch ids, clockwise from the neutral token, patch 0 last), the game set up from it."""
        return await self._game_call(wire.new_game_call(seed, edition, circle))

    async def view_position(self, state: Any) -> pb.ViewPositionResponse:
        """The position (any form) checked and normalised, with its view."""
        return await self._game_call(wire.view_position_call(state))

    async def legal_moves(self, state: Any, patch_id: int | None = None) -> list[str]:
        """Every legal move's text, in the engine's order (of one patch only with ``patch_id``)."""
        return wire.legal_moves_result(await self._game_call(wire.legal_moves_call(state, patch_id)))

    async def apply_move(self, state: Any, move: Any) -> pb.ApplyMoveResponse:
        """``move`` (text or an engine action) played: the player, the move, the state and view after."""
        return await self._game_call(wire.apply_move_call(state, move))

    async def engine_move(self, state: Any, strength: str, *, seed: int = 0) -> pb.EngineMoveResponse:
        """The move of ``strength`` ("random", "greedy", "search:SECONDS", "search:Nit") played."""
        return await self._game_call(wire.engine_move_call(state, strength, seed))

    async def replay_game(self, record: Any) -> pb.ReplayGameResponse:
        """Every position of a game record (a dict or JSON text): its plies and views."""
        return await self._game_call(wire.replay_game_call(record))

    async def load_position(self, text: str, *, plies: int | None = None) -> pb.LoadPositionResponse:
        """A position from text (notation, state JSON, GameState JSON or a record, to ``plies`` moves)."""
        return await self._game_call(wire.load_position_call(text, plies))

    async def position_notation(self, state: Any) -> str:
        """A position's one-line notation."""
        return wire.notation_result(await self._game_call(wire.position_notation_call(state)))

    async def _game_call(self, call: wire.Call) -> Any:
        method = getattr(self._game_stub, call.method)
        try:
            return await method(call.request, timeout=wire.call_timeout(self.deadline, call.time_limit),
                                metadata=self._settings.metadata or None)
        except grpc.RpcError as e:
            raise wire.error_from_rpc(e, self.target) from None
