"""Flip detection: turns a chattering tilt switch (or an accelerometer) into clean flips.

A sandtimer node is turned over by hand. The ball in a tilt switch rolls, lands
and bounces, so the raw level chatters for a few milliseconds; a knock on the
table or a slide makes it jump and fall back. The rule (the same one that
``hardware/tools/tilt_calibration.py`` replays over recordings):

* the first clear orientation after start-up is the starting one, not a flip;
* a flip counts once a *new* orientation has held, unbroken, for ``rest_ms``
  (default 150 ms). Every change of the raw reading restarts that window, so
  the flip is reported ``rest_ms`` after the node came to rest, however long
  the ball bounced: with a 10 ms poll that is within 160 ms, under the 200 ms
  the node must meet;
* a change that reverts inside the window (a knock, a slide, a bounce) is
  never a flip, and an unclear reading (accelerometer mid-turn or shaking)
  breaks the window too.

Timestamps are injected integer milliseconds; nothing here reads a clock or a
pin. Runs under CPython and MicroPython.
"""

DEFAULT_REST_MS = 150
DEFAULT_DEBOUNCE_MS = 30
DEFAULT_FLIP_G = 0.7
DEFAULT_RELEASE_G = 0.5
DEFAULT_STILL_G = 0.05

UPRIGHT = 1
INVERTED = -1


class TiltDebouncer:
    """Flip detector fed with orientation samples and their times.

    Feed it ``1``/``0`` (switch closed/open), ``UPRIGHT``/``INVERTED`` or
    ``None`` (unclear) together with the time of the sample. ``feed`` and
    ``update`` return True exactly once per flip, at the first call at or after
    the moment the new orientation has held for ``rest_ms``.

    ``debounce_ms`` only drives :meth:`level`, the chatter-free switch level
    (for calibration output and self tests); flips use the longer rest window.
    """

    def __init__(self, rest_ms: int = DEFAULT_REST_MS, debounce_ms: int = DEFAULT_DEBOUNCE_MS) -> None:
        if rest_ms <= 0 or debounce_ms < 0:
            raise ValueError("rest_ms must be positive and debounce_ms not negative")
        if debounce_ms > rest_ms:
            raise ValueError("debounce_ms must not be longer than rest_ms")
        self.rest_ms = int(rest_ms)
        self.debounce_ms = int(debounce_ms)
        self.orientation: int | None = None  # the counted orientation (None until the first clear reading)
        self.flips = 0
        self.ignored = 0  # changes that reverted inside the rest window (knocks, bounces)
        self._raw: int | None = None  # last sample
        self._changed_ms: int | None = None  # when the raw reading last changed
        # when the reading first left the counted orientation (the turn began)
        self._left_ms: int | None = None
        self.turned_ms: int | None = None  # for the last flip counted: when the node was turned over
        self._stable: int | None = None  # debounced level
        self._last_ms: int | None = None

    def feed(self, value: int | None, now_ms: int) -> bool:
        """Take one sample taken at ``now_ms``; True if a flip counts now."""
        if value is not None:
            value = UPRIGHT if value and value != INVERTED else INVERTED
        if self._last_ms is not None and now_ms < self._last_ms:
            now_ms = self._last_ms  # never let time run backwards
        self._last_ms = now_ms
        if self._changed_ms is None or value != self._raw:
            if (
                self._raw is not None
                and self.orientation is not None
                and self._raw != self.orientation
                and value == self.orientation
            ):
                self.ignored += 1  # the new orientation fell back before it counted
            if (
                self.orientation is not None
                and value != self.orientation
                and (
                    self._left_ms is None
                    or (
                        self._raw == self.orientation
                        and self._changed_ms is not None  # always set once there is an orientation
                        and now_ms - self._changed_ms >= self.rest_ms
                    )
                )
            ):
                self._left_ms = now_ms  # a turn (or a knock) begins; bounces inside it do not restart it
            self._raw = value
            self._changed_ms = now_ms
        if self.orientation is None:
            if value is not None:
                self.orientation = value
                self._stable = value
            return False
        return self.update(now_ms)

    def update(self, now_ms: int) -> bool:
        """Let time pass without a new sample; True if a flip counts now."""
        if self._changed_ms is None:
            return False
        if self._last_ms is not None and now_ms < self._last_ms:
            now_ms = self._last_ms
        self._last_ms = now_ms
        held = now_ms - self._changed_ms
        if held >= self.debounce_ms and self._raw is not None:
            self._stable = self._raw
        if self._raw is None or self.orientation is None or self._raw == self.orientation:
            return False
        if held >= self.rest_ms:
            self.orientation = self._raw
            self.flips += 1
            self.turned_ms = self._left_ms if self._left_ms is not None else self._changed_ms
            self._left_ms = None
            return True
        return False

    def pending(self) -> bool:
        """True while a new orientation is waiting out its rest window."""
        return self._raw is not None and self.orientation is not None and self._raw != self.orientation

    def due_ms(self) -> int | None:
        """When a pending flip will count (for sleeping until then), or None."""
        if not self.pending() or self._changed_ms is None:  # pending() implies a change time
            return None
        return self._changed_ms + self.rest_ms

    def level(self) -> int | None:
        """The switch level without contact chatter: 1, 0 or None (not yet known)."""
        if self._stable is None:
            return None
        return 1 if self._stable == UPRIGHT else 0


