"""The HTTP API's OpenAPI 3.1 document, built from the route table and the protobuf descriptors.

The RPC endpoints' schemas are the protobuf JSON mapping of the messages
(proto field names; int64 as strings; enums as names; Durations as
``"1.5s"``), generated here from the descriptors so they cannot drift from
``proto/patchwork/v1/placement.proto``. On top of the types, the document
states what the service checks, built from the same constants the checks
use (:mod:`solver.limits`, the engine's state bounds, :mod:`web.calls`,
:mod:`server.game_service`): required fields (:data:`REQUIRED`), the enum values a
request may carry (:data:`ACCEPTED_ENUMS`), integer ranges, list sizes, row
and shape patterns, time limits (:func:`time_limit_schema`) and the
``X-Deadline-Ms`` range. What JSON Schema cannot say (a patch listed twice,
rows of unequal length, the rules of the game) is said in a ``description``.

>>> doc = document([Endpoint("POST", "/api/v1/solve-placement", "SolvePlacement", "Solve.",
...                          "SolvePlacementRequest", "SolvePlacementResponse")])
>>> sorted(doc["components"]["schemas"])[:4]
['Board', 'Cell', 'Error', 'PatchRef']
>>> doc["components"]["schemas"]["Board"]["properties"]["rows"]["items"]["pattern"]
'^[.#]{9}$'
>>> doc["components"]["schemas"]["SolvePlacementRequest"]["required"]
['board', 'patches', 'objective']
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from quiltsolve import engine
from quiltsolve import solver
from quiltsolve.engine.state_json import MAX_BUTTONS, MAX_INCOME, MAX_LEATHER
from quiltsolve.engine.track import END, START_PATCH_ID
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


def time_limit_schema(default: float, most: float = MAX_TIME_LIMIT, also: str = "") -> dict:
    """A request's time limit: a Duration in its JSON form, more than 0 and at most ``most`` seconds."""
    return {"type": "string", "pattern": f"^{positive_seconds_upto(most)}s$", "examples": ["0.5s", "2s"],
            "description": f"google.protobuf.Duration in its JSON form (\"1.5s\"): more than 0 s and at most "
                           f"{most:g} s; unset means {default:g} s{also}"}


def shape_schema(side: int) -> dict:
    """A shape's text: rows of '#' and '.' joined by '/' (or newlines or spaces)."""
    return {"type": "string", "minLength": 1, "maxLength": MAX_SHAPE_TEXT,
            "pattern": "^[#./\\n ]*#[#./\\n ]*$", "examples": ["##./.##", "###"],
            "description": f"rows of '#' (cloth) and '.' (hole) joined by '/', e.g. \"##./.##\"; empty rows and "
                           f"the empty border are ignored. Not expressible here, also checked: the cells are "
                           f"4-connected, no row is longer than {MAX_SHAPE_CELLS} characters, and the shape fits "
                           f"a {side}x{side} grid."}


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


