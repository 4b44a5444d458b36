"""Counting tilings: the frontier DP against the enumerating search, and the
automatic choice (issue 19 targets: 8x8 dominoes >= 100x the search, 10x10
and 12x12 dominoes <= 0.1 s, 20x20 dominoes with distinct <= 1 s,
L-trominoes 9x9 / 12x9 <= 0.1 s, pentominoes with repeats 5x10 <= 0.5 s and
10x10 <= 60 s, a 20x20 mix in unlimited supply <= 10 s, limited copies by the
frontier within 2x of the search, auto never > 20% slower than the faster).

    python -m bench frontier                 # every case
    python -m bench frontier --quick         # skip the slow ones (10x10 pentominoes, 20x20 mix)
    python -m bench frontier --search-limit 30
    python -m bench frontier --only 10x10       # the cases whose name holds "10x10"
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from quiltsolve.solver.puzzle import HAVE_C_FRONTIER, HAVE_C_SEARCH, PuzzleProblem
from quiltsolve.solver.types import CountTableFull, SolveStatus

PENTOMINOES = ["#####", "##/##/#.", "###/#../#..", "###/.#./.#.", "#../##./.##", "#.../####",
               ".#./###/.#.", ".##/##./.#.", "##../.###", "#.#/###", "..#/###/#..", ".#../####"]
HOLE8 = ["." * 8] * 3 + ["...##..."] * 2 + ["." * 8] * 3


def square(h, w=None):
    return ["." * (w or h)] * h


# (name, rows, limited pieces, unlimited, expected raw count or None, frontier target s or None,
#  run the search too, slow)
CASES = [
    ("8x8 dominoes", square(8), [], ["##"], 12_988_816, None, True, False),
    ("10x10 dominoes", square(10), [], ["##"], 258_584_046_368, 0.1, False, False),
    ("12x12 dominoes", square(12), [], ["##"], 53_060_477_521_960_000, 0.1, False, False),
    ("20x20 dominoes (+ distinct)", square(20), [], ["##"],
     1_269_984_011_256_235_834_242_602_753_102_293_934_298_576_249_856, 1.0, False, False),
    ("9x9 L-trominoes", square(9), [], ["##/#."], 1_193_600, 0.1, True, False),
    ("12x9 L-trominoes", square(12, 9), [], ["##/#."], 467_966_840, 0.1, False, False),
    ("5x10 pentominoes, any, repeats", square(5, 10), [], PENTOMINOES, 101_698_212, 0.5, False, False),
    ("10x10 pentominoes, any, repeats", square(10), [], PENTOMINOES, None, 60.0, False, True),
    ("20x20 dominoes + L-trominoes + 2x2", square(20), [], ["##", "##/#.", "##/##"], None, 10.0, False, True),
    ("6x10: 12 pentominoes once", square(6, 10), PENTOMINOES, [], 9356, None, True, False),
    ("8x8 minus centre: 12 pentominoes once", HOLE8, PENTOMINOES, [], 520, None, True, False),
    ("6x6 dominoes (limited, 18 copies)", square(6), ["##"] * 18, [], 6728, None, True, False),
    ("4x15: 12 pentominoes once", square(4, 15), PENTOMINOES, [], 1472, None, True, False),
    ("6x7: 6 dominoes + 10 L-trominoes", square(6, 7), ["##"] * 6 + ["##/#."] * 10, [], None, None, True, False),
]


# The table bound of every case (the service's default is 512 MiB), and of
# the cases given more: 10x10 pentominoes with repeats peak at 5.3 M states
# (600-800 MB of tables; within 512 MiB they count too, in smaller hash
# tables, slower).
TABLE_BYTES = 2**30
TABLE_BYTES_OF = {"10x10 pentominoes, any, repeats": 2 * 2**30}


def run(rows, pieces, unlimited, method, limit, table_bytes=TABLE_BYTES):
    problem = PuzzleProblem.prepare(rows, pieces, unlimited=unlimited)   # tables cached: timed warm
    t0, c0 = time.perf_counter(), time.process_time()
    r = problem.count(max_tilings=0, time_limit=limit, method=method, table_bytes=table_bytes)
    return time.perf_counter() - t0, time.process_time() - c0, r


def timed(rows, pieces, unlimited, method, limit, runs, table_bytes=TABLE_BYTES):
    """Best wall time of ``runs`` runs (one when it takes over 2 s), with that run's CPU time."""
    best = None
    for _ in range(runs):
        t, c, r = run(rows, pieces, unlimited, method, limit, table_bytes)
        if best is None or t < best[0]:
            best = (t, c, r)
        if t > 2:
            break
    assert best is not None
    return best


