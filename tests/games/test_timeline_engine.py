"""Rules engine of Timeline: España: placements, turn order, draws, reshuffles, victory and play-off."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.games.timeline.cards import Card, shipped_deck
from companion.games.timeline.engine import (
    TimelineSetupError,
    apply,
    fits,
    game_from_deal,
    is_legal,
    new_game,
)
from companion.games.timeline.model import (
    CardDrawn,
    CardMisplaced,
    CardPlaced,
    DiscardReshuffled,
    GameShared,
    GameWon,
    Laid,
    PlaceCard,
    PlayoffStarted,
    RoundEnded,
    TimelineState,
)
from companion.rules.outcome import Accepted, Rejected


def cards(**years: int) -> tuple[Card, ...]:
    """Cards named after the keywords, e.g. ``cards(a=1000, b=1500)``."""
    return tuple(Card(name, year, f"Event {name}") for name, year in years.items())


def accepted(result: Accepted[TimelineState] | Rejected) -> Accepted[TimelineState]:
    assert isinstance(result, Accepted), f"expected the move to be accepted, got: {result}"
    return result


def play(state: TimelineState, player: str, card: str, gap: int) -> TimelineState:
    return accepted(apply(state, PlaceCard(player, card, gap))).state


def with_timeline(state: TimelineState, *card_ids: str) -> TimelineState:
    """``state`` with these cards of its deck face up in the timeline, left to right."""
    return replace(state, timeline=tuple(Laid(state.piles.cards[c].year, c) for c in card_ids))


def with_piles(state: TimelineState, **piles) -> TimelineState:
    """``state`` with some of the hub deck's piles replaced (``hands``, ``deck``, ``discard``)."""
    return replace(state, piles=replace(state.piles, **piles))


# A timeline of 1000, 1500, 1800 with one card in ana's hand; ben waits with another card.
TIMELINE = cards(t1000=1000, t1500=1500, t1800=1800)


def placement_state(year: int) -> TimelineState:
    deck = TIMELINE + cards(card=year, other=1700, spare=1600, spare2=1650)
    state = game_from_deal(
        deck,
        ["ana", "ben"],
        hands={"ana": ["card", "spare2"], "ben": ["other"]},
        reference="t1000",
        draw_pile=["spare"],
    )
    return with_piles(with_timeline(state, "t1000", "t1500", "t1800"), deck=("spare",))


@pytest.mark.parametrize(
    ("year", "gap", "correct"),
    [
        (900, 0, True),
        (-218, 0, True),
        (900, 1, False),
        (1200, 1, True),
        (1200, 0, False),
        (1200, 2, False),
        (1600, 2, True),
        (1600, 1, False),
        (1900, 3, True),
        (1900, 2, False),
        # Equal years are correct on either side of the card with the same year ("Special Case").
        (1000, 0, True),
        (1000, 1, True),
        (1000, 2, False),
        (1500, 1, True),
        (1500, 2, True),
        (1500, 0, False),
        (1500, 3, False),
        (1800, 2, True),
        (1800, 3, True),
        (1800, 1, False),
    ],
)
def test_placement_is_judged_by_year(year: int, gap: int, correct: bool) -> None:
    state = placement_state(year)
    result = accepted(apply(state, PlaceCard("ana", "card", gap)))
    after = result.state
    assert "card" not in after.hand("ana")
    if correct:
        assert result.events == (CardPlaced("ana", "card", gap, year),)
        assert after.timeline_cards()[gap] == "card"
        assert len(after.timeline) == 4
        assert after.piles.discard == ()
        assert after.piles.deck == ("spare",)
        assert after.hand("ana") == ("spare2",)
    else:
        assert result.events == (CardMisplaced("ana", "card", gap, year), CardDrawn("ana", "spare"))
        assert after.timeline == state.timeline
        assert after.piles.discard == ("card",)
        assert after.piles.deck == ()
        assert after.hand("ana") == ("spare2", "spare")
    assert list(after.years()) == sorted(after.years())
    assert after.to_move == "ben"


@pytest.mark.parametrize("gap", [0, 1, 2])
def test_same_year_fits_any_gap_between_equal_cards(gap: int) -> None:
    assert fits([1492, 1492], gap, 1492)


