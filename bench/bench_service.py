"""Load test of the gRPC service over loopback: throughput and latency per RPC.

Starts ``python -m quiltsolve.server`` on 127.0.0.1 (an ephemeral port) in its own
process, then drives it from client threads in this process:

* ``SolvePlacement`` on the 100 ``midgame-40-k3`` instances of
  ``bench/data/placement-instances.json`` (cover objective, seed 0);
* ``SuggestMove`` on mid-game states made by seeded random-vs-greedy play,
  with a 0.2 s thinking budget per request (``--budget``);

each at 1, 8 and 32 concurrent clients, bounded by a call count and a time
per cell. Prints calls/s, p50/p99 latency and errors by status code.

Then the capacity sections (``--sections``, default all):

* ``scaling``: CPU-heavy throughput (SuggestMove with a fixed iteration
  budget, pure Python) from 4 clients, against a server with 1 and with 2
  worker processes, in the same run; the ratio (target >= 1.7 on 2 cores);
* ``starvation``: 8 clients keep every worker and the queue full of long
  SuggestMove calls while probes measure health Check, ListPatches and a
  cheap SolvePlacement (targets p99 <= 50 / 50 / 100 ms);
* ``mixed``: 64 clients send a seeded mix of every RPC; answers by status code;
* ``memory``: server RSS (front and workers) before and after 200 distinct
  large puzzles (20x20, 64 large pieces);
* ``overrun``: per RPC, how far answers land past the time limit, how many
  deadline-bound calls still got an answer, and how soon after a deadline
  the worker is free again (targets <= 50 ms);
* ``tls``: SolvePlacement p50/p99 over plain text and over TLS.

With ``--against PATH`` (a checkout of an older commit, e.g. a git worktree with its C
extensions copied in) or ``--against REV`` (a commit: a temporary worktree is made and built),
every section runs against that checkout ("old") and this one ("new"); the throughput cells run
``--rounds`` times each (default 3), old and new alternately, and print side by side: each one's
median, and new / old.

    python -m bench service [--seconds S] [--calls N] [--clients 1,8,32] [--sections LIST]
    python -m bench service --sections throughput --clients 8 --against ../old --rounds 5
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

from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg

from bench.against import Code, median

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
    from quiltsolve import engine
    from quiltsolve.engine.players import GreedyPlayer, RandomPlayer

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


CODE: list[Code] = []   # the code start_server runs: the last entry (default: this checkout)


def code() -> Code:
    if not CODE:
        CODE.append(Code.here())
    return CODE[-1]


def start_server(workers: int | None, *extra: str) -> tuple[subprocess.Popen, int]:
    """``python -m quiltsolve.server`` of :func:`code` (this checkout, or the ``--against`` one) on an
    ephemeral port of 127.0.0.1: ``(process, port)``."""
    env = code().env(dict(os.environ, QUILTSOLVE_HOST="127.0.0.1", QUILTSOLVE_PORT="0"))
    if workers:
        env["QUILTSOLVE_WORKERS"] = str(workers)
    log = os.environ.get("QUILTSOLVE_BENCH_LOG")  # a file for the server's log lines, when debugging
    proc = subprocess.Popen([sys.executable, "-m", "quiltsolve.server", *extra], cwd=code().cwd(), env=env,
                            stdout=subprocess.PIPE, stderr=open(log, "a") if log else subprocess.DEVNULL, text=True)
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


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def duration(seconds: float):
    d = pb.SolvePlacementRequest().time_limit.__class__()
    d.FromNanoseconds(int(seconds * 1e9))
    return d


def tree_rss(pid: int) -> int:
    """RSS in bytes of ``pid`` and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [pid]
    page = os.sysconf("SC_PAGE_SIZE")
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            pass
        todo.extend(children.get(p, ()))
    return total


def ms(values: list[float], q: float) -> float:
    return percentile(sorted(values), q) * 1000


# ---------------------------------------------------------------- capacity sections

