"""``suggest puzzle``: tile a region exactly with pieces, or count the tilings."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

from quiltsolve.solver import limits
from quiltsolve.solver.geometry import Shape

from .. import errors
from ..i18n import _
from ..inputs import piece_texts, read_text, region_rows
from ..render import LegendEntry, grid_text, svg
from .options import AddCommand, complete_patches
from .output import EXIT_NONE, EXIT_OK, Out, cells, status_line


def add_to(add: AddCommand) -> None:
    p = add("puzzle", "tile a region exactly with pieces (each used at most once, or as many as needed with "
                      "SHAPE*), or count the tilings",
            ["suggest puzzle '...../...../.....' --piece '####/#...' --piece '###/.#./.#.' --piece '.#../####'",
             "suggest puzzle '....' --piece '##' --piece '##' --count",
             "suggest puzzle '..........' --piece '##*' --count   # dominoes, as many as needed"])
    p.add_argument("region", metavar="REGION",
                   help="rows of '.' (cell to tile) and '#' (not part of the region), any rectangle up to "
                        "20x20: a file, - for stdin, or inline with '/' between rows")
    complete_patches(p.add_argument(
        "--piece", action="append", required=True, metavar="SHAPE",
        help=f"a piece shape such as '##./.##' (or a standard patch id), used once; with a trailing '*' ('##*') "
             f"as many times as needed; repeat, at most {limits.MAX_PIECES} in all"))
    p.add_argument("--count", action="store_true", help="count the tilings instead of finding one")
    p.add_argument("--no-mirror", action="store_true", help="pieces may be rotated but not mirrored")
    p.add_argument("--allow-unused", action="store_true",
                   help="pieces may stay unused (default: use all; SHAPE* pieces may always stay unused)")
    p.add_argument("--method", choices=("auto", "search", "frontier"), default="auto",
                   help="how --count counts: the exact-cover search, the frontier dynamic programme (counts "
                        "without listing tilings: fast on large regions with small pieces), or auto (the "
                        "solver chooses; default)")
    p.add_argument("--ray", metavar="auto|local|ADDRESS",
                   help="with --count: split the count over a Ray cluster (docs/ray.md)")
    p.set_defaults(func=run)


def split_pieces(pieces: Sequence[str]) -> tuple[list[str], list[str]]:
    """``--piece`` values as (pieces used once, shapes with an unlimited supply: written ``SHAPE*``).

    >>> split_pieces(["###", "##*", "5", "0*"])
    (['###', '5'], ['##', '0'])
    """
    limited, unlimited = [], []
    for text in pieces:
        if text.endswith("*"):
            unlimited.append(text[:-1])
        else:
            limited.append(text)
    return limited, unlimited


def run(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest puzzle``: tile a region with pieces, or count the tilings."""
    if args.method == "frontier" and not args.count:
        raise errors.InvalidArgument("--method frontier only counts: add --count (finding tilings uses the search)")
    rows = region_rows(read_text(args.region))
    limited, unlimited = split_pieces(args.piece)
    texts = piece_texts(limited) + piece_texts(unlimited, "unlimited_pieces")  # a tiling's keys index these
    res = client.solve_puzzle(rows, limited, count=args.count, mirror=not args.no_mirror,
                              use_all=not args.allow_unused, time_limit=args.time_limit,
                              unlimited=unlimited, method=args.method)
    height, width = len(rows), len(rows[0])
    outside = sum(1 << (r * width + c) for r in range(height) for c in range(width) if rows[r][c] == "#")
    tiling = res.tilings[0] if res.tilings else ()
    # One letter per placed piece, in tiling order, matching the legend below.
    pieces = [(p.mask, i) for i, p in enumerate(tiling)]
    if args.count:
        found = bool(res.count) and res.status.value in ("OPTIMAL", "FEASIBLE")
    else:
        found = bool(tiling)

    def shape_of(p: Any) -> str:
        return Shape.parse(texts[p.key]).to_str() if isinstance(p.key, int) else str(p.key)

    title = res.status.value + (f": {res.count} tilings" if args.count else "")
    out.svg(lambda: svg(height, width, outside=outside, pieces=pieces, title=title,
                        legend=[LegendEntry(f"piece {p.key}", shape_of(p)) for p in tiling]))
    if args.json:
        obj: dict[str, Any] = {"status": res.status.value, "width": width, "height": height}
        if args.count:  # exact JSON integers of any size (json.dumps writes Python ints in full)
            obj.update(count=res.count, distinct=res.distinct, method=res.method)
        else:
            obj["tilings"] = [[{"piece": p.key, "shape": shape_of(p), "orientation": p.orientation,
                                "cells": cells(p.mask, width)} for p in t]
                              for t in res.tilings]
        obj["wall_time"] = round(res.wall_time, 4)
        out.json(obj)
    else:
        out.console.print(_("status: {status}").format(status=status_line(res.status)))
        if args.count:
            exact = "" if res.status.value in ("OPTIMAL", "INFEASIBLE") else _(" (at least: the count did not finish)")
            how = {"search": _(" (counted by the search)"), "frontier": _(" (counted by the frontier)")}
            out.console.print(_("tilings: {count}{exact}; distinct up to the region's symmetries: {distinct}").format(
                count=res.count, exact=exact, distinct=res.distinct)
                + (how.get(res.method, f" ({res.method})") if res.method else ""))
        elif tiling:
            out.console.print(grid_text(height, width, outside=outside, pieces=pieces))
            out.legend([_("piece {key} {shape}").format(key=p.key, shape=shape_of(p)) for p in tiling])
        else:
            out.console.print(_("no tiling"))
    return EXIT_OK if found else EXIT_NONE
