"""SolvePuzzle counts on the wire: unlimited pieces, the method, exact counts of any size, the table bound.

The raw counts are checked against :func:`domino_tilings`, a broken-profile
transfer matrix written here from scratch (it shares nothing with the
solver), and the distinct counts against :func:`distinct_by_enumeration`,
which lists every tiling of a small region and counts them up to the
region's symmetries by hand.
"""

from __future__ import annotations

import json

import grpc
import pytest
from google.protobuf import duration_pb2

from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
from quiltsolve.solver.geometry import Shape

INT64_MAX = 2**63 - 1
DOMINO = "##"


# ---------------------------------------------------------------- an independent counter

def domino_tilings(rows: list[str]) -> int:
    """Domino tilings of the region's '.' cells: a transfer matrix over cells in row-major order whose
    state is the set of the next ``width`` cells already covered by a vertical domino from above."""
    height, width = len(rows), len(rows[0])
    ways = {0: 1}  # bit k: cell (r, c + k) in scan order from the current cell is already covered
    for r in range(height):
        for c in range(width):
            free = rows[r][c] == "."
            nxt: dict[int, int] = {}
            for state, n in ways.items():
                covered, rest = state & 1, state >> 1
                if covered or not free:
                    if covered and not free:
                        continue  # a domino reached into a hole
                    nxt[rest] = nxt.get(rest, 0) + n
                    continue
                # vertical: covers (r + 1, c), width cells ahead in scan order
                if r + 1 < height and rows[r + 1][c] == ".":
                    key = rest | 1 << (width - 1)
                    nxt[key] = nxt.get(key, 0) + n
                # horizontal: covers (r, c + 1), the next cell
                if c + 1 < width and rows[r][c + 1] == "." and not rest & 1:
                    key = rest | 1
                    nxt[key] = nxt.get(key, 0) + n
            ways = nxt
    return ways.get(0, 0)


def _symmetries(rows: list[str], mirror: bool) -> list:
    """The square symmetries (as cell maps) that map the region onto itself."""
    h, w = len(rows), len(rows[0])
    cells = {(r, c) for r in range(h) for c in range(w) if rows[r][c] == "."}
    maps = [lambda r, c: (r, c), lambda r, c: (c, h - 1 - r), lambda r, c: (h - 1 - r, w - 1 - c),
            lambda r, c: (w - 1 - c, r)]
    if mirror:
        maps += [lambda r, c: (r, w - 1 - c), lambda r, c: (h - 1 - r, c), lambda r, c: (c, r),
                 lambda r, c: (w - 1 - c, h - 1 - r)]
    return [f for f in maps if {f(r, c) for r, c in cells} == cells]


