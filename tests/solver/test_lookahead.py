"""rank_placements: correctness on small boards, determinism, statuses."""

import pytest

from quiltsolve.solver.cover import candidates_from, solve_cover, solve_square7
from quiltsolve.solver.geometry import FULL_BOARD, board_from_rows
from quiltsolve.solver.lookahead import rank_placements
from quiltsolve.solver.patches import LEATHER_PATCH_ID
from quiltsolve.solver.stop import StopToken
from quiltsolve.solver.types import SolverInputError, SolveStatus
from quiltsolve.solver.validate import validate_placements

BOARD = board_from_rows(["#########"] * 5 + ["#....####", "#....####", "##.######", "#########"])


def test_values_match_cover_and_sorted():
    up = [1, 25, LEATHER_PATCH_ID]
    r = rank_placements(BOARD, 0, up)
    assert r.status == SolveStatus.OPTIMAL
    masks = [p.placement.mask for p in r.ranked]
    assert len(masks) == len(set(masks))
    pc = candidates_from([0])
    ups = candidates_from(up)
    for rp in r.ranked:
        validate_placements(BOARD, pc, [rp.placement])
        after = BOARD | rp.placement.mask
        ref = solve_cover(after, ups)
        assert rp.proven and rp.value == ref.objective == rp.bound
    values = [p.value for p in r.ranked]
    assert values == sorted(values, reverse=True)
    # every legal placement is ranked
    from quiltsolve.solver.cover import orientation_of
    legal = [m for m in orientation_of(pc[0].shape) if not m & BOARD]
    assert sorted(masks) == sorted(legal)


def test_spoiling_placement_ranks_last():
    # A 1×4 hole plus one cell: putting the domino in the middle of the hole spoils the 3-bar.
    b = board_from_rows(["#########"] * 8 + ["#....####"])
    r = rank_placements(b, 0, [1])
    best, worst = r.ranked[0], r.ranked[-1]
    assert best.value == 0 or best.value >= worst.value
    assert [p.value for p in r.ranked] == [0, 0, 0] or r.ranked[0].value == max(p.value for p in r.ranked)


def test_deterministic_and_top():
    r1 = rank_placements(BOARD, 25, [0, 1])
    r2 = rank_placements(BOARD, 25, [0, 1])
    assert [p.placement for p in r1.ranked] == [p.placement for p in r2.ranked]
    r3 = rank_placements(BOARD, 25, [0, 1], top=2)
    assert [p.placement for p in r3.ranked] == [p.placement for p in r1.ranked[:2]]


def test_no_legal_placement():
    r = rank_placements(FULL_BOARD, 0, [1])
    assert r.status == SolveStatus.INFEASIBLE and r.ranked == ()


def test_no_upcoming():
    r = rank_placements(BOARD, 0, [])
    assert r.status == SolveStatus.OPTIMAL and all(p.value == 0 for p in r.ranked)


def test_stop_token():
    t = StopToken()
    t.set()
    assert rank_placements(BOARD, 0, [1], stop=t).status == SolveStatus.UNKNOWN


@pytest.mark.parametrize("kw", [dict(time_limit=0), dict(top=0), dict(seed=-1), dict(board=-5)])
def test_bad_inputs(kw):
    args = dict(board=BOARD)
    args.update(kw)
    b = args.pop("board")
    with pytest.raises(SolverInputError):
        rank_placements(b, 0, [1], **args)


def test_square7_goal():
    rows = ["#######..", "#######..", "#######..", "####...#.", "#######..",
            "#######..", "#######..", ".........", "........."]
    b = board_from_rows(rows)
    r = rank_placements(b, 0, [1, 25], square7=True)
    best = r.ranked[0]
    assert best.square7 == (0, 0)
    # Only placements that leave the window completable by the upcoming patches come first.
    after = b | best.placement.mask
    ref = solve_square7(after, candidates_from([1, 25]))
    assert ref.status == SolveStatus.OPTIMAL and best.value == ref.objective
    assert any(p.square7 is None for p in r.ranked)


def test_empty_board_sequence_is_fast_path():
    r = rank_placements(0, 5, [1, 2, 3, 4, 6])
    assert r.status == SolveStatus.OPTIMAL
    assert r.ranked[0].value == 3 + 4 + 5 + 4 + 6
