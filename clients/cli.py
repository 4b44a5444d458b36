# PYTHON_ARGCOMPLETE_OK
"""The ``suggest`` command: placements, moves and puzzles from the terminal.

    suggest place board.txt --patch 12 --patch "##./.##"
    suggest next board.txt --patch 5 --upcoming 7,9,13 --json
    suggest move state.json --top 3
    suggest puzzle region.txt --piece "###/.#." --piece "##" --count
    suggest generate --pieces patches --seed 7
    suggest patches

Exit codes: 0 answer found, 1 no placement possible / infeasible / no move,
2 bad input (one line on stderr), 3 service unavailable or deadline
exceeded, 4 internal error (a bug). See ``docs/cli.md`` for every option and
the JSON shapes. Shell completion: argcomplete (``docs/cli.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn, Sequence, TextIO

from quiltsolve.engine.actions import Advance, Buy, PlaceLeather
from quiltsolve.engine.players import make_player
from quiltsolve.engine.review import BLUNDER, summarize, with_evaluations
from quiltsolve.server import convert, positions
from quiltsolve.server.errors import ServiceError
from quiltsolve.solver import limits
from quiltsolve.solver.geometry import Shape, board_from_rows, cells_of
from quiltsolve.solver.patches import LEATHER_PATCH_ID, PATCHES

from . import connect, errors, wire
from .inputs import (
    DEFAULT_LARGE_LOSS, MAX_INPUT_BYTES, decode_text, patch_key, patch_keys, piece_texts, read_board, read_bytes,
    read_position, read_record, read_text, record_json, region_rows,
)
from .play import PlaySession, start_game
from .links import DEFAULT_WEB, review_link
from .render import (
    LegendEntry, colour, console, grid_text, letter, patch_sheet, player_name, reason_text, review_svg, search_line,
    svg,
)

EXIT_OK, EXIT_NONE, EXIT_BAD_INPUT, EXIT_SERVICE, EXIT_INTERNAL = 0, 1, 2, 3, 4
PROG = "suggest"
DEFAULT_ENGINE = "search:0.5"  # suggest play's opponent
REVIEW_ITERATIONS = 500  # suggest review's budget per searched position (the engine's review default)
_MAX_MESSAGE = 500  # characters of an error line


class UsageError(Exception):
    """Bad command-line syntax (reported as one line, exit 2): ``(prog, message)``."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line instead of usage + message
        raise UsageError(self.prog, f"{message} (see {self.prog} --help)")


def version() -> str:
    """The installed quiltsolve version (``0+unknown`` when run from a bare source tree)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("quiltsolve")
    except PackageNotFoundError:
        return "0+unknown"


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, not {text[:40]}")
    return v


def _number(text: str) -> float:
    """A number option (``--time-limit``, ``--large-loss``): only parsed here; its range is the service's check."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}") from None


def _whole(text: str) -> int:
    """A whole-number option sent in a request (``--top``, ``--iterations``): only parsed here."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}") from None


def _size(text: str) -> tuple[int, int]:
    """``--size HxW``: only parsed here; the range is the service's check."""
    h, sep, w = text.lower().partition("x")
    try:
        if sep:
            return int(h), int(w)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"not HxW (e.g. 9x9): {text[:40]!r}")


def _int_range(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}") from None
        if not low <= v <= high:
            raise argparse.ArgumentTypeError(f"must be {low}-{high}, not {text[:40]}")
        return v

    return parse


def _patch_ids(prefix: str, **_: Any) -> list[str]:
    """Shell completion of a patch argument: the standard ids."""
    return [str(i) for i in range(-1, 33) if str(i).startswith(prefix)]


