"""Time Splicers rules engine: ``apply(state, action) -> Accepted | Rejected``.

The state is a frozen :class:`GameState`; actions are frozen dataclasses; the engine
returns the new state and past-tense events, or a :class:`~companion.games.base.Rejected`
whose reason names the rulebook section. Shuffles are derived from the seed carried in
the state (a hash of seed, shuffle count and card name), so a replay is exact and the
module needs neither ``random`` nor a clock.

Section names cited below are the headings of the rulebook (time-splicers.txt).

Rules read closely (each was once read differently; see docs/games/time-splicers.md):

* Hand Maximum: the limit holds at every moment of the player's turn, so it is checked
  after every single card drawn. Entering the Time Portal with 7 cards goes over on the first
  of its two cards; the penalty is paid at once and the second card is drawn afterwards.
* c. Complete Timeline Collapse: the trigger is placing the fifth card of a Timeline that
  holds the Singularity, so the count must be exactly five after the placement. A
  Timeline grows one card per placement, so one holding the Singularity never gets past
  five cards by growing.
* Quantum Tunnel as the starting card: players on it may place a card of any colour next
  to it. A card whose colour already has a Timeline joins that Timeline where its number fits (as when
  leaving the Time Portal) instead of being refused.

Interpretations where the rulebook is silent or ambiguous (also listed in
docs/games/time-splicers.md):

* A Timeline is identified by its colour (How to Play defines it as a row of cards sharing
  one colour): there is at most one Timeline of each colour on the table, so a spliced card
  must be of a colour that has no Timeline yet.
* Leaving the Time Portal to a card does not draw again (the two cards drawn on entering
  pay for the whole two-turn move).
* When a collapse makes the same placement both a 3-card sequence and the fifth card of
  a Timeline holding the Singularity, the Complete Timeline Collapse wins (the whole
  Timeline, sequence included, is discarded; 2 crystals).
* The Singularity placed into a Timeline that already has five or more cards is its
  sixth (or later) card, not its fifth, so it does not collapse the Timeline completely.
  The rulebook sets no length limit on a Timeline without the Singularity.
* Fixed Point in Time: any placement that brings the number of cards of one Era on the
  table to three, or to four, earns a Time Jump token while the supply lasts.
* A sequence collapsed at the left end of a Timeline that still has cards sends its
  meeples to the earliest remaining card of that Timeline.
* When a new Timeline must be flipped from the deck, special cards turned up on the way
  are discarded until a numbered card appears.
* An eliminated player's meeple leaves the table and their Time Freeze cards are
  discarded; this does not collapse a Timeline (nobody "left" it on a turn).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from companion.errors import InvalidRecordError
from companion.games.base import Accepted, Rejected
from companion.rules.text import Text, text

from .deck import (
    NUMBER,
    PORTAL_ID,
    QUANTUM_TUNNEL,
    TIME_FREEZE,
    TIME_JUMP,
    Card,
    DeckConfig,
)
from .words import card_text, colour_text, timeline_text

# Rulebook section names, cited in rejections (headings of time-splicers.txt, as message ids).
R_TURN = text("How to Play")
R_MOVING = text("Moving (Main Action)")
R_ADJACENT = text("Moving a. Move to an Adjacent Card, then Draw 1 Card")
R_PORTAL = text("Moving b. Move to the Time Portal, then Draw 2 Cards")
R_PLACE = text("Moving c. Place a Card & Move Onto It")
R_SAME = text("Placing Cards in the Same Timeline")
R_NEW = text("Placing Cards in a New Timeline")
R_FIXED = text("Fixed Point in Time")
R_HAND_MIN = text("Hand Minimum")
R_HAND_MAX = text("Hand Maximum")
R_SPECIAL = text("Special Cards")
R_QT = text("Quantum Tunnel")
R_TJ = text("Time Jump")
R_TF = text("Time Freeze")
R_EMPTY = text("a. Empty Timeline Collapse")
R_PARTIAL = text("b. Partial Timeline Collapse")
R_COMPLETE = text("c. Complete Timeline Collapse")
R_END = text("Game End")
R_SETUP = text("Setup")

WON_BY_CRYSTALS = "found Time Crystal number {number}"
"""``GameWon.reason`` when a player found the last crystal they needed (``{number}`` filled in)."""
WON_LAST_STANDING = "every other player was eliminated"
"""``GameWon.reason`` when every other player was eliminated."""

COMPLETE_COLLAPSE_CARDS = 5
"""Placing this card of a Timeline holding the Singularity collapses it (c. Complete Timeline Collapse)."""


class SetupError(InvalidRecordError):
    """A starting layout or player list cannot start a game of Time Splicers."""


# --------------------------------------------------------------------------- state


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
    """Card ids in hand."""
    position: str | None
    """Card id the meeple stands on, ``time-portal``, or None once eliminated."""
    time_jump_tokens: int
    freeze_markers: int
    """Time Freeze marker cubes still in the player's supply."""
    crystals: int = 0
    eliminated: bool = False


@dataclass(frozen=True)
class GameState:
    """Everything on the table; every card is in exactly one place."""

    config: DeckConfig
    players: tuple[PlayerState, ...]
    current: int
    """Index of the player whose turn it is."""
    timelines: tuple[Timeline, ...]
    deck: tuple[str, ...]
    """Draw pile, top card first."""
    discard: tuple[str, ...]
    token_supply: int
    """Time Jump tokens left in the general supply."""
    crystal_supply: int
    """Time Crystals left in the general supply."""
    seed: str
    """Seed of every shuffle; the n-th reshuffle hashes ``seed/n/card``."""
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
    """Recorded top cards of each reshuffled deck (a real game's order); the rest stays seeded."""
    turn: int = 1
    winner: str | None = None

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


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class Move:
    """Main action a: move to an adjacent card (or out of the Time Portal to any card)."""

    player: str
    to: str
    """Card id of the destination."""


