# PYTHON_ARGCOMPLETE_OK
"""Command line: ``python -m quiltsolve.engine match|replay ...`` (also ``quiltsolve-engine``).

    python -m quiltsolve.engine match --a search:0.2 --b greedy --games 10
    python -m quiltsolve.engine replay games.jsonl

``state`` and ``review`` gave way to ``suggest state`` and ``suggest review``
(issue 35), which read records and positions with the service's codecs. The
old names still run them, with the same flags (``--notation TEXT`` is
``--position TEXT`` there), until 0.4: the engine never imports the clients,
so it finds ``suggest`` through the ``quiltsolve.programs`` entry point, as
it finds the service's advisor through ``quiltsolve.advisors``.

Bad input of any kind (arguments, files, JSON, records) exits 2 with one
line on stderr, never a traceback. Files are read up to 16 MiB, as UTF-8
(a byte-order mark is fine); ``-`` reads standard input. Shell completion:
``eval "$(register-python-argcomplete quiltsolve-engine)"`` when
argcomplete is installed.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Callable, NoReturn

from quiltsolve.solver.ray_count import RayUnavailableError  # imports no Ray: that happens only with --ray

from .advisor import Advisor, PluginError, advisor_from_entry_point, load_entry_point
from .distributed import check_ray
from .match import PlayerError, run_match
from .notation import NotationError
from .players import Player, known_players, make_player
from .record import RecordError, replay
from .state_json import quote
from .track import DEFAULT_EDITION, EDITIONS

try:  # optional: shell completion
    import argcomplete
except ImportError:  # pragma: no cover - argcomplete not installed
    argcomplete = None  # type: ignore[assignment]

MAX_INPUT_BYTES = 16 * 1024 * 1024
MAX_MESSAGE = 300
MAX_GAMES = 1_000_000
MAX_PLIES = 10_000


class InputError(ValueError):
    """Input this command cannot use; the message is the one line to print."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {_one_line(message)}\n")


def _one_line(message: str) -> str:
    message = " ".join(str(message).split())
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE - 3] + "..."


def _prog() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name if name == "quiltsolve-engine" else "python -m quiltsolve.engine"


def _version() -> str:
    try:
        return version("quiltsolve")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree that is not installed
        return "unknown"


def _int_in(lo: int | None, hi: int | None = None) -> Callable[[str], int]:
    """An argparse type: a decimal integer (at most 20 digits) in [lo, hi]."""
    def parse(text: str) -> int:
        t = text.strip()
        digits = t[1:] if t[:1] == "-" else t
        ok = digits.isascii() and digits.isdigit() and len(digits) <= 20
        if not ok or (lo is not None and int(t) < lo) or (hi is not None and int(t) > hi):
            want = (f"an integer {lo}-{hi}" if lo is not None and hi is not None
                    else f"an integer >= {lo}" if lo is not None else "an integer")
            raise argparse.ArgumentTypeError(f"must be {want}, not {text[:40]!r}")
        return int(t)
    return parse


def _float_in(lo: float, hi: float) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            v = float("nan")
        if not lo < v <= hi:
            raise argparse.ArgumentTypeError(f"must be a number in ({lo:g}, {hi:g}], not {text[:40]!r}")
        return v
    return parse


def _player_specs(prefix: str, **_: object) -> list[str]:
    return [n for n in known_players() if n.startswith(prefix)]


