"""Property tests: whatever players do, the timeline stays sorted and no card is lost or duplicated."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.timeline.cards import Card
from companion.games.timeline.engine import apply, fits, new_game
from companion.games.timeline.model import (
    CardDrawn,
    CardMisplaced,
    CardPlaced,
    PlaceCard,
    RoundEnded,
    TimelineState,
)
from companion.rules.outcome import Accepted, Rejected


@st.composite
def games(draw: st.DrawFn) -> TimelineState:
    players = [f"p{i}" for i in range(draw(st.integers(2, 4)))]
    hand_size = draw(st.integers(1, 4))
    size = draw(st.integers(len(players) * hand_size + 1, len(players) * hand_size + 8))
    # Few distinct years so that equal years are common.
    years = draw(st.lists(st.integers(-300, 300).map(lambda y: y or 1), min_size=size, max_size=size))
    deck = tuple(Card(f"c{i}", year, f"Event {i}") for i, year in enumerate(years))
    return new_game(deck, players, seed=draw(st.integers(0, 2**32)), hand_size=hand_size)


@st.composite
def actions(draw: st.DrawFn, state: TimelineState) -> PlaceCard:
    """Mostly legal moves by the player to move, sometimes wrong players, cards or gaps."""
    kind = draw(st.integers(0, 9))
    player = state.to_move or state.players[0]
    if kind == 0:
        player = draw(st.sampled_from(state.players + ("nobody",)))
    hand = state.hand(player) if player in state.players else ()
    card = (
        draw(st.sampled_from(hand))
        if hand and kind != 1
        else draw(st.sampled_from(sorted(state.piles.cards)))
    )
    gap = draw(st.integers(-1, len(state.timeline) + 1) if kind == 2 else st.integers(0, len(state.timeline)))
    return PlaceCard(player, card, gap)


def check_invariants(state: TimelineState, all_ids: list[str]) -> None:
    years = list(state.years())
    assert years == sorted(years), "the timeline is out of order"
    assert sorted(state.all_card_ids()) == all_ids, "a card was lost or duplicated"
    if not state.is_over:
        assert state.to_move in state.remaining
        assert state.hand(state.to_move), "the player to move has no card"
    assert len(state.remaining) >= 2 or state.is_over


def check_round_end(before: TimelineState, after: TimelineState, events: tuple, right: list[str]) -> None:
    """End of the Game - Victory, play-off: ``right`` placed a card correctly during the round.

    Once the play-off began nobody more is eliminated, a sole correct player wins, and
    every remaining player draws a card to start each play-off round.
    """
    ended = next(i for i, e in enumerate(events) if isinstance(e, RoundEnded))
    if before.playoff:
        assert after.eliminated == before.eliminated, "nobody is eliminated once the play-off began"
        assert after.winner == (right[0] if len(right) == 1 else None)
    if after.playoff and not after.is_over:
        drawn = [e.player for e in events[ended + 1 :] if isinstance(e, CardDrawn)]
        assert drawn == list(after.remaining), "every remaining player draws for the play-off round"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.data())
def test_timeline_sorted_and_cards_conserved(state: TimelineState, data: st.DataObject) -> None:
    all_ids = sorted(state.piles.cards)
    check_invariants(state, all_ids)
    right: list[str] = []
    for _ in range(data.draw(st.integers(1, 60))):
        action = data.draw(actions(state))
        result = apply(state, action)
        if isinstance(result, Rejected):
            assert result.reason and result.rule
            continue
        assert isinstance(result, Accepted)
        placed = [e for e in result.events if isinstance(e, (CardPlaced, CardMisplaced))]
        assert len(placed) == 1
        correct = fits(state.years(), action.gap, state.piles.cards[action.card].year)
        assert isinstance(placed[0], CardPlaced) is correct
        if correct:
            right.append(action.player)
        if any(isinstance(e, RoundEnded) for e in result.events):
            check_round_end(state, result.state, result.events, right)
            right = []
        state = result.state
        check_invariants(state, all_ids)
        if state.is_over:
            break
