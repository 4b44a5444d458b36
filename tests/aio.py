"""``asyncio.run`` for the tests, whatever else their process holds.

The browser tests' session-wide Playwright browser (tests/web/conftest.py) uses Playwright's sync API, which
keeps an event loop running in the main thread for as long as the browser is open. A test run after them in the
same process (pytest-xdist hands a worker files from any folder) cannot start its own loop there:
``asyncio.run`` refuses inside a running loop. :func:`run_coroutine` then runs it in a thread of its own.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``, in a fresh thread when this one already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = asyncio.run(coro)
        except BaseException as e:  # re-raised in the test's thread, as asyncio.run would
            out["error"] = e

    thread = threading.Thread(target=target, name="test-asyncio")
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]
