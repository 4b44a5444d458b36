"""Exceptions raised by both clients (embedded and gRPC).

Every failure a caller can act on is a :class:`ClientError`; the subclass
says what to do about it. gRPC status codes map onto them in
:func:`clients.grpc_client.error_from_rpc`, and the embedded client raises the
same classes for the same bad input, so callers never see a raw
``grpc.RpcError`` or a solver-internal exception.

>>> issubclass(InvalidArgument, ValueError), issubclass(ServiceUnavailable, ClientError)
(True, True)
"""

from __future__ import annotations


class ClientError(Exception):
    """Base class of every client failure."""

    code: str = "UNKNOWN"
    field: str | None = None   # the request field a refusal names (``state.players[0].buttons``)

    def __init__(self, message: str, *, code: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        if field is not None:
            self.field = field


class InvalidArgument(ClientError, ValueError):
    """The request was rejected as bad input (board, patch, shape, limits...)."""

    code = "INVALID_ARGUMENT"


class ServiceUnavailable(ClientError):
    """No server answered (after the retries)."""

    code = "UNAVAILABLE"


class DeadlineExceeded(ClientError):
    """The call's deadline passed before the server answered."""

    code = "DEADLINE_EXCEEDED"


class Cancelled(ClientError):
    """The call was cancelled before the server answered."""

    code = "CANCELLED"


class Unauthenticated(ClientError):
    """The server refused the call's credentials (UNAUTHENTICATED or
    PERMISSION_DENIED): a missing, wrong or expired bearer token."""

    code = "UNAUTHENTICATED"


class ResourceExhausted(ClientError):
    """The server is overloaded or the request is too large."""

    code = "RESOURCE_EXHAUSTED"


class ServerError(ClientError):
    """The server failed (INTERNAL, UNIMPLEMENTED, UNKNOWN, ...)."""

    code = "INTERNAL"
