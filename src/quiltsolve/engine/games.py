"""What a match is made of, wherever its games run: deals, one game, the summary.

Both executors of a match — :func:`engine.match.run_match` in this process
and :mod:`engine.distributed` on Ray — play every game through
:func:`play_match_game`, so a match's games depend only on its seed and each
game's index:

* the deal of games ``2k`` and ``2k+1`` is the ``k``-th draw of
  ``random.Random(seed)`` (:func:`deals`); side *a* moves first in even
  games;
* before game ``g`` every player with a ``start_game(g)`` method
  (:class:`engine.players.base.PerGame`) restarts what it keeps between
  moves — the ``random`` player its stream, from its own seed and ``g``
  (:func:`engine.players.random_player.game_seed`) — so game ``g`` is the
  same whichever games ran before it, in which process.

>>> deals(4, 1)[0] == deals(4, 1)[1] != deals(4, 1)[2]
True
>>> [round(x, 3) for x in wilson_interval(8, 10)]
[0.49, 0.943]
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass
from typing import Any, Sequence

from .actions import Action
from .players.base import PerGame, Player
from .record import make_record
from .state import GameState, IllegalActionError, new_game

__all__ = ["Job", "MatchSummary", "PlayerError", "deals", "jobs", "play_game", "play_match_game", "summarize",
           "wilson_interval"]

Job = tuple[int, int, bool]
"""One game of a match: (game index, deal, swap seats: side *b* moves first)."""


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


def deals(games: int, seed: int) -> list[int]:
    """The deal (``new_game`` seed) of every game: one draw of ``random.Random(seed)`` per pair of games."""
    rng = random.Random(seed)
    out, deal = [], 0
    for g in range(games):
        if g % 2 == 0:
            deal = rng.randrange(2**31)
        out.append(deal)
    return out


def jobs(games: int, seed: int) -> list[Job]:
    """Every game of a match as a :data:`Job`; side *b* moves first in the odd games."""
    return [(g, deal, g % 2 == 1) for g, deal in enumerate(deals(games, seed))]


def play_game(players: tuple[Player, Player], state: GameState, seed: Any = None) -> tuple[GameState, dict[str, Any]]:
    """Play ``state`` to the end; ``players[i]`` moves for player ``i``. Returns (final, record)."""
    initial = state.clone()
    actions: list[Action] = []
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


def play_match_game(pa: Player, pb: Player, edition: str, job: Job) -> tuple[GameState, dict[str, Any]]:
    """Game ``job`` of a match between sides ``pa`` and ``pb``: (final state, record).

    Calls ``start_game(game)`` on the players that have one first; the body
    of every game of a match, local or on Ray.
    """
    g, deal, swap = job
    for p in (pa, pb):
        if isinstance(p, PerGame):
            p.start_game(g)
    return play_game((pb, pa) if swap else (pa, pb), new_game(deal, edition), seed=deal)


@dataclass
class MatchSummary:
    """The result of a match, from side *a*'s point of view where it is one-sided."""

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

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data (``ci95_a`` as a list)."""
        d = asdict(self)
        d["ci95_a"] = list(self.ci95_a)
        return d

    def table(self) -> str:
        """The summary as a few lines of text."""
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


def side_scores(g: int, final: GameState) -> tuple[int, int, bool]:
    """(score of side a, score of side b, side a won) of game ``g`` (side a moves first in even games)."""
    a_first = g % 2 == 0
    s = final.scores()
    sa, sb = (s[0], s[1]) if a_first else (s[1], s[0])
    return sa, sb, final.winner() == (0 if a_first else 1)


def summarize(names: tuple[str, str], results: Sequence[tuple[int, int, bool]], edition: str, seed: int,
              seconds: float) -> MatchSummary:
    """The :class:`MatchSummary` of the games' :func:`side_scores`, in game order."""
    games = len(results)
    wins_a = sum(r[2] for r in results)
    score_a = sum(r[0] for r in results)
    score_b = sum(r[1] for r in results)
    lo, hi = wilson_interval(wins_a, games)
    return MatchSummary(
        a=names[0], b=names[1], games=games, wins_a=wins_a, wins_b=games - wins_a,
        mean_score_a=score_a / games, mean_score_b=score_b / games,
        mean_margin_a=(score_a - score_b) / games, mean_margin_b=(score_b - score_a) / games,
        win_rate_a=wins_a / games, ci95_a=(lo, hi), edition=edition, seed=seed, seconds=seconds,
    )


def record_players(g: int, names: tuple[str, str]) -> list[str]:
    """The record's ``players`` (seat order) of game ``g``."""
    return [names[0], names[1]] if g % 2 == 0 else [names[1], names[0]]