class OrientationClassifier:
    """Accelerometer readings (in g) to ``UPRIGHT``, ``INVERTED`` or ``None``.

    ``axis`` (0, 1, 2 or "ax", "ay", "az") runs along the timer; its reading is
    corrected as ``(g - offset_g) * scale`` (the calibration helper computes
    both). Hysteresis keeps the answer steady near the threshold: upright is
    entered at ``+flip_g`` and kept until the reading drops below
    ``+release_g`` (the same for inverted, mirrored). A total acceleration more
    than ``still_g`` away from 1 g (a knock, a slide, a hand turning it) is
    ``None``, which keeps a flip from counting until the node is still.
    """

    _AXES = {"ax": 0, "ay": 1, "az": 2, "x": 0, "y": 1, "z": 2}

    def __init__(
        self,
        axis: int | str = "az",
        offset_g: float = 0.0,
        scale: float = 1.0,
        flip_g: float = DEFAULT_FLIP_G,
        release_g: float = DEFAULT_RELEASE_G,
        still_g: float = DEFAULT_STILL_G,
    ) -> None:
        if axis in self._AXES:
            axis = self._AXES[axis]
        if axis not in (0, 1, 2):
            raise ValueError("axis must be one of ax, ay, az")
        if not 0 < release_g <= flip_g <= 1.5:
            raise ValueError("thresholds need 0 < release_g <= flip_g <= 1.5")
        if still_g <= 0:
            raise ValueError("still_g must be positive")
        self.axis = axis
        self.offset_g = offset_g
        self.scale = scale
        self.flip_g = flip_g
        self.release_g = release_g
        self.still_g = still_g
        self.state: int | None = None

    def classify(self, ax: float, ay: float, az: float) -> int | None:
        """Orientation for one reading; remembers it for the hysteresis."""
        magnitude = (ax * ax + ay * ay + az * az) ** 0.5
        if abs(magnitude - 1.0) > self.still_g:
            return None  # moving: not an answer, but keep the hysteresis state
        g = ((ax, ay, az)[self.axis] - self.offset_g) * self.scale
        if self.state == UPRIGHT and g >= self.release_g:
            return UPRIGHT
        if self.state == INVERTED and g <= -self.release_g:
            return INVERTED
        if g >= self.flip_g:
            self.state = UPRIGHT
        elif g <= -self.flip_g:
            self.state = INVERTED
        else:
            self.state = None
        return self.state


def adxl345_g(raw: bytes | bytearray) -> tuple[float, float, float]:
    """Six data bytes of an ADXL345 (registers 0x32-0x37, full resolution) to (ax, ay, az) in g."""
    if len(raw) != 6:
        raise ValueError("an ADXL345 reading is 6 bytes")
    out = []
    for i in (0, 2, 4):
        v = raw[i] | (raw[i + 1] << 8)
        if v & 0x8000:
            v -= 0x10000
        out.append(v * 0.0039)
    return out[0], out[1], out[2]


def max17048_mv(raw: bytes | bytearray) -> int:
    """Two bytes of a MAX17048 VCELL register (0x02, big-endian) to the cell voltage in mV."""
    if len(raw) != 2:
        raise ValueError("a MAX17048 VCELL reading is 2 bytes")
    return ((raw[0] << 8) | raw[1]) * 78125 // 1000000
