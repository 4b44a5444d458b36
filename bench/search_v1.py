"""``search-v1`` — the search player of 0.2, pure Python: the bench's baseline for ``search``.

This is the implementation ``search`` had before it moved onto the compiled
core (:mod:`engine.players.search`), unchanged except for its names:
:class:`SearchPlayerV1`, specs ``search-v1[:S]`` / ``search-v1:Nit``. It
lives with the benchmarks (``python -m bench engine``, ``python -m bench
strength``), not in the installed package (it was
``engine.players.search_v1`` until 0.3.0); importing this module registers
the ``search-v1`` spec with ``engine.players.make_player``. The text below is
its original description.

Where plain UCT (:mod:`engine.players.mcts`) branches over every placement of every
patch (≈ 150 actions a turn) and judges positions by random play, this
search spends its time on the decisions that matter:

* **Actions** at a node are *advance* and *buy P* for each available patch
  the player can afford (at most 4). A buy's placement is not searched: at
  the root it is the solver's lookahead placement (``rank_placements``
  through the advisor: the placement that keeps most of the upcoming
  patches packable, ties broken by snugness), cached per
  ``(board, patch, upcoming)``; inside the tree, and whenever the lookahead
  is unavailable or the budget too short for it, the snuggest placement
  (:func:`engine.policy.tight_placement`: most sides touching
  covered cells or the edge, fewest cut-off pockets). Won leather patches
  are placed by a fast heuristic as part of the move that took them; only
  when the root itself has a leather patch pending are the best few cells
  (by that heuristic) searched.
* **Evaluation**: one playout per iteration by an ε-greedy policy (buy the
  best value-per-time patch, placed snugly; ε = 0.1 random choices), far
  closer to real play than random playouts. The reward of a playout for the
  player who made the move into a node is
  ``0.75 × win + 0.25 × (1 + tanh(margin / 10)) / 2``: the win decides, the
  margin term sharpens the estimate when few playouts are available.
* **Selection**: UCB1 with ``c = 0.5``; every action of a node is tried
  once first, in the greedy policy's order. The move played is the child
  with the best mean reward shrunk towards its parent's mean
  (``(w + 2·mean_parent) / (n + 2)``), which is also how
  :func:`search_moves` ranks the root moves.
* **Tree reuse**: after a move the player keeps the subtree of the position
  it expects next (its own follow-up move, or the opponent's reply when it
  is one the tree already holds) and continues searching from it.

Budget: ``time_limit`` seconds per move, or a fixed ``iterations`` count
(then the search is reproducible for a fixed seed: the random stream of a
move is seeded from ``seed`` and the position). Time budgets depend on the
machine's speed — on a loaded 2-core machine expect about 300-600
iterations per second.

    python -m bench strength --pairs search-v1:1/greedy --games 20

>>> from quiltsolve.engine import new_game
>>> s = new_game(4)
>>> a = SearchPlayerV1(iterations=40, seed=1).choose(s)
>>> s.is_legal(a), a == SearchPlayerV1(iterations=40, seed=1).choose(s)
(True, True)
>>> [m.action.to_str().split()[0] for m in SearchPlayerV1(iterations=40).search_moves(s)][:1] in (['buy'], ['advance'])
True

Only the player is kept: the module functions of 0.2 (``search``,
``search_moves``, ``warm_up``) are :mod:`engine.players.search`'s, on the
new search; the root placements are :mod:`engine.players.root_placement`'s,
shared with it.
"""

from __future__ import annotations

import math
import random
import time

from quiltsolve.engine.actions import ADVANCE, LEATHER_ACTIONS, Action, Buy, PlaceLeather
from quiltsolve.engine.advisor import Advisor, Stop
from quiltsolve.engine.players import register_player
from quiltsolve.engine.players.root_placement import (
    Move, RootPlacement, ensure_imports, forced_move, greedy_first_move, macro_moves,
)
from quiltsolve.engine.players.search import (
    DEFAULT_TIME_LIMIT, EPSILON, EXPLORATION, LEATHER_CHOICES, MARGIN_WEIGHT, TIME_SHARE,
    move_reason, parse_budget, ranked_moves,
)
from quiltsolve.engine.policy import (
    PlacementCache, key_seed, place_pending_leather, playout, state_key, tight_placement,
)
from quiltsolve.engine.state import GameState
from quiltsolve.engine.suggest import MoveSuggestion

MARGIN_SCALE = 10.0        # (search's is the core's, the same value)


