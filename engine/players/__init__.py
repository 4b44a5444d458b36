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
- ``search-v1[:S]``, ``search-v1:Nit`` — :class:`SearchPlayerV1`
  (``engine.players.search_v1``): the pure-Python search of 0.2, for comparisons.
- ``service[:S]`` — :class:`ServicePlayer` (``engine.players.service``):
  plays the top move of :func:`engine.suggest.suggest_moves`.

Other modules add players with ``register_player(name, factory)`` where
``factory(arg, seed, advisor) -> Player``; ``make_player("name:arg", seed)``
builds one.

>>> make_player("greedy", 0).name
'greedy'
>>> make_player("nope", 0)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown player 'nope'; known: ...greedy...random, search, search-v1, service...
"""

from __future__ import annotations

import warnings

from ..advisor import Advisor
from ..board import contacts as _contacts
from .base import Factory, PerGame, Player
from ..policy import greedy_rate, greedy_value
from .greedy import GreedyPlayer
from .mcts import MCTSPlayer, make_mcts
from .random_player import RandomPlayer, game_seed
from .search import SearchPlayer, make_search
from .search_v1 import SearchPlayerV1, make_search_v1
from .service import ServicePlayer, make_service

__all__ = [
    "Factory", "GreedyPlayer", "MCTSPlayer", "PerGame", "Player", "RandomPlayer", "SearchPlayer", "SearchPlayerV1",
    "ServicePlayer",
    "game_seed", "greedy_rate", "greedy_value", "known_players", "make_player", "register_player",
]

_REGISTRY: dict[str, Factory] = {}


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
        raise ValueError(f"unknown player {name!r}; known: {', '.join(sorted(_REGISTRY))}")
    return factory(arg or None, seed, advisor)


def contacts(mask: int, board: int) -> int:
    """Deprecated (0.2.0): use ``engine.board.contacts(board, mask)`` — note the argument order."""
    warnings.warn("engine.players.contacts(mask, board) is deprecated; use engine.board.contacts(board, mask) "
                  "(board first)", DeprecationWarning, stacklevel=2)
    return _contacts(board, mask)


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
register_player("search-v1", make_search_v1)
register_player("service", make_service)
