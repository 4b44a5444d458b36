"""What both gRPC clients (:class:`clients.PlacementClient` and
:class:`clients.AsyncPlacementClient`) share: the channel set-up (service
config with the retry policy and round-robin balancing, TLS credentials,
bearer-token metadata), building each request from plain Python values
(:mod:`clients.inputs` converts them; every range and limit is the
service's check, so every client gets the service's refusal), and reading
each response back into the solver's dataclasses.

>>> cfg = json.loads(service_config(retries=3, backoff=0.1))
>>> cfg["loadBalancingConfig"], cfg["methodConfig"][0]["retryPolicy"]["maxAttempts"]
([{'round_robin': {}}], 4)
>>> call_timeout(5.0, None), call_timeout(5.0, 10.0)
(5.0, 12.0)
"""

from __future__ import annotations

import json
import os
from collections import abc
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence  # noqa: F401

import grpc
from google.protobuf import duration_pb2

from quiltsolve.engine.analysis import Analysis, AnalyzedMove
from quiltsolve.engine.review import MoveReview
from quiltsolve.engine.solve import SolveUpdate
from quiltsolve.engine.suggest import MoveSuggestion
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server import positions
from quiltsolve.server.errors import GAME_OVER, field_of
from quiltsolve.solver.geometry import BOARD_SIZE, Board, Shape, mask_of
from quiltsolve.solver.limits import DEFAULT_ITERATIONS_LIMIT, DEFAULT_SUGGEST_LIMIT, MAX_ANALYSIS_TIME
from quiltsolve.solver.limits import DEFAULT_SOLVE_POSITION_LIMIT
from quiltsolve.solver.patches import Patch
from quiltsolve.solver.puzzle.generate import GeneratedPuzzle
from quiltsolve.solver.types import (
    LookaheadResult, Objective, PlacedPatch, PlacementResult, PuzzleResult, RankedPlacement,
    SolveStatus,
)

from . import errors
from .inputs import (
    DEFAULT_TIME_PER_MOVE, PatchKey, PatchSpec, board_rows, flag, fraction, game_state, int32, int_list,
    objective_of,
    optional_int32, patch_counts, patch_key, patch_keys, piece_texts, puzzle_method, read_bytes, record_message,
    region_rows, seconds,
)
from .results import MoveSuggestions

SERVICE = "patchwork.v1.PlacementService"
# Extra deadline beyond a requested time limit: the server answers with what
# it found when the limit passes, so the call needs a little longer than it.
DEADLINE_SLACK = 2.0
# gRPC makes at most 5 attempts of one call, whatever the policy says.
MAX_RETRIES = 4
MAX_BACKOFF = 2.0

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
    grpc.StatusCode.UNAUTHENTICATED: errors.Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: errors.Unauthenticated,
}


