"""The argument types of ``suggest``'s options and the help texts several commands share.

Each type only parses (a number, a whole number, ``HxW``): what range a value
sent in a request may take is the service's check, so every client gets the
same refusal. ``int_range`` is for the options that never reach a request
(``--line``, ``play --seed``).

>>> whole("3"), size("6X6"), int_range(1, 9)("9")
(3, (6, 6), 9)
>>> positive_float("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be > 0, not 0
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, Sequence

from ..inputs import MAX_INPUT_BYTES

AddCommand = Callable[[str, str, Sequence[str]], argparse.ArgumentParser]
"""How a command module adds its sub-parser: ``add(name, help, examples)`` (``parser.build_parser``)."""

BOARD_HELP = "9 rows of '.' (empty) and '#' (filled): a file, - for stdin, or inline with '/' between rows"
PATCH_HELP = "a standard patch id (0-32) or a shape such as '##./.##'; repeat, or separate with commas"

INPUT_HELP = f"""\
input:
  BOARD    9 rows of 9 cells: '.' empty, '#' filled; a file, - for stdin, or
           the rows inline separated by '/' (see "inline grids")
  REGION   a rectangle up to 20x20: '.' a cell to tile, '#' not part of it;
           a file, - for stdin, or inline
  STATE    a game position: the engine's state JSON (suggest state >
           state.json) or one line of its notation (r 0,5,-,0 0,5,-,0 ... 0 -);
           a file, - for stdin, or inline (JSON starts with '{{', notation with
           its edition letter)
  RECORD   game records, one JSON object a line (python -m quiltsolve.engine match
           --records FILE); a file or -
  P, SHAPE a standard patch id 0-32 (-1 = the 1x1 leather patch; suggest
           patches draws them) or a shape: rows of '#' (cloth) and '.' (hole)
           joined by '/', e.g. '##./.##'; 4-connected, at most 9x9 on a board

inline grids:
  an argument made only of '.', '#' and '/' is the grid itself, rows separated
  by '/' (one row needs none: '....'), unless a file of that name exists, which
  is then read. Files are read up to {MAX_INPUT_BYTES >> 20} MiB of UTF-8 text (a byte-order mark
  is ignored); blank lines and lines starting with ';' are skipped.

exit codes:
  0 an answer was found     1 no answer (no placement, infeasible, game over)
  2 bad input               3 service unavailable, deadline exceeded or refused
  4 internal error (a bug)
  With --json, errors are one JSON line on stderr: {{"error": "...", "code": 2}}.
"""


def positive_float(text: str) -> float:
    """``--deadline``: a number of seconds above 0 (the client's own setting, never sent)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, not {text[:40]}")
    return v


def number(text: str) -> float:
    """A number option (``--time-limit``, ``--large-loss``): only parsed here; its range is the service's check."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}") from None


def whole(text: str) -> int:
    """A whole-number option sent in a request (``--top``, ``--iterations``): only parsed here."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}") from None


def size(text: str) -> tuple[int, int]:
    """``--size HxW``: only parsed here; the range is the service's check."""
    h, sep, w = text.lower().partition("x")
    try:
        if sep:
            return int(h), int(w)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"not HxW (e.g. 9x9): {text[:40]!r}")


def int_range(low: int, high: int) -> Callable[[str], int]:
    """A whole number in ``[low, high]`` for an option the client alone uses."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}") from None
        if not low <= v <= high:
            raise argparse.ArgumentTypeError(f"must be {low}-{high}, not {text[:40]}")
        return v

    return parse


def patch_ids(prefix: str, **_: Any) -> list[str]:
    """Shell completion of a patch argument: the standard ids."""
    return [str(i) for i in range(-1, 33) if str(i).startswith(prefix)]


def complete_patches(action: argparse.Action) -> argparse.Action:
    """Complete ``action``'s values with the standard patch ids (argcomplete)."""
    action.completer = patch_ids  # type: ignore[attr-defined]
    return action
