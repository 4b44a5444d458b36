"""The API says exactly what it accepts (issue 34): Schemathesis, all phases, against the served document.

Schemathesis (seeded with :data:`SEED`) runs every phase it has (examples,
coverage, fuzzing, stateful: the document's links feed a new game's state
into the next request) over every operation of ``/api/openapi.json``,
against the session's server, and each answer is checked (:func:`judge`):

* no 5xx, except a 504 DEADLINE_EXCEEDED to a call that set
  ``X-Deadline-Ms``, and the 507 the document gives SolvePuzzle for a
  frontier table, and SolvePosition for a solver's table, beyond the
  server's ``--table-bytes``;
* no schema-valid request refused, except by a rule of :data:`SEMANTIC_RULES`:
  the rules JSON Schema cannot say, each with where it lives in the
  schemas, the error code and message the service answers it with, and the
  words of the description there that state it
  (:func:`test_every_semantic_rule_is_stated_where_it_applies` checks that
  the document really says so);
* Schemathesis's own checks (answers fit the response schemas and status
  codes, headers, content types) pass, and an NDJSON stream's every line fits.

Cost is kept down without changing what is sent to the service: at most
:data:`MAX_EXAMPLES` cases per operation and phase, the coverage phase's
schema-valid cases only, and a call that may search gets an
``X-Deadline-Ms`` of at most :data:`DEADLINE_CAP_MS` (a schema-valid value, so
a 504 is then a fair answer).
"""

from __future__ import annotations

import collections
import json
import re
import time
from dataclasses import dataclass
from typing import Any

import jsonschema
import pytest
import schemathesis
from schemathesis import engine as st_engine
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import events

from quiltsolve.server.core import CoreConfig
from quiltsolve.web.app import ENDPOINTS
from quiltsolve.web.openapi import ALSO, document

DOC = document(ENDPOINTS)
SCHEMAS = DOC["components"]["schemas"]
SEED = 20261201
MAX_EXAMPLES = 5
"""Cases per operation in the fuzzing phase."""
STATEFUL_SCENARIOS = 12
"""Scenarios of the stateful phase (each up to 6 calls along the document's links)."""
DEADLINE_CAP_MS = 400
"""The longest X-Deadline-Ms sent to an operation that may search."""
NO_SEARCH = {"Healthz", "ListPatches", "NewGame", "LoadPosition", "ViewPosition", "LegalMoves", "ApplyMove",
             "ReplayGame", "PositionNotation"}
"""Operations that never search: they are sent as generated (any other, a new one included, is capped)."""
BY_LABEL = {f"{e.method} {e.path}": e for e in ENDPOINTS}
IA, FP = "INVALID_ARGUMENT", "FAILED_PRECONDITION"


# ---------------------------------------------------------------- the rules the schemas state in words

@dataclass(frozen=True)
class Rule:
    """A rule the document states in words. ``where``: the places in the schemas (regular expressions over
    :func:`locations`' names) whose description states it; ``code`` and ``message`` (a regular expression):
    how the service answers a request that breaks it; ``statement``: the words of those descriptions."""

    where: tuple[str, ...]
    code: str
    message: str
    statement: str


MOVE_RULES = (r"must first place the leather patch|is not one of the patches in front of the token|costs \d+ buttons "
              r"but player|the cells are not a placement of patch|would overlap covered cells|has no leather patch "
              r"to place|leather patch cannot go on covered cell|cell \d,\d is listed twice|the game is already over")
"""An illegal move (engine.state's IllegalActionError, and a buy naming a cell twice)."""
POSITION_RULES = (r"patch \d+ is (neither in the circle nor on a board|already in players\[[01]\]\.patches|also in "
                  r"players\[[01]\]\.patches)|the income printed on its patches|covers \d+ cells|completed 7x7 "
                  r"square|bonus tile is already held|leather spaces beyond both tokens|pending leather patches "
                  r"exceed|the leather spaces between|the empty cells of player|on space 53|further back on the "
                  r"track")
"""A position that breaks a rule of the game (engine.state_json's checks and the notation's board check)."""
NOT_THE_FORM = (r"not valid JSON|must be a JSON object|not a valid game state|unknown field|: missing$|not a game "
                r"record|this is a game state")
"""Text that is not the JSON object it must hold."""
STATE = r"GameState"
SHAPES = r"PatchRef\.shape|\w+Request\.(unlimited_)?pieces\[\]"

