"""Actions a Space Dealer table can send to the engine, jobs for timers, and events.

Time facts are actions too: the hub sends :class:`TimerRanOut` when a sandtimer node
has run through and :class:`MasterClockExpired` when the 30 minutes are over; the engine
never reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.games.space_dealer.state import Goods

# --- where goods can be ---------------------------------------------------------------


@dataclass(frozen=True)
class InShip:
    """Goods in a spaceship (``ship`` is the owner's name, or ``neutral``)."""

    ship: str


@dataclass(frozen=True)
class InDepot:
    """Goods in the Depot on a player's planet."""

    player: str


@dataclass(frozen=True)
class OnProbe:
    """Goods stored on a player's Transport Probe (rulebook 5.1f)."""

    player: str
    card: str


@dataclass(frozen=True)
class AtNeutralPlanet:
    """Goods left on the orbital field of a neutral planet (rulebook 5.3)."""

    field: int


Holder = InShip | InDepot | OnProbe | AtNeutralPlanet


# --- jobs a timer can run (rulebook 3.2) ---------------------------------------------


@dataclass(frozen=True)
class RaiseTechLevel:
    """Timer on the planet: the technology level rises by one (3.2.1)."""


@dataclass(frozen=True)
class BuildCard:
    """Timer on a card in the planning area: build it at unit ``x`` when the timer runs out (3.2.2).

    ``x`` is the leftmost half-card unit (power plants: -2 left of the planet, 2 right of it).
    Without ``x`` (or when the site is no longer free), the timer waits as usable until
    :class:`PlaceBuiltCard` names a site.
    """

    card: str
    x: int | None = None


@dataclass(frozen=True)
class UseCard:
    """Timer on a timer space in the action row (3.2.3, 5.1).

    ``to`` is where produced goods go first (``depot``, or a ship id docked at the planet);
    ``colour`` is the Multi-Mine's choice; ``exchanges`` are (give, take) colour pairs for a
    Converter, taken from ``source`` (``depot`` or a ship id); ``ship`` receives the goods
    of a Transport Probe.
    """

    card: str
    to: str = ""
    colour: str = ""
    exchanges: tuple[tuple[str, str], ...] = ()
    source: str = ""
    ship: str = ""


@dataclass(frozen=True)
class MoveShip:
    """Timer on a spaceship: fly to ``to`` (adjacent field, or any field when empty) (3.2.4)."""

    ship: str
    to: int


@dataclass(frozen=True)
class DiscardCard:
    """Timer on a card in the planning area: put it back under its stack (5.1, experienced)."""

    card: str


Job = RaiseTechLevel | BuildCard | UseCard | MoveShip | DiscardCard


# --- actions ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayCard:
    """Free action: put a card from the personal stack into the planning area (3.1)."""

    player: str
    card: str


@dataclass(frozen=True)
class DrawTechCards:
    """Free action: look at the top two cards of the TechLevel ``level`` stack (3.2.1)."""

    player: str
    level: int


@dataclass(frozen=True)
class KeepDrawnCard:
    """Free action: keep one of the two drawn cards, the other goes under its stack (3.2.1)."""

    player: str
    card: str


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
class PlaceBuiltCard:
    """Put the card of a usable build timer on build site ``x`` (3.2.2)."""

    player: str
    timer: int
    x: int


@dataclass(frozen=True)
class AbandonJob:
    """Give up a usable timer's job; the timer becomes inactive and the card stays planned."""

    player: str
    timer: int


@dataclass(frozen=True)
class TransferGoods:
    """Free action: move goods between two holders at the same planet (3.3, 5.3)."""

    player: str
    source: Holder
    target: Holder
    goods: Goods


@dataclass(frozen=True)
class ReturnGoods:
    """Free action: put unwanted goods back into the common pool (3.2.4, 3.4)."""

    player: str
    source: Holder
    goods: Goods


@dataclass(frozen=True)
class SatisfyOrder:
    """Free action: deliver the goods of ``order`` from spaceship ``ship`` (3.4, 5.3)."""

    player: str
    ship: str
    order: str


@dataclass(frozen=True)
class Sabotage:
    """Attack marker from a Sabotage Probe onto an active timer (5.1d)."""

    attacker: str
    target_player: str
    target_timer: int


@dataclass(frozen=True)
class LaunchRocket:
    """Attack marker from an Interstellar Rocket onto a timer space in an action row (5.1e)."""

    attacker: str
    target_player: str
    card: str


@dataclass(frozen=True)
class GiveCard:
    """Give a card from one planning area to another (5.2)."""

    player: str
    receiver: str
    card: str


@dataclass(frozen=True)
class TradeCards:
    """Swap a card of each planning area by agreement (5.2)."""

    player: str
    card: str
    other: str
    other_card: str


@dataclass(frozen=True)
class MasterClockExpired:
    """Time fact: the 30 minutes are over (4)."""


@dataclass(frozen=True)
class GameEndedEarly:
    """Table fact: the host ended the game before its time; it is over at once, scored as it stands."""


Action = (
    PlayCard
    | DrawTechCards
    | KeepDrawnCard
    | StartJob
    | TimerRanOut
    | PlaceBuiltCard
    | AbandonJob
    | TransferGoods
    | ReturnGoods
    | SatisfyOrder
    | Sabotage
    | LaunchRocket
    | GiveCard
    | TradeCards
    | MasterClockExpired
    | GameEndedEarly
)


# --- events (past tense) ----------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """Something the engine did, for the hub's log and dashboard.

    ``kind`` is a past-tense name such as ``OrderSatisfied``, ``TimerSabotaged`` or
    ``GoodsProduced``; ``details`` carries the facts.
    """

    kind: str
    player: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def __hash__(self) -> int:  # details is a dict; events are compared, not hashed
        return hash((self.kind, self.player))
