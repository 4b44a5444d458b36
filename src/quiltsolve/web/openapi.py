"""The HTTP API's OpenAPI 3.1 document, built from the route table and the protobuf descriptors.

The RPC endpoints' schemas are the protobuf JSON mapping of the messages
(proto field names; int64 as strings; enums as names; Durations as
``"1.5s"``), generated here from the descriptors so they cannot drift from
``proto/patchwork/v1/placement.proto``. On top of the types, the document
states what the service checks, from one table (:func:`rules`) built from
the same constants the checks use (:mod:`solver.limits`, the engine's state
bounds, :mod:`web.calls`, :mod:`server.game_service`): required fields,
exclusive fields (``oneOf``/``not``), integer ranges, list sizes, row,
shape, move and notation patterns, time limits (:func:`time_limit_schema`)
and the ``X-Deadline-Ms`` range; from the descriptors alone: the enum values
a request may carry (:data:`ACCEPTED_ENUMS`), at most one field of a proto
``oneof``, and the links that feed one answer's message into the next
request (:func:`links`). Every request body is ``type: object``. What JSON
Schema cannot say (a patch listed twice, rows of unequal length, the rules
of the game) is said in a ``description`` after :data:`ALSO`, with an
example.

>>> doc = document([Endpoint("POST", "/api/v1/solve-placement", "SolvePlacement", "Solve.",
...                          "SolvePlacementRequest", "SolvePlacementResponse")])
>>> sorted(doc["components"]["schemas"])[:4]
['Board', 'Cell', 'EngineState', 'Error']
>>> doc["components"]["schemas"]["Board"]["properties"]["rows"]["items"]["pattern"]
'^[.#]{9}$'
>>> doc["components"]["schemas"]["SolvePlacementRequest"]["required"]
['board', 'patches', 'objective']
>>> doc["paths"]["/api/v1/solve-placement"]["post"]["requestBody"]["content"]["application/json"]["schema"]["type"]
'object'
"""

from __future__ import annotations

import copy
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from quiltsolve import engine
from quiltsolve import solver
from quiltsolve.engine.notation import MAX_LENGTH as NOTATION_MAX
from quiltsolve.engine.players.levels import LEVELS
from quiltsolve.engine.state_json import MAX_BUTTONS, MAX_INCOME, MAX_LEATHER, PLAYER_FIELDS, TOP_FIELDS
from quiltsolve.engine.track import END, LEATHER_SPACES, START_PATCH_ID
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server import convert
from quiltsolve.server.protojson import accepted_enum_names
from quiltsolve.server.core import CoreConfig
from quiltsolve.solver import BOARD_SIZE
from quiltsolve.solver.geometry import MAX_SHAPE_CELLS
from quiltsolve.server import positions
from quiltsolve.solver.limits import (DEFAULT_ITERATIONS_LIMIT, DEFAULT_LARGE_LOSS, DEFAULT_REVIEW_LIMIT,
                           DEFAULT_SOLVE_LIMIT, DEFAULT_SUGGEST_LIMIT, MAX_COUNT, MAX_ITERATIONS,
                           MAX_LARGE_LOSS, MAX_LOAD_TEXT, MAX_MOVE_TEXT, MAX_PATCH_REFS, MAX_PIECES,
                           MAX_RECORD_ACTIONS, MAX_SEED, MAX_SHAPE_TEXT, MAX_STATE_JSON, MAX_TILINGS,
                           MAX_TIME_LIMIT, MAX_TOP, MAX_UPCOMING_COPIES)
from quiltsolve.solver.limits import DEFAULT_REPORT_INTERVAL, MAX_ANALYSIS_TIME, MAX_REPORT_INTERVAL, MIN_REPORT_INTERVAL
from quiltsolve.solver.limits import (DEFAULT_SOLVE_POSITION_LIMIT, DEFAULT_SOLVE_TABLE_BYTES, MAX_SOLVE_POSITION_TIME,
                                      MIN_SOLVE_TABLE_MB)

from .calls import MAX_DEADLINE_MS

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
N_PATCHES = len(solver.PATCHES)
MAX_GRID = convert.MAX_GRID

