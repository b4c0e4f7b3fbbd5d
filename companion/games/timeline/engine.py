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
  draws none, and the turn passes (:func:`time_out`); a card put in a gap and not turned over
  yet goes back to the hand.

Two decks (see :mod:`.model`): with the hub deck the hub knows every card and judges each
placement by its year (:class:`PlaceCard`). At a table deck the table tells what the card shows
(:class:`RevealCard`); the hub judges by the year where the years it knows decide it
(:func:`judge`), and takes the table's word "right" or "wrong" where they do not (a neighbour
whose year nobody entered) or when no year is given. The draws, reshuffles, rounds and play-off
are the same rules on counts.
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
    CardPut,
    CountedPiles,
    DiscardReshuffled,
    GameShared,
    GameWon,
    Laid,
    LastCard,
    NameYear,
    PlaceCard,
    Placing,
    PlayoffStarted,
    PutCard,
    RevealCard,
    RoundEnded,
    TimelineState,
    YearNamed,
)
from .words import year_label

RULE_SETUP = text("Setup")
RULE_GAMEPLAY = text("Gameplay")
RULE_SAME_YEAR = text("Special Case")
RULE_VICTORY = text("End of the Game - Victory")
"""Sections of the rulebook cited by refusals (the catalogs give the Spanish and German editions' names)."""

RULE_TABLE_DECK = text("What the table turned over")
"""The hub's rule for what a table deck enters (not a rulebook section)."""

Action = PlaceCard | PutCard | RevealCard | NameYear
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


def table_game(
    players: Sequence[str],
    *,
    cards: int,
    hand_size: int = 4,
    min_players: int = 2,
    max_players: int = 8,
) -> TimelineState:
    """A table deck: the players shuffle the box's ``cards``, deal ``hand_size`` to each and turn up the
    reference card ("Setup"); the hub counts the piles and knows no year until one is entered."""
    names = check_players(players, min_players=min_players, max_players=max_players)
    if isinstance(hand_size, bool) or not isinstance(hand_size, int) or hand_size < 1:
        raise TimelineSetupError(f"the hand size must be a whole number of at least 1, not {hand_size!r}")
    needed = len(names) * hand_size + 1
    if cards < needed:
        raise TimelineSetupError(
            f"the box's {cards} cards are too few for {len(names)} players with {hand_size} cards each"
            f" (the deal and the reference card need {needed})"
        )
    piles = CountedPiles((hand_size,) * len(names), cards - needed)
    return TimelineState(names, piles, (Laid(None),), to_move=names[0])


# --- rules -------------------------------------------------------------------------------------


def fits(years: Sequence[int], gap: int, year: int) -> bool:
    """True when a card of ``year`` is correctly placed in ``gap`` of a timeline with these years.

    The card's left neighbour must not be later and its right neighbour not earlier; equal
    years are correct on either side ("Gameplay", "Special Case").
    """
    left_ok = gap == 0 or years[gap - 1] <= year
    right_ok = gap == len(years) or year <= years[gap]
    return left_ok and right_ok


def bounds(years: Sequence[int | None], index: int) -> tuple[int | None, int | None]:
    """The years the card at ``index`` can have, as far as the entered years tell: from the nearest
    known year on its left to the nearest on its right (None: no bound on that side)."""
    low = next((y for y in reversed(years[:index]) if y is not None), None)
    high = next((y for y in years[index + 1 :] if y is not None), None)
    return low, high


def _not_after(years: Sequence[int | None], index: int, year: int) -> bool | None:
    """The card at ``index`` is not later than ``year`` (True), is later (False), or the years do not tell."""
    known = years[index]
    if known is not None:
        return known <= year
    low, high = bounds(years, index)
    if high is not None and high <= year:
        return True
    if low is not None and year < low:
        return False
    return None


def _not_before(years: Sequence[int | None], index: int, year: int) -> bool | None:
    """The card at ``index`` is not earlier than ``year`` (True), is earlier (False), or the years do not tell."""
    known = years[index]
    if known is not None:
        return year <= known
    low, high = bounds(years, index)
    if low is not None and year <= low:
        return True
    if high is not None and year > high:
        return False
    return None


def judge(years: Sequence[int | None], gap: int, year: int) -> bool | None:
    """:func:`fits` for a timeline whose years may not all be known: True or False when the known years
    decide it, None when only a neighbour's missing year would ("Gameplay", "Special Case")."""
    left = _not_after(years, gap - 1, year) if gap > 0 else True
    right = _not_before(years, gap, year) if gap < len(years) else True
    if left is False or right is False:
        return False
    if left and right:
        return True
    return None


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
    if not isinstance(state.piles, HubPiles):
        refuse(
            text("The table plays with its own box: put your card in a gap, then say what it shows"),
            RULE_TABLE_DECK,
        )
    if action.card not in state.hand(action.player):
        refuse(
            text("{player} has no card '{card}' in hand", player=action.player, card=str(action.card)),
            RULE_GAMEPLAY,
        )
    check_gap(state, action.gap)
    year = state.piles.cards[action.card].year
    kept = judge(state.years(), action.gap, year) is True  # a hub deck's timeline has every year
    return placed(state, action.player, action.gap, year, kept=kept, card=action.card)


