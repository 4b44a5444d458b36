"""``suggest review``: each move of a recorded game against the engine's best."""

from __future__ import annotations

import argparse
import json
from typing import Any

from quiltsolve.engine.review import BLUNDER, summarize, with_evaluations
from quiltsolve.solver import limits

from ..i18n import _, ngettext
from ..inputs import DEFAULT_LARGE_LOSS, read_record, record_json
from ..links import DEFAULT_WEB, review_link
from ..render import player_name, review_svg
from .options import AddCommand, int_range, number, whole
from .output import EXIT_OK, Out, short_name, write_file

REVIEW_ITERATIONS = 500  # suggest review's budget per searched position (the engine's review default)


def add_to(add: AddCommand) -> None:
    p = add("review", "review a recorded game move by move: each move's loss in win chance (and in points where the "
                      "endgame solver proves it), large mistakes",
            ["python -m quiltsolve.engine match --a search:0.2 --b random --games 2 --records games.jsonl",
             "suggest review games.jsonl --line 2 --iterations 300",
             "suggest review games.jsonl --plies 10 --iterations 100   # the first 10 moves",
             "suggest review games.jsonl --time-limit 0.5 --json"])
    p.add_argument("record", metavar="RECORD.jsonl",
                   help="game records in the engine's format, one JSON object a line: a file or - for stdin")
    p.add_argument("--line", type=int_range(1, 10**9), default=1, metavar="K",
                   help="which record of the file, counting non-empty lines from 1 (default 1)")
    p.add_argument("--iterations", type=whole, default=None, metavar="N",
                   help=f"search iterations per searched position (1-{limits.MAX_ITERATIONS}): a reproducible "
                        f"review (default {REVIEW_ITERATIONS} unless --time-limit is given; with it, "
                        "--time-limit caps each move)")
    p.add_argument("--plies", type=int_range(1, 10**9), default=None, metavar="K",
                   help="review only the first K actions of the record (default all)")
    p.add_argument("--seed", type=whole, default=0, metavar="N",
                   help="search seed (default 0)")
    p.add_argument("--large-loss", type=number, default=DEFAULT_LARGE_LOSS, metavar="F",
                   help=f"a loss of at least F win chance (0-1) is a large mistake (default {DEFAULT_LARGE_LOSS:g})")
    p.add_argument("--web", nargs="?", const=DEFAULT_WEB, default=None, metavar="URL",
                   help=f"also print a link to this review in the web app at URL (default {DEFAULT_WEB}): the "
                        "record travels in the link's fragment")
    p.add_argument("--save", metavar="FILE",
                   help="also write the record with an `evaluations` array (one entry per move: win chances, "
                        "loss, label) as one JSON line; `python -m quiltsolve.engine replay` reads it")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest review``: each move of a recorded game against the engine's best."""
    record = record_json(read_record(args.record, args.line))
    if args.plies is not None and args.plies < len(record["actions"]):
        # The game's first K moves: a shorter game, so the record's result and evaluations are not its own.
        record = {k: v for k, v in record.items() if k not in ("result", "evaluations")}
        record["actions"] = record["actions"][: args.plies]
    iterations = args.iterations
    if iterations is None and args.time_limit is None:
        iterations = REVIEW_ITERATIONS
    players = record.get("players") if isinstance(record.get("players"), list) else None
    reviews = []
    stream = client.analyze_game(record, iterations=iterations, time_per_move=args.time_limit, seed=args.seed,
                                 large_loss=args.large_loss)
    if not args.json:
        budget = (ngettext("{n} iteration per position", "{n} iterations per position", iterations).format(n=iterations)
                  if iterations else _("{s:g} s per move").format(s=args.time_limit))
        if iterations and args.time_limit:
            budget += _(" (at most {s:g} s)").format(s=args.time_limit)
        who = "" if not players else (f"; {player_name(0)} = {short_name(players[0])}, "
                                      f"{player_name(1)} = {short_name(players[1])}")
        n = len(record["actions"])
        out.console.print(ngettext("review of {record} line {line}: {n} move, {budget}, seed {seed}{who}",
                                   "review of {record} line {line}: {n} moves, {budget}, seed {seed}{who}", n).format(
            record=short_name(args.record), line=args.line, n=n, budget=budget, seed=args.seed, who=who))
        out.stream.flush()
    for r in stream:                    # each move printed as soon as it is reviewed
        reviews.append(r)
        if args.json:
            out.json(r.to_json())
        else:
            out.console.print(r.to_str(), style="bold red" if r.large or r.label == BLUNDER else None)
        out.stream.flush()
    summary = summarize(reviews)
    bare = {k: v for k, v in record.items() if k != "evaluations"}     # a link carries the game, not a review
    link = (review_link(bare, base=args.web, ply=0, iterations=iterations, seed=args.seed)
            if args.web is not None else None)
    if args.save:
        write_file(args.save, json.dumps(with_evaluations(record, reviews), separators=(",", ":")) + "\n")
    out.svg(lambda: review_svg(record, reviews, title=f"Review of {short_name(args.record)} line {args.line}"))
    if args.json:
        extra = {"link": link} if link is not None else {}
        out.json({"summary": [dict(player=i, name=players[i] if players else None, **summary[i].to_json())
                              for i in (0, 1)],
                  "iterations": iterations, "time_limit": args.time_limit, "seed": args.seed,
                  "large_loss": args.large_loss, **extra})
    else:
        for i in (0, 1):
            sm = summary[i]
            label = player_name(i) + (f" ({short_name(players[i])})" if players else "")
            out.console.print(f"{label}: {sm.to_str()}")
        if link is not None:
            out.console.print(_("web: {link}").format(link=link), soft_wrap=True, markup=False, highlight=False)
    return EXIT_OK
