"""Turning user input (CLI arguments, files, plain Python values) into the
solver's plain values: board masks, patch keys (standard id or shape text),
puzzle regions, game states; and checking every request against the limits
the service enforces (:mod:`solver.limits`), so the embedded and the gRPC
client accept exactly the same inputs.

>>> patch_key("12"), patch_key("##./.##"), patch_key(" 3 ")
(12, '##./.##', 3)
>>> patch_keys(["1,2", "#/#"])
[1, 2, '#/#']
>>> board_mask(["#........"] + ["........."] * 8)
1
>>> check_time_limit(100)
Traceback (most recent call last):
...
clients.errors.InvalidArgument: bad time limit 100: it must be > 0 and at most 60 s
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Iterable, Sequence

from solver import limits
from solver.geometry import (
    BOARD_SIZE, FULL_BOARD, MAX_GRID, Board, BoardError, Shape, ShapeError,
    board_from_rows,
)
from solver.patches import LEATHER_PATCH_ID, LEATHER_SHAPE, PATCHES, UnknownPatchError
import engine
from engine import GameState
from server import positions
from solver.types import Objective

from .errors import InvalidArgument

PatchSpec = int | str
PatchKey = int | str

# Files the CLI reads (boards, regions, states, certificates, tokens) are
# read up to this size: /dev/zero or a huge file is an error, not a hang.
MAX_INPUT_BYTES = 1 << 20
MAX_SEED = 2**31 - 1           # seeds are int32 on the wire
_ECHO = 40                     # characters of a bad input quoted back in an error


def _short(value: Any) -> str:
    """``repr(value)``, cut to a readable length for an error message."""
    text = repr(value)
    return text if len(text) <= _ECHO else text[: _ECHO - 5] + "...'"


# ------------------------------------------------------------------ patches
def patch_key(spec: PatchSpec, *, max_side: int = MAX_GRID) -> PatchKey:
    """A standard patch id (int) or a shape string in normal form.

    Digits mean a standard id (``-1`` is the 1×1 leather patch); anything
    else must be a shape such as ``"##./.##"``, at most
    ``solver.limits.MAX_SHAPE_TEXT`` characters, 4-connected, and at most
    ``max_side`` rows and columns.

    >>> patch_key("#.#")
    Traceback (most recent call last):
    ...
    clients.errors.InvalidArgument: bad patch shape '#.#': shape is not 4-connected
    """
    if isinstance(spec, bool):
        raise InvalidArgument(f"bad patch {spec!r}")
    if isinstance(spec, int):
        if spec != LEATHER_PATCH_ID and not 0 <= spec < len(PATCHES):
            raise InvalidArgument(f"unknown patch id {_short(spec)}; standard ids are 0-{len(PATCHES) - 1}")
        return spec
    if not isinstance(spec, str):
        raise InvalidArgument(f"bad patch {_short(spec)}: give a standard id or a shape string")
    text = spec.strip()
    if len(text) > limits.MAX_SHAPE_TEXT:
        raise InvalidArgument(f"bad patch shape {_short(text)}: {len(text)} characters; "
                              f"at most {limits.MAX_SHAPE_TEXT}")
    digits = text.removeprefix("-")
    if digits.isascii() and digits.isdigit():
        return patch_key(int(text))
    try:
        shape = Shape.parse(text)
    except ShapeError as e:
        raise InvalidArgument(f"bad patch shape {_short(spec)}: {e}") from None
    if max(shape.height, shape.width) > max_side:
        raise InvalidArgument(f"bad patch shape {_short(spec)}: it is {shape.height}x{shape.width}; "
                              f"it cannot fit a {max_side}x{max_side} grid")
    return shape.to_str()


def patch_keys(specs: Iterable[PatchSpec] | PatchSpec, *, max_side: int = MAX_GRID) -> list[PatchKey]:
    """Like :func:`patch_key` for many; a string may hold several ids/shapes
    separated by commas (shapes never contain commas)."""
    if isinstance(specs, (str, int)):
        specs = [specs]
    out: list[PatchKey] = []
    for spec in specs:
        if isinstance(spec, str) and "," in spec:
            out.extend(patch_key(p, max_side=max_side) for p in spec.split(",") if p.strip())
        else:
            out.append(patch_key(spec, max_side=max_side))
    return out


def key_shape(key: PatchKey) -> Shape:
    """The shape of a patch key (a standard id, -1, or shape text)."""
    if isinstance(key, int):
        return LEATHER_SHAPE if key == LEATHER_PATCH_ID else PATCHES[key].shape
    return Shape.parse(key)


def _label(key: PatchKey) -> str:
    return f"patch {key}" if isinstance(key, int) else f"shape {key!r}"


def patch_counts(keys: Sequence[PatchKey], what: str = "patches") -> dict[PatchKey, int]:
    """Copies of each patch, in first-seen order: a repeated key is one more copy.

    The same patch written two ways (a standard id and its shape, or one
    shape in two orientations) is refused: repeat one form to get copies.
    Standard ids are distinct patches even when their shapes match (17, 18).

    >>> patch_counts([0, 5, 0])
    {0: 2, 5: 1}
    >>> patch_counts([0, "##"])
    Traceback (most recent call last):
    ...
    clients.errors.InvalidArgument: patches: shape '##' is the same patch as patch 0, given as well; \
