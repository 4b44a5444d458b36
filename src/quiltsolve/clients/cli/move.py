"""``suggest move``: rank the moves of a game position with the engine's search."""

from __future__ import annotations

import argparse
from typing import Any

from quiltsolve.engine.actions import Advance, Buy, PlaceLeather
from quiltsolve.server import positions
from quiltsolve.solver import limits
from quiltsolve.solver.patches import LEATHER_PATCH_ID

from ..i18n import _, ngettext
from ..inputs import read_position
from ..render import grid_text, player_name, reason_text, search_line, svg
from .options import AddCommand, whole
from .output import EXIT_NONE, EXIT_OK, Out, cells, legend_entry


def add_to(add: AddCommand) -> None:
    p = add("move", "rank the moves of a game position with the engine's search",
            ["suggest state --seed 7 --plies 20 > state.json; suggest move state.json --top 3",
             "suggest move state.json --iterations 2000 --json",
             "suggest move 'r 0,5,-,0 0,5,-,0 takbu68n1f9gopmeqs7hrjc4i32wd5vl0 0 -' --top 2",
             "suggest move state.json --notation",
             "suggest move state.json --watch --top 5",
             "suggest move state.json --watch --json --iterations 20000 > updates.ndjson"])
    p.add_argument("state", metavar="STATE",
                   help="the position: state JSON or notation, in a file, - for stdin, or inline")
    p.add_argument("--top", type=whole, default=None, metavar="N",
                   help="moves to show (default all; 0: all)")
    p.add_argument("--iterations", type=whole, default=None, metavar="N",
                   help=f"a fixed search budget (1-{limits.MAX_ITERATIONS}) instead of --time-limit: the same "
                        "answer every run")
    p.add_argument("--notation", action="store_true",
                   help="only print the position in the engine's notation (one line; no search)")
    p.add_argument("--watch", action="store_true",
                   help="analyse while the search runs: redraw the table every 0.2 s until the budget is spent "
                        "(--iterations or --time-limit; neither: until Ctrl-C, at most "
                        f"{limits.MAX_ANALYSIS_TIME / 60:g} minutes) or Ctrl-C; with --json, one JSON object a "
                        "line per update (NDJSON)")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also show the share of playouts each move won (raw and uncalibrated: the value "
                        "column is the win chance)")
    p.set_defaults(func=run)


def move_json(s: Any) -> dict[str, Any]:
    """One ranked move in ``suggest move --json``."""
    a = s.action
    d: dict[str, Any] = {"action": a.to_str(), "win_chance": s.win_chance, "value": s.win_chance,
                         "proven_margin": getattr(s, "proven_margin", None), "reason": s.reason}
    if isinstance(a, Advance):
        d.update(kind="advance", patch=None, cells=[])
    elif isinstance(a, Buy):
        d.update(kind="buy", patch=a.patch_id, cells=cells(a.mask))
    elif isinstance(a, PlaceLeather):
        d.update(kind="leather", patch=None, cells=[list(a.cell)])
    return d


def run(args: argparse.Namespace, client: Any, out: Out) -> int:
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
    if args.watch:
        return watch(args, client, out, state, notation)
    moves = client.suggest_move(state, time_limit=args.time_limit, top=args.top,
                                iterations=args.iterations)
    player = state.current_player()
    board = state.players[player].board
    best = moves[0] if moves else None
    mask = getattr(best.action, "mask", 0) if best else 0
    pieces = [(mask, 0)] if mask else []
    legend = []
    if best is not None and isinstance(best.action, Buy):
        legend = [legend_entry(best.action.patch_id)]
    elif best is not None and isinstance(best.action, PlaceLeather):
        legend = [legend_entry(LEATHER_PATCH_ID)]
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
                  "moves": [move_json(m) for m in moves]})
    else:
        out.console.print(_("position: {notation}").format(notation=notation))
        if best is None:
            out.console.print(_("game over: no move to suggest"))
            return EXIT_NONE
        p = state.players[player]
        out.console.print(ngettext("{player} to move: space {space}, {n} button, income {income}",
                                   "{player} to move: space {space}, {n} buttons, income {income}",
                                   p.buttons).format(player=player_name(player), space=p.position, n=p.buttons,
                                                     income=p.income))
        out.console.print(search_line(moves))
        out.console.print(_("best: {move}").format(move=best.action.to_str()))
        out.console.print(_("empty cells: {before} → {after}").format(before=81 - board.bit_count(),
                                                                       after=81 - (board | mask).bit_count()))
        out.console.print(grid_text(9, 9, fixed=board, pieces=pieces))
        title = (_("moves, best first (value = chance of winning; proven = exact final margin in points, "
                   "perfect play)") if proven else _("moves, best first (value = estimated chance of winning)"))
        t = Table(title=title)     # (the search line is printed once, above)
        cols = (("#", _("move"), _("value"), _("proven"), _("reason")) if proven
                else ("#", _("move"), _("value"), _("reason")))
        for col in cols:
            t.add_column(col)
        for i, m in enumerate(moves, 1):
            row = [str(i), m.action.to_str(), f"{m.win_chance:.2f}"]
            if proven:
                row.append("-" if m.proven_margin is None else f"{m.proven_margin:+d}")
            t.add_row(*row, reason_text(m.reason, args.verbose))
        out.console.print(t)
    return EXIT_OK if best is not None else EXIT_NONE


