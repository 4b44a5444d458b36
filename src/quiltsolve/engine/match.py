"""Matches between two players: alternating starts, summary statistics, records.

Games come in pairs on the same deal: game ``2k`` has side *a* moving first,
game ``2k+1`` the same circle with side *b* first, so luck of the deal
cancels out. Deal seeds are drawn from ``random.Random(seed)``.

>>> s = run_match("greedy", "random", games=4, seed=1)
>>> s.games, s.wins_a + s.wins_b
(4, 4)
>>> [round(x, 3) for x in wilson_interval(8, 10)]
[0.49, 0.943]
"""

from __future__ import annotations

import json
import time
from typing import Callable, TextIO

from .advisor import Advisor
from .distributed import run_match_ray
from .games import (  # noqa: F401  (MatchSummary, PlayerError, play_game, wilson_interval: this module's API)
    MatchSummary, PlayerError, jobs, play_game, play_match_game, record_players, side_scores, summarize,
    wilson_interval,
)
from .players import Player, make_player
from .track import DEFAULT_EDITION

__all__ = ["MatchSummary", "PlayerError", "play_game", "run_match", "wilson_interval"]


def run_match(a: str | Player, b: str | Player, games: int, seed: int = 0, edition: str = DEFAULT_EDITION,
              advisor: Advisor | None = None, records: TextIO | None = None,
              progress: Callable[[int], None] | None = None,
              names: tuple[str, str] | None = None, ray: str | None = None) -> MatchSummary:
    """Play ``games`` games of ``a`` against ``b`` (specs for ``make_player`` or players).

    ``progress(n)`` is called after each game; ``names`` label the sides
    (default: the specs, or the players' ``name``). ``ray`` (``auto``,
    ``local`` or an address) plays the games as Ray tasks
    (:mod:`engine.distributed`): the same games, records and summary.
    Game ``g`` depends only on ``seed`` and ``g`` (:mod:`engine.games`).
    """
    if games < 1:
        raise ValueError("games must be >= 1")
    pa = make_player(a, seed, advisor) if isinstance(a, str) else a
    pb = make_player(b, seed + 1, advisor) if isinstance(b, str) else b
    name_a, name_b = names or (a if isinstance(a, str) else pa.name, b if isinstance(b, str) else pb.name)
    if ray is not None:
        return run_match_ray(pa, pb, games, seed, edition, records, progress, (name_a, name_b), address=ray)
    t0 = time.perf_counter()
    results = []
    for job in jobs(games, seed):
        g = job[0]
        final, record = play_match_game(pa, pb, edition, job)
        results.append(side_scores(g, final))
        if records is not None:
            record["players"] = record_players(g, (name_a, name_b))
            records.write(json.dumps(record) + "\n")
        if progress is not None:
            progress(g + 1)
    return summarize((name_a, name_b), results, edition, seed, time.perf_counter() - t0)