_INPUT_HELP = f"""\
input:
  BOARD    9 rows of 9 cells: '.' empty, '#' filled; a file, - for stdin, or
           the rows inline separated by '/' (see "inline grids")
  REGION   a rectangle up to 20x20: '.' a cell to tile, '#' not part of it;
           a file, - for stdin, or inline
  STATE    a game position: the engine's state JSON (python -m quiltsolve.engine state >
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


def _common(sub: bool) -> _Parser:
    """Options every sub-command takes (also accepted before the sub-command)."""
    d = (lambda v: argparse.SUPPRESS) if sub else (lambda v: v)
    p = _Parser(add_help=False)
    g = p.add_argument_group("output")
    g.add_argument("--json", action="store_true", default=d(False),
                   help="print one JSON object instead of the drawing (shapes in docs/cli.md); errors too")
    g.add_argument("--svg", metavar="FILE", default=d(None),
                   help="also write the board (tiling, patch sheet) as an SVG picture with a legend")
    s = p.add_argument_group("solver")
    s.add_argument("--time-limit", metavar="S", type=_number, default=d(None),
                   help=f"solver time limit in seconds, at most {limits.MAX_TIME_LIMIT:g} (default "
                        f"{limits.DEFAULT_SOLVE_LIMIT:g} for place and puzzle, {limits.DEFAULT_SUGGEST_LIMIT:g} "
                        f"for next, move and play's hints); review: seconds per move")
    r = p.add_argument_group("service (default: the solver runs in this process)")
    r.add_argument("--server", metavar="TARGET", default=d(None),
                   help="use a running placement service: HOST:PORT, ipv4:H:P1,H:P2 or dns:///NAME:PORT "
                        "(calls are balanced round-robin)")
    r.add_argument("--deadline", metavar="S", type=_positive_float, default=d(5.0),
                   help="gRPC deadline per call in seconds (default 5; stretched to the time limit + 2 s)")
    r.add_argument("--tls", action="store_true", default=d(False),
                   help="connect with TLS (the server's certificate is checked against --ca, else the "
                        "system's roots)")
    r.add_argument("--ca", metavar="FILE", default=d(None), help="PEM certificate(s) the server's must chain to")
    r.add_argument("--cert", metavar="FILE", default=d(None),
                   help="this client's PEM certificate, for servers that ask for one (with --key)")
    r.add_argument("--key", metavar="FILE", default=d(None), help="the private key of --cert (PEM)")
    r.add_argument("--token-file", metavar="FILE", default=d(None),
                   help="send the token in FILE as 'authorization: Bearer TOKEN' with every call")
    return p


_BOARD_HELP = "9 rows of '.' (empty) and '#' (filled): a file, - for stdin, or inline with '/' between rows"
_PATCH_HELP = "a standard patch id (0-32) or a shape such as '##./.##'; repeat, or separate with commas"


def build_parser() -> argparse.ArgumentParser:
    """The ``suggest`` argument parser (every sub-command, with full help)."""
    common = _common(sub=True)
    p = _Parser(prog=PROG, parents=[_common(sub=False)],
                description="Plan Patchwork patch placements and moves, and solve quilt puzzles.\n"
                            "'suggest COMMAND --help' shows a command's options.",
                epilog=_INPUT_HELP + "\nexamples:\n  suggest place board.txt --patch 12 --patch '##./.##'\n"
                       "  suggest puzzle '...../...../.....' --piece '####/#...' --piece '###/.#./.#.' "
                       "--piece '.#../####'\n\nfull reference: docs/cli.md",
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"{PROG} (quiltsolve) {version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser,
                           title="commands")

    def add(name: str, help: str, examples: Sequence[str]) -> argparse.ArgumentParser:
        epilog = "examples:\n" + "".join(f"  {e}\n" for e in examples) + "\n" + _INPUT_HELP
        return sub.add_parser(name, help=help, description=help, parents=[common], epilog=epilog,
                              formatter_class=argparse.RawDescriptionHelpFormatter)

    pl = add("place", "best placements of candidate patches on a board",
             ["suggest place board.txt --patch 12 --patch '##./.##' --objective square7",
              "suggest place - --patch 8,11,26 --json < board.txt"])
    pl.add_argument("board", metavar="BOARD", help=_BOARD_HELP)
    a = pl.add_argument("--patch", "-p", action="append", required=True, metavar="P",
                        help=_PATCH_HELP + "; a repeated patch is another copy")
    a.completer = _patch_ids  # type: ignore[attr-defined]
    pl.add_argument("--objective", choices=("cover", "square7"), default="cover",
                    help="cover: fewest empty cells; square7: complete a 7x7 window first (default cover)")
    pl.set_defaults(func=cmd_place)

    nx = add("next", "rank the placements of the patch to place now, looking ahead to upcoming patches",
             ["suggest next board.txt --patch 5 --upcoming 7,9,13 --top 3"])
    nx.add_argument("board", metavar="BOARD", help=_BOARD_HELP)
    a = nx.add_argument("--patch", "-p", required=True, metavar="P", help="the patch to place now (id or shape)")
    a.completer = _patch_ids  # type: ignore[attr-defined]
    a = nx.add_argument("--upcoming", "-u", action="append", default=[], metavar="P", help=_PATCH_HELP)
    a.completer = _patch_ids  # type: ignore[attr-defined]
    nx.add_argument("--square7", action="store_true", help="aim for the 7x7 bonus window too")
    nx.add_argument("--top", type=_whole, default=5, metavar="N",
                    help="placements to show (default 5; 0: all)")
    nx.set_defaults(func=cmd_next)

    mv = add("move", "rank the moves of a game position with the engine's search",
             ["python -m quiltsolve.engine state --seed 7 --plies 20 > state.json; suggest move state.json --top 3",
              "suggest move state.json --iterations 2000 --json",
              "suggest move 'r 0,5,-,0 0,5,-,0 takbu68n1f9gopmeqs7hrjc4i32wd5vl0 0 -' --top 2",
              "suggest move state.json --notation"])
    mv.add_argument("state", metavar="STATE",
                    help="the position: state JSON or notation, in a file, - for stdin, or inline")
    mv.add_argument("--top", type=_whole, default=None, metavar="N",
                    help="moves to show (default all; 0: all)")
    mv.add_argument("--iterations", type=_whole, default=None, metavar="N",
                    help=f"a fixed search budget (1-{limits.MAX_ITERATIONS}) instead of --time-limit: the same "
                         "answer every run")
    mv.add_argument("--notation", action="store_true",
                    help="only print the position in the engine's notation (one line; no search)")
    mv.add_argument("--verbose", "-v", action="store_true",
                    help="also show the share of playouts each move won (raw and uncalibrated: the value "
                         "column is the win chance)")
    mv.set_defaults(func=cmd_move)

    rv = add("review", "review a recorded game move by move: each move's loss in win chance (and in points where the "
                  "endgame solver proves it), large mistakes",
             ["python -m quiltsolve.engine match --a search:0.2 --b random --games 2 --records games.jsonl",
              "suggest review games.jsonl --line 2 --iterations 300",
              "suggest review games.jsonl --time-limit 0.5 --json"])
    rv.add_argument("record", metavar="RECORD.jsonl",
                    help="game records in the engine's format, one JSON object a line: a file or - for stdin")
    rv.add_argument("--line", type=_int_range(1, 10**9), default=1, metavar="K",
                    help="which record of the file, counting non-empty lines from 1 (default 1)")
    rv.add_argument("--iterations", type=_whole, default=None, metavar="N",
                    help=f"search iterations per searched position (1-{limits.MAX_ITERATIONS}): a reproducible "
                         f"review (default {REVIEW_ITERATIONS} unless --time-limit is given; with it, "
                         "--time-limit caps each move)")
    rv.add_argument("--seed", type=_whole, default=0, metavar="N",
                    help="search seed (default 0)")
    rv.add_argument("--large-loss", type=_number, default=DEFAULT_LARGE_LOSS, metavar="F",
                    help=f"a loss of at least F win chance (0-1) is a large mistake (default {DEFAULT_LARGE_LOSS:g})")
    rv.add_argument("--web", nargs="?", const=DEFAULT_WEB, default=None, metavar="URL",
                    help=f"also print a link to this review in the web app at URL (default {DEFAULT_WEB}): the "
                         "record travels in the link's fragment")
    rv.add_argument("--save", metavar="FILE",
                    help="also write the record with an `evaluations` array (one entry per move: win chances, "
                         "loss, label) as one JSON line; `python -m quiltsolve.engine replay` reads it")
    rv.set_defaults(func=cmd_review)

    pp = add("play", "play Patchwork at the terminal against the engine, or follow a game at a table",
             ["suggest play --engine greedy --side 1 --seed 7",
              "suggest play --engine search:1.0 --load game.jsonl",
              "suggest play --follow --position 'r 0,5,-,0 0,5,-,0 takbu68n1f9gopmeqs7hrjc4i32wd5vl0 0 -'",
              "suggest play --follow --server 127.0.0.1:50051"])
    pp.add_argument("--engine", default=DEFAULT_ENGINE, metavar="SPEC",
                    help="the opponent, a player of the engine: greedy, random, search:S (S seconds a move), "
                         f"search:Nit, mcts:N, ... (default {DEFAULT_ENGINE})")
    pp.add_argument("--side", type=int, choices=(0, 1), default=0,
                    help="which player you are against the engine, by index: 0 = player 1 (moves first), "
                         "1 = player 2 (default 0)")
    pp.add_argument("--follow", action="store_true",
                    help="no engine opponent: enter both players' moves (follow a game at a table)")
    pp.add_argument("--seed", type=_int_range(0, 2**31 - 1), default=0, metavar="N",
                    help="deal of the new game, and the engine player's seed (default 0)")
    pp.add_argument("--edition", choices=("revised", "original"), default="revised",
                    help="edition of the new game (its leather spaces; default revised)")
    src = pp.add_mutually_exclusive_group()
    src.add_argument("--load", metavar="FILE",
                     help="continue a saved game: an engine record (see --line) or a saved position")
    src.add_argument("--position", metavar="STATE",
                     help="start from a position: state JSON or notation, a file or inline")
    pp.add_argument("--line", type=_int_range(1, 10**9), default=1, metavar="K",
                    help="with --load: which record of the file, counting non-empty lines from 1 (default 1)")
    pp.add_argument("--iterations", type=_whole, default=None, metavar="N",
                    help="hints search a fixed budget of N iterations (the same hint every time) instead of "
                         "--time-limit (default 1 s)")
    pp.add_argument("--verbose", "-v", action="store_true",
                    help="hints also show the share of playouts each move won (raw and uncalibrated)")
    pp.set_defaults(func=cmd_play)

    pz = add("puzzle", "tile a region exactly with pieces (each used at most once, or as many as needed with "
                       "SHAPE*), or count the tilings",
             ["suggest puzzle '...../...../.....' --piece '####/#...' --piece '###/.#./.#.' --piece '.#../####'",
              "suggest puzzle '....' --piece '##' --piece '##' --count",
              "suggest puzzle '..........' --piece '##*' --count   # dominoes, as many as needed"])
    pz.add_argument("region", metavar="REGION",
                    help="rows of '.' (cell to tile) and '#' (not part of the region), any rectangle up to "
                         "20x20: a file, - for stdin, or inline with '/' between rows")
    a = pz.add_argument("--piece", action="append", required=True, metavar="SHAPE",
                        help=f"a piece shape such as '##./.##' (or a standard patch id), used once; with a "
                             f"trailing '*' ('##*') as many times as needed; repeat, at most "
                             f"{limits.MAX_PIECES} in all")
    a.completer = _patch_ids  # type: ignore[attr-defined]
    pz.add_argument("--count", action="store_true", help="count the tilings instead of finding one")
    pz.add_argument("--no-mirror", action="store_true", help="pieces may be rotated but not mirrored")
    pz.add_argument("--allow-unused", action="store_true",
                    help="pieces may stay unused (default: use all; SHAPE* pieces may always stay unused)")
    pz.add_argument("--method", choices=("auto", "search", "frontier"), default="auto",
                    help="how --count counts: the exact-cover search, the frontier dynamic programme (counts "
                         "without listing tilings: fast on large regions with small pieces), or auto (the "
                         "solver chooses; default)")
    pz.add_argument("--ray", metavar="auto|local|ADDRESS",
                    help="with --count: split the count over a Ray cluster (docs/ray.md)")
    pz.set_defaults(func=cmd_puzzle)

    gp = add("generate", "make a puzzle with exactly one solution (up to the region's symmetries), seeded",
             ["suggest generate --pieces pentominoes --seed 7",
              "suggest generate --pieces pentominoes --seed 7 --solution",
              "suggest generate --pieces patches --difficulty hard --svg quilt.svg",
              "suggest generate --size 6x6 --pieces tetrominoes --json",
              "suggest generate --region region.txt --piece '###' --piece '##' --piece '#' --piece '#'"])
    where = gp.add_mutually_exclusive_group()
    where.add_argument("--size", type=_size, metavar="HxW",
                       help="the box the region is cut from (default 9x9; 6x6 for tetrominoes; 8x8 for --piece)")
    where.add_argument("--region", metavar="REGION",
                       help="tile exactly this region (a file, - for stdin, or inline); only the pieces are chosen")
    what = gp.add_mutually_exclusive_group()
    what.add_argument("--pieces", choices=("pentominoes", "tetrominoes", "patches"), default=None,
                      help="the piece family: the 12 pentominoes (each once), the 5 tetrominoes (any number), "
                           "the 33 Patchwork patches (each once, at least 10 on a 9x9 quilt); default pentominoes")
    a = what.add_argument("--piece", action="append", metavar="SHAPE",
                          help="a shape to choose from instead (each copy used at most once); repeat")
    a.completer = _patch_ids  # type: ignore[attr-defined]
    gp.add_argument("--difficulty", choices=("easy", "medium", "hard"), default=None,
                    help="search nodes to solve it: easy < 1000, medium < 20000, hard more (default any)")
    gp.add_argument("--seed", type=_whole, default=0, metavar="N", help="random seed (default 0)")
    gp.add_argument("--solution", action="store_true",
                    help="also print (and draw in --svg) the solution; by default only the puzzle, no spoiler "
                         "(--json always has it)")
    gp.set_defaults(func=cmd_generate)

    pa = add("patches", "draw the 33 standard patches with their costs",
             ["suggest patches", "suggest patches --json", "suggest patches --svg patches.svg"])
    pa.set_defaults(func=cmd_patches)
    return p


# ----------------------------------------------------------------- output
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
            try:
                Path(self.args.svg).write_text(text_fn(), encoding="utf-8")
            except OSError as e:
                raise errors.InvalidArgument(f"cannot write {self.args.svg}: {e.strerror or e}") from None


def _cells(mask: int, width: int = 9) -> list[list[int]]:
    return [[r, c] for r, c in cells_of(mask, width)]


def _status_line(status: Any) -> str:
    return {
        "OPTIMAL": "OPTIMAL (proven optimal)",
        "FEASIBLE": "FEASIBLE (not proven optimal)",
        "INFEASIBLE": "INFEASIBLE (proven impossible)",
        "UNKNOWN": "UNKNOWN (time ran out before any answer)",
    }[status.value]


def _key_label(key: Any) -> str:
    if isinstance(key, int):
        if key == LEATHER_PATCH_ID:
            return "leather #"
        return f"patch {key} {PATCHES[key].shape.to_str()}"
    return f"shape {key}"


def _legend_entry(key: Any) -> Any:
    """The SVG legend entry of a patch key: id, shape and, for standard
    patches, cost (buttons), time and income."""
    if isinstance(key, int):
        if key == LEATHER_PATCH_ID:
            return LegendEntry("leather patch", "#")
        p = PATCHES[key]
        return LegendEntry(f"patch {key}", p.shape.to_str(), p.buttons, p.time, p.income)
    return LegendEntry("custom shape", str(key))


def _legend(out: Out, labels: list[str]) -> None:
    from rich.text import Text

    for i, label in enumerate(labels):
        t = Text()
        t.append(letter(i), style=f"bold black on {colour(i)}")
        t.append(f" = {label}")
        out.console.print(t)


def _window_line(window: tuple[int, int] | None) -> str:
    if window is None:
        return "7×7 window: none completed"
    r, c = window
    return f"7×7 window: completed at rows {r}-{r + 6}, cols {c}-{c + 6} (underlined)"


def _window_json(window: tuple[int, int] | None) -> dict[str, int] | None:
    return None if window is None else {"row": window[0], "col": window[1]}


# ---------------------------------------------------------------- commands
def cmd_place(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest place``: the best placements of the candidate patches."""

    rows = read_board(args.board)
    keys = patch_keys(args.patch)
    res = client.solve_placement(rows, keys, objective=args.objective, time_limit=args.time_limit)
    board = board_from_rows(rows)       # the service accepted the rows
    pieces = [(p.mask, i) for i, p in enumerate(res.placements)]
    found = res.status.value in ("OPTIMAL", "FEASIBLE") and bool(res.placements)
    out.svg(lambda: svg(9, 9, fixed=board, pieces=pieces, window=res.square7,
                        title=f"{res.status.value}: empty cells {res.empty_before} → {res.empty_after}",
                        legend=[_legend_entry(p.key) for p in res.placements]))
    if args.json:
        out.json({
            "status": res.status.value, "empty_before": res.empty_before, "empty_after": res.empty_after,
            "covered": res.objective, "bound": res.bound,
            "placements": [{"patch": p.key, "orientation": p.orientation, "cells": _cells(p.mask)}
                           for p in res.placements],
            "square7": _window_json(res.square7),
            "wall_time": round(res.wall_time, 4),
        })
    else:
        out.console.print(f"status: {_status_line(res.status)}")
        out.console.print(f"empty cells: {res.empty_before} → {res.empty_after} "
                          f"(covered {res.objective}, bound {res.bound})")
        out.console.print(_window_line(res.square7))
        out.console.print(grid_text(9, 9, fixed=board, pieces=pieces, window=res.square7))
        _legend(out, [_key_label(p.key) for p in res.placements])
        if not found:
            out.console.print("no placement possible")
    return EXIT_OK if found else EXIT_NONE


