"""What a game of Time 'n' Space is made of: its state, the engine's actions and events, the phone's moves and intents.

Frozen values only, so states compare and replay exactly and the game's codec writes every
one of them as JSON (``{"@": "ClassName", ...}``). Nothing here decides a rule:
:mod:`.engine` does. The state is self-contained (it carries the building specs and tiles it
needs), so a replay of the same actions from the same setup gives an equal state.

Time facts are actions too: the engine never reads a clock. The table reports that a
sandtimer ran out (:class:`SandRanOut`) or that the master clock expired
(:class:`MasterClockExpired`), and the engine checks what players do against them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from companion.games.time_n_space.components import COLORS, BuildingSpec, Tile
from companion.rules.deck import Pile

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


# --- the state --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cube:
    """A goods cube on a spot."""

    color: str
    """One of the four goods colours."""


@dataclass(frozen=True)
class Order:
    """An order counter: owner's symbol, goods colour and printed value."""

    owner: str
    """The player whose symbol the counter shows."""
    color: str
    """Goods colour (the order type)."""
    value: int
    """Printed number: goods needed, and points in the final scoring."""


Content = Cube | Order | None
"""What a spot holds: a goods cube, an order counter, or nothing (free)."""


@dataclass(frozen=True)
class Building:
    """A building on a control center: printed stage I, or a tile at stage II or III."""

    id: str
    """``b1`` ... ``b8``: the place on the control center."""
    spec: BuildingSpec
    """What the building offers at its current stage."""
    stage: int
    """1 (printed), 2 (tile front) or 3 (tile back)."""
    tile: Tile | None
    """The tile built here (``None`` for the printed stage I building)."""
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
    """Goods colour of the counter."""
    value: int
    """Printed value."""
    source: str
    """The player it came from (whose planet it was fulfilled at)."""


@dataclass(frozen=True)
class Handover:
    """A planet owner's pick: which of several identical order counters goes first ("1. Your spaceship")."""

    owner: str
    """The planet's owner, whose counter it is."""
    color: str
    """Colour of the identical counters."""
    value: int
    """Their value."""
    building: str
    """Building of the counter handed over first."""
    spot: int
    """Its spot (0-based)."""


@dataclass(frozen=True)
class OcherCover:
    """Introductory setup, steps 7 and 8: the building a player covers with the random ocher tile."""

    building: str
    """The building the tile covers (stage III up)."""
    goods: tuple[int, ...]
    """Its spots that get a goods cube of the tile's colour once it lies there (setup step 8)."""
    tile: str | None = None
    """The tile the player drew (``None``: not told to the hub yet)."""


