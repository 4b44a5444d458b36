"""``greedy`` — the deterministic value-per-time player, and the value it buys by.

``GreedyPlayer()`` values each affordable, placeable patch at
:func:`greedy_value` ``= 2*area + income*payouts_left - cost`` (the score it
adds by the end if nothing else happens), per space of time it costs
(:func:`greedy_rate`). It buys the best one when that beats the 1 button per
space that advancing pays, and places it tightly: the placement touching most
covered cells and board edges (:func:`engine.board.contacts`; first in
``PATCH_MASKS`` order on ties). Leather goes to the tightest empty cell.

>>> greedy_value(1, 9) == 2 * AREA[1] + INCOME[1] * 9 - COST[1]
True
>>> GREEDY_RATES[9][1] == greedy_rate(1, 9)
True
"""

from __future__ import annotations

from quiltsolve.solver import PATCH_MASKS

from ..actions import ADVANCE, LEATHER_ACTIONS, Action, Buy
from ..board import contacts
from ..state import AREA, COST, INCOME, N_PATCHES, TIME, GameState
from ..track import BOARD_CELLS, PAYOUTS_AFTER

__all__ = ["ADVANCE_RATE", "GREEDY_RATES", "GreedyPlayer", "greedy_rate", "greedy_value"]

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


class GreedyPlayer:
    """Buys the best-value patch it can afford (if worth more than advancing) and places it tightly."""

    name = "greedy"

    def choose(self, state: GameState) -> Action:
        """The greedy move (deterministic): see the module docstring."""
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
