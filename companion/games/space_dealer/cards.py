"""Space Dealer component data: card types, counts per player count, orders.

The numbers live in ``data/cards.toml`` in this package; every number the rulebook does
not print is marked there as an assumption to check against the box. The package's
``GAME.data`` reads the shipped file once (:func:`shipped_card_data`) and hands it to
the engine and the referees; a user can load a corrected copy with :func:`load_card_data`.
Both read through :mod:`companion.games.data`, the one place data files are read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.errors import InvalidRecordError
from companion.games.data import DataFileError, parse_text, read_shipped, read_text

if TYPE_CHECKING:
    from pathlib import Path

PACKAGE = "companion.games.space_dealer"
SHIPPED = "data/cards.toml"
"""The card data shipped in :data:`PACKAGE` (copy it to correct a number)."""

KINDS = (
    "plant",
    "mine",
    "converter",
    "storage",
    "city",
    "techcenter",
    "factory",
    "station",
    "sabotage",
    "rocket",
    "transport",
)


class CardDataError(InvalidRecordError):
    """The card data file is missing, not TOML, or breaks its documented format."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field
        """Where in the file, dotted (``types.Mine.level``); "" when the file as a whole is wrong."""


@dataclass(frozen=True)
class OrderSpec:
    """An order: the goods wanted and the points printed beside it."""

    goods: tuple[tuple[str, int], ...]
    """Goods colour and count, sorted by colour."""
    points: tuple[int, ...]
    """(deliverer, owner) on a planet card; (deliverer,) on a neutral order card."""

    def goods_dict(self) -> dict[str, int]:
        return dict(self.goods)


@dataclass(frozen=True)
class CardType:
    """What every copy of one technology card does."""

    name: str
    level: int
    """Technology level printed on the back (1, 2 or 3)."""
    kind: str
    """One of :data:`KINDS`."""
    connections: int = 0
    """Power connections (0, 1 or 2); unused for power plants."""
    timer: bool = False
    """True when the card has a timer space."""
    produces: int = 0
    """Goods per timer run (mines)."""
    colour: str = ""
    """``card`` (printed colour), ``any`` (player's choice) or empty."""
    exchanges: int = 0
    """Goods exchanged per timer run (converters)."""
    capacity: int | None = None
    """Goods the card can store (None = no limit)."""
    planning_bonus: int = 0
    extra_timers: int = 0
    on: str = ""
    """For Solar Satellite and Fusion Reactor: the power plant it is built on."""
    experienced: bool = False
    """True for the cards of the rules for experienced players (rulebook 5.1)."""
    orders: tuple[OrderSpec, ...] = ()

    @property
    def layout(self) -> str:
        """Where the card lies: ``plant`` (planet row), ``upright`` (action and order row) or ``across`` (action row)."""
        if self.kind == "plant":
            return "plant"
        return "across" if self.connections == 2 else "upright"

    @property
    def has_order(self) -> bool:
        return self.layout == "upright" and bool(self.orders)


@dataclass(frozen=True)
class CardData:
    """Everything the engine needs to know about the components."""

    colours: tuple[str, ...]
    goods_per_colour: int
    attack_markers: int
    timers: int
    markers_per_colour: int
    markers_on_score_track: int
    timers_per_player: int
    planning_area: int
    max_tech_level: int
    cargo_limit: int
    attack_markers_per_card: int
    rocket_markers_per_target: int
    game_minutes: int
    x_range: tuple[int, int]
    power: Mapping[str, tuple[int, int, int]]
    """Power plant name -> (own, inner, outer) energised units."""
    types: Mapping[str, CardType]
    counts: Mapping[str, int]
    """Copies of each type in one box."""
    coloured_types: tuple[str, ...]
    three_player_removals: Mapping[str, int]
    five_player_removals: Mapping[str, int]
    three_player_experienced: Mapping[str, int]
    sets: Mapping[int, tuple[tuple[str, ...], tuple[str, ...]]]
    """Player count -> (basic sets, experienced sets), each set "3", "4" or "3-5"."""
    neutral_orders: tuple[OrderSpec, ...]

    @property
    def placeable_markers(self) -> int:
        return self.markers_per_colour - self.markers_on_score_track


