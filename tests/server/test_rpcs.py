"""Every RPC answered by a real server on an ephemeral port."""

from __future__ import annotations

import json

import grpc
import pytest

from quiltsolve import engine
from quiltsolve import solver
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server import positions
from quiltsolve.solver import Candidate, Shape, board_from_rows, mask_of

from .conftest import MIDGAME_BOARD, play, state_json


def _mask(cells) -> int:
    return mask_of((c.row, c.col) for c in cells)


def _check_placements(board_rows, refs, resp):
    """Every answer goes through the solver-free validator."""
    board = board_from_rows(board_rows)
    cands, shapes = [], {}
    for ref in refs:
        if ref.WhichOneof("kind") == "id":
            key, shape = ref.id, solver.PATCHES[ref.id].shape
        else:
            shape = Shape.parse(ref.shape)
            key = shape.to_str()
        cands.append(Candidate(key, shape, ref.count or 1, ref.required))
        shapes[key] = shape
    placed = []
    for p in resp.placements:
        key = p.id if p.WhichOneof("kind") == "id" else p.shape
        assert refs[p.patch_index] is not None
        placed.append(solver.PlacedPatch(key, p.orientation, _mask(p.cells)))
    solver.validate_placements(board, cands, placed)
    after = board
    for q in placed:
        after |= q.mask
    assert board_from_rows(list(resp.board_after.rows)) == after
    assert resp.empty_after == 81 - after.bit_count()
    assert resp.empty_before == 81 - board.bit_count()
    assert resp.covered == resp.empty_before - resp.empty_after


def test_solve_placement_cover(stub):
    refs = [pb.PatchRef(id=5), pb.PatchRef(id=14), pb.PatchRef(shape="##./.##", count=2)]
    req = pb.SolvePlacementRequest(board=pb.Board(rows=MIDGAME_BOARD), patches=refs,
                                   objective=pb.OBJECTIVE_COVER, seed=1)
    resp = stub.SolvePlacement(req, timeout=20)
    assert resp.status == pb.SOLVE_STATUS_OPTIMAL
    assert resp.bound == resp.covered > 0
    _check_placements(MIDGAME_BOARD, refs, resp)
    assert {p.patch_index for p in resp.placements} <= {0, 1, 2}
    assert resp.solve_time.ToTimedelta().total_seconds() >= 0


def test_solve_placement_square7(stub):
    rows = ["#######..", "#######..", "#######..", "#######..", "#######..",
            "####...#.", "####...#.", ".........", "........."]
    refs = [pb.PatchRef(id=4, required=False), pb.PatchRef(shape="###/###", count=1), pb.PatchRef(id=0)]
    req = pb.SolvePlacementRequest(board=pb.Board(rows=rows), patches=refs, objective=pb.OBJECTIVE_SQUARE7)
    resp = stub.SolvePlacement(req, timeout=20)
    assert resp.status == pb.SOLVE_STATUS_OPTIMAL
    assert resp.HasField("square7") and (resp.square7.row, resp.square7.col) == (0, 0)
    _check_placements(rows, refs, resp)


def test_solve_placement_required_infeasible(stub):
    rows = ["#" * 9] * 8 + ["#....####"]
    req = pb.SolvePlacementRequest(board=pb.Board(rows=rows), patches=[pb.PatchRef(id=3, required=True)],
                                   objective=pb.OBJECTIVE_COVER)
    resp = stub.SolvePlacement(req, timeout=20)
    assert resp.status == pb.SOLVE_STATUS_INFEASIBLE
    assert not resp.placements


def test_solve_placement_leather_id(stub):
    rows = ["#" * 9] * 8 + ["#.#######"]
    req = pb.SolvePlacementRequest(board=pb.Board(rows=rows), patches=[pb.PatchRef(id=-1, count=3)],
                                   objective=pb.OBJECTIVE_COVER)
    resp = stub.SolvePlacement(req, timeout=20)
    assert resp.status == pb.SOLVE_STATUS_OPTIMAL and resp.empty_after == 0
    assert [p.id for p in resp.placements] == [-1]


def test_suggest_placement(stub):
    req = pb.SuggestPlacementRequest(board=pb.Board(rows=MIDGAME_BOARD), patch=pb.PatchRef(id=14),
                                     upcoming=[pb.PatchRef(id=5), pb.PatchRef(shape="##", count=2)],
                                     objective=pb.OBJECTIVE_COVER, top=5, seed=0)
    resp = stub.SuggestPlacement(req, timeout=20)
    assert resp.status in (pb.SOLVE_STATUS_OPTIMAL, pb.SOLVE_STATUS_FEASIBLE)
    assert 1 <= len(resp.ranked) <= 5
    values = [r.value for r in resp.ranked]
    assert values == sorted(values, reverse=True)
    board = board_from_rows(MIDGAME_BOARD)
    legal = set(solver.PATCH_MASKS[14])
    for r in resp.ranked:
        m = _mask(r.placement.cells)
        assert r.placement.id == 14 and m in legal and not m & board
        assert r.bound >= r.value