@dataclass(frozen=True)
class EnterPortal:
    """Main action b: step into the Time Portal and draw two cards."""

    player: str


@dataclass(frozen=True)
class PlaceCard:
    """Main action c: place a numbered card next to or parallel to your card and move onto it."""

    player: str
    card: str
    sequence: int | None = None
    """Lowest Era of the 3-card sequence to collapse when the placement makes several."""
    relocate_to: str | None = None
    """Colour of the Timeline that displaced meeples go to, when that is the player's choice."""


@dataclass(frozen=True)
class UseQuantumTunnel:
    """Free action: play a Quantum Tunnel card to move to any card on the table."""

    player: str
    to: str


@dataclass(frozen=True)
class UseTimeJump:
    """Free action: a Time Jump card or token moves you to any card of your Timeline."""

    player: str
    to: str
    token: bool = False
    """Pay with a Time Jump token instead of a Time Jump card."""


@dataclass(frozen=True)
class RedrawHand:
    """Free action: spend a Time Jump token to discard your hand and draw four new cards."""

    player: str


@dataclass(frozen=True)
class PlaceTimeFreeze:
    """Free action: put a Time Freeze card with your marker at the end of your Timeline."""

    player: str


@dataclass(frozen=True)
class ForfeitTurn:
    """The table's turn timer ran out: the turn ends without a main action.

    Not a rulebook rule: the companion's optional time limit per turn (issue 7). The
    meeple stays where it is (in the Time Portal too) and the Hand Minimum still applies.
    """

    player: str


Action = (
    ForfeitTurn
    | Move
    | EnterPortal
    | PlaceCard
    | UseQuantumTunnel
    | UseTimeJump
    | RedrawHand
    | PlaceTimeFreeze
)


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class MeepleMoved:
    """A meeple changed place (Moving; Special Cards; collapses move meeples too)."""

    player: str
    origin: str | None
    destination: str
    how: str
    """``adjacent``, ``portal``, ``portal-exit``, ``placed``, ``quantum-tunnel``, ``time-jump`` or ``relocated``."""


@dataclass(frozen=True)
class EnteredPortal:
    """A player stepped into the Time Portal (Moving b); their next main action leaves it."""

    player: str


@dataclass(frozen=True)
class CardsDrawn:
    """Cards went from the deck to a hand (may be fewer than asked when every pile is empty)."""

    player: str
    cards: tuple[str, ...]


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


# --------------------------------------------------------------------------- setup


@lru_cache(maxsize=16)
def card_index(config: DeckConfig) -> dict[str, Card]:
    """Every card of the box by id."""
    return {c.id: c for c in config.cards()}


def shuffled(cards: tuple[str, ...] | list[str], seed: str, n: int) -> tuple[str, ...]:
    """Deterministic shuffle number ``n`` of ``cards`` for ``seed`` (sorted by a hash)."""
    return tuple(sorted(cards, key=lambda c: hashlib.sha256(f"{seed}/{n}/{c}".encode()).hexdigest()))


@dataclass(frozen=True)
class Layout:
    """An explicit starting position, e.g. to referee a game played with a real deck."""

    start: str | None
    """The face-up starting card (None when ``timelines`` describe the table instead)."""
    hands: dict[str, tuple[str, ...]]
    deck_top: tuple[str, ...] = ()
    """Top of the draw pile, top first; unlisted cards follow in seeded order."""
    discard: tuple[str, ...] = ()
    crystals: dict[str, int] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    timelines: tuple[tuple[str, ...], ...] = ()
    """Timelines already on the table (to resume a game), each earliest card first."""
    positions: dict[str, str] = field(default_factory=dict)
    """Where each meeple stands; default the starting card, else the first card of the first Timeline."""
    first_player: str | None = None
    """Who acts first (default: the first player listed)."""
    reshuffle_tops: tuple[tuple[str, ...], ...] = ()
    """Top cards of each deck made by reshuffling the discard pile, as they were really drawn."""


