"""``search`` — our strongest player: UCT over buy/advance decisions, on the compiled core.

The algorithm is the one of ``search-v1`` (``bench/search_v1.py``, the
bench's baseline), but its iterations run in the compiled core
(:mod:`engine.core`: C when built, else an identical pure-Python twin), some
20-60× faster, so the same time buys far more search:

* **Actions** at a node are *advance* and *buy P* for each available patch
  the player can afford (at most 4). A buy's placement is not searched: at
  the root it is the solver's lookahead placement (``rank_placements``
  through the advisor: the placement that keeps most of the upcoming
  patches packable, ties broken by snugness), cached per
  ``(board, patch, upcoming)``, used only when the lookahead proved every
  placement's value in its time (``look_proven_only``); inside the tree, and
  whenever the lookahead is unavailable, unfinished or the budget too short
  for it, the snuggest placement
  (:func:`engine.policy.tight_placement`). Won leather
  patches are placed by a fast heuristic as part of the move that took
  them; only when the root itself has a leather patch pending are the best
  few cells (by that heuristic) searched.
* **Evaluation**: one ε-greedy playout per iteration (ε = 0.1); the reward
  for the player who made the move into a node is
  ``0.75 × win + 0.25 × (1 + tanh(margin / 10)) / 2``.
* **Selection**: UCB1 with ``c = 0.5``; every action of a node is tried
  once first, in the greedy policy's order. The move played is the child
  with the best mean reward shrunk towards the root's mean
  (``(w + 2·mean) / (n + 2)``), which is also how :func:`search_moves` ranks
  the root moves.
* **Memory**: a tree holds at most ``node_cap`` nodes (default
  :data:`engine.core.DEFAULT_NODE_CAP`); once full, the search goes on
  without expanding (more playouts from the leaves it has).
* **No tree reuse** between moves (``search-v1`` kept the subtree it
  expected next): a fresh tree costs nothing next to the speed-up, and every
  move then depends only on the seed and the position. ``reuse`` is accepted
  and ignored.

* **Exact endgames**: near the end of the game (``proven.near_end``; with a
  time budget only from ``proven.proof_spaces`` of its proof time, 23
  spaces left at 0.1 s and 28 at 1 s, where such a proof often finishes) a
  move first asks the exact endgame solver (:mod:`engine.endgame`, through
  :func:`engine.players.proven.proven_best_move`) with ``PROOF_SHARE`` of its
  time (an iteration budget: ``PROOF_NODES_PER_ITERATION`` solver nodes per
  iteration, so the move stays reproducible); when it finishes, the move of
  perfect value is played (``last_proven``), else the search gets the rest
  of the time. ``prove=False`` turns this off.

Budget: ``time_limit`` seconds per move, or a fixed ``iterations`` count
(then the search is reproducible for a fixed seed, with or without the C
core: the random stream of a move is seeded from ``seed`` and the position).
The C core releases the GIL while it searches and checks the stop token
every few milliseconds.

    python -m quiltsolve.engine match --a search:1.0 --b greedy --games 20

>>> from quiltsolve.engine import new_game
>>> s = new_game(4)
>>> a = SearchPlayer(iterations=40, seed=1).choose(s)
>>> s.is_legal(a), a == SearchPlayer(iterations=40, seed=1).choose(s)
(True, True)
>>> [m.action.to_str().split()[0] for m in search_moves(s, iterations=40)][:1] in (['buy'], ['advance'])
True
>>> r = search(s, iterations=40)
>>> r.searched, r.iterations, r.moves == search_moves(s, iterations=40)
(True, 40, True)

:func:`search` is :func:`search_moves` with a report (:class:`SearchResult`:
the moves, the root iterations run, whether it searched at all, the wall
time). The first call in a process pays one-time imports (the solver's
lookahead and OR-Tools, 0.5-1.6 s) before its clock starts; a server calls
:func:`warm_up` once at start so that no request pays them.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass
from typing import Protocol, Sequence, TypeVar

from quiltsolve import solver

from .. import core
from ..actions import ADVANCE, LEATHER_ACTIONS, Action, Advance, Buy, PlaceLeather
from ..advisor import Advisor, Stop
from ..policy import key_seed
from ..state import AREA, COST, INCOME, TIME, GameState, new_game
from ..suggest import MoveSuggestion
from ..track import END, PAYOUTS_AFTER
from .calibration import win_chance as calibrated_chance
from .proven import PROOF_NODES, PROOF_SHARE, ProvenMoves, near_end, proof_spaces, proven_best_move, spaces_left
from .root_placement import (  # noqa: F401 - LOOKAHEAD*: the 0.2 names of these settings
    LOOKAHEAD, LOOKAHEAD_SHARE, MIN_LOOKAHEAD_TIME, Move, RootPlacement, SearchInputError, ensure_imports, forced_move,
    greedy_first_move, macro_moves,
)

DEFAULT_TIME_LIMIT = 1.0
TIME_SHARE = 0.97          # of the time limit spent iterating (the rest: ranking, replying)
EXPLORATION = 0.5
MARGIN_WEIGHT = 0.25
MARGIN_SCALE = core.MARGIN_SCALE
EPSILON = 0.1
LEATHER_CHOICES = 5        # leather cells searched when the root has one pending
PRIOR = 2.0                # pseudo-visits at the parent's mean when ranking moves
PROOF_NODES_PER_ITERATION = 20   # choose(): an iteration costs about as much as 20 solver nodes
NODE_CAP = core.DEFAULT_NODE_CAP


def _root_actions(state: GameState, root_masks: dict[int, int]) -> list[Action]:
    """The root's moves as actions, in the order the search tries them (buys that fit nowhere left out)."""
    out: list[Action] = []
    for move in macro_moves(state, LEATHER_CHOICES):
        if type(move) is tuple:
            out.append(LEATHER_ACTIONS[move[1]])
        elif type(move) is int:
            m = root_masks.get(move)
            if m is not None:
                out.append(Buy(move, m))
        else:
            out.append(ADVANCE)
    return out


