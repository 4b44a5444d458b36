"""The compiled game core's facade: the C extension ``engine._core`` when it is built, else its
pure-Python twin (``engine._core_py``), with identical answers.

The core holds the hot path of the search player: legal actions, apply, the
uniform random and ε-greedy playouts, and the whole UCT search loop
(``engine/_core/*.h``). Its rule tables come from Python (:func:`core_tables`),
passed in once at import, so C and Python share the data.

``QUILTSOLVE_PURE_PYTHON=1`` in the environment, or ``pure=True`` on a call,
forces the Python path (for tests and debugging).

>>> from quiltsolve.engine import new_game
>>> s = new_game(3)
>>> [a.to_str() for a in legal_actions(s)][:1]
['advance']
>>> legal_actions(s) == s.legal_actions() == legal_actions(s, pure=True)
True
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import Any

from quiltsolve.solver import PATCH_MASKS

from . import _core_py as py
from .actions import ADVANCE, LEATHER_ACTIONS, Action, Advance, Buy, PlaceLeather
from .errors import IllegalActionError
from .policy import ADVANCE_RATE, GREEDY_RATES
from .state import GameState
from .tables import AREA, COST, INCOME, TIME
from .track import (
    BONUS_MASKS, BONUS_POINTS, BOARD_CELLS, EDITIONS, EMPTY_PENALTY, END, INCOME_UP_TO, LEATHER_SPACES,
    PAYOUTS_AFTER,
)

try:  # optional compiled core; the pure-Python twin gives the same answers
    import quiltsolve.engine._core as _c
except ImportError:  # pragma: no cover - depends on the build
    _c = None  # type: ignore[assignment]
if _c is not None and not hasattr(_c, "_init_tables"):  # pragma: no cover - depends on the build
    # Not built: what imported is the C sources' folder engine/_core/ (a namespace package).
    _c = None  # type: ignore[assignment]

__all__ = ["DEFAULT_NODE_CAP", "GREEDY", "HAVE_C_CORE", "MARGIN_SCALE", "PURE_PYTHON_ENV", "RANDOM", "CoreChild", "CoreSearch",
           "CoreSearcher", "Rng",
           "action_of", "action_tuple", "apply", "backend", "c_module", "core_tables", "legal_actions", "playout", "playouts",
           "run_search", "state_from_tuple", "state_tuple", "use_c"]

Rng = py.Rng
MARGIN_SCALE = py.MARGIN_SCALE
"""The search's reward: ``tanh(margin / MARGIN_SCALE)`` (``QS_MARGIN_SCALE`` in ``engine/_core/search.h``)."""
RANDOM = 0
"""Playout policy: :class:`RandomPlayer`'s uniform choices."""
GREEDY = 1
"""Playout policy: the search's ε-greedy one (:func:`engine.policy.playout`)."""
DEFAULT_NODE_CAP = 200_000
"""Nodes a search tree may hold (about 75 MB in C); once full, no node is expanded any more."""

PURE_PYTHON_ENV = "QUILTSOLVE_PURE_PYTHON"
HAVE_C_CORE = _c is not None


def core_tables() -> tuple[Any, ...]:
    """The rule tables the C core is given at import (layout in ``engine/_core/state.h``)."""
    return (tuple(tuple(ms) for ms in PATCH_MASKS), COST, TIME, INCOME, AREA, INCOME_UP_TO, PAYOUTS_AFTER,
            BONUS_MASKS, GREEDY_RATES, float(ADVANCE_RATE), END, BOARD_CELLS, BONUS_POINTS, EMPTY_PENALTY,
            tuple(LEATHER_SPACES[e] for e in EDITIONS))


if _c is not None:
    _c._init_tables(core_tables())
elif os.environ.get(PURE_PYTHON_ENV) != "1":  # pragma: no cover - depends on the build
    warnings.warn("quiltsolve.engine._core is not built: the search runs on the pure-Python core "
                  "(same answers, about 40x slower); install with a C compiler to build it", RuntimeWarning,
                  stacklevel=2)


def c_module() -> Any:
    """The compiled extension module ``engine._core``, or None when it is not built (for tests and benchmarks)."""
    return _c


def use_c(pure: bool = False) -> bool:
    """Whether a call runs on the C core: built, not ``pure`` and not ``QUILTSOLVE_PURE_PYTHON=1``."""
    return _c is not None and not pure and os.environ.get(PURE_PYTHON_ENV) != "1"


def backend(pure: bool = False) -> str:
    """``"c"`` or ``"python"``: what :func:`use_c` picks."""
    return "c" if use_c(pure) else "python"


def state_tuple(state: GameState) -> tuple[Any, ...]:
    """``state.core_tuple()``: the state as the core's tuple."""
    return state.core_tuple()


def state_from_tuple(t: tuple[Any, ...]) -> GameState:
    """``GameState.from_core_tuple(t)``."""
    return GameState.from_core_tuple(t)