def new_game(
    players: list[str] | tuple[str, ...],
    *,
    seed: str | int = "0",
    config: DeckConfig,
    layout: Layout | None = None,
) -> GameState:
    """Set up a game (rulebook, Setup): tokens, markers, four cards each, the starting card.

    ``config`` is the box's component counts (the game's data, ``GAME.data``, or a user's
    deck file read by :func:`~companion.games.time_splicers.deck.load_deck`). Without a
    layout the cards other than the Time Portal are shuffled from ``seed``, dealt one at a
    time, and the next card starts the Timeline (a Time Freeze card turned up there is
    discarded and the next one taken). Raises :class:`SetupError`.
    """
    seed = str(seed)
    names = list(players)
    if len(set(names)) != len(names) or not all(isinstance(n, str) and n.strip() for n in names):
        raise SetupError("players must be distinct non-empty names")
    if not config.min_players <= len(names) <= config.max_players:
        raise SetupError(
            f"Time Splicers needs {config.min_players} to {config.max_players} players, not {len(names)}"
        )
    index = card_index(config)
    playable = [c for c in index if c != PORTAL_ID]
    discard: list[str] = []
    crystals = {n: 0 for n in names}
    tokens = {n: config.starting_time_jump_tokens for n in names}
    if layout is None:
        deck = list(shuffled(playable, seed, 0))
        hands: dict[str, list[str]] = {n: [] for n in names}
        for _ in range(config.starting_hand):
            for n in names:
                if deck:
                    hands[n].append(deck.pop(0))
        start = None
        while deck:
            top = deck.pop(0)
            if index[top].kind == TIME_FREEZE:
                discard.append(top)
                continue
            start = top
            break
        if start is None:  # pragma: no cover - only with an absurd deck file
            raise SetupError("the deck ran out before a starting card was dealt")
    else:
        hands, deck, start, discard = _layout_cards(layout, names, index, seed, config)
        for table, key in ((crystals, "crystals"), (tokens, "tokens")):
            given = layout.crystals if key == "crystals" else layout.tokens
            for name, value in given.items():
                if name not in table:
                    raise SetupError(f"layout {key} names {name!r}, who is not a player")
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise SetupError(f"layout {key} for {name!r} must be a whole number of at least 0")
                table[name] = value
        if any(v >= config.crystals_to_win for v in crystals.values()):
            raise SetupError(f"a player cannot start with {config.crystals_to_win} or more crystals")
    if sum(crystals.values()) > config.time_crystals:
        raise SetupError("the layout hands out more crystals than the box holds")
    if sum(tokens.values()) > config.time_jump_tokens:
        raise SetupError("the players hold more Time Jump tokens than the box holds")
    if config.starting_time_freeze_markers * len(names) > config.time_freeze_markers:
        raise SetupError("there are not enough Time Freeze markers for that many players")
    start_card = None
    rows = [] if layout is None else [list(row) for row in layout.timelines]
    if start is not None and index[start].kind == NUMBER:
        rows.insert(0, [start])
    elif start is not None:
        start_card = start
    timelines = _check_rows(rows, index)
    default = start if start is not None else timelines[0].cards[0]
    positions = {n: default for n in names}
    first = 0
    if layout is not None:
        on_table = {c for t in timelines for c in t.cards} | {PORTAL_ID} | ({start} if start else set())
        for name, where in layout.positions.items():
            if name not in positions:
                raise SetupError(f"layout positions name {name!r}, who is not a player")
            if where not in on_table:
                raise SetupError(f"{name}'s meeple stands on {where!r}, which is not on the table")
            positions[name] = where
        if layout.first_player is not None:
            if layout.first_player not in names:
                raise SetupError(f"layout first_player {layout.first_player!r} is not a player")
            first = names.index(layout.first_player)
        for number, tops in enumerate(layout.reshuffle_tops, start=1):
            for card in tops:
                if card not in index or card == PORTAL_ID:
                    raise SetupError(f"reshuffle {number} names {card!r}, which is not a card of this deck")
        if start_card is not None and start_card not in positions.values():
            raise SetupError(f"nobody stands on the starting card {start_card}, so it would already be gone")
    return GameState(
        config=config,
        players=tuple(
            PlayerState(
                name=n,
                hand=tuple(hands[n]),
                position=positions[n],
                time_jump_tokens=tokens[n],
                freeze_markers=config.starting_time_freeze_markers,
                crystals=crystals[n],
            )
            for n in names
        ),
        current=first,
        reshuffle_tops=() if layout is None else tuple(tuple(t) for t in layout.reshuffle_tops),
        timelines=timelines,
        deck=tuple(deck),
        discard=tuple(discard),
        token_supply=config.time_jump_tokens - sum(tokens.values()),
        crystal_supply=config.time_crystals - sum(crystals.values()),
        seed=seed,
        start_card=start_card,
    )


def _check_rows(rows: list[list[str]], index: dict[str, Card]) -> tuple[Timeline, ...]:
    """Timelines of a layout: numbered cards of one colour, ascending, one row per colour."""
    out: list[Timeline] = []
    for row in rows:
        if not row:
            raise SetupError("a layout Timeline cannot be empty")
        cards = [index[c] for c in row]
        if any(c.kind != NUMBER for c in cards):
            raise SetupError(
                f"the layout Timeline {row} holds a special card; only numbered cards form Timelines"
            )
        colour = cards[0].colour or ""
        if any(c.colour != colour for c in cards):
            raise SetupError(f"the layout Timeline {row} mixes colours (How to Play)")
        if any((a.number or 0) >= (b.number or 0) for a, b in zip(cards, cards[1:], strict=False)):
            raise SetupError(f"the layout Timeline {row} is not in ascending order (How to Play)")
        if any(t.colour == colour for t in out):
            raise SetupError(f"the layout has two {colour} Timelines; each colour has only one (How to Play)")
        out.append(Timeline(colour, tuple(row)))
    return tuple(out)


def _layout_cards(
    layout: Layout, names: list[str], index: dict[str, Card], seed: str, config: DeckConfig
) -> tuple[dict[str, list[str]], list[str], str | None, list[str]]:
    seen: dict[str, str] = {}

    def claim(card: Any, where: str) -> str:
        if not isinstance(card, str) or card not in index:
            raise SetupError(f"layout {where} names {card!r}, which is not a card of this deck")
        if card == PORTAL_ID:
            raise SetupError(f"layout {where} holds the Time Portal, which stays to one side ({R_SETUP})")
        if card in seen:
            raise SetupError(f"card {card} is both in the layout {seen[card]} and in the {where}")
        seen[card] = where
        return card

    if layout.start is None and not layout.timelines:
        raise SetupError("the layout needs a starting card or at least one Timeline")
    start = None if layout.start is None else claim(layout.start, "start")
    if start is not None and index[start].kind == TIME_FREEZE:
        raise SetupError(
            f"a Time Freeze card cannot be the starting card; it is discarded and another dealt ({R_SETUP})"
        )
    for row in layout.timelines:
        for card in row:
            claim(card, "Timelines")
    hands: dict[str, list[str]] = {}
    for name in layout.hands:
        if name not in names:
            raise SetupError(f"layout hands name {name!r}, who is not a player")
    for name in names:
        if name not in layout.hands:
            raise SetupError(f"layout hands has no hand for {name!r}")
        hand = list(layout.hands[name])
        if len(hand) > config.hand_maximum:
            raise SetupError(f"{name}'s starting hand has more than {config.hand_maximum} cards")
        hands[name] = [claim(c, f"hand of {name}") for c in hand]
    top = [claim(c, "deck") for c in layout.deck_top]
    discard = [claim(c, "discard") for c in layout.discard]
    rest = [c for c in index if c != PORTAL_ID and c not in seen]
    return hands, top + list(shuffled(rest, seed, 0)), start, discard