def shipped_card_data() -> CardData:
    """The card data shipped with the game (``GAME.load_data``: read once per process as ``GAME.data``)."""
    return _checked(read_shipped(PACKAGE, SHIPPED), f"the shipped {SHIPPED}")


def load_card_data(path: str | Path) -> CardData:
    """Load a table's card data from ``path`` (a corrected copy of ``data/cards.toml``; ``GAME.load_components``).

    Raises :class:`CardDataError` with one sentence when the file cannot be read or breaks the
    format, naming the file, the line and the field ("card data my.toml, line 57: types.Mine.level
    must be 1, 2 or 3").
    """
    where = f"card data {path}"
    try:
        text = read_text(path)
        name = str(path).replace("\\", "/").rsplit("/", 1)[-1]
        raw = parse_text(text, suffix="." + name.rsplit(".", 1)[-1] if "." in name else "", label=where)
    except DataFileError as exc:
        raise CardDataError(str(exc)) from None
    return _checked(raw, where, text)


def _checked(raw: Any, where: str, text: str = "") -> CardData:
    if not isinstance(raw, dict):
        raise CardDataError(f"{where} is not a TOML table of card data")
    try:
        return _parse(raw)
    except CardDataError as exc:
        line = line_of(text, exc.field) if exc.field else None
        at = f"{where}, line {line}" if line else where
        raise CardDataError(f"{at}: {exc}", exc.field) from None


_KEY = re.compile(r'\s*("(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+)\s*=')
_HEADER_PART = re.compile(r'"((?:[^"\\]|\\.)*)"|([^.\s"]+)')


def _parts(field: str) -> list[str | int]:
    """``types.Mine.orders[2].goods`` as ``["types", "Mine", "orders", 2, "goods"]``."""
    out: list[str | int] = []
    for part in field.split("."):
        name, _, rest = part.partition("[")
        out.append(name)
        for index in re.findall(r"(\d+)\]", "[" + rest if rest else ""):
            out.append(int(index))
    return out


def line_of(text: str, field: str) -> int | None:
    """The line of a TOML ``text`` that holds ``field`` (its key, or the nearest table or array item above)."""
    want = _parts(field)
    table: list[str | int] = []
    best, best_len = None, 0
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        stripped = line.split("#", 1)[0].strip()
        if stripped.startswith("[") and stripped.endswith("]") and not stripped.startswith("[["):
            table = [a or b for a, b in _HEADER_PART.findall(stripped[1:-1])]
            path = table
        else:
            match = _KEY.match(line)
            if not match or stripped.startswith("#"):
                continue
            path = [*table, match.group(1).strip('"')]
        if len(path) > best_len and want[: len(path)] == path:
            best, best_len = number, len(path)
            if best_len < len(want) and isinstance(want[best_len], int) and stripped.endswith("["):
                items = [n for n in range(number + 1, len(lines) + 1) if lines[n - 1].strip().startswith("{")]
                index = want[best_len]
                if isinstance(index, int) and index < len(items):
                    best = items[index]
    return best


