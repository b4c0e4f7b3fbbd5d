"""Pure rules engine for Timeline: España.

``apply(state, action) -> Accepted | Rejected``: a player places a card of their hand in
a gap of the timeline; the engine checks the year, keeps or discards the card, deals
penalty and play-off draws, reshuffles the discard pile, ends rounds and names the winner.
No I/O, no clock, no global randomness: shuffles use the seeded generator kept in the state.

Rulebook sections cited below are those of ``timeline-espana.txt``: "Setup", "Gameplay",
"Special Case" and "End of the Game - Victory".

Rule summary (in our words)
---------------------------
* Players sit in the order given; the first one is the starting player and every round
  starts with them (or with the first of them still in the game). Each player places one
  card per round ("Gameplay").
* The timeline is a row of face-up cards ordered by year. With ``n`` cards there are
  ``n + 1`` gaps, numbered 0 (left of every card) to ``n`` (right of every card).
* A card placed in a gap is correct when its year is not before the card on its left and
  not after the card on its right; a card with the same year as a neighbour is correct on
  either side of it ("Special Case"). A correct card stays in the timeline; a wrong one is
  discarded and the player draws the top card of the deck ("Gameplay").
* When the deck is empty and a card must be drawn, the discard pile is shuffled into a
  new deck ("Gameplay", last paragraph).
* At the end of a round, if exactly one player correctly placed their last card during it,
  that player wins. If several did, they alone go on to a play-off and every other player
  is eliminated ("End of the Game - Victory").
* Play-off (last paragraph of "End of the Game - Victory"): the remaining players draw a
  card during each round, so at the start of each play-off round every one of them draws
  one card, whatever they already hold (a player who missed keeps their penalty card too).
  The standard rules apply, a miss included. What decides a play-off round is who placed a
  card correctly, not who emptied their hand: if exactly one remaining player did, they
  win; otherwise (nobody, or several) the same players play another play-off round. The
  rulebook eliminates players only when the play-off begins, so nobody else is eliminated.
* Assumption (the rulebook is silent): if a play-off round cannot start because a remaining
  player must draw and the deck and the discard pile are both empty, the game ends shared
  by the remaining players.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from companion.errors import InvalidRecordError
from companion.games.base import Accepted, Rejected
from companion.rules.text import text

from .cards import Card, check_deck_size
from .seeded import seed_state, shuffled

RULE_SETUP = text("Setup")
RULE_GAMEPLAY = text("Gameplay")
RULE_SAME_YEAR = text("Special Case")
RULE_VICTORY = text("End of the Game - Victory")
"""Sections of the rulebook cited by refusals (the catalogs give the Spanish and German editions' names)."""


class TimelineSetupError(InvalidRecordError):
    """The players, deck or deal given to start a game cannot start one."""


# --- actions -----------------------------------------------------------------------


@dataclass(frozen=True)
class PlaceCard:
    """A player places a card from their hand in a gap of the timeline ("Gameplay")."""

    player: str
    """Who places the card."""
    card: str
    """Id of a card in that player's hand."""
    gap: int
    """Gap index: 0 is left of every card, ``len(timeline)`` right of every card."""


# --- events ------------------------------------------------------------------------


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


# --- state -------------------------------------------------------------------------


@dataclass(frozen=True)
class TimelineState:
    """Everything about a game of Timeline at one moment."""

    cards: Mapping[str, Card]
    """Every card of the deck by id (read-only)."""
    players: tuple[str, ...]
    """Players in seating order, clockwise; the first is the starting player."""
    hands: tuple[tuple[str, ...], ...]
    """Card ids in each player's hand, aligned with ``players``."""
    timeline: tuple[str, ...]
    """Face-up card ids, left to right, ordered by year."""
    deck: tuple[str, ...]
    """Face-down draw pile, top card first."""
    discard: tuple[str, ...] = ()
    """Discarded (misplaced) cards, oldest first."""
    eliminated: tuple[str, ...] = ()
    """Players knocked out when a play-off began, in seating order."""
    to_move: str | None = None
    """Whose turn it is; ``None`` once the game is over."""
    round: int = 1
    """Round number, from 1."""
    emptied: tuple[str, ...] = ()
    """Players who correctly placed their last card during the current round."""
    placed_correctly: tuple[str, ...] = ()
    """Players who placed a card correctly during the current round (decides a play-off round)."""
    playoff: bool = False
    """True once several players emptied their hands in the same round."""
    winner: str | None = None
    """The sole winner, once there is one."""
    shared_by: tuple[str, ...] = ()
    """Players sharing the game when a play-off ran out of cards (see module docstring)."""
    rng: int = field(default=0, repr=False)
    """State of the seeded shuffle generator."""

    @property
    def is_over(self) -> bool:
        """True once the game has a winner or is shared."""
        return self.winner is not None or bool(self.shared_by)

    @property
    def remaining(self) -> tuple[str, ...]:
        """Players still in the game, in seating order."""
        return tuple(p for p in self.players if p not in self.eliminated)

    def hand(self, player: str) -> tuple[str, ...]:
        """Card ids in ``player``'s hand."""
        return self.hands[self.players.index(player)]

    def years(self) -> tuple[int, ...]:
        """Years of the timeline cards, left to right."""
        return tuple(self.cards[c].year for c in self.timeline)

    def all_card_ids(self) -> tuple[str, ...]:
        """Every card id wherever it lies: deck, discard pile, hands and timeline."""
        return self.deck + self.discard + tuple(c for hand in self.hands for c in hand) + self.timeline


# --- setup -------------------------------------------------------------------------


def _check_players(players: Sequence[str], *, min_players: int, max_players: int) -> tuple[str, ...]:
    names = tuple(players)
    if any(not isinstance(p, str) or not p.strip() for p in names):
        raise TimelineSetupError("every player needs a non-empty name")
    if len(set(names)) != len(names):
        raise TimelineSetupError("two players have the same name")
    if not min_players <= len(names) <= max_players:
        raise TimelineSetupError(f"Timeline needs {min_players} to {max_players} players, not {len(names)}")
    return names


def _card_table(cards: Iterable[Card]) -> Mapping[str, Card]:
    table: dict[str, Card] = {}
    for card in cards:
        if card.id in table:
            raise TimelineSetupError(f"the deck has two cards with id {card.id!r}")
        table[card.id] = card
    return MappingProxyType(table)


def new_game(
    cards: Iterable[Card],
    players: Sequence[str],
    *,
    seed: int = 0,
    hand_size: int = 4,
    min_players: int = 2,
    max_players: int = 8,
) -> TimelineState:
    """Shuffle the deck with ``seed``, deal ``hand_size`` cards to each player and turn up the reference card ("Setup").

    Cards are dealt one at a time in seating order; the next card of the shuffled deck is
    the reference card that starts the timeline; the rest is the draw pile.
    """
    names = _check_players(players, min_players=min_players, max_players=max_players)
    table = _card_table(cards)
    if isinstance(hand_size, bool) or not isinstance(hand_size, int) or hand_size < 1:
        raise TimelineSetupError(f"the hand size must be a whole number of at least 1, not {hand_size!r}")
    try:
        check_deck_size(table.values(), len(names), hand_size)
    except InvalidRecordError as exc:
        raise TimelineSetupError(str(exc)) from None
    order, rng = shuffled(table.keys(), seed_state(seed))
    hands = tuple(tuple(order[i : len(names) * hand_size : len(names)]) for i in range(len(names)))
    rest = order[len(names) * hand_size :]
    return TimelineState(
        cards=table, players=names, hands=hands, timeline=(rest[0],), deck=rest[1:], to_move=names[0], rng=rng
    )


def game_from_deal(
    cards: Iterable[Card],
    players: Sequence[str],
    *,
    hands: Mapping[str, Sequence[str]],
    reference: str,
    draw_pile: Sequence[str] = (),
    seed: int = 0,
    min_players: int = 2,
    max_players: int = 8,
) -> TimelineState:
    """Start a game from a deal made at a real table ("Setup").

    ``hands`` gives each player's cards, ``reference`` the face-up starting card and
    ``draw_pile`` the deck from the top down. Cards of the deck that the deal does not
    mention go under the listed draw pile, shuffled with ``seed``; later reshuffles of the
    discard pile use the same seeded generator.
    """
    names = _check_players(players, min_players=min_players, max_players=max_players)
    table = _card_table(cards)
    where: dict[str, str] = {}

    def claim(card_id: Any, place: str) -> str:
        if not isinstance(card_id, str) or card_id not in table:
            raise TimelineSetupError(f"the deal puts unknown card {card_id!r} in {place}")
        if card_id in where:
            raise TimelineSetupError(
                f"the deal puts card {card_id!r} both in {where[card_id]} and in {place}"
            )
        where[card_id] = place
        return card_id

    unknown = [p for p in hands if p not in names]
    if unknown:
        raise TimelineSetupError(f"the deal gives a hand to {unknown[0]!r}, who is not among the players")
    dealt = []
    for name in names:
        hand = hands.get(name)
        if not hand:
            raise TimelineSetupError(f"the deal gives no cards to {name}")
        dealt.append(tuple(claim(c, f"{name}'s hand") for c in hand))
    ref = claim(reference, "the reference card")
    pile = tuple(claim(c, "the draw pile") for c in draw_pile)
    rest, rng = shuffled((c for c in table if c not in where), seed_state(seed))
    return TimelineState(
        cards=table,
        players=names,
        hands=tuple(dealt),
        timeline=(ref,),
        deck=pile + rest,
        to_move=names[0],
        rng=rng,
    )


# --- rules -------------------------------------------------------------------------


def fits(years: Sequence[int], gap: int, year: int) -> bool:
    """True when a card of ``year`` is correctly placed in ``gap`` of a timeline with these years.

    The card's left neighbour must not be later and its right neighbour not earlier; equal
    years are correct on either side ("Gameplay", "Special Case").
    """
    left_ok = gap == 0 or years[gap - 1] <= year
    right_ok = gap == len(years) or year <= years[gap]
    return left_ok and right_ok


def rejection(state: TimelineState, action: PlaceCard) -> Rejected | None:
    """Why ``action`` is illegal in ``state``, or ``None`` when it is legal."""
    if state.is_over:
        if state.winner is not None:
            return Rejected(
                text("The game is over: {player} has already won", player=state.winner), RULE_VICTORY
            )
        return Rejected(text("The game is over: {players} share it", players=state.shared_by), RULE_VICTORY)
    if action.player not in state.players:
        return Rejected(text("{player} is not playing in this game", player=str(action.player)), RULE_SETUP)
    if action.player in state.eliminated:
        return Rejected(
            text("{player} was eliminated when the play-off began", player=action.player), RULE_VICTORY
        )
    if action.player != state.to_move:
        return Rejected(
            text("It is {player}'s turn, not {other}'s", player=state.to_move or "", other=action.player),
            RULE_GAMEPLAY,
        )
    if action.card not in state.hand(action.player):
        return Rejected(
            text("{player} has no card '{card}' in hand", player=action.player, card=str(action.card)),
            RULE_GAMEPLAY,
        )
    if (
        isinstance(action.gap, bool)
        or not isinstance(action.gap, int)
        or not 0 <= action.gap <= len(state.timeline)
    ):
        return Rejected(
            text(
                "There is no gap {gap}: a timeline of {count} card has gaps 0 to {count}",
                "There is no gap {gap}: a timeline of {count} cards has gaps 0 to {count}",
                gap=repr(action.gap),
                count=len(state.timeline),
            ),
            RULE_GAMEPLAY,
        )
    return None


def is_legal(state: TimelineState, action: PlaceCard) -> bool:
    """True when ``action`` may be applied to ``state``."""
    return rejection(state, action) is None


def _draw(state: TimelineState, player: str, events: list[Any]) -> TimelineState:
    """``player`` draws the top card, reshuffling the discard pile first if the deck is empty ("Gameplay")."""
    deck, discard, rng = state.deck, state.discard, state.rng
    if not deck and discard:
        deck, rng = shuffled(discard, rng)
        discard = ()
        events.append(DiscardReshuffled(len(deck)))
    if not deck:
        return replace(state, deck=deck, discard=discard, rng=rng)
    index = state.players.index(player)
    hands = list(state.hands)
    hands[index] = hands[index] + (deck[0],)
    events.append(CardDrawn(player, deck[0]))
    return replace(state, hands=tuple(hands), deck=deck[1:], discard=discard, rng=rng)


def _end_round(state: TimelineState, events: list[Any]) -> TimelineState:
    """Close the round: sole winner, play-off, or next round ("End of the Game - Victory").

    Before the play-off, the players who correctly placed their last card decide: one wins,
    several go on to a play-off and the others are eliminated. In a play-off round the
    players who placed a card correctly decide: one wins, otherwise the same players play
    another round. Every play-off round starts with each remaining player drawing a card.
    """
    emptied = state.emptied
    events.append(RoundEnded(state.round, emptied))
    deciding = state.placed_correctly if state.playoff else emptied
    if len(deciding) == 1:
        events.append(GameWon(deciding[0]))
        return replace(state, winner=deciding[0], to_move=None, emptied=(), placed_correctly=())
    if len(emptied) >= 2 and not state.playoff:
        out = tuple(p for p in state.remaining if p not in emptied)
        state = replace(
            state,
            eliminated=tuple(p for p in state.players if p in state.eliminated or p in out),
            playoff=True,
        )
        events.append(PlayoffStarted(emptied, out))
    state = replace(state, emptied=(), placed_correctly=())
    if state.playoff:
        for player in state.remaining:
            before = len(state.hand(player))
            state = _draw(state, player, events)
            if len(state.hand(player)) == before:
                events.append(GameShared(state.remaining))
                return replace(state, shared_by=state.remaining, to_move=None)
    return replace(state, round=state.round + 1, to_move=state.remaining[0])


def apply(state: TimelineState, action: PlaceCard) -> Accepted[TimelineState] | Rejected:
    """Place a card; keep it if its year fits the gap, else discard it and draw ("Gameplay").

    Then pass the turn clockwise to the next player still in the game, closing the round
    after the last of them ("End of the Game - Victory").
    """
    refused = rejection(state, action)
    if refused is not None:
        return refused
    player, card_id, gap = action.player, action.card, action.gap
    year = state.cards[card_id].year
    index = state.players.index(player)
    hands = list(state.hands)
    hands[index] = tuple(c for c in hands[index] if c != card_id)
    events: list[Any] = []
    if fits(state.years(), gap, year):
        timeline = state.timeline[:gap] + (card_id,) + state.timeline[gap:]
        state = replace(
            state, hands=tuple(hands), timeline=timeline, placed_correctly=state.placed_correctly + (player,)
        )
        events.append(CardPlaced(player, card_id, gap, year))
        if not hands[index]:
            state = replace(state, emptied=state.emptied + (player,))
    else:
        state = replace(state, hands=tuple(hands), discard=state.discard + (card_id,))
        events.append(CardMisplaced(player, card_id, gap, year))
        state = _draw(state, player, events)
    remaining = state.remaining
    position = remaining.index(player)
    if position + 1 < len(remaining):
        state = replace(state, to_move=remaining[position + 1])
    else:
        state = _end_round(state, events)
    return Accepted(state, tuple(events))
