"""Fast building blocks of the search players: placement, leather, playouts.

Everything here works on the engine's plain-int board masks and is written
for speed, because the search calls it tens of thousands of times per move:

* :func:`tight_placement` — where to put a patch: the legal placement with
  the most sides touching covered cells or the board edge, with a penalty
  for empty cells it cuts off (lone cells, then 2-cell pockets). Results are
  cached per ``(board, patch)`` in a :class:`PlacementCache`.
* :func:`leather_cell` — where to put a won 1×1 leather patch.
* :func:`playout` — play a state to the end with an ε-greedy policy (buy the
  best-value affordable patch, placed tightly) and return the final state.

>>> from engine import new_game
>>> s = new_game(3)
>>> cache = PlacementCache()
>>> m = tight_placement(s.players[0].board, s.available_patches()[0], cache)
>>> m in PATCH_MASKS[s.available_patches()[0]]
True
>>> import random
>>> playout(s.clone(), random.Random(0), cache).is_terminal()
True
"""

from __future__ import annotations

import random

from solver import PATCH_MASKS

from .actions import ADVANCE, LEATHER_ACTIONS, Buy
from .state import AREA, COST, INCOME, TIME, GameState
from .track import BONUS_MASKS, FULL, PAYOUTS_AFTER

Mask = int

_ROW0 = (1 << 9) - 1
_ROW8 = _ROW0 << 72
_COL0 = sum(1 << (9 * r) for r in range(9))
_COL8 = _COL0 << 8
_NOT_COL0 = FULL ^ _COL0
_NOT_COL8 = FULL ^ _COL8

# Per patch: (mask, sides on the board edge) for every placement, so the
# board-independent part of the contact count is computed once.
_EDGE_SIDES: tuple[tuple[tuple[Mask, int], ...], ...] = tuple(
    tuple((m, (m & _ROW0).bit_count() + (m & _ROW8).bit_count() + (m & _COL0).bit_count()
           + (m & _COL8).bit_count()) for m in masks)
    for masks in PATCH_MASKS
)


def neighbours(mask: Mask) -> Mask:
    """Cells 4-adjacent to ``mask`` (on the board)."""
    return ((((mask & _NOT_COL8) << 1) | ((mask & _NOT_COL0) >> 1) | (mask << 9) | (mask >> 9)) & FULL)


def lone_cells(board: Mask) -> int:
    """Empty cells with no empty neighbour (they can only take a leather patch).

    >>> lone_cells(FULL ^ 1), lone_cells(FULL ^ 3), lone_cells(0)
    (1, 0, 0)
    """
    empty = FULL ^ board
    return (empty & ~neighbours(empty)).bit_count()


def _pocket_penalty(board: Mask, mask: Mask) -> float:
    """Empty cells next to ``mask`` that it leaves in a 1- or 2-cell pocket."""
    after = board | mask
    empty = FULL ^ after
    near = neighbours(mask) & empty
    if not near:
        return 0.0
    en = neighbours(empty)
    lone = near & ~en
    pen = 2.0 * lone.bit_count()
    # A pocket of two: an empty cell whose only empty neighbour has no other.
    rest = near & ~lone
    while rest:
        c = rest & -rest
        rest ^= c
        nb = neighbours(c) & empty
        if nb.bit_count() == 1 and (neighbours(nb) & empty) == c:
            pen += 1.0
            rest &= ~nb
    return pen


class PlacementCache(dict):
    """``(board, patch_id) -> mask`` (or None when it does not fit); bounded."""

    LIMIT = 200_000

    def remember(self, key, value):
        if len(self) >= self.LIMIT:
            self.clear()
        self[key] = value
        return value


def _contact_planes(board: Mask) -> tuple[Mask, Mask, Mask]:
    """Bit planes of the number (0-4) of covered-or-edge sides of every cell."""
    u = ((board << 9) & FULL) | _ROW0
    d = (board >> 9) | _ROW8
    lf = ((board & _NOT_COL8) << 1) | _COL0
    rt = ((board & _NOT_COL0) >> 1) | _COL8
    s1, c1 = u ^ d, u & d
    s2, c2 = lf ^ rt, lf & rt
    a = s1 & s2
    return s1 ^ s2, c1 ^ c2 ^ a, (c1 & c2) | (c1 & a) | (c2 & a)


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
    b0, b1, b2 = _contact_planes(board)
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
            s = t - _pocket_penalty(board, m)
            if best_s is None or s > best_s:
                best_s, best = s, m
    if cache is not None:
        cache.remember((board, pid), best)
    return best


def _one_open(empty: Mask) -> Mask:
    """Empty cells with exactly one empty neighbour."""
    u = (empty << 9) & FULL
    d = empty >> 9
    lf = (empty & _NOT_COL8) << 1
    rt = (empty & _NOT_COL0) >> 1
    s1, c1 = u ^ d, u & d
    s2, c2 = lf ^ rt, lf & rt
    # count == 1: bit0 set and no carries anywhere.
    return empty & (s1 ^ s2) & ~(s1 & s2) & ~c1 & ~c2


