"""Component data of Time 'n' Space: the numbers printed on the board, tiles and counters.

The rulebook text names the components ("Components") but not every number on them:
the board's wormholes, the spots per building and stage, the trading capacities, the
values of the order counters, the bonus values and the introductory setup picture.
Those live in ``data/components.json`` in this package, each block with an
``assumption`` note to check against the box. Both files are read through
:mod:`companion.games.data`: the shipped one once per process by
:func:`shipped_components` (``GAME.data``), a table's own copy with other numbers by
:func:`load_components` (``GAME.load_components``). A broken file raises
:class:`ComponentDataError` with one sentence naming the file, the line and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from difflib import get_close_matches
from typing import TYPE_CHECKING, Any

from companion.errors import InvalidRecordError
from companion.games.data import DataFileError, parse_text, read_text, shipped_text

if TYPE_CHECKING:
    from pathlib import Path

PACKAGE = "companion.games.time_n_space"
SHIPPED = "data/components.json"
"""The data file shipped in :data:`PACKAGE`."""
FILE_LABEL = "components file"
"""What the errors call a table's own file (for the terminal: they name JSON fields)."""
COLORS: tuple[str, ...] = ("gray", "yellow", "blue", "brown")
"""The four goods and order colours, in the order score rows are listed and bonus ties are broken."""
ORDER_VALUES = (1, 2, 3)
"""Printed values of order counters (the introductory setup returns the 2s and 3s)."""
BUILDING_TYPES = ("production", "beam", "trading")
"""Production plant (ocher), beam station (black), trading center (white)."""


class ComponentDataError(InvalidRecordError):
    """A components file is unreadable or breaks its documented format."""


@dataclass(frozen=True)
class BuildingSpec:
    """What one building (a printed stage I building or one side of a tile) offers."""

    type: str
    """One of :data:`BUILDING_TYPES`."""
    spots: tuple[str | None, ...] = ()
    """Production plant: the goods colour of each spot. Beam station: ``None`` per spot. Trading center: empty."""
    capacity: int = 0
    """Trading center: how many orders one action may place."""


@dataclass(frozen=True)
class Tile:
    """A building tile: stage II on the front, stage III on the back."""

    id: str
    stage2: BuildingSpec
    stage3: BuildingSpec


@dataclass(frozen=True)
class Board:
    """One side of the main board."""

    moons: tuple[str, ...]
    wormholes: tuple[tuple[str, str], ...]
    """Pairs of locations joined by a wormhole; planets are named ``planet-1`` ... by seat."""


@dataclass(frozen=True)
class OrderSpot:
    """An order counter (or goods cube when ``value`` is 0) pre-placed on a spot."""

    color: str
    value: int
    building: str
    spot: int


@dataclass(frozen=True)
class IntroSeat:
    """The introductory setup of one seat (setup steps 7 and 8)."""

    tiles: tuple[tuple[str, str], ...]
    """(building id, tile id) covered with the tile's stage III side."""
    orders: tuple[OrderSpot, ...]
    goods: tuple[OrderSpot, ...]
    """Goods cubes: ``value`` is 0."""


@dataclass(frozen=True)
class Components:
    """All component numbers the engine uses."""

    goods_per_color: int
    timers_per_player: int
    sandtimer_s: int
    master_clock_s: tuple[tuple[str, int], ...]
    boards: tuple[tuple[int, Board], ...]
    buildings: tuple[tuple[str, BuildingSpec], ...]
    """Stage I buildings printed on every control center, in layout order."""
    tiles: tuple[Tile, ...]
    counters_full: tuple[tuple[str, tuple[int, ...]], ...]
    counters_intro: tuple[tuple[str, tuple[int, ...]], ...]
    bonus_values: tuple[int, ...]
    intro_seats: tuple[IntroSeat, ...]

    def board(self, players: int) -> Board:
        """The board side for ``players`` players."""
        for n, board in self.boards:
            if n == players:
                return board
        raise ComponentDataError(f"the components data has no board side for {players} players")

    def tile(self, tile_id: str) -> Tile:
        """Look a tile up by its id."""
        for tile in self.tiles:
            if tile.id == tile_id:
                return tile
        raise ComponentDataError(f"the components data has no tile {tile_id!r}")

    def clock_s(self, variant: str) -> int:
        """Length of the master clock for ``intro`` or ``full``."""
        return dict(self.master_clock_s)[variant]


