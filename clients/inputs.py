"""Turning user input (CLI arguments, files, plain Python values) into the
solver's plain values: board masks, patch keys (standard id or shape text)
and puzzle regions.

>>> patch_key("12"), patch_key("##./.##"), patch_key(" 3 ")
(12, '##./.##', 3)
>>> patch_keys(["1,2", "#/#"])
[1, 2, '#/#']
>>> board_mask(["#........"] + ["........."] * 8)
1
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterable, Sequence

from solver.geometry import (
    BOARD_SIZE, FULL_BOARD, MAX_GRID, Board, BoardError, Shape, ShapeError,
    board_from_rows,
)
from solver.patches import LEATHER_PATCH_ID, PATCHES, UnknownPatchError
from solver.types import Objective

from .errors import InvalidArgument

PatchSpec = int | str


def patch_key(spec: PatchSpec) -> int | str:
    """A standard patch id (int) or a canonical shape string.

    Digits mean a standard id (``-1`` is the 1×1 leather patch); anything
    else must be a shape such as ``"##./.##"``.
    """
    if isinstance(spec, bool):
        raise InvalidArgument(f"bad patch {spec!r}")
    if isinstance(spec, int):
        if spec != LEATHER_PATCH_ID and not 0 <= spec < len(PATCHES):
            raise InvalidArgument(f"unknown patch id {spec}; standard ids are 0-{len(PATCHES) - 1}")
        return spec
    if not isinstance(spec, str):
        raise InvalidArgument(f"bad patch {spec!r}: give a standard id or a shape string")
    text = spec.strip()
    if text.lstrip("-").isdigit():
        return patch_key(int(text))
    try:
        return Shape.parse(text).to_str()
    except ShapeError as e:
        raise InvalidArgument(f"bad patch shape {spec!r}: {e}") from None


def patch_keys(specs: Iterable[PatchSpec]) -> list[int | str]:
    """Like :func:`patch_key` for many; a string may hold several ids/shapes
    separated by commas (shapes never contain commas)."""
    out: list[int | str] = []
    for spec in specs:
        if isinstance(spec, str) and "," in spec:
            out.extend(patch_key(p) for p in spec.split(",") if p.strip())
        else:
            out.append(patch_key(spec))
    return out


def board_mask(board: Board | str | Sequence[str]) -> Board:
    """A 9×9 board mask from a mask or rows of ``.``/``#``."""
    if isinstance(board, bool):
        raise InvalidArgument("bad board: expected a mask or 9 rows")
    if isinstance(board, int):
        if not 0 <= board <= FULL_BOARD:
            raise InvalidArgument("board mask must be a non-negative int below 2**81")
        return board
    try:
        return board_from_rows(board)
    except (BoardError, TypeError) as e:
        raise InvalidArgument(f"bad board: {e}") from None


def _is_inline_grid(arg: str) -> bool:
    return "/" in arg and set(arg) <= {".", "#", "/"} and not Path(arg).exists()


def read_text(path: str) -> str:
    """The text of a file, of stdin for ``-``, or a grid given inline.

    An argument made only of ``.``, ``#`` and ``/`` (rows separated by ``/``)
    is the grid itself, so short boards and regions need no file.

    >>> read_text("##./.##").splitlines()
    ['##.', '.##']
    """
    if path == "-":
        return sys.stdin.read()
    if _is_inline_grid(path):
        return "\n".join(path.split("/"))
    try:
        return Path(path).read_text()
    except OSError as e:
        raise InvalidArgument(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise InvalidArgument(f"cannot read {path}: not a text file") from None


def _rows(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith(";")]


def read_board(path: str) -> Board:
    """Read 9 lines of ``.`` (empty) / ``#`` (filled) from a file or ``-``."""
    return board_mask(_rows(read_text(path)))


def region_rows(rows: str | Sequence[str]) -> list[str]:
    """Validate a puzzle region: a rectangle up to 20×20 of ``.`` (cell to tile)
    and ``#`` (not part of the region)."""
    if isinstance(rows, str):
        rows = _rows(rows)
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


def piece_shapes(pieces: Iterable[PatchSpec | Shape]) -> list[Shape]:
    """Puzzle pieces as shapes: shape strings, or standard patch ids."""
    out = []
    for p in pieces:
        if isinstance(p, Shape):
            out.append(p)
            continue
        key = patch_key(p)
        if isinstance(key, int):
            if key == LEATHER_PATCH_ID:
                out.append(Shape(((0, 0),)))
            else:
                out.append(PATCHES[key].shape)
        else:
            out.append(Shape.parse(key))
    if not out:
        raise InvalidArgument("no pieces given")
    return out


def check_time_limit(time_limit: float | None) -> float | None:
    if time_limit is None:
        return None
    try:
        t = float(time_limit)
    except (TypeError, ValueError):
        raise InvalidArgument(f"bad time limit {time_limit!r}") from None
    if not t > 0 or t > 3600:
        raise InvalidArgument(f"bad time limit {time_limit!r}: it must be > 0 and at most 3600 s")
    return t


def objective_of(objective) -> "Objective":
    """``"cover"`` / ``"square7"`` (any case) or an :class:`Objective`."""
    if isinstance(objective, Objective):
        return objective
    try:
        return Objective(str(objective).lower())
    except ValueError:
        raise InvalidArgument(f"bad objective {objective!r}; expected 'cover' or 'square7'") from None


def placement_inputs(board, patches, objective, time_limit) -> tuple[Board, list[int | str], "Objective", float | None]:
    """The checked inputs of ``solve_placement``, shared by both clients."""
    mask = board_mask(board)
    keys = patch_keys(patches)
    if not keys:
        raise InvalidArgument("no patches given")
    return mask, keys, objective_of(objective), check_time_limit(time_limit)


def check_top(top: int | None) -> int | None:
    """How many answers to return: None or 0 mean all."""
    if top is not None and top < 0:
        raise InvalidArgument(f"bad top {top}: it must be >= 0")
    return top or None


def lookahead_inputs(board, patch_id, upcoming, time_limit, top) -> tuple[Board, int | str, list[int | str],
                                                                          float | None, int | None]:
    """The checked inputs of ``suggest_placement``, shared by both clients."""
    return (board_mask(board), patch_key(patch_id), patch_keys(upcoming), check_time_limit(time_limit),
            check_top(top))


MAX_ITERATIONS = 200_000


def check_iterations(iterations: int | None) -> int | None:
    """A fixed search budget for move suggestions: None, or 1..200000."""
    if iterations is None:
        return None
    if isinstance(iterations, bool) or not isinstance(iterations, int) or not 1 <= iterations <= MAX_ITERATIONS:
        raise InvalidArgument(f"bad iterations {iterations!r}: it must be an integer from 1 to {MAX_ITERATIONS}")
    return iterations


__all__ = [
    "BOARD_SIZE", "UnknownPatchError", "board_mask", "check_iterations", "check_time_limit",
    "check_top", "lookahead_inputs", "objective_of", "placement_inputs", "patch_key",
    "patch_keys", "piece_shapes", "read_board", "read_text", "region_rows",
]
