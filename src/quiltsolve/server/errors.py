"""Errors a handler raises to answer a call with a definite gRPC status.

Handlers never call ``context.abort`` themselves: they raise
:class:`ServiceError` (or :class:`BadRequest` for INVALID_ARGUMENT) and the
method adapter in :mod:`server.adapters` turns it into the status, so one place
logs, counts and maps every outcome.

>>> str(BadRequest("board.rows[3]", "row has 8 cells; expected 9"))
'board.rows[3]: row has 8 cells; expected 9'
>>> BadRequest("x", "y").code.name
'INVALID_ARGUMENT'
"""

from __future__ import annotations

import re

import grpc

MAX_DETAILS = 300  # characters of an error's details
# What a finished game's FAILED_PRECONDITION says after its field: every client reads it as "no move".
GAME_OVER = "the game is over (both time tokens on space 53)"


_FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\[\]-]*): ")


def field_of(details: str) -> str | None:
    """The field path an INVALID_ARGUMENT's details start with (``board.rows[3]: ...``), if any.

    >>> field_of("state.players[0].buttons: must be an integer 0-1000"), field_of("no field here")
    ('state.players[0].buttons', None)
    """
    m = _FIELD.match(details)
    return m.group(1) if m else None


def cut(text: str, limit: int = MAX_DETAILS) -> str:
    r"""``text`` cut short to ``limit`` characters, lone surrogates escaped (details must be UTF-8).

    >>> cut("x" * 5, 3)
    'xx…'
    >>> cut("key " + chr(0xD800))
    'key \\ud800'
    """
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class ServiceError(Exception):
    """Answer the call with ``code`` and ``details``."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details


class BadRequest(ServiceError, ValueError):
    """INVALID_ARGUMENT naming the offending field, e.g. ``patches[2].id``."""

    def __init__(self, field: str, message: str) -> None:
        details = f"{field}: {message}" if field else message
        super().__init__(grpc.StatusCode.INVALID_ARGUMENT, details)
        self.field = field


class FailedPrecondition(ServiceError):
    """A well-formed request whose position allows no answer (e.g. game over)."""

    def __init__(self, details: str) -> None:
        super().__init__(grpc.StatusCode.FAILED_PRECONDITION, details)


class TooLarge(ServiceError):
    """RESOURCE_EXHAUSTED that no retry cures: the request needs more than one of the server's bounds
    allows (a frontier count's table above ``--table-bytes``). Unlike a queue-full refusal
    (:class:`server.core.Refusal`) it carries no retry hint: no ``grpc-retry-pushback-ms`` trailer,
    and HTTP answers 507 without ``Retry-After``.

    >>> TooLarge("the table needs more than 1 MiB").code.name
    'RESOURCE_EXHAUSTED'
    """

    def __init__(self, details: str) -> None:
        super().__init__(grpc.StatusCode.RESOURCE_EXHAUSTED, details)