def field_rules() -> dict[str, dict]:
    """``"Message.field"`` → what to add to the field's schema (``items``: to a list's item schema;
    ``replace``: the whole schema)."""
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
                             f"token. Not expressible here, also checked: patch {START_PATCH_ID} is last (the "
                             "token starts just after it)."}
    return {
        "Board.rows": board_rows,
        "Region.rows": {"minItems": 1, "maxItems": MAX_GRID, "items": {"pattern": f"^[.#]{{1,{MAX_GRID}}}$"},
                        "contains": {"type": "string", "pattern": "[.]"},
                        "description": f"1-{MAX_GRID} rows of 1-{MAX_GRID} characters: '.' a cell to tile, '#' "
                                       "not part of the region; at least one '.'. Not expressible here, also "
                                       "checked: every row has the length of row 0."},
        "PatchRef.id": _range(solver.LEATHER_PATCH_ID, N_PATCHES - 1,
                              f"a standard patch id 0-{N_PATCHES - 1}, or {solver.LEATHER_PATCH_ID} for the 1x1 "
                              "leather patch"),
        "PatchRef.shape": {"replace": shape_schema(BOARD_SIZE)},
        "PatchRef.count": _range(0, MAX_COUNT, f"copies available, 0-{MAX_COUNT}; 0 means 1"),
        "SolvePlacementRequest.patches": {
            "minItems": 1, "maxItems": MAX_PATCH_REFS,
            "description": f"1-{MAX_PATCH_REFS} candidate patches. Not expressible here, also checked: the same "
                           "patch may not be listed twice (an id twice, a shape twice in any orientation, or an "
                           "id and its shape): use count."},
        "SolvePlacementRequest.time_limit": {"replace": time_limit_schema(DEFAULT_SOLVE_LIMIT)},
        "SolvePlacementRequest.seed": seed,
        "SuggestPlacementRequest.upcoming": {
            "maxItems": MAX_PATCH_REFS,
            "description": f"0-{MAX_PATCH_REFS} patches expected later. Not expressible here, also checked: at "
                           f"most {MAX_UPCOMING_COPIES} copies in all (the counts added up), and no patch listed "
                           "twice."},
        "SuggestPlacementRequest.top": top,
        "SuggestPlacementRequest.time_limit": {"replace": time_limit_schema(DEFAULT_SUGGEST_LIMIT)},
        "SuggestPlacementRequest.seed": seed,
        "SuggestMoveRequest.state_json": {
            "minLength": 1, "maxLength": MAX_STATE_JSON, "deprecated": True,
            "description": f"deprecated: use state. The engine's state JSON as text (at most {MAX_STATE_JSON} "
                           "characters; docs/engine.md), used only when state is unset"},
        "SuggestMoveRequest.top": top,
        "SuggestMoveRequest.time_limit": {"replace": time_limit_schema(
            DEFAULT_SUGGEST_LIMIT, also=f" ({DEFAULT_ITERATIONS_LIMIT:g} s with iterations)")},
        "SuggestMoveRequest.seed": seed,
        "SuggestMoveRequest.iterations": iterations,
        "AnalyzeGameRequest.iterations": iterations,
        "AnalyzeGameRequest.time_per_move": {"replace": time_limit_schema(
            DEFAULT_REVIEW_LIMIT, also=f" ({DEFAULT_ITERATIONS_LIMIT:g} s with iterations); a move that is not "
                                       "the best takes two searches")},
        "AnalyzeGameRequest.seed": seed,
        "AnalyzeGameRequest.large_loss": _range(0, MAX_LARGE_LOSS, f"a loss of at least this much win chance "
                                                                   f"is a large mistake; 0 means "
                                                                   f"{DEFAULT_LARGE_LOSS:g}"),
        "AnalyzePositionRequest.state_json": {
            "minLength": 1, "maxLength": MAX_STATE_JSON,
            "description": f"the engine's state JSON as text (at most {MAX_STATE_JSON} characters; docs/engine.md), "
                           "as SuggestMove takes it; used only when state is unset"},
        "AnalyzePositionRequest.top": top,
        "AnalyzePositionRequest.seed": seed,
        "AnalyzePositionRequest.iterations": iterations,
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
        "AnalyzedMove.proven_margin": {"description": PROVEN_MARGIN},
        "AnalyzedMove.visits": {"minimum": 0, "description": "the search's playouts through the move so far"},
        "AnalyzedMove.mean_margin": {"description": "present only with visits: the mover's mean final margin in "
                                                    "buttons over the move's playouts"},
        "AnalyzedMove.principal_variation": {"description": "the line the search expects, starting with the move "
                                                            "(leather placements on the way included)"},
        "AnalyzePositionUpdate.proven_margin": {"description": "present only when proven: the position's value "
                                                               "for the player to move (the best move's margin)"},
        "AnalyzePositionUpdate.final": {"description": "true on the last update of the stream"},
        "SolvePositionRequest.state_json": {
            "minLength": 1, "maxLength": MAX_STATE_JSON,
            "description": f"the engine's state JSON as text (at most {MAX_STATE_JSON} characters; docs/engine.md), "
                           "as SuggestMove takes it; used only when state is unset"},
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
            "minimum": 0, "description": f"the solver's transposition table in MiB, at least "
                                         f"{MIN_SOLVE_TABLE_MB}; more than the server's --table-bytes is answered "
                                         f"507; 0 or unset means {DEFAULT_SOLVE_TABLE_BYTES >> 20} (or the server's "
                                         f"bound when lower)"},
        "SolvePositionUpdate.lower": {"description": "the value (the mover's final margin under perfect play) is "
                                                     "proven to be at least this"},
        "SolvePositionUpdate.upper": {"description": "the value is proven to be at most this"},
        "SolvePositionUpdate.value": {"description": "present only when lower == upper: the exact value"},
        "SolvePositionUpdate.line": {"description": "the best line so far (the move proving lower first); with "
                                                    "value, a principal variation to the end of the game"},
        "SolvePositionUpdate.final": {"description": "true on the last update of the stream"},
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
        "SolvePuzzleRequest.pieces": {"maxItems": MAX_PIECES, "items": {"replace": shape_schema(MAX_GRID)},
                                      "description": f"0-{MAX_PIECES} piece shapes; each used at most once "
                                                     "(repeat a shape for copies)"},
        "SolvePuzzleRequest.unlimited_pieces": {
            "maxItems": MAX_PIECES, "items": {"replace": shape_schema(MAX_GRID)},
            "description": f"0-{MAX_PIECES} shapes that may be used any number of times. Not expressible here, "
                           f"also checked: at most {MAX_PIECES} entries in pieces and unlimited_pieces together; "
                           "no two unlimited shapes the same piece (in an orientation the request allows), and "
                           "no piece of pieces one of them. In a tiling, an unlimited shape's patch_index is "
                           "len(pieces) + its index here."},
        "SolvePuzzleRequest.method": {"description": "how to count; unset means PUZZLE_METHOD_AUTO. "
                                                     "PUZZLE_METHOD_FRONTIER only with PUZZLE_MODE_COUNT; a "
                                                     "frontier count whose table would pass the server's "
                                                     "--table-bytes is answered 507"},
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
        "SolvePuzzleRequest.max_tilings": _range(0, MAX_TILINGS, f"how many tilings to find, 0-{MAX_TILINGS}; "
                                                                 "0 means 1"),
        "SolvePuzzleRequest.time_limit": {"replace": time_limit_schema(DEFAULT_SOLVE_LIMIT)},
        "GeneratePuzzleRequest.height": _range(0, MAX_GRID, f"rows of the box the region is cut from, 1-{MAX_GRID}; "
                                                            "0 (with width 0) means the family's default box"),
        "GeneratePuzzleRequest.width": _range(0, MAX_GRID, f"columns of the box, 1-{MAX_GRID}; 0 with height 0"),
        "GeneratePuzzleRequest.pieces": {"maxItems": MAX_PIECES, "items": {"replace": shape_schema(MAX_GRID)},
                                         "description": f"0-{MAX_PIECES} piece shapes to choose from (each used at "
                                                        "most once), instead of a family"},
        "GeneratePuzzleRequest.seed": seed,
        "GeneratePuzzleRequest.time_limit": {"replace": time_limit_schema(DEFAULT_SOLVE_LIMIT)},
        "GameState.players": {"minItems": 2, "maxItems": 2, "description": "exactly two; player 0 moved first"},
        "GameState.circle": {"maxItems": N_PATCHES, "uniqueItems": True, "items": _ids(),
                             "description": "patch ids still in the circle, clockwise from the one after the "
                                            "neutral token"},
        "GameState.leather_spaces": {"maxItems": MAX_LEATHER, "uniqueItems": True, "items": _range(0, END)},
        "GameState.current_player": _range(0, 1),
        "GameState.leather_to_place": _range(0, MAX_LEATHER),
        "GameState.first_to_end": {"replace": {"type": ["integer", "null"], "minimum": 0, "maximum": 1,
                                               "description": "the player who reached the last space first; "
                                                              "unset (or null) while nobody has"}},
        "PlayerState.buttons": _range(0, MAX_BUTTONS),
        "PlayerState.position": _range(0, END, f"space of the time token, 0-{END}"),
        "PlayerState.income": _range(0, MAX_INCOME, "the income printed on the bought patches, added up"),
        "PlayerState.patches": {"maxItems": N_PATCHES, "uniqueItems": True, "items": _ids()},
        "PlayerState.leather": _range(0, MAX_LEATHER),
        "GameRecord.circle": circle,
        **game_field_rules(seed, circle),
        "GameRecord.actions": {"minItems": 1, "maxItems": MAX_RECORD_ACTIONS,
                               "description": f"1-{MAX_RECORD_ACTIONS} moves in the engine's text form (\"advance\", "
                                              "\"buy 5 0,0;0,1;1,1\", \"leather 4,4\"), player 0 first. Not "
                                              "expressible here, also checked: each is legal where it is played."},
    }


