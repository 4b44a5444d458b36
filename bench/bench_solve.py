"""The exact solve of a position with progress (SolvePosition): how far from the end it solves in a given time,
its speed-up on Ray, and how soon a cancel frees its worker.

    python -m bench solve                                   # the default run: a few minutes
    python -m bench solve --only reach --games 4 --plies 8,10,12 --time-limit 60
    python -m bench solve --only reach --games 20 --plies 10,12,14,16,18 --time-limit 600 --workers 16
    python -m bench solve --only ray --ray-workers 2 --ray local
    python -m bench solve --only cancel --rounds 20

Positions come from seeded games of ``search:200it`` against itself (``bench endgame``'s: seeds 1, 1001,
2001, ...); "plies left" is how many plies that game still played from the position.

*reach*: each position is solved by :func:`engine.solve.solve_position` (the local, one-core solve
``suggest solve`` runs) with ``--time-limit`` seconds; the table gives, by plies left, the share solved
within 1 s, 10 s, 60 s and the time limit, the median time of the solved ones, the median width of the
interval left on the others, and the nodes a second. ``--workers N`` solves N positions at once in
processes (one core each: on a machine with N cores free; the times are each solve's own).

*ray*: the positions ``--ray-plies`` before the end solved locally, then on Ray with ``--ray-workers``
actors (a private cluster of that many CPUs with ``--ray local``, or the cluster at an address): the same
value, and the speed-up (local time / Ray time, from the moment the actors are up).

*cancel*: a server with one worker streams SolvePosition on a position far from solved; after
``--updates`` updates the call is cancelled and the time to the worker's slot being free is measured
(target 50 ms).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

FREE_TARGET_MS = 50.0
HARD = ("r 26,0,tnmhc3d,775777677577423401400 25,2,au1gqriv,000000000000611775767577777 "
        "l0kb68f9opes7j42w5 1 -")   # 20 plies into seed 7's game: far from solved in a minute
"""The cancel rounds' position (the mover, player 2, is far from a proof within a minute)."""
CHECKPOINTS = (1.0, 10.0, 60.0)


def game(seed: int, spec: str = "search:200it") -> list[str]:
    """Every position of one seeded self-play game of ``spec`` (notation), the last one terminal (bench
    endgame's games)."""
    from quiltsolve.engine import make_player, new_game

    players = (make_player(spec, seed), make_player(spec, seed + 1))
    s = new_game(seed)
    out = []
    while not s.is_terminal():
        out.append(s.to_notation())
        s.apply_action(players[s.current_player()].choose(s))
    out.append(s.to_notation())
    return out


def positions(games: int, seed: int, plies: list[int]) -> list[tuple[int, int, str]]:
    """(game seed, plies left, notation) of every wanted position of the seeded games."""
    out = []
    for g in range(games):
        s = seed + 1000 * g
        hist = game(s)
        for k in plies:
            if k < len(hist):
                out.append((s, k, hist[-1 - k]))
    return out


def solve_one(job: tuple[int, int, str, float]) -> dict:
    """One position solved locally: its seed, plies left, value or interval, time and nodes."""
    from quiltsolve.engine import GameState
    from quiltsolve.engine.solve import solve_exact

    seed, plies, notation, limit = job
    t0 = time.perf_counter()
    last = solve_exact(GameState.from_notation(notation), time_limit=limit)
    wall = time.perf_counter() - t0
    return {"seed": seed, "plies": plies, "notation": notation, "exact": last.exact, "value": last.value,
            "lower": last.lower, "upper": last.upper, "time": wall, "nodes": last.nodes, "probes": last.probes}


def reach(args: argparse.Namespace) -> None:
    plies = [int(x) for x in args.plies.split(",")]
    jobs = [(*p, args.time_limit) for p in positions(args.games, args.seed, plies)]
    t0 = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(solve_one, jobs))
    else:
        results = [solve_one(j) for j in jobs]
    print(f"\nreach: {len(jobs)} positions of {args.games} games, time limit {args.time_limit:g} s, "
          f"{args.workers} at once ({time.perf_counter() - t0:.0f} s)\n")
    marks = [c for c in CHECKPOINTS if c < args.time_limit] + [args.time_limit]
    head = " | ".join(f"≤ {m:g} s" for m in marks)
    print(f"| plies left | positions | {head} | median time (solved) | median width (unsolved) | nodes/s |")
    print("|---|---|" + "---|" * len(marks) + "---|---|---|")
    for k in plies:
        rs = [r for r in results if r["plies"] == k]
        if not rs:
            continue
        solved = [r for r in rs if r["exact"]]
        shares = " | ".join(f"{sum(r['time'] <= m for r in solved) / len(rs):.0%}" for m in marks)
        med = f"{statistics.median(r['time'] for r in solved):.2f} s" if solved else "-"
        open_ = [r["upper"] - r["lower"] for r in rs if not r["exact"]]
        width = f"{statistics.median(open_):g}" if open_ else "-"
        rate = sum(r["nodes"] for r in rs) / max(1e-9, sum(r["time"] for r in rs))
        print(f"| {k} | {len(rs)} | {shares} | {med} | {width} | {rate:,.0f} |")
    if args.verbose:
        print("\nseed plies value/interval time nodes")
        for r in results:
            what = f"{r['value']:+d}" if r["exact"] else f"[{r['lower']:+d}, {r['upper']:+d}]"
            print(f"{r['seed']} {r['plies']} {what} {r['time']:.2f} s {r['nodes']:,}  {r['notation']}")


