"""Move suggestions: rank the legal moves of a game state, best first.

:func:`suggest_moves` is what the ``service`` player plays and what the
server's ``SuggestMove`` answers. For every patch the player can buy it asks
an *advisor* (``engine.advisor``: the solver in-process or the gRPC service)
where to place it, with the next patches of the circle as lookahead, then
values every move in buttons (the score's unit).

Valuation (``Weights`` holds the coefficients; the defaults are tuned
against the ``greedy`` player). A move's value is::

    value = immediate * terms + playout * margin      (0.25 and 1.0)

**terms** are the move's own gains and costs in buttons, for the player to
move at track space ``a``:

* **buy patch P** (cost ``C``, time ``T``, income ``I``, area ``A``), placed
  where the advisor says::

      terms = -C                          buttons spent
              + I * paydays(a)            income still to come: the patch is on the
                                          board before the token moves, so every
                                          income space after ``a`` pays it
              + cell * A                  each covered cell saves 2 points at the end
              - time * T'                 time spent (T' = T capped at space 53); one
                                          space is worth ~1 button because advancing
                                          pays 1 button per space
              + leather * L               leather patches the move picks up
              - pack * unpackable         cells of the upcoming patches that no longer
                                          fit on the board after this placement
              - hole * new_holes          new empty cells cut off in 1-2 cell pockets
              + bonus (7)                 when this placement completes a 7×7 window
                                          while the bonus tile is still free
* **advance** ``d`` spaces: ``terms = d - time * d + leather * L``.

**margin** looks past the move: both players continue from the position
after it with the engine's deterministic ``greedy`` policy to the end of the
game, and margin is the final score difference (mover minus opponent, ±0.5
for the win). It prices what the immediate terms cannot see: which patches
the move leaves in front of the opponent, who moves next and how often, and
the buttons, income, empty cells and 7×7 bonus of the rest of the game. A
playout takes a few milliseconds; ``Weights(playout=0)`` turns it off.

**leather** (a won 1×1 patch must be placed): every empty cell, ranked by
completing the 7×7 window first, then by filling the most enclosed cell and
cutting off no pocket.

>>> s = _new_game_for_doc()
>>> moves = suggest_moves(s, advisor=LocalAdvisor())
>>> moves[0].value >= moves[-1].value, moves[0].reason.split()[0] in ("buy", "advance")
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solver import BOARD_SIZE, FULL_BOARD, PATCHES, square_masks

from .actions import ADVANCE, LEATHER_ACTIONS, Action, Buy
from .advisor import Advisor, LocalAdvisor, SolverAdvisor  # noqa: F401  (LocalAdvisor: doctest)
from .track import END, LEATHER_SPACES, PAYOUTS_AFTER  # noqa: F401  (LEATHER_SPACES: docs)

_COL0 = sum(1 << (r * BOARD_SIZE) for r in range(BOARD_SIZE))
_COL8 = _COL0 << (BOARD_SIZE - 1)
_ROW0 = (1 << BOARD_SIZE) - 1
_ROW8 = _ROW0 << (BOARD_SIZE * (BOARD_SIZE - 1))
_NOT_COL0 = FULL_BOARD & ~_COL0
_NOT_COL8 = FULL_BOARD & ~_COL8
_WINDOWS = tuple(m for _, m in square_masks(7, BOARD_SIZE))


@dataclass(frozen=True)
class MoveSuggestion:
    """One legal move, its value for the player to move (buttons) and why."""

    action: Action
    value: float
    reason: str


@dataclass(frozen=True)
class Weights:
    """Coefficients of the move valuation (see the module docstring)."""

    time: float = 1.0          # buttons per space of time spent
    cell: float = 2.0          # per covered cell (the end-of-game penalty)
    leather: float = 2.0       # per leather patch picked up (one more covered cell)
    pack: float = 0.5          # per cell of upcoming patches that no longer fits
    hole: float = 1.5          # per new cell cut off in a 1-2 cell pocket
    bonus: float = 7.0         # completing the 7×7 window while it is free
    immediate: float = 0.25    # × the move's own terms (the formula above)
    playout: float = 1.0       # × the final score margin of a greedy playout after the move
    lookahead: int = 6         # upcoming patches of the circle given to the advisor
    consider: int = 12         # advisor placements re-scored locally


DEFAULT_WEIGHTS = Weights()


# ------------------------------------------------------------ board measures
def neighbours(mask: int) -> int:
    """Cells 4-adjacent to ``mask`` (on the board)."""
    return (((mask << 1) & _NOT_COL0) | ((mask >> 1) & _NOT_COL8) | (mask << BOARD_SIZE)
            | (mask >> BOARD_SIZE)) & FULL_BOARD


def holes(board: int) -> float:
    """Empty cells cut off in tiny pockets: a lone cell counts 1, a 2-cell pocket 0.5 each.

    >>> holes(FULL_BOARD & ~1), holes(FULL_BOARD & ~3), holes(0)
    (1, 1.0, 0)
    """
    empty = FULL_BOARD & ~board
    lone = empty & ~neighbours(empty)
    out: float = lone.bit_count()
    rest = empty & ~lone
    # 2-cell pockets: an empty cell with exactly one empty neighbour whose
    # only empty neighbour is it. Flood fill only the small remainder.
    while rest:
        low = rest & -rest
        comp = low
        for _ in range(2):
            grown = (comp | neighbours(comp)) & rest
            if grown == comp:
                break
            comp = grown
        if comp.bit_count() == 2 and not (neighbours(comp) & rest & ~comp):
            out += 1.0
            rest &= ~comp
            continue
        # Larger region: drop the whole component at once.
        while True:
            grown = (comp | neighbours(comp)) & rest
            if grown == comp:
                break
            comp = grown
        rest &= ~comp
    return out


def contacts(board: int, mask: int) -> int:
    """Edges of ``mask`` touching filled cells or the board's border (snug fit)."""
    return ((mask & (_COL0 | ((board << 1) & _NOT_COL0))).bit_count()
            + (mask & (_COL8 | ((board >> 1) & _NOT_COL8))).bit_count()
            + (mask & (_ROW0 | (board << BOARD_SIZE))).bit_count()
            + (mask & (_ROW8 | (board >> BOARD_SIZE))).bit_count())


