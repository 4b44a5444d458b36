"""The position codec: every conversion between the five forms of a game position, both ways.

The forms are

* ``engine.GameState``: the game itself (what every computation uses);
* the engine's **state JSON** (``GameState.to_json()``: editions as words,
  boards as 9 row strings or, the older form, 81-bit integers), as a dict
  or as JSON text;
* ``patchwork.v1.GameState``: the typed protobuf message of the wire;
* its **JSON mapping** (protobuf's ``json_format``: ``"EDITION_REVISED"``,
  boards as ``{"rows": [...]}``), which the HTTP API and the web app carry;
* the one-line **notation** (``GameState.to_notation()``, grammar in
  docs/engine.md).

No other module converts between them: every face, client and helper calls
this one. Every failure is one :class:`PositionError` (a ``ValueError``)
that names the field in the proto's spelling, prefixed by where the
position came from (``state.players[0].buttons``), as python-chess raises
one error for a bad FEN.

>>> from quiltsolve import engine
>>> s = engine.new_game(3)
>>> from_message(to_message(s)) == s == from_mapping(to_mapping(s)) == from_state_json(to_state_json(s))
True
>>> from_text(to_notation(s)) == s == from_text(json.dumps(to_mapping(s))) == from_text(json.dumps(s.to_json()))
True
>>> bad = to_mapping(s); bad["players"][0]["buttons"] = 5000
>>> from_mapping(bad)
Traceback (most recent call last):
...
quiltsolve.server.positions.PositionError: state.players[0].buttons: must be an integer 0-1000, got 5000
>>> from_text("r 0,5,-,0 0,5,-,0 tak 0 -", "position")
Traceback (most recent call last):
...
quiltsolve.server.positions.PositionError: position: circle: patch 0 is neither in the circle nor on a board
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from quiltsolve import engine
from quiltsolve.engine.actions import Advance, Buy, PlaceLeather
from quiltsolve.engine.notation import NotationError
from quiltsolve.engine.track import START_PATCH_ID
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.solver import BOARD_SIZE, board_to_rows, cells_of
from quiltsolve.solver.limits import CIRCLE_PATCHES, MAX_STATE_JSON

from .errors import BadRequest
from .protojson import parse as parse_mapping
from .protojson import to_dict

EDITIONS: dict[pb.Edition, str] = {pb.EDITION_REVISED: "revised", pb.EDITION_ORIGINAL: "original"}
EDITION_ENUM: dict[str, pb.Edition] = {name: value for value, name in EDITIONS.items()}


class PositionError(ValueError):
    """A position that cannot be read: ``field`` (the proto path) and what is wrong with it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message

    def as_bad_request(self) -> BadRequest:
        return BadRequest(self.field, self.message)


def join_field(field: str, path: str) -> str:
    """``state`` + ``players[0].buttons`` → ``state.players[0].buttons``."""
    if not field:
        return path
    return f"{field}{path}" if path.startswith("[") else f"{field}.{path}"


# ---------------------------------------------------------------- engine edition names

def edition_name(value: pb.Edition | int, field: str = "edition") -> str:
    """The engine's edition word for a ``pb.Edition``; :class:`PositionError` for any other value."""
    if value in EDITIONS:
        return EDITIONS[value]  # type: ignore[index]
    if value == pb.EDITION_UNSPECIFIED:
        raise PositionError(field, "required: EDITION_REVISED or EDITION_ORIGINAL")
    raise PositionError(field, f"unknown value {value}; expected EDITION_REVISED or EDITION_ORIGINAL")


def edition_enum(name: str) -> pb.Edition:
    """The ``pb.Edition`` of an engine edition word (``"revised"``)."""
    return EDITION_ENUM[name]


# ---------------------------------------------------------------- state JSON

def to_state_json(state: engine.GameState) -> dict:
    """The engine's state JSON object (boards as row strings)."""
    return state.to_json()


def from_state_json(data: Any, field: str = "state") -> engine.GameState:
    """A ``GameState`` from the engine's state JSON: a dict, or its text (at most :data:`MAX_STATE_JSON`)."""
    if isinstance(data, (str, bytes)):
        data = json_value(data, field)
    if not isinstance(data, dict):
        raise PositionError(field, f"must be a JSON object (GameState.to_json()), not {type(data).__name__}")
    try:
        return engine.GameState.from_json(data)
    except engine.StateError as e:
        raise PositionError(join_field(field, e.field), e.message) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError, OverflowError):
        # shapes of JSON the engine's checks did not foresee: still the caller's input
        raise PositionError(field, "not a valid game state (see the state JSON schema in docs/engine.md)") from None