# --------------------------------------------------------------------------- engine


class _Refusal(Exception):
    """An action breaks a rule: why, in words for players, and the rulebook section."""

    def __init__(self, reason: Text, rule: Text) -> None:
        super().__init__(str(reason))
        self.reason = reason
        self.rule = rule


class _GameOver(Exception):
    pass


@dataclass
class _P:
    name: str
    hand: list[str]
    position: str | None
    tokens: int
    markers: int
    crystals: int
    eliminated: bool


@dataclass
class _T:
    colour: str
    cards: list[str]
    freezes: list[tuple[str, str]]


class _Table:
    """Mutable working copy of a state for one action; thrown away on a refusal."""

    def __init__(self, s: GameState) -> None:
        self.s = s
        self.cfg = s.config
        self.index = card_index(s.config)
        self.players = [
            _P(
                p.name,
                list(p.hand),
                p.position,
                p.time_jump_tokens,
                p.freeze_markers,
                p.crystals,
                p.eliminated,
            )
            for p in s.players
        ]
        self.timelines = [_T(t.colour, list(t.cards), list(t.freezes)) for t in s.timelines]
        self.deck = list(s.deck)
        self.discard = list(s.discard)
        self.removed = list(s.removed)
        self.start_card = s.start_card
        self.start_colour = s.start_colour
        self.start_links = list(s.start_links)
        self.token_supply = s.token_supply
        self.crystal_supply = s.crystal_supply
        self.shuffles = s.shuffles
        self.current = s.current
        self.turn = s.turn
        self.winner = s.winner
        self.events: list[Any] = []

    def freeze(self) -> GameState:
        return replace(
            self.s,
            players=tuple(
                PlayerState(p.name, tuple(p.hand), p.position, p.tokens, p.markers, p.crystals, p.eliminated)
                for p in self.players
            ),
            timelines=tuple(Timeline(t.colour, tuple(t.cards), tuple(t.freezes)) for t in self.timelines),
            deck=tuple(self.deck),
            discard=tuple(self.discard),
            removed=tuple(self.removed),
            start_card=self.start_card,
            start_colour=self.start_colour,
            start_links=tuple(c for c in self.start_links if self.timeline_of(c) is not None),
            token_supply=self.token_supply,
            crystal_supply=self.crystal_supply,
            shuffles=self.shuffles,
            current=self.current,
            turn=self.turn,
            winner=self.winner,
        )

    # ---- lookups
    def num(self, card: str) -> int:
        return self.index[card].number or 0

    def name(self, card: str | None) -> Text:
        """A card's name for players ("red 5")."""
        return card_text(self.index, card or "")

    def timeline_of(self, card: str | None) -> _T | None:
        for t in self.timelines:
            if card in t.cards:
                return t
        return None

    def by_colour(self, colour: str) -> _T | None:
        for t in self.timelines:
            if t.colour == colour:
                return t
        return None

    def active(self) -> list[_P]:
        return [p for p in self.players if not p.eliminated]

    def on_cards(self, cards: list[str]) -> list[_P]:
        return [p for p in self.active() if p.position in cards]

    def on_table(self, card: str) -> bool:
        return self.timeline_of(card) is not None

    def take_from_hand(self, p: _P, kind: str) -> str | None:
        for c in sorted(p.hand):
            if self.index[c].kind == kind:
                p.hand.remove(c)
                return c
        return None

    # ---- cards moving between piles
    def reshuffle(self) -> None:
        if not self.discard:
            return
        self.shuffles += 1
        order = list(shuffled(self.discard, self.s.seed, self.shuffles))
        if self.shuffles <= len(self.s.reshuffle_tops):
            top = list(self.s.reshuffle_tops[self.shuffles - 1])
            missing = [c for c in top if c not in self.discard]
            if missing:
                raise _Refusal(
                    text(
                        "The recorded order of reshuffle {number} names {card}, which is not in the discard "
                        "pile being shuffled",
                        number=self.shuffles,
                        card=self.name(missing[0]),
                    ),
                    R_HAND_MAX,
                )
            if len(set(top)) != len(top):
                raise _Refusal(
                    text("The recorded order of reshuffle {number} names a card twice", number=self.shuffles),
                    R_HAND_MAX,
                )
            order = top + [c for c in order if c not in top]
        self.deck = order
        self.discard = []
        self.events.append(DeckReshuffled(len(self.deck)))

    def pop_deck(self) -> str | None:
        if not self.deck:
            self.reshuffle()
        return self.deck.pop(0) if self.deck else None

    def draw(self, p: _P, n: int) -> None:
        """Draw ``n`` cards one at a time, checking the Hand Maximum after each card.

        Hand Maximum: the limit holds at any time during the turn, so a draw that takes the
        hand over it is punished at once, before the next card of the same action is
        drawn. Cards drawn before a penalty are reported in their own ``CardsDrawn``.
        """
        drawn: list[str] = []
        reported = False
        for _ in range(n):
            card = self.pop_deck()
            if card is None:
                break
            p.hand.append(card)
            drawn.append(card)
            if len(p.hand) > self.cfg.hand_maximum:
                self.events.append(CardsDrawn(p.name, tuple(drawn)))
                drawn, reported = [], True
                self.check_hand_limit(p)
                if p.eliminated:
                    return
        if drawn or not reported:
            self.events.append(CardsDrawn(p.name, tuple(drawn)))

    def award(self, p: _P, n: int) -> None:
        got = min(n, self.crystal_supply)
        self.crystal_supply -= got
        p.crystals += got
        self.events.append(CrystalsFound(p.name, got, p.crystals))
        if p.crystals >= self.cfg.crystals_to_win:
            self.winner = p.name
            self.events.append(GameWon(p.name, WON_BY_CRYSTALS.format(number=self.cfg.crystals_to_win)))
            raise _GameOver

    def remove_timeline(self, t: _T) -> list[str]:
        """Discard a whole Timeline, its Time Freeze cards too; markers go home."""
        gone = list(t.cards) + [c for c, _ in t.freezes]
        for _, owner in t.freezes:
            for p in self.players:
                if p.name == owner:
                    p.markers += 1
        self.discard.extend(gone)
        self.timelines.remove(t)
        return gone

    # ---- meeples
    def move_player(self, p: _P, dest: str, how: str, *, from_timeline: _T | None = None) -> None:
        """Move a meeple, then apply leaving (empty collapse, start card) and arriving (Time Freeze).

        ``from_timeline`` names the Timeline a relocated meeple comes from when its card is
        already discarded; otherwise it is found from the meeple's card.
        """
        origin = p.position
        old_t = from_timeline if from_timeline is not None else self.timeline_of(origin)
        p.position = dest
        self.events.append(MeepleMoved(p.name, origin, dest, how))
        new_t = self.timeline_of(dest)
        if origin is not None and origin == self.start_card and dest != origin:
            self.leave_start()
        if old_t is not None and old_t is not new_t and old_t in self.timelines:
            self.leave_timeline(p, old_t)
        if new_t is not None and new_t is not old_t:
            self.arrive(p, new_t)

    def leave_start(self) -> None:
        """Quantum Tunnel / Time Jump dealt at setup: cleared once the last player has left it."""
        card = self.start_card
        if card is None or any(p.position == card for p in self.active()):
            return
        is_tunnel = self.index[card].kind == QUANTUM_TUNNEL
        (self.removed if is_tunnel else self.discard).append(card)
        self.start_card = None
        self.start_colour = None
        self.start_links = []
        self.events.append(StartCardLeft(card, is_tunnel))

    def leave_timeline(self, p: _P, t: _T) -> None:
        """Empty Timeline Collapse: left with nobody on it and no Time Freeze card."""
        if self.on_cards(t.cards) or t.freezes:
            return
        size = len(t.cards)
        gone = self.remove_timeline(t)
        self.events.append(TimelineCollapsed(p.name, "empty", t.colour, tuple(gone)))
        if size >= 3:
            self.award(p, 1)

    def arrive(self, p: _P, t: _T) -> None:
        """Time Freeze: returning to a Timeline you froze takes your card and marker back."""
        mine = [f for f in t.freezes if f[1] == p.name]
        if not mine:
            return
        for f in mine:
            t.freezes.remove(f)
            self.discard.append(f[0])
            p.markers += 1
        self.events.append(TimeFreezeReturned(p.name, tuple(c for c, _ in mine), t.colour, not t.freezes))

    def check_hand_limit(self, p: _P) -> None:
        """Hand Maximum: over the limit costs the hand and a token, or the game without one.

        Called by :meth:`draw` after each card, the only way a hand grows.
        """
        if len(p.hand) <= self.cfg.hand_maximum:
            return
        pays = p.tokens > 0
        self.events.append(HandLimitExceeded(p.name, len(p.hand), pays))
        hand = tuple(p.hand)
        p.hand.clear()
        self.discard.extend(hand)
        self.events.append(HandDiscarded(p.name, hand))
        if pays:
            p.tokens -= 1
            self.token_supply += 1
            self.events.append(TimeJumpTokenSpent(p.name, "hand limit penalty"))
            self.draw(p, self.cfg.hand_minimum)
        else:
            self.eliminate(p)

    def eliminate(self, p: _P) -> None:
        p.eliminated = True
        was = p.position
        p.position = None
        for t in self.timelines:
            for f in [f for f in t.freezes if f[1] == p.name]:
                t.freezes.remove(f)
                self.discard.append(f[0])
                p.markers += 1
        self.events.append(PlayerEliminated(p.name))
        if was is not None and was == self.start_card:
            self.leave_start()
        left = self.active()
        if len(left) == 1 and self.cfg.last_player_standing_wins:
            self.winner = left[0].name
            self.events.append(GameWon(left[0].name, WON_LAST_STANDING))
            raise _GameOver
        if not left:
            raise _GameOver

    def end_turn(self, p: _P) -> None:
        """Hand Minimum, then the next player still in the game."""
        if not p.eliminated and len(p.hand) < self.cfg.hand_minimum:
            self.draw(p, self.cfg.hand_minimum - len(p.hand))
        n = len(self.players)
        nxt = self.current
        for step in range(1, n + 1):
            i = (self.current + step) % n
            if not self.players[i].eliminated:
                nxt = i
                break
        self.current = nxt
        self.turn += 1
        self.events.append(TurnEnded(p.name, self.players[nxt].name))

    # ---- collapses after a placement
    def choose_timeline(self, choice: str | None, rule: Text) -> str:
        """Earliest card of the Timeline of the player's choice, or a card flipped from the deck."""
        colours = [t.colour for t in self.timelines]
        if colours:
            if choice is None and len(colours) == 1:
                choice = colours[0]
            if choice not in colours:
                raise _Refusal(
                    text(
                        "Choose the Timeline the displaced meeples move to; the only Timeline on the table "
                        "is {colours}",
                        "Choose the Timeline the displaced meeples move to; the Timelines on the table are "
                        "{colours}",
                        count=len(colours),
                        colours=tuple(colour_text(c) for c in colours),
                    ),
                    rule,
                )
            t = self.by_colour(choice)
            assert t is not None
            return t.cards[0]
        if choice is not None:
            raise _Refusal(
                text(
                    "No Timeline is left to move the displaced meeples to, not even the {timeline}: a new one "
                    "is flipped from the deck, so choose none",
                    timeline=timeline_text(choice),
                ),
                rule,
            )
        while True:
            card = self.pop_deck()
            if card is None:
                return PORTAL_ID  # no numbered card anywhere: wait in the portal
            if self.index[card].kind == NUMBER:
                self.timelines.append(_T(self.index[card].colour or "", [card], []))
                self.events.append(TimelineFlipped(card))
                return card
            self.discard.append(card)

    def relocate(self, movers: list[_P], dest: str, from_t: _T) -> None:
        for m in movers:
            self.move_player(m, dest, "relocated", from_timeline=from_t)

    def collapse_after_placing(
        self, p: _P, t: _T, card: str, sequence: int | None, relocate_to: str | None
    ) -> None:
        numbers = [self.num(c) for c in t.cards]
        era = self.num(card)
        if is_complete_collapse(len(t.cards), numbers, self.cfg.singularity_number):
            if sequence is not None:
                raise _Refusal(
                    text(
                        "This placement collapses the whole Timeline (it is the fifth card of a Timeline "
                        "holding the Singularity): no sequence is chosen"
                    ),
                    R_COMPLETE,
                )
            movers = self.on_cards(t.cards)
            gone = self.remove_timeline(t)
            self.events.append(TimelineCollapsed(p.name, "complete", t.colour, tuple(gone)))
            dest = self.choose_timeline(relocate_to, R_COMPLETE)
            self.relocate(movers, dest, t)
            self.award(p, 2)
            return
        runs = [s for s in (era - 2, era - 1, era) if all(s + k in numbers for k in range(3))]
        if not runs:
            if sequence is not None:
                raise _Refusal(
                    text("Placing {card} makes no 3-card sequence to collapse", card=self.name(card)),
                    R_PARTIAL,
                )
            return
        if sequence is None and len(runs) == 1:
            sequence = runs[0]
        if sequence not in runs:
            raise _Refusal(
                text(
                    "This placement makes several 3-card sequences ({sequences}): choose the one that collapses",
                    sequences=tuple(sequence_name(s) for s in runs),
                ),
                R_PARTIAL,
            )
        seq = [c for c in t.cards if sequence <= self.num(c) <= sequence + 2]
        first = t.cards.index(seq[0])
        left = t.cards[first - 1] if first > 0 else None
        movers = self.on_cards(seq)
        if len(seq) < len(t.cards):
            for c in seq:
                t.cards.remove(c)
            self.discard.extend(seq)
            self.events.append(TimelineCollapsed(p.name, "partial", t.colour, tuple(seq)))
            dest = left if left is not None else t.cards[0]
        else:
            gone = self.remove_timeline(t)
            self.events.append(TimelineCollapsed(p.name, "partial", t.colour, tuple(gone)))
            dest = self.choose_timeline(relocate_to, R_PARTIAL)
        self.relocate(movers, dest, t)
        self.award(p, 1)