@pytest.mark.parametrize(
    ("years", "gap", "year", "expected"),
    [
        ([], 0, 5, True),
        ([1713, 1713, 1714], 2, 1713, True),
        ([1713, 1713, 1714], 3, 1713, False),
        ([-218, -133], 1, -206, True),
        ([-218, -133], 1, -100, False),
    ],
)
def test_fits(years: list[int], gap: int, year: int, expected: bool) -> None:
    assert fits(years, gap, year) is expected


# --- rejections ----------------------------------------------------------------------------------


def two_player_state() -> TimelineState:
    deck = cards(ref=1500, a1=1000, a2=1900, b1=1200, b2=1700, d1=1100, d2=1300)
    return game_from_deal(
        deck,
        ["ana", "ben"],
        hands={"ana": ["a1", "a2"], "ben": ["b1", "b2"]},
        reference="ref",
        draw_pile=["d1", "d2"],
    )


def finished_state() -> TimelineState:
    state = two_player_state()
    state = with_piles(state, hands=(("a1",), ("b1", "b2")))
    state = play(state, "ana", "a1", 0)
    return play(state, "ben", "b1", 0)


def playoff_state() -> TimelineState:
    deck = cards(ref=1500, a1=1000, b1=1900, c1=1200, c2=1300, d1=1100, d2=1600, d3=1700, d4=1750)
    state = game_from_deal(
        deck,
        ["ana", "ben", "cara"],
        hands={"ana": ["a1"], "ben": ["b1"], "cara": ["c1", "c2"]},
        reference="ref",
        draw_pile=["d1", "d2", "d3", "d4"],
    )
    state = play(state, "ana", "a1", 0)
    state = play(state, "ben", "b1", 2)
    return play(state, "cara", "c1", 1)


@pytest.mark.parametrize(
    ("make_state", "action", "reason", "rule"),
    [
        (two_player_state, PlaceCard("ben", "b1", 0), "It is ana's turn, not ben's", "Gameplay"),
        (two_player_state, PlaceCard("zoe", "a1", 0), "zoe is not playing in this game", "Setup"),
        (two_player_state, PlaceCard("ana", "b1", 0), "ana has no card 'b1' in hand", "Gameplay"),
        (two_player_state, PlaceCard("ana", "nope", 0), "ana has no card 'nope' in hand", "Gameplay"),
        (
            two_player_state,
            PlaceCard("ana", "a1", 2),
            "There is no gap 2: a timeline of 1 card has gaps 0 to 1",
            "Gameplay",
        ),
        (
            two_player_state,
            PlaceCard("ana", "a1", -1),
            "There is no gap -1: a timeline of 1 card has gaps 0 to 1",
            "Gameplay",
        ),
        (
            finished_state,
            PlaceCard("ben", "b2", 0),
            "The game is over: ana has already won",
            "End of the Game - Victory",
        ),
        (
            finished_state,
            PlaceCard("ana", "a2", 0),
            "The game is over: ana has already won",
            "End of the Game - Victory",
        ),
        (
            playoff_state,
            PlaceCard("cara", "c2", 0),
            "cara was eliminated when the play-off began",
            "End of the Game - Victory",
        ),
        (playoff_state, PlaceCard("ben", "d2", 0), "It is ana's turn, not ben's", "Gameplay"),
    ],
)
def test_illegal_actions_are_rejected_with_a_reason(
    make_state, action: PlaceCard, reason: str, rule: str
) -> None:
    state = make_state()
    result = apply(state, action)
    assert isinstance(result, Rejected)
    assert str(result.reason) == reason and not result.reason.verbatim, "a message id with arguments"
    assert str(result.rule) == rule
    assert not is_legal(state, action)
    assert str(result) == f"{reason} ({rule})"


def test_a_rejected_move_leaves_the_same_player_to_move() -> None:
    state = two_player_state()
    assert isinstance(apply(state, PlaceCard("ben", "b1", 0)), Rejected)
    after = play(state, "ana", "a1", 0)
    assert after.to_move == "ben"


def test_turns_go_round_the_table_and_rounds_count_up() -> None:
    state = two_player_state()
    assert state.to_move == "ana" and state.round == 1
    state = play(state, "ana", "a1", 0)
    assert state.to_move == "ben" and state.round == 1
    result = accepted(apply(state, PlaceCard("ben", "b1", 1)))
    assert RoundEnded(1, ()) in result.events
    assert result.state.to_move == "ana" and result.state.round == 2


# --- deck, draws and reshuffles ------------------------------------------------------------------


