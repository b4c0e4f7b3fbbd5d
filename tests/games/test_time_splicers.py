"""Time Splicers rules engine: legal and illegal actions, collapses, crystals, hand limits.

These games start from a layout with every card known (the hub deck's way of knowing the cards);
``test_time_splicers_table_deck.py`` plays the same rules with cards the hub has not seen.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

import pytest

from companion.games.time_splicers import model, words
from companion.games.time_splicers.components import load_components
from companion.games.time_splicers.engine import all_card_ids, apply, is_legal
from companion.games.time_splicers.model import (
    EnterPortal,
    ForfeitTurn,
    GameState,
    Move,
    PlaceCard,
    PlaceTimeFreeze,
    RedrawHand,
    UseQuantumTunnel,
    UseTimeJump,
)
from companion.games.time_splicers.setup import Layout, SetupError, new_game
from companion.rules.outcome import Accepted, Rejected


@dataclasses.dataclass(frozen=True)
class As:
    """An action as one player tries it (a move never names its player)."""

    player: str
    action: Any


def play(state: GameState, tried: As):
    """The engine's answer to ``tried``."""
    return apply(state, tried.action, by=tried.player)


def legal(state: GameState, tried: As) -> bool:
    return is_legal(state, tried.action, by=tried.player)


CONFIG = load_components()
ALL_CARDS = sorted(c.id for c in CONFIG.cards())


def table(
    timelines=(),
    hands=None,
    positions=None,
    *,
    start=None,
    players=("Ann", "Bob"),
    deck=(),
    discard=(),
    crystals=None,
    tokens=None,
) -> GameState:
    """A game resumed from an explicit layout (the same path a record's ``layout`` takes)."""
    hands = {p: () for p in players} | dict(hands or {})
    return new_game(
        list(players),
        seed="test",
        config=CONFIG,
        layout=Layout(
            start=start,
            hands={k: tuple(v) for k, v in hands.items()},
            deck_top=tuple(deck),
            discard=tuple(discard),
            crystals=dict(crystals or {}),
            tokens=dict(tokens or {}),
            timelines=tuple(tuple(t) for t in timelines),
            positions=dict(positions or {}),
        ),
    )


def accept(state: GameState, tried: As) -> tuple[GameState, list]:
    result = play(state, tried)
    assert isinstance(result, Accepted), f"rejected: {result}"
    assert sorted(all_card_ids(result.state)) == ALL_CARDS
    return result.state, list(result.events)


def kinds(events) -> list[str]:
    return [type(e).__name__ for e in events]


def pos(state: GameState, name: str) -> str | None:
    return state.player(name).position


def cards_of(state: GameState, colour: str) -> list[str]:
    for t in state.timelines:
        if t.colour == colour:
            return list(t.cards)
    return []


# --------------------------------------------------------------------------- setup


def test_seeded_setup_deals_four_cards_two_tokens_two_markers_and_a_start_card():
    a = new_game(["Ann", "Bob", "Cy"], seed=7, config=CONFIG)
    b = new_game(["Ann", "Bob", "Cy"], seed=7, config=CONFIG)
    assert a == b
    assert new_game(["Ann", "Bob", "Cy"], seed=8, config=CONFIG).deck != a.deck
    for p in a.players:
        assert len(p.hand) == 4 and p.time_jump_tokens == 2 and p.freeze_markers == 2
    assert a.token_supply == 12 - 6 and a.crystal_supply == 25
    assert sorted(all_card_ids(a)) == ALL_CARDS
    assert "time-portal" not in a.deck


@pytest.mark.parametrize("seed", range(60))
def test_setup_never_starts_on_a_time_freeze_card(seed):
    state = new_game(["Ann", "Bob"], seed=seed, config=CONFIG)
    start = state.players[0].position
    assert not start.startswith("time-freeze")
    assert all(p.position == start for p in state.players)
    # any Time Freeze turned up for the start was discarded (rulebook, Setup)
    assert all(c.startswith("time-freeze") for c in state.discard)


def test_a_special_starting_card_is_held_apart_from_the_timelines():
    seeds = [s for s in range(200) if new_game(["A", "B"], seed=s, config=CONFIG).start_card is not None]
    assert seeds, "some seed deals a Quantum Tunnel or Time Jump as the starting card"
    state = new_game(["A", "B"], seed=seeds[0], config=CONFIG)
    assert state.timelines == () and state.players[0].position == state.start_card


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"start": "time-freeze-1"}, "Time Freeze card cannot be the starting card"),
        ({"start": "red-5", "hands": {"Ann": ["red-5"]}}, "red-5 is both"),
        ({"start": "red-5", "hands": {"Ann": ["red-99"]}}, "not a card of this deck"),
        ({"start": "red-5", "hands": {"Ann": ["time-portal"]}}, "Time Portal"),
        ({"timelines": [["red-5", "red-3"]]}, "ascending"),
        ({"timelines": [["red-5", "blue-6"]]}, "mixes colours"),
        ({"timelines": [["red-5"], ["red-7"]]}, "two red Timelines"),
        ({"timelines": [["red-5"]], "positions": {"Ann": "blue-5"}}, "not on the table"),
        (
            {
                "start": "red-5",
                "hands": {"Ann": ["red-1", "red-2", "red-3", "red-4", "red-6", "red-7", "red-8", "red-9"]},
            },
            "more than 7",
        ),
        ({"start": "red-5", "crystals": {"Ann": 7}}, "7 or more crystals"),
    ],
)
def test_bad_layouts_are_refused_with_a_sentence(kwargs, message):
    with pytest.raises(SetupError, match=message):
        table(**kwargs)