def _files(action: argparse.Action) -> argparse.Action:
    if argcomplete is not None:
        action.completer = argcomplete.completers.FilesCompleter(("jsonl", "json"))  # type: ignore[attr-defined]
    return action


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog=_prog(), description="Patchwork game engine: matches and record replay.",
                epilog="state and review are now `suggest state` and `suggest review` (the same flags; "
                       "--notation is --position); this program still runs them until 0.4. "
                       "Bad input exits 2 with one line on stderr. Details: docs/engine.md")
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}",
                   help="print the quiltsolve version and exit")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")

    m = sub.add_parser("match", help="play two players against each other",
                       description="Play games in pairs on the same deal (side a first, then side b first) "
                                   "and print wins, mean scores and side a's win rate.",
                       epilog="example: python -m quiltsolve.engine match --a search:0.2 --b greedy --games 10")
    a = m.add_argument("--a", required=True, metavar="SPEC",
                       help="player spec for side a: random, greedy, level:1 ... level:8, mcts:2000, search:1.0, "
                            "search:500it, service")
    a.completer = _player_specs  # type: ignore[attr-defined]
    b = m.add_argument("--b", required=True, metavar="SPEC", help="player spec for side b (as --a)")
    b.completer = _player_specs  # type: ignore[attr-defined]
    m.add_argument("--games", type=_int_in(1, MAX_GAMES), default=200, metavar="N",
                   help="games to play, in pairs on the same deal (default 200)")
    m.add_argument("--seed", type=_int_in(None), default=0, metavar="N",
                   help="seed of the deals; side a's player gets it, side b's player seed+1 (default 0)")
    m.add_argument("--edition", choices=EDITIONS, default=DEFAULT_EDITION,
                   help=f"which printing's leather spaces (default {DEFAULT_EDITION})")
    _files(m.add_argument("--records", metavar="FILE", help="write every game record to FILE as JSON lines"))
    m.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    m.add_argument("--server", metavar="HOST:PORT", help="placement service for players that use one")
    m.add_argument("--ray", metavar="auto|local|ADDRESS", help="play the games as Ray tasks (docs/ray.md)")

    r = sub.add_parser("replay", help="replay game records and check their results",
                       description="Replay every record of a JSON-lines file and check its result; print one "
                                   "line per failing record and a last line 'N passed, M failed' "
                                   "(exit 1 if any failed).")
    _files(r.add_argument("file", metavar="FILE.jsonl", help="game records, one JSON object a line ('-': stdin)"))

    return p


def _fail(message: str) -> int:
    print(f"{_prog()}: error: {_one_line(message)}", file=sys.stderr)
    return 2


# ------------------------------------------------------------------ input
def _read_text(path: str) -> str:
    """A file's text (at most MAX_INPUT_BYTES, UTF-8, optional BOM); InputError otherwise."""
    try:
        if path == "-":
            if sys.stdin is None or not hasattr(sys.stdin, "buffer"):
                raise InputError("cannot read standard input: there is none")
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        else:
            with open(path, "rb") as f:
                data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or type(e).__name__}") from None
    except ValueError:   # e.g. a NUL character in the name
        raise InputError(f"cannot read {path!r}: not a usable file name") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"{path}: larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not a UTF-8 text file (bad byte at offset {e.start})") from None


def _lines(path: str) -> list[tuple[int, str]]:
    """(line number, text) of each non-blank line."""
    return [(n, line) for n, line in enumerate(_read_text(path).split("\n"), 1) if line.strip()]


def _json(text: str) -> Any:
    """Parse JSON; InputError with a short reason (nesting, digits, syntax)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"not JSON: {e.msg} (column {e.colno})") from None
    except RecursionError:
        raise InputError("not JSON this tool reads: nested too deeply") from None
    except ValueError:
        raise InputError("not JSON this tool reads: a number has too many digits") from None


def _seed_text(record: Any) -> str:
    """`` (seed S)`` for a record's int or string seed, cut short; else nothing."""
    seed = record.get("seed") if isinstance(record, dict) else None
    return f" (seed {quote(seed, 30)})" if type(seed) in (int, str) else ""


# --------------------------------------------------------------- commands
def _advisor(target: str) -> Advisor:
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--server must be HOST:PORT, not {target[:80]!r}")
    try:
        return advisor_from_entry_point("grpc", target)
    except LookupError as e:
        raise ValueError(f"no 'grpc' advisor is installed (entry point group quiltsolve.advisors): {e}") from None


def _side_player(option: str, spec: str, seed: int, advisor: Advisor | None) -> Player:
    """``make_player``, its ValueError (an unknown player, a bad argument such as ``level:9``) naming the option."""
    try:
        return make_player(spec, seed, advisor)
    except ValueError as e:
        raise ValueError(f"{option}: {e}") from None


