"""The OpenAPI document: valid, and it says exactly what the service accepts.

* the served ``/api/openapi.json`` passes openapi-spec-validator;
* real positions, records and the requests the other tests send fit its schemas;
* a property test: requests Schemathesis makes from each endpoint's schemas
  (body and headers, X-Deadline-Ms included) are never refused with 400, and
  never answered with a 5xx other than a 504 to a deadline that was asked
  for; the answers fit the document's response schemas.

Some constraints cannot be said in JSON Schema (a patch listed twice, a
shape's cells 4-connected, region rows of one length, the rules of the
game); the document says each in a ``description``, and the strategy here
repairs exactly those in the generated bodies (see ``_repair``) — everything
else is as generated. Time limits and search budgets are made small so the
whole run stays short: that changes cost, not validity.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from quiltsolve import engine
import jsonschema
import pytest
import schemathesis
from quiltsolve import solver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openapi_spec_validator import validate as validate_spec
from quiltsolve.server.core import CoreConfig
from quiltsolve.solver import Shape
from quiltsolve.solver.limits import MAX_PIECES

from quiltsolve.server import positions as web_positions
from quiltsolve.server.game_service import parse_strength
from quiltsolve.web.app import ENDPOINTS
from quiltsolve.web.calls import MAX_DEADLINE_MS
from quiltsolve.web.openapi import (EXAMPLES_COMMAND, MAX_GRID as convert_grid, document, examples_markdown,
                                   request_examples)
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


# ---------------------------------------------------------------- the property test

def polyomino(rnd: random.Random, most_cells: int, side: int) -> str:
    """A random 4-connected shape of 1..most_cells cells within side x side, written with holes as '.'."""
    cells = {(0, 0)}
    for _ in range(rnd.randrange(most_cells)):
        r, c = rnd.choice(sorted(cells))
        dr, dc = rnd.choice([(0, 1), (1, 0), (0, -1), (-1, 0)])
        cand = (r + dr, c + dc)
        rows = [x for x, _ in cells | {cand}]
        cols = [y for _, y in cells | {cand}]
        if max(rows) - min(rows) < side and max(cols) - min(cols) < side:
            cells.add(cand)
    return Shape.from_cells(cells).to_str()


def _key(ref: dict):
    """(key, canonical shape, is a shape) of a PatchRef, as the service compares them."""
    if "id" in ref:
        pid = int(ref["id"])  # JSON Schema's integers include 7.0
        shape = solver.LEATHER_SHAPE if pid == solver.LEATHER_PATCH_ID else solver.PATCHES[pid].shape
        return pid, shape.canonical(), False
    shape = Shape.parse(ref["shape"])
    return shape.to_str(), shape.canonical(), True


def _distinct(refs: list[dict]) -> list[dict]:
    """Drop a PatchRef that repeats an earlier one (documented: the same patch may not be listed twice)."""
    out, keys, shapes = [], set(), {}
    for ref in refs:
        key, canon, is_shape = _key(ref)
        if key in keys or (canon in shapes and (is_shape or shapes[canon])):
            continue
        keys.add(key)
        shapes[canon] = shapes.get(canon, False) or is_shape
        out.append(ref)
    return out


def _small_time(rnd: random.Random) -> str:
    return f"{rnd.choice([0.01, 0.05, 0.1, 0.2])}s"


def _position(rnd: random.Random):
    return rnd.choice(POSITIONS)


def _record(rnd: random.Random, edition_name: str) -> tuple[list[int], list[str]]:
    edition = edition_name if edition_name in engine.EDITIONS else \
        {v: k for k, v in EDITION_ENUM.items()}[edition_name]
    circle, actions = rnd.choice(GAMES[edition])
    return circle, actions[:rnd.randint(1, 3)]


def _cap_cost(path: str, body: dict, headers: dict, rnd: random.Random) -> None:
    """Keep a search short: either small time limits and budgets in the body, or (half the time)
    the generated ones as they are under a short X-Deadline-Ms (then a 504 is a fair answer)."""
    limit = "time_per_move" if path == "analyze-game" else "time_limit"
    if path not in ("solve-placement", "suggest-placement", "suggest-move", "solve-puzzle", "analyze-game",
                    "generate-puzzle", "analyze-position", "solve-position"):
        return
    if rnd.random() < 0.5 and not body.get("until_cancelled"):   # until cancelled: only the deadline ends it
        body[limit] = _small_time(rnd) if path != "analyze-game" else "0.01s"  # unset means 0.2-10 s
        if body.get("iterations"):
            body["iterations"] = min(body["iterations"], 20 if path == "analyze-game" else 200)
    else:
        ms = min(float(headers.get("X-Deadline-Ms", 300)), 300)
        headers["X-Deadline-Ms"] = f"{ms:g}" if ms > 0 else "300"


def _repair(path: str, body: dict, rnd: random.Random) -> tuple[dict, object]:
    """The body with the constraints the document states only in words made true.

    Returns (body, the engine position it carries or None).
    """
    body = json.loads(json.dumps(body))
    position = None
    if "patches" in body and path == "solve-placement":
        for ref in body["patches"]:
            if "shape" in ref:
                ref["shape"] = polyomino(rnd, 8, solver.BOARD_SIZE)
        body["patches"] = _distinct(body["patches"])
    if path == "suggest-placement":
        if "shape" in body["patch"]:
            body["patch"]["shape"] = polyomino(rnd, 8, solver.BOARD_SIZE)
        ups = body.get("upcoming") or []
        for ref in ups:
            if "shape" in ref:
                ref["shape"] = polyomino(rnd, 8, solver.BOARD_SIZE)
            ref["count"] = min(ref.get("count", 0), 2)  # at most 128 copies in all (documented)
        if "upcoming" in body:
            body["upcoming"] = _distinct(ups)
    if path in ("suggest-move", "analyze-position", "solve-position"):
        position = _position(rnd)
        if "state" in body:
            body["state"] = web_positions.to_mapping(position)
        else:
            body["state_json"] = json.dumps(position.to_json())
    if path == "analyze-game":
        circle, actions = _record(rnd, body["record"]["edition"])
        body["record"].update(circle=circle, actions=actions)
    if path == "solve-puzzle":
        rows = body["region"]["rows"]
        width = len(rows[0])
        rows = [(row + "." * width)[:width] for row in rows]  # every row as long as row 0 (documented)
        if not any("." in row for row in rows):
            rows[0] = "." + rows[0][1:]
        body["region"]["rows"] = rows
        if "pieces" in body:
            body["pieces"] = [polyomino(rnd, 5, convert_grid) for _ in body["pieces"]]
        if "unlimited_pieces" in body:
            # documented in words: at most 64 shapes in both lists; no unlimited shape twice, nor in pieces
            mirror = not body.get("no_mirror", False)
            taken = {Shape.parse(t).canonical(mirror) for t in body.get("pieces") or ()}
            endless = []
            for _ in body["unlimited_pieces"][: MAX_PIECES - len(body.get("pieces") or ())]:
                shape = Shape.parse(polyomino(rnd, 5, convert_grid))
                if shape.canonical(mirror) not in taken:
                    taken.add(shape.canonical(mirror))
                    endless.append(shape.to_str())
            body["unlimited_pieces"] = endless
            if not endless and not body.get("pieces"):
                body["pieces"] = ["#"]
        if body.get("method") in ("PUZZLE_METHOD_FRONTIER", 3) and body.get("mode") in ("PUZZLE_MODE_FIND", 1):
            body["method"] = "PUZZLE_METHOD_AUTO"  # documented: the frontier only counts
    if path == "generate-puzzle":
        # documented in words: a region or a box (height and width both set or both 0), a family or
        # pieces, and room for at least one piece (a region: some choice of the pieces covers it)
        if "pieces" in body and body.get("family", "PIECE_FAMILY_UNSPECIFIED") != "PIECE_FAMILY_UNSPECIFIED":
            del body["pieces"]
        if body.get("pieces"):
            body["pieces"] = ["#"] + [polyomino(rnd, 5, convert_grid) for _ in body["pieces"][1:]]
        if "region" in body:
            body.pop("height", None), body.pop("width", None)
            rows = [row[:8] for row in body["region"]["rows"][:8]]
            width = len(rows[0])
            rows = [(row + "." * width)[:width] for row in rows]
            if not any("." in row for row in rows):
                rows[0] = "." + rows[0][1:]
            body["region"]["rows"] = rows
            # monominoes, one per cell, cover any region (at most 64 cells, the most pieces)
            body["pieces"] = ["#"] * sum(row.count(".") for row in rows)
            body.pop("family", None)
        elif body.get("height") or body.get("width"):
            body["height"] = max(5, min(int(body.get("height") or 5), convert_grid))
            body["width"] = max(5, min(int(body.get("width") or 5), convert_grid))
    if path.startswith("game/") and "state" in body:
        position = _position(rnd)
        body["state"] = web_positions.to_mapping(position)
    if path == "game/apply" and not position.is_terminal():
        body["move"] = rnd.choice(position.legal_actions()).to_str()
    if path == "game/engine-move":
        strength = parse_strength(body["strength"])
        if strength.time_limit is not None:
            body["strength"] = "search:0.05"
        elif strength.iterations is not None:
            body["strength"] = f"search:{min(strength.iterations, 50)}it"
        elif strength.name == "search":
            body["strength"] = "search:0.05"
    if path == "game/load":
        state = _position(rnd)
        circle, actions = _record(rnd, rnd.choice(engine.EDITIONS))
        kind = rnd.choice(["notation", "state_json", "state", "record"])
        body["text"] = {"notation": lambda: state.to_notation(), "state_json": lambda: json.dumps(state.to_json()),
                        "state": lambda: json.dumps(web_positions.to_mapping(state)),
                        "record": lambda: json.dumps({"edition": "revised", "circle": circle,
                                                      "actions": actions})}[kind]()
        if "plies" in body:
            body["plies"] = min(body["plies"], len(actions))  # at most the record's moves (documented)
    if path == "game/new" and body.get("circle"):
        # a circle is all 33 ids, patch 0 last, and never with a seed (documented)
        body["circle"], _ = _record(rnd, "revised")
        body.pop("seed", None)
    if path == "game/replay":
        circle, actions = _record(rnd, body["record"]["edition"])
        body["record"].update(circle=circle, actions=actions)
    return body, position


POSTS = [e for e in ENDPOINTS if e.method == "POST" and e.request]
API = schemathesis.openapi.from_dict(DOC)


def _case(e):
    cases = API.find_operation_by_id(e.name).as_strategy()
    return st.tuples(cases, st.randoms(use_true_random=False))


def _check_answer(e, r, position, deadline, size: int) -> None:
    path = e.path.removeprefix("/api/v1/")
    status = r.status_code
    if status == 200:
        if e.streaming and r.headers["content-type"].startswith("application/json"):
            lines = r.json()["items"]  # ?format=json
            items = validator(e.response)
            for line in lines:
                items.validate(line)
        elif e.streaming:
            lines = [json.loads(line) for line in r.text.splitlines() if line.strip()]
            item = validator(e.response)
            for line in lines:
                if "error" in line:
                    # A deadline the client asked for may end the stream early; nothing else may.
                    assert deadline is not None and line["error"]["code"] == "DEADLINE_EXCEEDED", line
                else:
                    item.validate(line)
        else:
            validator(e.response).validate(r.json())  # the answer fits the document too
        return
    err = r.json().get("error", {})
    # 409 FAILED_PRECONDITION: the position is a finished game (no move to suggest or play); the
    # document says so. The strategy hands in real positions, one of them finished.
    if status == 409:
        assert position is not None and position.is_terminal(), (path, r.text)
        return
    # 429 RESOURCE_EXHAUSTED: admission control refuses when every worker is busy; it depends on load,
    # not on the body (documented with Retry-After), so it is never a contract violation.
    if status == 429:
        assert err.get("code") == "RESOURCE_EXHAUSTED" and "retry-after" in r.headers, r.text
        return
    # 507 RESOURCE_EXHAUSTED without Retry-After: a frontier count whose table would pass the server's
    # --table-bytes (documented for solve-puzzle); it depends on the server's bound, not on the schema.
    if status == 507:
        assert path in ("solve-puzzle", "solve-position") and err.get("code") == "RESOURCE_EXHAUSTED", (path, r.text)
        assert "retry-after" not in r.headers and "--table-bytes" in err.get("message", ""), r.text
        return
    # 504 DEADLINE_EXCEEDED: only when the request set X-Deadline-Ms (it may be 0.001 ms).
    if status == 504:
        assert deadline is not None and err.get("code") == "DEADLINE_EXCEEDED", (path, deadline, r.text)
        return
    # 413: a schema-valid body can still be larger than the documented body limit.
    if status == 413:
        assert size > CoreConfig.max_receive_bytes, (path, size, r.text)
        return
    raise AssertionError(f"{path}: a schema-valid request answered {status}: {r.text[:500]}")


@pytest.mark.parametrize("e", POSTS, ids=[e.path.removeprefix("/api/v1/") for e in POSTS])
def test_schema_valid_requests_are_accepted(http, e):
    request_schema = validator(e.request)

    @settings(max_examples=15, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(_case(e))
    def run(args):
        case, rnd = args
        path = e.path.removeprefix("/api/v1/")
        body, position = _repair(path, case.body, rnd)
        headers = {k: v for k, v in (case.headers or {}).items() if k in ("X-Deadline-Ms", "X-Request-Id")}
        _cap_cost(path, body, headers, rnd)
        request_schema.validate(body)  # the repaired body is still schema-valid
        deadline = headers.get("X-Deadline-Ms")
        content = json.dumps(body).encode()
        r = http.post(e.path, content=content, params=case.query or None,
                      headers={"Content-Type": "application/json", **headers})
        _check_answer(e, r, position, deadline, len(content))

    run()
