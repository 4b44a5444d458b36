"""Admission control for the expensive calls: who gets a worker process, who waits, who is refused.

A call asks for one of the pool's worker slots. A free slot is taken at
once. Otherwise the call waits in a bounded queue; when the queue is full
(or the peer already fills its share of it) the call is refused at once with
:class:`Refused`, carrying a retry hint. A freed slot goes to the oldest
waiter whose peer holds fewer than its fair share of the slots; only when
every waiter's peer is at its share does the oldest waiter get it. So one
peer can use every idle worker, but while others wait it gets no more than
its share until its own calls finish.

Waits end early on the call's deadline (:class:`Expired`) or cancellation
(:class:`Abandoned`). The controller is transport-neutral and thread-safe.

>>> a = Admission(slots=1, max_queue=0)
>>> a.add_slot(0)      # the pool says: slot 0's worker is ready
>>> s = a.acquire("peer-a")
>>> try:
...     a.acquire("peer-b")
... except Refused as e:
...     print(e.reason)
queue_full
>>> a.release(s); a.stats()["free"]
1
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable


class AdmissionError(Exception):
    """The call did not get a slot."""


class Refused(AdmissionError):
    """No slot and no room to wait: answer RESOURCE_EXHAUSTED with ``retry_after`` seconds."""

    def __init__(self, reason: str, retry_after: float, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.retry_after = retry_after


class Expired(AdmissionError):
    """The call's deadline passed while it waited."""


class Abandoned(AdmissionError):
    """The call was cancelled (or the server closed) while it waited."""


@dataclass(eq=False)
class _Waiter:
    peer: str
    event: threading.Event = field(default_factory=threading.Event)
    slot: int | None = None
    abandoned: bool = False


class Admission:
    """``slots`` workers, at most ``max_queue`` waiters, fair shares of ``peer_share``."""

    def __init__(self, slots: int, max_queue: int, peer_share: float = 0.5) -> None:
        if slots < 1:
            raise ValueError(f"slots must be >= 1, got {slots}")
        if max_queue < 0:
            raise ValueError(f"max_queue must be >= 0, got {max_queue}")
        if not 0 < peer_share <= 1:
            raise ValueError(f"peer_share must be in (0, 1], got {peer_share}")
        self.slots = slots
        self.max_queue = max_queue
        self.share = max(1, math.ceil(slots * peer_share))          # slots one peer may hold while others wait
        self.queue_share = max(1, math.ceil(max_queue * peer_share))  # waiters one peer may have
        self._lock = threading.Lock()
        self._free: deque[int] = deque()
        self._queue: deque[_Waiter] = deque()
        self._held: dict[str, int] = {}
        self._holder: dict[int, str] = {}
        self._closed = False
        self._mean_hold = 0.05          # seconds, moving average: the basis of the retry hint
        self._since: dict[int, float] = {}

    # ------------------------------------------------------------ slots come and go
    def add_slot(self, slot: int) -> None:
        """A worker became ready (at start or after a restart): give it to a waiter or keep it."""
        with self._lock:
            self._hand_over(slot)

    def acquire(self, peer: str, *, timeout: float | None = None,
                on_abandon: Callable[[Callable[[], None]], None] | None = None, retry: bool = False) -> int:
        """A slot for ``peer``; waits up to ``timeout`` seconds (None: no limit).

        ``on_abandon(wake)``, if given, is called once with a function the
        caller's cancellation should call; it ends the wait with :class:`Abandoned`.
        ``retry`` is for a call that was admitted and lost its slot's worker:
        it is never refused (it already passed admission once) and waits at
        the head of the queue (still subject to fair shares).
        """
        with self._lock:
            if self._closed:
                raise Abandoned("the server is shutting down")
            if self._free and not self._queue:
                slot = self._free.popleft()
                self._take(slot, peer)
                return slot
            if not retry:
                waiting_here = sum(1 for w in self._queue if w.peer == peer)
                if len(self._queue) >= self.max_queue:
                    raise self._refusal("queue_full", f"all {self.slots} workers are busy and "
                                                      f"{len(self._queue)} calls wait; retry later")
                if waiting_here >= self.queue_share:
                    raise self._refusal("peer_share", f"this peer already has {waiting_here} calls waiting "
                                                      f"(its share of the queue); retry later")
            waiter = _Waiter(peer)
            if retry:
                self._queue.appendleft(waiter)
            else:
                self._queue.append(waiter)
        if on_abandon is not None:
            on_abandon(lambda: self._abandon(waiter))
        waiter.event.wait(timeout)
        with self._lock:
            if waiter.slot is not None:
                return waiter.slot
            if waiter in self._queue:
                self._queue.remove(waiter)
            closed = self._closed
        if waiter.abandoned or closed:
            raise Abandoned("the call ended while it waited for a worker")
        raise Expired("the call's deadline passed while it waited for a worker")

    def release(self, slot: int) -> None:
        """The call holding ``slot`` finished with it."""
        with self._lock:
            self._give_back(slot)
            self._hand_over(slot)

    def retire(self, slot: int) -> None:
        """The call holding ``slot`` is done, but the worker is being replaced (``add_slot`` follows)."""
        with self._lock:
            self._give_back(slot)

    def close(self) -> None:
        """Refuse new calls and wake every waiter (they get :class:`Abandoned`)."""
        with self._lock:
            self._closed = True
            waiters, self._queue = list(self._queue), deque()
        for w in waiters:
            w.event.set()

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"slots": self.slots, "free": len(self._free), "busy": len(self._holder),
                    "queued": len(self._queue)}

    # ------------------------------------------------------------ inside the lock
    def _take(self, slot: int, peer: str) -> None:
        self._held[peer] = self._held.get(peer, 0) + 1
        self._holder[slot] = peer
        self._since[slot] = time.monotonic()

    def _give_back(self, slot: int) -> None:
        peer = self._holder.pop(slot, None)
        if peer is None:
            return
        held = self._held[peer] - 1
        if held:
            self._held[peer] = held
        else:
            del self._held[peer]
        since = self._since.pop(slot, None)
        if since is not None:
            self._mean_hold = 0.8 * self._mean_hold + 0.2 * (time.monotonic() - since)

    def _hand_over(self, slot: int) -> None:
        waiter = self._next_waiter()
        if waiter is None:
            self._free.append(slot)
            return
        waiter.slot = slot
        self._take(slot, waiter.peer)
        waiter.event.set()

    def _next_waiter(self) -> _Waiter | None:
        if not self._queue:
            return None
        for w in self._queue:
            if self._held.get(w.peer, 0) < self.share:
                chosen = w
                break
        else:
            chosen = self._queue[0]
        self._queue.remove(chosen)
        return chosen

    def _refusal(self, reason: str, message: str) -> Refused:
        # About how long until a slot frees for this caller: the queue ahead
        # drains at slots / mean-hold-time calls per second.
        retry = min(5.0, max(0.01, self._mean_hold * (len(self._queue) + 1) / self.slots))
        return Refused(reason, retry, f"{message} (in about {retry * 1000:.0f} ms)")

    def _abandon(self, waiter: _Waiter) -> None:
        with self._lock:
            if waiter.slot is not None:
                return  # already granted: the caller notices its cancellation itself
            waiter.abandoned = True
        waiter.event.set()