def section_scaling(args) -> None:
    """CPU-heavy throughput with 1 and 2 worker processes, same requests, same clients."""
    requests = [pb.SuggestMoveRequest(state_json=s, top=3, seed=0, iterations=args.iterations,
                                      time_limit=duration(30)) for s in midgame_states()]
    rates = {}
    for workers in (1, 2):
        proc, port = start_server(workers, "--fast-workers", "0", "--max-queue", "64")
        try:
            run_cell(port, "SuggestMove", requests, 2, 4, 30.0, 60.0)  # warm-up
            r = run_cell(port, "SuggestMove", requests, 4, 10_000, args.scaling_seconds, 60.0)
        finally:
            stop_server(proc)
        rates[workers] = r
    print(f"\nscaling: SuggestMove with {args.iterations} iterations per call (pure Python), 4 clients, "
          f"{args.scaling_seconds:g} s per cell")
    print(f"{'workers':>7} {'calls':>6} {'calls/s':>8} {'p50 ms':>8} {'p99 ms':>8}  errors")
    for w, r in rates.items():
        errs = ", ".join(f"{c}={n}" for c, n in sorted(r["errors"].items())) or "-"
        print(f"{w:>7} {r['ok']:>6} {r['rate']:>8.2f} {r['p50']:>8.1f} {r['p99']:>8.1f}  {errs}")
    ratio = rates[2]["rate"] / rates[1]["rate"] if rates[1]["rate"] else float("nan")
    print(f"ratio 2 workers / 1 worker: {ratio:.2f}  (target >= 1.7 on 2 cores: {'met' if ratio >= 1.7 else 'MISSED'})")


def _probe(port: int, name: str, make_call, until: float, out: dict) -> None:
    ch = grpc.insecure_channel(f"127.0.0.1:{port}")
    call = make_call(ch)
    lat, codes = [], Counter()
    while time.perf_counter() < until:
        t0 = time.perf_counter()
        try:
            call()
            codes["OK"] += 1
            lat.append(time.perf_counter() - t0)
        except grpc.RpcError as e:
            codes[e.code().name] += 1
        time.sleep(0.01)
    ch.close()
    out[name] = (lat, codes)