def completes_window(board: int) -> bool:
    if board.bit_count() < 49:
        return False
    return any(board & m == m for m in _WINDOWS)


def best_window_fill(board: int) -> int:
    """Most filled cells in any 7×7 window."""
    return max((board & m).bit_count() for m in _WINDOWS)


def _leathers_crossed(state, a: int, b: int) -> int:
    return sum(1 for s in state.leather if a < s <= b)


def _bonus_open(state) -> bool:
    return state.bonus_owner is None


# ---------------------------------------------------------------- suggestions
def suggest_moves(state, *, advisor: Advisor | None = None, time_limit: float = 1.0,
                  top: int | None = None, seed: int = 0, stop: Any = None,
                  weights: Weights = DEFAULT_WEIGHTS) -> list[MoveSuggestion]:
    """The legal moves of ``state`` for the player to move, best first.

    One suggestion per affordable patch (at the best placement found), one
    for advancing; while a leather patch is pending, every empty cell. Empty
    for a finished game. ``time_limit`` is shared by the advisor calls;
    ``stop`` (a ``solver.StopToken``) ends thinking early: patches not yet
    asked about are then placed by the local heuristic.
    """
    if state.is_terminal():
        return []
    if advisor is None:
        advisor = SolverAdvisor(seed=seed)
    if state.leather_to_place:
        out = _leather_moves(state, weights)
    else:
        out = _turn_moves(state, advisor, time_limit, stop, weights)
    out.sort(key=lambda m: -m.value)  # stable: ties keep the engine's order
    return out[:top] if top else out


def _leather_moves(state, w: Weights) -> list[MoveSuggestion]:
    p = state.players[state.current_player()]
    board = p.board
    bonus_open = _bonus_open(state)
    out = []
    for i in range(BOARD_SIZE * BOARD_SIZE):
        bit = 1 << i
        if board & bit:
            continue
        after = board | bit
        done = bonus_open and completes_window(after)
        enclosed = 4 - (neighbours(bit) & ~board).bit_count()   # filled or border sides
        value = w.cell + (w.bonus if done else 0.0) + 0.1 * enclosed - w.hole * (holes(after) - holes(board) + (1 if enclosed == 4 else 0))
        action = LEATHER_ACTIONS[i]
        why = f"leather {i // BOARD_SIZE},{i % BOARD_SIZE}: "
        why += "completes the 7×7 window, " if done else ""
        why += f"{enclosed} of 4 sides closed (value {value:.1f})"
        out.append(MoveSuggestion(action, round(value, 3), why))
    return out


