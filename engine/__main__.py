"""Command line: ``python -m engine match ...``, ``python -m engine replay FILE.jsonl``
and ``python -m engine state ...`` (a state JSON for ``suggest move``).

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
    m.add_argument("--ray", metavar="auto|local|ADDRESS", help="play the games as Ray tasks (docs/ray.md)")
    r = sub.add_parser("replay", help="replay game records and check their results")
    r.add_argument("file", metavar="FILE.jsonl")
    st = sub.add_parser("state", help="print a game state as JSON (for suggest move / SuggestMove)",
                        epilog="example: python -m engine state --seed 7 --plies 20 > state.json; "
                               "suggest move state.json --top 3")
    st.add_argument("--seed", type=int, default=0, help="deal of a new game (default 0)")
    st.add_argument("--edition", choices=EDITIONS, default=DEFAULT_EDITION)
    st.add_argument("--record", metavar="FILE.jsonl", help="start from a game record's deal instead")
    st.add_argument("--line", type=int, default=1, help="which record of FILE (default 1)")
    st.add_argument("--plies", type=int, default=0,
                    help="moves to play first: the record's first N actions, or N greedy moves (default 0)")
    return p


def _fail(message: str) -> int:
    print(f"python -m engine: error: {message}", file=sys.stderr)
    return 2


def _read_lines(path: str) -> list[str]:
    """The lines of a records file; ``ValueError`` (one clear line) if it cannot be read."""
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a UTF-8 text file") from None


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
    from solver.ray_count import RayUnavailableError  # no ray import: that happens only with --ray

    from .match import PlayerError, run_match
    from .players import make_player

    if args.games < 1:
        return _fail("--games must be >= 1")
    try:
        if args.ray is not None:  # bad address, ray not installed, with --server: exit 2 (engine/distributed.py)
            from .distributed import check_ray
            check_ray(args.ray, args.server)
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
                                names=(args.a, args.b), ray=args.ray)
    except PlayerError as e:
        print(f"python -m engine: {e}", file=sys.stderr)
        return 1
    except RayUnavailableError as e:  # --ray: no cluster answers there
        print(f"python -m engine: error: {e}", file=sys.stderr)
        return 3
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
        lines = _read_lines(args.file)
    except ValueError as e:
        return _fail(str(e))
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


def _state(args) -> int:
    from . import GameState, new_game, parse_action
    from .players import GreedyPlayer

    if args.plies < 0:
        return _fail("--plies must be >= 0")
    try:
        if args.record:
            try:
                lines = [line for line in _read_lines(args.record) if line.strip()]
            except ValueError as e:
                return _fail(str(e))
            if not 1 <= args.line <= len(lines):
                return _fail(f"--line {args.line}: {args.record} has {len(lines)} records")
            record = json.loads(lines[args.line - 1])
            state = GameState.from_circle(record["circle"], record.get("edition", DEFAULT_EDITION))
            actions = record["actions"]
            if args.plies > len(actions):
                return _fail(f"--plies {args.plies}: the record has {len(actions)} actions")
            for text in actions[:args.plies]:
                state.apply_action(parse_action(text))
        else:
            state = new_game(args.seed, args.edition)
            greedy = GreedyPlayer()
            for _ in range(args.plies):
                if state.is_terminal():
                    break
                state.apply_action(greedy.choose(state))
    except (ValueError, KeyError, TypeError) as e:
        return _fail(f"bad record: {e}")
    print(json.dumps(state.to_json()))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return {"match": _match, "replay": _replay, "state": _state}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
