"""Shareable links to the web app's review of a game record, the record in the URL's fragment.

    http://127.0.0.1:8080/#review?rec=<record>&ply=12&it=200&seed=0

``rec`` is the record's compact JSON compressed by raw DEFLATE (zlib,
``wbits=-15``, what the browser's ``DecompressionStream('deflate-raw')``
reads) in unpadded base64url. The fragment never reaches the server: the
page decodes the record itself, reviews it with ``it`` iterations a move and
seed ``seed``, and opens move ``ply`` (0: the start). ``web/static/js/review-links.js``
makes and reads the same links.

>>> rec = {"edition": "revised", "circle": list(range(1, 33)) + [0], "actions": ["advance"]}
>>> url = review_link(rec, ply=1, iterations=60, seed=3)
>>> url.startswith("http://127.0.0.1:8080/#review?rec=") and url.endswith("&ply=1&it=60&seed=3")
True
>>> read_review_link(url) == ReviewLink(rec, 1, 60, 3)
True
"""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

DEFAULT_WEB = "http://127.0.0.1:8080"
"""The web app's address when none is given (``python -m quiltsolve.web``'s default)."""
MAX_LINK_RECORD = 1 << 20
"""The most bytes a link's record may inflate to (a game record is a few kB)."""


class LinkError(ValueError):
    """A link that is not a review link, or whose record does not decode."""


@dataclass(frozen=True, slots=True)
class ReviewLink:
    """What a review link holds: the record, the move shown, the review's budget and seed."""

    record: dict[str, Any]
    ply: int = 0
    iterations: int | None = None
    seed: int = 0


def pack_record(record: dict[str, Any]) -> str:
    """The record as compact JSON, raw-DEFLATEd, in unpadded base64url."""
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = z.compress(text) + z.flush()
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def unpack_record(packed: str) -> dict[str, Any]:
    """The record of :func:`pack_record`'s text (LinkError when it does not decode to a JSON object)."""
    try:
        data = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
        z = zlib.decompressobj(-15)
        text = z.decompress(data, MAX_LINK_RECORD)
        if z.unconsumed_tail:
            raise LinkError(f"rec: the record is over {MAX_LINK_RECORD} bytes")
        record = json.loads(text.decode("utf-8"))
    except (ValueError, zlib.error) as e:
        if isinstance(e, LinkError):
            raise
        raise LinkError(f"rec: not a packed game record ({e})") from None
    if not isinstance(record, dict):
        raise LinkError("rec: not a game record (a JSON object)")
    return record


def review_link(record: dict[str, Any], *, base: str = DEFAULT_WEB, ply: int = 0, iterations: int | None = None,
                seed: int = 0) -> str:
    """The web app's review of ``record`` at move ``ply``, as a link (module docstring)."""
    parts = [f"rec={pack_record(record)}", f"ply={ply}"]
    if iterations is not None:
        parts.append(f"it={iterations}")
    parts.append(f"seed={seed}")
    return f"{base.rstrip('/')}/#review?{'&'.join(parts)}"


def read_review_link(url: str) -> ReviewLink:
    """What a review link holds (LinkError naming the part that is wrong)."""
    fragment = urlsplit(url).fragment
    page, _, query = fragment.partition("?")
    if page != "review":
        raise LinkError(f"not a review link (#review?rec=...): {url[:80]!r}")
    q = parse_qs(query)
    if "rec" not in q:
        raise LinkError("rec: missing")
    record = unpack_record(q["rec"][0])

    def whole(name: str, default: int | None) -> int | None:
        if name not in q:
            return default
        text = q[name][0]
        if not text.isdigit():
            raise LinkError(f"{name}: must be a whole number, got {text[:20]!r}")
        return int(text)

    return ReviewLink(record, whole("ply", 0) or 0, whole("it", None), whole("seed", 0) or 0)
