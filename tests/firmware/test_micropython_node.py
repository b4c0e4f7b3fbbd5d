"""The MicroPython node program with fake hardware modules, under CPython here and under real MicroPython."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest

from tests.firmware.conftest import REPO
from tests.firmware.mpy import run_checks

for extra in (REPO / "tests" / "firmware" / "fakes", REPO / "firmware" / "micropython"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from tests.firmware import mpy_firmware_checks  # noqa: E402

MODULE_DIRS = ["companion/core", "firmware/micropython", "tests/firmware/fakes", "tests/firmware/fakes/umqtt"]


@pytest.mark.parametrize(
    "name, check", mpy_firmware_checks.checks(), ids=[n for n, _ in mpy_firmware_checks.checks()]
)
def test_check_under_cpython(name, check):
    check()


def test_checks_under_micropython():
    passed = run_checks(Path(mpy_firmware_checks.__file__), MODULE_DIRS)
    assert passed == {name for name, _ in mpy_firmware_checks.checks()}


def test_board_pins_are_the_wiring_table():
    """hardware/wiring/pins.csv is the single source of truth for the pin numbers."""
    import board

    with open(REPO / "hardware" / "wiring" / "pins.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for kind, pins in board.PINS.items():
        table = {r["signal"]: r["gpio"] for r in rows if r["node_kind"] == kind}
        assert pins["tilt"] == int(table["tilt"])
        assert pins["neopixel"] == int(table["neopixel_data"])
        assert pins["status"] == (int(table["status_r"]), int(table["status_g"]), int(table["status_b"]))
        assert pins["buzzer"] == int(table["buzzer"])
        assert (pins["sda"], pins["scl"]) == (int(table["i2c_sda"]), int(table["i2c_scl"]))
        assert pins["battery"] == (int(table["battery_adc"]) if "battery_adc" in table else None)


def test_example_config_is_valid():
    import nodeapp

    namespace: dict = {}
    exec((REPO / "firmware" / "micropython" / "config.example.py").read_text(), namespace)
    cfg = nodeapp.check_config(namespace["CONFIG"])
    assert cfg["board"] == "pico-w" and cfg["tilt_rest_ms"] == 150
