"""The playout and tree policies: what the players, the compiled core's twin and the endgame solver play by.

A room below :mod:`engine.players`: it imports only the rules (actions,
board, state, track) and the solver's masks, so that :mod:`engine.core`,
:mod:`engine._core_py`, :mod:`engine.endgame`, :mod:`engine.suggest` and
the players can all use it without importing one another. Everything here
works on the engine's plain-int board masks and is written for speed,
because the search calls it tens of thousands of times per move:

* :func:`greedy_value`, :func:`greedy_rate`, :data:`GREEDY_RATES` and
  :data:`ADVANCE_RATE` — what a patch is worth per space of time, and what
  advancing pays; :func:`greedy_action` is the deterministic greedy move
  (:class:`engine.players.GreedyPlayer`'s).
* :func:`random_action` — a uniformly random move
  (:class:`engine.players.RandomPlayer`'s, and the core's random playouts).
* :func:`tight_placement` — where to put a patch: the legal placement with
  the most sides touching covered cells or the board edge, with a penalty
  for empty cells it cuts off (lone cells, then 2-cell pockets). Results are
  cached per ``(board, patch)`` in a :class:`PlacementCache`.
* :func:`leather_cell` — where to put a won 1×1 leather patch.
* :func:`playout` — play a state to the end with an ε-greedy policy (buy the
  best-value affordable patch, placed tightly) and return the final state.
* :func:`ucb_child` — the searches' step down their tree (UCB1).

>>> from quiltsolve.engine import new_game
>>> s = new_game(3)
>>> cache = PlacementCache()
>>> m = tight_placement(s.players[0].board, s.available_patches()[0], cache)
>>> m in PATCH_MASKS[s.available_patches()[0]]
True
>>> import random
>>> playout(s.clone(), random.Random(0), cache).is_terminal()
True
>>> greedy_value(1, 9) == 2 * AREA[1] + INCOME[1] * 9 - COST[1]
True
>>> GREEDY_RATES[9][1] == greedy_rate(1, 9)
True
"""

from __future__ import annotations

import math
from typing import Any, Callable, Protocol, Sequence, TypeVar

from quiltsolve.solver import PATCH_MASKS

from .actions import ADVANCE, LEATHER_ACTIONS, Action, Buy
from .board import BONUS_MASKS, FULL, contact_planes, contacts, neighbours, one_open, pocket_penalty
from .state import AREA, COST, INCOME, N_PATCHES, TIME, GameState
from .track import BOARD_CELLS, PAYOUTS_AFTER

Mask = int



# ------------------------------------------------------------ the greedy rates

ADVANCE_RATE = 1.0
"""What advancing pays per space of time (1 button): a buy must beat it."""


def greedy_value(pid: int, payouts: int) -> int:
    """What patch ``pid`` adds to the final score if nothing else happens, with ``payouts`` income spaces still ahead:
    ``2 × area + income × payouts − cost``."""
    return 2 * AREA[pid] + INCOME[pid] * payouts - COST[pid]


def greedy_rate(pid: int, payouts: int) -> float:
    """:func:`greedy_value` per space of time the patch costs."""
    return greedy_value(pid, payouts) / TIME[pid]


GREEDY_RATES: tuple[tuple[float, ...], ...] = tuple(
    tuple(greedy_rate(pid, k) for pid in range(N_PATCHES)) for k in range(max(PAYOUTS_AFTER) + 1))
"""``GREEDY_RATES[payouts][pid] == greedy_rate(pid, payouts)``: a table for the playouts' hot loop."""


