"""A table's setup: its game, players, seats (which node is whose sandtimer) and timings.

The setup is fixed before the first event of a game (seats may be added during it by
an event, e.g. Space Dealer's Robot Factory). Referees are built from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.core.protocol import is_valid_id
from companion.errors import ConfigError

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

    @property
    def sand_ms(self) -> int:
        """The sandtimers' running time as a node counts it (milliseconds)."""
        return int(round(self.sand_s * 1000))

    def colour_of(self, player: str) -> str:
        if player in self.players and len(self.colours) == len(self.players):
            return self.colours[self.players.index(player)]
        return ""

    def seat_of(self, node: str) -> Seat | None:
        for seat in self.seats:
            if seat.node == node:
                return seat
        return None

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
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"table setup is incomplete or malformed ({exc})") from exc


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
) -> TableSetup:
    """Build a checked :class:`TableSetup`."""
    if not is_valid_id(table):
        raise ConfigError(f"table id {table!r} must be 1-32 characters of a-z, 0-9, '_' or '-'")
    if not clock_length_s > 0:
        raise ConfigError("the master clock needs a positive length")
    if not sand_s > 0:
        raise ConfigError("a sandtimer needs a positive running time")
    nodes = [s.node for s in seats]
    if len(set(nodes)) != len(nodes):
        raise ConfigError("a node can sit in only one seat")
    for seat in seats:
        if not is_valid_id(seat.node):
            raise ConfigError(f"node id {seat.node!r} must be 1-32 characters of a-z, 0-9, '_' or '-'")
        if seat.player not in players:
            raise ConfigError(f"seat {seat.node!r} belongs to unknown player {seat.player!r}")
    if len(set(players)) != len(players):
        raise ConfigError("player names must be different")
    if not 0 <= grace_s <= 10:
        raise ConfigError("the grace window for knocked sandtimers is 0 to 10 seconds")
    if early_lifts not in EARLY_LIFTS:
        raise ConfigError(f"early lifts are {', '.join(EARLY_LIFTS)}, not {early_lifts!r}")
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