def cmd_next(args: argparse.Namespace, client: Any, out: Out) -> int:
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
                        legend=[_legend_entry(key)] if best else []))
    if args.json:
        out.json({
            "status": res.status.value, "patch": key, "upcoming": ups,
            "empty_before": 81 - board.bit_count(),
            "ranked": [{"patch": r.placement.key, "orientation": r.placement.orientation,
                        "cells": _cells(r.placement.mask), "value": r.value, "bound": r.bound, "proven": r.proven,
                        "square7": _window_json(r.square7)}
                       for r in ranked],
            "wall_time": round(res.wall_time, 4),
        })
    else:
        out.console.print(f"status: {_status_line(res.status)}")
        if best is not None:
            out.console.print(f"empty cells: {81 - board.bit_count()} → {after}")
            out.console.print(_window_line(window))
            out.console.print(grid_text(9, 9, fixed=board, pieces=pieces, window=window))
            _legend(out, [_key_label(key)])
            t = Table(title=f"placements of {_key_label(key)}, best first (value = upcoming cells that still fit)")
            for col in ("#", "cells", "value", "bound", "proven"):
                t.add_column(col)
            for i, r in enumerate(ranked, 1):
                t.add_row(str(i), ";".join(f"{a},{b}" for a, b in r.placement.cells), str(r.value), str(r.bound),
                          "yes" if r.proven else "no")
            out.console.print(t)
        else:
            out.console.print("no placement possible")
    return EXIT_OK if best is not None else EXIT_NONE


