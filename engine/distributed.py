"""Match games as Ray tasks: ``python -m engine match ... --ray auto|local|ADDRESS``.

:func:`run_match_ray` plays the games of :func:`engine.match.run_match` on a
Ray cluster (see ``docs/ray.md``), one task per game by default (``batch``
games per task), and gives back the same :class:`~engine.match.MatchSummary`,
the same progress calls (games finished so far) and the same records, written
in game order.

Same deals: the deal of each pair of games is drawn from
``random.Random(seed)`` exactly as locally. Same players: the two players are
pickled once, as made, and every game starts from a fresh copy of them. A
player whose moves depend only on the position and its seed — ``greedy``,
``mcts:N``, ``search:Nit`` (iteration budgets) — therefore plays exactly the
local games: the records and the summary (all but ``seconds``) are identical.
Two kinds differ, as they would between two local runs or by design:

* time budgets (``search:0.2``, ``service:0.1``) buy as many iterations as
  the worker's CPU gives, so they are not reproducible anywhere;
* ``random`` keeps one random stream across the games of a local match; on
  Ray every game starts that stream afresh from the player's seed, so its
  games are reproducible from run to run but not those of the local match.

Ray is imported only when a function here is called.
"""

from __future__ import annotations

import json
import random
import time
from typing import Callable, Sequence, TextIO

from solver.ray_count import RayUnavailableError, check_address, ray_session, require_ray

from .match import MatchSummary, PlayerError, play_game, wilson_interval
from .players import Player
from .state import new_game
from .track import DEFAULT_EDITION

__all__ = ["RayUnavailableError", "check_ray", "play_games_ray", "run_match_ray"]


def check_ray(address: str, server: str | None = None) -> None:
    """``ValueError`` (a usage error) for a malformed ``--ray``, Ray missing, or ``--ray`` with ``--server``."""
    check_address(address)
    if server:
        raise ValueError("--ray and --server cannot be combined: players that ask a placement service "
                         "cannot be sent to Ray workers")
    require_ray(address)


def _deals(games: int, seed: int) -> list[int]:
    """The deal of every game, drawn as ``run_match`` draws them."""
    rng = random.Random(seed)
    out, deal = [], 0
    for g in range(games):
        if g % 2 == 0:
            deal = rng.randrange(2**31)
        out.append(deal)
    return out


def play_batch(players_blob: bytes, edition: str, jobs: Sequence[tuple[int, int, bool]]) -> list[tuple]:
    """Play ``jobs`` (game number, deal, swap seats), each with fresh copies of the pickled players.

    ``(game, final state, record)`` per game. This is the body of a Ray
    task, and a plain function for tests.
    """
    import pickle

    out = []
    for g, deal, swap in jobs:
        pa, pb = pickle.loads(players_blob)
        final, record = play_game((pb, pa) if swap else (pa, pb), new_game(deal, edition), seed=deal)
        out.append((g, final, record))
    return out


_TASK = None


def _run(pa: Player, pb: Player, edition: str, jobs: list[tuple[int, int, bool]], address: str, batch: int,
         num_cpus: int | None, on_game: Callable[[tuple], None]) -> float:
    """Play ``jobs`` as Ray tasks of ``batch`` games; ``on_game(row)`` as each game comes back.

    Returns the seconds from joining the cluster to the last answer.
    """
    global _TASK
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValueError(f"batch must be an int >= 1, not {batch!r}")
    ray = require_ray(address)
    from ray import cloudpickle

    try:
        blob = cloudpickle.dumps((pa, pb))
    except Exception as e:  # noqa: BLE001 - a player holding a connection, a lock, ...
        raise ValueError(f"the players cannot be sent to Ray workers: {e}") from None
    with ray_session(address, num_cpus=num_cpus):
        t0 = time.perf_counter()    # once joined: starting a private cluster takes seconds
        if _TASK is None:
            _TASK = ray.remote(num_cpus=1, max_retries=0)(play_batch)
        blob_ref = ray.put(blob)
        pending = [_TASK.remote(blob_ref, edition, jobs[i:i + batch]) for i in range(0, len(jobs), batch)]
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                for ref in ready:
                    try:
                        rows = ray.get(ref)
                    except ray.exceptions.RayTaskError as e:
                        cause = getattr(e, "cause", None)
                        if isinstance(cause, PlayerError):
                            raise PlayerError(str(cause)) from None
                        raise RuntimeError(f"a game failed on a Ray worker: {cause!r}") from None
                    except ray.exceptions.RayError as e:   # a worker or node died
                        raise RayUnavailableError(f"a game's Ray task was lost: {' '.join(str(e).split())[:300]}"
                                                  ) from None
                    for row in rows:
                        on_game(row)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
        return time.perf_counter() - t0