def _check_table_deck(state: TimelineState) -> None:
    if isinstance(state.piles, HubPiles):
        refuse(
            text("The hub deals the cards at this table: choose a card of your hand and a gap"),
            RULE_TABLE_DECK,
        )


def _check_year(year: int) -> None:
    if year == 0:
        refuse(text("There is no year 0: the year before 1 is 1 BCE"), RULE_TABLE_DECK)


def _put_card(state: TimelineState, action: PutCard) -> Accepted[TimelineState]:
    """A card of the hand lies in a gap, not turned over yet (putting it again moves it)."""
    check_turn(state, action.player)
    _check_table_deck(state)
    check_gap(state, action.gap)
    put = replace(state, placing=Placing(action.player, action.gap))
    return Accepted(put, (CardPut(action.player, action.gap),))


def _reveal(state: TimelineState, action: RevealCard) -> Accepted[TimelineState]:
    """The card put in a gap was turned over: judged by its year where the known years decide it, by the
    table's word where they cannot; kept or discarded with a penalty draw."""
    player, year, right = action.player, action.year, action.right
    check_turn(state, player)
    _check_table_deck(state)
    if state.placing is None or state.placing.player != player:
        refuse(text("Put your card in a gap of the timeline first"), RULE_TABLE_DECK)
    gap = state.placing.gap
    verdict = None
    if year is not None:
        _check_year(year)
        verdict = judge(state.years(), gap, year)
    if verdict is None and right is None:
        if year is None:
            refuse(text("Say the year on the card, or whether it is right or wrong"), RULE_TABLE_DECK)
        refuse(
            text(
                "The hub cannot tell whether {year} fits: a card next to it has no year. Say whether it is right or wrong",
                year=year_label(year),
            ),
            RULE_TABLE_DECK,
        )
    if verdict is not None and right is not None and verdict != right:
        message = (
            text("A card of {year} fits this gap: it is right, not wrong", year=year_label(year))
            if verdict
            else text("A card of {year} does not fit this gap: it is wrong, not right", year=year_label(year))
        )
        refuse(message, RULE_GAMEPLAY)
    kept = verdict if verdict is not None else bool(right)
    unplaced = replace(state, placing=None)
    return placed(unplaced, player, gap, year, kept=kept, by_table=verdict is None)


def _name_year(state: TimelineState, action: NameYear) -> Accepted[TimelineState]:
    """The year of a timeline card nobody entered yet, checked against its neighbours' known years."""
    _check_table_deck(state)
    position, year = action.position, action.year
    if not 0 <= position < len(state.timeline):
        refuse(
            text(
                "There is no card {position} in a timeline of {count} card",
                "There is no card {position} in a timeline of {count} cards",
                position=position + 1,
                count=len(state.timeline),
            ),
            RULE_TABLE_DECK,
        )
    known = state.timeline[position].year
    if known is not None:
        refuse(
            text("That card's year is already entered ({year}): undo to correct it", year=year_label(known)),
            RULE_TABLE_DECK,
        )
    _check_year(year)
    low, high = bounds(state.years(), position)
    if (low is not None and year < low) or (high is not None and year > high):
        refuse(
            text(
                "A card of {year} cannot lie there: the timeline is ordered by year ({low} to {high})",
                year=year_label(year),
                low=year_label(low) if low is not None else "…",
                high=year_label(high) if high is not None else "…",
            ),
            RULE_SAME_YEAR if year in (low, high) else RULE_GAMEPLAY,
        )
    timeline = list(state.timeline)
    timeline[position] = replace(timeline[position], year=year)
    return Accepted(replace(state, timeline=tuple(timeline)), (YearNamed(position, year),))


def placed(
    state: TimelineState,
    player: str,
    gap: int,
    year: int | None,
    *,
    kept: bool,
    card: str = "",
    by_table: bool = False,
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
        events.append(CardPlaced(player, card, gap, year, by_table))
        if not piles.held(index):
            state = replace(state, emptied=state.emptied + (player,))
    else:
        state = replace(state, piles=piles, last=last)
        events.append(CardMisplaced(player, card, gap, year, by_table))
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
    exactly as after a placement. A card put in a gap and not turned over yet goes back to the hand.
    """
    check_turn(state, player)
    events: list[Any] = []
    return Accepted(_pass_turn(replace(state, placing=None), player, events), tuple(events))


@checked
def apply(state: TimelineState, action: Action) -> Accepted[TimelineState]:
    """Apply one action; a broken rule is answered as a :class:`~companion.rules.outcome.Rejected`."""
    if isinstance(action, PlaceCard):
        return _place_card(state, action)
    if isinstance(action, PutCard):
        return _put_card(state, action)
    if isinstance(action, RevealCard):
        return _reveal(state, action)
    if isinstance(action, NameYear):
        return _name_year(state, action)
    refuse(text("unknown Timeline table action {action}", action=repr(type(action).__name__)), RULE_GAMEPLAY)


def rejection(state: TimelineState, action: Action) -> Rejected | None:
    """Why ``action`` is illegal in ``state``, or ``None`` when it is legal."""
    result = apply(state, action)
    return result if isinstance(result, Rejected) else None


def is_legal(state: TimelineState, action: Action) -> bool:
    """True when ``action`` may be applied to ``state``."""
    return rejection(state, action) is None
