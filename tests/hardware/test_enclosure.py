"""The OpenSCAD enclosure is parametric, hourglass-shaped, and its preview is a real render."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENCLOSURE = ROOT / "hardware" / "enclosure"
SCAD = ENCLOSURE / "sandtimer.scad"
KINDS = ("pi-zero-2w", "esp32", "pico-w", "pico-usb", "esp32-c3")
OPENSCAD = shutil.which("openscad")


@pytest.fixture
def needs_openscad_binary() -> None:
    if OPENSCAD is None:
        pytest.fail("openscad is not installed: apt-get install -y openscad (.ci/run does this)")


needs_openscad = pytest.mark.usefixtures("needs_openscad_binary")


def test_scad_exposes_the_parameters_the_spec_asks_for():
    text = SCAD.read_text(encoding="utf-8")
    for name in ("kind", "part", "wall", "board_size", "battery_size", "led_bar_len", "bulb_ratio", "cap_h"):
        assert re.search(rf"^{name} = ", text, re.MULTILINE), f"no top-level parameter {name}"
    for module in ("body", "lid", "sled", "hourglass_solid"):
        assert f"module {module}(" in text
    for kind in KINDS:
        assert f'"{kind}"' in text
    assert "insert_d" in text and "screw_d" in text  # screw bosses and lid screws


def test_preview_is_an_800_px_png():
    data = (ENCLOSURE / "preview.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (800, 800)
    assert len(data) > 20_000, "an empty render is much smaller"


def test_no_large_stl_is_committed():
    for stl in ENCLOSURE.glob("*.stl"):
        assert stl.stat().st_size < 2_000_000, f"{stl.name} is over 2 MB"


def dimensions(tmp_path: Path, **params) -> dict[str, float]:
    """Height, cap and waist diameter that the .scad file echoes for these parameters."""
    out_file = tmp_path / "dims.echo"  # OpenSCAD 2021 picks the export format from the file name
    args = [OPENSCAD, "-o", str(out_file)]
    for key, value in params.items():
        args += ["-D", f"{key}={value}"]
    run = subprocess.run([*args, str(SCAD)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    echo = out_file.read_text(encoding="utf-8")
    match = re.search(r"height ([\d.]+) mm, cap diameter ([\d.]+) mm, waist diameter ([\d.]+) mm", echo)
    assert match, echo
    height, cap, waist = map(float, match.groups())
    return {"height": height, "cap": cap, "waist": waist}


@needs_openscad
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_renders_as_an_hourglass(kind, tmp_path):
    dims = dimensions(tmp_path, kind=f'"{kind}"')
    assert dims["waist"] < dims["cap"] * 0.7, "no visible waist"
    assert dims["height"] > dims["cap"] * 1.5, "too squat for a sandtimer"


@needs_openscad
def test_wall_thickness_widens_the_waist_by_twice_the_change(tmp_path):
    thin = dimensions(tmp_path, kind='"esp32"', wall=2)
    thick = dimensions(tmp_path, kind='"esp32"', wall=3)
    assert thick["waist"] - thin["waist"] == pytest.approx(2.0, abs=0.01)


@needs_openscad
def test_a_longer_battery_makes_a_taller_timer(tmp_path):
    normal = dimensions(tmp_path, kind='"pico-w"')
    longer = dimensions(tmp_path, kind='"pico-w"', battery_size="[90, 35, 5]")
    assert longer["height"] == pytest.approx(normal["height"] + 90 - 62)


@needs_openscad
def test_the_esp32_c3_variant_is_the_smallest_timer(tmp_path):
    c3 = dimensions(tmp_path, kind='"esp32-c3"')
    smallest_other = dimensions(tmp_path, kind='"pico-usb"')  # the smallest of the other kinds
    assert c3["height"] < smallest_other["height"] and c3["cap"] < smallest_other["cap"]
    assert c3["height"] == pytest.approx(109.5)
