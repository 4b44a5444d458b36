"""Command line: ``python -m engine match ...`` and ``python -m engine replay FILE.jsonl``.

Bad input exits 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys

from .track import DEFAULT_EDITION, EDITIONS


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m engine", description="Patchwork game engine: matches and record replay.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    m = sub.add_parser("match", help="play two players against each other")
    m.add_argument("--a", required=True, help="player spec for side a: random, greedy, mcts:2000, ...")
    m.add_argument("--b", required=True, help="player spec for side b")
    m.add_argument("--games", type=int, default=200)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--edition", choices=EDITIONS, default=DEFAULT_EDITION)
    m.add_argument("--records", metavar="FILE", help="write every game record as JSON lines")
    m.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    m.add_argument("--server", metavar="HOST:PORT", help="placement service for players that use one")
    r = sub.add_parser("replay", help="replay game records and check their results")
    r.add_argument("file", metavar="FILE.jsonl")
    return p


def _fail(message: str) -> int:
    print(f"python -m engine: error: {message}", file=sys.stderr)
    return 2


def _advisor(target: str):
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--server must be HOST:PORT, not {target!r}")
    from importlib.metadata import entry_points
    try:
        factory = entry_points(group="quiltsolve.advisors")["grpc"].load()
    except (KeyError, ImportError) as e:
        raise ValueError(f"no 'grpc' advisor is installed (entry point group quiltsolve.advisors): {e}") from None
    return factory(target)


def _match(args) -> int:
    from .match import PlayerError, run_match
    from .players import make_player

    if args.games < 1:
        return _fail("--games must be >= 1")
    try:
        advisor = _advisor(args.server) if args.server else None
        pa = make_player(args.a, args.seed, advisor)
        pb = make_player(args.b, args.seed + 1, advisor)
    except ValueError as e:
        return _fail(str(e))
    try:
        out = open(args.records, "w") if args.records else None
    except OSError as e:
        return _fail(f"cannot write {args.records}: {e.strerror}")
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
                                names=(args.a, args.b))
    except PlayerError as e:
        print(f"python -m engine: {e}", file=sys.stderr)
        return 1
    finally:
        if out is not None:
            out.close()
        close = getattr(advisor, "close", None)
        if callable(close):
            close()
    print(json.dumps(summary.to_json()) if args.json else summary.table())
    return 0


def _replay(args) -> int:
    from .record import RecordError, replay

    try:
        with open(args.file) as f:
            lines = f.read().splitlines()
    except OSError as e:
        return _fail(f"cannot read {args.file}: {e.strerror}")
    except UnicodeDecodeError:
        return _fail(f"{args.file} is not a UTF-8 text file")
    passed = failed = 0
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            failed += 1
            print(f"line {n}: not JSON: {e.msg}")
            continue
        try:
            replay(record)
            passed += 1
        except RecordError as e:
            failed += 1
            seed = record.get("seed") if isinstance(record, dict) else None
            print(f"line {n}{f' (seed {seed})' if seed is not None else ''}: {e}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return _match(args) if args.command == "match" else _replay(args)


if __name__ == "__main__":
    sys.exit(main())
