"""``suggest solve``: solve a game position exactly, the proven interval of its value printed as it narrows."""

from __future__ import annotations

import argparse
from typing import Any

from quiltsolve.engine.actions import Buy
from quiltsolve.server import positions
from quiltsolve.solver import limits

from ..i18n import _, ngettext
from ..inputs import read_position
from ..render import player_name
from .options import AddCommand, number, whole
from .output import EXIT_NONE, EXIT_OK, Out

REPORT_INTERVAL = 1.0   # seconds between two lines (the service's default is 0.2 s)
LINE_SHOWN = 6          # moves of the best line in a progress line


def add_to(add: AddCommand) -> None:
    p = add("solve", "solve a game position exactly: the proven interval of its value as it narrows, then the "
                     "exact value and a perfect line",
            ["suggest state --seed 7 --plies 38 > late.json; suggest solve late.json",
             "suggest solve late.json --time-limit 600 --json > updates.ndjson",
             "suggest solve late.json --ray auto",
             "suggest solve late.json --ray local --workers 2"])
    p.add_argument("state", metavar="STATE",
                   help="the position: state JSON or notation, in a file, - for stdin, or inline")
    p.add_argument("--report-interval", type=number, default=REPORT_INTERVAL, metavar="S",
                   help=f"seconds between two updates (default {REPORT_INTERVAL:g}; at least "
                        f"{limits.MIN_REPORT_INTERVAL:g})")
    p.add_argument("--table-mb", type=whole, default=None, metavar="MB",
                   help=f"the solver's transposition table in MiB (default "
                        f"{limits.DEFAULT_SOLVE_TABLE_BYTES >> 20}; at most the server's --table-bytes)")
    p.add_argument("--ray", metavar="auto|local|ADDRESS",
                   help="solve on a Ray cluster: the root's moves and their replies as tasks (docs/ray.md)")
    p.add_argument("--workers", type=whole, default=None, metavar="N",
                   help="with --ray: solver actors (default one per CPU of the cluster)")
    p.set_defaults(func=run)


def short(action: Any) -> str:
    """A move in a progress line: ``buy 25``, ``advance``, ``leather 4,4``."""
    return f"buy {action.patch_id}" if isinstance(action, Buy) else action.to_str()


def signed(v: int) -> str:
    return f"{v:+d}"


def update_json(u: Any, notation: str) -> dict[str, Any]:
    """One update of ``suggest solve --json`` (one JSON object a line)."""
    return {"notation": notation, "player": u.player, "lower": u.lower, "upper": u.upper, "exact": u.exact,
            "value": u.value, "nodes": u.nodes, "elapsed": round(u.elapsed, 4), "probes": u.probes,
            "line": [a.to_str() for a in u.line], "final": u.final, "reason": u.reason,
            "table_full": u.table_full, "table_bytes": u.table_bytes, "workers": u.workers}


def progress_line(u: Any) -> str:
    """One progress line: the time, the positions searched, the interval, the best line so far."""
    line = " → ".join(short(a) for a in u.line[:LINE_SHOWN]) + (" …" if len(u.line) > LINE_SHOWN else "")
    return ngettext("{elapsed} s, {n} position: [{lower}, {upper}]  {line}",
                    "{elapsed} s, {n} positions: [{lower}, {upper}]  {line}", u.nodes).format(
        elapsed=f"{u.elapsed:6.1f}", n=f"{u.nodes:,}", lower=signed(u.lower), upper=signed(u.upper), line=line)


def verdict(value: int, player: int) -> str:
    """What an exact value means for the player to move."""
    who = player_name(player)
    if value > 0:
        return ngettext("{player} wins by {n} point with perfect play", "{player} wins by {n} points with perfect play",
                        value).format(player=who, n=value)
    if value < 0:
        return ngettext("{player} loses by {n} point with perfect play",
                        "{player} loses by {n} points with perfect play", -value).format(player=who, n=-value)
    return _("a tie on points with perfect play (the tie rule: who reached space 53 first wins)")


def work(u: Any) -> str:
    """The time, the positions and the workers of a solve, in words."""
    took = ngettext("{elapsed} s, {n} position", "{elapsed} s, {n} positions", u.nodes).format(
        elapsed=f"{u.elapsed:.1f}", n=f"{u.nodes:,}")
    if u.workers > 1:
        took += ngettext(", {n} worker", ", {n} workers", u.workers).format(n=u.workers)
    return took


def run(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest solve``: the exact solve of a position, streamed."""
    state: Any = read_position(args.state)
    notation = positions.to_notation(state)
    if args.ray is None and args.workers is not None:
        raise ValueError("--workers is the number of Ray actors: use it with --ray")
    # with --ray the client is clients.ray_solve.RaySolveClient (the solve on the cluster)
    updates = client.solve_position(state, time_limit=args.time_limit, report_interval=args.report_interval,
                                    table_mb=args.table_mb)
    player = state.current_player()
    if not args.json:
        p = state.players[player]
        out.console.print(_("position: {notation}").format(notation=notation), highlight=False)
        out.console.print(ngettext("{player} to move: space {space}, {n} button, income {income}",
                                   "{player} to move: space {space}, {n} buttons, income {income}", p.buttons).format(
            player=player_name(player), space=p.position, n=p.buttons, income=p.income), highlight=False)
        out.console.print(_("values are {player}'s final margin: their score minus the other's, both playing "
                            "perfectly").format(player=player_name(player)), highlight=False)
    last = None
    try:
        for last in updates:
            if args.json:
                out.json(update_json(last, notation))
            elif not last.final:
                out.console.print(progress_line(last), highlight=False)
            out.stream.flush()
    except KeyboardInterrupt:
        if not args.json:
            out.console.print(_("stopped (Ctrl-C)"))
    finally:
        close = getattr(updates, "close", None)
        if close is not None:
            close()     # cancels the solve (its worker is free at once)
    if last is None:
        return EXIT_NONE
    if not args.json:
        if last.exact:
            out.console.print(_("exact value: {value}: {verdict} ({work})").format(
                value=signed(last.value), verdict=verdict(last.value, player), work=work(last)), highlight=False)
            if last.line:
                out.console.print(_("line: {moves}").format(moves=", ".join(a.to_str() for a in last.line)),
                                  highlight=False)
        else:
            why = _("the time limit passed") if last.reason == "time" else _("stopped")
            out.console.print(_("not solved ({why}): the value is proven to lie in [{lower}, {upper}] ({work})").format(
                why=why, lower=signed(last.lower), upper=signed(last.upper), work=work(last)), highlight=False)
    return EXIT_OK if last.exact else EXIT_NONE
