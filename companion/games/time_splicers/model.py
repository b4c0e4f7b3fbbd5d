"""Time Splicers' values: the state of a game, the moves players make and the events they cause.

Everything is a frozen dataclass (encoded exactly by the game's codec for the log, the phones
and the records). A move never names the player: the one whose turn it is makes it (the table
and a record say who tried).

What the hub knows of the cards depends on who shuffles (``GameState.deck_mode``):

* **table deck** (the players shuffle the box): the hub knows the cards on the table and those
  put face up on the discard pile; a hand, the draw pile and a hand thrown away are only counts
  (``unseen``). A player names a card when they place or play it, and the table names the card it
  turns up (the starting card, a card flipped to start a Timeline): :class:`RevealCard`.
* **hub deck** (no box, or a demo): the hub's seeded shuffle (:mod:`.hubdeck`) knows every card,
  so hands and the draw pile are known cards and nothing needs to be told.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from companion.rules.deck import DeckMode

from .components import DeckConfig

# --- state ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timeline:
    """A row of cards of one colour in ascending order (rulebook, How to Play)."""

    colour: str
    """Colour shared by every card of the row; identifies the Timeline."""
    cards: tuple[str, ...]
    """Card ids, earliest Era first."""
    freezes: tuple[tuple[str, str], ...] = ()
    """Time Freeze cards at the end of the row, as ``(card id, player who placed it)``."""


@dataclass(frozen=True)
class PlayerState:
    """One player's hand, meeple and supplies."""

    name: str
    hand: tuple[str, ...]
    """Card ids in hand that the hub knows (all of them with the hub deck)."""
    position: str | None
    """Card id the meeple stands on, ``time-portal``, or None (eliminated, or before the starting card
    is turned up)."""
    time_jump_tokens: int
    freeze_markers: int
    """Time Freeze marker cubes still in the player's supply."""
    crystals: int = 0
    eliminated: bool = False
    unseen: int = 0
    """Cards in hand that the hub has not seen (a table deck)."""

    @property
    def hand_size(self) -> int:
        """How many cards the player holds."""
        return len(self.hand) + self.unseen


@dataclass(frozen=True)
class CardToTurnUp:
    """The game waits for the table to turn up the top card of the deck and say what it is."""

    why: Literal["start", "timeline"]
    """``start``: the starting card (Setup); ``timeline``: a collapse left no Timeline, so the top card
    starts one (Partial and Complete Timeline Collapse)."""
    player: str = ""
    """Whose placement made the collapse (``timeline``)."""
    movers: tuple[str, ...] = ()
    """The meeples that go onto the new Timeline (``timeline``)."""
    crystals: int = 0
    """Crystals the collapse awards once the meeples are placed (``timeline``)."""


@dataclass(frozen=True)
class GameState:
    """Everything on the table; every card is in exactly one place (or unseen, as a count)."""

    config: DeckConfig
    players: tuple[PlayerState, ...]
    current: int
    """Index of the player whose turn it is."""
    timelines: tuple[Timeline, ...]
    deck: tuple[str, ...]
    """Known cards of the draw pile, top card first (the hub deck's order; a record's known top)."""
    discard: tuple[str, ...]
    """Discard pile cards the hub knows."""
    token_supply: int
    """Time Jump tokens left in the general supply."""
    crystal_supply: int
    """Time Crystals left in the general supply."""
    seed: str
    """Seed of the hub deck's shuffles; the n-th reshuffle hashes ``seed/n/card``."""
    removed: tuple[str, ...] = ()
    """Cards out of the game (a Quantum Tunnel starting card once everyone left it)."""
    start_card: str | None = None
    """A Quantum Tunnel or Time Jump card dealt as the starting card, while players are on it."""
    start_colour: str | None = None
    """Timeline chosen by the first player to leave a Time Jump starting card."""
    start_links: tuple[str, ...] = ()
    """Cards placed next to the special starting card (reachable from it in one move)."""
    shuffles: int = 0
    reshuffle_tops: tuple[tuple[str, ...], ...] = ()
    """Recorded top cards of each reshuffled deck (a real game's order)."""
    turn: int = 1
    winner: str | None = None
    deck_mode: DeckMode = "hub"
    """Who shuffles: the hub (every card known) or the table (unseen cards are counts)."""
    deck_unseen: int = 0
    """Cards of the draw pile below the known ones that the hub has not seen (a table deck)."""
    discard_unseen: int = 0
    """Cards thrown on the discard pile that the hub has not seen (a hand discarded at a table deck)."""
    turning_up: CardToTurnUp | None = None
    """The card the table must turn up and enter before the game goes on."""

    def player(self, name: str) -> PlayerState:
        """The player called ``name`` (KeyError if there is none)."""
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def current_player(self) -> str:
        """Name of the player who must act."""
        return self.players[self.current].name

    @property
    def is_over(self) -> bool:
        """True once a player has won or nobody is left (rulebook, Game End)."""
        return self.winner is not None or not any(not p.eliminated for p in self.players)

    @property
    def deck_size(self) -> int:
        """Cards in the draw pile."""
        return len(self.deck) + self.deck_unseen

    @property
    def discard_size(self) -> int:
        """Cards in the discard pile."""
        return len(self.discard) + self.discard_unseen


