"""Property tests: whatever players do, the timeline stays sorted and no card is lost or duplicated."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.base import Accepted, Rejected
from companion.games.timeline import (
    Card,
    CardMisplaced,
    CardPlaced,
    PlaceCard,
    TimelineState,
    apply,
    fits,
    new_game,
)


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
    card = draw(st.sampled_from(hand)) if hand and kind != 1 else draw(st.sampled_from(sorted(state.cards)))
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


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.data())
def test_timeline_sorted_and_cards_conserved(state: TimelineState, data: st.DataObject) -> None:
    all_ids = sorted(state.cards)
    check_invariants(state, all_ids)
    for _ in range(data.draw(st.integers(1, 60))):
        action = data.draw(actions(state))
        result = apply(state, action)
        if isinstance(result, Rejected):
            assert result.reason and result.rule
            continue
        assert isinstance(result, Accepted)
        placed = [e for e in result.events if isinstance(e, (CardPlaced, CardMisplaced))]
        assert len(placed) == 1
        correct = fits(state.years(), action.gap, state.cards[action.card].year)
        assert isinstance(placed[0], CardPlaced) is correct
        state = result.state
        check_invariants(state, all_ids)
        if state.is_over:
            break