# ------------------------------------------------------------------ errors
def error_from_rpc(err: grpc.RpcError, target: str = "") -> errors.ClientError:
    """The :class:`~clients.errors.ClientError` for a failed call."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    details = (err.details() if hasattr(err, "details") else None) or str(code)
    return error_from_status(code, details, target)


def error_from_status(code: grpc.StatusCode | None, details: str, target: str = "") -> errors.ClientError:
    """The :class:`~clients.errors.ClientError` for a status code and its details (any face's)."""
    cls = _CODES.get(code, errors.ServerError) if code is not None else errors.ServerError
    if cls is errors.ServiceUnavailable:
        msg = f"service unavailable at {target}: {details}"
    elif cls is errors.DeadlineExceeded:
        msg = f"deadline exceeded calling {target}"
    elif cls is errors.Unauthenticated:
        msg = f"the service at {target} refused the credentials: {details}"
    else:
        msg = details
    name = code.name if code is not None else None
    field = field_of(details) if name in ("INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE") else None
    return cls(msg, code=name, field=field)


# ----------------------------------------------------------------- channel
def _seconds_text(seconds: float) -> str:
    return f"{seconds:.3f}".rstrip("0").rstrip(".") + "s"


def service_config(retries: int, backoff: float) -> str:
    """The channel's service config (JSON): round-robin over every address of
    the target, and calls failing with UNAVAILABLE retried by gRPC itself up
    to ``retries`` times, with exponential backoff from ``backoff`` seconds
    (gRPC waits a random time up to the current backoff, doubled each retry,
    at most 2 s)."""
    config: dict[str, Any] = {"loadBalancingConfig": [{"round_robin": {}}]}
    if retries > 0:
        config["methodConfig"] = [{
            "name": [{"service": SERVICE}],
            "retryPolicy": {
                "maxAttempts": retries + 1,
                "initialBackoff": _seconds_text(backoff),
                "maxBackoff": _seconds_text(max(backoff, MAX_BACKOFF)),
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"],
            },
        }]
    return json.dumps(config, sort_keys=True)


def _pem(value: bytes | str | os.PathLike[str] | None, what: str) -> bytes | None:
    """PEM data given as bytes, or read from a path."""
    if value is None:
        return None
    if isinstance(value, bytes):
        data = value
    elif isinstance(value, (str, os.PathLike)):
        data = read_bytes(os.fspath(value))
    else:
        raise errors.InvalidArgument(f"bad {what}: give PEM bytes or a file path")
    if b"-----BEGIN " not in data:
        raise errors.InvalidArgument(f"bad {what}: not PEM data (no '-----BEGIN' line)")
    return data


def channel_credentials(ca: bytes | str | os.PathLike[str] | None = None,
                        cert: bytes | str | os.PathLike[str] | None = None,
                        key: bytes | str | os.PathLike[str] | None = None) -> grpc.ChannelCredentials:
    """TLS credentials: the server is checked against ``ca`` (PEM; default the
    system's roots); ``cert`` and ``key`` (together) are the client's own
    certificate for servers that ask for one (mutual TLS)."""
    if (cert is None) != (key is None):
        raise errors.InvalidArgument("a client certificate needs both cert and key")
    return grpc.ssl_channel_credentials(root_certificates=_pem(ca, "ca"), private_key=_pem(key, "key"),
                                        certificate_chain=_pem(cert, "cert"))


def auth_metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    """The call metadata carrying a bearer token (``authorization: Bearer ...``)."""
    if token is None:
        return ()
    if not isinstance(token, str):
        raise errors.InvalidArgument("bad token: it must be a string")
    token = token.strip()
    if not token or not all(33 <= ord(ch) <= 126 for ch in token):
        raise errors.InvalidArgument("bad token: it must be non-empty printable ASCII without spaces")
    return (("authorization", f"Bearer {token}"),)


@dataclass(frozen=True)
class ChannelSettings:
    """A gRPC client's checked settings: where to connect and how."""

    target: str
    deadline: float
    retries: int
    backoff: float
    seed: int
    options: tuple[tuple[str, Any], ...]
    credentials: grpc.ChannelCredentials | None
    metadata: tuple[tuple[str, str], ...]

    @classmethod
    def make(cls, target: str, *, deadline: float, retries: int, backoff: float, seed: int,
             options: Iterable[tuple[str, Any]], tls: bool, ca: Any, cert: Any, key: Any,
             token: str | None) -> "ChannelSettings":
        """Check every constructor argument of a gRPC client (``InvalidArgument`` if bad)."""
        if not isinstance(target, str) or not target.strip():
            raise errors.InvalidArgument("server target is empty; expected HOST:PORT")
        if isinstance(deadline, bool) or not isinstance(deadline, (int, float)) or not 0 < deadline < 1e6:
            raise errors.InvalidArgument(f"bad deadline {deadline!r}: it must be > 0 seconds")
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= MAX_RETRIES:
            raise errors.InvalidArgument(f"bad retries {retries!r}: it must be 0-{MAX_RETRIES} "
                                         f"(gRPC makes at most {MAX_RETRIES + 1} attempts)")
        if isinstance(backoff, bool) or not isinstance(backoff, (int, float)) or not 0.001 <= backoff <= 60:
            raise errors.InvalidArgument(f"bad backoff {backoff!r}: it must be 0.001-60 seconds")
        if not tls and (ca is not None or cert is not None or key is not None):
            raise errors.InvalidArgument("ca, cert and key are TLS settings: pass tls=True as well")
        opts = [(k, v) for k, v in options]
        if any(k == "grpc.service_config" for k, _ in opts):
            raise errors.InvalidArgument("options: the client sets grpc.service_config itself "
                                         "(round-robin, and the retry policy from retries and backoff)")
        opts.append(("grpc.service_config", service_config(retries, float(backoff))))
        return cls(target=target.strip(), deadline=float(deadline), retries=retries, backoff=float(backoff),
                   seed=int32(seed, "seed"), options=tuple(opts),
                   credentials=channel_credentials(ca, cert, key) if tls else None,
                   metadata=auth_metadata(token))

    def open_channel(self, api: Any) -> Any:
        """A channel to ``target`` from ``api``: the ``grpc`` module (sync) or ``grpc.aio``."""
        if self.credentials is None:
            return api.insecure_channel(self.target, options=list(self.options))
        return api.secure_channel(self.target, self.credentials, options=list(self.options))


def call_timeout(deadline: float, time_limit: float | None) -> float:
    """A call's deadline in seconds: ``deadline``, stretched to the request's
    time limit plus :data:`DEADLINE_SLACK`."""
    return deadline if time_limit is None else max(deadline, time_limit + DEADLINE_SLACK)


# ---------------------------------------------------------------- requests
def _duration(seconds: float | None) -> duration_pb2.Duration | None:
    if seconds is None:
        return None
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(round(seconds * 1e9)))
    return d