def fmt(t: float | None) -> str:
    if t is None:
        return "-"
    return f"{t * 1000:.1f}ms" if t < 1 else f"{t:.2f}s"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench frontier", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="skip the slow cases")
    ap.add_argument("--only", metavar="TEXT", help="only the cases whose name holds TEXT")
    ap.add_argument("--search-limit", type=float, default=60.0, help="seconds for each search count (default 60)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each fast case (the best is shown)")
    ap.add_argument("--frontier-limit", type=float, default=120.0,
                    help="seconds for each frontier / auto count (default 120)")
    args = ap.parse_args(argv)
    print(f"C frontier: {HAVE_C_FRONTIER}, C search: {HAVE_C_SEARCH} (best of {args.runs} runs, tables warm; "
          f"(cpu): the frontier's process CPU time, all its threads; table bound {TABLE_BYTES / 2**30:g} GiB"
          + "".join(f", {v / 2**30:g} GiB for {k}" for k, v in TABLE_BYTES_OF.items()) + ")")
    head = (f"{'case':<40} {'frontier':>9} {'(cpu)':>9} {'search':>9} {'auto':>9} {'auto/best':>9}  "
            f"count / distinct  target")
    print(head)
    rc = 0
    for name, rows, pieces, unl, want, target, with_search, slow in CASES:
        if (slow and args.quick) or (args.only and args.only not in name):
            continue
        PuzzleProblem.prepare(rows, pieces, unlimited=unl)
        tb = TABLE_BYTES_OF.get(name, TABLE_BYTES)
        try:
            tf, cf, rf = timed(rows, pieces, unl, "frontier", args.frontier_limit, args.runs, tb)
        except CountTableFull as e:
            print(f"{name:<40} frontier table full ({e.table_bytes / 2**20:g} MiB)", flush=True)
            rc |= target is not None
            continue
        if rf.status is SolveStatus.UNKNOWN:
            print(f"{name:<40} frontier cut short after {tf:.1f} s (--frontier-limit)", flush=True)
            rc |= target is not None
            continue
        ts = None
        if with_search:
            ts, _, rs = timed(rows, pieces, unl, "search", args.search_limit, args.runs)
            if rs.status is not SolveStatus.OPTIMAL:
                ts = None
            elif (rs.count, rs.distinct) != (rf.count, rf.distinct):
                print(f"  MISMATCH {name}: search {rs.count}/{rs.distinct}, frontier {rf.count}/{rf.distinct}")
                rc = 1
        ta, _, ra = timed(rows, pieces, unl, "auto", args.frontier_limit, args.runs, tb)
        best = min(tf, ts) if ts is not None else tf
        if want is not None and rf.count != want:
            print(f"  WRONG {name}: {rf.count} != {want}")
            rc = 1
        if (ra.count, ra.distinct) != (rf.count, rf.distinct):
            print(f"  MISMATCH {name}: auto {ra.count}/{ra.distinct}")
            rc = 1
        notes = []
        if target is not None:
            notes.append(f"<= {target:g} s: " + ("met" if tf <= target else
                                                  "met in CPU time" if cf <= target else "MISSED"))
        if ts is not None:
            notes.append(f"frontier {ts / tf:.1f}x search speed")
            if name == "8x8 dominoes":
                notes.append(">= 100x: " + ("met" if ts >= 100 * tf else "MISSED"))
            elif pieces and "pentominoes once" in name:     # limited copies, the hard case
                notes.append("within 2x of the search: " + ("met" if tf <= 2 * ts else "MISSED"))
        notes.append(f"auto: {ra.method}" + (" (within 20%)" if ta <= 1.2 * best else " (MORE THAN 20% SLOWER)"))
        counts = f"{rf.count} / {rf.distinct}"
        if len(counts) > 40:
            counts = f"{len(str(rf.count))}-digit count"
        print(f"{name:<40} {fmt(tf):>9} {fmt(cf):>9} {fmt(ts):>9} {fmt(ta):>9} {ta / best:8.2f}x  "
              f"{counts}  {'; '.join(notes)}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