def action_tuple(action: Action) -> tuple[int, int, int]:
    """An action as the core's ``(kind, arg, mask)``: 0 advance, 1 buy (arg = patch id), 2 leather (arg = cell)."""
    t = type(action)
    if t is Buy:
        assert isinstance(action, Buy)
        return (1, action.patch_id, action.mask)
    if t is PlaceLeather:
        assert isinstance(action, PlaceLeather)
        r, c = action.cell
        return (2, r * 9 + c, action.mask)
    return (0, 0, 0)


def action_of(t: tuple[int, int, int]) -> Action:
    """The engine's action for a core ``(kind, arg, mask)`` tuple."""
    kind, arg, mask = t
    if kind == 1:
        return Buy(arg, mask)
    if kind == 2:
        return LEATHER_ACTIONS[arg]
    return ADVANCE


def legal_actions(state: GameState, *, pure: bool = False) -> list[Action]:
    """``state.legal_actions()``, computed by the core."""
    if use_c(pure):
        assert _c is not None
        return [action_of(a) for a in _c.legal_actions(state.core_tuple())]
    return state.legal_actions()


def apply(state: GameState, action: Action, *, pure: bool = False) -> GameState:
    """A new state: ``state`` after ``action`` (``state`` is unchanged); IllegalActionError like ``apply_action``."""
    err = -1
    if use_c(pure):
        assert _c is not None
        try:
            err, after = _c.apply(state.core_tuple(), action_tuple(action))
        except (TypeError, ValueError, OverflowError, AttributeError):
            err = -1          # not an action the core can read: the engine says why
        if err == 0:
            return GameState.from_core_tuple(after)
    s = state.clone()
    s.apply_action(action)    # raises the engine's IllegalActionError with its message
    if err > 0:  # pragma: no cover - a bug: the core refused what the engine allows
        raise RuntimeError(f"the compiled core refused {action!r} (code {err}) but the engine allows it")
    return s


def playout(state: GameState, seed: int, policy: int = GREEDY, epsilon: float = 0.1, *,
            pure: bool = False) -> GameState:
    """A new state: ``state`` played to the end by ``policy`` (:data:`RANDOM` or :data:`GREEDY`) on ``Rng(seed)``."""
    if use_c(pure):
        assert _c is not None
        return GameState.from_core_tuple(_c.playout(state.core_tuple(), seed & py.M64, policy, epsilon))
    s = state.clone()
    if policy == RANDOM:
        return py.random_playout(s, py.Rng(seed))
    return py.playout(s, py.Rng(seed), py.PlacementCache(), epsilon)


def playouts(state: GameState, seed: int, count: int, policy: int = GREEDY, epsilon: float = 0.1, *,
             pure: bool = False) -> tuple[int, int, int]:
    """``count`` playouts from ``state`` on one stream: (wins of player 0, of player 1, sum of margins 0 − 1).

    The C core releases the GIL while it plays them.
    """
    if use_c(pure):
        assert _c is not None
        w0, w1, m = _c.playouts(state.core_tuple(), seed & py.M64, policy, epsilon, count)
        return w0, w1, m
    return py.playouts(state, seed, policy, epsilon, count)


@dataclass(frozen=True)
class CoreChild:
    """One root move's statistics after a core search: visits, summed reward, wins and margins (for the mover)."""

    action: Action
    n: int
    w: float
    wins: int
    margin: int
    pv: tuple[Action, ...] = ()
    """The principal variation below the move, when asked for (:meth:`CoreSearcher.report`): the most visited
    reply, then the most visited answer to it, ... (the tree's macro moves: leather won on the way is placed
    by the core's heuristic and not listed)."""


@dataclass(frozen=True)
class CoreSearch:
    """What :func:`run_search` did: iterations run, nodes in the tree, the root's children in expansion order."""

    iterations: int
    nodes: int
    children: list[CoreChild]
    backend: str


