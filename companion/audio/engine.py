"""The cue engine: follows the master clock and fires each due cue exactly once.

The hub's cue thread calls :meth:`CueEngine.update` with the master clock's state
(and on every clock change); the engine works out which cues of its schedule
fell due since the last call and hands each to ``on_cue``. Cues follow the
master clock's *elapsed game time*, so a pause stops them and a resume carries
on where the clock stood. :meth:`CueEngine.next_deadline_s` tells the cue thread
how long it may sleep before the next cue, which is what keeps each cue within
a few milliseconds of its moment.

What the engine does for each clock phase:

- ``ready``: nothing; the next start is a new run, beginning with the ``start`` cue.
- ``running`` / ``paused``: the cues between the last call's elapsed time and now.
- ``expired``: the remaining cues up to the end, so the ``end`` cue fires once.
- ``aborted``: nothing after the abort (the game was stopped from the hub; no fanfare).
  A cue whose moment came before the abort but was not yet fired still fires.
- a restart (a new start after the end, or elapsed time going backwards) begins again with ``start``.
  Call :meth:`update` on every clock change (or :meth:`reset` on a start) so no restart goes unseen.

The first time an engine sees a clock that is already running (a hub resuming
a saved game) it plays only cues of the last ``resume_grace_s`` seconds, not
the whole past.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence

from companion.audio.cues import (
    EPSILON_S,
    EVENT_CUES,
    Cue,
    check_cue_names,
    due_cues,
    event_cue,
    next_cue,
)
from companion.clock import Clock
from companion.errors import ConfigError
from companion.table import events as ev
from companion.table.state import MasterClock

log = logging.getLogger(__name__)

NEW_RUN = -1.0
"""Elapsed time "before the start", so a new run's ``start`` cue (at 0) is due."""

_EVENT_CUE_OF = {ev.TimerEmptied: "chime", ev.FlipRefused: "buzz"}


def cue_name_for_event(event: object) -> str | None:
    """The event cue a table event sounds: a timer running out chimes, a refused flip buzzes."""
    return _EVENT_CUE_OF.get(type(event))


