"""Run every benchmark in ``bench/`` (``make bench``), or the ones named.

    python -m bench                 # all
    python -m bench engine placement  # only bench_engine.py and bench_placement.py
    python -m bench service --budget 0.15   # options after the names go to those benchmarks
    python -m bench --help          # the benchmarks, one line each
    python -m bench service --help  # a benchmark's options (it does not run)
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import sys
import time
from pathlib import Path

import bench

HELP = ("-h", "--help")


def benchmarks() -> dict[str, str]:
    """Each benchmark's name (``bench_NAME.py``) and the first line of its docstring,
    read from the source without importing it."""
    out = {}
    for m in sorted(pkgutil.iter_modules(bench.__path__), key=lambda m: m.name):
        if not m.name.startswith("bench_"):
            continue
        spec = importlib.util.find_spec(f"bench.{m.name}")
        doc = ""
        if spec is not None and spec.origin:
            doc = ast.get_docstring(ast.parse(Path(spec.origin).read_text(encoding="utf-8"))) or ""
        first = " ".join(doc.split("\n\n")[0].split())
        out[m.name.removeprefix("bench_")] = first
    return out


def _usage(known: dict[str, str]) -> str:
    width = max(map(len, known), default=0)
    lines = ["usage: python -m bench [NAME ...] [OPTIONS ...]", "",
             "Runs the named benchmarks (default: all of them); options after the names go to each",
             "named benchmark. 'python -m bench NAME --help' shows a benchmark's options.", "", "benchmarks:"]
    lines += [f"  {name:<{width}}  {doc}" for name, doc in known.items()]
    return "\n".join(lines)


def _parses_options(module: object) -> bool:
    # Every benchmark with options builds an argparse parser in main(argv).
    return "argparse" in vars(module)


def _help(name: str, doc: str) -> int:
    """Print a benchmark's options without running it."""
    module = importlib.import_module(f"bench.bench_{name}")
    if not _parses_options(module):
        print(f"usage: python -m bench {name}\n\n{doc}\n\nThis benchmark takes no options.")
        return 0
    try:
        return module.main(["--help"]) or 0  # argparse prints the help and exits before any work
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 0


def main(argv: list[str] | None = None) -> int:
    """``python -m bench [NAME ...] [OPTIONS ...]``; returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    known = benchmarks()
    wanted = []
    while argv and argv[0] in known:
        wanted.append(argv.pop(0))
    if not wanted and argv and argv[0] in HELP:
        print(_usage(known))
        return 0
    if not wanted and argv:
        print(f"unknown benchmark {argv[0]!r}; known: {', '.join(known)} (python -m bench --help)", file=sys.stderr)
        return 2
    names = wanted or list(known)
    if any(a in HELP for a in argv):
        rc = 0
        for name in names:
            rc |= _help(name, known[name])
        return rc
    modules = {name: importlib.import_module(f"bench.bench_{name}") for name in names}
    if argv:
        silent = [n for n, m in modules.items() if not _parses_options(m)]
        if silent:
            print(f"python -m bench: {silent[0]} takes no options (given {' '.join(argv)})", file=sys.stderr)
            return 2
    rc = 0
    for name, module in modules.items():
        print(f"\n=== bench_{name} ===", flush=True)
        t0 = time.perf_counter()
        # Options after the names go to each benchmark named.
        rc |= module.main(list(argv)) or 0
        print(f"--- bench_{name}: {time.perf_counter() - t0:.1f} s", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
