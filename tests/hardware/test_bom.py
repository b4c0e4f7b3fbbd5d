"""The bills of materials parse, every row is priced, and the table totals come from the script."""

from __future__ import annotations

import csv
import importlib.util
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOM_DIR = ROOT / "hardware" / "bom"
SCRIPT = ROOT / "hardware" / "tools" / "bom_totals.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("bom_totals", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bom_totals"] = module
    spec.loader.exec_module(module)
    return module


bom_totals = _load_script()
KINDS = bom_totals.KINDS


@pytest.mark.parametrize("kind", KINDS)
def test_every_row_has_a_part_a_quantity_and_a_price(kind):
    path = BOM_DIR / f"{kind}.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows, f"{path.name} lists no parts"
    for row in rows:
        assert None not in row, f"{path.name}: row {row['ref']} has extra columns"
        assert row["part"].strip() and row["typical_part_number"].strip()
        assert int(row["qty"]) >= 1
        assert Decimal(row["unit_cost_eur"]) >= 0
        if "unit_cost_10_eur" in row:
            assert 0 <= Decimal(row["unit_cost_10_eur"]) <= Decimal(row["unit_cost_eur"])
        assert row["optional"] in ("yes", "no")
    assert len({r["ref"] for r in rows}) == len(rows), "reference designators repeat"


@pytest.mark.parametrize("kind", KINDS)
def test_every_node_has_the_parts_the_spec_requires(kind):
    parts = " ".join(r.part + " " + r.typical_part_number for r in bom_totals.load_boms()[kind]).lower()
    for needed in ("tilt", "sw-520d", "resistor", "rgb led", "buzzer", "2n3904", "enclosure", "screw"):
        assert needed in parts, f"{kind} BOM has no {needed}"
    if kind == "pi-zero-2w":
        assert "amber" in parts and "neopixel" not in parts
    else:
        assert "ws2812b" in parts
    if kind == "pico-usb":
        assert "cell" not in parts and "usb" in parts
    else:
        for needed in ("lipo cell", "charger", "slide switch"):
            assert needed in parts, f"{kind} is battery powered but its BOM has no {needed}"


def test_quantities_match_the_wiring_for_the_pi_led_bar():
    rows = {r.ref: r for r in bom_totals.load_boms()["pi-zero-2w"]}
    with (ROOT / "hardware" / "wiring" / "pins.csv").open(newline="", encoding="utf-8") as handle:
        bar = [
            r
            for r in csv.DictReader(handle)
            if r["node_kind"] == "pi-zero-2w" and r["signal"].startswith("led_bar_")
        ]
    assert rows["D1-D8"].qty == rows["R2-R9"].qty == len(bar)


def test_node_cost_is_qty_times_price_and_skips_optional_parts():
    text = (
        "ref,part,typical_part_number,qty,unit_cost_eur,optional,notes\n"
        "R1,Resistor,x,8,0.03,no,\n"
        "U1,Board,y,1,10.00,no,\n"
        "U4,Accelerometer,z,1,3.50,yes,\n"
    )
    rows = bom_totals.parse_bom(text)
    assert bom_totals.node_cost(rows) == Decimal("10.24")
    assert bom_totals.node_cost(rows, include_optional=True) == Decimal("13.74")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("R1,Resistor,x,,0.03,no,", "qty is empty"),
        ("R1,Resistor,x,0,0.03,no,", "must be at least 1"),
        ("R1,Resistor,x,two,0.03,no,", "not a whole number"),
        ("R1,Resistor,x,1,,no,", "unit_cost_eur is empty"),
        ("R1,Resistor,x,1,cheap,no,", "not a number"),
        ("R1,Resistor,x,1,-1,no,", "zero or more"),
        ("R1,Resistor,x,1,0.031,no,", "more than two decimals"),
        ("R1,Resistor,x,1,0.03,maybe,", "optional must be yes or no"),
        ("R1,,x,1,0.03,no,", "part is empty"),
        ("R1,Resistor,x,1,0.03,no", "expected 7 columns"),
    ],
)
def test_broken_rows_are_rejected_with_the_line_and_reason(line, reason):
    text = "ref,part,typical_part_number,qty,unit_cost_eur,optional,notes\n" + line + "\n"
    with pytest.raises(bom_totals.BomError, match=reason) as info:
        bom_totals.parse_bom(text, "broken.csv")
    assert "broken.csv line 2" in str(info.value)


BULK_HEADER = "ref,part,typical_part_number,qty,unit_cost_eur,unit_cost_10_eur,optional,notes\n"


def test_ten_unit_prices_are_used_where_given_and_the_single_price_elsewhere():
    rows = bom_totals.parse_bom(BULK_HEADER + "R1,Resistor,x,8,0.03,0.01,no,\nU1,Board,y,1,3.50,1.90,no,\n")
    assert bom_totals.node_cost(rows) == Decimal("3.74")
    assert bom_totals.node_cost(rows, tens=True) == Decimal("1.98")
    single_only = bom_totals.parse_bom(
        "ref,part,typical_part_number,qty,unit_cost_eur,optional,notes\nU1,B,y,2,1.25,no,\n"
    )
    assert (
        bom_totals.node_cost(single_only, tens=True) == bom_totals.node_cost(single_only) == Decimal("2.50")
    )


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("U1,Board,y,1,3.50,,no,", "unit_cost_10_eur is empty"),
        ("U1,Board,y,1,3.50,4.00,no,", "unit_cost_10_eur 4.00 is more than the single-unit price 3.50"),
        ("U1,Board,y,1,3.50,cheap,no,", "unit_cost_10_eur 'cheap' is not a number"),
        ("U1,Board,y,1,3.50,1.90,no", "expected 8 columns"),
    ],
)
def test_broken_ten_unit_prices_are_rejected(line, reason):
    with pytest.raises(bom_totals.BomError, match=reason):
        bom_totals.parse_bom(BULK_HEADER + line + "\n", "c3.csv")


