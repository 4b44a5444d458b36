"""Placement solver benchmark on the 240 seeded instances (issue 3).

For each family prints median / p99 / max wall time and how many answers are
proven (OPTIMAL, or INFEASIBLE for an impossible 7×7 square), for our
portfolio solver and for a plain one-Boolean-per-placement CP-SAT model with
default parameters (num_workers=1, 20 s limit), run in this same process,
plus the ratio of medians. Every answer of ours is checked by the validator.

A third column group, "CP-SAT proves", runs our solver with the bitmask pass
capped at FORCED_NODE_CAP nodes (it then only supplies the solution hint), so
that the CP-SAT stage has to prove; its answers are validated and compared
with ours.

    python -m bench placement
    python -m bench.bench_placement --quick          # baseline capped at 2 s
    BENCH_QUICK=1 python -m bench placement
    python -m bench.bench_placement --family hard-20-k16 --no-baseline --no-forced
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

DATA = Path(__file__).parent / "data" / "placement-instances.json"
FAMILIES = ["midgame-40-k3", "lookahead-30-k6", "square7-35-k6", "deep-20-k10", "hard-20-k16", "opening-0-k16"]
# Node cap of the bitmask pass in the "CP-SAT proves" columns.
FORCED_NODE_CAP = 1_000
TARGETS = {
    "midgame-40-k3": "med<=3ms p99<=20ms all",
    "lookahead-30-k6": "med<=15ms all",
    "square7-35-k6": "med<=15ms all",
    "deep-20-k10": "med<=100ms all",
    "hard-20-k16": "med<=1s max<=10s all",
    "opening-0-k16": "med<=1s max<=10s all",
}


def _pct(xs: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    xs = sorted(xs)
    return xs[max(0, math.ceil(q * len(xs)) - 1)]


def baseline_solve(board: int, patch_ids: list[int], objective: str, time_limit: float) -> tuple[str, int]:
    """The plain model: one Boolean per (patch copy, legal placement), at most
    one per cell, at most one placement per copy, maximise covered area;
    default CP-SAT parameters except one worker and the time limit."""
    from ortools.sat.python import cp_model
    from quiltsolve.solver.geometry import FULL_BOARD, square_masks
    from quiltsolve.solver.patches import PATCH_MASKS, PATCHES

    model = cp_model.CpModel()
    cell_vars: dict[int, list] = {}
    obj_vars, obj_w = [], []
    for pid in patch_ids:
        vs = []
        for m in PATCH_MASKS[pid]:
            if m & board:
                continue
            v = model.new_bool_var("")
            vs.append(v)
            for i in range(81):
                if m >> i & 1:
                    cell_vars.setdefault(i, []).append(v)
        if vs:
            model.add_at_most_one(vs)
        obj_vars += vs
        obj_w += [PATCHES[pid].area] * len(vs)
    for vs in cell_vars.values():
        model.add_at_most_one(vs)
    if objective == "square7":
        zs = []
        for _corner, wm in square_masks(7):
            z = model.new_bool_var("")
            zs.append(z)
            for i in range(81):
                if wm >> i & 1 and not board >> i & 1:
                    model.add_bool_or(cell_vars.get(i, []) + [z.Not()])
        model.add_bool_or(zs)
    model.maximize(cp_model.LinearExpr.weighted_sum(obj_vars, obj_w))
    s = cp_model.CpSolver()
    s.parameters.num_workers = 1
    s.parameters.max_time_in_seconds = time_limit
    st = s.solve(model)
    if st == cp_model.OPTIMAL:
        return "OPTIMAL", int(round(s.objective_value))
    if st == cp_model.INFEASIBLE:
        return "INFEASIBLE", -1
    if st == cp_model.FEASIBLE:
        return "FEASIBLE", int(round(s.objective_value))
    return "UNKNOWN", -1


def _fixed_overhead(reps: int) -> tuple[float, float, float]:
    """Median ms of a tiny solve (model build + solve): ours, ours forced
    through the CP-SAT stage, baseline."""
    from quiltsolve.solver import cover
    from quiltsolve.solver.cover import candidates_from, solve_cover
    from quiltsolve.solver.geometry import FULL_BOARD

    board = FULL_BOARD & ~0b11  # two empty cells
    cands = candidates_from([0, 1])
    ours, cp, base = [], [], []
    saved = cover.NODE_CAP
    for _ in range(reps):
        t = time.perf_counter()
        solve_cover(board, cands, time_limit=5.0)
        ours.append(time.perf_counter() - t)
        cover.NODE_CAP = 0
        try:
            t = time.perf_counter()
            solve_cover(board, cands, time_limit=5.0)
            cp.append(time.perf_counter() - t)
        finally:
            cover.NODE_CAP = saved
        t = time.perf_counter()
        baseline_solve(board, [0, 1], "cover", 5.0)
        base.append(time.perf_counter() - t)
    return tuple(statistics.median(x) * 1e3 for x in (ours, cp, base))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_placement", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", default=bool(os.environ.get("BENCH_QUICK")),
                    help="cap the baseline at --quick-limit seconds (also env BENCH_QUICK=1)")
    ap.add_argument("--quick-limit", type=float, default=2.0)
    ap.add_argument("--baseline-limit", type=float, default=20.0)
    ap.add_argument("--time-limit", type=float, default=20.0, help="our solver's time limit")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--no-forced", action="store_true",
                    help=f"skip the 'CP-SAT proves' columns (bitmask pass <= {FORCED_NODE_CAP:,} nodes)")
    ap.add_argument("--family", action="append", default=None)
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per instance")
    args = ap.parse_args(argv)

    from quiltsolve.solver import cover
    from quiltsolve.solver.cover import candidates_from, solve
    from quiltsolve.solver.geometry import board_from_rows
    from quiltsolve.solver.validate import validate_placements

    inst = json.loads(DATA.read_text())
    base_limit = args.quick_limit if args.quick else args.baseline_limit
    fams = args.family or FAMILIES
    print(f"placement bench: {len(inst)} instances; ours time_limit={args.time_limit:g}s; baseline = plain "
          f"CP-SAT, default params, 1 worker, {base_limit:g}s limit" + (" (--quick)" if args.quick else ""))
    ours_tiny, cp_tiny, base_tiny = _fixed_overhead(200)
    print(f"fixed overhead (tiny instance, build+solve, median of 200): ours {ours_tiny:.3f} ms "
          f"(forced through CP-SAT: {cp_tiny:.3f} ms), baseline {base_tiny:.3f} ms  (target <= 2 ms)")
    hdr = (f"{'family':<16} {'n':>3} | {'ours med':>9} {'p99':>9} {'max':>9} {'proven':>6} | "
           f"{'cpsat med':>9} {'p99':>9} {'max':>9} {'proven':>6} | "
           f"{'base med':>9} {'p99':>9} {'max':>9} {'proven':>6} | {'ratio':>6} {'agree':>5}  target")
    grp = 9 * 3 + 6 + 3   # one column group: med p99 max proven
    if not args.no_forced:
        print(f"'ours, CP-SAT proves': our solver with the bitmask pass capped at {FORCED_NODE_CAP:,} nodes "
              "(it only supplies the hint); CP-SAT proves")
    print(f"{'':20} | {'ours (portfolio)':<{grp}} | {f'ours, CP-SAT proves (bitmask<={FORCED_NODE_CAP})':<{grp}}"
          f" | plain CP-SAT baseline")
    print(hdr)
    print("-" * len(hdr))
    bad = 0
    for fam in fams:
        xs = [x for x in inst if x["family"] == fam]
        ot, bt, ft, op, bp, fp, agree = [], [], [], 0, 0, 0, 0
        for x in xs:
            board = board_from_rows(x["board"])
            cands = candidates_from(x["patches"])
            t = time.perf_counter()
            r = solve(board, cands, x["objective"], time_limit=args.time_limit, seed=0, workers=1)
            ot.append(time.perf_counter() - t)
            validate_placements(board, cands, r.placements)
            if x["objective"] == "square7" and r.placements:
                assert r.square7 is not None, x["name"]
            proven = r.status.value in ("OPTIMAL", "INFEASIBLE")
            op += proven
            line = f"  {x['name']:<24} ours {r.status.value:<10} {r.objective:3d} <= {r.bound:3d} " \
                   f"{ot[-1] * 1e3:9.1f} ms {r.engine}"
            if not args.no_forced:
                saved = cover.NODE_CAP
                cover.NODE_CAP = FORCED_NODE_CAP
                try:
                    t = time.perf_counter()
                    f = solve(board, cands, x["objective"], time_limit=args.time_limit, seed=0, workers=1)
                    ft.append(time.perf_counter() - t)
                finally:
                    cover.NODE_CAP = saved
                validate_placements(board, cands, f.placements)
                f_proven = f.status.value in ("OPTIMAL", "INFEASIBLE")
                fp += f_proven
                if f_proven and proven and (f.status, f.objective) != (r.status, r.objective):
                    bad += 1
                    print(f"  MISMATCH {x['name']}: ours {r.status.value} {r.objective}, "
                          f"CP-SAT stage {f.status.value} {f.objective}")
                line += f" | forced {f.status.value:<10} {f.objective:3d} {ft[-1] * 1e3:9.1f} ms {f.engine}"
            if not args.no_baseline:
                t = time.perf_counter()
                st, val = baseline_solve(board, x["patches"], x["objective"], base_limit)
                bt.append(time.perf_counter() - t)
                bp += st in ("OPTIMAL", "INFEASIBLE")
                ours_val = r.objective if r.status.value != "INFEASIBLE" else -1
                if st in ("OPTIMAL", "INFEASIBLE") and proven:
                    if val != ours_val:
                        bad += 1
                        print(f"  MISMATCH {x['name']}: ours {r.status.value} {ours_val}, baseline {st} {val}")
                    else:
                        agree += 1
                line += f" | base {st:<10} {val:3d} {bt[-1] * 1e3:9.1f} ms"
            if args.verbose:
                print(line, flush=True)

        def fmt(ts):
            return (f"{statistics.median(ts) * 1e3:7.1f}ms {_pct(ts, 0.99) * 1e3:7.1f}ms "
                    f"{max(ts) * 1e3:7.1f}ms")
        row = f"{fam:<16} {len(xs):3d} | {fmt(ot)} {op:3d}/{len(xs):<2d} | "
        if ft:
            row += f"{fmt(ft)} {fp:3d}/{len(xs):<2d} | "
        else:
            row += f"{'-':>29} {'-':>6} | "
        if bt:
            ratio = statistics.median(bt) / statistics.median(ot)
            row += f"{fmt(bt)} {bp:3d}/{len(xs):<2d} | {ratio:5.0f}x {agree:5d}"
        else:
            row += f"{'-':>29} {'-':>6} | {'-':>6} {'-':>5}"
        print(row + f"  {TARGETS.get(fam, '')}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
