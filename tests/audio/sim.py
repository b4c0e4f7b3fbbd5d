"""A table's master clock driven by real table events on a FakeClock, for the cue tests."""

from __future__ import annotations

from companion.clock import FakeClock
from companion.rules.setup import make_setup
from companion.table import events as ev
from companion.table.state import MasterClock, TableState, evolve, initial_state


class ClockSim:
    """Folds start/pause/resume/abort events like the hub does, and expires the clock on time."""

    def __init__(self, length_s: float, *, clock: FakeClock | None = None) -> None:
        self.clock = clock or FakeClock()
        self.length_s = length_s
        self.state: TableState = initial_state(make_setup(table="cues", clock_length_s=length_s))

    @property
    def master(self) -> MasterClock:
        self._expire_if_due()
        return self.state.clock

    def _apply(self, event: ev.Event) -> None:
        self.state = evolve(self.state, event)

    def _expire_if_due(self) -> None:
        expires = self.state.clock.expires_at_s
        if expires is not None and self.clock.now_s() >= expires:
            self._apply(ev.ClockExpired(at_s=expires))

    def start(self) -> None:
        self._apply(ev.ClockStarted(at_s=self.clock.now_s(), length_s=self.length_s))

    def pause(self) -> bool:
        self._expire_if_due()
        if self.state.clock.phase != "running":
            return False
        self._apply(ev.ClockPaused(at_s=self.clock.now_s()))
        return True

    def resume(self) -> bool:
        if self.state.clock.phase != "paused":
            return False
        self._apply(ev.ClockResumed(at_s=self.clock.now_s()))
        return True

    def abort(self) -> None:
        self._expire_if_due()
        self._apply(ev.ClockAborted(at_s=self.clock.now_s()))

    def advance(self, seconds: float) -> None:
        """Move time on, expiring the clock at its exact moment if it runs out on the way."""
        expires = self.state.clock.expires_at_s
        now = self.clock.now_s()
        if expires is not None and now + seconds >= expires > now:
            self.clock.advance(expires - now)
            self._expire_if_due()
            self.clock.advance(max(0.0, now + seconds - self.clock.now_s()))
        else:
            self.clock.advance(seconds)
        self._expire_if_due()

    def elapsed_s(self) -> float:
        return self.master.elapsed_s(self.clock.now_s())
