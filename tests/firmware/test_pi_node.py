"""The Pi node program, unmodified, on gpiozero mock pins, a fake clock and a real mosquitto."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

import pytest
from companion_node_pi import PiNode, PiNodeConfig, TiltSettings

from companion.core import leds, protocol
from tests.conftest import wait_until
from tests.firmware.conftest import REPO

PI_DIR = REPO / "firmware" / "pi"

TILT, BUZZER = 17, 18
BAR = (5, 6, 13, 19, 26, 16, 20, 21)
RED, GREEN, BLUE = 22, 23, 24


def _config(mosquitto, table_id, **kw) -> PiNodeConfig:
    kw.setdefault("sand_s", 8.0)
    return PiNodeConfig(node_id="pi-1", table=table_id, broker=mosquitto.address, **kw)


def _bar(pins) -> list[float]:
    return [round(pins.pin(p).state, 4) for p in BAR]


def _rgb(pins) -> tuple[float, float, float]:
    return tuple(round(pins.pin(p).state, 4) for p in (RED, GREEN, BLUE))


def _steps(node, ms, until, every=10) -> list[int]:
    """Run the node's loop on the fake clock up to ``until``; return the times a flip went out."""
    flips = []
    while ms.t < until:
        ms.t += every
        before = node.core.seq
        node.step()
        if node.core.seq != before:
            flips.append(ms.t)
    return flips


@pytest.fixture
def started(mosquitto, table_id, mock_pins, ms, recorder_factory):
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/pi-1/#")
    node = PiNode(_config(mosquitto, table_id), clock=ms, boot_id="0a1b2c3d").start()
    assert node.connected.wait(5)
    rec.wait_for(1, kind="hello")
    yield node, rec
    node.close()


def test_bouncing_flip_is_one_event_within_200ms_of_rest(started, mock_pins, ms):
    node, rec = started
    pin = mock_pins.pin(TILT)
    assert node.tilt.value == 0  # pull-up, ball switch open: the starting orientation
    # turned over at 2000: the ball lands, chatters for 15 ms, then rests
    ms.t = 2000
    for t, low in ((2000, True), (2004, False), (2007, True), (2011, False), (2015, True)):
        ms.t = t
        pin.drive_low() if low else pin.drive_high()
    flips = _steps(node, ms, 2500)
    assert flips == [2165]  # 150 ms after the last bounce: well inside 200 ms
    events = rec.wait_for(1, kind="flip")
    # the event is stamped when the node was turned over (2000), and the sand has run since then
    assert [(e["seq"], e["t_ms"], e["upper_ms"], e["lower_ms"]) for e in events] == [(1, 2000, 8000, 0)]
    assert node.core.sand.upper_ms() == 8000 - (ms.t - 2000)
    assert node.debouncer.ignored == 2


def test_knock_and_slide_are_not_flips(started, mock_pins, ms):
    node, rec = started
    pin = mock_pins.pin(TILT)
    ms.t = 2000
    pin.drive_low()  # knock: the ball jumps for 30 ms
    _steps(node, ms, 2030)
    pin.drive_high()
    _steps(node, ms, 3000)
    pin.drive_low()  # slide: 140 ms, still inside the rest window
    _steps(node, ms, 3140)
    pin.drive_high()
    assert _steps(node, ms, 4000) == []
    assert node.core.seq == 0 and node.debouncer.flips == 0
    node.core.on_disconnect()  # stop heartbeats; prove nothing is on its way
    assert rec.payloads(kind="flip") == []