class _Node:
    __slots__ = ("state", "mover", "action", "children", "untried", "n", "w", "wins", "margin")

    def __init__(self, state: GameState, mover: int, action: Action | None):
        self.state = state
        self.mover = mover          # player who made the move into this node (-1 at the root)
        self.action = action
        self.children: list[_Node] = []
        self.untried: list[Move] | None = None   # macro moves not expanded yet (None: not listed yet)
        self.n = 0
        self.w = 0.0                # sum of rewards for ``mover``
        self.wins = 0               # playouts ``mover`` won
        self.margin = 0.0           # sum of final margins for ``mover``


class _Search:
    """One move's search (possibly continuing a reused tree)."""

    def __init__(self, root: _Node, rng: random.Random, cache: PlacementCache,
                 root_masks: dict[int, int], exploration: float = EXPLORATION,
                 margin_weight: float = MARGIN_WEIGHT, epsilon: float = EPSILON):
        self.root = root
        self.rng = rng
        self.cache = cache
        self.root_masks = root_masks
        self.c = exploration
        self.mw = margin_weight
        self.eps = epsilon

    def _expand(self, node: _Node, move: Move) -> _Node | None:
        s = node.state.clone()
        mover = s.current_player()
        if type(move) is int:
            m = self.root_masks.get(move) if node is self.root else None
            if m is None:
                m = tight_placement(s.players[mover].board, move, self.cache)
            if m is None:
                return None
            action: Action = Buy(move, m)
        elif type(move) is tuple:
            action = LEATHER_ACTIONS[move[1]]
        else:
            action = ADVANCE
        s.apply_action(action)
        place_pending_leather(s)
        child = _Node(s, mover, action)
        node.children.append(child)
        return child

    def run(self, iterations: int | None, deadline: float | None, stop: Stop | None, at_least: int = 0) -> int:
        """Iterate until the budget is spent or ``stop`` is set; returns the iterations run.

        ``at_least`` iterations run even past the deadline (never once
        ``stop`` is set): one playout per root move costs a few ms and keeps
        a starved machine (or a slow root lookahead) from answering unsearched.
        """
        root = self.root
        c, mw, eps = self.c, self.mw, self.eps
        rng, cache = self.rng, self.cache
        log, sqrt, tanh = math.log, math.sqrt, math.tanh
        clock = time.perf_counter
        done = 0
        while True:
            if iterations is not None and done >= iterations:
                break
            if deadline is not None and done >= at_least and clock() >= deadline:
                break
            if stop is not None and stop.is_set():
                break
            node = root
            path = [root]
            while True:
                if node.state.is_terminal():
                    break
                if node.untried is None:
                    node.untried = macro_moves(node.state, LEATHER_CHOICES if node is root else 1)[::-1]
                if node.untried:
                    child = None
                    while node.untried and child is None:
                        child = self._expand(node, node.untried.pop())
                    if child is not None:
                        node = child
                        path.append(node)
                        break
                if not node.children:
                    break
                ln = log(node.n) if node.n > 1 else 0.0
                best, best_u = node.children[0], -1e9
                for ch in node.children:
                    u = ch.w / ch.n + c * sqrt(ln / ch.n)
                    if u > best_u:
                        best_u, best = u, ch
                node = best
                path.append(node)
            s = node.state.clone()
            playout(s, rng, cache, eps)
            winner = s.winner()
            sc = s.scores()
            for nd in path:
                nd.n += 1
                m = nd.mover
                if m >= 0:
                    margin = sc[m] - sc[1 - m]
                    win = winner == m
                    nd.wins += win
                    nd.margin += margin
                    nd.w += (1.0 - mw) * win + mw * 0.5 * (1.0 + tanh(margin / MARGIN_SCALE))
            done += 1
        return done


