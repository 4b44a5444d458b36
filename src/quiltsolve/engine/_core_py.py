"""The pure-Python twin of the compiled core (``engine/_core/*.h``): same algorithm, same answers.

Used by :mod:`engine.core` when the C extension is not built or when
``QUILTSOLVE_PURE_PYTHON=1``. Each function here mirrors one of the core's,
operation for operation, so that for the same seed and iteration count both
give identical results:

* :class:`Rng` — xoshiro256** seeded by SplitMix64; ``random()`` is
  ``(x >> 11) * 2**-53`` (``policy.h``: ``qs_rng_*``).
* :func:`random_playout` — :class:`engine.players.RandomPlayer`'s policy
  (:func:`engine.policy.random_action`) on that stream (``qs_random_playout``).
* the ε-greedy playout is :func:`engine.policy.playout`
  itself, given an :class:`Rng` (``qs_greedy_playout``).
* :func:`search` and :class:`SearchTree` (the same search kept between calls) — the UCT loop
  (``search.h``, ``module_search.inc``).

The states are the engine's own :class:`GameState`: the rules are not
written twice in Python.

>>> Rng(1).random() == Rng(1).random()
True
"""

from __future__ import annotations

import math
import time
from typing import Any, Protocol

from .actions import ADVANCE, Action, Buy
from .errors import IllegalActionError
from .policy import (
    ADVANCE_RATE, RANDOM_TRIES, PlacementCache, buy_rates, place_pending_leather, playout, random_action, tight_placement,
    ucb_child,
)
from .state import GameState

__all__ = ["MARGIN_SCALE", "RANDOM_TRIES", "Rng", "SearchTree", "Stop", "playouts", "random_playout", "search"]

M64 = (1 << 64) - 1
MARGIN_SCALE = 10.0
_TWO_M53 = 2.0 ** -53


class Stop(Protocol):
    def is_set(self) -> bool: ...


class Rng:
    """xoshiro256** seeded with SplitMix64 (the core's ``qs_rng``).

    >>> r = Rng(7); [round(r.random(), 6) for _ in range(2)] == [round(x, 6) for x in Rng(7).doubles(2)]
    True
    """

    __slots__ = ("s",)

    def __init__(self, seed: int) -> None:
        x = seed & M64
        s = []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            s.append(z ^ (z >> 31))
        self.s = s

    def next(self) -> int:
        """The next 64-bit output."""
        s = self.s
        s0, s1, s2, s3 = s
        r = (s1 * 5) & M64
        out = ((((r << 7) | (r >> 57)) & M64) * 9) & M64
        t = (s1 << 17) & M64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & M64
        s[0], s[1], s[2], s[3] = s0, s1, s2, s3
        return out

    def random(self) -> float:
        """A double in [0, 1): ``(next() >> 11) * 2**-53``."""
        return (self.next() >> 11) * _TWO_M53

    def doubles(self, n: int) -> list[float]:
        return [self.random() for _ in range(n)]


def random_playout(state: GameState, rng: Rng) -> GameState:
    """Play ``state`` (in place) to the end with :class:`RandomPlayer`'s policy on ``rng``; return it."""
    rand = rng.random
    while not state.is_terminal():
        state.apply_action(random_action(state, rand))
    return state


def playouts(state: GameState, seed: int, policy: int, epsilon: float, count: int,
             cache: PlacementCache | None = None) -> tuple[int, int, int]:
    """``count`` playouts from ``state`` on one stream: (wins of player 0, of player 1, sum of margins 0 − 1)."""
    rng = Rng(seed)
    cache = PlacementCache() if cache is None else cache
    w0 = w1 = margin = 0
    for _ in range(count):
        s = state.clone()
        if policy == 0:
            random_playout(s, rng)
        else:
            playout(s, rng, cache, epsilon)
        w = s.winner()
        w0 += w == 0
        w1 += w == 1
        a, b = s.scores()
        margin += a - b
    return w0, w1, margin


class _Node:
    __slots__ = ("state", "mover", "action", "children", "moves", "next", "n", "w", "wins", "margin")

    def __init__(self, state: GameState, mover: int, action: Action | None) -> None:
        self.state = state
        self.mover = mover
        self.action = action
        self.children: list[_Node] = []
        self.moves: list[Any] | None = None     # None: not listed yet
        self.next = 0
        self.n = 0
        self.w = 0.0
        self.wins = 0
        self.margin = 0


def _list_moves(state: GameState) -> list[int]:
    """A node's macro moves (``search.h``: qs__list_moves): -1 advance, else a patch id to buy."""
    out: list[int] = []
    advanced = False
    for rate, pid in buy_rates(state):
        if rate <= ADVANCE_RATE and not advanced:
            out.append(-1)
            advanced = True
        out.append(pid)
    if not advanced:
        out.append(-1)
    return out


