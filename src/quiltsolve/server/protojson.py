"""JSON bodies ⇄ protobuf messages, with errors that name the field.

The HTTP API's bodies are the protobuf JSON mapping of the gRPC messages
(``google.protobuf.json_format``), so an HTTP call and a gRPC call carry the
same request. ``json_format.ParseDict`` alone reports problems in wording
that varies by type and rarely gives the path, so :func:`parse` first walks
the JSON against the message descriptor and raises
:class:`server.errors.BadRequest` naming the offending field the way the
service does (``patches[2].id``, ``board.rows[3]``); only then does
``ParseDict`` (``ignore_unknown_fields=False``) build the message.

>>> from quiltsolve.patchwork.v1 import placement_pb2 as pb
>>> parse({"patches": [{"id": 3}, {"id": "x"}]}, pb.SolvePlacementRequest).patches[0].id
Traceback (most recent call last):
...
quiltsolve.server.errors.BadRequest: patches[1].id: must be an integer, got "x"
>>> parse({"objective": "OBJECTIVE_COVER", "boardd": {}}, pb.SolvePlacementRequest)
Traceback (most recent call last):
...
quiltsolve.server.errors.BadRequest: boardd: unknown field; SolvePlacementRequest has board, patches, objective, time_limit, seed
>>> to_dict(pb.Cell(row=2))
{'row': 2, 'col': 0}
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable, Mapping

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from quiltsolve.server.errors import BadRequest

_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
_FLOATS = (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT)
_WELL_KNOWN = ("google.protobuf.Duration", "google.protobuf.Timestamp")


# The enums a request must set: their *_UNSPECIFIED zero value is refused ("required"; server.convert's
# OBJECTIVES and PUZZLE_MODES, server.positions' EDITIONS hold the others). The other enums take
# UNSPECIFIED as "the default".
REQUIRED_ENUMS = frozenset({"patchwork.v1.Objective", "patchwork.v1.PuzzleMode", "patchwork.v1.Edition"})


def accepted_enum_names(enum: Any) -> list[str]:
    """The names of the values of ``enum`` (an EnumDescriptor) that a request may carry, in proto order:
    every value but the zero of an enum the request must set (:data:`REQUIRED_ENUMS`), so that an error
    never offers a value it then refuses.

    >>> from quiltsolve.patchwork.v1 import placement_pb2 as pb
    >>> accepted_enum_names(pb.PuzzleMode.DESCRIPTOR)
    ['PUZZLE_MODE_FIND', 'PUZZLE_MODE_COUNT']
    >>> accepted_enum_names(pb.PieceFamily.DESCRIPTOR)[0]         # unset: the default family
    'PIECE_FAMILY_UNSPECIFIED'
    """
    required = enum.full_name in REQUIRED_ENUMS
    return [v.name for v in enum.values if not (required and v.number == 0)]



def _repeated(f: FieldDescriptor) -> bool:
    flag = getattr(f, "is_repeated", None)
    if flag is None:  # older protobuf
        return f.label == FieldDescriptor.LABEL_REPEATED
    return bool(flag() if callable(flag) else flag)

def _show(value: Any, limit: int = 40) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def check(data: Any, desc: Descriptor, path: str = "") -> None:
    """Raise BadRequest naming the first field of ``data`` that cannot be ``desc``'s JSON form."""
    if not isinstance(data, dict):
        raise BadRequest(path or "body", f"must be a JSON object ({desc.name}), not {_kind(data)}")
    by_json = {f.json_name: f for f in desc.fields}
    seen_oneof: dict[str, str] = {}
    for key, value in data.items():
        field = desc.fields_by_name.get(key) or by_json.get(key)
        where = _join(path, str(key))
        if field is None:
            known = ", ".join(f.name for f in desc.fields)
            raise BadRequest(where, f"unknown field; {desc.name} has {known}")
        where = _join(path, field.name)
        if value is None:
            continue  # JSON null: the field's default
        oneof = field.containing_oneof
        if oneof is not None and len(oneof.fields) > 1:
            if oneof.name in seen_oneof:
                raise BadRequest(where, f"set only one of {', '.join(f.name for f in oneof.fields)} "
                                        f"(already have {seen_oneof[oneof.name]})")
            seen_oneof[oneof.name] = field.name
        if _repeated(field):
            if field.message_type is not None and field.message_type.GetOptions().map_entry:
                continue  # no map fields in this API; ParseDict checks any
            if not isinstance(value, list):
                raise BadRequest(where, f"must be a list, not {_kind(value)}")
            for i, item in enumerate(value):
                if item is None:
                    raise BadRequest(f"{where}[{i}]", "null is not allowed in a list")
                _check_value(item, field, f"{where}[{i}]")
        else:
            _check_value(value, field, where)


