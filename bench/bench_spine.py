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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench spine", description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3, help="rounds over the instances per face (default 3)")
    args = p.parse_args(argv)

    from quiltsolve.clients import EmbeddedClient, PlacementClient
    from quiltsolve.server import ServerConfig, build_server

    cases = instances()
    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=2, grace=0.5))
    server.start()
    try:
        with PlacementClient(f"127.0.0.1:{port}", deadline=60) as remote:
            grpc_times = measure(lambda b, ps: remote.solve_placement(b, ps), cases, args.rounds)
    finally:
        server.stop(0).wait(10)
    embedded = EmbeddedClient()
    embedded_times = measure(lambda b, ps: embedded.solve_placement(b, ps), cases, args.rounds)

    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parent).stdout.strip()
    except OSError:
        rev = "?"
    print(f"spine: SolvePlacement ({FAMILY}, {len(cases)} instances x {args.rounds} rounds), commit {rev or '?'}")
    print(f"{'face':<10} {'calls':>6} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8}")
    for name, times in (("gRPC", grpc_times), ("embedded", embedded_times)):
        print(f"{name:<10} {len(times):>6} {percentile(times, 0.5) * 1000:>8.2f} "
              f"{percentile(times, 0.9) * 1000:>8.2f} {percentile(times, 0.99) * 1000:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
