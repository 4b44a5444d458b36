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
service).
"""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any, Callable, Sequence

import grpc
from google.protobuf import duration_pb2

from patchwork.v1 import placement_pb2 as pb
from patchwork.v1 import placement_pb2_grpc as pb_grpc
from solver.geometry import BOARD_SIZE, Board, Shape, board_to_rows, mask_of
from solver.patches import Patch
from solver.types import (
    LookaheadResult, Objective, PlacedPatch, PlacementResult, PuzzleResult, RankedPlacement,
    SolveStatus,
)

from . import errors
from .inputs import (
    check_iterations, check_time_limit, check_top, lookahead_inputs, piece_shapes, placement_inputs, region_rows,
)

# Extra deadline beyond a requested time limit: the server answers with what
# it found when the limit passes, so the call needs a little longer than it.
DEADLINE_SLACK = 2.0

_STATUS = {
    pb.SOLVE_STATUS_OPTIMAL: SolveStatus.OPTIMAL,
    pb.SOLVE_STATUS_FEASIBLE: SolveStatus.FEASIBLE,
    pb.SOLVE_STATUS_INFEASIBLE: SolveStatus.INFEASIBLE,
    pb.SOLVE_STATUS_UNKNOWN: SolveStatus.UNKNOWN,
}

_CODES: dict[grpc.StatusCode, type[errors.ClientError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: errors.InvalidArgument,
    grpc.StatusCode.OUT_OF_RANGE: errors.InvalidArgument,
    grpc.StatusCode.FAILED_PRECONDITION: errors.InvalidArgument,
    grpc.StatusCode.UNAVAILABLE: errors.ServiceUnavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: errors.DeadlineExceeded,
    grpc.StatusCode.CANCELLED: errors.Cancelled,
    grpc.StatusCode.RESOURCE_EXHAUSTED: errors.ResourceExhausted,
}


def error_from_rpc(err: grpc.RpcError, target: str = "") -> errors.ClientError:
    """The :class:`~clients.errors.ClientError` for a failed call."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    details = (err.details() if hasattr(err, "details") else None) or str(code)
    cls = _CODES.get(code, errors.ServerError)
    if cls is errors.ServiceUnavailable:
        msg = f"service unavailable at {target}: {details}"
    elif cls is errors.DeadlineExceeded:
        msg = f"deadline exceeded calling {target}"
    else:
        msg = details
    return cls(msg, code=code.name if code is not None else None)


def _duration(seconds: float | None) -> duration_pb2.Duration | None:
    if seconds is None:
        return None
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(round(seconds * 1e9)))
    return d


def _patch_ref(key: int | str, count: int = 1, required: bool = False) -> pb.PatchRef:
    ref = pb.PatchRef(count=count, required=required)
    if isinstance(key, int):
        ref.id = key
    else:
        ref.shape = key
    return ref


def _refs(keys: Sequence[int | str]) -> list[pb.PatchRef]:
    """Repeated keys become one ref with a count (the service forbids duplicates)."""
    counts: dict[int | str, int] = {}
    for k in keys:
        counts[k] = counts.get(k, 0) + 1
    return [_patch_ref(k, n) for k, n in counts.items()]


def _cell(msg: pb.Cell | None, present: bool) -> tuple[int, int] | None:
    return (msg.row, msg.col) if present else None


def _placed(msg: pb.PlacedPatch, width: int = BOARD_SIZE, key: Any = None) -> PlacedPatch:
    if key is None:
        key = msg.id if msg.WhichOneof("kind") == "id" else msg.shape
    return PlacedPatch(key=key, orientation=msg.orientation,
                       mask=mask_of(((c.row, c.col) for c in msg.cells), width), width=width)


def _seconds(d: duration_pb2.Duration) -> float:
    return d.seconds + d.nanos / 1e9