# The enum values a request may carry: the service answers INVALID_ARGUMENT to the others
# (the *_UNSPECIFIED zero values). Keyed by the enum's full name; the same list the service's
# "expected one of" errors give (server.protojson.accepted_enum_names).
ACCEPTED_ENUMS = {e.full_name: accepted_enum_names(e)
                  for e in (pb.Objective.DESCRIPTOR, pb.PuzzleMode.DESCRIPTOR, pb.Edition.DESCRIPTOR)}

# Fields a request must set (a message missing one is INVALID_ARGUMENT).
REQUIRED = {
    "Board": ["rows"],
    "Region": ["rows"],
    "SolvePlacementRequest": ["board", "patches", "objective"],
    "SuggestPlacementRequest": ["board", "patch", "objective"],
    "AnalyzeGameRequest": ["record"],
    "SolvePuzzleRequest": ["region", "mode"],
    "GameState": ["edition", "players"],
    "PlayerState": ["board"],
    "GameRecord": ["edition", "circle", "actions"],
    "ViewPositionRequest": ["state"],
    "LegalMovesRequest": ["state"],
    "ApplyMoveRequest": ["state", "move"],
    "EngineMoveRequest": ["state", "strength"],
    "ReplayGameRequest": ["record"],
    "LoadPositionRequest": ["text"],
    "PositionNotationRequest": ["state"],
}