SEMANTIC_RULES = [
    # a game position: GameState, and the text forms that hold one
    Rule((r"GameState\.circle",), IA, r"patch \d+ is (neither in the circle nor on a board|already in players)",
         "the circle and both players' patches together hold each patch id 0-32 exactly once"),
    Rule((r"PlayerState\.patches",), IA, r"patch \d+ is also in players\[[01]\]\.patches",
         "no patch is in both players' patches"),
    Rule((r"PlayerState\.income",), IA, r"must be \d+, the income printed on its patches",
         "the income printed on the bought patches, added up"),
    Rule((r"PlayerState\.board",), IA, r"covers \d+ cells but its patches and leather patches cover \d+",
         "it covers exactly the cells of the player's patches plus one per leather patch"),
    Rule((r"PlayerState\.bonus",), IA, r"completed 7x7 square|bonus tile is already held",
         "true only with a completed 7x7 square on the board and for one player at most"),
    Rule((r"GameState\.leather_spaces",), IA, r"must be \[[0-9, ]*\], the \w+ leather spaces beyond both tokens",
         "exactly the edition's leather spaces beyond both time tokens"),
    Rule((r"GameState\.leather_to_place",), IA,
         r"pending leather patches exceed|the leather spaces between|the empty cells of player",
         "placed plus pending leather patches are at most those taken from the track"),
    Rule((r"GameState\.first_to_end",), IA, r"who is on space 53|is not on space 53",
         "set exactly when a player is on space 53"),
    Rule((r"GameState\.current_player",), IA, r"the player further back on the track",
         "the player further back on the track"),
    Rule((r"(SuggestMove|ApplyMove|EngineMove|AnalyzePosition)Request\.state",
          r"(SuggestMove|AnalyzePosition)Request\.state_json"), FP,
         r"the game is over", "A finished game is FAILED_PRECONDITION (409)."),
    Rule((r"(SuggestMove|AnalyzePosition|SolvePosition)Request\.state_json",), IA, NOT_THE_FORM,
         "that the text is that JSON object"),
    Rule((r"(SuggestMove|AnalyzePosition|SolvePosition)Request\.state_json",), IA, POSITION_RULES,
         "every rule of the game"),
    Rule((r"LoadPositionRequest\.text",), IA, NOT_THE_FORM + r"|notation: ", "that the text is one of these"),
    Rule((r"LoadPositionRequest\.text",), IA, POSITION_RULES + "|" + MOVE_RULES + r"|must be patch 0, the last one|must end with patch 0|at "
         r"most 5 can be leather patches|fewer than the \d+ of its patches", "every rule of the game"),
    Rule((r"LoadPositionRequest\.plies",), IA, r"\d+; the record has \d+ moves", "at most the record's number of moves"),
    # records and moves
    Rule((r"GameRecord\.circle", r"ReplayGameRequest\.record\.circle", r"\w+Request\.circle"), IA,
         r"must be patch 0, the last one before the token|must end with patch 0", "patch 0 last"),
    Rule((r"GameRecord\.actions", r"ReplayGameRequest\.record\.actions"), IA, MOVE_RULES, "each is legal in turn"),
    Rule((r"ApplyMoveRequest\.move",), IA, MOVE_RULES, "it must be legal in the position"),
    # placements
    Rule((r"SolvePlacementRequest\.patches", r"SuggestPlacementRequest\.upcoming"), IA,
         r"same patch as \w+\[\d+\]", "the same patch may not be listed twice"),
    Rule((r"SuggestPlacementRequest\.upcoming",), IA, r"more than 128 patches in total", "at most 128 copies in all"),
    Rule((SHAPES,), IA, r"shape is not 4-connected", "the cells are 4-connected"),
    Rule((SHAPES,), IA, r"more than 81|is longer than 81", "at most 81 cells, rows and characters a row"),
    Rule((SHAPES,), IA, r"it cannot fit a \d+x\d+ grid", "grid in some orientation"),
    # puzzles
    Rule((r"Region\.rows",), IA, r"row has \d+ cells; row 0 has \d+", "every row has the length of row 0"),
    Rule((r"SolvePuzzleRequest\.unlimited_pieces",), IA, r"at most 64 together",
         "at most 64 entries in pieces and unlimited_pieces together"),
    Rule((r"SolvePuzzleRequest\.unlimited_pieces",), IA, r"list a shape once",
         "no two unlimited shapes the same piece"),
    Rule((r"SolvePuzzleRequest\.pieces",), IA, r"whose supply is unlimited already",
         "no piece here is one of unlimited_pieces"),
    Rule((r"GeneratePuzzleRequest",), IA, r"no choice of the pieces covers exactly",
         "a region is covered exactly by some choice of the pieces"),
    Rule((r"GeneratePuzzleRequest",), IA, r"the smallest piece has", "the box or region holds at least one piece"),
]