class SearchedMove(Protocol):
    """A root move's statistics, as :func:`ranked_moves` and :func:`move_reason` read them
    (``core.CoreChild``; ``search-v1``'s tree nodes)."""

    @property
    def action(self) -> Action | None: ...
    @property
    def n(self) -> int: ...
    @property
    def w(self) -> float: ...
    @property
    def wins(self) -> int: ...
    @property
    def margin(self) -> float: ...


_Child = TypeVar("_Child", bound=SearchedMove)


def ranked_moves(children: Sequence[_Child]) -> list[tuple[float, _Child]]:
    """Root children by shrunk mean reward, best first (ties: more visits, then move order)."""
    total_n = sum(ch.n for ch in children)
    total_w = sum(ch.w for ch in children)
    mean = total_w / total_n if total_n else 0.5
    out = []
    for i, ch in enumerate(children):
        v = (ch.w + PRIOR * mean) / (ch.n + PRIOR)
        out.append((v, ch.n, -i, ch))
    out.sort(key=lambda x: (-x[0], -x[1], -x[2]))
    return [(v, ch) for v, _, _, ch in out]


def move_reason(state: GameState, ch: SearchedMove) -> str:
    """What a searched root move does and how it fared in its playouts."""
    a = ch.action
    cur = state.current_player()
    p = state.players[cur]
    if type(a) is Advance:
        d = min(state.players[1 - cur].position + 1, END) - p.position
        head = f"advance {d} space{'s' if d != 1 else ''} (+{d} buttons)"
    elif type(a) is Buy:
        pid = a.patch_id
        head = (f"buy {pid} ({COST[pid]} buttons, {TIME[pid]} time, {AREA[pid]} cells, "
                f"+{INCOME[pid]} income × {PAYOUTS_AFTER[p.position]} paydays)")
    else:
        assert type(a) is PlaceLeather
        head = f"leather {a.cell[0]},{a.cell[1]}"
    if ch.n == 0:
        return f"{head}: not searched"
    return (f"{head}: won {ch.wins / ch.n:.0%} of {ch.n} playouts, "
            f"mean margin {ch.margin / ch.n:+.1f}")


