"""A cancellation token shared by a caller (e.g. a gRPC handler) and a solve.

The caller calls :meth:`StopToken.set` when the call is cancelled or its
deadline passes. A solve registers its ``stop_search`` with :meth:`attach`
before it starts and checks :meth:`is_set` first, because ``stop_search``
before ``Solve()`` starts is a no-op.

>>> t = StopToken(); hits = []
>>> t.attach(lambda: hits.append(1)); t.set(); t.is_set(), hits
(True, [1])
>>> t.attach(lambda: hits.append(2)); hits  # attaching after set fires at once
[1, 2]
"""

from __future__ import annotations

import threading
from typing import Callable


class StopToken:
    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    def is_set(self) -> bool:
        return self._event.is_set()

    def set(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb()

    def attach(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when the token is set (at once if it already is)."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback()

    def detach(self, callback: Callable[[], None]) -> None:
        with self._lock:
            try:
                self._callbacks.remove(callback)
            except ValueError:
                pass
