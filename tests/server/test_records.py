"""The record codec (server/records.py): both JSON forms, the message, the plies, one rule for fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quiltsolve import engine
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server import records
from quiltsolve.solver.limits import MAX_RECORD_ACTIONS

DATA = Path(__file__).resolve().parents[1] / "data"


def _game(line: int = 0, moves: int | None = None) -> dict:
    """A golden game's record (tests/data), without its result, cut to ``moves`` moves."""
    rec = json.loads((DATA / "golden-games.jsonl").read_text().splitlines()[line])
    rec.pop("result")
    if moves is not None:
        rec["actions"] = rec["actions"][:moves]
    return rec


def test_the_three_forms_round_trip():
    rec = _game()
    msg = records.from_json(rec)
    assert msg.edition == pb.EDITION_REVISED and list(msg.actions) == rec["actions"]
    assert records.to_json(msg, seed=rec["seed"]) == rec
    mapping = records.to_mapping(msg)
    assert mapping["edition"] == "EDITION_REVISED" and records.from_json(mapping) == msg
    assert records.from_text(json.dumps(rec)) == msg
    assert records.from_text((json.dumps(rec) + "\n" + json.dumps(_game(1))).encode()) == msg   # JSON lines: the first


def test_the_plies_replay_the_record():
    rec = _game(moves=20)
    steps = records.plies(records.from_json(rec))
    assert [a.to_str() for _, a in steps] == rec["actions"]
    direct = engine.GameState.from_circle(rec["circle"], rec["edition"])
    for before, action in steps:
        assert before == direct
        direct.apply_action(action)
    assert records.final(records.from_json(rec)) == direct
    assert records.final(records.from_json(rec), upto=3) == steps[3][0]


def test_the_engine_extras_are_read_and_left_out_of_the_message():
    rec = dict(_game(), players=["greedy", "search:0.1"], result={"scores": [1, 2]},
               evaluations=[])
    assert list(records.from_json(rec).actions) == rec["actions"]
    with pytest.raises(records.RecordError) as e:
        records.from_json(dict(rec, players=["greedy"]))
    assert e.value.field == "record.players"
    with pytest.raises(records.RecordError) as e:
        records.from_json(dict(rec, seed=1.5))
    assert e.value.field == "record.seed"


@pytest.mark.parametrize("bad, field", [
    ({"action": ["advance"]}, "record.action"),
    ({"Actions": []}, "record.Actions"),
    ({"circle": "abc"}, "record.circle"),
    ({"actions": [1]}, "record.actions[0]"),
    ({"edition": "EDITION_NEW"}, "record.edition"),
])
def test_one_rule_for_unknown_and_malformed_fields(bad, field):
    with pytest.raises(records.RecordError) as e:
        records.from_json(dict(_game(), **bad))
    assert e.value.field == field
    assert e.value.as_bad_request().field == field


def test_bad_moves_and_sizes_name_the_move():
    rec = _game()
    rec["actions"][5] = "buy 99 0,0"
    with pytest.raises(records.RecordError) as e:
        records.plies(records.from_json(rec))
    assert e.value.field == "record.actions[5]"
    with pytest.raises(records.RecordError) as e:
        records.from_json(dict(rec, actions=["advance"] * (MAX_RECORD_ACTIONS + 1)))
    assert e.value.field == "record.actions"
    with pytest.raises(records.RecordError, match="no moves"):
        records.plies(records.from_json(dict(rec, actions=[])))
    with pytest.raises(records.RecordError) as e:
        records.from_json(engine.new_game(3).to_json())
    assert e.value.field == "record" and "game state" in e.value.message
    for text in ("{", "[1]", b"\xff"):
        with pytest.raises(records.RecordError) as e:
            records.from_text(text, "text")
        assert e.value.field == "text"
