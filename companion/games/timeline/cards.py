"""The hub deck's cards: the shipped Spanish card list and a loader for a user's CSV deck.

Only a hub deck (a table without the box, a demo) needs these: the hub deals them and reveals
their years. A table that plays with its box tells the hub each year as it is turned over, so it
needs no card list at all (see :mod:`.box`).

A Timeline card shows an event on its front and the year on its back ("Contents").
A deck is a CSV file with one card per line and the columns ``id``, ``year``, ``title``
and, optionally, ``title_en``. Years are whole numbers; years before the common era are
negative (``-218`` is 218 BCE) and there is no year 0.

On the pages a card is named by :func:`card_title`: its English title as a message id, which
the game's catalogs (``i18n/es.json``, ``i18n/de.json``) give in Spanish (the title printed on
the card, as in the deck file) and German; a card without an English title is shown as printed.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.errors import InvalidRecordError
from companion.games.data import DataFileError, read_file, read_shipped
from companion.rules.text import Text, verbatim

if TYPE_CHECKING:
    from pathlib import Path

REQUIRED_COLUMNS = ("id", "year", "title")
"""Columns every deck CSV must have."""
OPTIONAL_COLUMNS = ("title_en",)
"""Columns a deck CSV may have."""

SHIPPED_DECKS = ("espana",)
"""Decks that ship with the companion, by name (``companion/games/timeline/data/<name>-deck.csv``)."""


class InvalidDeckError(InvalidRecordError):
    """A deck (CSV file or list in a record) breaks the deck format."""


@dataclass(frozen=True)
class Card:
    """One Timeline card: an event and the year printed on its back."""

    id: str
    """Unique name of the card within its deck, used in game records."""
    year: int
    """Year of the event; negative before the common era."""
    title: str
    """The event as printed on the card (Spanish for the shipped deck)."""
    title_en: str = ""
    """English translation of the title, empty when the deck gives none."""

    def as_dict(self) -> dict[str, Any]:
        """The card as a JSON-ready dict."""
        out: dict[str, Any] = {"id": self.id, "year": self.year, "title": self.title}
        if self.title_en:
            out["title_en"] = self.title_en
        return out


def card_title(card: Card) -> Text:
    """The card's event for players, in the table's language.

    The English title is the message id: the shipped deck's Spanish titles (as printed) and German
    titles are in the game's catalogs. A card without an English title (a user's deck) is shown as
    its ``title`` is written.
    """
    if card.title_en:
        return Text(card.title_en)  # data, not a literal: the catalogs hold every shipped card
    return verbatim(card.title)


def _parse_year(text: str, where: str) -> int:
    value = text.strip()
    try:
        year = int(value)
    except ValueError:
        raise InvalidDeckError(f"{where}: year {value!r} is not a whole number") from None
    if year == 0:
        raise InvalidDeckError(f"{where}: there is no year 0; write 1 BCE as -1")
    return year


def _card_from_fields(fields: Mapping[str, Any], where: str, seen: dict[str, str]) -> Card:
    """Build one card from already-split fields, checking each one; ``seen`` maps ids to where they first appeared."""
    card_id = str(fields.get("id") or "").strip()
    if not card_id:
        raise InvalidDeckError(f"{where}: the id is empty")
    if card_id in seen:
        raise InvalidDeckError(f"{where}: duplicate id {card_id!r} (first used at {seen[card_id]})")
    raw_year = fields.get("year")
    if isinstance(raw_year, bool) or raw_year is None:
        raise InvalidDeckError(f"{where}: year {raw_year!r} is not a whole number")
    if isinstance(raw_year, int):
        year = _parse_year(str(raw_year), where)
    elif isinstance(raw_year, str):
        year = _parse_year(raw_year, where)
    else:
        raise InvalidDeckError(f"{where}: year {raw_year!r} is not a whole number")
    title = fields.get("title")
    if not isinstance(title, str) or not title.strip():
        raise InvalidDeckError(f"{where}: the title is empty")
    title_en = fields.get("title_en") or ""
    if not isinstance(title_en, str):
        raise InvalidDeckError(f"{where}: title_en must be text")
    seen[card_id] = where
    return Card(card_id, year, title.strip(), title_en.strip())


def parse_deck_csv(text: str, source: str = "deck") -> tuple[Card, ...]:
    """Read a deck from CSV text; ``source`` names the file in error messages.

    The first line is the header. Commas separate the fields; a header written with
    semicolons (as Spanish spreadsheets export) is accepted too. Blank lines are skipped.
    Raises :class:`InvalidDeckError` naming the source, the line and the problem.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.splitlines()
    header_line = next((line for line in lines if line.strip()), None)
    if header_line is None:
        raise InvalidDeckError(
            f"{source}: the file is empty; it needs a header line {','.join(REQUIRED_COLUMNS)}"
        )
    delimiter = ";" if header_line.count(";") > header_line.count(",") else ","
    reader = csv.reader(_lines(text), delimiter=delimiter)
    header: list[str] | None = None
    cards: list[Card] = []
    seen: dict[str, str] = {}
    try:
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if header is None:
                header = [cell.strip().lower() for cell in row]
                missing = [c for c in REQUIRED_COLUMNS if c not in header]
                if missing:
                    raise InvalidDeckError(
                        f"{source}, line {line}: missing column {', '.join(missing)}"
                        f" (the header needs {', '.join(REQUIRED_COLUMNS)})"
                    )
                unknown = [c for c in header if c not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
                if unknown:
                    raise InvalidDeckError(
                        f"{source}, line {line}: unknown column {', '.join(map(repr, unknown))}"
                    )
                if len(set(header)) != len(header):
                    raise InvalidDeckError(f"{source}, line {line}: a column name appears twice")
                continue
            if len(row) != len(header):
                raise InvalidDeckError(
                    f"{source}, line {line}: expected {len(header)} fields but found {len(row)}"
                )
            cards.append(
                _card_from_fields(dict(zip(header, row, strict=True)), f"{source}, line {line}", seen)
            )
    except csv.Error as exc:
        raise InvalidDeckError(f"{source}, line {reader.line_num}: {exc}") from None
    if not cards:
        raise InvalidDeckError(f"{source}: the deck has no cards")
    return tuple(cards)


def _lines(text: str) -> list[str]:
    """The lines of ``text`` with their line ends, split at ``\\n`` only (as a text file reads)."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def load_deck(path: str | Path, *, players: int | None = None, hand_size: int = 4) -> tuple[Card, ...]:
    """Load a user's deck from a CSV file (see :func:`parse_deck_csv`).

    The file is read by :func:`companion.games.data.read_file` (a ``.csv`` file of UTF-8
    text). With ``players`` given, also check the deck is big enough to deal ``hand_size``
    cards to each player plus the reference card ("Setup").
    """
    source = str(path)
    try:
        text = read_file(path, label="the deck")
    except DataFileError as exc:
        raise InvalidDeckError(str(exc)) from None
    if not isinstance(text, str):
        raise InvalidDeckError(f"{source}: a deck is a CSV file (.csv), one card per line")
    cards = parse_deck_csv(text, source)
    if players is not None:
        check_deck_size(cards, players, hand_size, source=source)
    return cards


def check_deck_size(cards: Iterable[Card], players: int, hand_size: int, *, source: str = "deck") -> None:
    """Raise :class:`InvalidDeckError` unless the deck covers every hand plus the reference card ("Setup")."""
    count = len(tuple(cards))
    needed = players * hand_size + 1
    if count < needed:
        raise InvalidDeckError(
            f"{source}: {count} cards are too few for {players} players with {hand_size} cards each"
            f" (the deal and the reference card need {needed})"
        )


def shipped_deck(name: str = "espana") -> tuple[Card, ...]:
    """One of the decks shipped with the companion, by name (see :data:`SHIPPED_DECKS`)."""
    if name not in SHIPPED_DECKS:
        raise InvalidDeckError(f"unknown deck {name!r}; shipped decks: {', '.join(SHIPPED_DECKS)}")
    file = f"{name}-deck.csv"
    return parse_deck_csv(read_shipped("companion.games.timeline.data", file), file)


def deck_from_list(entries: Any, source: str = "deck") -> tuple[Card, ...]:
    """Read a deck given as a JSON list of ``{"id", "year", "title", "title_en"?}`` objects."""
    if not isinstance(entries, list) or not entries:
        raise InvalidDeckError(f"{source} must be a non-empty list of cards or the name of a shipped deck")
    seen: dict[str, str] = {}
    cards = []
    for number, entry in enumerate(entries, start=1):
        where = f"{source}, card {number}"
        if not isinstance(entry, dict):
            raise InvalidDeckError(f"{where}: each card must be an object with id, year and title")
        missing = [c for c in REQUIRED_COLUMNS if c not in entry]
        if missing:
            raise InvalidDeckError(f"{where}: missing {', '.join(missing)}")
        if isinstance(entry.get("id"), int) and not isinstance(entry.get("id"), bool):
            entry = {**entry, "id": str(entry["id"])}
        if not isinstance(entry.get("id"), str):
            raise InvalidDeckError(f"{where}: the id must be text")
        cards.append(_card_from_fields(entry, where, seen))
    return tuple(cards)