def _check_value(value: Any, field: FieldDescriptor, where: str) -> None:
    t = field.type
    if t == FieldDescriptor.TYPE_MESSAGE or t == FieldDescriptor.TYPE_GROUP:
        mt = field.message_type
        if mt.full_name in _WELL_KNOWN:
            from google.protobuf import symbol_database

            cls = symbol_database.Default().GetSymbol(mt.full_name)
            try:
                json_format.ParseDict(value, cls())
            except (json_format.ParseError, ValueError, TypeError):
                hint = ' such as "1.5s"' if mt.name == "Duration" else ""
                raise BadRequest(where, f"must be a {mt.name}{hint}, got {_show(value)}") from None
            return
        check(value, mt, where)
    elif t == FieldDescriptor.TYPE_ENUM:
        et = field.enum_type
        names = ", ".join(accepted_enum_names(et))
        if isinstance(value, str):
            if value not in et.values_by_name:
                raise BadRequest(where, f"unknown value {_show(value)}; expected one of {names}")
        elif isinstance(value, int) and not isinstance(value, bool):
            if not -(2**31) <= value < 2**31:
                raise BadRequest(where, f"enum number {value} out of range; expected one of {names}")
        else:
            raise BadRequest(where, f"must be one of {names}, not {_kind(value)}")
    elif t in _INT_RANGES:
        lo, hi = _INT_RANGES[t]
        number = value
        if isinstance(value, str):
            try:
                number = int(value.strip())
            except ValueError:
                raise BadRequest(where, f"must be an integer, got {_show(value)}") from None
        elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
            number = int(value)
        if isinstance(number, bool) or not isinstance(number, int):
            raise BadRequest(where, f"must be an integer, got {_show(value)}")
        if not lo <= number <= hi:
            raise BadRequest(where, f"{_show(value)} is out of range {lo}..{hi}")
    elif t in _FLOATS:
        if isinstance(value, str):
            if value in ("NaN", "Infinity", "-Infinity"):
                return
            try:
                float(value)
            except ValueError:
                raise BadRequest(where, f"must be a number, got {_show(value)}") from None
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BadRequest(where, f"must be a number, got {_show(value)}")
    elif t == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            raise BadRequest(where, f"must be true or false, got {_show(value)}")
    elif t in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        if not isinstance(value, str):
            raise BadRequest(where, f"must be a string, got {_show(value)}")
        if t == FieldDescriptor.TYPE_STRING:
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise BadRequest(where, "must be valid Unicode (no lone surrogates)") from None


Reader = Callable[[Any, str], dict]
"""Reads another JSON form of a message (the value, its field) into the protobuf JSON mapping."""


def parse(data: Any, cls: Any, path: str = "", readers: Mapping[str, Reader] | None = None) -> Any:
    """A ``cls`` message from its JSON form (a dict); BadRequest naming the field when it is not one.

    ``readers``: for a top-level field whose message type (by full name) is a key, the function that
    reads the value into the mapping first (the game paths read a record in the engine's form too).
    """
    if readers and isinstance(data, dict):
        fields = cls.DESCRIPTOR.fields_by_name
        data = {key: readers[fields[key].message_type.full_name](value, _join(path, key))
                if key in fields and value is not None and fields[key].message_type is not None
                and fields[key].message_type.full_name in readers else value
                for key, value in data.items()}
    check(data, cls.DESCRIPTOR, path)
    message = cls()
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=False)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as e:
        # Not expected after check(); keep the message short and without internals.
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise BadRequest(path or "body", f"not a valid {cls.DESCRIPTOR.name}: {first[:200]}") from None
    return message


def to_dict(message: Any) -> dict:
    """The JSON form of a message: proto field names, every field (defaults included)."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True)