def field_lines(source: str) -> dict[str, int]:
    """The line each field of a JSON document starts on, by its path as the errors name it
    (``tiles.tiles[3].stage2.capacity``); the document must be valid JSON."""
    lines: dict[str, int] = {}
    starts = [0] + [i + 1 for i, ch in enumerate(source) if ch == "\n"]
    decoder = json.JSONDecoder()

    def line(pos: int) -> int:
        low, high = 0, len(starts)
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (mid, high) if starts[mid] <= pos else (low, mid)
        return low + 1

    def skip(pos: int) -> int:
        while pos < len(source) and source[pos] in " \t\r\n":
            pos += 1
        return pos

    def value(pos: int, path: str) -> int:
        pos = skip(pos)
        lines[path] = line(pos)
        if source[pos] == "{":
            pos = skip(pos + 1)
            while source[pos] != "}":
                key, pos = decoder.raw_decode(source, pos)
                pos = value(skip(pos) + 1, f"{path}.{key}" if path else str(key))
                pos = skip(pos)
                pos = skip(pos + 1) if source[pos] == "," else pos
            return pos + 1
        if source[pos] == "[":
            pos, index = skip(pos + 1), 0
            while source[pos] != "]":
                pos = skip(value(pos, f"{path}[{index}]"))
                pos, index = (skip(pos + 1) if source[pos] == "," else pos), index + 1
            return pos + 1
        return int(decoder.raw_decode(source, pos)[1])

    value(0, "")
    return lines


class _Reader:
    """Small helpers that name the file, the line and the field in every error."""

    def __init__(self, label: str, lines: dict[str, int] | None = None) -> None:
        self.label = label
        self.lines = lines or {}

    def fail(self, where: str, problem: str) -> ComponentDataError:
        path = where
        while path and path not in self.lines:  # a missing field: the line of the object that lacks it
            path = path[: max(path.rfind("."), path.rfind("["), 0)]
        number = self.lines.get(path, 1) if self.lines else None
        at = f"{self.label}, line {number}" if number is not None else self.label
        return ComponentDataError(f"components file {at}: {where} {problem}")

    def missing(self, data: Any, key: str, where: str) -> ComponentDataError:
        """``key`` is not in ``data``: a misspelt field there is named at its own line, else the object
        that lacks it."""
        spelt = [k for k in data if isinstance(k, str)] if isinstance(data, dict) else []
        near = get_close_matches(key, spelt, n=1)
        if near:
            path = near[0] if where == "the document" else f"{where}.{near[0]}"
            return self.fail(path, f"is not a field of the components file; did you mean {key!r}?")
        return self.fail(where, f"is missing the field {key!r}")

    def obj(self, data: Any, key: str, where: str) -> dict[str, Any]:
        if not isinstance(data, dict) or key not in data:
            raise self.missing(data, key, where)
        value = data[key]
        if not isinstance(value, dict):
            raise self.fail(f"{where}.{key}", "must be an object")
        return value

    def lst(self, data: dict[str, Any], key: str, where: str) -> list[Any]:
        if key not in data:
            raise self.missing(data, key, where)
        value = data[key]
        if not isinstance(value, list):
            raise self.fail(f"{where}.{key}", "must be a list")
        return value

    def int_(self, data: dict[str, Any], key: str, where: str, minimum: int = 0) -> int:
        if key not in data:
            raise self.missing(data, key, where)
        value = data[key]
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise self.fail(f"{where}.{key}", f"must be a whole number of at least {minimum}")
        return value

    def str_(self, data: dict[str, Any], key: str, where: str) -> str:
        if key not in data:
            raise self.missing(data, key, where)
        value = data[key]
        if not isinstance(value, str) or not value:
            raise self.fail(f"{where}.{key}", "must be a non-empty string")
        return value

    def color(self, value: Any, where: str) -> str:
        if value not in COLORS:
            raise self.fail(where, f"has unknown colour {value!r}; use one of {', '.join(COLORS)}")
        return str(value)

    def spec(self, data: Any, where: str) -> BuildingSpec:
        if not isinstance(data, dict):
            raise self.fail(where, "must be an object with a 'type'")
        kind = self.str_(data, "type", where)
        if kind not in BUILDING_TYPES:
            raise self.fail(f"{where}.type", f"is {kind!r}; use one of {', '.join(BUILDING_TYPES)}")
        if kind == "production":
            spots = self.lst(data, "spots", where)
            if not spots:
                raise self.fail(f"{where}.spots", "must list at least one goods colour")
            return BuildingSpec(kind, tuple(self.color(c, f"{where}.spots") for c in spots))
        if kind == "beam":
            return BuildingSpec(kind, (None,) * self.int_(data, "spots", where, 1))
        return BuildingSpec(kind, (), self.int_(data, "capacity", where, 1))


