"""The ``suggest`` command: placements, moves and puzzles from the terminal.

    suggest place board.txt --patch 12 --patch "##./.##"
    suggest next board.txt --patch 5 --upcoming 7,9,13 --json
    suggest move state.json --top 3
    suggest puzzle region.txt --piece "###/.#." --piece "##" --count
    suggest patches

Exit codes: 0 answer found, 1 no placement possible / infeasible / no move,
2 bad input (one line on stderr), 3 service unavailable or deadline
exceeded. See ``docs/cli.md`` for every option and the JSON shapes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from . import errors
from .inputs import patch_keys, read_board, read_text, region_rows

EXIT_OK, EXIT_NONE, EXIT_BAD_INPUT, EXIT_SERVICE = 0, 1, 2, 3
PROG = "suggest"


class UsageError(Exception):
    """Bad command-line syntax (reported as one line, exit 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line instead of usage + message
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, not {text}")
    return v


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, not {text}")
    return v


def _common(sub: bool) -> argparse.ArgumentParser:
    """Options every sub-command takes (also accepted before the sub-command)."""
    d = (lambda v: argparse.SUPPRESS) if sub else (lambda v: v)
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("common options")
    g.add_argument("--json", action="store_true", default=d(False),
                   help="print one JSON object instead of the drawing (shapes in docs/cli.md)")
    g.add_argument("--svg", metavar="FILE", default=d(None), help="also write the board as an SVG picture")
    g.add_argument("--server", metavar="HOST:PORT", default=d(None),
                   help="use a running placement service (any gRPC target, e.g. ipv4:H:P1,H:P2); "
                        "default: the embedded solver")
    g.add_argument("--time-limit", metavar="S", type=_positive_float, default=d(None),
                   help="solver time limit in seconds (default: the solver's)")
    g.add_argument("--deadline", metavar="S", type=_positive_float, default=d(5.0),
                   help="gRPC deadline per call in seconds, with --server (default 5; stretched to the "
                        "time limit + 2 s)")
    return p


_BOARD_HELP = ("a file of 9 lines of '.' (empty) and '#' (filled), - for stdin, "
               "or the 9 rows inline separated by '/'")
_PATCH_HELP = "a standard patch id (0-32) or a shape such as '##./.##'; repeat, or separate with commas"


def build_parser() -> argparse.ArgumentParser:
    common = _common(sub=True)
    p = _Parser(prog=PROG, parents=[_common(sub=False)],
                description="Plan Patchwork patch placements and moves, and solve quilt puzzles.",
                epilog="exit codes: 0 answer found, 1 no placement/infeasible, 2 bad input, "
                       "3 service unavailable or deadline exceeded\nexample: suggest place board.txt --patch 12",
                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    def add(name: str, help: str, example: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help, parents=[common],
                              epilog=f"example:\n  {example}", formatter_class=argparse.RawDescriptionHelpFormatter)

    pl = add("place", "best placements of candidate patches on a board",
             "suggest place board.txt --patch 12 --patch '##./.##' --objective square7")
    pl.add_argument("board", metavar="BOARD", help=_BOARD_HELP)
    pl.add_argument("--patch", "-p", action="append", required=True, metavar="P", help=_PATCH_HELP)
    pl.add_argument("--objective", choices=("cover", "square7"), default="cover",
                    help="cover: fewest empty cells; square7: complete a 7x7 window first (default cover)")
    pl.set_defaults(func=cmd_place)

    nx = add("next", "rank the placements of the patch to place now, looking ahead to upcoming patches",
             "suggest next board.txt --patch 5 --upcoming 7,9,13 --top 3")
    nx.add_argument("board", metavar="BOARD", help=_BOARD_HELP)
    nx.add_argument("--patch", "-p", required=True, metavar="P", help="the patch to place now (id or shape)")
    nx.add_argument("--upcoming", "-u", action="append", default=[], metavar="P", help=_PATCH_HELP)
    nx.add_argument("--square7", action="store_true", help="aim for the 7x7 bonus window too")
    nx.add_argument("--top", type=_positive_int, default=5, metavar="N", help="placements to show (default 5)")
    nx.set_defaults(func=cmd_next)

    mv = add("move", "rank the moves of a game state (the engine's GameState.to_json())",
             "python -m engine state --seed 7 --plies 20 > state.json; suggest move state.json --top 3")
    mv.add_argument("state", metavar="STATE", help="a file with the state JSON, or - for stdin")
    mv.add_argument("--top", type=_positive_int, default=None, metavar="N", help="moves to show (default all)")
    mv.add_argument("--iterations", type=_positive_int, default=None, metavar="N",
                    help="a fixed search budget instead of --time-limit: the same answer every run")
    mv.set_defaults(func=cmd_move)

    pz = add("puzzle", "tile a region exactly with pieces (each used at most once), or count the tilings",
             "suggest puzzle '...../...../.....' --piece '####/#...' --piece '###/.#./.#.' --piece '.#../####' --count")
    pz.add_argument("region", metavar="REGION",
                    help="a file (or - for stdin) of rows of '.' (cell to tile) and '#' (not part of the "
                         "region), any rectangle up to 20x20; or the rows inline separated by '/'")
    pz.add_argument("--piece", action="append", required=True, metavar="SHAPE",
                    help="a piece shape such as '##./.##' (or a standard patch id); repeat")
    pz.add_argument("--count", action="store_true", help="count the tilings instead of finding one")
    pz.add_argument("--no-mirror", action="store_true", help="pieces may be rotated but not mirrored")
    pz.add_argument("--allow-unused", action="store_true", help="pieces may stay unused (default: use all)")
    pz.add_argument("--ray", metavar="auto|local|ADDRESS",
                    help="with --count: split the count over a Ray cluster (docs/ray.md)")
    pz.set_defaults(func=cmd_puzzle)

    pa = add("patches", "draw the 33 standard patches with their costs", "suggest patches --json")
    pa.set_defaults(func=cmd_patches)
    return p


# ----------------------------------------------------------------- output
class Out:
    """Where a command writes: stdout (rich or JSON) and the SVG file."""

    def __init__(self, args, stream) -> None:
        from .render import console

        self.args = args
        self.stream = stream
        self.console = console(stream)

    def json(self, obj: Any) -> None:
        self.stream.write(json.dumps(obj) + "\n")

    def svg(self, text_fn: Callable[[], str]) -> None:
        if self.args.svg:
            try:
                Path(self.args.svg).write_text(text_fn())
            except OSError as e:
                raise errors.InvalidArgument(f"cannot write {self.args.svg}: {e.strerror or e}") from None


def _cells(mask: int, width: int = 9) -> list[list[int]]:
    from solver.geometry import cells_of

    return [[r, c] for r, c in cells_of(mask, width)]


def _key_json(key: Any) -> Any:
    return key


def _status_line(status) -> str:
    return {
        "OPTIMAL": "OPTIMAL (proven optimal)",
        "FEASIBLE": "FEASIBLE (not proven optimal)",
        "INFEASIBLE": "INFEASIBLE (proven impossible)",
        "UNKNOWN": "UNKNOWN (time ran out before any answer)",
    }[status.value]


def _key_label(key: Any) -> str:
    from solver.patches import LEATHER_PATCH_ID, PATCHES

    if isinstance(key, int):
        if key == LEATHER_PATCH_ID:
            return "leather #"
        return f"patch {key} {PATCHES[key].shape.to_str()}"
    return f"shape {key}"


def _legend(out: Out, labels: list[str]) -> None:
    from rich.text import Text

    from .render import colour, letter

    for i, label in enumerate(labels):
        t = Text()
        t.append(letter(i), style=f"bold black on {colour(i)}")
        t.append(f" = {label}")
        out.console.print(t)


def _window_line(window) -> str:
    if window is None:
        return "7×7 window: none completed"
    r, c = window
    return f"7×7 window: completed at rows {r}-{r + 6}, cols {c}-{c + 6} (underlined)"


# ---------------------------------------------------------------- commands
def cmd_place(args, client, out: Out) -> int:
    from .render import grid_text, svg

    board = read_board(args.board)
    keys = patch_keys(args.patch)
    res = client.solve_placement(board, keys, objective=args.objective, time_limit=args.time_limit)
    pieces = [(p.mask, i) for i, p in enumerate(res.placements)]
    found = res.status.value in ("OPTIMAL", "FEASIBLE") and bool(res.placements)
    out.svg(lambda: svg(9, 9, fixed=board, pieces=pieces, window=res.square7,
                        title=f"{res.status.value}: empty {res.empty_before} -> {res.empty_after}"))
    if args.json:
        out.json({
            "status": res.status.value, "empty_before": res.empty_before, "empty_after": res.empty_after,
            "covered": res.objective, "bound": res.bound,
            "placements": [{"patch": _key_json(p.key), "orientation": p.orientation, "cells": _cells(p.mask)}
                           for p in res.placements],
            "square7": None if res.square7 is None else {"row": res.square7[0], "col": res.square7[1]},
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


def cmd_next(args, client, out: Out) -> int:
    from rich.table import Table

    from .render import grid_text, svg

    board = read_board(args.board)
    (key,) = patch_keys([args.patch]) if "," not in args.patch else (None,)
    if key is None:
        raise errors.InvalidArgument("--patch takes one patch; put the others in --upcoming")
    ups = patch_keys(args.upcoming)
    res = client.suggest_placement(board, key, ups, square7=args.square7, time_limit=args.time_limit,
                                   top=args.top)
    ranked = list(res.ranked)[: args.top]
    best = ranked[0] if ranked else None
    pieces = [(best.placement.mask, 0)] if best else []
    window = best.square7 if best else None
    out.svg(lambda: svg(9, 9, fixed=board, pieces=pieces, window=window, title=f"{res.status.value}: best placement"))
    if args.json:
        out.json({
            "status": res.status.value, "patch": _key_json(key), "upcoming": ups,
            "empty_before": 81 - board.bit_count(),
            "ranked": [{"patch": _key_json(r.placement.key), "orientation": r.placement.orientation,
                        "cells": _cells(r.placement.mask), "value": r.value, "bound": r.bound, "proven": r.proven,
                        "square7": None if r.square7 is None else {"row": r.square7[0], "col": r.square7[1]}}
                       for r in ranked],
            "wall_time": round(res.wall_time, 4),
        })
    else:
        out.console.print(f"status: {_status_line(res.status)}")
        if best is not None:
            out.console.print(f"empty cells: {81 - board.bit_count()} → {81 - (board | best.placement.mask).bit_count()}")
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


def _move_json(s) -> dict:
    from engine.actions import Advance, Buy, PlaceLeather

    a = s.action
    d: dict[str, Any] = {"action": a.to_str(), "value": s.value, "reason": s.reason}
    if isinstance(a, Advance):
        d.update(kind="advance", patch=None, cells=[])
    elif isinstance(a, Buy):
        d.update(kind="buy", patch=a.patch_id, cells=_cells(a.mask))
    elif isinstance(a, PlaceLeather):
        d.update(kind="leather", patch=None, cells=[list(a.cell)])
    return d


def cmd_move(args, client, out: Out) -> int:
    from rich.table import Table

    from .embedded import load_state
    from .render import grid_text, svg

    state = load_state(read_text(args.state))
    moves = client.suggest_move(state.to_json(), time_limit=args.time_limit, top=args.top,
                                iterations=args.iterations)
    player = state.current_player()
    board = state.players[player].board
    best = moves[0] if moves else None
    mask = getattr(best.action, "mask", 0) if best else 0
    pieces = [(mask, 0)] if mask else []
    out.svg(lambda: svg(9, 9, fixed=board, pieces=pieces,
                        title=f"player {player}: {best.action.to_str() if best else 'game over'}"))
    if args.json:
        out.json({"player": player, "terminal": state.is_terminal(), "moves": [_move_json(m) for m in moves]})
    else:
        if best is None:
            out.console.print("game over: no move to suggest")
            return EXIT_NONE
        p = state.players[player]
        out.console.print(f"player {player} to move: space {p.position}, {p.buttons} buttons, income {p.income}")
        out.console.print(f"best: {best.action.to_str()}")
        out.console.print(f"empty cells: {81 - board.bit_count()} → {81 - (board | mask).bit_count()}")
        out.console.print(grid_text(9, 9, fixed=board, pieces=pieces))
        t = Table(title="moves, best first")
        for col in ("#", "move", "value", "reason"):
            t.add_column(col)
        for i, m in enumerate(moves, 1):
            t.add_row(str(i), m.action.to_str(), f"{m.value:.2f}", m.reason)
        out.console.print(t)
    return EXIT_OK if best is not None else EXIT_NONE


def cmd_puzzle(args, client, out: Out) -> int:
    from .inputs import piece_shapes
    from .render import grid_text, svg

    rows = region_rows(read_text(args.region))
    shapes = piece_shapes(args.piece)
    res = client.solve_puzzle(rows, shapes, count=args.count, mirror=not args.no_mirror,
                              use_all=not args.allow_unused, time_limit=args.time_limit)
    height, width = len(rows), len(rows[0])
    outside = sum(1 << (r * width + c) for r in range(height) for c in range(width) if rows[r][c] == "#")
    tiling = res.tilings[0] if res.tilings else ()
    # One letter per placed piece, in tiling order, matching the legend below.
    pieces = [(p.mask, i) for i, p in enumerate(tiling)]
    if args.count:
        found = bool(res.count) and res.status.value in ("OPTIMAL", "FEASIBLE")
    else:
        found = bool(tiling)
    out.svg(lambda: svg(height, width, outside=outside, pieces=pieces, title=f"{res.status.value}"))
    if args.json:
        obj: dict[str, Any] = {"status": res.status.value, "width": width, "height": height}
        if args.count:
            obj.update(count=res.count, distinct=res.distinct)
        else:
            obj["tilings"] = [[{"piece": p.key, "shape": shapes[p.key].to_str() if isinstance(p.key, int) else p.key,
                                "orientation": p.orientation, "cells": _cells(p.mask, width)} for p in t]
                              for t in res.tilings]
        obj["wall_time"] = round(res.wall_time, 4)
        out.json(obj)
    else:
        out.console.print(f"status: {_status_line(res.status)}")
        if args.count:
            exact = "" if res.status.value in ("OPTIMAL", "INFEASIBLE") else " (at least: the count did not finish)"
            out.console.print(f"tilings: {res.count}{exact}; distinct up to the region's symmetries: {res.distinct}")
        elif tiling:
            out.console.print(grid_text(height, width, outside=outside, pieces=pieces))
            _legend(out, [f"piece {p.key} {shapes[p.key].to_str()}" if isinstance(p.key, int) else str(p.key)
                          for p in tiling])
        else:
            out.console.print("no tiling")
    return EXIT_OK if found else EXIT_NONE


def cmd_patches(args, client, out: Out) -> int:
    from rich.columns import Columns
    from rich.text import Text

    from .render import grid_text

    patches = client.list_patches()
    if args.svg:
        from .render import svg

        def sheet() -> str:
            # All patches side by side on one strip, 6 columns per patch.
            width, height = 6 * len(patches), 6
            pieces = []
            for i, p in enumerate(patches):
                pieces.append((sum(1 << ((r + 1) * width + 6 * i + 1 + c) for r, c in p.shape.cells), i))
            return svg(height, width, pieces=pieces, title="the 33 standard patches", cell=12)

        out.svg(sheet)
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
def main(argv: list[str] | None = None, *, stdout=None, stderr=None) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr

    def fail(code: int, message: str) -> int:
        print(f"{PROG}: error: {' '.join(str(message).split())}", file=stderr)
        return code

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as e:
        print(" ".join(str(e).split()), file=stderr)
        return EXIT_BAD_INPUT
    except SystemExit as e:  # --help
        return int(e.code or 0)
    client = None
    try:
        from . import connect

        client = connect(args.server, deadline=args.deadline)
        if getattr(args, "ray", None) is not None:  # puzzle --count --ray (clients/ray_puzzle.py)
            from .ray_puzzle import ray_client
            client = ray_client(args, client)
        return args.func(args, client, Out(args, stdout))
    except errors.InvalidArgument as e:
        return fail(EXIT_BAD_INPUT, str(e))
    except (errors.ServiceUnavailable, errors.DeadlineExceeded) as e:
        return fail(EXIT_SERVICE, str(e))
    except errors.ClientError as e:
        return fail(EXIT_SERVICE, f"service error {e.code}: {e}")
    except ValueError as e:  # the solver's / engine's narrow input errors
        return fail(EXIT_BAD_INPUT, str(e))
    except KeyboardInterrupt:
        return fail(130, "interrupted")
    except BrokenPipeError:
        return EXIT_OK
    finally:
        if client is not None:
            client.close()


if __name__ == "__main__":
    sys.exit(main())
