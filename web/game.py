"""The browser app's helper endpoints: thin over :mod:`engine` (and the core for the search player).

Positions travel as the protobuf JSON mapping of ``patchwork.v1.GameState``
(boards as 9 row strings, so no number exceeds 2^53 and JavaScript can read
them): exactly what ``/api/v1/suggest-move`` takes as ``state``. Each answer
that returns a position also returns its :func:`view`, everything the page
draws (scores so far, the three patches in front of the token and whether
the player to move can buy them, where advancing would go, the leather
patches left on the track, the result once the game is over).

Each function takes the JSON body and the :class:`server.core.Call` and
returns the JSON answer; bad input raises :class:`server.errors.BadRequest`
naming the field.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any, Callable

from quiltsolve import engine
from quiltsolve import solver
from quiltsolve.engine.actions import Buy
from quiltsolve.engine.players import make_player
from quiltsolve.engine.track import END, INCOME_SPACES, LEATHER_SPACES
from quiltsolve.solver.limits import MAX_TIME_LIMIT
from quiltsolve.patchwork.v1 import placement_pb2 as pb
from quiltsolve.server import positions, protojson, records
from quiltsolve.server.core import Call
from quiltsolve.server.errors import GAME_OVER, BadRequest, FailedPrecondition
from quiltsolve.server.positions import move_message
from quiltsolve.server.service import moves_job, record_plies

STRENGTHS = ("random", "greedy", "search:SECONDS", "search:Nit")
MIN_SEARCH_SECONDS = 0.05
MAX_SEARCH_SECONDS = 10.0
MAX_SEARCH_ITERATIONS = 20_000
MAX_SEED = 2**31 - 1
MAX_TEXT = 32 * 1024
MAX_MOVE_TEXT = 2000  # characters of a move's text form that are read


# ---------------------------------------------------------------- input

def fields(data: Any, allowed: dict[str, tuple[type, ...]], required: tuple[str, ...] = ()) -> dict:
    """``data`` as a dict with only ``allowed`` keys of the given JSON types; BadRequest naming the field.

    An integer may be written as a whole JSON number with a fraction or exponent (``7.0``, ``7e0``),
    as in JSON Schema and the protobuf JSON mapping; it comes back as an ``int``.

    >>> fields({"seed": 7.0}, {"seed": (int,)})
    {'seed': 7}
    """
    if not isinstance(data, dict):
        raise BadRequest("body", f"must be a JSON object, not {type(data).__name__}")
    for key, value in list(data.items()):
        if key not in allowed:
            raise BadRequest(str(key), f"unknown field; expected {', '.join(allowed)}")
        kinds = allowed[key]
        if value is None:
            continue
        if type(value) is float and int in kinds and float not in kinds and value.is_integer():
            value = data[key] = int(value)
        if isinstance(value, bool) and bool not in kinds:
            raise BadRequest(key, f"must be {_kinds(kinds)}, got {json.dumps(value)}")
        if not isinstance(value, kinds):
            raise BadRequest(key, f"must be {_kinds(kinds)}, got {type(value).__name__}")
    for key in required:
        if data.get(key) is None:
            raise BadRequest(key, "required")
    return data


def _kinds(kinds: tuple[type, ...]) -> str:
    names = {dict: "an object", list: "a list", str: "a string", int: "an integer", bool: "a boolean",
             float: "a number"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _seed(data: dict, key: str = "seed") -> int:
    value = data.get(key)
    if value is None:
        return secrets.randbelow(MAX_SEED)
    if not 0 <= value <= MAX_SEED:
        raise BadRequest(key, f"{value}; must be 0-{MAX_SEED}")
    return value


def state_of(value: Any, field: str = "state") -> engine.GameState:
    """A position from its GameState JSON mapping (what this API returns); BadRequest naming the field."""
    if value is None:
        raise BadRequest(field, "required: the position (a GameState as this API returns it)")
    try:
        return positions.from_mapping(value, field)
    except positions.PositionError as e:
        raise e.as_bad_request() from None


def state_dict(state: engine.GameState) -> dict:
    return positions.to_mapping(state)


def notation_of(state: engine.GameState) -> str:
    """The engine's one-line position notation."""
    return positions.to_notation(state)


