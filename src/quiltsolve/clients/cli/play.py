"""``suggest play``: Patchwork at the terminal against the engine, or a game followed at a table.

The session itself (the board, the prompt, the moves) is :mod:`clients.play`;
this module reads the options and starts it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from quiltsolve.engine.players import make_player
from quiltsolve.server.errors import BadRequest, FailedPrecondition
from quiltsolve.server.service import RPCS, Bounds

from .. import errors, wire
from ..play import PlaySession, start_game
from .options import AddCommand, int_range, whole
from .output import Out

DEFAULT_ENGINE = "search:0.5"  # suggest play's opponent


def add_to(add: AddCommand) -> None:
    p = add("play", "play Patchwork at the terminal against the engine, or follow a game at a table",
            ["suggest play --engine level:3 --side 1 --seed 7",
             "suggest play --engine search:1.0 --load game.jsonl",
             "suggest play --follow --circle 12,5,30,1,22,8,17,26,3,9,31,14,20,6,25,11,28,2,18,32,"
             "10,23,4,27,15,7,29,21,13,24,16,19,0",
             "suggest play --follow --position 'r 0,5,-,0 0,5,-,0 takbu68n1f9gopmeqs7hrjc4i32wd5vl0 0 -'",
             "suggest play --follow --server 127.0.0.1:50051"])
    p.add_argument("--engine", default=DEFAULT_ENGINE, metavar="SPEC",
                   help="the opponent, a player of the engine: level:1 ... level:8 (graded, level 8 the "
                        "strongest), greedy, random, search:S (S seconds a move), search:Nit, mcts:N, ... "
                        f"(default {DEFAULT_ENGINE})")
    p.add_argument("--side", type=int, choices=(0, 1), default=0,
                   help="which player you are against the engine, by index: 0 = player 1 (moves first), "
                        "1 = player 2 (default 0)")
    p.add_argument("--follow", action="store_true",
                   help="no engine opponent: enter both players' moves (follow a game at a table)")
    p.add_argument("--seed", type=int_range(0, 2**31 - 1), default=0, metavar="N",
                   help="deal of the new game, and the engine player's seed (default 0)")
    p.add_argument("--edition", choices=("revised", "original"), default="revised",
                   help="edition of the new game (its leather spaces; default revised)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--load", metavar="FILE",
                     help="continue a saved game: an engine record (see --line) or a saved position")
    src.add_argument("--position", metavar="STATE",
                     help="start from a position: state JSON or notation, a file or inline")
    src.add_argument("--circle", metavar="IDS",
                     help="a new game whose circle is laid out as on your table: the 33 patch ids separated "
                          "by commas, clockwise from the neutral token (the spool), patch 0 last (see "
                          "suggest patches)")
    p.add_argument("--line", type=int_range(1, 10**9), default=1, metavar="K",
                   help="with --load: which record of the file, counting non-empty lines from 1 (default 1)")
    p.add_argument("--iterations", type=whole, default=None, metavar="N",
                   help="hints search a fixed budget of N iterations (the same hint every time) instead of "
                        "--time-limit (default 1 s)")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="hints also show the share of playouts each move won (raw and uncalibrated)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest play``: a game at the terminal (see :mod:`clients.play`)."""
    if args.json or args.svg:
        raise errors.InvalidArgument(f"{'--json' if args.json else '--svg'}: play is a terminal session; "
                                     "save FILE writes the game as a record")
    if args.line != 1 and args.load is None:
        raise errors.InvalidArgument("--line needs --load")
    start, actions, fresh, seed = start_game(seed=args.seed, edition=args.edition, load=args.load, line=args.line,
                                             position=args.position, circle=args.circle, client=client)
    check_hint_options(start, args.time_limit, args.iterations)
    player = None
    if not args.follow:
        try:
            player = make_player(args.engine, args.seed, client if args.server else None)
        except ValueError as e:     # an unknown player or a bad argument (level:9): the option is named
            raise errors.InvalidArgument(f"--engine: {e}", field="--engine") from None
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


def check_hint_options(state: Any, time_limit: float | None, iterations: int | None) -> None:
    """Refuse bad hint options (``--time-limit``, ``--iterations``) before the game starts, not at the
    first hint. The hints' SuggestMove request is built by the client path (``clients.wire``) and
    checked by the service's own pure plan of that RPC (``server.service.RPCS``: validation only, no
    search), so there is no second set of rules; a finished game is not an error here (its hints say so)."""
    request = wire.suggest_move_call(state, time_limit, None, iterations, 0).request
    try:
        RPCS["SuggestMove"].plan(request, Bounds())
    except BadRequest as e:
        raise wire.error_from_status(e.code, e.details) from None
    except FailedPrecondition:      # the game is over: the options were read, and the hints will say so
        pass