class CueEngine:
    """Fires the cues of ``schedule`` through ``on_cue`` as the master clock passes them.

    ``schedule_for(length_s)`` (optional) rebuilds the schedule when a clock of
    another length starts. ``disabled`` cue names never fire; change them any
    time with :meth:`set_disabled`. Thread-safe: the cue thread and web requests
    may both call in; ``on_cue`` runs under the engine's lock, in cue order, and
    must return quickly (queue the sound, do not play it).
    """

    def __init__(
        self,
        schedule: Sequence[Cue] | None = None,
        *,
        clock: Clock | None = None,
        on_cue: Callable[[Cue], object],
        disabled: Iterable[str] = (),
        schedule_for: Callable[[float], Sequence[Cue]] | None = None,
        resume_grace_s: float = 1.0,
    ) -> None:
        if schedule is None and schedule_for is None:
            raise ConfigError("a cue engine needs a schedule or a schedule_for(length_s) function")
        self.clock = clock
        self.on_cue = on_cue
        self.schedule_for = schedule_for
        self.resume_grace_s = float(resume_grace_s)
        self._schedule: tuple[Cue, ...] = tuple(schedule or ())
        self._schedule_length: float | None = None if schedule is None else _length_of(self._schedule)
        self._disabled = check_cue_names(disabled)
        self._lock = threading.RLock()
        self._phase: str | None = None
        self._length: float | None = None
        self._seen = NEW_RUN
        self.fired = 0
        """Number of cues handed to ``on_cue`` so far."""

    # --- settings ------------------------------------------------------------------------
    @property
    def schedule(self) -> tuple[Cue, ...]:
        return self._schedule

    @property
    def disabled(self) -> frozenset[str]:
        return self._disabled

    def set_disabled(self, names: Iterable[str]) -> None:
        """Turn off exactly these cues (an empty set turns every cue on)."""
        checked = check_cue_names(names)
        with self._lock:
            self._disabled = checked

    def reset(self) -> None:
        """Forget the current run; the next running clock starts with the ``start`` cue."""
        with self._lock:
            self._phase = "ready"
            self._seen = NEW_RUN

    # --- the clock -----------------------------------------------------------------------
    def _now(self, now_s: float | None) -> float:
        if now_s is not None:
            return now_s
        if self.clock is None:
            raise ConfigError("pass now_s or give the cue engine a clock")
        return self.clock.now_s()

    def _base(self, master: MasterClock, elapsed: float) -> float:
        """Elapsed time up to which cues of this run were already handled (no side effects)."""
        phase = master.phase
        if phase == "ready":
            return NEW_RUN
        if self._phase is None:  # first sight of this clock
            if phase in ("expired", "aborted"):
                return elapsed
            return NEW_RUN if elapsed <= self.resume_grace_s else elapsed - self.resume_grace_s
        restarted = (
            (self._phase in ("ready", "expired", "aborted") and phase in ("running", "paused"))
            or (self._length is not None and master.length_s != self._length)
            or elapsed < self._seen - EPSILON_S
        )
        return NEW_RUN if restarted else self._seen

    def _schedule_for_clock(self, length_s: float) -> tuple[Cue, ...]:
        """The schedule of a clock of ``length_s``. A new one is made outside the engine's lock:
        ``schedule_for`` may build sound files for seconds, and :meth:`fire_event` or
        :meth:`set_disabled` must not wait for that."""
        with self._lock:
            if self.schedule_for is None or length_s == self._schedule_length:
                return self._schedule
        schedule = tuple(self.schedule_for(length_s))
        with self._lock:
            self._schedule, self._schedule_length = schedule, length_s
            return schedule

    def update(self, master: MasterClock, now_s: float | None = None) -> list[Cue]:
        """Fire the cues that fell due since the last update; return them in order."""
        now = self._now(now_s)
        schedule = self._schedule_for_clock(master.length_s)
        with self._lock:
            elapsed = master.elapsed_s(now)
            base = self._base(master, elapsed)
            due: list[Cue] = []
            if master.phase in ("running", "paused", "expired", "aborted"):
                due = [
                    c
                    for c in due_cues(schedule, elapsed_before_s=base, elapsed_now_s=elapsed)
                    if c.name not in self._disabled
                ]
            self._seen = NEW_RUN if master.phase == "ready" else max(base, elapsed)
            self._phase = master.phase
            self._length = master.length_s
            for cue in due:
                self._fire(cue)
            return due

    def next_deadline_s(self, master: MasterClock, now_s: float | None = None) -> float | None:
        """Game seconds until the next cue of a running clock (0 if one is due now); None if none is coming."""
        now = self._now(now_s)
        if master.phase != "running":
            return None
        schedule = self._schedule_for_clock(master.length_s)
        with self._lock:
            elapsed = master.elapsed_s(now)
            base = self._base(master, elapsed)
            if due_cues(schedule, elapsed_before_s=base, elapsed_now_s=elapsed):
                return 0.0
            upcoming = next_cue(schedule, elapsed_s=elapsed)
            return None if upcoming is None else max(0.0, upcoming.at_elapsed_s - elapsed)

    # --- game events ---------------------------------------------------------------------
    def fire_event(
        self, name: str, master: MasterClock | None = None, now_s: float | None = None
    ) -> Cue | None:
        """Fire the event cue ``name`` (``chime`` or ``buzz``) now, unless it is turned off."""
        if name not in EVENT_CUES:
            raise ConfigError(f"{name!r} is not an event cue; event cues are {', '.join(EVENT_CUES)}")
        with self._lock:
            if name in self._disabled:
                return None
            elapsed = remaining = 0.0
            if master is not None:
                now = self._now(now_s)
                elapsed, remaining = master.elapsed_s(now), master.remaining_s(now)
            cue = event_cue(name, elapsed_s=elapsed, remaining_s=remaining)
            self._fire(cue)
            return cue

    def notify_event(
        self, event: object, master: MasterClock | None = None, now_s: float | None = None
    ) -> Cue | None:
        """Fire the event cue of a table event, if it has one (see :func:`cue_name_for_event`)."""
        name = cue_name_for_event(event)
        return None if name is None else self.fire_event(name, master, now_s)

    def _fire(self, cue: Cue) -> None:
        self.fired += 1
        try:
            self.on_cue(cue)
        except Exception:
            log.exception("cue %r failed to play", cue.name)


def _length_of(schedule: Sequence[Cue]) -> float | None:
    for cue in schedule:
        return cue.at_elapsed_s + cue.remaining_s
    return None
