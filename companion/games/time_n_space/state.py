"""The state of a game of Time 'n' Space: frozen values only, so states compare and replay exactly.

Nothing here decides a rule; :mod:`companion.games.time_n_space.engine` does. The state
is self-contained (it carries the building specs and tiles it needs), so a replay of the
same actions from the same setup gives an equal state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.games.time_n_space.components import BuildingSpec, Tile
from companion.games.time_n_space.scoring import COLORS

SHIP = "ship"
"""Time symbol of a player's spaceship (on the main board)."""
RESEARCH = "research"
"""Time symbol of a player's research plant."""

PHASE_SETUP = "setup"
"""Before the master clock starts: sandtimers may not be flipped (setup step 5)."""
PHASE_RUNNING = "running"
"""The master clock runs: sandtimers may be placed."""
PHASE_ENDING = "ending"
"""The master clock ran out: no placing, running timers may still finish ("End of the Game")."""
PHASE_OVER = "over"
"""Every timer was lifted after the master clock ran out: final scoring."""


@dataclass(frozen=True)
class Cube:
    """A goods cube on a spot."""

    color: str


@dataclass(frozen=True)
class Order:
    """An order counter: owner's symbol, goods colour and printed value."""

    owner: str
    color: str
    value: int


Content = Cube | Order | None
"""What a spot holds: a goods cube, an order counter, or nothing (free)."""


@dataclass(frozen=True)
class Building:
    """A building on a control center: printed stage I, or a tile at stage II or III."""

    id: str
    spec: BuildingSpec
    stage: int
    """1 (printed), 2 (tile front) or 3 (tile back)."""
    tile: Tile | None
    contents: tuple[Content, ...]
    """One entry per spot of ``spec`` (empty for trading centers)."""

    @property
    def type(self) -> str:
        return self.spec.type

    def is_unoccupied(self) -> bool:
        """No goods cube and no order counter on any spot."""
        return all(c is None for c in self.contents)

    def free_spots(self) -> list[int]:
        return [i for i, c in enumerate(self.contents) if c is None]


@dataclass(frozen=True)
class Timer:
    """One sandtimer of a player."""

    symbol: str | None = None
    """Time symbol it stands on, or ``None`` while it stands in front of its player (parked)."""
    running: bool = False
    """True while the sand is still running (only on a symbol)."""
    destination: str | None = None
    """On the spaceship: the location the ship flies to (``None``: it stays)."""


@dataclass(frozen=True)
class Collected:
    """An order counter a player fulfilled and keeps beneath their control center."""

    color: str
    value: int
    source: str


@dataclass(frozen=True)
class PlayerState:
    """Everything that belongs to one player."""

    name: str
    planet: str
    """Location id of the player's planet (``planet-N`` by seat)."""
    buildings: tuple[Building, ...]
    research: Tile | None
    """The stage II tile waiting in the research plant, if any."""
    above: tuple[Order, ...]
    """Own order counters still above the control center, sorted."""
    collected: tuple[Collected, ...]
    bonus: tuple[int, ...]
    ship: str
    """Location of the spaceship (while travelling: where it started)."""
    timers: tuple[Timer, ...]
    ready: bool
    """Full game: the 2 secretly picked starting orders are placed."""

    def building(self, building_id: str) -> Building | None:
        for b in self.buildings:
            if b.id == building_id:
                return b
        return None

    def with_building(self, building: Building) -> PlayerState:
        return replace(self, buildings=tuple(building if b.id == building.id else b for b in self.buildings))

    def placed_orders(self) -> list[tuple[str, int, Order]]:
        """(building id, spot, counter) of every own order counter on the control center."""
        return [
            (b.id, i, c) for b in self.buildings for i, c in enumerate(b.contents) if isinstance(c, Order)
        ]

    def cubes(self) -> int:
        return sum(isinstance(c, Cube) for b in self.buildings for c in b.contents)


@dataclass(frozen=True)
class GameState:
    """A whole table."""

    variant: str
    """``intro`` or ``full``."""
    players: tuple[PlayerState, ...]
    supply: tuple[int, ...]
    """Goods cubes in the supply, per colour in :data:`COLORS` order."""
    goods_total: int
    """All goods cubes of the game (supply plus control centers)."""
    moons: tuple[str, ...]
    wormholes: tuple[tuple[str, str], ...]
    piles: tuple[tuple[Tile, ...], ...]
    """Building-tile pile at each moon (parallel to ``moons``), top tile first."""
    planet_bonus: tuple[int | None, ...]
    """Bonus order counter still lying on each player's planet (parallel to ``players``)."""
    phase: str
    seed: int | None = None
    """Seed the full setup shuffled the tiles with (``None`` for the introductory game)."""

    def player(self, name: str) -> PlayerState | None:
        for p in self.players:
            if p.name == name:
                return p
        return None

    def with_player(self, player: PlayerState) -> GameState:
        return replace(self, players=tuple(player if p.name == player.name else p for p in self.players))

    def owner_of(self, location: str) -> PlayerState | None:
        """The player whose planet ``location`` is, or ``None`` for a moon."""
        for p in self.players:
            if p.planet == location:
                return p
        return None

    def neighbours(self, location: str) -> list[str]:
        """Locations one wormhole away."""
        out = []
        for a, b in self.wormholes:
            if a == location:
                out.append(b)
            elif b == location:
                out.append(a)
        return sorted(set(out))

    def pile(self, moon: str) -> tuple[Tile, ...]:
        return self.piles[self.moons.index(moon)]

    def supply_of(self, color: str) -> int:
        return self.supply[COLORS.index(color)]

    def goods_on_board(self) -> int:
        return sum(p.cubes() for p in self.players)