def section_starvation(args) -> None:
    """Workers and queue full of long SuggestMove calls; probes of the cheap calls."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    long_moves = [pb.SuggestMoveRequest(state_json=s, top=3, seed=0, time_limit=duration(2.0))
                  for s in midgame_states()]
    placements = placement_requests()
    proc, port = start_server(None)
    try:
        until = time.perf_counter() + args.starve_seconds + 1.0
        flood: dict = {}
        flooders = threading.Thread(target=lambda: flood.update(
            run_cell(port, "SuggestMove", long_moves, 8, 10_000, args.starve_seconds + 1.0, 30.0)))
        flooders.start()
        time.sleep(1.0)  # let the long calls fill the workers and the queue
        results: dict = {}
        it = iter(range(10**9))
        probes = {
            "health Check": lambda ch: (lambda stub=health_pb2_grpc.HealthStub(ch): stub.Check(
                health_pb2.HealthCheckRequest(service=""), timeout=2)),
            "ListPatches": lambda ch: (lambda stub=pbg.PlacementServiceStub(ch): stub.ListPatches(
                pb.ListPatchesRequest(), timeout=2)),
            "SolvePlacement": lambda ch: (lambda stub=pbg.PlacementServiceStub(ch): stub.SolvePlacement(
                placements[next(it) % len(placements)], timeout=5)),
        }
        threads = [threading.Thread(target=_probe, args=(port, n, f, until, results)) for n, f in probes.items()]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        flooders.join()
    finally:
        stop_server(proc)
    print(f"\nstarvation: 8 clients keep the workers and the queue full of SuggestMove calls "
          f"(2 s budget each) for {args.starve_seconds:g} s; one probe client per row, 10 ms apart")
    print(f"{'probe':<15} {'calls':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  errors   target")
    targets = {"health Check": 50, "ListPatches": 50, "SolvePlacement": 100}
    for name, (lat, codes) in results.items():
        errs = ", ".join(f"{c}={n}" for c, n in sorted(codes.items()) if c != "OK") or "-"
        p99 = ms(lat, 0.99)
        met = "met" if p99 <= targets[name] else "MISSED"
        print(f"{name:<15} {len(lat):>6} {ms(lat, 0.5):>8.1f} {p99:>8.1f} {ms(lat, 1.0):>8.1f}  "
              f"{errs:<8} p99 <= {targets[name]} ms: {met}")
    errs = ", ".join(f"{c}={n}" for c, n in sorted(flood.get("errors", {}).items())) or "-"
    print(f"(the flood itself: {flood.get('ok', 0)} SuggestMove answered, refused/failed: {errs})")


def section_mixed(args) -> None:
    """64 clients, each a seeded mix of every RPC."""
    import random

    from grpc_health.v1 import health_pb2, health_pb2_grpc

    placements = placement_requests()
    moves = move_requests(args.budget)
    puzzles = [pb.SolvePuzzleRequest(region=pb.Region(rows=["." * 10] * 6), mode=pb.PUZZLE_MODE_FIND,
                                     pieces=PENTOMINOES, time_limit=duration(2.0))]
    suggests = [pb.SuggestPlacementRequest(board=r.board, patch=r.patches[0], upcoming=list(r.patches[1:]),
                                           objective=pb.OBJECTIVE_COVER, top=3, time_limit=duration(0.2))
                for r in placements[:20]]
    kinds = [("SolvePlacement", placements, 0.4), ("SuggestMove", moves, 0.15), ("SuggestPlacement", suggests, 0.1),
             ("SolvePuzzle", puzzles, 0.1), ("ListPatches", [pb.ListPatchesRequest()], 0.15),
             ("Health", [health_pb2.HealthCheckRequest()], 0.1)]
    codes: dict[str, Counter] = {k: Counter() for k, _, _ in kinds}
    lat: dict[str, list[float]] = {k: [] for k, _, _ in kinds}
    lock = threading.Lock()
    proc, port = start_server(None)
    try:
        until = time.perf_counter() + args.mixed_seconds

        def client(k: int) -> None:
            rng = random.Random(k)
            ch = grpc.insecure_channel(f"127.0.0.1:{port}")
            stub, hstub = pbg.PlacementServiceStub(ch), health_pb2_grpc.HealthStub(ch)
            while time.perf_counter() < until:
                name, reqs, _ = rng.choices(kinds, weights=[w for _, _, w in kinds])[0]
                req = reqs[rng.randrange(len(reqs))]
                call = hstub.Check if name == "Health" else getattr(stub, name)
                t0 = time.perf_counter()
                try:
                    call(req, timeout=10)
                    code = "OK"
                except grpc.RpcError as e:
                    code = e.code().name
                with lock:
                    codes[name][code] += 1
                    if code == "OK":
                        lat[name].append(time.perf_counter() - t0)
            ch.close()

        threads = [threading.Thread(target=client, args=(k,)) for k in range(64)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        alive = proc.poll() is None
    finally:
        stop_server(proc)
    all_codes = sorted({c for cs in codes.values() for c in cs})
    print(f"\nmixed: 64 clients for {args.mixed_seconds:g} s, each a seeded mix of every RPC "
          f"(SuggestMove budget {args.budget:g} s); answers by status code")
    print(f"{'rpc':<17} " + " ".join(f"{c:>18}" for c in all_codes) + f" {'ok p50 ms':>10} {'ok p99 ms':>10}")
    for name in codes:
        print(f"{name:<17} " + " ".join(f"{codes[name].get(c, 0):>18}" for c in all_codes)
              + f" {ms(lat[name], 0.5):>10.1f} {ms(lat[name], 0.99):>10.1f}")
    print(f"server still serving afterwards: {'yes' if alive else 'NO'}; "
          f"expected codes: OK and RESOURCE_EXHAUSTED only")


PENTOMINOES = ["#####", "##/##/#.", "###/#../#..", "##./.##/..#", "#../###/..#", ".#./###/.#.",
               "#.#/###", "###/.#./.#.", ".##/##./.#.", "##../.###", "####/#...", "####/.#.."]


def large_puzzle(k: int) -> pb.SolvePuzzleRequest:
    """A distinct 20x20 puzzle with 64 large pieces (a set-up of tens of MB): ``k`` picks the region."""
    import random

    rng = random.Random(k)
    rows = ["".join("#" if rng.random() < 0.03 else "." for _ in range(20)) for _ in range(20)]
    pieces = [rng.choice(["#####/#....", "######", "####/##..", "###/###", "#####/..#..", "##../####"])
              for _ in range(64)]
    return pb.SolvePuzzleRequest(region=pb.Region(rows=rows), pieces=pieces, mode=pb.PUZZLE_MODE_FIND,
                                 allow_unused=True, time_limit=duration(args_puzzle_limit[0]))


args_puzzle_limit = [0.3]


def section_memory(args) -> None:
    args_puzzle_limit[0] = args.puzzle_limit
    proc, port = start_server(None)
    try:
        time.sleep(0.5)
        before = tree_rss(proc.pid)
        ch = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = pbg.PlacementServiceStub(ch)
        codes: Counter = Counter()
        peak = before
        t0 = time.perf_counter()
        with futures_pool(2) as pool:
            def one(k):
                try:
                    stub.SolvePuzzle(large_puzzle(k), timeout=30)
                    return "OK"
                except grpc.RpcError as e:
                    return e.code().name
            for i, code in enumerate(pool.map(one, range(args.puzzles))):
                codes[code] += 1
                if i % 20 == 19:
                    peak = max(peak, tree_rss(proc.pid))
        wall = time.perf_counter() - t0
        after = tree_rss(proc.pid)
        ch.close()
    finally:
        stop_server(proc)
    mib = 1 << 20
    print(f"\nmemory: {args.puzzles} distinct 20x20 puzzles with 64 large pieces each "
          f"(time limit {args.puzzle_limit:g} s), 2 clients, {wall:.1f} s; server = front + workers")
    print(f"RSS before {before / mib:.0f} MiB, peak {peak / mib:.0f} MiB, after {after / mib:.0f} MiB "
          f"(growth {(after - before) / mib:+.0f} MiB); answers: "
          + ", ".join(f"{c}={n}" for c, n in sorted(codes.items())))


def futures_pool(n: int):
    from concurrent.futures import ThreadPoolExecutor
    return ThreadPoolExecutor(n)


def section_overrun(args) -> None:
    """How far answers land past their time limit or deadline, per RPC."""
    empty = pb.Board(rows=["." * 9] * 9)
    hard = [pb.SolvePlacementRequest(board=pb.Board(rows=i["board"]), patches=[pb.PatchRef(id=p) for p in i["patches"]],
                                     objective=pb.OBJECTIVE_COVER, seed=0)
            for i in json.loads(DATA.read_text()) if i["family"] in ("opening-0-k16", "hard-20-k16")]
    states = midgame_states(8)
    cases = {
        "SolvePlacement": hard,
        "SuggestPlacement": [pb.SuggestPlacementRequest(board=empty, patch=pb.PatchRef(id=p),
                                                        upcoming=[pb.PatchRef(id=i) for i in range(1, 33) if i != p],
                                                        objective=pb.OBJECTIVE_COVER) for p in (5, 9, 13, 21)],
        "SuggestMove": [pb.SuggestMoveRequest(state_json=s, top=3, seed=0) for s in states],
        "SolvePuzzle": [large_puzzle(k) for k in range(4)]
                       # 10x10 dominoes one by one (the search, asked: the frontier would finish at once)
                       + [pb.SolvePuzzleRequest(region=pb.Region(rows=["." * 10] * 10), pieces=["##"] * 50,
                                                mode=pb.PUZZLE_MODE_COUNT, method=pb.PUZZLE_METHOD_SEARCH)],
    }
    limit, deadline = args.overrun_limit, args.overrun_deadline
    tiny = pb.SolvePuzzleRequest(region=pb.Region(rows=["....."] * 3), mode=pb.PUZZLE_MODE_FIND,
                                 pieces=["####/#...", "###/.#./.#.", ".#../####"])
    proc, port = start_server(1, "--fast-workers", "0")
    rows = []
    try:
        ch = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = pbg.PlacementServiceStub(ch)
        for name, reqs in cases.items():
            call = getattr(stub, name)
            over_limit, free_after, codes = [], [], Counter()
            for i in range(args.overrun_calls):
                req = type(reqs[0])()
                req.CopyFrom(reqs[i % len(reqs)])
                req.time_limit.CopyFrom(duration(limit))
                t0 = time.perf_counter()
                call(req, timeout=30)
                over_limit.append(time.perf_counter() - t0 - limit)
                # Deadline-bound: a long time limit, a short deadline; then how soon is the worker free?
                req.time_limit.CopyFrom(duration(30))
                t0 = time.perf_counter()
                try:
                    call(req, timeout=deadline)
                    codes["OK"] += 1
                except grpc.RpcError as e:
                    codes[e.code().name] += 1
                stub.SolvePuzzle(tiny, timeout=30)  # runs once the one worker is free
                free_after.append(time.perf_counter() - t0 - deadline)
            rows.append((name, over_limit, free_after, codes))
        ch.close()
    finally:
        stop_server(proc)
    print(f"\noverrun: one worker; per call a {limit:g} s time limit (no deadline), then a {deadline:g} s deadline "
          f"with a 30 s limit followed by a tiny puzzle that needs the worker; {args.overrun_calls} calls per RPC")
    print(f"{'rpc':<17} {'past limit p50':>15} {'p99 ms':>8} {'deadline: answered':>19} {'DEADLINE_EXC':>13}"
          f" {'worker free p99 ms':>19}  target <= 50 ms")
    for name, over, free, codes in rows:
        p99o, p99f = ms(over, 0.99), ms(free, 0.99)
        met = "met" if p99o <= 50 and p99f <= 50 else "MISSED"
        print(f"{name:<17} {ms(over, 0.5):>15.1f} {p99o:>8.1f} {codes.get('OK', 0):>19} "
              f"{codes.get('DEADLINE_EXCEEDED', 0):>13} {p99f:>19.1f}  {met}")
    print("('worker free' is when the tiny puzzle after the deadline-bound call is answered, less the deadline: "
          "it includes the tiny puzzle itself, ~1 ms)")


def section_tls(args) -> None:
    """SolvePlacement latency over plain text and over TLS (certificates made here with openssl)."""
    import tempfile

    requests = placement_requests()
    with tempfile.TemporaryDirectory() as d:
        def ossl(*a):
            subprocess.run(["openssl", *a], cwd=d, check=True, capture_output=True)
        ossl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "1",
             "-subj", "/CN=bench CA")
        Path(d, "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
        ossl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "s.key", "-out", "s.csr", "-subj", "/CN=s")
        ossl("x509", "-req", "-in", "s.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "s.pem",
             "-days", "1", "-extfile", "san.ext")
        creds = grpc.ssl_channel_credentials(root_certificates=Path(d, "ca.pem").read_bytes())
        rows = []
        for name, extra in (("plain text", ()), ("TLS", ("--tls-cert", f"{d}/s.pem", "--tls-key", f"{d}/s.key"))):
            proc, port = start_server(None, *extra)
            try:
                ch = (grpc.insecure_channel(f"127.0.0.1:{port}") if not extra
                      else grpc.secure_channel(f"127.0.0.1:{port}", creds))
                stub = pbg.PlacementServiceStub(ch)
                for r in requests[:20]:
                    stub.SolvePlacement(r, timeout=10)  # warm-up (and the TLS handshake)
                lat = []
                for i in range(args.tls_calls):
                    t0 = time.perf_counter()
                    stub.SolvePlacement(requests[i % len(requests)], timeout=10)
                    lat.append(time.perf_counter() - t0)
                ch.close()
            finally:
                stop_server(proc)
            rows.append((name, lat))
    print(f"\ntls: SolvePlacement (midgame-40-k3), one client, {args.tls_calls} sequential calls on one channel")
    print(f"{'transport':<11} {'p50 ms':>8} {'p99 ms':>8}")
    for name, lat in rows:
        print(f"{name:<11} {ms(lat, 0.5):>8.2f} {ms(lat, 0.99):>8.2f}")
    (_, plain), (_, tls) = rows
    print(f"TLS overhead per call: p50 {ms(tls, 0.5) - ms(plain, 0.5):+.2f} ms, p99 {ms(tls, 0.99) - ms(plain, 0.99):+.2f} ms")


SECTIONS = {"throughput": None, "scaling": section_scaling, "starvation": section_starvation,
            "mixed": section_mixed, "memory": section_memory, "overrun": section_overrun, "tls": section_tls}


def throughput_round(args, levels: list[int], work: list) -> list[dict]:
    """One server of :func:`code`, every throughput cell: SolvePlacement, then SuggestMove, per level."""
    proc, port = start_server(args.workers)
    rows = []
    try:
        for method, requests, timeout in work:
            run_cell(port, method, requests, 2, min(40, len(requests)), 10.0, timeout)  # warm-up
            for clients in levels:
                rows.append(run_cell(port, method, requests, clients, args.calls, args.seconds, timeout))
    finally:
        stop_server(proc)
    return rows


def print_throughput(args, rows: list[dict]) -> None:
    print(f"\nthroughput: loopback 127.0.0.1, server in its own process, {os.cpu_count()} CPUs; "
          f"≤{args.calls} calls or {args.seconds:g} s per cell; SuggestMove budget {args.budget:g} s, top 3")
    print(f"{'rpc':<15} {'clients':>7} {'calls':>6} {'ok':>6} {'calls/s':>8} {'p50 ms':>8} {'p99 ms':>8}  errors")
    for r in rows:
        errs = ", ".join(f"{c}={n}" for c, n in sorted(r["errors"].items())) or "-"
        print(f"{r['method']:<15} {r['clients']:>7} {r['calls']:>6} {r['ok']:>6} {r['rate']:>8.1f} "
              f"{r['p50']:>8.1f} {r['p99']:>8.1f}  {errs}")
    print("targets (2 cores): SolvePlacement >= 300 calls/s and p99 <= 50 ms at 8 clients; "
          "SuggestMove p99 <= 250 ms at 8 clients; only RESOURCE_EXHAUSTED errors at 32")


def print_throughput_against(args, codes: list[Code], rounds: dict[str, list[list[dict]]]) -> None:
    """Old and new side by side: per cell, each one's median over the rounds, and new / old."""
    old, new = codes
    n = len(rounds[new.label])
    print(f"\nthroughput, side by side: {old.describe()}; {new.describe()}")
    print(f"loopback 127.0.0.1, each server in its own process, {os.cpu_count()} CPUs; {n} rounds, old and new "
          f"alternately; ≤{args.calls} calls or {args.seconds:g} s per cell; medians over the rounds "
          f"(each round's rate in brackets); SuggestMove budget {args.budget:g} s, top 3")
    print(f"{'rpc':<15} {'clients':>7} {'old calls/s':>12} {'new calls/s':>12} {'new/old':>8} "
          f"{'old p50':>8} {'new p50':>8} {'old p99':>8} {'new p99':>8}  errors (old | new)")
    cells = len(rounds[new.label][0])
    for i in range(cells):
        o = [r[i] for r in rounds[old.label]]
        w = [r[i] for r in rounds[new.label]]
        ro, rn = median([r["rate"] for r in o]), median([r["rate"] for r in w])
        errs = []
        for group in (o, w):
            total: Counter = Counter()
            for r in group:
                total.update(r["errors"])
            errs.append(", ".join(f"{c}={k}" for c, k in sorted(total.items())) or "-")
        print(f"{w[0]['method']:<15} {w[0]['clients']:>7} {ro:>12.1f} {rn:>12.1f} {rn / ro if ro else float('nan'):>7.2f}x "
              f"{median([r['p50'] for r in o]):>8.1f} {median([r['p50'] for r in w]):>8.1f} "
              f"{median([r['p99'] for r in o]):>8.1f} {median([r['p99'] for r in w]):>8.1f}  "
              f"{errs[0]} | {errs[1]}")
        each = ["[" + ", ".join(f"{r['rate']:.0f}" for r in group) + "]" for group in (o, w)]
        print(f"{'':<23} {each[0]} {each[1]}")
    for i in range(cells):
        w = [r[i] for r in rounds[new.label]]
        o = [r[i] for r in rounds[old.label]]
        if w[0]["method"] == "SolvePlacement" and w[0]["clients"] == 8:
            ro, rn = median([r["rate"] for r in o]), median([r["rate"] for r in w])
            ratio, p99 = (rn / ro if ro else float("nan")), median([r["p99"] for r in w])
            print(f"SolvePlacement at 8 clients: new/old {ratio:.2f}x (target >= 1.7: "
                  f"{'met' if ratio >= 1.7 else 'MISSED'}), new p99 {p99:.1f} ms (target <= 25 ms: "
                  f"{'met' if p99 <= 25 else 'MISSED'})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench service", description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=4.0, help="time per cell (default 4)")
    ap.add_argument("--calls", type=int, default=1500, help="calls per cell at most (default 1500)")
    ap.add_argument("--clients", default="1,8,32", help="concurrency levels (default 1,8,32)")
    ap.add_argument("--workers", type=int, default=None, help="server worker processes (default: the server's)")
    ap.add_argument("--budget", type=float, default=0.15, help="SuggestMove time_limit in seconds (default 0.15)")
    ap.add_argument("--sections", default=",".join(SECTIONS),
                    help=f"which parts to run, comma-separated (default all: {','.join(SECTIONS)})")
    ap.add_argument("--against", metavar="PATH|REV", default=None,
                    help="also measure another checkout, side by side: a folder (a worktree of an older commit, "
                         "its C extensions built or copied in) or a commit of this repository (a temporary "
                         "worktree is made and its extensions built); this checkout is 'new', that one 'old'")
    ap.add_argument("--rounds", type=int, default=None,
                    help="throughput: rounds per checkout, old and new alternately (default 3 with --against, "
                         "else 1); medians are printed")
    ap.add_argument("--iterations", type=int, default=400, help="scaling: SuggestMove iterations per call")
    ap.add_argument("--scaling-seconds", type=float, default=15.0, help="scaling: seconds per worker count")
    ap.add_argument("--starve-seconds", type=float, default=10.0, help="starvation: seconds of probing")
    ap.add_argument("--mixed-seconds", type=float, default=10.0, help="mixed: seconds of the 64-client mix")
    ap.add_argument("--puzzles", type=int, default=200, help="memory: distinct large puzzles to send")
    ap.add_argument("--puzzle-limit", type=float, default=0.3, help="memory: time limit per puzzle, seconds")
    ap.add_argument("--overrun-calls", type=int, default=10, help="overrun: calls per RPC")
    ap.add_argument("--overrun-limit", type=float, default=0.3, help="overrun: time limit in seconds")
    ap.add_argument("--tls-calls", type=int, default=1000, help="tls: calls per transport")
    ap.add_argument("--overrun-deadline", type=float, default=0.3, help="overrun: deadline in seconds")
    args = ap.parse_args(argv)
    levels = [int(x) for x in args.clients.split(",") if x.strip()]
    sections = [x.strip() for x in args.sections.split(",") if x.strip()]
    unknown = [x for x in sections if x not in SECTIONS]
    if unknown:
        ap.error(f"unknown section {unknown[0]!r}; known: {', '.join(SECTIONS)}")
    if args.rounds is not None and args.rounds < 1:
        ap.error("--rounds must be >= 1")
    codes = [Code.here()] if args.against is None else [Code.against(args.against), Code.here()]
    try:
        if len(codes) > 1:
            print(f"side by side: {codes[0].describe()}; {codes[1].describe()}", flush=True)
        for name in sections:
            if SECTIONS[name] is None:
                continue
            for c in codes:
                CODE.append(c)
                try:
                    if len(codes) > 1:
                        print(f"\n[{name}: {c.label} = {c.rev}]", flush=True)
                    SECTIONS[name](args)
                finally:
                    CODE.pop()
        if "throughput" not in sections:
            return 0

        work = [("SolvePlacement", placement_requests(), 10.0), ("SuggestMove", move_requests(args.budget), 10.0)]
        rounds: dict[str, list[list[dict]]] = {c.label: [] for c in codes}
        n = args.rounds or (3 if len(codes) > 1 else 1)
        for k in range(n):
            for c in (codes if k % 2 == 0 else codes[::-1]):  # old, new, new, old, ...: neither always first
                CODE.append(c)
                try:
                    rounds[c.label].append(throughput_round(args, levels, work))
                finally:
                    CODE.pop()
        if len(codes) > 1:
            print_throughput_against(args, codes, rounds)
        elif n == 1:
            print_throughput(args, rounds[codes[0].label][0])
        else:
            for k, rows in enumerate(rounds[codes[0].label]):
                print(f"\n[round {k + 1} of {n}]", end="")
                print_throughput(args, rows)
        return 0
    finally:
        for c in codes:
            c.close()


if __name__ == "__main__":
    sys.exit(main())
