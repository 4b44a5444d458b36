"""Move suggestions: rank the legal moves of a game state, best first.

:func:`suggest_moves` is what the ``service`` player plays and what the
server's ``SuggestMove`` answers. For every patch the player can buy it asks
an *advisor* (``engine.advisor``: the solver in-process or the gRPC service)
where to place it, with the next patches of the circle as lookahead, then
values every move in buttons (the score's unit): each
:class:`MoveSuggestion` holds it as ``margin_buttons``, an estimate of the
mover's final score minus the opponent's; this ranking does not estimate a
win chance, so ``win_chance`` is None (the search,
:func:`engine.players.search.search_moves`, fills ``win_chance`` instead).

Valuation (``Weights`` holds the coefficients; the defaults are tuned
against the ``greedy`` player). A move's ``margin_buttons`` is::

    margin_buttons = immediate * terms + playout * margin      (0.25 and 1.0)

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

>>> s = new_game(1)
>>> moves = suggest_moves(s, advisor=LocalAdvisor())
>>> moves[0].margin_buttons >= moves[-1].margin_buttons, moves[0].reason.split()[0] in ("buy", "advance")
(True, True)
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

from quiltsolve.solver import BOARD_SIZE, FULL_BOARD, PATCHES, RankedPlacement, StopToken

from .actions import ADVANCE, LEATHER_ACTIONS, Action, Buy
from .advisor import Advisor, LocalAdvisor, SolverAdvisor  # noqa: F401  (LocalAdvisor: doctest)
from .board import best_window_fill, completes_window, contacts, holes, neighbours
from .policy import greedy_action
from .state import GameState, new_game  # noqa: F401  (new_game: doctest)
from .track import END, LEATHER_SPACES, PAYOUTS_AFTER  # noqa: F401  (LEATHER_SPACES: docs)

_UNSET: Any = object()


@dataclass(frozen=True, init=False)
class MoveSuggestion:
    """One legal move for the player to move, what it is worth to them, and why.

    Two measures, each with its unit in its name; a ranking fills the ones it computes:

    * ``win_chance`` — 0-1, the estimated chance that the mover wins after
      this move (:func:`engine.players.search.search_moves`, what the service
      serves); ``None`` from a ranking that does not estimate one
      (:func:`suggest_moves`).
    * ``margin_buttons`` — buttons (score points): the mover's expected final
      score minus the opponent's after this move. :func:`suggest_moves` ranks
      by it (its valuation formula, in the module docstring); ``None`` from
      the search (its reason quotes the playouts' mean margin; the service's
      answers carry the win chance only).

    * ``proven_margin`` — points, set only when the endgame solver
      (``engine.endgame``) proved it: the final score of the player to move
      minus the other's after this move when both play perfectly to
      maximise their own margin (``engine.players.proven``); ``win_chance``
      is then 1.0 or 0.0 (a margin of 0 is a tie on points: the tie rule,
      who reached space 53 first, decides, and the reason says who).

    ``value`` is the 0.1 name, kept for one release as a deprecated
    read-only alias (``win_chance`` where there is one, else
    ``margin_buttons``, which is what it held before) and as a deprecated
    constructor keyword for ``win_chance``.

    >>> m = MoveSuggestion(ADVANCE, 0.625, "advance 1 space")
    >>> m.win_chance, m.margin_buttons, m.proven_margin
    (0.625, None, None)
    """

    action: Action
    win_chance: float | None
    reason: str
    margin_buttons: float | None = field(default=None)
    proven_margin: int | None = field(default=None)

    def __init__(self, action: Action, win_chance: float | None = _UNSET, reason: str = "",
                 margin_buttons: float | None = None, *, value: float | None = _UNSET,
                 proven_margin: int | None = None) -> None:
        if value is not _UNSET:
            warnings.warn("MoveSuggestion(value=...) is deprecated: pass win_chance (0-1)", DeprecationWarning,
                          stacklevel=2)
            if win_chance is not _UNSET:
                raise TypeError("MoveSuggestion takes win_chance or the deprecated value, not both")
            win_chance = value
        if win_chance is _UNSET:
            raise TypeError("MoveSuggestion() missing argument: 'win_chance' (None when not estimated)")
        if win_chance is not None and not 0.0 <= win_chance <= 1.0:
            raise ValueError(f"win_chance is a chance, 0-1, not {win_chance!r}")
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "win_chance", win_chance)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "margin_buttons", margin_buttons)
        if proven_margin is not None and type(proven_margin) is not int:
            raise ValueError(f"proven_margin is a whole number of points or None, not {proven_margin!r}")
        object.__setattr__(self, "proven_margin", proven_margin)

    @property
    def value(self) -> float:
        """Deprecated (0.2.0): ``win_chance`` (0-1) when the ranking estimated one, else ``margin_buttons``
        (NaN when it has neither)."""
        warnings.warn("MoveSuggestion.value is deprecated: read win_chance (0-1) or margin_buttons (buttons)",
                      DeprecationWarning, stacklevel=2)
        if self.win_chance is not None:
            return self.win_chance
        return self.margin_buttons if self.margin_buttons is not None else math.nan


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


def _leathers_crossed(state: GameState, a: int, b: int) -> int:
    return sum(1 for s in state.leather if a < s <= b)


def _bonus_open(state: GameState) -> bool:
    return state.bonus_owner is None


# ---------------------------------------------------------------- suggestions
def suggest_moves(state: GameState, *, advisor: Advisor | None = None, time_limit: float = 1.0,
                  top: int | None = None, seed: int = 0, stop: StopToken | None = None,
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
    out.sort(key=lambda m: -(m.margin_buttons or 0.0))  # stable: ties keep the engine's order
    return out[:top] if top else out


def _leather_moves(state: GameState, w: Weights) -> list[MoveSuggestion]:
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
        out.append(MoveSuggestion(action, None, why, round(value, 3)))
    return out


def _turn_moves(state: GameState, advisor: Advisor, time_limit: float, stop: StopToken | None, w: Weights) -> list[MoveSuggestion]:
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


def _suggestion(state: GameState, action: Action, imm: float, why: str, w: Weights) -> MoveSuggestion:
    """Combine the move's own terms with the playout margin into its value."""
    value = w.immediate * imm
    if w.playout:
        margin = playout_margin(state, action, state.current_player())
        value += w.playout * margin
        why += f"; playout margin {margin:+.1f}"
    return MoveSuggestion(action, None, f"{why} (value {value:.1f})", round(value, 3))


