"""quiltsolve: patch placement planning for the board game Patchwork, and quilt-packing puzzles.

The one installed top-level name. Its subpackages live in the repository's
top-level folders, mapped by setup.py's ``package_dir``:
``quiltsolve.server`` (server/), ``quiltsolve.solver`` (solver/),
``quiltsolve.engine`` (engine/), ``quiltsolve.clients`` (clients/),
``quiltsolve.web`` (web/) and ``quiltsolve.patchwork`` (patchwork/, the
generated protobuf stubs).
"""

from __future__ import annotations

from pathlib import Path as _Path

try:
    from importlib.metadata import PackageNotFoundError as _NotFound, version as _version

    __version__ = _version("quiltsolve")
except _NotFound:  # a bare source tree
    __version__ = "0+unknown"

# In the source tree (no install, or an editable one) the subpackages are the
# folders beside this one: look for them there too. An installed wheel has
# them inside this folder, and its parent (site-packages) is never searched.
_ROOT = _Path(__file__).resolve().parent.parent
if (_ROOT / "pyproject.toml").is_file() and (_ROOT / "server" / "__init__.py").is_file():
    if str(_ROOT) not in __path__:
        __path__.append(str(_ROOT))
del _Path, _ROOT
