"""The ``suggest`` argument parser: the options every command takes, and each command's own
(added by its module's ``add_to``). A usage error is one line (:class:`UsageError`), never argparse's
usage block and exit."""

from __future__ import annotations

import argparse
from typing import NoReturn, Sequence

from quiltsolve.solver import limits

from . import generate, move, next as next_, patches, place, play, puzzle, review, solve, state
from .options import INPUT_HELP, number, positive_float

PROG = "suggest"
COMMANDS = (place, next_, move, solve, state, review, play, puzzle, generate, patches)
"""The command modules, in the order ``suggest --help`` lists them."""


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
    s.add_argument("--time-limit", metavar="S", type=number, default=d(None),
                   help=f"solver time limit in seconds, at most {limits.MAX_TIME_LIMIT:g} (default "
                        f"{limits.DEFAULT_SOLVE_LIMIT:g} for place and puzzle, {limits.DEFAULT_SUGGEST_LIMIT:g} "
                        f"for next, move and play's hints); review: seconds per move; solve: at most "
                        f"{limits.MAX_SOLVE_POSITION_TIME:g} (default {limits.DEFAULT_SOLVE_POSITION_LIMIT:g})")
    r = p.add_argument_group("service (default: the solver runs in this process)")
    r.add_argument("--server", metavar="TARGET", default=d(None),
                   help="use a running placement service: HOST:PORT, ipv4:H:P1,H:P2 or dns:///NAME:PORT "
                        "(calls are balanced round-robin)")
    r.add_argument("--deadline", metavar="S", type=positive_float, default=d(5.0),
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


def build_parser() -> argparse.ArgumentParser:
    """The ``suggest`` argument parser (every sub-command, with full help)."""
    common = _common(sub=True)
    p = _Parser(prog=PROG, parents=[_common(sub=False)],
                description="Plan Patchwork patch placements and moves, and solve quilt puzzles.\n"
                            "'suggest COMMAND --help' shows a command's options.",
                epilog=INPUT_HELP + "\nexamples:\n  suggest place board.txt --patch 12 --patch '##./.##'\n"
                       "  suggest puzzle '...../...../.....' --piece '####/#...' --piece '###/.#./.#.' "
                       "--piece '.#../####'\n\nfull reference: docs/cli.md",
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"{PROG} (quiltsolve) {version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser,
                           title="commands")

    def add(name: str, help: str, examples: Sequence[str]) -> argparse.ArgumentParser:
        epilog = "examples:\n" + "".join(f"  {e}\n" for e in examples) + "\n" + INPUT_HELP
        return sub.add_parser(name, help=help, description=help, parents=[common], epilog=epilog,
                              formatter_class=argparse.RawDescriptionHelpFormatter)

    for command in COMMANDS:
        command.add_to(add)
    return p