class SearchTree:
    """A search kept between calls (the core's ``search_start`` / ``search_step`` / ``search_children``):
    the tree, the random stream and the iterations run so far. The same iterations in one :meth:`run`
    or in many give the same tree."""

    def __init__(self, state: GameState, root_actions: list[Action], seed: int, exploration: float,
                 margin_weight: float, epsilon: float, node_cap: int, cache: PlacementCache | None = None) -> None:
        if state.is_terminal():
            raise ValueError("the game is over")
        for i, a in enumerate(root_actions):
            try:
                state.clone().apply_action(a)
            except IllegalActionError:
                raise ValueError(f"root action {i} is not legal in the position") from None
        self.root_actions = list(root_actions)
        self.cache = PlacementCache() if cache is None else cache
        self.rng = Rng(seed)
        self.root = _Node(state.clone(), -1, None)
        self.root.moves = list(range(len(root_actions)))
        self.count = 1
        self.cap = max(1, node_cap)
        self.c, self.mw, self.eps = exploration, margin_weight, epsilon
        self.done = 0

    def run(self, iterations: int | None, time_left: float | None, at_least: int, stop: Stop | None) -> int:
        """More iterations: until :attr:`done` reaches ``iterations``, or ``time_left`` seconds have passed
        and :attr:`done` reaches ``at_least``, or ``stop.is_set()``; returns :attr:`done`."""
        clock = time.perf_counter
        deadline = None if time_left is None else clock() + time_left
        while True:
            if iterations is not None and self.done >= iterations:
                break
            if deadline is not None and self.done >= at_least and clock() >= deadline:
                break
            if stop is not None and stop.is_set():
                break
            self._iterate()
            self.done += 1
        return self.done

    def _iterate(self) -> None:
        """One iteration: select / expand, playout, backup (``search.h``: qs_search_iterate)."""
        root, cache, root_actions = self.root, self.cache, self.root_actions
        mw = self.mw
        tanh = math.tanh
        node = root
        path = [root]
        while True:
            st = node.state
            if st.is_terminal():
                break
            if node.moves is None:
                node.moves = _list_moves(st)
            moves = node.moves
            if node.next < len(moves) and self.count < self.cap:
                child = None
                while node.next < len(moves) and child is None:
                    move = moves[node.next]
                    node.next += 1
                    if node is root:
                        action: Action | None = root_actions[move]
                    elif move >= 0:
                        m = tight_placement(st.players[st.current_player()].board, move, cache)
                        action = None if m is None else Buy(move, m)
                    else:
                        action = ADVANCE
                    if action is None:
                        continue
                    s = st.clone()
                    mover = s.current_player()
                    s.apply_action(action)
                    place_pending_leather(s)
                    child = _Node(s, mover, action)
                    node.children.append(child)
                    self.count += 1
                if child is not None:
                    node = child
                    path.append(node)
                    break
            if not node.children:
                break
            node = ucb_child(node.children, self.c, node.n)
            path.append(node)
        s = node.state.clone()
        playout(s, self.rng, cache, self.eps)
        winner = s.winner()
        sc = s.scores()
        for nd in path:
            nd.n += 1
            mo = nd.mover
            if mo >= 0:
                margin = sc[mo] - sc[1 - mo]
                win = winner == mo
                nd.wins += win
                nd.margin += margin
                nd.w += (1.0 - mw) * win + mw * 0.5 * (1.0 + tanh(margin / MARGIN_SCALE))

    def children(self, pv_depth: int | None = None) -> list[tuple[Any, ...]]:
        """``[(action, n, w, wins, margin)]`` per root child, in expansion order; with ``pv_depth``, each with
        its principal variation below it appended: the most visited child (the first of equals), then its
        most visited child, ..., at most ``pv_depth`` actions."""
        out: list[tuple[Any, ...]] = []
        for ch in self.root.children:
            assert ch.action is not None
            if pv_depth is None:
                out.append((ch.action, ch.n, ch.w, ch.wins, ch.margin))
            else:
                out.append((ch.action, ch.n, ch.w, ch.wins, ch.margin, _principal(ch, pv_depth)))
        return out


def _principal(node: _Node, depth: int) -> list[Action]:
    """The principal variation below ``node`` (``module_search.inc``: qs__pv)."""
    line: list[Action] = []
    for _ in range(depth):
        best = None
        for ch in node.children:
            if ch.n > (best.n if best is not None else 0):
                best = ch
        if best is None:
            break
        assert best.action is not None
        line.append(best.action)
        node = best
    return line


def search(state: GameState, root_actions: list[Action], seed: int, iterations: int | None,
           time_left: float | None, at_least: int, stop: Stop | None, exploration: float, margin_weight: float,
           epsilon: float, node_cap: int, cache: PlacementCache | None = None
           ) -> tuple[int, int, list[tuple[Action, int, float, int, int]]]:
    """The core's search (``_core.search``): (iterations done, nodes, [(action, n, w, wins, margin)] per root child)."""
    tree = SearchTree(state, root_actions, seed, exploration, margin_weight, epsilon, node_cap, cache)
    tree.run(iterations, time_left, at_least, stop)
    return tree.done, tree.count, tree.children()
