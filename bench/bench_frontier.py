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

xcover (the bench extra, ``make bench`` installs it) counts the cases the
search counts too, in a child process stopped past ``--xcover-limit``; the
column is "-" where it did not finish or cannot state the puzzle (limited
pieces of several copies).
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import queue
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


# --------------------------------------------------------------- xcover ---
# xcover (the bench extra; `make bench` installs it) enumerates exact covers
# with dancing cells in numba: an independent count, and the baseline the
# issue quotes. It runs in a child process, so a count past its limit is
# stopped (numba code does not look at a clock).
HAVE_XCOVER = importlib.util.find_spec("xcover") is not None


def xcover_options(rows, pieces, unlimited) -> list[list[str]] | None:
    """The puzzle as xcover's options: one item per region cell, and one per
    piece type used once (with ``use_all``); None when a limited type has
    several copies that could run out (exact cover has no multiplicities)."""
    tables = PuzzleProblem.prepare(rows, pieces, unlimited=unlimited, symmetry_break=False).tables
    unl = tables.unlimited or (False,) * len(tables.counts)
    area = {tables.ptype[q]: tables.pstart[q + 1] - tables.pstart[q] for q in range(tables.nplacements)}
    item = {}
    for t, c in enumerate(tables.counts):
        if unl[t] or c * area.get(t, 0) >= tables.n:
            continue                      # never runs out: no item
        if c != 1 or not tables.use_all:
            return None
        item[t] = f"t{t}"
    return [[f"c{c}" for c in tables.pcells(q)] + ([item[tables.ptype[q]]] if tables.ptype[q] in item else [])
            for q in range(tables.nplacements)]


def _xcover_child(options, out) -> None:
    import warnings
    warnings.filterwarnings("ignore")       # numba's type-safety warnings
    import xcover
    sum(1 for _ in xcover.covers([[0, 1], [2], [0, 1, 2]]))     # compiled before the clock starts
    t0 = time.perf_counter()
    n = sum(1 for _ in xcover.covers(options))
    out.put((time.perf_counter() - t0, n))


def xcover_count(options: list[list[str]], limit: float) -> tuple[float, int] | None:
    """(seconds, tilings) by xcover, or None past ``limit`` seconds (plus its compile time)."""
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    child = ctx.Process(target=_xcover_child, args=(options, out), daemon=True)
    child.start()
    try:
        return out.get(timeout=limit + 60)
    except queue.Empty:
        return None
    finally:
        child.terminate()
        child.join()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench frontier", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="skip the slow cases")
    ap.add_argument("--only", metavar="TEXT", help="only the cases whose name holds TEXT")
    ap.add_argument("--search-limit", type=float, default=60.0, help="seconds for each search count (default 60)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each fast case (the best is shown)")
    ap.add_argument("--frontier-limit", type=float, default=120.0,
                    help="seconds for each frontier / auto count (default 120)")
    ap.add_argument("--xcover-limit", type=float, default=60.0,
                    help="seconds for each xcover count (default 60; 0: no xcover)")
    args = ap.parse_args(argv)
    use_xcover = HAVE_XCOVER and args.xcover_limit > 0
    if not HAVE_XCOVER:
        print("xcover is not installed: no xcover column (make bench installs it: pip install -c constraints.txt xcover)")
    print(f"C frontier: {HAVE_C_FRONTIER}, C search: {HAVE_C_SEARCH} (best of {args.runs} runs, tables warm; "
          f"(cpu): the frontier's process CPU time, all its threads; table bound {TABLE_BYTES / 2**30:g} GiB"
          + "".join(f", {v / 2**30:g} GiB for {k}" for k, v in TABLE_BYTES_OF.items()) + ")")
    head = (f"{'case':<40} {'frontier':>9} {'(cpu)':>9} {'search':>9} {'xcover':>9} {'auto':>9} {'auto/best':>9}  "
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
        tx = None
        if with_search and use_xcover:     # where the search is run: the cases an enumeration can finish
            # (last: its child process and memory are gone before the next case is timed)
            options = xcover_options(rows, pieces, unl)
            got = xcover_count(options, args.xcover_limit) if options is not None else None
            if got is not None and got[0] <= args.xcover_limit:
                tx = got[0]
                if got[1] != rf.count:
                    print(f"  MISMATCH {name}: xcover {got[1]}, frontier {rf.count}")
                    rc = 1
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
        if tx is not None:
            notes.append(f"xcover / frontier {tx / tf:.1f}x" + (f", xcover / search {tx / ts:.1f}x" if ts else ""))
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
        print(f"{name:<40} {fmt(tf):>9} {fmt(cf):>9} {fmt(ts):>9} {fmt(tx):>9} {fmt(ta):>9} {ta / best:8.2f}x  "
              f"{counts}  {'; '.join(notes)}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