class PlacementClient:
    """Client of the ``patchwork.v1.PlacementService``.

    ``target`` is any gRPC target: ``HOST:PORT``, ``ipv4:HOST:P1,HOST:P2`` or
    ``dns:///NAME:PORT``; calls are balanced round-robin over its addresses.
    Each call has a ``deadline`` (seconds; stretched to the request's time
    limit plus a little slack); calls failing with ``UNAVAILABLE`` are retried
    up to ``retries`` times with exponential backoff; every failure is raised
    as a :class:`clients.errors.ClientError`.
    """

    def __init__(self, target: str, *, deadline: float = 5.0, retries: int = 3,
                 backoff: float = 0.1, seed: int = 0,
                 options: Sequence[tuple[str, Any]] = ()) -> None:
        if not isinstance(target, str) or not target.strip():
            raise errors.InvalidArgument("server target is empty; expected HOST:PORT")
        if not deadline > 0:
            raise errors.InvalidArgument(f"bad deadline {deadline!r}: it must be > 0")
        if retries < 0:
            raise errors.InvalidArgument(f"bad retries {retries!r}: it must be >= 0")
        self.target = target.strip()
        self.deadline = float(deadline)
        self.retries = int(retries)
        self.backoff = backoff
        self.seed = seed
        opts = [
            ("grpc.lb_policy_name", "round_robin"),
            ("grpc.service_config", json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})),
            # Our own retry loop handles UNAVAILABLE; keep gRPC's out of it.
            ("grpc.enable_retries", 0),
            *options,
        ]
        self._channel = grpc.insecure_channel(self.target, options=opts)
        self._stub = pb_grpc.PlacementServiceStub(self._channel)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    # -- plumbing ---------------------------------------------------------
    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "PlacementClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PlacementClient({self.target!r}, deadline={self.deadline})"

    def _call(self, method: Callable, request, time_limit: float | None = None):
        deadline = self.deadline if time_limit is None else max(self.deadline, time_limit + DEADLINE_SLACK)
        attempt = 0
        while True:
            try:
                return method(request, timeout=deadline)
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE or attempt >= self.retries:
                    raise error_from_rpc(e, self.target) from None
            # Exponential backoff with a little jitter, so many clients
            # restarting together do not retry in lock step.
            with self._lock:
                jitter = self._rng.uniform(0.8, 1.2)
            time.sleep(self.backoff * (2 ** attempt) * jitter)
            attempt += 1

    # -- the API ----------------------------------------------------------
    def solve_placement(self, board: Board | Sequence[str], patches: Sequence[int | str], *,
                        objective: str | Objective = "cover",
                        time_limit: float | None = None) -> PlacementResult:
        mask, keys, obj, tl = placement_inputs(board, patches, objective, time_limit)
        req = pb.SolvePlacementRequest(
            board=pb.Board(rows=board_to_rows(mask)), patches=_refs(keys),
            objective=pb.OBJECTIVE_SQUARE7 if obj is Objective.SQUARE7 else pb.OBJECTIVE_COVER,
            time_limit=_duration(tl), seed=self.seed)
        r = self._call(self._stub.SolvePlacement, req, tl)
        placements = tuple(_placed(p) for p in r.placements)
        return PlacementResult(
            status=_STATUS.get(r.status, SolveStatus.UNKNOWN), placements=placements,
            objective=r.covered, bound=r.bound, empty_before=r.empty_before,
            empty_after=r.empty_after, square7=_cell(r.square7, r.HasField("square7")),
            wall_time=_seconds(r.solve_time))

    def suggest_placement(self, board: Board | Sequence[str], patch_id: int | str,
                          upcoming: Sequence[int | str] = (), *, square7: bool = False,
                          time_limit: float | None = None, top: int | None = None) -> LookaheadResult:
        mask, key, ups, tl, top = lookahead_inputs(board, patch_id, upcoming, time_limit, top)
        req = pb.SuggestPlacementRequest(
            board=pb.Board(rows=board_to_rows(mask)), patch=_patch_ref(key), upcoming=_refs(ups),
            objective=pb.OBJECTIVE_SQUARE7 if square7 else pb.OBJECTIVE_COVER,
            top=top or 0, time_limit=_duration(tl), seed=self.seed)
        r = self._call(self._stub.SuggestPlacement, req, tl)
        ranked = tuple(
            RankedPlacement(placement=_placed(rp.placement, key=key), value=rp.value, bound=rp.bound,
                            proven=rp.proven, square7=_cell(rp.square7, rp.HasField("square7")))
            for rp in r.ranked)
        return LookaheadResult(status=_STATUS.get(r.status, SolveStatus.UNKNOWN), ranked=ranked,
                               wall_time=_seconds(r.solve_time))

    def suggest_move(self, state: Any, *, time_limit: float | None = None, top: int | None = None,
                     iterations: int | None = None) -> list:
        from engine.actions import parse_action
        from engine.suggest import MoveSuggestion

        text = _state_json(state)
        tl = check_time_limit(time_limit)
        top = check_top(top)
        iterations = check_iterations(iterations)
        req = pb.SuggestMoveRequest(state_json=text, top=top or 0, time_limit=_duration(tl), seed=self.seed,
                                    iterations=iterations or 0)
        try:
            r = self._call(self._stub.SuggestMove, req, tl)
        except errors.InvalidArgument as e:
            # The service refuses a finished game (FAILED_PRECONDITION); the
            # embedded client answers "no move", and so do we.
            if e.code == "FAILED_PRECONDITION" and _is_terminal(text):
                return []
            raise
        return [MoveSuggestion(parse_action(s.move.text), s.value, s.reason) for s in r.suggestions]

    def solve_puzzle(self, region_rows_: Sequence[str] | str, pieces: Sequence[int | str | Shape], *,
                     count: bool = False, mirror: bool = True, use_all: bool = True,
                     max_tilings: int = 1, time_limit: float | None = None) -> PuzzleResult:
        rows = region_rows(region_rows_)
        shapes = piece_shapes(pieces)
        tl = check_time_limit(time_limit)
        req = pb.SolvePuzzleRequest(
            region=pb.Region(rows=rows), pieces=[s.to_str() for s in shapes],
            mode=pb.PUZZLE_MODE_COUNT if count else pb.PUZZLE_MODE_FIND,
            no_mirror=not mirror, allow_unused=not use_all, max_tilings=max_tilings,
            time_limit=_duration(tl))
        r = self._call(self._stub.SolvePuzzle, req, tl)
        width = r.width or len(rows[0])
        tilings = tuple(
            tuple(_placed(p, width, key=_piece_key(p, shapes)) for p in t.placements) for t in r.tilings)
        return PuzzleResult(
            status=_STATUS.get(r.status, SolveStatus.UNKNOWN), tilings=tilings,
            count=r.count if r.HasField("count") else None,
            distinct=r.distinct if r.HasField("distinct") else None,
            wall_time=_seconds(r.solve_time), width=width, height=r.height or len(rows))

    def list_patches(self) -> list[Patch]:
        r = self._call(self._stub.ListPatches, pb.ListPatchesRequest())
        return [Patch(p.id, Shape.parse(p.shape), p.buttons, p.time, p.income) for p in r.patches]


def _piece_key(msg: pb.PlacedPatch, shapes: list[Shape]) -> Any:
    from .embedded import puzzle_piece_key

    return puzzle_piece_key(msg.patch_index, shapes)


def _is_terminal(text: str) -> bool:
    from .embedded import load_state

    try:
        return load_state(text).is_terminal()
    except errors.ClientError:
        return False


def _state_json(state: Any) -> str:
    """A game state as the engine's JSON text (state object, dict or text)."""
    if isinstance(state, str):
        return state
    if isinstance(state, dict):
        return json.dumps(state)
    to_json = getattr(state, "to_json", None)
    if to_json is None:
        raise errors.InvalidArgument("state must be a GameState, a dict or JSON text")
    out = to_json()
    return out if isinstance(out, str) else json.dumps(out)