def play_games_ray(players: tuple[Player, Player], deals: Sequence[int], edition: str = DEFAULT_EDITION, *,
                   address: str = "auto", batch: int = 1, num_cpus: int | None = None,
                   progress: Callable[[int], None] | None = None) -> list:
    """The final states of one game per deal, ``players[0]`` moving first, played as Ray tasks (in deal order)."""
    finals: dict[int, object] = {}

    def on_game(row) -> None:
        finals[row[0]] = row[1]
        if progress is not None:
            progress(len(finals))

    _run(players[0], players[1], edition, [(g, d, False) for g, d in enumerate(deals)], address, batch,
         num_cpus, on_game)
    return [finals[g] for g in range(len(deals))]


def run_match_ray(pa: Player, pb: Player, games: int, seed: int = 0, edition: str = DEFAULT_EDITION,
                  records: TextIO | None = None, progress: Callable[[int], None] | None = None,
                  names: tuple[str, str] = ("a", "b"), *, address: str = "auto", batch: int = 1,
                  num_cpus: int | None = None) -> MatchSummary:
    """``run_match`` with the games played as Ray tasks on the cluster at ``address``.

    ``batch`` games per task (1: one task per game); ``num_cpus`` sizes a
    private cluster (``auto`` without a running one, or ``local``).
    ``progress(n)`` after each game that comes back (n games so far);
    records are written in game order. ``PlayerError`` as locally;
    :class:`RayUnavailableError` when no cluster answers. ``seconds`` counts
    from the moment the cluster is joined.
    """
    if games < 1:
        raise ValueError("games must be >= 1")
    name_a, name_b = names
    deals = _deals(games, seed)
    done: dict[int, tuple[int, int, bool]] = {}     # game -> (score a, score b, a won)
    held: dict[int, dict] = {}                      # records waiting for the games before them
    written = 0

    def on_game(row) -> None:
        nonlocal written
        g, final, record = row
        a_first = g % 2 == 0
        s = final.scores()
        sa, sb = (s[0], s[1]) if a_first else (s[1], s[0])
        done[g] = (sa, sb, final.winner() == (0 if a_first else 1))
        if records is not None:
            record["players"] = [name_a, name_b] if a_first else [name_b, name_a]
            held[g] = record
            while written in held:
                records.write(json.dumps(held.pop(written)) + "\n")
                written += 1
        if progress is not None:
            progress(len(done))

    seconds = _run(pa, pb, edition, [(g, deals[g], g % 2 == 1) for g in range(games)], address, batch,
                   num_cpus, on_game)
    wins_a = sum(done[g][2] for g in range(games))
    score_a = sum(done[g][0] for g in range(games))
    score_b = sum(done[g][1] for g in range(games))
    lo, hi = wilson_interval(wins_a, games)
    return MatchSummary(
        a=name_a, b=name_b, games=games, wins_a=wins_a, wins_b=games - wins_a,
        mean_score_a=score_a / games, mean_score_b=score_b / games,
        mean_margin_a=(score_a - score_b) / games, mean_margin_b=(score_b - score_a) / games,
        win_rate_a=wins_a / games, ci95_a=(lo, hi), edition=edition, seed=seed, seconds=seconds,
    )
