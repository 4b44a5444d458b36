"""Game records: one JSON object per game that any Patchwork engine can replay.

    {"edition": "revised", "seed": 7,
     "circle": [ids clockwise from the token, patch 0 last],
     "actions": ["buy 21 1,1;2,0;2,1;2,2;3,1", "advance", "leather 3,4", ...],
     "result": {"scores": [s0, s1], "buttons": [b0, b1], "empty": [e0, e1],
                "bonus": 0 | 1 | null, "winner": 0 | 1}}

Player 0 moves first. ``seed`` only says where the record came from; the
game is set up from ``circle``. ``result`` may also hold ``positions``.

**Evaluations** (an optional extension, written by ``suggest review --save``
and the web app's review): ``"evaluations": [{"ply": 0, "player": 0,
"best": "advance", "value_played": 0.52, "value_best": 0.55, "loss": 0.03,
"label": null, "loss_points": null}, ...]``, at most one entry per action,
in the order of the actions: the review of ``actions[ply]`` (win chances
0-1 for the mover, ``label`` null or ``"inaccuracy"``, ``"mistake"``,
``"blunder"``; ``loss_points`` null unless proven). Replay checks its form
and that ``ply``, ``player`` and ``best`` fit the game
(:func:`check_evaluations`); it does not recompute the values.

Every ``RecordError`` is one line naming the field, quoting the record's
text cut short (``engine.state_json.quote``).
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from .actions import Action, ActionSyntaxError, parse_action
from .errors import FieldError
from .state import N_PATCHES, GameState, IllegalActionError
from .state_json import check_fields, quote
from .track import EDITIONS

RECORD_FIELDS = ("edition", "seed", "circle", "actions", "result", "players", "evaluations")
EVALUATION_FIELDS = ("ply", "player", "best", "value_played", "value_best", "loss", "label", "loss_points")
"""The fields of one entry of a record's ``evaluations`` (all required; ``label`` and ``loss_points`` may be null)."""
LABELS = ("inaccuracy", "mistake", "blunder")
RESULT_FIELDS = ("scores", "buttons", "empty", "bonus", "winner")
"""The fields a record's ``result`` must hold; ``positions`` may be given too."""
MAX_ACTIONS = 10_000
"""No game has more than a few hundred actions."""


class RecordError(FieldError):
    """A game record that is malformed, has an illegal action or a different result."""


def result_of(state: GameState) -> dict[str, Any]:
    """The ``result`` object of a finished game."""
    p0, p1 = state.players
    return {
        "scores": list(state.scores()),
        "buttons": [p0.buttons, p1.buttons],
        "empty": [p0.empty, p1.empty],
        "bonus": state.bonus_owner,
        "winner": state.winner(),
    }


def make_record(initial: GameState, actions: Iterable[Action | str], final: GameState, seed: Any = None) -> dict[str, Any]:
    """The record of a game played from ``initial`` (a starting position) to ``final``."""
    return {
        "edition": initial.edition,
        "seed": seed,
        "circle": initial.circle,
        "actions": [a if isinstance(a, str) else a.to_str() for a in actions],
        "result": result_of(final),
    }


def check_metadata(record: dict[str, Any]) -> None:
    """The form of a record's ``seed`` and ``players``, which no replay needs (RecordError naming the
    field); every reader of records checks them here (``server.records`` too)."""
    seed = record.get("seed")
    if seed is not None and type(seed) is not int and type(seed) is not str:
        raise RecordError("seed", f"must be an integer, a string or null, got {quote(seed)}")
    players = record.get("players")
    if players is not None and (not isinstance(players, list) or len(players) != 2
                                or not all(type(p) is str for p in players)):
        raise RecordError("players", f"must be the two player specs (strings), got {quote(players, 40)}")


def _setup(record: Any) -> GameState:
    if not isinstance(record, dict):
        raise RecordError("", f"a record is a JSON object, got {quote(record)}")
    check_fields(record, "", (), optional=RECORD_FIELDS, error=RecordError)   # every field is optional here
    edition = record.get("edition", "revised")
    if type(edition) is not str or edition not in EDITIONS:
        raise RecordError("edition", f"must be one of {', '.join(EDITIONS)}, got {quote(edition)}")
    check_metadata(record)
    circle = record.get("circle")
    if not isinstance(circle, list) or len(circle) != N_PATCHES:
        raise RecordError("circle", f"must be a list of the {N_PATCHES} patch ids, got {quote(circle, 40)}")
    for i, x in enumerate(circle):
        if type(x) is not int:
            raise RecordError(f"circle[{i}]", f"must be a patch id 0-{N_PATCHES - 1}, got {quote(x)}")
    try:
        state = GameState.from_circle(circle, edition)
    except ValueError as e:
        raise RecordError("circle", str(e)) from None
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise RecordError("actions", f"must be a list of action strings, got {quote(actions, 40)}")
    if len(actions) > MAX_ACTIONS:
        raise RecordError("actions", f"at most {MAX_ACTIONS}, got {len(actions)}")
    return state


