"""What the box holds and how a table is set up: the numbers of ``data/espana-box.csv``, and the game's
data as the hub hands it to every referee (the box and the hub deck's card lists).

The box file is a small table a person can read and correct, one number a line::

    field,value,source
    cards,55,printed: Contents (55 cards)

``source`` says where each number comes from: ``printed: ...`` (the rulebook prints it) or
``ASSUMPTION: ...`` (it does not; check it against your box). A table starts with its own file
(``GAME.load_components(path)``, the hub's ``--components FILE``); a field it leaves out keeps the
shipped value. Every problem is one sentence naming the file, the line and the field. Every file is
read through :mod:`companion.games.data`.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from companion.errors import InvalidRecordError
from companion.games.data import DataFileError, read_file, read_shipped

from .cards import SHIPPED_DECKS, Card, shipped_deck

if TYPE_CHECKING:
    from pathlib import Path

DEFAULT_DECK = "espana"
"""The hub deck a hub table plays with."""
BOX_FILE = "espana-box.csv"
"""The shipped box file of Timeline: España (in ``companion/games/timeline/data``)."""
BOX_COLUMNS = ("field", "value", "source")


class InvalidBoxError(InvalidRecordError):
    """A box file breaks the format; the message names the file, the line and the field."""


@dataclass(frozen=True)
class TimelineBox:
    """What a Timeline box holds and how a table is set up with it."""

    cards: int = 55
    """Cards in the box: what a table deck deals from ("Contents")."""
    hand_size: int = 4
    """Cards dealt to each player ("Setup"; players may change it, see the variants)."""
    min_players: int = 2
    """Fewest players."""
    max_players: int = 8
    """Most players."""
    assumptions: tuple[str, ...] = ()
    """The fields whose value the rulebook does not print (marked ASSUMPTION in the file)."""


NUMBERS = tuple(f.name for f in fields(TimelineBox) if f.name != "assumptions")
"""The fields a box file may give, in the file's order."""


@dataclass(frozen=True)
class TimelineData:
    """What the game reads once (``GAME.data``): the box and the hub deck's card lists."""

    decks: Mapping[str, tuple[Card, ...]]
    """Each shipped hub deck by name (see :data:`~.cards.SHIPPED_DECKS`)."""
    box: TimelineBox

    @property
    def deck(self) -> tuple[Card, ...]:
        """The card list a hub deck deals."""
        return self.decks[DEFAULT_DECK]


def parse_box_csv(text: str, source: str, *, base: TimelineBox | None = None) -> TimelineBox:
    """Read a box file; ``source`` names it in errors; a field it leaves out keeps ``base``'s value."""
    start = base if base is not None else TimelineBox()
    values: dict[str, int] = {}
    lines: dict[str, int] = {}
    assumed = set(start.assumptions)
    reader = csv.reader(text.lstrip("\ufeff").splitlines())
    header: list[str] | None = None
    try:
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row) or row[0].lstrip().startswith("#"):
                continue
            if header is None:
                header = [cell.strip().lower() for cell in row]
                if header != list(BOX_COLUMNS):
                    raise InvalidBoxError(
                        f"{source}, line {line}: the header must be {','.join(BOX_COLUMNS)}"
                    )
                continue
            if len(row) != len(BOX_COLUMNS):
                raise InvalidBoxError(
                    f"{source}, line {line}: expected {len(BOX_COLUMNS)} fields but found {len(row)}"
                )
            name, raw, note = (cell.strip() for cell in row)
            if name not in NUMBERS:
                raise InvalidBoxError(
                    f"{source}, line {line}, field {name!r}: unknown field; the fields are {', '.join(NUMBERS)}"
                )
            if name in lines:
                raise InvalidBoxError(
                    f"{source}, line {line}, field {name}: given twice (first at line {lines[name]})"
                )
            if not raw.isdigit() or int(raw) < 1:
                raise InvalidBoxError(
                    f"{source}, line {line}, field {name}: the value must be a whole number of at least 1, not {raw!r}"
                )
            values[name], lines[name] = int(raw), line
            if note.lower().startswith("assumption"):
                assumed.add(name)
            else:
                assumed.discard(name)
    except csv.Error as exc:
        raise InvalidBoxError(f"{source}, line {reader.line_num}: {exc}") from None
    if header is None:
        raise InvalidBoxError(f"{source}: the file is empty; it needs a header line {','.join(BOX_COLUMNS)}")
    box = replace(start, **values, assumptions=tuple(n for n in NUMBERS if n in assumed))
    if box.min_players > box.max_players:
        where = lines.get("min_players") or lines.get("max_players")
        field = "min_players" if "min_players" in lines else "max_players"
        raise InvalidBoxError(
            f"{source}, line {where}, field {field}: min_players ({box.min_players}) is larger than"
            f" max_players ({box.max_players})"
        )
    return box


def shipped_box() -> TimelineBox:
    """The box of Timeline: España as shipped (``data/espana-box.csv``)."""
    return parse_box_csv(read_shipped("companion.games.timeline.data", BOX_FILE), BOX_FILE)


def load_box(path: str | Path) -> TimelineBox:
    """A table's own box file (``.csv``), over the shipped values."""
    try:
        text = read_file(path, label="the box file")
    except DataFileError as exc:
        raise InvalidBoxError(str(exc)) from None
    if not isinstance(text, str):
        raise InvalidBoxError(
            f"{path}: a box file is a CSV file (.csv) with the columns {','.join(BOX_COLUMNS)}"
        )
    return parse_box_csv(text, str(path), base=shipped_box())


def _decks() -> Mapping[str, tuple[Card, ...]]:
    return MappingProxyType({name: shipped_deck(name) for name in SHIPPED_DECKS})


def load_shipped() -> TimelineData:
    """The game's data as shipped: the box file and every hub deck (``GAME.load_data``)."""
    return TimelineData(_decks(), shipped_box())


def load_components(path: str) -> TimelineData:
    """The game's data with a table's own box file (``GAME.load_components``, ``--components FILE``)."""
    return TimelineData(_decks(), load_box(path))