def greedy_action(state: GameState) -> Action:
    """The greedy player's move (deterministic).

    Buys the affordable, placeable patch with the best :func:`greedy_rate`
    when that beats :data:`ADVANCE_RATE`, at the placement touching most
    covered cells and board edges (:func:`engine.board.contacts`; first in
    ``PATCH_MASKS`` order on ties); else advances. Leather goes to the
    empty cell with most contacts (the first on ties).
    """
    p = state.players[state.current_player()]
    board = p.board
    if state.leather_to_place:
        best, best_i = -1, 0
        for i in range(BOARD_CELLS):
            if not board >> i & 1:
                c = contacts(board, 1 << i)
                if c > best:
                    best, best_i = c, i
        return LEATHER_ACTIONS[best_i]
    rates = GREEDY_RATES[PAYOUTS_AFTER[p.position]]
    best_rate, best_pid = ADVANCE_RATE, None
    for pid in state.front_patches():
        if COST[pid] > p.buttons:
            continue
        rate = rates[pid]
        if rate > best_rate and any(not m & board for m in PATCH_MASKS[pid]):
            best_rate, best_pid = rate, pid
    if best_pid is None:
        return ADVANCE
    best_c, best_m = -1, 0
    for m in PATCH_MASKS[best_pid]:
        if not m & board:
            c = contacts(board, m)
            if c > best_c:
                best_c, best_m = c, m
    return Buy(best_pid, best_m)


# ------------------------------------------------------------ the random policy

RANDOM_TRIES = 8
"""Random masks (or cells) tried before the legal ones are listed (rejection sampling)."""


def random_action(state: GameState, rand: Callable[[], float]) -> Action:
    """A uniformly random move of ``state`` drawn with ``rand`` (a ``random()``: floats in [0, 1)).

    The policy of :class:`engine.players.RandomPlayer` and of the compiled
    core's random playouts (``engine.core``, whose pure-Python twin calls
    this with its own stream): uniform over advancing and each available
    patch it can afford and place, then a uniform legal placement; leather,
    a uniform empty cell.
    """
    p = state.players[state.current_player()]
    board = p.board
    if state.leather_to_place:
        for _ in range(RANDOM_TRIES):
            i = int(rand() * BOARD_CELLS)
            if not board >> i & 1:
                return LEATHER_ACTIONS[i]
        free = [i for i in range(BOARD_CELLS) if not board >> i & 1]
        return LEATHER_ACTIONS[free[int(rand() * len(free))]]
    options: list[Action] = [ADVANCE]
    buttons = p.buttons
    for pid in state.front_patches():
        if COST[pid] > buttons:
            continue
        masks = PATCH_MASKS[pid]
        n = len(masks)
        # Rejection sampling: the first random mask that fits is a uniform
        # legal placement; only on a crowded board scan them all.
        for _ in range(RANDOM_TRIES):
            m = masks[int(rand() * n)]
            if not m & board:
                options.append(Buy(pid, m))
                break
        else:
            fits = [m for m in masks if not m & board]
            if fits:
                options.append(Buy(pid, fits[int(rand() * len(fits))]))
    return options[int(rand() * len(options))]


# ------------------------------------------------------- placement and playouts

class RandomSource(Protocol):
    """What a playout needs of its random stream: ``random.Random`` or the core's ``Rng``."""

    def random(self) -> float:
        """A float in [0, 1)."""
        ...


class PlacementCache(dict[tuple[int, int], "int | None"]):
    """``(board, patch_id) -> mask`` (or None when it does not fit); bounded."""

    LIMIT = 200_000

    def remember(self, key: tuple[Mask, int], value: Mask | None) -> Mask | None:
        """Store ``value`` under ``key`` (emptying the cache when it is full); returns ``value``."""
        if len(self) >= self.LIMIT:
            self.clear()
        self[key] = value
        return value


