"""``random`` — the uniform random player (fast enough for playouts)."""

from __future__ import annotations

import random
from typing import Callable

from quiltsolve.solver import PATCH_MASKS

from ..actions import ADVANCE, LEATHER_ACTIONS, Action, Buy
from ..state import COST, GameState
from ..track import BOARD_CELLS

__all__ = ["RANDOM_TRIES", "RandomPlayer", "game_seed", "random_action"]


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
        return random_action(state, self._rng.random)


RANDOM_TRIES = 8
"""Random masks (or cells) tried before the legal ones are listed (rejection sampling)."""


def random_action(state: GameState, rand: Callable[[], float]) -> Action:
    """A uniformly random move of ``state`` drawn with ``rand`` (a ``random()``: floats in [0, 1)).

    The policy of :class:`RandomPlayer` and of the compiled core's random
    playouts (``engine.core``, whose pure-Python twin calls this with its own
    stream): uniform over advancing and each available patch it can afford
    and place, then a uniform legal placement; leather, a uniform empty cell.
    """
    p = state.players[state.current_player()]
    board = p.board
    if state.leather_to_place:
        for _ in range(RANDOM_TRIES):
            i = int(rand() * BOARD_CELLS)
            if not board >> i & 1:
                return LEATHER_ACTIONS[i]
        free = [i for i in range(BOARD_CELLS) if not board >> i & 1]
        return LEATHER_ACTIONS[free[int(rand() * len(free))]]
    options: list[Action] = [ADVANCE]
    buttons = p.buttons
    for pid in state.front_patches():
        if COST[pid] > buttons:
            continue
        masks = PATCH_MASKS[pid]
        n = len(masks)
        # Rejection sampling: the first random mask that fits is a uniform
        # legal placement; only on a crowded board scan them all.
        for _ in range(RANDOM_TRIES):
            m = masks[int(rand() * n)]
            if not m & board:
                options.append(Buy(pid, m))
                break
        else:
            fits = [m for m in masks if not m & board]
            if fits:
                options.append(Buy(pid, fits[int(rand() * len(fits))]))
    return options[int(rand() * len(options))]
