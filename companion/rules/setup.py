"""A table's setup: its game, players, seats (which node is whose sandtimer) and timings.

The setup is fixed before the first event of a game (seats may be added during it by
an event, e.g. Space Dealer's Robot Factory). Referees are built from it.

Player names are what people are called ("José María", "O'Neil", "Дмитрий", "李雷"), shown
exactly as typed; :func:`clean_player_names` checks them (:data:`MAX_NAME_LENGTH`), and
:func:`player_id` derives the ASCII id used in addresses, cookie paths and topics.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from companion.core.protocol import is_valid_id
from companion.errors import ConfigError
from companion.rules.text import TextError, text

PLAYER_COLOURS = ("red", "yellow", "green", "blue", "purple", "orange", "white", "black")

INTRO_CLOCK_S = 12 * 60
FULL_CLOCK_S = 30 * 60
DEFAULT_SAND_S = 60.0
DEFAULT_GRACE_S = 2.0
EARLY_LIFTS = ("refuse", "warn", "ignore")
"""How a table treats a sandtimer lifted before its sand ran through: the rules refuse it (red),
it counts with a warning in the table's list, or it simply counts."""


@dataclass(frozen=True)
class Seat:
    """One sandtimer at the table: which player owns it and which node it is."""

    player: str
    index: int
    """1-based number of the timer among the player's timers."""
    node: str


