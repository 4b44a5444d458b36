"""The exact endgame solver: the game-theoretic value of a position under perfect play.

:func:`solve` proves the value of a position by null-window searches of the
whole remaining game tree, narrowing a proven interval until it closes
(:func:`solve_progress` reports each step). Each search is fail-soft
alpha-beta (principal variation search: the first child with the whole
window, the others with a null window first, searched again with the whole
window when they fail high) over plain minimax on the final margin (player
0's score minus player 1's; player 0 maximises, player 1 minimises — the
same player may act several plies in a row, so there is no negamax sign
flip) and a transposition table. Every placement is generated exactly (each
legal mask, each empty leather cell); placements are left out only where a
rule below proves they cannot change the value, and whole groups of them
are cut at once by a sound bound (rule B).

The result is reported from the point of view of the player to move at the
root: ``value`` = that player's final score minus the other's when both
play perfectly to maximise their own margin (score = buttons + 7 for the
bonus tile − 2 per empty cell). On a 0 the tie rule (who reached space 53
first) decides the winner; the value does not encode it.

>>> from quiltsolve.engine import GameState, new_game
>>> s = new_game(1)
>>> r = solve(s, time_limit=0.05)          # a whole game is far out of reach
>>> r.proven, r.value, r.reason in ("time", "solved")
(False, None, True)

The driver (shared by both backends)
------------------------------------
1. *Rule S, the static bounds* (:func:`_static_bounds`): player ``i`` can
   always make sure of the score of advancing to the end (every space moved
   pays a button, every income space their income; pending leather is
   placed whatever happens), and can score at most that plus, for the patches
   still in the circle that fit their empty cells, the most a fractional
   knapsack of ``2·area − cost + income·payouts − time`` gains fits into
   their spaces left (one last buy may overrun space 53: it costs one space),
   2 per leather patch left on the track and 7 while the bonus is open. The
   margin lies between the one's sure score minus the other's most, both
   ways.
2. *Rule B's two relaxations* of the whole position: player 0 deferred from
   the root (an upper bound), then player 1 (a lower bound), each searched
   with the interval so far as its window. Often they meet: then the value
   is proven without an exact search of the position. The second one
   (player 1 deferred, a lower bound ``r``) first runs in the aspiration
   window ``(a − 1, hi + 1)``, ``a = max(lo, hi −`` :data:`ASPIRATION` ``)``:
   the two relaxations are usually a few points apart, and a narrow window
   cuts more. Sound: a fail-soft result ``v >= a`` is ``r`` itself (``r <=
   value <= hi``, so it cannot fail high); a result ``v < a`` is only an
   upper bound of ``r``, and the search is run again in ``(lo − 1, v + 1)``
   (not at all if ``v < lo``: then ``r < lo`` and ``lo`` stands). On the
   16-ply positions of ``bench endgame`` this took up to 20% off the nodes
   of some solves and added to none.
3. *Null-window tests* of the position halve what is left: a search with
   the window ``(g − 1, g)`` proves ``value >= g`` (fail high: its result is
   a new lower bound) or ``value < g`` (fail low: a new upper bound).
4. The mover's best move: the move that proved the final bound (the root
   move of the lower bound's search — for player 1 of the upper bound's —
   when that was a relaxed search, whose mover placed exactly), else a
   null-window test at the value; then the principal variation
   (:func:`_line`); with ``all_moves`` every distinct root move's value
   (:func:`_value`: the same steps on the position after it; the buys of one
   patch bounded first by rule B's group bound, then the placements only
   while one may still beat the best so far).

Proof policy
------------
``proven`` is True only when the search finished: a time limit, a ``stop``
token or the ``max_plies`` horizon stop the search by an exception, the
partial values are thrown away and the answer is ``proven=False`` with
``value=None`` and no moves (the interval reported so far stays proven).
Because of that every entry of the transposition table is an exact bound of
the *game-theoretic* value of its position — of the game the position
stands for: with a deferred player, that player's relaxation (rule B) — and
no entry ever depends on a horizon, so entries need no depth field: the
``max_plies`` horizon is a guard, not an evaluation — the first node reached
at ``max_plies`` plies from the root that is not terminal ends the search
with reason ``"horizon"``.

Transposition table
-------------------
A fixed array of ``table_bytes // ENTRY_BYTES`` slots (``ENTRY_BYTES`` is the
estimated size of one stored Python entry, key included; the C table's
entries are ``_endgame.ENTRY_BYTES`` = 144 bytes), in buckets of
``BUCKET`` = 4 slots, indexed by the hash of the position's key (both boards,
buttons, positions, income, bonus, the circle, the player to move, pending
leather, the leather spaces left, and a deferred player's patches and
leather patches — all that the value depends on, rule R3).
The full key is stored and compared, so a hash collision can never return a
wrong value. An entry holds a lower and an upper bound of the value and the
best move found. A new key goes to a free slot of its bucket, else replaces
the slot whose subtree took the fewest nodes to search (depth preference by
work); ``table_full`` says that an entry of another position was replaced.
Rule B's packing questions are answered once per search in a fixed cache of
:data:`PACK_CACHE_MIN` = 2**16 answers, grown at :data:`PACK_GROW_NODES`
(2**20) nodes to :func:`pack_slots` — ``table_bytes / 256`` rounded down to
a power of two, at most :data:`PACK_CACHE` = 2**20 (48 bytes each in C:
48 MiB with the default 256 MiB table) — and :data:`REACH_CACHE` patches'
reaches (with the C search's move lists, about 50 MiB in all at most): the
memory of a solve is bounded by ``table_bytes`` plus that. Why grow: the
cache is zero pages touched as used, which a short solve pays for more
than it gains; a long one takes fewer nodes with the large cache (2**16
slots throughout took 8-10% more nodes on 12- and 16-ply positions). Both
backends grow at the same packing question and move the answers the same
way, so their node counts stay equal.

Move ordering
-------------
The table's best move first; then the *killer* of the ply (the last move
that made a cut-off at that depth, if it is among the children); then, on a
turn, the patches in front of the token by the greedy rate (:func:`engine.policy.greedy_rate`) with
*advance* where the greedy player would put it (before the first patch whose
rate does not beat 1 button per space), each patch's placements by snugness
(sides touching covered cells or the edge, :func:`engine.board.contacts`);
leather cells by :func:`engine.policy.leather_scores`.

Pruning rules (each provably safe)
----------------------------------
*R1 — the last move of a player on space 53.* A player whose token stands on
53 never acts again except the leather placements of the move that took
them there (a player on 53 is never behind, so ``_end_turn`` never gives them
the turn). Their final score is buttons + 7·bonus − 2·empty; their buttons are
fixed, and every remaining placement of theirs covers the same number of
cells, so only whether they end up with the bonus tile can differ: two
placements after which they get it (or two after which they do not) lead
to the same score for them and the same game for the opponent.
The opponent's game does not look at this player's board at all except
through ``bonus_open``. Getting the bonus is never worse for them: for every
opponent strategy, the margin with it is ``m + 7 − o`` and without it
``m − o − 7·[the opponent completes a window]``, and the opponent's moves and
their effects are otherwise the same. So:

- a **buy** that moves its player to 53: of all placements of that patch only
  one is searched, one after which the bonus is still reachable by that
  player this move (the bonus is open and some 7×7 window misses at most as
  many cells as leather patches the move takes, counting the buy itself), if
  any placement allows that, else the first legal placement. The placement
  chosen is the best placement of that patch: with ``all_moves`` a buy of
  that patch is reported with this placement.
- a **leather placement** by a player on 53: one cell only — the first
  missing cell of a window that misses no more cells than leather patches
  are left to place (if the bonus is open and there is one), else the first
  empty cell.

*R2 — transpositions.* Positions with the same key have the same value
(the key holds everything the rules look at from there on); the table
returns it instead of searching again.

*R3 — what the key leaves out.* ``first_to_end`` (only the tie rule reads
it, never the margin) and each player's bought-patch list and leather count
(nothing reads them). And for a player on space 53 who has no leather left
to place, the key holds the number of covered cells instead of the board
and no income: by R1's argument that player never places, moves or earns
again, so the rest of the game reads their board only through its count
(their score) and their bonus flag (in the key). Such positions are the same
game and share one entry (a deferred player there is no longer relaxed: the
entry is the exact game's).

*B — the hindsight relaxation.* A player may be *deferred*: the patches they
buy and the leather patches they take from then on are not placed, only
known to fit into their empty cells all at once (a packing exists; it is
looked for again at each buy, so its places may change with hindsight).
Their score counts those cells; a buy is allowed when the patch fits with
the others; they get the bonus tile the moment some packing of what they
have bought, with their leather patches, completes a 7×7 window (if it is
still open). Every move of the real game is still a move of this one
(placed patches are a packing), their score is the same, and they get the
bonus no later; the other player's moves and their effects do not depend on
the deferred player's board. So the deferred game's value is a bound of the
real one on the deferred player's side: at least it for player 0, at most
it for player 1 (the same holds from any position, by induction over the
game, and for both players deferred at once: each relaxation is a bound of
the game it relaxes). A packing question that takes more than
:data:`PACK_STEPS` steps of its depth-first search is answered "yes": more
moves for the deferred player, still a bound. At a node where the mover
places exactly, each group of at least :data:`MIN_GROUP` moves — all
placements of one patch, or all leather cells — is first bounded at once by
one null-window search of the position after it with the mover deferred
(``ab_after``), again whenever the window moved: when the bound falls on
the wrong side of the window, no move of the group is searched. Deferred
players have one move per patch, so these searches are small; the
relaxation is mostly exact (on sampled groups 6 plies from the end, every
group's bound was its best placement's value).

``all_moves=True`` gives every distinct root move its exact value: *advance*,
each leather cell (all of them: R1 is not applied to the root's leather),
and each patch — root buys of the same patch are collapsed to the best
placement of that patch (its value is the maximum over its placements).
Without it only the best move is proven exactly and only it is returned.

Backends
--------
``backend="c"`` runs the alpha-beta and the packing in
``engine/_core/endgame.c`` (extension ``quiltsolve.engine._endgame``, on the
game core's ``engine/_core/state.h``), ``"python"`` in :class:`_Search` and
:class:`_Packer` here; the driver, ``all_moves`` and the principal variation
(:func:`_line`) are shared Python. Both search the same children in the same
order with the same table semantics and ask the same packing questions with
the same step counts (their packing caches even share their slots), so
whenever neither table replaced an entry they give the same value, moves,
line, reports and node count (``tests/engine/test_endgame.py`` checks it).
A *node* is a position searched or a step of a packing question; every
:data:`CHECK_EVERY` nodes the stop token and the clock are looked at (the C
search releases the GIL and takes it back only to call ``stop.is_set()``);
``QUILTSOLVE_PURE_PYTHON=1`` makes the default the Python search.
"""