def _seconds(d: duration_pb2.Duration) -> float:
    return d.seconds + d.nanos / 1e9


def _patch_ref(key: PatchKey, count: int = 1, required: bool = False) -> pb.PatchRef:
    ref = pb.PatchRef(count=count, required=required)
    if isinstance(key, int):
        ref.id = key
    else:
        ref.shape = key
    return ref


def _refs(keys: Sequence[PatchKey]) -> list[pb.PatchRef]:
    """Repeated keys become one ref with a count (the service forbids duplicates and checks the counts)."""
    return [_patch_ref(k, min(n, 2**31 - 1)) for k, n in patch_counts(keys).items()]


def _objective(objective: str | Objective) -> pb.Objective:
    return pb.OBJECTIVE_SQUARE7 if objective_of(objective) is Objective.SQUARE7 else pb.OBJECTIVE_COVER


@dataclass(frozen=True)
class Call:
    """One request: what to send, and what to read the answer with."""

    method: str                 # the stub's attribute, e.g. "SolvePlacement"
    request: Any                # the protobuf request message
    time_limit: float | None    # seconds, for the call's deadline
    context: Any = None         # what the response parser needs besides the response


# Each builder only converts Python values into the request (InvalidArgument, naming the field, for a value
# that cannot be put in it); the service checks every range and limit and answers INVALID_ARGUMENT.
def solve_placement_call(board: Board | Sequence[str], patches: Sequence[PatchSpec], objective: str | Objective,
                         time_limit: float | None, seed: int) -> Call:
    """The ``SolvePlacement`` call for :meth:`PlacementClient.solve_placement`."""
    rows = board_rows(board)
    keys = patch_keys(patches, "patches")
    tl = seconds(time_limit, "time_limit")
    req = pb.SolvePlacementRequest(board=pb.Board(rows=rows), patches=_refs(keys), objective=_objective(objective),
                                   time_limit=_duration(tl), seed=int32(seed, "seed"))
    return Call("SolvePlacement", req, tl)


def suggest_placement_call(board: Board | Sequence[str], patch_id: PatchSpec, upcoming: Sequence[PatchSpec],
                           square7: bool, time_limit: float | None, top: int | None, seed: int) -> Call:
    """The ``SuggestPlacement`` call for :meth:`PlacementClient.suggest_placement`."""
    rows = board_rows(board)
    key = patch_key(patch_id, "patch")
    ups = patch_keys(upcoming, "upcoming")
    tl = seconds(time_limit, "time_limit")
    req = pb.SuggestPlacementRequest(
        board=pb.Board(rows=rows), patch=_patch_ref(key), upcoming=_refs(ups),
        objective=pb.OBJECTIVE_SQUARE7 if square7 else pb.OBJECTIVE_COVER,
        top=0 if top is None else int32(top, "top"), time_limit=_duration(tl), seed=int32(seed, "seed"))
    return Call("SuggestPlacement", req, tl, key)


def suggest_move_call(state: Any, time_limit: float | None, top: int | None, iterations: int | None,
                      seed: int) -> Call:
    """The ``SuggestMove`` call for :meth:`PlacementClient.suggest_move`."""
    game = game_state(state)
    tl = seconds(time_limit, "time_limit")
    req = pb.SuggestMoveRequest(state=positions.to_message(game), top=0 if top is None else int32(top, "top"),
                                time_limit=_duration(tl), seed=int32(seed, "seed"),
                                iterations=optional_int32(iterations, "iterations", "use the time limit"))
    return Call("SuggestMove", req, tl, game)


