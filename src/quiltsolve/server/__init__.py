"""The quiltsolve gRPC service (``patchwork.v1.PlacementService``).

``build_server(ServerConfig(...)) -> (server, port)``; ``python -m quiltsolve.server``
runs it (see docs/api.md).
"""

from .app import SERVICE_NAME, QuiltServer, ServerConfig, build_server  # noqa: F401
from .config import default_workers  # noqa: F401

__all__ = ["SERVICE_NAME", "QuiltServer", "ServerConfig", "build_server", "default_workers"]
