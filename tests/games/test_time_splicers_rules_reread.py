"""Time Splicers rules re-read against the rulebook: each test fails on the engine's earlier reading.

* Hand Maximum: the limit is checked after every single card drawn, not once per action.
* c. Complete Timeline Collapse: exactly the fifth card of a Timeline holding the 13.
* One Timeline per colour: a splice of a colour already on the table is refused (Placing
  Cards in a New Timeline).
* Quantum Tunnel as the starting card: any card may be placed next to it.
"""

from __future__ import annotations

import dataclasses

import pytest

from companion.games.time_splicers import board, model, words
from companion.games.time_splicers.components import load_components
from companion.games.time_splicers.model import EnterPortal, GameState, Move, PlaceCard
from companion.games.time_splicers.setup import Layout, SetupError, new_game
from companion.rules.outcome import Rejected

from .test_time_splicers import As, accept, cards_of, kinds, play, pos, table

DECK_TOP = ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6"]
HAND = ["green-1", "green-2", "green-3", "green-4", "green-6", "green-7", "green-9"]
ROWS = {"timelines": [["red-3", "red-5", "red-8"], ["blue-5", "blue-9"]], "positions": {"Ann": "red-5"}}


def hand_table(size: int, *, tokens: int = 2, players=("Ann", "Bob")) -> GameState:
    return table(**ROWS, hands={"Ann": HAND[:size]}, deck=DECK_TOP, tokens={"Ann": tokens}, players=players)


# --------------------------------------------------------------------------- Hand Maximum


@pytest.mark.parametrize(
    "action, size, hand_after, exceeded",
    [
        # 7 + 1 = 8: the penalty comes at once; the portal's second card is drawn afterwards.
        (As("Ann", EnterPortal()), 7, ["yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6"], [8]),
        # 6 + 1 = 7 is allowed; the second card makes 8.
        (As("Ann", EnterPortal()), 6, ["yellow-3", "yellow-4", "yellow-5", "yellow-6"], [8]),
        (As("Ann", EnterPortal()), 5, [*HAND[:5], "yellow-1", "yellow-2"], []),
        (As("Ann", Move("red-8")), 7, ["yellow-2", "yellow-3", "yellow-4", "yellow-5"], [8]),
        (As("Ann", Move("red-8")), 6, [*HAND[:6], "yellow-1"], []),
    ],
    ids=["portal-7", "portal-6", "portal-5", "move-7", "move-6"],
)
def test_hand_maximum_is_checked_after_each_card_drawn(action, size, hand_after, exceeded):
    state, events = accept(hand_table(size), action)
    assert sorted(state.player("Ann").hand) == sorted(hand_after)
    assert [e.size for e in events if isinstance(e, model.HandLimitExceeded)] == exceeded
    assert state.player("Ann").time_jump_tokens == 2 - len(exceeded)


def test_portal_with_seven_cards_reports_each_draw_around_the_penalty():
    _, events = accept(hand_table(7), As("Ann", EnterPortal()))
    drawn = [e.cards for e in events if isinstance(e, model.CardsDrawn)]
    assert drawn == [("yellow-1",), ("yellow-2", "yellow-3", "yellow-4", "yellow-5"), ("yellow-6",)]
    assert kinds(events)[kinds(events).index("EnteredPortal") :] == [
        "EnteredPortal",
        "CardsDrawn",
        "HandLimitExceeded",
        "HandDiscarded",
        "TimeJumpTokenSpent",
        "CardsDrawn",
        "CardsDrawn",
        "TurnEnded",
    ]


def test_an_eliminated_player_draws_no_further_card_of_the_action():
    state = hand_table(7, tokens=0, players=("Ann", "Bob", "Cy"))
    state, events = accept(state, As("Ann", EnterPortal()))
    assert state.player("Ann").eliminated and "PlayerEliminated" in kinds(events)
    assert state.deck[0] == "yellow-2"  # the portal's second card stays on the deck
    assert state.current_player == "Bob"


# --------------------------------------------------------------------------- Complete Timeline Collapse


@pytest.mark.parametrize(
    "row, where, card, complete",
    [
        (["red-1", "red-5", "red-9", "red-13"], "red-9", "red-11", True),  # fifth card, 13 in the row
        (["red-1", "red-4", "red-7", "red-10"], "red-10", "red-13", True),  # fifth card is the 13
        (["red-1", "red-2", "red-4", "red-5", "red-7"], "red-7", "red-13", False),  # the 13 as sixth card
        (["red-1", "red-2", "red-4", "red-5", "red-13"], "red-5", "red-7", False),  # sixth card, 13 in row
        (["red-1", "red-5", "red-13"], "red-5", "red-9", False),  # fourth card
        (["red-1", "red-3", "red-5", "red-9"], "red-9", "red-11", False),  # fifth card, no 13
    ],
    ids=["fifth", "fifth-is-13", "13-as-sixth", "sixth", "fourth", "no-singularity"],
)
def test_complete_collapse_exactly_on_the_fifth_card(row, where, card, complete):
    state = table(
        timelines=[row, ["blue-2"]], positions={"Ann": where, "Bob": "blue-2"}, hands={"Ann": [card]}
    )
    state, events = accept(state, As("Ann", PlaceCard(card)))
    collapses = [e.kind for e in events if isinstance(e, model.TimelineCollapsed)]
    assert collapses == (["complete"] if complete else [])
    assert cards_of(state, "red") == ([] if complete else sorted([*row, card], key=lambda c: int(c[4:])))