# --- moves (what a phone posts and a record lists) ----------------------------------------------


@dataclass(frozen=True)
class Move:
    """Main action a: move to an adjacent card (or out of the Time Portal to any card)."""

    to: str
    """Card id of the destination."""


@dataclass(frozen=True)
class EnterPortal:
    """Main action b: step into the Time Portal and draw two cards."""


@dataclass(frozen=True)
class PlaceCard:
    """Main action c: place a numbered card next to or parallel to your card and move onto it."""

    card: str
    """The card placed: its id, or its face (``red-5``) at a table deck, where the hub does not know the hand."""
    sequence: int | None = None
    """Lowest Era of the 3-card sequence to collapse when the placement makes several."""
    relocate_to: str | None = None
    """Colour of the Timeline that displaced meeples go to, when that is the player's choice."""


@dataclass(frozen=True)
class UseQuantumTunnel:
    """Free action: play a Quantum Tunnel card to move to any card on the table."""

    to: str


@dataclass(frozen=True)
class UseTimeJump:
    """Free action: a Time Jump card or token moves you to any card of your Timeline."""

    to: str
    token: bool = False
    """Pay with a Time Jump token instead of a Time Jump card."""


@dataclass(frozen=True)
class RedrawHand:
    """Free action: spend a Time Jump token to discard your hand and draw four new cards."""


@dataclass(frozen=True)
class PlaceTimeFreeze:
    """Free action: put a Time Freeze card with your marker at the end of your Timeline."""


@dataclass(frozen=True)
class RevealCard:
    """The table turned up the top card of the deck (the starting card, or one that starts a Timeline
    after a collapse) and says which it is: a face (``red-5``, ``time-freeze``) or a card id."""

    card: str


@dataclass(frozen=True)
class CorrectStartingCard:
    """The starting card was entered wrong (a table deck): it is this one. Only before the first turn
    starts, the first action that depends on it; later mistakes are taken back with the table's undo."""

    card: str


@dataclass(frozen=True)
class ForfeitTurn:
    """The table's turn timer ran out: the turn ends without a main action.

    Not a rulebook rule: the companion's optional time limit per turn. The meeple stays where it
    is (in the Time Portal too) and the Hand Minimum still applies.
    """


MOVES: tuple[type, ...] = (
    Move,
    EnterPortal,
    PlaceCard,
    UseQuantumTunnel,
    UseTimeJump,
    RedrawHand,
    PlaceTimeFreeze,
    RevealCard,
    CorrectStartingCard,
)
"""Every move a phone may post (the turn timer's :class:`ForfeitTurn` is not one)."""

Action = (
    Move
    | EnterPortal
    | PlaceCard
    | UseQuantumTunnel
    | UseTimeJump
    | RedrawHand
    | PlaceTimeFreeze
    | RevealCard
    | CorrectStartingCard
    | ForfeitTurn
)
"""Every action the engine applies."""


# --- events -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MeepleMoved:
    """A meeple changed place (Moving; Special Cards; collapses move meeples too)."""

    player: str
    origin: str | None
    destination: str
    how: str
    """``adjacent``, ``portal``, ``portal-exit``, ``placed``, ``quantum-tunnel``, ``time-jump``,
    ``relocated`` or ``start``."""


@dataclass(frozen=True)
class EnteredPortal:
    """A player stepped into the Time Portal (Moving b); their next main action leaves it."""

    player: str


@dataclass(frozen=True)
class CardsDrawn:
    """Cards went from the deck to a hand (may be fewer than asked when every pile is empty)."""

    player: str
    cards: tuple[str, ...]
    """The cards drawn that the hub knows (every one with the hub deck)."""
    unseen: int = 0
    """How many cards drawn the hub has not seen (a table deck)."""