def tight_placement(board: Mask, pid: int, cache: PlacementCache | None = None) -> Mask | None:
    """The snuggest legal placement of patch ``pid`` on ``board`` (None if none fits).

    Score = sides touching covered cells or the edge, minus 2 per lone empty
    cell and 1 per 2-cell pocket the placement leaves beside it; the pocket
    term is only computed for the best few by contacts (it is the slow part).
    Ties keep ``PATCH_MASKS`` order, so the answer is deterministic.
    """
    if cache is not None:
        hit = cache.get((board, pid), 0)
        if hit != 0:
            return hit
    b0, b1, b2 = contact_planes(board)
    touch = []
    top = -1
    for m in PATCH_MASKS[pid]:
        if m & board:
            continue
        t = (m & b0).bit_count() + 2 * (m & b1).bit_count() + 4 * (m & b2).bit_count()
        if t >= top - 1:
            touch.append((t, m))
            if t > top:
                top = t
    if not touch:
        best = None
    elif len(touch) == 1:
        best = touch[0][1]
    else:
        # Candidates: within 1 contact of the best (a pocket can cost more than that).
        cands = [(t, m) for t, m in touch if t >= top - 1]
        if len(cands) > 8:
            cands.sort(key=lambda x: -x[0])    # stable: mask order within a contact count
            cands = cands[:8]
        best_s, best = None, None
        for t, m in cands:
            s = t - pocket_penalty(board, m)
            if best_s is None or s > best_s:
                best_s, best = s, m
    if cache is not None:
        cache.remember((board, pid), best)
    return best


def _leather_score(c: Mask, empty: Mask, open1: Mask) -> int:
    nb = neighbours(c) & empty
    open_sides = nb.bit_count()
    # Filling c leaves alone its empty neighbours whose only empty neighbour
    # was c. (Filling a lone cell costs nothing: it is the best use of leather.)
    return (4 - open_sides) - 3 * (nb & open1).bit_count()


def leather_scores(board: Mask, bonus_open: bool) -> list[tuple[float, int]]:
    """(score, bit index) of every empty cell for a leather patch, best first.

    Completing a 7×7 window (while the tile is free) scores 100 more;
    otherwise the number of enclosed sides (covered or edge) minus 3 per
    empty cell it leaves alone, so an already lone cell (4 sides enclosed,
    nothing cut off) is the best spot. Ties keep row-major order.
    """
    empty = FULL ^ board
    near_full = bonus_open and board.bit_count() >= 48
    open1 = one_open(empty)
    out: list[tuple[float, int]] = []
    e = empty
    while e:
        c = e & -e
        e ^= c
        s = _leather_score(c, empty, open1)
        if near_full:
            after = board | c
            if any(after & w == w for w in BONUS_MASKS):
                s += 100
        out.append((s, c.bit_length() - 1))
    out.sort(key=lambda x: -x[0])
    return out


def leather_cell(board: Mask, bonus_open: bool) -> int:
    """Bit index of the best empty cell for a leather patch (see :func:`leather_scores`).

    >>> leather_cell(FULL ^ (1 << 40), True)
    40
    """
    empty = FULL ^ board
    if bonus_open and board.bit_count() >= 48:
        for w in BONUS_MASKS:
            miss = w & empty
            if miss and miss & (miss - 1) == 0:
                return miss.bit_length() - 1
    open1 = one_open(empty)
    best_s, best_i = None, -1
    e = empty
    while e:
        c = e & -e
        e ^= c
        s = _leather_score(c, empty, open1)
        if best_s is None or s > best_s:
            best_s, best_i = s, c.bit_length() - 1
    return best_i


def placement_score(board: Mask, mask: Mask) -> float:
    """How snugly ``mask`` sits on ``board``: touching sides minus cut-off pockets."""
    return contacts(board, mask) - pocket_penalty(board, mask)


def place_pending_leather(state: GameState) -> None:
    """Place every pending leather patch of ``state`` by :func:`leather_cell`."""
    while state.leather_to_place:
        board = state.players[state.current_player()].board
        state.apply_action(LEATHER_ACTIONS[leather_cell(board, state.bonus_open)])


def buy_rates(state: GameState) -> list[tuple[float, int]]:
    """(value per space of time, patch id) of each affordable available patch, best first.

    The greedy player's measure, :func:`greedy_rate`:
    what the patch adds to the final score if nothing else happens, per space.
    """
    p = state.players[state.current_player()]
    rates = GREEDY_RATES[PAYOUTS_AFTER[p.position]]
    buttons = p.buttons
    out = [(rates[pid], pid) for pid in state.front_patches() if COST[pid] <= buttons]
    out.sort(key=lambda x: -x[0])
    return out


