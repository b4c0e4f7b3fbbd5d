"""Table settings for Timeline (hand size, player count), read from a JSON data file, and the
game's shipped data (its decks and settings) as the hub hands it to every referee.

The shipped ``settings.json`` says where each number comes from and marks the ones the
rulebook text does not print as assumptions. A table can load its own file instead.
Every file is read through :mod:`companion.games.data`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from companion.errors import InvalidRecordError
from companion.games.data import read_file, read_shipped

from .cards import SHIPPED_DECKS, Card, shipped_deck

if TYPE_CHECKING:
    from pathlib import Path

DEFAULT_DECK = "espana"
"""The deck a hub table plays with."""


@dataclass(frozen=True)
class TimelineSettings:
    """Numbers a Timeline table is set up with."""

    hand_size: int = 4
    """Cards dealt to each player ("Setup"; players may change it)."""
    min_players: int = 2
    """Fewest players (assumption, see settings.json)."""
    max_players: int = 8
    """Most players (assumption, see settings.json)."""


@dataclass(frozen=True)
class TimelineData:
    """What the game reads once (``GAME.data``): the shipped decks and the table settings."""

    decks: Mapping[str, tuple[Card, ...]]
    """Each shipped deck by name (see :data:`~companion.games.timeline.cards.SHIPPED_DECKS`)."""
    settings: TimelineSettings

    @property
    def deck(self) -> tuple[Card, ...]:
        """The deck a hub table plays with."""
        return self.decks[DEFAULT_DECK]


def _parse(data: Any, source: str) -> TimelineSettings:
    if not isinstance(data, dict):
        raise InvalidRecordError(f"{source}: the settings must be a JSON object")
    values = {}
    for name in ("hand_size", "min_players", "max_players"):
        value = data.get(name, getattr(TimelineSettings, name))
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidRecordError(f"{source}: {name} must be a whole number of at least 1, not {value!r}")
        values[name] = value
    if values["min_players"] > values["max_players"]:
        raise InvalidRecordError(f"{source}: min_players is larger than max_players")
    return TimelineSettings(**values)


def load_settings(path: str | Path | None = None) -> TimelineSettings:
    """Read table settings from ``path``, or the shipped ``settings.json`` when ``path`` is ``None``.

    A file that cannot be read or parsed raises :class:`~companion.games.data.DataFileError`
    (an :class:`InvalidRecordError`) naming it; settings that break the rules above raise
    :class:`InvalidRecordError` naming the file and the setting.
    """
    if path is None:
        return _parse(read_shipped("companion.games.timeline.data", "settings.json"), "settings.json")
    return _parse(read_file(path, label="the settings file"), str(path))


def load_shipped() -> TimelineData:
    """The game's data as shipped: every deck and ``settings.json`` (``GAME.load_data``)."""
    decks = MappingProxyType({name: shipped_deck(name) for name in SHIPPED_DECKS})
    return TimelineData(decks, load_settings())