def test_wrong_card_is_discarded_and_the_top_card_drawn() -> None:
    state = two_player_state()
    result = accepted(apply(state, PlaceCard("ana", "a2", 0)))  # 1900 left of 1500: wrong
    assert result.events == (CardMisplaced("ana", "a2", 0, 1900), CardDrawn("ana", "d1"))
    assert result.state.hand("ana") == ("a1", "d1")
    assert result.state.piles.discard == ("a2",)
    assert result.state.piles.deck == ("d2",)
    assert result.state.timeline_cards() == ("ref",)


def test_empty_deck_reshuffles_the_discard_pile_before_drawing() -> None:
    state = with_piles(two_player_state(), deck=(), discard=("d1", "d2"))
    result = accepted(apply(state, PlaceCard("ana", "a2", 0)))
    events = result.events
    assert events[0] == CardMisplaced("ana", "a2", 0, 1900)
    assert events[1] == DiscardReshuffled(3)
    assert isinstance(events[2], CardDrawn) and events[2].card in {"d1", "d2", "a2"}
    after = result.state
    assert after.piles.discard == ()
    assert sorted(after.piles.deck + (events[2].card,)) == ["a2", "d1", "d2"]
    assert after.piles.rng != state.piles.rng
    # Seeded: the same state always reshuffles the same way.
    assert accepted(apply(state, PlaceCard("ana", "a2", 0))).state == after


def test_reshuffle_with_only_the_missed_card_gives_it_back() -> None:
    state = with_piles(two_player_state(), deck=(), discard=())
    result = accepted(apply(state, PlaceCard("ana", "a2", 0)))
    assert result.events[1:] == (DiscardReshuffled(1), CardDrawn("ana", "a2"))
    assert result.state.hand("ana") == ("a1", "a2")


def test_reshuffle_order_depends_on_the_seed() -> None:
    deck = cards(ref=1500, a1=1000, a2=1900, b1=1200, **{f"x{i}": 1000 + i for i in range(20)})
    orders = set()
    for seed in range(5):
        state = game_from_deal(
            deck, ["ana", "ben"], hands={"ana": ["a1", "a2"], "ben": ["b1"]}, reference="ref", seed=seed
        )
        state = with_piles(state, discard=state.piles.deck, deck=())
        after = play(state, "ana", "a2", 0)
        orders.add(after.piles.deck)
    assert len(orders) > 1


# --- end of the game ------------------------------------------------------------------------------


def test_sole_player_to_empty_their_hand_wins_at_the_end_of_the_round() -> None:
    state = with_piles(two_player_state(), hands=(("a1",), ("b1", "b2")))
    state = play(state, "ana", "a1", 0)
    assert state.winner is None and state.emptied == ("ana",)
    assert state.to_move == "ben"
    result = accepted(apply(state, PlaceCard("ben", "b1", 1)))
    assert result.events[-2:] == (RoundEnded(1, ("ana",)), GameWon("ana"))
    assert result.state.winner == "ana"
    assert result.state.is_over and result.state.to_move is None


def test_a_later_player_in_the_round_can_still_force_a_playoff() -> None:
    state = playoff_state()
    assert state.playoff
    assert state.eliminated == ("cara",)
    assert state.remaining == ("ana", "ben")
    assert state.winner is None
    assert state.round == 2
    # Each play-off player drew one card at the start of the play-off round.
    assert state.hand("ana") == ("d1",) and state.hand("ben") == ("d2",)
    assert state.hand("cara") == ("c2",)
    assert state.to_move == "ana"


def test_playoff_start_events() -> None:
    deck = cards(ref=1500, a1=1000, b1=1900, c1=1200, c2=1300, d1=1100, d2=1600)
    state = game_from_deal(
        deck,
        ["ana", "ben", "cara"],
        hands={"ana": ["a1"], "ben": ["b1"], "cara": ["c1", "c2"]},
        reference="ref",
        draw_pile=["d1", "d2"],
    )
    state = play(state, "ana", "a1", 0)
    state = play(state, "ben", "b1", 2)
    result = accepted(apply(state, PlaceCard("cara", "c1", 0)))  # wrong: cara draws, then the round ends
    assert result.events == (
        CardMisplaced("cara", "c1", 0, 1200),
        CardDrawn("cara", "d1"),
        RoundEnded(1, ("ana", "ben")),
        PlayoffStarted(("ana", "ben"), ("cara",)),
        CardDrawn("ana", "d2"),
        DiscardReshuffled(1),
        CardDrawn("ben", "c1"),
    )


