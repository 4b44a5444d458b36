"""The analysis of a position while the search runs: an update every report interval, the last one final.

:func:`analyze` is what the service's streaming ``AnalyzePosition``
(``server.jobs.AnalyzeJob``) and the clients' ``analyze_position`` answer
with. It does what :func:`engine.moves.rank_moves` (SuggestMove) does, in
the same order and with the same budgets, and reports as it goes:

1. the exact endgame solver first, with
   :func:`~engine.players.proven.proof_limits` of the budget (a node count
   with an iteration budget); a proof ends the analysis at once: its one
   update is final, ``proven``, every move with its ``proven_margin``;
2. else the search (:class:`engine.players.search.SearchPlayer`'s: the same
   root moves, seed and ranking), run in slices on the core
   (:class:`engine.core.CoreSearcher`) with an :class:`Analysis` after each
   slice: the top moves with their calibrated win chance, visits, mean
   margin and principal variation (:class:`AnalyzedMove`).

So with an iteration budget the final update holds exactly the moves,
chances, reasons and iterations of ``rank_moves`` for the same seed and
iterations (``tests/engine/test_analysis.py``; through every face of the
service, ``tests/server/test_analyze_position.py``): the slices only add
reports, never change the tree.

Beyond ``rank_moves``: with a thinking time or no budget at all
(``until_stopped``, ended by ``stop`` or by ``time_limit`` as a cap), a
position whose end is near enough gets another proof attempt whenever the
search has run twice as long as the last attempt, each attempt twice as
long as the one before (:func:`~engine.players.proven.proof_spaces` says
how near is near enough for it): so an analysis left running proves what it
can "as soon as" it can, spending at most a third of its time on proofs.
While a proof attempt or the root's lookahead runs (a helper thread; the
search waits) the updates keep coming, repeating the last one. The root
placements get at most :data:`LOOKAHEAD_HORIZON` seconds' worth of the
lookahead (a quarter of it), so that the first moves show at once.

>>> from quiltsolve.engine import new_game
>>> updates = list(analyze(new_game(4), iterations=60, report_interval=None))
>>> len(updates), updates[-1].final, updates[-1].iterations
(1, True, 60)
>>> m = updates[-1].moves[0]
>>> m.visits > 0, m.line[0] == m.action, m.suggestion() == rank_moves(new_game(4), iterations=60).moves[0]
(True, True, True)
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Generator, Iterator

from quiltsolve.solver import StopToken
from quiltsolve.solver.limits import DEFAULT_REPORT_INTERVAL  # seconds between two updates when none is asked for

from . import core
from .actions import LEATHER_ACTIONS, Action
from .advisor import Advisor, Stop
from .errors import IllegalActionError
from .moves import rank_moves  # noqa: F401 - the doctest's comparison
from .players import proven as _proven
from .players import search as _search
from .players.root_placement import ensure_imports
from .policy import leather_cell
from .state import GameState
from .suggest import MoveSuggestion

PV_DEPTH = 10
"""Moves of a principal variation after its first (leather placed on the way not counted)."""
LOOKAHEAD_HORIZON = 2.0
"""The root placements' lookahead is given the time of a search this long at most (a quarter of it)."""
RETRY_FACTOR = 2.0
"""A new proof attempt once the search has run this many times as long as the last one, twice as long."""


@dataclass(frozen=True)
class AnalyzedMove:
    """One root move in an :class:`Analysis`.

    ``win_chance``, ``reason`` and ``proven_margin`` as in :class:`~engine.suggest.MoveSuggestion`;
    ``visits``: the search's playouts through the move (0 when proven or not searched);
    ``mean_margin``: the mover's mean final margin (buttons, their score minus the other's) over those
    playouts, None with none; ``line``: the principal variation, starting with the move: the most visited
    reply, then the most visited answer to it, ... with the leather patches the search placed on the way.
    """

    action: Action
    win_chance: float
    reason: str
    visits: int = 0
    mean_margin: float | None = None
    proven_margin: int | None = None
    line: tuple[Action, ...] = ()

    def suggestion(self) -> MoveSuggestion:
        """The move as a :class:`~engine.suggest.MoveSuggestion` (what SuggestMove answers)."""
        return MoveSuggestion(self.action, self.win_chance, self.reason, proven_margin=self.proven_margin)


@dataclass(frozen=True)
class Analysis:
    """The analysis so far: the top moves best first, how much was searched, whether it is the last update.

    ``player``: the player to move; ``iterations``: the search's iterations so far (0 while none ran, and
    for a proof before any search); ``searched``: False while nothing was searched (no moves yet, or the
    greedy stand-in of a search stopped before its first iteration); ``proven``: the endgame solver proved
    the value of every move listed (then ``value`` is the position's: the best move's ``proven_margin``);
    ``final``: the last update; ``elapsed``: seconds since the analysis began; ``nodes``: the search tree's
    nodes; ``proof_nodes``: the solver's positions for the proof (0 unless proven).
    """

    player: int
    moves: tuple[AnalyzedMove, ...]
    iterations: int
    searched: bool
    proven: bool
    final: bool
    elapsed: float = field(compare=False)     # wall-clock time: not part of what an analysis found
    nodes: int = 0
    proof_nodes: int = 0

    @property
    def value(self) -> int | None:
        """The position's proven value for the player to move (the best move's margin), None unless proven."""
        return self.moves[0].proven_margin if self.proven and self.moves else None

    def suggestions(self) -> list[MoveSuggestion]:
        """The moves as :class:`~engine.suggest.MoveSuggestion` values, best first."""
        return [m.suggestion() for m in self.moves]


