"""A sample of the benchmark instances: solved, proven, validated, and
cross-checked against a plain CP-SAT model on the easy families."""

import json
from pathlib import Path

import pytest

from quiltsolve.solver.cover import candidates_from, solve
from quiltsolve.solver.geometry import board_from_rows
from quiltsolve.solver.types import SolveStatus
from quiltsolve.solver.validate import validate_placements

DATA = Path(__file__).resolve().parents[2] / "bench" / "data" / "placement-instances.json"
INST = json.loads(DATA.read_text())
SAMPLE = ([x for x in INST if x["family"] == "midgame-40-k3"][::20]
          + [x for x in INST if x["family"] == "lookahead-30-k6"][::12]
          + [x for x in INST if x["family"] == "square7-35-k6"][:6]
          + [x for x in INST if x["family"] == "deep-20-k10"][:3]
          + [x for x in INST if x["family"] == "hard-20-k16"][5:7])


@pytest.mark.parametrize("x", SAMPLE, ids=lambda x: x["name"])
def test_bench_instance(x):
    board = board_from_rows(x["board"])
    cands = candidates_from(x["patches"])
    r = solve(board, cands, x["objective"], time_limit=20, seed=0)
    assert r.status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE)
    validate_placements(board, cands, r.placements)
    if x["objective"] == "square7" and r.status == SolveStatus.OPTIMAL:
        assert r.square7 is not None
    if x["family"] == "midgame-40-k3" or x["name"] in ("square7-35-k6/105001", "square7-35-k6/105002"):
        from bench.bench_placement import baseline_solve
        st, val = baseline_solve(board, x["patches"], x["objective"], 10.0)
        assert st == r.status.value
        if st == "OPTIMAL":
            assert val == r.objective
