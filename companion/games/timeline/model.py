"""Timeline: España's values: the game state, the actions the rules apply, the phones' moves, the events.

Everything here is a frozen dataclass encoded by the game's codec (the log, the phones and the
records use it). The rules are in :mod:`.engine`; where the hub deck's own cards lie is
:class:`~.hubdeck.HubPiles`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .hubdeck import HubPiles

# --- the game state ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Laid:
    """A card face up in the timeline."""

    year: int
    """The year printed on its back (negative before the common era)."""
    card: str = ""
    """Its id in the hub deck's card list."""


@dataclass(frozen=True)
class LastCard:
    """The card turned over last, for the pages: where it went and whether it stayed."""

    player: str
    """Who placed it."""
    gap: int
    """The gap it was placed in; while it stays in the timeline, its position there."""
    year: int
    kept: bool
    """It fitted and lies in the timeline (else it was discarded)."""
    card: str = ""
    """Its id in the hub deck's card list."""


@dataclass(frozen=True)
class TimelineState:
    """Everything about a game of Timeline at one moment."""

    players: tuple[str, ...]
    """Players in seating order, clockwise; the first is the starting player."""
    piles: HubPiles
    """The hands, the deck and the discard pile."""
    timeline: tuple[Laid, ...]
    """The face-up cards, left to right, ordered by year."""
    to_move: str | None = None
    """Whose turn it is; ``None`` once the game is over."""
    round: int = 1
    """Round number, from 1."""
    eliminated: tuple[str, ...] = ()
    """Players knocked out when a play-off began, in seating order."""
    emptied: tuple[str, ...] = ()
    """Players who correctly placed their last card during the current round."""
    placed_correctly: tuple[str, ...] = ()
    """Players who placed a card correctly during the current round (decides a play-off round)."""
    playoff: bool = False
    """True once several players emptied their hands in the same round."""
    winner: str | None = None
    """The sole winner, once there is one."""
    shared_by: tuple[str, ...] = ()
    """Players sharing the game when a play-off ran out of cards (see the engine's docstring)."""
    last: LastCard | None = None
    """The card turned over last (the pages show it)."""

    @property
    def is_over(self) -> bool:
        """True once the game has a winner or is shared."""
        return self.winner is not None or bool(self.shared_by)

    @property
    def remaining(self) -> tuple[str, ...]:
        """Players still in the game, in seating order."""
        return tuple(p for p in self.players if p not in self.eliminated)

    def held(self, player: str) -> int:
        """How many cards ``player`` holds."""
        return self.piles.held(self.players.index(player))

    def hand(self, player: str) -> tuple[str, ...]:
        """The ids of the cards in ``player``'s hand (the hub dealt them)."""
        return self.piles.hands[self.players.index(player)]

    def years(self) -> tuple[int, ...]:
        """Years of the timeline cards, left to right."""
        return tuple(laid.year for laid in self.timeline)

    def timeline_cards(self) -> tuple[str, ...]:
        """Ids of the timeline cards, left to right."""
        return tuple(laid.card for laid in self.timeline)

    def all_card_ids(self) -> tuple[str, ...]:
        """Every card id wherever it lies: deck, discard pile, hands and timeline."""
        return self.piles.all_card_ids() + self.timeline_cards()


# --- what the rules apply (logged) ------------------------------------------------------------


@dataclass(frozen=True)
class PlaceCard:
    """A player places a card from their hand in a gap of the timeline ("Gameplay"); the hub reveals it."""

    player: str
    """Who places the card."""
    card: str
    """Id of a card in that player's hand."""
    gap: int
    """Gap index: 0 is left of every card, ``len(timeline)`` right of every card."""


# --- what a phone posts (the table passes the player) ------------------------------------------


@dataclass(frozen=True)
class Place:
    """Place this card of my hand in this gap (the hub reveals its year)."""

    card: str
    """Id of a card in the player's hand."""
    gap: int
    """Gap index, 0 (left of every card) to ``len(timeline)``."""


# --- events --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardPlaced:
    """The card fitted its gap and now lies face up in the timeline."""

    player: str
    card: str
    gap: int
    year: int


@dataclass(frozen=True)
class CardMisplaced:
    """The card did not fit its gap and went to the discard pile."""

    player: str
    card: str
    gap: int
    year: int


@dataclass(frozen=True)
class DiscardReshuffled:
    """The deck ran out, so the discard pile was shuffled into a new deck."""

    cards: int
    """How many cards the new deck holds."""


@dataclass(frozen=True)
class CardDrawn:
    """A player drew the top card of the deck (after a miss, or at the start of a play-off round)."""

    player: str
    card: str
    """The card's id in the hub deck's card list."""


@dataclass(frozen=True)
class RoundEnded:
    """Every player still in the game has had a turn this round."""

    round: int
    emptied: tuple[str, ...]
    """Players who correctly placed their last card during the round."""


@dataclass(frozen=True)
class PlayoffStarted:
    """Several players emptied their hands in the same round: they play on, the others are out."""

    players: tuple[str, ...]
    eliminated: tuple[str, ...]


@dataclass(frozen=True)
class GameWon:
    """Exactly one player correctly placed their last card in a round."""

    player: str


@dataclass(frozen=True)
class GameShared:
    """The play-off cannot go on (no card left to draw), so the remaining players share the game."""

    players: tuple[str, ...]


@dataclass(frozen=True)
class GameStopped:
    """The host ended the game before its end: nobody wins, nobody plays on (a hub rule)."""
