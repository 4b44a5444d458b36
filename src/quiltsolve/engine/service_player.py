"""Deprecated (0.2.0): moved to :mod:`engine.players.service`; this name goes in 0.3.0.

``import engine.service_player`` still gives the module itself (the same object, so
attributes and monkeypatches are shared), with a ``DeprecationWarning``.
"""

import sys
import warnings
from typing import TYPE_CHECKING

from .players import service as _moved

warnings.warn("engine.service_player is deprecated: import quiltsolve.engine.players.service", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _moved

if TYPE_CHECKING:   # what type checkers see here: the moved module's names
    from .players.service import *  # noqa: F403
