"""``suggest place``: the best placements of candidate patches on a board."""

from __future__ import annotations

import argparse
from typing import Any

from quiltsolve.solver.geometry import board_from_rows

from ..i18n import _
from ..inputs import patch_keys, read_board
from ..render import grid_text, svg
from .options import BOARD_HELP, PATCH_HELP, AddCommand, complete_patches
from .output import EXIT_NONE, EXIT_OK, Out, cells, key_label, legend_entry, status_line, window_json, window_line


def add_to(add: AddCommand) -> None:
    p = add("place", "best placements of candidate patches on a board",
            ["suggest place board.txt --patch 12 --patch '##./.##' --objective square7",
             "suggest place - --patch 8,11,26 --json < board.txt"])
    p.add_argument("board", metavar="BOARD", help=BOARD_HELP)
    complete_patches(p.add_argument("--patch", "-p", action="append", required=True, metavar="P",
                                    help=PATCH_HELP + "; a repeated patch is another copy"))
    p.add_argument("--objective", choices=("cover", "square7"), default="cover",
                   help="cover: fewest empty cells; square7: complete a 7x7 window first (default cover)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest place``: the best placements of the candidate patches."""
    rows = read_board(args.board)
    keys = patch_keys(args.patch)
    res = client.solve_placement(rows, keys, objective=args.objective, time_limit=args.time_limit)
    board = board_from_rows(rows)       # the service accepted the rows
    pieces = [(p.mask, i) for i, p in enumerate(res.placements)]
    found = res.status.value in ("OPTIMAL", "FEASIBLE") and bool(res.placements)
    out.svg(lambda: svg(9, 9, fixed=board, pieces=pieces, window=res.square7,
                        title=f"{res.status.value}: empty cells {res.empty_before} → {res.empty_after}",
                        legend=[legend_entry(p.key) for p in res.placements]))
    if args.json:
        out.json({
            "status": res.status.value, "empty_before": res.empty_before, "empty_after": res.empty_after,
            "covered": res.objective, "bound": res.bound,
            "placements": [{"patch": p.key, "orientation": p.orientation, "cells": cells(p.mask)}
                           for p in res.placements],
            "square7": window_json(res.square7),
            "wall_time": round(res.wall_time, 4),
        })
    else:
        out.console.print(_("status: {status}").format(status=status_line(res.status)))
        out.console.print(_("empty cells: {before} → {after} (covered {covered}, bound {bound})").format(
            before=res.empty_before, after=res.empty_after, covered=res.objective, bound=res.bound))
        out.console.print(window_line(res.square7))
        out.console.print(grid_text(9, 9, fixed=board, pieces=pieces, window=res.square7))
        out.legend([key_label(p.key) for p in res.placements])
        if not found:
            out.console.print(_("no placement possible"))
    return EXIT_OK if found else EXIT_NONE