def _deref(node: dict) -> tuple[str | None, dict]:
    """(component name, schema) a node refers to, directly or as the one schema of its allOf; (None, node)."""
    ref = node.get("$ref") or next((x["$ref"] for x in node.get("allOf", ()) if "$ref" in x), None)
    if ref:
        name = ref.rsplit("/", 1)[1]
        return name, SCHEMAS[name]
    return None, node


def locations() -> dict[str, dict]:
    """Every place in the schemas by name: a component (``GameState``), a property (``GameState.circle``, an
    inline one ``ReplayGameRequest.record.circle``), a list's items (``SolvePuzzleRequest.pieces[]``)."""
    out: dict[str, dict] = {}

    def walk(name: str, node: dict) -> None:
        out[name] = node
        if "$ref" in node or any("$ref" in x for x in node.get("allOf", ())):
            return
        for key, value in node.get("properties", {}).items():
            walk(f"{name}.{key}", value)
        if isinstance(node.get("items"), dict):
            walk(f"{name}[]", node["items"])

    for component, schema in SCHEMAS.items():
        walk(component, schema)
    return out


LOCATIONS = locations()


def field_locations(request: str, field: str | None) -> list[str]:
    """The places an error's field (``state.players[0].income``) lies at in a request's schemas, deepest first
    (``PlayerState.income``, ``PlayerState``, ``GameState.players[]``, ..., ``SuggestMoveRequest``)."""
    found = [request]
    name, node = request, SCHEMAS[request]
    for part in re.findall(r"\[\d+\]|[^.\[\]]+", field or ""):
        ref, target = _deref(node)
        if ref:
            name, node = ref, target
            found.append(name)
        if part.startswith("["):
            if not isinstance(node.get("items"), dict):
                break
            name, node = f"{name}[]", node["items"]
        elif part in node.get("properties", {}):
            name, node = f"{name}.{part}", node["properties"][part]
        else:
            break
        found.append(name)
    ref, _ = _deref(node)
    if ref:
        found.append(ref)
    return found[::-1]


def rule_for(request: str, code: str, field: str | None, message: str) -> Rule | None:
    """The rule of :data:`SEMANTIC_RULES` that covers this refusal, if any."""
    places = field_locations(request, field)
    detail = message.removeprefix(f"{field}: ") if field else message
    for rule in SEMANTIC_RULES:
        if rule.code == code and re.search(rule.message, detail) and any(
                re.fullmatch(where, place) for where in rule.where for place in places):
            return rule
    return None


def test_every_semantic_rule_is_stated_where_it_applies():
    for rule in SEMANTIC_RULES:
        places = [name for name in LOCATIONS if any(re.fullmatch(where, name) for where in rule.where)]
        assert places, (rule.where, "names no place in the document")
        if True:
            for place in places:
                description = LOCATIONS[place].get("description", "")
                assert rule.statement in description, (place, rule.statement, description)
                if rule.code == IA:     # said as a rule only the service checks
                    assert ALSO in description, (place, description)


def test_locations_follow_an_error_field_through_the_schemas():
    assert field_locations("SuggestMoveRequest", "state.players[1].income")[:3] == [
        "PlayerState.income", "PlayerState", "GameState.players[]"]
    assert field_locations("ReplayGameRequest", "record.actions[3]")[:2] == [
        "ReplayGameRequest.record.actions[]", "ReplayGameRequest.record.actions"]
    assert field_locations("GeneratePuzzleRequest", "body") == ["GeneratePuzzleRequest"]
    rule = rule_for("ApplyMoveRequest", IA, "state.circle", "state.circle: patch 0 is neither in the circle nor on a "
                                                           "board")
    assert rule is not None and rule.where == (r"GameState\.circle",)
    # the same words on a field the rule is not stated for are not excused
    assert rule_for("ApplyMoveRequest", IA, "move", "move: patch 0 is neither in the circle nor on a board") is None
    assert rule_for("ApplyMoveRequest", FP, "state.circle", "patch 0 is neither in the circle") is None