# ---------------------------------------------------------------- the view

def view(state: engine.GameState) -> dict:
    """What the page draws for ``state``."""
    over = state.is_terminal()
    cur = state.current_player()
    me, other = state.players[cur], state.players[1 - cur]
    pending = state.leather_to_place
    players = []
    for p in state.players:
        players.append({"rows": solver.board_to_rows(p.board), "buttons": p.buttons, "position": p.position,
                        "income": p.income, "patches": list(p.patches), "leather": p.leather,
                        "bonus": p.bonus, "empty": p.empty, "score": p.score()})
    buyable = set(state.buyable_patches())
    available = []
    for slot, pid in enumerate(state.available_patches()):
        patch = solver.PATCHES[pid]
        affordable = patch.buttons <= me.buttons
        available.append({"slot": slot + 1, "id": pid, "buttons": patch.buttons, "time": patch.time,
                          "income": patch.income, "affordable": affordable, "buyable": pid in buyable,
                          "placements": len(state.placements(pid)) if affordable and not over else 0})
    target = min(other.position + 1, END)
    out = {
        "edition": state.edition,
        "players": players,
        "current_player": cur,
        "leather_to_place": pending,
        "terminal": over,
        "circle": state.circle,
        "available": available,
        "advance": None if over or pending else {"to": target, "buttons": max(0, target - me.position)},
        "leather_spaces": list(state.leather),
        "leather_track": list(LEATHER_SPACES[state.edition]),
        "income_spaces": list(INCOME_SPACES),
        "end": END,
        "bonus_owner": state.bonus_owner,
        "first_to_end": state.first_to_end,
        "scores": list(state.scores()),
        "winner": state.winner(),
        "notation": notation_of(state),
    }
    if over:
        out["result"] = engine.result_of(state)
    return out


def answer(state: engine.GameState) -> dict:
    return {"state": state_dict(state), "view": view(state)}


# ---------------------------------------------------------------- records

def _record(value: Any, field: str = "record") -> pb.GameRecord:
    """A GameRecord from either JSON form, through the record codec (one rule for every face)."""
    try:
        return records.from_json(value, field)
    except records.RecordError as e:
        raise e.as_bad_request() from None


# ---------------------------------------------------------------- endpoints

# Each helper is a typed request read (and checked) by one ``parse`` from the JSON body, and
# one function that answers it: the endpoint is ``answer(Request.parse(body))``.

@dataclass(frozen=True)
class NewGameRequest:
    """Deal a new game: ``{seed?, edition?}`` (no seed: a random one, returned in the record)."""

    seed: int
    edition: str

    @classmethod
    def parse(cls, data: Any) -> "NewGameRequest":
        data = fields(data if data is not None else {}, {"seed": (int,), "edition": (str,)})
        edition = data.get("edition") or engine.DEFAULT_EDITION
        if edition not in engine.EDITIONS:
            raise BadRequest("edition", f"{json.dumps(edition)[:40]}; expected one of {', '.join(engine.EDITIONS)}")
        return cls(seed=_seed(data), edition=edition)


@dataclass(frozen=True)
class StateRequest:
    """A request that carries one position: ``{state}``."""

    state: engine.GameState

    @classmethod
    def parse(cls, data: Any) -> "StateRequest":
        data = fields(data, {"state": (dict,)}, required=("state",))
        return cls(state=state_of(data["state"]))


@dataclass(frozen=True)
class LegalRequest:
    """The legal moves of a position, of one patch only with ``patch_id``: ``{state, patch_id?}``."""

    state: engine.GameState
    patch_id: int | None

    @classmethod
    def parse(cls, data: Any) -> "LegalRequest":
        data = fields(data, {"state": (dict,), "patch_id": (int,)}, required=("state",))
        pid = data.get("patch_id")
        if pid is not None and not 0 <= pid < len(solver.PATCHES):
            raise BadRequest("patch_id", f"unknown patch id {pid}; standard ids are 0-{len(solver.PATCHES) - 1}")
        return cls(state=state_of(data["state"]), patch_id=pid)


