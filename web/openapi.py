"""The HTTP API's OpenAPI 3.1 document, built from the route table and the protobuf descriptors.

The RPC endpoints' schemas are the protobuf JSON mapping of the messages
(proto field names; int64 as strings; enums as names; Durations as
``"1.5s"``), generated here from the descriptors so they cannot drift from
``proto/patchwork/v1/placement.proto``.

>>> doc = document([Endpoint("POST", "/api/v1/solve-placement", "SolvePlacement", "Solve.",
...                          "SolvePlacementRequest", "SolvePlacementResponse")])
>>> sorted(doc["components"]["schemas"])[:4]
['Board', 'Cell', 'Error', 'PatchRef']
>>> doc["components"]["schemas"]["Board"]["properties"]["rows"]["type"]
'array'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from patchwork.v1 import placement_pb2 as pb

_SCALARS: dict[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SFIXED32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "minimum": 0},
    FieldDescriptor.TYPE_FIXED32: {"type": "integer", "minimum": 0},
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
    request: str | None = None      # message name in placement.proto, or a key of HELPER_SCHEMAS
    response: str | None = None
    streaming: bool = False
    tags: tuple[str, ...] = field(default=("rpc",))


def _message_schema(desc: Descriptor, out: dict) -> dict:
    if desc.full_name == "google.protobuf.Duration":
        return _DURATION
    if desc.name not in out:
        out[desc.name] = {}  # placeholder against recursion
        props = {}
        for f in desc.fields:
            props[f.name] = _field_schema(f, out)
        schema: dict = {"type": "object", "properties": props, "additionalProperties": False}
        oneofs = [o for o in desc.oneofs if len(o.fields) > 1]
        if oneofs:
            schema["description"] = "; ".join(f"at most one of {', '.join(x.name for x in o.fields)}"
                                              for o in oneofs)
        out[desc.name] = schema
    return {"$ref": f"#/components/schemas/{desc.name}"}


def _field_schema(f: FieldDescriptor, out: dict) -> dict:
    if f.type == FieldDescriptor.TYPE_MESSAGE:
        item = _message_schema(f.message_type, out)
    elif f.type == FieldDescriptor.TYPE_ENUM:
        item = {"type": "string", "enum": [v.name for v in f.enum_type.values]}
    else:
        item = dict(_SCALARS.get(f.type, {}))  # a copy: the caller may add to it
    if _repeated(f):
        return {"type": "array", "items": item}
    return item


_ERROR = {
    "type": "object",
    "properties": {"error": {"type": "object", "properties": {
        "code": {"type": "string", "description": "the gRPC status code name, e.g. INVALID_ARGUMENT"},
        "field": {"type": ["string", "null"], "description": "the offending field, e.g. board.rows[3]"},
        "message": {"type": "string"}}, "required": ["code", "field", "message"]}},
    "required": ["error"],
}
_STATE = {"oneOf": [{"$ref": "#/components/schemas/GameState"},
                    {"type": "string", "description": "the engine's state JSON as text"}]}
HELPER_SCHEMAS = {
    "NewGame": {"type": "object", "properties": {"seed": {"type": "integer", "minimum": 0},
                                                 "edition": {"enum": ["revised", "original"]}}},
    "Load": {"type": "object", "required": ["text"], "properties": {
        "text": {"type": "string", "description": "notation, state JSON, GameState JSON or a game record"},
        "plies": {"type": "integer", "description": "for a record: play only this many moves"}}},
    "StateOnly": {"type": "object", "required": ["state"], "properties": {"state": _STATE}},
    "Legal": {"type": "object", "required": ["state"], "properties": {"state": _STATE,
                                                                      "patch_id": {"type": "integer"}}},
    "Apply": {"type": "object", "required": ["state", "move"], "properties": {
        "state": _STATE, "move": {"type": "string", "examples": ["buy 5 0,0;0,1;1,1", "advance"]}}},
    "EngineMove": {"type": "object", "required": ["state", "strength"], "properties": {
        "state": _STATE, "strength": {"type": "string", "examples": ["greedy", "random", "search:1", "search:500it"]},
        "seed": {"type": "integer", "minimum": 0}}},
    "Replay": {"type": "object", "required": ["record"], "properties": {"record": {"type": "object"}}},
    "Position": {"type": "object", "description": "{state: GameState, view: {...}} (+ move, player, record)"},
    "Object": {"type": "object"},
}


def document(endpoints: list[Endpoint], version: str = "1") -> dict:
    schemas: dict = {}
    paths: dict = {}
    for e in endpoints:
        op: dict = {"operationId": e.name, "summary": e.summary, "tags": list(e.tags),
                    "parameters": [{"name": "X-Deadline-Ms", "in": "header", "required": False,
                                    "schema": {"type": "integer", "minimum": 1},
                                    "description": "the call's deadline in milliseconds from now"},
                                   {"name": "X-Request-Id", "in": "header", "required": False,
                                    "schema": {"type": "string"}, "description": "logged with the call"}]}
        for name in (e.request, e.response):
            if name and name in HELPER_SCHEMAS:
                schemas.setdefault(name, HELPER_SCHEMAS[name])
            elif name:
                _message_schema(pb.DESCRIPTOR.message_types_by_name[name], schemas)
        if e.request:
            op["requestBody"] = {"required": True, "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{e.request}"}}}}
        ok_schema = {"$ref": f"#/components/schemas/{e.response}"} if e.response else {"type": "object"}
        if e.streaming:
            content = {"application/x-ndjson": {"schema": ok_schema,
                                                "description": "one JSON object per line, as each is ready"},
                       "application/json": {"schema": {"type": "object", "properties": {
                           "items": {"type": "array", "items": ok_schema}}}}}
        else:
            content = {"application/json": {"schema": ok_schema}}
        err = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        op["responses"] = {
            "200": {"description": "the answer", "content": content},
            "400": {"description": "INVALID_ARGUMENT: bad input; `field` names it", **err},
            "401": {"description": "UNAUTHENTICATED: the server has bearer tokens and the call has no valid "
                                   "`Authorization: Bearer <token>` (see WWW-Authenticate)", **err},
            "409": {"description": "FAILED_PRECONDITION", **err},
            "413": {"description": "body larger than 64 KiB", **err},
            "429": {"description": "RESOURCE_EXHAUSTED: every worker busy, or this client over the rate limit; "
                                   "see Retry-After", **err},
            "499": {"description": "CANCELLED", **err},
            "500": {"description": "INTERNAL", **err},
            "503": {"description": "UNAVAILABLE: shutting down", **err},
            "504": {"description": "DEADLINE_EXCEEDED", **err},
        }
        if e.name == "Healthz":  # open for probes, with or without tokens
            op["security"] = []
            del op["responses"]["401"]
        paths.setdefault(e.path, {})[e.method.lower()] = op
    schemas["Error"] = _ERROR
    return {
        "openapi": "3.1.0",
        "info": {"title": "quiltsolve HTTP API", "version": version,
                 "description": "The patchwork.v1.PlacementService RPCs over HTTP/JSON (bodies are the protobuf "
                                "JSON mapping of the same messages), plus the web app's game helpers. "
                                "See docs/web.md."},
        "paths": paths,
        # Tokens are needed only when the server has them (--auth-token-file); {} is "no token" otherwise.
        "security": [{"bearer": []}, {}],
        "components": {"schemas": dict(sorted(schemas.items())),
                       "securitySchemes": {"bearer": {
                           "type": "http", "scheme": "bearer",
                           "description": "one of the server's tokens (--auth-token-file), the same as for gRPC; "
                                          "needed by every endpoint but healthz when the server has tokens"}}},
    }
