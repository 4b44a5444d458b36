"""Validate protobuf requests into solver values, and answers back into protobuf.

Every check names the offending field the way a client spells it
(``board.rows[3]``, ``patches[2].id``), so an INVALID_ARGUMENT answer says
exactly what to fix. Nothing here imports OR-Tools.

>>> from quiltsolve.patchwork.v1 import placement_pb2 as pb
>>> board_mask(pb.Board(rows=["#" + "." * 8] + ["." * 9] * 8))
1
>>> board_mask(pb.Board(rows=["." * 9] * 8))
Traceback (most recent call last):
...
quiltsolve.server.errors.BadRequest: board.rows: 8 rows; expected 9
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.protobuf import duration_pb2

from quiltsolve import solver
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.solver import BOARD_SIZE, Shape, ShapeError, cells_of
# One definition of the request limits for the service and both clients.
from quiltsolve.solver.limits import (MAX_COUNT, MAX_ITERATIONS, MAX_PATCH_REFS, MAX_PIECES,  # noqa: F401
                           MAX_SHAPE_TEXT, MAX_TILINGS, MAX_TIME_LIMIT, MAX_TOP)
from quiltsolve.solver.limits import DEFAULT_REPORT_INTERVAL, MAX_REPORT_INTERVAL, MIN_REPORT_INTERVAL

from .errors import BadRequest

MAX_GRID = solver.geometry.MAX_GRID  # puzzle grids up to 20×20

SOLVE_STATUS = {
    "OPTIMAL": pb.SOLVE_STATUS_OPTIMAL,
    "FEASIBLE": pb.SOLVE_STATUS_FEASIBLE,
    "INFEASIBLE": pb.SOLVE_STATUS_INFEASIBLE,
    "UNKNOWN": pb.SOLVE_STATUS_UNKNOWN,
}


# ---------------------------------------------------------------- requests

_MASK_BITS = str.maketrans(".#", "01")


def board_mask(board: pb.Board, field: str = "board") -> int:
    """The 81-bit mask of a 9×9 board given as 9 rows of ``.``/``#``."""
    rows = board.rows
    if len(rows) != BOARD_SIZE:
        raise BadRequest(f"{field}.rows", f"{len(rows)} rows; expected {BOARD_SIZE}")
    for r, row in enumerate(rows):
        if len(row) != BOARD_SIZE:
            raise BadRequest(f"{field}.rows[{r}]", f"row has {len(row)} cells; expected {BOARD_SIZE}")
        if row.strip(".#"):  # a character other than '.' and '#' (strip leaves it, or what lies around it)
            c = next(i for i, ch in enumerate(row) if ch not in ".#")
            raise BadRequest(f"{field}.rows[{r}]", f"column {c} has {row[c]!r}; use '.' (empty) and '#' (filled)")
    # bit r*9 + c is row r, column c: the rows joined, read right to left, as a binary number
    return int("".join(rows)[::-1].translate(_MASK_BITS), 2)


def board_rows(mask: int) -> list[str]:
    return solver.board_to_rows(mask)


def region_rows(region: pb.Region, field: str = "region") -> list[str]:
    """Validated puzzle region rows: 1-20 rows of equal length 1-20, ``.``/``#``."""
    rows = list(region.rows)
    if not rows:
        raise BadRequest(f"{field}.rows", "required: 1-20 rows of '.' (cell to tile) and '#'")
    if len(rows) > MAX_GRID:
        raise BadRequest(f"{field}.rows", f"{len(rows)} rows; at most {MAX_GRID}")
    width = len(rows[0])
    cells = 0
    for r, row in enumerate(rows):
        if not 1 <= len(row) <= MAX_GRID:
            raise BadRequest(f"{field}.rows[{r}]", f"row has {len(row)} cells; expected 1-{MAX_GRID}")
        if len(row) != width:
            raise BadRequest(f"{field}.rows[{r}]", f"row has {len(row)} cells; row 0 has {width}")
        for c, ch in enumerate(row):
            if ch == ".":
                cells += 1
            elif ch != "#":
                raise BadRequest(f"{field}.rows[{r}]",
                                 f"column {c} has {ch!r}; use '.' (cell to tile) and '#' (not part)")
    if cells == 0:
        raise BadRequest(f"{field}.rows", "the region has no cell to tile ('.')")
    return rows


def parse_shape(text: str, field: str, max_side: int) -> Shape:
    if not text:
        raise BadRequest(field, "shape is empty")
    if len(text) > MAX_SHAPE_TEXT:
        raise BadRequest(field, f"shape text has {len(text)} characters; at most {MAX_SHAPE_TEXT}")
    try:
        shape = Shape.parse(text)
    except ShapeError as e:
        raise BadRequest(field, str(e)) from None
    if max(shape.height, shape.width) > max_side:
        raise BadRequest(field, f"shape is {shape.height}x{shape.width}; "
                                f"it cannot fit a {max_side}x{max_side} grid in any orientation")
    return shape


