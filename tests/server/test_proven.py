"""SuggestMove's proven answers in the service: the job's result, the response, the call's log record."""

from __future__ import annotations

import pickle

import grpc

from quiltsolve.engine import endgame as exact
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
from quiltsolve.server import positions
from quiltsolve.server.jobs import MovesJob
from quiltsolve.server.service import review_message, suggestion_message
from quiltsolve.engine.review import review_move
from quiltsolve.solver import StopToken

from .conftest import endgame, play

END = endgame(1, 3)


def test_moves_job_proves_an_endgame_and_its_result_travels():
    result = MovesJob(state=END, top=None, seed=0, iterations=50).run(5.0, StopToken())
    assert result.proven and result.iterations == 0 and result.proof_nodes > 0
    solved = exact.solve(END, time_limit=30.0, all_moves=True)
    assert {m.action: m.proven_margin for m in result.moves} == {m.action: m.margin for m in solved.moves}
    assert pickle.loads(pickle.dumps(result)) == result       # what a worker sends back
    mid = MovesJob(state=play(11, 14), top=2, seed=0, iterations=30).run(5.0, StopToken())
    assert not mid.proven and mid.iterations == 30 and all(m.proven_margin is None for m in mid.moves)


def test_messages_carry_the_proven_fields_only_when_proven():
    result = MovesJob(state=END, top=1, seed=0, iterations=50).run(5.0, StopToken())
    msg = suggestion_message(result.moves[0])
    assert msg.HasField("proven_margin") and msg.proven_margin == result.moves[0].proven_margin
    assert msg.win_chance in (0.0, 1.0) and msg.reason.startswith("proven: ")
    mid = MovesJob(state=play(11, 14), top=1, seed=0, iterations=20).run(5.0, StopToken())
    assert not suggestion_message(mid.moves[0]).HasField("proven_margin")
    worst = min(exact.solve(END, time_limit=30.0, all_moves=True).moves, key=lambda m: m.margin)
    r = review_message(review_move(END, worst.action, iterations=10))
    assert r.HasField("loss_points") and r.loss_points == r.margin_best - r.margin_played
    r = review_message(review_move(play(11, 14), play(11, 14).legal_actions()[0], iterations=10))
    assert not r.HasField("loss_points") and not r.HasField("margin_best")


def test_suggest_move_over_grpc_says_proven(serve):
    server, port = serve()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pbg.PlacementServiceStub(channel)
        r = stub.SuggestMove(pb.SuggestMoveRequest(state=positions.to_message(END), iterations=50), timeout=60)
        assert r.proven and r.iterations == 0 and r.searched
        assert all(s.HasField("proven_margin") for s in r.suggestions)
        mid = stub.SuggestMove(pb.SuggestMoveRequest(state=positions.to_message(play(11, 14)), iterations=20),
                               timeout=60)
        assert not mid.proven and not any(s.HasField("proven_margin") for s in mid.suggestions)
