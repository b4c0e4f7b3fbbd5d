"""What a node's lights show: pure functions of (pattern, sand fraction, time).

``NodeCore.show()`` names a pattern; these functions turn it into a frame for
the hardware: a bar of ``n`` LED levels (0.0-1.0, index 0 at the bottom) and
the status LED's ``(r, g, b)`` (0.0-1.0 each). The Pi node writes the levels
to PWM LEDs, the MicroPython nodes to NeoPixels, both through the same code, so
every kind of node looks the same. Blinking is a function of ``now_ms`` alone
(no state), so a frame can be recomputed at any time and tested exactly.

``firmware/README.md`` has the table of patterns for players.
Runs under CPython and MicroPython.
"""

try:
    from collections.abc import Iterable  # CPython (the hub, mypy); MicroPython has no collections.abc
except ImportError:
    pass

# NodeCore patterns plus the ones only the firmware adds.
LOW_BATTERY = "low_battery"
SELF_TEST = "self_test"
PATTERNS = (
    "running",
    "empty",
    "accepted",
    "rejected",
    "sabotaged",
    "paused",
    "over",
    "offline",
    LOW_BATTERY,
    "identify",
)

LOW_BATTERY_MV = 3500
"""A LiPo cell below 3.5 V has about 20 % left (hardware/README.md, power budget)."""

OFF = (0.0, 0.0, 0.0)
GREEN = (0.0, 1.0, 0.0)
DIM_GREEN = (0.0, 0.15, 0.0)
RED = (1.0, 0.0, 0.0)
CYAN = (0.0, 0.6, 0.6)
AMBER = (1.0, 0.45, 0.0)
BLUE = (0.0, 0.0, 1.0)
MAGENTA = (1.0, 0.0, 1.0)
WHITE = (1.0, 1.0, 1.0)
ORANGE = (1.0, 0.2, 0.0)

# The patterns a low battery may replace: the calm ones. Verdicts, identify and
# offline stay visible because the player needs them now.
_CALM = ("running", "empty", "paused", "over")


def bar_levels(fraction: float, n: int = 8) -> list[float]:
    """Sand left as ``n`` LED levels, bottom first: full LEDs, then one dimmed in proportion.

    ``fraction`` 0.55 on 8 LEDs is 4.4 LEDs of sand: four at 1.0, the fifth at
    0.4, the rest off. Values outside 0-1 are clamped.
    """
    if n <= 0:
        raise ValueError("a bar needs at least one LED")
    if fraction != fraction or fraction <= 0:
        fraction = 0.0
    elif fraction > 1:
        fraction = 1.0
    lit = fraction * n
    full = int(lit)
    levels: list[float] = []
    for i in range(n):
        if i < full:
            levels.append(1.0)
        elif i == full:
            levels.append(round(lit - full, 4))
        else:
            levels.append(0.0)
    return levels


def _on(now_ms: int, period_ms: int, on_ms: int) -> bool:
    """True during the first ``on_ms`` of every ``period_ms``."""
    return now_ms % period_ms < on_ms


def _breathe(now_ms: int, period_ms: int, low: float = 0.1) -> float:
    """A triangle wave from ``low`` up to 1.0 and back over ``period_ms``."""
    phase = (now_ms % period_ms) / period_ms
    up = phase * 2 if phase < 0.5 else (1 - phase) * 2
    return round(low + (1 - low) * up, 4)


def _scale(colour: tuple[float, float, float], k: float) -> tuple[float, float, float]:
    return (round(colour[0] * k, 4), round(colour[1] * k, 4), round(colour[2] * k, 4))


