"""Timeline play-off re-read against "End of the Game - Victory"; each test fails on the earlier reading.

The remaining players draw a card during each play-off round, whatever they hold, and a
play-off round is won by the only player to place a card correctly in it.
"""

from __future__ import annotations

import pytest

from companion.games.timeline.cards import Card
from companion.games.timeline.engine import apply, game_from_deal
from companion.games.timeline.model import (
    CardDrawn,
    GameShared,
    GameWon,
    PlaceCard,
    PlayoffStarted,
    RoundEnded,
    TimelineState,
)

from .test_timeline_engine import accepted, play

# After round 1 the timeline is 1000 1200 1500 1900; gaps 0 (<1000) .. 4 (>1900).
YEARS = {
    "ref": 1500,
    "a1": 1000,
    "b1": 1900,
    "c1": 1200,
    "c2": 1300,
    "p1": 1100,  # gap 1 is right, gap 0 wrong
    "p2": 1600,  # gap 3 is right, gap 0 wrong
    "p3": 1700,
    "p4": 1800,
    "p5": 1050,
    "p6": 1950,
    "p7": 1250,
    "p8": 1350,
}
PILE = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"]


def playoff(pile: list[str] = PILE) -> TimelineState:
    """ana and ben empty their hands in round 1, cara does not: ana and ben play off, cara is out.

    The deck holds the dealt cards and ``pile`` only.
    """
    names = ["ref", "a1", "b1", "c1", "c2", *pile]
    deck = tuple(Card(name, YEARS[name], f"Event {name}") for name in names)
    state = game_from_deal(
        deck,
        ["ana", "ben", "cara"],
        hands={"ana": ["a1"], "ben": ["b1"], "cara": ["c1", "c2"]},
        reference="ref",
        draw_pile=pile,
    )
    state = play(state, "ana", "a1", 0)
    state = play(state, "ben", "b1", 2)
    state = play(state, "cara", "c1", 1)
    assert state.playoff and state.eliminated == ("cara",) and state.round == 2
    assert state.hand("ana") == ("p1",) and state.hand("ben") == ("p2",)
    return state


@pytest.mark.parametrize(
    "ana_right, ben_right, winner, hands",
    [
        (False, False, None, {"ana": ("p3", "p5"), "ben": ("p4", "p6")}),
        (True, True, None, {"ana": ("p3",), "ben": ("p4",)}),
        (True, False, "ana", {"ana": (), "ben": ("p3",)}),
        (False, True, "ben", {"ana": ("p3",), "ben": ()}),
    ],
    ids=["both-miss", "both-right", "ana-alone", "ben-alone"],
)
def test_every_remaining_player_draws_a_card_each_playoff_round(ana_right, ben_right, winner, hands):
    state = playoff()
    state = play(state, "ana", "p1", 1 if ana_right else 0)
    state = play(state, "ben", "p2", (4 if ana_right else 3) if ben_right else 0)
    assert state.winner == winner
    assert {p: state.hand(p) for p in ("ana", "ben")} == hands
    if winner is None:
        assert state.round == 3 and state.to_move == "ana" and state.eliminated == ("cara",)


def test_the_round_start_draws_come_after_the_round_end_in_seating_order():
    state = playoff()
    state = play(state, "ana", "p1", 0)  # wrong: draws p3
    result = accepted(apply(state, PlaceCard("ben", "p2", 0)))  # wrong: draws p4
    assert result.events[1:] == (
        CardDrawn("ben", "p4"),
        RoundEnded(2, ()),
        CardDrawn("ana", "p5"),
        CardDrawn("ben", "p6"),
    )


def test_a_playoff_round_is_won_by_the_only_correct_player_even_with_cards_left():
    state = playoff()
    state = play(state, "ana", "p1", 0)  # wrong
    state = play(state, "ben", "p2", 0)  # wrong; round 3: ana holds p3 p5, ben p4 p6
    state = play(state, "ana", "p3", 3)  # 1700 between 1500 and 1900: right, p5 still in hand
    result = accepted(apply(state, PlaceCard("ben", "p4", 0)))  # 1800 first: wrong
    assert result.events[-1] == GameWon("ana")
    assert result.state.winner == "ana" and result.state.hand("ana") == ("p5",)


THREE = dict(
    ref=1500, a1=1000, b1=1900, c1=1600,
    q1=1100, q2=1950, q3=1200, q4=1300, q5=1400, q6=1700, q7=1800, q8=1050, q9=1150, q10=1250, q11=1350,
)  # fmt: skip


def test_correct_placements_decide_a_playoff_round_and_nobody_more_is_eliminated():
    deck = tuple(Card(name, year, f"Event {name}") for name, year in THREE.items())
    state = game_from_deal(
        deck,
        ["ana", "ben", "cara"],
        hands={"ana": ["a1"], "ben": ["b1"], "cara": ["c1"]},
        reference="ref",
        draw_pile=[f"q{i}" for i in range(1, 12)],
    )
    state = play(state, "ana", "a1", 0)
    state = play(state, "ben", "b1", 2)
    state = play(state, "cara", "c1", 2)  # all three emptied: 1000 1500 1600 1900
    assert state.playoff and state.eliminated == ()
    state = play(state, "ana", "q1", 0)  # wrong, draws q4
    state = play(state, "ben", "q2", 4)  # right
    state = play(state, "cara", "q3", 1)  # right: ben and cara right, ana missed, nobody is out
    assert state.eliminated == () and state.round == 3
    assert (
        state.hand("ana") == ("q4", "q5") and state.hand("ben") == ("q6",) and state.hand("cara") == ("q7",)
    )
    state = play(state, "ana", "q4", 2)  # right, q5 still in hand
    state = play(state, "ben", "q6", 5)  # right, ben's hand is empty
    result = accepted(apply(state, PlaceCard("cara", "q7", 0)))  # wrong, draws q8
    # Two players placed a card correctly: ben is not the only one, although only he emptied his hand.
    assert not any(isinstance(e, (GameWon, PlayoffStarted)) for e in result.events)
    after = result.state
    assert after.winner is None and after.round == 4 and after.eliminated == ()
    assert after.hand("ana") == ("q5", "q9") and after.hand("ben") == ("q10",)
    assert after.hand("cara") == ("q8", "q11")


def test_a_playoff_round_that_cannot_give_everyone_a_card_is_shared():
    """Assumption: every remaining player must draw to start a play-off round; with no card left it is shared."""
    state = playoff(pile=["p1", "p2"])
    state = play(state, "ana", "p1", 0)  # wrong: p1 is reshuffled and drawn back
    result = accepted(apply(state, PlaceCard("ben", "p2", 0)))  # wrong: p2 drawn back
    assert result.state.hand("ana") == ("p1",) and result.state.hand("ben") == ("p2",)
    assert result.events[-1] == GameShared(("ana", "ben"))
    assert result.state.shared_by == ("ana", "ben") and result.state.is_over