def playout(state: GameState, rng: RandomSource, cache: PlacementCache, epsilon: float = 0.1) -> GameState:
    """Play ``state`` (changed in place) to the end with an ε-greedy policy; return it.

    With probability ``1 - epsilon`` a player buys the patch with the best
    value per space of time if that beats advancing (1 button per space),
    else advances; with probability ``epsilon`` it picks uniformly among
    advancing and the affordable patches. Patches go where
    :func:`tight_placement` says; leather by :func:`leather_cell`.
    """
    rand = rng.random
    players = state.players
    while not state.is_terminal():
        p = players[state.current_player()]
        if state.leather_to_place:
            state.apply_action(LEATHER_ACTIONS[leather_cell(p.board, state.bonus_open)])
            continue
        board = p.board
        buttons = p.buttons
        rates = GREEDY_RATES[PAYOUTS_AFTER[p.position]]
        options = [(rates[pid], pid) for pid in state.front_patches() if COST[pid] <= buttons]
        action: Action = ADVANCE
        if options:
            if rand() < epsilon:
                k = int(rand() * (len(options) + 1))
                if k < len(options):
                    pid = options[k][1]
                    m = tight_placement(board, pid, cache)
                    if m is not None:
                        action = Buy(pid, m)
            else:
                options.sort(key=lambda x: -x[0])
                for rate, pid in options:
                    if rate <= ADVANCE_RATE:
                        break
                    m = tight_placement(board, pid, cache)
                    if m is not None:
                        action = Buy(pid, m)
                        break
        state.apply_action(action)
    return state



# ------------------------------------------------------------ the tree policy

class Visited(Protocol):
    """A search tree's child as UCB1 sees it: ``n`` visits (at least 1) and ``w``, the summed reward."""

    n: int
    w: float


V = TypeVar("V", bound=Visited)


def ucb_child(children: Sequence[V], exploration: float, parent_visits: int, floor: float = -1e9) -> V:
    """UCB1's pick among visited ``children``: the highest ``w/n + exploration·sqrt(ln(parent_visits)/n)``.

    The first child on ties, and the first child when no score beats
    ``floor``. The selection of :func:`engine._core_py.search` (the C core's
    ``search.h`` does the same sums in the same order, with the same floor,
    so both descend alike) and of :class:`engine.players.MCTSPlayer`.

    >>> from types import SimpleNamespace as Kid
    >>> kids = [Kid(n=4, w=3.0), Kid(n=1, w=0.0), Kid(n=4, w=3.0)]
    >>> ucb_child(kids, 0.0, 9) is kids[0], ucb_child(kids, 2.0, 9) is kids[1]
    (True, True)
    """
    ln = math.log(parent_visits) if parent_visits > 1 else 0.0
    sqrt = math.sqrt
    best, best_u = children[0], floor
    for ch in children:
        u = ch.w / ch.n + exploration * sqrt(ln / ch.n)
        if u > best_u:
            best_u, best = u, ch
    return best

def state_key(state: GameState) -> tuple[Any, ...]:
    """A hashable key that identifies a position (for tree reuse and seeding): ``state.position_key()``."""
    return state.position_key()


def key_seed(seed: int, state: GameState) -> int:
    """A reproducible per-position seed.

    Ints, bools and tuples of them hash the same in every run (unlike str or
    None in Python 3.11), which is why ``state_key`` holds only those.
    """
    return hash((seed, state_key(state))) & 0x7FFF_FFFF_FFFF


__all__ = ["ADVANCE_RATE", "GREEDY_RATES", "PlacementCache", "RANDOM_TRIES", "RandomSource", "buy_rates", "greedy_action",
           "greedy_rate", "greedy_value", "key_seed", "leather_cell", "leather_scores", "place_pending_leather",
           "placement_score", "playout", "random_action", "state_key", "tight_placement", "ucb_child"]
