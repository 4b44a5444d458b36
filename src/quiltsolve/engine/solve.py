"""Solving a position exactly, with progress: the proven interval of its value, narrowing as the search runs.

:func:`solve_position` runs the exact endgame solver's anytime solve
(:func:`engine.endgame.solve_progress`: its static bounds, the two relaxed
searches, then null-window tests halving the interval) in a helper thread
and yields a :class:`SolveUpdate` at once and then every report interval:
the interval ``[lower, upper]`` the value of the position is proven to lie
in (the margin of the player to move: their final score minus the other's
under perfect play), the nodes searched (counted live, from the solver's
looks at its stop token), the time and the best line so far; the last update
is final, and when the interval has closed it holds the exact value and a
principal variation to the end of the game. A time limit, a ``stop`` token
or closing the iterator end it at once, with the interval proven so far
(never a claim the search did not finish). One that falls after the
interval closed, while the line is being found, ends exact (the value is
proven) with that reason and the line found so far. The service's ``SolvePosition``,
``suggest solve`` and the web app's *Solve* button answer with it.

:func:`solve_split` reaches the same value another way, the one
:mod:`engine.ray_solve` spreads over a Ray cluster, here with one worker in
this thread (so that its logic is tested without Ray):

The split driver
----------------
The driver keeps a small tree on top of the solver: the root, its children
(the moves the solver searches, rule R1 applied) and, where several workers
share the work and the root has one move left undecided, that move's
children. Every node carries an interval ``[lo, hi]`` of player 0's margin,
exact bounds all: first the solver's static bounds (rule S,
:func:`engine.endgame._static_bounds`); at the root also its two relaxed
searches (rule B: player 0 deferred bounds the value from above, player 1
deferred from below); a terminal node's is its margin; a searched node's
comes from the solver's fail-soft null-window search (``ab`` with the window
``(g - 1, g)`` returns ``v >= g``, a lower bound, or ``v < g``, an upper
bound); an inner node's is the max (player 0 to move) or min (player 1) of
its children's, intersected with its own. So the root's interval only ever
narrows, and never excludes the value.

Each *probe* asks one question of the root, "is the value ``>= g``?" (``g``
halving the interval, as the solver's own tests do), answered child by
child, in an order the intervals give (the child most likely to decide
first; ties in the solver's own order): a probe ends as soon as the root is
decided, so one child that reaches ``g`` answers a "yes" for player 0 to
move, and every child must fail for a "no". A worker's one table serves
every probe.

Several workers (:mod:`engine.ray_solve`): first the root's phase: the two
relaxed searches, each on a worker, and on the workers they leave free
tests of the whole root at test values spread over the interval
(:func:`sections`), each on its own worker and table; every answer narrows
the interval, the tasks it makes useless are cancelled, and free workers
test what is left, until one test is left to ask. That test is split: the
root's moves are tasks (in batches of siblings that stop at the first
answer deciding the root), the young brothers waiting until the first move
has answered without deciding the root (then every move is needed), and a
root left with one undecided move has that move's children split the same
way. Each worker keeps its own table and gets the nodes it searched before
when it can.

>>> from quiltsolve.engine import GameState
>>> s = GameState.from_notation("r 47,37,tirvpmf2w3g,777577557557777077077005005 "
...                             "46,12,l97aq0u6k8n,777777777743741740770774770 j4he1odbsc5 1 -")  # 8 plies left
>>> updates = list(solve_position(s, time_limit=30, report_interval=None))
>>> last = updates[-1]
>>> last.final, last.exact, last.reason, last.value, last.value == solve(s, time_limit=30).value
(True, True, 'solved', 3, True)
>>> last.best.to_str(), len(last.line), solve_split(s, time_limit=30).value
('buy 17 3,4;3,5;3,6;4,4', 7, 3)
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
from .state import GameState

__all__ = ["DEFAULT_SOLVE_TABLE_BYTES", "LINE_DEPTH", "SolveUpdate", "Stop", "solve_exact", "solve_position",
           "solve_split", "static_bounds"]

LINE_DEPTH = 60
"""Moves of the best line so far at most (the table's moves after the root's); the exact line is whole."""
RELAXED = 1 << 30
"""The keys of the root's relaxed searches among its test values (``RELAXED + d``; no margin is that large)."""
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
    most this (from the first update on: the solver's static bounds before any search); ``exact`` when they meet
    (then ``value`` is the position's value).
    ``line``: the best line so far, from the position: the move that proved the lower bound (its first move)
    and the replies the search found best; once exact, a principal variation to the end of the game reaching
    ``value``. ``reason``: ``running`` (not final), ``solved``, ``terminal`` (a finished game), ``time`` (the
    time limit), ``stopped`` (a cancel). ``probes``: the searches of the root so far (relaxed searches,
    tests).
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

def static_bounds(state: GameState) -> tuple[int, int]:
    """Bounds on player 0's final margin from ``state`` without a search: the solver's rule S
    (:func:`engine.endgame._static_bounds`), a finished game's margin twice."""
    if state.is_terminal():
        a, b = state.players
        m = a.score() - b.score()
        return m, m
    return endgame._static_bounds(state)


# ---------------------------------------------------------------- the tree of bounds

class Node:
    """A node of the driver's tree: a position, the move to it, its interval ``[lo, hi]`` of player 0's margin."""

    __slots__ = ("state", "action", "parent", "index", "ply", "maxing", "lo", "hi", "kids", "busy", "owner", "defer")

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
        self.defer = 0                         # a stand-in of the root for rule B's search with this deferral
        self.lo, self.hi = static_bounds(state)

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
        """What to search next for the probe at ``g``, most useful first: the root's undecided children, each
        searched whole. With ``split`` (several workers) the young brothers wait (YBW): the root's other
        children are searched at once only after one child has answered without deciding it
        (:meth:`all_node`), else its first alone; and a root left with one undecided child has that child split
        into its own (unless it is being searched whole already), with the same rule."""
        root = self.root
        if self.decided(root, g):
            return []
        out: list[Node] = []
        kids = self.ordered(root, g)
        for i, kid in enumerate(kids):
            if split and i > 0 and not self.all_node(root, g):
                break
            if split and len(kids) == 1 and kid.kids is None and not kid.busy:
                self.expand(kid)
                if self.decided(root, g) or self.decided(kid, g):
                    return self.frontier(g, split)
            if kid.kids is not None:
                replies = self.ordered(kid, g)
                out.extend(replies if not split or self.all_node(kid, g) else replies[:1])
            else:
                out.append(kid)
        return [n for n in out if not n.busy and not (n.parent is not None and n.parent.busy)]

    def all_node(self, node: Node, g: int) -> bool:
        """Whether a child of ``node`` has answered the probe at ``g`` without deciding ``node`` (for player 0
        to move a child below ``g``, for player 1 one at least ``g``): then every child is likely needed."""
        assert node.kids is not None
        if node.maxing:
            return any(k.hi < g for k in node.kids)
        return any(k.lo >= g for k in node.kids)

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

    def next_guess(self) -> int:
        """The next test value: the middle of the root's interval (rounded up, so that every answer narrows
        it), as :func:`engine.endgame.solve_progress`'s tests halve it."""
        return (self.root.lo + self.root.hi + 1) // 2


# ---------------------------------------------------------------- workers

class Worker(Protocol):
    """What runs the searches of one solve: one at a time (:class:`LocalWorker`) or several at once."""

    workers: int

    def submit(self, batch: list[Node], g: int) -> None:
        """Start "``node`` >= ``g``?" for each node of ``batch`` (siblings, searched in that order) on an idle
        worker (the first node's ``owner`` if idle); the search of a batch ends at the first answer that
        decides their parent. A node with ``defer`` set (a stand-in of the root, alone) is rule B's search of
        it instead, with the window ``(lo - 1, hi + 1)`` of its interval (``g`` is then only its key)."""

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

    def relaxed(self, node: Node) -> tuple[int, int]:
        """Rule B's two bounds of ``node`` (player 0's margin): ``(hi, lo)``, with player 0 deferred (an upper
        bound) and with player 1 deferred (a lower bound), each searched with the node's interval as window."""


def batches(front: list[Node], free: int, workers: int) -> list[list[Node]]:
    """The tasks for ``free`` idle workers (of ``workers``) from the frontier, most useful first: the siblings
    of one parent in groups, about two per worker, each group taking every so many of them in order so that
    each starts with the likeliest to decide (a task searches its group in order, and stops at the first
    answer that decides the parent); with one worker, one node at a time.

    >>> class N:
    ...     def __init__(self, ply, parent=None): self.ply, self.parent = ply, parent
    >>> root = N(0); eldest = N(1, root); kids = [N(2, eldest) for _ in range(9)]
    >>> [len(b) for b in batches(kids + [N(1, root)], 2, 2)]   # 9 children in 4 groups: the first two now
    [3, 2]
    >>> [len(b) for b in batches([eldest], 2, 2)], [len(b) for b in batches(kids, 1, 1)]
    ([1], [1])
    """
    out: list[list[Node]] = []
    i = 0
    while i < len(front) and len(out) < free:
        node = front[i]
        if workers == 1:
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


def sections(lo: int, hi: int, workers: int) -> list[int]:
    """Test values that cut ``[lo, hi]`` into ``workers + 1`` parts as equal as can be (each in ``(lo, hi]``,
    so that every answer narrows the interval), the middle one first.

    >>> sections(36, 38, 2), sections(7, 13, 2), sections(0, 100, 3), sections(4, 5, 2)
    ([37, 38], [10, 12], [51, 26, 76], [5])
    """
    n = hi - lo + 1
    values = sorted({min(hi, max(lo + 1, lo + (i * n + workers) // (workers + 1))) for i in range(1, workers + 1)})
    middle = (lo + hi + 1) // 2
    return sorted(values, key=lambda g: (abs(g - middle), -g))


class Control:
    """The stop token the solver looks at every 1,024 nodes: the caller's ``stop``, the deadline, and this
    solve's own cancel (closing the iterator), whichever comes first; ``reason`` says which."""

    def __init__(self, stop: Stop | None, deadline: float | None) -> None:
        self.stop = stop
        self.deadline = deadline
        self.cancelled = threading.Event()
        self.reason: str | None = None
        self.looks = 0     # how often the solver looked: every CHECK_EVERY nodes (the live node count)

    def is_set(self) -> bool:
        """True once the solve must end (``reason`` then says why: ``stopped`` or ``time``)."""
        self.looks += 1
        if self.reason is not None:
            return True
        if self.cancelled.is_set() or (self.stop is not None and self.stop.is_set()):
            self.reason = "stopped"
        elif self.deadline is not None and time.monotonic() >= self.deadline:
            self.reason = "time"
        return self.reason is not None


def relaxed_bounds(search: Any, state: GameState, lo: int, hi: int) -> tuple[int, int]:
    """Rule B's bounds of ``state`` (player 0's margin, known to lie in ``[lo, hi]``): ``(hi', lo')``, from the
    position with player 0 deferred (its value is at least the value) and with player 1 deferred (at most
    it), each searched with the window ``(lo - 1, hi + 1)`` as :func:`engine.endgame.solve_progress` does."""
    up = search.ab(state, lo - 1, hi + 1, 0, 1)
    down = search.ab(state, lo - 1, hi + 1, 0, 2)
    return min(hi, up), max(lo, down)


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
                if node.defer:
                    v = self.search.ab(node.state, node.lo - 1, node.hi + 1, 0, node.defer)
                else:
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

    def relaxed(self, node: Node) -> tuple[int, int]:
        """Rule B's two bounds of ``node`` (see :meth:`Worker.relaxed`), one after the other."""
        try:
            return relaxed_bounds(self.search, node.state, node.lo, node.hi)
        except endgame._Abort:
            raise _Abort(self.control.reason or "stopped") from None


# ---------------------------------------------------------------- the driver

class Driver:
    """One solve: the tree, the worker(s), MTD(f)'s probes; :meth:`snapshot` may be read from another thread."""

    def __init__(self, state: GameState, worker: Worker, children: Callable[[GameState], list[Action]],
                 table_bytes: int, control: Control) -> None:
        self.t0 = time.monotonic()
        self.state = state
        self.worker = worker
        self.control = control
        self.table_bytes = table_bytes
        self.sign = 1 if state.current_player() == 0 else -1
        self.tree = Tree(state, children)
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
                for node in self._busy():      # the probes still running are not needed: free their workers
                    self.worker.cancel(node)
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
        root = tree.root
        if not root.exact and not split:   # rule B's two relaxed searches of the root first: often they meet
            hi, lo = worker.relaxed(root)
            with self.lock:
                root.lo, root.hi = max(root.lo, lo), min(root.hi, hi)
                self.probes += 2
        if split:
            self._sections()
        while not tree.root.exact:
            g = tree.next_guess()
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

    def _sections(self) -> None:
        """Several workers: the root's phase. Rule B's two relaxed searches of the root (one a worker) and, on
        the workers they leave free, tests of the whole root at test values spread over the interval
        (:func:`sections`), one a worker, each worker on its own table from task to task: every answer narrows
        the interval, the tasks it makes useless are cancelled and the free workers test the new interval,
        until one test is left to ask (then the root's moves are split)."""
        tree, worker, root = self.tree, self.worker, self.tree.root
        running: dict[int, Node] = {}        # key (a test value, or RELAXED + d: a relaxed search) -> its stand-in
        relax = [1, 2]
        while True:
            if self.control.is_set():
                raise _Abort(self.control.reason or "stopped")
            wide = root.hi - root.lo >= 2
            for key, stand_in in running.items():
                if not wide or (key < RELAXED and tree.decided(root, key)):
                    worker.cancel(stand_in)
            if wide:
                wanted = [RELAXED + d for d in relax] + sections(root.lo, root.hi, worker.workers)
                for key in wanted:
                    if not worker.idle():
                        break
                    if key in running:
                        continue
                    stand_in = Node(root.state, None, None, 0)
                    stand_in.lo, stand_in.hi, stand_in.busy = root.lo, root.hi, True
                    if key >= RELAXED:
                        stand_in.defer = key - RELAXED
                        relax.remove(stand_in.defer)
                    running[key] = stand_in
                    worker.submit([stand_in], key)
                    with self.lock:
                        self.probes += 1
            if not running:
                return
            for stand_in, key, v in worker.wait():
                running.pop(key, None)
                if v is None:
                    continue
                with self.lock:
                    if stand_in.defer == 1:
                        root.hi = max(root.lo, min(root.hi, v))
                    elif stand_in.defer == 2:
                        root.lo = min(root.hi, max(root.lo, v))
                    else:
                        tree.bound(root, v, key)
            self._publish_line(force=False)

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


def run_driver(driver: "Driver | Progress", report_interval: float | None) -> Iterator[SolveUpdate]:
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
        if helper.is_alive():   # closed early: the search ends within CHECK_EVERY nodes
            driver.control.cancelled.set()
            helper.join()


class Progress:
    """One local solve: :func:`engine.endgame.solve_progress` in a helper thread, read as :class:`SolveUpdate`
    values by :func:`run_driver` (the same interface as :class:`Driver`: ``run``, ``done``, ``control``,
    ``snapshot``)."""

    def __init__(self, state: GameState, control: Control, time_limit: float | None, table_bytes: int,
                 backend: str) -> None:
        self.t0 = time.monotonic()
        self.state = state
        self.control = control
        self.time_limit = time_limit
        self.table_bytes = table_bytes
        self.backend = backend
        self.sign = 1 if state.current_player() == 0 else -1
        lo, hi = static_bounds(state)
        self.last = endgame.SolveProgress(*((lo, hi) if self.sign > 0 else (-hi, -lo)), 0, 0.0, (), "bounds")
        self.probes = 0
        self.lock = threading.Lock()
        self.done = threading.Event()

    def run(self) -> None:
        """The solver's reports, kept as they come; sets ``done`` at the end."""
        try:
            for report in endgame.solve_progress(self.state, time_limit=self.time_limit, stop=self.control,
                                                 table_bytes=self.table_bytes, backend=self.backend):
                with self.lock:
                    self.last = report
                    self.probes += report.stage in ("relaxed", "test")
        finally:
            self.done.set()

    def snapshot(self, final: bool = False) -> SolveUpdate:
        """The solve so far as an update (``final``: the last one, from the solver's result)."""
        with self.lock:
            p, probes = self.last, self.probes
        r = p.result
        player, elapsed = self.state.current_player(), time.monotonic() - self.t0
        if final and r is not None:
            if r.proven and r.value is not None:
                return SolveUpdate(player, r.value, r.value, r.nodes, elapsed, r.line, True, "solved", probes,
                                   r.table_full, self.table_bytes)
            return SolveUpdate(player, p.lower, p.upper, r.nodes, elapsed, p.line, True,
                               "time" if r.reason == "time" else "stopped", probes, r.table_full, self.table_bytes)
        nodes = max(p.nodes, self.control.looks * endgame.CHECK_EVERY)
        return SolveUpdate(player, p.lower, p.upper, nodes, elapsed, p.line, final, "stopped" if final else "running",
                           probes, False, self.table_bytes)


def _terminal(state: GameState, t0: float, table_bytes: int) -> SolveUpdate:
    a, b = state.players
    margin = (a.score() - b.score()) * (1 if state.current_player() == 0 else -1)
    return SolveUpdate(state.current_player(), margin, margin, 0, time.monotonic() - t0, final=True,
                       reason="terminal", table_bytes=table_bytes)


def solve_position(state: GameState, *, time_limit: float | None = 60.0, stop: Stop | None = None,
                   table_bytes: int = DEFAULT_SOLVE_TABLE_BYTES,
                   report_interval: float | None = DEFAULT_REPORT_INTERVAL,
                   backend: str | None = None) -> Iterator[SolveUpdate]:
    """The exact solve of ``state`` as it runs: a :class:`SolveUpdate` at once, then every
    ``report_interval`` seconds (None: only the final one), the last with ``final`` set: exact (``reason``
    ``solved``) or the interval proven when ``time_limit`` seconds passed (``time``) or ``stop`` was set
    (``stopped``). The solve is :func:`engine.endgame.solve_progress`'s, run in a helper thread:
    ``table_bytes`` bounds its transposition table; ``backend`` as for :func:`engine.endgame.solve`. A
    finished game: one final, exact update (``terminal``). Closing the iterator stops the search at once.
    Bad arguments raise :class:`engine.endgame.EndgameArgumentError` naming the argument.
    """
    chosen = _check(state, time_limit, stop, table_bytes, report_interval, backend)
    t0 = time.monotonic()
    if state.is_terminal():
        yield _terminal(state, t0, table_bytes)
        return
    run = Progress(state, Control(stop, None), time_limit, table_bytes, chosen)   # the deadline: the solver's
    run.t0 = t0
    yield from run_driver(run, report_interval)


def solve_split(state: GameState, *, time_limit: float | None = 60.0, stop: Stop | None = None,
                table_bytes: int = DEFAULT_SOLVE_TABLE_BYTES,
                report_interval: float | None = None, backend: str | None = None) -> SolveUpdate:
    """The final update of the split driver (see the module docstring) with one worker in this thread: what
    :func:`engine.ray_solve.solve_position_ray` runs over Ray actors (the same value as
    :func:`solve_position`'s; its updates with ``report_interval``, the last returned)."""
    chosen = _check(state, time_limit, stop, table_bytes, report_interval, backend)
    t0 = time.monotonic()
    if state.is_terminal():
        return _terminal(state, t0, table_bytes)
    control = Control(stop, None if time_limit is None else t0 + time_limit)
    worker = LocalWorker(chosen, table_bytes, control)
    driver = Driver(state, worker, worker.children, table_bytes, control)
    driver.t0 = t0
    last = None
    for last in run_driver(driver, report_interval):
        pass
    assert last is not None
    return last


def solve_exact(state: GameState, **kw: Any) -> SolveUpdate:
    """The final update of :func:`solve_position` (same arguments, no reports)."""
    last = None
    for last in solve_position(state, **{"report_interval": None, **kw}):
        pass
    assert last is not None
    return last