class SearchPlayer(RootPlacement):
    """UCT over advance / buy-at-the-best-placement on the compiled core; see the module docstring.

    ``time_limit`` seconds per move, unless ``iterations`` is given (then a
    fixed count, reproducible). ``advisor`` ranks root placements
    (``engine.advisor``); None means ``SolverAdvisor`` when the solver's
    lookahead is installed and the budget is a time limit, else the fast
    snug placement. ``reuse`` is accepted for compatibility and ignored (no
    tree reuse). ``pure=True`` runs the pure-Python core (same answers).
    """

    look_proven_only = True   # an unfinished lookahead ranking is worse than the snug placement

    def __init__(self, time_limit: float = DEFAULT_TIME_LIMIT, iterations: int | None = None, seed: int = 0,
                 advisor: Advisor | None = None, *, reuse: bool = True, lookahead: bool = True,
                 exploration: float = EXPLORATION, margin_weight: float = MARGIN_WEIGHT,
                 epsilon: float = EPSILON, time_cap: float | None = None, node_cap: int = NODE_CAP,
                 pure: bool = False, prove: bool = True) -> None:
        self._init_search("search", time_limit, iterations, seed, advisor, reuse, lookahead, exploration,
                          margin_weight, epsilon, time_cap)
        if not isinstance(node_cap, int) or isinstance(node_cap, bool) or not 1 <= node_cap <= 10_000_000:
            raise SearchInputError(f"search node_cap must be an integer in 1..10000000, not {node_cap!r}")
        self.node_cap = node_cap
        self.pure = pure
        self.prove = prove
        self.last_proven = False
        self.last_nodes = 0
        self.last_search: core.CoreSearch | None = None
        self.last_proof: ProvenMoves | None = None

    def __repr__(self) -> str:
        budget = f"time_limit={self.time_limit}" if self.iterations is None else f"iterations={self.iterations}"
        return f"SearchPlayer({budget}, seed={self.seed})"

    # ------------------------------------------------------------- search
    def _search(self, state: GameState, stop: Stop | None = None, spent: float = 0.0) -> core.CoreSearch:
        """The core's search of ``state``; ``spent`` seconds of the move's time are already used (the proof)."""
        advisor = self._advisor()
        if advisor is not None and advisor is not self._auto_advisor:
            ensure_imports(True)   # a given advisor: the solver's lookahead (OR-Tools) is imported off the clock
        t0 = time.perf_counter()
        if self.time_limit is not None:      # a time budget (else iterations)
            deadline: float | None = t0 + max(0.0, self.time_limit * TIME_SHARE - spent)
        else:
            deadline = None if self.time_cap is None else t0 + self.time_cap
        root_actions, at_least = self._search_root(state, deadline, stop)
        left = None if deadline is None else max(0.0, deadline - time.perf_counter())
        res = core.run_search(state, root_actions, seed=key_seed(self.seed, state), iterations=self.iterations,
                              time_limit=left, at_least=at_least, stop=stop, exploration=self.exploration,
                              margin_weight=self.margin_weight, epsilon=self.epsilon, node_cap=self.node_cap,
                              pure=self.pure)
        self.last_iterations = res.iterations
        self.last_nodes = res.nodes
        self.last_search = res
        return res

    def _search_root(self, state: GameState, deadline: float | None, stop: Stop | None) -> tuple[list[Action], int]:
        """The root moves of a search of ``state`` that ends at ``deadline`` (the advisor's placements within
        its share of the time left) and the iterations a time budget runs at least (one per root move)."""
        root_actions = _root_actions(state, self._root_masks(state, deadline, stop))
        # time budgets: one playout per root move even if the root lookahead ate the time
        return root_actions, len(root_actions) if self.iterations is None else 0

    def searcher(self, state: GameState, root_actions: list[Action]) -> core.CoreSearcher:
        """The core's search of ``state`` from these root moves with this player's settings and seed, to be run
        in slices (:mod:`engine.analysis`): the same iterations give what :meth:`search_moves` ranks."""
        return core.CoreSearcher(state, root_actions, seed=key_seed(self.seed, state), exploration=self.exploration,
                                 margin_weight=self.margin_weight, epsilon=self.epsilon, node_cap=self.node_cap,
                                 pure=self.pure)

    def start_game(self, game: int) -> None:
        """A new game of a match: nothing to forget (moves depend only on the seed and the position)."""

    def choose(self, state: GameState) -> Action:
        """The best root move after this move's search (what it found: ``last_search``, the core's search, or
        ``last_proof``, the endgame solver's answer when it was asked; both None for a forced move)."""
        self.last_search = self.last_proof = None
        forced = forced_move(state)
        if forced is not None:
            return forced
        self.last_proven = False
        spent = 0.0
        if self.prove and self._proof_worthwhile(state):
            t0 = time.perf_counter()
            proof = self._prove(state)
            if proof is not None:
                self.last_proven = True
                return proof
            spent = time.perf_counter() - t0
        ranked = ranked_moves(self._search(state, spent=spent).children)
        if not ranked:
            # Stopped before any expansion: the greedy order's first move.
            return greedy_first_move(state, self._cache)
        return ranked[0][1].action

    def _proof_worthwhile(self, state: GameState) -> bool:
        """Near the end (:func:`~engine.players.proven.near_end`); with a time budget, whose proof time the
        search loses, only as near as a proof of ``PROOF_SHARE`` of it often finishes
        (:func:`~engine.players.proven.proof_spaces`: 23 spaces left at 0.1 s, 28 at 1 s). An iteration
        budget's proof costs no iterations, so it is tried from :data:`~engine.players.proven.NEAR_END_SPACES`."""
        if self.iterations is not None:
            return near_end(state)
        return spaces_left(state) <= proof_spaces(PROOF_SHARE * (self.time_limit or DEFAULT_TIME_LIMIT))

    def _prove(self, state: GameState) -> Action | None:
        """The best move by the exact endgame solver, or None when it does not finish within this move's share.

        A time budget gives the solver :data:`~engine.players.proven.PROOF_SHARE` of it; an iteration budget
        gives it :data:`PROOF_NODES_PER_ITERATION` nodes per iteration (at most ``PROOF_NODES``), a count,
        so the move stays reproducible and costs about what the iterations would.
        """
        if self.iterations is not None:
            nodes: int | None = min(PROOF_NODES, PROOF_NODES_PER_ITERATION * self.iterations)
            seconds = None if self.time_cap is None else PROOF_SHARE * self.time_cap
        else:
            nodes = None
            seconds = PROOF_SHARE * (self.time_limit or DEFAULT_TIME_LIMIT)
        answer = proven_best_move(state, time_limit=seconds, nodes=nodes)
        self.last_proof = answer
        return None if answer is None else answer.moves[0].action

    def search_moves(self, state: GameState, *, stop: Stop | None = None, top: int | None = None) -> list[MoveSuggestion]:
        """The root moves ranked by the search (see :func:`search_moves`)."""
        return self._suggest(state, stop, top)[0]

    def _suggest(self, state: GameState, stop: Stop | None, top: int | None) -> tuple[list[MoveSuggestion], int, bool]:
        """(moves, root iterations run, searched): searched is False when no
        iteration ran and the greedy choice stands in."""
        if state.is_terminal():
            return [], 0, False
        res = self._search(state, stop)
        out = [m for m, _ in suggestions_of(state, res)]
        searched = bool(out)
        if not out:
            out = [self.stand_in(state)]
        return (out[:top] if top else out), res.iterations, searched

    def stand_in(self, state: GameState) -> MoveSuggestion:
        """The answer of a search stopped before its first iteration: the greedy order's first move."""
        return MoveSuggestion(greedy_first_move(state, self._cache), 0.5, "not searched (stopped): greedy choice")


