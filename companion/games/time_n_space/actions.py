"""Actions the hub sends to the Time 'n' Space engine, the choices a lift carries, and the events.

Time facts are actions too: the engine never reads a clock. The hub reports that a
sandtimer ran out (:class:`SandRanOut`) or that the master clock expired
(:class:`MasterClockExpired`), and the engine checks what players do against them.
"""

from __future__ import annotations

from dataclasses import dataclass

# --- choices carried by LiftTimer ------------------------------------------------------


@dataclass(frozen=True)
class OrderPlacement:
    """Put one own order counter (colour, value) from above the control center onto a spot."""

    color: str
    value: int
    building: str
    spot: int


@dataclass(frozen=True)
class Delivery:
    """Fulfil one order counter on the planet the spaceship is at ("1. Your spaceship")."""

    color: str
    value: int
    space: tuple[str, int] | None = None
    """The planet owner's pick among identical counters: (building id, spot). ``None``: the first one."""
    cubes: tuple[tuple[str, int], ...] | None = None
    """The deliverer's cubes, as (beam station id, spot). ``None``: the first matching cubes."""


@dataclass(frozen=True)
class Deliver:
    """At another player's planet: fulfil these orders, in this order."""

    orders: tuple[Delivery, ...]


@dataclass(frozen=True)
class MoonTile:
    """At a moon (full game): take the top tile into the research plant, or put it under the pile."""

    research: bool


@dataclass(frozen=True)
class Produce:
    """Production plant: fill free spots from the supply. ``spots=None`` fills every spot it can."""

    spots: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Beam:
    """Beam station: move these cubes (production plant id, spot) onto the station's free spots."""

    cubes: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Trade:
    """Trading center: place up to its number of own order counters onto free order spaces."""

    orders: tuple[OrderPlacement, ...]


@dataclass(frozen=True)
class Build:
    """Research plant: build the waiting stage II tile over this free stage I building."""

    building: str


@dataclass(frozen=True)
class Upgrade:
    """Instead of a stage II building's action: flip the unoccupied tile to stage III."""


Choice = Deliver | MoonTile | Produce | Beam | Trade | Build | Upgrade


# --- actions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PlaceStartingOrders:
    """Full-game setup step 9: the 2 secretly picked counters go onto 2 order spaces."""

    player: str
    orders: tuple[OrderPlacement, ...]


@dataclass(frozen=True)
class StartGame:
    """The master clock was started: players may flip their sandtimers."""


@dataclass(frozen=True)
class PlaceTimer:
    """A player flipped a sandtimer onto a time symbol (``ship``, ``research`` or a building id).

    ``symbol`` may be written ``owner:symbol`` to name another player's symbol (always refused).
    ``destination`` is only for the spaceship: the location to travel to (``None``: stay).
    """

    player: str
    timer: int
    symbol: str | None
    destination: str | None = None


@dataclass(frozen=True)
class SandRanOut:
    """Time fact: the sand of this sandtimer has run through."""

    player: str
    timer: int


@dataclass(frozen=True)
class LiftTimer:
    """A player lifted a finished sandtimer: execute the symbol's action with ``choice``, or forfeit (``None``)."""

    player: str
    timer: int
    choice: Choice | None = None


@dataclass(frozen=True)
class ParkTimer:
    """A player set a finished sandtimer aside in front of them (its action, if any, is forfeited)."""

    player: str
    timer: int


@dataclass(frozen=True)
class LiftTogether:
    """Several spaceships arrived at ``owner``'s planet and were lifted at the same moment.

    The planet's owner decides the order: ``lifts`` are applied in the order given.
    """

    owner: str
    lifts: tuple[LiftTimer, ...]


@dataclass(frozen=True)
class MasterClockExpired:
    """Time fact: the master clock ran out (12 or 30 minutes)."""


Action = (
    PlaceStartingOrders
    | StartGame
    | PlaceTimer
    | SandRanOut
    | LiftTimer
    | ParkTimer
    | LiftTogether
    | MasterClockExpired
)


# --- events ----------------------------------------------------------------------------


@dataclass(frozen=True)
class StartingOrdersPlaced:
    player: str
    orders: tuple[OrderPlacement, ...]


@dataclass(frozen=True)
class GameStarted:
    pass


@dataclass(frozen=True)
class TimerPlaced:
    player: str
    timer: int
    symbol: str
    destination: str | None


@dataclass(frozen=True)
class SandRanThrough:
    player: str
    timer: int


@dataclass(frozen=True)
class TimerLifted:
    player: str
    timer: int
    symbol: str


@dataclass(frozen=True)
class ActionForfeited:
    player: str
    symbol: str


@dataclass(frozen=True)
class TimerParked:
    player: str
    timer: int


@dataclass(frozen=True)
class ShipArrived:
    player: str
    location: str


@dataclass(frozen=True)
class TileTaken:
    player: str
    moon: str
    tile: str


@dataclass(frozen=True)
class TilePutUnder:
    player: str
    moon: str
    tile: str


@dataclass(frozen=True)
class OrderFulfilled:
    player: str
    owner: str
    color: str
    value: int
    space: tuple[str, int]


@dataclass(frozen=True)
class BonusTaken:
    player: str
    planet_owner: str
    value: int


@dataclass(frozen=True)
class GoodsProduced:
    player: str
    building: str
    colors: tuple[str, ...]


@dataclass(frozen=True)
class GoodsBeamed:
    player: str
    building: str
    colors: tuple[str, ...]


@dataclass(frozen=True)
class OrdersPlaced:
    player: str
    orders: tuple[OrderPlacement, ...]


@dataclass(frozen=True)
class BuildingBuilt:
    player: str
    building: str
    tile: str


@dataclass(frozen=True)
class BuildingUpgraded:
    player: str
    building: str


@dataclass(frozen=True)
class ClockRanOut:
    pass


@dataclass(frozen=True)
class GameEnded:
    pass
