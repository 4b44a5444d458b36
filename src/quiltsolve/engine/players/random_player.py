"""``random`` — the uniform random player (fast enough for playouts).

Its move is :func:`engine.policy.random_action`, which the compiled core's
random playouts follow too.
"""

from __future__ import annotations

import random

from .. import policy
from ..deprecation import moved_names
from ..actions import Action
from ..state import GameState

__all__ = ["RandomPlayer", "game_seed"]

# Moved to engine.policy in 0.3.0 (so that the core need not import the
# players); these deprecated aliases go in 0.4.0.
_MOVED = ("RANDOM_TRIES", "random_action")


__getattr__ = moved_names(__name__, _MOVED, policy)


def game_seed(seed: int, game: int) -> int:
    """The seed of game number ``game`` for a player seeded ``seed``.

    Ints and tuples of ints hash the same in every process (unlike ``str``),
    so this is reproducible across runs and machines.

    >>> game_seed(3, 0) == game_seed(3, 0) != game_seed(3, 1)
    True
    """
    return hash((seed, game)) & 0x7FFF_FFFF_FFFF


class RandomPlayer:
    """Uniform over advance and each affordable placeable patch, then a uniform placement.

    ``RandomPlayer(seed)`` starts its stream from ``seed``; in a match every
    game restarts it with :meth:`start_game` (from ``seed`` and the game number).
    """

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def start_game(self, game: int) -> None:
        """Restart the stream for game number ``game`` of a match: ``random.Random(game_seed(seed, game))``."""
        self._rng = random.Random(game_seed(self.seed, game))

    def choose(self, state: GameState) -> Action:
        """A uniformly random move (see the class docstring); advances the player's random stream."""
        return policy.random_action(state, self._rng.random)

