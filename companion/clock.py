"""The one injectable clock of the hub.

Everything that counts game time (sand, master clock, cues) reads a :class:`Clock`.
``ScaledClock`` runs game time N times faster than real time for demos and tests;
``FakeClock`` only moves when a test advances it.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """A monotonic source of game time in seconds."""

    scale: float

    def now_s(self) -> float:
        """Game time in seconds since an arbitrary start; never goes backwards."""

    def wait_s(self, seconds: float, event: threading.Event | None = None) -> bool:
        """Wait ``seconds`` of game time, or until ``event`` is set (then return True)."""


class ScaledClock:
    """Real monotonic time multiplied by ``scale`` (1 = real time), starting at ``start_s``.

    A hub that resumes a saved game starts its clock where the log left off.
    """

    def __init__(self, scale: float = 1.0, *, start_s: float = 0.0) -> None:
        if not scale > 0:
            raise ValueError("time scale must be a positive number")
        self.scale = float(scale)
        self._start = float(start_s)
        self._origin = time.monotonic()

    def now_s(self) -> float:
        return self._start + (time.monotonic() - self._origin) * self.scale

    def now_ms(self) -> int:
        """Game time in whole milliseconds, the unit nodes count in."""
        return int(self.now_s() * 1000)

    def wait_s(self, seconds: float, event: threading.Event | None = None) -> bool:
        real = max(0.0, seconds / self.scale)
        if event is None:
            time.sleep(real)
            return False
        return event.wait(real)


class FakeClock:
    """A clock for tests: time stands still until :meth:`advance` moves it."""

    def __init__(self, start_s: float = 1000.0) -> None:
        self.scale = 1.0
        self._now = float(start_s)
        self._lock = threading.Lock()

    def now_s(self) -> float:
        with self._lock:
            return self._now

    def now_ms(self) -> int:
        return int(self.now_s() * 1000)

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock never goes backwards")
        with self._lock:
            self._now += seconds

    def wait_s(self, seconds: float, event: threading.Event | None = None) -> bool:
        # Game time only moves through advance(); yield briefly to other threads.
        if event is not None:
            return event.wait(0.005)
        time.sleep(0.005)
        return False