# ---------------------------------------------------------------- --watch: the analysis as it runs

WATCH_INTERVAL = 0.2   # seconds between two redraws (five a second)
LINE_SHOWN = 4         # moves of a principal variation in the table


def short_move(action: Any) -> str:
    """A move in a principal variation: ``advance``, ``buy 25``, ``leather 4,4``."""
    if isinstance(action, Buy):
        return f"buy {action.patch_id}"
    return action.to_str()


def update_json(update: Any, notation: str) -> dict[str, Any]:
    """One update of ``suggest move --watch --json``: the ``--json`` answer's fields, each move with its
    visits, mean margin and principal variation, and whether it is the last."""
    return {"player": update.player, "notation": notation, "iterations": update.iterations,
            "searched": update.searched, "proven": update.proven, "value": update.value, "final": update.final,
            "elapsed": round(update.elapsed, 4),
            "moves": [{**move_json(m), "visits": m.visits,
                       "mean_margin": None if m.mean_margin is None else round(m.mean_margin, 3),
                       "line": [a.to_str() for a in m.line]} for m in update.moves]}


def watch_view(update: Any, state: Any, notation: str, verbose: bool) -> Any:
    """What ``suggest move --watch`` draws for one update: the position, how far the analysis is, the table."""
    from rich.console import Group
    from rich.table import Table

    player = state.current_player()
    p = state.players[player]
    elapsed = f"{update.elapsed:.1f}"
    if update.proven:
        how = _("proven: the endgame solver found the exact value of every move ({elapsed} s)").format(elapsed=elapsed)
    elif update.searched:
        how = ngettext("search: {n} iteration in {elapsed} s", "search: {n} iterations in {elapsed} s",
                       update.iterations).format(n=update.iterations, elapsed=elapsed)
    else:
        how = _("starting: {elapsed} s (the endgame solver and the root's placements first)").format(elapsed=elapsed)
    how += _(" — final") if update.final else _(" — running (Ctrl-C stops)")
    head = [_("position: {notation}").format(notation=notation),
            ngettext("{player} to move: space {space}, {n} button, income {income}",
                     "{player} to move: space {space}, {n} buttons, income {income}",
                     p.buttons).format(player=player_name(player), space=p.position, n=p.buttons, income=p.income),
            how]
    t = Table(title=_("moves, best first (value = chance of winning; proven = exact final margin in points, "
                      "perfect play)") if update.proven else _("moves, best first (value = estimated chance of winning)"))
    cols = ["#", _("move"), _("value")] + ([_("proven")] if update.proven else [_("visits"), _("margin"), _("line")])
    if verbose:
        cols.append(_("reason"))
    for col in cols:
        t.add_column(col)
    for i, m in enumerate(update.moves, 1):
        row = [str(i), m.action.to_str(), f"{m.win_chance:.2f}"]
        if update.proven:
            row.append("-" if m.proven_margin is None else f"{m.proven_margin:+d}")
        else:
            row += [str(m.visits), "-" if m.mean_margin is None else f"{m.mean_margin:+.1f}",
                    " → ".join(short_move(a) for a in m.line[:LINE_SHOWN]) + (" …" if len(m.line) > LINE_SHOWN else "")]
        if verbose:
            row.append(reason_text(m.reason, True))
        t.add_row(*row)
    return Group(*head, t)


def watch(args: argparse.Namespace, client: Any, out: Out, state: Any, notation: str) -> int:
    """``suggest move --watch``: the analysis (AnalyzePosition) drawn as it runs, or NDJSON with ``--json``."""
    from rich.live import Live

    open_ended = args.iterations is None and args.time_limit is None
    updates = client.analyze_position(state, iterations=args.iterations, time_limit=args.time_limit,
                                      until_cancelled=open_ended, top=args.top, report_interval=WATCH_INTERVAL)
    last = None
    try:
        if args.json:
            for last in updates:
                out.json(update_json(last, notation))
                out.stream.flush()
        else:
            with Live(console=out.console, refresh_per_second=8, auto_refresh=False) as live:
                try:
                    for last in updates:
                        live.update(watch_view(last, state, notation, args.verbose), refresh=True)
                except KeyboardInterrupt:
                    pass    # Ctrl-C ends the watch: the last table stays
    except KeyboardInterrupt:
        pass
    finally:
        updates.close()     # cancels the analysis (its worker is free at once)
    if last is None or not last.moves:
        if not args.json:
            out.console.print(_("position: {notation}").format(notation=notation))
            out.console.print(_("game over: no move to suggest"))
        return EXIT_NONE
    return EXIT_OK
