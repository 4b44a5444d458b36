"""Jobs that only tests run: a busy loop and a worker's death, sent to real worker processes.

They are pickled to the workers like the shipped jobs (:mod:`server.jobs`),
so a worker must be able to import this module by the name its classes carry
(``tests.server.jobs_for_tests``): a worker starts with the test process's
``sys.path`` (multiprocessing's preparation data), and ``tests/server/conftest.py``
makes sure the repository root is on it.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from typing import ClassVar, Iterator

from quiltsolve.server.jobs import Job, StreamJob
from quiltsolve.solver import StopToken


@dataclass(frozen=True)
class SpinJob(Job):
    """Test job: busy for ``seconds``, honouring the stop token only if ``honour``."""

    kind: ClassVar[str] = "_spin"
    seconds: float
    honour: bool = True

    def run(self, time_limit: float, stop: StopToken) -> str:
        end = time.monotonic() + self.seconds
        while time.monotonic() < end:
            if self.honour and stop.is_set():
                return "stopped"
        return "done"


@dataclass(frozen=True)
class DieJob(Job):
    """Test job: SIGKILL the process running it (always; or, with ``marker``, only while that file is absent).

    With a marker path the first run creates the file and dies, and every
    later run (on a fresh worker) answers ``"survived"``: a death from
    outside, once. Without one every run dies: a poison request. With
    ``wait_for`` the job first waits (at most 30 s, deaf to its stop token)
    until that file exists, so a test decides when the death comes.
    ``wraps`` is the job it stands in for (it only makes fingerprints differ).
    """

    kind: ClassVar[str] = "_die"
    marker: str | None = None
    wait_for: str | None = None
    wraps: Job | None = None

    def run(self, time_limit: float, stop: StopToken) -> str:
        if self.wait_for is not None:
            end = time.monotonic() + 30
            while not os.path.exists(self.wait_for) and time.monotonic() < end:
                time.sleep(0.005)
        if self.marker is not None:
            try:
                os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                return "survived"
        os.kill(os.getpid(), signal.SIGKILL)
        return "unreachable"  # pragma: no cover


@dataclass(frozen=True)
class CountJob(StreamJob):
    """Test streaming job: yields 0, 1, 2, ... every ``every`` seconds, ``count`` of them (None: until stopped;
    a stop yields -1 last, unless ``honour`` is False: then it goes on regardless). With ``die_after`` it
    SIGKILLs its process before update ``die_after`` (with ``marker``: only while that file is absent, which
    the first run creates: a death from outside, once)."""

    kind: ClassVar[str] = "_count"
    count: int | None = 3
    every: float = 0.01
    die_after: int | None = None
    marker: str | None = None
    honour: bool = True

    def stream(self, time_limit: float, stop: StopToken) -> Iterator[int]:
        i = 0
        while self.count is None or i < self.count:
            if self.die_after is not None and i == self.die_after:
                if self.marker is None:
                    os.kill(os.getpid(), signal.SIGKILL)
                try:
                    os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                    os.kill(os.getpid(), signal.SIGKILL)
                except FileExistsError:
                    pass
            if self.honour and stop.is_set():
                yield -1
                return
            yield i
            i += 1
            time.sleep(self.every)