def analyze_position_call(state: Any, iterations: int | None, time_limit: float | None, until_cancelled: bool,
                          top: int | None, report_interval: float | None, seed: int) -> Call:
    """The ``AnalyzePosition`` call for :meth:`PlacementClient.analyze_position`. Its ``time_limit`` is the
    whole stream's budget: the thinking time (1 s unset), 60 s with an iteration budget, or, until
    cancelled, the service's cap (600 s); the deadline adds :data:`DEADLINE_SLACK`.

    >>> c = analyze_position_call("r 0,5,-,0 0,5,-,0 takbu68n1f9gopmeqs7hrjc4i32wd5vl0 0 -", None, None, True, 3,
    ...                           0.1, 0)
    >>> c.request.until_cancelled, c.request.top, c.request.report_interval.nanos, c.time_limit
    (True, 3, 100000000, 600.0)
    """
    game = game_state(state)
    tl = seconds(time_limit, "time_limit")
    interval = seconds(report_interval, "report_interval")
    open_ended = flag(until_cancelled, "until_cancelled")
    its = optional_int32(iterations, "iterations", "think for time_limit")
    req = pb.AnalyzePositionRequest(state=positions.to_message(game), top=0 if top is None else int32(top, "top"),
                                    seed=int32(seed, "seed"), iterations=its, time_limit=_duration(tl),
                                    until_cancelled=open_ended, report_interval=_duration(interval))
    if open_ended:
        budget = MAX_ANALYSIS_TIME
    else:
        budget = tl if tl is not None else (DEFAULT_ITERATIONS_LIMIT if its else DEFAULT_SUGGEST_LIMIT)
    return Call("AnalyzePosition", req, budget, game)


def solve_position_call(state: Any, time_limit: float | None, report_interval: float | None,
                        table_mb: int | None) -> Call:
    """The ``SolvePosition`` call for :meth:`PlacementClient.solve_position`. Its ``time_limit`` is the whole
    stream's budget (60 s unset); the deadline adds :data:`DEADLINE_SLACK`.

    >>> c = solve_position_call("r 0,5,-,0 0,5,-,0 takbu68n1f9gopmeqs7hrjc4i32wd5vl0 0 -", 600, 1, 64)
    >>> c.method, c.request.time_limit.seconds, c.request.report_interval.seconds, c.request.table_mb, c.time_limit
    ('SolvePosition', 600, 1, 64, 600.0)
    """
    game = game_state(state)
    tl = seconds(time_limit, "time_limit")
    interval = seconds(report_interval, "report_interval")
    table = 0 if table_mb is None else int32(table_mb, "table_mb")
    req = pb.SolvePositionRequest(state=positions.to_message(game), time_limit=_duration(tl),
                                  report_interval=_duration(interval), table_mb=table)
    return Call("SolvePosition", req, tl if tl is not None else DEFAULT_SOLVE_POSITION_LIMIT, game)


def analyze_game_call(record: Any, iterations: int | None, time_per_move: float | None, seed: int,
                      large_loss: float) -> Call:
    """The ``AnalyzeGame`` call for :meth:`PlacementClient.analyze_game`. Its
    ``time_limit`` is the whole stream's budget: every move's cap (the time
    per move, or 60 s with an iteration budget) plus :data:`DEADLINE_SLACK`."""
    rec = record_message(record)
    its = optional_int32(iterations, "iterations", "think for time_per_move")
    tpm = seconds(time_per_move, "time_per_move")
    req = pb.AnalyzeGameRequest(record=rec, iterations=its, time_per_move=_duration(tpm), seed=int32(seed, "seed"),
                                large_loss=fraction(large_loss, "large_loss", "the default 0.1"))
    per_move = tpm if tpm is not None else (DEFAULT_ITERATIONS_LIMIT if its else DEFAULT_TIME_PER_MOVE)
    budget = max(1, len(rec.actions)) * (max(per_move, 0.0) + DEADLINE_SLACK)
    return Call("AnalyzeGame", req, budget, rec)


_METHODS = {"auto": pb.PUZZLE_METHOD_AUTO, "search": pb.PUZZLE_METHOD_SEARCH,
            "frontier": pb.PUZZLE_METHOD_FRONTIER}
_METHOD_NAMES = {pb.PUZZLE_METHOD_SEARCH: "search", pb.PUZZLE_METHOD_FRONTIER: "frontier"}


