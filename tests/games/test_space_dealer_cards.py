"""Space Dealer card data: the shipped file, its assumption marks, and user overrides."""

from __future__ import annotations

import tomllib
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from companion.errors import InvalidRecordError
from companion.games.space_dealer import GAME
from companion.games.space_dealer.cards import PACKAGE, SHIPPED, CardDataError, load_card_data
from companion.games.space_dealer.engine import apply
from companion.games.space_dealer.hubdeck import deal as setup
from companion.games.space_dealer.model import Act, Goods, InShip, TransferGoods

TEXT = resources.files(PACKAGE).joinpath(SHIPPED).read_text(encoding="utf-8")
"""The shipped ``cards.toml``, as a user would copy it."""
RAW = tomllib.loads(TEXT)


def test_level_totals_match_the_printed_components() -> None:
    data = GAME.data
    per_level = Counter()
    for name, n in data.counts.items():
        per_level[data.types[name].level] += n
    assert dict(per_level) == {1: 24, 2: 28, 3: 20}  # Components: 24 / 28 / 20 cards
    assert len(data.neutral_orders) == 12  # Components: 12 order cards


def test_printed_removals_and_experienced_cards() -> None:
    data = GAME.data
    assert sum(data.three_player_removals.values()) == 14
    assert sum(data.five_player_removals.values()) == 11
    experienced = {n: c for n, c in data.counts.items() if data.types[n].experienced}
    assert experienced == {
        "Sabotage Probe": 2,
        "Interstellar Rocket": 2,
        "Transport Probe": 1,
        "Orbital Station": 1,
        "TechCenter": 2,
        "Robot Factory": 2,
    }
    assert data.three_player_experienced == {
        "Sabotage Probe": 1,
        "Interstellar Rocket": 1,
        "Robot Factory": 1,
        "TechCenter": 1,
    }
    assert data.placeable_markers == 10 and data.cargo_limit == 8


@pytest.mark.parametrize("name", sorted(RAW["types"]))
def test_every_card_type_says_where_its_numbers_come_from(name: str) -> None:
    table = RAW["types"][name]
    assert "source" in table or "assumption" in table
    if "assumption" in table:
        assert table["assumption"].startswith("ASSUMPTION")


@pytest.mark.parametrize("table", ["power", "counts", "neutral", "coloured"])
def test_unprinted_tables_are_marked_as_assumptions(table: str) -> None:
    assert RAW[table]["assumption"].startswith("ASSUMPTION")
    assert "check" in RAW[table]["assumption"] or table in ("counts", "neutral", "coloured")


def test_every_upright_card_has_an_order_and_across_cards_none() -> None:
    data = GAME.data
    for t in data.types.values():
        if t.layout == "upright":
            assert t.has_order, t.name
        else:
            assert not t.has_order, t.name


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cards.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_user_override_changes_the_engine(tmp_path: Path) -> None:
    text = TEXT.replace("cargo_limit = 8", "cargo_limit = 3")
    data = load_card_data(_write(tmp_path, text))
    assert data.cargo_limit == 3
    state = setup(["a", "b", "c"], seed=1, data=data)
    ship_b = state.ship("b")
    assert ship_b is not None
    from dataclasses import replace

    state = state.with_ship(replace(ship_b, field=0, cargo=Goods.of(red=4)))
    state = replace(state, pool=state.pool - Goods.of(red=4))
    result = apply(state, Act("b", TransferGoods(InShip("b"), InShip("a"), Goods.of(red=4))))
    assert not result.ok and "at most 3 goods" in str(result.reason)  # type: ignore[union-attr]


