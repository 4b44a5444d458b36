"""Deprecated (0.2.0): moved to :mod:`engine.players.mcts`; this name goes in 0.3.0.

``import engine.mcts`` still gives the module itself (the same object, so
attributes and monkeypatches are shared), with a ``DeprecationWarning``.
"""

import sys
import warnings
from typing import TYPE_CHECKING

from .players import mcts as _moved

warnings.warn("engine.mcts is deprecated: import quiltsolve.engine.players.mcts", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _moved

if TYPE_CHECKING:   # what type checkers see here: the moved module's names
    from .players.mcts import *  # noqa: F403
