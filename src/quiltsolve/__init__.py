"""quiltsolve: patch placement planning for the board game Patchwork, and quilt-packing puzzles.

The one installed top-level name, in the repository's ``src/quiltsolve/``:
``quiltsolve.server``, ``quiltsolve.solver``, ``quiltsolve.engine``,
``quiltsolve.clients``, ``quiltsolve.web`` and ``quiltsolve.patchwork`` (the
generated protobuf stubs) are its folders.
"""

from __future__ import annotations

try:
    from importlib.metadata import PackageNotFoundError as _NotFound, version as _version

    __version__ = _version("quiltsolve")
except _NotFound:  # a bare source tree
    __version__ = "0+unknown"