def json_value(text: str | bytes, field: str, *, limit: int = MAX_STATE_JSON,
               error: type[ValueError] = PositionError, first_line: bool = False) -> Any:
    """The JSON value of input text (UTF-8 bytes or str, at most ``limit`` characters); ``error(field,
    message)`` when it is not. ``first_line``: text that is not one JSON value may be a JSON-lines
    file, and its first line is read."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise error(field, "not UTF-8 text") from None
    if len(text) > limit:
        raise error(field, f"{len(text)} characters; at most {limit}")
    try:
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            text = text.strip()
            if not first_line or "\n" not in text:
                raise
            return json.loads(text.splitlines()[0])
    except json.JSONDecodeError as e:
        raise error(field, f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except RecursionError:
        raise error(field, "not valid JSON: nested too deeply") from None
    except ValueError:   # int() of a number longer than sys.get_int_max_str_digits()
        raise error(field, "not valid JSON: a number has too many digits") from None


# ---------------------------------------------------------------- the protobuf message

def to_message(state: engine.GameState) -> pb.GameState:
    """The typed wire form of a position."""
    out = pb.GameState(edition=EDITION_ENUM[state.edition], circle=state.circle,
                       leather_spaces=list(state.leather), current_player=state.current_player(),
                       leather_to_place=state.leather_to_place)
    for p in state.players:
        out.players.append(pb.PlayerState(board=pb.Board(rows=board_to_rows(p.board)), buttons=p.buttons,
                                          position=p.position, income=p.income, patches=list(p.patches),
                                          leather=p.leather, bonus=p.bonus))
    if state.first_to_end is not None:
        out.first_to_end = state.first_to_end
    return out


def _board_rows(board: pb.Board, field: str) -> list[str]:
    rows = list(board.rows)
    if len(rows) != BOARD_SIZE:
        raise PositionError(f"{field}.rows", f"{len(rows)} rows; expected {BOARD_SIZE}")
    for r, row in enumerate(rows):
        if len(row) != BOARD_SIZE:
            raise PositionError(f"{field}.rows[{r}]", f"row has {len(row)} cells; expected {BOARD_SIZE}")
        bad = set(row) - {".", "#"}
        if bad:
            c = next(i for i, ch in enumerate(row) if ch in bad)
            raise PositionError(f"{field}.rows[{r}]", f"column {c} has {row[c]!r}; use '.' (empty) and '#' (filled)")
    return rows


def from_message(msg: pb.GameState, field: str = "state") -> engine.GameState:
    """A ``GameState`` from its typed wire form; the engine checks the rules and names the field."""
    if len(msg.players) != 2:
        raise PositionError(f"{field}.players", f"{len(msg.players)} players; expected 2")
    players = []
    for i, p in enumerate(msg.players):
        where = f"{field}.players[{i}].board"
        if not p.HasField("board"):
            raise PositionError(where, "required: 9 rows of '.' and '#'")
        players.append({"board": _board_rows(p.board, where), "buttons": p.buttons, "position": p.position,
                        "income": p.income, "patches": list(p.patches), "leather": p.leather, "bonus": p.bonus})
    data = {"edition": edition_name(msg.edition, f"{field}.edition"), "players": players,
            "circle": list(msg.circle), "leather_spaces": list(msg.leather_spaces),
            "current_player": msg.current_player, "leather_to_place": msg.leather_to_place,
            "first_to_end": msg.first_to_end if msg.HasField("first_to_end") else None}
    return from_state_json(data, field)


# ---------------------------------------------------------------- the JSON mapping

def to_mapping(state: engine.GameState) -> dict:
    """The protobuf JSON mapping of a position (what the HTTP API carries)."""
    return to_dict(to_message(state))


def from_mapping(data: Any, field: str = "state") -> engine.GameState:
    """A ``GameState`` from the protobuf JSON mapping of ``pb.GameState`` (a dict)."""
    try:
        msg = parse_mapping(data, pb.GameState, field)
    except BadRequest as e:
        raise PositionError(e.field, e.details.removeprefix(f"{e.field}: ")) from None
    return from_message(msg, field)


def is_mapping(data: dict) -> bool:
    """Whether a JSON object is the protobuf mapping (typed boards, ``EDITION_*``) rather than state JSON."""
    players = data.get("players")
    if isinstance(players, list) and players and isinstance(players[0], dict) \
            and isinstance(players[0].get("board"), dict):
        return True
    edition = data.get("edition")
    return isinstance(edition, str) and edition.startswith("EDITION_")


# ---------------------------------------------------------------- notation

def to_notation(state: engine.GameState) -> str:
    """The one-line notation of a position."""
    return state.to_notation()


def from_notation(text: str, field: str = "state") -> engine.GameState:
    """A ``GameState`` from one line of notation; the notation's own field names follow ``field``."""
    try:
        return engine.GameState.from_notation(text)
    except NotationError as e:
        raise PositionError(field, str(e)) from None
    except (ValueError, TypeError, ArithmeticError, RecursionError) as e:
        raise PositionError(field, str(e) or "not a position in notation") from None


# ---------------------------------------------------------------- a starting circle

