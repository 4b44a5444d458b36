"""Real placement servers on ephemeral ports, and CLI helpers."""

from __future__ import annotations

import io
import socket
import sys
from itertools import combinations_with_replacement
from pathlib import Path

import pytest

EMPTY = ["........."] * 9
# Rows 0-1 and cols 0-2 filled: 42 empty cells.
CORNER = ["#########", "#########"] + ["###......"] * 7



def distinct_shapes(n: int) -> list[str]:
    """``n`` shapes that are different patches (also up to rotation and mirror)."""
    from quiltsolve.solver import Shape

    out, seen = [], set()
    for rows in range(1, 4):
        for widths in combinations_with_replacement(range(9, 0, -1), rows):
            text = "/".join("#" * w for w in widths)
            canon = Shape.parse(text).canonical()
            if canon not in seen:
                seen.add(canon)
                out.append(text)
            if len(out) == n:
                return out
    raise AssertionError("not enough shapes")

@pytest.fixture(scope="session")
def servers():
    """Two independent servers: [(server, port), (server, port)]."""
    from quiltsolve.server import ServerConfig, build_server

    out = []
    for _ in range(2):
        srv, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=2, max_queue=64, warm_up=False, grace=0.0))
        srv.start()
        out.append((srv, port))
    yield out
    for srv, _ in out:
        srv.stop(0).wait(5)


@pytest.fixture(scope="session")
def port(servers) -> int:
    return servers[0][1]


@pytest.fixture(scope="session")
def remote(port):
    from quiltsolve.clients import PlacementClient

    c = PlacementClient(f"127.0.0.1:{port}", deadline=20.0)
    yield c
    c.close()


@pytest.fixture(scope="session")
def embedded():
    from quiltsolve.clients import EmbeddedClient

    return EmbeddedClient()


@pytest.fixture()
def closed_port() -> int:
    """A port nothing listens on (bound then released)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


@pytest.fixture()
def board_file(tmp_path) -> Path:
    p = tmp_path / "board.txt"
    p.write_text("\n".join(CORNER) + "\n")
    return p


class Run:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def json(self):
        import json

        return json.loads(self.out)


def run_cli(*argv: str, stdin: str | None = None) -> Run:
    """``suggest ARGV`` in-process (fast)."""
    from quiltsolve.clients.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        code = main(list(argv), stdout=out, stderr=err)
    finally:
        sys.stdin = old
    return Run(code, out.getvalue(), err.getvalue())


@pytest.fixture()
def cli():
    return run_cli