@dataclass(frozen=True)
class PlayerState:
    """Everything that belongs to one player."""

    name: str
    """The player's name at the table."""
    planet: str
    """Location id of the player's planet (``planet-N`` by seat)."""
    buildings: tuple[Building, ...]
    """The eight buildings of the control center, in layout order."""
    research: Tile | None
    """The stage II tile waiting in the research plant, if any."""
    above: tuple[Order, ...]
    """Own order counters still above the control center, sorted."""
    collected: tuple[Collected, ...]
    """Counters fulfilled for other players, beneath the control center."""
    bonus: tuple[int, ...]
    """Values of the bonus order counters taken."""
    ship: str
    """Location of the spaceship (while travelling: where it started)."""
    timers: tuple[Timer, ...]
    """The player's sandtimers (0 and 1)."""
    ready: bool
    """Full game: the 2 secretly picked starting orders are placed. Introductory game: the random
    ocher tile is on the control center."""
    ocher: OcherCover | None = None
    """Introductory game: where the random ocher tile lies (``None`` in the full game)."""

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
    """In seat order; the N-th owns ``planet-N``."""
    supply: tuple[int, ...]
    """Goods cubes in the supply, per colour in :data:`COLORS` order."""
    goods_total: int
    """All goods cubes of the game (supply plus control centers)."""
    moons: tuple[str, ...]
    """The moons of the board side in use."""
    wormholes: tuple[tuple[str, str], ...]
    """Pairs of places joined by a wormhole."""
    piles: tuple[tuple[str | None, ...], ...]
    """The building-tile pile at each moon (parallel to ``moons``), top first, each tile as far as the
    hub knows it: a tile id, or ``None`` for a tile it has not seen. A table deck starts with every
    tile unknown (the players shuffled them), the hub deck with its own order."""
    planet_bonus: tuple[int | None, ...]
    """Bonus order counter still lying on each player's planet (parallel to ``players``)."""
    phase: str
    """One of the ``PHASE_*`` values."""
    seed: int | None = None
    """Seed the full setup shuffled the tiles with (``None`` for the introductory game)."""
    handover: tuple[Handover, ...] = ()
    """The planet owners' standing picks among identical counters (one per owner, colour and value)."""
    tiles: tuple[Tile, ...] = ()
    """Every building tile of the box (what a tile id stands for)."""
    unseen: Pile = Pile()
    """The tiles lying in the moons' piles, all piles together: what a pile can still hold."""
    ocher: Pile = Pile()
    """Introductory game: the ocher tiles nobody has drawn (each player draws one at random)."""

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

    def pile(self, moon: str) -> tuple[str | None, ...]:
        """The pile at ``moon``, top first, as far as known."""
        return self.piles[self.moons.index(moon)]

    def height(self, moon: str) -> int:
        """How many tiles lie at ``moon``."""
        return len(self.pile(moon))

    def top(self, moon: str) -> Tile | None:
        """The top tile at ``moon`` when the hub knows it (the hub deck), else ``None``."""
        pile = self.pile(moon)
        return self.tile(pile[0]) if pile and pile[0] is not None else None

    def tile(self, tile_id: str) -> Tile | None:
        """The box's tile ``tile_id``."""
        for tile in self.tiles:
            if tile.id == tile_id:
                return tile
        return None

    def possible_tops(self, moon: str) -> Pile:
        """What can lie on top at ``moon``: the known top, else every tile of the piles that the hub
        has not seen elsewhere (a tile known to lie in another place cannot be here)."""
        pile = self.pile(moon)
        if not pile:
            return Pile()
        if pile[0] is not None:
            return Pile.of([pile[0]])
        known = [t for p in self.piles for t in p if t is not None]
        left = list(self.unseen.items())
        for tile in known:
            if tile in left:
                left.remove(tile)
        return Pile.of(left)

    def supply_of(self, color: str) -> int:
        return self.supply[COLORS.index(color)]

    def goods_on_board(self) -> int:
        return sum(p.cubes() for p in self.players)

    def handover_pick(self, owner: PlayerState, color: str, value: int) -> tuple[str, int] | None:
        """The owner's standing pick for (colour, value), if that spot still holds such a counter."""
        for h in self.handover:
            if (h.owner, h.color, h.value) == (owner.name, color, value):
                b = owner.building(h.building)
                if b is not None and 0 <= h.spot < len(b.contents):
                    if b.contents[h.spot] == Order(owner.name, color, value):
                        return h.building, h.spot
        return None


# --- the choices a lift carries ---------------------------------------------------------------------


@dataclass(frozen=True)
class OrderPlacement:
    """Put one own order counter (colour, value) from above the control center onto a spot."""

    color: str
    """Colour of the counter."""
    value: int
    """Its value."""
    building: str
    """The building whose spot takes it (a production plant or beam station)."""
    spot: int
    """The spot (0-based)."""


@dataclass(frozen=True)
class Delivery:
    """Fulfil one order counter on the planet the spaceship is at ("1. Your spaceship")."""

    color: str
    """Colour of the order."""
    value: int
    """Its value: the cubes it needs."""
    space: tuple[str, int] | None = None
    """The planet owner's pick among identical counters: (building id, spot). ``None``: the owner's
    standing pick (:class:`Handover`), else the first one."""
    cubes: tuple[tuple[str, int], ...] | None = None
    """The deliverer's cubes, as (beam station id, spot). ``None``: the first matching cubes."""


@dataclass(frozen=True)
class Deliver:
    """At another player's planet: fulfil these orders, in this order."""

    orders: tuple[Delivery, ...]
    """The orders, fulfilled one after the other."""


@dataclass(frozen=True)
class MoonTile:
    """At a moon (full game): take the top tile into the research plant, or put it under the pile."""

    research: bool
    """True: into the research plant; False: under the pile."""
    tile: str | None = None
    """The tile the player found on top (read off the table); ``None`` when the hub knows it (the hub
    deck) or when it goes under the pile unseen. Taking a tile the hub does not know needs it."""


@dataclass(frozen=True)
class Produce:
    """Production plant: fill free spots from the supply."""

    spots: tuple[int, ...] | None = None
    """The spots to fill; ``None`` fills every spot it can."""


@dataclass(frozen=True)
class Beam:
    """Beam station: move cubes from production plants onto the station's free spots."""

    cubes: tuple[tuple[str, int], ...]
    """The cubes, as (production plant id, spot)."""