@dataclass(frozen=True)
class ApplyRequest:
    """A move played in a position: ``{state, move}`` (the move's text form), checked legal by playing it."""

    state: engine.GameState
    action: engine.Action
    after: engine.GameState

    @classmethod
    def parse(cls, data: Any) -> "ApplyRequest":
        data = fields(data, {"state": (dict,), "move": (str,)}, required=("state", "move"))
        state = state_of(data["state"])
        if state.is_terminal():
            raise FailedPrecondition(f"state: {GAME_OVER}")
        after = state.clone()
        try:
            action = engine.parse_action(data["move"][:MAX_MOVE_TEXT])
            after.apply_action(action)
        except ValueError as e:  # ActionSyntaxError, IllegalActionError
            raise BadRequest("move", str(e)) from None
        return cls(state=state, action=action, after=after)


def answer_new_game(req: NewGameRequest) -> dict:
    state = engine.new_game(req.seed, req.edition)
    return {**answer(state), "record": {"edition": req.edition, "seed": req.seed, "circle": state.circle,
                                        "actions": []}}


def answer_legal(req: LegalRequest) -> dict:
    actions = req.state.legal_actions()
    if req.patch_id is not None:
        actions = [a for a in actions if isinstance(a, Buy) and a.patch_id == req.patch_id]
    texts = [a.to_str() for a in actions]
    return {"actions": texts, "count": len(texts)}


def answer_apply(req: ApplyRequest) -> dict:
    return {"player": req.state.current_player(), "move": protojson.to_dict(move_message(req.action)),
            **answer(req.after)}


def new_game(data: Any, call: Call) -> dict:
    """``{seed?, edition?}`` → a new game: ``{state, view, record}``."""
    return answer_new_game(NewGameRequest.parse(data))