def principal_line(state: GameState, first: Action, pv: tuple[Action, ...] | list[Action]) -> tuple[Action, ...]:
    """``first`` then the tree's moves ``pv`` as moves of the game from ``state``: each leather patch won on the
    way placed where the search placed it (:func:`engine.policy.leather_cell`); cut where a move does not apply.

    >>> from quiltsolve.engine import new_game, ADVANCE
    >>> principal_line(new_game(1), ADVANCE, [ADVANCE]) == (ADVANCE, ADVANCE)
    True
    """
    s = state.clone()
    out: list[Action] = []
    for a in (first, *pv):
        if s.is_terminal():
            break
        try:
            s.apply_action(a)
        except IllegalActionError:
            break
        out.append(a)
        while s.leather_to_place and not s.is_terminal():
            leather = LEATHER_ACTIONS[leather_cell(s.players[s.current_player()].board, s.bonus_open)]
            s.apply_action(leather)
            out.append(leather)
    return tuple(out)


class _Either:
    """Set when the caller's token is, or when the analysis ends (``mine``, a StopToken the advisor honours)."""

    def __init__(self, outer: Stop | None) -> None:
        self.outer = outer
        self.mine = StopToken()
        attach = getattr(outer, "attach", None)
        self._attached = callable(attach)
        if self._attached:
            attach(self.mine.set)  # type: ignore[misc]

    def is_set(self) -> bool:
        if self.mine.is_set():
            return True
        if self.outer is not None and self.outer.is_set():
            self.mine.set()
            return True
        return False

    def close(self) -> None:
        self.mine.set()
        if self._attached:
            self.outer.detach(self.mine.set)  # type: ignore[union-attr]