def sequence_name(lowest: int) -> str:
    """A 3-card sequence by its numbers: "4-5-6" (the same in every language)."""
    return "-".join(str(lowest + k) for k in range(3))


def is_complete_collapse(size: int, numbers: list[int], singularity: int) -> bool:
    """True when a placement that left a Timeline with ``size`` cards collapses it completely.

    c. Complete Timeline Collapse: placing the fifth card of a Timeline that holds the
    Singularity, the placed card included. Exactly the fifth: the Singularity placed into
    a Timeline that already has five or more cards is not its fifth card.
    """
    return size == COMPLETE_COLLAPSE_CARDS and singularity in numbers


def _player(table: _Table, name: str) -> _P:
    for p in table.players:
        if p.name == name:
            return p
    raise _Refusal(text("There is no player called {name} at this table", name=name), R_TURN)


def _check_table_card(table: _Table, card: str) -> _T:
    t = table.timeline_of(card)
    if card == PORTAL_ID:
        raise _Refusal(
            text("To step into the Time Portal, choose the Time Portal move, which draws 2 cards"), R_PORTAL
        )
    if t is None:
        raise _Refusal(
            text("{card} is not a card in a Timeline on the table", card=table.name(card)), R_MOVING
        )
    return t


# ---- main actions


def _move(table: _Table, p: _P, a: Move) -> None:
    """Move to an adjacent card (same Timeline neighbour, or same Era elsewhere), draw 1."""
    dest_t = _check_table_card(table, a.to)
    pos = p.position
    if pos == a.to:
        raise _Refusal(text("You are already on {card}", card=table.name(a.to)), R_ADJACENT)
    if pos == PORTAL_ID:
        table.move_player(p, a.to, "portal-exit")
        table.end_turn(p)
        return
    if pos is not None and pos == table.start_card:
        kind = table.index[pos].kind
        if kind == QUANTUM_TUNNEL and a.to not in table.start_links:
            raise _Refusal(
                text(
                    "From the Quantum Tunnel starting card you can only move to a card placed next to it, "
                    "not {card}",
                    card=table.name(a.to),
                ),
                R_QT,
            )
        if kind == TIME_JUMP and table.start_colour is None:
            raise _Refusal(
                text(
                    "From the Time Jump starting card you can only move into the Timeline chosen by the first "
                    "player to leave it, and nobody has chosen one yet: place a card to choose it"
                ),
                R_TJ,
            )
        if kind == TIME_JUMP and dest_t.colour != table.start_colour:
            raise _Refusal(
                text(
                    "From the Time Jump starting card you can only move into the {timeline}, chosen by the first "
                    "player to leave it",
                    timeline=timeline_text(table.start_colour or ""),
                ),
                R_TJ,
            )
    else:
        here = table.timeline_of(pos)
        assert here is not None
        if here is dest_t:
            if abs(here.cards.index(a.to) - here.cards.index(pos or "")) != 1:
                raise _Refusal(
                    text(
                        "{card} is not next to {here}: move one card along your Timeline or to the same Era "
                        "in another Timeline",
                        card=table.name(a.to),
                        here=table.name(pos),
                    ),
                    R_ADJACENT,
                )
        elif table.num(a.to) != table.num(pos or ""):
            raise _Refusal(
                text(
                    "{card} is in another Timeline but not the same Era as {here}: only cards with the same "
                    "number in other Timelines are adjacent",
                    card=table.name(a.to),
                    here=table.name(pos),
                ),
                R_ADJACENT,
            )
    table.move_player(p, a.to, "adjacent")
    table.draw(p, 1)
    table.end_turn(p)