def test_suggest_placement_custom_shape_square7(stub):
    rows = ["#######..", "#######..", "#######..", "#######..", "#######..",
            "####...#.", "####...#.", ".........", "........."]
    req = pb.SuggestPlacementRequest(board=pb.Board(rows=rows), patch=pb.PatchRef(shape="###/###"),
                                     upcoming=[pb.PatchRef(id=0)], objective=pb.OBJECTIVE_SQUARE7)
    resp = stub.SuggestPlacement(req, timeout=20)
    assert resp.ranked
    assert resp.ranked[0].placement.shape == "###/###"


def test_suggest_move_midgame(stub):
    state = play(7, 14)
    resp = stub.SuggestMove(pb.SuggestMoveRequest(state_json=state_json(state), top=4), timeout=30)
    assert resp.player == state.current_player()
    assert 1 <= len(resp.suggestions) <= 4
    values = [s.value for s in resp.suggestions]
    assert values == sorted(values, reverse=True)
    for s in resp.suggestions:
        action = engine.parse_action(s.move.text)
        assert state.is_legal(action), s.move.text
        assert s.reason
        if s.move.kind == pb.MOVE_KIND_BUY:
            assert _mask(s.move.cells) == action.mask and s.move.patch_id == action.patch_id
        else:
            assert s.move.kind in (pb.MOVE_KIND_ADVANCE, pb.MOVE_KIND_LEATHER)


def test_suggest_move_pending_leather(stub):
    # Play until someone must place a leather patch.
    for seed in range(1, 40):
        state = play(seed, 0)
        from quiltsolve.engine.players import RandomPlayer
        p = RandomPlayer(seed)
        while not state.is_terminal() and not state.leather_to_place:
            state.apply_action(p.choose(state))
        if state.leather_to_place:
            break
    else:
        pytest.fail("no seed reached a pending leather placement")
    resp = stub.SuggestMove(pb.SuggestMoveRequest(state_json=state_json(state), top=3), timeout=30)
    assert resp.suggestions and all(s.move.kind == pb.MOVE_KIND_LEATHER for s in resp.suggestions)
    assert all(len(s.move.cells) == 1 for s in resp.suggestions)


def test_suggest_move_finished_game_is_failed_precondition(stub):
    state = play(3, 10_000)
    assert state.is_terminal()
    with pytest.raises(grpc.RpcError) as err:
        stub.SuggestMove(pb.SuggestMoveRequest(state_json=json.dumps(state.to_json())), timeout=10)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "state_json" in err.value.details()


def test_solve_puzzle_find_and_count(stub):
    region = pb.Region(rows=["...", "..."])
    find = stub.SolvePuzzle(pb.SolvePuzzleRequest(region=region, pieces=["##"] * 3, mode=pb.PUZZLE_MODE_FIND),
                            timeout=20)
    assert find.status == pb.SOLVE_STATUS_OPTIMAL and len(find.tilings) == 1
    assert (find.width, find.height) == (3, 2)
    cells = [(c.row, c.col) for p in find.tilings[0].placements for c in p.cells]
    assert sorted(cells) == [(r, c) for r in range(2) for c in range(3)]
    count = stub.SolvePuzzle(pb.SolvePuzzleRequest(region=region, pieces=["##"] * 3, mode=pb.PUZZLE_MODE_COUNT),
                             timeout=20)
    assert count.status == pb.SOLVE_STATUS_OPTIMAL
    assert count.HasField("count") and (count.count, count.distinct) == (3, 2)


def test_solve_puzzle_pentominoes_region_with_hole(stub):
    pentominoes = ["#####", "##/##/#.", "###/#../#..", "##./.##/..#", "#../###/..#", ".#./###/.#.",
                   "###/.#./.#.", "#.#/###", "####/#...", "###./..##", ".#../####", "##./.##/.#."]
    region = pb.Region(rows=["........", "........", "........", "...##...",
                             "...##...", "........", "........", "........"])
    resp = stub.SolvePuzzle(pb.SolvePuzzleRequest(region=region, pieces=pentominoes + ["##/##"],
                                                  mode=pb.PUZZLE_MODE_FIND, max_tilings=2), timeout=30)
    # 8x8 minus the centre 2x2 cannot use the square tetromino too: 64-4 = 60 cells for 64 of pieces.
    assert resp.status == pb.SOLVE_STATUS_INFEASIBLE
    resp = stub.SolvePuzzle(pb.SolvePuzzleRequest(region=region, pieces=pentominoes, mode=pb.PUZZLE_MODE_FIND,
                                                  max_tilings=2), timeout=30)
    assert resp.status == pb.SOLVE_STATUS_OPTIMAL and len(resp.tilings) == 2
    for t in resp.tilings:
        assert sorted(p.patch_index for p in t.placements) == list(range(12))