@pytest.mark.parametrize("players", [["Solo"], [f"P{i}" for i in range(7)], ["Ann", "Ann"]])
def test_player_count_and_names_are_checked(players):
    with pytest.raises(SetupError):
        new_game(players, seed=1, config=CONFIG)


# --------------------------------------------------------------------------- legal actions

SEVEN = ["green-1", "green-2", "green-3", "green-4", "green-6", "green-7", "green-9"]

BASE = {
    "timelines": [["red-3", "red-5", "red-8"], ["blue-5", "blue-9"]],
    "positions": {"Ann": "red-5", "Bob": "red-3"},
}


def _with(**over):
    return BASE | over


LEGAL = [
    # (id, layout, action, expected position of Ann, extra check)
    (
        "adjacent right",
        _with(),
        As("Ann", Move("red-8")),
        "red-8",
        lambda s, e: len(s.player("Ann").hand) == 4,
    ),
    ("adjacent left", _with(), As("Ann", Move("red-3")), "red-3", lambda s, e: "CardsDrawn" in kinds(e)),
    (
        "same era other timeline",
        _with(),
        As("Ann", Move("blue-5")),
        "blue-5",
        lambda s, e: cards_of(s, "red"),
    ),
    (
        "enter portal draws two",
        _with(hands={"Ann": ["green-1", "green-2", "green-3", "green-4", "green-6"]}),
        As("Ann", EnterPortal()),
        "time-portal",
        lambda s, e: len(s.player("Ann").hand) == 7,
    ),
    (
        "leave portal to any card, no draw",
        _with(positions={"Ann": "time-portal", "Bob": "red-3"}, hands={"Ann": SEVEN[:4]}),
        As("Ann", Move("blue-9")),
        "blue-9",
        lambda s, e: "CardsDrawn" not in kinds(e) and len(s.player("Ann").hand) == 4,
    ),
    (
        "place right with shift",
        _with(hands={"Ann": ["red-6"]}),
        As("Ann", PlaceCard("red-6")),
        "red-6",
        lambda s, e: cards_of(s, "red") == ["red-3", "red-5", "red-6", "red-8"] and e[0].shifted,
    ),
    (
        "place left with shift",
        _with(positions={"Ann": "red-8", "Bob": "red-3"}, hands={"Ann": ["red-6"]}),
        As("Ann", PlaceCard("red-6")),
        "red-6",
        lambda s, e: cards_of(s, "red") == ["red-3", "red-5", "red-6", "red-8"] and e[0].shifted,
    ),
    (
        "place at the end, no shift",
        _with(positions={"Ann": "red-8", "Bob": "red-3"}, hands={"Ann": ["red-11"]}),
        As("Ann", PlaceCard("red-11")),
        "red-11",
        lambda s, e: not e[0].shifted and not e[0].new_timeline,
    ),
    (
        "splice a new timeline",
        _with(hands={"Ann": ["green-5"]}),
        As("Ann", PlaceCard("green-5")),
        "green-5",
        lambda s, e: cards_of(s, "green") == ["green-5"] and e[0].new_timeline,
    ),
    (
        "place from portal into a timeline",
        _with(positions={"Ann": "time-portal", "Bob": "red-3"}, hands={"Ann": ["blue-7"]}),
        As("Ann", PlaceCard("blue-7")),
        "blue-7",
        lambda s, e: cards_of(s, "blue") == ["blue-5", "blue-7", "blue-9"],
    ),
    (
        "place from portal as a new timeline",
        _with(positions={"Ann": "time-portal", "Bob": "red-3"}, hands={"Ann": ["yellow-12"]}),
        As("Ann", PlaceCard("yellow-12")),
        "yellow-12",
        lambda s, e: cards_of(s, "yellow") == ["yellow-12"],
    ),
    (
        "quantum tunnel is free",
        _with(hands={"Ann": ["quantum-tunnel-1"]}),
        As("Ann", UseQuantumTunnel("blue-9")),
        "blue-9",
        lambda s, e: s.current_player == "Ann" and "quantum-tunnel-1" in s.discard,
    ),
    (
        "time jump card",
        _with(positions={"Ann": "red-3", "Bob": "red-3"}, hands={"Ann": ["time-jump-2"]}),
        As("Ann", UseTimeJump("red-8")),
        "red-8",
        lambda s, e: s.current_player == "Ann" and "time-jump-2" in s.discard,
    ),
    (
        "time jump token",
        _with(positions={"Ann": "red-3", "Bob": "red-3"}),
        As("Ann", UseTimeJump("red-8", token=True)),
        "red-8",
        lambda s, e: s.player("Ann").time_jump_tokens == 1 and s.token_supply == 9,
    ),
    (
        "redraw with a token",
        _with(hands={"Ann": ["red-1", "red-2"]}),
        As("Ann", RedrawHand()),
        "red-5",
        lambda s, e: len(s.player("Ann").hand) == 4 and {"red-1", "red-2"} <= set(s.discard),
    ),
    (
        "time freeze",
        _with(hands={"Ann": ["time-freeze-2"]}),
        As("Ann", PlaceTimeFreeze()),
        "red-5",
        lambda s, e: (
            s.timelines[0].freezes == (("time-freeze-2", "Ann"),) and s.player("Ann").freeze_markers == 1
        ),
    ),
]