# Whole-message rules.
MESSAGE_RULES = {
    "PatchRef": {"oneOf": [{"required": ["id"]}, {"required": ["shape"]}],
                 "description": "exactly one of id, shape"},
    "SuggestMoveRequest": {"anyOf": [{"required": ["state"]}, {"required": ["state_json"]}],
                           "description": "state is required (or the deprecated state_json). A finished game is "
                                          "FAILED_PRECONDITION (409)."},
    "AnalyzePositionRequest": {
        "anyOf": [{"required": ["state"]}, {"required": ["state_json"]}],
        "if": {"required": ["until_cancelled"], "properties": {"until_cancelled": {"const": True}}},
        "then": {"not": {"anyOf": [{"required": ["time_limit"]},
                                   {"required": ["iterations"], "properties": {"iterations": {"minimum": 1}}}]}},
        "description": "state is required (or state_json). One budget: iterations, time_limit (the default, "
                       "1 s) or until_cancelled. A finished game is FAILED_PRECONDITION (409)."},
    "SolvePositionRequest": {
        "anyOf": [{"required": ["state"]}, {"required": ["state_json"]}],
        "description": "state is required (or state_json). A finished game is answered at once with its margin "
                       "(reason SOLVE_REASON_GAME_OVER)."},
    "GeneratePuzzleRequest": {"description": "Not expressible here, also checked: a region, or height and width "
                                             "(both set or both 0), not both; a family or pieces, not both; the "
                                             "box or region holds at least one piece (a region: some choice of "
                                             "the pieces covers exactly its cells)."},
    "SolvePuzzleRequest": {"anyOf": [{"required": ["pieces"], "properties": {"pieces": {"minItems": 1}}},
                                     {"required": ["unlimited_pieces"],
                                      "properties": {"unlimited_pieces": {"minItems": 1}}}],
                           "description": "at least one piece in pieces or unlimited_pieces. Not expressible "
                                          "here, also checked: PUZZLE_METHOD_FRONTIER only with "
                                          "PUZZLE_MODE_COUNT."},
    "GameState": {"description": "a game position; every rule of the game is checked on arrival (incomes match "
                                 "the patches, boards cover what was bought, the leather spaces left, whose turn "
                                 "it is, ...): the bounds here are what JSON Schema can say"},
    "GameRecord": {"description": "a game record: the starting circle and the moves played"},
}


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
            props[f.name] = _field_schema(f, out, rules.get(f"{desc.name}.{f.name}"), rules)
        schema: dict = {"type": "object", "properties": props, "additionalProperties": False}
        if desc.name in REQUIRED:
            schema["required"] = list(REQUIRED[desc.name])
        notes = [f"at most one of {', '.join(x.name for x in o.fields)}"
                 for o in desc.oneofs if len(o.fields) > 1 and desc.name not in MESSAGE_RULES]
        extra: dict[str, Any] = copy.deepcopy(MESSAGE_RULES.get(desc.name, {}))  # type: ignore[arg-type]
        if extra.get("description"):
            notes.append(extra.pop("description"))
        schema.update(extra)
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
_STATE = {"$ref": "#/components/schemas/GameState",
          "description": "the position: a GameState in its JSON mapping, as the game endpoints return it"}


