"""What every ``suggest`` command shares to write its answer: the exit codes, :class:`Out` (stdout as
rich text or one JSON line, and the ``--svg`` file), and the words and JSON pieces that several
commands print the same way (a solve status, a patch's label, a 7×7 window, cells). The words are in the
language of the environment (``clients/i18n.py``); JSON stays English.

>>> status_line(type("S", (), {"value": "FEASIBLE"})())
'FEASIBLE (not proven optimal)'
>>> cells(0b11, 9), window_json((1, 2)), short_name("x" * 50)[-5:]
([[0, 0], [0, 1]], {'row': 1, 'col': 2}, 'xx...')
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Callable, TextIO

from quiltsolve.solver.geometry import cells_of
from quiltsolve.solver.patches import LEATHER_PATCH_ID, PATCHES

from .. import errors
from ..i18n import _
from ..render import LegendEntry, colour, console, letter

EXIT_OK, EXIT_NONE, EXIT_BAD_INPUT, EXIT_SERVICE, EXIT_INTERNAL = 0, 1, 2, 3, 4


class Out:
    """Where a command writes: stdout (rich or JSON) and the SVG file."""

    def __init__(self, args: argparse.Namespace, stream: TextIO) -> None:
        self.args = args
        self.stream = stream
        self.console = console(stream)

    def json(self, obj: Any) -> None:
        """Write one JSON object (one line)."""
        self.stream.write(json.dumps(obj) + "\n")

    def svg(self, text_fn: Callable[[], str]) -> None:
        """With ``--svg FILE``: write the picture ``text_fn()`` draws."""
        if self.args.svg:
            write_file(self.args.svg, text_fn())

    def legend(self, labels: list[str]) -> None:
        """One line per drawn piece: its letter, in its colour, and its label."""
        from rich.text import Text

        for i, label in enumerate(labels):
            t = Text()
            t.append(letter(i), style=f"bold black on {colour(i)}")
            t.append(f" = {label}")
            self.console.print(t)


def write_file(path: str, text: str) -> None:
    """Write an output file (``--svg``, ``--save``); InvalidArgument naming it when that fails."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise errors.InvalidArgument(f"cannot write {path}: {e.strerror or e}") from None


def cells(mask: int, width: int = 9) -> list[list[int]]:
    """The ``[row, col]`` pairs of a mask, as the JSON answers list them."""
    return [[r, c] for r, c in cells_of(mask, width)]


def status_line(status: Any) -> str:
    """A solve status with what it means."""
    return {
        "OPTIMAL": _("OPTIMAL (proven optimal)"),
        "FEASIBLE": _("FEASIBLE (not proven optimal)"),
        "INFEASIBLE": _("INFEASIBLE (proven impossible)"),
        "UNKNOWN": _("UNKNOWN (time ran out before any answer)"),
    }[status.value]


def key_label(key: Any) -> str:
    """A patch key in a text legend: ``patch 5 ##/##``, ``leather #`` or ``shape ##.``."""
    if isinstance(key, int):
        if key == LEATHER_PATCH_ID:
            return _("leather #")
        return _("patch {id} {shape}").format(id=key, shape=PATCHES[key].shape.to_str())
    return _("shape {shape}").format(shape=key)


def legend_entry(key: Any) -> LegendEntry:
    """The SVG legend entry of a patch key: id, shape and, for standard
    patches, cost (buttons), time and income."""
    if isinstance(key, int):
        if key == LEATHER_PATCH_ID:
            return LegendEntry("leather patch", "#")
        p = PATCHES[key]
        return LegendEntry(f"patch {key}", p.shape.to_str(), p.buttons, p.time, p.income)
    return LegendEntry("custom shape", str(key))


def window_line(window: tuple[int, int] | None) -> str:
    """The 7×7 bonus window a placement completes, in words."""
    if window is None:
        return _("7×7 window: none completed")
    r, c = window
    return _("7×7 window: completed at rows {first}-{last}, cols {left}-{right} (underlined)").format(
        first=r, last=r + 6, left=c, right=c + 6)


def window_json(window: tuple[int, int] | None) -> dict[str, int] | None:
    """The 7×7 bonus window in the JSON answers."""
    return None if window is None else {"row": window[0], "col": window[1]}


def short_name(text: Any) -> str:
    """A name from a file or a record, printable and cut short."""
    t = "".join(ch if ch.isprintable() else "?" for ch in str(text))
    return t if len(t) <= 40 else t[:37] + "..."