# ---------------------------------------------------------------- the run

def _header(case: Any, name: str) -> str | None:
    for key, value in (case.headers or {}).items():
        if key.lower() == name.lower():
            return value
    return None


def _cap_deadline(context: Any, case: Any, kwargs: dict) -> None:
    """A call that may search gets X-Deadline-Ms of at most DEADLINE_CAP_MS; a value that is not a valid
    deadline (a negative case) is left as it is."""
    endpoint = BY_LABEL.get(case.operation.label)
    if endpoint is None or endpoint.name in NO_SEARCH:
        return
    raw = _header(case, "X-Deadline-Ms")
    if raw is not None:
        try:
            ms = float(raw)
        except ValueError:
            return
        if not 0 < ms <= 3_600_000 or ms <= DEADLINE_CAP_MS:
            return
    headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "x-deadline-ms"}
    headers["X-Deadline-Ms"] = str(DEADLINE_CAP_MS)
    case.headers = headers


def _validator(schema: dict) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({**schema, "components": DOC["components"]}
                                           if "$ref" not in schema else
                                           {"allOf": [schema], "components": DOC["components"]})


def _ref_validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({"$ref": f"#/components/schemas/{name}", "components": DOC["components"]})


class Verdicts:
    """What the run saw: cases by phase and operation, refusals each rule excused, and every problem."""

    def __init__(self) -> None:
        self.cases: collections.Counter = collections.Counter()
        self.excused: collections.Counter = collections.Counter()
        self.statuses: collections.Counter = collections.Counter()
        self.problems: list[str] = []
        self.elapsed: collections.Counter = collections.Counter()

    def judge(self, case: Any, response: Any) -> None:
        endpoint = BY_LABEL.get(case.operation.label)
        meta = case.meta
        if endpoint is None or meta is None:
            return
        phase = meta.phase.name.value
        positive = meta.generation.mode.is_positive
        self.cases[(phase, endpoint.name)] += 1
        self.elapsed[phase] += response.elapsed
        self.statuses[(phase, "positive" if positive else "negative", response.status_code)] += 1
        status = response.status_code
        deadline = _header(case, "X-Deadline-Ms") is not None
        try:
            body = response.json()
        except Exception:       # NDJSON, or not JSON at all
            body = None
        error = body.get("error", {}) if isinstance(body, dict) else {}
        where = f"{phase} {'positive' if positive else 'negative'} {endpoint.name} -> {status}"

        def problem(text: str) -> None:
            try:
                curl = case.as_curl_command()
            except Exception:
                curl = repr(case.body)
            self.problems.append(f"{where}: {text}\n    {curl[:600]}\n    {response.text[:300]}")

        if status == 200 and endpoint.streaming and "ndjson" in response.headers.get("content-type", ""):
            item = _ref_validator(endpoint.response)
            lines = [json.loads(line) for line in response.text.splitlines() if line.strip()]
            for i, line in enumerate(lines):
                if "error" in line:
                    # only the last line, and only to a deadline the call set
                    if i != len(lines) - 1 or not deadline or line["error"].get("code") != "DEADLINE_EXCEEDED":
                        problem(f"stream line {i}: {line}")
                elif not item.is_valid(line):
                    problem(f"stream line {i} does not fit {endpoint.response}")
            return
        if status >= 500:
            if status == 504 and deadline and error.get("code") == "DEADLINE_EXCEEDED":
                return
            if (status == 507 and endpoint.name in ("SolvePuzzle", "SolvePosition")
                    and error.get("code") == "RESOURCE_EXHAUSTED" and "--table-bytes" in error.get("message", "")):
                return          # documented: the server's bound on a frontier count's table, a solve's table
            problem("a 5xx")
            return
        if not positive or status < 400:
            return
        if status == 429 and error.get("code") == "RESOURCE_EXHAUSTED" and "retry-after" in response.headers:
            return              # every worker busy: load, not the request
        if status == 413 and len(response.request.body or b"") > CoreConfig.max_receive_bytes:
            return              # documented body limit
        rule = rule_for(endpoint.request or "", error.get("code", ""), error.get("field"), error.get("message", ""))
        if rule is None:
            problem("a schema-valid request refused by no rule of SEMANTIC_RULES")
        else:
            self.excused[rule.statement] += 1