def game_field_rules(seed: dict, circle: dict) -> dict[str, dict]:
    """The GameService messages' rules (:func:`field_rules`): SuggestMove's limits for the search."""
    search = (f"^(?:random|greedy|search(?::(?:{positive_seconds_upto(MAX_TIME_LIMIT)}"
              f"|{int_upto(MAX_ITERATIONS)}it))?)$")
    record = {"replace": {
        "type": "object", "additionalProperties": False, "required": ["edition", "circle", "actions"],
        "description": "a GameRecord in its JSON mapping, or the engine's record form (edition "
                       "\"revised\"/\"original\"; its seed, players, result and "
                       "evaluations are checked for form, then left out; any other field is refused)",
        "properties": {
            "edition": {"type": "string", "enum": ACCEPTED_ENUMS["patchwork.v1.Edition"] + list(engine.EDITIONS)},
            "circle": {"type": "array", **{k: v for k, v in circle.items() if k != "items"}, "items": _ids()},
            "actions": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                        "maxItems": MAX_RECORD_ACTIONS,
                        "description": f"1-{MAX_RECORD_ACTIONS} moves in the engine's text form, player 0 "
                                       "first. Not expressible here, also checked: each is legal in turn."},
            # the engine form's extras, as server.records checks them
            "seed": {"type": ["integer", "string", "null"]},
            "players": {"type": ["array", "null"], "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
            "result": {"type": ["object", "null"]},
            "evaluations": {"type": ["array", "null"]}}}}
    editions = {"type": "string", "enum": list(engine.EDITIONS)}
    return {
        "NewGameRequest.seed": {**seed, "maximum": MAX_SEED,
                                "description": "the deal's seed; unset means a random one (returned in the record)"},
        "NewGameRequest.edition": {"replace": {**editions, "description": "the rules edition; unset means "
                                                                          f"{engine.DEFAULT_EDITION}"}},
        "NewGameRequest.circle": {"maxItems": circle["maxItems"], "uniqueItems": True, "items": circle["items"],
                                  "description": "the circle as it lies on a table, instead of a seed: empty "
                                                 f"(a deal from the seed) or all {N_PATCHES} patch ids 0-"
                                                 f"{N_PATCHES - 1}, each once, clockwise from the neutral token. "
                                                 "Not expressible here, also checked: all of them when any, "
                                                 f"patch {START_PATCH_ID} last (the token starts just after "
                                                 "it), and no seed with a circle."},
        "LegalMovesRequest.patch_id": {**_ids(), "description": "only the moves that buy this patch"},
        "ApplyMoveRequest.move": {"minLength": 1, "maxLength": MAX_MOVE_TEXT,
                                  "examples": ["buy 5 0,0;0,1;1,1", "advance"],
                                  "description": "a move in the engine's text form; it must be legal in the "
                                                 "position (see /api/v1/game/legal). A finished game is "
                                                 "FAILED_PRECONDITION (409)."},
        "EngineMoveRequest.strength": {"pattern": search, "examples": ["greedy", "random", "search:1", "search:500it"],
                                       "description": f"random, greedy, search:SECONDS (more than 0, at most "
                                                      f"{MAX_TIME_LIMIT:g}, as SuggestMove's time_limit; search "
                                                      f"alone means {DEFAULT_SUGGEST_LIMIT:g}) or search:Nit "
                                                      f"(1-{MAX_ITERATIONS} iterations, as SuggestMove's)"},
        "EngineMoveRequest.seed": {**seed, "description": "random seed for a reproducible move; unset means 0, "
                                                          "as in SuggestMove"},
        "EngineMoveResponse.value": {"deprecated": True, "description": "deprecated: the same as win_chance"},
        "ReplayGameRequest.record": record,
        "LoadPositionRequest.text": {"maxLength": MAX_LOAD_TEXT, "pattern": "\\S",
                                     "description": "a position as notation, engine state JSON or GameState JSON, "
                                                    "or a game record as JSON (a JSON-lines file: its first "
                                                    "line). Not expressible here, also checked: that it is one "
                                                    "of these, and every rule of the game."},
        "LoadPositionRequest.plies": {"minimum": 0, "description": "for a record: play only this many moves. Not "
                                                                   "expressible here, also checked: at most the "
                                                                   "record's number of moves."},
        "LoadPositionResponse.kind": {"enum": ["notation", "state", "state_json", "record"]},
        "EngineRecord.edition": {"enum": list(engine.EDITIONS)},
        "GameView.edition": {"enum": list(engine.EDITIONS)},
        "GameResult.bonus": {"replace": {"type": ["integer", "null"], "minimum": 0, "maximum": 1,
                                         "description": "the player with the 7x7 bonus tile; null when nobody "
                                                        "has it"}},
    }


