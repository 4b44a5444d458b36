"""Deprecated (0.2.0): moved to :mod:`engine.players.search`; this name goes in 0.3.0.

``import engine.search`` still gives the module itself (the same object, so
attributes and monkeypatches are shared), with a ``DeprecationWarning``.
"""

import sys
import warnings
from typing import TYPE_CHECKING

from .players import search as _moved

warnings.warn("engine.search is deprecated: import quiltsolve.engine.players.search", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _moved

if TYPE_CHECKING:   # what type checkers see here: the moved module's names
    from .players.search import *  # noqa: F403