def test_leds_drain_and_show_verdicts_over_time(started, mock_pins, ms):
    node, rec = started
    pin = mock_pins.pin(TILT)
    assert node.step() == "empty" and _bar(mock_pins) == [0.0] * 8
    assert mock_pins.pin(BUZZER).frequency is None  # the first frame makes no sound
    ms.t = 10_000
    pin.drive_low()
    flips = _steps(node, ms, 10_150)
    assert flips == [10_150]
    # the sand has run since the turn at 10 000: 150 ms of the top LED's second are gone
    assert node.pattern == "running" and _bar(mock_pins) == [1.0] * 7 + [0.85]
    assert _rgb(mock_pins) == leds.DIM_GREEN
    # 1.65 s of an 8 s timer since the turn: 6.35 LEDs of sand, the seventh at 35 %
    _steps(node, ms, 11_650)
    assert _bar(mock_pins) == [1.0] * 6 + [0.35, 0.0]
    # the hub accepts the flip: bright green and a short beep, then back to running after 1.5 s
    rec.publish(
        protocol.node_topic(node.config.table, "pi-1", "cmd"),
        protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="accepted"),
    )
    wait_until(lambda: node.core.last_verdict == "accepted", message="the ack")
    _steps(node, ms, 11_660)
    assert node.pattern == "accepted" and _rgb(mock_pins) == leds.GREEN
    assert mock_pins.pin(BUZZER).frequency == 2000.0
    _steps(node, ms, 11_730)
    assert mock_pins.pin(BUZZER).frequency is None and mock_pins.pin(BUZZER).state == 0
    _steps(node, ms, 13_200)
    assert node.pattern == "running" and _rgb(mock_pins) == leds.DIM_GREEN
    assert _bar(mock_pins) == [1.0] * 4 + [0.8, 0.0, 0.0, 0.0]  # 4.8 s of sand left of 8 s
    # the sand runs out at 18 000: an empty event with that time, and the bar is dark
    _steps(node, ms, 18_050)
    assert node.pattern == "empty" and _bar(mock_pins) == [0.0] * 8
    assert mock_pins.pin(BUZZER).frequency == 1200.0  # ran out 50 ms ago: the 120 ms beep is on
    empty = rec.wait_for(1, kind="empty")
    assert [(e["seq"], e["t_ms"]) for e in empty] == [(2, 18_000)]


def test_rejected_and_identify_blink(started, mock_pins, ms):
    node, rec = started
    cmd = protocol.node_topic(node.config.table, "pi-1", "cmd")
    ms.t = 20_000
    rec.publish(cmd, protocol.encode("cmd", "show", pattern="identify"))
    wait_until(lambda: node.core.show() == "identify", message="identify")
    states = []
    for _ in range(4):
        ms.t += 50
        node.step()
        states.append((_rgb(mock_pins), _bar(mock_pins)))
    on, off = (leds.WHITE, [1.0] * 8), (leds.OFF, [0.0] * 8)
    assert states == [on, off, off, on]  # 100 ms on, 100 ms off
    ms.t = 30_000
    rec.publish(cmd, protocol.encode("cmd", "show", pattern="rejected"))
    wait_until(lambda: node.core.show() == "rejected", message="rejected")
    node.step()
    assert _rgb(mock_pins) == leds.RED
    ms.t = 30_130
    node.step()
    assert _rgb(mock_pins) == leds.OFF


def test_unanswered_flip_is_sent_again_while_connected(started, mock_pins, ms):
    """No ack within 5 node seconds: the flip goes out again on the same connection; a ``retry``
    answer keeps it (the next wait doubles), an ``accepted`` one ends the resending."""
    node, rec = started
    ms.t = 40_000
    mock_pins.pin(TILT).drive_low()
    _steps(node, ms, 40_200)
    assert [e["seq"] for e in rec.wait_for(1, kind="flip")] == [1]
    _steps(node, ms, 45_200)
    assert [e["seq"] for e in rec.wait_for(2, kind="flip")] == [1, 1] and node.core.resent == 1
    cmd = protocol.node_topic(node.config.table, "pi-1", "cmd")
    rec.publish(cmd, protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="retry", reason="later"))
    wait_until(lambda: node.core.retry_reason == "later", message="the retry answer")
    _steps(node, ms, 55_000)
    assert len(rec.payloads(kind="flip")) == 2 and [item[1] for item in node.core.outbox] == ["flip", "empty"]
    _steps(node, ms, 55_300)
    assert len(rec.wait_for(3, kind="flip")) == 3
    rec.publish(cmd, protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="accepted"))
    wait_until(lambda: node.core.last_verdict == "accepted", message="the accepted ack")
    _steps(node, ms, 120_000, every=100)
    assert len(rec.payloads(kind="flip")) == 3


