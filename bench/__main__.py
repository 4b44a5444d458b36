"""Run every benchmark in ``bench/`` (``make bench``), or the ones named.

    python -m bench                 # all
    python -m bench engine placement  # only bench_engine.py and bench_placement.py
    python -m bench service --budget 0.15   # options after the names go to those benchmarks
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import bench


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    names = sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_"))
    known = {n.removeprefix("bench_") for n in names}
    wanted = []
    while argv and argv[0] in known:
        wanted.append(argv.pop(0))
    if wanted:
        names = [n for n in names if n.removeprefix("bench_") in wanted]
    elif argv:
        print(f"unknown benchmark {argv[0]!r}; known: {', '.join(sorted(known))}", file=sys.stderr)
        return 2
    rc = 0
    for name in names:
        print(f"\n=== {name} ===", flush=True)
        t0 = time.perf_counter()
        # Options after the names go to each benchmark named.
        rc |= importlib.import_module(f"bench.{name}").main(list(argv)) or 0
        print(f"--- {name}: {time.perf_counter() - t0:.1f} s", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
