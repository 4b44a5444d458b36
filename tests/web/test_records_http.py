"""The HTTP game helpers read records through the record codec (server/records.py)."""

from __future__ import annotations

import json



def test_the_web_helpers_read_records_through_the_codec(http, golden_record):
    """The game helpers refuse an unknown field by name (they dropped them silently before)."""
    rec = golden_record()
    ok = http.post("/api/v1/game/replay", json={"record": rec})
    assert ok.status_code == 200 and ok.json()["record"]["actions"] == rec["actions"]
    bad = http.post("/api/v1/game/replay", json={"record": dict(rec, moves=[])})
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "record.moves"
    bad = http.post("/api/v1/game/replay", json={"record": dict(rec, players=["greedy"])})
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "record.players"   # checked, not dropped
    bad = http.post("/api/v1/game/load", json={"text": json.dumps(dict(rec, moves=[]))})
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "text.moves"
    loaded = http.post("/api/v1/game/load", json={"text": json.dumps(rec), "plies": 4}).json()
    assert loaded["kind"] == "record" and loaded["record"]["actions"] == rec["actions"][:4]


def test_only_the_game_paths_read_the_engine_form_of_a_record(http, golden_record):
    """game/replay's GameRecord field also reads the engine form (server.records.read_mapping, as before
    GameService); analyze-game keeps taking the message's JSON mapping only."""
    rec = golden_record()
    engine_form = {"edition": "revised", "circle": rec["circle"], "actions": rec["actions"][:2]}
    assert http.post("/api/v1/game/replay", json={"record": engine_form}).status_code == 200
    mapping = dict(engine_form, edition="EDITION_REVISED")
    assert http.post("/api/v1/game/replay", json={"record": mapping}).json()["record"] == engine_form
    refused = http.post("/api/v1/analyze-game", json={"record": engine_form, "iterations": 5},
                        params={"format": "json"})
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "record.edition"
