"""Where the search players put the patches they may buy at the root: the solver's lookahead when there is time.

:class:`RootPlacement` is the part ``search`` and ``search-v1`` (the bench's baseline) share (with
their budget checks and settings, :meth:`RootPlacement._init_search`): for
each affordable patch at the root it asks the advisor (``engine.advisor``;
by default the in-process :class:`~engine.advisor.SolverAdvisor`) which
placement keeps most of the next :data:`LOOKAHEAD` patches packable, with at
most :data:`LOOKAHEAD_SHARE` of the move's time left, ties broken by
snugness; the answers are cached per ``(board, patch, upcoming)``. Without an
advisor, with too little time (under :data:`MIN_LOOKAHEAD_TIME` per call) or
when the advisor fails, the snug placement
(:func:`engine.policy.tight_placement`) stands in.

A player whose ``look_proven_only`` is true (``search``; ``search-v1`` keeps
the 0.2 behaviour) also takes the snug placement when the lookahead ran out
of time before it had proven every placement's value: such a ranking only
knows the placements it reached (in mask order, so near one corner of the
board), and trusting it cost ``search:0.1`` three games in four against
itself when it was given the lookahead (measured, docs/players.md). A fixed
iteration budget asks no advisor of its own (a time-limited solver call
would make the move depend on the machine's speed).

:func:`ensure_imports` imports the solver's lookahead (and OR-Tools) once,
off a move's clock. A time-budgeted player with the default in-process
advisor never waits for that import inside a move (it took 0.4-2 s: OR-Tools
imports pandas): the first move whose budget could use the lookahead starts
it in a background thread (:func:`lookahead_ready`) and takes the snug
placement until it is done; a move too short to ask the advisor at all
(under :data:`MIN_LOOKAHEAD_TIME` per call, e.g. ``search:0.01``) does not
start it.
"""

from __future__ import annotations

import threading
import time
from typing import Union

from quiltsolve import solver
from quiltsolve.solver import SolveStatus, StopToken

from ..actions import ADVANCE, LEATHER_ACTIONS, Action, Buy
from ..advisor import Advisor, SolverAdvisor, Stop
from ..policy import PlacementCache, buy_rates, leather_scores, placement_score, tight_placement
from ..state import MASK_SETS, GameState

LOOKAHEAD = 6              # upcoming patches given to the advisor
LOOKAHEAD_SHARE = 0.25     # at most this part of a move's time goes to the advisor
MIN_LOOKAHEAD_TIME = 0.02  # below this per call the advisor is not asked
LOOK_CACHE_LIMIT = 10_000  # cached lookahead answers before the cache is emptied

_imported = {"lookahead": False}
_importer: list[threading.Thread] = []
_importer_lock = threading.Lock()

Move = Union[str, int, tuple[str, int]]
"""A macro move of the search: ``"a"`` (advance), a patch id (buy it), or ``("L", cell)`` (leather)."""


def macro_moves(state: GameState, leather_choices: int) -> list[Move]:
    """The moves of ``state`` best-first by the greedy measure: 'a' (advance), patch ids, or the best
    ``leather_choices`` cells ('L', cell) when a leather patch is pending."""
    if state.leather_to_place:
        cells = leather_scores(state.players[state.current_player()].board, state.bonus_open)
        return [("L", i) for _, i in cells[:leather_choices]]
    out: list[Move] = []
    advanced = False
    for rate, pid in buy_rates(state):
        if rate <= 1.0 and not advanced:
            out.append("a")
            advanced = True
        out.append(pid)
    if not advanced:
        out.append("a")
    return out


def forced_move(state: GameState) -> Action | None:
    """The move when there is nothing to search: advancing with nothing affordable, or the last empty
    cell for a leather patch; else None. ValueError for a finished game."""
    if state.is_terminal():
        raise ValueError("the game is over: there is no move to choose")
    pending = state.leather_to_place
    if not pending and not buy_rates(state):
        return ADVANCE          # nothing affordable: advancing is the only move
    if pending and (state.players[state.current_player()].board.bit_count() == 80):
        return next(state.iter_legal_actions())
    return None


def greedy_first_move(state: GameState, cache: PlacementCache) -> Action:
    """The first move in the greedy order (a search stopped before it tried anything answers it)."""
    for move in macro_moves(state, 1):
        if type(move) is tuple:
            return LEATHER_ACTIONS[move[1]]
        if type(move) is not int:
            return ADVANCE
        m = tight_placement(state.players[state.current_player()].board, move, cache)
        if m is not None:
            return Buy(move, m)
    return ADVANCE


def ensure_imports(lookahead: bool) -> None:
    """The solver's lookahead (and with it OR-Tools): imported once, off the clock.

    ``solver.rank_placements`` is a lazy attribute of ``solver``: its first
    use imports the lookahead module and OR-Tools (0.5-1.6 s).
    """
    if _imported["lookahead"] or not lookahead:
        return
    solver.rank_placements  # noqa: B018 - imports solver.lookahead (and OR-Tools)
    _imported["lookahead"] = True


def lookahead_ready(start: bool = True) -> bool:
    """Whether the solver's lookahead is imported; if not and ``start``, its import begins in a background
    thread (once per process), so that the moves go on meanwhile (the C search releases the GIL)."""
    if _imported["lookahead"]:
        return True
    if start:
        with _importer_lock:
            if not _importer:
                t = threading.Thread(target=_import_lookahead, name="quiltsolve-lookahead-import", daemon=True)
                _importer.append(t)
                t.start()
    return False


def _import_lookahead() -> None:
    try:
        ensure_imports(True)
    except Exception:  # noqa: BLE001 - a broken OR-Tools: the snug placement stays
        pass


