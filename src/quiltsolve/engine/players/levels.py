"""``level:1`` … ``level:8`` — opponents of graded strength, each with a measured rating.

Level 8 is the full search (:class:`~engine.players.search.SearchPlayer`:
the best move of a UCT search on the compiled core, exact endgames by the
endgame solver) on a fixed iteration budget. Levels 1-7 make the mistakes a
weaker person makes, not random blunders: each searches the position on a
smaller budget (so it sees less), then picks among the search's moves by a
softmax over their values at a temperature (so it sometimes prefers a move
it thinks a little worse), never a move valued more than ``window`` below
the best one. The moves it chooses among are the search's own: advance, or
buy an affordable patch placed snugly (leather: one of the best few cells),
so no move looks silly. Lower levels see less (fewer iterations), err more
(a higher temperature), and play the endgame by the search, not by proof.

Every level is reproducible: its budget is a count of iterations, not
seconds, and the softmax draw is seeded from the player's seed and the
position (:func:`engine.policy.key_seed`), so the same seed and position give
the same move on any machine, in a match, the CLI or the service. Each thinks
at most 0.5 s a move on the 2-core machine (measured by ``python -m bench
levels``, which also fits the ratings in ``engine/data/levels.json``:
:func:`level_ratings`).

>>> from quiltsolve.engine import new_game
>>> s = new_game(3)
>>> p = LevelPlayer(2, seed=5)
>>> p.name, s.is_legal(p.choose(s)), p.choose(s) == LevelPlayer(2, seed=5).choose(s)
('level:2', True, True)
>>> parse_level("9")
Traceback (most recent call last):
...
ValueError: level player takes a level from 1 to 8 (level:1 ... level:8), not '9'
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..actions import Action
from ..advisor import Advisor, Stop
from ..policy import key_seed
from ..state import GameState
from .root_placement import forced_move, greedy_first_move
from .search import SearchPlayer, ranked_moves

__all__ = ["LEVELS", "Level", "LevelPlayer", "level_ratings", "make_level", "parse_level"]


@dataclass(frozen=True)
class Level:
    """One level's settings.

    ``iterations``: the search's budget a move. ``temperature``: of the
    softmax over the searched moves' values (the search's shrunk mean reward,
    0-1); 0 plays the best move. ``window``: moves valued more than this below
    the best are never played. ``prove``: near the end, play the endgame
    solver's perfect move when it finishes (its node budget is the search's,
    as for ``search:Nit``).
    """

    number: int
    iterations: int
    temperature: float
    window: float
    prove: bool


LEVELS: dict[int, Level] = {level.number: level for level in (
    Level(1, 12, 0.30, 0.35, False),
    Level(2, 30, 0.15, 0.25, False),
    Level(3, 60, 0.10, 0.20, False),
    Level(4, 150, 0.06, 0.15, False),
    Level(5, 400, 0.04, 0.12, False),
    Level(6, 700, 0.03, 0.10, False),
    Level(7, 2_500, 0.012, 0.06, True),
    Level(8, 25_000, 0.0, 0.0, True),
)}
"""The levels by number (tuned with ``python -m bench levels``; docs/players.md)."""

TOP = max(LEVELS)
_DRAW = 0x4C45_5645_4C    # mixed into the per-position seed: the softmax's stream is not the search's


def parse_level(arg: str | None) -> int:
    """The level number of a ``level:N`` spec's argument; ValueError naming the allowed range."""
    text = "" if arg is None else arg.strip()
    if text in {str(n) for n in LEVELS}:
        return int(text)
    if arg is None:
        raise ValueError(f"level player needs a level from 1 to {TOP} (level:1 ... level:{TOP})")
    raise ValueError(f"level player takes a level from 1 to {TOP} (level:1 ... level:{TOP}), not {arg!r}")


class LevelPlayer:
    """The player of level ``level`` (1-8; see the module docstring), seeded by ``seed``."""

    def __init__(self, level: int, seed: int = 0) -> None:
        if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
            raise ValueError(f"level must be an integer from 1 to {TOP}, not {level!r}")
        self.level = LEVELS[level]
        self.seed = seed
        self.name = f"level:{level}"
        # No advisor: a fixed iteration budget places bought patches snugly, so moves never depend on the clock.
        self._search = SearchPlayer(iterations=self.level.iterations, seed=seed, lookahead=False,
                                    prove=self.level.prove)

    def __repr__(self) -> str:
        return f"LevelPlayer({self.level.number}, seed={self.seed})"

    def start_game(self, game: int) -> None:
        """A new game of a match: nothing to forget (a move depends only on the seed and the position)."""

    def choose(self, state: GameState, stop: Stop | None = None) -> Action:
        """This level's move: the search's best (temperature 0), or a softmax draw among its near-best moves.

        ``stop`` (a ``solver.StopToken``) ends the search early (a server's deadline); the move is then
        the best of what was searched, and no longer reproducible.
        """
        forced = forced_move(state)
        if forced is not None:
            return forced
        search = self._search
        if self.level.prove and search._proof_worthwhile(state):
            proof = search._prove(state)
            if proof is not None:
                return proof
        ranked = ranked_moves(search._search(state, stop).children)
        if not ranked:
            return greedy_first_move(state, search._cache)
        if self.level.temperature == 0:
            return ranked[0][1].action
        return self._draw(state, [(v, ch.action) for v, ch in ranked])

    def _draw(self, state: GameState, ranked: list[tuple[float, Action]]) -> Action:
        """A softmax draw (seeded by the seed and the position) among the moves within the window of the best."""
        best = ranked[0][0]
        near = [(v, a) for v, a in ranked if v >= best - self.level.window]
        weights = [math.exp((v - best) / self.level.temperature) for v, _ in near]
        rng = random.Random(key_seed(self.seed ^ _DRAW, state))
        x = rng.random() * sum(weights)
        for w, (_, action) in zip(weights, near):
            x -= w
            if x < 0:
                return action
        return near[-1][1]


def make_level(arg: str | None, seed: int, advisor: Advisor | None = None) -> LevelPlayer:
    """The ``level:N`` spec's factory (``advisor`` is not used: every level places by itself)."""
    return LevelPlayer(parse_level(arg), seed)


def level_ratings() -> dict[str, Any]:
    """The measured ratings (``engine/data/levels.json``, written by ``python -m bench levels --write``).

    ``players`` maps each spec (``level:1`` … ``level:8``, ``random``, ``greedy``) to its ``elo``, the
    95% interval ``low``-``high`` and its think time per move (``think_mean``, ``think_p95``, seconds);
    the other keys say how they were measured (``anchor``, ``games``, ``seed``, ``deals``, ``command``,
    ``date``) and what: ``levels``, each level's settings then (``iterations``, ``temperature``, ``window``,
    ``prove``; a test holds them to :data:`LEVELS`, so a retuned level is measured again).
    """
    text = (resources.files("quiltsolve.engine") / "data" / "levels.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data