class CoreSearcher:
    """A UCT search from ``state`` (root moves ``root_actions``, tried in that order) kept between calls, on
    the core: :meth:`run` adds iterations, :meth:`report` reads the root's children at any point.

    The same iterations run in one :meth:`run` or in many slices give the same tree, in C and in Python,
    so a search can report while it runs (:mod:`engine.analysis`) and still end where one call would.
    One thread at a time.

    >>> from quiltsolve.engine import new_game, ADVANCE
    >>> s = new_game(1)
    >>> a = CoreSearcher(s, [ADVANCE] + [x for x in legal_actions(s) if type(x) is Buy][:1], seed=3)
    >>> a.run(iterations=40), a.run(iterations=90)
    (40, 90)
    >>> one = run_search(s, a.root_actions, seed=3, iterations=90)
    >>> [(c.n, c.w) for c in a.report().children] == [(c.n, c.w) for c in one.children]
    True
    """

    def __init__(self, state: GameState, root_actions: list[Action], *, seed: int, exploration: float = 0.5,
                 margin_weight: float = 0.25, epsilon: float = 0.1, node_cap: int = DEFAULT_NODE_CAP,
                 pure: bool = False) -> None:
        if state.is_terminal():
            raise ValueError("the game is over: there is nothing to search")
        if len(root_actions) > 8:
            raise ValueError(f"at most 8 root actions, got {len(root_actions)}")
        self.state = state
        self.root_actions = list(root_actions)
        seed &= py.M64
        self.backend = backend(pure)
        self._handle: Any
        if self.backend == "c":
            assert _c is not None
            self._handle = _c.search_start(state.core_tuple(), [action_tuple(a) for a in root_actions], seed,
                                           exploration, margin_weight, epsilon, node_cap)
        else:
            self._handle = py.SearchTree(state, root_actions, seed, exploration, margin_weight, epsilon, node_cap)
        self.iterations = 0

    def run(self, *, iterations: int | None = None, time_limit: float | None = None, at_least: int = 0,
            stop: py.Stop | None = None) -> int:
        """More iterations, until the search has run ``iterations`` in all, or for ``time_limit`` seconds
        (but not before it has run ``at_least`` in all), or until ``stop.is_set()`` (checked first, then
        every few ms; the C core releases the GIL in between). Returns the iterations run in all."""
        if iterations is None and time_limit is None:
            raise ValueError("a search needs a budget: iterations or time_limit")
        if iterations is not None and iterations < 0:
            raise ValueError(f"iterations must be >= 0, not {iterations}")
        left = None if time_limit is None else max(0.0, time_limit)
        if self.backend == "c":
            assert _c is not None
            self.iterations = _c.search_step(self._handle, -1 if iterations is None else iterations,
                                             -1.0 if left is None else left, at_least, stop)
        else:
            self.iterations = self._handle.run(iterations, left, at_least, stop)
        return self.iterations

    def report(self, pv_depth: int = 0) -> CoreSearch:
        """The search so far: iterations, nodes and the root's children in expansion order, each with its
        principal variation of at most ``pv_depth`` moves (0: none)."""
        if pv_depth < 0:
            raise ValueError(f"pv_depth must be >= 0, not {pv_depth}")
        if self.backend == "c":
            assert _c is not None
            done, nodes, kids = _c.search_children(self._handle, pv_depth)
            children = [CoreChild(action_of(a), n, w, wins, margin, tuple(action_of(x) for x in pv))
                        for a, n, w, wins, margin, pv in kids]
        else:
            done, nodes = self._handle.done, self._handle.count
            children = [CoreChild(a, n, w, wins, margin, tuple(pv))
                        for a, n, w, wins, margin, pv in self._handle.children(pv_depth)]
        return CoreSearch(done, nodes, children, self.backend)


def run_search(state: GameState, root_actions: list[Action], *, seed: int, iterations: int | None = None,
               time_limit: float | None = None, at_least: int = 0, stop: py.Stop | None = None,
               exploration: float = 0.5, margin_weight: float = 0.25, epsilon: float = 0.1,
               node_cap: int = DEFAULT_NODE_CAP, pure: bool = False) -> CoreSearch:
    """UCT from ``state`` whose root moves are ``root_actions`` (in the order they are tried), on the core.

    Stops after ``iterations``, or ``time_limit`` seconds (but not before
    ``at_least`` iterations), or when ``stop.is_set()`` (checked every few
    ms; the C core releases the GIL in between). With an iteration budget and
    no stop the answer depends only on the arguments: C and Python agree.
    (:class:`CoreSearcher` is the same search run in slices.)
    """
    if state.is_terminal():
        raise ValueError("the game is over: there is nothing to search")
    if iterations is None and time_limit is None:
        raise ValueError("a search needs a budget: iterations or time_limit")
    if iterations is not None and iterations < 0:
        raise ValueError(f"iterations must be >= 0, not {iterations}")
    if len(root_actions) > 8:
        raise ValueError(f"at most 8 root actions, got {len(root_actions)}")
    seed &= py.M64
    if use_c(pure):
        assert _c is not None
        done, nodes, kids = _c.search(state.core_tuple(), [action_tuple(a) for a in root_actions], seed,
                                      -1 if iterations is None else iterations,
                                      -1.0 if time_limit is None else max(0.0, time_limit), at_least, stop,
                                      exploration, margin_weight, epsilon, node_cap)
        children = [CoreChild(action_of(a), n, w, wins, margin) for a, n, w, wins, margin in kids]
        return CoreSearch(done, nodes, children, "c")
    done, nodes, pkids = py.search(state, root_actions, seed, iterations,
                                   None if time_limit is None else max(0.0, time_limit), at_least, stop,
                                   exploration, margin_weight, epsilon, node_cap)
    return CoreSearch(done, nodes, [CoreChild(a, n, w, wins, margin) for a, n, w, wins, margin in pkids], "python")