def _leather_score(c: Mask, empty: Mask, one_open: Mask) -> int:
    nb = neighbours(c) & empty
    open_sides = nb.bit_count()
    # Filling c leaves alone its empty neighbours whose only empty neighbour
    # was c. (Filling a lone cell costs nothing: it is the best use of leather.)
    return (4 - open_sides) - 3 * (nb & one_open).bit_count()


def leather_scores(board: Mask, bonus_open: bool) -> list[tuple[float, int]]:
    """(score, bit index) of every empty cell for a leather patch, best first.

    Completing a 7×7 window (while the tile is free) scores 100 more;
    otherwise the number of enclosed sides (covered or edge) minus 3 per
    empty cell it leaves alone, so an already lone cell (4 sides enclosed,
    nothing cut off) is the best spot. Ties keep row-major order.
    """
    empty = FULL ^ board
    near_full = bonus_open and board.bit_count() >= 48
    one_open = _one_open(empty)
    out = []
    e = empty
    while e:
        c = e & -e
        e ^= c
        s = _leather_score(c, empty, one_open)
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
    one_open = _one_open(empty)
    best_s, best_i = None, -1
    e = empty
    while e:
        c = e & -e
        e ^= c
        s = _leather_score(c, empty, one_open)
        if best_s is None or s > best_s:
            best_s, best_i = s, c.bit_length() - 1
    return best_i


def placement_score(board: Mask, mask: Mask) -> float:
    """How snugly ``mask`` sits on ``board``: touching sides minus cut-off pockets."""
    e = 0
    for edge in (_ROW0, _ROW8, _COL0, _COL8):
        e += (mask & edge).bit_count()
    t = (e + (mask & (board << 9)).bit_count() + (mask & (board >> 9)).bit_count()
         + (mask & ((board & _NOT_COL8) << 1)).bit_count() + (mask & ((board & _NOT_COL0) >> 1)).bit_count())
    return t - _pocket_penalty(board, mask)


def place_pending_leather(state: GameState) -> None:
    """Place every pending leather patch of ``state`` by :func:`leather_cell`."""
    while state._pending:
        board = state.players[state._cur].board
        state.apply_action(LEATHER_ACTIONS[leather_cell(board, state._bonus_open)])


def buy_rates(state: GameState) -> list[tuple[float, int]]:
    """(value per space of time, patch id) of each affordable available patch, best first.

    Value = ``2 × area + income × paydays left − cost``: what the patch adds to
    the final score if nothing else happens (the greedy player's measure).
    """
    p = state.players[state._cur]
    payouts = PAYOUTS_AFTER[p.position]
    out = []
    for pid in state._circle[:3]:
        if COST[pid] <= p.buttons:
            out.append(((2 * AREA[pid] + INCOME[pid] * payouts - COST[pid]) / TIME[pid], pid))
    out.sort(key=lambda x: -x[0])
    return out


def playout(state: GameState, rng: random.Random, cache: PlacementCache, epsilon: float = 0.1) -> GameState:
    """Play ``state`` (changed in place) to the end with an ε-greedy policy; return it.

    With probability ``1 - epsilon`` a player buys the patch with the best
    value per space of time if that beats advancing (1 button per space),
    else advances; with probability ``epsilon`` it picks uniformly among
    advancing and the affordable patches. Patches go where
    :func:`tight_placement` says; leather by :func:`leather_cell`.
    """
    rand = rng.random
    players = state.players
    while not state._over:
        if state._pending:
            p = players[state._cur]
            state.apply_action(LEATHER_ACTIONS[leather_cell(p.board, state._bonus_open)])
            continue
        p = players[state._cur]
        board = p.board
        buttons = p.buttons
        payouts = PAYOUTS_AFTER[p.position]
        options = []
        for pid in state._circle[:3]:
            if COST[pid] <= buttons:
                options.append(((2 * AREA[pid] + INCOME[pid] * payouts - COST[pid]) / TIME[pid], pid))
        action = ADVANCE
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
                    if rate <= 1.0:
                        break
                    m = tight_placement(board, pid, cache)
                    if m is not None:
                        action = Buy(pid, m)
                        break
        state.apply_action(action)
    return state


def state_key(state: GameState) -> tuple:
    """A hashable key that identifies a position (for tree reuse and seeding)."""
    a, b = state.players
    return (a.board, a.buttons, a.position, a.income, a.bonus, b.board, b.buttons, b.position, b.income,
            b.bonus, state._circle, state._cur, state._pending, state.leather,
            -1 if state.first_to_end is None else state.first_to_end)


def key_seed(seed: int, state: GameState) -> int:
    """A reproducible per-position seed.

    Ints, bools and tuples of them hash the same in every run (unlike str or
    None in Python 3.11), which is why ``state_key`` holds only those.
    """
    return hash((seed, state_key(state))) & 0x7FFF_FFFF_FFFF


__all__ = ["PlacementCache", "buy_rates", "key_seed", "leather_cell", "leather_scores", "lone_cells", "neighbours",
           "place_pending_leather", "placement_score", "playout", "state_key", "tight_placement"]