@dataclass(frozen=True)
class DeckReshuffled:
    """The empty deck was replaced by the shuffled discard pile (Hand Maximum, Note)."""

    cards: int
    """How many discarded cards became the new draw pile."""


@dataclass(frozen=True)
class CardPlaced:
    """A numbered card was placed and its player stepped onto it (Moving c; Placing Cards)."""

    player: str
    card: str
    colour: str
    new_timeline: bool
    """True when the card started (spliced) a new Timeline."""
    shifted: bool
    """True when the card went between two cards and the Timeline was shifted to make room."""


@dataclass(frozen=True)
class FixedPointReached:
    """A third or fourth card of one Era is on the table (Fixed Point in Time)."""

    player: str
    era: int
    count: int
    """How many cards of that Era are on the table now (3 or 4)."""
    token_gained: bool


@dataclass(frozen=True)
class TimeJumpTokenSpent:
    """A Time Jump token went back to the supply."""

    player: str
    purpose: str


@dataclass(frozen=True)
class SpecialCardPlayed:
    """A Quantum Tunnel or Time Jump card was played and discarded (Special Cards)."""

    player: str
    card: str


@dataclass(frozen=True)
class HandDiscarded:
    """A whole hand went to the discard pile (Hand Maximum; Time Jump token)."""

    player: str
    cards: tuple[str, ...]
    """The cards the hub knows."""
    unseen: int = 0
    """How many of them the hub has not seen."""


@dataclass(frozen=True)
class HandLimitExceeded:
    """A draw took a hand above the maximum (Hand Maximum)."""

    player: str
    size: int
    paid_with_token: bool


@dataclass(frozen=True)
class PlayerEliminated:
    """A player over the hand limit had no token to pay (Hand Maximum)."""

    player: str


@dataclass(frozen=True)
class TimeFreezePlaced:
    """A Time Freeze card and marker were put at the end of a Timeline (Time Freeze)."""

    player: str
    card: str
    colour: str


@dataclass(frozen=True)
class TimeFreezeReturned:
    """A player came back to a Timeline they froze and took their marker back (Time Freeze)."""

    player: str
    cards: tuple[str, ...]
    colour: str
    unfrozen: bool
    """True when no Time Freeze card is left on that Timeline."""


@dataclass(frozen=True)
class TimelineCollapsed:
    """A Timeline, or three cards of it, was discarded (Finding Time Crystals)."""

    player: str
    kind: str
    """``empty``, ``partial`` or ``complete``."""
    colour: str
    cards: tuple[str, ...]
    """Cards discarded by the collapse (Time Freeze cards included)."""


@dataclass(frozen=True)
class TimelineFlipped:
    """No Timeline was left, so the top card of the deck started one (Partial/Complete Collapse)."""

    card: str
    """Top card of the deck turned up to start a Timeline when none was left."""


@dataclass(frozen=True)
class StartingCardDealt:
    """The card turned up at setup is the starting card, with every meeple on it (Setup)."""

    card: str


@dataclass(frozen=True)
class StartingCardTakenBack:
    """The starting card entered by mistake went back into the draw pile (a correction)."""

    card: str


@dataclass(frozen=True)
class TurnedUpCardDiscarded:
    """A card turned up that cannot start a Timeline was discarded (a Time Freeze at setup; a special
    card flipped after a collapse) and the next one is turned up."""

    card: str


@dataclass(frozen=True)
class StartCardLeft:
    """The last meeple left a Quantum Tunnel or Time Jump starting card (Special Cards)."""

    card: str
    removed: bool
    """True when the card leaves the game (Quantum Tunnel), False when discarded (Time Jump)."""


@dataclass(frozen=True)
class CrystalsFound:
    """Time Crystals went from the supply to a player (Finding Time Crystals)."""

    player: str
    count: int
    total: int


@dataclass(frozen=True)
class TurnForfeited:
    """The turn timer ran out before the player's main action (companion turn timer)."""

    player: str


@dataclass(frozen=True)
class TurnEnded:
    """A main action ended the turn, after the Hand Minimum refill (How to Play)."""

    player: str
    next_player: str | None


@dataclass(frozen=True)
class GameWon:
    """The game is over (Game End)."""

    player: str
    reason: str


@dataclass(frozen=True)
class GameStopped:
    """The game was ended before its rules ended it, and is scored as it stands: by the host ("End
    game") or by the master clock running out (the referee's fact; the engine never stops a game)."""

    by: Literal["host", "clock"]