def _move_json(s: Any) -> dict[str, Any]:
    a = s.action
    d: dict[str, Any] = {"action": a.to_str(), "win_chance": s.win_chance, "value": s.win_chance,
                         "proven_margin": getattr(s, "proven_margin", None), "reason": s.reason}
    if isinstance(a, Advance):
        d.update(kind="advance", patch=None, cells=[])
    elif isinstance(a, Buy):
        d.update(kind="buy", patch=a.patch_id, cells=_cells(a.mask))
    elif isinstance(a, PlaceLeather):
        d.update(kind="leather", patch=None, cells=[list(a.cell)])
    return d


def cmd_move(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest move``: rank the moves of a game position."""
    from rich.table import Table

    # (GameState declares its attributes in __slots__ only: typed as Any here.)
    state: Any = read_position(args.state)
    notation = positions.to_notation(state)
    if args.notation:
        if args.json:
            out.json({"notation": notation})
        else:
            out.stream.write(notation + "\n")
        return EXIT_OK
    if not state.is_terminal():
        client.warm_up()    # imports and caches (embedded) or the connection (--server): before the clock
    moves = client.suggest_move(state, time_limit=args.time_limit, top=args.top,
                                iterations=args.iterations)
    player = state.current_player()
    board = state.players[player].board
    best = moves[0] if moves else None
    mask = getattr(best.action, "mask", 0) if best else 0
    pieces = [(mask, 0)] if mask else []
    legend = []
    if best is not None and isinstance(best.action, Buy):
        legend = [_legend_entry(best.action.patch_id)]
    elif best is not None and isinstance(best.action, PlaceLeather):
        legend = [_legend_entry(LEATHER_PATCH_ID)]
    out.svg(lambda: svg(9, 9, fixed=board, pieces=pieces, legend=legend,
                        title=f"{player_name(player)}: {best.action.to_str() if best else 'game over'}"))
    iterations = getattr(moves, "iterations", None)
    searched = bool(getattr(moves, "searched", bool(moves)))
    wall = getattr(moves, "wall_time", None)
    proven = bool(getattr(moves, "proven", False))
    if args.json:
        out.json({"player": player, "terminal": state.is_terminal(), "notation": notation,
                  "iterations": iterations, "searched": searched, "proven": proven,
                  "wall_time": None if wall is None else round(wall, 4),
                  "moves": [_move_json(m) for m in moves]})
    else:
        out.console.print(f"position: {notation}")
        if best is None:
            out.console.print("game over: no move to suggest")
            return EXIT_NONE
        p = state.players[player]
        out.console.print(f"{player_name(player)} to move: space {p.position}, {p.buttons} buttons, "
                          f"income {p.income}")
        out.console.print(search_line(moves))
        out.console.print(f"best: {best.action.to_str()}")
        out.console.print(f"empty cells: {81 - board.bit_count()} → {81 - (board | mask).bit_count()}")
        out.console.print(grid_text(9, 9, fixed=board, pieces=pieces))
        title = ("moves, best first (value = chance of winning; proven = exact final margin in points, "
                 "perfect play)" if proven else "moves, best first (value = estimated chance of winning)")
        t = Table(title=title)     # (the search line is printed once, above)
        cols = ("#", "move", "value", "proven", "reason") if proven else ("#", "move", "value", "reason")
        for col in cols:
            t.add_column(col)
        for i, m in enumerate(moves, 1):
            cells = [str(i), m.action.to_str(), f"{m.win_chance:.2f}"]
            if proven:
                cells.append("-" if m.proven_margin is None else f"{m.proven_margin:+d}")
            t.add_row(*cells, reason_text(m.reason, args.verbose))
        out.console.print(t)
    return EXIT_OK if best is not None else EXIT_NONE


def cmd_review(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest review``: each move of a recorded game against the engine's best."""

    record = record_json(read_record(args.record, args.line))
    iterations = args.iterations
    if iterations is None and args.time_limit is None:
        iterations = REVIEW_ITERATIONS
    players = record.get("players") if isinstance(record.get("players"), list) else None
    reviews = []
    stream = client.analyze_game(record, iterations=iterations, time_per_move=args.time_limit, seed=args.seed,
                                 large_loss=args.large_loss)
    if not args.json:
        budget = f"{iterations} iterations per position" if iterations else f"{args.time_limit:g} s per move"
        if iterations and args.time_limit:
            budget += f" (at most {args.time_limit:g} s)"
        who = "" if not players else (f"; {player_name(0)} = {_short_name(players[0])}, "
                                      f"{player_name(1)} = {_short_name(players[1])}")
        out.console.print(f"review of {_short_name(args.record)} line {args.line}: {len(record['actions'])} moves, "
                          f"{budget}, seed {args.seed}{who}")
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
        _write(args.save, json.dumps(with_evaluations(record, reviews), separators=(",", ":")) + "\n")
    out.svg(lambda: review_svg(record, reviews, title=f"Review of {_short_name(args.record)} line {args.line}"))
    if args.json:
        extra = {"link": link} if link is not None else {}
        out.json({"summary": [dict(player=i, name=players[i] if players else None, **summary[i].to_json())
                              for i in (0, 1)],
                  "iterations": iterations, "time_limit": args.time_limit, "seed": args.seed,
                  "large_loss": args.large_loss, **extra})
    else:
        for i in (0, 1):
            sm = summary[i]
            label = player_name(i) + (f" ({_short_name(players[i])})" if players else "")
            out.console.print(f"{label}: {sm.to_str()}")
        if link is not None:
            out.console.print(f"web: {link}", soft_wrap=True, markup=False, highlight=False)
    return EXIT_OK


def _write(path: str, text: str) -> None:
    """Write an output file (InvalidArgument naming it when that fails)."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise errors.InvalidArgument(f"cannot write {path}: {e.strerror or e}") from None


def cmd_play(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest play``: a game at the terminal (see :mod:`clients.play`)."""
    if args.json or args.svg:
        raise errors.InvalidArgument(f"{'--json' if args.json else '--svg'}: play is a terminal session; "
                                     "save FILE writes the game as a record")
    if args.line != 1 and args.load is None:
        raise errors.InvalidArgument("--line needs --load")
    start, actions, fresh, seed = start_game(seed=args.seed, edition=args.edition, load=args.load, line=args.line,
                                             position=args.position)
    _check_hint_options(start, args)
    player = None
    if not args.follow:
        player = make_player(args.engine, args.seed, client if args.server else None)
    client.warm_up()        # imports, caches or the connection: before any thinking clock

    def read_line(prompt: str) -> str:
        if out.stream is sys.stdout and sys.stdin is not None and sys.stdin.isatty():
            return input(prompt)            # the terminal's line editing
        out.stream.write(prompt)
        out.stream.flush()
        line = sys.stdin.readline() if sys.stdin is not None else ""
        if not line:
            raise EOFError
        return line.rstrip("\r\n")

    session = PlaySession(client, out.console, start=start, actions=actions, engine=player,
                          engine_name=args.engine.strip(), side=args.side, from_new_game=fresh, seed=seed,
                          time_limit=args.time_limit, iterations=args.iterations, read_line=read_line,
                          verbose=args.verbose)
    return session.run()


def _check_hint_options(state: Any, args: argparse.Namespace) -> None:
    """Refuse bad hint options (``--time-limit``, ``--iterations``) before the game starts, not at the
    first hint: the hints' SuggestMove request checked by the service's own functions (no second set)."""


    request = wire.suggest_move_call(state, args.time_limit, None, args.iterations, 0).request
    try:
        convert.time_limit(request, "time_limit", 0.0)
        convert.iterations(request.iterations)
    except ServiceError as e:
        raise wire.error_from_status(e.code, e.details) from None


def _short_name(text: Any) -> str:
    """A name from a file or a record, printable and cut short."""
    t = "".join(ch if ch.isprintable() else "?" for ch in str(text))
    return t if len(t) <= 40 else t[:37] + "..."


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


def cmd_puzzle(args: argparse.Namespace, client: Any, out: Out) -> int:
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
                                "cells": _cells(p.mask, width)} for p in t]
                              for t in res.tilings]
        obj["wall_time"] = round(res.wall_time, 4)
        out.json(obj)
    else:
        out.console.print(f"status: {_status_line(res.status)}")
        if args.count:
            exact = "" if res.status.value in ("OPTIMAL", "INFEASIBLE") else " (at least: the count did not finish)"
            out.console.print(f"tilings: {res.count}{exact}; distinct up to the region's symmetries: {res.distinct}"
                              + (f" (counted by the {res.method})" if res.method else ""))
        elif tiling:
            out.console.print(grid_text(height, width, outside=outside, pieces=pieces))
            _legend(out, [f"piece {p.key} {shape_of(p)}" for p in tiling])
        else:
            out.console.print("no tiling")
    return EXIT_OK if found else EXIT_NONE


