"""``suggest generate``: a puzzle with exactly one solution (up to the region's symmetries), seeded."""

from __future__ import annotations

import argparse
from typing import Any

from quiltsolve.solver.geometry import Shape
from quiltsolve.solver.patches import PATCHES

from ..i18n import _
from ..inputs import piece_texts, read_text, region_rows
from ..render import LegendEntry, grid_text, svg
from .options import AddCommand, complete_patches, size, whole
from .output import EXIT_NONE, EXIT_OK, Out, cells


def add_to(add: AddCommand) -> None:
    p = add("generate", "make a puzzle with exactly one solution (up to the region's symmetries), seeded",
            ["suggest generate --pieces pentominoes --seed 7",
             "suggest generate --pieces pentominoes --seed 7 --solution",
             "suggest generate --pieces patches --difficulty hard --svg quilt.svg",
             "suggest generate --size 6x6 --pieces tetrominoes --json",
             "suggest generate --region region.txt --piece '###' --piece '##' --piece '#' --piece '#'"])
    where = p.add_mutually_exclusive_group()
    where.add_argument("--size", type=size, metavar="HxW",
                       help="the box the region is cut from (default 9x9; 6x6 for tetrominoes; 8x8 for --piece)")
    where.add_argument("--region", metavar="REGION",
                       help="tile exactly this region (a file, - for stdin, or inline); only the pieces are chosen")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--pieces", choices=("pentominoes", "tetrominoes", "patches"), default=None,
                      help="the piece family: the 12 pentominoes (each once), the 5 tetrominoes (any number), "
                           "the 33 Patchwork patches (each once, at least 10 on a 9x9 quilt); default pentominoes")
    complete_patches(what.add_argument("--piece", action="append", metavar="SHAPE",
                                       help="a shape to choose from instead (each copy used at most once); repeat"))
    p.add_argument("--difficulty", choices=("easy", "medium", "hard"), default=None,
                   help="search nodes to solve it: easy < 1000, medium < 20000, hard more (default any)")
    p.add_argument("--seed", type=whole, default=0, metavar="N", help="random seed (default 0)")
    p.add_argument("--solution", action="store_true",
                   help="also print (and draw in --svg) the solution; by default only the puzzle, no spoiler "
                        "(--json always has it)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest generate``: a puzzle with exactly one solution."""
    region = region_rows(read_text(args.region)) if args.region is not None else None
    family = None if args.piece else (args.pieces or "pentominoes")
    res = client.generate_puzzle(size=args.size, region=region, family=family,
                                 pieces=piece_texts(args.piece) if args.piece else None,
                                 difficulty=args.difficulty, seed=args.seed, time_limit=args.time_limit)
    found = bool(res.rows)
    height, width = res.height, res.width
    holes = sum(1 << (r * width + c) for r, row in enumerate(res.rows) for c, ch in enumerate(row) if ch == "#")
    # a quilt's left-out cells are pre-filled ('#'); other regions' are outside the puzzle (blank)
    quilt = family == "patches"
    cut = {"fixed": holes} if quilt else {"outside": holes}
    tiling = sorted(res.solution, key=lambda p: p.key)
    pieces = [(p.mask, p.key) for p in tiling]
    ids = {p.shape.canonical(): p.id for p in PATCHES}

    def label(i: int) -> str:
        shape = Shape.parse(res.pieces[i])
        return _("patch {id}").format(id=ids[shape.canonical()]) if quilt else _("piece {n}").format(n=i)

    difficulty = f"{res.difficulty} ({res.nodes} search nodes to solve it without hints)"
    bands = {"easy": _("easy"), "medium": _("medium"), "hard": _("hard")}
    human_difficulty = _("{band} ({nodes} search nodes to solve it without hints)").format(
        band=bands.get(res.difficulty, res.difficulty), nodes=res.nodes)
    title = f"{res.status.value}: one solution, {difficulty}" if found else res.status.value
    if found:       # the puzzle, or with --solution its solution (a spoiler only when asked for)
        out.svg(lambda: svg(height, width, pieces=pieces if args.solution else (), title=title,
                            legend=[LegendEntry(label(i), t) for i, t in enumerate(res.pieces)], **cut))
    if args.json:
        obj: dict[str, Any] = {
            "status": res.status.value, "width": width, "height": height, "region": list(res.rows),
            "pieces": list(res.pieces),
            "solution": [{"piece": p.key, "shape": res.pieces[p.key], "orientation": p.orientation,
                          "cells": cells(p.mask, width)} for p in tiling],
            "count": res.count, "distinct": res.distinct, "difficulty": res.nodes,
            "difficulty_band": res.difficulty or None, "attempts": res.attempts,
            "wall_time": round(res.wall_time, 4)}
        out.json(obj)
        return EXIT_OK if found else EXIT_NONE
    status = {"OPTIMAL": _("OPTIMAL (one solution, proven)"),
              "FEASIBLE": _("FEASIBLE (one solution, proven; not of the difficulty asked: the closest found)"),
              "UNKNOWN": _("UNKNOWN (time ran out before a puzzle with one solution was found)")}[res.status.value]
    out.console.print(_("status: {status}").format(status=status))
    if not found:
        out.console.print(_("random tilings tried: {n}").format(n=res.attempts))
        return EXIT_NONE
    count = sum(row.count(".") for row in res.rows)
    out.console.print(_("puzzle: tile the {cells} '.' cells with these {n} pieces").format(cells=count, n=len(res.pieces))
                      + (_(" ('#' cells are pre-filled)") if quilt else ""))
    out.console.print(grid_text(height, width, **cut))
    out.legend([f"{label(i)} {t}" for i, t in enumerate(res.pieces)])
    if args.solution:
        out.console.print(_("solution:"))
        out.console.print(grid_text(height, width, pieces=pieces, **cut))
    out.console.print(_("tilings: {distinct} up to the region's symmetries ({count} in all); difficulty: {difficulty}")
                      .format(distinct=res.distinct, count=res.count, difficulty=human_difficulty))
    return EXIT_OK