def from_circle(ids: Sequence[int], edition: str = engine.DEFAULT_EDITION,
                field: str = "circle") -> engine.GameState:
    """The starting position of the circle ``ids`` as it lies on a table: all 33 patch ids, each once,
    clockwise from the neutral token, patch 0 last (the token starts just after it). The one check of a
    circle: :class:`PositionError` names the entry at fault (``circle[5]``) or, for a patch missing, the
    whole list.

    >>> from_circle(engine.new_game(3).circle) == engine.new_game(3)
    True
    >>> from_circle([*range(1, 33), 0]).available_patches()
    [1, 2, 3]
    >>> from_circle([*range(1, 33), 1])
    Traceback (most recent call last):
    ...
    quiltsolve.server.positions.PositionError: circle[32]: patch 1 is listed twice (also circle[0])
    >>> from_circle([*range(1, 32), 0])
    Traceback (most recent call last):
    ...
    quiltsolve.server.positions.PositionError: circle: 32 patches; a circle holds all 33, each once (missing: 32)
    >>> from_circle([0, *range(1, 33)])
    Traceback (most recent call last):
    ...
    quiltsolve.server.positions.PositionError: circle[32]: must be patch 0, the last one before the token (patch 0 is circle[0])
    """
    ids = list(ids)
    seen: dict[int, int] = {}
    # Each entry first (a page names the one at fault while the circle is still being entered); the 34th
    # entry of any list is a repeat or no patch, so this stops within CIRCLE_PATCHES + 1 entries.
    for i, pid in enumerate(ids):
        if type(pid) is not int or not 0 <= pid < CIRCLE_PATCHES:
            raise PositionError(f"{field}[{i}]", f"unknown patch id {pid!r}; standard ids are 0-{CIRCLE_PATCHES - 1}")
        if pid in seen:
            raise PositionError(f"{field}[{i}]", f"patch {pid} is listed twice (also {field}[{seen[pid]}])")
        seen[pid] = i
    if len(ids) < CIRCLE_PATCHES:
        missing = ", ".join(str(p) for p in range(CIRCLE_PATCHES) if p not in seen)
        raise PositionError(field, f"{len(ids)} patch{'' if len(ids) == 1 else 'es'}; a circle holds all "
                                   f"{CIRCLE_PATCHES}, each once (missing: {missing})")
    if ids[-1] != START_PATCH_ID:
        raise PositionError(f"{field}[{len(ids) - 1}]", f"must be patch {START_PATCH_ID}, the last one before "
                            f"the token (patch {START_PATCH_ID} is {field}[{seen[START_PATCH_ID]}])")
    return engine.GameState.from_circle(ids, edition)


# ---------------------------------------------------------------- any form

def is_notation(text: str) -> bool:
    """Whether position text is notation (it starts with the edition letter) rather than JSON (``{``).

    >>> is_notation("r 0,5,-,0 0,5,-,0 t 0 -"), is_notation('{"edition": "revised"}')
    (True, False)
    """
    for line in text.splitlines():
        line = line.lstrip("\ufeff \t")
        if line and not line.startswith(";"):
            return line[:1].isalpha()
    return False


def from_text(text: str, field: str = "state") -> engine.GameState:
    """A position from text in any of its text forms: notation (one line), state JSON or the JSON mapping.

    Lines starting with ``;`` are comments.
    """
    if ";" in text:
        text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(";"))
    if not text.strip():
        raise PositionError(field, "empty; give a position in notation, or as JSON")
    if is_notation(text):
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if len(lines) != 1:
            raise PositionError(field, f"notation is one line of 6 fields, got {len(lines)} lines")
        return from_notation(lines[0], field)
    data = json_value(text, field)
    if not isinstance(data, dict):
        raise PositionError(field, f"must be a JSON object, not {type(data).__name__}")
    return from_mapping(data, field) if is_mapping(data) else from_state_json(data, field)


def load(value: Any, field: str = "state") -> engine.GameState:
    """A position from any form: a ``GameState`` (copied), a ``pb.GameState``, a dict (either JSON
    form), or text (any text form)."""
    if isinstance(value, engine.GameState):
        return value.clone()
    if isinstance(value, pb.GameState):
        return from_message(value, field)
    if isinstance(value, dict):
        return from_mapping(value, field) if is_mapping(value) else from_state_json(value, field)
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        return from_text(value, field)
    raise PositionError(field, f"cannot read a position from {type(value).__name__}; give a GameState, "
                               "a dict, JSON text or notation")


# ---------------------------------------------------------------- moves

def move_message(action: engine.Action) -> pb.Move:
    """An engine action as a :class:`pb.Move` (its fields, and its text form)."""
    text = action.to_str()
    if isinstance(action, Buy):
        return pb.Move(kind=pb.MOVE_KIND_BUY, patch_id=action.patch_id, text=text,
                       cells=[pb.Cell(row=r, col=c) for r, c in sorted(cells_of(action.mask))])
    if isinstance(action, PlaceLeather):
        r, c = action.cell
        return pb.Move(kind=pb.MOVE_KIND_LEATHER, text=text, cells=[pb.Cell(row=r, col=c)])
    assert isinstance(action, Advance), action
    return pb.Move(kind=pb.MOVE_KIND_ADVANCE, text=text)


def move_of(msg: pb.Move) -> engine.Action:
    """The engine action of a :class:`pb.Move` answer (read from its text form)."""
    return engine.parse_action(msg.text)
