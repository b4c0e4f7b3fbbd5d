"""Space Dealer as values: the table's state, what players and time do to it, and what happened.

Everything is a frozen dataclass, changed only by the engine (:mod:`.engine`), and encoded by the
game's one codec (``GAME.codec``) for the log, the phones and ``companion referee`` records:

* the state: :class:`GameState` with its players, timers, cards, ships and neutral planets;
* the *moves* a phone posts (:data:`Move`): a free action, a choice or an entry of what the table
  drew; a move never names the acting player, the table wraps it as ``Act(player, move)``;
* the *jobs* a timer can run (:data:`Job`), which are also the phone's intents for a timer;
* the engine's *actions* (:data:`Action`): ``Act``, the job a flip starts, and the time facts.

The *events* the engine reports, one class per kind of thing that happened, are in :mod:`.events`.

The orbital ring has two fields per player: field ``2*i`` is the orbital field of the planet of the
``i``-th player, field ``2*i + 1`` the neutral planet after it (rulebook 2: player planets and
neutral planets alternate). Timers are numbered from 0 here; the pages number them 1, 2, 3.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from dataclasses import field as _field
from enum import StrEnum
from typing import Literal

from companion.games.space_dealer.cards import CardData, CardType, OrderSpec
from companion.games.space_dealer.scoring import SatisfiedOrder
from companion.rules.deck import Pile
from companion.rules.text import Text

# =====================================================================================
# goods
# =====================================================================================


@dataclass(frozen=True)
class Goods:
    """A bag of goods cubes: colour -> count, only positive counts, sorted by colour."""

    items: tuple[tuple[str, int], ...] = ()
    """(colour, count) pairs."""

    @classmethod
    def of(cls, mapping: Mapping[str, int] | None = None, **counts: int) -> Goods:
        merged: dict[str, int] = {}
        for source in (mapping or {}), counts:
            for colour, n in source.items():
                if n < 0:
                    raise ValueError(f"negative number of {colour} goods")
                merged[colour] = merged.get(colour, 0) + n
        return cls(tuple(sorted((c, n) for c, n in merged.items() if n > 0)))

    def count(self, colour: str) -> int:
        return dict(self.items).get(colour, 0)

    @property
    def total(self) -> int:
        return sum(n for _, n in self.items)

    @property
    def well_formed(self) -> bool:
        """True when the bag is as :meth:`of` makes it: each colour once, in order, at least one cube of
        it (a phone or a record may send any pairs)."""
        colours = [c for c, _ in self.items]
        return all(n > 0 for _, n in self.items) and colours == sorted(set(colours))

    def as_dict(self) -> dict[str, int]:
        return dict(self.items)

    def contains(self, other: Goods) -> bool:
        """True when every cube of ``other`` is in this bag."""
        mine = self.as_dict()
        return all(mine.get(c, 0) >= n for c, n in other.items)

    def __add__(self, other: Goods) -> Goods:
        return Goods.of({c: self.count(c) + other.count(c) for c in {*self.as_dict(), *other.as_dict()}})

    def __sub__(self, other: Goods) -> Goods:
        if not self.contains(other):
            raise ValueError("not enough goods to take away")
        return Goods.of({c: self.count(c) - other.count(c) for c in self.as_dict()})

    def __bool__(self) -> bool:
        return bool(self.items)


NEUTRAL_SHIP_IDS = ("neutral", "neutral-2")
"""The neutral spaceships: one per box (rulebook 5.1c)."""


# --- where goods can be ---------------------------------------------------------------


@dataclass(frozen=True)
class InShip:
    """Goods in a spaceship."""

    ship: str
    """The ship's id: its owner's name, or ``neutral`` (``neutral-2`` with two boxes)."""


@dataclass(frozen=True)
class InDepot:
    """Goods in the Depot on a player's planet."""

    player: str


@dataclass(frozen=True)
class OnProbe:
    """Goods stored on a player's Transport Probe (rulebook 5.1f)."""

    player: str
    card: str
    """The Transport Probe's card id."""


@dataclass(frozen=True)
class AtNeutralPlanet:
    """Goods left on the orbital field of a neutral planet (rulebook 5.3)."""

    field: int


Holder = InShip | InDepot | OnProbe | AtNeutralPlanet
"""A place goods can be in."""


# =====================================================================================
# the state
# =====================================================================================


class TimerStatus(StrEnum):
    """The three positions of a timer (rulebook 2)."""

    INACTIVE = "inactive"
    """Run out and lying below the planet, free for a new job."""
    ACTIVE = "active"
    """Flipped onto a timer space; its sand is running."""
    USABLE = "usable"
    """Run out on its timer space; the job is done but its effect is still to be applied."""


