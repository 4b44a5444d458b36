"""Turning user input (CLI arguments, files, stdin, plain Python values) into the
fields of a request message: board rows, patch keys (standard id or shape
text) with their copies, puzzle regions and pieces, game positions and
records, seconds for a ``Duration``.

Only what a client alone can do is checked here: that a value can be put in
the message at all (a number where a number goes, within the field's type,
a finite time limit, a mask below 2**81), each refusal an
:class:`InvalidArgument` naming the field as the service names it
(``time_limit``, ``patches[2]``). Every range and limit (``solver.limits``:
time limits, top, iterations, copies, sizes, record length, duplicates...)
is the service's check alone (``server/convert.py``, ``server/service.py``):
every client gets the service's own refusal.

>>> patch_key("12"), patch_key("##./.##"), patch_key(" 3 ")
(12, '##./.##', 3)
>>> patch_keys(["1,2", "#/#"])
[1, 2, '#/#']
>>> seconds("soon", "time_limit")
Traceback (most recent call last):
...
quiltsolve.clients.errors.InvalidArgument: time_limit: 'soon' is not a number of seconds
"""

from __future__ import annotations

import json
import math
import operator
import os
import sys
from typing import Any, Iterable, Sequence

from quiltsolve.engine import GameState
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server import positions, records
from quiltsolve.solver import limits
from quiltsolve.solver.geometry import BOARD_SIZE, FULL_BOARD, Board, Shape, board_to_rows
from quiltsolve.solver.patches import LEATHER_PATCH_ID, LEATHER_SHAPE, PATCHES, UnknownPatchError
from quiltsolve.solver.types import Objective

from .errors import InvalidArgument

PatchSpec = int | str
PatchKey = int | str

# Files the CLI reads (boards, regions, states, certificates, tokens) are
# read up to this size: /dev/zero or a huge file is an error, not a hang.
MAX_INPUT_BYTES = 1 << 20
_ECHO = 40                     # characters of a bad input quoted back in an error


def _short(value: Any) -> str:
    """``repr(value)``, cut to a readable length for an error message."""
    text = repr(value)
    return text if len(text) <= _ECHO else text[: _ECHO - 5] + "...'"


# --------------------------------------------------------- type conversion
# The bounds of the wire's types: a value outside them cannot be put in the request at all.
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
MAX_DURATION = 315_576_000_000  # seconds: the range of a google.protobuf.Duration (10000 years)


def _bad(field: str, message: str) -> InvalidArgument:
    """An :class:`InvalidArgument` for a value that cannot be put in the request, named as the service names it."""
    return InvalidArgument(f"{field}: {message}", field=field)


def int32(value: Any, field: str) -> int:
    """``value`` as the int32 request field ``field``: an integer (not a bool) within the int32 range.

    Only the type is checked here; what range the field allows is the service's check.

    >>> int32(7, "seed")
    7
    >>> int32(2**40, "seed")
    Traceback (most recent call last):
    ...
    quiltsolve.clients.errors.InvalidArgument: seed: 1099511627776 does not fit the request (an int32 field)
    """
    if isinstance(value, bool):
        raise _bad(field, f"{value!r} is not an integer")
    try:
        number = operator.index(value)
    except TypeError:
        raise _bad(field, f"{_short(value)} is not an integer") from None
    if not INT32_MIN <= number <= INT32_MAX:
        raise _bad(field, f"{_short(number)} does not fit the request (an int32 field)")
    return number


def optional_int32(value: Any, field: str, unset: str) -> int:
    """An optional int32 field whose wire value 0 means "unset" (``iterations``): None → 0.

    A Python 0 would silently read as unset on the wire, so it is refused: ``unset`` says what None
    means (the service checks every other value)."""
    if value is None:
        return 0
    number = int32(value, field)
    if number == 0:
        raise _bad(field, f"0 cannot be sent (on the wire 0 means unset: {unset}); leave it out (None) for that")
    return number


