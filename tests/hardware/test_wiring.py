"""pins.csv uses pins each board can really drive, and the diagrams and tables are generated from it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

ROOT = Path(__file__).resolve().parents[2]
WIRING = ROOT / "hardware" / "wiring"
SCRIPT = ROOT / "hardware" / "tools" / "schematic.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("schematic", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["schematic"] = module
    spec.loader.exec_module(module)
    return module


schematic = _load_script()
ROWS = schematic.load_pins(WIRING / "pins.csv")
KINDS = tuple(schematic.BOARDS)
OUTPUT_MODES = {"output", "pwm", "neopixel"}


def by_signal(kind: str) -> dict:
    return {r.signal: r for r in ROWS if r.node_kind == kind}


# --- board facts, written down independently of pins.csv ----------------------------------------

# ESP32-DevKitC V4 headers (Espressif user guide): J2 on the 3V3 side, J3 on the GND side.
DEVKITC = {
    "J2": [
        "3V3",
        "EN",
        "36",
        "39",
        "34",
        "35",
        "32",
        "33",
        "25",
        "26",
        "27",
        "14",
        "12",
        "GND",
        "13",
        "9",
        "10",
        "11",
        "5V",
    ],
    "J3": [
        "GND",
        "23",
        "22",
        "1",
        "3",
        "21",
        "GND",
        "19",
        "18",
        "5",
        "17",
        "16",
        "4",
        "0",
        "2",
        "15",
        "8",
        "7",
        "6",
    ],
}
ESP32_STRAPPING = {0, 2, 5, 12, 15}
ESP32_FLASH = {6, 7, 8, 9, 10, 11}
ESP32_INPUT_ONLY = {34, 35, 36, 37, 38, 39}
ESP32_ADC1 = set(range(32, 40))
ESP32_RTC = {0, 2, 4, 12, 13, 14, 15, 25, 26, 27, 32, 33, 34, 35, 36, 37, 38, 39}

# Raspberry Pi Pico / Pico W: header pin of each GPn; the GND pins are 3, 8, 13, 18, 23, 28, 33, 38.
PICO_HEADER = {
    0: 1,
    1: 2,
    2: 4,
    3: 5,
    4: 6,
    5: 7,
    6: 9,
    7: 10,
    8: 11,
    9: 12,
    10: 14,
    11: 15,
    12: 16,
    13: 17,
    14: 19,
    15: 20,
    16: 21,
    17: 22,
    18: 24,
    19: 25,
    20: 26,
    21: 27,
    22: 29,
    26: 31,
    27: 32,
    28: 34,
}
PICO_POWER = {"VBUS": 40, "VSYS": 39, "3V3": 36}
PICO_GND = {3, 8, 13, 18, 23, 28, 33, 38}
PICO_I2C0 = ({0, 4, 8, 12, 16, 20}, {1, 5, 9, 13, 17, 21})  # (SDA, SCL) choices


# ESP32-C3 SuperMini, component side up, USB socket at the top: left row L1-L8 and right row R1-R8,
# counted from the USB end (the board's silk screen and its usual pin maps).
SUPERMINI = {
    "L1": "5",
    "L2": "6",
    "L3": "7",
    "L4": "8",
    "L5": "9",
    "L6": "10",
    "L7": "20",
    "L8": "21",
    "R1": "5V",
    "R2": "GND",
    "R3": "3V3",
    "R4": "4",
    "R5": "3",
    "R6": "2",
    "R7": "1",
    "R8": "0",
}
C3_STRAPPING = {2, 8, 9}
C3_FLASH = set(range(11, 18))
C3_USB_AND_CONSOLE = {18, 19, 20, 21}
C3_ADC1 = {0, 1, 2, 3, 4}
C3_DEEP_SLEEP_WAKE = {0, 1, 2, 3, 4, 5}


def pwm_slice(gp: int) -> tuple[int, str]:
    """RP2040 PWM slice and channel of a GPIO (datasheet section 4.5)."""
    return (gp % 16) // 2, "AB"[gp % 2]


# --- every kind ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_wires_the_signals_the_node_needs(kind):
    signals = set(by_signal(kind))
    needed = {"tilt", "status_r", "status_g", "status_b", "buzzer", "i2c_sda", "i2c_scl", "gnd"}
    assert needed <= signals
    if kind == "pi-zero-2w":
        assert {f"led_bar_{i}" for i in range(8)} <= signals and "neopixel_data" not in signals
    else:
        assert "neopixel_data" in signals
    assert ("battery_adc" in signals) == (kind in ("esp32", "pico-w", "esp32-c3"))
    assert by_signal(kind)["tilt"].mode == "input_pullup"
    assert by_signal(kind)["buzzer"].mode == "pwm"


@pytest.mark.parametrize("kind", KINDS)
def test_board_pins_are_not_used_twice(kind):
    gpio_rows = [r for r in ROWS if r.node_kind == kind and r.gpio is not None and r.board_pin != "internal"]
    assert len({r.board_pin for r in gpio_rows}) == len(gpio_rows)


# --- Raspberry Pi Zero 2 W, checked against gpiozero's own board data ----------------------------

PI_HEADER = MockFactory(revision="902120").board_info.headers["J8"].pins


def test_gpiozero_knows_the_board_as_a_zero_2_w():
    assert MockFactory(revision="902120").board_info.model == "Zero2W"


@pytest.mark.parametrize("row", [r for r in ROWS if r.node_kind == "pi-zero-2w"], ids=lambda r: r.signal)
def test_pi_board_pin_matches_the_bcm_number(row):
    name = PI_HEADER[int(row.board_pin)].name
    expected = {"power_in": "5V", "power_3v3": "3V3", "gnd": "GND"}.get(row.signal, f"GPIO{row.gpio}")
    assert name == expected


@pytest.mark.parametrize(
    "row",
    [r for r in ROWS if r.node_kind == "pi-zero-2w" and r.mode in OUTPUT_MODES | {"input_pullup"}],
    ids=lambda r: r.signal,
)
def test_pi_plain_gpio_avoids_i2c_uart_and_eeprom_pins(row):
    assert row.gpio not in {0, 1, 2, 3, 14, 15}


def test_pi_i2c_and_buzzer_use_the_pins_with_those_functions():
    pins = by_signal("pi-zero-2w")
    assert (pins["i2c_sda"].gpio, pins["i2c_scl"].gpio) == (2, 3)
    assert "pwm" in PI_HEADER[int(pins["buzzer"].board_pin)].interfaces


# --- ESP32-DevKitC -------------------------------------------------------------------------------


def devkitc_name(board_pin: str) -> str:
    header, number = board_pin.split("-")
    return DEVKITC[header][int(number) - 1]


@pytest.mark.parametrize("row", [r for r in ROWS if r.node_kind == "esp32"], ids=lambda r: r.signal)
def test_esp32_board_position_matches_the_gpio(row):
    expected = {"power_in": "3V3", "gnd": "GND"}.get(row.signal, str(row.gpio))
    assert devkitc_name(row.board_pin) == expected


@pytest.mark.parametrize(
    "row", [r for r in ROWS if r.node_kind == "esp32" and r.gpio is not None], ids=lambda r: r.signal
)
def test_esp32_pins_avoid_strapping_flash_and_uart0(row):
    assert row.gpio not in ESP32_STRAPPING | ESP32_FLASH | {1, 3}
    if row.mode in OUTPUT_MODES | {"i2c", "input_pullup"}:
        assert row.gpio not in ESP32_INPUT_ONLY, "input-only pins cannot drive or pull up"


def test_esp32_battery_on_adc1_and_tilt_can_wake_the_chip():
    pins = by_signal("esp32")
    assert pins["battery_adc"].gpio in ESP32_ADC1, "ADC2 is unusable while Wi-Fi runs"
    assert pins["tilt"].gpio in ESP32_RTC


# --- ESP32-C3 SuperMini ---------------------------------------------------------------------------


@pytest.mark.parametrize("row", [r for r in ROWS if r.node_kind == "esp32-c3"], ids=lambda r: r.signal)
def test_c3_board_position_matches_the_gpio(row):
    expected = {"power_in": "5V", "power_3v3": "3V3", "gnd": "GND"}.get(row.signal, str(row.gpio))
    assert SUPERMINI[row.board_pin] == expected


@pytest.mark.parametrize(
    "row", [r for r in ROWS if r.node_kind == "esp32-c3" and r.gpio is not None], ids=lambda r: r.signal
)
def test_c3_pins_leave_usb_console_flash_and_boot_alone(row):
    assert row.gpio not in C3_USB_AND_CONSOLE | C3_FLASH
    if row.gpio in C3_STRAPPING:  # only pulled-up I2C lines may sit on a strapping pin
        assert row.mode == "i2c" and row.gpio in (8, 9)


def test_c3_battery_on_adc1_tilt_can_wake_the_chip_and_i2c_is_the_boards_own():
    pins = by_signal("esp32-c3")
    assert pins["battery_adc"].gpio in C3_ADC1, "ADC2 is unusable while Wi-Fi runs"
    assert pins["tilt"].gpio in C3_DEEP_SLEEP_WAKE
    assert (pins["i2c_sda"].gpio, pins["i2c_scl"].gpio) == (8, 9)


# --- Raspberry Pi Pico and Pico W ------------------------------------------------------------------


@pytest.mark.parametrize(
    "row",
    [r for r in ROWS if r.node_kind in ("pico-w", "pico-usb")],
    ids=lambda r: f"{r.node_kind}-{r.signal}",
)
def test_pico_header_pin_matches_the_gp_number(row):
    if row.mode == "ground":
        assert int(row.board_pin) in PICO_GND
    elif row.mode == "power":
        rail = {"power_in": "VSYS", "power_3v3": "3V3", "power_5v": "VBUS"}[row.signal]
        assert int(row.board_pin) == PICO_POWER[rail]
    elif row.board_pin == "internal":
        assert (row.node_kind, row.gpio, row.mode) == ("pico-w", 29, "adc_internal")
    else:
        assert PICO_HEADER[row.gpio] == int(row.board_pin)


@pytest.mark.parametrize("kind", ["pico-w", "pico-usb"])
def test_pico_pins_leave_the_wifi_and_board_pins_alone(kind):
    for row in by_signal(kind).values():
        if row.gpio is not None and row.signal != "battery_adc":
            assert row.gpio not in {23, 24, 25, 29}


@pytest.mark.parametrize("kind", ["pico-w", "pico-usb"])
def test_pico_i2c_pair_is_a_valid_i2c0_pair(kind):
    pins = by_signal(kind)
    sda_choices, scl_choices = PICO_I2C0
    assert pins["i2c_sda"].gpio in sda_choices and pins["i2c_scl"].gpio in scl_choices


@pytest.mark.parametrize("kind", ["pico-w", "pico-usb"])
def test_pico_buzzer_has_a_pwm_slice_to_itself(kind):
    pins = by_signal(kind)
    buzzer_slice = pwm_slice(pins["buzzer"].gpio)[0]
    others = [r for r in pins.values() if r.mode == "pwm" and r.signal != "buzzer"]
    assert all(pwm_slice(r.gpio)[0] != buzzer_slice for r in others)


# --- parsing rejects broken tables ---------------------------------------------------------------

HEADER = "node_kind,signal,gpio,board_pin,mode,resistor,part,notes\n"


@pytest.mark.parametrize(
    ("lines", "reason"),
    [
        (["mars,tilt,1,2,input_pullup,,x,"], "unknown node kind 'mars'"),
        (["esp32,tilt,27,J2-11,floating,,x,"], "unknown mode 'floating'"),
        (["esp32,Tilt,27,J2-11,input_pullup,,x,"], "lower_snake_case"),
        (["esp32,tilt,,J2-11,input_pullup,,x,"], "needs a GPIO number"),
        (["esp32,gnd,4,J2-14,ground,,x,"], "has no GPIO number"),
        (["esp32,tilt,27,,input_pullup,,x,"], "board_pin is empty"),
        (["esp32,tilt,27,J2-11,input_pullup,,x,", "esp32,tilt,26,J2-10,input_pullup,,x,"], "appears twice"),
        (["esp32,tilt,27,J2-11,input_pullup,,x,", "esp32,buzzer,27,J2-11,pwm,,x,"], "already used by tilt"),
        (["esp32,tilt,27,J2-11,input_pullup,,x"], "expected 8 columns"),
    ],
)
def test_broken_pin_tables_are_rejected_with_a_reason(lines, reason):
    with pytest.raises(schematic.PinTableError, match=reason):
        schematic.parse_pins(HEADER + "\n".join(lines) + "\n")


# --- generated files -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_committed_svg_is_exactly_what_the_generator_makes(kind):
    assert (WIRING / f"{kind}.svg").read_text(encoding="utf-8") == schematic.render_svg(ROWS, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_svg_is_well_formed_and_labels_every_pin(kind):
    tree = ET.parse(WIRING / f"{kind}.svg")
    root = tree.getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    for row in by_signal(kind).values():
        assert row.signal in texts
        gpio, board = schematic.pin_label(row)
        assert any(board in t for t in texts), f"{board} not labelled"
        if row.gpio is not None:
            assert any(t.startswith(gpio) for t in texts)


def test_svg_changes_when_the_csv_changes():
    moved = [r if r.signal != "tilt" else r.__class__(**{**r.__dict__, "resistor": "10k"}) for r in ROWS]
    assert schematic.render_svg(moved, "esp32") != schematic.render_svg(ROWS, "esp32")
    assert ">10k<" in schematic.render_svg(moved, "esp32")


def test_readme_tables_match_pins_csv():
    readme = (WIRING / "README.md").read_text(encoding="utf-8")
    assert schematic.render_tables(ROWS) in readme
    for kind in KINDS:
        assert f"![{kind} wiring]({kind}.svg)" in readme


def test_check_mode_passes_on_the_committed_files_and_fails_after_an_edit(tmp_path):
    for path in WIRING.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    run = [sys.executable, str(SCRIPT), "--check", "--wiring-dir", str(tmp_path)]
    assert subprocess.run(run, capture_output=True, text=True).returncode == 0
    svg = tmp_path / "pico-w.svg"
    svg.write_text(svg.read_text(encoding="utf-8").replace("GP14", "GP13"), encoding="utf-8")
    stale = subprocess.run(run, capture_output=True, text=True)
    assert stale.returncode == 1 and "pico-w.svg is stale" in stale.stderr
