"""The GameService methods: the game's helpers (deal, draw, list and play moves, the engine's move,
replay, load, notation) as RPCs with typed messages, beside :mod:`server.service`.

Each RPC reads its request once, here (positions through :mod:`server.positions`, records through
:mod:`server.records`, limits from :mod:`solver.limits`), and gives one answer message. All but
one answer in the front, at once: they are the rules of the game, cheaper than a trip to a worker.
``EngineMove`` with a search strength is SuggestMove's job (a :class:`server.jobs.MovesJob`, top 1,
SuggestMove's limits and seed rule), planned by :func:`plan_engine_move` and run through the core
like any expensive call.

:data:`GAME_RPCS` is the table (RPC name → ``answer(request) -> response``, a pure function of the
request but for ``NewGame``'s random seed); :class:`GameServicer` serves it, and EngineMove.

>>> view = GAME_RPCS["NewGame"](pb.NewGameRequest(seed=7)).view
>>> view.current_player, [p.slot for p in view.available], (view.advance.to, view.advance.buttons)
(0, [1, 2, 3], (1, 1))
>>> GAME_RPCS["LegalMoves"](pb.LegalMovesRequest())
Traceback (most recent call last):
...
quiltsolve.server.errors.BadRequest: state: required: the position (GameState)
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any, Callable

from google.protobuf import struct_pb2

from quiltsolve import engine
from quiltsolve import solver
from quiltsolve.engine.actions import Buy
from quiltsolve.engine.moves import MovesResult
from quiltsolve.engine.players import make_player
from quiltsolve.engine.players.levels import LEVELS
from quiltsolve.engine.track import END, INCOME_SPACES, LEATHER_SPACES
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.solver.limits import (DEFAULT_ITERATIONS_LIMIT, DEFAULT_SUGGEST_LIMIT, MAX_ITERATIONS,
                                      MAX_LOAD_TEXT, MAX_MOVE_TEXT, MAX_SEED, MAX_TIME_LIMIT)

from . import convert, positions, records
from .core import Call
from .errors import GAME_OVER, BadRequest, FailedPrecondition
from .positions import move_message
from .jobs import LevelMoveJob, MovesJob
from .service import JobRunner, Plan, moves_job, record_plies

GAME_SERVICE = "patchwork.v1.GameService"
STRENGTHS = ("random", "greedy", "level:1", "…", "level:8", "search:SECONDS", "search:Nit")
"""The strengths EngineMove takes (``search`` alone: for SuggestMove's default time)."""


# ---------------------------------------------------------------- reading requests

def request_position(request: Any, field: str = "state") -> engine.GameState:
    """The position a request carries in ``field`` (a GameState); BadRequest naming the field."""
    if not request.HasField(field):
        raise BadRequest(field, "required: the position (GameState)")
    try:
        return positions.from_message(getattr(request, field), field)
    except positions.PositionError as e:
        raise e.as_bad_request() from None


def _playable(state: engine.GameState, field: str = "state") -> engine.GameState:
    if state.is_terminal():
        raise FailedPrecondition(f"{field}: {GAME_OVER}")
    return state


def edition_of(name: str, field: str = "edition") -> str:
    """An edition as the engine names it (empty: the default one)."""
    edition = name or engine.DEFAULT_EDITION
    if edition not in engine.EDITIONS:
        raise BadRequest(field, f"{json.dumps(edition)[:40]}; expected one of {', '.join(engine.EDITIONS)}")
    return edition


@dataclass(frozen=True)
class Strength:
    """Who chooses an engine move: ``random``, ``greedy``, ``level`` (with its number, 1-8:
    :class:`engine.players.LevelPlayer`) or ``search`` (with its time limit and, or, its fixed iteration
    budget: SuggestMove's)."""

    name: str
    time_limit: float | None = None
    iterations: int | None = None
    level: int | None = None


def parse_strength(text: str, field: str = "strength") -> Strength:
    """A strength's text form; SuggestMove's limits for the search.

    >>> parse_strength("search:40it"), parse_strength("search").time_limit, parse_strength("level:3").level
    (Strength(name='search', time_limit=None, iterations=40, level=None), 1.0, 3)
    >>> parse_strength("search:61")
    Traceback (most recent call last):
    ...
    quiltsolve.server.errors.BadRequest: strength: "search:61"; expected random, greedy, level:N (N = 1-8), search:SECONDS (more than 0, at most 60) or search:Nit (1-200000)
    """
    name, _, arg = text.strip().partition(":")
    if name in ("random", "greedy") and not arg:
        return Strength(name)
    if name == "level" and arg in {str(n) for n in LEVELS}:
        return Strength("level", level=int(arg))
    if name == "search":
        arg = arg.strip().lower()
        try:
            if not arg:
                return Strength("search", DEFAULT_SUGGEST_LIMIT, None)
            if arg.endswith("it"):
                n = int(arg[:-2])
                if 1 <= n <= MAX_ITERATIONS:
                    return Strength("search", None, n)
            else:
                seconds = float(arg)
                if 0 < seconds <= MAX_TIME_LIMIT:
                    return Strength("search", seconds, None)
        except ValueError:
            pass
    if not text.strip():
        raise BadRequest(field, f"required: one of {', '.join(STRENGTHS)}")
    raise BadRequest(field, f"{json.dumps(text)[:40]}; expected random, greedy, level:N (N = {min(LEVELS)}-"
                            f"{max(LEVELS)}), search:SECONDS (more than 0, at most {MAX_TIME_LIMIT:g}) or "
                            f"search:Nit (1-{MAX_ITERATIONS})")


# ---------------------------------------------------------------- the view

def game_view(state: engine.GameState) -> pb.GameView:
    """What a page draws for ``state``."""
    over = state.is_terminal()
    cur = state.current_player()
    me, other = state.players[cur], state.players[1 - cur]
    pending = state.leather_to_place
    out = pb.GameView(edition=state.edition, current_player=cur, leather_to_place=pending, terminal=over,
                      circle=state.circle, leather_spaces=list(state.leather),
                      leather_track=list(LEATHER_SPACES[state.edition]), income_spaces=list(INCOME_SPACES),
                      end=END, scores=list(state.scores()), notation=positions.to_notation(state))
    for p in state.players:
        out.players.add(rows=solver.board_to_rows(p.board), buttons=p.buttons, position=p.position,
                        income=p.income, patches=list(p.patches), leather=p.leather, bonus=p.bonus,
                        empty=p.empty, score=p.score())
    buyable = set(state.buyable_patches())
    for slot, pid in enumerate(state.available_patches()):
        patch = solver.PATCHES[pid]
        affordable = patch.buttons <= me.buttons
        out.available.add(slot=slot + 1, id=pid, buttons=patch.buttons, time=patch.time, income=patch.income,
                          affordable=affordable, buyable=pid in buyable,
                          placements=len(state.placements(pid)) if affordable and not over else 0)
    if not over and not pending:
        target = min(other.position + 1, END)
        out.advance.CopyFrom(pb.Advance(to=target, buttons=max(0, target - me.position)))
    if state.bonus_owner is not None:
        out.bonus_owner = state.bonus_owner
    if state.first_to_end is not None:
        out.first_to_end = state.first_to_end
    winner = state.winner()
    if winner is not None:
        out.winner = winner
    if over:
        out.result.CopyFrom(game_result(state))
    return out


def game_result(state: engine.GameState) -> pb.GameResult:
    """A finished game's result (the engine record's ``result``)."""
    result = engine.result_of(state)
    out = pb.GameResult(scores=result["scores"], buttons=result["buttons"], empty=result["empty"])
    if result["bonus"] is None:   # null, not absent: a saved record's result has every field
        out.bonus.null_value = struct_pb2.NULL_VALUE
    else:
        out.bonus.number_value = result["bonus"]
    if result["winner"] is not None:
        out.winner = result["winner"]
    return out


def engine_record(record: pb.GameRecord, seed: Any = None, upto: int | None = None) -> pb.EngineRecord:
    """A record in the engine's form (:func:`server.records.to_json`), with the deal's ``seed`` when it is
    one an int32 holds, its first ``upto`` moves when given."""
    data = records.to_json(record)
    out = pb.EngineRecord(edition=data["edition"], circle=data["circle"],
                          actions=data["actions"][:upto] if upto is not None else data["actions"])
    if isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed <= MAX_SEED:
        out.seed = seed
    return out


# ---------------------------------------------------------------- the RPCs answered in the front

def new_game(request: pb.NewGameRequest) -> pb.NewGameResponse:
    edition = edition_of(request.edition)
    if request.circle:
        # A circle as it lies on a table: the position codec's one check of a starting circle; no seed.
        if request.HasField("seed"):
            raise BadRequest("seed", "give a seed or a circle, not both")
        try:
            state = positions.from_circle(request.circle, edition, "circle")
        except positions.PositionError as e:
            raise e.as_bad_request() from None
        record = pb.EngineRecord(edition=edition, circle=state.circle)
    else:
        # The seed rule of a deal: unset means a random one, which the record returns.
        seed = convert.seed(request.seed) if request.HasField("seed") else secrets.randbelow(MAX_SEED)
        state = engine.new_game(seed, edition)
        record = pb.EngineRecord(edition=edition, seed=seed, circle=state.circle)
    return pb.NewGameResponse(state=positions.to_message(state), view=game_view(state), record=record)


def view_position(request: pb.ViewPositionRequest) -> pb.ViewPositionResponse:
    state = request_position(request)
    return pb.ViewPositionResponse(state=positions.to_message(state), view=game_view(state))


def legal_moves(request: pb.LegalMovesRequest) -> pb.LegalMovesResponse:
    patch_id = request.patch_id if request.HasField("patch_id") else None
    if patch_id is not None and not 0 <= patch_id < len(solver.PATCHES):
        raise BadRequest("patch_id", f"unknown patch id {patch_id}; standard ids are 0-{len(solver.PATCHES) - 1}")
    actions = request_position(request).legal_actions()
    if patch_id is not None:
        actions = [a for a in actions if isinstance(a, Buy) and a.patch_id == patch_id]
    return pb.LegalMovesResponse(actions=[a.to_str() for a in actions], count=len(actions))


def apply_move(request: pb.ApplyMoveRequest) -> pb.ApplyMoveResponse:
    state = _playable(request_position(request))
    if not request.move:
        raise BadRequest("move", "required: the move's text form (\"advance\", \"buy 5 0,0;0,1;1,1\", ...)")
    after = state.clone()
    try:
        action = engine.parse_action(request.move[:MAX_MOVE_TEXT])
        after.apply_action(action)
    except ValueError as e:  # ActionSyntaxError, IllegalActionError
        raise BadRequest("move", str(e)) from None
    return pb.ApplyMoveResponse(player=state.current_player(), move=move_message(action),
                                state=positions.to_message(after), view=game_view(after))


def replay_game(request: pb.ReplayGameRequest) -> pb.ReplayGameResponse:
    if not request.HasField("record"):
        raise BadRequest("record", "required: the game (GameRecord)")
    out = pb.ReplayGameResponse(record=engine_record(request.record))
    after = None
    for i, (before, action) in enumerate(record_plies(request.record, "record")):   # at least one move
        out.views.append(game_view(before))
        out.plies.add(ply=i, player=before.current_player(), move=move_message(action))
        after = before.clone()
        after.apply_action(action)
    assert after is not None
    out.views.append(game_view(after))
    return out


def load_position(request: pb.LoadPositionRequest) -> pb.LoadPositionResponse:
    text = request.text.strip()
    if len(text) > MAX_LOAD_TEXT:
        raise BadRequest("text", f"{len(text)} characters; at most {MAX_LOAD_TEXT}")
    if not text:
        raise BadRequest("text", "empty: paste a position (notation or state JSON) or a game record")
    try:
        if not text.startswith("{"):
            return _loaded("notation", positions.from_notation(text, "text"))
        obj = _json_object(text)
        if "actions" in obj:  # a game record (a state has no actions)
            return _load_record(obj, request)
        kind = "state" if positions.is_mapping(obj) else "state_json"
        return _loaded(kind, positions.load(obj, "text"))
    except (positions.PositionError, records.RecordError) as e:
        raise e.as_bad_request() from None


def _json_object(text: str) -> dict:
    # (a JSON-lines file of records: its first line)
    obj = positions.json_value(text, "text", limit=MAX_LOAD_TEXT, first_line=True)
    if not isinstance(obj, dict):
        raise BadRequest("text", "must be a JSON object")
    return obj


def _load_record(obj: dict, request: pb.LoadPositionRequest) -> pb.LoadPositionResponse:
    record = records.from_json(obj, "text")
    plies = request.plies if request.HasField("plies") else None
    if plies is not None and not 0 <= plies <= len(record.actions):
        raise BadRequest("plies", f"{plies}; the record has {len(record.actions)} moves")
    state = records.final(record, "text", upto=plies)
    out = _loaded("record", state)
    out.record.CopyFrom(engine_record(record, records.seed_of(obj), plies))
    return out


def _loaded(kind: str, state: engine.GameState) -> pb.LoadPositionResponse:
    return pb.LoadPositionResponse(kind=kind, state=positions.to_message(state), view=game_view(state))


def position_notation(request: pb.PositionNotationRequest) -> pb.PositionNotationResponse:
    return pb.PositionNotationResponse(notation=positions.to_notation(request_position(request)))


GAME_RPCS: dict[str, Callable[[Any], Any]] = {
    "NewGame": new_game,
    "ViewPosition": view_position,
    "LegalMoves": legal_moves,
    "ApplyMove": apply_move,
    "ReplayGame": replay_game,
    "LoadPosition": load_position,
    "PositionNotation": position_notation,
}
"""The GameService RPCs answered in the front, by name (EngineMove: :class:`GameServicer`)."""


# ---------------------------------------------------------------- EngineMove

@dataclass(frozen=True)
class FrontMove:
    """An engine move chosen in the front: a quick player (random, greedy) and its seed."""

    state: engine.GameState
    player: str
    seed: int


def plan_engine_move(request: pb.EngineMoveRequest) -> Plan[MovesResult] | Plan[engine.Action] | FrontMove:
    """A search strength as SuggestMove's job (top 1, its limits, its seed rule: unset is 0), a level as a
    :class:`server.jobs.LevelMoveJob` (an iteration budget: the limits of ``search:Nit``, the same seed
    rule), or a quick player's move to choose in the front."""
    strength = parse_strength(request.strength)
    seed = convert.seed(request.seed)
    state = _playable(request_position(request))
    if strength.level is not None:
        return Plan(LevelMoveJob(state, strength.level, seed), DEFAULT_ITERATIONS_LIMIT, "state", notes=state)
    if strength.name != "search":
        return FrontMove(state, strength.name, seed)
    limit = strength.time_limit if strength.time_limit is not None else DEFAULT_ITERATIONS_LIMIT
    job = moves_job(state, "state", top=1, seed=seed, iterations=strength.iterations)
    return Plan(job, limit, "state", notes=state)


def answer_engine_move(request: pb.EngineMoveRequest, state: engine.GameState, action: engine.Action,
                       win_chance: float | None) -> pb.EngineMoveResponse:
    player = state.current_player()
    after = state.clone()
    after.apply_action(action)
    out = pb.EngineMoveResponse(player=player, strength=request.strength, move=move_message(action),
                                state=positions.to_message(after), view=game_view(after))
    if win_chance is not None:
        out.win_chance = out.value = float(win_chance)
    return out


class GameServicer:
    """The GameService: :data:`GAME_RPCS` in the front, EngineMove's search through the core."""

    def __init__(self, core: JobRunner) -> None:
        self.core = core

    def handler(self, name: str) -> Callable[[Any, Call], Any]:
        if name == "EngineMove":
            return self.engine_move
        answer = GAME_RPCS[name]
        return lambda request, call: answer(request)

    def engine_move(self, request: pb.EngineMoveRequest, call: Call) -> pb.EngineMoveResponse:
        plan = plan_engine_move(request)
        if isinstance(plan, FrontMove):
            return answer_engine_move(request, plan.state, make_player(plan.player, plan.seed).choose(plan.state),
                                      None)
        job = plan.job
        if isinstance(job, LevelMoveJob):
            action = self.core.run_job(call, job, plan.limit, plan.field)
            call.record.extra.update({"strength": request.strength})
            return answer_engine_move(request, plan.notes, action, None)
        assert isinstance(job, MovesJob)
        moves = self.core.run_job(call, job, plan.limit, plan.field).moves
        if not moves:
            raise FailedPrecondition("state: the engine found no move")
        call.record.extra.update({"strength": request.strength})
        return answer_engine_move(request, plan.notes, moves[0].action, moves[0].win_chance)
