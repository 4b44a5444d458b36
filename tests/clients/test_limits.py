"""One set of limits (solver.limits), checked by the service alone: just over
each limit, the service refuses, and so do the embedded and the gRPC client
with the service's own refusal (the field it names, its message); at the
limit, the clients accept."""

from __future__ import annotations

import json

import grpc
import pytest
from google.protobuf import duration_pb2

from quiltsolve.clients import InvalidArgument
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pb_grpc
from quiltsolve.solver import limits

from .conftest import EMPTY, distinct_shapes

ROW = "." * 9


MANY = distinct_shapes(limits.MAX_PATCH_REFS + 1)


def _new_state() -> dict:
    from quiltsolve import engine

    return engine.new_game(1).to_json()


def _padded_state(extra: int) -> str:
    state = _new_state()
    text = json.dumps(state)
    state["padding"] = "x" * (limits.MAX_STATE_JSON - len(text) - len(', "padding": ""') + extra)
    out = json.dumps(state)
    assert len(out) == limits.MAX_STATE_JSON + extra
    return out


# What the service says (every client gets its refusal): the field it names, and its words.
NEEDLE = {
    "time limit": ("time_limit", "more than the maximum 60 s"), "top": ("top", "out of range 0-10000"),
    "iterations": ("iterations", "1-200000"), "patch refs": ("patches", "65 entries; at most 64"),
    "copies": ("patches[0].count", "out of range 0-81"), "upcoming copies": ("upcoming", "more than 128"),
    "shape text": ("patches[0].shape", "at most 512"), "shape on a board": ("patches[0].shape", "cannot fit a 9x9"),
    "pieces": ("pieces", "65 pieces; at most 64"), "tilings": ("max_tilings", "out of range 0-100"),
    "state size": ("state", "at most 32768"),
}

OVER = {
    "time limit": lambda c: c.solve_placement(EMPTY, [1], time_limit=limits.MAX_TIME_LIMIT + 0.5),
    "top": lambda c: c.suggest_placement(EMPTY, 1, [2], top=limits.MAX_TOP + 1),
    "iterations": lambda c: c.suggest_move(_new_state(), iterations=limits.MAX_ITERATIONS + 1),
    "patch refs": lambda c: c.solve_placement(EMPTY, MANY),
    "copies": lambda c: c.solve_placement(EMPTY, [1] * (limits.MAX_COUNT + 1)),
    "upcoming copies": lambda c: c.suggest_placement(EMPTY, 1, [0] * 80 + [2] * (limits.MAX_UPCOMING_COPIES - 79)),
    "shape text": lambda c: c.solve_placement(EMPTY, ["#" + "." * limits.MAX_SHAPE_TEXT]),
    "shape on a board": lambda c: c.solve_placement(EMPTY, ["#" * 10]),
    "pieces": lambda c: c.solve_puzzle(["." * 20] * 4, ["#"] * (limits.MAX_PIECES + 1), use_all=False),
    "tilings": lambda c: c.solve_puzzle(["..."], ["#"] * 3, max_tilings=limits.MAX_TILINGS + 1),
    "state size": lambda c: c.suggest_move(_padded_state(1), iterations=10),
}


@pytest.mark.parametrize("client_name", ["embedded", "remote"])
@pytest.mark.parametrize("limit", sorted(OVER))
def test_both_clients_refuse_just_over_the_limit(request, client_name, limit):
    client = request.getfixturevalue(client_name)
    field, needle = NEEDLE[limit]
    with pytest.raises(InvalidArgument, match=needle) as e:
        OVER[limit](client)
    assert e.value.field == field and str(e.value).startswith(f"{field}: "), str(e.value)


AT = {
    "time limit": lambda c: c.solve_placement(["#" * 9] * 8 + ["#######.."], [0], time_limit=limits.MAX_TIME_LIMIT),
    "copies": lambda c: c.solve_placement(["#" * 9] * 8 + ["#" + "." * 8], [-1] * limits.MAX_COUNT),
    "tilings": lambda c: c.solve_puzzle(["..."], ["#"] * 3, max_tilings=limits.MAX_TILINGS),
}