_SCALARS: dict[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32", "minimum": INT32_MIN, "maximum": INT32_MAX},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32", "minimum": INT32_MIN, "maximum": INT32_MAX},
    FieldDescriptor.TYPE_SFIXED32: {"type": "integer", "format": "int32", "minimum": INT32_MIN, "maximum": INT32_MAX},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "minimum": 0, "maximum": 2**32 - 1},
    FieldDescriptor.TYPE_FIXED32: {"type": "integer", "minimum": 0, "maximum": 2**32 - 1},
    FieldDescriptor.TYPE_INT64: {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"},
    FieldDescriptor.TYPE_SINT64: {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"},
    FieldDescriptor.TYPE_SFIXED64: {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"},
    FieldDescriptor.TYPE_UINT64: {"type": "string", "format": "uint64", "pattern": "^[0-9]+$"},
    FieldDescriptor.TYPE_FIXED64: {"type": "string", "format": "uint64", "pattern": "^[0-9]+$"},
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "contentEncoding": "base64"},
}
_DURATION = {"type": "string", "pattern": "^[0-9]+(\\.[0-9]{1,9})?s$", "examples": ["1.5s"],
             "description": "google.protobuf.Duration in its JSON form"}


# ---------------------------------------------------------------- patterns from numbers

def int_upto(n: int) -> str:
    """A regular expression (unanchored group) for the integers 1..n written without leading zeros.

    >>> import re
    >>> rx = re.compile(f"^{int_upto(59)}$")
    >>> [k for k in range(0, 200) if rx.match(str(k))] == list(range(1, 60))
    True
    >>> rx = re.compile(f"^{int_upto(20000)}$")
    >>> all(bool(rx.match(str(k))) == (1 <= k <= 20000) for k in range(0, 30000, 7))
    True
    """
    if n < 1:
        raise ValueError("n must be >= 1")
    s = str(n)
    d = len(s)
    alts = []
    if d == 2:
        alts.append("[1-9]")
    elif d > 2:
        alts.append(f"[1-9][0-9]{{0,{d - 2}}}")
    for i in range(d):
        lo, hi = (1 if i == 0 else 0), int(s[i]) - (1 if i < d - 1 else 0)
        if hi >= lo:  # s[:i], then a smaller digit (or, last, any digit up to s's), then anything
            rest = d - i - 1
            alts.append(s[:i] + (f"[{lo}-{hi}]" if hi > lo else str(lo)) + (f"[0-9]{{{rest}}}" if rest else ""))
    return "(?:" + "|".join(alts) + ")"


def positive_seconds_upto(most: float) -> str:
    """A regular expression (unanchored group) for decimal seconds in (0, most], at most 9 fraction digits.

    >>> import re
    >>> rx = re.compile(f"^{positive_seconds_upto(60)}$")
    >>> [bool(rx.match(t)) for t in ["0", "0.0", "0.000000001", "0.5", "1", "59.999999999", "60", "60.0", "60.1", "61"]]
    [False, False, True, True, True, True, True, True, False, False]
    """
    top = int(most)
    if top != most or top < 1:
        raise ValueError("the largest time limit must be a whole number of seconds >= 1")
    below_one = "|".join("0" * k + "[1-9]" + (f"[0-9]{{0,{8 - k}}}" if k < 8 else "") for k in range(9))
    alts = [f"0\\.(?:{below_one})", f"{top}(?:\\.0{{1,9}})?"]
    if top > 1:
        alts.insert(1, f"{int_upto(top - 1)}(?:\\.[0-9]{{1,9}})?")
    return "(?:" + "|".join(alts) + ")"


def seconds_between(least: float, most: float) -> str:
    """A regular expression (unanchored group) for decimal seconds in [least, most] with 0 < least < 1.

    >>> import re
    >>> rx = re.compile(f"^{seconds_between(0.05, 10)}$")
    >>> [bool(rx.match(t)) for t in ["0.04", "0.049", "0.05", "0.0500", "0.5", "1", "9.75", "10", "10.00", "10.5"]]
    [False, False, True, True, True, True, True, True, True, False]
    """
    top = int(most)
    if top != most or top < 1 or not 0 < least < 1:
        raise ValueError("expected 0 < least < 1 <= most, most a whole number")
    digits = f"{least:.9f}".split(".")[1].rstrip("0")
    alts = []
    for i, ch in enumerate(digits):  # 0.<prefix><a larger digit><anything>
        if ch != "9":
            alts.append(f"0\\.{digits[:i]}[{int(ch) + 1}-9][0-9]*")
    alts.append(f"0\\.{digits}[0-9]*")
    if top > 1:
        alts.append(f"{int_upto(top - 1)}(?:\\.[0-9]+)?")
    alts.append(f"{top}(?:\\.0+)?")
    return "(?:" + "|".join(a for a in alts if a) + ")"



def time_limit_schema(default: float | None, most: float = MAX_TIME_LIMIT, also: str = "") -> dict:
    """A request's time limit: a Duration in its JSON form, more than 0 and at most ``most`` seconds (unset:
    ``default`` seconds, or the call's own default when None)."""
    unset = f"{default:g} s" if default is not None else "the call's default"
    return {"type": "string", "pattern": f"^{positive_seconds_upto(most)}s$", "examples": ["0.5s", "2s"],
            "description": f"google.protobuf.Duration in its JSON form (\"1.5s\"): more than 0 s and at most "
                           f"{most:g} s; unset means {unset}{also}"}


def shape_schema(side: int) -> dict:
    """A shape's text: rows of '#' and '.' joined by '/' (or newlines or spaces)."""
    return {"type": "string", "minLength": 1, "maxLength": MAX_SHAPE_TEXT,
            "pattern": "^[#./\\n ]*#[#./\\n ]*$", "examples": ["##./.##", "###"],
            "description": f"rows of '#' (cloth) and '.' (hole) joined by '/', e.g. \"##./.##\"; empty rows and "
                           f"the empty border are ignored. {ALSO}the cells are 4-connected (\"#./.#\" is "
                           f"not), at most {MAX_SHAPE_CELLS} cells, rows and characters a row, and the shape fits "
                           f"a {side}x{side} grid in some orientation."}


def _ids(lo: int = 0) -> dict:
    return {"type": "integer", "format": "int32", "minimum": lo, "maximum": N_PATCHES - 1}


def _range(lo: float, hi: float, what: str = "") -> dict:
    out: dict = {"minimum": lo, "maximum": hi}
    if what:
        out["description"] = what
    return out


PROVEN_MARGIN = ("present only when the endgame solver proved it: the final score of the player to move minus "
                 "the other's after this move, both playing perfectly to maximise their own margin (score = "
                 "buttons + 7 for the bonus tile - 2 per empty cell); 0 is a tie on points, decided by the tie rule "
                 "(who reached the last space first: the reason says)")


# ---------------------------------------------------------------- text forms as patterns

BLANK = "[ \\t\\r\\n]"
"""The blanks the text forms below take between and around their words (a subset of what the
service splits on, so that every text a pattern allows is read alike)."""
_CELL = "[0-8],[0-8]"
_PATCH_ID = "(?:[12]?[0-9]|3[0-2])"
ACTION = f"(?:advance|leather{BLANK}+{_CELL}|buy{BLANK}+{_PATCH_ID}{BLANK}+{_CELL}(?:;{_CELL})*)"
"""One move in the engine's text form: ``advance``, ``leather r,c`` or ``buy P r,c;r,c;...``."""
ACTION_TEXT = f"^{BLANK}*{ACTION}{BLANK}*$"
_IDS = "(?:-|[0-9a-wA-W]{1,33})"
_PLAYER = f"(?:[0-9]|[1-4][0-9]|5[0-3]),(?:[0-9]|[1-9][0-9]{{1,2}}|1000),{_IDS},[0-7]{{1,27}}\\+?"
NOTATION_TEXT = (f"^{BLANK}*[rRoO]{BLANK}+{_PLAYER}{BLANK}+{_PLAYER}{BLANK}+{_IDS}{BLANK}+[01](?:[lL][1-5])?"
                 f"{BLANK}+[01-]{BLANK}*$")
"""A position's one-line notation (docs/engine.md): edition, both players, the circle, the turn, who ended first."""
JSON_OBJECT_TEXT = f"^{BLANK}*\\{{"
"""Text that starts a JSON object."""

# The whole-message rules of GeneratePuzzleRequest: the forms of the box, and family or pieces.
_ZERO = {"const": 0}
_GENERATE_FORMS = {"allOf": [
    {"oneOf": [
        {"title": "a region", "required": ["region"], "properties": {"height": _ZERO, "width": _ZERO}},
        {"title": "the default box", "not": {"required": ["region"]},
         "properties": {"height": _ZERO, "width": _ZERO}},
        {"title": "a box", "not": {"required": ["region"]}, "required": ["height", "width"],
         "properties": {"height": {"minimum": 1}, "width": {"minimum": 1}}}]},
    {"not": {"required": ["family", "pieces"],
             "properties": {"family": {"not": {"const": "PIECE_FAMILY_UNSPECIFIED"}}, "pieces": {"minItems": 1}}}},
]}


def engine_state_schema() -> dict:
    """The engine's state JSON (``GameState.to_json()``, docs/engine.md) as a schema: the form ``state_json``
    holds. Its every field is required; boards are 9 row strings or, the older form, an integer."""
    player = {"type": "object", "additionalProperties": False, "required": list(PLAYER_FIELDS), "properties": {
        "board": {"oneOf": [
            {"type": "array", "minItems": BOARD_SIZE, "maxItems": BOARD_SIZE,
             "items": {"type": "string", "pattern": f"^[.#]{{{BOARD_SIZE}}}$"}},
            {"type": "integer", "minimum": 0, "maximum": 2 ** (BOARD_SIZE * BOARD_SIZE) - 1}]},
        "buttons": {"type": "integer", "minimum": 0, "maximum": MAX_BUTTONS},
        "position": {"type": "integer", "minimum": 0, "maximum": END},
        "income": {"type": "integer", "minimum": 0, "maximum": MAX_INCOME},
        "patches": {"type": "array", "maxItems": N_PATCHES, "uniqueItems": True, "items": _ids()},
        "leather": {"type": "integer", "minimum": 0, "maximum": MAX_LEATHER},
        "bonus": {"type": "boolean"}}}
    return {"type": "object", "additionalProperties": False, "required": list(TOP_FIELDS), "properties": {
        "edition": {"type": "string", "enum": list(engine.EDITIONS)},
        "players": {"type": "array", "minItems": 2, "maxItems": 2, "items": player},
        "circle": {"type": "array", "maxItems": N_PATCHES, "uniqueItems": True, "items": _ids()},
        "leather_spaces": {"type": "array", "maxItems": MAX_LEATHER, "uniqueItems": True,
                           "items": {"type": "integer", "enum": LEATHER_SPACE_LIST}},
        "current_player": {"type": "integer", "minimum": 0, "maximum": 1},
        "leather_to_place": {"type": "integer", "minimum": 0, "maximum": MAX_LEATHER},
        "first_to_end": {"type": ["integer", "null"], "minimum": 0, "maximum": 1}},
        "description": "the engine's state JSON (GameState.to_json(), docs/engine.md): the fields of a GameState "
                       "with editions as words and boards as row strings (or 81-bit integers); every rule of the "
                       "game is checked, as for a GameState"}


LEATHER_SPACE_LIST = sorted({s for spaces in LEATHER_SPACES.values() for s in spaces})
"""Every space that holds a leather patch at the start in some edition."""
EXAMPLE_SEED = 7
"""The deal of the examples' game positions and records (a new game, player 1 to move)."""
_NEW_GAME = engine.new_game(EXAMPLE_SEED)
_START_CIRCLE = ", ".join(map(str, _NEW_GAME.circle[:2])) + f", ..., {START_PATCH_ID}"
_START_LEATHER = list(LEATHER_SPACES[engine.DEFAULT_EDITION])
ALSO = "Not expressible here, also checked: "
"""How every description starts the rules that only the service checks (the tests list each)."""
GAME_OVER = "A finished game is FAILED_PRECONDITION (409)."


def rules() -> dict[str, dict]:
    """The one table of what the document says beyond the messages' types, keyed by

    * ``"Message"``: the whole message (``required``, ``oneOf``/``anyOf``/``not``, ``description``);
    * ``"Message.field"``: one field (``items``: for a list's items; ``replace``: the whole schema);
    * ``"*Request.field"``: that field of any request message without a ``"Message.field"`` entry, so that a
      new request gets the same rules for the same fields (``seed``, ``top``, ``time_limit``, ``state``, ...).

    Rules that JSON Schema cannot say are stated in a ``description`` after :data:`ALSO`, with an example;
    ``tests/web/test_openapi.py`` lists each with the error the service answers it with.
    """
    board_rows = {"minItems": BOARD_SIZE, "maxItems": BOARD_SIZE,
                  "items": {"pattern": f"^[.#]{{{BOARD_SIZE}}}$"},
                  "description": f"exactly {BOARD_SIZE} rows of {BOARD_SIZE} characters, row 0 first: "
                                 "'.' empty, '#' filled"}
    seed = _range(0, INT32_MAX, "random seed for a reproducible answer")
    top = _range(0, MAX_TOP, f"how many to return, best first; 0 means all (at most {MAX_TOP})")
    iterations = _range(0, MAX_ITERATIONS, f"a fixed search budget, 1-{MAX_ITERATIONS}; 0 means think for the "
                                           "time limit")
    # "patch 0 last" is prefixItems plus items: {const: 0}, but with uniqueItems a generator has to find a
    # permutation by chance (Schemathesis gives up), so it is said in words.
    circle = {"minItems": N_PATCHES, "maxItems": N_PATCHES, "uniqueItems": True, "items": _ids(),
              "description": f"all {N_PATCHES} patch ids 0-{N_PATCHES - 1}, each once, clockwise from the neutral "
                             f"token. {ALSO}patch {START_PATCH_ID} last (the token starts just after it), e.g. "
                             f"[{_START_CIRCLE}]."}
    legal = f"{ALSO}each is legal in turn (the game replayed from the circle)."
    actions = {"minItems": 1, "maxItems": MAX_RECORD_ACTIONS, "items": {"pattern": ACTION_TEXT},
               "description": f"1-{MAX_RECORD_ACTIONS} moves in the engine's text form (\"advance\", "
                              f"\"buy 5 0,0;0,1;1,1\", \"leather 4,4\"), player 0 first. {legal}"}
    state = {"description": "the position: a GameState in its JSON mapping, as the game endpoints return it; "
                            "every rule of the game is checked (see GameState)"}
    playable = {"description": f"{state['description']}. {GAME_OVER}"}
    record = {"replace": {
        "type": "object", "additionalProperties": False, "required": ["edition", "circle", "actions"],
        "description": "a GameRecord in its JSON mapping, or the engine's record form (edition "
                       "\"revised\"/\"original\"; its seed, players, result and "
                       "evaluations are checked for form, then left out; any other field is refused)",
        "properties": {
            "edition": {"type": "string", "enum": ACCEPTED_ENUMS["patchwork.v1.Edition"] + list(engine.EDITIONS)},
            "circle": {"type": "array", **{k: v for k, v in circle.items() if k != "items"}, "items": _ids()},
            "actions": {"type": "array", "items": {"type": "string", "pattern": ACTION_TEXT},
                        **{k: v for k, v in actions.items() if k != "items"}},
            # the engine form's extras, as server.records checks them
            "seed": {"type": ["integer", "string", "null"]},
            "players": {"type": ["array", "null"], "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
            "result": {"type": ["object", "null"]},
            "evaluations": {"type": ["array", "null"]}}}}
    editions = {"type": "string", "enum": list(engine.EDITIONS)}
    search = (f"^(?:random|greedy|level:[{min(LEVELS)}-{max(LEVELS)}]|search(?::(?:{positive_seconds_upto(MAX_TIME_LIMIT)}"
              f"|{int_upto(MAX_ITERATIONS)}it))?)$")
    shapes = {"replace": shape_schema(MAX_GRID)}
    return {
        # ------------------------------------------------ any request
        "*Request.seed": seed,
        "*Request.top": top,
        "*Request.iterations": iterations,
        "*Request.time_limit": {"replace": time_limit_schema(None)},
        "*Request.state": state,
        "*Request.circle": circle,
        # ------------------------------------------------ shared messages
        "Board": {"required": ["rows"]},
        "Board.rows": board_rows,
        "Region": {"required": ["rows"]},
        "Region.rows": {"minItems": 1, "maxItems": MAX_GRID, "items": {"pattern": f"^[.#]{{1,{MAX_GRID}}}$"},
                        "contains": {"type": "string", "pattern": "[.]"},
                        "description": f"1-{MAX_GRID} rows of 1-{MAX_GRID} characters: '.' a cell to tile, '#' "
                                       f"not part of the region; at least one '.'. {ALSO}every row has the "
                                       "length of row 0 (e.g. [\"...\", \".#.\"])."},
        "PatchRef": {"oneOf": [{"required": ["id"]}, {"required": ["shape"]}],
                     "description": "exactly one of id, shape"},
        "PatchRef.id": _range(solver.LEATHER_PATCH_ID, N_PATCHES - 1,
                              f"a standard patch id 0-{N_PATCHES - 1}, or {solver.LEATHER_PATCH_ID} for the 1x1 "
                              "leather patch"),
        "PatchRef.shape": {"replace": shape_schema(BOARD_SIZE)},
        "PatchRef.count": _range(0, MAX_COUNT, f"copies available, 0-{MAX_COUNT}; 0 means 1"),
        # ------------------------------------------------ PlacementService
        "SolvePlacementRequest": {"required": ["board", "patches", "objective"]},
        "SolvePlacementRequest.patches": {
            "minItems": 1, "maxItems": MAX_PATCH_REFS,
            "description": f"1-{MAX_PATCH_REFS} candidate patches. {ALSO}the same patch may not be listed twice "
                           "(an id twice, a shape twice in any orientation, or an id and its shape, e.g. "
                           "[{\"id\": 1}, {\"shape\": \"###\"}]): use count."},
        "SolvePlacementRequest.time_limit": {"replace": time_limit_schema(DEFAULT_SOLVE_LIMIT)},
        "SuggestPlacementRequest": {"required": ["board", "patch", "objective"]},
        "SuggestPlacementRequest.upcoming": {
            "maxItems": MAX_PATCH_REFS,
            "description": f"0-{MAX_PATCH_REFS} patches expected later. {ALSO}at most {MAX_UPCOMING_COPIES} "
                           "copies in all (the counts added up, 0 counting as 1), and the same patch may not be "
                           "listed twice (as in SolvePlacementRequest.patches)."},
        "SuggestPlacementRequest.time_limit": {"replace": time_limit_schema(DEFAULT_SUGGEST_LIMIT)},
        "SuggestMoveRequest": {
            "anyOf": [{"required": ["state"]}, {"required": ["state_json"]}],
            "description": "the position: state, or the deprecated state_json (read only when state is unset)"},
        "SuggestMoveRequest.state": playable,
        "SuggestMoveRequest.state_json": {
            "maxLength": MAX_STATE_JSON, "deprecated": True, "pattern": JSON_OBJECT_TEXT,
            "contentMediaType": "application/json", "contentSchema": {"$ref": "#/components/schemas/EngineState"},
            "examples": [json.dumps(_NEW_GAME.to_json(), separators=(",", ":"))],
            "description": f"deprecated: use state. Text that must hold a JSON object: the engine's state JSON "
                           f"(EngineState; GameState.to_json() in docs/engine.md), at most {MAX_STATE_JSON} "
                           f"characters; read only when state is unset. {ALSO}that the text is that JSON object "
                           f"and every rule of the game (as for a GameState). {GAME_OVER}"},
        "SuggestMoveRequest.time_limit": {"replace": time_limit_schema(
            DEFAULT_SUGGEST_LIMIT, also=f" ({DEFAULT_ITERATIONS_LIMIT:g} s with iterations)")},
        "AnalyzeGameRequest": {"required": ["record"]},
        "AnalyzeGameRequest.time_per_move": {"replace": time_limit_schema(
            DEFAULT_REVIEW_LIMIT, also=f" ({DEFAULT_ITERATIONS_LIMIT:g} s with iterations); a move that is not "
                                       "the best takes two searches")},
        "AnalyzeGameRequest.large_loss": _range(0, MAX_LARGE_LOSS, f"a loss of at least this much win chance "
                                                                   f"is a large mistake; 0 means "
                                                                   f"{DEFAULT_LARGE_LOSS:g}"),
        "AnalyzePositionRequest": {
            "anyOf": [{"required": ["state"]}, {"required": ["state_json"]}],
            "not": {"required": ["until_cancelled"], "properties": {"until_cancelled": {"const": True}},
                    "anyOf": [{"required": ["time_limit"]},
                              {"required": ["iterations"], "properties": {"iterations": {"minimum": 1}}}]},
            "description": "the position: state, or state_json (read only when state is unset); one budget: "
                           "iterations, time_limit (the default, 1 s) or until_cancelled, not until_cancelled "
                           "with another (e.g. {\"until_cancelled\": true, \"iterations\": 500} is refused)"},
        "AnalyzePositionRequest.state": playable,
        "AnalyzePositionRequest.state_json": {
            "maxLength": MAX_STATE_JSON, "pattern": JSON_OBJECT_TEXT,
            "contentMediaType": "application/json", "contentSchema": {"$ref": "#/components/schemas/EngineState"},
            "examples": [json.dumps(_NEW_GAME.to_json(), separators=(",", ":"))],
            "description": f"text that must hold a JSON object: the engine's state JSON (EngineState; "
                           f"GameState.to_json() in docs/engine.md), at most {MAX_STATE_JSON} characters, as "
                           f"SuggestMove takes it; read only when state is unset. {ALSO}that the text is that JSON "
                           f"object and every rule of the game (as for a GameState). {GAME_OVER}"},
        "AnalyzePositionRequest.time_limit": {"replace": time_limit_schema(
            DEFAULT_SUGGEST_LIMIT, also=f" ({DEFAULT_ITERATIONS_LIMIT:g} s with iterations, then only a cap); "
                                        "not with until_cancelled")},
        "AnalyzePositionRequest.until_cancelled": {
            "description": f"analyse until the client closes the stream (or X-Deadline-Ms passes), at most "
                           f"{MAX_ANALYSIS_TIME:g} s, then the final update; not with iterations or time_limit"},
        "AnalyzePositionRequest.report_interval": {"replace": {
            "type": "string", "pattern": f"^{seconds_between(MIN_REPORT_INTERVAL, MAX_REPORT_INTERVAL)}s$",
            "examples": ["0.2s", "0.05s"],
            "description": f"google.protobuf.Duration in its JSON form: the time between two updates, at least "
                           f"{MIN_REPORT_INTERVAL:g} s and at most {MAX_REPORT_INTERVAL:g} s; unset means "
                           f"{DEFAULT_REPORT_INTERVAL:g} s"}},
        "SolvePositionRequest": {
            "anyOf": [{"required": ["state"]}, {"required": ["state_json"]}],
            "description": "the position: state, or state_json (read only when state is unset). A finished game "
                           "is answered at once: its margin, exact (reason SOLVE_REASON_GAME_OVER)"},
        "SolvePositionRequest.state_json": {
            "maxLength": MAX_STATE_JSON, "pattern": JSON_OBJECT_TEXT,
            "contentMediaType": "application/json", "contentSchema": {"$ref": "#/components/schemas/EngineState"},
            "examples": [json.dumps(_NEW_GAME.to_json(), separators=(",", ":"))],
            "description": f"text that must hold a JSON object: the engine's state JSON (EngineState; "
                           f"GameState.to_json() in docs/engine.md), at most {MAX_STATE_JSON} characters, as "
                           f"SuggestMove takes it; read only when state is unset. {ALSO}that the text is that JSON "
                           f"object and every rule of the game (as for a GameState)."},
        "SolvePositionRequest.time_limit": {"replace": time_limit_schema(
            DEFAULT_SOLVE_POSITION_LIMIT, most=MAX_SOLVE_POSITION_TIME,
            also="; X-Deadline-Ms stops it earlier (the final update comes just before it)")},
        "SolvePositionRequest.report_interval": {"replace": {
            "type": "string", "pattern": f"^{seconds_between(MIN_REPORT_INTERVAL, MAX_REPORT_INTERVAL)}s$",
            "examples": ["0.2s", "1s"],
            "description": f"google.protobuf.Duration in its JSON form: the time between two updates, at least "
                           f"{MIN_REPORT_INTERVAL:g} s and at most {MAX_REPORT_INTERVAL:g} s; unset means "
                           f"{DEFAULT_REPORT_INTERVAL:g} s"}},
        "SolvePositionRequest.table_mb": {
            "minimum": 0, "description": f"the solver's transposition table in MiB, at least {MIN_SOLVE_TABLE_MB}; 0 "
                                         f"or unset means {DEFAULT_SOLVE_TABLE_BYTES >> 20} (or the server's bound "
                                         f"when lower); more than the server's --table-bytes is answered 507"},
        "SolvePuzzleRequest": {
            "required": ["region", "mode"],
            "anyOf": [{"required": ["pieces"], "properties": {"pieces": {"minItems": 1}}},
                      {"required": ["unlimited_pieces"], "properties": {"unlimited_pieces": {"minItems": 1}}}],
            "not": {"required": ["method", "mode"], "properties": {"method": {"const": "PUZZLE_METHOD_FRONTIER"},
                                                                   "mode": {"const": "PUZZLE_MODE_FIND"}}},
            "description": "at least one piece in pieces or unlimited_pieces; PUZZLE_METHOD_FRONTIER only with "
                           "PUZZLE_MODE_COUNT"},
        "SolvePuzzleRequest.pieces": {"maxItems": MAX_PIECES, "items": shapes,
                                      "description": f"0-{MAX_PIECES} piece shapes; each used at most once "
                                                     f"(repeat a shape for copies). {ALSO}no piece here is one "
                                                     "of unlimited_pieces (its supply is unlimited already)."},
        "SolvePuzzleRequest.unlimited_pieces": {
            "maxItems": MAX_PIECES, "items": shapes,
            "description": f"0-{MAX_PIECES} shapes that may be used any number of times. {ALSO}at most "
                           f"{MAX_PIECES} entries in pieces and unlimited_pieces together; no two unlimited "
                           "shapes the same piece (in an orientation the request allows, e.g. \"##.\" and "
                           "\".##\"), and no piece of pieces one of them. In a tiling, an unlimited shape's "
                           "patch_index is len(pieces) + its index here."},
        "SolvePuzzleRequest.method": {"description": "how to count; unset means PUZZLE_METHOD_AUTO. "
                                                     "PUZZLE_METHOD_FRONTIER only with PUZZLE_MODE_COUNT; a "
                                                     "frontier count whose table would pass the server's "
                                                     "--table-bytes is answered 507"},
        "SolvePuzzleRequest.max_tilings": _range(0, MAX_TILINGS, f"how many tilings to find, 0-{MAX_TILINGS}; "
                                                                 "0 means 1"),
        "SolvePuzzleRequest.time_limit": {"replace": time_limit_schema(DEFAULT_SOLVE_LIMIT)},
        "GeneratePuzzleRequest": {
            **_GENERATE_FORMS,
            "description": f"a region, or a box of height x width (both set, or both 0 for the family's default "
                           f"box), not both; a family or pieces, not both (neither: pentominoes). {ALSO}the box or "
                           "region holds at least one piece, and a region is covered exactly by some choice of "
                           "the pieces (e.g. a region of 7 cells and only tetrominoes is refused)."},
        "GeneratePuzzleRequest.height": _range(0, MAX_GRID, f"rows of the box the region is cut from, 1-{MAX_GRID}; "
                                                            "0 (with width 0) means the family's default box"),
        "GeneratePuzzleRequest.width": _range(0, MAX_GRID, f"columns of the box, 1-{MAX_GRID}; 0 with height 0"),
        "GeneratePuzzleRequest.pieces": {"maxItems": MAX_PIECES, "items": shapes,
                                         "description": f"0-{MAX_PIECES} piece shapes to choose from (each used at "
                                                        "most once), instead of a family"},
        "GeneratePuzzleRequest.time_limit": {"replace": time_limit_schema(DEFAULT_SOLVE_LIMIT)},
        # ------------------------------------------------ answers
        "SuggestMoveResponse.proven": {"description": "true when the endgame solver proved the value of every "
                                                      "returned move (each then has proven_margin)"},
        "MoveSuggestion.proven_margin": {"description": PROVEN_MARGIN},
        "AnalyzeGameResponse.loss_points": {"minimum": 0, "description": "present only where the endgame solver "
                                            "proved both values: the exact loss in points, margin_best - "
                                            "margin_played"},
        "AnalyzeGameResponse.margin_played": {"description": "present only when proven: the mover's final margin "
                                              "in points after the move played, perfect play"},
        "AnalyzeGameResponse.margin_best": {"description": "present only when proven: the mover's final margin in "
                                            "points after the best move (the position's game value)"},
        "AnalyzedMove.proven_margin": {"description": PROVEN_MARGIN},
        "AnalyzedMove.visits": {"minimum": 0, "description": "the search's playouts through the move so far"},
        "AnalyzedMove.mean_margin": {"description": "present only with visits: the mover's mean final margin in "
                                                    "buttons over the move's playouts"},
        "AnalyzedMove.principal_variation": {"description": "the line the search expects, starting with the move "
                                                            "(leather placements on the way included)"},
        "AnalyzePositionUpdate.proven_margin": {"description": "present only when proven: the position's value "
                                                               "for the player to move (the best move's margin)"},
        "AnalyzePositionUpdate.final": {"description": "true on the last update of the stream"},
        "SolvePositionUpdate.lower": {"description": "the value (the mover's final margin under perfect play) is "
                                                     "proven to be at least this"},
        "SolvePositionUpdate.upper": {"description": "the value is proven to be at most this"},
        "SolvePositionUpdate.value": {"description": "present only when lower == upper: the exact value"},
        "SolvePositionUpdate.line": {"description": "the best line so far (the move proving lower first); with "
                                                    "value, a principal variation to the end of the game"},
        "SolvePositionUpdate.final": {"description": "true on the last update of the stream"},
        "SolvePuzzleResponse.count": {"description": "PUZZLE_MODE_COUNT: the raw number of tilings, present only "
                                                     "when it fits an int64; count_decimal always has it"},
        "SolvePuzzleResponse.distinct": {"description": "PUZZLE_MODE_COUNT: tilings up to the region's "
                                                        "symmetries, present only when it fits an int64; "
                                                        "distinct_decimal always has it"},
        "SolvePuzzleResponse.count_decimal": {"pattern": "^([0-9]+)?$",
                                              "description": "PUZZLE_MODE_COUNT: the raw number of tilings, "
                                                             "exact, in decimal, of any size; empty when finding"},
        "SolvePuzzleResponse.distinct_decimal": {"pattern": "^([0-9]+)?$",
                                                 "description": "PUZZLE_MODE_COUNT: the tilings up to the "
                                                                "region's symmetries, exact, in decimal; empty "
                                                                "when finding"},
        "SolvePuzzleResponse.method": {"description": "the method that answered (SEARCH or FRONTIER); "
                                                      "UNSPECIFIED when none had to run"},
        # ------------------------------------------------ positions and records
        "GameState": {
            "required": ["edition", "players"],
            "examples": [positions.to_mapping(_NEW_GAME)],
            "description": "a game position; every rule of the game is checked on arrival: the bounds here are "
                           "what JSON Schema can say, and each field says the rules it takes part in (the "
                           f"patches add up, incomes match the patches, boards cover what was bought, the leather "
                           f"spaces left, whose turn it is, ...). A new game of the revised edition: both players "
                           f"on space 0 with 5 buttons, empty boards, no patches and income 0; the circle all "
                           f"{N_PATCHES} patches ending with {START_PATCH_ID}; leather_spaces {_START_LEATHER}; "
                           "current_player 0."},
        "GameState.players": {"minItems": 2, "maxItems": 2, "description": "exactly two; player 0 moved first"},
        "GameState.circle": {
            "maxItems": N_PATCHES, "uniqueItems": True, "items": _ids(),
            "description": f"patch ids still in the circle, clockwise from the one after the neutral token. {ALSO}"
                           f"the circle and both players' patches together hold each patch id 0-{N_PATCHES - 1} "
                           f"exactly once (e.g. at the start all {N_PATCHES}, [{_START_CIRCLE}], with no patch "
                           "bought; after player 0 buys the first patch, it is in their patches and the circle goes "
                           "on from the patch after it)."},
        "GameState.leather_spaces": {
            "maxItems": MAX_LEATHER, "uniqueItems": True,
            "items": {"enum": LEATHER_SPACE_LIST},
            "description": f"time-track spaces still holding a leather patch. {ALSO}exactly the edition's leather "
                           "spaces beyond both time tokens, in order (e.g. "
                           f"{_START_LEATHER} in a revised game while both tokens are below "
                           f"{_START_LEATHER[0]})."},
        "GameState.current_player": _range(0, 1, f"the player to act. {ALSO}the player further back on the track "
                                                 "(either while both are on the same space), unless that player "
                                                 "has leather patches to place or the game is over (e.g. 1 when "
                                                 "player 0 is on space 4 and player 1 on space 2)"),
        "GameState.leather_to_place": _range(0, MAX_LEATHER, f"leather patches the player to move must place now. "
                                                             f"{ALSO}placed plus pending leather patches are at "
                                                             "most those taken from the track; pending ones lie "
                                                             "between the two tokens, and fit the empty cells of "
                                                             "the player to move (e.g. 0 at the start)"),
        "GameState.first_to_end": {"replace": {
            "type": ["integer", "null"], "minimum": 0, "maximum": 1,
            "description": f"the player who reached the last space first; unset (or null) while nobody has. "
                           f"{ALSO}set exactly when a player is on space {END}, to a player on space {END} "
                           "(e.g. unset at the start)"}},
        "PlayerState": {"required": ["board"]},
        "PlayerState.board": {"description": f"the quilt board. {ALSO}it covers exactly the cells of the "
                                             "player's patches plus one per leather patch (e.g. 3 cells after "
                                             "buying patch 1, \"###\")"},
        "PlayerState.buttons": _range(0, MAX_BUTTONS),
        "PlayerState.position": _range(0, END, f"space of the time token, 0-{END}"),
        "PlayerState.income": _range(0, MAX_INCOME, f"{ALSO}the income printed on the bought patches, added up "
                                                    "(e.g. 0 with no patches)"),
        "PlayerState.patches": {
            "maxItems": N_PATCHES, "uniqueItems": True, "items": _ids(),
            "description": f"standard ids of the bought patches, in buying order. {ALSO}no patch is in both "
                           "players' patches or in the circle as well (see GameState.circle)"},
        "PlayerState.leather": _range(0, MAX_LEATHER),
        "PlayerState.bonus": {"description": f"whether this player holds the 7x7 bonus tile. {ALSO}true only "
                                             "with a completed 7x7 square on the board and for one player at "
                                             "most; true for the one whose board has a completed 7x7 square "
                                             "when nobody else holds it"},
        "GameRecord": {"required": ["edition", "circle", "actions"],
                       "examples": [{"edition": "EDITION_REVISED", "circle": _NEW_GAME.circle,
                                     "actions": ["advance", "advance"]}],
                       "description": "a game record: the starting circle and the moves played"},
        "GameRecord.circle": circle,
        "GameRecord.actions": actions,
        # ------------------------------------------------ GameService
        "NewGameRequest.seed": {**seed, "maximum": MAX_SEED,
                                "description": "the deal's seed; unset means a random one (returned in the record)"},
        "NewGameRequest.edition": {"replace": {**editions, "description": "the rules edition; unset means "
                                                                          f"{engine.DEFAULT_EDITION}"}},
        "NewGameRequest": {"not": {"required": ["seed", "circle"], "properties": {"circle": {"minItems": 1}}},
                           "description": "a seed or a circle, not both (neither: a random deal)"},
        "NewGameRequest.circle": {
            "maxItems": N_PATCHES, "uniqueItems": True, "items": _ids(),
            "anyOf": [{"maxItems": 0}, {"minItems": N_PATCHES}],
            "description": f"the circle as it lies on a table, instead of a seed: empty (a deal from the seed) or "
                           f"all {N_PATCHES} patch ids 0-{N_PATCHES - 1}, each once, clockwise from the neutral "
                           f"token. {ALSO}patch {START_PATCH_ID} last (the token starts just after it), e.g. "
                           f"[{_START_CIRCLE}]."},
        "ViewPositionRequest": {"required": ["state"]},
        "LegalMovesRequest": {"required": ["state"]},
        "LegalMovesRequest.patch_id": {**_ids(), "description": "only the moves that buy this patch"},
        "ApplyMoveRequest": {"required": ["state", "move"]},
        "ApplyMoveRequest.state": playable,
        "ApplyMoveRequest.move": {"maxLength": MAX_MOVE_TEXT, "pattern": ACTION_TEXT,
                                  "examples": ["buy 5 0,0;0,1;1,1", "advance"],
                                  "description": f"a move in the engine's text form. {ALSO}it must be legal in "
                                                 "the position (see /api/v1/game/legal), e.g. \"advance\" is "
                                                 "legal unless leather is to be placed"},
        "EngineMoveRequest": {"required": ["state", "strength"]},
        "EngineMoveRequest.state": playable,
        "EngineMoveRequest.strength": {"pattern": search, "examples": ["greedy", "random", "level:3", "search:1",
                                                                    "search:500it"],
                                       "description": f"random, greedy, level:N (N = {min(LEVELS)}-{max(LEVELS)}: "
                                                      "the engine's levels, each a fixed iteration budget, rated in "
                                                      "/levels.json), search:SECONDS (more than 0, at most "
                                                      f"{MAX_TIME_LIMIT:g}, as SuggestMove's time_limit; search "
                                                      f"alone means {DEFAULT_SUGGEST_LIMIT:g}) or search:Nit "
                                                      f"(1-{MAX_ITERATIONS} iterations, as SuggestMove's)"},
        "EngineMoveRequest.seed": {**seed, "description": "random seed for a reproducible move; unset means 0, "
                                                          "as in SuggestMove"},
        "EngineMoveResponse.value": {"deprecated": True, "description": "deprecated: the same as win_chance"},
        "ReplayGameRequest": {"required": ["record"]},
        "ReplayGameRequest.record": record,
        "LoadPositionRequest": {"required": ["text"]},
        "LoadPositionRequest.text": {
            "maxLength": MAX_LOAD_TEXT,
            "oneOf": [{"title": "notation", "pattern": NOTATION_TEXT, "maxLength": NOTATION_MAX},
                      {"title": "JSON", "pattern": JSON_OBJECT_TEXT}],
            "examples": [_NEW_GAME.to_notation()],
            "description": "a position as notation, or a JSON object: engine state JSON, GameState JSON, or a "
                           f"game record (a JSON-lines file: its first line). {ALSO}that the text is one of these, "
                           "and every rule of the game (e.g. the circle and the players' patches hold each patch "
                           "once; a record's moves are legal)."},
        "LoadPositionRequest.plies": {"minimum": 0, "description": f"for a record: play only this many moves. "
                                                                   f"{ALSO}at most the record's number of moves."},
        "PositionNotationRequest": {"required": ["state"]},
        "LoadPositionResponse.kind": {"enum": ["notation", "state", "state_json", "record"]},
        "EngineRecord.edition": {"enum": list(engine.EDITIONS)},
        "GameView.edition": {"enum": list(engine.EDITIONS)},
        "GameResult.bonus": {"replace": {"type": ["integer", "null"], "minimum": 0, "maximum": 1,
                                         "description": "the player with the 7x7 bonus tile; null when nobody "
                                                        "has it"}},
    }


def rule_for(rules: dict[str, dict], message: str, field_name: str) -> dict | None:
    """The rule of ``message``'s field: its own entry, else the ``*Request`` one for a request message."""
    own = rules.get(f"{message}.{field_name}")
    if own is None and message.endswith("Request"):
        return rules.get(f"*Request.{field_name}")
    return own


# The enum values a request may carry: the service answers INVALID_ARGUMENT to the others
# (the *_UNSPECIFIED zero values). Keyed by the enum's full name; the same list the service's
# "expected one of" errors give (server.protojson.accepted_enum_names).
ACCEPTED_ENUMS = {e.full_name: accepted_enum_names(e) for e in pb.DESCRIPTOR.enum_types_by_name.values()}

def exclusive_fields(rule: dict | None) -> set[str]:
    """The fields a whole-message rule's ``oneOf``/``not`` name: those a link may not set on its own (setting one
    could break the rule).

    >>> sorted(exclusive_fields(rules()["GeneratePuzzleRequest"]))
    ['family', 'height', 'pieces', 'region', 'width']
    """
    out: set[str] = set()

    def walk(node: Any, inside: bool) -> None:
        if isinstance(node, dict):
            if inside:
                out.update(node.get("required", ()))
                out.update(node.get("properties", {}))
            for key, value in node.items():
                walk(value, inside or key in ("oneOf", "not"))
        elif isinstance(node, list):
            for value in node:
                walk(value, inside)

    walk({k: v for k, v in (rule or {}).items() if k != "description"}, False)
    return out


def _repeated(f: FieldDescriptor) -> bool:
    flag = getattr(f, "is_repeated", None)
    if flag is None:  # older protobuf
        return f.label == FieldDescriptor.LABEL_REPEATED
    return bool(flag() if callable(flag) else flag)


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    name: str
    summary: str
    request: str | None = None      # message name in placement.proto
    response: str | None = None
    streaming: bool = False
    tags: tuple[str, ...] = field(default=("rpc",))


def _message_schema(desc: Descriptor, out: dict, rules: dict) -> dict:
    if desc.full_name == "google.protobuf.Duration":
        return _DURATION
    if desc.name not in out:
        out[desc.name] = {}  # placeholder against recursion
        props = {}
        for f in desc.fields:
            props[f.name] = _field_schema(f, out, rule_for(rules, desc.name, f.name), rules)
        schema: dict = {"type": "object", "properties": props, "additionalProperties": False}
        whole: dict[str, Any] = copy.deepcopy(rules.get(desc.name, {}))
        notes = []
        # A proto oneof: at most one of its fields (the service refuses two), unless the rule says more.
        for o in desc.oneofs:
            names = [x.name for x in o.fields]
            if len(names) > 1 and "oneOf" not in whole:
                whole.setdefault("allOf", []).append(
                    {"not": {"anyOf": [{"required": list(pair)} for pair in itertools.combinations(names, 2)]}})
                notes.append(f"at most one of {', '.join(names)}")
        if whole.get("description"):
            notes.append(whole.pop("description"))
        schema.update(whole)
        if notes:
            schema["description"] = "; ".join(notes)
        out[desc.name] = schema
    return {"$ref": f"#/components/schemas/{desc.name}"}


def _apply(schema: dict, rule: dict | None) -> dict:
    if not rule:
        return schema
    rule = copy.deepcopy(rule)
    if "replace" in rule:
        return rule["replace"]
    if "$ref" in schema and rule:
        return {**{k: v for k, v in rule.items() if k != "items"}, "allOf": [schema]}
    schema = dict(schema)
    schema.update(rule)
    return schema


def _field_schema(f: FieldDescriptor, out: dict, rule: dict | None, rules: dict) -> dict:
    rule = copy.deepcopy(rule) if rule else {}
    items_rule = rule.pop("items", None)
    if f.type == FieldDescriptor.TYPE_MESSAGE:
        item = _message_schema(f.message_type, out, rules)
    elif f.type == FieldDescriptor.TYPE_ENUM:
        names = ACCEPTED_ENUMS.get(f.enum_type.full_name) or [v.name for v in f.enum_type.values]
        item = {"type": "string", "enum": list(names)}
    else:
        item = dict(_SCALARS.get(f.type, {}))  # a copy: the caller may add to it
    if _repeated(f):
        return _apply({"type": "array", "items": _apply(item, items_rule)}, rule)
    return _apply(item, rule)


_ERROR = {
    "type": "object",
    "properties": {"error": {"type": "object", "properties": {
        "code": {"type": "string", "description": "the gRPC status code name, e.g. INVALID_ARGUMENT"},
        "field": {"type": ["string", "null"], "description": "the offending field, e.g. board.rows[3]"},
        "message": {"type": "string"}}, "required": ["code", "field", "message"]}},
    "required": ["error"],
}


# ---------------------------------------------------------------- request examples

EXAMPLE_BOARD = [".........", ".........", "..###....", "..###....", ".........",
                 ".........", "......##.", "......##.", "........."]


def request_examples() -> dict[str, dict | None]:
    """A small working request per operation (``operationId`` → its JSON body; None: a GET without one).

    The one set of examples: the document carries them (each ``requestBody``'s ``examples``), docs/api.md
    shows them (:func:`examples_markdown`), and the tests send each to a running server and expect 200.
    Budgets are tiny (small iterations and time limits, small puzzles) so that each answers in well
    under a second.

    >>> ex = request_examples()
    >>> ex["SolvePuzzle"]["mode"], ex["Healthz"]
    ('PUZZLE_MODE_COUNT', None)
    """
    start = engine.new_game(EXAMPLE_SEED)
    state = positions.to_mapping(start)
    record = {"edition": "EDITION_REVISED", "circle": list(start.circle), "actions": ["advance", "advance"]}
    return {
        "Healthz": None,
        "ListPatches": None,
        "SolvePlacement": {"board": {"rows": EXAMPLE_BOARD}, "patches": [{"id": 5}, {"shape": "##./.##"}],
                           "objective": "OBJECTIVE_COVER", "time_limit": "0.5s", "seed": 0},
        "SuggestPlacement": {"board": {"rows": EXAMPLE_BOARD}, "patch": {"id": 5}, "upcoming": [{"id": 7}, {"id": 9}],
                             "objective": "OBJECTIVE_COVER", "top": 3, "time_limit": "0.5s", "seed": 0},
        "SuggestMove": {"state": state, "top": 3, "iterations": 50, "seed": 0},
        "SolvePuzzle": {"region": {"rows": ["....", "...."]}, "pieces": ["##", "##", "##", "##"],
                        "mode": "PUZZLE_MODE_COUNT", "time_limit": "1s"},
        "GeneratePuzzle": {"height": 5, "width": 5, "family": "PIECE_FAMILY_TETROMINOES", "seed": 1,
                           "time_limit": "2s"},
        "AnalyzeGame": {"record": record, "iterations": 20, "seed": 0},
        "AnalyzePosition": {"state": state, "top": 3, "iterations": 200, "seed": 0, "report_interval": "0.05s"},
        "SolvePosition": {"state": state, "time_limit": "0.3s", "report_interval": "0.1s"},
        "NewGame": {"seed": EXAMPLE_SEED},
        "LoadPosition": {"text": start.to_notation()},
        "ViewPosition": {"state": state},
        "LegalMoves": {"state": state, "patch_id": start.available_patches()[0]},
        "ApplyMove": {"state": state, "move": "advance"},
        "EngineMove": {"state": state, "strength": "search:50it", "seed": 1},
        "ReplayGame": {"record": {**record, "edition": "revised"}},
        "PositionNotation": {"state": state},
    }


EXAMPLES_COMMAND = ("python -c 'from quiltsolve.web.app import ENDPOINTS; from quiltsolve.web.openapi import "
                    "examples_markdown; print(examples_markdown(ENDPOINTS), end=\"\")'")


def examples_markdown(endpoints: list[Endpoint]) -> str:
    """The examples as docs/api.md shows them: one ``curl`` command per operation, in the route table's
    order (:func:`request_examples`; :data:`EXAMPLES_COMMAND` prints it)."""
    import json

    examples = request_examples()
    out = ["<!-- generated from request_examples() in web/openapi.py by", EXAMPLES_COMMAND,
           "tests/web/test_openapi.py checks that it is up to date -->", "", "```sh"]
    for e in endpoints:
        body = examples[e.name]
        out.append(f"# {e.name}: {e.summary}")
        if body is None:
            out.append(f"curl -s http://127.0.0.1:8080{e.path}")
        else:
            out.append(f"curl -s http://127.0.0.1:8080{e.path} -H 'Content-Type: application/json' "
                       f"-d '{json.dumps(body, separators=(',', ':'))}'")
    out.append("```")
    return "\n".join(out) + "\n"


def _deadline_header() -> dict:
    return {"name": "X-Deadline-Ms", "in": "header", "required": False,
            "schema": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_DEADLINE_MS},
            "description": f"the call's deadline in milliseconds from now, more than 0 and at most "
                           f"{MAX_DEADLINE_MS}; when it passes the call is stopped (a solve answers with what "
                           "it found, or 504 DEADLINE_EXCEEDED)"}


def links(endpoints: list[Endpoint], table: dict[str, dict] | None = None) -> dict[str, dict]:
    """``operationId`` → the OpenAPI links of its 200 answer: for each operation whose request has a top-level field
    of the same name and type as one of the answer's (a message, or a list), a link that sends the answer's value
    as that field (a new game's ``state`` into every request that takes a ``state``; a generated puzzle's
    ``region`` and ``pieces`` into SolvePuzzle). Derived from the descriptors, so a new RPC gets its links; a
    field that a whole-message rule's ``oneOf``/``not`` names is left out (set alone, it could break the rule).

    >>> from quiltsolve.web.app import ENDPOINTS
    >>> sorted(links(ENDPOINTS)["GeneratePuzzle"]["SolvePuzzle"]["requestBody"])
    ['pieces', 'region']
    """
    table = rules() if table is None else table
    messages = pb.DESCRIPTOR.message_types_by_name
    out: dict[str, dict] = {}
    for source in endpoints:
        if not source.response or source.streaming:
            continue
        answer = messages[source.response]
        for target in endpoints:
            if not target.request:
                continue
            request = messages[target.request]
            skip = exclusive_fields(table.get(target.request))
            body = {}
            for f in answer.fields:
                g = request.fields_by_name.get(f.name)
                if (g is None or f.name in skip or g.type != f.type or _repeated(g) != _repeated(f)
                        or (f.type != FieldDescriptor.TYPE_MESSAGE and not _repeated(f))
                        or (f.message_type is not None and g.message_type is not f.message_type)
                        or (f.enum_type is not None and g.enum_type is not f.enum_type)):
                    continue
                body[f.name] = f"$response.body#/{f.name}"
            if body:
                out.setdefault(source.name, {})[target.name] = {
                    "operationId": target.name, "requestBody": body,
                    "description": f"{', '.join(body)} of this answer as the {target.name} request's"}
    return out


_HEALTH = {"type": "object", "additionalProperties": False, "required": ["status"],
           "properties": {"status": {"type": "string", "enum": ["SERVING", "NOT_SERVING"]},
                          "auth_required": {"type": "boolean", "description": "whether the API needs a token"}}}


def document(endpoints: list[Endpoint], version: str = "1",
             max_body: int = CoreConfig.max_receive_bytes) -> dict:
    table = rules()
    schemas: dict = {"EngineState": engine_state_schema()}
    examples = request_examples()
    answer_links = links(endpoints, table)
    paths: dict = {}
    for e in endpoints:
        op: dict = {"operationId": e.name, "summary": e.summary, "tags": list(e.tags),
                    "parameters": [_deadline_header(),
                                   {"name": "X-Request-Id", "in": "header", "required": False,
                                    "schema": {"type": "string"}, "description": "logged with the call"}]}
        for schema_name in (e.request, e.response):
            if schema_name:
                _message_schema(pb.DESCRIPTOR.message_types_by_name[schema_name], schemas, table)
        if e.request:
            # type: object beside the reference, so that a tool reading the body alone knows it (issue 34)
            body: dict = {"schema": {"type": "object", "$ref": f"#/components/schemas/{e.request}"}}
            if examples.get(e.name) is not None:    # a small request that answers 200 (tests/web/test_openapi.py)
                body["examples"] = {"small": {"summary": "a small, fast request", "value": examples[e.name]}}
            op["requestBody"] = {"required": True, "content": {"application/json": body}}
        ok_schema = {"$ref": f"#/components/schemas/{e.response}"} if e.response else {"type": "object"}
        ok: str = "the answer"
        if e.streaming:
            op["parameters"].append({"name": "format", "in": "query", "required": False,
                                     "schema": {"type": "string", "enum": ["json", "ndjson"]},
                                     "description": "json: one {\"items\": [...]} answer at the end; "
                                                    "otherwise (the default) NDJSON"})
            ok = ("the answer: application/x-ndjson (the default) is one JSON object per line, sent as each is "
                  "ready (an error after the first line ends the stream with an {\"error\": ...} line); "
                  "?format=json answers {\"items\": [...]} at the end")
            content = {"application/x-ndjson": {"schema": ok_schema},
                       "application/json": {"schema": {"type": "object", "properties": {
                           "items": {"type": "array", "items": ok_schema}}}}}
        else:
            content = {"application/json": {"schema": ok_schema}}
        err = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        op["responses"] = {
            "200": {"description": ok, "content": content},
            "400": {"description": "INVALID_ARGUMENT: bad input; `field` names it", **err},
            "401": {"description": "UNAUTHENTICATED: the server has bearer tokens and the call has no valid "
                                   "`Authorization: Bearer <token>` (see WWW-Authenticate)", **err},
            "409": {"description": "FAILED_PRECONDITION: e.g. the game is already over", **err},
            "413": {"description": f"RESOURCE_EXHAUSTED: the body is larger than {max_body} bytes", **err},
            "429": {"description": "RESOURCE_EXHAUSTED: every worker busy, or this client over the rate limit; "
                                   "see Retry-After", **err},
            "499": {"description": "CANCELLED", **err},
            **({"507": {"description": "RESOURCE_EXHAUSTED that no retry cures: the frontier count's table would "
                                      "pass the server's --table-bytes bound (the message names it); no "
                                      "Retry-After", **err}} if e.name == "SolvePuzzle" else {}),
            **({"507": {"description": "RESOURCE_EXHAUSTED that no retry cures: table_mb asks for more than the "
                                      "server's --table-bytes bound (the message names it); no Retry-After",
                        **err}} if e.name == "SolvePosition" else {}),
            "500": {"description": "INTERNAL", **err},
            "503": {"description": "UNAVAILABLE: shutting down", **err},
            "504": {"description": "DEADLINE_EXCEEDED: X-Deadline-Ms passed before the answer was ready", **err},
        }
        if e.name in answer_links:
            op["responses"]["200"]["links"] = answer_links[e.name]
        if e.name == "Healthz":  # open for probes, with or without tokens; no deadline, nothing logged
            op["security"] = []
            op["parameters"] = []
            op["responses"] = {
                "200": {"description": "SERVING", "content": {"application/json": {"schema": _HEALTH}}},
                "503": {"description": "NOT_SERVING: shutting down",
                        "content": {"application/json": {"schema": _HEALTH}}}}
        paths.setdefault(e.path, {})[e.method.lower()] = op
    schemas["Error"] = _ERROR
    return {
        "openapi": "3.1.0",
        "info": {"title": "quiltsolve HTTP API", "version": version,
                 "description": "The patchwork.v1.PlacementService and patchwork.v1.GameService RPCs over HTTP/JSON "
                                "(bodies are the protobuf JSON mapping of the same messages). Every request the "
                                "schemas allow is taken, save for the rules each description states after "
                                f"\"{ALSO.strip()}\" (the rules of the game, a patch listed twice, ...), which "
                                "are answered 400 (or 409 for a finished game) naming the field. "
                                "See docs/web.md and docs/api.md."},
        "paths": paths,
        # Tokens are needed only when the server has them (--auth-token-file); {} is "no token" otherwise.
        "security": [{"bearer": []}, {}],
        "components": {"schemas": dict(sorted(schemas.items())),
                       "securitySchemes": {"bearer": {
                           "type": "http", "scheme": "bearer",
                           "description": "one of the server's tokens (--auth-token-file), the same as for gRPC; "
                                          "needed by every endpoint but healthz when the server has tokens"}}},
    }