@dataclass(frozen=True)
class Trade:
    """Trading center: place up to its number of own order counters onto free order spaces."""

    orders: tuple[OrderPlacement, ...]
    """The counters placed and where."""


@dataclass(frozen=True)
class Build:
    """Research plant: build the waiting stage II tile over this free stage I building."""

    building: str
    """The stage I building built over."""


@dataclass(frozen=True)
class Upgrade:
    """Instead of a stage II building's action: flip the unoccupied tile to stage III."""


Choice = Deliver | MoonTile | Produce | Beam | Trade | Build | Upgrade


# --- the engine's actions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PlaceStartingOrders:
    """Full-game setup step 9: the 2 secretly picked counters go onto 2 order spaces."""

    player: str
    """Who places them."""
    orders: tuple[OrderPlacement, ...]
    """The 2 counters and their order spaces."""


@dataclass(frozen=True)
class StartGame:
    """The master clock was started: players may flip their sandtimers."""


@dataclass(frozen=True)
class PlaceTimer:
    """A player flipped a sandtimer onto a time symbol (``ship``, ``research`` or a building id)."""

    player: str
    """Whose sandtimer."""
    timer: int
    """Which of theirs (0-based)."""
    symbol: str | None
    """The time symbol; ``owner:symbol`` names another player's symbol (always refused)."""
    destination: str | None = None
    """Only for the spaceship: the location to travel to (``None``: stay)."""


@dataclass(frozen=True)
class SandRanOut:
    """Time fact: the sand of this sandtimer has run through."""

    player: str
    """Whose sandtimer."""
    timer: int
    """Which of theirs (0-based)."""


@dataclass(frozen=True)
class LiftTimer:
    """A player lifted a finished sandtimer: execute the symbol's action with ``choice``, or forfeit."""

    player: str
    """Whose sandtimer."""
    timer: int
    """Which of theirs (0-based)."""
    choice: Choice | None = None
    """What the action does; ``None`` forfeits it."""


@dataclass(frozen=True)
class ParkTimer:
    """A player set a finished sandtimer aside in front of them (its action, if any, is forfeited)."""

    player: str
    """Whose sandtimer."""
    timer: int
    """Which of theirs (0-based)."""


@dataclass(frozen=True)
class LiftTogether:
    """Several spaceships arrived at ``owner``'s planet and were lifted at the same moment."""

    owner: str
    """The planet's owner, who decides the order."""
    lifts: tuple[LiftTimer, ...]
    """The lifts, applied in the order given."""


@dataclass(frozen=True)
class ChooseHandover:
    """A planet owner picks which of several identical order counters they hand over first."""

    owner: str
    """The planet's owner."""
    color: str
    """Colour of the counter."""
    value: int
    """Its value."""
    building: str
    """Building of the counter handed over first."""
    spot: int
    """Its spot (0-based)."""


@dataclass(frozen=True)
class TakeOcherTile:
    """Introductory setup, step 7: the random ocher tile a player drew (a correction replaces it)."""

    player: str
    """Who drew it."""
    tile: str
    """The tile (any of the identical tiles of its kind will do)."""


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
    | ChooseHandover
    | TakeOcherTile
    | MasterClockExpired
)


# --- events (past tense) ----------------------------------------------------------------------------


@dataclass(frozen=True)
class StartingOrdersPlaced:
    """A player placed their 2 starting orders (full game)."""

    player: str
    """Who placed them."""
    orders: tuple[OrderPlacement, ...]
    """The counters and their order spaces."""


@dataclass(frozen=True)
class GameStarted:
    """The master clock started."""


@dataclass(frozen=True)
class TimerPlaced:
    """A sandtimer was flipped onto a time symbol."""

    player: str
    """Whose sandtimer."""
    timer: int
    """Which of theirs (0-based)."""
    symbol: str
    """The time symbol."""
    destination: str | None
    """The spaceship's destination (``None``: it stays)."""


@dataclass(frozen=True)
class SandRanThrough:
    """A sandtimer's sand ran through."""

    player: str
    """Whose sandtimer."""
    timer: int
    """Which of theirs (0-based)."""


@dataclass(frozen=True)
class TimerLifted:
    """A finished sandtimer was lifted from its time symbol."""

    player: str
    """Whose sandtimer."""
    timer: int
    """Which of theirs (0-based)."""
    symbol: str
    """The time symbol it stood on."""