repeat one form to get copies
    """
    counts: dict[PatchKey, int] = {}
    canon: dict[Shape, list[PatchKey]] = {}
    for key in keys:
        if key in counts:
            counts[key] += 1
            continue
        c = key_shape(key).canonical()
        for other in canon.get(c, ()):
            # Two distinct standard ids may share a shape: they are two patches.
            if isinstance(key, str) or isinstance(other, str):
                raise InvalidArgument(f"{what}: {_label(key)} is the same patch as {_label(other)}, given as "
                                      f"well; repeat one form to get copies")
        canon.setdefault(c, []).append(key)
        counts[key] = 1
    if len(counts) > limits.MAX_PATCH_REFS:
        raise InvalidArgument(f"{what}: {len(counts)} different patches; at most {limits.MAX_PATCH_REFS}")
    for key, n in counts.items():
        if n > limits.MAX_COUNT:
            raise InvalidArgument(f"{what}: {_label(key)} given {n} times; at most {limits.MAX_COUNT} copies")
    return counts


# -------------------------------------------------------------------- boards
def board_mask(board: Board | str | Sequence[str]) -> Board:
    """A 9×9 board mask from a mask or rows of ``.``/``#``."""
    if isinstance(board, bool):
        raise InvalidArgument("bad board: expected a mask or 9 rows")
    if isinstance(board, int):
        if not 0 <= board <= FULL_BOARD:
            raise InvalidArgument("board mask must be a non-negative int below 2**81")
        return board
    if isinstance(board, str) and len(board) > MAX_INPUT_BYTES:
        raise InvalidArgument("bad board: far too long for 9 rows of 9 cells")
    try:
        return board_from_rows(board)
    except (BoardError, TypeError) as e:
        raise InvalidArgument(f"bad board: {e}") from None


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


def read_board(path: str) -> Board:
    """Read 9 lines of ``.`` (empty) / ``#`` (filled) from a file, ``-`` or inline."""
    return board_mask(_rows(read_text(path)))


def region_rows(rows: str | Sequence[str]) -> list[str]:
    """Validate a puzzle region: a rectangle up to 20×20 of ``.`` (cell to tile)
    and ``#`` (not part of the region)."""
    if isinstance(rows, str):
        rows = _rows(rows)
    if not all(isinstance(r, str) for r in rows):
        raise InvalidArgument("bad region: expected rows of '.' and '#'")
    rows = [r.strip() for r in rows]
    if not rows:
        raise InvalidArgument("bad region: it is empty")
    if len(rows) > MAX_GRID:
        raise InvalidArgument(f"bad region: {len(rows)} rows; at most {MAX_GRID}")
    width = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != width:
            raise InvalidArgument(f"bad region: row {i} has {len(r)} cells; row 0 has {width} (it must be a rectangle)")
        bad = set(r) - {".", "#"}
        if bad:
            raise InvalidArgument(f"bad region: row {i} has {sorted(bad)[0]!r}; use '.' (to tile) and '#' (not part)")
    if width > MAX_GRID:
        raise InvalidArgument(f"bad region: {width} columns; at most {MAX_GRID}")
    if not any("." in r for r in rows):
        raise InvalidArgument("bad region: it has no '.' cell to tile")
    return list(rows)


def piece_shapes(pieces: Iterable[PatchSpec | Shape] | PatchSpec | Shape) -> list[Shape]:
    """Puzzle pieces as shapes: shape strings, or standard patch ids (repeats are copies)."""
    if isinstance(pieces, (str, int, Shape)):
        pieces = [pieces]
    out = []
    for p in pieces:
        if isinstance(p, Shape):
            if max(p.height, p.width) > MAX_GRID:
                raise InvalidArgument(f"bad piece {p.to_str()[:_ECHO]!r}: it cannot fit a {MAX_GRID}x{MAX_GRID} grid")
            out.append(p)
        else:
            out.append(key_shape(patch_key(p, max_side=MAX_GRID)))
        if len(out) > limits.MAX_PIECES:
            raise InvalidArgument(f"more than {limits.MAX_PIECES} pieces")
    if not out:
        raise InvalidArgument("no pieces given")
    return out