@dataclass(frozen=True)
class TableSetup:
    """Everything fixed before the first event: the table, its game and its timers."""

    table: str
    game: str = "sandtimers"
    clock_length_s: float = INTRO_CLOCK_S
    sand_s: float = DEFAULT_SAND_S
    players: tuple[str, ...] = ()
    seats: tuple[Seat, ...] = ()
    variant: str = ""
    """Game variant, e.g. ``intro`` or ``full``; "" for the game's default."""
    seed: int = 0
    """Seed of every shuffle in the game, so a replay deals the same."""
    turn_limit: bool = True
    """Turn-based games: the sandtimer is a turn limit and running out forfeits the turn."""
    colours: tuple[str, ...] = ()
    """Each player's colour (from :data:`PLAYER_COLOURS`), in the order of ``players``."""
    grace_s: float = 0.0
    """A refused flip waits this long (real seconds) before the table flags it: turned back within
    it, both flips were an accident (a knock, a tip-over) and nothing counts. 0 flags at once."""
    early_lifts: str = "refuse"
    """One of :data:`EARLY_LIFTS`."""
    deck: str = "table"
    """Where the game's random components come from: ``table`` (the players shuffle the box and tell the
    hub what they draw) or ``hub`` (the hub shuffles and shows what is drawn), see :mod:`companion.rules.deck`."""
    components: str = ""
    """A table's own component file (corrected card or tile data), "" for the data the game ships."""

    @property
    def sand_ms(self) -> int:
        """The sandtimers' running time as a node counts it (milliseconds)."""
        return int(round(self.sand_s * 1000))

    def colour_of(self, player: str) -> str:
        if player in self.players and len(self.colours) == len(self.players):
            return self.colours[self.players.index(player)]
        return ""

    def seat_of(self, node: str) -> Seat | None:
        return self._seat_by_node.get(node)

    @cached_property
    def _seat_by_node(self) -> dict[str, Seat]:
        """The seats by node, built once per setup (the table looks a node up on every report)."""
        return {seat.node: seat for seat in self.seats}

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "game": self.game,
            "clock_length_s": self.clock_length_s,
            "sand_s": self.sand_s,
            "players": list(self.players),
            "seats": [{"player": s.player, "index": s.index, "node": s.node} for s in self.seats],
            "variant": self.variant,
            "seed": self.seed,
            "turn_limit": self.turn_limit,
            "colours": list(self.colours),
            "grace_s": self.grace_s,
            "early_lifts": self.early_lifts,
            "deck": self.deck,
            "components": self.components,
        }

    @classmethod
    def from_dict(cls, data: Any) -> TableSetup:
        try:
            seats = tuple(Seat(str(s["player"]), int(s["index"]), str(s["node"])) for s in data["seats"])
            return make_setup(
                table=str(data["table"]),
                game=str(data["game"]),
                clock_length_s=float(data["clock_length_s"]),
                sand_s=float(data["sand_s"]),
                players=tuple(str(p) for p in data["players"]),
                seats=seats,
                variant=str(data.get("variant", "")),
                seed=int(data.get("seed", 0)),
                turn_limit=bool(data.get("turn_limit", True)),
                colours=tuple(str(c) for c in data.get("colours", ())),
                grace_s=float(data.get("grace_s", 0.0)),
                early_lifts=str(data.get("early_lifts", "refuse")),
                deck=str(data.get("deck", "hub")),  # a setup saved before decks existed: the hub dealt
                components=str(data.get("components", "")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"table setup is incomplete or malformed ({exc})") from exc


# --- player names -------------------------------------------------------------------------------

MAX_NAME_LENGTH = 20
"""Longest player name, in characters (the setup page's inputs carry it as ``maxlength``)."""

NAME_PUNCTUATION = frozenset(" '\u2019-\u2010._")
"""Characters a name may hold besides letters, combining accents and digits: a space (inside the
name), apostrophes (' and ’), hyphens (- and ‐), a full stop ("Mª. José") and the underscore that
older setups allowed."""

JOINERS = frozenset("\u200c\u200d")
"""Zero-width (non-)joiners: invisible, but part of how some scripts (Persian, Indic) write names."""

_ASCII_FOR = {"æ": "ae", "ø": "o", "đ": "d", "ð": "d", "ł": "l", "þ": "th", "œ": "oe", "ı": "i", "ŋ": "n"}
"""Letters that Unicode does not decompose into a base letter, spelt in ASCII for ids."""

_NOT_ID = re.compile(r"[^a-z0-9]+")


class PlayerNameError(TextError, ConfigError):
    """A player name the table cannot use; the message names the name (``.text`` to translate it)."""


def _shown(name: str) -> str:
    """``name`` for a message: invisible and control characters as �, so the message stays readable."""
    return "".join("\ufffd" if _is_invisible(ch) else ch for ch in name)


def _is_invisible(ch: str) -> bool:
    category = unicodedata.category(ch)
    return (category[0] == "C" and ch not in JOINERS) or (category[0] == "Z" and ch != " ")


def check_player_name(name: str) -> None:
    """Raise :class:`PlayerNameError` unless ``name`` is a usable player name.

    A name is 1 to :data:`MAX_NAME_LENGTH` characters of letters of any script (with their
    accents), digits, spaces inside the name, apostrophes and hyphens; no control or
    invisible characters, no slashes or other symbols, no space at either end.
    """
    if not name:
        raise PlayerNameError(text("Every player needs a name"))
    shown = _shown(name)
    if any(_is_invisible(ch) for ch in name):
        raise PlayerNameError(
            text("The name “{name}” contains an invisible or control character", name=shown)
        )
    if name != name.strip():
        raise PlayerNameError(text("The name “{name}” starts or ends with a space", name=shown))
    length = len(unicodedata.normalize("NFC", name))
    if length > MAX_NAME_LENGTH:
        raise PlayerNameError(
            text(
                "The name “{name}” is longer than {count} character",
                "The name “{name}” is longer than {count} characters",
                name=shown,
                count=MAX_NAME_LENGTH,
            )
        )
    for ch in name:
        if ch in NAME_PUNCTUATION or unicodedata.category(ch)[0] in "LM" or ch in JOINERS:
            continue
        if unicodedata.category(ch) == "Nd":
            continue
        raise PlayerNameError(
            text(
                "The name “{name}” cannot contain “{char}”: use letters, digits, spaces, apostrophes and hyphens",
                name=shown,
                char=ch,
            )
        )
    if not any(unicodedata.category(ch)[0] == "L" or ch.isdigit() for ch in name):
        raise PlayerNameError(text("The name “{name}” needs at least one letter or digit", name=shown))


_SAME_MARK = str.maketrans({"\u2019": "'", "\u2010": "-"})


def name_key(name: str) -> str:
    """What two names are compared by: Unicode NFC, case-folded, one apostrophe and one hyphen
    ("ZOË" and "zoë" are one name, so are "O’Neil" and "O'Neil")."""
    return unicodedata.normalize("NFC", name).casefold().translate(_SAME_MARK)


def check_player_names(names: Sequence[str]) -> None:
    """Raise :class:`PlayerNameError` unless every name is usable and no two are the same person's.

    Two names are the same when they differ only in case or Unicode form (:func:`name_key`).
    """
    seen: dict[str, str] = {}
    ids: dict[str, str] = {}
    for name in names:
        check_player_name(name)
        key = name_key(name)
        if key in seen:
            raise PlayerNameError(text("Two players are called “{name}”", name=name))
        seen[key] = name
        pid = player_id(name)
        if pid in ids:  # two lossy spellings whose short hashes meet: astronomically rare
            raise PlayerNameError(
                text(
                    "The names “{name}” and “{other}” are too alike: change one of them",
                    name=ids[pid],
                    other=name,
                )
            )
        ids[pid] = name


def clean_player_names(raw: Iterable[str]) -> tuple[str, ...]:
    """Names as typed on the setup page, trimmed and in Unicode NFC, checked with :func:`check_player_names`.

    Case and spelling are kept: "José María" stays "José María".
    """
    names = tuple(unicodedata.normalize("NFC", name.strip()) for name in raw)
    check_player_names(names)
    return names


def player_id(name: str) -> str:
    """A stable id for ``name`` in addresses, cookie paths and topics: 1-27 characters of a-z, 0-9 and '-'.

    The name is folded to ASCII (accents dropped, "Æ" as "ae"), lowercased, and every run of other
    characters becomes "-". When that changed more than the case ("José María" → "jose-maria",
    "李雷" → nothing), a short hash of the name is added ("jose-maria-3f9a1c", "player-8e02b4"), so
    two different names never share an id: "anne-marie" stays "anne-marie", "Anne Marie" does not.
    """
    key = name_key(name)
    spelt = "".join(_ASCII_FOR.get(ch, ch) for ch in key)
    folded = unicodedata.normalize("NFKD", spelt).encode("ascii", "ignore").decode("ascii")
    base = _NOT_ID.sub("-", folded).strip("-")[:MAX_NAME_LENGTH].strip("-")
    if base and base == key:
        return base
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:6]
    return f"{base or 'player'}-{digest}"


