"""Checks of the shared flip debouncer and LED frames, under CPython (pytest) and MicroPython (run.mjs).

Plain functions and plain asserts, nothing MicroPython lacks, so the same
checks prove ``companion.core.debounce`` and ``companion.core.leds`` behave the
same on a microcontroller as on a Raspberry Pi.
"""

from companion.core import leds
from companion.core.debounce import (
    INVERTED,
    UPRIGHT,
    OrientationClassifier,
    TiltDebouncer,
    adxl345_g,
    max17048_mv,
)


def _run(deb, samples, until_ms, step_ms=10):
    """Feed ``[(t_ms, level)]`` and poll every ``step_ms`` up to ``until_ms``; return the flip times."""
    flips = []
    samples = list(samples)
    t = samples[0][0]
    i = 0
    while t <= until_ms:
        while i < len(samples) and samples[i][0] <= t:
            if deb.feed(samples[i][1], samples[i][0]):
                flips.append(samples[i][0])
            i += 1
        if deb.update(t):
            flips.append(t)
        t += step_ms
    return flips


def check_first_reading_is_not_a_flip():
    deb = TiltDebouncer()
    assert not deb.feed(1, 0)
    assert not deb.update(10000)
    assert deb.orientation == UPRIGHT and deb.flips == 0


def check_clean_flip_counts_after_rest_window():
    deb = TiltDebouncer(rest_ms=150)
    deb.feed(1, 0)
    assert not deb.feed(0, 1000)
    assert not deb.update(1149)
    assert deb.pending() and deb.due_ms() == 1150
    assert deb.update(1150)
    assert not deb.update(1160) and deb.flips == 1 and deb.orientation == INVERTED


def check_bouncing_ball_is_one_flip_within_200ms_of_rest():
    deb = TiltDebouncer(rest_ms=150)
    # upright, turned over at 1000; the ball chatters for 18 ms, rests from 1018
    samples = [(0, 1), (1000, 0), (1003, 1), (1005, 0), (1009, 1), (1012, 0), (1018, 0)]
    bounce_end = 1012
    flips = _run(deb, samples, 3000)
    assert len(flips) == 1, flips
    assert 0 <= flips[0] - bounce_end <= 200, flips
    assert deb.ignored == 2  # two bounces fell back before the window ran out


def check_a_flip_is_dated_when_the_turn_began():
    deb = TiltDebouncer(rest_ms=150)
    # a knock at 500 first (falls back), then the real turn at 1000 with a chattering ball
    samples = [(0, 1), (500, 0), (540, 1), (1000, 0), (1003, 1), (1005, 0), (1009, 1), (1012, 0)]
    flips = _run(deb, samples, 3000)
    assert len(flips) == 1 and flips[0] >= 1162, flips
    assert deb.turned_ms == 1000, deb.turned_ms  # not the knock, not the last bounce, not the count
    _run(deb, [(4000, 1)], 6000)
    assert deb.flips == 2 and deb.turned_ms == 4000


def check_knock_is_never_a_flip():
    deb = TiltDebouncer(rest_ms=150)
    # a knock: the ball jumps for 40 ms and falls back; a slide: 120 ms away, then back
    samples = [(0, 1), (500, 0), (540, 1), (2000, 0), (2120, 1)]
    assert _run(deb, samples, 5000) == []
    assert deb.orientation == UPRIGHT and deb.flips == 0


def check_flip_back_and_forth():
    deb = TiltDebouncer(rest_ms=150)
    samples = [(0, 1), (1000, 0), (3000, 1), (5000, 0)]
    assert _run(deb, samples, 8000) == [1150, 3150, 5150]


def check_unclear_breaks_the_window():
    deb = TiltDebouncer(rest_ms=150)
    samples = [(0, 1), (1000, 0), (1100, None), (1130, 0)]
    flips = _run(deb, samples, 2000)
    assert flips == [1280], flips


def check_debounced_level():
    deb = TiltDebouncer(rest_ms=150, debounce_ms=30)
    deb.feed(1, 0)
    deb.feed(0, 100)
    deb.update(120)
    assert deb.level() == 1
    deb.update(130)
    assert deb.level() == 0


def check_time_never_runs_backwards():
    deb = TiltDebouncer(rest_ms=150)
    deb.feed(1, 1000)
    deb.feed(0, 2000)
    assert not deb.update(1500)
    assert deb.update(2150)


def check_bad_debouncer_settings():
    for args in ((0, 10), (100, 200), (100, -1)):
        try:
            TiltDebouncer(*args)
        except ValueError:
            continue
        raise AssertionError("accepted " + repr(args))


def check_accelerometer_hysteresis():
    cls = OrientationClassifier(axis="az", flip_g=0.7, release_g=0.5, still_g=0.1)
    # tilted 45-60 degrees: nothing yet
    assert cls.classify(0.6, 0.0, 0.8) == UPRIGHT
    assert cls.classify(0.8, 0.0, 0.6) == UPRIGHT  # 0.6 >= release: still upright
    assert cls.classify(0.9, 0.0, 0.44) is None  # below release: unclear
    assert cls.classify(0.8, 0.0, 0.6) is None  # 0.6 < flip_g: not upright again yet
    assert cls.classify(0.0, 0.0, -1.0) == INVERTED
    assert cls.classify(0.0, 0.8, -0.6) == INVERTED


def check_accelerometer_motion_is_unclear():
    cls = OrientationClassifier(axis="az", still_g=0.05)
    assert cls.classify(0.0, 0.0, 1.0) == UPRIGHT
    assert cls.classify(0.0, 0.3, 1.3) is None  # knock: 1.33 g
    assert cls.classify(0.0, 0.0, 1.0) == UPRIGHT