def _turn_moves(state, advisor: Advisor, time_limit: float, stop, w: Weights) -> list[MoveSuggestion]:
    cur = state.current_player()
    p = state.players[cur]
    opp = state.players[1 - cur]
    a = p.position
    out = []

    # Advance.
    target = min(opp.position + 1, END)
    d = target - a
    lea = _leathers_crossed(state, a, target)
    imm = d - w.time * d + w.leather * lea
    why = f"advance {d} space{'s' if d != 1 else ''}: +{d} buttons"
    why += f", takes {lea} leather" if lea else ""
    out.append(_suggestion(state, ADVANCE, imm, why, w))

    buyable = state.buyable_patches()
    circle = state.circle
    per_call = time_limit / max(1, len(buyable))
    bonus_open = _bonus_open(state)
    holes_before = holes(p.board)
    for pid in buyable:
        i = circle.index(pid)
        upcoming = (circle[i + 1:] + circle[:i])[: w.lookahead]
        square7 = bonus_open and best_window_fill(p.board) >= 24
        mask, unpackable = _place(state, p.board, pid, upcoming, advisor, per_call, square7, stop, w)
        if mask is None:
            continue
        pt = PATCHES[pid]
        after = p.board | mask
        t_eff = min(pt.time, END - a)
        income = pt.income * PAYOUTS_AFTER[a]
        lea = _leathers_crossed(state, a, a + t_eff)
        new_holes = holes(after) - holes_before
        done = bonus_open and completes_window(after)
        imm = (-pt.buttons + income + w.cell * pt.area - w.time * t_eff + w.leather * lea
               - w.pack * unpackable - w.hole * new_holes + (w.bonus if done else 0.0))
        parts = [f"buy {pid}: "]
        parts.append(f"+{pt.income} income × {PAYOUTS_AFTER[a]} paydays, " if pt.income else "no income, ")
        parts.append(f"costs {pt.buttons} buttons and {t_eff} time, covers {pt.area} cells")
        if lea:
            parts.append(f", takes {lea} leather")
        if done:
            parts.append(", completes the 7×7 window")
        if unpackable > 0:
            parts.append(f", {unpackable} upcoming cells no longer fit")
        elif new_holes > 0:
            parts.append(f", leaves {new_holes:g} cut-off cells")
        else:
            parts.append(", leaves board packable")
        out.append(_suggestion(state, Buy(pid, mask), imm, "".join(parts), w))
    return out


def _suggestion(state, action, imm: float, why: str, w: Weights) -> MoveSuggestion:
    """Combine the move's own terms with the playout margin into its value."""
    value = w.immediate * imm
    if w.playout:
        margin = playout_margin(state, action, state.current_player())
        value += w.playout * margin
        why += f"; playout margin {margin:+.1f}"
    return MoveSuggestion(action, round(value, 3), f"{why} (value {value:.1f})")


def playout_margin(state, action, me: int) -> float:
    """Final score margin for player ``me`` (their score minus the
    opponent's) after ``action`` and a deterministic greedy playout by both
    sides; a won game adds 0.5, a lost one subtracts 0.5 (ties on score go
    to who reached 53 first)."""
    from .players import GreedyPlayer

    g = GreedyPlayer()
    s = state.clone()
    s.apply_action(action)
    while not s.is_terminal():
        s.apply_action(g.choose(s))
    sc = s.scores()
    return sc[me] - sc[1 - me] + (0.5 if s.winner() == me else -0.5)


def _local_score(board: int, mask: int, bonus_open: bool, w: Weights) -> float:
    after = board | mask
    s = 0.1 * contacts(board, mask) - w.hole * holes(after)
    if bonus_open and completes_window(after):
        s += w.bonus
    return s


def _place(state, board: int, pid: int, upcoming: list[int], advisor: Advisor, time_limit: float,
           square7: bool, stop, w: Weights) -> tuple[int | None, float]:
    """Where to put ``pid``: (mask, upcoming cells that no longer fit)."""
    legal = set(state.placements(pid))
    if not legal:
        return None, 0.0
    bonus_open = _bonus_open(state)
    ranked = ()
    if stop is None or not stop.is_set():
        try:
            if isinstance(advisor, SolverAdvisor) and stop is not None:
                res = advisor.suggest_placement(board, pid, upcoming, square7=square7, time_limit=time_limit,
                                                stop=stop)
            else:
                res = advisor.suggest_placement(board, pid, upcoming, square7=square7, time_limit=time_limit)
            ranked = tuple(r for r in res.ranked if r.placement.mask in legal)
        except (ValueError, RuntimeError):
            ranked = ()
    if not ranked:
        # No advice (stopped, failed or timed out): snug fit, fewest holes.
        mask = max(sorted(legal), key=lambda m: _local_score(board, m, bonus_open, w))
        return mask, 0.0
    up_area = sum(PATCHES[u].area for u in upcoming)
    best = None
    for r in ranked[: w.consider]:
        after = board | r.placement.mask
        room = min(up_area, FULL_BOARD.bit_count() - after.bit_count())
        unpack = max(0, room - r.value)
        score = -w.pack * unpack + _local_score(board, r.placement.mask, bonus_open, w)
        if best is None or score > best[0]:
            best = (score, r.placement.mask, unpack)
    return best[1], float(best[2])


def _new_game_for_doc():
    from .state import new_game

    return new_game(1)


__all__ = ["DEFAULT_WEIGHTS", "MoveSuggestion", "Weights", "suggest_moves", "holes", "contacts"]