def test_playoff_sole_correct_player_wins() -> None:
    state = playoff_state()  # timeline 1000 1200 1500 1900; ana holds 1100, ben 1600
    state = play(state, "ana", "d1", 1)
    result = accepted(apply(state, PlaceCard("ben", "d2", 0)))  # wrong
    assert result.state.winner == "ana"
    assert result.events[-1] == GameWon("ana")


def test_playoff_nobody_correct_plays_another_round_with_the_penalty_cards_and_a_new_draw() -> None:
    state = playoff_state()
    state = play(state, "ana", "d1", 0)  # wrong, draws d3
    result = accepted(apply(state, PlaceCard("ben", "d2", 0)))  # wrong, draws d4
    state = result.state
    assert state.winner is None and state.round == 3
    # Every remaining player draws a card for the new play-off round, penalty card or not
    # (End of the Game - Victory): the deck is empty, so d1 and d2 are reshuffled first.
    assert DiscardReshuffled(2) in result.events
    assert state.hand("ana")[0] == "d3" and state.hand("ben")[0] == "d4"
    assert sorted(state.hand("ana")[1:] + state.hand("ben")[1:]) == ["d1", "d2"]
    assert state.piles.discard == ()
    assert state.to_move == "ana"


def test_playoff_both_correct_goes_on_and_both_draw_again() -> None:
    state = playoff_state()
    state = play(state, "ana", "d1", 1)
    state = play(state, "ben", "d2", 4)
    assert state.winner is None and state.round == 3 and state.playoff
    assert state.hand("ana") == ("d3",) and state.hand("ben") == ("d4",)
    assert state.to_move == "ana" and state.emptied == ()


def test_playoff_among_three_eliminates_nobody_when_several_are_correct() -> None:
    deck = cards(
        ref=1500, a1=1000, b1=1900, c1=1600, x1=1100, x2=1950, x3=1200, x4=1300, x5=1400, x6=1450, x7=1460
    )
    state = game_from_deal(
        deck,
        ["ana", "ben", "cara"],
        hands={"ana": ["a1"], "ben": ["b1"], "cara": ["c1"]},
        reference="ref",
        draw_pile=["x1", "x2", "x3", "x4", "x5", "x6", "x7"],
    )
    state = play(state, "ana", "a1", 0)
    state = play(state, "ben", "b1", 2)
    state = play(state, "cara", "c1", 2)  # timeline 1000 1500 1600 1900: all three emptied
    assert state.playoff and state.eliminated == ()
    assert state.hand("ana") == ("x1",) and state.hand("ben") == ("x2",) and state.hand("cara") == ("x3",)
    state = play(state, "ana", "x1", 1)  # 1100 between 1000 and 1500: correct
    state = play(state, "ben", "x2", 5)  # 1950 at the right end: correct
    result = accepted(apply(state, PlaceCard("cara", "x3", 0)))  # 1200 at the left end: wrong, draws x4
    # The rulebook eliminates players only when the play-off begins: all three play on,
    # each drawing a card for the new round (End of the Game - Victory).
    assert not any(isinstance(e, PlayoffStarted) for e in result.events)
    assert result.state.eliminated == () and result.state.remaining == ("ana", "ben", "cara")
    assert result.state.winner is None and result.state.round == 3
    assert result.state.hand("ana") == ("x5",) and result.state.hand("ben") == ("x6",)
    assert result.state.hand("cara") == ("x4", "x7")


def test_round_starts_with_the_first_remaining_player_after_elimination() -> None:
    deck = cards(ref=1500, a1=1000, a2=1100, b1=1900, c1=1950, x1=1200, x2=1300)
    state = game_from_deal(
        deck,
        ["ana", "ben", "cara"],
        hands={"ana": ["a1", "a2"], "ben": ["b1"], "cara": ["c1"]},
        reference="ref",
        draw_pile=["x1", "x2"],
    )
    state = play(state, "ana", "a1", 0)
    state = play(state, "ben", "b1", 2)
    state = play(state, "cara", "c1", 3)
    assert state.eliminated == ("ana",)
    assert state.to_move == "ben"
    rejected = apply(state, PlaceCard("ana", "a2", 0))
    assert (
        isinstance(rejected, Rejected)
        and str(rejected.reason) == "ana was eliminated when the play-off began"
    )