def playout_margin(state: GameState, action: Action, me: int) -> float:
    """Final score margin for player ``me`` (their score minus the
    opponent's) after ``action`` and a deterministic greedy playout by both
    sides; a won game adds 0.5, a lost one subtracts 0.5 (ties on score go
    to who reached 53 first)."""
    s = state.clone()
    s.apply_action(action)
    while not s.is_terminal():
        s.apply_action(greedy_action(s))
    sc = s.scores()
    return sc[me] - sc[1 - me] + (0.5 if s.winner() == me else -0.5)


def _local_score(board: int, mask: int, bonus_open: bool, w: Weights) -> float:
    after = board | mask
    s = 0.1 * contacts(board, mask) - w.hole * holes(after)
    if bonus_open and completes_window(after):
        s += w.bonus
    return s


def _place(state: GameState, board: int, pid: int, upcoming: list[int], advisor: Advisor, time_limit: float,
           square7: bool, stop: StopToken | None, w: Weights) -> tuple[int | None, float]:
    """Where to put ``pid``: (mask, upcoming cells that no longer fit)."""
    legal = set(state.placements(pid))
    if not legal:
        return None, 0.0
    bonus_open = _bonus_open(state)
    ranked: tuple[RankedPlacement, ...] = ()
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
    assert best is not None     # ranked is not empty
    return best[1], float(best[2])


__all__ = ["DEFAULT_WEIGHTS", "MoveSuggestion", "Weights", "suggest_moves", "holes", "contacts"]
