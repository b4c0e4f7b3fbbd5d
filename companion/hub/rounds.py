"""One thread for the timed work of many tables: a club's tickers and cue threads.

A lone table runs its ticker (:class:`~companion.hub.ticker.Ticker`) and its cue thread
(:class:`~companion.hub.cues.CueWorker`) on threads of their own. A club of a hundred tables
would run two hundred threads that sleep almost all the time and, when they wake, queue for the
interpreter in front of the nodes' verdicts. :class:`Rounds` runs all of them on one thread:
each job says, when it has run, how long it may sleep (:meth:`Job.run_once`), and is run again
then, or at once when something wakes it (:meth:`wake`, cheap enough to call inside a session's
lock). Jobs run one after the other, so one job must not block: what can take long (building
cue sounds) already runs on a thread of its own.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from typing import Protocol

log = logging.getLogger(__name__)


class Job(Protocol):
    def run_once(self) -> float | None:
        """Do what is due; real seconds until it wants to run again (None: only when woken)."""


class Rounds:
    """The shared thread (see the module docstring)."""

    def __init__(self, name: str = "rounds") -> None:
        self.name = name
        self._cond = threading.Condition()
        self._jobs: dict[int, Job] = {}
        self._woken: dict[int, Job] = {}
        self._due: list[tuple[float, int, int]] = []
        """(when, order, job id): a job's entry counts only while it is its latest (``_next``)."""
        self._next: dict[int, float] = {}
        self._order = itertools.count()
        self._stop = False
        self._thread: threading.Thread | None = None
        self.runs = 0
        """Jobs run so far (for tests and the bench)."""

    def start(self) -> Rounds:
        with self._cond:
            if self._thread is None:
                self._stop = False
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
            thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_s)

    def add(self, job: Job) -> None:
        """Run ``job`` from now on (its first run comes at once)."""
        with self._cond:
            self._jobs[id(job)] = job
            self._woken[id(job)] = job
            self._cond.notify_all()

    def remove(self, job: Job) -> None:
        """Never run ``job`` again (if it is running now, that run finishes)."""
        with self._cond:
            self._jobs.pop(id(job), None)
            self._woken.pop(id(job), None)
            self._next.pop(id(job), None)

    def wake(self, job: Job) -> None:
        """Run ``job`` as soon as the thread is free (from any thread)."""
        with self._cond:
            if id(job) in self._jobs:
                self._woken[id(job)] = job
                self._cond.notify_all()

    def __len__(self) -> int:
        return len(self._jobs)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stop:
                    now = time.monotonic()
                    while self._due and (
                        self._next.get(self._due[0][2]) != self._due[0][0]
                        or self._due[0][2] not in self._jobs
                    ):
                        heapq.heappop(self._due)  # an entry made stale by a later one or a removal
                    if self._woken or (self._due and self._due[0][0] <= now):
                        break
                    self._cond.wait(self._due[0][0] - now if self._due else None)
                if self._stop:
                    return
                runnable = dict(self._woken)
                self._woken.clear()
                now = time.monotonic()
                while self._due and self._due[0][0] <= now:
                    when, _, key = heapq.heappop(self._due)
                    job = self._jobs.get(key)
                    if job is not None and self._next.get(key) == when:
                        runnable.setdefault(key, job)
                for key in runnable:
                    self._next.pop(key, None)
            for key, job in runnable.items():
                try:
                    wait = job.run_once()
                except Exception:  # one table's failure must not stop the others
                    log.exception("a table's timed work failed")
                    wait = 1.0
                self.runs += 1
                if wait is None:
                    continue
                with self._cond:
                    if key in self._jobs and key not in self._woken:
                        when = time.monotonic() + max(0.0, wait)
                        self._next[key] = when
                        heapq.heappush(self._due, (when, next(self._order), key))
