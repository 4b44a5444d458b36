"""Run every benchmark in ``bench/`` (``make bench``), or the ones named.

    python -m bench                 # all
    python -m bench engine placement  # only bench_engine.py and bench_placement.py
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
    wanted = [a for a in argv if not a.startswith("-")]
    if wanted:
        names = [n for n in names if n.removeprefix("bench_") in wanted]
    rc = 0
    for name in names:
        print(f"\n=== {name} ===", flush=True)
        t0 = time.perf_counter()
        rc |= importlib.import_module(f"bench.{name}").main([]) or 0
        print(f"--- {name}: {time.perf_counter() - t0:.1f} s", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
