"""The quiltsolve web app: an HTTP JSON API over the service core and a browser app.

``python -m quiltsolve.web`` (``make serve``) runs the gRPC server and this face side by
side over one :class:`server.core.ServiceCore`; ``web.create_app(core,
metrics, log)`` builds the Starlette app for any core, ``web.HttpFace`` is
the face ``server.__main__.serve`` starts. See docs/web.md.
"""

from .app import ENDPOINTS, create_app  # noqa: F401
from .face import HttpFace  # noqa: F401

__all__ = ["ENDPOINTS", "HttpFace", "create_app"]