@pytest.mark.parametrize("layout, action, where, check", [c[1:] for c in LEGAL], ids=[c[0] for c in LEGAL])
def test_legal_actions(layout, action, where, check):
    state, events = accept(table(**layout), action)
    assert pos(state, "Ann") == where
    assert check(state, events)


def test_main_action_ends_the_turn_and_refills_to_four():
    state, events = accept(table(**_with(hands={"Ann": ["red-6"]})), As("Ann", PlaceCard("red-6")))
    assert state.current_player == "Bob"
    assert len(state.player("Ann").hand) == 4  # Hand Minimum
    assert kinds(events)[-2:] == ["CardsDrawn", "TurnEnded"]


# --------------------------------------------------------------------------- illegal actions

ILLEGAL = [
    ("not your turn", _with(), As("Bob", Move("red-5")), "It is Ann's turn, not Bob's", words.R_TURN),
    ("unknown player", _with(), As("Zed", Move("red-5")), "no player called Zed", words.R_TURN),
    (
        "two steps along",
        _with(positions={"Ann": "red-3", "Bob": "red-3"}),
        As("Ann", Move("red-8")),
        "red 8 is not next to red 3",
        words.R_ADJACENT,
    ),
    ("other timeline, other era", _with(), As("Ann", Move("blue-9")), "not the same Era", words.R_ADJACENT),
    ("not on the table", _with(), As("Ann", Move("green-2")), "not a card in a Timeline", words.R_MOVING),
    ("stay put", _with(), As("Ann", Move("red-5")), "already on red 5", words.R_ADJACENT),
    (
        "walk into the portal",
        _with(),
        As("Ann", Move("time-portal")),
        "choose the Time Portal move",
        words.R_PORTAL,
    ),
    (
        "portal twice",
        _with(positions={"Ann": "time-portal", "Bob": "red-3"}),
        As("Ann", EnterPortal()),
        "already in the Time Portal",
        words.R_PORTAL,
    ),
    ("card not in hand", _with(), As("Ann", PlaceCard("red-6")), "red 6 is not in your hand", words.R_PLACE),
    ("no such card", _with(), As("Ann", PlaceCard("red-66")), "no card called red-66", words.R_PLACE),
    (
        "special card placed",
        _with(hands={"Ann": ["time-jump-1"]}),
        As("Ann", PlaceCard("time-jump-1")),
        "special card",
        words.R_SPECIAL,
    ),
    (
        "right but past the neighbour",
        _with(hands={"Ann": ["red-9"]}),
        As("Ann", PlaceCard("red-9")),
        "must be lower than the next card red 8",
        words.R_SAME,
    ),
    (
        "left but below the neighbour",
        _with(hands={"Ann": ["red-2"]}),
        As("Ann", PlaceCard("red-2")),
        "must be higher than the previous card red 3",
        words.R_SAME,
    ),
    (
        "splice with another era",
        _with(hands={"Ann": ["green-6"]}),
        As("Ann", PlaceCard("green-6")),
        "neither red",
        words.R_NEW,
    ),
    (
        "splice a colour already on the table",
        _with(positions={"Ann": "red-8", "Bob": "red-3"}, hands={"Ann": ["blue-8"]}),
        As("Ann", PlaceCard("blue-8")),
        "blue Timeline is already on the table",
        words.R_NEW,
    ),
    (
        "quantum tunnel without the card",
        _with(),
        As("Ann", UseQuantumTunnel("blue-9")),
        "no Quantum Tunnel card",
        words.R_QT,
    ),
    (
        "time jump out of the timeline",
        _with(hands={"Ann": ["time-jump-1"]}),
        As("Ann", UseTimeJump("blue-9")),
        "not in your red Timeline",
        words.R_TJ,
    ),
    ("time jump without the card", _with(), As("Ann", UseTimeJump("red-8")), "no Time Jump card", words.R_TJ),
    (
        "time jump without a token",
        _with(tokens={"Ann": 0}),
        As("Ann", UseTimeJump("red-8", token=True)),
        "no Time Jump token",
        words.R_TJ,
    ),
    (
        "time jump from the portal",
        _with(positions={"Ann": "time-portal", "Bob": "red-3"}, hands={"Ann": ["time-jump-1"]}),
        As("Ann", UseTimeJump("red-8")),
        "not on a Timeline card",
        words.R_TJ,
    ),
    (
        "redraw without a token",
        _with(tokens={"Ann": 0}),
        As("Ann", RedrawHand()),
        "no Time Jump token",
        words.R_TJ,
    ),
    ("freeze without the card", _with(), As("Ann", PlaceTimeFreeze()), "no Time Freeze card", words.R_TF),
    (
        "freeze in the portal",
        _with(positions={"Ann": "time-portal", "Bob": "red-3"}, hands={"Ann": ["time-freeze-1"]}),
        As("Ann", PlaceTimeFreeze()),
        "not on one",
        words.R_TF,
    ),
    (
        "ambiguous sequence",
        {
            "timelines": [["red-2", "red-4", "red-6", "red-7"]],
            "positions": {"Ann": "red-4"},
            "hands": {"Ann": ["red-5"]},
        },
        As("Ann", PlaceCard("red-5")),
        "several 3-card sequences (4-5-6 and 5-6-7)",
        words.R_PARTIAL,
    ),
    (
        "sequence that does not exist",
        _with(hands={"Ann": ["red-6"]}),
        As("Ann", PlaceCard("red-6", sequence=5)),
        "makes no 3-card sequence",
        words.R_PARTIAL,
    ),
    (
        "relocation target needed",
        {
            "timelines": [["red-4", "red-6"], ["blue-1"], ["green-1"]],
            "positions": {"Ann": "red-4", "Bob": "blue-1"},
            "hands": {"Ann": ["red-5"]},
        },
        As("Ann", PlaceCard("red-5")),
        "the Timelines on the table are blue and green",
        words.R_PARTIAL,
    ),
    (
        "relocation target not a timeline",
        {
            "timelines": [["red-4", "red-6"], ["blue-1"], ["green-1"]],
            "positions": {"Ann": "red-4", "Bob": "blue-1"},
            "hands": {"Ann": ["red-5"]},
        },
        As("Ann", PlaceCard("red-5", relocate_to="red")),
        "the Timelines on the table are blue and green",
        words.R_PARTIAL,
    ),
    (
        "quantum tunnel start: move to an unlinked card",
        {"start": "quantum-tunnel-1", "timelines": [["red-5"]], "positions": {"Bob": "red-5"}},
        As("Ann", Move("red-5")),
        "only move to a card placed next to it",
        words.R_QT,
    ),
    (
        "time jump start: no timeline chosen yet",
        {"start": "time-jump-1", "timelines": [["red-5"]], "positions": {"Bob": "red-5"}},
        As("Ann", Move("red-5")),
        "nobody has chosen one yet",
        words.R_TJ,
    ),
]