@dataclass(frozen=True)
class PatchSpec:
    """A validated :class:`pb.PatchRef`: solver key, shape, copies, required."""

    key: int | str
    shape: Shape
    count: int
    required: bool


def patch_spec(ref: pb.PatchRef, field: str) -> PatchSpec:
    kind = ref.WhichOneof("kind")
    key: int | str
    if kind is None:
        raise BadRequest(field, "set either id (a standard patch) or shape")
    if kind == "id":
        pid = ref.id
        if pid == solver.LEATHER_PATCH_ID:
            key, shape = pid, solver.LEATHER_SHAPE
        elif 0 <= pid < len(solver.PATCHES):
            key, shape = pid, solver.PATCHES[pid].shape
        else:
            raise BadRequest(f"{field}.id", f"unknown patch id {pid}; standard ids are "
                                            f"0-{len(solver.PATCHES) - 1} (-1 = leather)")
    else:
        shape = parse_shape(ref.shape, f"{field}.shape", BOARD_SIZE)
        key = shape.to_str()
    if ref.count < 0 or ref.count > MAX_COUNT:
        raise BadRequest(f"{field}.count", f"count {ref.count} out of range 0-{MAX_COUNT} (0 means 1)")
    return PatchSpec(key, shape, ref.count or 1, ref.required)


def patch_specs(refs: Any, field: str, *, allow_empty: bool) -> list[PatchSpec]:
    if not refs and not allow_empty:
        raise BadRequest(field, "at least one patch is required")
    if len(refs) > MAX_PATCH_REFS:
        raise BadRequest(field, f"{len(refs)} entries; at most {MAX_PATCH_REFS}")
    specs: list[PatchSpec] = []
    seen: dict[int | str, int] = {}
    by_shape: dict[Shape, list[int]] = {}
    for i, ref in enumerate(refs):
        spec = patch_spec(ref, f"{field}[{i}]")
        if spec.key in seen:
            raise BadRequest(f"{field}[{i}]", f"same patch as {field}[{seen[spec.key]}]; use count")
        canon = spec.shape.canonical()
        for j in by_shape.get(canon, ()):
            # The same patch written two ways (an id and its shape, or one shape in two
            # orientations); distinct standard ids stay distinct patches even when alike.
            if isinstance(spec.key, str) or isinstance(specs[j].key, str):
                raise BadRequest(f"{field}[{i}]", f"same patch as {field}[{j}] (the same shape); use count")
        seen[spec.key] = i
        by_shape.setdefault(canon, []).append(i)
        specs.append(spec)
    return specs


# The enum values a request may carry (every other value is INVALID_ARGUMENT).
OBJECTIVES: dict[int, solver.Objective] = {pb.OBJECTIVE_COVER: solver.Objective.COVER, pb.OBJECTIVE_SQUARE7: solver.Objective.SQUARE7}
PUZZLE_MODES: dict[int, bool] = {pb.PUZZLE_MODE_FIND: False, pb.PUZZLE_MODE_COUNT: True}  # → count the tilings?
# The counting methods a SolvePuzzle request may ask (UNSPECIFIED: auto) and their solver.puzzle names.
PUZZLE_METHODS: dict[int, str] = {pb.PUZZLE_METHOD_UNSPECIFIED: "auto", pb.PUZZLE_METHOD_AUTO: "auto",
                                  pb.PUZZLE_METHOD_SEARCH: "search", pb.PUZZLE_METHOD_FRONTIER: "frontier"}


def objective(value: int, field: str = "objective") -> "solver.Objective":
    if value in OBJECTIVES:
        return OBJECTIVES[value]
    if value == pb.OBJECTIVE_UNSPECIFIED:
        raise BadRequest(field, "required: OBJECTIVE_COVER or OBJECTIVE_SQUARE7")
    raise BadRequest(field, f"unknown value {value}; expected OBJECTIVE_COVER or OBJECTIVE_SQUARE7")


def puzzle_count_mode(value: int, field: str = "mode") -> bool:
    if value in PUZZLE_MODES:
        return PUZZLE_MODES[value]
    if value == pb.PUZZLE_MODE_UNSPECIFIED:
        raise BadRequest(field, "required: PUZZLE_MODE_FIND or PUZZLE_MODE_COUNT")
    raise BadRequest(field, f"unknown value {value}; expected PUZZLE_MODE_FIND or PUZZLE_MODE_COUNT")


