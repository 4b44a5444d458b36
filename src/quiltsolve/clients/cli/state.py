"""``suggest state``: a game position as state JSON or notation: a new deal, a record's game or a
position, after some moves. Records and positions are read by the service's codecs
(``server/records.py``, ``server/positions.py``), as every other command reads them."""

from __future__ import annotations

import argparse
import json
from typing import Any

from quiltsolve import engine
from quiltsolve.engine.players import GreedyPlayer
from quiltsolve.server import positions, records

from .. import errors
from ..inputs import read_position, read_record, record_message
from ..render import player_name, svg
from .options import AddCommand, int_range, whole
from .output import EXIT_OK, Out

MAX_PLIES = 10_000      # as python -m quiltsolve.engine state


def add_to(add: AddCommand) -> None:
    p = add("state", "print a game position as state JSON or notation (for suggest move, play --position)",
            ["suggest state --seed 7 --plies 20 > state.json; suggest move state.json --top 3",
             "suggest state --record games.jsonl --line 2 --plies 30 --format notation",
             "suggest state --position 'r 0,5,-,0 0,5,-,0 takbu68n1f9gopmeqs7hrjc4i32wd5vl0 0 -' --plies 4"])
    p.add_argument("--seed", type=whole, default=0, metavar="N",
                   help="deal of a new game (default 0)")
    p.add_argument("--edition", choices=("revised", "original"), default="revised",
                   help="edition of the new game (its leather spaces; default revised)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--record", metavar="RECORD.jsonl",
                     help="start from a game record's deal instead: a file or - for stdin (see --line)")
    src.add_argument("--position", metavar="STATE",
                     help="start from a position instead: state JSON or notation, a file, - or inline")
    p.add_argument("--line", type=int_range(1, 10**9), default=1, metavar="K",
                   help="with --record: which record of the file, counting non-empty lines from 1 (default 1)")
    p.add_argument("--plies", type=int_range(0, MAX_PLIES), default=0, metavar="K",
                   help="moves to play first: the record's first K actions, or K greedy moves (default 0)")
    p.add_argument("--format", choices=("json", "notation"), default="json",
                   help="the engine's state JSON or one line of notation (default json; --json wraps both)")
    p.set_defaults(func=run)


def position(args: argparse.Namespace) -> Any:
    """The position the options name, after their ``--plies`` moves."""
    if args.line != 1 and args.record is None:
        raise errors.InvalidArgument("--line needs --record")
    if args.record is not None:
        message = record_message(read_record(args.record, args.line))
        moves = len(message.actions)
        if args.plies > moves:
            raise errors.InvalidArgument(f"--plies {args.plies}: the record has {moves} "
                                         f"action{'s' if moves != 1 else ''}")
        try:        # every move replayed and checked, not only the first K (as the engine's state does)
            steps = records.plies(message, need_moves=False)
            return steps[args.plies][0] if args.plies < moves else records.final(message)
        except records.RecordError as e:
            raise errors.InvalidArgument(str(e), field=e.field) from None
    state: Any = read_position(args.position) if args.position is not None else engine.new_game(args.seed,
                                                                                                  args.edition)
    greedy = GreedyPlayer()
    for _ in range(args.plies):
        if state.is_terminal():
            break
        state.apply_action(greedy.choose(state))
    return state


def run(args: argparse.Namespace, client: Any, out: Out) -> int:
    """``suggest state``: print the position (no service call: the codecs and the engine's rules)."""
    state = position(args)
    player = state.current_player()
    out.svg(lambda: svg(9, 9, fixed=state.players[player].board,
                        title=f"{player_name(player)} to move" if not state.is_terminal() else "game over"))
    notation = positions.to_notation(state)
    if args.json:
        out.json({"state": positions.to_state_json(state), "notation": notation})
    elif args.format == "notation":
        out.stream.write(notation + "\n")
    else:
        out.stream.write(json.dumps(positions.to_state_json(state)) + "\n")
    return EXIT_OK