from __future__ import annotations

import math
import os
import time
import warnings
from dataclasses import dataclass
from typing import Any, Iterator, Protocol

from quiltsolve.solver import PATCH_MASKS

from .actions import ADVANCE, LEATHER_ACTIONS, Action, Buy, PlaceLeather
from .board import contact_planes
from .core import PURE_PYTHON_ENV, action_of, action_tuple, core_tables
from .policy import ADVANCE_RATE, GREEDY_RATES, leather_scores
from .state import AREA, COST, INCOME, TIME, GameState
from .track import BOARD_CELLS, BONUS_MASKS, BONUS_POINTS, EMPTY_PENALTY, END, FULL, INCOME_UP_TO, PAYOUTS_AFTER

__all__ = ["BACKENDS", "ENTRY_BYTES", "EndgameArgumentError", "EndgameResult", "MIN_TABLE_BYTES", "ProvenMove",
           "SolveProgress", "Stop", "c_available", "solve", "solve_progress"]

ENTRY_BYTES = 512
"""Bytes of one entry of the pure-Python table, key tuple, bounds, move and slot (measured ≈ 420, rounded up)."""
BUCKET = 4
"""Slots per bucket of the transposition table."""
MIN_TABLE_BYTES = BUCKET * ENTRY_BYTES
"""The smallest ``table_bytes``: one bucket."""
BACKENDS = ("c", "python")
CHECK_EVERY = 256
"""Nodes between two looks at the clock and the stop token."""
INF = 1 << 20


class EndgameArgumentError(ValueError):
    """A bad argument to :func:`solve`; the message names it."""


class Stop(Protocol):
    """Anything with ``is_set()`` (e.g. ``quiltsolve.solver.StopToken``)."""

    def is_set(self) -> bool:
        """True once the search should end."""
        ...


@dataclass(frozen=True)
class ProvenMove:
    """A root move and its exact value."""

    action: Action
    """A legal action of the position (an exact placement)."""
    margin: int
    """The game value after this action, for the player to move in the position asked about."""


@dataclass(frozen=True)
class EndgameResult:
    """What :func:`solve` found."""

    proven: bool
    """True only if the whole search finished (the value is exact)."""
    value: int | None
    """Final score of the player to move minus the other's under perfect play; None if not proven."""
    moves: tuple[ProvenMove, ...]
    """Proven root moves, best first (all distinct ones with ``all_moves``); empty if not proven."""
    line: tuple[Action, ...]
    """A principal variation reaching ``value``, to the end of the game (empty if not proven)."""
    nodes: int
    """Nodes searched."""
    table_full: bool
    """The transposition table filled up (entries of other positions were replaced)."""
    elapsed: float
    """Seconds."""
    reason: str
    """``"solved"``, ``"horizon"`` (max_plies), ``"time"``, ``"stopped"`` or ``"terminal"``."""


def c_available() -> bool:
    """Whether the compiled solver (``quiltsolve.engine._endgame``) is importable."""
    return _C is not None


try:  # the optional compiled solver (built by setup.py when a compiler is present)
    import quiltsolve.engine._endgame as _C
except ImportError:  # pragma: no cover - depends on the build
    _C = None  # type: ignore[assignment]
    if os.environ.get(PURE_PYTHON_ENV) != "1":
        warnings.warn("quiltsolve.engine._endgame is not built: the endgame solver runs in pure Python "
                      "(same answers, about 40x slower); install with a C compiler to build it", RuntimeWarning,
                      stacklevel=2)
else:
    _C._init_tables(core_tables())


