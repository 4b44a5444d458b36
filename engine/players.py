"""Players: anything with a ``name`` and ``choose(state) -> Action``.

Built in:

- ``random`` — ``RandomPlayer(seed)``: picks uniformly among *advance* and
  each available patch it can afford and place, then a uniformly random
  legal placement of that patch (leather: a uniform empty cell). It never
  builds the full legal-action list, so it is fast enough for playouts.
- ``greedy`` — ``GreedyPlayer()``: values each affordable, placeable patch
  at ``2*area + income*payouts_left - cost`` (the score it adds by the end
  if nothing else happens), per space of time it costs. It buys the best
  one when that beats the 1 button per space that advancing pays, and
  places it tightly: the placement touching most covered cells and board
  edges (first in ``PATCH_MASKS`` order on ties). Leather goes to the
  tightest empty cell. Deterministic.

Other modules add players with ``register_player(name, factory)`` where
``factory(arg, seed, advisor) -> Player``; ``make_player("name:arg", seed)``
builds one.

>>> make_player("greedy", 0).name
'greedy'
>>> make_player("nope", 0)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown player 'nope'; known: ...greedy, ...random...
"""

from __future__ import annotations

import importlib
import random
from typing import Callable, Protocol, runtime_checkable

from solver import PATCH_MASKS

from .actions import ADVANCE, LEATHER_ACTIONS, Action, Buy
from .state import AREA, COST, INCOME, TIME, GameState
from .track import BOARD_CELLS, FULL, PAYOUTS_AFTER


@runtime_checkable
class Player(Protocol):
    name: str

    def choose(self, state: GameState) -> Action:
        """The action to play for ``state.current_player()`` (state is not modified)."""
        ...


Factory = Callable[[str | None, int, object], Player]
_REGISTRY: dict[str, Factory] = {}
# Modules that register more players when imported; missing ones are skipped.
_PLUGINS = ("engine.service_player", "engine.mcts", "engine.search")


def register_player(name: str, factory: Factory) -> None:
    """Make ``make_player("name[:arg]", seed, advisor)`` call ``factory(arg, seed, advisor)``."""
    if not name or ":" in name:
        raise ValueError(f"bad player name {name!r}")
    _REGISTRY[name] = factory


def _load_plugins() -> None:
    for mod in _PLUGINS:
        try:
            importlib.import_module(mod)
        except ImportError:
            pass


def known_players() -> list[str]:
    _load_plugins()
    return sorted(_REGISTRY)


def make_player(spec: str, seed: int, advisor=None) -> Player:
    """Build a player from ``name`` or ``name:arg`` (e.g. ``random``, ``mcts:2000``)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("empty player spec")
    name, _, arg = spec.strip().partition(":")
    if name not in _REGISTRY:
        _load_plugins()
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ValueError(f"unknown player {name!r}; known: {', '.join(sorted(_REGISTRY))}")
    return factory(arg or None, seed, advisor)


_ROW0 = (1 << 9) - 1
_ROW8 = _ROW0 << 72
_COL0 = sum(1 << (9 * r) for r in range(9))
_COL8 = _COL0 << 8
_EDGES = (_ROW0, _ROW8, _COL0, _COL8)
_NOT_COL0 = FULL ^ _COL0
_NOT_COL8 = FULL ^ _COL8


def contacts(mask: int, board: int) -> int:
    """Sides of the cells of ``mask`` that touch a covered cell of ``board`` or the board edge.

    >>> contacts(0b11, 0)   # cells 0,0 and 0,1: top edge twice, left edge once
    3
    """
    n = ((mask >> 9) & board).bit_count() + ((mask << 9) & board).bit_count()
    n += (((mask & _NOT_COL0) >> 1) & board).bit_count() + (((mask & _NOT_COL8) << 1) & board).bit_count()
    for e in _EDGES:
        n += (mask & e).bit_count()
    return n


class RandomPlayer:
    """Uniform over advance and each affordable placeable patch, then a uniform placement."""

    name = "random"
    _TRIES = 8

    def __init__(self, seed: int = 0):
        self._rng = random.Random(seed)

    def choose(self, state: GameState) -> Action:
        rand = self._rng.random
        p = state.players[state.current_player()]
        board = p.board
        if state.leather_to_place:
            for _ in range(self._TRIES):
                i = int(rand() * BOARD_CELLS)
                if not board >> i & 1:
                    return LEATHER_ACTIONS[i]
            free = [i for i in range(BOARD_CELLS) if not board >> i & 1]
            return LEATHER_ACTIONS[free[int(rand() * len(free))]]
        options: list[Action] = [ADVANCE]
        buttons = p.buttons
        for pid in state._circle[:3]:
            if COST[pid] > buttons:
                continue
            masks = PATCH_MASKS[pid]
            n = len(masks)
            # Rejection sampling: the first random mask that fits is a uniform
            # legal placement; only on a crowded board scan them all.
            for _ in range(self._TRIES):
                m = masks[int(rand() * n)]
                if not m & board:
                    options.append(Buy(pid, m))
                    break
            else:
                fits = [m for m in masks if not m & board]
                if fits:
                    options.append(Buy(pid, fits[int(rand() * len(fits))]))
        return options[int(rand() * len(options))]


class GreedyPlayer:
    """Buys the best-value patch it can afford (if worth more than advancing) and places it tightly."""

    name = "greedy"

    def choose(self, state: GameState) -> Action:
        p = state.players[state.current_player()]
        board = p.board
        if state.leather_to_place:
            best, best_i = -1, 0
            for i in range(BOARD_CELLS):
                if not board >> i & 1:
                    c = contacts(1 << i, board)
                    if c > best:
                        best, best_i = c, i
            return LEATHER_ACTIONS[best_i]
        payouts = PAYOUTS_AFTER[p.position]
        best_rate, best_pid = 1.0, None
        for pid in state._circle[:3]:
            if COST[pid] > p.buttons:
                continue
            gain = 2 * AREA[pid] + INCOME[pid] * payouts - COST[pid]
            rate = gain / TIME[pid]
            if rate > best_rate and any(not m & board for m in PATCH_MASKS[pid]):
                best_rate, best_pid = rate, pid
        if best_pid is None:
            return ADVANCE
        best_c, best_m = -1, 0
        for m in PATCH_MASKS[best_pid]:
            if not m & board:
                c = contacts(m, board)
                if c > best_c:
                    best_c, best_m = c, m
        return Buy(best_pid, best_m)


def _no_arg(name: str, arg: str | None) -> None:
    if arg is not None:
        raise ValueError(f"player {name!r} takes no argument (got {name}:{arg})")


def _make_random(arg, seed, advisor):
    _no_arg("random", arg)
    return RandomPlayer(seed)


def _make_greedy(arg, seed, advisor):
    _no_arg("greedy", arg)
    return GreedyPlayer()


register_player("random", _make_random)
register_player("greedy", _make_greedy)