def status_colour(pattern: str, now_ms: int) -> tuple[float, float, float]:
    """The status LED's ``(r, g, b)`` for ``pattern`` at ``now_ms``."""
    if pattern == "running":
        return DIM_GREEN
    if pattern == "empty":
        return _scale(CYAN, _breathe(now_ms, 2000))
    if pattern == "accepted":
        return GREEN
    if pattern == "rejected":
        return RED if _on(now_ms, 250, 125) else OFF
    if pattern == "sabotaged":
        return MAGENTA if _on(now_ms, 500, 250) else RED
    if pattern == "paused":
        return _scale(AMBER, _breathe(now_ms, 3000, 0.2))
    if pattern == "over":
        return RED
    if pattern == "offline":
        return BLUE if _on(now_ms, 2000, 100) else OFF
    if pattern == LOW_BATTERY:
        return ORANGE if (_on(now_ms, 3000, 100) or 200 <= now_ms % 3000 < 300) else OFF
    if pattern == "identify":
        return WHITE if _on(now_ms, 200, 100) else OFF
    if pattern == SELF_TEST:
        return (RED, GREEN, BLUE, WHITE)[(now_ms // 500) % 4]
    return OFF


def bar_frame(pattern: str, fraction: float, now_ms: int, n: int = 8) -> list[float]:
    """The bar's ``n`` levels for ``pattern``: the sand, except where the pattern says otherwise."""
    sand = bar_levels(fraction, n)
    if pattern == "identify":
        return [1.0 if _on(now_ms, 200, 100) else 0.0] * n
    if pattern == "rejected":
        return sand if _on(now_ms, 250, 125) else [0.0] * n
    if pattern == "sabotaged":
        pos = (now_ms // 60) % (2 * n - 2) if n > 1 else 0
        pos = pos if pos < n else 2 * n - 2 - pos
        return [1.0 if i == pos else 0.0 for i in range(n)]
    if pattern == "paused":
        k = _breathe(now_ms, 3000, 0.3)
        return [round(v * k, 4) for v in sand]
    if pattern == "over":
        return [0.0] * n
    if pattern == SELF_TEST:
        step = (now_ms // 150) % (n + 1)
        return [1.0 if i < step else 0.0 for i in range(n)]
    return sand


def frame(
    pattern: str, fraction: float, now_ms: int, n: int = 8
) -> tuple[list[float], tuple[float, float, float]]:
    """``(bar_levels, status_rgb)`` for one moment: everything a node's lights need."""
    return bar_frame(pattern, fraction, now_ms, n), status_colour(pattern, now_ms)


def display_pattern(core_pattern: str, battery_mv: int | None = None, low_mv: int = LOW_BATTERY_MV) -> str:
    """The pattern to show: ``core_pattern`` from NodeCore.show(), or low battery over a calm one."""
    if battery_mv is not None and battery_mv < low_mv and core_pattern in _CALM:
        return LOW_BATTERY
    return core_pattern


def to_pixels(
    levels: Iterable[float], colour: tuple[int, int, int] = (255, 120, 0), brightness: float = 0.3
) -> list[tuple[int, int, int]]:
    """Bar levels to NeoPixel ``(r, g, b)`` byte tuples in ``colour`` at ``brightness`` (0-1)."""
    out = []
    for v in levels:
        k = v * brightness
        out.append((int(colour[0] * k + 0.5), int(colour[1] * k + 0.5), int(colour[2] * k + 0.5)))
    return out


def beeps(pattern: str, previous: str | None = None) -> list[tuple[int, int]]:
    """Buzzer cue when the lights change from ``previous`` to ``pattern``: ``[(hz, ms), ...]`` (hz 0 rests).

    Coming back on line is silent: a timer found empty or a game found over
    after a reconnect did not just run out, so only ``running`` -> ``empty``
    beeps for the sand and anything but ``offline`` -> ``over`` for the end.
    """
    if pattern == "accepted":
        return [(2000, 60)]
    if pattern == "rejected":
        return [(400, 150), (0, 80), (400, 150)]
    if pattern == "sabotaged":
        return [(1500, 80), (0, 40), (1000, 80), (0, 40), (600, 120)]
    if pattern == "empty" and previous == "running":
        return [(1200, 120)]
    if pattern == "over" and previous not in (None, "offline"):
        return [(800, 400)]
    if pattern == "identify":
        return [(2500, 50), (0, 50), (2500, 50)]
    return []


def tone_at(cue: Iterable[tuple[int, int]], ms_since_start: int) -> int:
    """Frequency to play ``ms_since_start`` into a cue from :func:`beeps` (0: silent)."""
    t = 0
    for hz, ms in cue:
        if ms_since_start < t + ms:
            return hz
        t += ms
    return 0
