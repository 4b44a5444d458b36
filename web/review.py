"""AnalyzeGame for the HTTP face: the service's own, or a stand-in while ``engine.review`` is missing.

The gRPC service reviews each move with ``engine.review.review_move`` in a
worker process. Until that module is part of the engine, the web app still
reviews games with :func:`stand_in_review`, built from the same worker job
as SuggestMove (``"moves"``: the search player's ranked moves): for every
position of the record it asks the search for the best move and its win
chance for the player to move, and scores the move played by the win
chance of the position it led to (seen from the mover: ``1 - v`` when the
opponent moves next, ``v`` when the mover moves again, 1 or 0 once the game
is over). ``loss = max(0, value_best - value_played)`` (0 when the move
played is the best one). Same validation, admission, limits and messages
as the service's AnalyzeGame; ``review_method()`` tells which one runs.
"""

from __future__ import annotations

import importlib.util
from typing import Iterator

from patchwork.v1 import placement_pb2 as pb
from server import convert
from server.core import Call
from server.service import DEFAULT_LARGE_LOSS, DEFAULT_REVIEW_LIMIT, record_plies, move_message
from server.errors import BadRequest


def review_method() -> str:
    """``"engine.review"`` when the engine has its review module, else ``"stand-in"``."""
    try:
        found = importlib.util.find_spec("engine.review") is not None
    except (ImportError, ValueError):
        found = False
    return "engine.review" if found else "stand-in"


def stand_in_review(core, request: pb.AnalyzeGameRequest, call: Call) -> Iterator[pb.AnalyzeGameResponse]:
    """One AnalyzeGameResponse per move of the record (see the module docstring)."""
    if not request.HasField("record"):
        raise BadRequest("record", "required: the game to review (GameRecord)")
    plies = record_plies(request.record, "record")
    iterations = convert.iterations(request.iterations)
    limit = convert.time_limit(request, "time_per_move",
                               DEFAULT_REVIEW_LIMIT if iterations is None else convert.MAX_TIME_LIMIT)
    seed = convert.seed(request.seed)
    large = request.large_loss or DEFAULT_LARGE_LOSS
    if not 0 < large <= 1:
        raise BadRequest("large_loss", f"{large:g}; must be in (0, 1] (0 means {DEFAULT_LARGE_LOSS:g})")
    call.record.extra["review"] = "stand-in"
    last_state, last_action = plies[-1]
    final = last_state.clone()
    final.apply_action(last_action)
    states = [s for s, _ in plies] + [final]

    def best(i: int):
        """(best action, its win chance for the player to move) in states[i]."""
        state = states[i]
        result = core.run_job(call, "moves", {"state": state, "top": 1, "seed": seed, "iterations": iterations},
                              limit, f"record.actions[{min(i, len(plies) - 1)}]")
        moves = getattr(result, "moves", result)
        return moves[0].action, float(moves[0].value)

    here = best(0)
    for ply, (state, action) in enumerate(plies):
        mover = state.current_player()
        after = states[ply + 1]
        if after.is_terminal():
            nxt = None
            played_value = 1.0 if after.winner() == mover else 0.0
        else:
            nxt = best(ply + 1)
            played_value = nxt[1] if after.current_player() == mover else 1.0 - nxt[1]
        best_action, best_value = here
        if best_action == action:
            played_value = best_value
        loss = max(0.0, best_value - played_value)
        yield pb.AnalyzeGameResponse(ply=ply, player=mover, played=move_message(action),
                                     best=move_message(best_action), value_played=played_value,
                                     value_best=best_value, loss=loss, large=loss >= large)
        if nxt is not None:
            here = nxt