class Phase(StrEnum):
    RUNNING = "running"
    """The 30 minutes are running."""
    ENDING = "ending"
    """The game has ended; active timers still run out and are used (rulebook 4)."""
    OVER = "over"
    """Every timer has run out; the score is final."""


@dataclass(frozen=True)
class Timer:
    """One sandtimer of a player."""

    index: int
    """Its number among the player's timers, from 0."""
    status: TimerStatus = TimerStatus.INACTIVE
    job: Job | None = None
    """The job it is running (or has run, while usable)."""
    sabotaged_by: str | None = None
    """The attacker whose Sabotage Probe marker sits on it (rulebook 5.1d)."""
    clears_block: bool = False
    """True when it runs on a space blocked by an Interstellar Rocket (rulebook 5.1e)."""
    origin: int | None = None
    """For a flight: the orbital field the spaceship left."""


@dataclass(frozen=True)
class Card:
    """One physical technology card."""

    id: str
    type: str
    """The card type's English name in the card data (``Mining Complex``)."""
    colour: str = ""
    """Goods colour printed on mines (empty otherwise)."""
    order: OrderSpec | None = None
    """Order printed on its order half, if any."""


@dataclass(frozen=True)
class BuiltCard:
    """A card built in the action row and/or the order row of a planet."""

    card: str
    x: int
    """Leftmost half-card unit it covers."""
    cells: frozenset[tuple[str, int]]
    """(row, unit) pairs it covers; row is ``action`` or ``order``."""
    covered: bool = False
    """True once another card is built over part of it (its effect is gone, rulebook 3.2.2)."""
    attack_markers: int = 0
    """Attack markers on a Sabotage Probe or Interstellar Rocket."""
    stored: Goods = _field(default_factory=Goods)
    """Goods in a Depot or on a Transport Probe."""
    blocked_by: str | None = None
    """Attacker whose Interstellar Rocket marker blocks its timer space."""


@dataclass(frozen=True)
class PlayerState:
    """Everything on and around one player's planet."""

    name: str
    seat: int
    """Place in the seating order, from 0 (the planet is at orbital field ``2 * seat``)."""
    tech_level: int = 1
    stack: tuple[str, ...] = ()
    """Personal technology stack (face down, rulebook 2)."""
    planning: tuple[str, ...] = ()
    """Cards in the planning area (rulebook 3.1)."""
    plants: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    """Power plants beside the planet, left and right, bottom card first."""
    built: tuple[BuiltCard, ...] = ()
    timers: tuple[Timer, ...] = ()
    markers_placed: int = 0
    neutral_cards: tuple[str, ...] = ()
    """Order cards taken at neutral planets (rulebook 5.3)."""
    pending_draw: tuple[int, tuple[str, ...]] | None = None
    """(level, shown): the player drew two cards from a common stack and keeps one. ``shown`` are the
    two cards when the hub deck turned them up; at a table deck only the player sees them: ()."""
    kept: str | None = None
    """The card the table said the player kept from a common stack, while it can still be corrected."""
    start: ChooseStart | None = None
    """The secret start choice the player made before the clock (None: the default start)."""
    mines: str = ""
    """The goods colour the player's pile of Mines lacks ("" while the table has not said, rulebook 2)."""

    def built_card(self, card_id: str) -> BuiltCard | None:
        return next((b for b in self.built if b.card == card_id), None)

    def timer(self, index: int) -> Timer | None:
        return self.timers[index] if 0 <= index < len(self.timers) else None


@dataclass(frozen=True)
class Ship:
    """A spaceship: docked at an orbital field, or in flight to one."""

    id: str
    controller: str | None
    """The player who moves it; for the neutral spaceship, the owner of the Orbital Station."""
    field: int | None = None
    """Orbital field where it is docked (None while in flight or unused)."""
    destination: int | None = None
    """Orbital field it is flying to."""
    cargo: Goods = _field(default_factory=Goods)

    @property
    def in_flight(self) -> bool:
        return self.destination is not None


@dataclass(frozen=True)
class NeutralPlanet:
    """A neutral planet: an order card face up and goods left on its orbital field (rulebook 5.3)."""

    field: int
    order: str | None = None
    """The face-up order card."""
    goods: Goods = _field(default_factory=Goods)
    awaiting: bool = False
    """An order card is to be turned up here (at the start, or after one was satisfied)."""
    redrawn: tuple[str, ...] = ()
    """Order cards turned up here and put back under the stack since (several players could satisfy
    them at once): the next card comes from above them."""
    revealed_by: str = ""
    """Who told the hub which order lies face up here (they may correct it)."""


