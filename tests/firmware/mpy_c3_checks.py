"""Checks of the MicroPython node on the ESP32-C3 SuperMini (the ``esp32-c3`` node kind), with fake
machine/network/neopixel/umqtt modules.

Run under real MicroPython by tests/firmware/test_esp32_c3_node.py (via tests/micropython/run.mjs)
and under CPython by the same test file. Plain functions and plain asserts only.
"""

import sys

if sys.implementation.name == "micropython":
    sys.path.insert(0, "/lib/tests/firmware/fakes")
    sys.path.insert(0, "/lib/firmware/micropython")

import board  # noqa: E402
import machine  # noqa: E402
import neopixel  # noqa: E402
import network  # noqa: E402
import nodeapp  # noqa: E402
from umqtt import simple  # noqa: E402

# hardware/wiring/pins.csv, esp32-c3 rows (test_esp32_c3_node.py checks this copy against the file)
TILT, STRIP, STATUS, BUZZER, BATTERY = 4, 10, (5, 6, 7), 1, 3


class Ms:
    def __init__(self, t=1000):
        self.t = t

    def __call__(self):
        return self.t


def _fresh(ms=None):
    machine.reset_fakes()
    simple.reset_fakes()
    simple.broker["clock"] = ms
    network.state["reachable"] = False
    del neopixel.strips[:]


def _cfg(**kw):
    raw = {
        "node_id": "amber-1",
        "table": "club",
        "board": "esp32-c3",
        "wifi_ssid": "net",
        "wifi_password": "pw",
        "broker_host": "10.0.0.1",
        "sand_ms": 8000,
    }
    raw.update(kw)
    return nodeapp.check_config(raw)


def check_c3_is_a_board_the_config_accepts():
    cfg = _cfg()
    assert cfg["board"] == "esp32-c3" and cfg["link"] == "wifi"
    assert "esp32-c3" in nodeapp.BOARDS
    assert _cfg(link="serial", wifi_ssid=None, broker_host=None)["link"] == "serial"  # USB CDC works too


def check_c3_pins_are_the_wiring_table():
    _fresh()
    b = board.Board("esp32-c3")
    assert b.pins["tilt"] == TILT and b.pins["neopixel"] == STRIP and b.pins["status"] == STATUS
    assert b.pins["buzzer"] == BUZZER and b.pins["battery"] == BATTERY
    assert (b.pins["sda"], b.pins["scl"]) == (8, 9)
    assert neopixel.strips[-1].pin.id == STRIP and neopixel.strips[-1].n == 8
    assert [machine.pwm(p) is not None for p in STATUS + (BUZZER,)] == [True] * 4


def check_c3_reads_its_cell_through_the_divider_on_adc1():
    _fresh()
    b = board.Board("esp32-c3")
    assert b._adc.channel == BATTERY and b._adc.attenuation == machine.ADC.ATTN_11DB
    machine.set_adc(BATTERY, 1850000)  # 1.85 V at the divider's middle
    assert b.battery_mv() == 3700
    machine.set_adc(BATTERY, 200000)  # nothing on the divider
    assert b.battery_mv() is None


def check_c3_tilt_lights_and_buzzer():
    _fresh()
    b = board.Board("esp32-c3")
    machine.drive(TILT, 0)
    assert b.tilt() == 1  # the ball closes the switch: input pulled low
    machine.drive(TILT, 1)
    assert b.tilt() == 0
    b.show([1.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0], (0.0, 1.0, 0.0))
    strip = neopixel.strips[-1]
    assert strip.shown[0] != (0, 0, 0) and strip.shown[3] == (0, 0, 0)
    assert machine.pwm(STATUS[1]).duty_u16() == 65535 and machine.pwm(STATUS[0]).duty_u16() == 0
    b.tone(2000)
    assert machine.pwm(BUZZER).freq() == 2000 and machine.pwm(BUZZER).duty_u16() == 32768
    b.off()
    assert machine.pwm(BUZZER).duty_u16() == 0 and strip.shown == [(0, 0, 0)] * 8


def check_c3_node_buffers_a_flip_offline_and_shows_the_sand():
    ms = Ms()
    _fresh(ms)
    cfg = _cfg()
    b = board.Board(cfg["board"], cfg["pins"], cfg["n_leds"], cfg["brightness"])
    sta = board.wlan()
    lines = []

    def link_factory(core):
        return nodeapp.MqttLink(core, cfg, sta, board.mqtt_client, lambda: 1.0, lines.append)

    app = nodeapp.App(cfg, b, link_factory, ms, "0c3c3c3c", lines.append)
    machine.drive(TILT, 1)
    while ms.t < 2000:
        ms.t += 10
        app.step()
    assert app.pattern == "offline"
    machine.drive(TILT, 0)  # turned over
    while ms.t < 2400:
        ms.t += 10
        app.step()
    assert app.core.seq == 1 and len(app.core.outbox) == 1  # the flip waits for the hub
    assert neopixel.strips[-1].shown[7] != (0, 0, 0)  # and the sand runs on the node meanwhile


def checks():
    """(name, function) of every check, in a stable order."""
    return [(name, value) for name, value in sorted(globals().items()) if name.startswith("check_")]


def main():
    failed = 0
    for name, check in checks():
        try:
            check()
            print("PASS " + name)
        except Exception as exc:
            failed += 1
            print("FAIL " + name + ": " + repr(exc))
    print("checks: " + str(len(checks()) - failed) + " passed, " + str(failed) + " failed")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