class _Abort(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _margin(s: GameState) -> int:
    a, b = s.players
    return a.score() - b.score()


def _key(s: GameState) -> tuple[Any, ...]:
    """The table key of ``s``: what its value depends on (rule R3 in the module docstring)."""
    a, b = s.players
    ka = (a.board, a.income) if a.position != END or (s.leather_to_place and s.current_player() == 0) \
        else (a.board.bit_count(), 0)
    kb = (b.board, b.income) if b.position != END or (s.leather_to_place and s.current_player() == 1) \
        else (b.board.bit_count(), 0)
    return (ka, a.buttons, a.position, a.bonus, kb, b.buttons, b.position, b.bonus, s._circle,
            s.current_player(), s.leather_to_place, s.leather)


def _bonus_reachable(board: int, leathers: int) -> bool:
    """Whether some 7×7 window misses at most ``leathers`` cells of ``board``."""
    for w in BONUS_MASKS:
        if (w & ~board).bit_count() <= leathers:
            return True
    return False


def _leather_taken(s: GameState, target: int) -> int:
    """Leather patches a move of the current player to ``target`` takes (before the room limit)."""
    n = 0
    for x in s.leather:
        if x <= target:
            n += 1
    return n


def _last_buy_placement(s: GameState, pid: int, masks: list[int]) -> int:
    """Rule R1 for a buy that moves its player to 53: the one placement searched."""
    if not s.bonus_open:
        return masks[0]
    p = s.players[s.current_player()]
    target = min(END, p.position + TIME[pid])
    empty_after = 81 - p.board.bit_count() - masks[0].bit_count()
    leathers = min(_leather_taken(s, target), empty_after)
    for m in masks:
        if _bonus_reachable(p.board | m, leathers):
            return m
    return masks[0]


def _last_leather_cell(s: GameState) -> int:
    """Rule R1 for a leather placement by a player on 53: the one cell searched (bit index)."""
    board = s.players[s.current_player()].board
    empty = FULL ^ board
    if s.bonus_open:
        k = s.leather_to_place
        best_w, best_n = 0, 82
        for w in BONUS_MASKS:
            n = (w & empty).bit_count()
            if n < best_n:
                best_w, best_n = w, n
        if 0 < best_n <= k:
            miss = best_w & empty
            return (miss & -miss).bit_length() - 1
    return (empty & -empty).bit_length() - 1


def _children(s: GameState) -> list[Action]:
    """The actions searched at ``s`` (pruned by R1 only), in the heuristic order."""
    p = s.players[s.current_player()]
    board = p.board
    if s.leather_to_place:
        if p.position == END:
            return [LEATHER_ACTIONS[_last_leather_cell(s)]]
        return [LEATHER_ACTIONS[i] for _, i in leather_scores(board, s.bonus_open)]
    rates = GREEDY_RATES[PAYOUTS_AFTER[p.position]]
    buttons = p.buttons
    opts = [(rates[pid], pid) for pid in s.front_patches() if COST[pid] <= buttons]
    opts.sort(key=lambda x: -x[0])
    out: list[Action] = []
    advanced = False
    planes: tuple[int, int, int] | None = None
    for rate, pid in opts:
        masks = [m for m in PATCH_MASKS[pid] if not m & board]
        if not masks:
            continue
        if not advanced and rate <= ADVANCE_RATE:
            out.append(ADVANCE)
            advanced = True
        if p.position + TIME[pid] >= END:
            out.append(Buy(pid, _last_buy_placement(s, pid, masks)))
            continue
        if planes is None:
            planes = contact_planes(board)
        b0, b1, b2 = planes
        scored = [((m & b0).bit_count() + 2 * (m & b1).bit_count() + 4 * (m & b2).bit_count(), m) for m in masks]
        scored.sort(key=lambda x: -x[0])
        out.extend(Buy(pid, m) for _, m in scored)
    if not advanced:
        out.append(ADVANCE)
    return out


# ---------------------------------------------------------------- the hindsight relaxation (rule B)
PACK_STEPS = 500
"""Search steps one packing question may take; past them the answer is "yes" (optimistic, so still a bound)."""
MIN_GROUP = 2
"""A group of moves (one patch's placements, or the leather cells) gets a relaxation bound from this size."""
PACK_CACHE = 1 << 20
"""The most packing answers remembered per search (:func:`pack_slots`; 48 bytes each in C)."""
PACK_CACHE_MIN = 1 << 16
"""The fewest (:func:`pack_slots`): a search starts with these."""
PACK_GROW_NODES = 1 << 20
"""The node count from which a search's packing cache has all its :func:`pack_slots` (until then
:data:`PACK_CACHE_MIN`: the pages of a large cache cost a short solve more than it saves)."""
REACH_CACHE = 1 << 12
"""Patches' reaches (:meth:`_Packer.reach`) remembered per search."""
LEATHER_GROUP = -1


class _Steps(Exception):
    pass


def _step(steps: list[Any]) -> None:
    """One step of a packing search: ``steps = [left, tick]``; out of steps raises :class:`_Steps`, else
    ``tick()`` counts the step as a node of the search (which looks at the clock and the stop token every
    :data:`CHECK_EVERY` nodes, raising ``_Abort``)."""
    steps[0] -= 1
    if steps[0] < 0:
        raise _Steps
    steps[1]()


def _inside(pid: int, region: int) -> list[int]:
    """Placements of ``pid`` inside ``region``, in ``PATCH_MASKS`` order."""
    return [m for m in PATCH_MASKS[pid] if not m & ~region]


def _fit(region: int, pieces: tuple[int, ...], steps: list[Any]) -> int | None:
    """The cells of a packing of all ``pieces`` (patch ids) into ``region`` at once, none overlapping, or None.

    Depth first: the piece with the fewest places in the region first (ties: the lower id), its places in
    ``PATCH_MASKS`` order.
    """
    if not pieces:
        return 0
    _step(steps)
    best_i, best = -1, None
    for i, pid in enumerate(pieces):
        ms = _inside(pid, region)
        if not ms:
            return None
        if best is None or len(ms) < len(best):
            best_i, best = i, ms
    rest = pieces[:best_i] + pieces[best_i + 1:]
    for m in best:  # type: ignore[union-attr]
        r = _fit(region & ~m, rest, steps)
        if r is not None:
            return r | m
    return None


def _cover(region: int, pieces: tuple[int, ...], need: int, leathers: int, steps: list[Any]) -> bool:
    """Whether ``pieces`` fit into ``region`` at once leaving at most ``leathers`` cells of ``need`` uncovered.

    Cut when a piece fits nowhere, when more cells of ``need`` than ``leathers`` lie under no placement,
    or when the most each piece can cover of them does not add up; else the lowest uncovered cell of
    ``need`` is covered by a placement of some piece, or (if a leather patch is left) by a leather patch.
    """
    left = need & region
    n = left.bit_count()
    if n <= leathers:
        return _fit(region, pieces, steps) is not None
    _step(steps)
    under = 0
    most = leathers
    for pid in pieces:
        top = -1
        for m in PATCH_MASKS[pid]:
            if not m & ~region:
                under |= m
                k = (m & left).bit_count()
                if k > top:
                    top = k
        if top < 0:
            return False
        most += top
    if most < n or (left & ~under).bit_count() > leathers:
        return False
    c = left & -left
    for i, pid in enumerate(pieces):
        rest = pieces[:i] + pieces[i + 1:]
        for m in PATCH_MASKS[pid]:
            if m & c and not m & ~region and _cover(region & ~m, rest, need, leathers, steps):
                return True
    return bool(leathers) and _cover(region & ~c, pieces, need, leathers - 1, steps)


def _pieces(bits: int) -> tuple[int, ...]:
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return tuple(out)


_M64 = (1 << 64) - 1


def pack_slots(table_bytes: int) -> int:
    """Slots of a search's packing cache: ``table_bytes // 256`` rounded down to a power of two, between
    :data:`PACK_CACHE_MIN` and :data:`PACK_CACHE` (the C search sizes its cache the same way).

    >>> pack_slots(256 * 2**20) == PACK_CACHE, pack_slots(2**20) == PACK_CACHE_MIN, pack_slots(64 * 2**20)
    (True, True, 262144)
    """
    n = PACK_CACHE_MIN
    while n < PACK_CACHE and 2 * n * 256 <= table_bytes:
        n *= 2
    return n


def _pack_slot(region: int, bits: int, leathers: int, slots: int = PACK_CACHE) -> int:
    """The packing cache's slot of a question (the C search's hash, so that both caches hold the same)."""
    h = ((region & _M64) ^ (((region >> 64) * 0x9E3779B97F4A7C15) & _M64) ^ ((bits * 0xBF58476D1CE4E5B9) & _M64)
         ^ (((leathers + 2) * 0x94D049BB133111EB) & _M64))
    h ^= h >> 29
    h = (h * 0xBF58476D1CE4E5B9) & _M64
    h ^= h >> 32
    return h & (slots - 1)


class _Packer:
    """The packing questions of the relaxation, answered exactly within :data:`PACK_STEPS` (else "yes").

    A direct-mapped cache of ``slots`` answers (:func:`pack_slots`), the same slots as the C search's: a
    question whose set less one patch has a packing in the cache first tries the last patch in the cells that
    packing leaves (the same answer, found sooner), so both searches take the same steps and look at the clock
    and the stop token at the same moments.
    """

    def __init__(self, tick: Any, slots: int = PACK_CACHE, nodes: Any = None,
                 grow_nodes: int = PACK_GROW_NODES) -> None:
        """``slots``: the cache's size; with ``nodes`` (the search's node count, a callable) it starts with
        :data:`PACK_CACHE_MIN` slots and grows to ``slots`` at the first question from ``grow_nodes``
        (:data:`PACK_GROW_NODES`) nodes on (its answers moved to their new slots in slot order, a later one
        replacing an earlier one: the C search does the same, at the same question)."""
        self.grow_to = slots
        self.slots = slots if nodes is None else min(slots, PACK_CACHE_MIN)
        self.nodes = nodes
        self.grow_nodes = grow_nodes
        self.cache: list[tuple[int, int, int, bool, int] | None] = [None] * self.slots
        self.reaches: dict[tuple[int, int], tuple[int, tuple[int, ...]]] = {}
        self.tick = tick

    def _grow(self) -> None:
        if self.slots < self.grow_to and self.nodes() >= self.grow_nodes:
            n = self.grow_to
            cache: list[tuple[int, int, int, bool, int] | None] = [None] * n
            for e in self.cache:
                if e is not None:
                    cache[_pack_slot(e[0], e[1], e[2], n)] = e
            self.cache, self.slots = cache, n

    def reach(self, region: int, pid: int) -> tuple[int, tuple[int, ...]]:
        """What ``pid`` can do in ``region``: the cells under its placements there, and the most cells of each
        7x7 window's part of the region one placement covers (-1: none fits)."""
        k = (region, pid)
        r = self.reaches.get(k)
        if r is None:
            needs = [w & region for w in BONUS_MASKS]
            tops = [-1] * len(needs)
            under = 0
            for m in PATCH_MASKS[pid]:
                if not m & ~region:
                    under |= m
                    for i, need in enumerate(needs):
                        c = (m & need).bit_count()
                        if c > tops[i]:
                            tops[i] = c
            r = (under, tuple(tops))
            if len(self.reaches) >= REACH_CACHE:
                self.reaches.clear()
            self.reaches[k] = r
        return r

    def _get(self, region: int, bits: int, leathers: int) -> tuple[int, int, int, bool, int] | None:
        e = self.cache[_pack_slot(region, bits, leathers, self.slots)]
        if e is not None and e[0] == region and e[1] == bits and e[2] == leathers:
            return e
        return None

    def fits(self, region: int, bits: int) -> bool:
        """Whether the patches of ``bits`` fit into ``region`` at once."""
        self._grow()
        e = self._get(region, bits, -1)
        if e is not None:
            return e[3]
        pieces = _pieces(bits)
        r: bool | None = None
        used = 0
        if sum(AREA[pid] for pid in pieces) > region.bit_count():
            r = False
        elif len(pieces) > 1:
            for pid in pieces:
                w = self._get(region, bits & ~(1 << pid), -1)
                if w is None or not w[4]:
                    continue
                free = region & ~w[4]
                for m in PATCH_MASKS[pid]:
                    if not m & ~free:
                        r, used = True, w[4] | m
                        break
                if r is not None:
                    break
        if r is None:
            try:
                cells = _fit(region, pieces, [PACK_STEPS, self.tick])
                r, used = cells is not None, cells or 0
            except _Steps:
                r, used = True, 0
        self.cache[_pack_slot(region, bits, -1, self.slots)] = (region, bits, -1, r, used)
        return r

    def claims(self, region: int, bits: int, leathers: int) -> bool:
        """Whether the patches of ``bits`` and ``leathers`` 1x1 patches fit into ``region`` completing a 7x7 window."""
        self._grow()
        e = self._get(region, bits, leathers)
        if e is not None:
            return e[3]
        pieces = _pieces(bits)
        area = sum(AREA[pid] for pid in pieces)
        r = False
        steps = [PACK_STEPS, self.tick]
        try:
            for i, w in enumerate(BONUS_MASKS):
                need = w & region
                n = need.bit_count()
                # the pieces and leathers of a deferred player always fit at once (they were checked)
                if n <= leathers:
                    r = True
                    break
                if n > leathers + area:
                    continue
                # _cover's first cut, from each patch's reach (no step): most the patches cover of the
                # window, the window's cells under none of them
                most, under = leathers, 0
                for pid in pieces:
                    u, tops = self.reach(region, pid)
                    if tops[i] < 0:
                        most = -1
                        break
                    most += tops[i]
                    under |= u
                if most < n or (need & ~under).bit_count() > leathers:
                    continue
                if _cover(region, pieces, need, leathers, steps):
                    r = True
                    break
        except _Steps:
            r = True
        self.cache[_pack_slot(region, bits, leathers, self.slots)] = (region, bits, leathers, r, 0)
        return r


class _DState(GameState):
    """A search position: a :class:`GameState` whose players may be *deferred* (rule B).

    ``dfr[i]`` is None for a player who places patches as the rules say, else
    ``(pieces, leathers, cells)``: the patch ids bought since (a bit set) and the
    leather patches taken since, not placed on ``players[i].board`` but known to fit
    into its empty cells together; ``cells`` counts their cells.
    """

    __slots__ = ("dfr",)
    dfr: tuple[tuple[int, int, int] | None, tuple[int, int, int] | None]

    def clone(self) -> "_DState":
        s = _DState.__new__(_DState)
        s.edition = self.edition
        s.players = (self.players[0].copy(), self.players[1].copy())
        s._circle = self._circle
        s.leather = self.leather
        s._cur = self._cur
        s._pending = self._pending
        s.first_to_end = self.first_to_end
        s._bonus_open = self._bonus_open
        s._over = self._over
        s.dfr = self.dfr
        return s


def _dstate(s: GameState) -> _DState:
    if type(s) is _DState:
        return s
    d = _DState.__new__(_DState)
    d.edition = s.edition
    d.players = (s.players[0].copy(), s.players[1].copy())
    d._circle = s._circle
    d.leather = s.leather
    d._cur = s._cur
    d._pending = s._pending
    d.first_to_end = s.first_to_end
    d._bonus_open = s._bonus_open
    d._over = s._over
    d.dfr = (None, None)
    return d


def _deferred(s: GameState, defer: int) -> _DState:
    """``s`` as a search position, the players of the bits of ``defer`` deferred."""
    d = _dstate(s)
    if defer:
        if d is s:
            d = d.clone()
        d.dfr = ((0, 0, 0) if defer & 1 else d.dfr[0], (0, 0, 0) if defer & 2 else d.dfr[1])
    return d


def _cells(s: _DState, i: int) -> int:
    """Covered cells of player ``i``, deferred ones included."""
    d = s.dfr[i]
    n = s.players[i].board.bit_count()
    return n if d is None else n + d[2]


def _dmargin(s: _DState) -> int:
    a, b = s.players
    sa = a.buttons + (BONUS_POINTS if a.bonus else 0) - EMPTY_PENALTY * (BOARD_CELLS - _cells(s, 0))
    sb = b.buttons + (BONUS_POINTS if b.bonus else 0) - EMPTY_PENALTY * (BOARD_CELLS - _cells(s, 1))
    return sa - sb


def _dkey(s: _DState) -> tuple[Any, ...]:
    """The table key (rule R3; a deferred player's pieces and leathers are part of it)."""
    a, b = s.players
    cur = s._cur
    pend = s._pending
    ka: tuple[Any, ...] = (a.board, a.income, s.dfr[0]) if a.position != END or (pend and cur == 0) \
        else (_cells(s, 0), 0, None)
    kb: tuple[Any, ...] = (b.board, b.income, s.dfr[1]) if b.position != END or (pend and cur == 1) \
        else (_cells(s, 1), 0, None)
    return (ka, a.buttons, a.position, a.bonus, kb, b.buttons, b.position, b.bonus, s._circle, cur, pend, s.leather)


def _set_dfr(s: _DState, i: int, d: tuple[int, int, int] | None) -> None:
    s.dfr = (d, s.dfr[1]) if i == 0 else (s.dfr[0], d)


def _dmove(s: _DState, cur: int, target: int) -> None:
    """``GameState._move`` for a deferred player: the room for leather counts the deferred cells."""
    p = s.players[cur]
    a = p.position
    if target > END:
        target = END
    p.position = target
    n = INCOME_UP_TO[target] - INCOME_UP_TO[a]
    if n:
        p.buttons += n * p.income
    lea = s.leather
    if lea and lea[0] <= target:
        k = 1
        while k < len(lea) and lea[k] <= target:
            k += 1
        s.leather = lea[k:]
        empty = BOARD_CELLS - _cells(s, cur)
        s._pending = k if k < empty else empty
    if target == END and s.first_to_end is None:
        s.first_to_end = cur
    if not s._pending:
        s._end_turn(cur)


def _dclaim(s: _DState, cur: int, packer: _Packer) -> None:
    d = s.dfr[cur]
    assert d is not None
    if s._bonus_open and packer.claims(FULL ^ s.players[cur].board, d[0], d[1]):
        s.players[cur].bonus = True
        s._bonus_open = False


def _dbuy(s: _DState, pid: int, packer: _Packer) -> None:
    """The current player buys ``pid`` deferred (the player becomes deferred if they were not)."""
    cur = s._cur
    p = s.players[cur]
    d = s.dfr[cur] or (0, 0, 0)
    circle = s._circle
    i = circle.index(pid)
    p.buttons -= COST[pid]
    p.income += INCOME[pid]
    p.patches += (pid,)
    s._circle = circle[i + 1:] + circle[:i]
    _set_dfr(s, cur, (d[0] | 1 << pid, d[1], d[2] + AREA[pid]))
    _dclaim(s, cur, packer)
    _dmove(s, cur, p.position + TIME[pid])


def _dleather(s: _DState, packer: _Packer) -> None:
    """The current player places a leather patch deferred (the player becomes deferred if they were not)."""
    cur = s._cur
    p = s.players[cur]
    d = s.dfr[cur] or (0, 0, 0)
    _set_dfr(s, cur, (d[0], d[1] + 1, d[2] + 1))
    p.leather += 1
    s._pending -= 1
    if _cells(s, cur) == BOARD_CELLS:
        s._pending = 0
    _dclaim(s, cur, packer)
    if not s._pending:
        s._end_turn(cur)


def _dadvance(s: _DState) -> None:
    cur = s._cur
    p = s.players[cur]
    target = s.players[1 - cur].position + 1
    if target > END:
        target = END
    p.buttons += target - p.position
    _dmove(s, cur, target)


def _dapply(s: _DState, act: Action, packer: _Packer) -> None:
    """Play ``act`` (a deferred player's buy has mask 0; its leather placement any cell)."""
    if s.dfr[s._cur] is None:
        s.apply_action(act)
    elif s._pending:
        _dleather(s, packer)
    elif type(act) is Buy:
        _dbuy(s, act.patch_id, packer)
    else:
        _dadvance(s)


def _dchildren(s: _DState, packer: _Packer) -> list[Action]:
    """The moves of a deferred player: one leather placement; advance and one buy per patch that still fits
    with the others, in the greedy order of :func:`_children`."""
    cur = s._cur
    d = s.dfr[cur]
    assert d is not None
    if s._pending:
        return [LEATHER_ACTIONS[0]]
    p = s.players[cur]
    region = FULL ^ p.board
    room = BOARD_CELLS - p.board.bit_count() - d[2]
    rates = GREEDY_RATES[PAYOUTS_AFTER[p.position]]
    opts = [(rates[pid], pid) for pid in s.front_patches()
            if COST[pid] <= p.buttons and AREA[pid] <= room and packer.fits(region, d[0] | 1 << pid)]
    opts.sort(key=lambda x: -x[0])
    out: list[Action] = []
    advanced = False
    for rate, pid in opts:
        if not advanced and rate <= ADVANCE_RATE:
            out.append(ADVANCE)
            advanced = True
        out.append(Buy(pid, 0))
    if not advanced:
        out.append(ADVANCE)
    return out


def _group(act: Action) -> int | None:
    """The relaxation group of a move of a player who places exactly: its patch, the leather cells, or none."""
    t = type(act)
    if t is Buy:
        return act.patch_id  # type: ignore[union-attr]
    if t is PlaceLeather:
        return LEATHER_GROUP
    return None


class _Search:
    """One solve: the table, the counters and the alpha-beta recursion."""

    def __init__(self, table_bytes: int, deadline: float | None, stop: Stop | None, max_plies: int | None,
                 relax: bool = True, grow_nodes: int = PACK_GROW_NODES):
        n = BUCKET
        while n * 2 * ENTRY_BYTES <= table_bytes:
            n *= 2
        self.size = n
        self.mask = n - 1
        # slot: (key, lo, hi, move, work) or None
        self.table: list[tuple[Any, int, int, Action | None, int] | None] = [None] * n
        self.table_full = False
        self.nodes = 0
        self.deadline = deadline
        self.stop = stop
        self.max_plies = max_plies
        self.killers: dict[int, Action] = {}
        self.relax = relax
        self.packer = _Packer(self.tick, pack_slots(table_bytes), lambda: self.nodes, grow_nodes)

    # ------------------------------------------------------------- table
    def probe(self, key: Any) -> tuple[Any, int, int, Action | None, int] | None:
        i = hash(key) & self.mask & ~(BUCKET - 1)
        table = self.table
        for j in range(i, i + BUCKET):
            e = table[j]
            if e is not None and e[0] == key:
                return e
        return None

    def store(self, key: Any, lo: int, hi: int, move: Action | None, work: int) -> None:
        i = hash(key) & self.mask & ~(BUCKET - 1)
        table = self.table
        free = -1
        for j in range(i, i + BUCKET):
            e = table[j]
            if e is None:
                if free < 0:
                    free = j
            elif e[0] == key:
                table[j] = (key, max(lo, e[1]), min(hi, e[2]), move if move is not None else e[3], e[4] + work)
                return
        if free < 0:
            self.table_full = True
            free = i
            for j in range(i + 1, i + BUCKET):
                if table[j][4] < table[free][4]:  # type: ignore[index]
                    free = j
        table[free] = (key, lo, hi, move, work)

    def probe_move(self, s: GameState, defer: int = 0) -> Action | None:
        e = self.probe(_dkey(_deferred(s, defer)))
        return None if e is None else e[3]

    def children(self, s: GameState) -> list[Action]:
        return _children(s)

    # ------------------------------------------------------------ search
    def tick(self) -> None:
        """A packing step: counted as a node."""
        self.nodes += 1
        if not self.nodes % CHECK_EVERY:
            self.check()

    def check(self) -> None:
        if self.stop is not None and self.stop.is_set():
            raise _Abort("stopped")
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise _Abort("time")

    def ab(self, s: GameState, alpha: int, beta: int, ply: int, defer: int = 0) -> int:
        """Fail-soft alpha-beta on ``s``; ``defer``: bit 0 / bit 1 = player 0 / 1 deferred from the start (rule B:
        then the value is that relaxation's, a bound of the game's)."""
        return self._ab(_deferred(s, defer), alpha, beta, ply)

    def ab_after(self, s: GameState, act: Action, alpha: int, beta: int, ply: int) -> int:
        """Fail-soft alpha-beta on the position after any move of ``act``'s group (a buy of its patch, or a
        leather placement) by the mover, deferred from there on: a bound of every move of the group."""
        return self._ab(self._relaxed(_dstate(s), act), alpha, beta, ply)

    def _relaxed(self, s: _DState, act: Action) -> _DState:
        """``s`` after any move of ``act``'s group, the mover deferred from here on (rule B)."""
        c = s.clone()
        if type(act) is Buy:
            _dbuy(c, act.patch_id, self.packer)
        else:
            _dleather(c, self.packer)
        return c

    def _ab(self, s: _DState, alpha: int, beta: int, ply: int) -> int:
        """Fail-soft alpha-beta: the value if inside (alpha, beta), else a bound on the side it fell.

        The value is the one of the game ``s`` stands for: with a deferred player, that player's
        relaxation (rule B).
        """
        self.nodes += 1
        if not self.nodes % CHECK_EVERY:
            self.check()
        if s._over:
            return _dmargin(s)
        if self.max_plies is not None and ply >= self.max_plies:
            raise _Abort("horizon")
        key = _dkey(s)
        e = self.probe(key)
        tt_move = None
        if e is not None:
            lo, hi = e[1], e[2]
            if lo == hi or lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
            tt_move = e[3]
        start = self.nodes
        cur = s._cur
        exact = s.dfr[cur] is None
        acts = _children(s) if exact else _dchildren(s, self.packer)
        if tt_move is not None and acts[0] != tt_move:
            try:
                acts.remove(tt_move)
                acts.insert(0, tt_move)
            except ValueError:
                pass
        killer = self.killers.get(ply)
        if killer is not None:   # the last move that cut off at this ply, right after the table's move
            at = 1 if tt_move is not None else 0
            for i in range(at + 1, len(acts)):
                if acts[i] == killer:
                    acts.insert(at, acts.pop(i))
                    break
        # rule B: the groups of an exact mover's moves that are large enough to be bounded at once
        sizes: dict[int, int] = {}
        if self.relax and exact:
            for act in acts:
                g = _group(act)
                if g is not None:
                    sizes[g] = sizes.get(g, 0) + 1
        checked: dict[int, int] = {}
        cut: set[int] = set()
        best_move: Action | None = None
        maxing = cur == 0
        best = -INF if maxing else INF
        a, b = alpha, beta
        first = True
        for act in acts:
            if sizes:
                g = _group(act)
                if g is not None and sizes[g] >= MIN_GROUP:
                    if g in cut:
                        continue
                    edge = a if maxing else b
                    if checked.get(g) != edge:   # a bound of the whole group, again whenever the window moved
                        checked[g] = edge
                        c = self._relaxed(s, act)
                        if maxing:
                            rb = self._ab(c, a, a + 1, ply + 1)
                            if rb <= a:
                                cut.add(g)
                                if rb > best:
                                    best, best_move = rb, act
                                continue
                        else:
                            rb = self._ab(c, b - 1, b, ply + 1)
                            if rb >= b:
                                cut.add(g)
                                if rb < best:
                                    best, best_move = rb, act
                                continue
            c = s.clone()
            _dapply(c, act, self.packer)
            if maxing:
                if first:
                    v = self._ab(c, a, b, ply + 1)
                else:  # principal variation search: a null window first, the full one if it fails high
                    v = self._ab(c, a, a + 1, ply + 1)
                    if a < v < b:
                        v = self._ab(c, a, b, ply + 1)
                first = False
                if v > best:
                    best, best_move = v, act
                    if v > a:
                        a = v
                        if a >= b:
                            self.killers[ply] = act
                            break
            else:
                if first:
                    v = self._ab(c, a, b, ply + 1)
                else:
                    v = self._ab(c, b - 1, b, ply + 1)
                    if a < v < b:
                        v = self._ab(c, a, b, ply + 1)
                first = False
                if v < best:
                    best, best_move = v, act
                    if v < b:
                        b = v
                        if a >= b:
                            self.killers[ply] = act
                            break
        # A move is kept only when it proves the bound stored: not when every move of the mover failed (the
        # maximiser at or below alpha, the minimiser at or above beta), where the "best" is only the loosest
        # fail-soft bound (a group's relaxed bound, say) and its move may be worse than the entry's value.
        # _mover_move reads the table's move as the move of a proven value.
        if best <= alpha:
            self.store(key, -INF, best, None if maxing else best_move, self.nodes - start)
        elif best >= beta:
            self.store(key, best, INF, best_move if maxing else None, self.nodes - start)
        else:
            self.store(key, best, best, best_move, self.nodes - start)
        return best


_ABORTS = {1: "time", 2: "stopped", 3: "horizon"}


class _CSearch:
    """The compiled search (``engine/_core/endgame.c``) behind the same three calls as :class:`_Search`."""

    def __init__(self, table_bytes: int, deadline: float | None, stop: Stop | None, max_plies: int | None,
                 relax: bool = True, grow_nodes: int = PACK_GROW_NODES):
        assert _C is not None
        self._s = _C.Searcher(table_bytes, -1 if max_plies is None else max_plies,
                              -1.0 if deadline is None else deadline, stop, relax, grow_nodes)

    @property
    def nodes(self) -> int:
        return int(self._s.nodes)

    @property
    def table_full(self) -> bool:
        return bool(self._s.table_full)

    def ab(self, s: GameState, alpha: int, beta: int, ply: int, defer: int = 0) -> int:
        code, v = self._s.ab(s.core_tuple(), alpha, beta, ply, defer)
        if code:
            raise _Abort(_ABORTS[code])
        return int(v)

    def ab_after(self, s: GameState, act: Action, alpha: int, beta: int, ply: int) -> int:
        code, v = self._s.ab_after(s.core_tuple(), action_tuple(act), alpha, beta, ply)
        if code:
            raise _Abort(_ABORTS[code])
        return int(v)

    def children(self, s: GameState) -> list[Action]:
        return [action_of(a) for a in self._s.children(s.core_tuple())]

    def probe_move(self, s: GameState, defer: int = 0) -> Action | None:
        m = self._s.probe_move(s.core_tuple(), defer)
        return None if m is None else action_of(m)


class _Backend(Protocol):
    """What the root logic needs from a search (the pure-Python :class:`_Search` or the compiled one)."""

    @property
    def nodes(self) -> int: ...

    @property
    def table_full(self) -> bool: ...

    def ab(self, s: GameState, alpha: int, beta: int, ply: int, defer: int = 0) -> int: ...

    def ab_after(self, s: GameState, act: Action, alpha: int, beta: int, ply: int) -> int: ...

    def children(self, s: GameState) -> list[Action]: ...

    def probe_move(self, s: GameState, defer: int = 0) -> Action | None: ...


def _line(search: _Backend, s: GameState, value: int, ply: int) -> list[Action]:
    """A principal variation from ``s`` (``ply`` plies below the root) whose value is ``value`` (player 0's margin).

    At each position the first child (table move first, then the search order) whose value a null-window
    search shows to equal ``value`` is played.
    """
    out: list[Action] = []
    s = s.clone()
    while not s.is_terminal():
        acts = search.children(s)
        tt = search.probe_move(s)
        if tt is not None and tt in acts:
            acts.remove(tt)
            acts.insert(0, tt)
        chosen = next((act for act in acts if _reaches(search, s, act, value, ply)), None)
        if chosen is None:  # pragma: no cover - would be a bug of the search
            raise AssertionError("no child reaches the proven value")
        out.append(chosen)
        s.apply_action(chosen)
        ply += 1
    if _margin(s) != value:  # pragma: no cover
        raise AssertionError("the principal variation does not reach the proven value")
    return out


def _check_args(state: Any, max_plies: Any, time_limit: Any, stop: Any, table_bytes: Any, all_moves: Any,
                backend: Any) -> str:
    if not isinstance(state, GameState):
        raise EndgameArgumentError(f"state: must be a GameState, got {type(state).__name__}")
    if max_plies is not None and (type(max_plies) is not int or max_plies < 0):
        raise EndgameArgumentError(f"max_plies: must be None or an integer >= 0, got {max_plies!r}")
    if time_limit is not None:
        if type(time_limit) not in (int, float) or not math.isfinite(time_limit) or time_limit <= 0:
            raise EndgameArgumentError(f"time_limit: must be None or a number of seconds > 0, got {time_limit!r}")
    if stop is not None and not callable(getattr(stop, "is_set", None)):
        raise EndgameArgumentError(f"stop: must have an is_set() method, got {type(stop).__name__}")
    if type(table_bytes) is not int or table_bytes < MIN_TABLE_BYTES:
        raise EndgameArgumentError(f"table_bytes: must be an integer >= {MIN_TABLE_BYTES}, got {table_bytes!r}")
    if type(all_moves) is not bool:
        raise EndgameArgumentError(f"all_moves: must be true or false, got {all_moves!r}")
    if backend is not None and backend not in BACKENDS:
        raise EndgameArgumentError(f"backend: must be None, 'c' or 'python', got {backend!r}")
    if backend == "c" and _C is None:
        raise EndgameArgumentError("backend: 'c' asked for but the compiled solver quiltsolve.engine._endgame "
                                   "is not built")
    if backend is None:
        return "c" if _C is not None and os.environ.get(PURE_PYTHON_ENV) != "1" else "python"
    return str(backend)


def _static_bounds(s: GameState) -> tuple[int, int]:
    """Sound bounds ``(lo, hi)`` on player 0's final margin under any play (rule S in the module docstring)."""
    a0 = _advance_only(s, 0)
    a1 = _advance_only(s, 1)
    return a0 - a1 - _extra(s, 1), a0 + _extra(s, 0) - a1


def _advance_only(s: GameState, i: int) -> int:
    """The score player ``i`` reaches by advancing to the end (a score they can always make sure of)."""
    p = s.players[i]
    sc = p.score()
    if s.leather_to_place and s.current_player() == i:
        sc += EMPTY_PENALTY * s.leather_to_place     # pending leather patches are placed whatever happens
    if p.position < END:
        sc += p.income * PAYOUTS_AFTER[p.position] + END - p.position
    return sc


def _extra(s: GameState, i: int) -> int:
    """At most how much more than :func:`_advance_only` player ``i`` can score."""
    p = s.players[i]
    bonus = BONUS_POINTS if s.bonus_open else 0
    pending = s.leather_to_place if s.current_player() == i else 0
    if p.position >= END:
        return bonus if pending else 0
    room = BOARD_CELLS - p.board.bit_count() - pending
    pa = PAYOUTS_AFTER[p.position]
    last = 0
    items = []
    for pid in s._circle:
        if AREA[pid] > room:
            continue
        g = EMPTY_PENALTY * AREA[pid] - COST[pid] + INCOME[pid] * pa
        last = max(last, g - 1)          # the last buy may be cut short by the end of the track: 1 space
        if g > TIME[pid]:
            items.append((g - TIME[pid], TIME[pid]))
    items.sort(key=lambda x: -x[0] / x[1])
    cap = END - p.position - 1          # the other buys all end before space END
    num, den = 0, 1                     # the fractional knapsack's value, num / den
    for gain, t in items:
        if cap <= 0:
            break
        if t <= cap:
            num += gain * den
            cap -= t
        else:
            num = num * t + gain * cap * den
            den *= t
            cap = 0
    leather = min(len(s.leather), max(0, room))
    return last + num // den + EMPTY_PENALTY * leather + bonus


@dataclass(frozen=True)
class SolveProgress:
    """One report of :func:`solve_progress`: what is proven so far.

    ``lower <= value <= upper`` is proven for the value of the position for
    the player to move (the final margin under perfect play, as
    :attr:`EndgameResult.value`); the interval narrows, report after report,
    until it closes. ``line``: the best line known so far, from the root,
    as the table holds it (not proven until the last report); ``stage``:
    ``"bounds"`` (the static bounds), ``"relaxed"`` (a bound from rule B's
    relaxation of one player), ``"test"`` (a null-window search of the
    position), ``"moves"`` (the value of one more root move, with
    ``all_moves``) or ``"done"``. Only the last report (``stage == "done"``)
    has ``result``: the :class:`EndgameResult`, proven or not (then the
    interval is still what was proven).
    """

    lower: int
    upper: int
    nodes: int
    elapsed: float
    line: tuple[Action, ...]
    stage: str
    result: EndgameResult | None = None


def _table_line(search: _Backend, s: GameState, first: Action | None = None, limit: int = 200) -> tuple[Action, ...]:
    """The line the table's moves make from ``s`` (``first`` instead of the root's own, if given)."""
    out: list[Action] = []
    s = s.clone()
    while not s.is_terminal() and len(out) < limit:
        m = first if first is not None and not out else search.probe_move(s)
        if m is None or not s.is_legal(m):
            break
        out.append(m)
        s.apply_action(m)
    return tuple(out)


ASPIRATION = 3
"""Rule B's lower bound is first searched in the window ``(hi - ASPIRATION - 1, hi + 1)`` (see the driver)."""


def _lower_relaxed(search: _Backend, s: GameState, ply: int, lo: int, hi: int) -> int:
    """Player 1's relaxation of ``s`` (rule B: a lower bound of the value), given ``lo <= value <= hi``: its value
    if that is ``>= lo``, else at most ``lo``. First with the aspiration window ``(a - 1, hi + 1)``,
    ``a = max(lo, hi - ASPIRATION)``; when that fails low its result ``v`` is an upper bound of the relaxation
    and the search is repeated with the window ``(lo - 1, v + 1)`` (unless ``v < lo``: nothing to gain)."""
    a = max(lo, hi - ASPIRATION)
    v = search.ab(s, a - 1, hi + 1, ply, 2)
    if lo <= v < a:
        v = search.ab(s, lo - 1, v + 1, ply, 2)
    return v


def _value(search: _Backend, s: GameState, ply: int, lo: int, hi: int) -> int:
    """The value of ``s`` (player 0's margin) given ``lo <= value <= hi``: the static bounds, both players'
    relaxations (rule B), then null-window searches halving the interval."""
    if s.is_terminal():
        return _margin(s)
    slo, shi = _static_bounds(s)
    lo, hi = max(lo, slo), min(hi, shi)
    if lo < hi:
        hi = min(hi, search.ab(s, lo - 1, hi + 1, ply, 1))
    if lo < hi:
        lo = max(lo, _lower_relaxed(search, s, ply, lo, hi))
    while lo < hi:
        g = (lo + hi + 1) // 2
        v = search.ab(s, g - 1, g, ply)
        if v >= g:
            lo = v
        else:
            hi = v
    return lo


def _reaches(search: _Backend, s: GameState, act: Action, value: int, ply: int) -> bool:
    """Whether ``act`` in ``s`` (``ply`` plies below the root) keeps the mover's value ``value`` (player 0's
    view): a null-window search of the position after it."""
    c = s.clone()
    c.apply_action(act)
    if s.current_player() == 0:
        return search.ab(c, value - 1, value, ply + 1) >= value
    return search.ab(c, value, value + 1, ply + 1) <= value


def _mover_move(search: _Backend, s: GameState, v: int, relaxed_move: Action | None) -> Action:
    """A move of the mover in ``s`` whose value is ``v`` (the position's, player 0's view).

    The candidates, in order: the move that proved the bound in a relaxed search, the table's move after a
    null-window test of ``v``, then every child in the search order; the first whose position a null-window
    search shows to keep ``v`` is the move. The first candidate nearly always holds (the table keeps a move
    only where it proves the bound stored), but no move is returned on the table's word alone: a move that
    misses ``v`` would make the principal variation fail (``_line``) and would be a wrong move shown as
    perfect.
    """
    if relaxed_move is not None and _reaches(search, s, relaxed_move, v, 0):
        return relaxed_move
    if s.current_player() == 0:
        got = search.ab(s, v - 1, v, 0)
        assert got >= v, "the value's best move"
    else:
        got = search.ab(s, v, v + 1, 0)
        assert got <= v, "the value's best move"
    move = search.probe_move(s)
    if move is not None and move != relaxed_move and _reaches(search, s, move, v, 0):
        return move
    for act in search.children(s):
        if act not in (relaxed_move, move) and _reaches(search, s, act, v, 0):
            return act
    raise AssertionError("no move reaches the proven value")  # pragma: no cover - would be a bug of the search


def _all_moves(search: _Backend, s: GameState, sign: int, value: int) -> Iterator[ProvenMove]:
    """Every distinct root move with its exact value (player to move's view), in the search order; the buys of
    one patch collapsed to its best placement (bounded at once by rule B first)."""
    maxing = s.current_player() == 0
    groups: list[list[Action]] = []
    by_patch: dict[int, list[Action]] = {}
    if s.leather_to_place:   # every cell, even where rule R1 would search one
        acts: list[Action] = [LEATHER_ACTIONS[i] for _, i in leather_scores(
            s.players[s.current_player()].board, s.bonus_open)]
    else:
        acts = search.children(s)
    for act in acts:
        if type(act) is Buy:
            if act.patch_id not in by_patch:
                by_patch[act.patch_id] = []
                groups.append(by_patch[act.patch_id])
            by_patch[act.patch_id].append(act)
        else:
            groups.append([act])
    for group in groups:
        # the group's bound: no placement of the patch does better than the relaxation (rule B)
        edge = (search.ab_after(s, group[0], -INF, INF, 1) if len(group) >= MIN_GROUP
                else (INF if maxing else -INF))
        best: int | None = None
        best_act = group[0]
        for act in group:
            if best is not None and (best >= edge if maxing else best <= edge):
                break
            c = s.clone()
            c.apply_action(act)
            if best is None:
                v = _value(search, c, 1, -INF, edge) if maxing else _value(search, c, 1, edge, INF)
            elif maxing:
                t = search.ab(c, best, best + 1, 1)
                if t <= best:
                    continue
                v = _value(search, c, 1, t, edge)
            else:
                t = search.ab(c, best - 1, best, 1)
                if t >= best:
                    continue
                v = _value(search, c, 1, edge, t)
            if best is None or (v > best if maxing else v < best):
                best, best_act = v, act
        assert best is not None
        yield ProvenMove(best_act, sign * best)


def _drive(search: _Backend, state: GameState, all_moves: bool, t0: float) -> Iterator[SolveProgress]:
    """The reports of one solve (see :func:`solve_progress`); the last one carries the result."""
    sign = 1 if state.current_player() == 0 else -1
    lo, hi = _static_bounds(state)
    move_lo: Action | None = None     # a move of player 0 / 1 that proved lo / hi (from a relaxed search)
    move_hi: Action | None = None
    line: tuple[Action, ...] = ()

    def report(stage: str, result: EndgameResult | None = None) -> SolveProgress:
        a, b = (lo, hi) if sign > 0 else (-hi, -lo)
        return SolveProgress(a, b, search.nodes, time.monotonic() - t0, line, stage, result)

    try:
        yield report("bounds")
        if lo < hi:      # player 0 deferred: an upper bound
            v = search.ab(state, lo - 1, hi + 1, 0, 1)
            if v < hi:
                hi = v
                move_hi = search.probe_move(state, 1) if sign < 0 else None
                line = _table_line(search, state, move_hi) if move_hi is not None else line
            yield report("relaxed")
        if lo < hi:      # player 1 deferred: a lower bound (first in an aspiration window below hi)
            v = _lower_relaxed(search, state, 0, lo, hi)
            if v > lo:
                lo = v
                move_lo = search.probe_move(state, 2) if sign > 0 else None
                line = _table_line(search, state, move_lo) if move_lo is not None else line
            yield report("relaxed")
        while lo < hi:   # null-window tests halving the interval
            g = (lo + hi + 1) // 2
            v = search.ab(state, g - 1, g, 0)
            if v >= g:
                lo = v
                move_lo = None
            else:
                hi = v
                move_hi = None
            line = _table_line(search, state)
            yield report("test")
        value = lo
        best = _mover_move(search, state, value, move_lo if sign > 0 else move_hi)
        after = state.clone()
        after.apply_action(best)
        line = (best, *_line(search, after, value, 1))
        moves = [ProvenMove(best, sign * value)]
        if all_moves:
            moves = []
            for m in _all_moves(search, state, sign, value):
                moves.append(m)
                yield report("moves")
            moves.sort(key=lambda m: -m.margin)   # stable: the search order on ties
            assert moves[0].margin == sign * value
            if moves[0].action != best:   # the line starts with the first move listed
                after = state.clone()
                after.apply_action(moves[0].action)
                line = (moves[0].action, *_line(search, after, value, 1))
    except _Abort as e:
        yield report("done", EndgameResult(False, None, (), (), search.nodes, search.table_full,
                                           time.monotonic() - t0, e.reason))
        return
    yield report("done", EndgameResult(True, sign * value, tuple(moves), line, search.nodes, search.table_full,
                                       time.monotonic() - t0, "solved"))


def _start(state: Any, max_plies: Any, time_limit: Any, stop: Any, table_bytes: Any, all_moves: Any,
           backend: Any, relax: bool, t0: float) -> _Backend | None:
    chosen = _check_args(state, max_plies, time_limit, stop, table_bytes, all_moves, backend)
    if state.is_terminal():
        return None
    deadline = None if time_limit is None else t0 + time_limit
    if chosen == "c":
        return _CSearch(table_bytes, deadline, stop, max_plies, relax)
    return _Search(table_bytes, deadline, stop, max_plies, relax)


def _terminal(state: GameState, t0: float) -> EndgameResult:
    m = _margin(state)
    sign = 1 if state.current_player() == 0 else -1
    return EndgameResult(True, sign * m, (), (), 0, False, time.monotonic() - t0, "terminal")


def solve_progress(state: GameState, *, max_plies: int | None = None, time_limit: float | None = None,
                   stop: Stop | None = None, table_bytes: int = 256 * 2**20, all_moves: bool = False,
                   backend: str | None = None) -> Iterator[SolveProgress]:
    """The anytime solve: :func:`solve`'s search, reporting the proven interval of the value as it narrows.

    Yields :class:`SolveProgress` reports (the interval ``[lower, upper]``
    for the player to move, nodes, seconds, the best line so far), the last
    one (``stage == "done"``) with the :class:`EndgameResult`. The arguments
    are :func:`solve`'s (checked before the first report: a bad one raises
    :class:`EndgameArgumentError`), but ``time_limit`` is None (no limit) by
    default. ``stop`` is looked at every :data:`CHECK_EVERY` nodes (a
    packing step counts as a node), and so is the clock: the C
    search gives the thread back within about a millisecond of either; the
    caller may also simply stop iterating between reports. The memory is
    ``table_bytes`` for the table and :func:`pack_slots` packing
    answers.

    >>> from quiltsolve.engine import new_game
    >>> from quiltsolve.engine.players import GreedyPlayer
    >>> s, g = new_game(2), GreedyPlayer()
    >>> while s.players[0].position + s.players[1].position < 96:
    ...     s.apply_action(g.choose(s))
    >>> reports = list(solve_progress(s, table_bytes=2**20))
    >>> all(a.lower <= b.lower and b.upper <= a.upper for a, b in zip(reports, reports[1:]))
    True
    >>> last = reports[-1]
    >>> last.stage, last.lower == last.upper == last.result.value, last.result.proven
    ('done', True, True)
    """
    t0 = time.monotonic()
    search = _start(state, max_plies, time_limit, stop, table_bytes, all_moves, backend, True, t0)
    if search is None:
        r = _terminal(state, t0)
        assert r.value is not None
        yield SolveProgress(r.value, r.value, 0, r.elapsed, (), "done", r)
        return
    yield from _drive(search, state, all_moves, t0)


def solve(state: GameState, *, max_plies: int | None = None, time_limit: float | None = 1.0,
          stop: Stop | None = None, table_bytes: int = 256 * 2**20, all_moves: bool = False,
          backend: str | None = None, _relax: bool = True) -> EndgameResult:
    """The exact value of ``state`` under perfect play, or "not proven" (see the module docstring).

    ``max_plies``: the deepest line searched, in plies (one action each, a
    leather placement is one); None = no horizon. ``time_limit``: seconds
    (None = no limit); ``stop``: a token whose ``is_set()`` ends the search;
    ``table_bytes``: the transposition table's budget; ``all_moves``: every
    distinct root move gets its exact value (root buys of one patch collapsed
    to that patch's best placement); ``backend``: ``"c"``, ``"python"`` or
    None (the compiled solver when built, unless ``QUILTSOLVE_PURE_PYTHON=1``). A bad argument raises
    :class:`EndgameArgumentError` (a ValueError) naming it.

    >>> from quiltsolve.engine import new_game
    >>> solve(new_game(1), time_limit=0.0)
    Traceback (most recent call last):
    ...
    quiltsolve.engine.endgame.EndgameArgumentError: time_limit: must be None or a number of seconds > 0, got 0.0
    """
    t0 = time.monotonic()
    search = _start(state, max_plies, time_limit, stop, table_bytes, all_moves, backend, _relax, t0)
    if search is None:
        return _terminal(state, t0)
    result = None
    for report in _drive(search, state, all_moves, t0):
        result = report.result
    assert result is not None
    return result
