"""Timeline: España's values: the game state, the actions the rules apply, the phones' moves, the events.

Everything here is a frozen dataclass encoded by the game's codec (the log, the phones and the
records use it). The rules are in :mod:`.engine`.

Two decks, one game. At a table that plays with its box (the *table deck*, the default) the hub sees
no card face: its piles are counts (:class:`CountedPiles`), a player puts a card in a gap
(:class:`PutCard`) and tells what the card shows when turned over (:class:`RevealCard`: the year,
or just right or wrong). With the *hub deck* the hub deals its own card list and knows where each
card lies (:class:`~.hubdeck.HubPiles`): a player names the card and the gap (:class:`PlaceCard`)
and the hub reveals the year. Both end in the same placement rule (:func:`~.engine.placed`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .hubdeck import HubPiles

# --- the game state ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Laid:
    """A card face up in the timeline."""

    year: int | None
    """The year printed on its back (negative before the common era); None at a table deck while nobody
    entered it (the reference card at the start, a card the table called right without its year)."""
    card: str = ""
    """Its id in the hub deck's card list ("" at a table deck)."""


@dataclass(frozen=True)
class Placing:
    """A card put in a gap of the timeline and not turned over yet (table deck)."""

    player: str
    gap: int


@dataclass(frozen=True)
class CountedPiles:
    """A table deck's hands, deck and discard pile as the hub follows them: counts, never a card face."""

    hands: tuple[int, ...]
    """Cards in each player's hand, aligned with the game's players."""
    deck: int
    """Face-down cards left to draw."""
    discard: int = 0
    """Cards discarded since the deck was last made of them."""

    def held(self, index: int) -> int:
        return self.hands[index]

    @property
    def deck_size(self) -> int:
        return self.deck

    @property
    def discard_size(self) -> int:
        return self.discard

    def played(self, index: int, card: str, *, kept: bool) -> CountedPiles:
        """The piles after player ``index`` turned a card over: it stays in the timeline (``kept``) or is
        discarded (``card`` is "": the hub never knows which card it was)."""
        hands = tuple(n - 1 if i == index else n for i, n in enumerate(self.hands))
        return replace(self, hands=hands, discard=self.discard if kept else self.discard + 1)

    def drawn(self, index: int) -> tuple[CountedPiles, str]:
        """The piles after player ``index`` drew the top card (unseen: "")."""
        hands = tuple(n + 1 if i == index else n for i, n in enumerate(self.hands))
        return replace(self, hands=hands, deck=self.deck - 1), ""

    def reshuffled(self) -> CountedPiles:
        """The table shuffled the discard pile into a new deck."""
        return replace(self, deck=self.deck + self.discard, discard=0)

    def all_card_ids(self) -> tuple[str, ...]:
        return ()


@dataclass(frozen=True)
class LastCard:
    """The card turned over last, for the pages: where it went and whether it stayed."""

    player: str
    """Who placed it."""
    gap: int
    """The gap it was placed in; while it stays in the timeline, its position there."""
    year: int | None
    """Its year; None when the table said right or wrong without entering it."""
    kept: bool
    """It fitted and lies in the timeline (else it was discarded)."""
    card: str = ""
    """Its id in the hub deck's card list ("" at a table deck)."""


@dataclass(frozen=True)
class TimelineState:
    """Everything about a game of Timeline at one moment."""

    players: tuple[str, ...]
    """Players in seating order, clockwise; the first is the starting player."""
    piles: CountedPiles | HubPiles
    """The hands, the deck and the discard pile: counts at a table deck, the hub's own cards with the hub deck."""
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
    placing: Placing | None = None
    """The card put in a gap and not turned over yet (table deck)."""

    @property
    def is_hub_deck(self) -> bool:
        """The hub dealt its own cards (else the table plays with its box and the hub counts)."""
        return isinstance(self.piles, HubPiles)

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
        """The ids of the cards in ``player``'s hand as the hub dealt them (hub deck); at a table deck the
        hub never sees a hand: ()."""
        if isinstance(self.piles, HubPiles):
            return self.piles.hands[self.players.index(player)]
        return ()

    def years(self) -> tuple[int | None, ...]:
        """Years of the timeline cards, left to right (None: not entered)."""
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
    """Hub deck: a player places a card from their hand in a gap of the timeline ("Gameplay"); the hub
    reveals its year."""

    player: str
    """Who places the card."""
    card: str
    """Id of a card in that player's hand."""
    gap: int
    """Gap index: 0 is left of every card, ``len(timeline)`` right of every card."""