def parse_components(data: Any, label: str = "<data>", lines: dict[str, int] | None = None) -> Components:
    """Validate a decoded components document and build :class:`Components`; ``lines``: where each field
    starts in the file (:func:`field_lines`), for the errors."""
    r = _Reader(label, lines)
    if not isinstance(data, dict):
        raise r.fail("the document", "must be a JSON object")
    colors = r.lst(r.obj(data, "colors", "the document"), "values", "colors")
    if tuple(colors) != COLORS:
        raise r.fail("colors.values", f"must be {list(COLORS)} (the four order colours)")
    goods = r.int_(r.obj(data, "goods_per_color", "the document"), "value", "goods_per_color", 1)
    timers = r.int_(r.obj(data, "timers_per_player", "the document"), "value", "timers_per_player", 1)
    sand = r.int_(r.obj(data, "sandtimer_s", "the document"), "value", "sandtimer_s", 1)
    clock = r.obj(data, "master_clock_s", "the document")
    master = (
        ("intro", r.int_(clock, "intro", "master_clock_s", 1)),
        ("full", r.int_(clock, "full", "master_clock_s", 1)),
    )

    boards_data = r.obj(data, "boards", "the document")
    boards = []
    for n in (3, 4):
        where = f"boards.{n}"
        side = r.obj(boards_data, str(n), "boards")
        moons = r.lst(side, "moons", where)
        if len(moons) != n or len(set(moons)) != n or not all(isinstance(m, str) and m for m in moons):
            raise r.fail(f"{where}.moons", f"must name {n} different moons (one building-tile pile each)")
        places = set(moons) | {f"planet-{i}" for i in range(1, n + 1)}
        holes = []
        for i, pair in enumerate(r.lst(side, "wormholes", where)):
            if not (
                isinstance(pair, list)
                and len(pair) == 2
                and all(p in places for p in pair)
                and pair[0] != pair[1]
            ):
                raise r.fail(f"{where}.wormholes[{i}]", f"must join two of {', '.join(sorted(places))}")
            holes.append((pair[0], pair[1]))
        # every location must be reachable
        reach, todo = {"planet-1"}, ["planet-1"]
        while todo:
            here = todo.pop()
            for a, b in holes:
                for x, y in ((a, b), (b, a)):
                    if x == here and y not in reach:
                        reach.add(y)
                        todo.append(y)
        if reach != places:
            raise r.fail(f"{where}.wormholes", f"leave {', '.join(sorted(places - reach))} unreachable")
        boards.append((n, Board(tuple(moons), tuple(holes))))

    center = r.obj(data, "control_center", "the document")
    buildings: list[tuple[str, BuildingSpec]] = []
    for i, item in enumerate(r.lst(center, "buildings", "control_center")):
        where = f"control_center.buildings[{i}]"
        bid = r.str_(item if isinstance(item, dict) else {}, "id", where)
        if bid in ("ship", "research") or any(bid == b for b, _ in buildings):
            raise r.fail(f"{where}.id", f"{bid!r} is reserved or used twice")
        buildings.append((bid, r.spec(item, where)))
    if not buildings:
        raise r.fail("control_center.buildings", "must list the stage I buildings")

    tiles: list[Tile] = []
    for i, item in enumerate(r.lst(r.obj(data, "tiles", "the document"), "tiles", "tiles")):
        where = f"tiles.tiles[{i}]"
        tid = r.str_(item if isinstance(item, dict) else {}, "id", where)
        if any(t.id == tid for t in tiles):
            raise r.fail(f"{where}.id", f"{tid!r} is used twice")
        tiles.append(
            Tile(
                tid,
                r.spec(item.get("stage2"), f"{where}.stage2"),
                r.spec(item.get("stage3"), f"{where}.stage3"),
            )
        )
    if len(tiles) % 12:
        raise r.fail(
            "tiles.tiles", f"has {len(tiles)} tiles; the piles need a multiple of 12 (3 or 4 equal piles)"
        )

    counters = r.obj(data, "order_counters", "the document")
    sets = []
    for variant in ("full", "intro"):
        table = r.obj(counters, variant, "order_counters")
        rows = []
        for color in COLORS:
            values = r.lst(table, color, f"order_counters.{variant}")
            if not values or any(v not in ORDER_VALUES or isinstance(v, bool) for v in values):
                raise r.fail(f"order_counters.{variant}.{color}", "must list values 1, 2 or 3")
            rows.append((color, tuple(values)))
        sets.append(tuple(rows))

    bonus = r.lst(r.obj(data, "bonus_counters", "the document"), "values", "bonus_counters")
    if len(bonus) != 4 or any(not isinstance(v, int) or isinstance(v, bool) or v < 1 for v in bonus):
        raise r.fail("bonus_counters.values", "must list 4 positive whole numbers")

    seats = []
    specs = dict(buildings)
    tile_ids = {t.id: t for t in tiles}
    for i, item in enumerate(r.lst(r.obj(data, "intro_setup", "the document"), "seats", "intro_setup")):
        where = f"intro_setup.seats[{i}]"
        if not isinstance(item, dict):
            raise r.fail(where, "must be an object")
        covers = r.obj(item, "tiles", where)
        final = dict(specs)
        for bid, tid in covers.items():
            if bid not in specs or tid not in tile_ids:
                raise r.fail(f"{where}.tiles", f"covers {bid!r} with {tid!r}, but one of them does not exist")
            final[bid] = tile_ids[tid].stage3
        placed: list[OrderSpot] = []
        for key, is_order in (("orders", True), ("goods", False)):
            for j, spot in enumerate(r.lst(item, key, where)):
                swhere = f"{where}.{key}[{j}]"
                if not isinstance(spot, dict):
                    raise r.fail(swhere, "must be an object")
                color = r.color(spot.get("color"), swhere)
                value = r.int_(spot, "value", swhere, 1) if is_order else 0
                if is_order and value not in ORDER_VALUES:
                    raise r.fail(f"{swhere}.value", "must be 1, 2 or 3")
                bid = r.str_(spot, "building", swhere)
                idx = r.int_(spot, "spot", swhere, 0)
                if (
                    bid not in final
                    or idx >= len(final[bid].spots)
                    or (bid, idx) in {(p.building, p.spot) for p in placed}
                ):
                    raise r.fail(swhere, f"names a spot {bid}[{idx}] that does not exist or is taken")
                if not is_order and final[bid].spots[idx] not in (None, color):
                    raise r.fail(swhere, f"puts a {color} cube on a {final[bid].spots[idx]} production spot")
                placed.append(OrderSpot(color, value, bid, idx))
        ocher = next((bid for bid, tid in covers.items() if tile_ids[tid].stage3.type == "production"), None)
        for j, p in enumerate(x for x in placed if x.value):
            if p.building == ocher:
                raise r.fail(
                    f"{where}.orders[{j}]",
                    f"lies on the random ocher tile of {ocher}; orders go on the other buildings",
                )
        seat = IntroSeat(
            tuple(covers.items()),
            tuple(p for p in placed if p.value),
            tuple(p for p in placed if not p.value),
        )
        seats.append(seat)
    if len(seats) != 4:
        raise r.fail("intro_setup.seats", "must describe 4 seats")

    return Components(
        goods_per_color=goods,
        timers_per_player=timers,
        sandtimer_s=sand,
        master_clock_s=master,
        boards=tuple(boards),
        buildings=tuple(buildings),
        tiles=tuple(tiles),
        counters_full=sets[0],
        counters_intro=sets[1],
        bonus_values=tuple(bonus),
        intro_seats=tuple(seats),
    )


def shipped_components() -> Components:
    """The component data shipped with the game (``GAME.load_data``; use ``GAME.data``, read once)."""
    source = shipped_text(PACKAGE, SHIPPED)
    data = parse_text(source, suffix=".json", label=f"the shipped {SHIPPED}")
    return parse_components(data, SHIPPED, field_lines(source))


def load_components(path: str | Path) -> Components:
    """A table's own component data, e.g. a copy of ``data/components.json`` corrected against the box
    (``GAME.load_components``, for ``--components FILE``)."""
    try:
        source = read_text(path, label=FILE_LABEL)
        data = parse_text(source, suffix=".json", label=f"components file {path}")
    except DataFileError as exc:
        raise ComponentDataError(str(exc)) from None
    return parse_components(data, str(path), field_lines(source))