def test_playoff_without_cards_left_is_shared() -> None:
    deck = cards(ref=1500, a1=1000, b1=1900)
    state = game_from_deal(deck, ["ana", "ben"], hands={"ana": ["a1"], "ben": ["b1"]}, reference="ref")
    state = play(state, "ana", "a1", 0)
    result = accepted(apply(state, PlaceCard("ben", "b1", 2)))
    assert result.events[-1] == GameShared(("ana", "ben"))
    assert result.state.shared_by == ("ana", "ben") and result.state.winner is None
    assert result.state.is_over
    again = apply(result.state, PlaceCard("ana", "a1", 0))
    assert isinstance(again, Rejected) and str(again.reason) == "The game is over: ana and ben share it"


# --- setup ---------------------------------------------------------------------------------------


def test_new_game_deals_hands_reference_and_deck() -> None:
    deck = shipped_deck()
    state = new_game(deck, ["ana", "ben", "cara"], seed=7)
    assert [len(state.hand(p)) for p in state.players] == [4, 4, 4]
    assert len(state.timeline) == 1
    assert len(state.piles.deck) == len(deck) - 13
    assert sorted(state.all_card_ids()) == sorted(c.id for c in deck)
    assert state.to_move == "ana" and state.round == 1
    assert new_game(deck, ["ana", "ben", "cara"], seed=7) == state
    assert new_game(deck, ["ana", "ben", "cara"], seed=8).piles.hands != state.piles.hands


def test_hand_size_is_adjustable() -> None:
    state = new_game(shipped_deck(), ["ana", "ben"], seed=1, hand_size=6)
    assert [len(h) for h in state.piles.hands] == [6, 6]


@pytest.mark.parametrize(
    ("players", "hand_size", "message"),
    [
        (["ana"], 4, "Timeline needs 2 to 8 players, not 1"),
        ([f"p{i}" for i in range(9)], 4, "Timeline needs 2 to 8 players, not 9"),
        (["ana", "ana"], 4, "two players have the same name"),
        (["ana", ""], 4, "every player needs a non-empty name"),
        (["ana", "ben"], 0, "the hand size must be a whole number of at least 1, not 0"),
        (
            ["ana", "ben"],
            3,
            "deck: 6 cards are too few for 2 players with 3 cards each (the deal and the reference card need 7)",
        ),
    ],
)
def test_new_game_refuses_bad_setups(players: list[str], hand_size: int, message: str) -> None:
    deck = cards(a=1, b=2, c=3, d=4, e=5, f=6)
    with pytest.raises(TimelineSetupError) as info:
        new_game(deck, players, hand_size=hand_size)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("hands", "reference", "draw_pile", "message"),
    [
        ({"ana": ["a"], "ben": ["zz"]}, "c", [], "the deal puts unknown card 'zz' in ben's hand"),
        (
            {"ana": ["a"], "ben": ["a"]},
            "c",
            [],
            "the deal puts card 'a' both in ana's hand and in ben's hand",
        ),
        (
            {"ana": ["a"], "ben": ["b"]},
            "a",
            [],
            "the deal puts card 'a' both in ana's hand and in the reference card",
        ),
        (
            {"ana": ["a"], "ben": ["b"]},
            "c",
            ["b"],
            "the deal puts card 'b' both in ben's hand and in the draw pile",
        ),
        ({"ana": ["a"]}, "c", [], "the deal gives no cards to ben"),
        (
            {"ana": ["a"], "ben": ["b"], "zoe": ["d"]},
            "c",
            [],
            "the deal gives a hand to 'zoe', who is not among the players",
        ),
    ],
)
def test_explicit_deal_is_checked(hands, reference, draw_pile, message: str) -> None:
    deck = cards(a=1, b=2, c=3, d=4, e=5)
    with pytest.raises(TimelineSetupError) as info:
        game_from_deal(deck, ["ana", "ben"], hands=hands, reference=reference, draw_pile=draw_pile)
    assert str(info.value) == message


def test_explicit_deal_puts_unlisted_cards_under_the_draw_pile() -> None:
    deck = cards(a=1, b=2, c=3, d=4, e=5, f=6)
    state = game_from_deal(
        deck, ["ana", "ben"], hands={"ana": ["a"], "ben": ["b"]}, reference="c", draw_pile=["f"]
    )
    assert state.piles.deck[0] == "f"
    assert sorted(state.piles.deck[1:]) == ["d", "e"]