def find_player(players: Iterable[str], wanted: str) -> str | None:
    """The seated player ``wanted`` names: their exact name, their :func:`player_id`, or their name in
    another case or Unicode form; None if no player."""
    players = tuple(players)
    if wanted in players:
        return wanted
    for player in players:
        if player_id(player) == wanted:
            return player
    key = name_key(wanted)
    for player in players:
        if name_key(player) == key:
            return player
    return None


def make_setup(
    *,
    table: str,
    game: str = "sandtimers",
    clock_length_s: float = INTRO_CLOCK_S,
    sand_s: float = DEFAULT_SAND_S,
    players: tuple[str, ...] = (),
    seats: tuple[Seat, ...] = (),
    variant: str = "",
    seed: int = 0,
    turn_limit: bool = True,
    colours: tuple[str, ...] = (),
    grace_s: float = 0.0,
    early_lifts: str = "refuse",
    deck: str = "table",
    components: str = "",
) -> TableSetup:
    """Build a checked :class:`TableSetup`."""
    if not is_valid_id(table):
        raise ConfigError(f"table id {table!r} must be 1-32 characters of a-z, 0-9, '_' or '-'")
    if not clock_length_s > 0:
        raise ConfigError("the master clock needs a positive length")
    if not sand_s > 0:
        raise ConfigError("a sandtimer needs a positive running time")
    check_player_names(tuple(players))
    nodes = [s.node for s in seats]
    if len(set(nodes)) != len(nodes):
        raise ConfigError("a node can sit in only one seat")
    for seat in seats:
        if not is_valid_id(seat.node):
            raise ConfigError(f"node id {seat.node!r} must be 1-32 characters of a-z, 0-9, '_' or '-'")
        if seat.player not in players:
            raise ConfigError(f"seat {seat.node!r} belongs to unknown player {seat.player!r}")
    if not 0 <= grace_s <= 10:
        raise ConfigError("the grace window for knocked sandtimers is 0 to 10 seconds")
    if early_lifts not in EARLY_LIFTS:
        raise ConfigError(f"early lifts are {', '.join(EARLY_LIFTS)}, not {early_lifts!r}")
    if deck not in ("table", "hub"):
        raise ConfigError(
            f"the deck is 'table' (the box on the table) or 'hub' (the hub shuffles), not {deck!r}"
        )
    return TableSetup(
        table,
        game,
        float(clock_length_s),
        float(sand_s),
        tuple(players),
        tuple(seats),
        variant,
        int(seed),
        bool(turn_limit),
        player_colours(tuple(players), tuple(colours)),
        float(grace_s),
        early_lifts,
        deck,
        components,
    )


def player_colours(players: tuple[str, ...], chosen: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A colour per player: the chosen ones, else a player named after a colour gets it, else the next free one."""
    if chosen:
        if len(chosen) != len(players):
            raise ConfigError("give one colour per player")
        unknown = [c for c in chosen if c not in PLAYER_COLOURS]
        if unknown:
            raise ConfigError(f"unknown colour {unknown[0]!r}; choose from {', '.join(PLAYER_COLOURS)}")
        if len(set(chosen)) != len(chosen):
            raise ConfigError("two players have the same colour")
        return tuple(chosen)
    if len(players) > len(PLAYER_COLOURS):
        raise ConfigError(f"at most {len(PLAYER_COLOURS)} players can have their own colour")
    taken = {p for p in players if p in PLAYER_COLOURS}
    free = [c for c in PLAYER_COLOURS if c not in taken]
    return tuple(p if p in PLAYER_COLOURS else free.pop(0) for p in players)


def default_setup(
    table: str = "demo",
    *,
    players: int = 4,
    timers: int = 2,
    clock_length_s: float = INTRO_CLOCK_S,
    sand_s: float = DEFAULT_SAND_S,
    game: str = "sandtimers",
    variant: str = "",
    seed: int = 0,
) -> TableSetup:
    """Players named by colour, each with ``timers`` nodes called ``<colour>-<n>``."""
    if not 1 <= players <= len(PLAYER_COLOURS):
        raise ConfigError(f"players must be between 1 and {len(PLAYER_COLOURS)}")
    if not 1 <= timers <= 4:
        raise ConfigError("timers per player must be between 1 and 4")
    names = PLAYER_COLOURS[:players]
    seats = tuple(Seat(p, i, f"{p}-{i}") for p in names for i in range(1, timers + 1))
    return make_setup(
        table=table,
        game=game,
        clock_length_s=clock_length_s,
        sand_s=sand_s,
        players=names,
        seats=seats,
        variant=variant,
        seed=seed,
    )