@pytest.mark.parametrize(
    "layout, action, reason, rule", [c[1:] for c in ILLEGAL], ids=[c[0] for c in ILLEGAL]
)
def test_illegal_actions_are_rejected_with_the_rule(layout, action, reason, rule):
    state = table(**layout)
    result = play(state, action)
    assert isinstance(result, Rejected)
    assert reason in str(result.reason)
    assert result.rule == rule
    assert str(rule) in str(result)


def test_freeze_without_markers_is_rejected():
    state = table(**_with(hands={"Ann": ["time-freeze-1"]}))
    state = dataclasses.replace(
        state, players=(dataclasses.replace(state.players[0], freeze_markers=0), state.players[1])
    )
    result = play(state, As("Ann", PlaceTimeFreeze()))
    assert isinstance(result, Rejected) and "no Time Freeze marker" in str(result.reason)


def test_a_rejection_leaves_the_same_player_to_act_on_an_unchanged_state():
    state = table(**_with())
    assert isinstance(play(state, As("Ann", Move("blue-9"))), Rejected)
    state2, _ = accept(state, As("Ann", Move("red-8")))
    assert state2.current_player == "Bob"


def test_turn_order_wraps_around_three_players():
    state = table(
        timelines=[["red-1", "red-5", "red-9"]],
        players=("Ann", "Bob", "Cy"),
        positions={"Ann": "red-5", "Bob": "red-5", "Cy": "red-5"},
    )
    order = []
    for name, dest in (("Ann", "red-9"), ("Bob", "red-1"), ("Cy", "red-9"), ("Ann", "red-5")):
        order.append(state.current_player)
        state, _ = accept(state, As(name, Move(dest)))
    assert order == ["Ann", "Bob", "Cy", "Ann"]


# --------------------------------------------------------------------------- special starting cards


def test_quantum_tunnel_start_accepts_any_card_and_is_removed_when_the_last_player_leaves():
    state = table(start="quantum-tunnel-1", hands={"Ann": ["blue-9"], "Bob": ["green-2"]})
    state, _ = accept(state, As("Ann", PlaceCard("blue-9")))
    assert state.start_card == "quantum-tunnel-1" and state.start_links == ("blue-9",)
    state, events = accept(state, As("Bob", Move("blue-9")))
    assert state.start_card is None and "quantum-tunnel-1" in state.removed
    assert "StartCardLeft" in kinds(events)


def test_time_jump_start_first_leaver_chooses_the_timeline_for_everyone():
    state = table(start="time-jump-1", hands={"Ann": ["red-5"], "Bob": ["blue-3", "red-8"]})
    state, _ = accept(state, As("Ann", PlaceCard("red-5")))
    assert state.start_colour == "red"
    wrong = play(state, As("Bob", PlaceCard("blue-3")))
    assert isinstance(wrong, Rejected) and "chose the red Timeline" in str(wrong.reason)
    state, _ = accept(state, As("Bob", PlaceCard("red-8")))
    assert cards_of(state, "red") == ["red-5", "red-8"]
    assert state.start_card is None and "time-jump-1" in state.discard