def solve_puzzle_call(region: Sequence[str] | str, pieces: Sequence[PatchSpec | Shape], count: bool,
                      mirror: bool, use_all: bool, max_tilings: int, time_limit: float | None,
                      unlimited: Sequence[PatchSpec | Shape] = (), method: str = "auto") -> Call:
    """The ``SolvePuzzle`` call for :meth:`PlacementClient.solve_puzzle`: ``unlimited`` shapes may be
    used any number of times; ``method`` is ``auto``, ``search`` or ``frontier``.

    >>> req = solve_puzzle_call(["...."], [], True, True, True, 1, None, unlimited=["##"], method="frontier").request
    >>> list(req.unlimited_pieces), req.method == pb.PUZZLE_METHOD_FRONTIER
    (['##'], True)
    """
    rows = region_rows(region)
    texts = piece_texts(pieces)
    endless = piece_texts(unlimited, "unlimited_pieces")
    tl = seconds(time_limit, "time_limit")
    req = pb.SolvePuzzleRequest(
        region=pb.Region(rows=rows), pieces=texts, unlimited_pieces=endless,
        mode=pb.PUZZLE_MODE_COUNT if count else pb.PUZZLE_MODE_FIND,
        no_mirror=not mirror, allow_unused=not use_all, max_tilings=int32(max_tilings, "max_tilings"),
        time_limit=_duration(tl), method=_METHODS[puzzle_method(method)])
    return Call("SolvePuzzle", req, tl, rows)


_FAMILIES = {"pentominoes": pb.PIECE_FAMILY_PENTOMINOES, "tetrominoes": pb.PIECE_FAMILY_TETROMINOES,
             "patches": pb.PIECE_FAMILY_PATCHES}
_DIFFICULTIES = {"easy": pb.PUZZLE_DIFFICULTY_EASY, "medium": pb.PUZZLE_DIFFICULTY_MEDIUM,
                 "hard": pb.PUZZLE_DIFFICULTY_HARD}


def _choice(value: str | None, names: dict[str, Any], field: str) -> Any:
    """An enum given by name (None: unset)."""
    if value is None:
        return 0
    if value not in names:
        raise errors.InvalidArgument(f"{field}: {value!r}; expected one of {', '.join(names)}", field=field)
    return names[value]


def generate_puzzle_call(size: tuple[int, int] | None, region: Sequence[str] | str | None, family: str | None,
                         pieces: Sequence[PatchSpec | Shape] | None, difficulty: str | None, seed: int,
                         time_limit: float | None) -> Call:
    """The ``GeneratePuzzle`` call for :meth:`PlacementClient.generate_puzzle`."""
    height, width = (0, 0) if size is None else size
    tl = seconds(time_limit, "time_limit")
    req = pb.GeneratePuzzleRequest(height=int32(height, "height"), width=int32(width, "width"),
                                   family=_choice(family, _FAMILIES, "family"),
                                   difficulty=_choice(difficulty, _DIFFICULTIES, "difficulty"),
                                   seed=int32(seed, "seed"), time_limit=_duration(tl))
    if region is not None:
        req.region.rows.extend(region_rows(region))
    if pieces is not None:
        req.pieces.extend(piece_texts(pieces))
    return Call("GeneratePuzzle", req, tl)


def generated_puzzle(r: pb.GeneratePuzzleResponse) -> GeneratedPuzzle:
    """A ``GeneratePuzzleResponse`` as a :class:`solver.puzzle.GeneratedPuzzle` (the solution's keys index
    the pieces)."""
    names = {v: k for k, v in _DIFFICULTIES.items()}
    return GeneratedPuzzle(
        status=_STATUS.get(r.status, SolveStatus.UNKNOWN), rows=tuple(r.region.rows), pieces=tuple(r.pieces),
        solution=tuple(_placed(p, r.width, key=p.patch_index) for p in r.solution.placements),
        count=r.count, distinct=r.distinct, nodes=r.difficulty_nodes, difficulty=names.get(r.difficulty, ""),
        attempts=r.attempts, wall_time=_seconds(r.solve_time), width=r.width, height=r.height)


def list_patches_call() -> Call:
    """The ``ListPatches`` call for :meth:`PlacementClient.list_patches`."""
    return Call("ListPatches", pb.ListPatchesRequest(), None)


class Reviews(abc.Iterator):
    """The reviews of an ``AnalyzeGame`` stream whose first response was pulled at once, so bad input
    (refused by the service before any move is reviewed) raises at the call; ``close()`` stops the
    stream (cancelling a gRPC call)."""

    def __init__(self, responses: Iterator[Any]) -> None:
        self._responses = responses
        self._first: Any = next(responses, None)

    def __iter__(self) -> "Reviews":
        return self

    def __next__(self) -> MoveReview:
        if self._first is not None:
            first, self._first = self._first, None
            return review_result(first)
        return review_result(next(self._responses))

    def close(self) -> None:
        """Stop reading: the rest of the stream is cancelled."""
        self._first = None
        close = getattr(self._responses, "close", None)
        if close is not None:
            close()