@dataclass(frozen=True)
class ActionForfeited:
    """A lift did not execute its symbol's action."""

    player: str
    """Who forfeited."""
    symbol: str
    """The time symbol."""


@dataclass(frozen=True)
class TimerParked:
    """A sandtimer was set aside in front of its player."""

    player: str
    """Whose sandtimer."""
    timer: int
    """Which of theirs (0-based)."""


@dataclass(frozen=True)
class ShipArrived:
    """A spaceship arrived at the end of its wormhole."""

    player: str
    """Whose ship."""
    location: str
    """Where it arrived."""


@dataclass(frozen=True)
class TileTaken:
    """The top tile of a moon's pile went into a research plant."""

    player: str
    """Who took it."""
    moon: str
    """The moon of the pile."""
    tile: str
    """The tile."""


@dataclass(frozen=True)
class TilePutUnder:
    """The top tile of a moon's pile went under the pile."""

    player: str
    """Who moved it."""
    moon: str
    """The moon of the pile."""
    tile: str | None
    """The tile, when the hub knows it."""


@dataclass(frozen=True)
class OcherTileTaken:
    """A player's random ocher tile covers its building (introductory setup)."""

    player: str
    """Whose control center."""
    tile: str
    """The tile."""
    building: str
    """The building it covers."""


@dataclass(frozen=True)
class OrderFulfilled:
    """An order counter was fulfilled and handed over."""

    player: str
    """Who fulfilled it."""
    owner: str
    """Whose counter it was."""
    color: str
    """Its colour."""
    value: int
    """Its value."""
    space: tuple[str, int]
    """The (building, spot) it was taken from."""


@dataclass(frozen=True)
class BonusTaken:
    """The first fulfiller at a planet took its bonus counter."""

    player: str
    """Who took it."""
    planet_owner: str
    """Whose planet it lay on."""
    value: int
    """Its value."""


@dataclass(frozen=True)
class GoodsProduced:
    """A production plant filled its free spots."""

    player: str
    """Whose plant."""
    building: str
    """The plant."""
    colors: tuple[str, ...]
    """The cubes made (none when the supply had none)."""


@dataclass(frozen=True)
class GoodsBeamed:
    """A beam station took cubes from production plants."""

    player: str
    """Whose station."""
    building: str
    """The station."""
    colors: tuple[str, ...]
    """The cubes beamed."""


@dataclass(frozen=True)
class OrdersPlaced:
    """A trading center placed order counters."""

    player: str
    """Whose trading center."""
    orders: tuple[OrderPlacement, ...]
    """The counters and their order spaces."""


@dataclass(frozen=True)
class BuildingBuilt:
    """The research plant built its tile over a stage I building."""

    player: str
    """Whose control center."""
    building: str
    """The building built over."""
    tile: str
    """The tile."""


@dataclass(frozen=True)
class BuildingUpgraded:
    """A stage II building was flipped to stage III."""

    player: str
    """Whose building."""
    building: str
    """The building."""


@dataclass(frozen=True)
class HandoverChosen:
    """A planet owner picked which of several identical order counters goes first."""

    owner: str
    """The planet's owner."""
    color: str
    """Colour of the counter."""
    value: int
    """Its value."""
    building: str
    """Its building."""
    spot: int
    """Its spot (0-based)."""


@dataclass(frozen=True)
class ClockRanOut:
    """The master clock ran out: no more placing."""


@dataclass(frozen=True)
class GameEnded:
    """Every sandtimer is lifted after the master clock: the game is over."""


# --- what a phone sends -----------------------------------------------------------------------------

MoonChoice = Literal["research", "bottom", "skip"]
"""At a moon: take the top tile into the research plant, put it under the pile, or skip (one or no tile left)."""


