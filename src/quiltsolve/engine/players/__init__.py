"""Players: anything with a ``name`` and ``choose(state) -> Action``, and the registry that builds them.

Built in (one module each in this package):

- ``random`` — :class:`RandomPlayer` (``engine.players.random_player``):
  uniform over *advance* and each available patch it can afford and place,
  then a uniformly random legal placement of that patch (leather: a uniform
  empty cell). It never builds the full legal-action list, so it is fast
  enough for playouts.
- ``greedy`` — :class:`GreedyPlayer` (``engine.players.greedy``): buys the
  patch with the best :func:`greedy_rate` (``engine.policy``) when it beats
  advancing, placed snugly. Deterministic.
- ``mcts[:N]`` — :class:`MCTSPlayer` (``engine.players.mcts``), plain UCT.
- ``search[:S]``, ``search:Nit`` — :class:`SearchPlayer`
  (``engine.players.search``), our strongest player (on the compiled core).
- ``service[:S]`` — :class:`ServicePlayer` (``engine.players.service``):
  plays the top move of :func:`engine.suggest.suggest_moves`.
- ``level:N`` (N = 1 … 8) — :class:`LevelPlayer` (``engine.players.levels``):
  opponents of graded strength with measured ratings (:func:`level_ratings`);
  level 8 is the full search, lower levels search less and choose by a
  seeded softmax among the search's near-best moves.

Other modules add players with ``register_player(name, factory)`` where
``factory(arg, seed, advisor) -> Player``; ``make_player("name:arg", seed)``
builds one. (``search-v1``, the pure-Python search of 0.2, is the bench's
baseline since 0.3.0: ``bench/search_v1.py`` in the repository registers it
when imported; it is not in the installed package.)

>>> make_player("greedy", 0).name
'greedy'
>>> make_player("nope", 0)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown player 'nope'; known: ...greedy...random, search...
"""

from __future__ import annotations

import warnings
from typing import NoReturn

from ..advisor import Advisor
from ..board import contacts as _contacts
from .base import Factory, PerGame, Player
from ..policy import greedy_rate, greedy_value
from .greedy import GreedyPlayer
from .levels import LevelPlayer, level_ratings, make_level
from .mcts import MCTSPlayer, make_mcts
from .random_player import RandomPlayer, game_seed
from .search import SearchPlayer, make_search
from .service import ServicePlayer, make_service

__all__ = [
    "Factory", "GreedyPlayer", "LevelPlayer", "MCTSPlayer", "PerGame", "Player", "RandomPlayer", "SearchPlayer", "ServicePlayer",
    "game_seed", "greedy_rate", "greedy_value", "known_players", "level_ratings", "make_player",
    "register_player",
]

_REGISTRY: dict[str, Factory] = {}
# Specs that left the package, and where they went (said when one is asked for).
_MOVED_PLAYERS = {"search-v1": " (search-v1 moved to the repository's bench in 0.3.0: import bench.search_v1)"}


def register_player(name: str, factory: Factory) -> None:
    """Make ``make_player("name[:arg]", seed, advisor)`` call ``factory(arg, seed, advisor)``."""
    if not name or ":" in name:
        raise ValueError(f"bad player name {name!r}")
    _REGISTRY[name] = factory


def known_players() -> list[str]:
    """The registered player names, sorted."""
    return sorted(_REGISTRY)


def make_player(spec: str, seed: int, advisor: Advisor | None = None) -> Player:
    """Build a player from ``name`` or ``name:arg`` (e.g. ``random``, ``mcts:2000``)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("empty player spec")
    name, _, arg = spec.strip().partition(":")
    factory = _REGISTRY.get(name)
    if factory is None:
        moved = _MOVED_PLAYERS.get(name, "")
        raise ValueError(f"unknown player {name!r}; known: {', '.join(sorted(_REGISTRY))}{moved}")
    return factory(arg or None, seed, advisor)


def contacts(mask: int, board: int) -> int:
    """Deprecated (0.2.0): use ``engine.board.contacts(board, mask)`` — note the argument order."""
    warnings.warn("engine.players.contacts(mask, board) is deprecated; use engine.board.contacts(board, mask) "
                  "(board first)", DeprecationWarning, stacklevel=2)
    return _contacts(board, mask)


def __getattr__(name: str) -> NoReturn:
    # SearchPlayerV1 moved to the bench (bench/search_v1.py) in 0.3.0. The
    # engine never imports the bench (not in the wheel), so no alias: a
    # message that says where it went.
    if name in ("SearchPlayerV1", "search_v1"):
        raise AttributeError(f"engine.players.{name} moved to the repository's bench in 0.3.0: "
                             "use bench.search_v1.SearchPlayerV1 (importing it registers the 'search-v1' spec)")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _no_arg(name: str, arg: str | None) -> None:
    if arg is not None:
        raise ValueError(f"player {name!r} takes no argument (got {name}:{arg})")


def _make_random(arg: str | None, seed: int, advisor: Advisor | None) -> RandomPlayer:
    _no_arg("random", arg)
    return RandomPlayer(seed)


def _make_greedy(arg: str | None, seed: int, advisor: Advisor | None) -> GreedyPlayer:
    _no_arg("greedy", arg)
    return GreedyPlayer()


register_player("random", _make_random)
register_player("greedy", _make_greedy)
register_player("mcts", make_mcts)
register_player("search", make_search)
register_player("service", make_service)
register_player("level", make_level)