VERDICTS: Verdicts | None = None


@schemathesis.check
def api_contract(ctx: Any, response: Any, case: Any) -> None:
    """Every answer, judged by the run's :class:`Verdicts` (problems are listed at the end, all at once)."""
    if VERDICTS is not None:
        VERDICTS.judge(case, response)


def run_schemathesis(base_url: str, seed: int = SEED, max_examples: int = MAX_EXAMPLES,
                     scenarios: int = STATEFUL_SCENARIOS) -> tuple[Verdicts, list[str], list[str], dict, dict]:
    """Every phase over every operation of the served document; (verdicts, failed checks, engine errors,
    links followed, seconds at the end of each phase). Other seeds and sizes: ``python -m
    tests.web.test_api_contract URL SEED MAX_EXAMPLES SCENARIOS`` against a running server."""
    global VERDICTS
    config = SchemathesisConfig.from_dict({
        "seed": seed,
        "workers": 1,
        "generation": {"max-examples": max_examples, "mode": "all"},
        "phases": {"coverage": {"generation": {"mode": "positive"}},
                   "stateful": {"max-steps": 6, "generation": {"max-examples": scenarios}}},
        "checks": {"not_a_server_error": {"enabled": False},            # judged by api_contract: 504 and 507
                   "positive_data_acceptance": {"enabled": False},      # judged by api_contract: SEMANTIC_RULES
                   "negative_data_rejection": {"enabled": False}},      # the schemas may be stricter than the service
        "request-timeout": 60,
    })
    schema = schemathesis.openapi.from_url(f"{base_url}/api/openapi.json", config=config)
    VERDICTS = verdicts = Verdicts()
    schemathesis.hook("before_call")(_cap_deadline)
    failed: list[str] = []
    errors: list[str] = []
    links_followed: collections.Counter = collections.Counter()
    phase_times: dict[str, float] = {}
    t0 = time.monotonic()
    try:
        for event in st_engine.from_schema(schema).execute():
            if isinstance(event, (events.NonFatalError, events.FatalError)):
                errors.append(str(getattr(event, "value", None) or getattr(event, "exception", event)))
            if isinstance(event, events.PhaseFinished):
                phase_times[event.phase.name.value] = round(time.monotonic() - t0, 1)
            if isinstance(event, events.ScenarioFinished):
                recorder = event.recorder
                for case_id, checks in recorder.checks.items():
                    for check in checks:
                        if check.status.value == "failure":
                            failed.append(f"{recorder.label}: {check.name}: {check.failure_info}")
                if event.phase.value == "stateful":
                    for node in recorder.cases.values():
                        if node.transition is not None and node.is_transition_applied:
                            links_followed[node.transition.id] += 1
    finally:
        schemathesis.hooks.unregister(_cap_deadline)
        VERDICTS = None
    return verdicts, failed, errors, dict(links_followed), phase_times


def test_schemathesis_all_phases_every_operation(base_url):
    verdicts, failed, errors, links_followed, phase_times = run_schemathesis(base_url)
    report = (f"\nseconds at the end of each phase: {phase_times}; in calls: {dict(verdicts.elapsed)}"
              f"\ncases by phase and operation: {dict(verdicts.cases)}\nstatuses: {dict(verdicts.statuses)}"
              f"\nrefusals excused by a rule: {dict(verdicts.excused)}\nlinks followed: {links_followed}")
    assert not errors, errors
    assert not verdicts.problems, "\n".join(verdicts.problems[:20]) + report
    assert not failed, "\n".join(failed[:20]) + report
    names = {e.name for e in ENDPOINTS}
    with_body = {e.name for e in ENDPOINTS if e.request}     # the examples are the request bodies' examples
    for phase, want in (("examples", with_body), ("coverage", names), ("fuzzing", names)):
        assert {name for (p, name) in verdicts.cases if p == phase} == want, (phase, report)
    assert any(p == "stateful" for p, _ in verdicts.cases), report
    assert links_followed, report
    print(report)


if __name__ == "__main__":
    import sys

    url, *rest = sys.argv[1:]
    found, checks, trouble, followed, times = run_schemathesis(url, *map(int, rest))
    print("\n".join(found.problems + checks + trouble) or "no problem", times, dict(found.statuses), followed,
          dict(found.excused), sep="\n")
