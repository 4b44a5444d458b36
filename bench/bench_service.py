"""Load test of the gRPC service over loopback: throughput and latency per RPC.

Starts ``python -m server`` on 127.0.0.1 (an ephemeral port) in its own
process, then drives it from client threads in this process:

* ``SolvePlacement`` on the 100 ``midgame-40-k3`` instances of
  ``bench/data/placement-instances.json`` (cover objective, seed 0);
* ``SuggestMove`` on mid-game states made by seeded random-vs-greedy play,
  with a 0.2 s thinking budget per request (``--budget``);

each at 1, 8 and 32 concurrent clients, bounded by a call count and a time
per cell. Prints calls/s, p50/p99 latency and errors by status code.

    python -m bench service [--seconds S] [--calls N] [--clients 1,8,32]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import grpc

from patchwork.v1 import placement_pb2 as pb
from patchwork.v1 import placement_pb2_grpc as pbg

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data" / "placement-instances.json"
FAMILY = "midgame-40-k3"


def placement_requests() -> list[pb.SolvePlacementRequest]:
    instances = [i for i in json.loads(DATA.read_text()) if i["family"] == FAMILY]
    return [pb.SolvePlacementRequest(board=pb.Board(rows=i["board"]),
                                     patches=[pb.PatchRef(id=p) for p in i["patches"]],
                                     objective=pb.OBJECTIVE_COVER, seed=0)
            for i in instances]


def midgame_states(n: int = 24) -> list[str]:
    """Game states after 10-30 plies of seeded random-vs-greedy play."""
    import engine
    from engine.players import GreedyPlayer, RandomPlayer

    out = []
    seed = 0
    while len(out) < n:
        seed += 1
        state = engine.new_game(1000 + seed)
        players = [RandomPlayer(seed), GreedyPlayer()]
        plies = 10 + seed % 21
        for _ in range(plies):
            if state.is_terminal():
                break
            state.apply_action(players[state.current_player()].choose(state))
        if not state.is_terminal():
            out.append(json.dumps(state.to_json()))
    return out


def move_requests(budget_s: float = 0.2) -> list[pb.SuggestMoveRequest]:
    budget = pb.SuggestMoveRequest().time_limit.__class__()
    budget.FromNanoseconds(int(budget_s * 1e9))
    return [pb.SuggestMoveRequest(state_json=s, top=3, seed=0, time_limit=budget) for s in midgame_states()]


def start_server(workers: int | None) -> tuple[subprocess.Popen, int]:
    env = dict(os.environ, QUILTSOLVE_HOST="127.0.0.1", QUILTSOLVE_PORT="0")
    if workers:
        env["QUILTSOLVE_WORKERS"] = str(workers)
    proc = subprocess.Popen([sys.executable, "-m", "server"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    if not line.startswith("quiltsolve serving on "):
        proc.kill()
        raise RuntimeError(f"server did not start: {line!r}")
    return proc, int(line.split()[3].rsplit(":", 1)[1])


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


def run_cell(port: int, method: str, requests: list, clients: int, max_calls: int, seconds: float,
             timeout: float) -> dict:
    """``clients`` threads, each with its own channel, until ``max_calls`` or ``seconds``."""
    lock = threading.Lock()
    latencies: list[float] = []
    codes: Counter = Counter()
    issued = [0]
    stop_at = time.perf_counter() + seconds
    channels = [grpc.insecure_channel(f"127.0.0.1:{port}") for _ in range(clients)]
    for ch in channels:
        grpc.channel_ready_future(ch).result(timeout=10)

    def client(k: int) -> None:
        call = getattr(pbg.PlacementServiceStub(channels[k]), method)
        while True:
            with lock:
                if issued[0] >= max_calls or time.perf_counter() >= stop_at:
                    return
                i = issued[0]
                issued[0] += 1
            t0 = time.perf_counter()
            try:
                call(requests[i % len(requests)], timeout=timeout)
                code = "OK"
            except grpc.RpcError as e:
                code = e.code().name
            dt = time.perf_counter() - t0
            with lock:
                codes[code] += 1
                if code == "OK":
                    latencies.append(dt)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    for ch in channels:
        ch.close()
    latencies.sort()
    calls = sum(codes.values())
    return {"method": method, "clients": clients, "calls": calls, "ok": codes.get("OK", 0),
            "rate": codes.get("OK", 0) / wall if wall > 0 else 0.0,
            "p50": percentile(latencies, 0.50) * 1000, "p99": percentile(latencies, 0.99) * 1000,
            "errors": {c: n for c, n in codes.items() if c != "OK"}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench service", description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=4.0, help="time per cell (default 4)")
    ap.add_argument("--calls", type=int, default=1500, help="calls per cell at most (default 1500)")
    ap.add_argument("--clients", default="1,8,32", help="concurrency levels (default 1,8,32)")
    ap.add_argument("--workers", type=int, default=None, help="server worker threads (default: the server's)")
    ap.add_argument("--budget", type=float, default=0.15, help="SuggestMove time_limit in seconds (default 0.15)")
    args = ap.parse_args(argv)
    levels = [int(x) for x in args.clients.split(",") if x.strip()]

    work = [("SolvePlacement", placement_requests(), 10.0), ("SuggestMove", move_requests(args.budget), 10.0)]
    proc, port = start_server(args.workers)
    rows = []
    try:
        for method, requests, timeout in work:
            run_cell(port, method, requests, 2, min(40, len(requests)), 10.0, timeout)  # warm-up
            for clients in levels:
                rows.append(run_cell(port, method, requests, clients, args.calls, args.seconds, timeout))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(f"loopback 127.0.0.1, server in its own process, {os.cpu_count()} CPUs; "
          f"≤{args.calls} calls or {args.seconds:g} s per cell; SuggestMove budget {args.budget:g} s, top 3")
    print(f"{'rpc':<15} {'clients':>7} {'calls':>6} {'ok':>6} {'calls/s':>8} {'p50 ms':>8} {'p99 ms':>8}  errors")
    for r in rows:
        errs = ", ".join(f"{c}={n}" for c, n in sorted(r["errors"].items())) or "-"
        print(f"{r['method']:<15} {r['clients']:>7} {r['calls']:>6} {r['ok']:>6} {r['rate']:>8.1f} "
              f"{r['p50']:>8.1f} {r['p99']:>8.1f}  {errs}")
    print("targets (2 cores): SolvePlacement >= 300 calls/s and p99 <= 50 ms at 8 clients; "
          "SuggestMove p99 <= 250 ms at 8 clients; only RESOURCE_EXHAUSTED errors at 32")
    return 0


if __name__ == "__main__":
    sys.exit(main())
