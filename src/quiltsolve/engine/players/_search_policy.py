"""Deprecated (0.3.0): moved to :mod:`engine.policy`; this module goes in 0.4.0.

The playout policy now lives below the players, so that :mod:`engine.core`,
:mod:`engine._core_py` and :mod:`engine.endgame` use it without importing
:mod:`engine.players` (whose ``__init__`` imports the core back). Each name
is still found here, as the moved object itself, with a ``DeprecationWarning``.
"""

from __future__ import annotations


from .. import policy
from ..deprecation import moved_names

_MOVED = ("PlacementCache", "RandomSource", "buy_rates", "key_seed", "leather_cell", "leather_scores",
          "place_pending_leather", "placement_score", "playout", "state_key", "tight_placement")


__getattr__ = moved_names(__name__, _MOVED, policy)