def flag(value: Any, field: str) -> bool:
    """A bool request field: True or False only (a truthy string or number is refused, not guessed).

    >>> flag(True, "until_cancelled")
    True
    >>> flag("no", "until_cancelled")
    Traceback (most recent call last):
    ...
    quiltsolve.clients.errors.InvalidArgument: until_cancelled: 'no' is not True or False
    """
    if not isinstance(value, bool):
        raise _bad(field, f"{value!r} is not True or False")
    return value


def int_list(values: Any, field: str) -> list[int]:
    """A repeated int32 field from a list of integers or from text (``"12,5,30"``: commas or blanks between
    them, as typed on a command line); each entry is named ``field[i]``. Which values the field takes is
    the service's check (a circle: :func:`server.positions.from_circle`).

    >>> int_list("12, 5 30", "circle"), int_list((3, 4), "circle")
    ([12, 5, 30], [3, 4])
    >>> int_list("12,x", "circle")
    Traceback (most recent call last):
    ...
    quiltsolve.clients.errors.InvalidArgument: circle[1]: 'x' is not an integer
    """
    if isinstance(values, (str, bytes)):
        text = values.decode("utf-8", "replace") if isinstance(values, bytes) else values
        words = [w for w in text.replace(",", " ").split()]
        if not words:
            raise _bad(field, "empty: give the patch ids, separated by commas")
        out = []
        for i, word in enumerate(words):
            try:
                out.append(int(word))
            except ValueError:
                raise _bad(f"{field}[{i}]", f"{_short(word)} is not an integer") from None
        values = out
    try:
        items = list(values)
    except TypeError:
        raise _bad(field, f"{_short(values)} is not a list of integers") from None
    return [int32(v, f"{field}[{i}]") for i, v in enumerate(items)]


def seconds(value: Any, field: str) -> float | None:
    """A time limit in seconds, for a ``google.protobuf.Duration`` field: None (unset) or a finite number.

    >>> seconds(1, "time_limit"), seconds(None, "time_limit")
    (1.0, None)
    >>> seconds(float("nan"), "time_limit")
    Traceback (most recent call last):
    ...
    quiltsolve.clients.errors.InvalidArgument: time_limit: nan is not a finite number of seconds
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise _bad(field, f"{value!r} is not a number of seconds")
    try:
        t = float(value)
    except (TypeError, ValueError, OverflowError):
        raise _bad(field, f"{_short(value)} is not a number of seconds") from None
    if not math.isfinite(t):
        raise _bad(field, f"{_short(value)} is not a finite number of seconds")
    if abs(t) > MAX_DURATION:
        raise _bad(field, f"{_short(value)} s does not fit the request (a Duration)")
    return t


def fraction(value: Any, field: str, unset: str) -> float:
    """A double field whose wire value 0 means "the default" (``large_loss``): a number, not 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _bad(field, f"{_short(value)} is not a number")
    if value == 0:
        raise _bad(field, f"0 cannot be sent (on the wire 0 means {unset})")
    return float(value)


# ------------------------------------------------------------------ patches
def patch_key(spec: PatchSpec, field: str = "patch") -> PatchKey:
    """A standard patch id (int) or a shape string, as a ``PatchRef`` carries it.

    Digits mean a standard id (``-1`` is the 1×1 leather patch); anything else is shape text,
    sent as given (stripped): whether the id exists or the shape is valid is the service's check.

    >>> patch_key(" 3 "), patch_key("##./.##"), patch_key(99)
    (3, '##./.##', 99)
    >>> patch_key(1.5)
    Traceback (most recent call last):
    ...
    quiltsolve.clients.errors.InvalidArgument: patch: 1.5 is not a patch: give a standard id or a shape string
    """
    if isinstance(spec, bool):
        raise _bad(field, f"{spec!r} is not a patch: give a standard id or a shape string")
    if isinstance(spec, int):
        return int32(spec, f"{field}.id")
    if not isinstance(spec, str):
        raise _bad(field, f"{_short(spec)} is not a patch: give a standard id or a shape string")
    text = spec.strip()
    digits = text.removeprefix("-")
    if digits.isascii() and digits.isdigit():
        return int32(int(text), f"{field}.id")
    return text