@pytest.mark.parametrize("client_name", ["embedded", "remote"])
@pytest.mark.parametrize("limit", sorted(AT))
def test_both_clients_accept_the_limit(request, client_name, limit):
    client = request.getfixturevalue(client_name)
    assert AT[limit](client).status.value in ("OPTIMAL", "FEASIBLE")


def _seconds(s: float) -> duration_pb2.Duration:
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(s * 1e9))
    return d


BOARD = pb.Board(rows=[ROW] * 9)
RAW_OVER = {
    "time limit": ("SolvePlacement", pb.SolvePlacementRequest(
        board=BOARD, patches=[pb.PatchRef(id=1)], objective=pb.OBJECTIVE_COVER,
        time_limit=_seconds(limits.MAX_TIME_LIMIT + 0.5))),
    "top": ("SuggestPlacement", pb.SuggestPlacementRequest(
        board=BOARD, patch=pb.PatchRef(id=1), objective=pb.OBJECTIVE_COVER, top=limits.MAX_TOP + 1)),
    "patch refs": ("SolvePlacement", pb.SolvePlacementRequest(
        board=BOARD, objective=pb.OBJECTIVE_COVER,
        patches=[pb.PatchRef(shape=s) for s in MANY])),
    "copies": ("SolvePlacement", pb.SolvePlacementRequest(
        board=BOARD, patches=[pb.PatchRef(id=1, count=limits.MAX_COUNT + 1)], objective=pb.OBJECTIVE_COVER)),
    "upcoming copies": ("SuggestPlacement", pb.SuggestPlacementRequest(
        board=BOARD, patch=pb.PatchRef(id=1), objective=pb.OBJECTIVE_COVER,
        upcoming=[pb.PatchRef(id=0, count=80), pb.PatchRef(id=2, count=limits.MAX_UPCOMING_COPIES - 79)])),
    "shape text": ("SolvePlacement", pb.SolvePlacementRequest(
        board=BOARD, patches=[pb.PatchRef(shape="#" + "." * limits.MAX_SHAPE_TEXT)], objective=pb.OBJECTIVE_COVER)),
    "pieces": ("SolvePuzzle", pb.SolvePuzzleRequest(
        region=pb.Region(rows=["." * 20] * 4), pieces=["#"] * (limits.MAX_PIECES + 1), mode=pb.PUZZLE_MODE_FIND,
        allow_unused=True)),
    "tilings": ("SolvePuzzle", pb.SolvePuzzleRequest(
        region=pb.Region(rows=["..."]), pieces=["#"] * 3, mode=pb.PUZZLE_MODE_FIND,
        max_tilings=limits.MAX_TILINGS + 1)),
    "iterations": ("SuggestMove", None),
    "state size": ("SuggestMove", None),
}


@pytest.mark.parametrize("limit", sorted(RAW_OVER))
def test_the_service_refuses_just_over_the_same_limits(port, limit):
    method, request = RAW_OVER[limit]
    if limit == "iterations":
        request = pb.SuggestMoveRequest(state_json=json.dumps(_new_state()), iterations=limits.MAX_ITERATIONS + 1)
    elif limit == "state size":
        request = pb.SuggestMoveRequest(state_json=_padded_state(1), iterations=10)
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        stub = pb_grpc.PlacementServiceStub(ch)
        with pytest.raises(grpc.RpcError) as e:
            getattr(stub, method)(request, timeout=20)
    assert e.value.code() is grpc.StatusCode.INVALID_ARGUMENT, e.value.details()


def test_limits_module_imports_nothing_heavy():
    import subprocess
    import sys

    code = "import sys, quiltsolve.solver.limits; print('ortools' in sys.modules, 'grpc' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.split() == ["False", "False"], r.stderr