# ---------------------------------------------------------------- request examples

EXAMPLE_SEED = 7
"""The deal of the examples' game positions and records (a new game, player 1 to move)."""
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


def document(endpoints: list[Endpoint], version: str = "1",
             max_body: int = CoreConfig.max_receive_bytes) -> dict:
    rules = field_rules()
    schemas: dict = {}
    examples = request_examples()
    paths: dict = {}
    for e in endpoints:
        op: dict = {"operationId": e.name, "summary": e.summary, "tags": list(e.tags),
                    "parameters": [_deadline_header(),
                                   {"name": "X-Request-Id", "in": "header", "required": False,
                                    "schema": {"type": "string"}, "description": "logged with the call"}]}
        for schema_name in (e.request, e.response):
            if schema_name:
                _message_schema(pb.DESCRIPTOR.message_types_by_name[schema_name], schemas, rules)
        if e.request:
            body: dict = {"schema": {"$ref": f"#/components/schemas/{e.request}"}}
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
            "500": {"description": "INTERNAL", **err},
            "503": {"description": "UNAVAILABLE: shutting down", **err},
            "504": {"description": "DEADLINE_EXCEEDED: X-Deadline-Ms passed before the answer was ready", **err},
        }
        if e.name == "Healthz":  # open for probes, with or without tokens
            op["security"] = []
            del op["responses"]["401"]
        paths.setdefault(e.path, {})[e.method.lower()] = op
    schemas["Error"] = _ERROR
    return {
        "openapi": "3.1.0",
        "info": {"title": "quiltsolve HTTP API", "version": version,
                 "description": "The patchwork.v1.PlacementService and patchwork.v1.GameService RPCs over HTTP/JSON "
                                "(bodies are the protobuf JSON mapping of the same messages). "
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