def _enter_portal(table: _Table, p: _P, a: EnterPortal) -> None:
    """Step into the Time Portal and draw 2; the next turn leaves it."""
    if p.position == PORTAL_ID:
        raise _Refusal(
            text("You are already in the Time Portal: this turn you must move to a card or place a card"),
            R_PORTAL,
        )
    table.move_player(p, PORTAL_ID, "portal")
    table.events.append(EnteredPortal(p.name))
    table.draw(p, 2)
    table.end_turn(p)


def _place(table: _Table, p: _P, a: PlaceCard) -> None:
    """Place a numbered card next to or parallel to your card and move onto it."""
    card = table.index.get(a.card)
    if card is None:
        raise _Refusal(text("There is no card called {card} in this deck", card=a.card), R_PLACE)
    name = table.name(a.card)
    if a.card not in p.hand:
        raise _Refusal(text("{card} is not in your hand", card=name), R_PLACE)
    if card.kind != NUMBER:
        raise _Refusal(
            text("{card} is a special card: play it as a free action, not as a placement", card=name),
            R_SPECIAL,
        )
    colour, era = card.colour or "", card.number or 0
    pos = p.position
    existing = table.by_colour(colour)
    shifted = False
    new_timeline = False
    if pos == PORTAL_ID or (pos is not None and pos == table.start_card):
        if pos == table.start_card:
            kind = table.index[pos].kind
            # Quantum Tunnel: a card of any colour may be placed next to it; a colour that
            # already has a Timeline joins it below, as when leaving the Time Portal.
            if kind == TIME_JUMP:
                if table.start_colour is None and existing is not None:
                    raise _Refusal(
                        text(
                            "A {timeline} is already on the table: choose a colour for a new Timeline",
                            timeline=timeline_text(colour),
                        ),
                        R_TJ,
                    )
                if table.start_colour is not None and colour != table.start_colour:
                    raise _Refusal(
                        text(
                            "The first player to leave the Time Jump starting card chose the {timeline}: "
                            "place a {colour} card",
                            timeline=timeline_text(table.start_colour),
                            colour=colour_text(table.start_colour),
                        ),
                        R_TJ,
                    )
                table.start_colour = colour
            table.start_links.append(a.card)
        if existing is None:
            target = _T(colour, [a.card], [])
            table.timelines.append(target)
            new_timeline = True
        else:
            target = existing
            if any(table.num(c) == era for c in target.cards):
                raise _Refusal(
                    text(
                        "The {timeline} already has an Era {era} card: its cards must stay in ascending order",
                        timeline=timeline_text(colour),
                        era=era,
                    ),
                    R_SAME,
                )
            later = [i for i, c in enumerate(target.cards) if table.num(c) > era]
            at = later[0] if later else len(target.cards)
            shifted = 0 < at < len(target.cards)
            target.cards.insert(at, a.card)
    else:
        here = table.timeline_of(pos)
        assert here is not None and pos is not None
        i = here.cards.index(pos)
        mine = table.num(pos)
        if colour == here.colour:
            if era == mine:
                raise _Refusal(
                    text(
                        "{card} has the same Era as {here}: a card placed to the right must be higher and "
                        "one placed to the left lower",
                        card=name,
                        here=table.name(pos),
                    ),
                    R_SAME,
                )
            if era > mine:
                right = here.cards[i + 1] if i + 1 < len(here.cards) else None
                if right is not None and era >= table.num(right):
                    raise _Refusal(
                        text(
                            "{card} cannot go to the right of {here}: it must be lower than the next card "
                            "{next} to keep the Timeline in ascending order",
                            card=name,
                            here=table.name(pos),
                            next=table.name(right),
                        ),
                        R_SAME,
                    )
                here.cards.insert(i + 1, a.card)
                shifted = right is not None
            else:
                left = here.cards[i - 1] if i > 0 else None
                if left is not None and era <= table.num(left):
                    raise _Refusal(
                        text(
                            "{card} cannot go to the left of {here}: it must be higher than the previous card "
                            "{previous} to keep the Timeline in ascending order",
                            card=name,
                            here=table.name(pos),
                            previous=table.name(left),
                        ),
                        R_SAME,
                    )
                here.cards.insert(i, a.card)
                shifted = left is not None
            target = here
        else:
            if era != mine:
                raise _Refusal(
                    text(
                        "{card} is neither {colour} (to place beside {here}) nor Era {era} "
                        "(to splice a new Timeline above or below {here})",
                        card=name,
                        colour=colour_text(here.colour),
                        here=table.name(pos),
                        era=mine,
                    ),
                    R_NEW,
                )
            if existing is not None:
                raise _Refusal(
                    text(
                        "A {timeline} is already on the table, and each colour has only one Timeline: "
                        "splice a card of a colour that has no Timeline yet",
                        timeline=timeline_text(colour),
                    ),
                    R_NEW,
                )
            target = _T(colour, [a.card], [])
            table.timelines.append(target)
            new_timeline = True
    p.hand.remove(a.card)
    table.events.append(CardPlaced(p.name, a.card, colour, new_timeline, shifted))
    count = sum(1 for t in table.timelines for c in t.cards if table.num(c) == era)
    if count in (3, 4):
        gained = table.token_supply > 0
        if gained:
            table.token_supply -= 1
            p.tokens += 1
        table.events.append(FixedPointReached(p.name, era, count, gained))
    table.move_player(p, a.card, "placed")
    if target in table.timelines:
        table.collapse_after_placing(p, target, a.card, a.sequence, a.relocate_to)
    table.end_turn(p)


