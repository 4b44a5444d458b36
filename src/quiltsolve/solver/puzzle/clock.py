"""One call's time limit and stop token, and the search status codes.

The status codes are shared with the C search (``solver/_exactcover.c``).

>>> clock = Clock(deadline=0.0)
>>> try:
...     clock.check()
... except Abort as e:
...     e.code == TIMEOUT
True
"""

from __future__ import annotations

import math
import time

from ..stop import StopToken

__all__ = ["DONE", "ENOUGH", "TIMEOUT", "STOPPED", "NODE_LIMIT", "Abort", "Clock"]

# search status codes shared with _exactcover.c
DONE, ENOUGH, TIMEOUT, STOPPED, NODE_LIMIT = 0, 1, 2, 3, 4


class Abort(Exception):
    """A set-up step or a Python search ran out of time (``TIMEOUT``), was
    stopped (``STOPPED``), found enough (``ENOUGH``) or hit its node budget."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


class Clock:
    """One call's time limit and stop token: :meth:`check` raises ``Abort``
    once either has run out. Every set-up loop calls it every few ms."""

    __slots__ = ("deadline", "stop")

    def __init__(self, deadline: float = math.inf, stop: StopToken | None = None):
        self.deadline = deadline       # time.perf_counter() value
        self.stop = stop

    def check(self) -> None:
        if self.stop is not None and self.stop.is_set():
            raise Abort(STOPPED)
        if time.perf_counter() >= self.deadline:
            raise Abort(TIMEOUT)
