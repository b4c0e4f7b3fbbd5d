"""The thread that makes time-driven things happen on time (the master clock running out)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from companion.table import events as ev
from companion.table import messages as msg
from companion.table.model import FlipHeld, TableReset
from companion.table.session import Changed, News, ShuttingDown, TableSession, next_deadline_s

if TYPE_CHECKING:
    from companion.hub.rounds import Rounds

log = logging.getLogger(__name__)

MAX_WAIT_S = 0.25
"""Longest real-time wait between checks, so a changed clock is noticed promptly."""
ROUNDS_WAIT_S = 1.0
"""The same on a club's shared thread, which every change that moves a deadline wakes at once: what
is left to poll is a node going quiet (20 s) and the clock's checkpoint (5 s)."""


class Ticker:
    """Sleeps until the next deadline of the master clock or of any extra step, then runs them.

    With ``rounds`` (a club's :class:`~companion.hub.rounds.Rounds`) it has no thread of its own:
    the shared thread runs it, woken by the same changes that wake a ticker's own thread."""

    def __init__(
        self,
        session: TableSession,
        *,
        steps: list[Callable[[], float | None]] | None = None,
        rounds: Rounds | None = None,
    ) -> None:
        self.session = session
        self.steps = list(steps or [])
        """Extra work on every wake (audio cues); each returns game seconds to its next deadline or None."""
        self.rounds = rounds
        self._stop = threading.Event()
        self._thread = (
            threading.Thread(target=self._run, name="table-ticker", daemon=True) if rounds is None else None
        )

    def start(self) -> Ticker:
        if self._thread is not None:
            self._thread.start()
        elif self.rounds is not None:
            self.session.add_listener(self._on_news)
            self.rounds.add(self)
        return self

    def _on_news(self, news: News) -> None:
        """(Inside the session's lock) wake the shared thread when a deadline may have moved."""
        moved = isinstance(news, ShuttingDown) or (
            isinstance(news, Changed)
            and any(isinstance(e, (*ev.CLOCK_EVENTS, TableReset, FlipHeld)) for e in news.events)
        )
        if moved and self.rounds is not None:
            self.rounds.wake(self)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.session.clock_changed.clear()
            self.session.clock_changed.wait(self.run_once())
            if self._stop.is_set():
                break

    def run_once(self) -> float:
        """Run every step once; real seconds to wait before the next round (at most ``MAX_WAIT_S``)."""
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
        scale = self.session.clock.scale
        most = MAX_WAIT_S if self.rounds is None else ROUNDS_WAIT_S
        real_wait = most if until_next is None else min(most, until_next / scale)
        return max(0.001, real_wait)

    def _tick(self) -> float | None:
        """Apply what is due (held flips, the master clock running out); game seconds to the next deadline."""
        outcome = self.session.handle(msg.Tick())
        return next_deadline_s(outcome.table, now_s=self.session.clock.now_s())

    def stop(self) -> None:
        self._stop.set()
        self.session.clock_changed.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(5)
        if self.rounds is not None:
            self.rounds.remove(self)
            self.session.remove_listener(self._on_news)
