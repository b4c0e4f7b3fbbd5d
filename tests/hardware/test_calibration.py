"""Tilt calibration: settings from recordings, and the reference flip rule they are checked with.

The recordings here are synthetic (a 10 ms sampled ball switch with chatter,
an accelerometer with offset, scale error and seeded noise), not measured.
"""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "hardware" / "tools" / "tilt_calibration.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("tilt_calibration", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tilt_calibration"] = module
    spec.loader.exec_module(module)
    return module


tc = _load_script()
STEP = 10


def switch_recording(events, *, end_ms, start_level=1):
    """Sample a ball switch every 10 ms.

    ``events`` are (t_ms, new_level, chatter_ms): at t_ms the level flips, and for
    chatter_ms afterwards it alternates every sample before settling. Returns the
    samples and the time each event came to rest (last raw change).
    """
    level = start_level
    plan = {}
    rested = []
    for t, new, chatter in events:
        assert chatter == 0 or chatter >= 2 * STEP, "at 10 ms sampling a burst is 0 or at least 20 ms"
        for k, dt in enumerate(range(0, chatter + 1, STEP)):
            plan[t + dt] = new if k % 2 == 0 else 1 - new
        if chatter >= 2 * STEP:  # the last change is exactly at t + chatter
            plan[t + chatter - STEP] = 1 - new
        plan[t + chatter] = new
        rested.append(t + chatter)
    samples = []
    for t in range(0, end_ms, STEP):
        level = plan.get(t, level)
        samples.append({"t_ms": t, "tilt": level})
    return samples, rested


def flips_with_chatter(chatters):
    events = []
    t = 1000
    level = 1
    for chatter in chatters:
        level = 1 - level
        events.append((t, level, chatter))
        t += 2000
    return switch_recording(events, end_ms=t + 1000)


# --- ball switch ---------------------------------------------------------------------------------


def test_chatter_bursts_are_measured_per_landing():
    samples, _ = flips_with_chatter([20, 40, 0, 30])
    assert tc.switch_bursts_ms(samples) == [20, 40, 0, 30]


@pytest.mark.parametrize(
    ("bursts", "debounce"),
    [([0, 0], 20), ([10], 20), ([20], 30), ([40, 10], 60), ([33], 50)],
)
def test_debounce_is_one_and_a_half_times_the_worst_chatter_rounded_up(bursts, debounce):
    assert tc.recommend_debounce_ms(bursts) == debounce


def test_recording_without_flips_is_refused():
    samples, _ = switch_recording([], end_ms=1000)
    with pytest.raises(tc.CalibrationError, match="no switch changes"):
        tc.recommend(samples)


def test_a_switch_too_chattery_for_the_deadline_is_refused():
    samples, _ = flips_with_chatter([130])
    with pytest.raises(tc.CalibrationError, match="200 ms deadline"):
        tc.recommend(samples)


def test_each_flip_counts_once_and_within_200_ms_of_coming_to_rest():
    chatters = [20, 40, 0, 30, 20, 40]
    samples, rested = flips_with_chatter(chatters)
    settings = tc.recommend(samples)
    assert (settings.tilt_debounce_ms, settings.tilt_rest_ms) == (60, 150)
    found = tc.detect_flips(samples, settings)
    assert len(found) == len(chatters)
    for at, rest in zip(found, rested, strict=True):
        assert 0 < at - rest <= tc.FLIP_DEADLINE_MS


@pytest.mark.parametrize("open_ms", [10, 50, 100, 140])
def test_a_knock_that_lifts_the_ball_briefly_is_not_a_flip(open_ms):
    samples, _ = switch_recording([(1000, 0, 0), (1000 + open_ms, 1, 20)], end_ms=3000)
    assert tc.detect_flips(samples, tc.Settings(30, 150)) == []


def test_a_long_tilt_is_a_flip_but_a_return_within_the_rest_window_is_not():
    held, _ = switch_recording([(1000, 0, 0)], end_ms=2000)
    assert tc.detect_flips(held, tc.Settings(30, 150)) == [1150]
    back, _ = switch_recording([(1000, 0, 0), (1140, 1, 0)], end_ms=2000)
    assert tc.detect_flips(back, tc.Settings(30, 150)) == []


# --- accelerometer -------------------------------------------------------------------------------


def accel_at_rest(axis, value, *, offset=0.05, scale=0.9, n=200, seed=1, start=0):
    """Readings at rest with gravity along ``axis`` (+1 or -1 g), a sensor offset, gain error and noise."""
    rng = random.Random(seed)
    samples = []
    for i in range(n):
        g = {"ax": 0.0, "ay": 0.0, "az": 0.0}
        g[axis] = value
        samples.append(
            {
                "t_ms": start + i * STEP,
                **{
                    a: round(
                        g[a] * (scale if a == axis else 1)
                        + (offset if a == axis else 0)
                        + rng.gauss(0, 0.005),
                        4,
                    )
                    for a in g
                },
            }
        )
    return samples