# ---- free actions


def _quantum_tunnel(table: _Table, p: _P, a: UseQuantumTunnel) -> None:
    """Play a Quantum Tunnel card to move to any card on the table."""
    if not any(table.index[c].kind == QUANTUM_TUNNEL for c in p.hand):
        raise _Refusal(text("You have no Quantum Tunnel card in your hand"), R_QT)
    _check_table_card(table, a.to)
    if p.position == a.to:
        raise _Refusal(text("You are already on {card}", card=table.name(a.to)), R_QT)
    card = table.take_from_hand(p, QUANTUM_TUNNEL)
    assert card is not None
    table.discard.append(card)
    table.events.append(SpecialCardPlayed(p.name, card))
    table.move_player(p, a.to, "quantum-tunnel")


def _time_jump(table: _Table, p: _P, a: UseTimeJump) -> None:
    """A Time Jump card or token moves you to any other card of your own Timeline."""
    here = table.timeline_of(p.position)
    if here is None:
        raise _Refusal(
            text("A Time Jump moves within your Timeline, and you are not on a Timeline card"), R_TJ
        )
    if a.to not in here.cards:
        raise _Refusal(
            text(
                "{card} is not in your {timeline}", card=table.name(a.to), timeline=timeline_text(here.colour)
            ),
            R_TJ,
        )
    if a.to == p.position:
        raise _Refusal(text("You are already on {card}", card=table.name(a.to)), R_TJ)
    if a.token:
        if p.tokens < 1:
            raise _Refusal(text("You have no Time Jump token"), R_TJ)
        p.tokens -= 1
        table.token_supply += 1
        table.events.append(TimeJumpTokenSpent(p.name, "time jump"))
    else:
        card = table.take_from_hand(p, TIME_JUMP)
        if card is None:
            raise _Refusal(text("You have no Time Jump card in your hand"), R_TJ)
        table.discard.append(card)
        table.events.append(SpecialCardPlayed(p.name, card))
    table.move_player(p, a.to, "time-jump")