# --------------------------------------------------------------------------- fixed points


def test_third_and_fourth_card_of_an_era_each_earn_a_time_jump_token():
    state = table(
        timelines=[["red-4"], ["blue-4"]],
        positions={"Ann": "blue-4", "Bob": "blue-4"},
        hands={"Ann": ["green-4"], "Bob": ["yellow-4"]},
    )
    state, events = accept(state, As("Ann", PlaceCard("green-4")))
    fixed = [e for e in events if isinstance(e, model.FixedPointReached)]
    assert fixed == [model.FixedPointReached("Ann", 4, 3, True)]
    assert state.player("Ann").time_jump_tokens == 3
    state, events = accept(state, As("Bob", PlaceCard("yellow-4")))
    assert [e.count for e in events if isinstance(e, model.FixedPointReached)] == [4]
    assert state.player("Bob").time_jump_tokens == 3 and state.token_supply == 12 - 6
    # the count is taken as the card is placed, before Bob's leaving empties the blue Timeline
    assert cards_of(state, "blue") == [] and "TimelineCollapsed" in kinds(events)


# --------------------------------------------------------------------------- collapses


def test_empty_timeline_collapse_with_three_cards_gives_a_crystal():
    state = table(
        timelines=[["red-3", "red-5", "red-8"], ["blue-5"]], positions={"Ann": "red-5", "Bob": "blue-5"}
    )
    state, events = accept(state, As("Ann", Move("blue-5")))
    assert cards_of(state, "red") == []
    collapse = next(e for e in events if isinstance(e, model.TimelineCollapsed))
    assert collapse.kind == "empty" and set(collapse.cards) == {"red-3", "red-5", "red-8"}
    assert state.player("Ann").crystals == 1 and state.crystal_supply == 24


def test_empty_timeline_collapse_with_two_cards_gives_nothing():
    state = table(timelines=[["red-3", "red-5"], ["blue-5"]], positions={"Ann": "red-5", "Bob": "blue-5"})
    state, events = accept(state, As("Ann", Move("blue-5")))
    assert cards_of(state, "red") == [] and "TimelineCollapsed" in kinds(events)
    assert state.player("Ann").crystals == 0


def test_no_empty_collapse_while_another_player_is_still_there():
    state = table(
        timelines=[["red-3", "red-5", "red-8"], ["blue-5"]], positions={"Ann": "red-5", "Bob": "red-3"}
    )
    state, events = accept(state, As("Ann", Move("blue-5")))
    assert cards_of(state, "red") == ["red-3", "red-5", "red-8"] and "TimelineCollapsed" not in kinds(events)


def test_time_freeze_prevents_the_empty_collapse_until_its_owner_returns():
    state = table(
        timelines=[["red-3", "red-5", "red-8"], ["blue-5"]],
        positions={"Ann": "red-5", "Bob": "blue-5"},
        hands={"Ann": ["time-freeze-1"]},
    )
    state, _ = accept(state, As("Ann", PlaceTimeFreeze()))
    state, events = accept(state, As("Ann", Move("blue-5")))
    assert cards_of(state, "red") == ["red-3", "red-5", "red-8"] and "TimelineCollapsed" not in kinds(events)
    state, _ = accept(state, As("Bob", Move("red-5")))  # Bob visits: not his freeze, nothing returned
    assert state.timelines[0].freezes == (("time-freeze-1", "Ann"),)
    state, _ = accept(state, As("Ann", Move("red-5")))  # Ann returns: card discarded, marker back
    assert state.timelines[0].freezes == () and "time-freeze-1" in state.discard
    assert state.player("Ann").freeze_markers == 2


def test_partial_collapse_rulebook_example_both_choices():
    layout = {
        "timelines": [["red-2", "red-4", "red-6", "red-7"]],
        "positions": {"Ann": "red-4", "Bob": "red-7"},
        "hands": {"Ann": ["red-5"]},
    }
    low, events = accept(table(**layout), As("Ann", PlaceCard("red-5", sequence=4)))
    assert (
        cards_of(low, "red") == ["red-2", "red-7"]
        and pos(low, "Ann") == "red-2"
        and pos(low, "Bob") == "red-7"
    )
    high, _ = accept(table(**layout), As("Ann", PlaceCard("red-5", sequence=5)))
    assert (
        cards_of(high, "red") == ["red-2", "red-4"]
        and pos(high, "Ann") == "red-4"
        and pos(high, "Bob") == "red-4"
    )
    for state in (low, high):
        assert state.player("Ann").crystals == 1 and state.crystal_supply == 24
    assert [e.kind for e in events if isinstance(e, model.TimelineCollapsed)] == ["partial"]


def test_partial_collapse_at_the_left_end_sends_meeples_to_the_earliest_remaining_card():
    state = table(
        timelines=[["red-2", "red-3", "red-9"]],
        positions={"Ann": "red-2", "Bob": "red-9"},
        hands={"Ann": ["red-1"]},
    )
    state, _ = accept(state, As("Ann", PlaceCard("red-1")))
    assert cards_of(state, "red") == ["red-9"] and pos(state, "Ann") == "red-9"


