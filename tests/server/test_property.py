"""Random and garbage requests never get UNKNOWN or INTERNAL."""

from __future__ import annotations

import json

import grpc
from google.protobuf import duration_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server import SERVICE_NAME

from .conftest import play

FORBIDDEN = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}
METHODS = ["SolvePlacement", "SuggestPlacement", "SuggestMove", "SolvePuzzle", "ListPatches"]
SETTINGS = settings(max_examples=50, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _code(call) -> grpc.StatusCode:
    try:
        call()
    except grpc.RpcError as e:
        return e.code()
    return grpc.StatusCode.OK


@SETTINGS
@given(method=st.sampled_from(METHODS), data=st.binary(max_size=300))
def test_garbage_bytes(channel, method, data):
    raw = channel.unary_unary(f"/{SERVICE_NAME}/{method}")  # identity (de)serializers: bytes in, bytes out
    code = _code(lambda: raw(data, timeout=10))
    assert code not in FORBIDDEN, (method, data)
    assert code in (grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION)


# Half well-formed boards (so the solvers are reached), half anything.
rows = st.one_of(st.lists(st.text(alphabet=".#", min_size=9, max_size=9), min_size=9, max_size=9),
                 st.lists(st.text(alphabet=".#x", min_size=0, max_size=11), min_size=0, max_size=11))
GOOD_SHAPES = ["#", "##", "###", "#./##", "##./.##", ".#./###", "##/##", "#../###/..#", "#####"]
shape_text = st.one_of(st.sampled_from(GOOD_SHAPES), st.text(alphabet="#./ x", max_size=24))
patch_ref = st.builds(
    lambda kind, pid, shape, count, required: pb.PatchRef(id=pid, count=count, required=required) if kind
    else pb.PatchRef(shape=shape, count=count, required=required),
    st.booleans(), st.one_of(st.integers(0, 32), st.integers(-3, 40)), shape_text,
    st.one_of(st.integers(0, 3), st.integers(-2, 90)), st.booleans())
limit = st.one_of(st.none(), st.builds(lambda n: duration_pb2.Duration(nanos=n), st.integers(10**6, 5 * 10**7)),
                  st.builds(lambda s, n: duration_pb2.Duration(seconds=s, nanos=n),
                            st.integers(-2, 0), st.integers(-10**9, 10**8)))


def _with_limit(msg, d):
    if d is not None:
        msg.time_limit.CopyFrom(d)
    return msg


def _nine(rs):
    # Bias towards well-formed boards so the solver is reached as well.
    return rs if len(rs) != 9 else [(r + "." * 9)[:9] if "x" not in r else r for r in rs]


@SETTINGS
@given(rs=rows, refs=st.one_of(st.lists(st.builds(pb.PatchRef, id=st.integers(0, 32)), min_size=1, max_size=4),
                           st.lists(patch_ref, max_size=6)), objective=st.one_of(st.integers(1, 2), st.integers(-1, 4)), d=limit,
       seed=st.integers(-1, 5), top=st.integers(-1, 5), pick=st.booleans())
def test_random_placement_fields(stub, rs, refs, objective, d, seed, top, pick):
    board = pb.Board(rows=_nine(rs))
    if pick:
        req = pb.SolvePlacementRequest(board=board, patches=refs, objective=objective, seed=seed)
        call = stub.SolvePlacement
    else:
        req = pb.SuggestPlacementRequest(board=board, patch=refs[0] if refs else None, upcoming=refs[1:],
                                         objective=objective, seed=seed, top=top)
        call = stub.SuggestPlacement
    code = _code(lambda: call(_with_limit(req, d), timeout=10))
    assert code not in FORBIDDEN, req


@SETTINGS
@given(rs=st.one_of(st.integers(1, 6).flatmap(lambda w: st.lists(st.text(alphabet="....#", min_size=w, max_size=w),
                                                                   min_size=1, max_size=6)),
                    st.lists(st.text(alphabet=".#?", max_size=22), max_size=22)),
       pieces=st.one_of(st.lists(st.sampled_from(GOOD_SHAPES), min_size=1, max_size=6),
                      st.lists(shape_text, max_size=8)), mode=st.one_of(st.integers(1, 2), st.integers(-1, 3)), no_mirror=st.booleans(), allow_unused=st.booleans(), max_tilings=st.one_of(st.integers(0, 3), st.integers(-1, 200)),
       d=limit)
def test_random_puzzle_fields(stub, rs, pieces, mode, no_mirror, allow_unused, max_tilings, d):
    req = pb.SolvePuzzleRequest(region=pb.Region(rows=rs), pieces=pieces, mode=mode, no_mirror=no_mirror,
                                allow_unused=allow_unused, max_tilings=max_tilings)
    code = _code(lambda: stub.SolvePuzzle(_with_limit(req, d), timeout=10))
    assert code not in FORBIDDEN, req


_BASE = play(9, 16).to_json()
json_value = st.recursive(st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.text(max_size=5),
                          lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                                        max_size=4),
                          max_leaves=8)


@SETTINGS
@given(path=st.lists(st.sampled_from(["players", 0, 1, "board", "buttons", "position", "income", "patches",
                                      "leather", "bonus", "circle", "leather_spaces", "current_player",
                                      "leather_to_place", "first_to_end", "edition", 3]), min_size=1, max_size=3),
       value=json_value, delete=st.booleans(), top=st.integers(-1, 3))
def test_random_game_states(stub, path, value, delete, top):
    d = json.loads(json.dumps(_BASE))
    node = d
    for key in path[:-1]:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            break
    try:
        if delete:
            del node[path[-1]]
        else:
            node[path[-1]] = value
    except (KeyError, IndexError, TypeError):
        pass
    req = pb.SuggestMoveRequest(state_json=json.dumps(d), top=top,
                                time_limit=duration_pb2.Duration(nanos=100_000_000))
    code = _code(lambda: stub.SuggestMove(req, timeout=20))
    assert code not in FORBIDDEN, json.dumps(d)
