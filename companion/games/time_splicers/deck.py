"""Time Splicers components: the cards and the counts the rulebook prints or leaves out.

The numbers live in ``deck.json`` next to this module. Each entry carries a ``source``;
those starting with ``ASSUMPTION`` are not printed in the rulebook (it lists 65 game
cards but not their colours, numbers or how many of each special card there are) and
should be checked against the box. :func:`load_deck` reads that file or a user's own,
through :mod:`companion.games.data`; the hub reads the shipped one once (``GAME.data``).
"""

from __future__ import annotations

from dataclasses import dataclass
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


class DeckFileError(ConfigError):
    """A Time Splicers deck file is missing, is not JSON, or its counts do not add up."""


@dataclass(frozen=True)
class Card:
    """One of the game cards."""

    id: str
    """Unique name used in records: ``red-5`` for numbered cards, ``time-jump-2`` for specials."""
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


@dataclass(frozen=True)
class DeckConfig:
    """Component counts for one box (see ``deck.json`` for where each number comes from)."""

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


_INT_FIELDS = (
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
    "total_cards",
)


def _value(data: dict[str, Any], key: str, label: str) -> Any:
    if key not in data:
        raise DeckFileError(f"{label} has no {key!r} entry")
    entry = data[key]
    if isinstance(entry, dict):
        if "value" not in entry:
            raise DeckFileError(f"{label}: entry {key!r} has no 'value'")
        return entry["value"]
    return entry


def parse_deck(data: Any, *, source: str = "deck file") -> DeckConfig:
    """Check a decoded deck document and build a :class:`DeckConfig`.

    Each entry is either ``{"value": ..., "source": ...}`` or a bare value; ``source`` names the file
    in the error messages.
    """
    label = source
    if not isinstance(data, dict):
        raise DeckFileError(f"{label} must be a JSON object")
    values: dict[str, Any] = {}
    for key in _INT_FIELDS:
        v = _value(data, key, label)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise DeckFileError(f"{label}: {key!r} must be a whole number of at least 0, not {v!r}")
        values[key] = v
    colours = _value(data, "colours", label)
    if (
        not isinstance(colours, list)
        or not colours
        or not all(isinstance(c, str) and c and "-" not in c for c in colours)
        or len(set(colours)) != len(colours)
    ):
        raise DeckFileError(f"{label}: 'colours' must be a list of distinct names without '-'")
    last = _value(data, "last_player_standing_wins", label)
    if not isinstance(last, bool):
        raise DeckFileError(f"{label}: 'last_player_standing_wins' must be true or false")
    config = DeckConfig(colours=tuple(colours), last_player_standing_wins=last, **values)
    if config.time_portal_cards != 1:
        raise DeckFileError(f"{label}: the game needs exactly one Time Portal card")
    if not config.lowest_number <= config.highest_number:
        raise DeckFileError(f"{label}: 'lowest_number' is above 'highest_number'")
    if not config.lowest_number <= config.singularity_number <= config.highest_number:
        raise DeckFileError(f"{label}: 'singularity_number' is not one of the card numbers")
    if config.copies_of_each_number_card < 1:
        raise DeckFileError(f"{label}: 'copies_of_each_number_card' must be at least 1")
    if not 1 <= config.min_players <= config.max_players:
        raise DeckFileError(f"{label}: player counts must satisfy 1 <= min_players <= max_players")
    if not 0 < config.hand_minimum <= config.hand_maximum:
        raise DeckFileError(f"{label}: hand limits must satisfy 0 < hand_minimum <= hand_maximum")
    if config.starting_hand > config.hand_maximum:
        raise DeckFileError(f"{label}: 'starting_hand' is above 'hand_maximum'")
    if config.crystals_to_win < 1:
        raise DeckFileError(f"{label}: 'crystals_to_win' must be at least 1")
    counted = len(config.cards())
    if counted != config.total_cards:
        raise DeckFileError(
            f"{label}: the card counts add up to {counted}, but 'total_cards' says {config.total_cards}"
        )
    return config


def load_deck(path: str | Path | None = None) -> DeckConfig:
    """Load the component counts from ``path`` (JSON or TOML), or the shipped ``deck.json`` when None.

    A file that cannot be read or parsed raises :class:`DeckFileError` with one sentence naming it.
    """
    try:
        if path is None:
            return parse_deck(
                read_shipped("companion.games.time_splicers", "deck.json"),
                source="deck file the built-in deck.json",
            )
        data = read_file(path, label="deck file")
    except DataFileError as exc:
        raise DeckFileError(str(exc)) from None
    return parse_deck(data, source=f"deck file {path}")