def suggestions_of(state: GameState, res: core.CoreSearch) -> list[tuple[MoveSuggestion, core.CoreChild]]:
    """The searched root moves of ``state`` as suggestions, best first (:func:`ranked_moves`), each with its
    child: the win chance calibrated for the iterations run and the spaces left
    (:func:`~engine.players.calibration.win_chance`) and the reason (:func:`move_reason`)."""
    left = spaces_left(state)
    return [(MoveSuggestion(ch.action, round(calibrated_chance(v, res.iterations, left), 4), move_reason(state, ch)),
             ch) for v, ch in ranked_moves(res.children)]


@dataclass(frozen=True)
class SearchResult:
    """What :func:`search` did: the ranked moves and how they were found.

    ``moves``: the suggestions, best first (what :func:`search_moves`
    returns). ``iterations``: root iterations actually run. ``searched``:
    False only when no iteration ran and ``moves`` holds the greedy
    fallback ("not searched (stopped)"), or when the game is over (no
    moves). ``wall_time``: seconds spent in the call.
    """

    moves: list[MoveSuggestion]
    iterations: int
    searched: bool
    wall_time: float


def search(state: GameState, *, time_limit: float | None = None, top: int | None = None, seed: int = 0,
           stop: Stop | None = None, iterations: int | None = None, advisor: Advisor | None = None) -> SearchResult:
    """Rank the moves of ``state`` for the player to move (see :func:`search_moves`) and report the search.

    ``time_limit`` (default 1 s) and ``stop`` are honoured within a few ms:
    the root placements are asked of the advisor with the time left and the
    token. One-time imports (:func:`warm_up`) are done before the clock
    starts, so a cold process still searches for its whole budget
    (``wall_time`` then includes them).
    """
    t0 = time.perf_counter()
    ensure_imports(advisor is None and iterations is None)
    if iterations is None:
        player = SearchPlayer(time_limit=DEFAULT_TIME_LIMIT if time_limit is None else time_limit,
                              seed=seed, advisor=advisor, reuse=False)
    else:
        player = SearchPlayer(iterations=iterations, seed=seed, advisor=advisor, reuse=False, time_cap=time_limit)
    moves, n, searched = player._suggest(state, stop, top)
    return SearchResult(moves, n, searched, time.perf_counter() - t0)