@pytest.mark.parametrize("axis", ["ax", "ay", "az"])
def test_accelerometer_axis_offset_and_scale_are_recovered(axis):
    up = accel_at_rest(axis, 1.0, seed=1)
    down = accel_at_rest(axis, -1.0, seed=2)
    found_axis, offset, scale, still = tc.accel_calibration(up, down)
    assert found_axis == axis
    assert offset == pytest.approx(0.05, abs=0.005)
    assert scale == pytest.approx(1 / 0.9, rel=0.01)
    assert 0.05 <= still < 0.2


def test_recordings_that_were_not_turned_over_are_refused():
    with pytest.raises(tc.CalibrationError, match="barely differ"):
        tc.accel_calibration(accel_at_rest("az", 1.0, seed=1), accel_at_rest("az", 1.0, seed=2))


def test_too_short_a_rest_recording_is_refused():
    with pytest.raises(tc.CalibrationError, match="at least 10 samples"):
        tc.accel_calibration(accel_at_rest("az", 1.0, n=5), accel_at_rest("az", -1.0))


def accel_settings():
    return tc.Settings(30, 150, "az", 0.05, 1 / 0.9, 0.7, 0.05)


def test_accelerometer_flip_counts_after_the_node_is_still():
    up = accel_at_rest("az", 1.0, n=100, seed=3)
    turning = [{"t_ms": 1000 + i * STEP, "ax": 0.6, "ay": 0.0, "az": 0.3} for i in range(30)]
    down = accel_at_rest("az", -1.0, n=100, seed=4, start=1300)
    assert tc.detect_flips(up + turning + down, accel_settings()) == [1450]


def test_slides_knocks_and_lying_on_the_side_are_not_flips():
    up = accel_at_rest("az", 1.0, n=100, seed=5)
    slide = [{"t_ms": 1000 + i * STEP, "ax": 0.4, "ay": 0.1, "az": 0.95} for i in range(20)]
    knock = [{"t_ms": 1200 + i * STEP, "ax": 0.0, "ay": 0.0, "az": -1.5 if i % 2 else 2.0} for i in range(6)]
    side = [{"t_ms": 1300 + i * STEP, "ax": 1.0, "ay": 0.0, "az": 0.05} for i in range(50)]
    back_up = accel_at_rest("az", 1.0, n=50, seed=6, start=1800)
    assert tc.detect_flips(up + slide + knock + side + back_up, accel_settings()) == []


# --- recordings and the command line -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not json", "line 1: not a JSON object"),
        ('{"tilt": 1}', "integer t_ms"),
        ('{"t_ms": 10, "tilt": 1}\n{"t_ms": 5, "tilt": 0}', "line 2: t_ms goes backwards"),
        ('{"t_ms": 10, "tilt": 2}', "tilt \\(0 or 1\\)"),
        ('{"t_ms": 10, "ax": 0.1, "ay": 0.0}', "ax, ay and az"),
        ("\n\n", "no samples"),
    ],
)
def test_broken_recordings_are_rejected_with_the_line(text, reason):
    with pytest.raises(tc.CalibrationError, match=reason):
        tc.parse_recording(text, "rec.jsonl")


def test_settings_print_as_a_valid_toml_tilt_table():
    toml = tomllib.loads(accel_settings().to_toml())
    assert toml["tilt"] == {
        "tilt_debounce_ms": 30,
        "tilt_rest_ms": 150,
        "accel_axis": "az",
        "accel_offset_g": 0.05,
        "accel_scale": pytest.approx(1.111, abs=0.001),
        "accel_flip_g": 0.7,
        "accel_still_g": 0.05,
    }
    assert tomllib.loads(tc.Settings(20, 150).to_toml())["tilt"] == {
        "tilt_debounce_ms": 20,
        "tilt_rest_ms": 150,
    }


def _write(path: Path, samples) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
    return path


def test_command_line_prints_settings_and_flags_false_flips(tmp_path):
    flips, _ = flips_with_chatter([20, 30, 0, 20])
    flips_file = _write(tmp_path / "flips.jsonl", flips)
    up = _write(tmp_path / "up.jsonl", accel_at_rest("az", 1.0, seed=7))
    down = _write(tmp_path / "down.jsonl", accel_at_rest("az", -1.0, seed=8))
    quiet, _ = switch_recording([(1000, 0, 0), (1050, 1, 20)], end_ms=3000)
    knocks = _write(tmp_path / "knocks.jsonl", quiet)
    base = [sys.executable, str(SCRIPT), "--flips", str(flips_file), "--expect-flips", "4"]
    ok = subprocess.run(
        base + ["--upright", str(up), "--inverted", str(down), "--knocks", str(knocks)],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    assert tomllib.loads(ok.stdout)["tilt"]["tilt_debounce_ms"] == 45
    assert "0 false flips" in ok.stderr
    real_flip, _ = switch_recording([(1000, 0, 0)], end_ms=3000)
    bad = subprocess.run(
        base + ["--knocks", str(_write(tmp_path / "bad.jsonl", real_flip))], capture_output=True, text=True
    )
    assert bad.returncode == 1 and "1 false flips" in bad.stderr
    broken = subprocess.run(
        [sys.executable, str(SCRIPT), "--flips", str(_write(tmp_path / "e.jsonl", []))],
        capture_output=True,
        text=True,
    )
    assert broken.returncode == 2 and broken.stderr.startswith("error: e.jsonl: no samples")