@pytest.mark.parametrize(
    "where, card",
    [("red-4", "red-2"), ("red-4", "red-5"), ("red-7", "red-10"), ("red-13", "red-12"), ("red-1", "red-3")],
)
def test_a_timeline_holding_the_singularity_never_grows_past_five(where, card):
    """Each placement adds one card, so a Timeline with the 13 always passes five, and collapses there."""
    state = table(
        timelines=[["red-1", "red-4", "red-7", "red-13"], ["blue-2"]],
        positions={"Ann": where, "Bob": "blue-2"},
        hands={"Ann": [card]},
    )
    state, events = accept(state, As("Ann", PlaceCard(card)))
    collapse = next(e for e in events if isinstance(e, model.TimelineCollapsed))
    assert collapse.kind == "complete" and len(collapse.cards) == board.COMPLETE_COLLAPSE_CARDS
    assert cards_of(state, "red") == []


@pytest.mark.parametrize(
    "size, numbers, expected",
    [
        (5, [1, 5, 9, 11, 13], True),
        (6, [1, 2, 4, 5, 7, 13], False),
        (4, [1, 5, 9, 13], False),
        (5, [1, 3, 5, 9, 11], False),
    ],
)
def test_is_complete_collapse(size, numbers, expected):
    assert board.is_complete_collapse(size, numbers, 13) is expected


# --------------------------------------------------------------------------- one Timeline per colour


@pytest.mark.parametrize(
    "where, card, colour",
    [("red-8", "blue-8", "blue"), ("red-3", "green-3", "green"), ("blue-9", "red-9", "red")],
)
def test_a_splice_of_a_colour_already_on_the_table_is_refused(where, card, colour):
    state = table(
        timelines=[["red-3", "red-5", "red-8"], ["blue-5", "blue-9"], ["green-1"]],
        positions={"Ann": where, "Bob": "green-1"},
        hands={"Ann": [card]},
    )
    result = play(state, As("Ann", PlaceCard(card)))
    assert isinstance(result, Rejected)
    assert result.rule == words.R_NEW and str(result.rule) == "Placing Cards in a New Timeline"
    assert f"A {colour} Timeline is already on the table" in str(result.reason)
    assert "each colour has only one Timeline" in str(result.reason)


def test_a_layout_with_two_timelines_of_one_colour_is_refused():
    with pytest.raises(SetupError, match="two red Timelines; each colour has only one"):
        table(timelines=[["red-2"], ["red-9"]])


# --------------------------------------------------------------------------- Quantum Tunnel start


@pytest.mark.parametrize(
    "card, row, shifted",
    [
        ("red-9", ["red-5", "red-9"], False),
        ("red-2", ["red-2", "red-5"], False),
    ],
)
def test_quantum_tunnel_start_accepts_a_colour_that_already_has_a_timeline(card, row, shifted):
    state = table(
        start="quantum-tunnel-1", hands={"Ann": ["red-5"], "Bob": [card]}, players=("Ann", "Bob", "Cy")
    )
    state, _ = accept(state, As("Ann", PlaceCard("red-5")))
    state, events = accept(state, As("Bob", PlaceCard(card)))
    placed = next(e for e in events if isinstance(e, model.CardPlaced))
    assert not placed.new_timeline and placed.shifted is shifted
    assert cards_of(state, "red") == row and [t.colour for t in state.timelines] == ["red"]
    assert pos(state, "Bob") == card and state.start_links == ("red-5", card)
    state, _ = accept(state, As("Cy", Move(card)))  # a card placed from the start card is one move away
    assert state.start_card is None


def test_quantum_tunnel_start_card_between_two_cards_shifts_the_timeline():
    state = table(
        start="quantum-tunnel-1",
        timelines=[["red-4", "red-9"]],
        positions={"Ann": "quantum-tunnel-1", "Bob": "red-4"},
        hands={"Ann": ["red-7"]},
    )
    state, events = accept(state, As("Ann", PlaceCard("red-7")))
    assert cards_of(state, "red") == ["red-4", "red-7", "red-9"]
    assert next(e for e in events if isinstance(e, model.CardPlaced)).shifted


# --------------------------------------------------------------------------- ascending order with copies


def _two_copies() -> GameState:
    base = load_components()
    config = dataclasses.replace(
        base, copies_of_each_number_card=2, total_cards=base.total_cards + len(base.colours) * 13
    )
    layout = Layout(
        start=None,
        hands={"Ann": ("red-5-b",), "Bob": ()},
        timelines=(("red-3-a", "red-5-a", "red-8-a"),),
        positions={"Ann": "red-5-a", "Bob": "red-3-a"},
    )
    return new_game(["Ann", "Bob"], seed="copies", config=config, layout=layout)


@pytest.mark.parametrize("where", ["red-5-a", "time-portal"])
def test_a_second_card_of_an_era_cannot_join_the_same_timeline(where):
    state = _two_copies()
    state = dataclasses.replace(
        state, players=(dataclasses.replace(state.players[0], position=where), state.players[1])
    )
    result = play(state, As("Ann", PlaceCard("red-5-b")))
    assert isinstance(result, Rejected) and result.rule == words.R_SAME