def _match(args: argparse.Namespace) -> int:
    try:
        if args.ray is not None:  # bad address, ray not installed, with --server: exit 2 (engine/distributed.py)
            check_ray(args.ray, args.server)
        advisor = _advisor(args.server) if args.server else None
        pa = _side_player("--a", args.a, args.seed, advisor)
        pb = _side_player("--b", args.b, args.seed + 1, advisor)
    except (ValueError, PluginError) as e:     # a broken plug-in: its name and why, exit 2
        return _fail(str(e))
    try:
        out = open(args.records, "w") if args.records else None
    except OSError as e:
        return _fail(f"cannot write {args.records}: {e.strerror}")
    # rich (the progress bar) only for match: tens of ms of imports the other commands do not pay
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    progress = Progress(TextColumn(f"{args.a} vs {args.b}"), BarColumn(), MofNCompleteColumn(),
                        TimeRemainingColumn(), console=console, disable=not console.is_terminal, transient=True)
    try:
        with progress:
            task = progress.add_task("games", total=args.games)
            summary = run_match(pa, pb, args.games, args.seed, args.edition, advisor=advisor, records=out,
                                progress=lambda n: progress.update(task, completed=n),
                                names=(args.a, args.b), ray=args.ray)
    except PlayerError as e:
        print(f"{_prog()}: {_one_line(str(e))}", file=sys.stderr)
        return 1
    except RayUnavailableError as e:  # --ray: no cluster answers there
        print(f"{_prog()}: error: {_one_line(str(e))}", file=sys.stderr)
        return 3
    finally:
        if out is not None:
            out.close()
        close = getattr(advisor, "close", None)
        if callable(close):
            close()
    print(json.dumps(summary.to_json()) if args.json else summary.table())
    return 0


def _replay(args: argparse.Namespace) -> int:
    try:
        lines = _lines(args.file)
    except InputError as e:
        return _fail(str(e))
    passed = failed = 0
    for n, line in lines:
        try:
            record = _json(line)
        except InputError as e:
            failed += 1
            print(f"line {n}: {e}")
            continue
        try:
            replay(record)
            passed += 1
        except RecordError as e:
            failed += 1
            print(f"line {n}{_seed_text(record)}: {e}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


COMMANDS = {"match": _match, "replay": _replay}
# Commands that gave way to suggest's (issue 35): name -> suggest's command; flags renamed on the way.
MOVED = {"state": "state", "review": "review"}
RENAMED_FLAGS = {"--notation": "--position"}
PROGRAMS_ENTRY_POINTS = "quiltsolve.programs"


def _moved(command: str, rest: list[str]) -> int:
    """Run ``suggest COMMAND REST`` in this process, found by entry point (the engine imports no client)."""
    found = [ep for ep in importlib.metadata.entry_points(group=PROGRAMS_ENTRY_POINTS) if ep.name == "suggest"]
    if not found:
        return _fail(f"{command} is now `suggest {command}`, and no suggest is installed "
                     f"(entry point group {PROGRAMS_ENTRY_POINTS}; is the project installed with pip install -e .?)")
    flags = []
    for arg in rest:
        name, eq, value = arg.partition("=")
        flags.append(RENAMED_FLAGS[name] + eq + value if name in RENAMED_FLAGS else arg)
    suggest: Callable[[list[str]], int] = load_entry_point(found[0])
    status = suggest([MOVED[command], *flags])
    # A reminder for people at a terminal, after the answer: scripts and pipes see suggest's output
    # alone, and bad input still gets exactly one line on stderr.
    if status == 0 and sys.stderr is not None and sys.stderr.isatty():
        print(f"{_prog()}: note: {command} is now `suggest {MOVED[command]}` (the same flags); "
              "this name runs it until 0.4", file=sys.stderr)
    return status


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit status (0 ok, 1 failed records or a player error, 2 bad input).

    The console script ``quiltsolve-engine`` calls it. Standard output and
    error are switched to ``errors="backslashreplace"`` so that no text from
    a client's file can make printing fail.
    """
    for stream in (sys.stdout, sys.stderr):   # client text never makes printing fail
        if hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in MOVED:
        return _moved(args_list[0], args_list[1:])
    parser = _parser()
    if argcomplete is not None:
        argcomplete.autocomplete(parser)
    try:
        args = parser.parse_args(args_list)
    except SystemExit as e:          # --help, --version, or a usage error already printed
        return e.code if isinstance(e.code, int) else 0 if e.code is None else 2
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print(f"{_prog()}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:          # e.g. piped into head: stop quietly
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())
