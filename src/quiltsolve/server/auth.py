"""Bearer tokens, shared by both faces: gRPC's ``authorization`` metadata and HTTP's ``Authorization`` header.

>>> check = BearerTokens(("s3cret", "next-one"))
>>> check.accepts("Bearer s3cret"), check.accepts("bearer next-one"), check.accepts("Bearer wrong")
(True, True, False)
>>> check.accepts("s3cret"), check.accepts(None), check.accepts("Basic czNjcmV0")
(False, False, False)
>>> bool(BearerTokens(())), BearerTokens(()).accepts("Bearer anything")
(False, False)
"""

from __future__ import annotations

import hmac


class BearerTokens:
    """The accepted tokens; :meth:`accepts` checks an ``Authorization`` value in constant time per token."""

    def __init__(self, tokens: tuple[str, ...] | list[str]) -> None:
        self._tokens = tuple(t.encode("utf-8") for t in tokens if t)

    def __bool__(self) -> bool:
        return bool(self._tokens)

    def accepts(self, authorization: str | None) -> bool:
        """True when ``authorization`` is ``Bearer <token>`` (scheme case-insensitive) with an accepted token."""
        if not self._tokens or not authorization:
            return False
        scheme, _, token = authorization.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return False
        given = token.encode("utf-8", "surrogateescape")
        # compare with every token (constant time each) so timing tells nothing about which one matched
        return sum(hmac.compare_digest(given, t) for t in self._tokens) > 0