def search_moves(state: GameState, *, time_limit: float | None = None, seed: int = 0, stop: Stop | None = None,
                 advisor: Advisor | None = None,
                 top: int | None = None, iterations: int | None = None) -> list[MoveSuggestion]:
    """Rank the moves of ``state`` for the player to move with :class:`SearchPlayer`'s search.

    One suggestion per root move — advance, each affordable patch at its
    chosen placement, or (leather pending) the best few cells — best first.
    ``win_chance`` is the estimated chance of winning: the mean playout reward,
    shrunk towards the position's mean for rarely visited moves, calibrated into
    a win rate by :func:`engine.players.calibration.win_chance` (one model of the reward, the iterations
    the search reached and the spaces left, fitted on self-play, docs/players.md; 0.5, "no idea", for the
    greedy stand-in when
    nothing was searched); ``margin_buttons`` is None (the mean margin is in
    the reason), and ``reason`` says what the move does and how it fared. ``time_limit`` is the
    thinking time in seconds (default 1 s); ``iterations`` instead gives a
    fixed, reproducible budget, and then ``time_limit``, when given, only caps
    the wall time. ``stop`` (a ``solver.StopToken``) ends the search early,
    checked every few ms. Empty for a finished game. (:func:`search`
    also reports how many iterations ran.)
    """
    return search(state, time_limit=time_limit, top=top, seed=seed, stop=stop, iterations=iterations,
                  advisor=advisor).moves


_warm = {"done": False}


def warm_up(*, freeze_gc: bool = True) -> None:
    """Do every one-time cost of the search now, so that a later call spends
    its whole budget searching: the imports (solver lookahead, OR-Tools), the
    solver's tables for every patch, one lookahead and a tiny search on a
    fresh position. Idempotent; about 0.5-2 s the first time.

    ``freeze_gc``: then ``gc.freeze()`` the objects loaded so far (modules,
    OR-Tools): the collector's full passes no longer scan them, which cuts
    pauses of 30-70 ms in the middle of a timed search to a few ms. Meant for
    a process that serves searches (a server worker).
    """
    if _warm["done"]:
        return
    ensure_imports(True)
    # (The solver's per-shape tables that these calls do not build cost ~0.1 ms each on first use.)
    solver.rank_placements(0, 0, [1, 2, 3], time_limit=0.05)
    solver.rank_placements(0, 0, [1, 2, 3], square7=True, time_limit=0.05)
    state = new_game(0)
    SearchPlayer(time_limit=0.05, seed=0, reuse=False).search_moves(state)
    SearchPlayer(iterations=5, seed=0, reuse=False).search_moves(state)
    if freeze_gc:
        gc.collect()
        gc.freeze()
    _warm["done"] = True


def parse_budget(arg: str | None, name: str = "search") -> tuple[float, int | None]:
    """``(time_limit, iterations)`` of a ``NAME[:S]`` / ``NAME:Nit`` spec's argument (ValueError when bad)."""
    time_limit = DEFAULT_TIME_LIMIT
    iterations = None
    if arg is not None:
        text = arg.strip().lower()
        try:
            if text.endswith("it"):
                iterations = int(text[:-2])
            else:
                time_limit = float(text)
        except ValueError:
            raise ValueError(f"{name} player takes seconds per move ({name}:1.0) or iterations ({name}:500it), "
                             f"not {arg!r}") from None
        if iterations is not None and not 1 <= iterations <= 10_000_000:
            raise ValueError(f"{name} iterations must be in 1..10000000, not {arg}")
        if iterations is None and not 0 < time_limit <= 3600:
            raise ValueError(f"{name} time limit must be in (0, 3600] s, not {arg}")
    return time_limit, iterations


def make_search(arg: str | None, seed: int, advisor: Advisor | None = None) -> SearchPlayer:
    """The ``search[:S]`` / ``search:Nit`` spec's factory."""
    time_limit, iterations = parse_budget(arg)
    return SearchPlayer(time_limit=time_limit, iterations=iterations, seed=seed, advisor=advisor)


__all__ = ["DEFAULT_TIME_LIMIT", "MoveSuggestion", "SearchInputError", "SearchPlayer", "SearchResult", "SearchedMove", "make_search",
           "move_reason", "ranked_moves", "suggestions_of",
           "parse_budget", "search", "search_moves", "warm_up"]
