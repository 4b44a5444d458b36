"""Solving a position exactly, with progress: the proven interval of its value, narrowing as the search runs.

:func:`solve_position` is the exact endgame solver (:mod:`engine.endgame`,
its C or pure-Python alpha-beta and its bounded transposition table) driven
as an *anytime* search: it yields a :class:`SolveUpdate` every report
interval, each with the interval ``[lower, upper]`` the value of the
position is proven to lie in (the margin of the player to move: their final
score minus the other's under perfect play), the nodes searched, the time
and the best line so far; the last update is final, and when the interval
has closed it holds the exact value and a principal variation to the end of
the game. A time limit, a ``stop`` token or closing the iterator end it at
once, with the interval proven so far (never a claim the search did not
finish). The service's ``SolvePosition``, ``suggest solve`` and the web
app's *Solve* button answer with it; :mod:`engine.ray_solve` runs the same
search over a Ray cluster.

How (MTD(f) over the solver's window search, split at the root)
----------------------------------------------------------------
The driver keeps a small tree on top of the solver: the root, its children
(the moves the solver searches, rule R1 applied) and, where several workers
share the work, the children of one of them. Every node carries an interval
``[lo, hi]`` of player 0's margin, exact bounds all: a terminal node's is
its margin; a searched node's comes from the solver's fail-soft null-window
search (:meth:`engine.endgame._Search.ab` with the window ``(g - 1, g)``
returns ``v >= g``, a lower bound, or ``v < g``, an upper bound); an inner
node's is the max (player 0 to move) or min (player 1) of its children's,
intersected with its own. So the root's interval only ever narrows, and
never excludes the value.

Each *probe* asks one question of the root, "is the value ``>= g``?", the
test value ``g`` chosen as MTD(f) chooses it (the first ``0``: who wins on
points; then one more than a proven lower bound, or a proven upper bound)
and answered child by child, in an order the intervals give (the child
most likely to decide first; ties in the solver's own order): a probe ends
as soon as the root is decided, so one child that reaches ``g`` answers a
"yes" for player 0 to move, and every child must fail for a "no". The
interval narrows after every child, not only after every probe. The
solver's one table serves every probe, so each probe re-searches mostly
from the table.

Splitting (``workers`` > 1, :mod:`engine.ray_solve`): the first undecided
child of the root (the "eldest brother", the one a "yes" usually comes from)
is split into its own children, each a task, and the other children are
tasks too, dispatched to idle workers in that order; a task whose node
(or whose parent) is decided meanwhile is cancelled. Each worker keeps its
own table and gets the nodes it searched before when it can.

>>> from quiltsolve.engine import GameState
>>> s = GameState.from_notation("r 47,37,tirvpmf2w3g,777577557557777077077005005 "
...                             "46,12,l97aq0u6k8n,777777777743741740770774770 j4he1odbsc5 1 -")  # 8 plies left
>>> updates = list(solve_position(s, time_limit=30, report_interval=None))
>>> last = updates[-1]
>>> last.final, last.exact, last.reason, last.value, last.value == solve(s, time_limit=30).value
(True, True, 'solved', 3, True)
>>> last.best.to_str(), len(last.line)
('buy 17 3,4;3,5;3,6;4,4', 7)
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Protocol

from quiltsolve.solver.limits import DEFAULT_REPORT_INTERVAL, DEFAULT_SOLVE_TABLE_BYTES

from . import endgame
from .actions import Action
from .endgame import EndgameArgumentError, solve  # noqa: F401 - solve: the doctest's
from .errors import IllegalActionError
from .state import AREA, COST, INCOME, GameState
from .track import BOARD_CELLS, BONUS_POINTS, EMPTY_PENALTY, END, PAYOUTS_AFTER

__all__ = ["DEFAULT_SOLVE_TABLE_BYTES", "LINE_DEPTH", "SolveUpdate", "Stop", "solve_position", "solve_exact"]

LINE_DEPTH = 60
"""Moves of the best line so far at most (the table's moves after the root's); the exact line is whole."""
LINE_EVERY = 0.05
"""Seconds between two looks for the best line so far (it is looked for again at the end)."""


class Stop(Protocol):
    """Anything with ``is_set()`` (e.g. ``quiltsolve.solver.StopToken``)."""

    def is_set(self) -> bool:
        """True once the solve should end."""
        ...


@dataclass(frozen=True)
class SolveUpdate:
    """The solve so far: the proven interval of the value, the work done, the best line.

    Values are margins of the player to move in the position solved (``player``): their final score minus
    the other's when both play perfectly. ``lower`` / ``upper``: the value is proven to be at least / at
    most this (from the first update on: :func:`margin_bounds` before any search); ``exact`` when they meet
    (then ``value`` is the position's value).
    ``line``: the best line so far, from the position: the move that proved the lower bound (its first move)
    and the replies the search found best; once exact, a principal variation to the end of the game reaching
    ``value``. ``reason``: ``running`` (not final), ``solved``, ``terminal`` (a finished game), ``time`` (the
    time limit), ``stopped`` (a cancel). ``probes``: the null-window questions asked of the root so far.
    """

    player: int
    lower: int
    upper: int
    nodes: int
    elapsed: float = field(compare=False)
    line: tuple[Action, ...] = ()
    final: bool = False
    reason: str = "running"
    probes: int = 0
    table_full: bool = False
    table_bytes: int = 0
    workers: int = 1

    @property
    def exact(self) -> bool:
        """Whether the interval has closed: the value is proven."""
        return self.lower == self.upper

    @property
    def value(self) -> int | None:
        """The exact value for the player to move, None until the interval closes."""
        return self.lower if self.exact else None

    @property
    def best(self) -> Action | None:
        """The first move of the line (the best move once exact)."""
        return self.line[0] if self.line else None


class _Abort(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# ---------------------------------------------------------------- bounds without search

def score_bounds(state: GameState, i: int) -> tuple[int, int]:
    """Bounds on player ``i``'s final score from ``state``, whatever both players do (no search).

    *At least*: what advancing to the end alone gives them, and nobody can take from them: every space
    they move pays a button (``END - position`` spaces in all), every payday their present income, the
    7×7 tile stays theirs if they hold it, and placing leather only covers cells.

    *At most*: the same, plus, for every patch still in the circle, what buying it could add if it paid
    off in full (its income on every payday left, less its cost, plus two points for each cell it covers;
    only the patches where that is positive), two points for every leather patch still to come, and the
    tile if it is theirs or still open; never more than the same without the cells (no quilt ends with
    fewer than 0 empty cells). A player on space 53 with nothing to place is done: both bounds are their
    score.

    >>> from quiltsolve.engine import new_game
    >>> score_bounds(new_game(1), 0)
    (-104, 296)
    """
    p = state.players[i]
    pos = p.position
    pending = state.leather_to_place if state.current_player() == i else 0
    empty = BOARD_CELLS - p.board.bit_count()
    paydays = PAYOUTS_AFTER[pos]
    base = p.buttons + (END - pos) + p.income * paydays
    tile = BONUS_POINTS if p.bonus else 0
    low = base - EMPTY_PENALTY * empty + tile
    if pos == END and not pending:
        return low, low
    buys = cover = 0
    for pid in state.circle:
        gain = paydays * INCOME[pid] - COST[pid]
        buys += max(0, gain)
        cover += max(0, gain + EMPTY_PENALTY * AREA[pid])
    leather = len(state.leather) + pending
    high = base + min(cover + EMPTY_PENALTY * (leather - empty), buys)
    if p.bonus or state.bonus_open:
        high += BONUS_POINTS
    return low, high


def margin_bounds(state: GameState) -> tuple[int, int]:
    """Bounds on the game value of ``state`` (player 0's final margin under perfect play), no search: player
    0 can make sure of their own score's lower bound whatever player 1 does, and player 1 never scores more
    than their upper bound (and the other way round). A finished game: its margin, twice.

    >>> from quiltsolve.engine import new_game
    >>> margin_bounds(new_game(1))
    (-400, 400)
    """
    if state.is_terminal():
        a, b = state.players
        m = a.score() - b.score()
        return m, m
    low0, high0 = score_bounds(state, 0)
    low1, high1 = score_bounds(state, 1)
    return low0 - high1, high0 - low1


# ---------------------------------------------------------------- the tree of bounds

class Node:
    """A node of the driver's tree: a position, the move to it, its interval ``[lo, hi]`` of player 0's margin."""

    __slots__ = ("state", "action", "parent", "index", "ply", "maxing", "lo", "hi", "kids", "busy", "owner")

    def __init__(self, state: GameState, action: Action | None, parent: "Node | None", index: int) -> None:
        self.state = state
        self.action = action
        self.parent = parent
        self.index = index                     # its place in the solver's order among its siblings
        self.ply: int = 0 if parent is None else parent.ply + 1
        self.maxing = state.current_player() == 0
        self.kids: list[Node] | None = None    # None: searched whole (not split)
        self.busy = False                      # a task is searching it
        self.owner: int | None = None          # the worker that searched it last (its table knows it)
        self.lo, self.hi = margin_bounds(state)

    @property
    def exact(self) -> bool:
        return self.lo == self.hi

    @property
    def path(self) -> tuple[int, ...]:
        """The indexes of the moves from the root to here."""
        return () if self.parent is None else (*self.parent.path, self.index)

    def __repr__(self) -> str:  # pragma: no cover - debugging
        return f"Node({self.path}, [{self.lo}, {self.hi}])"


class Tree:
    """The root, its children and the children of the split ones, with their intervals.

    ``children(state)`` lists the moves the solver searches, in its order. Every bound is an exact bound of
    the game value (player 0's margin); :meth:`bound` records a search's answer and narrows the ancestors.
    """

    def __init__(self, state: GameState, children: Callable[[GameState], list[Action]]) -> None:
        self.children = children
        self.root = Node(state.clone(), None, None, 0)
        self.expand(self.root)
        self._last: bool | None = None     # the last probe's answer ("yes": the value >= its test value)
        self._bracketed = False            # answers have gone both ways
        self._step = 1

    def expand(self, node: Node) -> None:
        """Split ``node``: its children become nodes of the tree (searched one by one, or split in turn)."""
        if node.kids is not None or node.exact:
            return
        kids = []
        for i, act in enumerate(self.children(node.state)):
            c = node.state.clone()
            c.apply_action(act)
            kids.append(Node(c, act, node, i))
        node.kids = kids
        self._narrow(node)

    def bound(self, node: Node, v: int, g: int) -> None:
        """The solver's fail-soft answer ``v`` to "``node`` >= ``g``?" (window ``(g - 1, g)``): a lower
        bound when ``v >= g``, else an upper bound."""
        if v >= g:
            if v > node.lo:
                node.lo = v
        elif v < node.hi:
            node.hi = v
        if node.lo > node.hi:  # pragma: no cover - would be a bug of the solver
            raise AssertionError(f"contradicting bounds at {node.path}: [{node.lo}, {node.hi}]")
        if node.parent is not None:
            self._narrow(node.parent)

    def _narrow(self, node: Node | None) -> None:
        while node is not None and node.kids:
            if node.maxing:
                lo = max(k.lo for k in node.kids)
                hi = max(k.hi for k in node.kids)
            else:
                lo = min(k.lo for k in node.kids)
                hi = min(k.hi for k in node.kids)
            if lo <= node.lo and hi >= node.hi:
                return
            node.lo, node.hi = max(node.lo, lo), min(node.hi, hi)
            if node.lo > node.hi:  # pragma: no cover
                raise AssertionError(f"contradicting bounds at {node.path}: [{node.lo}, {node.hi}]")
            node = node.parent

    @staticmethod
    def decided(node: Node, g: int) -> bool:
        """Whether the node's interval answers "``>= g``?"."""
        return node.lo >= g or node.hi < g

    def ordered(self, node: Node, g: int) -> list[Node]:
        """``node``'s undecided children, the likeliest to decide "``node >= g``" first: for player 0 to move
        the child with the highest upper bound (a "yes" ends it), for player 1 the lowest lower bound (a "no"
        ends it); ties by the other bound, then in the solver's order."""
        assert node.kids is not None
        kids = [k for k in node.kids if not self.decided(k, g)]
        if node.maxing:
            kids.sort(key=lambda k: (-k.hi, -k.lo, k.index))
        else:
            kids.sort(key=lambda k: (k.lo, k.hi, k.index))
        return kids

    def frontier(self, g: int, split: bool) -> list[Node]:
        """What to search next for the probe at ``g``, most useful first: the root's undecided children, the
        first of them split into its own (with ``split``, unless it is being searched whole already)."""
        root = self.root
        if self.decided(root, g):
            return []
        out: list[Node] = []
        for i, kid in enumerate(self.ordered(root, g)):
            if split and i == 0 and kid.kids is None and not kid.busy:
                self.expand(kid)
                if self.decided(root, g) or self.decided(kid, g):
                    return self.frontier(g, split)
            if kid.kids is not None:
                out.extend(self.ordered(kid, g))
            else:
                out.append(kid)
        return [n for n in out if not n.busy and not (n.parent is not None and n.parent.busy)]

    def needed(self, node: Node, g: int) -> bool:
        """Whether a search of ``node`` can still help the probe at ``g``: neither it nor an ancestor is decided."""
        n: Node | None = node
        while n is not None:
            if self.decided(n, g):
                return False
            n = n.parent
        return True

    def best_path(self) -> list[Node]:
        """The nodes of the best line in the tree: from the root, the child that proves the node's bound on
        the mover's side (the highest lower bound for player 0, the lowest upper bound for player 1; when
        none is bounded, the solver's first), while the node is split."""
        out = []
        node = self.root
        while node.kids:
            kids = node.kids
            if node.maxing:
                node = max(kids, key=lambda k: (k.lo, k.hi, -k.index))
            else:
                node = min(kids, key=lambda k: (k.hi, k.lo, k.index))
            out.append(node)
        return out

    def next_guess(self, g: int) -> int:
        """The next test value after the probe at ``g``: galloping away from the first guess while every
        answer goes the same way (one past the new bound, then 2, 4, 8, ... past it), halving the interval
        once answers have gone both ways (see the module docstring)."""
        root = self.root
        high = root.lo >= g
        if self._last is not None and self._last != high:
            self._bracketed = True
        if self._bracketed:
            guess = (root.lo + root.hi + 1) // 2
        else:
            self._step = self._step * 2 if self._last == high else 1
            guess = root.lo + self._step if high else root.hi - self._step + 1
        self._last = high
        return guess


# ---------------------------------------------------------------- workers

class Worker(Protocol):
    """What runs the searches of one solve: one at a time (:class:`LocalWorker`) or several at once."""

    workers: int

    def submit(self, batch: list[Node], g: int) -> None:
        """Start "``node`` >= ``g``?" for each node of ``batch`` (siblings, searched in that order) on an idle
        worker (the first node's ``owner`` if idle); the search of a batch ends at the first answer that
        decides their parent."""

    def idle(self) -> int:
        """Workers free for :meth:`submit`."""

    def running(self) -> int:
        """Searches under way."""

    def wait(self) -> list[tuple[Node, int, int | None]]:
        """The searches that ended since the last call (at least one; blocks): ``(node, g, v)``, ``v`` None
        when it was cancelled or stopped. Raises :class:`_Abort` when the solve must end (time, stop)."""

    def cancel(self, node: Node) -> None:
        """Stop the search of ``node``'s batch (the answers come back through :meth:`wait`, perhaps bounds)."""

    def nodes(self) -> int:
        """Nodes searched so far, all workers (read from any thread)."""

    def table_full(self) -> bool:
        """Whether a table replaced an entry of another position."""

    def line(self, node: Node, value: int) -> list[Action]:
        """A principal variation from ``node`` (exact, ``value``), from the table of the worker that searched
        it (empty when it cannot be had within the time)."""

    def table_line(self, node: Node, depth: int) -> list[Action]:
        """The table's best moves from ``node``, at most ``depth`` (empty where no table is at hand)."""


def batches(front: list[Node], free: int, workers: int) -> list[list[Node]]:
    """The tasks for ``free`` idle workers (of ``workers``) from the frontier, most useful first: a move of the
    root alone (a large search); the children of a split move in groups, about two per worker, each group
    taking every so many of them in order so that each starts with the likeliest to decide.

    >>> class N:
    ...     def __init__(self, ply, parent=None): self.ply, self.parent = ply, parent
    >>> root_kid = N(1); split = N(1); kids = [N(2, split) for _ in range(9)]
    >>> [len(b) for b in batches(kids + [root_kid], 2, 2)]   # 9 children in 4 groups: the first two now
    [3, 2]
    >>> [len(b) for b in batches([root_kid] + kids, 1, 1)]
    [1]
    """
    out: list[list[Node]] = []
    i = 0
    while i < len(front) and len(out) < free:
        node = front[i]
        if node.ply < 2 or workers == 1:
            out.append([node])
            i += 1
            continue
        j = i
        while j < len(front) and front[j].parent is node.parent:
            j += 1
        group = front[i:j]
        n = min(len(group), max(1, 2 * workers))
        out.extend([group[k::n] for k in range(n)][:free - len(out)])
        i = j
    return out


class Control:
    """The stop token the solver looks at every 1,024 nodes: the caller's ``stop``, the deadline, and this
    solve's own cancel (closing the iterator), whichever comes first; ``reason`` says which."""

    def __init__(self, stop: Stop | None, deadline: float | None) -> None:
        self.stop = stop
        self.deadline = deadline
        self.cancelled = threading.Event()
        self.reason: str | None = None

    def is_set(self) -> bool:
        """True once the solve must end (``reason`` then says why: ``stopped`` or ``time``)."""
        if self.reason is not None:
            return True
        if self.cancelled.is_set() or (self.stop is not None and self.stop.is_set()):
            self.reason = "stopped"
        elif self.deadline is not None and time.monotonic() >= self.deadline:
            self.reason = "time"
        return self.reason is not None


def make_search(backend: str, table_bytes: int, stop: Stop | None) -> Any:
    """The solver's search object (:mod:`engine.endgame`'s C or Python one: ``ab``, ``children``,
    ``probe_move``, ``nodes``, ``table_full``) with a table of ``table_bytes``, stopped only by ``stop``."""
    cls = endgame._CSearch if backend == "c" else endgame._Search
    return cls(table_bytes, None, stop, None)


def table_moves(search: Any, state: GameState, depth: int) -> list[Action]:
    """The table's best move from ``state``, then from the position after it, ... (at most ``depth``; cut
    where the table has none or it does not apply)."""
    out: list[Action] = []
    s = state.clone()
    while len(out) < depth and not s.is_terminal():
        move = search.probe_move(s)
        if move is None:
            break
        try:
            s.apply_action(move)
        except IllegalActionError:  # pragma: no cover - a move stored for another position of the same key
            break
        out.append(move)
    return out


class LocalWorker:
    """One search in this thread, one table: the searches run one at a time, as they are submitted."""

    workers = 1

    def __init__(self, backend: str, table_bytes: int, control: Control) -> None:
        self.control = control
        self.search = make_search(backend, table_bytes, control)
        self._done: list[tuple[Node, int, int | None]] = []

    def children(self, state: GameState) -> list[Action]:
        """The moves the solver searches at ``state``, in its order (rule R1 applied)."""
        return list(self.search.children(state))

    def submit(self, batch: list[Node], g: int) -> None:
        """Search each node of ``batch`` now (see :meth:`Worker.submit`)."""
        for node in batch:
            try:
                v = self.search.ab(node.state, g - 1, g, node.ply)
            except endgame._Abort:
                raise _Abort(self.control.reason or "stopped") from None
            node.owner = 0
            self._done.append((node, g, v))

    def idle(self) -> int:
        """1 while no answer waits to be read, else 0."""
        return 0 if self._done else 1

    def running(self) -> int:
        """The answers not read yet (the searches ran at :meth:`submit`)."""
        return len(self._done)

    def wait(self) -> list[tuple[Node, int, int | None]]:
        """The answers of the last :meth:`submit`."""
        done, self._done = self._done, []
        return done

    def cancel(self, node: Node) -> None:
        """Nothing to do: nothing runs while the driver decides."""

    def nodes(self) -> int:
        """The solver's nodes so far."""
        return int(self.search.nodes)

    def table_full(self) -> bool:
        """Whether the table replaced an entry of another position."""
        return bool(self.search.table_full)

    def line(self, node: Node, value: int) -> list[Action]:
        """A principal variation from ``node`` (see :meth:`Worker.line`)."""
        if node.state.is_terminal():
            return []
        try:
            return endgame._line(self.search, node.state, value, node.ply)
        except endgame._Abort:
            return self.table_line(node, LINE_DEPTH)

    def table_line(self, node: Node, depth: int) -> list[Action]:
        """The table's best moves from ``node`` (:func:`table_moves`)."""
        return table_moves(self.search, node.state, depth)


# ---------------------------------------------------------------- the driver

class Driver:
    """One solve: the tree, the worker(s), MTD(f)'s probes; :meth:`snapshot` may be read from another thread."""

    def __init__(self, state: GameState, worker: Worker, children: Callable[[GameState], list[Action]],
                 table_bytes: int, control: Control, first_guess: int = 0) -> None:
        self.t0 = time.monotonic()
        self.state = state
        self.worker = worker
        self.control = control
        self.table_bytes = table_bytes
        self.sign = 1 if state.current_player() == 0 else -1
        self.tree = Tree(state, children)
        self.guess = first_guess * self.sign
        self.probes = 0
        self.lock = threading.Lock()
        self.line: tuple[Action, ...] = ()
        self.reason: str | None = None
        self.done = threading.Event()
        self._published = 0.0
        self._publish_line()

    # -------------------------------------------------------- reading
    def interval(self) -> tuple[int, int]:
        """The root's interval for the player to move."""
        lo, hi = self.tree.root.lo, self.tree.root.hi
        return (lo, hi) if self.sign > 0 else (-hi, -lo)

    def snapshot(self, final: bool = False) -> SolveUpdate:
        """The solve so far as an update (``final``: the last one)."""
        with self.lock:
            lower, upper = self.interval()
            line, probes = self.line, self.probes
        return SolveUpdate(player=self.state.current_player(), lower=lower, upper=upper,
                           nodes=self.worker.nodes(), elapsed=time.monotonic() - self.t0, line=line,
                           final=final, reason=(self.reason or "stopped") if final else "running", probes=probes,
                           table_full=self.worker.table_full(), table_bytes=self.table_bytes,
                           workers=self.worker.workers)

    def _publish_line(self, force: bool = True) -> None:
        now = time.monotonic()
        if not force and now - self._published < LINE_EVERY:
            return
        self._published = now
        path = self.tree.best_path()
        moves: list[Action] = [n.action for n in path if n.action is not None]
        if path:
            moves += self.worker.table_line(path[-1], LINE_DEPTH - len(moves))
        with self.lock:
            self.line = tuple(moves)

    # -------------------------------------------------------- running
    def run(self) -> None:
        """Probe until the interval closes or the solve is stopped; then the exact line. Sets ``done``."""
        try:
            try:
                self._probe_until_exact()
                self._exact_line()
                self.reason = "solved"
            except _Abort as e:
                self.reason = e.reason
                self._settle()
        finally:
            self.done.set()

    def _probe_until_exact(self) -> None:
        tree, worker = self.tree, self.worker
        split = worker.workers > 1
        while not tree.root.exact:
            g = max(tree.root.lo + 1, min(self.guess, tree.root.hi))
            with self.lock:
                self.probes += 1
            while not tree.decided(tree.root, g):
                if self.control.is_set():   # the solver looks every 1,024 nodes; many searches take fewer
                    raise _Abort(self.control.reason or "stopped")
                free = worker.idle()
                if free:
                    for batch in batches(tree.frontier(g, split), free, worker.workers):
                        for node in batch:
                            node.busy = True
                        worker.submit(batch, g)
                if not worker.running():  # pragma: no cover - a bug: nothing to search, nothing decided
                    raise AssertionError(f"the probe at {g} is stuck: {tree.root}")
                self._take(worker.wait(), g)
            for node in self._busy():
                worker.cancel(node)
            self.guess = tree.next_guess(g)

    def _take(self, done: list[tuple[Node, int, int | None]], g: int) -> None:
        """Record finished searches; cancel the ones the probe at ``g`` no longer needs."""
        tree = self.tree
        with self.lock:
            for node, at, v in done:
                node.busy = False
                if v is not None:
                    tree.bound(node, v, at)
        self._publish_line(force=False)
        for node in self._busy():
            if not tree.needed(node, g):
                self.worker.cancel(node)

    def _busy(self) -> list[Node]:
        out = []
        for kid in self.tree.root.kids or ():
            if kid.busy:
                out.append(kid)
            out.extend(k for k in kid.kids or () if k.busy)
        return out

    def _settle(self) -> None:
        """After a stop: the answers that came back meanwhile still narrow the interval."""
        if self.worker.workers > 1:
            for node in self._busy():
                self.worker.cancel(node)
            while self.worker.running():
                try:
                    done = self.worker.wait()
                except _Abort:
                    break
                with self.lock:
                    for node, at, v in done:
                        node.busy = False
                        if v is not None:
                            self.tree.bound(node, v, at)
        self._publish_line()

    def _exact_line(self) -> None:
        """The principal variation: down the tree along exact nodes, then from the deepest one's worker."""
        root = self.tree.root
        value = root.lo
        moves: list[Action] = []
        node = root
        while node.kids:
            nxt = next((k for k in sorted(node.kids, key=lambda k: k.index) if k.exact and k.lo == value), None)
            if nxt is None:
                break
            node = nxt
            assert node.action is not None
            moves.append(node.action)
        moves += self.worker.line(node, value)
        with self.lock:
            self.line = tuple(moves)


def _check(state: Any, time_limit: Any, stop: Any, table_bytes: Any, report_interval: Any, backend: Any) -> str:
    if not isinstance(state, GameState):
        raise EndgameArgumentError(f"state: must be a GameState, got {type(state).__name__}")
    if time_limit is not None and (type(time_limit) not in (int, float) or not math.isfinite(time_limit)
                                   or time_limit <= 0):
        raise EndgameArgumentError(f"time_limit: must be None or a number of seconds > 0, got {time_limit!r}")
    if report_interval is not None and (type(report_interval) not in (int, float)
                                        or not math.isfinite(report_interval) or report_interval <= 0):
        raise EndgameArgumentError(f"report_interval: must be None or a number of seconds > 0, "
                                   f"got {report_interval!r}")
    return endgame._check_args(state, None, time_limit, stop, table_bytes, False, backend)


def run_driver(driver: Driver, report_interval: float | None) -> Iterator[SolveUpdate]:
    """Run ``driver`` in a helper thread; its :class:`SolveUpdate` every ``report_interval`` (None: the final
    one only), the first at once, the last final. Closing the iterator stops the solve and waits for it."""
    helper = threading.Thread(target=driver.run, name="quiltsolve-solve", daemon=True)
    helper.start()
    try:
        if report_interval is not None:
            yield driver.snapshot()
            while not driver.done.wait(report_interval):
                yield driver.snapshot()
        helper.join()
        yield driver.snapshot(final=True)
    finally:
        if helper.is_alive():   # closed early: the search ends within 1,024 nodes
            driver.control.cancelled.set()
            helper.join()


def solve_position(state: GameState, *, time_limit: float | None = 60.0, stop: Stop | None = None,
                   table_bytes: int = DEFAULT_SOLVE_TABLE_BYTES,
                   report_interval: float | None = DEFAULT_REPORT_INTERVAL,
                   backend: str | None = None) -> Iterator[SolveUpdate]:
    """The exact solve of ``state`` as it runs: a :class:`SolveUpdate` at once, then every
    ``report_interval`` seconds (None: only the final one), the last with ``final`` set: exact (``reason``
    ``solved``) or the interval proven when ``time_limit`` seconds passed (``time``) or ``stop`` was set
    (``stopped``). ``table_bytes`` bounds the transposition table; ``backend`` as for
    :func:`engine.endgame.solve`. A finished game: one final, exact update (``terminal``). Closing the
    iterator stops the search at once. Bad arguments raise :class:`engine.endgame.EndgameArgumentError`
    naming the argument.
    """
    chosen = _check(state, time_limit, stop, table_bytes, report_interval, backend)
    t0 = time.monotonic()
    player = state.current_player()
    if state.is_terminal():
        a, b = state.players
        margin = (a.score() - b.score()) * (1 if player == 0 else -1)
        yield SolveUpdate(player, margin, margin, 0, time.monotonic() - t0, final=True, reason="terminal",
                          table_bytes=table_bytes)
        return
    control = Control(stop, None if time_limit is None else t0 + time_limit)
    worker = LocalWorker(chosen, table_bytes, control)
    driver = Driver(state, worker, worker.children, table_bytes, control)
    driver.t0 = t0
    yield from run_driver(driver, report_interval)


def solve_exact(state: GameState, **kw: Any) -> SolveUpdate:
    """The final update of :func:`solve_position` (same arguments, no reports)."""
    last = None
    for last in solve_position(state, **{"report_interval": None, **kw}):
        pass
    assert last is not None
    return last