@dataclass(frozen=True)
class TechStack:
    """A common technology stack, face down (rulebook 2): what it can still hold, never its order."""

    level: int
    cards: Pile
    """The copies that can still be in it: exactly its cards, or (where cards were taken out of the box
    at random, face down, for fewer players) every copy that may be among them."""
    types: Pile
    """How many cards of each type it holds: exact, the rulebook names how many of each are taken out."""

    def __len__(self) -> int:
        return len(self.types)

    def can_hold(self, card: Card) -> bool:
        return card.id in self.cards and card.type in self.types

    def take(self, card: Card, *, pile: Text, card_name: Text, type_name: Text) -> TechStack:
        """The stack without ``card``; refused when it cannot hold it ("there is no second ... in it")."""
        cards = self.cards.take(card.id, pile=pile, name=card_name)
        return replace(self, cards=cards, types=self.types.take(card.type, pile=pile, name=type_name))

    def put(self, card: Card) -> TechStack:
        """The stack with ``card`` back under it."""
        return replace(self, cards=self.cards.put(card.id), types=self.types.put(card.type))


@dataclass(frozen=True)
class HubOrder:
    """The hub deck's own shuffle (hub deck only): the order of each face-down pile, top first.

    The rules never read it: the referee turns its top cards into the same entries a table makes."""

    stack2: tuple[str, ...] = ()
    stack3: tuple[str, ...] = ()
    orders: tuple[str, ...] = ()

    def stack(self, level: int) -> tuple[str, ...]:
        return self.stack2 if level == 2 else self.stack3

    def with_stack(self, level: int, cards: tuple[str, ...]) -> HubOrder:
        return replace(self, stack2=cards) if level == 2 else replace(self, stack3=cards)


@dataclass(frozen=True)
class TimerNode:
    """The sandtimer node that is a player's timer at the table."""

    player: str
    number: int
    """The timer's number at the table (1, 2, 3)."""
    node: str


