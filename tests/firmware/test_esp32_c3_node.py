"""The MicroPython node on the ESP32-C3 SuperMini (node kind esp32-c3): its pins are the wiring
table's, and the node program runs on it under CPython here and under real MicroPython."""

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

from tests.firmware import mpy_c3_checks  # noqa: E402

MODULE_DIRS = ["companion/core", "firmware/micropython", "tests/firmware/fakes", "tests/firmware/fakes/umqtt"]


@pytest.mark.parametrize("name, check", mpy_c3_checks.checks(), ids=[n for n, _ in mpy_c3_checks.checks()])
def test_check_under_cpython(name, check):
    check()


def test_checks_under_micropython():
    passed = run_checks(Path(mpy_c3_checks.__file__), MODULE_DIRS)
    assert passed == {name for name, _ in mpy_c3_checks.checks()}


def test_the_checks_use_the_wiring_tables_pins():
    with open(REPO / "hardware" / "wiring" / "pins.csv", newline="", encoding="utf-8") as f:
        table = {r["signal"]: r["gpio"] for r in csv.DictReader(f) if r["node_kind"] == "esp32-c3"}
    assert mpy_c3_checks.TILT == int(table["tilt"])
    assert mpy_c3_checks.STRIP == int(table["neopixel_data"])
    assert mpy_c3_checks.STATUS == tuple(int(table[f"status_{c}"]) for c in "rgb")
    assert mpy_c3_checks.BUZZER == int(table["buzzer"])
    assert mpy_c3_checks.BATTERY == int(table["battery_adc"])


def test_the_hardware_kind_and_the_board_name_are_the_same():
    """A builder picks `esp32-c3` in hardware/ and writes the same word into config.py."""
    import board
    import nodeapp

    with open(REPO / "hardware" / "wiring" / "pins.csv", newline="", encoding="utf-8") as f:
        kinds = {r["node_kind"] for r in csv.DictReader(f)}
    assert "esp32-c3" in kinds and "esp32-c3" in board.PINS and "esp32-c3" in nodeapp.BOARDS
    assert set(board.PINS) == set(nodeapp.BOARDS) == kinds - {"pi-zero-2w"}
