"""The node's debouncer against the calibration tool's reference rule, on random switch recordings."""

from __future__ import annotations

import importlib.util
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core.debounce import TiltDebouncer
from tests.firmware.conftest import REPO


def _tool():
    if "tilt_calibration" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "tilt_calibration", REPO / "hardware" / "tools" / "tilt_calibration.py"
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules["tilt_calibration"] = module  # its dataclasses look themselves up there
        spec.loader.exec_module(module)
    return sys.modules["tilt_calibration"]


# A recording: the switch level held for a number of 10 ms samples, again and again (bounces are short runs).
runs = st.lists(st.tuples(st.integers(1, 40), st.sampled_from([0, 1])), min_size=1, max_size=40)


def _samples(recording):
    t, out = 0, []
    for length, level in recording:
        for _ in range(length):
            out.append({"t_ms": t, "tilt": level})
            t += 10
    return out


def _node_flips(samples, rest_ms):
    deb = TiltDebouncer(rest_ms=rest_ms, debounce_ms=min(30, rest_ms))
    return [s["t_ms"] for s in samples if deb.feed(s["tilt"], s["t_ms"])]


@settings(max_examples=120, deadline=None)
@given(runs, st.sampled_from([50, 100, 150, 190]))
def test_node_rule_equals_the_calibration_rule(recording, rest_ms):
    tool = _tool()
    samples = _samples(recording)
    reference = tool.detect_flips(
        samples, tool.Settings(tilt_debounce_ms=min(30, rest_ms), tilt_rest_ms=rest_ms)
    )
    assert _node_flips(samples, rest_ms) == reference


@settings(max_examples=120, deadline=None)
@given(runs)
def test_flips_alternate_and_need_a_quiet_window(recording):
    samples = _samples(recording)
    deb = TiltDebouncer(rest_ms=150)
    levels = []
    for s in samples:
        if deb.feed(s["tilt"], s["t_ms"]):
            levels.append(s["tilt"])
            # the level that counted has been unchanged for the whole rest window
            window = [x["tilt"] for x in samples if s["t_ms"] - 150 <= x["t_ms"] <= s["t_ms"]]
            assert set(window) == {s["tilt"]}
    # each flip is to the other orientation than the last one
    start = samples[0]["tilt"]
    assert all(level != prev for prev, level in zip([start, *levels], levels, strict=False))
