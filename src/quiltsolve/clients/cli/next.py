"""``suggest next``: rank the placements of the patch to place now, looking ahead to upcoming patches."""

from __future__ import annotations

import argparse
from typing import Any

from quiltsolve.solver.geometry import board_from_rows

from .. import errors
from ..i18n import _
from ..inputs import patch_key, patch_keys, read_board
from ..render import grid_text, svg
from .options import BOARD_HELP, PATCH_HELP, AddCommand, complete_patches, whole
from .output import EXIT_NONE, EXIT_OK, Out, cells, key_label, legend_entry, status_line, window_json, window_line


def add_to(add: AddCommand) -> None:
    p = add("next", "rank the placements of the patch to place now, looking ahead to upcoming patches",
            ["suggest next board.txt --patch 5 --upcoming 7,9,13 --top 3"])
    p.add_argument("board", metavar="BOARD", help=BOARD_HELP)
    complete_patches(p.add_argument("--patch", "-p", required=True, metavar="P",
                                    help="the patch to place now (id or shape)"))
    complete_patches(p.add_argument("--upcoming", "-u", action="append", default=[], metavar="P",
                                    help=PATCH_HELP))
    p.add_argument("--square7", action="store_true", help="aim for the 7x7 bonus window too")
    p.add_argument("--top", type=whole, default=5, metavar="N",
                   help="placements to show (default 5; 0: all)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest next``: rank the placements of the patch to place now."""
    from rich.table import Table

    rows = read_board(args.board)
    parts = [p for p in args.patch.split(",") if p.strip()]
    if len(parts) != 1:
        raise errors.InvalidArgument("--patch takes one patch; put the others in --upcoming")
    key = patch_key(parts[0], "patch")
    ups = patch_keys(args.upcoming, "upcoming")
    res = client.suggest_placement(rows, key, ups, square7=args.square7, time_limit=args.time_limit,
                                   top=args.top)
    board = board_from_rows(rows)       # the service accepted the rows
    ranked = list(res.ranked)[: args.top or None]
    best = ranked[0] if ranked else None
    pieces = [(best.placement.mask, 0)] if best else []
    window = best.square7 if best else None
    after = 81 - (board | best.placement.mask).bit_count() if best else 81 - board.bit_count()
    out.svg(lambda: svg(9, 9, fixed=board, pieces=pieces, window=window,
                        title=f"{res.status.value}: best placement, empty cells {81 - board.bit_count()} → {after}",
                        legend=[legend_entry(key)] if best else []))
    if args.json:
        out.json({
            "status": res.status.value, "patch": key, "upcoming": ups,
            "empty_before": 81 - board.bit_count(),
            "ranked": [{"patch": r.placement.key, "orientation": r.placement.orientation,
                        "cells": cells(r.placement.mask), "value": r.value, "bound": r.bound, "proven": r.proven,
                        "square7": window_json(r.square7)}
                       for r in ranked],
            "wall_time": round(res.wall_time, 4),
        })
    else:
        out.console.print(_("status: {status}").format(status=status_line(res.status)))
        if best is not None:
            out.console.print(_("empty cells: {before} → {after}").format(before=81 - board.bit_count(), after=after))
            out.console.print(window_line(window))
            out.console.print(grid_text(9, 9, fixed=board, pieces=pieces, window=window))
            out.legend([key_label(key)])
            t = Table(title=_("placements of {patch}, best first (value = upcoming cells that still fit)").format(
                patch=key_label(key)))
            for col in ("#", _("cells"), _("value"), _("bound"), _("proven")):
                t.add_column(col)
            for i, r in enumerate(ranked, 1):
                t.add_row(str(i), ";".join(f"{a},{b}" for a, b in r.placement.cells), str(r.value), str(r.bound),
                          _("yes") if r.proven else _("no"))
            out.console.print(t)
        else:
            out.console.print(_("no placement possible"))
    return EXIT_OK if best is not None else EXIT_NONE