def analyze(state: GameState, *, time_limit: float | None = None, iterations: int | None = None,
            until_stopped: bool = False, top: int | None = None, seed: int = 0, stop: Stop | None = None,
            report_interval: float | None = DEFAULT_REPORT_INTERVAL, pv_depth: int = PV_DEPTH,
            advisor: Advisor | None = None, prove: bool = True) -> Iterator[Analysis]:
    """The analysis of ``state`` as it runs: an :class:`Analysis` every ``report_interval`` seconds (None: the
    final one only), the last with ``final`` set.

    The budget, as :func:`engine.moves.rank_moves` takes it: ``time_limit`` seconds of thinking (default 1 s);
    or ``iterations``, a fixed, reproducible count (then ``time_limit``, when given, caps the wall time); or,
    with ``until_stopped``, none: the analysis runs until ``stop`` is set (or ``time_limit``, as a cap, passes).
    ``top`` keeps the best few moves (None: all); ``seed``, ``advisor`` and ``prove`` as for ``rank_moves``;
    ``pv_depth`` the principal variations' length. Closing the iterator ends the analysis at once. A
    finished game: one final update with no moves.
    """
    if until_stopped and iterations is not None:
        raise ValueError("an analysis until stopped takes no iteration budget")
    if report_interval is not None and not report_interval > 0:
        raise ValueError(f"report_interval must be > 0 seconds or None, not {report_interval!r}")
    t0 = time.perf_counter()
    player = state.current_player()
    ensure_imports(advisor is None and iterations is None)
    either = _Either(stop)
    last = Analysis(player, (), 0, False, False, False, 0.0)
    clock = {"next": t0 + (report_interval or 0.0)}

    def now() -> float:
        return time.perf_counter()

    def update(**kw: Any) -> Analysis:
        nonlocal last
        t = now()
        last = replace(last, **kw, elapsed=t - t0)
        step = report_interval or 0.0
        # The next one an interval on, on the same beat; after a late one, an interval after it.
        clock["next"] = clock["next"] + step if clock["next"] + step > t else t + step
        return last

    def waiting(fn: Callable[[], Any]) -> Generator[Analysis, None, Any]:
        """``fn()`` in a helper thread (the search waits), the last update repeated every interval meanwhile."""
        box: dict[str, Any] = {}

        def target() -> None:
            try:
                box["value"] = fn()
            except BaseException as e:  # noqa: BLE001 - raised in the analysis' thread below
                box["error"] = e

        helper = threading.Thread(target=target, name="quiltsolve-analysis", daemon=True)
        helper.start()
        try:
            while helper.is_alive():
                helper.join(None if report_interval is None else max(0.0, clock["next"] - now()))
                if helper.is_alive() and report_interval is not None and now() >= clock["next"]:
                    yield update()
        finally:
            if helper.is_alive():   # closed early: the helper is told to stop and given a moment
                either.mine.set()
                helper.join(1.0)
        if "error" in box:
            raise box["error"]
        return box.get("value")

    def proof(seconds: float | None, nodes: int | None) -> Generator[Analysis, None, _proven.ProvenMoves | None]:
        answer: _proven.ProvenMoves | None = yield from waiting(
            lambda: _proven.proven_moves(state, time_limit=seconds, nodes=nodes, stop=either, top=top))
        return answer

    def proven_update(answer: _proven.ProvenMoves, done: int) -> Analysis:
        moves = tuple(AnalyzedMove(m.action, float(m.win_chance if m.win_chance is not None else 0.5), m.reason,
                                   proven_margin=m.proven_margin, line=(m.action,)) for m in answer.moves)
        return update(moves=moves, iterations=done, searched=True, proven=True, final=True,
                      proof_nodes=answer.nodes)

    try:
        if state.is_terminal():
            yield update(final=True)
            return
        proof_seconds: float | None = None
        if prove:
            limits = _proven.proof_limits(state, None if until_stopped else time_limit, iterations)
            answer = yield from proof(limits.seconds, limits.nodes)
            if answer is not None:
                yield proven_update(answer, 0)
                return
            proof_seconds = limits.seconds if iterations is None else None
        # The search, as rank_moves → search → SearchPlayer._search does it, run in slices.
        spent = now() - t0
        left = None if time_limit is None else max(0.0, time_limit - spent)
        if left is None and iterations is None and not until_stopped:
            left = max(0.0, _search.DEFAULT_TIME_LIMIT - spent)
        if left is not None and left <= 0:
            left = 1e-3
        deadline: float | None
        if iterations is None and not until_stopped:
            assert left is not None
            searcher_player = _search.SearchPlayer(time_limit=left, seed=seed, advisor=advisor, reuse=False)
            ts = now()
            deadline = ts + max(0.0, left * _search.TIME_SHARE)
        else:
            # until stopped: the player's time limit is only the lookahead's measure (LOOKAHEAD_HORIZON)
            searcher_player = _search.SearchPlayer(time_limit=LOOKAHEAD_HORIZON, iterations=iterations, seed=seed,
                                                   advisor=advisor, reuse=False, time_cap=left)
            ts = now()
            deadline = None if left is None else ts + left
        look_until: float | None = ts + LOOKAHEAD_HORIZON if deadline is None else min(deadline, ts + LOOKAHEAD_HORIZON)
        if iterations is not None:
            look_until = deadline     # as SearchPlayer._search (no advisor of its own: the snug placements)
        root_actions, at_least = yield from waiting(
            lambda: searcher_player._search_root(state, look_until, either.mine))
        searcher = searcher_player.searcher(state, root_actions)
        next_proof = None if proof_seconds is None else now() + RETRY_FACTOR * proof_seconds
        slice_seconds = report_interval or DEFAULT_REPORT_INTERVAL
        while True:
            t = now()
            end = max(clock["next"], t) if report_interval is not None else t + slice_seconds
            if deadline is not None:
                end = min(end, deadline)
            done = searcher.run(iterations=iterations, time_limit=max(0.0, end - t), at_least=at_least, stop=either)
            finished = (either.is_set() or (iterations is not None and done >= iterations)
                        or (deadline is not None and now() >= deadline and done >= at_least))
            if finished or report_interval is not None:
                yield searched_update(state, searcher, searcher_player, top, pv_depth, update, finished)
            if finished:
                return
            if next_proof is not None and proof_seconds is not None and now() >= next_proof:
                longer = RETRY_FACTOR * proof_seconds
                room = deadline is None or deadline - now() >= RETRY_FACTOR * longer
                if room and _proven.spaces_left(state) <= _proven.proof_spaces(longer):
                    proof_seconds = longer
                    answer = yield from proof(longer, None)
                    if answer is not None:
                        yield proven_update(answer, searcher.iterations)
                        return
                next_proof = now() + RETRY_FACTOR * proof_seconds
    finally:
        either.close()


def searched_update(state: GameState, searcher: core.CoreSearcher, player: _search.SearchPlayer, top: int | None,
                    pv_depth: int, update: Callable[..., Analysis], final: bool) -> Analysis:
    """The update of a search so far: its moves ranked as :func:`engine.players.search.search_moves` ranks
    them (the greedy stand-in when no iteration ran), each with its visits, mean margin and line."""
    res = searcher.report(pv_depth)
    moves = tuple(AnalyzedMove(m.action, float(m.win_chance or 0.0), m.reason, ch.n,
                               ch.margin / ch.n if ch.n else None, None, principal_line(state, ch.action, ch.pv))
                  for m, ch in _search.suggestions_of(state, res))
    searched = bool(moves)
    if not moves:
        stand_in = player.stand_in(state)
        moves = (AnalyzedMove(stand_in.action, 0.5, stand_in.reason, line=(stand_in.action,)),)
    return update(moves=moves[:top] if top else moves, iterations=res.iterations, searched=searched,
                  proven=False, final=final, nodes=res.nodes)


__all__ = ["Analysis", "AnalyzedMove", "DEFAULT_REPORT_INTERVAL", "LOOKAHEAD_HORIZON", "PV_DEPTH", "RETRY_FACTOR",
           "analyze", "principal_line"]
