"""Typed clients: the gRPC client against real servers, the embedded client,
identical answers from both, error mapping, retries and round-robin."""

from __future__ import annotations

import json
import threading
import time
from concurrent import futures

import grpc
import pytest

from quiltsolve.clients import (
    ClientError, DeadlineExceeded, EmbeddedClient, InvalidArgument, PlacementClient, ServiceUnavailable, connect,
)
from quiltsolve.solver import PATCHES, LookaheadResult, PlacementResult, PuzzleResult, SolveStatus, board_from_rows

from .conftest import CORNER, EMPTY


def _placement_summary(r: PlacementResult):
    return (r.status, r.objective, r.bound, r.empty_before, r.empty_after, r.square7)


@pytest.mark.parametrize("patches, objective", [
    ([12, 5, "##./.##"], "cover"),
    ([4, 4, 9], "cover"),
    ([20, 21, 22, 23, 24], "square7"),
])
def test_solve_placement_same_answer(remote, embedded, patches, objective):
    a = embedded.solve_placement(CORNER, patches, objective=objective, time_limit=5)
    b = remote.solve_placement(CORNER, patches, objective=objective, time_limit=5)
    assert isinstance(b, PlacementResult)
    assert _placement_summary(a) == _placement_summary(b)
    if a.status is SolveStatus.OPTIMAL:
        assert sorted((p.key, p.mask) for p in a.placements if isinstance(p.key, int)) == \
            sorted((p.key, p.mask) for p in b.placements if isinstance(p.key, int)) or a.objective == b.objective


def test_board_as_mask_or_rows(remote):
    mask = board_from_rows(CORNER)
    a = remote.solve_placement(mask, [1])
    b = remote.solve_placement(CORNER, ["###"])
    assert a.empty_after == b.empty_after == 39
    assert b.placements[0].key == "###"


@pytest.mark.parametrize("count", [False, True])
def test_solve_puzzle_same_answer(remote, embedded, count):
    region = ["#....", ".....", "....."]
    pieces = ["###", "##/##", "#/#", "###/#..", "##"]
    a = embedded.solve_puzzle(region, pieces, count=count, use_all=False)
    b = remote.solve_puzzle(region, pieces, count=count, use_all=False)
    assert isinstance(b, PuzzleResult)
    assert (a.status, a.count, a.distinct, a.width, a.height) == (b.status, b.count, b.distinct, b.width, b.height)
    if not count:
        assert a.tilings == b.tilings


@pytest.mark.parametrize("kw", [dict(family="patches", seed=2), dict(size=(5, 6), family="tetrominoes", seed=1),
                                dict(region=["....."] * 3, pieces=["####/#...", "###/.#./.#.", ".#../####"])])
def test_generate_puzzle_same_answer(remote, embedded, kw):
    from quiltsolve.solver.puzzle import GeneratedPuzzle

    a = embedded.generate_puzzle(time_limit=30, **kw)
    b = remote.generate_puzzle(time_limit=30, **kw)
    assert isinstance(b, GeneratedPuzzle) and a.status.name == "OPTIMAL" and a.distinct == 1
    assert a == b.replace_time(a.wall_time)


def test_list_patches_same(remote, embedded):
    assert remote.list_patches() == embedded.list_patches() == list(PATCHES)


def test_suggest_placement_same_answer(remote, embedded):
    a = embedded.suggest_placement(CORNER, 5, [7, 9, 13], time_limit=5)
    b = remote.suggest_placement(CORNER, 5, [7, 9, 13], time_limit=5)
    assert isinstance(b, LookaheadResult)
    assert a.status == b.status
    assert [(r.placement.mask, r.value, r.bound, r.proven) for r in a.ranked] == \
        [(r.placement.mask, r.value, r.bound, r.proven) for r in b.ranked]


def test_suggest_move_same_answer(remote, embedded):
    from quiltsolve import engine
    from quiltsolve.engine.players import GreedyPlayer

    s = engine.new_game(9)
    g = GreedyPlayer()
    for _ in range(30):
        s.apply_action(g.choose(s))
    # A fixed iteration budget makes the search's answer exact on both sides.
    a = embedded.suggest_move(s, iterations=300)
    b = remote.suggest_move(json.dumps(s.to_json()), iterations=300)
    assert [m.action for m in a] == [m.action for m in b]
    assert [m.value for m in a] == [m.value for m in b]
    assert [m.reason for m in a] == [m.reason for m in b]
    assert a == embedded.suggest_move(s, iterations=300)
    assert all(s.is_legal(m.action) for m in a)


def test_suggest_move_time_budget_answers_legal_moves(remote, embedded):
    from quiltsolve import engine

    s = engine.new_game(4)
    for client in (embedded, remote):
        moves = client.suggest_move(s, time_limit=0.3, top=2)
        assert 1 <= len(moves) <= 2 and all(s.is_legal(m.action) for m in moves)