# -------------------------------------------------------------------- limits
def check_time_limit(time_limit: float | None) -> float | None:
    """A solve's time limit in seconds: None (the default), or 0 < t ≤ ``MAX_TIME_LIMIT``."""
    if time_limit is None:
        return None
    if isinstance(time_limit, bool):
        raise InvalidArgument(f"bad time limit {time_limit!r}")
    try:
        t = float(time_limit)
    except (TypeError, ValueError, OverflowError):
        raise InvalidArgument(f"bad time limit {_short(time_limit)}") from None
    if not 0 < t <= limits.MAX_TIME_LIMIT:
        raise InvalidArgument(f"bad time limit {_short(time_limit)}: it must be > 0 and at most "
                              f"{limits.MAX_TIME_LIMIT:g} s")
    return t


def check_top(top: int | None) -> int | None:
    """How many answers to return: None or 0 mean all, else at most ``MAX_TOP``."""
    if top is None:
        return None
    if isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= limits.MAX_TOP:
        raise InvalidArgument(f"bad top {_short(top)}: it must be an integer from 0 (all) to {limits.MAX_TOP}")
    return top or None


def check_iterations(iterations: int | None) -> int | None:
    """A fixed search budget for move suggestions: None, or 1..``MAX_ITERATIONS``."""
    if iterations is None:
        return None
    if (isinstance(iterations, bool) or not isinstance(iterations, int)
            or not 1 <= iterations <= limits.MAX_ITERATIONS):
        raise InvalidArgument(f"bad iterations {_short(iterations)}: it must be an integer from 1 to "
                              f"{limits.MAX_ITERATIONS}")
    return iterations


def check_max_tilings(max_tilings: int) -> int:
    """Tilings a puzzle find returns: 1..``MAX_TILINGS`` (0 means 1, as in the API)."""
    if (isinstance(max_tilings, bool) or not isinstance(max_tilings, int)
            or not 0 <= max_tilings <= limits.MAX_TILINGS):
        raise InvalidArgument(f"bad max_tilings {_short(max_tilings)}: it must be an integer from 1 to "
                              f"{limits.MAX_TILINGS}")
    return max_tilings or 1


def check_seed(seed: int) -> int:
    """A solver seed: an integer from 0 to 2**31 - 1."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InvalidArgument(f"bad seed {_short(seed)}: it must be an integer from 0 to {MAX_SEED}")
    return seed


def objective_of(objective: str | Objective) -> Objective:
    """``"cover"`` / ``"square7"`` (any case) or an :class:`Objective`."""
    if isinstance(objective, Objective):
        return objective
    try:
        return Objective(str(objective).lower())
    except ValueError:
        raise InvalidArgument(f"bad objective {_short(objective)}; expected 'cover' or 'square7'") from None


# ------------------------------------------------- the inputs of each call
def placement_inputs(board: Board | str | Sequence[str], patches: Iterable[PatchSpec] | PatchSpec,
                     objective: str | Objective,
                     time_limit: float | None) -> tuple[Board, list[PatchKey], Objective, float | None]:
    """The checked inputs of ``solve_placement``, shared by both clients."""
    mask = board_mask(board)
    keys = patch_keys(patches, max_side=BOARD_SIZE)
    if not keys:
        raise InvalidArgument("no patches given")
    patch_counts(keys, "patches")
    return mask, keys, objective_of(objective), check_time_limit(time_limit)


def lookahead_inputs(board: Board | str | Sequence[str], patch_id: PatchSpec,
                     upcoming: Iterable[PatchSpec] | PatchSpec, time_limit: float | None,
                     top: int | None) -> tuple[Board, PatchKey, list[PatchKey], float | None, int | None]:
    """The checked inputs of ``suggest_placement``, shared by both clients."""
    mask = board_mask(board)
    key = patch_key(patch_id, max_side=BOARD_SIZE)
    ups = patch_keys(upcoming, max_side=BOARD_SIZE)
    counts = patch_counts(ups, "upcoming")
    if sum(counts.values()) > limits.MAX_UPCOMING_COPIES:
        raise InvalidArgument(f"upcoming: {sum(counts.values())} patches; at most {limits.MAX_UPCOMING_COPIES}")
    return mask, key, ups, check_time_limit(time_limit), check_top(top)


def puzzle_inputs(region: str | Sequence[str], pieces: Iterable[PatchSpec | Shape] | PatchSpec | Shape,
                  max_tilings: int, time_limit: float | None) -> tuple[list[str], list[Shape], int, float | None]:
    """The checked inputs of ``solve_puzzle``, shared by both clients."""
    return region_rows(region), piece_shapes(pieces), check_max_tilings(max_tilings), check_time_limit(time_limit)


def game_state(state: Any, field: str = "state") -> GameState:
    """A position in any form (a ``GameState``, a dict of either JSON form, JSON text or notation),
    read by the service's own codec (:mod:`server.positions`); :class:`InvalidArgument` naming the field."""
    try:
        return positions.load(state, field)
    except positions.PositionError as e:
        raise InvalidArgument(str(e), field=e.field) from None


