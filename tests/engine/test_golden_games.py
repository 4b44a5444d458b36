"""Acceptance: every record in tests/data/golden-games.jsonl replays exactly."""

import json

import pytest

from quiltsolve.engine import RecordError, replay

GOLDEN = [json.loads(line) for line in
          (__import__("pathlib").Path(__file__).parents[1] / "data" / "golden-games.jsonl").read_text().splitlines()
          if line.strip()]


def test_golden_file_has_all_records():
    assert len(GOLDEN) == 198
    assert {r["edition"] for r in GOLDEN} == {"revised", "original"}


@pytest.mark.parametrize("i", range(len(GOLDEN)))
def test_golden_record_replays(i):
    record = GOLDEN[i]
    state = replay(record)
    assert state.is_terminal()
    assert list(state.scores()) == record["result"]["scores"]
    assert state.winner() == record["result"]["winner"]


def test_tampered_result_is_reported():
    record = dict(GOLDEN[0], result=dict(GOLDEN[0]["result"], winner=1 - GOLDEN[0]["result"]["winner"]))
    with pytest.raises(RecordError, match=r"^result.winner: record says"):
        replay(record)


def test_tampered_action_is_reported():
    record = dict(GOLDEN[0], actions=["leather 0,0"] + GOLDEN[0]["actions"][1:])
    with pytest.raises(RecordError, match=r'^actions\[0\]: "leather 0,0": player 0 has no leather patch') as e:
        replay(record)
    assert e.value.field == "actions[0]"
