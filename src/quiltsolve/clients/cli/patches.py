"""``suggest patches``: the 33 standard patches and their costs."""

from __future__ import annotations

import argparse
from typing import Any

from ..i18n import _, ngettext
from ..render import grid_text, patch_sheet
from .options import AddCommand
from .output import EXIT_OK, Out


def add_to(add: AddCommand) -> None:
    p = add("patches", "draw the 33 standard patches with their costs",
            ["suggest patches", "suggest patches --json", "suggest patches --svg patches.svg"])
    p.set_defaults(func=run)


def run(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest patches``: the 33 standard patches and their costs."""
    from rich.columns import Columns
    from rich.text import Text

    patches = client.list_patches()
    out.svg(lambda: patch_sheet(patches))
    if args.json:
        out.json({"patches": [{"id": p.id, "shape": p.shape.to_str(), "rows": p.shape.rows(), "buttons": p.buttons,
                               "time": p.time, "income": p.income, "area": p.area} for p in patches]})
        return EXIT_OK
    cards = []
    for p in patches:
        t = Text(_("patch {id}").format(id=p.id) + "\n"
                 + ngettext("{n} button, {time} time", "{n} buttons, {time} time", p.buttons).format(
                     n=p.buttons, time=p.time) + "\n"
                 + ngettext("income {income}, {n} cell", "income {income}, {n} cells", p.area).format(
                     income=p.income, n=p.area) + "\n")
        mask = sum(1 << (r * p.shape.width + c) for r, c in p.shape.cells)
        t.append_text(grid_text(p.shape.height, p.shape.width, pieces=[(mask, p.id)],
                                outside=((1 << (p.shape.width * p.shape.height)) - 1) & ~mask))
        t.append("\n")
        cards.append(t)
    out.console.print(Columns(cards, padding=(0, 3)))
    return EXIT_OK