def _redraw(table: _Table, p: _P, a: RedrawHand) -> None:
    """A Time Jump token can instead discard your hand and draw four new cards."""
    if p.tokens < 1:
        raise _Refusal(text("You have no Time Jump token to exchange your hand"), R_TJ)
    p.tokens -= 1
    table.token_supply += 1
    table.events.append(TimeJumpTokenSpent(p.name, "new hand"))
    hand = tuple(p.hand)
    p.hand.clear()
    table.discard.extend(hand)
    table.events.append(HandDiscarded(p.name, hand))
    table.draw(p, table.cfg.hand_minimum)


def _time_freeze(table: _Table, p: _P, a: PlaceTimeFreeze) -> None:
    """Put a Time Freeze card and one of your markers at the end of your Timeline."""
    here = table.timeline_of(p.position)
    if here is None:
        raise _Refusal(
            text("A Time Freeze card goes at the end of your Timeline, and you are not on one"), R_TF
        )
    if not any(table.index[c].kind == TIME_FREEZE for c in p.hand):
        raise _Refusal(text("You have no Time Freeze card in your hand"), R_TF)
    if p.markers < 1:
        raise _Refusal(text("You have no Time Freeze marker left to show the card is yours"), R_TF)
    card = table.take_from_hand(p, TIME_FREEZE)
    assert card is not None
    p.markers -= 1
    here.freezes.append((card, p.name))
    table.events.append(TimeFreezePlaced(p.name, card, here.colour))


def _forfeit(table: _Table, p: _P, a: ForfeitTurn) -> None:
    """The turn timer ran out: no main action this turn, then the usual end of turn."""
    table.events.append(TurnForfeited(p.name))
    table.end_turn(p)


_HANDLERS: dict[type, Any] = {
    ForfeitTurn: _forfeit,
    Move: _move,
    EnterPortal: _enter_portal,
    PlaceCard: _place,
    UseQuantumTunnel: _quantum_tunnel,
    UseTimeJump: _time_jump,
    RedrawHand: _redraw,
    PlaceTimeFreeze: _time_freeze,
}


def apply(state: GameState, action: Action) -> Accepted[GameState] | Rejected:
    """Decide one action: the new state and its events, or a rejection naming the rule.

    Turn order is enforced (How to Play): only the current player acts; special cards are
    free actions before the main move, and the main move (Moving a, b or c) ends the
    turn after the Hand Minimum refill.
    """
    handler = _HANDLERS.get(type(action))
    if handler is None:
        return Rejected(text("{action} is not a Time Splicers action", action=type(action).__name__), R_TURN)
    if state.winner is not None:
        return Rejected(text("The game is over: {player} has won", player=state.winner), R_END)
    if state.is_over:
        return Rejected(text("The game is over: every player has been eliminated"), R_END)
    table = _Table(state)
    try:
        p = _player(table, action.player)
        if p.eliminated:
            raise _Refusal(text("{player} has been eliminated from the game", player=p.name), R_HAND_MAX)
        if p.name != state.current_player:
            raise _Refusal(
                text("It is {player}'s turn, not {other}'s", player=state.current_player, other=p.name),
                R_TURN,
            )
        handler(table, p, action)
    except _Refusal as refusal:
        return Rejected(refusal.reason, refusal.rule)
    except _GameOver:
        pass
    return Accepted(table.freeze(), tuple(table.events))


def is_legal(state: GameState, action: Action) -> bool:
    """True when :func:`apply` would accept ``action``."""
    return isinstance(apply(state, action), Accepted)


def all_card_ids(state: GameState) -> list[str]:
    """Every card wherever it is: deck, discard, removed, hands, Timelines, Time Freezes, portal."""
    out = [PORTAL_ID, *state.deck, *state.discard, *state.removed]
    for p in state.players:
        out.extend(p.hand)
    for t in state.timelines:
        out.extend(t.cards)
        out.extend(c for c, _ in t.freezes)
    if state.start_card is not None:
        out.append(state.start_card)
    return out
