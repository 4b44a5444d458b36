"""``greedy`` — the deterministic value-per-time player.

``GreedyPlayer()`` values each affordable, placeable patch at
:func:`engine.policy.greedy_value` ``= 2*area + income*payouts_left - cost``
(the score it adds by the end if nothing else happens), per space of time it
costs (:func:`engine.policy.greedy_rate`). It buys the best one when that
beats the 1 button per space that advancing pays, and places it tightly: the
placement touching most covered cells and board edges
(:func:`engine.board.contacts`; first in ``PATCH_MASKS`` order on ties).
Leather goes to the tightest empty cell. The move itself is
:func:`engine.policy.greedy_action`, which the suggestions' playouts use too.

>>> from quiltsolve.engine import new_game
>>> s = new_game(1)
>>> GreedyPlayer().choose(s) == policy.greedy_action(s)
True
"""

from __future__ import annotations


from .. import policy
from ..deprecation import moved_names
from ..actions import Action
from ..state import GameState

__all__ = ["GreedyPlayer"]

# Moved to engine.policy in 0.3.0 (so that the core need not import the
# players); these deprecated aliases go in 0.4.0.
_MOVED = ("ADVANCE_RATE", "GREEDY_RATES", "greedy_rate", "greedy_value")


__getattr__ = moved_names(__name__, _MOVED, policy)


class GreedyPlayer:
    """Buys the best-value patch it can afford (if worth more than advancing) and places it tightly."""

    name = "greedy"

    def choose(self, state: GameState) -> Action:
        """The greedy move (deterministic): :func:`engine.policy.greedy_action`."""
        return policy.greedy_action(state)
