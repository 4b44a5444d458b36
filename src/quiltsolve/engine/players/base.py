"""What a player is: anything with a ``name`` and ``choose(state) -> Action``."""

from __future__ import annotations

from typing import Callable, Protocol, runtime_checkable

from ..actions import Action
from ..advisor import Advisor
from ..state import GameState

__all__ = ["Factory", "PerGame", "Player"]


@runtime_checkable
class Player(Protocol):
    """A player: ``name`` and ``choose``."""

    name: str

    def choose(self, state: GameState) -> Action:
        """The action to play for ``state.current_player()`` (state is not modified)."""
        ...


@runtime_checkable
class PerGame(Protocol):
    """A player that keeps something between moves (a random stream, a search tree).

    A match calls ``start_game(game)`` before game number ``game``, locally
    and on Ray alike (:func:`engine.games.play_match_game`): the player
    restarts from its own seed and ``game`` only, so a match's game ``k`` is
    the same whatever ran the games before it, and wherever it runs.
    """

    def start_game(self, game: int) -> None:
        """Restart for game number ``game`` of a match."""
        ...


Factory = Callable[[str | None, int, Advisor | None], Player]
"""``factory(arg, seed, advisor) -> Player`` (arg: the text after ``name:``, or None)."""