def cmd_generate(args: argparse.Namespace, client: Any, out: Out) -> int:
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
        return f"patch {ids[shape.canonical()]}" if quilt else f"piece {i}"

    difficulty = f"{res.difficulty} ({res.nodes} search nodes to solve it without hints)"
    title = f"{res.status.value}: one solution, {difficulty}" if found else res.status.value
    if found:       # the puzzle, or with --solution its solution (a spoiler only when asked for)
        out.svg(lambda: svg(height, width, pieces=pieces if args.solution else (), title=title,
                            legend=[LegendEntry(label(i), t) for i, t in enumerate(res.pieces)], **cut))
    if args.json:
        obj: dict[str, Any] = {
            "status": res.status.value, "width": width, "height": height, "region": list(res.rows),
            "pieces": list(res.pieces),
            "solution": [{"piece": p.key, "shape": res.pieces[p.key], "orientation": p.orientation,
                          "cells": _cells(p.mask, width)} for p in tiling],
            "count": res.count, "distinct": res.distinct, "difficulty": res.nodes,
            "difficulty_band": res.difficulty or None, "attempts": res.attempts,
            "wall_time": round(res.wall_time, 4)}
        out.json(obj)
        return EXIT_OK if found else EXIT_NONE
    status = {"OPTIMAL": "OPTIMAL (one solution, proven)",
              "FEASIBLE": "FEASIBLE (one solution, proven; not of the difficulty asked: the closest found)",
              "UNKNOWN": "UNKNOWN (time ran out before a puzzle with one solution was found)"}[res.status.value]
    out.console.print(f"status: {status}")
    if not found:
        out.console.print(f"random tilings tried: {res.attempts}")
        return EXIT_NONE
    cells = sum(row.count(".") for row in res.rows)
    out.console.print(f"puzzle: tile the {cells} '.' cells with these {len(res.pieces)} pieces"
                      + (" ('#' cells are pre-filled)" if quilt else ""))
    out.console.print(grid_text(height, width, **cut))
    _legend(out, [f"{label(i)} {t}" for i, t in enumerate(res.pieces)])
    if args.solution:
        out.console.print("solution:")
        out.console.print(grid_text(height, width, pieces=pieces, **cut))
    out.console.print(f"tilings: {res.distinct} up to the region's symmetries ({res.count} in all); "
                      f"difficulty: {difficulty}")
    return EXIT_OK


