"""The spine's cost: SolvePlacement p50/p99 over gRPC and the embedded call time, side by side.

One run measures both faces on the same machine, the same 100
``midgame-40-k3`` instances of ``bench/data/placement-instances.json``
(cover objective, seed 0), through the public client API only
(``clients.PlacementClient`` against a server started here with its
defaults and two workers, and ``clients.EmbeddedClient`` in this process),
so the same script measures any version of the project: run it before and
after a change to the request path and compare.

    python -m bench spine                # 3 rounds over the 100 instances, each face
    python -m bench spine --rounds 5
    python -m bench spine --against ../old --pairs 5   # side by side with an older checkout (or a commit)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "placement-instances.json"
FAMILY = "midgame-40-k3"


def instances() -> list[tuple[list[str], list[int]]]:
    data = [i for i in json.loads(DATA.read_text()) if i["family"] == FAMILY]
    return [(i["board"], list(i["patches"])) for i in data]


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


def measure(solve, cases, rounds: int) -> list[float]:
    """Seconds per call, every call of every round (one warm-up round first, not counted)."""
    for board, patches in cases:
        solve(board, patches)
    out = []
    for _ in range(rounds):
        for board, patches in cases:
            t0 = time.perf_counter()
            solve(board, patches)
            out.append(time.perf_counter() - t0)
    return sorted(out)


def measure_faces(rounds: int) -> dict[str, list[float]]:
    """Seconds per call of each face, every call of every round, sorted: ``{"gRPC": [...], "embedded": [...]}``."""
    from quiltsolve.clients import EmbeddedClient, PlacementClient
    from quiltsolve.server import ServerConfig, build_server

    cases = instances()
    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=2, grace=0.5))
    server.start()
    try:
        with PlacementClient(f"127.0.0.1:{port}", deadline=60) as remote:
            grpc_times = measure(lambda b, ps: remote.solve_placement(b, ps), cases, rounds)
    finally:
        server.stop(0).wait(10)
    embedded = EmbeddedClient()
    embedded_times = measure(lambda b, ps: embedded.solve_placement(b, ps), cases, rounds)
    return {"gRPC": grpc_times, "embedded": embedded_times}


def print_faces(times: dict[str, list[float]]) -> None:
    print(f"{'face':<10} {'calls':>6} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8}")
    for name, values in times.items():
        print(f"{name:<10} {len(values):>6} {percentile(values, 0.5) * 1000:>8.2f} "
              f"{percentile(values, 0.9) * 1000:>8.2f} {percentile(values, 0.99) * 1000:>8.2f}")


def against(args: argparse.Namespace) -> int:
    """This checkout and ``--against``'s, each measured in a process of its own, alternately, ``--pairs``
    times; each face's p50 / p90 / p99 per run, then the medians side by side."""
    import sys

    from bench.against import Code, median

    codes = [Code.against(args.against), Code.here()]
    runs: dict[str, list[dict[str, list[float]]]] = {c.label: [] for c in codes}
    try:
        print(f"spine: SolvePlacement ({FAMILY}, {len(instances())} instances x {args.rounds} rounds per run), "
              f"{args.pairs} runs each, old and new alternately, each in a process of its own")
        for c in codes:
            print(f"  {c.describe()}")
        for k in range(args.pairs):
            for c in (codes if k % 2 == 0 else codes[::-1]):
                out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--rounds", str(args.rounds),
                                      "--json"], cwd=c.cwd(), env=c.env(), capture_output=True, text=True)
                if out.returncode != 0:
                    print(f"{c.label}: the run failed:\n{out.stderr[-2000:]}", file=sys.stderr)
                    return 1
                times = json.loads(out.stdout.strip().splitlines()[-1])
                runs[c.label].append(times)
                print(f"  run {k + 1} {c.label}: " + "; ".join(
                    f"{face} p50 {percentile(v, 0.5) * 1000:.2f} ms p99 {percentile(v, 0.99) * 1000:.2f} ms"
                    for face, v in times.items()), flush=True)
        old, new = codes
        print(f"{'face':<10} {'stat':<5} {'old ms':>8} {'new ms':>8} {'new/old':>8}   (medians over the runs)")
        for face in ("gRPC", "embedded"):
            for q, name in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99")):
                o = median([percentile(r[face], q) * 1000 for r in runs[old.label]])
                n = median([percentile(r[face], q) * 1000 for r in runs[new.label]])
                print(f"{face:<10} {name:<5} {o:>8.2f} {n:>8.2f} {n / o if o else float('nan'):>7.2f}x")
        return 0
    finally:
        for c in codes:
            c.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench spine", description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3, help="rounds over the instances per face (default 3)")
    p.add_argument("--against", metavar="PATH|REV", default=None,
                   help="also measure another checkout (a folder, or a commit: see python -m bench service "
                        "--help), side by side: each in a process of its own, alternately")
    p.add_argument("--pairs", type=int, default=3, help="with --against: runs of each checkout (default 3)")
    p.add_argument("--json", action="store_true", help="print the seconds of every call as one JSON object")
    args = p.parse_args(argv)
    if args.against is not None:
        return against(args)
    times = measure_faces(args.rounds)
    if args.json:
        print(json.dumps(times))
        return 0
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parent).stdout.strip()
    except OSError:
        rev = "?"
    print(f"spine: SolvePlacement ({FAMILY}, {len(instances())} instances x {args.rounds} rounds), commit {rev or '?'}")
    print_faces(times)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