def test_partial_collapse_of_a_whole_timeline_moves_meeples_to_the_chosen_timeline():
    state = table(
        timelines=[["red-4", "red-6"], ["blue-1", "blue-2"], ["green-8"]],
        positions={"Ann": "red-4", "Bob": "red-6"},
        hands={"Ann": ["red-5"]},
    )
    state, events = accept(state, As("Ann", PlaceCard("red-5", relocate_to="blue")))
    assert cards_of(state, "red") == []
    assert pos(state, "Ann") == pos(state, "Bob") == "blue-1"
    assert state.player("Ann").crystals == 1 and state.player("Bob").crystals == 0


def test_partial_collapse_with_no_timeline_left_flips_a_new_one_from_the_deck():
    state = table(
        timelines=[["red-4", "red-6"]],
        positions={"Ann": "red-4", "Bob": "red-6"},
        hands={"Ann": ["red-5"]},
        deck=["time-jump-3", "yellow-7", "blue-1"],
    )
    state, events = accept(state, As("Ann", PlaceCard("red-5")))
    assert [t.colour for t in state.timelines] == ["yellow"]
    assert pos(state, "Ann") == pos(state, "Bob") == "yellow-7"
    assert "time-jump-3" in state.discard  # special cards turned up on the way are discarded
    assert "TimelineFlipped" in kinds(events)


def test_complete_collapse_on_the_fifth_card_with_a_singularity_gives_two_crystals():
    state = table(
        timelines=[["red-1", "red-5", "red-9", "red-13"], ["blue-3", "blue-7"]],
        positions={"Ann": "red-9", "Bob": "red-1"},
        hands={"Ann": ["red-11"]},
    )
    state, events = accept(state, As("Ann", PlaceCard("red-11")))
    collapse = next(e for e in events if isinstance(e, model.TimelineCollapsed))
    assert collapse.kind == "complete" and len(collapse.cards) == 5
    assert cards_of(state, "red") == [] and pos(state, "Ann") == pos(state, "Bob") == "blue-3"
    assert state.player("Ann").crystals == 2 and state.crystal_supply == 23


def test_complete_collapse_when_the_placed_card_is_the_singularity():
    state = table(
        timelines=[["red-1", "red-4", "red-7", "red-10"]],
        positions={"Ann": "red-10", "Bob": "red-1"},
        hands={"Ann": ["red-13"]},
        deck=["green-6"],
    )
    state, events = accept(state, As("Ann", PlaceCard("red-13")))
    assert [t.colour for t in state.timelines] == ["green"] and pos(state, "Bob") == "green-6"
    assert state.player("Ann").crystals == 2


def test_complete_collapse_takes_precedence_over_a_sequence():
    state = table(
        timelines=[["red-9", "red-10", "red-12", "red-13"], ["blue-2"]],
        positions={"Ann": "red-10", "Bob": "blue-2"},
        hands={"Ann": ["red-11"]},
    )
    state, events = accept(state, As("Ann", PlaceCard("red-11")))
    assert [e.kind for e in events if isinstance(e, model.TimelineCollapsed)] == ["complete"]
    assert state.player("Ann").crystals == 2


def test_four_cards_with_a_singularity_do_not_collapse():
    state = table(
        timelines=[["red-1", "red-5", "red-13"]],
        positions={"Ann": "red-5", "Bob": "red-1"},
        hands={"Ann": ["red-9"]},
    )
    state, events = accept(state, As("Ann", PlaceCard("red-9")))
    assert "TimelineCollapsed" not in kinds(events) and len(cards_of(state, "red")) == 4


# --------------------------------------------------------------------------- winning


def test_the_seventh_crystal_wins_immediately_and_ends_the_game():
    state = table(
        timelines=[["red-4", "red-6", "red-9"]],
        positions={"Ann": "red-4", "Bob": "red-9"},
        hands={"Ann": ["red-5"]},
        crystals={"Ann": 6, "Bob": 3},
    )
    state, events = accept(state, As("Ann", PlaceCard("red-5")))
    assert state.winner == "Ann" and state.is_over
    assert kinds(events)[-1] == "GameWon" and "TurnEnded" not in kinds(events)
    after = play(state, As("Bob", Move("red-9")))
    assert isinstance(after, Rejected) and "game is over" in str(after.reason) and after.rule == words.R_END


def test_an_empty_collapse_can_bring_the_seventh_crystal():
    state = table(
        timelines=[["red-3", "red-5", "red-8"], ["blue-5"]],
        positions={"Ann": "red-5", "Bob": "blue-5"},
        crystals={"Ann": 6},
    )
    state, events = accept(state, As("Ann", Move("blue-5")))
    assert state.winner == "Ann" and kinds(events)[-1] == "GameWon"


def test_six_crystals_do_not_win():
    state = table(
        timelines=[["red-4", "red-6", "red-9"]],
        positions={"Ann": "red-4", "Bob": "red-9"},
        hands={"Ann": ["red-5"]},
        crystals={"Ann": 5},
    )
    state, _ = accept(state, As("Ann", PlaceCard("red-5")))
    assert state.winner is None and state.player("Ann").crystals == 6


