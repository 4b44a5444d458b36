"""A table of bad requests, each with the status code and the field it must name."""

from __future__ import annotations

import json

import grpc
import pytest
from google.protobuf import duration_pb2

from quiltsolve.patchwork.v1 import placement_pb2 as pb

from .conftest import MIDGAME_BOARD, play

INVALID = grpc.StatusCode.INVALID_ARGUMENT
OK_BOARD = pb.Board(rows=MIDGAME_BOARD)


def place(**kw) -> pb.SolvePlacementRequest:
    base = dict(board=OK_BOARD, patches=[pb.PatchRef(id=5)], objective=pb.OBJECTIVE_COVER)
    base.update(kw)
    return pb.SolvePlacementRequest(**base)


def suggest(**kw) -> pb.SuggestPlacementRequest:
    base = dict(board=OK_BOARD, patch=pb.PatchRef(id=5), objective=pb.OBJECTIVE_COVER)
    base.update(kw)
    return pb.SuggestPlacementRequest(**base)


def puzzle(**kw) -> pb.SolvePuzzleRequest:
    base = dict(region=pb.Region(rows=["...", "..."]), pieces=["##", "##", "##"], mode=pb.PUZZLE_MODE_FIND)
    base.update(kw)
    return pb.SolvePuzzleRequest(**base)


def dur(seconds: int, nanos: int = 0) -> duration_pb2.Duration:
    return duration_pb2.Duration(seconds=seconds, nanos=nanos)


def _state(mutate) -> str:
    d = play(5, 12).to_json()
    mutate(d)
    return json.dumps(d)


def _set(path, value):
    def f(d):
        node = d
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return f


def _finished() -> str:
    s = play(11, 10_000)
    assert s.is_terminal()
    return json.dumps(s.to_json())