def _check_result_shape(record: dict[str, Any]) -> dict[str, Any]:
    if "result" not in record:
        raise RecordError("result", "missing; a record holds a finished game and its result")
    want: dict[str, Any] = record["result"]
    check_fields(want, "result", RESULT_FIELDS, optional=("positions",), error=RecordError)
    return want


def _check_evaluation_shapes(record: dict[str, Any]) -> list[dict[str, Any]]:
    evals = record.get("evaluations")
    if evals is None:
        return []
    if not isinstance(evals, list) or len(evals) > len(record["actions"]):
        raise RecordError("evaluations", f"must be a list of at most one entry per action, got {quote(evals, 40)}")
    for i, e in enumerate(evals):
        where = f"evaluations[{i}]"
        check_fields(e, where, EVALUATION_FIELDS, error=RecordError)
        ply = e["ply"]
        if type(ply) is not int or not 0 <= ply < len(record["actions"]) or (i and ply <= evals[i - 1]["ply"]):
            raise RecordError(f"{where}.ply", "must be the index of an action, after the previous entry's, "
                              f"got {quote(ply)}")
        if e["player"] not in (0, 1) or type(e["player"]) is not int:
            raise RecordError(f"{where}.player", f"must be 0 or 1, got {quote(e['player'])}")
        for key in ("value_played", "value_best", "loss"):
            v = e[key]
            if type(v) not in (int, float) or not 0 <= v <= 1:
                raise RecordError(f"{where}.{key}", f"must be a number 0-1, got {quote(v)}")
        if e["label"] is not None and e["label"] not in LABELS:
            raise RecordError(f"{where}.label", f"must be null or one of {', '.join(LABELS)}, got {quote(e['label'])}")
        if e["loss_points"] is not None and (type(e["loss_points"]) is not int or e["loss_points"] < 0):
            raise RecordError(f"{where}.loss_points", f"must be null or an integer >= 0, got {quote(e['loss_points'])}")
        if type(e["best"]) is not str:
            raise RecordError(f"{where}.best", f"must be an action's text, got {quote(e['best'])}")
    return evals


def check_evaluations(record: dict[str, Any]) -> None:
    """Check a record's optional ``evaluations`` (module docstring) against its game: the form of each
    entry, and that ``player`` is the player to move before ``actions[ply]`` and ``best`` a legal move
    there. RecordError names the field."""
    _setup(record)
    evals = _check_evaluation_shapes(record)
    if not evals:
        return
    by_ply = {e["ply"]: (i, e) for i, e in enumerate(evals)}
    for ply, before, _action in replay_steps(record):
        if ply not in by_ply:
            continue
        i, e = by_ply[ply]
        if e["player"] != before.current_player():
            raise RecordError(f"evaluations[{i}].player", f"{e['player']}, but player {before.current_player()} "
                              f"makes actions[{ply}]")
        try:
            best = parse_action(e["best"])
            before.apply_action(best)
        except (ActionSyntaxError, IllegalActionError) as err:
            raise RecordError(f"evaluations[{i}].best", f"{quote(e['best'], 60)}: {err}") from None


def replay_steps(record: dict[str, Any]) -> Iterator[tuple[int, GameState, Action]]:
    """``(i, state, action)`` for each action of a record: the position before
    ``actions[i]`` (a copy) and that action. The result is not checked, so
    unfinished games are fine; RecordError for a malformed record or the
    first illegal or unparsable action."""
    state = _setup(record)
    for i, text in enumerate(record["actions"]):
        before = state.clone()
        action = _apply(state, i, text)
        yield i, before, action


def _apply(state: GameState, i: int, text: Any) -> Action:
    try:
        action = parse_action(text)
        state.apply_action(action)
    except (ActionSyntaxError, IllegalActionError) as e:
        raise RecordError(f"actions[{i}]", f"{quote(text, 60)}: {e}") from None
    return action


def _same(a: Any, b: Any) -> bool:
    """Equal JSON values, ints never equal to floats or bools (``1.0`` and ``true`` are not ``1``)."""
    if isinstance(b, list):
        return isinstance(a, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def replay(record: dict[str, Any], check_result: bool = True) -> GameState:
    """Play a record's actions from its circle and return the final state.

    Raises RecordError naming the first malformed field, illegal action
    (``actions[12] "buy 3 ...": <rule>``), unfinished game or result that
    differs, or a malformed ``evaluations`` entry (:func:`check_evaluations`).
    With ``check_result=False`` the record needs no result and may stop
    anywhere.
    """
    state = _setup(record)
    want = _check_result_shape(record) if check_result else None
    for i, text in enumerate(record["actions"]):
        _apply(state, i, text)
    if "evaluations" in record:
        check_evaluations(record)
    if want is not None:
        if not state.is_terminal():
            n = len(record["actions"])
            raise RecordError("actions", f"the game is not over after {n} action{'s' if n != 1 else ''}; "
                              f"a record holds a finished game")
        got = result_of(state)
        got["positions"] = [state.players[0].position, state.players[1].position]
        for key, value in want.items():
            if not _same(value, got[key]):
                raise RecordError(f"result.{key}", f"record says {quote(value, 40)}, replay gives {quote(got[key])}")
    return state
