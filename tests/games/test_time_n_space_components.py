"""Component data of Time 'n' Space: shipped numbers, assumption notes, user overrides, clear errors."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.errors import InvalidRecordError
from companion.games.data import read_shipped
from companion.games.time_n_space import GAME
from companion.games.time_n_space.components import ComponentDataError, load_components
from companion.games.time_n_space.setup import setup_full, setup_intro

RAW = read_shipped("companion.games.time_n_space", "data/components.json")


def test_shipped_numbers_match_the_components_list() -> None:
    """Components: 48 cubes in 4 colours, 96 order counters (24 per player), 4 bonus counters, 24 tiles."""
    comps = GAME.data
    assert comps.goods_per_color * 4 == 48
    assert len(comps.tiles) == 24
    assert len(comps.bonus_values) == 4
    assert sum(len(values) for _, values in comps.counters_full) == 24
    assert all(len(values) == 6 and set(values) <= {1, 2, 3} for _, values in comps.counters_full)
    assert sum(len(values) for _, values in comps.counters_intro) == 12
    assert {v for _, values in comps.counters_intro for v in values} == {1}
    assert len(comps.buildings) == 8
    assert comps.timers_per_player == 2
    assert comps.clock_s("intro") == 12 * 60 and comps.clock_s("full") == 30 * 60
    assert [len(comps.board(n).moons) for n in (3, 4)] == [3, 4]


@pytest.mark.parametrize(
    "block", ["boards", "control_center", "tiles", "order_counters", "bonus_counters", "intro_setup"]
)
def test_every_unprinted_number_is_marked_as_an_assumption(block: str) -> None:
    note = RAW[block]["assumption"]
    assert "ssum" in note and len(note) > 40


def test_a_table_can_override_the_data_file(tmp_path: Path) -> None:
    data = copy.deepcopy(RAW)
    data["bonus_counters"]["values"] = [3, 3, 1, 1]
    data["order_counters"]["full"]["gray"] = [1, 1, 1, 1, 2, 3]
    path = tmp_path / "my-box.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    comps = load_components(path)
    state = setup_full(["a", "b", "c"], seed=3, components=comps)
    assert state.planet_bonus == (3, 3, 1)
    assert sum(o.color == "gray" and o.value == 1 for o in state.players[0].above) == 4
    assert setup_intro(["a", "b", "c"], components=comps).players[0].above


def broken(edit: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    data = copy.deepcopy(RAW)
    edit(data)
    return data


BROKEN: list[tuple[str, Any, str]] = [
    ("not-an-object", [], "must be a JSON object"),
    ("missing-block", broken(lambda d: d.pop("tiles")), "missing the field 'tiles'"),
    ("bad-goods", broken(lambda d: d["goods_per_color"].update(value="12")), "goods_per_color.value"),
    ("wrong-colours", broken(lambda d: d["colors"].update(values=["red"])), "colors.values"),
    (
        "unknown-spot-colour",
        broken(lambda d: d["control_center"]["buildings"][0].update(spots=["pink"])),
        "unknown colour 'pink'",
    ),
    (
        "unknown-type",
        broken(lambda d: d["control_center"]["buildings"][0].update(type="factory")),
        "use one of production",
    ),
    (
        "duplicate-building",
        broken(lambda d: d["control_center"]["buildings"][1].update(id="b1")),
        "reserved or used twice",
    ),
    ("tile-count", broken(lambda d: d["tiles"]["tiles"].pop()), "multiple of 12"),
    ("duplicate-tile", broken(lambda d: d["tiles"]["tiles"][1].update(id="t01")), "used twice"),
    ("bad-capacity", broken(lambda d: d["tiles"]["tiles"][-1]["stage2"].update(capacity=0)), "at least 1"),
    (
        "wormhole-to-nowhere",
        broken(lambda d: d["boards"]["3"]["wormholes"].append(["planet-1", "moon-9"])),
        "must join two of",
    ),
    (
        "unreachable",
        broken(lambda d: d["boards"]["3"].update(wormholes=[["planet-1", "moon-1"]])),
        "unreachable",
    ),
    (
        "moon-count",
        broken(lambda d: d["boards"]["4"].update(moons=["moon-1"])),
        "must name 4 different moons",
    ),
    ("counter-value", broken(lambda d: d["order_counters"]["full"].update(gray=[4])), "values 1, 2 or 3"),
    ("bonus-count", broken(lambda d: d["bonus_counters"].update(values=[2, 2])), "4 positive whole numbers"),
    (
        "intro-spot",
        broken(lambda d: d["intro_setup"]["seats"][0]["orders"][0].update(spot=5)),
        "does not exist or is taken",
    ),
    (
        "intro-cube-colour",
        broken(lambda d: d["intro_setup"]["seats"][0]["goods"][0].update(color="brown")),
        "on a gray production spot",
    ),
    (
        "intro-tile",
        broken(lambda d: d["intro_setup"]["seats"][0]["tiles"].update(b6="t99")),
        "does not exist",
    ),
    ("intro-seats", broken(lambda d: d["intro_setup"]["seats"].pop()), "must describe 4 seats"),
]


@pytest.mark.parametrize(("data", "message"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_broken_files_raise_one_clear_sentence(tmp_path: Path, data: Any, message: str) -> None:
    path = tmp_path / "box.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ComponentDataError) as info:
        load_components(path)
    text = str(info.value)
    assert message in text
    assert str(path) in text
    assert "\n" not in text
    assert isinstance(info.value, InvalidRecordError)


def test_unreadable_and_invalid_json_files(tmp_path: Path) -> None:
    with pytest.raises(ComponentDataError, match="cannot read components file"):
        load_components(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json", encoding="utf-8")
    with pytest.raises(ComponentDataError, match="not valid JSON"):
        load_components(bad)
