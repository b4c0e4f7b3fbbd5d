"""Game state of Space Dealer: frozen values, changed only by the engine.

The orbital ring has two fields per player: field ``2*i`` is the orbital field of the
planet of the ``i``-th player, field ``2*i + 1`` the neutral planet after it (rulebook 2:
player planets and neutral planets alternate).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from dataclasses import field as _field
from enum import StrEnum
from typing import TYPE_CHECKING

from companion.games.space_dealer.cards import CardData, CardType, OrderSpec
from companion.games.space_dealer.scoring import SatisfiedOrder

if TYPE_CHECKING:  # pragma: no cover
    from companion.games.space_dealer.actions import Job


@dataclass(frozen=True)
class Goods:
    """A bag of goods cubes: colour -> count, only positive counts, sorted by colour."""

    items: tuple[tuple[str, int], ...] = ()

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
    """Two cards drawn from a common stack, waiting for the player to keep one."""

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
    goods: Goods = _field(default_factory=Goods)


@dataclass(frozen=True)
class GameState:
    """The whole table."""

    data: CardData
    cards: Mapping[str, Card]
    players: tuple[PlayerState, ...]
    ships: tuple[Ship, ...]
    stack2: tuple[str, ...]
    stack3: tuple[str, ...]
    neutral: tuple[NeutralPlanet, ...]
    order_cards: Mapping[str, OrderSpec]
    order_stack: tuple[str, ...]
    pool: Goods
    attack_pool: int
    timer_pool: int
    experienced: bool
    satisfied: tuple[SatisfiedOrder, ...] = ()
    phase: Phase = Phase.RUNNING

    # --- look-ups ----------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)

    def player(self, name: str) -> PlayerState | None:
        return next((p for p in self.players if p.name == name), None)

    def ship(self, ship_id: str) -> Ship | None:
        return next((s for s in self.ships if s.id == ship_id), None)

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