def puzzle_method(value: int, field: str = "method") -> str:
    """The solver's name of a counting method (``auto``, ``search``, ``frontier``).

    >>> puzzle_method(pb.PUZZLE_METHOD_FRONTIER), puzzle_method(0)
    ('frontier', 'auto')
    """
    if value in PUZZLE_METHODS:
        return PUZZLE_METHODS[value]
    raise BadRequest(field, f"unknown value {value}")


def method_value(name: str | None) -> Any:
    """The method that answered as the enum value (UNSPECIFIED when none ran).

    >>> method_value("search") == pb.PUZZLE_METHOD_SEARCH, method_value(None) == pb.PUZZLE_METHOD_UNSPECIFIED
    (True, True)
    """
    return {"search": pb.PUZZLE_METHOD_SEARCH, "frontier": pb.PUZZLE_METHOD_FRONTIER}.get(
        name or "", pb.PUZZLE_METHOD_UNSPECIFIED)


def time_limit(msg: Any, field: str, default: float, maximum: float = MAX_TIME_LIMIT) -> float:
    """Seconds of an optional Duration field: unset → default, else 0 < t ≤ ``maximum`` (60 s but for a
    position's exact solve)."""
    if not msg.HasField(field):
        return default
    d: duration_pb2.Duration = getattr(msg, field)
    if not -999_999_999 <= d.nanos <= 999_999_999 or (d.seconds > 0 > d.nanos) or (d.seconds < 0 < d.nanos):
        raise BadRequest(field, "malformed Duration (nanos out of range or of the wrong sign)")
    seconds = d.seconds + d.nanos / 1e9
    if seconds <= 0:
        raise BadRequest(field, f"must be positive, got {seconds:g} s")
    if seconds > maximum:
        raise BadRequest(field, f"{seconds:g} s is more than the maximum {maximum:g} s")
    return seconds


def report_interval(msg: Any, field: str, default: float) -> float:
    """Seconds between two updates of a streamed analysis: unset → default, else 0.05 ≤ t ≤ 60."""
    if not msg.HasField(field):
        return default
    d: duration_pb2.Duration = getattr(msg, field)
    if not -999_999_999 <= d.nanos <= 999_999_999 or (d.seconds > 0 > d.nanos) or (d.seconds < 0 < d.nanos):
        raise BadRequest(field, "malformed Duration (nanos out of range or of the wrong sign)")
    seconds = d.seconds + d.nanos / 1e9
    if not MIN_REPORT_INTERVAL <= seconds <= MAX_REPORT_INTERVAL:
        raise BadRequest(field, f"{seconds:g} s; must be at least {MIN_REPORT_INTERVAL * 1000:g} ms and at most "
                                f"{MAX_REPORT_INTERVAL:g} s (unset means {DEFAULT_REPORT_INTERVAL:g} s)")
    return seconds


def seed(value: int, field: str = "seed") -> int:
    if value < 0:
        raise BadRequest(field, f"must be >= 0, got {value}")
    return value


def iterations(value: int, field: str = "iterations") -> int | None:
    """A fixed search budget; 0 means "use the time limit"."""
    if value < 0 or value > MAX_ITERATIONS:
        raise BadRequest(field, f"{value}; must be 0 (use the time limit) or 1-{MAX_ITERATIONS}")
    return value or None


def top(value: int, field: str = "top") -> int | None:
    """0 → None (all); otherwise 1..MAX_TOP."""
    if value < 0 or value > MAX_TOP:
        raise BadRequest(field, f"{value} out of range 0-{MAX_TOP} (0 means all)")
    return value or None


def pieces(texts: Any, field: str = "pieces") -> list[Shape]:
    if not texts:
        raise BadRequest(field, "at least one piece is required")
    if len(texts) > MAX_PIECES:
        raise BadRequest(field, f"{len(texts)} pieces; at most {MAX_PIECES}")
    return [parse_shape(t, f"{field}[{i}]", MAX_GRID) for i, t in enumerate(texts)]