# --------------------------------------------------------------------------- hand limits


def test_going_over_seven_costs_the_hand_and_a_token():
    state = table(**_with(hands={"Ann": SEVEN}))
    state, events = accept(state, As("Ann", Move("red-8")))
    ann = state.player("Ann")
    assert "HandLimitExceeded" in kinds(events)
    assert len(ann.hand) == 4 and not set(ann.hand) & set(SEVEN) and ann.time_jump_tokens == 1
    assert set(SEVEN) <= set(state.discard) and state.token_supply == 9


def test_the_portal_can_push_a_hand_of_six_over_the_limit():
    state = table(**_with(hands={"Ann": SEVEN[:6]}))
    state, events = accept(state, As("Ann", EnterPortal()))
    assert next(e for e in events if isinstance(e, model.HandLimitExceeded)).size == 8
    assert len(state.player("Ann").hand) == 4


def test_over_the_limit_without_a_token_eliminates_and_the_last_player_wins():
    state = table(**_with(hands={"Ann": SEVEN}, tokens={"Ann": 0}))
    state, events = accept(state, As("Ann", Move("red-8")))
    assert state.player("Ann").eliminated and pos(state, "Ann") is None
    assert state.winner == "Bob" and kinds(events)[-1] == "GameWon"


def test_elimination_with_three_players_passes_the_turn_and_locks_the_player_out():
    state = table(
        timelines=[["red-3", "red-5", "red-8"]],
        players=("Ann", "Bob", "Cy"),
        positions={"Ann": "red-5", "Bob": "red-3", "Cy": "red-3"},
        hands={"Ann": SEVEN},
        tokens={"Ann": 0},
    )
    state, events = accept(state, As("Ann", Move("red-8")))
    assert "PlayerEliminated" in kinds(events) and state.winner is None
    assert state.current_player == "Bob"
    state, _ = accept(state, As("Bob", Move("red-5")))
    assert state.current_player == "Cy"  # Ann is skipped from now on
    state, _ = accept(state, As("Cy", Move("red-5")))
    assert state.current_player == "Bob"
    locked = play(state, As("Ann", Move("red-5")))
    assert isinstance(locked, Rejected) and "eliminated" in str(locked.reason)


def test_hand_minimum_refills_to_four_at_the_end_of_the_turn():
    state = table(**_with(hands={"Ann": ["red-6"]}))
    state, _ = accept(state, As("Ann", PlaceCard("red-6")))
    assert len(state.player("Ann").hand) == 4


def test_an_empty_deck_is_reshuffled_from_the_discard_pile():
    used = {"red-3", "red-5", "red-8", "blue-5", "blue-9", "green-1"}
    rest = [c for c in ALL_CARDS if c not in used and c != "time-portal"]
    state = table(**_with(hands={"Ann": ["green-1"]}), deck=rest[:2], discard=rest[2:])
    state, events = accept(state, As("Ann", Move("red-8")))
    assert len(state.player("Ann").hand) == 4
    assert "DeckReshuffled" in kinds(events) and state.shuffles == 1
    assert Counter(all_card_ids(state)) == Counter(ALL_CARDS)


def test_is_legal_matches_apply():
    state = table(**_with(hands={"Ann": ["red-6"]}))
    assert legal(state, As("Ann", PlaceCard("red-6")))
    assert not legal(state, As("Bob", PlaceCard("red-6")))
    assert not legal(state, As("Ann", Move("blue-9")))


# --------------------------------------------------------------------------- turn timer and real-game records


def test_a_timed_out_turn_passes_without_a_main_action_and_refills_the_hand():
    state = table(**_with(positions={"Ann": "time-portal", "Bob": "red-3"}, hands={"Ann": ["red-6"]}))
    state, events = accept(state, As("Ann", ForfeitTurn()))
    assert kinds(events) == ["TurnForfeited", "CardsDrawn", "TurnEnded"]
    assert pos(state, "Ann") == "time-portal" and len(state.player("Ann").hand) == 4
    assert state.current_player == "Bob"
    wrong = play(state, As("Ann", ForfeitTurn()))
    assert isinstance(wrong, Rejected) and "Bob's turn" in str(wrong.reason)


def test_a_layout_can_name_who_plays_first():
    state = new_game(
        ["Ann", "Bob"],
        config=CONFIG,
        layout=Layout(start="red-5", hands={"Ann": (), "Bob": ()}, first_player="Bob"),
    )
    assert state.current_player == "Bob"
    with pytest.raises(SetupError, match="first_player 'Zed'"):
        new_game(
            ["Ann", "Bob"],
            config=CONFIG,
            layout=Layout(start="red-5", hands={"Ann": (), "Bob": ()}, first_player="Zed"),
        )


def _empty_deck_table(reshuffle_tops):
    used = {"red-3", "red-5", "red-8", "blue-5", "blue-9"}
    rest = [c for c in ALL_CARDS if c not in used and c != "time-portal"]
    return new_game(
        ["Ann", "Bob"],
        seed="t",
        config=CONFIG,
        layout=Layout(
            start=None,
            hands={"Ann": (), "Bob": ()},
            timelines=(("red-3", "red-5", "red-8"), ("blue-5", "blue-9")),
            positions={"Ann": "red-5", "Bob": "red-3"},
            discard=tuple(rest),
            reshuffle_tops=reshuffle_tops,
        ),
    )