def cmd_patches(args: argparse.Namespace, client: Any, out: Out) -> int:
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
        t = Text(f"patch {p.id}\n{p.buttons} buttons, {p.time} time\nincome {p.income}, {p.area} cells\n")
        mask = sum(1 << (r * p.shape.width + c) for r, c in p.shape.cells)
        t.append_text(grid_text(p.shape.height, p.shape.width, pieces=[(mask, p.id)],
                                outside=((1 << (p.shape.width * p.shape.height)) - 1) & ~mask))
        t.append("\n")
        cards.append(t)
    out.console.print(Columns(cards, padding=(0, 3)))
    return EXIT_OK


# -------------------------------------------------------------------- main
def _remote_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``PlacementClient`` arguments of the service options (TLS, token)."""
    tls_files = [(name, value) for name, value in (("--ca", args.ca), ("--cert", args.cert), ("--key", args.key))
                 if value is not None]
    if not args.server:
        used = [name for name, value in [("--tls", args.tls), *tls_files, ("--token-file", args.token_file)]
                if value]
        if used:
            raise errors.InvalidArgument(f"{used[0]} needs --server (the embedded solver makes no connection)")
        return {}
    if tls_files and not args.tls:
        raise errors.InvalidArgument(f"{tls_files[0][0]} needs --tls")
    kw: dict[str, Any] = {}
    if args.tls:
        kw.update(tls=True, ca=args.ca and read_bytes(args.ca), cert=args.cert and read_bytes(args.cert),
                  key=args.key and read_bytes(args.key))
    if args.token_file:
        token = decode_text(read_bytes(args.token_file, limit=64 * 1024), args.token_file).strip()
        if not token:
            raise errors.InvalidArgument(f"the token file {args.token_file} is empty")
        kw["token"] = token
    return kw


def _wants_json(argv: Sequence[str]) -> bool:
    """Whether errors should be JSON: --json among the options (before a ``--``)."""
    argv = list(argv)
    if "--" in argv:
        argv = argv[: argv.index("--")]
    return "--json" in argv


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``suggest`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    Never raises and never prints a traceback: every failure is one line on
    ``stderr`` (a JSON object ``{"error": ..., "code": ...}`` with ``--json``).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    out_stream = stdout or sys.stdout
    err_stream = stderr or sys.stderr
    json_errors = _wants_json(argv)

    def fail(code: int, message: str, prog: str = PROG) -> int:
        text = " ".join(str(message).split())
        if len(text) > _MAX_MESSAGE:
            text = text[: _MAX_MESSAGE - 3] + "..."
        if json_errors:
            print(json.dumps({"error": text, "code": code}), file=err_stream)
        else:
            print(f"{prog}: error: {text}", file=err_stream)
        return code

    parser = build_parser()
    if "_ARGCOMPLETE" in os.environ:  # the shell asks for completions (argcomplete)
        import argcomplete

        argcomplete.autocomplete(parser)
    try:
        args = parser.parse_args(argv)
    except UsageError as e:
        return fail(EXIT_BAD_INPUT, e.args[1], prog=e.args[0])
    except SystemExit as e:  # --help, --version
        return e.code if isinstance(e.code, int) else 0
    client = None
    try:
        client = connect(args.server, deadline=args.deadline, **_remote_options(args))
        if getattr(args, "ray", None) is not None:  # puzzle --count --ray (clients/ray_puzzle.py)
            # start-up time: only --ray needs it; solver.ray_count pulls in the puzzle search and split (~20 ms)
            from .ray_puzzle import ray_client

            client = ray_client(args, client)
        return int(args.func(args, client, Out(args, out_stream)))
    except errors.InvalidArgument as e:
        return fail(EXIT_BAD_INPUT, str(e))
    except (errors.ServiceUnavailable, errors.DeadlineExceeded, errors.Unauthenticated) as e:
        return fail(EXIT_SERVICE, str(e))
    except errors.ClientError as e:
        return fail(EXIT_SERVICE, f"service error {e.code}: {e}")
    except (ValueError, ArithmeticError, RecursionError) as e:  # the solver's / engine's narrow input errors
        return fail(EXIT_BAD_INPUT, str(e) or type(e).__name__)
    except KeyboardInterrupt:
        return fail(130, "interrupted")
    except BrokenPipeError:  # e.g. suggest patches | head
        if stdout is None:
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError):
                pass
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - a bug: still one line, never a traceback
        return fail(EXIT_INTERNAL, f"internal error (a bug, please report it): {type(e).__name__}: {e}")
    finally:
        if client is not None:
            client.close()


if __name__ == "__main__":
    sys.exit(main())