CASES = [
    # (name, method, request (or a callable making it), expected code, text the details must contain)
    ("missing board", "SolvePlacement", place(board=None), INVALID, "board"),
    ("8 rows", "SolvePlacement", place(board=pb.Board(rows=MIDGAME_BOARD[:8])), INVALID, "board.rows"),
    ("short row", "SolvePlacement", place(board=pb.Board(rows=MIDGAME_BOARD[:3] + ["." * 8] + MIDGAME_BOARD[4:])),
     INVALID, "board.rows[3]"),
    ("bad board char", "SolvePlacement", place(board=pb.Board(rows=["x" * 9] + MIDGAME_BOARD[1:])), INVALID,
     "board.rows[0]"),
    ("no patches", "SolvePlacement", place(patches=[]), INVALID, "patches"),
    ("unknown patch id", "SolvePlacement", place(patches=[pb.PatchRef(id=1), pb.PatchRef(id=2), pb.PatchRef(id=40)]),
     INVALID, "patches[2].id: unknown patch id 40"),
    ("negative patch id", "SolvePlacement", place(patches=[pb.PatchRef(id=-7)]), INVALID, "patches[0].id"),
    ("patch kind unset", "SolvePlacement", place(patches=[pb.PatchRef(count=2)]), INVALID, "patches[0]"),
    ("empty shape", "SolvePlacement", place(patches=[pb.PatchRef(shape="")]), INVALID, "patches[0].shape"),
    ("disconnected shape", "SolvePlacement", place(patches=[pb.PatchRef(shape="#.#")]), INVALID,
     "patches[0].shape"),
    ("oversized shape", "SolvePlacement", place(patches=[pb.PatchRef(shape="#" * 10)]), INVALID,
     "patches[0].shape"),
    ("shape bad char", "SolvePlacement", place(patches=[pb.PatchRef(id=1), pb.PatchRef(shape="#x#")]), INVALID,
     "patches[1].shape"),
    ("negative count", "SolvePlacement", place(patches=[pb.PatchRef(id=3, count=-1)]), INVALID,
     "patches[0].count"),
    ("absurd count", "SolvePlacement", place(patches=[pb.PatchRef(id=3, count=100000)]), INVALID,
     "patches[0].count"),
    ("duplicate patch", "SolvePlacement", place(patches=[pb.PatchRef(id=3), pb.PatchRef(id=3)]), INVALID,
     "patches[1]"),
    ("too many patches", "SolvePlacement", place(patches=[pb.PatchRef(shape="#" * (i % 9 + 1) + "/" + "#" * (i // 9 + 1))
                                                          for i in range(65)]), INVALID, "patches"),
    ("objective unspecified", "SolvePlacement", place(objective=pb.OBJECTIVE_UNSPECIFIED), INVALID, "objective"),
    ("objective unknown", "SolvePlacement", place(objective=9), INVALID, "objective"),
    ("negative time limit", "SolvePlacement", place(time_limit=dur(-1)), INVALID, "time_limit"),
    ("zero time limit", "SolvePlacement", place(time_limit=dur(0)), INVALID, "time_limit"),
    ("absurd time limit", "SolvePlacement", place(time_limit=dur(3600)), INVALID, "time_limit"),
    ("malformed duration", "SolvePlacement", place(time_limit=dur(1, -5)), INVALID, "time_limit"),
    ("negative seed", "SolvePlacement", place(seed=-1), INVALID, "seed"),
    ("suggest: missing patch", "SuggestPlacement", suggest(patch=None), INVALID, "patch"),
    ("suggest: upcoming unknown id", "SuggestPlacement",
     suggest(upcoming=[pb.PatchRef(id=1), pb.PatchRef(id=99)]), INVALID, "upcoming[1].id"),
    ("suggest: negative top", "SuggestPlacement", suggest(top=-1), INVALID, "top"),
    ("suggest: objective unspecified", "SuggestPlacement", suggest(objective=0), INVALID, "objective"),
    ("suggest: board rows", "SuggestPlacement", suggest(board=pb.Board(rows=[])), INVALID, "board.rows"),
    ("move: empty state", "SuggestMove", pb.SuggestMoveRequest(), INVALID, "state: required"),
    ("move: not JSON", "SuggestMove", pb.SuggestMoveRequest(state_json="{nope"), INVALID, "state_json"),
    ("move: negative iterations", "SuggestMove",
     lambda: pb.SuggestMoveRequest(state_json=_state(lambda d: None), iterations=-1), INVALID, "iterations"),
    ("move: absurd iterations", "SuggestMove",
     lambda: pb.SuggestMoveRequest(state_json=_state(lambda d: None), iterations=10**9), INVALID, "iterations"),
    ("move: JSON list", "SuggestMove", pb.SuggestMoveRequest(state_json="[1, 2]"), INVALID, "state_json"),
    ("move: deep JSON", "SuggestMove", pb.SuggestMoveRequest(state_json="[" * 5000 + "]" * 5000), INVALID,
     "state_json"),
    ("move: negative buttons", "SuggestMove",
     lambda: pb.SuggestMoveRequest(state_json=_state(_set(["players", 0, "buttons"], -5))), INVALID,
     "players[0].buttons"),
    ("move: patch listed twice", "SuggestMove",
     lambda: pb.SuggestMoveRequest(state_json=_state(lambda d: d["circle"].__setitem__(1, d["circle"][0]))),
     INVALID, "circle"),
    ("move: board not an int", "SuggestMove",
     lambda: pb.SuggestMoveRequest(state_json=_state(_set(["players", 1, "board"], "x"))), INVALID,
     "players[1].board"),
    ("move: negative time limit", "SuggestMove",
     lambda: pb.SuggestMoveRequest(state_json=_state(lambda d: None), time_limit=dur(-3)), INVALID, "time_limit"),
    ("move: 40 KiB state", "SuggestMove", pb.SuggestMoveRequest(state_json=" " * 40_000), INVALID, "state_json"),
    ("move: game over", "SuggestMove", lambda: pb.SuggestMoveRequest(state_json=_finished()),
     grpc.StatusCode.FAILED_PRECONDITION, "game is over"),
    ("oversized message", "SuggestMove", pb.SuggestMoveRequest(state_json="x" * 70_000),
     grpc.StatusCode.RESOURCE_EXHAUSTED, ""),
    ("puzzle: missing region", "SolvePuzzle", puzzle(region=None), INVALID, "region"),
    ("puzzle: ragged rows", "SolvePuzzle", puzzle(region=pb.Region(rows=["...", ".."])), INVALID,
     "region.rows[1]"),
    ("puzzle: 21 rows", "SolvePuzzle", puzzle(region=pb.Region(rows=["."] * 21)), INVALID, "region.rows"),
    ("puzzle: no cells", "SolvePuzzle", puzzle(region=pb.Region(rows=["##"])), INVALID, "region.rows"),
    ("puzzle: no pieces", "SolvePuzzle", puzzle(pieces=[]), INVALID, "pieces"),
    ("puzzle: bad unlimited piece", "SolvePuzzle", puzzle(unlimited_pieces=["##", "#./.#"]), INVALID,
     "unlimited_pieces[1]"),
    ("puzzle: unlimited piece twice", "SolvePuzzle", puzzle(pieces=[], unlimited_pieces=["##", "#/#"]), INVALID,
     "unlimited_pieces[1]"),
    ("puzzle: a piece that is unlimited too", "SolvePuzzle", puzzle(pieces=["###", "##"], unlimited_pieces=["#/#"]),
     INVALID, "pieces[1]"),
    ("puzzle: 65 shapes in all", "SolvePuzzle", puzzle(pieces=["#"] * 60, unlimited_pieces=["#" * k for k in range(2, 7)]),
     INVALID, "unlimited_pieces"),
    ("puzzle: unknown method", "SolvePuzzle", puzzle(method=7), INVALID, "method"),
    ("puzzle: frontier finding", "SolvePuzzle", puzzle(method=pb.PUZZLE_METHOD_FRONTIER), INVALID, "method"),
    ("puzzle: disconnected piece", "SolvePuzzle", puzzle(pieces=["##", "#./.#"]), INVALID, "pieces[1]"),
    ("puzzle: mode unspecified", "SolvePuzzle", puzzle(mode=pb.PUZZLE_MODE_UNSPECIFIED), INVALID, "mode"),
    ("puzzle: absurd max_tilings", "SolvePuzzle", puzzle(max_tilings=5000), INVALID, "max_tilings"),
    ("puzzle: absurd time limit", "SolvePuzzle", puzzle(time_limit=dur(10**6)), INVALID, "time_limit"),
]


def test_table_is_big_enough():
    assert len(CASES) >= 20


@pytest.mark.parametrize("name,method,request_,code,text", CASES, ids=[c[0] for c in CASES])
def test_bad_request(stub, metrics, name, method, request_, code, text):
    req = request_() if callable(request_) else request_
    before = metrics.value("quiltsolve_calls_total", method=method, code="INTERNAL")
    with pytest.raises(grpc.RpcError) as err:
        getattr(stub, method)(req, timeout=20)
    assert err.value.code() == code, err.value.details()
    assert text in (err.value.details() or ""), err.value.details()
    assert metrics.value("quiltsolve_calls_total", method=method, code="INTERNAL") == before
