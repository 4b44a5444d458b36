"""The record codec: every conversion of a game record, beside ``positions`` for positions.

A record is the deal and the moves of one game. It comes in three forms:

* the engine's **record JSON** (``engine.record``: ``{"edition": "revised",
  "seed": 7, "circle": [...], "actions": [...]}``, and optionally the
  ``players``, ``result`` and ``evaluations`` that a match or a review
  writes), as a dict or as JSON text, one record a line in a file;
* ``patchwork.v1.GameRecord``: the typed message of the wire;
* its **JSON mapping** (``{"edition": "EDITION_REVISED", ...}``), which the
  HTTP API carries.

Every face and client reads records here. One rule for fields, everywhere: a
field that neither form has is refused by name (a misspelt ``action`` is a
mistake, not something to drop silently); the engine's own extras (``seed``,
``players``, ``result``, ``evaluations``) are checked for form and do not go
into the message. Every failure is one :class:`RecordError` (a
``ValueError``) with the field, prefixed by where the record came from.

``engine.record`` keeps the record's schema and its full replay (results,
evaluations); this module turns records into messages and plies for the
service.

>>> import json
>>> rec = {"edition": "revised", "seed": 3, "circle": engine.new_game(3).circle, "actions": ["advance"]}
>>> msg = from_json(rec)
>>> to_json(msg, seed=3) == rec and from_json(to_mapping(msg)) == msg == from_text(json.dumps(rec))
True
>>> [(before.current_player(), action.to_str()) for before, action in plies(msg)]
[(0, 'advance')]
>>> from_json(dict(rec, action=["advance"]))
Traceback (most recent call last):
...
quiltsolve.server.records.RecordError: record.action: unknown field of a game record; it has edition, seed, circle, actions, result, players, evaluations
"""

from __future__ import annotations

from typing import Any

from quiltsolve import engine
from quiltsolve.engine.errors import FieldError
from quiltsolve.engine import record as engine_record
from quiltsolve.engine.quote import quote
from quiltsolve.engine.record import RECORD_FIELDS
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.solver.limits import MAX_RECORD_ACTIONS, MAX_STATE_JSON

from . import positions, protojson
from .positions import join_field
from .errors import BadRequest

__all__ = ["ENGINE_EXTRAS", "MAX_RECORD_TEXT", "RecordError", "from_json", "from_text", "plies", "read_mapping",
           "start", "to_json", "to_mapping"]

ENGINE_EXTRAS = ("seed", "players", "result", "evaluations")
"""The engine form's fields that the message does not carry (checked for form, then left out)."""

MAX_RECORD_TEXT = 64 * MAX_STATE_JSON
"""Longest record text read: 1,000 moves with their evaluations stay far below it."""


class RecordError(FieldError):
    """A record that cannot be read: ``field`` (``record.actions[3]``) and what is wrong with it."""

    def as_bad_request(self) -> BadRequest:
        return BadRequest(self.field, self.message)


# ---------------------------------------------------------------- reading

def from_json(value: Any, field: str = "record") -> pb.GameRecord:
    """A ``GameRecord`` from the engine's record JSON or the message's JSON mapping (a dict)."""
    if not isinstance(value, dict):
        raise RecordError(field, f"must be a JSON object (a game record), not {type(value).__name__}")
    if "actions" not in value and "players" in value and "current_player" in value:
        raise RecordError(field, "this is a game state (GameState.to_json()), not a game record: it needs "
                                 "the whole game (python -m quiltsolve.engine match --records FILE writes them)")
    for key in value:
        if key not in RECORD_FIELDS:
            raise RecordError(join_field(field, str(key)[:40]),
                              f"unknown field of a game record; it has {', '.join(RECORD_FIELDS)}")
    _check_extras(value, field)
    data = {k: v for k, v in value.items() if k not in ENGINE_EXTRAS}
    edition = data.get("edition")
    if edition is None:
        data["edition"] = pb.Edition.Name(pb.EDITION_REVISED)        # the engine form's default
    elif isinstance(edition, str) and edition in positions.EDITION_ENUM:
        data["edition"] = pb.Edition.Name(positions.edition_enum(edition))
    try:
        record = protojson.parse(data, pb.GameRecord, field)
    except BadRequest as e:
        raise RecordError(e.field, e.details.removeprefix(f"{e.field}: ")) from None
    if len(record.actions) > MAX_RECORD_ACTIONS:
        raise RecordError(join_field(field, "actions"), f"{len(record.actions)} moves; at most {MAX_RECORD_ACTIONS}")
    return record