def load(data: Any, call: Call) -> dict:
    """``{text}``: a position as notation, engine state JSON, GameState JSON, or a game record.

    A record is played to its end (or to ``plies`` moves). Returns
    ``{kind, state, view}`` plus ``record`` for a record.
    """
    data = fields(data, {"text": (str,), "plies": (int,)}, required=("text",))
    text = data["text"].strip()
    if len(text) > MAX_TEXT:
        raise BadRequest("text", f"{len(text)} characters; at most {MAX_TEXT}")
    if not text:
        raise BadRequest("text", "empty: paste a position (notation or state JSON) or a game record")
    if text.startswith("{"):
        first = text.splitlines()[0] if "\n" in text else text
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            try:
                obj = json.loads(first)  # a JSON-lines file: its first record
            except json.JSONDecodeError as e:
                raise BadRequest("text", f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
        except RecursionError:
            raise BadRequest("text", "not valid JSON: nested too deeply") from None
        if not isinstance(obj, dict):
            raise BadRequest("text", "must be a JSON object")
        if "actions" in obj:  # a game record (a state has no actions)
            record = _record(obj, "text")
            plies = data.get("plies")
            if plies is not None and not 0 <= plies <= len(record.actions):
                raise BadRequest("plies", f"{plies}; the record has {len(record.actions)} moves")
            try:
                state = records.final(record, "text", upto=plies)
            except records.RecordError as e:
                raise e.as_bad_request() from None
            seed = records.seed_of(obj)
            rec = records.to_json(record, seed if isinstance(seed, int) else None)
            rec["actions"] = rec["actions"][:plies] if plies is not None else rec["actions"]
            return {"kind": "record", **answer(state), "record": rec}
        kind = "state" if positions.is_mapping(obj) else "state_json"
        try:
            return {"kind": kind, **answer(positions.load(obj, "text"))}
        except positions.PositionError as e:
            raise e.as_bad_request() from None
    try:
        state = positions.from_notation(text, "text")
    except positions.PositionError as e:
        raise e.as_bad_request() from None
    return {"kind": "notation", **answer(state)}


def show(data: Any, call: Call) -> dict:
    """``{state}`` → ``{state, view}`` (the position checked and normalised)."""
    return answer(StateRequest.parse(data).state)


def legal(data: Any, call: Call) -> dict:
    """``{state, patch_id?}`` → ``{actions, count}``: every legal move's text, in the engine's order."""
    return answer_legal(LegalRequest.parse(data))


def apply(data: Any, call: Call) -> dict:
    """``{state, move}`` → ``{player, move, state, view}`` after the move (its text form)."""
    return answer_apply(ApplyRequest.parse(data))


def parse_strength(text: str) -> tuple[str, float | None, int | None]:
    """``("random"|"greedy", None, None)`` or ``("search", seconds, iterations)``."""
    name, _, arg = text.strip().partition(":")
    if name in ("random", "greedy") and not arg:
        return name, None, None
    if name == "search":
        arg = arg.strip().lower() or "1"
        try:
            if arg.endswith("it"):
                n = int(arg[:-2])
                if 1 <= n <= MAX_SEARCH_ITERATIONS:
                    return "search", None, n
            else:
                seconds = float(arg)
                if MIN_SEARCH_SECONDS <= seconds <= MAX_SEARCH_SECONDS:
                    return "search", seconds, None
        except ValueError:
            pass
    raise BadRequest("strength", f"{json.dumps(text)[:40]}; expected random, greedy, search:SECONDS "
                                 f"({MIN_SEARCH_SECONDS:g}-{MAX_SEARCH_SECONDS:g}) or search:Nit (1-{MAX_SEARCH_ITERATIONS})")


def engine_move(core: Any) -> Callable[[Any, Call], dict]:
    """``{state, strength, seed?}`` → the engine's move for the player to move, applied.

    ``random`` and ``greedy`` answer at once (in the front); ``search:…``
    runs the search player in a worker process (the SuggestMove job), so it
    is admitted, queued and stopped like any expensive call.
    """

    def run(data: Any, call: Call) -> dict:
        data = fields(data, {"state": (dict,), "strength": (str,), "seed": (int,)},
                      required=("state", "strength"))
        name, seconds, iterations = parse_strength(data["strength"])
        seed = data.get("seed") or 0
        if not 0 <= seed <= MAX_SEED:
            raise BadRequest("seed", f"{seed}; must be 0-{MAX_SEED}")
        state = state_of(data["state"])
        if state.is_terminal():
            raise FailedPrecondition(f"state: {GAME_OVER}")
        player = state.current_player()
        value = None
        if name == "search":
            limit = seconds if seconds is not None else MAX_TIME_LIMIT
            job = moves_job(state, "state", top=1, seed=seed, iterations=iterations)
            moves = core.run_job(call, job, limit, "state").moves
            if not moves:
                raise FailedPrecondition("state: the engine found no move")
            action, value = moves[0].action, moves[0].win_chance
        else:
            action = make_player(name, seed).choose(state)
        state.apply_action(action)
        out = {"player": player, "strength": data["strength"], "move": protojson.to_dict(move_message(action)),
               **answer(state)}
        if value is not None:
            out["win_chance"] = out["value"] = float(value)   # value: the deprecated name (0.1)
        return out

    return run


def replay(data: Any, call: Call) -> dict:
    """``{record}`` → every position of the game: ``{record, plies: [{ply, player, move}], views}``.

    ``views[i]`` is the position before move ``i`` (``views[n]`` after the
    last); the record may be unfinished.
    """
    data = fields(data, {"record": (dict,)}, required=("record",))
    record = _record(data["record"])
    plies = record_plies(record, "record")
    out_plies, views = [], []
    state: Any = None
    for i, (before, action) in enumerate(plies):
        views.append(view(before))
        out_plies.append({"ply": i, "player": before.current_player(),
                          "move": protojson.to_dict(move_message(action))})
        state = before.clone()
        state.apply_action(action)
    views.append(view(state))
    return {"record": records.to_json(record), "plies": out_plies, "views": views}


def notation(data: Any, call: Call) -> dict:
    """``{state}`` → ``{notation}``."""
    return {"notation": notation_of(StateRequest.parse(data).state)}
