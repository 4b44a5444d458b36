"""Bad input all the way down: values the schema lets through but the engine cannot hold,
and error details that quote client input only cut short."""

from __future__ import annotations

import json

import grpc
import pytest

from quiltsolve.patchwork.v1 import placement_pb2 as pb

from .conftest import play

MAX_DETAILS = 300


def _state(mutate) -> str:
    d = play(5, 9).to_json()
    mutate(d)
    return json.dumps(d)


def _call_state(stub, text: str) -> grpc.RpcError:
    req = pb.SuggestMoveRequest(state_json=text, iterations=10)
    with pytest.raises(grpc.RpcError) as err:
        stub.SuggestMove(req, timeout=30)
    return err.value


def _set_buttons(value):
    def f(d):
        d["players"][0]["buttons"] = value
    return f


@pytest.mark.parametrize("name, mutate, wants", [
    ("huge buttons", _set_buttons(10**400), "players[0].buttons"),
    ("float buttons", _set_buttons(5.5), "players[0].buttons"),
    ("integral float buttons", _set_buttons(5.0), "players[0].buttons"),
    ("bool buttons", _set_buttons(True), "players[0].buttons"),
    ("long unknown key", lambda d: d.update({"k" * 15000: 1}), "kkkk"),
    ("lone surrogate key", lambda d: d.update({"\ud800": 1}), "state_json"),
    ("huge position", lambda d: d["players"][1].update(position=2**70), "players[1].position"),
])
def test_bad_state_values_are_invalid_argument_with_short_details(stub, name, mutate, wants):
    err = _call_state(stub, _state(mutate))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, (name, err.details())
    details = err.details()
    assert details.startswith("state_json") and wants in details, details
    assert len(details) <= MAX_DETAILS
    for internal in ("Traceback", "Error:", "Exception", "object at 0x"):
        assert internal not in details, details


def test_nested_json_is_invalid_argument(stub):
    err = _call_state(stub, "[" * 20000 + "]" * 20000)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert len(err.details()) <= MAX_DETAILS


def test_a_number_too_long_for_int_is_invalid_argument_naming_it(stub):
    """json.loads raises a plain ValueError (not a JSONDecodeError) for more digits than
    sys.get_int_max_str_digits(): the codecs name it like any other bad JSON."""
    err = _call_state(stub, '{"seed": ' + "9" * 5000 + "}")
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.details() == "state_json: not valid JSON: a number has too many digits"


def test_long_shape_text_is_quoted_short(stub):
    req = pb.SolvePlacementRequest(board=pb.Board(rows=["." * 9] * 9), objective=pb.OBJECTIVE_COVER,
                                   patches=[pb.PatchRef(shape="#" * 5000)])
    with pytest.raises(grpc.RpcError) as err:
        stub.SolvePlacement(req, timeout=10)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details().startswith("patches[0].shape") and len(err.value.details()) <= MAX_DETAILS