@dataclass(frozen=True)
class PutCard:
    """Table deck: the player to move put a card of their hand in a gap ("Gameplay"), not turned over yet.

    Putting it again (in another gap) corrects where it went, until the card is turned over."""

    player: str
    gap: int
    """Gap index: 0 is left of every card, ``len(timeline)`` right of every card."""


@dataclass(frozen=True)
class RevealCard:
    """Table deck: the card put in a gap was turned over and shows ``year``, or the table says whether it
    is right (``right``); the hub judges by the year where it can, by the table's word where it cannot."""

    player: str
    year: int | None = None
    """The year printed on the card (negative before the common era), if entered."""
    right: bool | None = None
    """The table's word: the card fits its gap (True) or not (False); None to let the hub judge."""


@dataclass(frozen=True)
class NameYear:
    """Table deck: the year printed on a timeline card whose year nobody entered yet (the reference card,
    a card called right without its year). Anyone at the table may enter it; a phone posts it as is."""

    position: int
    """The card's place in the timeline, from 0 (leftmost)."""
    year: int


# --- what a phone posts (the table passes the player) ------------------------------------------


@dataclass(frozen=True)
class Place:
    """Place this card of my hand in this gap (the hub reveals its year)."""

    card: str
    """Id of a card in the player's hand."""
    gap: int
    """Gap index, 0 (left of every card) to ``len(timeline)``."""


@dataclass(frozen=True)
class PutIn:
    """Table deck: I put my card in this gap (not turned over yet)."""

    gap: int


@dataclass(frozen=True)
class TurnOver:
    """Table deck: my card, turned over, shows ``year`` and/or is ``right`` (see :class:`RevealCard`)."""

    year: int | None = None
    right: bool | None = None


# --- what a phone remembers between taps (not logged) -------------------------------------------


@dataclass(frozen=True)
class YearTyped:
    """The year a player is typing on their phone's number pad, digit by digit (kept with their turn
    timer until they send it; never logged)."""

    digits: str = ""
    """The digits typed so far (at most four, no leading zero)."""
    bce: bool = False
    """The year is before the common era."""
    turn: int = 0
    """The turn it was typed in: a draft from an earlier turn is not shown again."""

    @property
    def year(self) -> int | None:
        """The year typed (negative before the common era), or None while no digit is."""
        if not self.digits:
            return None
        return -int(self.digits) if self.bce else int(self.digits)


# --- events --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardPut:
    """Table deck: a card lies in a gap, not turned over yet."""

    player: str
    gap: int


@dataclass(frozen=True)
class CardPlaced:
    """The card fitted its gap and now lies face up in the timeline."""

    player: str
    card: str
    """Its id in the hub deck's card list ("" at a table deck)."""
    gap: int
    year: int | None
    """Its year (None: the table called it right without entering it)."""
    by_table: bool = False
    """The table judged it: the hub could not tell by the years it knows."""


@dataclass(frozen=True)
class CardMisplaced:
    """The card did not fit its gap and went to the discard pile."""

    player: str
    card: str
    gap: int
    year: int | None
    by_table: bool = False


@dataclass(frozen=True)
class YearNamed:
    """Table deck: the year of a timeline card was entered after it was laid."""

    position: int
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
    """The card's id in the hub deck's card list ("" at a table deck: nobody sees it)."""


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