def _check_extras(value: dict, field: str) -> None:
    try:
        engine_record.check_metadata(value)          # seed, players: the engine's own check
    except engine.RecordError as e:
        raise RecordError(join_field(field, e.field), e.message) from None
    for key in ("result", "evaluations"):
        extra = value.get(key)
        if extra is not None and not isinstance(extra, dict if key == "result" else list):
            kind = "an object" if key == "result" else "a list"
            raise RecordError(join_field(field, key), f"must be {kind}, got {quote(extra, 40)}")


def from_text(text: str | bytes, field: str = "record") -> pb.GameRecord:
    """A ``GameRecord`` from JSON text: one object, or the first line of a JSON-lines file of records."""
    return from_json(json_object(text, field), field)


def json_object(text: str | bytes, field: str = "record") -> Any:
    """The JSON value of record text (the first line's, for a file of one record a line)."""
    return positions.json_value(text, field, limit=MAX_RECORD_TEXT, error=RecordError, first_line=True)


def seed_of(value: Any) -> int | str | None:
    """The deal's seed an engine-form record names (None when it names none)."""
    seed = value.get("seed") if isinstance(value, dict) else None
    return seed if isinstance(seed, (int, str)) and not isinstance(seed, bool) else None


# ---------------------------------------------------------------- writing

def to_json(record: pb.GameRecord, seed: int | str | None = None) -> dict[str, Any]:
    """The engine's record JSON of a message (``seed`` added when given)."""
    out: dict[str, Any] = {"edition": positions.EDITIONS.get(record.edition, "revised")}
    if seed is not None:
        out["seed"] = seed
    out["circle"] = list(record.circle)
    out["actions"] = list(record.actions)
    return out


def to_mapping(record: pb.GameRecord) -> dict[str, Any]:
    """The message's JSON mapping (what the HTTP API carries)."""
    return protojson.to_dict(record)


def read_mapping(value: Any, field: str = "record") -> dict[str, Any]:
    """Either JSON form of a record as the message's JSON mapping (a :data:`server.protojson.Reader`);
    BadRequest naming the field."""
    try:
        return to_mapping(from_json(value, field))
    except RecordError as e:
        raise e.as_bad_request() from None


# ---------------------------------------------------------------- replaying

def start(record: pb.GameRecord, field: str = "record") -> engine.GameState:
    """The position the record's game starts from (its edition and circle, checked)."""
    return _circle_start(record, _edition(record, field), field)


def _edition(record: pb.GameRecord, field: str) -> str:
    try:
        return positions.edition_name(record.edition, join_field(field, "edition"))
    except positions.PositionError as e:
        raise RecordError(e.field, e.message) from None


def _circle_start(record: pb.GameRecord, edition: str, field: str) -> engine.GameState:
    # the position codec's one check of a starting circle (NewGame's too)
    try:
        return positions.from_circle(record.circle, edition, join_field(field, "circle"))
    except positions.PositionError as e:
        raise RecordError(e.field, e.message) from None


def plies(record: pb.GameRecord, field: str = "record", *, upto: int | None = None,
          need_moves: bool = True) -> list[tuple[engine.GameState, engine.Action]]:
    """(position before, action) of each move, replayed and checked; the first ``upto`` moves when given.

    ``need_moves``: a record with no move is refused (a review has nothing to look at).
    """
    edition = _edition(record, field)
    if len(record.actions) > MAX_RECORD_ACTIONS:
        raise RecordError(join_field(field, "actions"), f"{len(record.actions)} moves; at most {MAX_RECORD_ACTIONS}")
    if need_moves and not record.actions:
        raise RecordError(join_field(field, "actions"), "no moves to review")
    state = _circle_start(record, edition, field)
    out = []
    for i, text in enumerate(record.actions[:upto] if upto is not None else record.actions):
        if state.is_terminal():
            raise RecordError(join_field(field, f"actions[{i}]"), "the game is already over before this move")
        try:
            action = engine.parse_action(text)
            before = state.clone()
            state.apply_action(action)
        except ValueError as e:  # ActionSyntaxError, IllegalActionError
            raise RecordError(join_field(field, f"actions[{i}]"), str(e)) from None
        out.append((before, action))
    return out


def final(record: pb.GameRecord, field: str = "record", *, upto: int | None = None) -> engine.GameState:
    """The position after the record's moves (the first ``upto`` of them when given)."""
    steps = plies(record, field, upto=upto, need_moves=False)
    if not steps:
        return start(record, field)
    before, action = steps[-1]
    after = before.clone()
    after.apply_action(action)
    return after
