"""Every command that reads a game record reads it with the record codec (``server/records.py``): one
rule for fields (an unknown one refused by name, the engine's extras checked), one message, exit 2."""

from __future__ import annotations

import json

import pytest

from quiltsolve import engine
from quiltsolve.clients.errors import InvalidArgument
from quiltsolve.clients.inputs import record_json, record_message
from quiltsolve.server import records

GAME = {"edition": "revised", "seed": 4, "circle": engine.new_game(4).circle, "actions": ["advance", "advance"]}


@pytest.mark.parametrize("change, field, message", [
    ({"colour": "red"}, "record.colour", "unknown field of a game record"),
    ({"players": ["a"]}, "record.players", "must be the two player specs"),
    ({"seed": 1.5}, "record.seed", "must be an integer"),
    ({"evaluations": {}}, "record.evaluations", "must be a list"),
    ({"actions": ["advance", 3]}, "record.actions[1]", ""),
])
def test_review_and_play_refuse_a_record_as_the_codec_does(cli, tmp_path, change, field, message):
    bad = dict(GAME, **change)
    with pytest.raises(records.RecordError) as codec:
        records.from_json(bad)
    assert codec.value.field == field and message in codec.value.message
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(bad) + "\n")
    review = cli("review", str(path), "--iterations", "5")
    play = cli("play", "--follow", "--load", str(path), stdin="quit\n")
    for r in (review, play):
        assert r.code == 2 and r.out == "" and r.err.count("\n") == 1, (r.code, r.out, r.err)
        assert f"{field}: {codec.value.message}" in r.err


def test_the_clients_readers_are_the_codecs():
    text = json.dumps(dict(GAME, players=["greedy", "random"]))
    assert record_message(text) == records.from_json(GAME) == record_message(records.to_mapping(records.from_json(GAME)))
    assert record_json(text) == dict(GAME, players=["greedy", "random"])
    mapping = records.to_mapping(records.from_json(GAME))       # the message's JSON mapping reads as the engine form
    assert record_json(mapping) == {k: v for k, v in GAME.items() if k != "seed"}
    with pytest.raises(InvalidArgument) as e:
        record_json(engine.new_game(1).to_json())
    assert e.value.field == "record" and "this is a game state" in str(e.value)