@dataclass(frozen=True)
class Intent:
    """A player's choices for one sandtimer's next flip, stored by the table until the flip.

    Every field left at its default means "the default" (see :mod:`.choices`). Timers are
    lifted with these choices, then placed on ``symbol``.
    """

    symbol: str | None = None
    """The next time symbol (``ship``, ``research`` or a building id); ``None``: the default."""
    destination: str | None = None
    """For ``ship``: the place to fly to; ``None``: stay."""
    forfeit: bool = False
    """Forfeit the action of the lift."""
    upgrade: bool = False
    """Upgrade the stage II building instead of its action."""
    beam: tuple[tuple[str, int], ...] | None = None
    """Beam station: the cubes to beam, as (production plant, spot); ``None``: the default."""
    deliver: tuple[tuple[str, int], ...] | None = None
    """Spaceship at another player's planet: the orders to fulfil, as (colour, value); ``None``: the default."""
    trade: tuple[tuple[str, int], ...] | None = None
    """Trading center: the counters to place, as (colour, value); ``None``: the default."""
    spaces: tuple[tuple[str, int], ...] = ()
    """Trading center: the order spaces for them, as (building, spot), chosen ones first."""
    build: str | None = None
    """Research plant: the building to build onto; ``None``: the default."""
    moon: MoonChoice | None = None
    """Spaceship at a moon (full game); ``None``: the default."""
    tile: str | None = None
    """Spaceship at a moon: the tile on top of the pile, as the player reads it off the table (needed to
    take a tile the hub does not know)."""
    start_orders: tuple[tuple[str, int], ...] | None = None
    """Full game, before the clock: the 2 starting counters, as (colour, value); ``None``: the default."""
    start_spaces: tuple[tuple[str, int], ...] = ()
    """Full game, before the clock: their order spaces, as (building, spot), chosen ones first."""


@dataclass(frozen=True)
class Lift:
    """Lift a finished sandtimer now with these choices and set it aside (no placement)."""

    timer: int
    """The timer as the table numbers it (1 or 2)."""
    intent: Intent = Intent()
    """The choices of the lift."""


@dataclass(frozen=True)
class Ship:
    """One spaceship lifted together with others: its player and timer (1 or 2)."""

    player: str
    """The player whose ship it is."""
    timer: int
    """The timer on the spaceship, as the table numbers it (1 or 2)."""


@dataclass(frozen=True)
class LiftShipsTogether:
    """The planet's owner lifts the ships that arrived at their planet at the same moment, in this order."""

    ships: tuple[Ship, ...]
    """Two or more ships, the one that fulfils first first."""


@dataclass(frozen=True)
class LiftEveryFinished:
    """After the master clock ran out: lift every finished sandtimer with its default action."""


@dataclass(frozen=True)
class HandOverFirst:
    """The planet's owner hands over this one of several identical order counters first."""

    color: str
    """Colour of the counter."""
    value: int
    """Its value."""
    building: str
    """Its building."""
    spot: int
    """Its spot (0-based)."""


@dataclass(frozen=True)
class StartingOrders:
    """Full game, before the clock: the player's 2 secretly picked counters and their order spaces."""

    orders: tuple[OrderPlacement, ...]
    """The 2 counters and where they go."""


@dataclass(frozen=True)
class OcherTile:
    """Introductory game, before the clock: the random ocher tile I drew (a correction replaces it)."""

    tile: str
    """The tile."""


@dataclass(frozen=True)
class SheetCounter:
    """One counter on a score sheet (light mode)."""

    color: str
    """Its colour."""
    value: int
    """Its printed value."""
    source: str = ""
    """For a collected counter: the player it came from ("" for a counter still above)."""


@dataclass(frozen=True)
class SheetEntry:
    """One player's score-sheet entry (light mode), as ``companion score time-n-space`` reads it."""

    player: str
    """Whose counters these are."""
    collected: tuple[SheetCounter, ...] = ()
    """Counters collected from other players."""
    bonus: tuple[int, ...] = ()
    """Values of the bonus counters held."""
    above: tuple[SheetCounter, ...] = ()
    """Own counters still above the control center."""


SheetCounterJSON = dict[str, str | int]
"""A counter on a score sheet as ``companion score time-n-space`` writes it: ``{"color", "value", "from"}``."""
SheetEntryJSON = dict[str, tuple[SheetCounterJSON, ...] | tuple[int, ...]]
"""One player's entry: ``{"collected": [...], "bonus": [2], "above": [...]}``."""


@dataclass(frozen=True)
class ScoreSheet:
    """Light mode: players' score-sheet entries, as the phone's form saves them (an entry replaces that
    player's earlier one); the form's panel names this move as its ``action_type``."""

    sheet: dict[str, dict[str, SheetEntryJSON]]
    """``{"players": {name: entry}}`` in the format of ``companion score time-n-space``."""


MOVES: tuple[type, ...] = (
    Lift,
    LiftShipsTogether,
    LiftEveryFinished,
    HandOverFirst,
    StartingOrders,
    OcherTile,
    ScoreSheet,
)
"""Every move a phone may post."""
INTENTS: tuple[type, ...] = (Intent,)
"""Every choice a phone may store for a timer."""