def distinct_by_enumeration(rows: list[str], mirror: bool = True) -> tuple[int, int]:
    """(raw, distinct) domino tilings by listing them all: small regions only."""
    cells = sorted((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == ".")
    tilings: list[frozenset] = []

    def fill(left: set, placed: list) -> None:
        if not left:
            tilings.append(frozenset(placed))
            return
        r, c = min(left)
        for other in ((r, c + 1), (r + 1, c)):
            if other in left:
                fill(left - {(r, c), other}, placed + [frozenset({(r, c), other})])

    fill(set(cells), [])
    syms = _symmetries(rows, mirror)
    seen: set = set()
    orbits = 0
    for t in tilings:
        if t in seen:
            continue
        orbits += 1
        for f in syms:
            seen.add(frozenset(frozenset(f(*rc) for rc in d) for d in t))
    return len(tilings), orbits


def test_the_independent_counter_knows_the_classic_numbers():
    assert [domino_tilings(["." * n] * n) for n in (2, 4, 6, 8)] == [2, 36, 6728, 12988816]
    assert domino_tilings(["." * 10] * 10) == 258584046368
    assert domino_tilings(["...", "..."]) == 3 and domino_tilings(["..."]) == 0
    assert distinct_by_enumeration(["...", "..."]) == (3, 2)


# ---------------------------------------------------------------- the service agrees

def count_request(rows: list[str], method: int = pb.PUZZLE_METHOD_AUTO, **kw) -> pb.SolvePuzzleRequest:
    return pb.SolvePuzzleRequest(region=pb.Region(rows=rows), unlimited_pieces=[DOMINO], mode=pb.PUZZLE_MODE_COUNT,
                                 method=method, time_limit=duration_pb2.Duration(seconds=30), **kw)


SMALL_BOARDS = [
    ["." * 4] * 4,
    ["." * 5] * 4,
    ["." * 7] * 6,
    ["......", "..##..", "..##..", "......"],
    [".....#", "......", "#.....", "......", ".....#"],
    ["........", "........", "...#....", "........", "......#.", "........"],
]


@pytest.mark.parametrize("rows", SMALL_BOARDS, ids=["/".join(r) for r in SMALL_BOARDS])
@pytest.mark.parametrize("method", [pb.PUZZLE_METHOD_SEARCH, pb.PUZZLE_METHOD_FRONTIER, pb.PUZZLE_METHOD_AUTO])
def test_unlimited_domino_counts_match_the_independent_counter(stub, rows, method):
    want = domino_tilings(rows)
    resp = stub.SolvePuzzle(count_request(rows, method), timeout=60)
    assert resp.status == (pb.SOLVE_STATUS_OPTIMAL if want else pb.SOLVE_STATUS_INFEASIBLE)
    assert resp.count_decimal == str(want) and resp.HasField("count") and resp.count == want
    assert resp.method in (pb.PUZZLE_METHOD_SEARCH, pb.PUZZLE_METHOD_FRONTIER) or not want
    if method != pb.PUZZLE_METHOD_AUTO and want:
        assert resp.method == method  # an explicit method is the one that answers
    if want <= 7000:
        raw, distinct = distinct_by_enumeration(rows)
        assert (raw, resp.distinct_decimal, resp.distinct) == (want, str(distinct), distinct)


def test_a_count_beyond_int64_is_exact_in_decimal_and_absent_in_int64(stub):
    rows = ["." * 14] * 14
    want = domino_tilings(rows)
    assert want > INT64_MAX  # 112202208776036178000000
    resp = stub.SolvePuzzle(count_request(rows, pb.PUZZLE_METHOD_FRONTIER), timeout=60)
    assert resp.status == pb.SOLVE_STATUS_OPTIMAL and resp.method == pb.PUZZLE_METHOD_FRONTIER
    assert resp.count_decimal == str(want) and not resp.HasField("count")
    distinct = int(resp.distinct_decimal)
    # Burnside: the 8 symmetries of the square; at least count / 8 orbits, at most count.
    assert want / 8 <= distinct < want and not resp.HasField("distinct")


def test_finding_with_unlimited_pieces_indexes_them_after_the_pieces(stub):
    rows = ["....", "...."]
    resp = stub.SolvePuzzle(pb.SolvePuzzleRequest(region=pb.Region(rows=rows), pieces=["##/##"],
                                                  unlimited_pieces=["#", DOMINO], mode=pb.PUZZLE_MODE_FIND,
                                                  max_tilings=5), timeout=30)
    assert resp.status == pb.SOLVE_STATUS_OPTIMAL and len(resp.tilings) == 5
    assert resp.count_decimal == "" and not resp.HasField("count")
    for t in resp.tilings:
        cells = sorted((c.row, c.col) for p in t.placements for c in p.cells)
        assert cells == [(r, c) for r in range(2) for c in range(4)]  # every cell once
        assert [p.patch_index for p in t.placements].count(0) == 1  # the square, used once (use_all)
        for p in t.placements:  # each placement covers a copy of its piece, in one of its orientations
            shape = Shape.parse(["##/##", "#", DOMINO][p.patch_index])
            assert p.shape == shape.to_str()
            assert Shape.from_cells((c.row, c.col) for c in p.cells) in shape.orientations()


def test_unlimited_pieces_may_stay_unused_and_pieces_must_be_used(stub):
    base = dict(region=pb.Region(rows=["...."]), unlimited_pieces=["###"], mode=pb.PUZZLE_MODE_COUNT)
    resp = stub.SolvePuzzle(pb.SolvePuzzleRequest(pieces=["#"], **base), timeout=30)
    assert (resp.count_decimal, resp.status) == ("2", pb.SOLVE_STATUS_OPTIMAL)  # # then ###, or ### then #
    resp = stub.SolvePuzzle(pb.SolvePuzzleRequest(pieces=["#", "#", "#", "#"], **base), timeout=30)
    assert (resp.count_decimal, resp.status) == ("1", pb.SOLVE_STATUS_OPTIMAL)  # every # used: no room for ###
    resp = stub.SolvePuzzle(pb.SolvePuzzleRequest(pieces=["#", "#", "#", "#"], allow_unused=True, **base),
                            timeout=30)
    assert resp.count_decimal == "3"  # ####, # + ### twice


def test_a_frontier_table_past_the_bound_is_resource_exhausted_without_retry_hint(serve):
    server, port = serve(table_bytes=4096)
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        stub = pbg.PlacementServiceStub(ch)
        with pytest.raises(grpc.RpcError) as err:
            stub.SolvePuzzle(count_request(["." * 16] * 16, pb.PUZZLE_METHOD_FRONTIER), timeout=60)
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "4096 bytes" in err.value.details() and "--table-bytes" in err.value.details()
        assert not any(k == "grpc-retry-pushback-ms" for k, _ in err.value.trailing_metadata() or ())
        assert server.metrics.value("quiltsolve_refused_total", method="SolvePuzzle", reason="table_full") == 1
        # the worker is fine: the next call is answered
        assert stub.SolvePuzzle(count_request(["...."] * 2), timeout=60).count_decimal == "5"


def test_a_table_bound_above_the_worker_memory_bound_is_logged(capfd):
    from quiltsolve.server import ServerConfig, build_server

    server, _ = build_server(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0, warm_up=False,
                                          table_bytes=2 * 2**30, max_worker_rss=2**30))
    server.stop(0).wait(5)
    assert "table_bytes_above_max_worker_rss" in capfd.readouterr().err
    server, _ = build_server(ServerConfig(host="127.0.0.1", port=0, workers=1, fast_workers=0, warm_up=False))
    server.stop(0).wait(5)
    assert "table_bytes_above_max_worker_rss" not in capfd.readouterr().err


