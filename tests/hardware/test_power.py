"""The power budget arithmetic, its input tables, and the generated README section."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "hardware" / "tools" / "power_budget.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("power_budget", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["power_budget"] = module
    spec.loader.exec_module(module)
    return module


pb = _load_script()
LOAD_HEADER = "kind,load,rail_v,current_ma,duty,efficiency,source,note\n"
SUPPLY_HEADER = "kind,supply,capacity_mah,nominal_v,usable_fraction,source,note\n"


def test_budget_arithmetic_on_a_small_table():
    loads = pb.parse_loads(
        LOAD_HEADER
        + "k,board,3.3,37,1.0,1.0,datasheet,\n"  # 122.1 mW
        + "k,buzzer,3.3,30,0.01,0.5,datasheet,\n"  # 1.98 mW
        + "other,ignored,5,1000,1,1,estimate,\n"
    )
    supply = pb.parse_supplies(SUPPLY_HEADER + "k,battery,1000,3.7,0.8,datasheet,\n")["k"]
    result = pb.budget("k", supply, loads)
    assert result.total_mw == pytest.approx(122.1 + 1.98)
    assert result.average_ma == pytest.approx((122.1 + 1.98) / 3.7)
    assert result.peak_ma == pytest.approx((122.1 + 3.3 * 30 / 0.5) / 3.7)
    assert result.life_h == pytest.approx(800 / result.average_ma)
    assert result.game_mah == pytest.approx(result.average_ma * 0.5)
    assert result.game_percent == pytest.approx(100 * result.game_mah / 800)


def test_usb_node_has_no_battery_life_and_reports_hub_current():
    loads = pb.parse_loads(LOAD_HEADER + "u,board,5,25,1,1,typical,\n")
    supply = pb.parse_supplies(SUPPLY_HEADER + "u,usb,0,5.0,1.0,datasheet,\n")["u"]
    result = pb.budget("u", supply, loads)
    assert result.life_h is None and result.game_percent is None and result.lasts_an_evening
    assert result.average_ma == pytest.approx(25)
    text = pb.render([result])
    assert "8 nodes 200 mA average" in text and "10 nodes 250 mA average" in text


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("k,x,3.3,abc,1,1,datasheet,", "current_ma 'abc' is not a number"),
        ("k,x,3.3,10,1.5,1,datasheet,", "duty 1.5 must be at least 0 and at most 1"),
        ("k,x,3.3,10,1,0,datasheet,", "efficiency 0 must be above 0"),
        ("k,x,0,10,1,1,datasheet,", "rail_v 0 must be above 0"),
        ("k,x,3.3,-1,1,1,datasheet,", "current_ma -1 must be at least 0"),
        ("k,x,3.3,10,1,1,guess,", "source must be one of"),
        ("k,x,3.3,10,1,1,datasheet", "expected 8 columns"),
    ],
)
def test_broken_load_rows_are_rejected(line, reason):
    with pytest.raises(pb.PowerTableError, match=reason) as info:
        pb.parse_loads(LOAD_HEADER + line + "\n")
    assert "loads.csv line 2" in str(info.value)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("k,solar,1000,3.7,0.8,datasheet,", "battery or usb"),
        ("k,battery,0,3.7,0.8,datasheet,", "capacity above 0"),
        ("k,battery,1000,3.7,0,datasheet,", "usable_fraction 0 must be above 0"),
    ],
)
def test_broken_supply_rows_are_rejected(line, reason):
    with pytest.raises(pb.PowerTableError, match=reason):
        pb.parse_supplies(SUPPLY_HEADER + line + "\n")


def test_every_kind_has_a_supply_and_loads_and_nothing_claims_to_be_measured():
    budgets = {b.kind: b for b in pb.load_budgets()}
    assert set(budgets) == {"pi-zero-2w", "esp32", "pico-w", "pico-usb", "esp32-c3"}
    for b in budgets.values():
        assert all(load.source != "measured" for load in b.loads), "no node has been measured yet"
        assert any("buzzer" in load.load.lower() for load in b.loads)
        assert any("led" in load.load.lower() or "neopixel" in load.load.lower() for load in b.loads)


def test_battery_nodes_last_a_game_and_an_evening_on_the_current_tables():
    for b in pb.load_budgets():
        if b.supply.supply == "battery":
            assert b.game_percent < 25, f"{b.kind} uses a quarter of its battery in one game"
            assert b.lasts_an_evening, f"{b.kind} lasts only {b.life_h:.1f} h"


def test_peak_current_stays_within_the_regulators_rating():
    budgets = {b.kind: b for b in pb.load_budgets()}
    assert budgets["pi-zero-2w"].peak_ma * 3.7 / 5.0 < 1000  # PowerBoost 1000C: 1 A at 5 V
    assert budgets["esp32"].peak_ma < 600  # AP2112K: 600 mA
    assert budgets["esp32-c3"].peak_ma < 500  # the SuperMini's 3.3 V regulator (ME6211 class): 500 mA


def test_the_cheapest_node_plays_a_30_minute_game_on_under_a_tenth_of_its_battery():
    c3 = next(b for b in pb.load_budgets() if b.kind == "esp32-c3")
    assert c3.supply.capacity_mah == 400
    assert c3.game_mah == c3.average_ma * 0.5
    assert c3.game_percent < 10, f"one game takes {c3.game_percent:.1f} % of the usable charge"
    assert c3.game_mah / c3.supply.capacity_mah < 0.10  # and of the whole cell
    assert c3.lasts_an_evening
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"a 30-minute game uses {c3.game_percent:.0f} % of its usable charge" in readme


def test_readme_section_matches_the_script():
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    assert pb.render(pb.load_budgets()) in readme
    assert pb.splice(readme, pb.render(pb.load_budgets())) == readme


def test_check_mode_flags_a_stale_readme(tmp_path):
    stale = tmp_path / "README.md"
    text = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    stale.write_text(text.replace("**7.4 h**", "**9.9 h**"), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--check", "--readme", str(stale)], capture_output=True, text=True
    )
    assert run.returncode == 1 and "stale" in run.stderr
    fresh = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stderr