def test_suggest_move_terminal_is_empty_on_both(remote, embedded):
    from quiltsolve import engine
    from quiltsolve.engine.players import GreedyPlayer

    s = engine.new_game(3)
    g = GreedyPlayer()
    while not s.is_terminal():
        s.apply_action(g.choose(s))
    assert embedded.suggest_move(s) == [] == remote.suggest_move(s.to_json())


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("client_name", ["remote", "embedded"])
@pytest.mark.parametrize("call", [
    lambda c: c.solve_placement(EMPTY[:8], [1]),
    lambda c: c.solve_placement(EMPTY, [99]),
    lambda c: c.solve_placement(EMPTY, ["#.#"]),
    lambda c: c.solve_placement(EMPTY, []),
    lambda c: c.solve_placement(EMPTY, [1], objective="most"),
    lambda c: c.solve_placement(EMPTY, [1], time_limit=0),
    lambda c: c.solve_puzzle(["..", "..."], ["##"]),
    lambda c: c.suggest_move("{}"),
    lambda c: c.suggest_move("not json"),
    lambda c: c.suggest_move(__import__("quiltsolve.engine").engine.new_game(1).to_json(), iterations=0),
])
def test_bad_input_is_invalid_argument(request, client_name, call):
    client = request.getfixturevalue(client_name)
    with pytest.raises(InvalidArgument) as e:
        call(client)
    assert str(e.value)


def test_server_side_invalid_argument(remote):
    # The client checks most input itself; this one only the engine knows.
    bad = {"edition": "revised", "players": [], "circle": [], "leather_spaces": [], "current_player": 0,
           "leather_to_place": 0, "first_to_end": None}
    with pytest.raises(InvalidArgument) as e:
        remote.suggest_move(json.dumps(bad))
    assert e.value.code == "INVALID_ARGUMENT"


def test_unavailable_after_retries(closed_port):
    # Nothing listens: gRPC's retry policy gives up after the retries.
    c = PlacementClient(f"127.0.0.1:{closed_port}", deadline=5.0, retries=2)
    with pytest.raises(ServiceUnavailable) as e:
        c.list_patches()
    c.close()
    assert isinstance(e.value, ClientError) and "unavailable" in str(e.value)


class _Slow(grpc.GenericRpcHandler):
    """A fake service: ListPatches sleeps, SolvePlacement fails INTERNAL."""

    def __init__(self):
        self.calls = 0

    def service(self, details):
        self.calls += 1
        if details.method.endswith("/ListPatches"):
            def slow(req, ctx):
                time.sleep(1.0)
                return b""
            return grpc.unary_unary_rpc_method_handler(slow)
        if details.method.endswith("/SolvePlacement"):
            def boom(req, ctx):
                ctx.abort(grpc.StatusCode.INTERNAL, "kaboom")
            return grpc.unary_unary_rpc_method_handler(boom)
        return None


@pytest.fixture()
def fake_server():
    handler = _Slow()
    srv = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    srv.add_generic_rpc_handlers((handler,))
    port = srv.add_insecure_port("127.0.0.1:0")
    srv.start()
    yield handler, port
    srv.stop(0)


def test_deadline_exceeded_is_not_retried(fake_server):
    handler, port = fake_server
    c = PlacementClient(f"127.0.0.1:{port}", deadline=0.2, retries=3)
    with pytest.raises(DeadlineExceeded):
        c.list_patches()
    with pytest.raises(ClientError) as e:
        c.solve_placement(EMPTY, [1])
    assert e.value.code == "INTERNAL" and "kaboom" in str(e.value)
    assert handler.calls == 2                       # one attempt each: no retries
    c.close()


def test_round_robin_reaches_both_servers(servers):
    (s1, p1), (s2, p2) = servers

    def counts():
        return [s.metrics.value("quiltsolve_calls_total", method="ListPatches", code="OK") for s in (s1, s2)]

    before = counts()
    with PlacementClient(f"ipv4:127.0.0.1:{p1},127.0.0.1:{p2}", deadline=10) as c:
        # Connecting to both subchannels may take a moment; round-robin only
        # uses READY ones, so keep calling until both have answered.
        for _ in range(40):
            c.list_patches()
            after = counts()
            if all(a > b for a, b in zip(after, before)):
                break
            time.sleep(0.05)
    after = counts()
    assert after[0] > before[0] and after[1] > before[1], (before, after)


def test_connect_and_context_manager(port):
    assert isinstance(connect(None), EmbeddedClient)
    with connect(f"127.0.0.1:{port}") as c:
        assert isinstance(c, PlacementClient)
        assert len(c.list_patches()) == 33


def test_concurrent_calls_share_one_client(remote):
    errors = []

    def work():
        try:
            assert remote.solve_placement(CORNER, [1, 2]).status is SolveStatus.OPTIMAL
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
