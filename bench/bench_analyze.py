"""AnalyzePosition over gRPC: how soon a cancelled analysis frees its worker (target 50 ms), and how regular its
updates are (target: every report interval, at least four a second).

A server with one worker is started here; each round streams an analysis until cancelled
(``report_interval`` 0.2 s), reads ``--updates`` updates that list moves, cancels the call and measures the
time from the cancel to the worker's slot being free again (polled every 0.5 ms), and the gaps between
updates. Positions: seeded greedy games, a few plies in (the search runs, no proof).

    python -m bench analyze                 # 20 rounds
    python -m bench analyze --rounds 50 --updates 4
"""

from __future__ import annotations

import argparse
import subprocess
import time
from pathlib import Path

FREE_TARGET_MS = 50.0
INTERVAL = 0.2


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench analyze", description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=20, help="analyses streamed and cancelled (default 20)")
    p.add_argument("--updates", type=int, default=3, help="updates with moves read before the cancel (default 3)")
    args = p.parse_args(argv)

    import grpc

    from quiltsolve import engine
    from quiltsolve.engine.players import GreedyPlayer
    from quiltsolve.patchwork.v1 import placement_pb2 as pb
    from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
    from quiltsolve.server import ServerConfig, build_server, positions

    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0, grace=0.5))
    server.start()
    admission = server.core.admission
    freed: list[float] = []
    gaps: list[float] = []
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = pbg.PlacementServiceStub(channel)
        for i in range(args.rounds):
            state = engine.new_game(i)
            for _ in range(4 + i % 8):
                state.apply_action(GreedyPlayer().choose(state))
            request = pb.AnalyzePositionRequest(state=positions.to_message(state), until_cancelled=True, top=3,
                                                report_interval={"nanos": int(INTERVAL * 1e9)})
            responses = stub.AnalyzePosition(request, timeout=120)
            seen, last = 0, None
            for update in responses:
                now = time.perf_counter()
                if last is not None:
                    gaps.append(now - last)
                last = now
                seen += bool(update.moves)
                if seen >= args.updates:
                    break
            t0 = time.perf_counter()
            responses.cancel()
            while admission.stats()["free"] < 1:
                time.sleep(0.0005)
            freed.append(time.perf_counter() - t0)
        channel.close()
    finally:
        server.stop(0).wait(10)

    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parent).stdout.strip()
    except OSError:
        rev = "?"
    freed.sort()
    gaps.sort()
    p99 = percentile(freed, 0.99) * 1000
    print(f"analyze: AnalyzePosition until cancelled, {args.rounds} rounds of {args.updates} updates, "
          f"commit {rev or '?'}")
    print(f"{'measure':<28} {'n':>4} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}  target")
    print(f"{'cancel -> worker free':<28} {len(freed):>4} {percentile(freed, 0.5) * 1000:>8.1f} "
          f"{percentile(freed, 0.9) * 1000:>8.1f} {p99:>8.1f} {freed[-1] * 1000 if freed else float('nan'):>8.1f}  "
          f"p99 <= {FREE_TARGET_MS:g} ms: {'met' if p99 <= FREE_TARGET_MS else 'MISSED'}")
    slow = percentile(gaps, 0.9) * 1000
    print(f"{'gap between updates':<28} {len(gaps):>4} {percentile(gaps, 0.5) * 1000:>8.1f} {slow:>8.1f} "
          f"{percentile(gaps, 0.99) * 1000:>8.1f} {gaps[-1] * 1000 if gaps else float('nan'):>8.1f}  "
          f"p90 <= 250 ms (4 a second): {'met' if slow <= 250 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