def patch_keys(specs: Iterable[PatchSpec] | PatchSpec, field: str = "patches") -> list[PatchKey]:
    """Like :func:`patch_key` for many; a string may hold several ids/shapes separated by commas
    (shapes never contain commas). A repeated key is another copy; an error names the entry of the
    request (``patches[2]``) the value would have gone into.

    >>> patch_keys(["1,2", "#/#", 1])
    [1, 2, '#/#', 1]
    """
    if isinstance(specs, (str, int)):
        specs = [specs]
    if not isinstance(specs, Iterable):
        raise _bad(field, f"{_short(specs)} is not a list of patches")
    out: list[PatchKey] = []
    seen: set[PatchKey] = set()

    def add(spec: PatchSpec) -> None:
        key = patch_key(spec, f"{field}[{len(seen)}]")
        seen.add(key)
        out.append(key)

    for spec in specs:
        if isinstance(spec, str) and "," in spec:
            for part in spec.split(","):
                if part.strip():
                    add(part)
        else:
            add(spec)
    return out


def patch_counts(keys: Sequence[PatchKey]) -> dict[PatchKey, int]:
    """Copies of each key, in first-seen order: a repeated key is one more copy (one ``PatchRef``
    with a count). The same patch written two ways stays two entries: the service refuses that.

    >>> patch_counts([0, 5, 0, "##"])
    {0: 2, 5: 1, '##': 1}
    """
    counts: dict[PatchKey, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    return counts

# --------------------------------------------------------------------- files
def is_inline_grid(arg: str) -> bool:
    """Whether a BOARD / REGION argument is the grid itself rather than a file.

    The rule: an argument made only of ``.``, ``#`` and ``/`` (rows separated
    by ``/``; a single row needs none) is the grid, unless a file of that
    name exists (a directory does not count).

    >>> is_inline_grid("...."), is_inline_grid("##./.##"), is_inline_grid("board.txt")
    (True, True, False)
    """
    return (bool(arg) and set(arg) <= {".", "#", "/"} and ("#" in arg or "." in arg)
            and not (os.path.exists(arg) and not os.path.isdir(arg)))


def read_bytes(path: str, *, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a file (``-``: stdin), at most ``limit`` of them."""
    if path == "-":
        if sys.stdin is None:
            raise InvalidArgument("cannot read stdin: it is closed")
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream put in place of stdin (tests)
            data = sys.stdin.read(limit + 1).encode("utf-8", "surrogateescape")
        else:
            data = stream.read(limit + 1)
        name = "stdin"
    else:
        name = path
        try:
            with open(path, "rb") as f:
                data = f.read(limit + 1)
        except IsADirectoryError:
            raise InvalidArgument(f"cannot read {_short(path)}: it is a directory") from None
        except (OSError, ValueError) as e:  # ValueError: a NUL in the path
            raise InvalidArgument(f"cannot read {_short(path)}: {getattr(e, 'strerror', None) or e}") from None
    if len(data) > limit:
        size = f"{limit >> 20} MiB" if limit % (1 << 20) == 0 else f"{limit >> 10} KiB"
        raise InvalidArgument(f"cannot read {_short(name)}: larger than {size}")
    return data


def decode_text(data: bytes, name: str = "input") -> str:
    """UTF-8 text (a leading byte-order mark is dropped); binary data is refused."""
    if b"\0" in data:
        raise InvalidArgument(f"cannot read {_short(name)}: a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidArgument(f"cannot read {_short(name)}: not UTF-8 text") from None


def read_text(path: str) -> str:
    """The text of a file, of stdin for ``-``, or a grid given inline (see
    :func:`is_inline_grid`). Files are read up to :data:`MAX_INPUT_BYTES`.

    >>> read_text("##./.##").splitlines()
    ['##.', '.##']
    >>> read_text("....")
    '....'
    """
    if path != "-" and is_inline_grid(path):
        return "\n".join(path.split("/"))
    return decode_text(read_bytes(path), "stdin" if path == "-" else path)


def _rows(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith(";")]


def read_board(path: str) -> list[str]:
    """The rows of a board (9 lines of ``.`` empty / ``#`` filled) from a file, ``-`` or inline; the
    service checks them (``board.rows``)."""
    return _rows(read_text(path))


def board_rows(board: Board | str | Sequence[str], field: str = "board") -> list[str]:
    """The rows of a ``Board`` message: from a mask (an int below 2**81), text (rows separated by
    newlines or ``/``) or a list of row strings. Whether they make a 9×9 board is the service's check.

    >>> board_rows(1)[0], len(board_rows("#/./."))
    ('#........', 3)
    """
    if isinstance(board, bool):
        raise _bad(field, "expected a mask or 9 rows")
    if isinstance(board, int):
        if not 0 <= board <= FULL_BOARD:
            raise _bad(field, "a board mask is a non-negative int below 2**81")
        return board_to_rows(board)
    if isinstance(board, str):
        if len(board) > MAX_INPUT_BYTES:
            raise _bad(f"{field}.rows", "far too long for 9 rows of 9 cells")
        return [r.strip() for r in board.replace("/", "\n").splitlines() if r.strip()]
    return _string_rows(board, f"{field}.rows")


def _string_rows(rows: Any, field: str) -> list[str]:
    if not isinstance(rows, Iterable):
        raise _bad(field, "expected rows of '.' and '#'")
    out = []
    for i, r in enumerate(rows):
        if not isinstance(r, str):
            raise _bad(f"{field}[{i}]", f"{_short(r)} is not a row of '.' and '#'")
        out.append(r.strip())
    return out


PUZZLE_METHODS = ("auto", "search", "frontier")  # how a puzzle count may be made (solver.puzzle.METHODS)


def puzzle_method(value: Any, field: str = "method") -> str:
    """A counting method's name: ``auto`` (the service chooses), ``search`` or ``frontier``.

    >>> puzzle_method("Frontier")
    'frontier'
    >>> puzzle_method("dp")
    Traceback (most recent call last):
    ...
    quiltsolve.clients.errors.InvalidArgument: method: unknown method 'dp'; use auto, search or frontier
    """
    name = value.strip().lower() if isinstance(value, str) else None
    if name not in PUZZLE_METHODS:
        raise _bad(field, f"unknown method {_short(value)}; use auto, search or frontier")
    return name


def region_rows(rows: str | Sequence[str], field: str = "region") -> list[str]:
    """The rows of a puzzle ``Region`` message: text (blank lines and ``;`` comments skipped) or a
    list of row strings. Whether they make a region (1-20 rows of '.' and '#', a rectangle) is the
    service's check."""
    if isinstance(rows, str):
        return _rows(rows)
    return _string_rows(rows, f"{field}.rows")


def piece_texts(pieces: Iterable[PatchSpec | Shape] | PatchSpec | Shape, field: str = "pieces") -> list[str]:
    """Puzzle pieces as the shape texts of the request: shape strings (as given), ``Shape`` objects, or
    standard patch ids (their shapes; repeats are copies). Whether the shapes are valid and how many
    pieces a puzzle may have is the service's check.

    >>> piece_texts(["###", 0, -1])
    ['###', '##', '#']
    """
    if isinstance(pieces, (str, int, Shape)):
        pieces = [pieces]
    if not isinstance(pieces, Iterable):
        raise _bad(field, f"{_short(pieces)} is not a list of pieces")
    out = []
    for i, p in enumerate(pieces):
        if isinstance(p, Shape):
            out.append(p.to_str())
            continue
        key = patch_key(p, f"{field}[{i}]")
        if isinstance(key, str):
            out.append(key)
        elif key == LEATHER_PATCH_ID:
            out.append(LEATHER_SHAPE.to_str())
        elif 0 <= key < len(PATCHES):
            out.append(PATCHES[key].shape.to_str())
        else:  # a piece is sent as its shape: an unknown id has none
            raise _bad(f"{field}[{i}]", f"unknown patch id {key}; standard ids are 0-{len(PATCHES) - 1} "
                                        f"(-1 = leather)")
    return out


def objective_of(objective: str | Objective) -> Objective:
    """``"cover"`` / ``"square7"`` (any case) or an :class:`Objective`."""
    if isinstance(objective, Objective):
        return objective
    try:
        return Objective(str(objective).lower())
    except ValueError:
        raise InvalidArgument(f"bad objective {_short(objective)}; expected 'cover' or 'square7'") from None


def game_state(state: Any, field: str = "state") -> GameState:
    """A position in any form (a ``GameState``, a dict of either JSON form, JSON text or notation),
    read by the service's own codec (:mod:`server.positions`); :class:`InvalidArgument` naming the field."""
    try:
        return positions.load(state, field)
    except positions.PositionError as e:
        raise InvalidArgument(str(e), field=e.field) from None


# ------------------------------------------------------------- positions
def position_text(arg: str) -> str:
    """The text of a STATE argument: a file, stdin for ``-``, or the position
    itself inline. An argument that names an existing file (not a directory)
    is read; otherwise one that starts with ``{`` (state JSON), or with a
    letter and holds a blank (notation, ``r 0,5,-,0 ...``), is the position;
    anything else is a file name (so a missing file says so).

    >>> position_text("r 0,5,-,0 0,5,-,0 t 0 -")
    'r 0,5,-,0 0,5,-,0 t 0 -'
    """
    if arg == "-":
        return decode_text(read_bytes("-"), "stdin")
    if os.path.exists(arg) and not os.path.isdir(arg):
        return decode_text(read_bytes(arg), arg)
    text = arg.strip()
    if len(arg) <= MAX_INPUT_BYTES and (text.startswith("{") or (text[:1].isalpha() and len(text.split()) > 1)):
        return arg
    return decode_text(read_bytes(arg), arg)


def parse_position(text: str) -> GameState:
    """A ``GameState`` from position text: one line of notation, the engine's state JSON or the
    protobuf JSON mapping; :class:`InvalidArgument` naming what is wrong.

    >>> parse_position("r 0,5,-,0 0,5,-,0 tak 0 -")
    Traceback (most recent call last):
    ...
    quiltsolve.clients.errors.InvalidArgument: position: circle: patch 0 is neither in the circle nor on a board
    """
    try:
        return positions.from_text(text, "position")
    except positions.PositionError as e:
        raise InvalidArgument(str(e), field=e.field) from None


def read_position(arg: str) -> Any:
    """The ``GameState`` of a STATE argument (see :func:`position_text`)."""
    return parse_position(position_text(arg))


# --------------------------------------------------------------- records
DEFAULT_TIME_PER_MOVE = limits.DEFAULT_REVIEW_LIMIT
DEFAULT_LARGE_LOSS = limits.DEFAULT_LARGE_LOSS


def read_record(path: str, line: int = 1, *, limit: int = MAX_INPUT_BYTES) -> Any:
    """The ``line``-th record (counting non-blank lines from 1) of a JSON-lines
    file, or of stdin for ``-``, parsed. Only the lines up to it are read,
    each at most ``limit`` bytes, so a file of many records is fine."""
    name = "stdin" if path == "-" else path
    if isinstance(line, bool) or not isinstance(line, int) or line < 1:
        raise InvalidArgument(f"bad line {_short(line)}: records are counted from 1")
    if path == "-":
        if sys.stdin is None:
            raise InvalidArgument("cannot read stdin: it is closed")
        stream: Any = getattr(sys.stdin, "buffer", None)
        if stream is None:   # a text stream put in place of stdin (tests)
            import io

            stream = io.BytesIO(sys.stdin.read().encode("utf-8", "surrogateescape"))
        return _record_from(stream, name, line, limit)
    try:
        f = open(path, "rb")
    except IsADirectoryError:
        raise InvalidArgument(f"cannot read {_short(path)}: it is a directory") from None
    except (OSError, ValueError) as e:
        raise InvalidArgument(f"cannot read {_short(path)}: {getattr(e, 'strerror', None) or e}") from None
    with f:
        try:
            return _record_from(f, name, line, limit)
        except IsADirectoryError:
            raise InvalidArgument(f"cannot read {_short(path)}: it is a directory") from None
        except OSError as e:
            raise InvalidArgument(f"cannot read {_short(path)}: {e.strerror or e}") from None


def _record_from(stream: Any, name: str, line: int, limit: int) -> Any:
    seen = 0
    number = 0
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            break
        number += 1
        if len(raw) > limit:
            raise InvalidArgument(f"cannot read {_short(name)}: line {number} is longer than "
                                  f"{limit >> 20 or 1} MiB")
        text = decode_text(raw, name)
        if not text.strip():
            continue
        seen += 1
        if seen == line:
            try:
                return json.loads(text)
            except RecursionError:
                raise InvalidArgument(f"{_short(name)} line {number}: not JSON: nested too deeply") from None
            except json.JSONDecodeError as e:
                raise InvalidArgument(f"{_short(name)} line {number}: not JSON: {e}") from None
            except ValueError:   # int() of a number longer than sys.get_int_max_str_digits()
                raise InvalidArgument(f"{_short(name)} line {number}: not JSON: a number has too many digits") from None
    s = "" if seen == 1 else "s"
    raise InvalidArgument(f"--line {line}: {_short(name)} has {seen} record{s}" if seen
                          else f"{_short(name)} holds no record (one JSON object a line)")


def record_json(record: Any) -> dict:
    """A game record in the engine's form (``engine/record.py``) as a dict: given as one (either JSON
    form), or as its JSON text (the first line of a JSON-lines file). Read by the service's record
    codec (:mod:`server.records`), so every client and face reads records by one rule: an unknown
    field is refused by name, the engine's extras (``seed``, ``players``, ``result``,
    ``evaluations``) are checked and kept here (they never go in the request). Whether the moves
    replay legally is the service's check (``AnalyzeGame``). :class:`InvalidArgument` naming the field.

    >>> record_json({"circle": [1, 2], "actions": [], "colour": "red"})
    Traceback (most recent call last):
    ...
    quiltsolve.clients.errors.InvalidArgument: record.colour: unknown field of a game record; it has edition, seed, circle, actions, result, players, evaluations
    """
    value, message = _read_record(record)
    # The engine form (edition word, circle, actions) with the extras the message leaves out.
    return {**value, **records.to_json(message, records.seed_of(value))}


def record_message(record: Any) -> pb.GameRecord:
    """A ``GameRecord`` message from a game record (any form :func:`record_json` reads), by the
    service's record codec; :class:`InvalidArgument` naming the field."""
    return _read_record(record)[1]


def _read_record(record: Any) -> tuple[Any, pb.GameRecord]:
    """(the record's JSON value, its message), both read by the record codec; InvalidArgument naming the field."""
    try:
        value = records.json_object(record) if isinstance(record, (str, bytes)) else record
        return value, records.from_json(value)
    except records.RecordError as e:
        raise InvalidArgument(str(e), field=e.field) from None


__all__ = [
    "BOARD_SIZE", "DEFAULT_LARGE_LOSS", "DEFAULT_TIME_PER_MOVE", "INT32_MAX", "INT32_MIN", "MAX_INPUT_BYTES",
    "UnknownPatchError", "board_rows", "decode_text", "fraction", "game_state", "int32", "int_list",
    "is_inline_grid",
    "objective_of", "optional_int32", "parse_position", "patch_counts", "patch_key", "patch_keys", "piece_texts",
    "position_text", "read_board", "read_bytes", "read_position", "read_record", "read_text", "record_json",
    "record_message", "region_rows", "seconds",
]
