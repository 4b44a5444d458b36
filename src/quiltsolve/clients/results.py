"""What the clients' move calls return besides the solver's dataclasses.

:class:`MoveSuggestions` is the answer of ``suggest_move``: the ranked moves
(it *is* a list of ``engine.suggest.MoveSuggestion``, best first, so code
written for a plain list keeps working) that also says how much the search
did: ``iterations`` (root iterations run; None when the engine did not say),
``searched`` (False when no iteration ran and the moves are ranked by the
fast greedy rule only), ``wall_time`` (seconds spent thinking),
``terminal`` (True, with no moves, when the game is over) and ``proven``
(True when the endgame solver proved the value of every move: each has its
``proven_margin``, the exact final margin in points for the player to move).

>>> m = MoveSuggestions([], iterations=0, searched=False)
>>> m == [], m.moves, m.iterations, m.searched, m.proven
(True, [], 0, False, False)

Reviews (``analyze_game``) are ``engine.review.MoveReview`` objects, the
same type from every client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from quiltsolve.engine.suggest import MoveSuggestion

class MoveSuggestions(list["MoveSuggestion"]):
    """Ranked moves, best first (a ``list``), with the search's effort:
    ``iterations``, ``searched``, ``wall_time``, and whether every move is ``proven``."""

    iterations: int | None
    searched: bool
    wall_time: float | None
    terminal: bool
    proven: bool

    def __init__(self, moves: Iterable[MoveSuggestion] = (), *, iterations: int | None = None,
                 searched: bool = True, wall_time: float | None = None, terminal: bool = False,
                 proven: bool = False) -> None:
        super().__init__(moves)
        self.iterations = iterations
        self.searched = bool(searched)
        self.wall_time = wall_time
        self.terminal = bool(terminal)
        self.proven = bool(proven)

    @property
    def moves(self) -> list[MoveSuggestion]:
        """The moves as a plain list, best first."""
        return list(self)

    def __repr__(self) -> str:
        return (f"MoveSuggestions({list.__repr__(self)}, iterations={self.iterations!r}, "
                f"searched={self.searched!r}, wall_time={self.wall_time!r}, terminal={self.terminal!r}, "
                f"proven={self.proven!r})")


__all__ = ["MoveSuggestions"]