@dataclass(frozen=True)
class GameState:
    """The whole table."""

    data: CardData
    """The component data the game was dealt with (shipped, or the table's corrected file)."""
    cards: Mapping[str, Card]
    """Every card in the game by id, in the order the deal made them."""
    players: tuple[PlayerState, ...]
    ships: tuple[Ship, ...]
    stacks: tuple[TechStack, ...]
    """The common TechLevel 2 and TechLevel 3 stacks."""
    neutral: tuple[NeutralPlanet, ...]
    order_cards: Mapping[str, OrderSpec]
    """Every neutral order card by id (rules for experienced players)."""
    orders: Pile
    """The face-down order stack: the order cards it can still hold."""
    pool: Goods
    """The common pool of goods."""
    attack_pool: int
    """Attack markers in the common pool."""
    timer_pool: int
    """Spare timers in the box (given out by Robot Factories)."""
    experienced: bool
    """Dealt for the rules for experienced players (rulebook 5)."""
    satisfied: tuple[SatisfiedOrder, ...] = ()
    phase: Phase = Phase.RUNNING
    nodes: tuple[TimerNode, ...] = ()
    """The sandtimer node of each timer the table knows (the setup's seats, then any learnt in the game)."""
    seats_asked: tuple[tuple[str, int], ...] = ()
    """(player, timer number) the hub was asked to pair a new node for (Robot Factories, rulebook 5.1b)."""
    hub: HubOrder | None = None
    """The hub deck's own shuffle; None at a table deck (the players shuffle the box)."""

    # --- look-ups ----------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)

    def player(self, name: str) -> PlayerState | None:
        return next((p for p in self.players if p.name == name), None)

    def ship(self, ship_id: str) -> Ship | None:
        return next((s for s in self.ships if s.id == ship_id), None)

    def stack(self, level: int) -> TechStack:
        """The common TechLevel ``level`` stack (2 or 3)."""
        return next(s for s in self.stacks if s.level == level)

    def with_stack(self, stack: TechStack) -> GameState:
        return replace(self, stacks=tuple(stack if s.level == stack.level else s for s in self.stacks))

    def card_type(self, card_id: str) -> CardType:
        return self.data.types[self.cards[card_id].type]

    @property
    def ring_size(self) -> int:
        return 2 * len(self.players)

    def planet_field(self, name: str) -> int:
        return 2 * self.names.index(name)

    def field_owner(self, field_index: int) -> str | None:
        """The player whose planet is at this orbital field; None for a neutral planet."""
        return self.players[field_index // 2].name if field_index % 2 == 0 else None

    def neutral_at(self, field_index: int) -> NeutralPlanet | None:
        return next((n for n in self.neutral if n.field == field_index), None)

    def node_of(self, player: str, number: int) -> str | None:
        """The node of ``player``'s timer ``number`` (1, 2, 3), if the table knows it."""
        return next((n.node for n in self.nodes if (n.player, n.number) == (player, number)), None)

    def all_goods(self) -> Iterator[Goods]:
        """Every bag of goods on the table, the common pool included."""
        yield self.pool
        for s in self.ships:
            yield s.cargo
        for p in self.players:
            for b in p.built:
                yield b.stored
        for n in self.neutral:
            yield n.goods

    # --- functional updates ------------------------------------------------------
    def with_player(self, player: PlayerState) -> GameState:
        return replace(self, players=tuple(player if p.name == player.name else p for p in self.players))

    def with_ship(self, ship: Ship) -> GameState:
        return replace(self, ships=tuple(ship if s.id == ship.id else s for s in self.ships))

    def with_planet(self, planet: NeutralPlanet) -> GameState:
        return replace(self, neutral=tuple(planet if n.field == planet.field else n for n in self.neutral))


# =====================================================================================
# jobs a timer can run (rulebook 3.2): a phone's intent for its timer's next flip
# =====================================================================================


@dataclass(frozen=True)
class RaiseTechLevel:
    """Timer on the planet: the technology level rises by one (3.2.1)."""


@dataclass(frozen=True)
class BuildCard:
    """Timer on a card in the planning area: build it at unit ``x`` when the timer runs out (3.2.2).

    Without ``x`` (or when the site is no longer free), the timer waits as usable until
    :class:`PlaceBuiltCard` names a site.
    """

    card: str
    x: int | None = None
    """The leftmost half-card unit (power plants: -2 left of the planet, 2 right of it)."""


@dataclass(frozen=True)
class UseCard:
    """Timer on a timer space in the action row (3.2.3, 5.1)."""

    card: str
    to: str = ""
    """Where produced goods go first: ``depot``, or a ship id docked at the planet."""
    colour: str = ""
    """The colour a Multi-Mine produces."""
    exchanges: tuple[tuple[str, str], ...] = ()
    """(give, take) colour pairs for a Converter."""
    source: str = ""
    """Where a Converter takes the goods from: ``depot`` or a ship id."""
    ship: str = ""
    """The ship that receives the goods of a Transport Probe."""


@dataclass(frozen=True)
class MoveShip:
    """Timer on a spaceship: fly to ``to`` (an adjacent field, or any field when empty) (3.2.4)."""

    ship: str
    to: int


@dataclass(frozen=True)
class DiscardCard:
    """Timer on a card in the planning area: put it back under its stack (5.1, experienced)."""

    card: str


Job = RaiseTechLevel | BuildCard | UseCard | MoveShip | DiscardCard
JOBS = (RaiseTechLevel, BuildCard, UseCard, MoveShip, DiscardCard)
"""Every kind of job: the intents a phone may store for a timer."""


# =====================================================================================
# moves: what a player does on the phone (the table names the player: ``Act``)
# =====================================================================================


@dataclass(frozen=True)
class ChooseStart:
    """Before the clock: the secret start (rulebook 2), the Generator's side and the first Mine."""

    side: Literal["left", "right"] = "left"
    mine: str = ""
    """Goods colour of one of the player's Mines ("" for the first Mine dealt)."""
    x: int | None = None
    """The unit under the Generator the Mine stands on (None: the one next to the planet's edge)."""


@dataclass(frozen=True)
class TakeMines:
    """Before the clock, at a table deck: the pile of Mines the player was dealt, named by the colour
    it lacks (rulebook 2: one pile has no red Mines, one no yellow, ...)."""

    without: str


@dataclass(frozen=True)
class TakeDepot:
    """Before the clock, at a table deck: the Depot the player was dealt (rulebook 2)."""

    card: str


@dataclass(frozen=True)
class RevealOrder:
    """What the table turned up at a neutral planet: the order card now face up there (rulebook 5.3).
    Named again for a face-up card the table entered, it corrects the entry."""

    field: int
    order: str


@dataclass(frozen=True)
class CorrectKeptCard:
    """At a table deck: the card kept from a common stack is really ``card`` (while it lies untouched in
    the planning area)."""

    card: str


@dataclass(frozen=True)
class PlayCard:
    """Put a card from the personal stack into the planning area (3.1)."""

    card: str


@dataclass(frozen=True)
class DrawTechCards:
    """Look at the top two cards of the TechLevel ``level`` stack (3.2.1)."""

    level: int


@dataclass(frozen=True)
class KeepDrawnCard:
    """Keep one of the two drawn cards, the other goes under its stack (3.2.1)."""

    card: str


@dataclass(frozen=True)
class PlaceBuiltCard:
    """Put the card of a usable build timer on build site ``x`` (3.2.2)."""

    timer: int
    x: int


@dataclass(frozen=True)
class AbandonJob:
    """Give up a usable timer's job; the timer becomes inactive and the card stays planned."""

    timer: int


@dataclass(frozen=True)
class TransferGoods:
    """Move goods between two holders at the same planet (3.3, 5.3)."""

    source: Holder
    target: Holder
    goods: Goods


@dataclass(frozen=True)
class ReturnGoods:
    """Put unwanted goods back into the common pool (3.2.4, 3.4)."""

    source: Holder
    goods: Goods


@dataclass(frozen=True)
class SatisfyOrder:
    """Deliver the goods of ``order`` from spaceship ``ship`` (3.4, 5.3)."""

    ship: str
    order: str
    """The card the order is printed on (a built card, or a neutral order card)."""


@dataclass(frozen=True)
class Sabotage:
    """Put an attack marker from a Sabotage Probe onto an active timer (5.1d)."""

    target_player: str
    target_timer: int


@dataclass(frozen=True)
class LaunchRocket:
    """Put an attack marker from an Interstellar Rocket onto a timer space in an action row (5.1e)."""

    target_player: str
    card: str


@dataclass(frozen=True)
class GiveCard:
    """Give a card from one's planning area to another's (5.2)."""

    receiver: str
    card: str


@dataclass(frozen=True)
class TradeCards:
    """Swap a card of each planning area by agreement (5.2)."""

    card: str
    other: str
    """The player traded with."""
    other_card: str


Move = (
    ChooseStart
    | TakeMines
    | TakeDepot
    | RevealOrder
    | CorrectKeptCard
    | PlayCard
    | DrawTechCards
    | KeepDrawnCard
    | PlaceBuiltCard
    | AbandonJob
    | TransferGoods
    | ReturnGoods
    | SatisfyOrder
    | Sabotage
    | LaunchRocket
    | GiveCard
    | TradeCards
)
MOVES = (
    ChooseStart,
    TakeMines,
    TakeDepot,
    RevealOrder,
    CorrectKeptCard,
    PlayCard,
    DrawTechCards,
    KeepDrawnCard,
    PlaceBuiltCard,
    AbandonJob,
    TransferGoods,
    ReturnGoods,
    SatisfyOrder,
    Sabotage,
    LaunchRocket,
    GiveCard,
    TradeCards,
)
"""Every move a phone may post."""


# =====================================================================================
# the engine's actions
# =====================================================================================


@dataclass(frozen=True)
class Act:
    """``player`` makes a move (a free action, a choice, an entry)."""

    player: str
    move: Move


@dataclass(frozen=True)
class StartJob:
    """A player flipped inactive timer ``timer`` onto the timer space of ``job`` (3.2)."""

    player: str
    timer: int
    job: Job


@dataclass(frozen=True)
class TimerRanOut:
    """Time fact: the sand of a player's timer has run through."""

    player: str
    timer: int


@dataclass(frozen=True)
class MasterClockExpired:
    """Time fact: the 30 minutes are over (4)."""


@dataclass(frozen=True)
class GameEndedEarly:
    """Table fact: the host ended the game before its time; it is over at once, scored as it stands."""


@dataclass(frozen=True)
class TechCardsShown:
    """Hub deck: the two cards a player's draw turns up, from the hub's own shuffle (3.2.1)."""

    player: str
    cards: tuple[str, ...]


Action = Act | StartJob | TimerRanOut | MasterClockExpired | GameEndedEarly | TechCardsShown


@dataclass(frozen=True)
class HubDeckTurn:
    """Read from old logs only (``legacy.py``): the hub deck turns up what the rules wait for now (the
    cards of a draw, the next neutral order), as the hub of that time did at once."""

    player: str


@dataclass(frozen=True)
class TimerNodeKnown:
    """Table fact: the node of a timer that joined during the game, learnt from its first report."""

    player: str
    number: int
    """The timer's number at the table (1, 2, 3)."""
    node: str
