"""Review links: the record packed into the URL fragment (raw DEFLATE, base64url) and read back."""

from __future__ import annotations

import base64
import json
import zlib

import pytest

from quiltsolve import engine
from quiltsolve.clients.links import LinkError, ReviewLink, pack_record, read_review_link, review_link, unpack_record
from quiltsolve.engine.players import GreedyPlayer


def _record() -> dict:
    state = engine.new_game(9)
    start, greedy, actions = state.clone(), GreedyPlayer(), []
    while not state.is_terminal():
        a = greedy.choose(state)
        actions.append(a.to_str())
        state.apply_action(a)
    return engine.make_record(start, actions, state, seed=9)


def test_round_trip_and_form():
    rec = _record()
    url = review_link(rec, base="https://quilt.example/app/", ply=17, iterations=200, seed=4)
    assert url.startswith("https://quilt.example/app/#review?rec=")
    packed = url.split("rec=")[1].split("&")[0]
    assert set(packed) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    # raw DEFLATE (no zlib header), what DecompressionStream('deflate-raw') reads
    raw = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
    assert json.loads(zlib.decompress(raw, -15)) == rec
    assert read_review_link(url) == ReviewLink(rec, 17, 200, 4)
    assert len(url) < len(json.dumps(rec))             # compressed, not just encoded
    assert engine.replay(unpack_record(pack_record(rec))) is not None


@pytest.mark.parametrize("url, message", [
    ("http://h/#play", "not a review link"),
    ("http://h/#review?ply=2", "rec: missing"),
    ("http://h/#review?rec=!!!", "rec: not a packed game record"),
    ("http://h/#review?rec=" + pack_record({"a": 1}) + "&ply=x", "ply: must be a whole number"),
])
def test_bad_links(url, message):
    with pytest.raises(LinkError, match=message):
        read_review_link(url)


def test_not_an_object():
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = base64.urlsafe_b64encode(z.compress(b"[1,2]") + z.flush()).decode().rstrip("=")
    with pytest.raises(LinkError, match="not a game record"):
        unpack_record(packed)