def puzzle_pieces(texts: Any, unlimited: Any, mirror: bool) -> tuple[list[Shape], list[Shape]]:
    """The limited pieces (``pieces``: one use per entry) and the unlimited shapes (``unlimited_pieces``:
    any number of copies) of a SolvePuzzle request.

    At least one of either; at most :data:`MAX_PIECES` entries together (an unlimited shape counts
    once). No two unlimited shapes may be the same piece (in some orientation the request allows),
    and no limited piece may be an unlimited shape: either would count each tiling several times
    over, once per name its pieces could go by.

    >>> [s.to_str() for s in puzzle_pieces(["###"], ["##"], True)[1]]
    ['##']
    >>> puzzle_pieces([], ["#.../####", "...#/####"], True)
    Traceback (most recent call last):
    ...
    quiltsolve.server.errors.BadRequest: unlimited_pieces[1]: same piece as unlimited_pieces[0]; list a shape once
    >>> len(puzzle_pieces([], ["#.../####", "...#/####"], False)[1])  # mirror images: two pieces without flips
    2
    """
    if not texts and not unlimited:
        raise BadRequest("pieces", "at least one piece is required (in pieces or unlimited_pieces)")
    if len(texts) > MAX_PIECES:
        raise BadRequest("pieces", f"{len(texts)} pieces; at most {MAX_PIECES}")
    if len(texts) + len(unlimited) > MAX_PIECES:
        raise BadRequest("unlimited_pieces", f"{len(texts)} pieces and {len(unlimited)} unlimited shapes; "
                                             f"at most {MAX_PIECES} together")
    limited = [parse_shape(t, f"pieces[{i}]", MAX_GRID) for i, t in enumerate(texts)]
    endless = [parse_shape(t, f"unlimited_pieces[{i}]", MAX_GRID) for i, t in enumerate(unlimited)]
    seen: dict[Shape, int] = {}
    for i, shape in enumerate(endless):
        canon = shape.canonical(mirror)
        if canon in seen:
            raise BadRequest(f"unlimited_pieces[{i}]", f"same piece as unlimited_pieces[{seen[canon]}]; "
                                                       "list a shape once")
        seen[canon] = i
    for i, shape in enumerate(limited):
        j = seen.get(shape.canonical(mirror))
        if j is not None:
            raise BadRequest(f"pieces[{i}]", f"same piece as unlimited_pieces[{j}], whose supply is unlimited "
                                             "already; drop one of them")
    return limited, endless


# ---------------------------------------------------------------- answers

def duration(seconds: float) -> duration_pb2.Duration:
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(max(0.0, seconds) * 1e9))
    return d


def cell(rc: Any) -> pb.Cell:
    return pb.Cell(row=rc[0], col=rc[1])


def placed_patch(p: Any, index_of: dict, width: int = BOARD_SIZE) -> pb.PlacedPatch:
    """A solver ``PlacedPatch`` as protobuf; ``index_of`` maps key → request index."""
    out = pb.PlacedPatch(patch_index=index_of.get(p.key, 0), orientation=p.orientation,
                         cells=[cell(rc) for rc in sorted(cells_of(p.mask, width))])
    if isinstance(p.key, int):
        out.id = p.key
    else:
        out.shape = str(p.key)
    return out


def solve_status(status: Any) -> Any:
    name = getattr(status, "value", status)
    return SOLVE_STATUS.get(str(name), pb.SOLVE_STATUS_UNSPECIFIED)


def patch_message(p: Any) -> pb.Patch:
    return pb.Patch(id=p.id, shape=p.shape.to_str(), rows=p.shape.rows(), buttons=p.buttons,
                    time=p.time, income=p.income, area=p.shape.area)


# ------------------------------------------------------- GeneratePuzzle

# The enum values of GeneratePuzzle and their solver.puzzle.generate names (UNSPECIFIED: the default / any).
PIECE_FAMILIES: dict[int, str] = {pb.PIECE_FAMILY_PENTOMINOES: "pentominoes", pb.PIECE_FAMILY_TETROMINOES: "tetrominoes",
                                  pb.PIECE_FAMILY_PATCHES: "patches"}
PUZZLE_DIFFICULTIES: dict[int, str] = {pb.PUZZLE_DIFFICULTY_EASY: "easy", pb.PUZZLE_DIFFICULTY_MEDIUM: "medium",
                                       pb.PUZZLE_DIFFICULTY_HARD: "hard"}


def _optional_enum(value: int, names: dict[int, str], field: str) -> str | None:
    """An enum value's name in ``names``; None when unset (0, the UNSPECIFIED value)."""
    if value in names:
        return names[value]
    if value == 0:
        return None
    raise BadRequest(field, f"unknown value {value}")


def piece_family(value: int, field: str = "family") -> str | None:
    """A family name; None when unset."""
    return _optional_enum(value, PIECE_FAMILIES, field)


def puzzle_difficulty(value: int, field: str = "difficulty") -> str | None:
    """A difficulty band's name; None (any) when unset."""
    return _optional_enum(value, PUZZLE_DIFFICULTIES, field)


def difficulty_value(name: str) -> Any:
    """A band's name as the enum value (UNSPECIFIED for none)."""
    return {v: k for k, v in PUZZLE_DIFFICULTIES.items()}.get(name, pb.PUZZLE_DIFFICULTY_UNSPECIFIED)
