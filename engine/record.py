"""Game records: one JSON object per game that any Patchwork engine can replay.

    {"edition": "revised", "seed": 7,
     "circle": [ids clockwise from the token, patch 0 last],
     "actions": ["buy 21 1,1;2,0;2,1;2,2;3,1", "advance", "leather 3,4", ...],
     "result": {"scores": [s0, s1], "buttons": [b0, b1], "empty": [e0, e1],
                "bonus": 0 | 1 | null, "winner": 0 | 1}}

Player 0 moves first. ``seed`` only says where the record came from; the
game is set up from ``circle``. ``result`` may also hold ``positions``.
"""

from __future__ import annotations

from typing import Iterable

from .actions import Action, ActionSyntaxError, parse_action
from .state import GameState, IllegalActionError
from .track import EDITIONS


class RecordError(ValueError):
    """A game record that is malformed, has an illegal action or a different result."""


def result_of(state: GameState) -> dict:
    """The ``result`` object of a finished game."""
    p0, p1 = state.players
    return {
        "scores": list(state.scores()),
        "buttons": [p0.buttons, p1.buttons],
        "empty": [p0.empty, p1.empty],
        "bonus": state.bonus_owner,
        "winner": state.winner(),
    }


def make_record(initial: GameState, actions: Iterable[Action | str], final: GameState, seed=None) -> dict:
    """The record of a game played from ``initial`` (a starting position) to ``final``."""
    return {
        "edition": initial.edition,
        "seed": seed,
        "circle": initial.circle,
        "actions": [a if isinstance(a, str) else a.to_str() for a in actions],
        "result": result_of(final),
    }


def _setup(record) -> GameState:
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, not {type(record).__name__}")
    unknown = set(record) - {"edition", "seed", "circle", "actions", "result", "players"}
    if unknown:
        raise RecordError(f"{sorted(unknown)[0]}: unknown field")
    edition = record.get("edition", "revised")
    if edition not in EDITIONS:
        raise RecordError(f"edition: must be one of {', '.join(EDITIONS)}, not {edition!r}")
    circle = record.get("circle")
    if not isinstance(circle, list):
        raise RecordError("circle: must be a list of patch ids")
    try:
        state = GameState.from_circle(circle, edition)
    except ValueError as e:
        raise RecordError(f"circle: {e}") from None
    if not isinstance(record.get("actions"), list):
        raise RecordError("actions: must be a list of action strings")
    return state


def replay(record: dict, check_result: bool = True) -> GameState:
    """Play a record's actions from its circle and return the final state.

    Raises RecordError naming the first malformed field, illegal action
    (``actions[12] 'buy 3 ...': <rule>``) or result that differs.
    """
    state = _setup(record)
    for i, text in enumerate(record["actions"]):
        try:
            action = parse_action(text)
            state.apply_action(action)
        except (ActionSyntaxError, IllegalActionError) as e:
            raise RecordError(f"actions[{i}] {text!r}: {e}") from None
    if check_result and "result" in record:
        want = record["result"]
        if not isinstance(want, dict):
            raise RecordError("result: must be an object")
        if not state.is_terminal():
            raise RecordError(f"result: the game is not over after {len(record['actions'])} actions")
        got = result_of(state)
        got["positions"] = [state.players[0].position, state.players[1].position]
        for key, value in want.items():
            if key not in got:
                raise RecordError(f"result.{key}: unknown field")
            if value != got[key]:
                raise RecordError(f"result.{key}: record says {value!r}, replay gives {got[key]!r}")
    return state
