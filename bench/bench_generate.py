"""Unique-solution puzzle generator: time to a proven puzzle (targets: the 12
pentominoes on a 60-cell region <= 5 s median; >= 10 Patchwork patches on a
partly filled 9x9 quilt <= 10 s median; 20 seeds each).

    python -m bench generate
    python -m bench generate --seeds 5 --difficulty hard
"""

from __future__ import annotations

import argparse
import statistics

from quiltsolve.solver.puzzle import HAVE_C_SEARCH, generate_puzzle
from quiltsolve.solver.types import SolveStatus

# (name, generate_puzzle arguments, target median seconds, what a puzzle must have)
CASES = [
    ("12 pentominoes, 60-cell region in 9x9", dict(family="pentominoes", size=(9, 9)), 5.0,
     lambda g: len(g.pieces) == 12 and sum(r.count(".") for r in g.rows) == 60),
    (">= 10 patches, partly filled 9x9 quilt", dict(family="patches", size=(9, 9)), 10.0,
     lambda g: len(g.pieces) >= 10 and len(g.rows) == 9),
]


def _p90(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.9 * (len(xs) - 1)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench generate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=20, help="seeds per case, 0..N-1 (default 20)")
    ap.add_argument("--time-limit", type=float, default=30.0, help="per puzzle, seconds (default 30)")
    ap.add_argument("--difficulty", choices=("easy", "medium", "hard"), default=None,
                    help="ask for a difficulty band (default any)")
    args = ap.parse_args(argv)
    print(f"search engine: {'c' if HAVE_C_SEARCH else 'python (C extension not built!)'}; "
          f"difficulty: {args.difficulty or 'any'}; {args.seeds} seeds; time limit {args.time_limit:g} s")
    print(f"{'case':<40} {'found':>6} {'median':>8} {'p90':>8} {'max':>8} {'attempts':>9} "
          f"{'nodes med':>10}  bands e/m/h  target")
    rc = 0
    for name, kw, target, shape_ok in CASES:
        times, attempts, nodes, bands, found = [], [], [], {"easy": 0, "medium": 0, "hard": 0}, 0
        for seed in range(args.seeds):
            g = generate_puzzle(seed=seed, time_limit=args.time_limit, difficulty=args.difficulty, **kw)
            times.append(g.wall_time)
            attempts.append(g.attempts)
            if g.status is SolveStatus.OPTIMAL and g.distinct == 1 and shape_ok(g):
                found += 1
                nodes.append(g.nodes)
                bands[g.difficulty] += 1
        med = statistics.median(times)
        met = med <= target and found == args.seeds
        rc |= not met
        print(f"{name:<40} {found:>3}/{args.seeds:<2} {med:7.2f}s {_p90(times):7.2f}s {max(times):7.2f}s "
              f"{statistics.median(attempts):>9g} {statistics.median(nodes) if nodes else 0:>10g}  "
              f"{bands['easy']:>3}/{bands['medium']}/{bands['hard']:<4}  <= {target:g} s median: "
              f"{'met' if met else 'MISSED'}", flush=True)
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