class SearchPlayerV1(RootPlacement):
    """UCT over advance / buy-at-the-best-placement, greedy playouts; see the module docstring.

    ``time_limit`` seconds per move, unless ``iterations`` is given (then a
    fixed count, reproducible). ``advisor`` ranks root placements
    (``engine.advisor``); None means ``SolverAdvisor`` when the solver's
    lookahead is installed and the budget is a time limit, else the fast
    snug placement. ``reuse`` keeps the tree between moves.
    """

    def __init__(self, time_limit: float = DEFAULT_TIME_LIMIT, iterations: int | None = None, seed: int = 0,
                 advisor: Advisor | None = None, *, reuse: bool = True, lookahead: bool = True,
                 exploration: float = EXPLORATION, margin_weight: float = MARGIN_WEIGHT,
                 epsilon: float = EPSILON, time_cap: float | None = None) -> None:
        self._init_search("search-v1", time_limit, iterations, seed, advisor, reuse, lookahead, exploration,
                          margin_weight, epsilon, time_cap)
        self._tree: _Node | None = None

    def __repr__(self) -> str:
        budget = f"time_limit={self.time_limit}" if self.iterations is None else f"iterations={self.iterations}"
        return f"SearchPlayerV1({budget}, seed={self.seed})"

    # ------------------------------------------------------------- search
    def _search(self, state: GameState, stop: Stop | None = None, reuse_tree: bool = False) -> tuple[_Node, int]:
        if self._advisor() is not None:
            ensure_imports(True)   # the solver's lookahead (OR-Tools) is imported outside the move's clock
        t0 = time.perf_counter()
        if self.time_limit is not None:      # a time budget (else iterations)
            deadline: float | None = t0 + self.time_limit * TIME_SHARE
        else:
            deadline = None if self.time_cap is None else t0 + self.time_cap
        root = self._reused(state) if reuse_tree else None
        if root is None:
            root = _Node(state.clone(), -1, None)
        root.mover = -1
        rng = random.Random(key_seed(self.seed, state))
        root_masks = self._root_masks(state, deadline, stop)
        # A reused root's buy children were placed by the fast heuristic: drop those the lookahead moves.
        if root.children:
            keep = []
            for ch in root.children:
                a = ch.action
                if type(a) is Buy and root_masks.get(a.patch_id) not in (None, a.mask):
                    continue
                keep.append(ch)
            if len(keep) != len(root.children):
                root.children = keep
                root.untried = None
                root.n = sum(ch.n for ch in keep)
        if root.untried is None:
            have = {_move_of(ch.action) for ch in root.children if ch.action is not None}
            root.untried = [m for m in macro_moves(state, LEATHER_CHOICES)[::-1] if m not in have]
        srch = _Search(root, rng, self._cache, root_masks, self.exploration, self.margin_weight, self.epsilon)
        # time budgets: one playout per root move even if the root lookahead ate the time
        at_least = len(root.untried) + len(root.children) if self.iterations is None else 0
        n = srch.run(self.iterations, deadline, stop, at_least)
        self.last_iterations = n
        return root, n

    def _reused(self, state: GameState) -> _Node | None:
        """The node of the kept tree that is this position, searched up to 3 moves deep."""
        tree = self._tree
        if tree is None:
            return None
        want = state_key(state)
        frontier = [tree]
        for _ in range(3):
            nxt = []
            for nd in frontier:
                for ch in nd.children:
                    if state_key(ch.state) == want:
                        return ch
                    nxt.append(ch)
            frontier = nxt
        return None

    def start_game(self, game: int) -> None:
        """A new game of a match: forget the kept tree (moves depend only on the seed and the position)."""
        self._tree = None

    def choose(self, state: GameState) -> Action:
        """The best root move after this move's search (continuing the kept tree when ``reuse``)."""
        forced = forced_move(state)
        if forced is not None:
            return forced
        root, _ = self._search(state, None, reuse_tree=self.reuse)
        ranked = ranked_moves(root.children)
        if not ranked:
            # Stopped before any expansion: the greedy order's first move.
            return greedy_first_move(state, self._cache)
        best = ranked[0][1]
        self._tree = best if self.reuse else None
        assert best.action is not None      # a child of the root
        return best.action

    def search_moves(self, state: GameState, *, stop: Stop | None = None, top: int | None = None) -> list[MoveSuggestion]:
        """The root moves ranked by the search (a fresh tree; see :func:`search_moves`)."""
        return self._suggest(state, stop, top)[0]

    def _suggest(self, state: GameState, stop: Stop | None, top: int | None) -> tuple[list[MoveSuggestion], int, bool]:
        """(moves, root iterations run, searched): searched is False when no
        iteration ran and the greedy choice stands in."""
        if state.is_terminal():
            return [], 0, False
        root, n = self._search(state, stop, reuse_tree=False)
        ranked = ranked_moves(root.children)
        out = [MoveSuggestion(ch.action, round(v, 4), move_reason(state, ch)) for v, ch in ranked if ch.action is not None]
        searched = bool(out)
        if not out:
            out = [MoveSuggestion(greedy_first_move(state, self._cache), 0.5, "not searched (stopped): greedy choice")]
        return (out[:top] if top else out), n, searched


def _move_of(action: Action) -> Move:
    """The macro move that ``action`` plays."""
    if type(action) is PlaceLeather:
        return ("L", action.cell[0] * 9 + action.cell[1])
    if type(action) is Buy:
        return action.patch_id
    return "a"


def make_search_v1(arg: str | None, seed: int, advisor: Advisor | None = None) -> SearchPlayerV1:
    """The ``search-v1[:S]`` / ``search-v1:Nit`` spec's factory."""
    time_limit, iterations = parse_budget(arg, "search-v1")
    return SearchPlayerV1(time_limit=time_limit, iterations=iterations, seed=seed, advisor=advisor)


__all__ = ["SearchPlayerV1", "make_search_v1"]

register_player("search-v1", make_search_v1)