class SearchInputError(ValueError):
    """A bad budget or seed for the search."""


class RootPlacement:
    """What the search players share (a base class): their budget and settings, and the root placements.

    The player calls :meth:`_init_search` first in its ``__init__``.
    """

    time_limit: float | None
    iterations: int | None
    time_cap: float | None
    seed: int
    advisor: Advisor | None
    lookahead: bool
    _cache: PlacementCache
    look_proven_only: bool = False            # only a complete (OPTIMAL) lookahead ranking is used

    def _init_search(self, name: str, time_limit: float, iterations: int | None, seed: int, advisor: Advisor | None,
                     reuse: bool, lookahead: bool, exploration: float, margin_weight: float, epsilon: float,
                     time_cap: float | None) -> None:
        """Check the budget and seed (:class:`SearchInputError`) and set the settings every search player has."""
        if iterations is not None and (not isinstance(iterations, int) or isinstance(iterations, bool)
                                       or iterations < 1):
            raise SearchInputError(f"search iterations must be a positive integer, not {iterations!r}")
        if iterations is None and not (isinstance(time_limit, (int, float)) and 0 < time_limit <= 3600):
            raise SearchInputError(f"search time limit must be in (0, 3600] seconds, not {time_limit!r}")
        if not isinstance(seed, int):
            raise SearchInputError(f"search seed must be an integer, not {seed!r}")
        self.time_limit = float(time_limit) if iterations is None else None
        self.iterations = iterations
        # With an iteration budget, an optional wall-clock cap (a server's time limit).
        self.time_cap = time_cap
        self.seed = seed
        self.advisor = advisor
        self.reuse = reuse
        self.lookahead = lookahead
        self.exploration = exploration
        self.margin_weight = margin_weight
        self.epsilon = epsilon
        self.name = f"{name}:{self.time_limit:g}" if iterations is None else f"{name}:{iterations}it"
        self.last_iterations = 0
        self._cache = PlacementCache()
        self._look_cache: dict[tuple[int, int, tuple[int, ...]], int] = {}
        self._auto_advisor: SolverAdvisor | None = None

    def _advisor(self) -> Advisor | None:
        if not self.lookahead:
            return None
        if self.advisor is not None:
            return self.advisor
        if self.iterations is not None:
            return None     # keep fixed-iteration play reproducible: no time-limited solver calls
        if self._auto_advisor is None:
            self._auto_advisor = SolverAdvisor(seed=self.seed)
        return self._auto_advisor

    def _root_masks(self, state: GameState, deadline: float | None, stop: Stop | None) -> dict[int, int]:
        """Placement of each buyable patch at the root: the advisor's lookahead when it has time."""
        out: dict[int, int] = {}
        if state.leather_to_place or state.is_terminal():
            return out
        advisor = self._advisor()
        board = state.players[state.current_player()].board
        pids = [pid for _, pid in buy_rates(state)]
        for k, pid in enumerate(pids):
            mask = None
            if advisor is not None and (stop is None or not stop.is_set()):
                upcoming = state.patches_after(pid, LOOKAHEAD)
                key = (board, pid, upcoming)
                mask = self._look_cache.get(key)
                if mask is None:
                    budget = None
                    if deadline is not None:
                        budget = LOOKAHEAD_SHARE * (deadline - time.perf_counter()) / (len(pids) - k)
                    if (budget is None or budget >= MIN_LOOKAHEAD_TIME) and (
                            advisor is not self._auto_advisor or lookahead_ready()):
                        mask = ask_advisor(advisor, board, pid, upcoming, budget, stop, self.look_proven_only)
                        keep = mask
                        if mask is None and self.look_proven_only and (stop is None or not stop.is_set()):
                            keep = 0    # unfinished: remembered as "snug", not asked again at the same cost
                        if keep is not None:
                            if len(self._look_cache) > LOOK_CACHE_LIMIT:
                                self._look_cache.clear()
                            self._look_cache[key] = keep
            if not mask:
                mask = tight_placement(board, pid, self._cache)
            if mask is not None:
                out[pid] = mask
        return out


def ask_advisor(advisor: Advisor, board: int, pid: int, upcoming: tuple[int, ...], budget: float | None,
                stop: Stop | None, proven_only: bool = False) -> int | None:
    """The advisor's placement of ``pid`` on ``board`` (the snuggest of its best), or None when it has none
    (``proven_only``: also None unless every placement's value was proven)."""
    try:
        if isinstance(stop, StopToken) and isinstance(advisor, SolverAdvisor):   # the in-process one can be cancelled
            res = advisor.suggest_placement(board, pid, list(upcoming), time_limit=budget or 0.2, stop=stop)
        else:
            res = advisor.suggest_placement(board, pid, list(upcoming), time_limit=budget or 0.2)
    except Exception:  # noqa: BLE001 - any advisor failure (bad answer, RPC error): snug placement
        return None
    if proven_only and res.status is not SolveStatus.OPTIMAL:
        return None
    shapes = MASK_SETS[pid]
    legal = [r for r in res.ranked if r.placement.mask in shapes and not r.placement.mask & board]
    if not legal:
        return None
    best_v = max(r.value for r in legal)
    # Among the placements that keep the most upcoming cells packable, the snuggest.
    tops = [r.placement.mask for r in legal if r.value == best_v]
    return max(tops, key=lambda m: placement_score(board, m))


__all__ = ["LOOKAHEAD", "LOOKAHEAD_SHARE", "MIN_LOOKAHEAD_TIME", "Move", "RootPlacement", "SearchInputError",
           "ask_advisor", "ensure_imports", "forced_move", "greedy_first_move", "lookahead_ready", "macro_moves"]