def test_the_log_line_says_which_method_counted(serve, capfd):
    server, port = serve()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        pbg.PlacementServiceStub(ch).SolvePuzzle(count_request(["." * 6] * 6, pb.PUZZLE_METHOD_FRONTIER), timeout=60)
    lines = [json.loads(x) for x in capfd.readouterr().err.splitlines() if x.startswith("{")]
    calls = [x for x in lines if x.get("event") == "rpc" and x.get("code") == "OK"]
    assert any(x["method"] == "SolvePuzzle" and x.get("puzzle_method") == "frontier" for x in calls), calls


def test_every_face_knows_the_solvers_methods():
    from quiltsolve.clients import inputs
    from quiltsolve.server import convert
    from quiltsolve.solver.puzzle import METHODS

    assert inputs.PUZZLE_METHODS == METHODS
    assert set(convert.PUZZLE_METHODS.values()) == set(METHODS)
    assert {convert.method_value(m) for m in METHODS if m != "auto"} == {pb.PUZZLE_METHOD_SEARCH,
                                                                         pb.PUZZLE_METHOD_FRONTIER}


def test_the_embedded_client_has_the_same_bound_and_answer():
    from quiltsolve.clients import EmbeddedClient, InvalidArgument, ResourceExhausted

    small = EmbeddedClient(table_bytes=4096)
    with pytest.raises(ResourceExhausted) as err:
        small.solve_puzzle(["." * 16] * 16, [], unlimited=["##"], count=True, method="frontier")
    assert err.value.code == "RESOURCE_EXHAUSTED" and "4096 bytes" in str(err.value)
    assert "table_bytes" in str(err.value) and "--table-bytes" not in str(err.value)   # the caller's own bound
    # the search has no such table: the same request by the search answers (with a lower bound in time)
    r = small.solve_puzzle(["." * 16] * 16, [], unlimited=["##"], count=True, method="search", time_limit=0.2)
    assert r.method == "search" and r.status.name == "FEASIBLE" and r.count > 0
    with pytest.raises(InvalidArgument):
        EmbeddedClient(table_bytes=0)


@pytest.mark.parametrize("rows, pieces, unlimited, mirror", [
    (["....", "...."], ["##/##"], ["#", DOMINO], True),
    (["......."] * 3, ["###"], ["#./##"], True),
    (["#.....", "......", "......", ".....#"], [], ["#./##", DOMINO], False),
])
def test_tilings_with_unlimited_pieces_pass_the_solver_free_validator(serve, rows, pieces, unlimited, mirror):
    from quiltsolve.clients import PlacementClient
    from quiltsolve.solver.geometry import mask_of
    from quiltsolve.solver.validate import validate_tiling

    _, port = serve()
    with PlacementClient(f"127.0.0.1:{port}", deadline=60) as client:
        r = client.solve_puzzle(rows, pieces, unlimited=unlimited, mirror=mirror, max_tilings=20)
        counted = client.solve_puzzle(rows, pieces, unlimited=unlimited, mirror=mirror, count=True)
    h, w = len(rows), len(rows[0])
    region = mask_of(((r, c) for r in range(h) for c in range(w) if rows[r][c] == "."), w)
    assert r.tilings and len(r.tilings) == min(20, counted.count)
    for tiling in r.tilings:
        validate_tiling(region, w, h, [Shape.parse(p) for p in pieces], tiling, mirror=mirror,
                        unlimited=[Shape.parse(u) for u in unlimited])
    assert len(set(frozenset((p.key, p.mask) for p in t) for t in r.tilings)) == len(r.tilings)  # all different