def test_a_recorded_reshuffle_order_puts_those_cards_on_top():
    state, events = accept(_empty_deck_table((("yellow-13", "green-2"),)), As("Ann", Move("red-8")))
    drawn = [c for e in events if isinstance(e, model.CardsDrawn) for c in e.cards]
    assert drawn[:2] == ["yellow-13", "green-2"] and len(drawn) == 4


def test_a_recorded_reshuffle_order_naming_a_card_not_discarded_is_refused():
    result = play(_empty_deck_table((("red-3",),)), As("Ann", Move("red-8")))
    assert isinstance(result, Rejected) and "names red 3" in str(result.reason)


# --------------------------------------------------------------------------- interactions


def test_splicing_away_from_a_timeline_you_were_alone_on_collapses_it():
    state = table(
        timelines=[["red-3", "red-5", "red-8"], ["blue-1"]],
        positions={"Ann": "red-5", "Bob": "blue-1"},
        hands={"Ann": ["green-5"]},
    )
    state, events = accept(state, As("Ann", PlaceCard("green-5")))
    assert cards_of(state, "red") == [] and cards_of(state, "green") == ["green-5"]
    assert state.player("Ann").crystals == 1


def test_a_quantum_tunnel_away_can_empty_a_timeline():
    state = table(
        timelines=[["red-3", "red-5"], ["blue-9"]],
        positions={"Ann": "red-5", "Bob": "blue-9"},
        hands={"Ann": ["quantum-tunnel-2"]},
    )
    state, events = accept(state, As("Ann", UseQuantumTunnel("blue-9")))
    assert cards_of(state, "red") == [] and state.current_player == "Ann"


def test_relocation_onto_a_timeline_you_froze_returns_your_marker():
    state = table(
        timelines=[["red-4", "red-6"], ["blue-1"]],
        positions={"Ann": "blue-1", "Bob": "red-4"},
        hands={"Ann": ["time-freeze-1", "quantum-tunnel-1"], "Bob": ["red-5"]},
    )
    state, _ = accept(state, As("Ann", PlaceTimeFreeze()))
    state, events = accept(state, As("Ann", UseQuantumTunnel("red-6")))
    assert cards_of(state, "blue") == ["blue-1"] and "TimelineCollapsed" not in kinds(events)  # frozen
    state, _ = accept(state, As("Ann", Move("red-4")))
    state, events = accept(state, As("Bob", PlaceCard("red-5")))  # 4-5-6 empties red; blue is the only choice
    assert pos(state, "Ann") == pos(state, "Bob") == "blue-1"
    returned = [e for e in events if isinstance(e, model.TimeFreezeReturned)]
    assert returned == [model.TimeFreezeReturned("Ann", ("time-freeze-1",), "blue", True)]
    assert state.player("Ann").freeze_markers == 2 and state.timelines[0].freezes == ()


def test_complete_collapse_needs_a_choice_between_several_timelines():
    layout = {
        "timelines": [["red-1", "red-5", "red-9", "red-13"], ["blue-3"], ["green-2"]],
        "positions": {"Ann": "red-9", "Bob": "green-2"},
        "hands": {"Ann": ["red-11"]},
    }
    refused = play(table(**layout), As("Ann", PlaceCard("red-11")))
    assert isinstance(refused, Rejected) and "the Timelines on the table are blue and green" in str(
        refused.reason
    )
    assert refused.rule == words.R_COMPLETE
    state, _ = accept(table(**layout), As("Ann", PlaceCard("red-11", relocate_to="green")))
    assert pos(state, "Ann") == "green-2" and state.player("Ann").crystals == 2


def test_no_token_for_a_fixed_point_once_the_supply_is_empty():
    state = table(
        timelines=[["red-4"], ["blue-4"]],
        positions={"Ann": "blue-4", "Bob": "blue-4"},
        hands={"Ann": ["green-4"]},
        players=("Ann", "Bob", "Cy", "Dee", "Eve", "Fay"),
    )
    assert state.token_supply == 0
    state, events = accept(state, As("Ann", PlaceCard("green-4")))
    assert [e.token_gained for e in events if isinstance(e, model.FixedPointReached)] == [False]
    assert state.player("Ann").time_jump_tokens == 2


def test_crystals_stop_when_the_supply_is_empty():
    players = ("Ann", "Bob", "Cy", "Dee")
    state = table(
        timelines=[["red-4", "red-6", "red-9"]],
        positions={"Ann": "red-4", "Bob": "red-9"},
        hands={"Ann": ["red-5"]},
        players=players,
        crystals={"Ann": 1, "Bob": 6, "Cy": 6, "Dee": 6},
    )
    assert state.crystal_supply == 6
    state = dataclasses.replace(state, crystal_supply=0)
    state, events = accept(state, As("Ann", PlaceCard("red-5")))
    assert [e.count for e in events if isinstance(e, model.CrystalsFound)] == [0]
    assert state.player("Ann").crystals == 1
