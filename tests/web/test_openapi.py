"""The OpenAPI document: valid, and it says exactly what the service accepts.

* the served ``/api/openapi.json`` passes openapi-spec-validator;
* every request body is ``type: object``; exclusive fields are ``oneOf``/``not``
  in schema terms, and the service refuses what they exclude, naming the field;
* real positions, records and the requests the other tests send fit its schemas;
* every operation's example answers 200; the links feed one answer into the next request.

Schemathesis runs every phase over every operation in ``test_api_contract.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from quiltsolve import engine
import jsonschema
import pytest
from openapi_spec_validator import validate as validate_spec

from quiltsolve.server import positions as web_positions
from quiltsolve.web.app import ENDPOINTS
from quiltsolve.web.calls import MAX_DEADLINE_MS
from quiltsolve.web.openapi import EXAMPLES_COMMAND, document, examples_markdown, links, request_examples
from quiltsolve.patchwork.v1 import placement_pb2 as pb

from ..server.conftest import play
from .test_api import full_record

DOC = document(ENDPOINTS)
SCHEMAS = DOC["components"]["schemas"]


def inline(schema):
    """``schema`` with every ``#/components/schemas/X`` reference replaced by X (no cycles here)."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            target = inline(SCHEMAS[schema["$ref"].rsplit("/", 1)[1]])
            rest = {k: inline(v) for k, v in schema.items() if k != "$ref"}
            return {**rest, "allOf": [target]} if rest else target
        return {k: inline(v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [inline(v) for v in schema]
    return schema


def validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(inline(SCHEMAS[name]))


# ---------------------------------------------------------------- the document itself

def test_served_document_passes_openapi_spec_validator(http):
    served = http.get("/api/openapi.json").json()
    validate_spec(served)  # raises on the first error
    assert served["openapi"] == "3.1.0"
    assert served["paths"].keys() == DOC["paths"].keys()


def test_document_states_the_enforced_limits():
    from quiltsolve.engine.state_json import MAX_BUTTONS
    from quiltsolve.solver.limits import MAX_ITERATIONS, MAX_TOP

    req = SCHEMAS["SolvePlacementRequest"]
    assert req["required"] == ["board", "patches", "objective"]
    assert req["properties"]["objective"]["enum"] == ["OBJECTIVE_COVER", "OBJECTIVE_SQUARE7"]
    assert SCHEMAS["SuggestMoveRequest"]["properties"]["top"]["maximum"] == MAX_TOP
    assert SCHEMAS["SuggestMoveRequest"]["properties"]["iterations"]["maximum"] == MAX_ITERATIONS
    assert SCHEMAS["PlayerState"]["properties"]["buttons"]["maximum"] == MAX_BUTTONS
    header = DOC["paths"]["/api/v1/solve-placement"]["post"]["parameters"][0]
    assert header["name"] == "X-Deadline-Ms" and header["schema"]["maximum"] == MAX_DEADLINE_MS
    limit = jsonschema.Draft202012Validator(req["properties"]["time_limit"])
    assert [limit.is_valid(t) for t in ["0s", "0.5s", "60s", "60.000000001s", "61s", "-1s", "1.5"]] == [
        False, True, True, False, False, False, False]


# ---------------------------------------------------------------- the request examples

EXAMPLES = request_examples()


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.name)
def test_every_operation_has_a_working_example(http, endpoint):
    # Issue 36, 10: the document had no request examples; each operation's example answers 200.
    body = EXAMPLES[endpoint.name]
    if endpoint.method == "GET":
        assert body is None and endpoint.request is None
        r = http.get(endpoint.path)
        assert r.status_code == 200, r.text
        return
    op = DOC["paths"][endpoint.path]["post"]
    assert op["requestBody"]["content"]["application/json"]["examples"]["small"]["value"] == body
    validator(endpoint.request).validate(body)
    r = http.post(endpoint.path, json=body)
    assert r.status_code == 200, r.text
    if endpoint.name == "AnalyzeGame":      # NDJSON: one review per move of the record
        lines = [json.loads(line) for line in r.text.splitlines()]
        assert len(lines) == len(body["record"]["actions"]) and all("error" not in x for x in lines)
    elif endpoint.streaming:                # NDJSON: updates, the last one final
        assert r.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in r.text.splitlines()]
        for line in lines:
            validator(endpoint.response).validate(line)
        assert lines[-1]["final"] and not any(x.get("final") for x in lines[:-1])
    else:       # the game paths' answers too: typed since GameService (issue 35)
        validator(endpoint.response).validate(r.json())