def test_events_made_offline_go_out_after_hello(mosquitto, table_id, mock_pins, ms, recorder_factory):
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/pi-1/#")
    node = PiNode(_config(mosquitto, table_id), clock=ms, boot_id="0a1b2c3d")
    try:
        assert node.step() == "offline" and _rgb(mock_pins) in (leds.BLUE, leds.OFF)
        mock_pins.pin(TILT).drive_low()
        _steps(node, ms, 1300)
        assert node.core.seq == 1 and len(node.core.outbox) == 1
        node.start()
        events = rec.wait_for(2)
        assert [e["kind"] for e in events[:2]] == ["hello", "flip"]
        status = [json.loads(p) for t, p, r in rec.messages if t.endswith("/status")]
        assert status[0]["kind"] == "online"
    finally:
        node.close()
    rec.wait_for(2, suffix="/status")
    assert rec.payloads("/status")[-1]["kind"] == "offline"


def test_low_battery_shows_and_is_reported(mosquitto, table_id, mock_pins, ms, recorder_factory):
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/pi-1/event")
    node = PiNode(
        _config(mosquitto, table_id, heartbeat_s=1.0), clock=ms, boot_id="0a1b2c3d", battery=lambda: 3420
    ).start()
    try:
        assert node.connected.wait(5)
        assert _steps(node, ms, 2100) == []
        assert node.pattern == leds.LOW_BATTERY
        beats = rec.wait_for(1, kind="heartbeat")
        assert beats[0]["battery_mv"] == 3420
    finally:
        node.close()


def test_accelerometer_orientation_drives_flips(mosquitto, table_id, mock_pins, ms):
    readings = {"now": (0.0, 0.0, 1.0)}
    tilt = TiltSettings(accel_axis="az", accel_still_g=0.1)
    node = PiNode(
        _config(mosquitto, table_id, tilt=tilt), clock=ms, boot_id="0a1b2c3d", accel=lambda: readings["now"]
    )
    try:
        _steps(node, ms, 1500)
        readings["now"] = (0.0, 0.4, 1.5)  # knocked: not still, no answer
        _steps(node, ms, 1600)
        readings["now"] = (0.0, 0.0, -1.0)  # upside down and still
        mock_pins.pin(TILT).drive_low()  # the ball switch is ignored with an accelerometer
        flips = _steps(node, ms, 2000)
        assert flips == [1760]  # first still reading at 1610, plus the 150 ms rest window
    finally:
        node.close()


def test_main_loop_on_the_default_clock(mosquitto, table_id, mock_pins, recorder_factory):
    """``run()`` as the service runs it, timed by the pin factory's own clock (no clock injected)."""
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/pi-1/#")
    node = PiNode(_config(mosquitto, table_id)).start()
    stop = threading.Event()
    loop = threading.Thread(target=node.run, args=(stop,))
    loop.start()
    try:
        rec.wait_for(1, kind="hello")
        mock_pins.pin(TILT).drive_low()
        flip = rec.wait_for(1, kind="flip")[0]
        assert flip["upper_ms"] == 8000
        wait_until(lambda: _bar(mock_pins)[6] == 1.0 and _bar(mock_pins)[7] > 0.5, message="the bar to fill")
    finally:
        stop.set()
        loop.join(5)
        node.close()
    assert not loop.is_alive()
    assert rec.wait_for(2, suffix="/status")[-1]["kind"] == "offline"


def test_service_command_starts_and_stops_cleanly(mosquitto, table_id, tmp_path, recorder_factory):
    """The unit's ExecStart, on mock pins chosen by gpiozero's environment variables; SIGTERM leaves cleanly."""
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/pi-9/#")
    config = tmp_path / "node.toml"
    config.write_text(
        f'[node]\nid = "pi-9"\ntable = "{table_id}"\n[broker]\nurl = "{mosquitto.address}"\n'
        "[battery]\ngauge = false\n"
    )
    env = dict(
        os.environ,
        GPIOZERO_PIN_FACTORY="mock",
        GPIOZERO_MOCK_PIN_CLASS="mockpwmpin",
        PYTHONPATH=os.pathsep.join([str(PI_DIR), str(REPO)]),
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion_node_pi", "--config", str(config)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        hello = rec.wait_for(1, kind="hello", timeout_s=15)[0]
        assert hello["node_kind"] == "pi" and hello["sand_ms"] == 60000
        assert rec.payloads("/status")[0]["kind"] == "online"
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert rec.wait_for(2, suffix="/status")[-1]["kind"] == "offline"
