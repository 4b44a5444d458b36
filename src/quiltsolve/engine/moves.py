"""The answer to "what should I play here?": proven by the endgame solver when it can be, else searched.

:func:`rank_moves` is what the service's SuggestMove (``server.jobs.MovesJob``)
and the embedded client answer with: it first gives the exact endgame solver
(:func:`engine.players.proven.proven_moves`) a share of the budget
(:func:`engine.players.proven.proof_limits`: 50% of the time near the end,
10% before; with a fixed iteration count a node budget) and, when the solver
finishes, answers with the proven moves (``proven=True``: every move has its
``proven_margin`` and a certain win chance; no search runs). Otherwise the
search (:func:`engine.players.search.search`) gets the rest of the time (or
its fixed iteration count). :class:`MovesResult` is the search's
``SearchResult`` plus ``proven`` and the solver's ``proof_nodes``.

>>> from quiltsolve.engine import new_game
>>> r = rank_moves(new_game(4), iterations=30)
>>> r.proven, r.searched, r.iterations, r.moves[0].proven_margin
(False, True, 30, None)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .advisor import Advisor, Stop
from .players import proven as _proven
from .players import search as _search
from .state import GameState
from .suggest import MoveSuggestion


@dataclass(frozen=True)
class MovesResult:
    """The ranked moves of a position and how they were found.

    ``moves``, ``iterations``, ``searched``, ``wall_time``: as in
    ``engine.players.search.SearchResult`` (a proven answer: ``iterations``
    0 and ``searched`` True). ``proven``: True only when the endgame solver
    proved the value of every returned move (each has ``proven_margin``).
    ``proof_nodes``: positions the solver searched for the proof (0 when not proven).
    """

    moves: list[MoveSuggestion]
    iterations: int
    searched: bool
    wall_time: float
    proven: bool = False
    proof_nodes: int = 0


def rank_moves(state: GameState, *, time_limit: float | None = None, top: int | None = None, seed: int = 0,
               stop: Stop | None = None, iterations: int | None = None, advisor: Advisor | None = None,
               prove: bool = True) -> MovesResult:
    """The moves of ``state`` for the player to move, best first: proven when the solver can, else searched.

    Arguments as :func:`engine.players.search.search`; ``prove=False`` skips
    the solver. The proof attempt takes at most
    :func:`~engine.players.proven.proof_limits` of the budget and the search
    the rest (with ``iterations``, the search runs them all, within what is
    left of the ``time_limit`` cap when one is given). A finished game: no
    moves, not proven.
    """
    t0 = time.perf_counter()
    if prove and not state.is_terminal():
        limits = _proven.proof_limits(state, time_limit, iterations)
        answer = _proven.proven_moves(state, time_limit=limits.seconds, nodes=limits.nodes, stop=stop, top=top)
        if answer is not None:
            return MovesResult(answer.moves, 0, True, time.perf_counter() - t0, True, answer.nodes)
    left = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - t0))
    if left is None and iterations is None:
        left = max(0.0, _search.DEFAULT_TIME_LIMIT - (time.perf_counter() - t0))
    if left is not None and left <= 0:
        left = 1e-3    # the search still answers (its fallback when nothing ran)
    r = _search.search(state, time_limit=left, top=top, seed=seed, stop=stop, iterations=iterations,
                       advisor=advisor)
    return MovesResult(r.moves, r.iterations, r.searched, time.perf_counter() - t0)


__all__ = ["MovesResult", "rank_moves"]
