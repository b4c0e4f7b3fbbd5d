"""What the Space Dealer engine did, in the past tense: one frozen dataclass per kind of event.

The engine returns them with every accepted action (``Accepted.events``); the table logs them as the
step's facts (the game's codec encodes them), and :func:`.words.describe` words them for the pages.
Timers are numbered from 0, as in :mod:`.model`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from companion.games.space_dealer.model import Goods, Job
from companion.games.space_dealer.scoring import FinalScore

# =====================================================================================


@dataclass(frozen=True)
class CardPlanned:
    player: str
    card: str


@dataclass(frozen=True)
class CardsDrawn:
    player: str
    level: int


@dataclass(frozen=True)
class CardsShown:
    player: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class KeptCardCorrected:
    player: str
    was: str
    card: str


@dataclass(frozen=True)
class MinesTaken:
    player: str
    without: str


@dataclass(frozen=True)
class DepotTaken:
    player: str
    card: str


@dataclass(frozen=True)
class OrderCorrected:
    field: int
    was: str
    order: str


@dataclass(frozen=True)
class CardKept:
    player: str
    card: str
    returned: tuple[str, ...]
    """The drawn card put back under the stack."""


@dataclass(frozen=True)
class StartChosen:
    player: str
    side: str
    mine: str
    """The first Mine's card id."""


@dataclass(frozen=True)
class CardBuilt:
    player: str
    card: str
    x: int


@dataclass(frozen=True)
class CardBuiltOver:
    player: str
    card: str


@dataclass(frozen=True)
class CardDiscarded:
    player: str
    card: str


@dataclass(frozen=True)
class CardGiven:
    player: str
    card: str
    to: str


@dataclass(frozen=True)
class CardsTraded:
    player: str
    gave: str
    got: str
    other: str


@dataclass(frozen=True)
class BuildWaiting:
    """A finished build has no valid site: its timer waits as usable."""

    player: str
    card: str


@dataclass(frozen=True)
class JobStarted:
    player: str
    timer: int
    job: Job


@dataclass(frozen=True)
class TimerDone:
    """A timer's sand ran through (its effect, if any, follows as events of its own)."""

    player: str
    timer: int


@dataclass(frozen=True)
class JobVoided:
    """A sabotaged timer ran out without effect (5.1d)."""

    player: str
    timer: int
    by: str
    job: Job


@dataclass(frozen=True)
class JobAbandoned:
    player: str
    timer: int


@dataclass(frozen=True)
class JobFizzled:
    """A job had no effect: its card was gone, built over, or had nothing to work with."""

    player: str
    card: str
    why: Literal["", "no attack marker", "no spaceship"] = ""


@dataclass(frozen=True)
class TimerAdded:
    player: str
    timers: int
    """How many timers the player has now."""


@dataclass(frozen=True)
class ShipLaunched:
    player: str
    ship: str
    origin: int
    to: int


@dataclass(frozen=True)
class ShipLanded:
    player: str
    ship: str
    field: int


@dataclass(frozen=True)
class ShipRecalled:
    """A sabotaged flight was called off at the field it left (5.1d)."""

    player: str
    ship: str
    field: int | None


@dataclass(frozen=True)
class NeutralShipTaken:
    player: str
    ship: str
    field: int | None


@dataclass(frozen=True)
class TechLevelRaised:
    player: str
    level: int


@dataclass(frozen=True)
class GoodsProduced:
    player: str
    card: str
    colour: str
    placed: tuple[tuple[str, int], ...]
    """(``depot`` or a ship id, goods put there)."""
    lost: int
    """Goods that found no room, or that the pool no longer had."""


@dataclass(frozen=True)
class GoodsConverted:
    player: str
    exchanges: tuple[tuple[str, str], ...]
    """The (give, take) exchanges made."""


@dataclass(frozen=True)
class GoodsSent:
    """A Transport Probe sent its goods to a ship (5.1f)."""

    player: str
    card: str
    ship: str
    goods: Goods


@dataclass(frozen=True)
class GoodsTransferred:
    player: str
    goods: Goods


@dataclass(frozen=True)
class GoodsReturned:
    player: str
    goods: Goods


@dataclass(frozen=True)
class GoodsLost:
    """Goods on a card that was built over went back to the pool."""

    player: str
    card: str
    goods: Goods


@dataclass(frozen=True)
class OrderSatisfied:
    player: str
    order: str
    owner: str | None
    """The planet's owner; None at a neutral planet."""
    points: tuple[int, ...]
    markers: int
    """Victory-point markers the deliverer has placed now."""


@dataclass(frozen=True)
class OrderRedrawn:
    """A new neutral order several players could satisfy at once went under the stack (5.3)."""

    order: str
    field: int


@dataclass(frozen=True)
class OrderRevealed:
    order: str
    field: int


@dataclass(frozen=True)
class TimerSabotaged:
    player: str
    target: str
    timer: int


@dataclass(frozen=True)
class SpaceBlocked:
    player: str
    target: str
    card: str


@dataclass(frozen=True)
class BlockCleared:
    player: str
    card: str


@dataclass(frozen=True)
class AttackMarkerLoaded:
    player: str
    card: str
    markers: int


@dataclass(frozen=True)
class GameEnded:
    """The game ended (4): running timers still complete, unless the host ended it."""

    by: Literal["clock", "marker", "host"]
    player: str = ""
    """Who placed their last victory-point marker (``by == "marker"``)."""


@dataclass(frozen=True)
class GameOver:
    """Every timer has run out after the end: the score is final."""

    score: FinalScore


Event = (
    CardPlanned
    | CardsDrawn
    | CardsShown
    | KeptCardCorrected
    | MinesTaken
    | DepotTaken
    | OrderCorrected
    | CardKept
    | StartChosen
    | CardBuilt
    | CardBuiltOver
    | CardDiscarded
    | CardGiven
    | CardsTraded
    | BuildWaiting
    | JobStarted
    | TimerDone
    | JobVoided
    | JobAbandoned
    | JobFizzled
    | TimerAdded
    | ShipLaunched
    | ShipLanded
    | ShipRecalled
    | NeutralShipTaken
    | TechLevelRaised
    | GoodsProduced
    | GoodsConverted
    | GoodsSent
    | GoodsTransferred
    | GoodsReturned
    | GoodsLost
    | OrderSatisfied
    | OrderRedrawn
    | OrderRevealed
    | TimerSabotaged
    | SpaceBlocked
    | BlockCleared
    | AttackMarkerLoaded
    | GameEnded
    | GameOver
)