class Analyses(abc.Iterator):
    """The updates of an ``AnalyzePosition`` stream as :class:`engine.analysis.Analysis` values, the last one
    ``final``. The first update is pulled at once, so bad input (refused by the service before the search
    starts) raises at the call; a finished game is one final update with no moves (as the engine's
    ``analyze`` gives it), not an error. ``close()`` stops the analysis (cancelling a gRPC call)."""

    def __init__(self, responses: Iterator[Any], state: Any = None) -> None:
        self._responses = responses
        try:
            first = next(responses, None)
        except errors.ClientError as e:
            if not game_over(e):
                raise
            first = game_over_update(state)
        self._first: Any = first

    def __iter__(self) -> "Analyses":
        return self

    def __next__(self) -> Analysis:
        if self._first is not None:
            first, self._first = self._first, None
            return analysis_result(first)
        return analysis_result(next(self._responses))

    def close(self) -> None:
        """Stop reading: the analysis is cancelled."""
        self._first = None
        close = getattr(self._responses, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> "Analyses":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Solves(abc.Iterator):
    """The updates of a ``SolvePosition`` stream as :class:`engine.solve.SolveUpdate` values, the last one
    ``final``. The first update is pulled at once, so bad input (refused before the solver starts) raises at
    the call. ``close()`` stops the solve (cancelling a gRPC call); so does leaving a ``with`` block."""

    def __init__(self, responses: Iterator[Any]) -> None:
        self._responses = responses
        self._first: Any = next(responses, None)

    def __iter__(self) -> "Solves":
        return self

    def __next__(self) -> SolveUpdate:
        if self._first is not None:
            first, self._first = self._first, None
            return solve_update(first)
        return solve_update(next(self._responses))

    def close(self) -> None:
        """Stop reading: the solve is cancelled."""
        self._first = None
        close = getattr(self._responses, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> "Solves":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------- responses
def _cell(msg: pb.Cell, present: bool) -> tuple[int, int] | None:
    return (msg.row, msg.col) if present else None


def _placed(msg: pb.PlacedPatch, width: int = BOARD_SIZE, key: Any = None) -> PlacedPatch:
    if key is None:
        key = msg.id if msg.WhichOneof("kind") == "id" else msg.shape
    return PlacedPatch(key=key, orientation=msg.orientation,
                       mask=mask_of(((c.row, c.col) for c in msg.cells), width), width=width)


def placement_result(r: pb.SolvePlacementResponse) -> PlacementResult:
    """A ``SolvePlacementResponse`` as a :class:`solver.PlacementResult`."""
    return PlacementResult(
        status=_STATUS.get(r.status, SolveStatus.UNKNOWN), placements=tuple(_placed(p) for p in r.placements),
        objective=r.covered, bound=r.bound, empty_before=r.empty_before,
        empty_after=r.empty_after, square7=_cell(r.square7, r.HasField("square7")),
        wall_time=_seconds(r.solve_time))


def lookahead_result(r: pb.SuggestPlacementResponse, key: PatchKey) -> LookaheadResult:
    """A ``SuggestPlacementResponse`` as a :class:`solver.LookaheadResult`."""
    ranked = tuple(
        RankedPlacement(placement=_placed(rp.placement, key=key), value=rp.value, bound=rp.bound,
                        proven=rp.proven, square7=_cell(rp.square7, rp.HasField("square7")))
        for rp in r.ranked)
    return LookaheadResult(status=_STATUS.get(r.status, SolveStatus.UNKNOWN), ranked=ranked,
                           wall_time=_seconds(r.solve_time))


def move_result(r: pb.SuggestMoveResponse) -> MoveSuggestions:
    """A ``SuggestMoveResponse`` as :class:`MoveSuggestions` (a list of
    ``engine.suggest.MoveSuggestion``) with the search's ``iterations``,
    ``searched``, ``wall_time`` and ``proven``, as the service reported them (each move's
    ``proven_margin`` where the endgame solver proved it)."""
    moves = [MoveSuggestion(positions.move_of(s.move), s.win_chance, s.reason,
                            s.margin_buttons if s.HasField("margin_buttons") else None,
                            proven_margin=s.proven_margin if s.HasField("proven_margin") else None)
             for s in r.suggestions]
    return MoveSuggestions(moves, iterations=r.iterations, searched=r.searched, wall_time=_seconds(r.solve_time),
                           proven=r.proven)


def game_over(err: errors.ClientError) -> bool:
    """Whether a failed ``SuggestMove`` only means the game is over: the
    service refuses a finished game with FAILED_PRECONDITION, and every
    Python client answers an empty, ``terminal`` list instead."""
    return err.code == "FAILED_PRECONDITION" and GAME_OVER in str(err)


def move_answer(send: Callable[[], pb.SuggestMoveResponse]) -> MoveSuggestions:
    """The answer of a ``SuggestMove`` call made by ``send`` (any face): its moves, or
    none and ``terminal`` for a finished game."""
    try:
        response = send()
    except errors.ClientError as e:
        if game_over(e):
            return game_over_answer()
        raise
    return move_result(response)


def game_over_answer() -> MoveSuggestions:
    """What every Python client answers for a finished game: no move, ``terminal``."""
    return MoveSuggestions([], iterations=0, searched=False, wall_time=0.0, terminal=True)


def review_result(r: pb.AnalyzeGameResponse) -> MoveReview:
    """An ``AnalyzeGameResponse`` as an ``engine.review.MoveReview`` (what the
    embedded client yields too)."""
    return MoveReview(ply=r.ply, player=r.player, played=positions.move_of(r.played),
                      best=positions.move_of(r.best), value_played=r.value_played, value_best=r.value_best,
                      loss=r.loss, large=r.large,
                      margin_played=r.margin_played if r.HasField("margin_played") else None,
                      margin_best=r.margin_best if r.HasField("margin_best") else None,
                      loss_points=r.loss_points if r.HasField("loss_points") else None)


def game_over_update(state: Any) -> pb.AnalyzePositionUpdate:
    """What every Python client yields for a finished game's analysis: one final update, no moves."""
    return pb.AnalyzePositionUpdate(final=True, player=state.current_player() if state is not None else 0)


def analysis_result(r: pb.AnalyzePositionUpdate) -> Analysis:
    """An ``AnalyzePositionUpdate`` as an :class:`engine.analysis.Analysis` (what every client yields; the
    search tree's ``nodes`` and the proof's ``proof_nodes`` are not on the wire: 0)."""
    moves = tuple(AnalyzedMove(positions.move_of(m.move), m.win_chance, m.reason, m.visits,
                               m.mean_margin if m.HasField("mean_margin") else None,
                               m.proven_margin if m.HasField("proven_margin") else None,
                               tuple(positions.move_of(x) for x in m.principal_variation))
                  for m in r.moves)
    return Analysis(player=r.player, moves=moves, iterations=r.iterations, searched=r.searched, proven=r.proven,
                    final=r.final, elapsed=_seconds(r.elapsed))


SOLVE_REASONS = {pb.SOLVE_REASON_RUNNING: "running", pb.SOLVE_REASON_SOLVED: "solved",
                 pb.SOLVE_REASON_TIME_LIMIT: "time", pb.SOLVE_REASON_STOPPED: "stopped",
                 pb.SOLVE_REASON_GAME_OVER: "terminal"}
"""``SolveReason`` values as :attr:`engine.solve.SolveUpdate.reason`."""


def solve_update(r: pb.SolvePositionUpdate) -> SolveUpdate:
    """A ``SolvePositionUpdate`` as an :class:`engine.solve.SolveUpdate` (what every client yields)."""
    return SolveUpdate(player=r.player, lower=r.lower, upper=r.upper, nodes=r.nodes, elapsed=_seconds(r.elapsed),
                       line=tuple(positions.move_of(m) for m in r.line), final=r.final,
                       reason=SOLVE_REASONS.get(r.reason, "running"), probes=r.probes, table_full=r.table_full,
                       table_bytes=r.table_bytes)


def puzzle_result(r: pb.SolvePuzzleResponse, rows: list[str]) -> PuzzleResult:
    """A ``SolvePuzzleResponse`` as a :class:`solver.PuzzleResult` (piece keys
    are indexes into the pieces, as ``solver.solve_puzzle`` gives them)."""
    width = r.width or len(rows[0])
    tilings = tuple(
        tuple(_placed(p, width, key=p.patch_index) for p in t.placements)
        for t in r.tilings)
    return PuzzleResult(
        status=_STATUS.get(r.status, SolveStatus.UNKNOWN), tilings=tilings,
        count=exact_count(r.count_decimal, r.count if r.HasField("count") else None),
        distinct=exact_count(r.distinct_decimal, r.distinct if r.HasField("distinct") else None),
        wall_time=_seconds(r.solve_time), width=width, height=r.height or len(rows),
        method=_METHOD_NAMES.get(r.method))


def exact_count(decimal: str, fallback: int | None) -> int | None:
    """A count of any size from its decimal string (``count_decimal``); the int64 field when the
    string is empty (an older server sends only that).

    >>> exact_count("53060477521960000000000", None), exact_count("", 7), exact_count("", None)
    (53060477521960000000000, 7, None)
    """
    if not decimal:
        return fallback
    if not decimal.isdigit() or not decimal.isascii():
        raise errors.ServerError(f"the service sent a count that is not a decimal number: {decimal[:40]!r}")
    return int(decimal)


def patches_result(r: pb.ListPatchesResponse) -> list[Patch]:
    """A ``ListPatchesResponse`` as :class:`solver.Patch` objects."""
    return [Patch(p.id, Shape.parse(p.shape), p.buttons, p.time, p.income) for p in r.patches]


# ---------------------------------------------------------------- GameService (the game's helpers)
# The calls of patchwork.v1.GameService, for the clients' game methods (PlacementClient.new_game, ...):
# ``Call.method`` names a GameService RPC (the clients call it on a GameService stub, GAME_METHODS).
# Positions go in any form game_state reads, records in any form record_message reads; the answers are
# the response messages (their views typed: pb.GameView), the legal moves a list of texts, a notation text.

GAME_METHODS = frozenset(pb.DESCRIPTOR.services_by_name["GameService"].methods_by_name)
"""The GameService RPCs by name (``NewGame``, ...); every other method is PlacementService's."""


def new_game_call(seed: int | None, edition: str | None, circle: Any = None) -> Call:
    """The ``NewGame`` call: a deal from ``seed`` (None: a random one, returned in the record), or the game
    set up from ``circle`` (patch ids; the service checks them)."""
    req = pb.NewGameRequest(edition=edition or "")
    if seed is not None:
        req.seed = int32(seed, "seed")
    if circle is not None:
        req.circle.extend(int_list(circle, "circle"))
    return Call("NewGame", req, None)


def view_position_call(state: Any) -> Call:
    """The ``ViewPosition`` call: the position checked, normalised and drawn (``response.view``)."""
    return Call("ViewPosition", pb.ViewPositionRequest(state=positions.to_message(game_state(state))), None)


def legal_moves_call(state: Any, patch_id: int | None) -> Call:
    """The ``LegalMoves`` call (read it with :func:`legal_moves_result`)."""
    req = pb.LegalMovesRequest(state=positions.to_message(game_state(state)))
    if patch_id is not None:
        req.patch_id = int32(patch_id, "patch_id")
    return Call("LegalMoves", req, None)


def legal_moves_result(response: pb.LegalMovesResponse) -> list[str]:
    """The legal moves' text forms, in the engine's order."""
    return list(response.actions)


def apply_move_call(state: Any, move: Any) -> Call:
    """The ``ApplyMove`` call: ``move`` as text or an engine action (its text form is sent)."""
    text = move if isinstance(move, str) else getattr(move, "to_str", lambda: None)()
    if not isinstance(text, str):
        raise errors.InvalidArgument(f"move: expected a move's text form or an engine action, got "
                                     f"{type(move).__name__}", field="move")
    return Call("ApplyMove", pb.ApplyMoveRequest(state=positions.to_message(game_state(state)), move=text), None)


def engine_move_call(state: Any, strength: str, seed: int) -> Call:
    """The ``EngineMove`` call (a search strength gets SuggestMove's longest time in its deadline)."""
    if not isinstance(strength, str):
        raise errors.InvalidArgument(f"strength: expected text such as \"greedy\" or \"search:500it\", got "
                                     f"{type(strength).__name__}", field="strength")
    # The search's own limits are the service's (at most 60 s): the deadline leaves room for them.
    limit = DEFAULT_ITERATIONS_LIMIT if strength.strip().startswith("search") else None
    req = pb.EngineMoveRequest(state=positions.to_message(game_state(state)), strength=strength,
                               seed=int32(seed, "seed"))
    return Call("EngineMove", req, limit)


def replay_game_call(record: Any) -> Call:
    """The ``ReplayGame`` call: every position of a record."""
    return Call("ReplayGame", pb.ReplayGameRequest(record=record_message(record)), None)


def load_position_call(text: str, plies: int | None) -> Call:
    """The ``LoadPosition`` call: a position or record from text."""
    if not isinstance(text, str):
        raise errors.InvalidArgument(f"text: expected text, got {type(text).__name__}", field="text")
    req = pb.LoadPositionRequest(text=text)
    if plies is not None:
        req.plies = int32(plies, "plies")
    return Call("LoadPosition", req, None)


def position_notation_call(state: Any) -> Call:
    """The ``PositionNotation`` call (read it with :func:`notation_result`)."""
    return Call("PositionNotation", pb.PositionNotationRequest(state=positions.to_message(game_state(state))), None)


def notation_result(response: pb.PositionNotationResponse) -> str:
    """The position's one-line notation."""
    return response.notation