def test_suggest_placement_leather_and_many_upcoming(stub):
    rows = ["#" * 9] * 7 + ["#......##", "#######.#"]
    upcoming = [pb.PatchRef(id=i, count=2) for i in range(20)] + [pb.PatchRef(id=-1, count=5)]
    req = pb.SuggestPlacementRequest(board=pb.Board(rows=rows), patch=pb.PatchRef(id=-1), upcoming=upcoming,
                                     objective=pb.OBJECTIVE_COVER, top=3)
    resp = stub.SuggestPlacement(req, timeout=20)
    assert resp.ranked and all(r.placement.id == -1 and len(r.placement.cells) == 1 for r in resp.ranked)


def test_suggest_move_takes_a_typed_game_state(stub):
    state = play(11, 14)
    typed = stub.SuggestMove(pb.SuggestMoveRequest(state=positions.to_message(state), top=3, seed=2,
                                                   iterations=200), timeout=60)
    legacy = stub.SuggestMove(pb.SuggestMoveRequest(state_json=state_json(state), top=3, seed=2,
                                                    iterations=200), timeout=60)
    assert typed.player == state.current_player()
    assert [s.move.text for s in typed.suggestions] == [s.move.text for s in legacy.suggestions]
    assert typed.searched and typed.iterations >= 1
    legal = {a.to_str() for a in state.legal_actions()}
    assert all(s.move.text in legal for s in typed.suggestions)


def test_typed_game_state_errors_name_the_field(stub):
    msg = positions.to_message(play(11, 14))
    bad = pb.GameState()
    bad.CopyFrom(msg)
    bad.players[1].buttons = -3
    with pytest.raises(grpc.RpcError) as err:
        stub.SuggestMove(pb.SuggestMoveRequest(state=bad, iterations=10), timeout=30)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details().startswith("state.players[1].buttons: ")
    bad.CopyFrom(msg)
    bad.players[0].board.rows[2] = "#.x......"
    with pytest.raises(grpc.RpcError) as err:
        stub.SuggestMove(pb.SuggestMoveRequest(state=bad, iterations=10), timeout=30)
    assert err.value.details().startswith("state.players[0].board.rows[2]")
    bad.CopyFrom(msg)
    del bad.players[1]
    with pytest.raises(grpc.RpcError) as err:
        stub.SuggestMove(pb.SuggestMoveRequest(state=bad, iterations=10), timeout=30)
    assert err.value.details().startswith("state.players: 1 players")
    with pytest.raises(grpc.RpcError) as err:
        stub.SuggestMove(pb.SuggestMoveRequest(iterations=10), timeout=30)
    assert err.value.details().startswith("state: required")


def record_of_play(seed: int, plies: int) -> pb.GameRecord:
    from quiltsolve import engine
    from quiltsolve.engine.players import GreedyPlayer, RandomPlayer

    state = engine.new_game(seed)
    circle = list(state.to_json()["circle"])
    players = [GreedyPlayer(), RandomPlayer(seed)]
    actions = []
    for _ in range(plies):
        if state.is_terminal():
            break
        a = players[state.current_player()].choose(state)
        actions.append(a.to_str())
        state.apply_action(a)
    return pb.GameRecord(edition=pb.EDITION_REVISED, circle=circle, actions=actions)


def test_analyze_game_streams_one_review_per_move(stub):
    record = record_of_play(21, 8)
    req = pb.AnalyzeGameRequest(record=record, iterations=60, seed=1)
    reviews = list(stub.AnalyzeGame(req, timeout=120))
    assert [r.ply for r in reviews] == list(range(len(record.actions)))
    for r, text in zip(reviews, record.actions):
        assert r.played.text == text
        assert 0 <= r.value_played <= 1 and 0 <= r.value_best <= 1
        assert r.loss == pytest.approx(max(0.0, r.value_best - r.value_played), abs=1e-6)
        assert r.large == (r.loss >= 0.1)
    again = list(stub.AnalyzeGame(req, timeout=120))
    assert [(r.best.text, r.loss) for r in again] == [(r.best.text, r.loss) for r in reviews]


def test_analyze_game_checks_the_record(stub):
    record = record_of_play(21, 4)
    bad = pb.GameRecord()
    bad.CopyFrom(record)
    bad.actions[2] = "buy 99 0,0"
    with pytest.raises(grpc.RpcError) as err:
        list(stub.AnalyzeGame(pb.AnalyzeGameRequest(record=bad, iterations=10), timeout=30))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details().startswith("record.actions[2]")
    bad.CopyFrom(record)
    bad.circle[0] = bad.circle[1]
    with pytest.raises(grpc.RpcError) as err:
        list(stub.AnalyzeGame(pb.AnalyzeGameRequest(record=bad, iterations=10), timeout=30))
    assert err.value.details().startswith("record.circle")
    with pytest.raises(grpc.RpcError) as err:
        list(stub.AnalyzeGame(pb.AnalyzeGameRequest(), timeout=30))
    assert err.value.details().startswith("record: required")