def move_inputs(state: Any, time_limit: float | None, top: int | None,
                iterations: int | None) -> tuple[GameState, float | None, int | None, int | None]:
    """The checked inputs of ``suggest_move``, shared by every client."""
    return game_state(state), check_time_limit(time_limit), check_top(top), check_iterations(iterations)


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
    clients.errors.InvalidArgument: position: circle: patch 0 is neither in the circle nor on a board
    """
    try:
        return positions.from_text(text, "position")
    except positions.PositionError as e:
        raise InvalidArgument(str(e), field=e.field) from None


def read_position(arg: str) -> Any:
    """The ``GameState`` of a STATE argument (see :func:`position_text`)."""
    return parse_position(position_text(arg))


# --------------------------------------------------------------- records
MAX_RECORD_ACTIONS = limits.MAX_RECORD_ACTIONS
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
            except ValueError as e:
                raise InvalidArgument(f"{_short(name)} line {number}: not JSON: {e}") from None
    s = "" if seen == 1 else "s"
    raise InvalidArgument(f"--line {line}: {_short(name)} has {seen} record{s}" if seen
                          else f"{_short(name)} holds no record (one JSON object a line)")


def record_inputs(record: Any) -> dict:
    """A game record (the engine's format, ``engine/record.py``: a dict or its
    JSON text) checked the way the service checks it: every action replays
    legally, at least one and at most :data:`MAX_RECORD_ACTIONS` of them; its
    ``result`` is not needed (an unfinished game is fine)."""
    if isinstance(record, bytes):
        record = decode_text(record, "record")
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except RecursionError:
            raise InvalidArgument("bad record: not JSON: nested too deeply") from None
        except ValueError as e:
            raise InvalidArgument(f"bad record: not JSON: {e}") from None
    if not isinstance(record, dict):
        raise InvalidArgument("bad record: a game record is a JSON object with circle and actions "
                              "(python -m engine match --records FILE writes them)")
    if "actions" not in record and "players" in record and "current_player" in record:
        raise InvalidArgument("bad record: this is a game state (GameState.to_json()), not a game record: a "
                              "review needs the whole game (python -m engine match --records FILE writes them)")
    actions = record.get("actions")
    if isinstance(actions, list) and len(actions) > MAX_RECORD_ACTIONS:
        raise InvalidArgument(f"bad record: actions: {len(actions)} moves; at most {MAX_RECORD_ACTIONS}")
    try:
        engine.replay(record, check_result=False)
    except (ValueError, TypeError, KeyError, AttributeError, ArithmeticError, RecursionError) as e:
        raise InvalidArgument(f"bad record: {e or type(e).__name__}") from None
    if not record["actions"]:
        raise InvalidArgument("bad record: actions: no moves to review")
    return record


def check_large_loss(large_loss: float) -> float:
    """The loss (in win chance) that makes a large mistake: 0 < x <= 1."""
    if isinstance(large_loss, bool) or not isinstance(large_loss, (int, float)) or not 0 < large_loss <= 1:
        raise InvalidArgument(f"bad large_loss {_short(large_loss)}: it must be a win chance > 0 and at most 1")
    return float(large_loss)


def review_inputs(record: Any, iterations: int | None, time_per_move: float | None, seed: int,
                  large_loss: float) -> tuple[dict, int | None, float | None, int, float]:
    """The checked inputs of ``analyze_game``, shared by every client."""
    return (record_inputs(record), check_iterations(iterations), check_time_limit(time_per_move),
            check_seed(seed), check_large_loss(large_loss))


__all__ = [
    "BOARD_SIZE", "MAX_INPUT_BYTES", "UnknownPatchError", "board_mask", "check_iterations",
    "check_max_tilings", "check_seed", "check_time_limit", "check_top", "decode_text", "is_inline_grid",
    "key_shape", "lookahead_inputs", "move_inputs", "objective_of", "patch_counts", "patch_key", "patch_keys",
    "piece_shapes", "placement_inputs", "puzzle_inputs", "read_board", "read_bytes", "read_text",
    "region_rows", "game_state", "position_text", "parse_position", "read_position",
    "read_record", "record_inputs", "review_inputs", "check_large_loss", "MAX_RECORD_ACTIONS",
    "DEFAULT_TIME_PER_MOVE", "DEFAULT_LARGE_LOSS",
]
