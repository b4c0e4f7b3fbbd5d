"""Electronic sand: a sandtimer that behaves like glass.

Sand drains from the upper bulb into the lower one at a constant rate; a full
bulb runs out in ``duration_ms``. Flipping swaps the bulbs, so the time left
becomes the time already run. The master clock can pause the sand.

Runs under CPython and MicroPython. The clock is injected: a callable returning
a monotonic time in integer milliseconds.
"""

try:
    from collections.abc import Callable  # CPython (the hub, mypy); MicroPython has no collections.abc
except ImportError:
    pass


class Sandtimer:
    """A sandtimer of ``duration_ms`` whose sand level follows an injected clock.

    A new timer stands upright with all its sand already in the lower bulb
    (nothing running), like a glass timer fresh out of the box.
    """

    def __init__(self, now_ms: Callable[[], int], duration_ms: int = 60000) -> None:
        if duration_ms <= 0:
            raise ValueError("duration_ms must be positive")
        self._now_ms = now_ms
        self.duration_ms = int(duration_ms)
        self._upper_at_mark = 0
        self._mark_ms = now_ms()
        self._paused = False
        self._empty_reported = True
        self.flips = 0

    def upper_ms(self) -> int:
        """Sand left in the upper bulb, in milliseconds of running time."""
        if self._paused:
            return self._upper_at_mark
        left = self._upper_at_mark - (self._now_ms() - self._mark_ms)
        return left if left > 0 else 0

    def lower_ms(self) -> int:
        """Sand already in the lower bulb, in milliseconds of running time."""
        return self.duration_ms - self.upper_ms()

    def is_running(self) -> bool:
        """True while sand is flowing: the upper bulb holds sand and nothing pauses it."""
        return not self._paused and self.upper_ms() > 0

    def is_empty(self) -> bool:
        """True when the upper bulb has run out."""
        return self.upper_ms() == 0

    def is_paused(self) -> bool:
        return self._paused

    def fraction_left(self) -> float:
        """Share of the sand in the upper bulb, 0.0 to 1.0 (for LED bars)."""
        return self.upper_ms() / self.duration_ms

    def flip(self, at_ms: int | None = None) -> tuple[int, int]:
        """Turn the timer over: the lower bulb becomes the upper one.

        ``at_ms`` is when it was turned, if that was a moment ago (a tilt switch
        reports a flip only once the glass has come to rest); the sand runs from then.
        Returns ``(upper_ms, lower_ms)`` right after the turn.
        """
        now = self._now_ms()
        at = now if at_ms is None else min(now, max(at_ms, self._mark_ms))
        if self._paused:
            upper = self._upper_at_mark
        else:
            upper = self._upper_at_mark - (at - self._mark_ms)
            upper = upper if upper > 0 else 0
        self._upper_at_mark = self.duration_ms - upper
        self._mark_ms = at
        self._empty_reported = self._upper_at_mark == 0
        self.flips += 1
        return self._upper_at_mark, upper

    def pause(self) -> None:
        """Stop the sand where it is (the master clock was paused)."""
        if not self._paused:
            self._upper_at_mark = self.upper_ms()
            self._mark_ms = self._now_ms()
            self._paused = True

    def resume(self) -> None:
        """Let the sand flow again from where it stopped."""
        if self._paused:
            self._mark_ms = self._now_ms()
            self._paused = False

    def set_duration(self, duration_ms: int) -> None:
        """Change the time a full bulb takes, keeping the same share of sand on top."""
        if duration_ms <= 0:
            raise ValueError("duration_ms must be positive")
        share = self.fraction_left()
        self._upper_at_mark = int(share * duration_ms + 0.5)
        self._mark_ms = self._now_ms()
        self.duration_ms = int(duration_ms)

    def ms_until_empty(self) -> int | None:
        """Running time until the upper bulb is empty (None while paused with sand on top)."""
        upper = self.upper_ms()
        if upper and self._paused:
            return None
        return upper

    def emptied_at_ms(self) -> int | None:
        """Clock reading at which the upper bulb ran (or will run) out, None while paused."""
        if self._paused:
            return None if self._upper_at_mark else self._mark_ms
        return self._mark_ms + self._upper_at_mark

    def poll_emptied(self) -> bool:
        """True exactly once after the upper bulb ran out since the last flip."""
        if self._empty_reported:
            return False
        if self.upper_ms() == 0:
            self._empty_reported = True
            return True
        return False
