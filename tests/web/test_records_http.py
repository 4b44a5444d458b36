"""The HTTP game helpers read records through the record codec (server/records.py)."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"


def _game(line: int = 0, moves: int | None = None) -> dict:
    """A golden game's record (tests/data), without its result, cut to ``moves`` moves."""
    rec = json.loads((DATA / "golden-games.jsonl").read_text().splitlines()[line])
    rec.pop("result")
    if moves is not None:
        rec["actions"] = rec["actions"][:moves]
    return rec


def test_the_web_helpers_read_records_through_the_codec(http):
    """The game helpers refuse an unknown field by name (they dropped them silently before)."""
    rec = _game()
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
