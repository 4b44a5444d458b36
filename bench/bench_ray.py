"""Ray for batch work: match games and a large tiling count, local vs on a Ray cluster.

    python -m bench ray                              # short default run (about a minute)
    python -m bench ray --games 20 --budget 1.0      # search:1 tournaments
    python -m bench ray --ray 127.0.0.1:6379         # a running cluster instead of a private one
    python -m bench ray --puzzle 6x10 --runs 3

Rows (each local run first, then the same work as Ray tasks):

* ``search:<budget> vs greedy`` — a tournament with a time budget: games per
  minute, local (one process, games one after the other) vs Ray (one task
  per game on the cluster's CPUs); the results may differ (time budgets are
  not reproducible);
* ``search:<N>it vs greedy`` — an iteration budget: the summaries must be
  identical;
* ``greedy vs greedy`` — games of a few ms, so the Ray time is the cost of a
  task: the per-game overhead is ``(Ray time x CPUs - local time) / games``;
* the count of a large puzzle, local vs split over Ray: the same raw and
  distinct counts, and the time ratio.

The default private cluster has ``--cpus 2`` (this machine's cores, shared
with other work: the speed-ups printed are what the machine gave).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

PENTOMINOES = ["#####", "##/##/#.", "###/#../#..", "###/.#./.#.", "#../##./.##", "#.../####",
               ".#./###/.#.", ".##/##./.#.", "##../.###", "#.#/###", "..#/###/#..", ".#../####"]
PUZZLES = {   # name: (rows, pieces, raw, distinct)
    "8x8sq": (["." * 8] * 8, PENTOMINOES + ["##/##"], 129168, 16146),
    "6x10": (["." * 10] * 6, PENTOMINOES, 9356, 2339),
    "5x12": (["." * 12] * 5, PENTOMINOES, 4040, 1010),
    "8x8hole": (["." * 8] * 3 + ["...##..."] * 2 + ["." * 8] * 3, PENTOMINOES, 520, 65),
}


def _same(a, b) -> bool:
    da, db = a.to_json(), b.to_json()
    da.pop("seconds"), db.pop("seconds")
    return da == db


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_ray", description=__doc__.split("\n\n")[0])
    ap.add_argument("--ray", default="local", metavar="auto|local|ADDRESS",
                    help="the cluster (default: a private local one with --cpus CPUs)")
    ap.add_argument("--cpus", type=int, default=2, help="CPUs of the private cluster (default 2)")
    ap.add_argument("--games", type=int, default=4, help="games of each tournament (default 4)")
    ap.add_argument("--budget", type=float, default=0.1, help="search player's seconds per move (default 0.1)")
    ap.add_argument("--iterations", type=int, default=100, help="search player's iterations per move (default 100)")
    ap.add_argument("--overhead-games", type=int, default=40, help="greedy vs greedy games (default 40)")
    ap.add_argument("--puzzle", choices=sorted(PUZZLES), default="8x8sq",
                    help="the count: 8x8sq = 8x8 from the 12 pentominoes and the 2x2 square (default)")
    ap.add_argument("--runs", type=int, default=1, help="runs of the count, best taken (default 1)")
    ap.add_argument("--seed", type=int, default=1)
    try:
        args = ap.parse_args(argv if argv is not None else [])
    except SystemExit as e:
        return int(e.code or 0)
    if min(args.cpus, args.games, args.iterations, args.overhead_games, args.runs) < 1 or args.budget <= 0:
        print("bench_ray: --cpus, --games, --iterations, --overhead-games, --runs must be >= 1, --budget > 0",
              file=sys.stderr)
        return 2
    from quiltsolve.engine.distributed import check_ray
    from quiltsolve.solver.ray_count import RayUnavailableError, ray_session

    try:
        check_ray(args.ray)
    except ValueError as e:
        print(f"bench_ray: {e}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    try:
        with ray_session(args.ray, num_cpus=args.cpus) as ray:
            return _table(ray, args, time.perf_counter() - t0)
    except RayUnavailableError as e:
        print(f"bench_ray: {e}", file=sys.stderr)
        return 3


def _table(ray, args, started: float) -> int:
    from quiltsolve.engine.match import run_match
    from quiltsolve.solver.puzzle import PuzzleProblem
    from quiltsolve.solver.ray_count import cluster_cpus, count_puzzle_ray

    rc = 0
    cpus = cluster_cpus(ray)
    t = time.perf_counter()
    run_match("greedy", "greedy", 4 * cpus, seed=0, ray=args.ray)   # warm-up: start the workers, import
    warm = time.perf_counter() - t
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Ray {ray.__version__}, cluster {args.ray} with {cpus} CPUs, started / joined in {started:.1f} s, "
          f"workers warmed up in {warm:.1f} s; seed {args.seed}; load average {load}")
    print("| case | local | Ray | Ray / local | same answer |")
    print("| --- | --- | --- | --- | --- |", flush=True)

    def match_row(a: str, b: str, games: int, must_match: bool) -> None:
        nonlocal rc
        local = run_match(a, b, games, seed=args.seed)
        remote = run_match(a, b, games, seed=args.seed, ray=args.ray)
        same = _same(local, remote)
        if must_match and not same:
            rc = 1
        gl, gr = 60 * games / local.seconds, 60 * games / remote.seconds
        print(f"| {a} vs {b}, {games} games (wins {local.wins_a}-{local.wins_b} / {remote.wins_a}-"
              f"{remote.wins_b}) | {local.seconds:.1f} s = {gl:.1f} games/min | {remote.seconds:.1f} s = "
              f"{gr:.1f} games/min | {gr / gl:.2f}x games/min | "
              f"{'yes' if same else ('NO' if must_match else 'no (time budget)')} |", flush=True)

    match_row(f"search:{args.budget:g}", "greedy", args.games, False)
    match_row(f"search:{args.iterations}it", "greedy", args.games, True)

    n = args.overhead_games
    local = run_match("greedy", "greedy", n, seed=args.seed)
    remote = run_match("greedy", "greedy", n, seed=args.seed, ray=args.ray)
    same = _same(local, remote)
    rc |= not same
    over = (remote.seconds * cpus - local.seconds) / n
    print(f"| greedy vs greedy, {n} games: time per game | {1000 * local.seconds / n:.1f} ms "
          f"| {1000 * remote.seconds / n:.1f} ms (overhead ≈ {1000 * over:.0f} ms a task) "
          f"| {remote.seconds / local.seconds:.1f}x time | {'yes' if same else 'NO'} |", flush=True)

    rows, pieces, raw, distinct = PUZZLES[args.puzzle]
    best_l = best_r = float("inf")
    ok = True
    for _ in range(args.runs):
        t = time.perf_counter()
        lr = PuzzleProblem.prepare(rows, pieces).count(max_tilings=1, time_limit=3600)
        best_l = min(best_l, time.perf_counter() - t)
        t = time.perf_counter()
        rr = count_puzzle_ray(rows, pieces, max_tilings=1, time_limit=3600, address=args.ray)
        best_r = min(best_r, time.perf_counter() - t)
        ok &= (rr.count, rr.distinct, rr.tilings) == (lr.count, lr.distinct, lr.tilings)
        ok &= (lr.count, lr.distinct) == (raw, distinct)
    rc |= not ok
    print(f"| count {args.puzzle} ({raw} raw / {distinct} distinct), best of {args.runs} | {best_l:.2f} s "
          f"| {best_r:.2f} s ({4 * cpus} tasks) | {best_r / best_l:.2f}x time | "
          f"{'yes' if ok else 'NO'}: {rr.count} / {rr.distinct} |", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
