"""Typed clients of the placement service, and the ``suggest`` command.

``PlacementClient(target)`` talks gRPC; ``EmbeddedClient()`` has the same
methods and answers in-process with the solver. Both take and return plain
Python values (board masks or rows, patch ids or shape strings, the
``solver.types`` dataclasses, ``engine.suggest.MoveSuggestion``) and raise
:class:`ClientError` subclasses.

>>> connect(None)
EmbeddedClient()
"""

from __future__ import annotations

from .errors import (  # noqa: F401
    Cancelled, ClientError, DeadlineExceeded, InvalidArgument, ResourceExhausted, ServerError,
    ServiceUnavailable,
)


def __getattr__(name: str):
    # grpc is only imported when the remote client is used.
    if name == "PlacementClient":
        from .grpc_client import PlacementClient

        return PlacementClient
    if name == "EmbeddedClient":
        from .embedded import EmbeddedClient

        return EmbeddedClient
    raise AttributeError(f"module 'clients' has no attribute {name!r}")


def connect(server: str | None = None, *, deadline: float = 5.0, retries: int = 3):
    """``PlacementClient(server)`` when a server target is given, else ``EmbeddedClient()``."""
    if server:
        from .grpc_client import PlacementClient

        return PlacementClient(server, deadline=deadline, retries=retries)
    from .embedded import EmbeddedClient

    return EmbeddedClient()


__all__ = [
    "Cancelled", "ClientError", "DeadlineExceeded", "EmbeddedClient", "InvalidArgument", "PlacementClient",
    "ResourceExhausted", "ServerError", "ServiceUnavailable", "connect",
]