def check_accelerometer_offset_and_scale():
    cls = OrientationClassifier(axis="ay", offset_g=0.1, scale=1.0 / 0.9, still_g=0.2)
    assert cls.classify(0.0, 1.0, 0.0) == UPRIGHT
    assert cls.classify(0.0, -0.8, 0.0) == INVERTED


def check_accelerometer_feeds_debouncer():
    cls = OrientationClassifier(axis="az", still_g=0.1)
    deb = TiltDebouncer(rest_ms=150)
    readings = [(0, (0, 0, 1.0)), (1000, (0, 0.9, 0.3)), (1050, (0, 0.2, -1.2)), (1080, (0, 0, -1.0))]
    flips = []
    i = 0
    for t in range(0, 2000, 10):
        while i < len(readings) and readings[i][0] <= t:
            if deb.feed(cls.classify(*readings[i][1]), readings[i][0]):
                flips.append(readings[i][0])
            i += 1
        if deb.update(t):
            flips.append(t)
    assert flips == [1230], flips


def check_sensor_conversions():
    ax, ay, az = adxl345_g(bytes([0x00, 0x01, 0x00, 0xFF, 0x00, 0x00]))
    assert abs(ax - 0.9984) < 1e-6 and abs(ay - (-0.9984)) < 1e-6 and az == 0
    assert max17048_mv(bytes([0xCD, 0x00])) == 4100  # 0xCD00 * 78.125 uV
    for bad in (b"12345", b"1"):
        try:
            adxl345_g(bad) if len(bad) != 1 else max17048_mv(bad)
        except ValueError:
            continue
        raise AssertionError("accepted " + repr(bad))


def check_bar_levels_drain_with_dimmed_last_led():
    assert leds.bar_levels(1.0) == [1.0] * 8
    assert leds.bar_levels(0.0) == [0.0] * 8
    assert leds.bar_levels(0.55) == [1.0, 1.0, 1.0, 1.0, 0.4, 0.0, 0.0, 0.0]
    assert leds.bar_levels(0.5) == [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    assert leds.bar_levels(-3) == [0.0] * 8 and leds.bar_levels(7) == [1.0] * 8
    assert leds.bar_levels(0.3, n=4) == [1.0, 0.2, 0.0, 0.0]
    levels = [sum(leds.bar_levels(k / 100.0)) for k in range(101)]
    for i in range(1, len(levels)):
        assert levels[i] >= levels[i - 1]  # more sand never shows less light


def check_every_pattern_has_a_distinct_look():
    seen = {}
    for pattern in leds.PATTERNS:
        look = []
        for t in range(0, 6000, 50):
            bar, rgb = leds.frame(pattern, 0.5, t)
            assert len(bar) == 8
            for v in bar + list(rgb):
                assert 0.0 <= v <= 1.0
            look.append((tuple(bar), rgb))
        key = tuple(look)
        assert key not in seen, pattern + " looks like " + str(seen.get(key))
        seen[key] = pattern


def check_pattern_colours():
    assert leds.status_colour("running", 0) == leds.DIM_GREEN
    assert leds.status_colour("accepted", 777) == leds.GREEN
    assert leds.status_colour("rejected", 0) == leds.RED and leds.status_colour("rejected", 130) == leds.OFF
    assert leds.status_colour("offline", 50) == leds.BLUE and leds.status_colour("offline", 150) == leds.OFF
    assert leds.status_colour("identify", 0) == leds.WHITE and leds.status_colour("identify", 100) == leds.OFF
    assert leds.status_colour("over", 1234) == leds.RED
    assert leds.status_colour("nonsense", 0) == leds.OFF
    assert leds.status_colour("empty", 1000) == leds.CYAN  # top of the breath
    assert leds.bar_frame("over", 1.0, 0) == [0.0] * 8
    assert leds.bar_frame("running", 0.25, 0) == leds.bar_levels(0.25)
    assert leds.bar_frame("offline", 0.25, 0) == leds.bar_levels(0.25)  # the sand keeps running offline


def check_low_battery_overrides_only_calm_patterns():
    assert leds.display_pattern("running", 3400) == leds.LOW_BATTERY
    assert leds.display_pattern("running", 3600) == "running"
    assert leds.display_pattern("running", None) == "running"
    assert leds.display_pattern("accepted", 3000) == "accepted"
    assert leds.display_pattern("offline", 3000) == "offline"
    assert leds.bar_frame(leds.LOW_BATTERY, 0.5, 0) == leds.bar_levels(0.5)


def check_pixels_and_beeps():
    assert leds.to_pixels([1.0, 0.5, 0.0], colour=(200, 100, 0), brightness=1.0) == [
        (200, 100, 0),
        (100, 50, 0),
        (0, 0, 0),
    ]
    cue = leds.beeps("rejected")
    assert leds.tone_at(cue, 0) == 400 and leds.tone_at(cue, 160) == 0 and leds.tone_at(cue, 300) == 400
    assert leds.tone_at(cue, 10000) == 0 and leds.beeps("running") == []
    assert leds.beeps("empty", "running") == [(1200, 120)]
    assert (
        leds.beeps("empty", "offline") == [] and leds.beeps("empty", "paused") == []
    )  # reconnecting is silent
    assert leds.beeps("over", "running") == [(800, 400)] and leds.beeps("over", "offline") == []


def checks():
    """(name, function) of every check, in a stable order."""
    found = []
    for name, value in sorted(globals().items()):
        if name.startswith("check_") and callable(value):
            found.append((name, value))
    return found


def main():
    failed = 0
    for name, check in checks():
        try:
            check()
            print("PASS " + name)
        except Exception as exc:  # report every failure, then fail the run
            failed += 1
            print("FAIL " + name + ": " + repr(exc))
    print("checks: " + str(len(checks()) - failed) + " passed, " + str(failed) + " failed")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