def _get(table: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in table:
        raise CardDataError(f"{where} is missing {key!r}", where)
    value = table[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise CardDataError(f"{where}.{key} has the wrong type", f"{where}.{key}")
    return value


def _opt_int(table: Mapping[str, Any], key: str, where: str) -> int:
    value = table.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise CardDataError(f"{where}.{key} must be a whole number", f"{where}.{key}")
    return value


def _table(raw: Mapping[str, Any], key: str, where: str = "file") -> Mapping[str, Any]:
    return _get(raw, key, dict, where)


def _count_map(table: Mapping[str, Any], where: str, types: Mapping[str, CardType]) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, value in table.items():
        if name in ("source", "assumption"):
            continue
        if name not in types:
            raise CardDataError(f"{where} names unknown card type {name!r}", f"{where}.{name}")
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise CardDataError(f"{where}.{name} must be a whole number of cards", f"{where}.{name}")
        out[name] = value
    return out


def _order(raw: Any, where: str, colours: tuple[str, ...], arity: int) -> OrderSpec:
    if not isinstance(raw, dict):
        raise CardDataError(f"{where} must be a table with goods and points", where)
    goods = _get(raw, "goods", dict, where)
    for colour, n in goods.items():
        if colour not in colours:
            raise CardDataError(f"{where} wants unknown goods colour {colour!r}", f"{where}.goods.{colour}")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise CardDataError(
                f"{where}.goods.{colour} must be a positive whole number", f"{where}.goods.{colour}"
            )
    points = raw.get("points")
    if arity == 1 and isinstance(points, int) and not isinstance(points, bool):
        points = [points]
    if (
        not isinstance(points, list)
        or len(points) != arity
        or not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in points)
    ):
        raise CardDataError(f"{where}.points must be {arity} non-negative whole number(s)", f"{where}.points")
    return OrderSpec(tuple(sorted(goods.items())), tuple(points))


TYPE_KEYS = frozenset(
    {
        "level",
        "kind",
        "connections",
        "timer",
        "produces",
        "colour",
        "exchanges",
        "capacity",
        "planning_bonus",
        "extra_timers",
        "on",
        "experienced",
        "orders",
        "source",
        "assumption",
    }
)
"""The fields a card type may have (anything else is a typo)."""
BOX_KEYS = frozenset(
    {
        "source",
        "goods_colours",
        "goods_per_colour",
        "attack_markers",
        "timers",
        "markers_per_colour",
        "markers_on_score_track",
        "timers_per_player",
        "planning_area",
        "max_tech_level",
        "cargo_limit",
        "attack_markers_per_card",
        "rocket_markers_per_target",
        "game_minutes",
        "x_range",
        "x_range_assumption",
    }
)
TABLES = frozenset({"format", "box", "power", "types", "counts", "coloured", "removals", "sets", "neutral"})


def _known_keys(table: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    for key in table:
        if key not in known:
            field = f"{where}.{key}" if where else key
            raise CardDataError(f"{field} is not a field of the card data (a typo?)", field)


def _parse(raw: Mapping[str, Any]) -> CardData:
    _known_keys(raw, TABLES, "")
    if raw.get("format") != 1:
        raise CardDataError("format must be 1", "format")
    box = _table(raw, "box")
    _known_keys(box, BOX_KEYS, "box")
    colours = tuple(_get(box, "goods_colours", list, "box"))
    if not colours or not all(isinstance(c, str) for c in colours):
        raise CardDataError("box.goods_colours must list colour names", "box.goods_colours")
    ints = {
        k: _get(box, k, int, "box")
        for k in (
            "goods_per_colour",
            "attack_markers",
            "timers",
            "markers_per_colour",
            "markers_on_score_track",
            "timers_per_player",
            "planning_area",
            "max_tech_level",
            "cargo_limit",
            "attack_markers_per_card",
            "rocket_markers_per_target",
            "game_minutes",
        )
    }
    for k, v in ints.items():
        if v < 0:
            raise CardDataError(f"box.{k} must not be negative", f"box.{k}")
    x_range = _get(box, "x_range", list, "box")
    if len(x_range) != 2 or not all(isinstance(x, int) for x in x_range) or x_range[0] > -4 or x_range[1] < 5:
        raise CardDataError("box.x_range must be [low, high] with low <= -4 and high >= 5", "box.x_range")

    power_raw = _table(raw, "power")
    power: dict[str, tuple[int, int, int]] = {}
    for name, spec in power_raw.items():
        if name in ("source", "assumption"):
            continue
        if not isinstance(spec, dict):
            raise CardDataError(f"power.{name} must be a table", f"power.{name}")
        power[name] = (
            _opt_int(spec, "own", f"power.{name}"),
            _opt_int(spec, "inner", f"power.{name}"),
            _opt_int(spec, "outer", f"power.{name}"),
        )

    types: dict[str, CardType] = {}
    for name, spec in _table(raw, "types").items():
        where = f"types.{name}"
        if not isinstance(spec, dict):
            raise CardDataError(f"{where} must be a table", where)
        _known_keys(spec, TYPE_KEYS, where)
        kind = _get(spec, "kind", str, where)
        if kind not in KINDS:
            raise CardDataError(f"{where}.kind {kind!r} is not one of {', '.join(KINDS)}", f"{where}.kind")
        level = _get(spec, "level", int, where)
        if level not in (1, 2, 3):
            raise CardDataError(f"{where}.level must be 1, 2 or 3", f"{where}.level")
        connections = spec.get("connections", 0)
        if connections not in (0, 1, 2) or isinstance(connections, bool):
            raise CardDataError(f"{where}.connections must be 0, 1 or 2", f"{where}.connections")
        if kind == "plant" and name not in power:
            raise CardDataError(f"{where} is a power plant without an entry in [power]", where)
        raw_orders = spec.get("orders", [])
        if not isinstance(raw_orders, list):
            raise CardDataError(f"{where}.orders must be a list of orders", f"{where}.orders")
        orders = tuple(_order(o, f"{where}.orders[{i}]", colours, 2) for i, o in enumerate(raw_orders))
        colour = spec.get("colour", "")
        if kind == "mine" and colour not in ("card", "any"):
            raise CardDataError(
                f'{where}.colour must be "card" (printed colour) or "any" (player\'s choice)',
                f"{where}.colour",
            )
        capacity = spec.get("capacity")
        if capacity is not None and (
            not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 0
        ):
            raise CardDataError(f"{where}.capacity must be a whole number", f"{where}.capacity")
        types[name] = CardType(
            name=name,
            level=level,
            kind=kind,
            connections=connections,
            timer=bool(spec.get("timer", False)),
            produces=_opt_int(spec, "produces", where),
            colour=str(colour),
            exchanges=_opt_int(spec, "exchanges", where),
            capacity=capacity,
            planning_bonus=_opt_int(spec, "planning_bonus", where),
            extra_timers=_opt_int(spec, "extra_timers", where),
            on=str(spec.get("on", "")),
            experienced=bool(spec.get("experienced", False)),
            orders=orders,
        )
    for needed in ("Mine", "Generator", "Depot"):
        if needed not in types:
            raise CardDataError(f"types.{needed} is missing", "types")
    for t in types.values():
        if t.on and t.on not in types:
            raise CardDataError(f"types.{t.name}.on names unknown card {t.on!r}", f"types.{t.name}.on")
        if t.layout == "upright" and not t.orders and t.kind != "plant":
            raise CardDataError(
                f"types.{t.name} stands on the order row and needs at least one order", f"types.{t.name}"
            )

    counts = _count_map(_table(raw, "counts"), "counts", types)
    coloured = tuple(_get(_table(raw, "coloured"), "types", list, "coloured"))
    for name in coloured:
        if name not in types:
            raise CardDataError(f"coloured.types names unknown card type {name!r}", "coloured.types")
    removals = _table(raw, "removals")
    three = _count_map(_get(removals, "three_player", dict, "removals"), "removals.three_player", types)
    five = _count_map(
        _get(removals, "five_player_extra", dict, "removals"), "removals.five_player_extra", types
    )
    three_exp = _count_map(
        _get(removals, "three_player_experienced", dict, "removals"),
        "removals.three_player_experienced",
        types,
    )
    for name, n in three.items():
        if n > counts.get(name, 0):
            raise CardDataError(
                f"removals.three_player takes {n} {name} but a box has {counts.get(name, 0)}",
                f"removals.three_player.{name}",
            )
    sets: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for key, spec in _table(raw, "sets").items():
        if key in ("source", "assumption"):
            continue
        if not key.isdigit() or not isinstance(spec, dict):
            raise CardDataError(
                f"sets.{key} must be a player count with basic and experienced sets", f"sets.{key}"
            )
        basic = tuple(_get(spec, "basic", list, f"sets.{key}"))
        exp = tuple(_get(spec, "experienced", list, f"sets.{key}"))
        if not all(s in ("3", "4", "3-5") for s in basic + exp):
            raise CardDataError(f'sets.{key} may only name the sets "3", "4" and "3-5"', f"sets.{key}")
        sets[int(key)] = (basic, exp)
    neutral = tuple(
        _order(o, f"neutral.orders[{i}]", colours, 1)
        for i, o in enumerate(_get(_table(raw, "neutral"), "orders", list, "neutral"))
    )
    return CardData(
        colours=colours,
        x_range=(x_range[0], x_range[1]),
        power=power,
        types=types,
        counts=counts,
        coloured_types=coloured,
        three_player_removals=three,
        five_player_removals=five,
        three_player_experienced=three_exp,
        sets=sets,
        neutral_orders=neutral,
        **ints,
    )