def test_wrong_header_is_rejected():
    with pytest.raises(bom_totals.BomError, match="header must be"):
        bom_totals.parse_bom("part,qty\nx,1\n", "bad.csv")


def test_committed_summary_matches_the_script():
    expected = bom_totals.render_summary(bom_totals.table_sets(BOM_DIR))
    assert (BOM_DIR / "table-sets.csv").read_text(encoding="utf-8") == expected


def test_summary_covers_8_and_10_nodes_for_every_kind_and_adds_up():
    rows = bom_totals.table_sets(BOM_DIR)
    assert {(r["kind"], int(r["nodes"])) for r in rows} == {(k, n) for k in KINDS for n in (8, 10)}
    for row in rows:
        nodes = int(row["nodes"])
        assert Decimal(row["table_total_eur"]) == nodes * Decimal(row["node_10_eur"]) + Decimal(
            row["table_extras_eur"]
        )
        assert Decimal(row["node_with_options_eur"]) > Decimal(row["node_eur"])
        assert Decimal(row["node_10_eur"]) <= Decimal(row["node_eur"])


def _recomputed(kind: str) -> tuple[Decimal, Decimal, Decimal]:
    """(one node at single prices, one node at 10-unit prices, a table of 10 with its extras),
    added up here from the CSV files with the csv module, not with the script."""
    with (BOM_DIR / f"{kind}.csv").open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["optional"] == "no"]
    single = sum((int(r["qty"]) * Decimal(r["unit_cost_eur"]) for r in rows), Decimal(0))
    tens = sum(
        (int(r["qty"]) * Decimal(r.get("unit_cost_10_eur") or r["unit_cost_eur"]) for r in rows), Decimal(0)
    )
    with (BOM_DIR / "table-extras.csv").open(newline="", encoding="utf-8") as handle:
        extras = sum(
            (
                int(r["qty_10"]) * Decimal(r["unit_cost_eur"])
                for r in csv.DictReader(handle)
                if r["kind"] == kind
            ),
            Decimal(0),
        )
    return single, tens, 10 * tens + extras


@pytest.mark.parametrize("kind", KINDS)
def test_the_scripts_totals_are_the_csv_files_added_up(kind):
    single, tens, table_10 = _recomputed(kind)
    row = next(r for r in bom_totals.table_sets(BOM_DIR) if r["kind"] == kind and r["nodes"] == "10")
    assert (Decimal(row["node_eur"]), Decimal(row["node_10_eur"]), Decimal(row["table_total_eur"])) == (
        single,
        tens,
        table_10,
    )


def test_the_cheapest_node_is_under_ten_euros_and_a_table_of_ten_under_a_hundred():
    single, tens, table_10 = _recomputed("esp32-c3")
    assert tens <= 10, f"esp32-c3 costs {tens} EUR a node at 10-unit prices"
    assert table_10 <= 100, f"a table of 10 esp32-c3 nodes with chargers costs {table_10} EUR"
    assert tens < min(_recomputed(k)[1] for k in KINDS if k != "esp32-c3")


def test_check_mode_detects_a_stale_summary(tmp_path):
    for path in BOM_DIR.glob("*.csv"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    ok = subprocess.run(
        [sys.executable, str(SCRIPT), "--check", "--bom-dir", str(tmp_path)], capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    esp = tmp_path / "esp32.csv"
    esp.write_text(esp.read_text(encoding="utf-8").replace(",10.00,no,", ",11.00,no,", 1), encoding="utf-8")
    stale = subprocess.run(
        [sys.executable, str(SCRIPT), "--check", "--bom-dir", str(tmp_path)], capture_output=True, text=True
    )
    assert stale.returncode == 1
    assert "stale" in stale.stderr


def test_hardware_readme_quotes_the_computed_costs():
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    rows = bom_totals.table_sets(BOM_DIR)
    for kind in KINDS:
        mine = {int(r["nodes"]): r for r in rows if r["kind"] == kind}
        line = (
            f"| {kind} | {mine[8]['node_eur']} | {mine[8]['node_10_eur']} | {mine[8]['table_total_eur']} "
            f"| {mine[10]['table_total_eur']} |"
        )
        assert line in readme, f"hardware/README.md cost row for {kind} is out of date: expected {line}"


def test_the_main_readme_quotes_the_cheapest_node_and_table():
    """The README's Hardware section quotes the esp32-c3 figures; they must be the computed ones."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())  # line breaks are spaces
    ten = next(r for r in bom_totals.table_sets(BOM_DIR) if r["kind"] == "esp32-c3" and r["nodes"] == "10")
    assert f"EUR {ten['node_10_eur']} a node at 10-unit prices" in readme
    assert f"EUR {ten['table_total_eur']} for a table of 10" in readme
