"""The thread that makes time-driven things happen on time (the master clock running out)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from companion.table import messages as msg
from companion.table.session import TableSession, next_deadline_s

log = logging.getLogger(__name__)

MAX_WAIT_S = 0.25
"""Longest real-time wait between checks, so a changed clock is noticed promptly."""


class Ticker:
    """Sleeps until the next deadline of the master clock or of any extra step, then runs them."""

    def __init__(
        self, session: TableSession, *, steps: list[Callable[[], float | None]] | None = None
    ) -> None:
        self.session = session
        self.steps = list(steps or [])
        """Extra work on every wake (audio cues); each returns game seconds to its next deadline or None."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="table-ticker", daemon=True)

    def start(self) -> Ticker:
        self._thread.start()
        return self

    def _run(self) -> None:
        clock = self.session.clock
        while not self._stop.is_set():
            self.session.clock_changed.clear()
            deadlines: list[float] = []
            for step in [self._tick, *self.steps]:
                try:
                    due = step()
                except Exception:
                    log.exception("ticker step failed")
                    due = None
                if due is not None:
                    deadlines.append(due)
            until_next = min(deadlines) if deadlines else None
            real_wait = MAX_WAIT_S if until_next is None else min(MAX_WAIT_S, until_next / clock.scale)
            self.session.clock_changed.wait(max(0.001, real_wait))
            if self._stop.is_set():
                break

    def _tick(self) -> float | None:
        """Apply what is due (held flips, the master clock running out); game seconds to the next deadline."""
        outcome = self.session.handle(msg.Tick())
        return next_deadline_s(outcome.table, now_s=self.session.clock.now_s())

    def stop(self) -> None:
        self._stop.set()
        self.session.clock_changed.set()
        if self._thread.is_alive():
            self._thread.join(5)