def test_docs_api_md_shows_the_examples():
    docs = (Path(__file__).parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    assert examples_markdown(ENDPOINTS) in docs, (
        "docs/api.md's HTTP examples are out of date; replace them with the output of " + EXAMPLES_COMMAND)


# ---------------------------------------------------------------- refused enum values are not offered

def _accepted_in(message: str) -> list[str]:
    assert "expected one of " in message, message
    return message.split("expected one of ", 1)[1].split(", ")


@pytest.mark.parametrize("op, field, bad", [
    ("SolvePuzzle", "mode", "PUZZLE_MODE_ANY"),
    ("SolvePlacement", "objective", "OBJECTIVE_NOPE"),
    ("SolvePlacement", "objective", 2**40),                   # an enum number beyond int32
    ("GeneratePuzzle", "family", "PIECE_FAMILY_HEXOMINOES"),
])
def test_a_bad_enum_value_lists_only_values_that_are_accepted(http, op, field, bad):
    # Issue 36, 10: the list offered PUZZLE_MODE_UNSPECIFIED, which is then refused ("required").
    path = next(e.path for e in ENDPOINTS if e.name == op)
    r = http.post(path, json={**EXAMPLES[op], field: bad})
    assert r.status_code == 400 and r.json()["error"]["field"] == field, r.text
    accepted = _accepted_in(r.json()["error"]["message"])
    assert accepted == [v for v in accepted if v in SCHEMAS[f"{op}Request"]["properties"][field]["enum"]]
    for name in accepted:       # every value offered is taken
        ok = http.post(path, json={**EXAMPLES[op], field: name})
        assert ok.status_code == 200, (name, ok.text)
    if field != "family":       # a required enum: its UNSPECIFIED value is refused, so not offered
        assert not any(v.endswith("_UNSPECIFIED") for v in accepted), accepted
        unset = http.post(path, json={**EXAMPLES[op], field: accepted[0].rsplit("_", 1)[0] + "_UNSPECIFIED"})
        assert unset.status_code == 400 and "required" in unset.json()["error"]["message"], unset.text


def test_the_accepted_enum_values_are_those_the_service_takes():
    # protojson's list of the enums a request must set agrees with the checks that refuse their zero values
    from quiltsolve.server import convert, positions
    from quiltsolve.server.protojson import REQUIRED_ENUMS, accepted_enum_names
    takes = {pb.Objective.DESCRIPTOR: convert.OBJECTIVES, pb.PuzzleMode.DESCRIPTOR: convert.PUZZLE_MODES,
             pb.Edition.DESCRIPTOR: positions.EDITIONS}
    assert REQUIRED_ENUMS == {e.full_name for e in takes}
    for enum, table in takes.items():
        assert accepted_enum_names(enum) == [enum.values_by_number[n].name for n in table]
    for enum in (pb.PieceFamily.DESCRIPTOR, pb.PuzzleDifficulty.DESCRIPTOR, pb.PuzzleMethod.DESCRIPTOR):
        assert accepted_enum_names(enum) == [v.name for v in enum.values]     # UNSPECIFIED: the default


def test_a_bad_edition_lists_only_the_two_editions(http):
    state = {**EXAMPLES["SuggestMove"]["state"], "edition": "EDITION_DELUXE"}
    r = http.post("/api/v1/suggest-move", json={**EXAMPLES["SuggestMove"], "state": state})
    assert r.status_code == 400, r.text
    assert _accepted_in(r.json()["error"]["message"]) == ["EDITION_REVISED", "EDITION_ORIGINAL"]


@pytest.mark.parametrize("method, request_, field, accepted", [
    ("SolvePuzzle", lambda: pb.SolvePuzzleRequest(region=pb.Region(rows=["...."]), pieces=["##", "##"], mode=9),
     "mode", "PUZZLE_MODE_FIND or PUZZLE_MODE_COUNT"),
    ("SolvePlacement", lambda: pb.SolvePlacementRequest(board=pb.Board(rows=["........."] * 9),
                                                        patches=[pb.PatchRef(id=5)], objective=7),
     "objective", "OBJECTIVE_COVER or OBJECTIVE_SQUARE7"),
])
def test_grpc_names_the_accepted_values_of_an_unknown_enum_number(web_server, method, request_, field, accepted):
    import grpc

    from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
    with grpc.insecure_channel(f"127.0.0.1:{web_server[0].port}") as channel:
        stub = pbg.PlacementServiceStub(channel)
        with pytest.raises(grpc.RpcError) as err:
            getattr(stub, method)(request_(), timeout=20)
        details = err.value.details()
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and details.startswith(field), details
        assert details.endswith(f"expected {accepted}") and "UNSPECIFIED" not in details, details
        unset = request_()
        setattr(unset, field, 0)
        with pytest.raises(grpc.RpcError) as err:
            getattr(stub, method)(unset, timeout=20)
        assert f"required: {accepted}" in err.value.details()


# ---------------------------------------------------------------- real data fits the schemas

POSITIONS = [play(seed, plies) for seed, plies in [(1, 0), (2, 5), (3, 12), (4, 25), (5, 40), (6, 500)]]
assert POSITIONS[-1].is_terminal() and not POSITIONS[0].is_terminal()


def full_game(seed: int, edition: str) -> tuple[list[int], list[str]]:
    record = full_record(seed, edition)
    return record["circle"], record["actions"]


GAMES = {e: [full_game(seed, e) for seed in (1, 2)] for e in engine.EDITIONS}
EDITION_ENUM = {"revised": "EDITION_REVISED", "original": "EDITION_ORIGINAL"}


def test_real_positions_records_and_answers_fit_the_schemas(http):
    states = validator("GameState")
    for state in POSITIONS:
        states.validate(web_positions.to_mapping(state))
    records, replay = validator("GameRecord"), validator("ReplayGameRequest")
    patches = http.get("/api/v1/patches")
    validator("ListPatchesResponse").validate(patches.json())
    for edition, games in GAMES.items():
        for circle, actions in games:
            records.validate({"edition": EDITION_ENUM[edition], "circle": circle, "actions": actions})
            replay.validate({"record": {"edition": edition, "circle": circle, "actions": actions, "seed": 1,
                                        "result": {"scores": [1, 2]}}})


def test_the_api_tests_requests_fit_the_schemas():
    from .test_api import SOLVE

    validator("SolvePlacementRequest").validate(SOLVE)
    validator("SolvePuzzleRequest").validate({"region": {"rows": ["...", ".#."]}, "pieces": ["##", "#./##"],
                                              "mode": "PUZZLE_MODE_COUNT", "time_limit": "2.5s"})
    validator("EngineMoveRequest").validate({"state": web_positions.to_mapping(POSITIONS[1]), "strength": "search:40it",
                                      "seed": 3})
    bad = validator("SolvePlacementRequest")
    for body in [{**SOLVE, "objective": "OBJECTIVE_UNSPECIFIED"}, {**SOLVE, "seed": -1},
                 {**SOLVE, "board": {"rows": ["." * 9] * 8}}, {**SOLVE, "time_limit": "61s"},
                 {k: v for k, v in SOLVE.items() if k != "patches"}, {**SOLVE, "patches": [{"id": 1, "shape": "#"}]}]:
        assert not bad.is_valid(body), body


def test_whole_numbers_written_with_a_fraction_are_integers(http):
    # JSON Schema's integers include 7.0; the RPC endpoints took them, the game helpers refused them (400).
    a = http.post("/api/v1/game/new", json={"seed": 7.0})
    assert a.status_code == 200, a.text
    assert a.json()["record"] == http.post("/api/v1/game/new", json={"seed": 7}).json()["record"]
    pid = a.json()["view"]["available"][0]["id"]  # in front of the token: it has moves
    r = http.post("/api/v1/game/legal", json={"state": a.json()["state"], "patch_id": float(pid)})
    assert r.status_code == 200 and r.json()["count"] > 0, r.text
    assert all(m.startswith(f"buy {pid} ") for m in r.json()["actions"])
    r = http.post("/api/v1/game/new", json={"seed": 7.5})
    assert r.status_code == 400 and r.json()["error"]["field"] == "seed"


# ---------------------------------------------------------------- bodies, exclusive fields, text forms (issue 34)

def test_every_request_body_is_an_object(http):
    for endpoint in ENDPOINTS:
        if endpoint.request:
            body = DOC["paths"][endpoint.path]["post"]["requestBody"]["content"]["application/json"]["schema"]
            assert body["type"] == "object" and body["$ref"].endswith(f"/{endpoint.request}"), endpoint.name
            assert SCHEMAS[endpoint.request]["type"] == "object"
    r = http.post("/api/v1/suggest-placement", json=0)       # issue 34: the document gave no type: object
    assert r.status_code == 400 and r.json()["error"]["field"] == "body", r.text


SMALL_STATE = EXAMPLES["SuggestMove"]["state"]


@pytest.mark.parametrize("op, body, field", [
    # a family or pieces, not both; a region or a box, not both; a box has both sides
    ("GeneratePuzzle", {"family": "PIECE_FAMILY_TETROMINOES", "pieces": ["##"], "time_limit": "0.5s"}, "pieces"),
    ("GeneratePuzzle", {"region": {"rows": ["...."]}, "height": 2, "width": 2, "pieces": ["##"]}, "region"),
    ("GeneratePuzzle", {"height": 5, "family": "PIECE_FAMILY_TETROMINOES"}, "width"),
    ("SolvePuzzle", {"region": {"rows": [".."]}, "pieces": ["##"], "mode": "PUZZLE_MODE_FIND",
                     "method": "PUZZLE_METHOD_FRONTIER"}, "method"),
    ("SolvePlacement", {"board": {"rows": ["." * 9] * 9}, "patches": [{"id": 1, "shape": "###"}],
                        "objective": "OBJECTIVE_COVER"}, "patches[0].shape"),
    # the position's forms: state, or text that holds a JSON object (issue 34: "0" was allowed)
    ("SuggestMove", {"top": 1}, "state"),
    ("SuggestMove", {"state_json": "0", "iterations": 10}, "state_json"),
    ("SuggestMove", {"state_json": "[1, 2]", "iterations": 10}, "state_json"),
    ("LoadPosition", {"text": "advance"}, "text"),
    ("ApplyMove", {"state": SMALL_STATE, "move": "jump 5"}, "move"),
    ("ApplyMove", {"state": SMALL_STATE, "move": "buy 5 0,0;0,9"}, "move"),
    ("NewGame", {"seed": 3, "circle": engine.new_game(3).circle}, "seed"),     # a seed or a circle
    ("NewGame", {"circle": engine.new_game(3).circle[:-1]}, "circle"),         # all 33 when any
    ("GeneratePuzzle", {"pieces": ["#./.#"]}, "pieces[0]"),     # disconnected: stated in words, refused too
])
def test_what_the_schemas_exclude_is_refused_naming_the_field(http, op, body, field):
    endpoint = next(e for e in ENDPOINTS if e.name == op)
    schema = validator(endpoint.request)
    disconnected = field == "pieces[0]"
    assert schema.is_valid(body) == disconnected, body      # a schema can say all but connectivity
    r = http.post(endpoint.path, json=body)
    assert r.status_code == 400 and r.json()["error"]["field"] == field, r.text


@pytest.mark.parametrize("op, body", [
    ("GeneratePuzzle", {"region": {"rows": ["....", "...."]}, "family": "PIECE_FAMILY_TETROMINOES", "seed": 1,
                        "time_limit": "2s"}),
    ("GeneratePuzzle", {"region": {"rows": ["....", "...."]}, "height": 0, "width": 0, "pieces": ["##", "##", "##",
                                                                                                  "##"],
                        "time_limit": "1s"}),   # (it looks for a unique puzzle until its limit: 10 s unset)
    ("SuggestMove", {"state_json": json.dumps(engine.new_game(3).to_json()), "iterations": 20}),
    ("SuggestMove", {"state": SMALL_STATE, "state_json": "{}", "iterations": 20}),     # state_json unread
    ("LoadPosition", {"text": " " + engine.new_game(3).to_notation() + "\n"}),
    ("LoadPosition", {"text": json.dumps(engine.new_game(3).to_json())}),
    ("ApplyMove", {"state": SMALL_STATE, "move": " advance "}),
    ("NewGame", {"circle": engine.new_game(3).circle, "edition": "original"}),
    ("NewGame", {"seed": 3, "circle": []}),
])
def test_what_the_schemas_allow_is_taken(http, op, body):
    endpoint = next(e for e in ENDPOINTS if e.name == op)
    validator(endpoint.request).validate(body)
    r = http.post(endpoint.path, json=body)
    assert r.status_code == 200, r.text


def test_state_json_says_it_holds_a_json_object_in_schema_terms():
    prop = SCHEMAS["SuggestMoveRequest"]["properties"]["state_json"]
    assert prop["contentMediaType"] == "application/json"
    assert prop["contentSchema"] == {"$ref": "#/components/schemas/EngineState"}
    assert "must hold a JSON object" in prop["description"]
    engine_state = validator("EngineState")
    for state in POSITIONS:
        engine_state.validate(state.to_json())
    assert not engine_state.is_valid(web_positions.to_mapping(POSITIONS[0]))   # the mapping is not the engine form
    text = jsonschema.Draft202012Validator(prop)
    assert [text.is_valid(t) for t in ["0", "[]", '"x"', "{}", ' \n{"edition": "revised"}']] == [
        False, False, False, True, True]


def test_the_patterns_take_what_the_engine_writes():
    import re

    move = re.compile(SCHEMAS["ApplyMoveRequest"]["properties"]["move"]["pattern"])
    for state in POSITIONS[:-1]:
        for action in state.legal_actions():
            assert move.match(action.to_str()), action.to_str()
    text = SCHEMAS["LoadPositionRequest"]["properties"]["text"]
    notation = re.compile(text["oneOf"][0]["pattern"])
    for state in POSITIONS:
        assert notation.match(state.to_notation()), state.to_notation()
        assert jsonschema.Draft202012Validator(text).is_valid(state.to_notation())
    for edition, games in GAMES.items():
        for circle, actions in games:
            assert all(move.match(a) for a in actions)


def test_links_feed_one_answer_into_the_next_request(http):
    table = links(ENDPOINTS)
    op = DOC["paths"]["/api/v1/game/new"]["post"]
    assert op["responses"]["200"]["links"] == table["NewGame"]
    targets = {e.name: e for e in ENDPOINTS}
    new = http.post("/api/v1/game/new", json={"seed": 5}).json()
    for name, link in table["NewGame"].items():
        body = {**EXAMPLES[name]} if EXAMPLES[name] else {}
        for key, expression in link["requestBody"].items():
            assert expression == f"$response.body#/{key}"
            body[key] = new[key]
        if name == "LegalMoves":
            body.pop("patch_id", None)
        r = http.post(targets[name].path, json=body)
        assert r.status_code == 200, (name, r.text)
    puzzle = http.post("/api/v1/generate-puzzle", json=EXAMPLES["GeneratePuzzle"]).json()
    body = {"mode": "PUZZLE_MODE_COUNT", **{k: puzzle[k] for k in table["GeneratePuzzle"]["SolvePuzzle"]["requestBody"]}}
    r = http.post("/api/v1/solve-puzzle", json=body)
    assert r.status_code == 200 and r.json()["count_decimal"] != "0", r.text
