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
import math
import random
import time
from dataclasses import asdict, dataclass
from typing import Callable, TextIO

from .players import Player, make_player
from .record import make_record
from .state import GameState, IllegalActionError, new_game
from .track import DEFAULT_EDITION


class PlayerError(RuntimeError):
    """A player returned an action the rules do not allow."""


def wilson_interval(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a win rate (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    phat = wins / n
    denom = 1 + z * z / n
    centre = (phat + z * z / (2 * n)) / denom
    half = z * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def play_game(players: tuple[Player, Player], state: GameState, seed=None) -> tuple[GameState, dict]:
    """Play ``state`` to the end; ``players[i]`` moves for player ``i``. Returns (final, record)."""
    initial = state.clone()
    actions = []
    while not state.is_terminal():
        cur = state.current_player()
        action = players[cur].choose(state.clone())
        try:
            state.apply_action(action)
        except IllegalActionError as e:
            text = action.to_str() if hasattr(action, "to_str") else repr(action)
            raise PlayerError(f"player {players[cur].name} chose illegal {text!r}: {e}") from None
        actions.append(action)
    return state, make_record(initial, actions, state, seed=seed)


@dataclass
class MatchSummary:
    a: str
    b: str
    games: int
    wins_a: int
    wins_b: int
    mean_score_a: float
    mean_score_b: float
    mean_margin_a: float
    mean_margin_b: float
    win_rate_a: float
    ci95_a: tuple[float, float]
    edition: str
    seed: int
    seconds: float

    def to_json(self) -> dict:
        d = asdict(self)
        d["ci95_a"] = list(self.ci95_a)
        return d

    def table(self) -> str:
        w = max(len(self.a), len(self.b), len("player"))
        lines = [
            f"{self.a} (a) vs {self.b} (b): {self.games} games, {self.edition} edition, seed {self.seed}, "
            f"{self.seconds:.1f} s",
            f"side  {'player':<{w}}  wins  mean score  mean margin",
            f"a     {self.a:<{w}}  {self.wins_a:>4}  {self.mean_score_a:>10.2f}  {self.mean_margin_a:>+11.2f}",
            f"b     {self.b:<{w}}  {self.wins_b:>4}  {self.mean_score_b:>10.2f}  {self.mean_margin_b:>+11.2f}",
            f"a win rate {self.win_rate_a:.1%} (95% CI {self.ci95_a[0]:.1%}-{self.ci95_a[1]:.1%}, Wilson)",
        ]
        return "\n".join(lines)


def run_match(a: str | Player, b: str | Player, games: int, seed: int = 0, edition: str = DEFAULT_EDITION,
              advisor=None, records: TextIO | None = None,
              progress: Callable[[int], None] | None = None,
              names: tuple[str, str] | None = None, ray: str | None = None) -> MatchSummary:
    """Play ``games`` games of ``a`` against ``b`` (specs for ``make_player`` or players).

    ``progress(n)`` is called after each game; ``names`` label the sides
    (default: the specs, or the players' ``name``).
    """
    if games < 1:
        raise ValueError("games must be >= 1")
    pa = make_player(a, seed, advisor) if isinstance(a, str) else a
    pb = make_player(b, seed + 1, advisor) if isinstance(b, str) else b
    name_a, name_b = names or (a if isinstance(a, str) else pa.name, b if isinstance(b, str) else pb.name)
    if ray is not None:  # ray=auto|local|ADDRESS: the games as Ray tasks (engine/distributed.py)
        from .distributed import run_match_ray
        return run_match_ray(pa, pb, games, seed, edition, records, progress, (name_a, name_b), address=ray)
    rng = random.Random(seed)
    wins_a = score_a = score_b = 0
    t0 = time.perf_counter()
    deal = 0
    for g in range(games):
        if g % 2 == 0:
            deal = rng.randrange(2**31)
        a_first = g % 2 == 0
        order = (pa, pb) if a_first else (pb, pa)
        final, record = play_game(order, new_game(deal, edition), seed=deal)
        s = final.scores()
        sa, sb = (s[0], s[1]) if a_first else (s[1], s[0])
        score_a += sa
        score_b += sb
        wins_a += final.winner() == (0 if a_first else 1)
        if records is not None:
            record["players"] = [name_a, name_b] if a_first else [name_b, name_a]
            records.write(json.dumps(record) + "\n")
        if progress is not None:
            progress(g + 1)
    margin = (score_a - score_b) / games
    lo, hi = wilson_interval(wins_a, games)
    return MatchSummary(
        a=name_a, b=name_b, games=games, wins_a=wins_a, wins_b=games - wins_a,
        mean_score_a=score_a / games, mean_score_b=score_b / games,
        mean_margin_a=margin, mean_margin_b=(score_b - score_a) / games, win_rate_a=wins_a / games, ci95_a=(lo, hi),
        edition=edition, seed=seed, seconds=time.perf_counter() - t0,
    )
