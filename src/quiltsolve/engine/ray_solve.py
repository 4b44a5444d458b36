"""The exact solve of a position over a Ray cluster: ``suggest solve POSITION --ray auto|local|ADDRESS``.

:func:`solve_position_ray` is :func:`engine.solve.solve_position` with its
searches spread over Ray actors, one per worker (a CPU of the cluster by
default), each with its own solver and transposition table of
``table_bytes``. The same driver (:class:`engine.solve.Driver`) asks the same
questions: MTD(f)'s probes "is the value at least g?" over the root's
moves, the first undecided one split into its own children. Every move
and reply is a task (a null-window search on an actor, which keeps its
table between tasks, so a node goes back to the actor that searched it
before whenever it is free); as the tasks end, their bounds narrow the
intervals of their node and its parents at the driver, which decides the
probe as soon as it can, cancels the tasks it no longer needs (the actor's
search stops within 1,024 nodes) and gives the free actors the next ones.
The answer is the local one: the same exact value (``tests/ray``); the line
may differ where several lines reach the value.

Ray is optional (``pip install 'quiltsolve[ray]'``) and imported only when a
solve runs (:func:`solver.ray_count.ray_session`: ``auto``, ``local``,
``HOST:PORT``, ``ray://HOST:PORT``). The clock starts once the actors are up.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any, Iterator

from quiltsolve.solver.limits import DEFAULT_REPORT_INTERVAL, DEFAULT_SOLVE_TABLE_BYTES
from quiltsolve.solver.ray_count import RayUnavailableError, cluster_cpus, ray_session

from . import endgame
from .actions import Action
from .endgame import EndgameArgumentError
from .solve import (LINE_DEPTH, Control, Driver, Node, SolveUpdate, Stop, _Abort, _check, make_search, run_driver,
                    solve_position, table_moves)
from .state import GameState

__all__ = ["SolveActor", "solve_position_ray"]

POLL = 0.05
"""Seconds between two looks at the clock and the stop token while the driver waits for tasks."""
NODES_EVERY = 0.25
"""Seconds between two questions to the actors about the nodes they searched."""
LINE_GRACE = 5.0
"""Seconds the exact line may take after the time limit (its actor's table knows it: it takes milliseconds)."""


class SolveActor:
    """One worker of a solve over Ray (a Ray actor, two threads: a search and its cancels): a solver and
    its table, kept from task to task."""

    def __init__(self, backend: str, table_bytes: int) -> None:
        self.flag = threading.Event()
        # One search at a time on the one solver: the actor's second thread is for cancels, but a task sent
        # while a cancelled one is still unwinding (the exact line, right after the interval closed) would
        # otherwise run on the same solver at once (its per-ply buffers, its table) and read garbage.
        self.busy = threading.Lock()
        self.deadline = 0.0
        self.current: int | None = None
        self.search = make_search(backend, table_bytes, self)

    def ready(self) -> bool:
        """True: the actor is up (its solver and table made)."""
        return True

    def is_set(self) -> bool:
        """The search's stop token: a cancel of the running task, or its time."""
        return self.flag.is_set() or time.monotonic() >= self.deadline

    def probe(self, task: int, states: list[GameState], g: int, ply: int, seconds: float,
              parent_maxing: bool) -> tuple[int, list[int | None], int, bool]:
        """"``state`` >= ``g``?" for each of ``states`` (siblings) in turn, by the solver's null-window search,
        until an answer decides their parent (one "yes" when player 0 moves there, one "no" when player 1
        does): ``(task, [v or None, ...], nodes, table_full)`` (None: not searched, cancelled, out of time)."""
        with self.busy:
            return self._probe(task, states, g, ply, seconds, parent_maxing)

    def _probe(self, task: int, states: list[GameState], g: int, ply: int, seconds: float,
               parent_maxing: bool) -> tuple[int, list[int | None], int, bool]:
        self.flag.clear()
        self.current = task
        self.deadline = time.monotonic() + seconds
        out: list[int | None] = [None] * len(states)
        try:
            for i, state in enumerate(states):
                v = out[i] = self.search.ab(state, g - 1, g, ply)
                if (v >= g) == parent_maxing:
                    break
        except endgame._Abort:
            pass
        self.current = None
        return task, out, self.nodes(), bool(self.search.table_full)

    def relax(self, task: int, state: GameState, lo: int, hi: int, defer: int, seconds: float
              ) -> tuple[int, list[int | None], int, bool]:
        """Rule B's bound of ``state`` with player ``defer - 1`` deferred (1: an upper bound, 2: a lower one),
        searched with the window ``(lo - 1, hi + 1)``: ``(task, [v or None], nodes, table_full)``."""
        with self.busy:
            self.flag.clear()
            self.current = task
            self.deadline = time.monotonic() + seconds
            try:
                v: int | None = self.search.ab(state, lo - 1, hi + 1, 0, defer)
            except endgame._Abort:
                v = None
            self.current = None
            return task, [v], self.nodes(), bool(self.search.table_full)

    def cancel(self, task: int) -> None:
        """Stop the search of ``task`` if it is the one running (a cancel that comes late does nothing)."""
        if self.current == task:
            self.flag.set()

    def nodes(self) -> int:
        """The nodes this actor's solver searched so far."""
        return int(self.search.nodes)

    def line(self, state: GameState, value: int, ply: int, seconds: float) -> list[Action]:
        """A principal variation from ``state`` (player 0's value ``value``), from this actor's table (after the
        search it may still be unwinding from a cancel)."""
        with self.busy:
            self.flag.clear()
            self.deadline = time.monotonic() + seconds
            try:
                return endgame._line(self.search, state, value, ply)
            except endgame._Abort:
                return table_moves(self.search, state, LINE_DEPTH)


class RayWorker:
    """The searches of one solve on Ray actors (:class:`engine.solve.Worker`)."""

    def __init__(self, ray: Any, actors: list[Any], control: Control) -> None:
        self.ray = ray
        self.actors = actors
        self.workers = len(actors)
        self.control = control
        self.free = list(range(len(actors)))
        self.tasks: dict[Any, tuple[int, list[Node], int, int]] = {}    # ref -> (task id, batch, g, actor)
        self.by_node: dict[int, tuple[int, int]] = {}             # id(node) -> (task id, actor)
        self.ids = itertools.count()
        self.done_nodes = [0] * len(actors)
        self.live_nodes = [0] * len(actors)
        self.full = False
        self._asked: list[Any] = []
        self._asked_at = 0.0

    def seconds_left(self) -> float:
        """The time the solve has left (a task's own limit: the actors' clocks may be other machines')."""
        deadline = self.control.deadline
        return 1e9 if deadline is None else max(0.001, deadline - time.monotonic())

    def submit(self, batch: list[Node], g: int) -> None:
        """Start ``batch`` on an idle actor, the one that searched its first node before if it is free."""
        first = batch[0]
        at = first.owner if first.owner in self.free else self.free[0]
        self.free.remove(at)
        task = next(self.ids)
        parent = first.parent
        if first.defer:   # a stand-in of the root: rule B's search of it
            ref = self.actors[at].relax.remote(task, first.state, first.lo, first.hi, first.defer,
                                               self.seconds_left())
        else:
            ref = self.actors[at].probe.remote(task, [n.state for n in batch], g, first.ply, self.seconds_left(),
                                               parent is not None and parent.maxing)
        self.tasks[ref] = (task, batch, g, at)
        for node in batch:
            self.by_node[id(node)] = (task, at)
            node.owner = at

    def idle(self) -> int:
        """Actors without a task."""
        return len(self.free)

    def running(self) -> int:
        """Tasks under way."""
        return len(self.tasks)

    def wait(self) -> list[tuple[Node, int, int | None]]:
        """The answers of the tasks that ended (at least one), looking at the clock and the stop token every
        :data:`POLL` seconds meanwhile."""
        ray = self.ray
        while True:
            self._poll_nodes()
            ready, _ = ray.wait(list(self.tasks), num_returns=1, timeout=POLL)
            if ready:
                ready, _ = ray.wait(list(self.tasks), num_returns=len(self.tasks), timeout=0)
                return [answer for ref in ready for answer in self._finish(ref)]
            if self.control.is_set():
                for task, _, _, at in self.tasks.values():
                    self.actors[at].cancel.remote(task)
                raise _Abort(self.control.reason or "stopped")

    def _finish(self, ref: Any) -> list[tuple[Node, int, int | None]]:
        task, batch, g, at = self.tasks.pop(ref)
        for node in batch:
            self.by_node.pop(id(node), None)
        self.free.append(at)
        try:
            _, vs, nodes, full = self.ray.get(ref)
        except self.ray.exceptions.RayError as e:  # an actor died, a version mismatch...
            cause = getattr(e, "cause", None) or e
            raise RayUnavailableError(f"a solve task failed on the cluster: {' '.join(str(cause).split())[:300]}"
                                      ) from None
        self.done_nodes[at] = self.live_nodes[at] = max(self.live_nodes[at], nodes)
        self.full = self.full or full
        return [(node, g, v) for node, v in zip(batch, vs)]

    def _poll_nodes(self) -> None:
        """Ask the actors how far their searches are, now and then (for the updates' node count)."""
        now = time.monotonic()
        if now - self._asked_at < NODES_EVERY:
            return
        if self._asked:
            ready, _ = self.ray.wait(self._asked, num_returns=len(self._asked), timeout=0)
            if len(ready) == len(self._asked):
                for at, n in enumerate(self.ray.get(self._asked)):
                    self.live_nodes[at] = max(self.live_nodes[at], n)
                self._asked = []
        if not self._asked:
            self._asked = [a.nodes.remote() for a in self.actors]
        self._asked_at = now

    def cancel(self, node: Node) -> None:
        """Cancel the task searching ``node`` (its actor's search stops within 1,024 nodes)."""
        hit = self.by_node.get(id(node))
        if hit is not None:
            self.actors[hit[1]].cancel.remote(hit[0])

    def nodes(self) -> int:
        """The nodes of every actor, as last heard."""
        return sum(self.live_nodes)

    def table_full(self) -> bool:
        """Whether an actor's table replaced an entry of another position."""
        return self.full

    def line(self, node: Node, value: int) -> list[Action]:
        """A principal variation from ``node``, from the table of the actor that searched it last."""
        if node.state.is_terminal():
            return []
        at = node.owner if node.owner is not None else 0
        ref = self.actors[at].line.remote(node.state, value, node.ply, self.seconds_left() + LINE_GRACE)
        try:
            return list(self.ray.get(ref, timeout=self.seconds_left() + 2 * LINE_GRACE))
        except self.ray.exceptions.GetTimeoutError:   # pragma: no cover - a very busy cluster
            return []

    def table_line(self, node: Node, depth: int) -> list[Action]:
        """Nothing: the tables are the actors' (the best line so far is the tree's)."""
        return []

    def relaxed(self, node: Node) -> tuple[int, int]:
        """Rule B's two bounds of ``node`` (see :class:`engine.solve.Worker`), on two actors at once (one
        after the other with a single actor)."""
        calls = [(0, 1), (1 % self.workers, 2)]
        bounds: dict[int, int] = {}
        if self.workers == 1:
            for at, defer in calls:
                bounds.update(self._relaxations([self._relax(at, node, defer)]))
        else:
            bounds.update(self._relaxations([self._relax(at, node, defer) for at, defer in calls]))
        if 1 not in bounds or 2 not in bounds:
            raise _Abort(self.control.reason or "stopped")
        return min(node.hi, bounds[1]), max(node.lo, bounds[2])

    def _relax(self, at: int, node: Node, defer: int) -> tuple[Any, int, int, int]:
        """Start one relaxed search on actor ``at``: ``(ref, actor, defer, task)``."""
        task = next(self.ids)
        ref = self.actors[at].relax.remote(task, node.state, node.lo, node.hi, defer, self.seconds_left())
        return ref, at, defer, task

    def _relaxations(self, started: list[tuple[Any, int, int, int]]) -> dict[int, int]:
        """The bounds of the relaxed searches ``started``, by ``defer``, as they end (looking at the clock and
        the stop token meanwhile: a stop cancels those still running)."""
        by_ref = {ref: (at, defer, task) for ref, at, defer, task in started}
        pending = list(by_ref)
        out: dict[int, int] = {}
        while pending:
            ready, pending = self.ray.wait(pending, num_returns=len(pending), timeout=POLL)
            for ref in ready:
                _, (v,), nodes, full = self.ray.get(ref)
                at, defer, _task = by_ref[ref]
                self.done_nodes[at] = self.live_nodes[at] = max(self.live_nodes[at], nodes)
                self.full = self.full or full
                if v is not None:
                    out[defer] = v
            if pending and self.control.is_set():
                for ref in pending:
                    at, _defer, task = by_ref[ref]
                    self.actors[at].cancel.remote(task)
                raise _Abort(self.control.reason or "stopped")
        return out


def solve_position_ray(state: GameState, *, address: str = "auto", workers: int | None = None,
                       time_limit: float | None = 60.0, stop: Stop | None = None,
                       table_bytes: int = DEFAULT_SOLVE_TABLE_BYTES,
                       report_interval: float | None = DEFAULT_REPORT_INTERVAL,
                       backend: str | None = None) -> Iterator[SolveUpdate]:
    """:func:`engine.solve.solve_position` on a Ray cluster at ``address``, on ``workers`` actors (default:
    one per CPU of the cluster; a private cluster, ``local`` or ``auto`` with none running, gets that many
    CPUs), each with a table of ``table_bytes``. The same updates, the same exact value; ``workers`` is in
    each update. :class:`solver.ray_count.RayUnavailableError` when no cluster answers or a task fails."""
    chosen = _check(state, time_limit, stop, table_bytes, report_interval, backend)
    if workers is not None and (type(workers) is not int or workers < 1):
        raise EndgameArgumentError(f"workers: must be None or an integer >= 1, got {workers!r}")
    if state.is_terminal():
        yield from solve_position(state, table_bytes=table_bytes, report_interval=None)
        return
    with ray_session(address, num_cpus=workers) as ray:
        n = workers or cluster_cpus(ray)
        remote = ray.remote(num_cpus=1, max_concurrency=2, max_restarts=0)(SolveActor)
        actors = [remote.remote(chosen, table_bytes) for _ in range(n)]
        try:
            try:
                ray.get([a.ready.remote() for a in actors], timeout=120)
            except Exception as e:  # noqa: BLE001 - no room for the actors, a version mismatch: one line
                raise RayUnavailableError(f"cannot start {n} solver actors on the cluster: "
                                          f"{' '.join(str(e).split())[:300]}") from None
            t0 = time.monotonic()
            control = Control(stop, None if time_limit is None else t0 + time_limit)
            worker = RayWorker(ray, actors, control)
            local = make_search(chosen, endgame.MIN_TABLE_BYTES, None)   # the driver's children, in order
            driver = Driver(state, worker, lambda s: list(local.children(s)), table_bytes, control)
            driver.t0 = t0
            yield from run_driver(driver, report_interval)
        finally:
            for a in actors:
                ray.kill(a)
