"""A Node.js client (@grpc/grpc-js, tests/node/analyze_position.mjs) streams AnalyzePosition, reads three
updates and cancels: the server logs the cancellation and its worker is free.

Runs where ``node`` and ``npm`` are (the test dependencies, pinned in tests/node/package.json and its
package-lock.json, are installed here with ``npm ci`` when missing); skipped otherwise, with one closing
line saying why, as the browser tests are without Chromium.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from quiltsolve.engine.players import GreedyPlayer
from quiltsolve import engine
from quiltsolve.server import ServerConfig, build_server, positions

from .conftest import NODE_SKIPS

HERE = Path(__file__).resolve().parent
PROTO = HERE.parents[1] / "proto"


def node_ready() -> str | None:
    """None when node can run the client, else why not (after trying to install its dependencies)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return "no node/npm on this machine"
    if (HERE / "node_modules" / "@grpc" / "grpc-js").is_dir() and (HERE / "node_modules" / "@grpc" / "proto-loader").is_dir():
        return None
    try:
        r = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=HERE, capture_output=True,
                           text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"npm ci failed in tests/node ({e})"
    if r.returncode != 0:
        return f"npm ci failed in tests/node: {(r.stderr or r.stdout).strip().splitlines()[-1:]}"
    return None


@pytest.fixture(scope="module")
def node():
    reason = node_ready()
    if reason:
        if reason not in NODE_SKIPS:
            NODE_SKIPS.append(reason)
        pytest.skip(f"Node.js client test did not run: {reason}")
    return shutil.which("node")


@pytest.fixture(scope="module")
def one_worker():
    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0))
    server.start()
    yield server, port
    server.stop(0).wait(5)


def test_a_node_client_streams_three_updates_and_cancels(node, one_worker, tmp_path, capfd):
    server, port = one_worker
    state = engine.new_game(4)
    for _ in range(8):
        state.apply_action(GreedyPlayer().choose(state))
    (tmp_path / "state.json").write_text(json.dumps(positions.to_mapping(state)))
    capfd.readouterr()
    t0 = time.monotonic()
    r = subprocess.run([node, str(HERE / "analyze_position.mjs"), f"127.0.0.1:{port}", str(PROTO),
                        str(tmp_path / "state.json"), "3"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    updates, last = lines[:-1], lines[-1]
    assert last["cancelled"] is True, last
    with_moves = [u for u in updates if u["moves"]]
    assert len(with_moves) == 3 and not any(u["final"] for u in updates)
    assert [u["iterations"] for u in with_moves] == sorted(u["iterations"] for u in with_moves)
    assert all(state.is_legal(engine.parse_action(m)) for u in with_moves for m in u["moves"])
    # The worker is free again (the one main worker: another call gets it at once).
    slots = server.core.admission.stats()["slots"]
    while server.core.admission.stats()["free"] < slots and time.monotonic() - t0 < 60:
        time.sleep(0.01)
    assert server.core.admission.stats()["free"] == slots
    logged = []
    for _ in range(100):
        logged += [json.loads(x) for x in capfd.readouterr().err.splitlines() if x.startswith("{")]
        if any(x.get("event") == "rpc" and x.get("method") == "AnalyzePosition" for x in logged):
            break
        time.sleep(0.05)
    cancelled = [x for x in logged if x.get("event") == "stream_cancelled"]
    assert cancelled and cancelled[0]["method"] == "AnalyzePosition" and cancelled[0]["updates"] >= 3
    rpc = [x for x in logged if x.get("event") == "rpc" and x.get("method") == "AnalyzePosition"]
    assert rpc and rpc[0]["code"] == "CANCELLED"
