"""Pure rules engine for Timeline: España.

``apply(state, action) -> Accepted | Rejected``: a player places a card in a gap of the
timeline; the engine checks the year, keeps or discards the card, deals penalty and
play-off draws, reshuffles the discard pile, ends rounds and names the winner. No I/O, no
clock, no global randomness: the hub deck's shuffles use the seeded generator kept in its
piles (:mod:`.hubdeck`).

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
* Hub rule (the rulebook has no time limit): a turn whose time runs out places no card and
  draws none, and the turn passes (:func:`time_out`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.outcome import Accepted, Rejected, checked, refuse
from companion.rules.text import text

from .cards import Card, check_deck_size
from .hubdeck import HubPiles, seed_state, shuffled
from .model import (
    CardDrawn,
    CardMisplaced,
    CardPlaced,
    DiscardReshuffled,
    GameShared,
    GameWon,
    Laid,
    LastCard,
    PlaceCard,
    PlayoffStarted,
    RoundEnded,
    TimelineState,
)

RULE_SETUP = text("Setup")
RULE_GAMEPLAY = text("Gameplay")
RULE_SAME_YEAR = text("Special Case")
RULE_VICTORY = text("End of the Game - Victory")
"""Sections of the rulebook cited by refusals (the catalogs give the Spanish and German editions' names)."""

Action = PlaceCard
"""Every action the engine applies."""


class TimelineSetupError(InvalidRecordError):
    """The players, deck or deal given to start a game cannot start one."""


# --- setup -------------------------------------------------------------------------------------


def check_players(players: Sequence[str], *, min_players: int, max_players: int) -> tuple[str, ...]:
    """The players as a tuple; :class:`TimelineSetupError` unless they can sit down to a game."""
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
    """The hub deck: shuffle ``cards`` with ``seed``, deal ``hand_size`` to each player and turn up the
    reference card ("Setup").

    Cards are dealt one at a time in seating order; the next card of the shuffled deck is
    the reference card that starts the timeline; the rest is the draw pile.
    """
    names = check_players(players, min_players=min_players, max_players=max_players)
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
    reference = table[rest[0]]
    piles = HubPiles(table, hands, rest[1:], rng=rng)
    return TimelineState(names, piles, (Laid(reference.year, reference.id),), to_move=names[0])


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
    """A game of the hub deck's cards from a deal made at a real table ("Setup").

    ``hands`` gives each player's cards, ``reference`` the face-up starting card and
    ``draw_pile`` the deck from the top down. Cards of the deck that the deal does not
    mention go under the listed draw pile, shuffled with ``seed``; later reshuffles of the
    discard pile use the same seeded generator.
    """
    names = check_players(players, min_players=min_players, max_players=max_players)
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
    ref = table[claim(reference, "the reference card")]
    pile = tuple(claim(c, "the draw pile") for c in draw_pile)
    rest, rng = shuffled((c for c in table if c not in where), seed_state(seed))
    piles = HubPiles(table, tuple(dealt), pile + rest, rng=rng)
    return TimelineState(names, piles, (Laid(ref.year, ref.id),), to_move=names[0])


# --- rules -------------------------------------------------------------------------------------


def fits(years: Sequence[int], gap: int, year: int) -> bool:
    """True when a card of ``year`` is correctly placed in ``gap`` of a timeline with these years.

    The card's left neighbour must not be later and its right neighbour not earlier; equal
    years are correct on either side ("Gameplay", "Special Case").
    """
    left_ok = gap == 0 or years[gap - 1] <= year
    right_ok = gap == len(years) or year <= years[gap]
    return left_ok and right_ok


def check_turn(state: TimelineState, player: str) -> None:
    """Refuse unless ``player`` may act now: the game goes on, they play in it and it is their turn."""
    if state.is_over:
        if state.winner is not None:
            refuse(text("The game is over: {player} has already won", player=state.winner), RULE_VICTORY)
        refuse(text("The game is over: {players} share it", players=state.shared_by), RULE_VICTORY)
    if player not in state.players:
        refuse(text("{player} is not playing in this game", player=str(player)), RULE_SETUP)
    if player in state.eliminated:
        refuse(text("{player} was eliminated when the play-off began", player=player), RULE_VICTORY)
    if player != state.to_move:
        refuse(
            text("It is {player}'s turn, not {other}'s", player=state.to_move or "", other=player),
            RULE_GAMEPLAY,
        )


def check_gap(state: TimelineState, gap: int) -> None:
    """Refuse a gap the timeline does not have."""
    if isinstance(gap, bool) or not isinstance(gap, int) or not 0 <= gap <= len(state.timeline):
        refuse(
            text(
                "There is no gap {gap}: a timeline of {count} card has gaps 0 to {count}",
                "There is no gap {gap}: a timeline of {count} cards has gaps 0 to {count}",
                gap=repr(gap),
                count=len(state.timeline),
            ),
            RULE_GAMEPLAY,
        )


def _place_card(state: TimelineState, action: PlaceCard) -> Accepted[TimelineState]:
    """Place a card of the hub deck: the hub knows its year and judges it."""
    check_turn(state, action.player)
    if action.card not in state.hand(action.player):
        refuse(
            text("{player} has no card '{card}' in hand", player=action.player, card=str(action.card)),
            RULE_GAMEPLAY,
        )
    check_gap(state, action.gap)
    year = state.piles.cards[action.card].year
    kept = fits(state.years(), action.gap, year)
    return placed(state, action.player, action.gap, year, kept=kept, card=action.card)


def placed(
    state: TimelineState, player: str, gap: int, year: int, *, kept: bool, card: str = ""
) -> Accepted[TimelineState]:
    """``player``'s card of ``year`` was turned over in ``gap``: kept in the timeline or discarded with a
    penalty draw ("Gameplay"); then the turn passes clockwise, closing the round after the last player
    still in the game ("End of the Game - Victory")."""
    index = state.players.index(player)
    events: list[Any] = []
    piles = state.piles.played(index, card, kept=kept)
    last = LastCard(player, gap, year, kept, card)
    if kept:
        timeline = state.timeline[:gap] + (Laid(year, card),) + state.timeline[gap:]
        state = replace(
            state,
            piles=piles,
            timeline=timeline,
            placed_correctly=state.placed_correctly + (player,),
            last=last,
        )
        events.append(CardPlaced(player, card, gap, year))
        if not piles.held(index):
            state = replace(state, emptied=state.emptied + (player,))
    else:
        state = replace(state, piles=piles, last=last)
        events.append(CardMisplaced(player, card, gap, year))
        state = _draw(state, player, events)
    return Accepted(_pass_turn(state, player, events), tuple(events))


def _draw(state: TimelineState, player: str, events: list[Any]) -> TimelineState:
    """``player`` draws the top card, reshuffling the discard pile first if the deck is empty ("Gameplay")."""
    piles = state.piles
    if not piles.deck_size and piles.discard_size:
        piles = piles.reshuffled()
        events.append(DiscardReshuffled(piles.deck_size))
    if not piles.deck_size:
        return replace(state, piles=piles)
    piles, card = piles.drawn(state.players.index(player))
    events.append(CardDrawn(player, card))
    return replace(state, piles=piles)


def _pass_turn(state: TimelineState, player: str, events: list[Any]) -> TimelineState:
    """The turn passes clockwise to the next player still in the game; after the last one the round ends."""
    remaining = state.remaining
    position = remaining.index(player)
    if position + 1 < len(remaining):
        return replace(state, to_move=remaining[position + 1])
    return _end_round(state, events)


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
            before = state.held(player)
            state = _draw(state, player, events)
            if state.held(player) == before:
                events.append(GameShared(state.remaining))
                return replace(state, shared_by=state.remaining, to_move=None)
    return replace(state, round=state.round + 1, to_move=state.remaining[0])


@checked
def time_out(state: TimelineState, player: str) -> Accepted[TimelineState]:
    """``player``'s turn timer ran out (a hub rule): they place nothing, draw nothing, and the turn passes.

    After the last player of the round the end-of-round rule runs ("End of the Game - Victory"),
    exactly as after a placement.
    """
    check_turn(state, player)
    events: list[Any] = []
    return Accepted(_pass_turn(state, player, events), tuple(events))


@checked
def apply(state: TimelineState, action: Action) -> Accepted[TimelineState]:
    """Apply one action; a broken rule is answered as a :class:`~companion.rules.outcome.Rejected`."""
    if isinstance(action, PlaceCard):
        return _place_card(state, action)
    refuse(text("unknown Timeline table action {action}", action=repr(type(action).__name__)), RULE_GAMEPLAY)


def rejection(state: TimelineState, action: Action) -> Rejected | None:
    """Why ``action`` is illegal in ``state``, or ``None`` when it is legal."""
    result = apply(state, action)
    return result if isinstance(result, Rejected) else None


def is_legal(state: TimelineState, action: Action) -> bool:
    """True when ``action`` may be applied to ``state``."""
    return rejection(state, action) is None
