"""The Patchwork game engine: rules, state, actions, records and players.

>>> s = new_game(1)
>>> s.apply_action(parse_action("advance"))
>>> GameState.from_json(s.to_json()) == s
True
>>> GameState.from_notation(s.to_notation()) == s
True
>>> make_player("greedy", 0).choose(s) in s.legal_actions()
True
"""

# The rooms below the players first, so that none of them loads while engine/players/__init__ is half run.
from . import core, policy  # noqa: F401
from .actions import ADVANCE, Action, ActionSyntaxError, Advance, Buy, Mask, PlaceLeather, parse_action  # noqa: F401
from .advisor import Advisor, LocalAdvisor, PluginError, SolverAdvisor  # noqa: F401
from .notation import NotationError  # noqa: F401
from .players import (  # noqa: F401
    GreedyPlayer, MCTSPlayer, Player, RandomPlayer, SearchPlayer, ServicePlayer, known_players, make_player,
    register_player,
)
from .players.search import SearchResult, search_moves, warm_up  # noqa: F401
from .record import RecordError, make_record, replay, replay_steps, result_of  # noqa: F401
from .state import GameState, IllegalActionError, PlayerState, StateError, new_game  # noqa: F401
from .suggest import MoveSuggestion, suggest_moves  # noqa: F401
from .track import DEFAULT_EDITION, EDITIONS, END  # noqa: F401

__all__ = [
    "ADVANCE", "Action", "ActionSyntaxError", "Advance", "Advisor", "Buy", "DEFAULT_EDITION", "EDITIONS", "END",
    "GameState", "GreedyPlayer", "IllegalActionError", "LocalAdvisor", "MCTSPlayer", "Mask", "MoveSuggestion",
    "NotationError", "PlaceLeather", "Player", "PlayerState", "PluginError", "RandomPlayer", "RecordError",
    "SearchPlayer", "SearchResult", "ServicePlayer", "SolverAdvisor", "StateError", "known_players",
    "make_player", "make_record", "new_game", "parse_action", "register_player", "replay", "replay_steps",
    "result_of", "search_moves", "suggest_moves", "warm_up",
]