def ray(args: argparse.Namespace) -> None:
    from quiltsolve.engine import GameState
    from quiltsolve.engine.ray_solve import solve_position_ray
    from quiltsolve.solver.ray_count import ray_session

    plies = [int(x) for x in args.ray_plies.split(",")]
    found = positions(args.games, args.seed, plies)
    print(f"\nray: {len(found)} positions ({args.ray_plies} plies left), local (one core) vs Ray with "
          f"{args.ray_workers} workers ({args.ray}), time limit {args.time_limit:g} s\n")
    print("| seed | plies left | value | local s | Ray s | speed-up | nodes local | nodes Ray |")
    print("|---|---|---|---|---|---|---|---|")
    total_local = total_ray = 0.0
    agree = True
    with ray_session(args.ray, num_cpus=args.ray_workers):
        for seed, k, notation in found:
            local = solve_one((seed, k, notation, args.time_limit))
            state = GameState.from_notation(notation)
            last = list(solve_position_ray(state, address=args.ray, workers=args.ray_workers,
                                           time_limit=args.time_limit, report_interval=None))[-1]
            if not (local["exact"] and last.exact):
                print(f"| {seed} | {k} | not solved within the limit | {local['time']:.2f} | {last.elapsed:.2f} "
                      f"| - | {local['nodes']:,} | {last.nodes:,} |")
                continue
            agree = agree and last.value == local["value"]
            total_local += local["time"]
            total_ray += last.elapsed
            print(f"| {seed} | {k} | {local['value']:+d}{'' if last.value == local['value'] else ' (Ray: DIFFERS)'} "
                  f"| {local['time']:.2f} | {last.elapsed:.2f} | {local['time'] / max(1e-9, last.elapsed):.2f}x "
                  f"| {local['nodes']:,} | {last.nodes:,} |")
    if total_ray:
        print(f"\nall solved positions: local {total_local:.1f} s, Ray {total_ray:.1f} s: speed-up "
              f"{total_local / total_ray:.2f}x; the same values: {'yes' if agree else 'NO'}")


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


def cancel(args: argparse.Namespace) -> None:
    import grpc

    from quiltsolve import engine
    from quiltsolve.patchwork.v1 import placement_pb2 as pb
    from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
    from quiltsolve.server import ServerConfig, build_server, positions as codec

    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0, grace=0.5))
    server.start()
    admission = server.core.admission
    freed: list[float] = []
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = pbg.PlacementServiceStub(channel)
        request = pb.SolvePositionRequest(state=codec.to_message(engine.GameState.from_notation(HARD)),
                                          report_interval={"nanos": 100_000_000})
        for _ in range(args.rounds):
            responses = stub.SolvePosition(request, timeout=120)
            for i, _update in enumerate(responses):
                if i + 1 >= args.updates:
                    break
            t0 = time.perf_counter()
            responses.cancel()
            while admission.stats()["free"] < 1:
                time.sleep(0.0005)
            freed.append(time.perf_counter() - t0)
        channel.close()
    finally:
        server.stop(0).wait(10)
    freed.sort()
    p99 = percentile(freed, 0.99) * 1000
    print(f"\ncancel: SolvePosition cancelled after {args.updates} updates, {args.rounds} rounds\n")
    print(f"{'measure':<24} {'n':>4} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}  target")
    print(f"{'cancel -> worker free':<24} {len(freed):>4} {percentile(freed, 0.5) * 1000:>8.1f} "
          f"{percentile(freed, 0.9) * 1000:>8.1f} {p99:>8.1f} {freed[-1] * 1000 if freed else float('nan'):>8.1f}  "
          f"p99 <= {FREE_TARGET_MS:g} ms: {'met' if p99 <= FREE_TARGET_MS else 'MISSED'}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench solve", description=__doc__.splitlines()[0])
    p.add_argument("--only", default="reach,ray,cancel", help="parts to run, comma-separated: reach, ray, cancel")
    p.add_argument("--games", type=int, default=4, help="seeded self-play games (default 4)")
    p.add_argument("--seed", type=int, default=1, help="the first game's seed (then +1000 each; default 1)")
    p.add_argument("--plies", default="6,8,10,12", help="plies left of the reach positions (default 6,8,10,12)")
    p.add_argument("--time-limit", type=float, default=30.0, help="seconds per solve (default 30)")
    p.add_argument("--workers", type=int, default=1, help="reach: positions solved at once, in processes")
    p.add_argument("--ray", default="local", help="ray: local (a private cluster), auto or an address")
    p.add_argument("--ray-workers", type=int, default=2, help="ray: solver actors (default 2)")
    p.add_argument("--ray-plies", default="10", help="ray: plies left of its positions (default 10)")
    p.add_argument("--rounds", type=int, default=20, help="cancel: rounds (default 20)")
    p.add_argument("--updates", type=int, default=3, help="cancel: updates read before the cancel (default 3)")
    p.add_argument("--verbose", action="store_true", help="reach: one line per position too")
    args = p.parse_args(argv)
    parts = {x.strip() for x in args.only.split(",") if x.strip()}
    if not parts <= {"reach", "ray", "cancel"} or args.games < 1 or args.workers < 1 or not args.time_limit > 0:
        print("bench solve: --only takes reach, ray, cancel; --games and --workers must be >= 1, --time-limit > 0",
              file=sys.stderr)
        return 2
    from quiltsolve.engine.endgame import c_available

    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parent).stdout.strip()
    except OSError:
        rev = "?"
    print(f"solve: commit {rev or '?'}, solver backend {'c' if c_available() else 'python'}")
    if "reach" in parts:
        reach(args)
    if "ray" in parts:
        ray(args)
    if "cancel" in parts:
        cancel(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