BROKEN = [
    pytest.param("format = 2", "format must be 1", id="format"),
    pytest.param("this is = not toml [", "not valid TOML", id="not-toml"),
    pytest.param(
        ("cargo_limit = 8", 'cargo_limit = "eight"'), "box.cargo_limit has the wrong type", id="box-type"
    ),
    pytest.param(("cargo_limit = 8", "cargo_limit = -1"), "must not be negative", id="negative"),
    pytest.param(('kind = "converter"', 'kind = "teleporter"'), "is not one of", id="kind"),
    pytest.param(
        ("{ yellow = 1, blue = 1 }, points = [2, 1]", "{ purple = 1 }, points = [2, 1]"),
        "unknown goods colour",
        id="colour",
    ),
    pytest.param(
        ("{ yellow = 1, blue = 1 }, points = [2, 1]", "{ yellow = 1 }, points = [2]"),
        "points must be 2",
        id="arity",
    ),
    pytest.param(
        ("Metropolis = 3\n", "Metropolis = 3\nWarpgate = 1\n"),
        "unknown card type 'Warpgate'",
        id="count-type",
    ),
    pytest.param(("[types.Depot]", "[types.Store]"), "types.Depot is missing", id="no-depot"),
    pytest.param(("x_range = [-8, 9]", "x_range = [0, 1]"), "x_range", id="x-range"),
    pytest.param(
        ('"5" = { basic = ["3", "3-5"]', '"5" = { basic = ["7"]'), "may only name the sets", id="sets"
    ),
    pytest.param(("produces = 2", 'produces = "two"'), "produces must be a whole number", id="produces-type"),
    pytest.param(
        ("planning_bonus = 2", "planning_bonus = -2"),
        "planning_bonus must be a whole number",
        id="bonus-negative",
    ),
    pytest.param(("capacity = 2", "capacity = true"), "capacity must be a whole number", id="capacity-bool"),
    pytest.param(
        ("Generator = { own = 2,", 'Generator = { own = "2",'), "power.Generator.own", id="power-type"
    ),
    pytest.param(
        ('"Solar Satellite" = { own', "Solar = { own"), "without an entry in \\[power\\]", id="plant-no-power"
    ),
    pytest.param(('colour = "any"', 'colour = "rainbow"'), "colour must be", id="mine-colour"),
    pytest.param(('on = "Generator"', 'on = "Planet"'), "unknown card 'Planet'", id="on-unknown"),
    pytest.param(
        ('level = 2\nkind = "city"', 'level = 4\nkind = "city"'), "level must be 1, 2 or 3", id="level"
    ),
    pytest.param(
        (
            'connections = 0\ntimer = false\nassumption = "ASSUMPTION: level 2, no power connection, an order card with a large order"\norders',
            'connections = 3\ntimer = false\nassumption = "x"\norders',
        ),
        "connections must be 0, 1 or 2",
        id="connections",
    ),
    pytest.param(
        ('types = ["Mining Complex", "Fusion Mine"]', 'types = ["Warp Mine"]'),
        "unknown card type 'Warp Mine'",
        id="coloured",
    ),
    pytest.param(
        ('Megacity = 1, "Fusion Converter" = 1 }', 'Megacity = 9, "Fusion Converter" = 1 }'),
        "takes 9 Megacity",
        id="removal-too-many",
    ),
    pytest.param(
        ("orders = [{ goods = { yellow = 1, green = 1 }, points = [2, 1] }]", "orders = 3"),
        "orders must be a list",
        id="orders-type",
    ),
    pytest.param(
        ("orders = [{ goods = { yellow = 1, green = 1 }, points = [2, 1] }]", "orders = []"),
        "needs at least one order",
        id="no-orders",
    ),
    pytest.param(
        (
            "{ goods = { red = 1, yellow = 1 }, points = 2 },",
            "{ goods = { red = 0, yellow = 1 }, points = 2 },",
        ),
        "positive whole number",
        id="zero-goods",
    ),
    pytest.param(
        ('goods_colours = ["red", "yellow", "blue", "green"]', "goods_colours = []"),
        "list colour names",
        id="no-colours",
    ),
    pytest.param(
        ("[box]\n", "[boxes]\n"), r"line \d+: boxes is not a field of the card data \(a typo\?\)", id="no-box"
    ),
]


@pytest.mark.parametrize(("change", "message"), BROKEN)
def test_broken_card_data_is_one_clear_error(tmp_path: Path, change, message: str) -> None:
    text = TEXT
    if isinstance(change, tuple):
        assert change[0] in text
        text = text.replace(change[0], change[1], 1)
    else:
        text = text.replace("format = 1", change) if change.startswith("format") else change
    path = _write(tmp_path, text)
    with pytest.raises(CardDataError, match=message) as info:
        load_card_data(path)
    assert isinstance(info.value, InvalidRecordError)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CardDataError, match="cannot read data file .*nope.toml"):
        load_card_data(tmp_path / "nope.toml")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "cards.toml"
    path.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(CardDataError, match="not UTF-8"):
        load_card_data(path)
