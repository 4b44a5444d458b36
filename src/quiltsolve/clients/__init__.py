"""Typed clients of the placement service, and the ``suggest`` command.

``PlacementClient(target)`` talks gRPC; ``AsyncPlacementClient(target)`` is
the same for ``asyncio``; ``EmbeddedClient()`` has the same methods and
answers in-process with the solver. All take and return plain Python values
(board masks or rows, patch ids or shape strings, the ``solver.types``
dataclasses, :class:`MoveSuggestions` of ``engine.suggest.MoveSuggestion``,
``engine.review.MoveReview``), accept the same inputs (the service's
validation is the only one: every client gets its refusal, naming the
field) and raise :class:`ClientError` subclasses.

>>> connect(None)
EmbeddedClient()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (  # noqa: F401
    Cancelled, ClientError, DeadlineExceeded, InvalidArgument, ResourceExhausted, ServerError,
    ServiceUnavailable, Unauthenticated,
)
from .results import MoveSuggestions  # noqa: F401

if TYPE_CHECKING:
    from .aio_client import AsyncPlacementClient
    from .embedded import EmbeddedClient
    from .grpc_client import PlacementClient


def __getattr__(name: str) -> Any:
    # start-up time (the five lazy imports of this file): `import clients` costs ~7 ms; each client module
    # pulls in grpc, the server's core and the engine (~270 ms), wanted only by the client that is used.
    if name == "PlacementClient":
        from .grpc_client import PlacementClient  # start-up time: only when used

        return PlacementClient
    if name == "AsyncPlacementClient":
        from .aio_client import AsyncPlacementClient  # start-up time: only when used

        return AsyncPlacementClient
    if name == "EmbeddedClient":
        from .embedded import EmbeddedClient  # start-up time: only when used

        return EmbeddedClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def connect(server: str | None = None, *, deadline: float = 5.0, retries: int = 3,
            **remote: Any) -> PlacementClient | EmbeddedClient:
    """``PlacementClient(server, ...)`` when a server target is given, else
    ``EmbeddedClient()``. ``remote`` holds the other ``PlacementClient``
    arguments (``tls``, ``ca``, ``cert``, ``key``, ``token``, ...)."""
    if server:
        from .grpc_client import PlacementClient  # start-up time: see __getattr__

        return PlacementClient(server, deadline=deadline, retries=retries, **remote)
    from .embedded import EmbeddedClient  # start-up time: see __getattr__

    return EmbeddedClient()


__all__ = [
    "AsyncPlacementClient", "Cancelled", "ClientError", "DeadlineExceeded", "EmbeddedClient", "InvalidArgument",
    "MoveSuggestions", "PlacementClient", "ResourceExhausted", "ServerError", "ServiceUnavailable", "Unauthenticated", "connect",
]
