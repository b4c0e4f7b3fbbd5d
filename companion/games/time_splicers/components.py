"""Time Splicers components: the cards of the box and the counts the rules use.

The numbers live in ``data/deck.csv`` (one entry a line: ``entry,value,source``). Each entry says
where its value comes from; a source starting with ``ASSUMPTION`` is not printed in the rulebook
(it lists 65 game cards but not their colours, numbers or how many of each special card there
are) and should be checked against the box (docs/games/time-splicers.md says how).
:func:`load_components` reads that file or a table's corrected copy through
:mod:`companion.games.data`; the hub reads the shipped one once (``GAME.data``). A file that does
not fit is refused with one sentence naming the file, the line and the entry.

A card has an *id* (``red-5``, ``time-jump-2``: one per physical card, used by the hub deck and in
records) and a *face* (what is printed on it: ``red-5``, ``time-jump``). Copies of one card share
a face, so a table that tells the hub what it turned up names the face.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from difflib import get_close_matches
from functools import cached_property
from typing import TYPE_CHECKING, Any

from companion.errors import ConfigError
from companion.games.data import DataFileError, read_file, read_shipped

if TYPE_CHECKING:
    from pathlib import Path

NUMBER = "number"
TIME_PORTAL = "time_portal"
QUANTUM_TUNNEL = "quantum_tunnel"
TIME_JUMP = "time_jump"
TIME_FREEZE = "time_freeze"
SPECIAL_KINDS = (QUANTUM_TUNNEL, TIME_JUMP, TIME_FREEZE)

PORTAL_ID = "time-portal"
"""Card id of the Time Portal, which stays to one side of the play area (rulebook, Setup)."""

SHIPPED = "data/deck.csv"
"""The shipped component file, inside the package."""


class DeckFileError(ConfigError):
    """A Time Splicers component file is missing, cannot be parsed, or its counts do not add up."""


@dataclass(frozen=True)
class Card:
    """One of the game cards."""

    id: str
    """Unique name of the physical card: ``red-5`` (``red-5-b`` for a second copy), ``time-jump-2``."""
    kind: str
    """``number``, ``time_portal``, ``quantum_tunnel``, ``time_jump`` or ``time_freeze``."""
    colour: str | None = None
    """Timeline colour of a numbered card."""
    number: int | None = None
    """Era of a numbered card."""

    @property
    def is_number(self) -> bool:
        """True for a numbered (coloured) card that can be placed in a Timeline."""
        return self.kind == NUMBER

    @property
    def face(self) -> str:
        """What is printed on the card, the same for every copy: ``red-5``, ``time-jump``."""
        if self.kind == NUMBER:
            return f"{self.colour}-{self.number}"
        if self.kind == TIME_PORTAL:
            return PORTAL_ID
        return self.kind.replace("_", "-")


@dataclass(frozen=True)
class DeckConfig:
    """Component counts for one box (``data/deck.csv`` says where each number comes from)."""

    colours: tuple[str, ...]
    lowest_number: int
    highest_number: int
    copies_of_each_number_card: int
    singularity_number: int
    time_portal_cards: int
    quantum_tunnel_cards: int
    time_jump_cards: int
    time_freeze_cards: int
    time_freeze_markers: int
    time_jump_tokens: int
    time_crystals: int
    min_players: int
    max_players: int
    starting_hand: int
    starting_time_jump_tokens: int
    starting_time_freeze_markers: int
    hand_minimum: int
    hand_maximum: int
    crystals_to_win: int
    last_player_standing_wins: bool
    total_cards: int

    def cards(self) -> tuple[Card, ...]:
        """Every game card of the box, the Time Portal first."""
        out: list[Card] = [Card(PORTAL_ID, TIME_PORTAL)]
        for colour in self.colours:
            for number in range(self.lowest_number, self.highest_number + 1):
                for copy in range(self.copies_of_each_number_card):
                    suffix = "" if self.copies_of_each_number_card == 1 else f"-{chr(ord('a') + copy)}"
                    out.append(Card(f"{colour}-{number}{suffix}", NUMBER, colour, number))
        for kind, count in (
            (QUANTUM_TUNNEL, self.quantum_tunnel_cards),
            (TIME_JUMP, self.time_jump_cards),
            (TIME_FREEZE, self.time_freeze_cards),
        ):
            for i in range(1, count + 1):
                out.append(Card(f"{kind.replace('_', '-')}-{i}", kind))
        return tuple(out)

    @cached_property
    def index(self) -> dict[str, Card]:
        """Every card of the box by id (read once per box)."""
        return {c.id: c for c in self.cards()}

    @cached_property
    def faces(self) -> dict[str, Card]:
        """One card of each face, by face (``red-5``, ``time-jump``)."""
        out: dict[str, Card] = {}
        for card in self.cards():
            out.setdefault(card.face, card)
        return out


INT_ENTRIES = (
    "total_cards",
    "lowest_number",
    "highest_number",
    "copies_of_each_number_card",
    "singularity_number",
    "time_portal_cards",
    "quantum_tunnel_cards",
    "time_jump_cards",
    "time_freeze_cards",
    "time_freeze_markers",
    "time_jump_tokens",
    "time_crystals",
    "min_players",
    "max_players",
    "starting_hand",
    "starting_time_jump_tokens",
    "starting_time_freeze_markers",
    "hand_minimum",
    "hand_maximum",
    "crystals_to_win",
)
ENTRIES = ("colours", *INT_ENTRIES, "last_player_standing_wins")
"""Every entry a component file must have."""


@dataclass(frozen=True)
class Entry:
    """One entry of a component file as read: its value and where it stands."""

    value: Any
    line: int | None = None
    """Line of the file (None for a JSON or TOML file, whose parser does not keep lines)."""


class _Where:
    """Names the file, line and entry in the sentences of :class:`DeckFileError`."""

    def __init__(self, source: str, entries: dict[str, Entry]) -> None:
        self.source = source
        self.entries = entries

    def error(self, key: str, problem: str) -> DeckFileError:
        entry = self.entries.get(key)
        line = f", line {entry.line}" if entry is not None and entry.line is not None else ""
        return DeckFileError(f"{self.source}{line}, entry {key!r}: {problem}")


def _whole(where: _Where, key: str) -> int:
    value = where.entries[key].value
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise where.error(key, f"must be a whole number of at least 0, not {value!r}")
    return value


def _colours(where: _Where) -> tuple[str, ...]:
    value = where.entries["colours"].value
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(c, str) and c and "-" not in c for c in value)
        or len(set(value)) != len(value)
    ):
        raise where.error("colours", "must be a list of distinct names without '-'")
    return tuple(value)


def _flag(where: _Where, key: str) -> bool:
    value = where.entries[key].value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        value = value.strip().lower() in ("true", "yes")
    if not isinstance(value, bool):
        raise where.error(key, f"must be true or false, not {value!r}")
    return value


def build(entries: dict[str, Entry], *, source: str) -> DeckConfig:
    """A :class:`DeckConfig` from the entries of a component file, every value and count checked."""
    where = _Where(source, entries)
    unknown = sorted(set(entries) - set(ENTRIES), key=lambda k: (entries[k].line or 0, k))
    if unknown:  # before the missing ones: a misspelt entry is named at its own line
        near = get_close_matches(unknown[0], [e for e in ENTRIES if e not in entries], n=1)
        hint = f"did you mean {near[0]!r}?" if near else f"the entries are {', '.join(ENTRIES)}"
        raise where.error(unknown[0], f"is not an entry of Time Splicers; {hint}")
    for key in ENTRIES:
        if key not in entries:
            raise DeckFileError(f"{source} has no {key!r} entry")
    values = {key: _whole(where, key) for key in INT_ENTRIES}
    config = DeckConfig(
        colours=_colours(where), last_player_standing_wins=_flag(where, "last_player_standing_wins"), **values
    )
    checks = (
        ("time_portal_cards", config.time_portal_cards == 1, "the game needs exactly one Time Portal card"),
        ("lowest_number", config.lowest_number <= config.highest_number, "is above 'highest_number'"),
        (
            "singularity_number",
            config.lowest_number <= config.singularity_number <= config.highest_number,
            "is not one of the card numbers",
        ),
        ("copies_of_each_number_card", config.copies_of_each_number_card >= 1, "must be at least 1"),
        (
            "min_players",
            1 <= config.min_players <= config.max_players,
            "player counts must satisfy 1 <= min_players <= max_players",
        ),
        (
            "hand_minimum",
            0 < config.hand_minimum <= config.hand_maximum,
            "hand limits must satisfy 0 < hand_minimum <= hand_maximum",
        ),
        ("starting_hand", config.starting_hand <= config.hand_maximum, "is above 'hand_maximum'"),
        ("crystals_to_win", config.crystals_to_win >= 1, "must be at least 1"),
    )
    for key, holds, problem in checks:
        if not holds:
            raise where.error(key, problem)
    counted = len(config.cards())
    if counted != config.total_cards:
        raise where.error(
            "total_cards", f"the card counts add up to {counted}, but 'total_cards' says {config.total_cards}"
        )
    return config


def parse_csv(text: str, *, source: str) -> DeckConfig:
    """A component file in CSV (``entry,value,source``; ``#`` starts a comment line)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    entries: dict[str, Entry] = {}
    header = False
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            [row] = list(csv.reader([line]))
        except (csv.Error, ValueError) as exc:
            raise DeckFileError(f"{source}, line {number}: {exc}") from None
        cells = [cell.strip() for cell in row]
        if not header:
            if [c.lower() for c in cells[:2]] != ["entry", "value"]:
                raise DeckFileError(
                    f"{source}, line {number}: the first line must be the header entry,value,source"
                )
            header = True
            continue
        if len(cells) < 2 or not cells[0]:
            raise DeckFileError(f"{source}, line {number}: a line is entry,value,source")
        if cells[0] in entries:
            raise DeckFileError(f"{source}, line {number}, entry {cells[0]!r}: given twice")
        entries[cells[0]] = Entry(cells[1], number)
    return build(entries, source=source)


def parse_document(data: Any, *, source: str = "component file") -> DeckConfig:
    """A component file read from JSON or TOML: each entry ``{"value": ..., "source": ...}`` or a bare value."""
    if not isinstance(data, dict):
        raise DeckFileError(f"{source} must be a JSON object")
    entries: dict[str, Entry] = {}
    for key, entry in data.items():
        if key.startswith("_"):
            continue  # comments
        if isinstance(entry, dict):
            if "value" not in entry:
                raise DeckFileError(f"{source}, entry {key!r}: has no 'value'")
            entry = entry["value"]
        entries[key] = Entry(entry)
    return build(entries, source=source)


def load_components(path: str | Path | None = None) -> DeckConfig:
    """The component counts of ``path`` (CSV, or JSON or TOML), or of the shipped ``data/deck.csv``.

    A file that cannot be read, parsed or used raises :class:`DeckFileError` with one sentence naming
    the file (and the line and entry when one is at fault)."""
    try:
        if path is None:
            label = f"the shipped component file {SHIPPED}"
            data = read_shipped("companion.games.time_splicers", SHIPPED)
        else:
            label = f"component file {path}"
            data = read_file(path, label="component file")
    except DataFileError as exc:
        raise DeckFileError(str(exc)) from None
    if isinstance(data, str):
        return parse_csv(data, source=label)
    return parse_document(data, source=label)
