"""Match games as Ray tasks: ``python -m quiltsolve.engine match ... --ray auto|local|ADDRESS``.

:func:`run_match_ray` plays the games of :func:`engine.match.run_match` on a
Ray cluster (see ``docs/ray.md``), one task per game by default (``batch``
games per task), and gives back the same :class:`~engine.match.MatchSummary`,
the same progress calls (games finished so far) and the same records, written
in game order.

Same games: every game is played by :func:`engine.games.play_match_game`, as
locally, from the same deal; the two players are pickled once, as made, and
every game starts from a fresh copy of them, told which game it is
(``start_game``: the ``random`` player restarts its stream from its seed and
the game's index, exactly as in a local match). Every player whose moves
depend only on the position, its seed and the game's index — ``greedy``,
``random``, ``mcts:N``, ``search:Nit`` (iteration budgets) — therefore plays
exactly the local games: the records and the summary (all but ``seconds``)
are identical. Time budgets (``search:0.2``, ``service:0.1``) buy as many
iterations as the worker's CPU gives, so they are not reproducible anywhere.

Ray is imported only when a function here is called (``solver.ray_count``
imports it on first use).
"""

from __future__ import annotations

import json
import pickle
import time
from typing import Any, Callable, Sequence, TextIO

from quiltsolve.solver.ray_count import RayUnavailableError, check_address, ray_session, require_ray

from .games import (
    Job, MatchSummary, PlayerError, jobs, play_match_game, record_players, side_scores, summarize,
)
from .players import Player
from .state import GameState
from .track import DEFAULT_EDITION

__all__ = ["RayUnavailableError", "check_ray", "play_batch", "play_games_ray", "run_match_ray"]


def check_ray(address: str, server: str | None = None) -> None:
    """``ValueError`` (a usage error) for a malformed ``--ray``, Ray missing, or ``--ray`` with ``--server``."""
    check_address(address)
    if server:
        raise ValueError("--ray and --server cannot be combined: players that ask a placement service "
                         "cannot be sent to Ray workers")
    require_ray(address)


def play_batch(players_blob: bytes, edition: str, jobs: Sequence[Job]) -> list[tuple[int, GameState, dict[str, Any]]]:
    """Play ``jobs`` (game index, deal, swap seats), each with fresh copies of the pickled players.

    ``(game, final state, record)`` per game, each played by
    :func:`engine.games.play_match_game` as in a local match. This is the
    body of a Ray task, and a plain function for tests.
    """
    out = []
    for job in jobs:
        pa, pb = pickle.loads(players_blob)
        final, record = play_match_game(pa, pb, edition, job)
        out.append((job[0], final, record))
    return out


_TASK = None


def _run(pa: Player, pb: Player, edition: str, jobs: list[Job], address: str, batch: int,
         num_cpus: int | None, on_game: Callable[[tuple[int, GameState, dict[str, Any]]], None]) -> float:
    """Play ``jobs`` as Ray tasks of ``batch`` games; ``on_game(row)`` as each game comes back.

    Returns the seconds from joining the cluster to the last answer.
    """
    global _TASK
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValueError(f"batch must be an int >= 1, not {batch!r}")
    ray = require_ray(address)
    from ray import cloudpickle  # Ray: an optional, heavy dependency, imported only with --ray

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
                   progress: Callable[[int], None] | None = None) -> list[GameState]:
    """The final states of one game per deal, ``players[0]`` moving first, played as Ray tasks (in deal order)."""
    finals: dict[int, GameState] = {}

    def on_game(row: tuple[int, GameState, dict[str, Any]]) -> None:
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
    done: dict[int, tuple[int, int, bool]] = {}     # game -> (score a, score b, a won)
    held: dict[int, dict[str, Any]] = {}                      # records waiting for the games before them
    written = 0

    def on_game(row: tuple[int, GameState, dict[str, Any]]) -> None:
        nonlocal written
        g, final, record = row
        done[g] = side_scores(g, final)
        if records is not None:
            record["players"] = record_players(g, names)
            held[g] = record
            while written in held:
                records.write(json.dumps(held.pop(written)) + "\n")
                written += 1
        if progress is not None:
            progress(len(done))

    seconds = _run(pa, pb, edition, jobs(games, seed), address, batch, num_cpus, on_game)
    return summarize(names, [done[g] for g in range(games)], edition, seed, seconds)
