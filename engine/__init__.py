"""The Patchwork game engine: rules, state, actions, records and players.

>>> s = new_game(1)
>>> s.apply_action(parse_action("advance"))
>>> GameState.from_json(s.to_json()) == s
True
>>> GameState.from_notation(s.to_notation()) == s
True
"""

from .actions import ADVANCE, Action, ActionSyntaxError, Advance, Buy, Mask, PlaceLeather, parse_action  # noqa: F401
from .notation import NotationError  # noqa: F401
from .record import RecordError, make_record, replay, replay_steps, result_of  # noqa: F401
from .state import GameState, IllegalActionError, PlayerState, StateError, new_game  # noqa: F401
from .track import DEFAULT_EDITION, EDITIONS, END  # noqa: F401

__all__ = [
    "ADVANCE", "Action", "ActionSyntaxError", "Advance", "Buy", "DEFAULT_EDITION", "EDITIONS", "END",
    "GameState", "IllegalActionError", "Mask", "NotationError", "PlaceLeather", "PlayerState", "RecordError",
    "StateError", "make_record", "new_game", "parse_action", "replay", "replay_steps", "result_of",
]
