"""A phone's choice for a sandtimer's next flip (an intent) is checked before the table stores it.

The referee's ``check_intent`` refuses what can never be right (a time symbol, place,
building, spot, colour, value or choice that does not exist, or a place no wormhole
reaches); whether a choice can be carried out when the sandtimer is flipped stays the
engine's to say. Every intent the phone's own menu offers passes (see the random play in
``test_time_n_space_table.py``).
"""

from __future__ import annotations

import pytest

from companion.rules.outcome import Rejected

from .test_time_n_space_helpers import said, untranslated
from .test_time_n_space_table import Table

REFUSED = [
    ({"symbol": "b9"}, "There is no time symbol 'b9' on your control center or spaceship"),
    (
        {"symbol": "yellow:b6"},
        "never on another player's (General rules for placing and using the sandtimers)",
    ),
    ({"symbol": 6}, "6 is not a time symbol"),
    ({"symbol": "ship", "destination": "planet-9"}, "'planet-9' is not a place on the board"),
    (
        {"symbol": "ship", "destination": "planet-2"},
        "yellow's planet is not one wormhole away from red's planet; you can fly to moon 1 and moon 3",
    ),
    ({"symbol": "b6", "destination": "moon-1"}, "Only a sandtimer on your spaceship takes a destination"),
    ({"destination": "moon-1"}, "Only a sandtimer on your spaceship takes a destination"),
    ({"forfeit": "yes"}, "The choice 'forfeit' is yes or no"),
    ({"beam": [["b7", 0]]}, "You can only beam goods from your production plants; 'b7' is not one"),
    ({"beam": [["b6", 9]]}, "Building b6 has no spot 9"),
    ({"beam": "b6"}, "The choice 'beam' lists pairs of building and spot"),
    ({"deliver": [["pink", 1]]}, "'pink' is not an order colour; use gray, yellow, blue and brown"),
    ({"trade": [["gray", 4]]}, "Order counters show 1, 2 or 3, not 4 (4. Trading center)"),
    ({"spaces": [["b8", 0]]}, "You may never place order counters on trading centers"),
    ({"build": "b42"}, "There is no building 'b42' on your control center (5. Research plant)"),
    ({"moon": "eat"}, "not 'eat' (1. Your spaceship)"),
    ({"dance": True}, "A sandtimer has no choice 'dance' in Time 'n' Space (Table)"),
]


@pytest.mark.parametrize(("intent", "reason"), REFUSED, ids=[str(i) for i, _ in REFUSED])
def test_an_intent_naming_what_does_not_exist_is_refused_with_the_rule(intent, reason):
    t = Table()
    t.start()
    refused = t.session.set_intent("red", "red-1", intent)
    assert isinstance(refused, Rejected)
    assert reason in said(refused)
    assert not untranslated([refused.reason, refused.rule])
    assert "red-1" not in t.session.intents  # nothing stored


ACCEPTED = [
    {"symbol": "b6"},
    {"symbol": "red:b6"},
    {"symbol": "research"},  # empty now, but a tile may arrive before the flip: the engine says then
    {"symbol": "ship"},
    {"symbol": "ship", "destination": "moon-3"},
    {"symbol": "ship", "destination": "planet-1"},  # staying where it is
    {"forfeit": True, "upgrade": False},
    {"beam": [["b6", 0], ["b6", 1]]},
    {"deliver": [["gray", 1]], "trade": [["brown", 1]], "spaces": [["b1", 0]]},
    {"build": "b1", "moon": "bottom"},
    {"start_orders": [["gray", 1]], "start_spaces": [["b5", 0]]},
    {},
]


@pytest.mark.parametrize("intent", ACCEPTED, ids=[str(i) for i in ACCEPTED])
def test_an_intent_the_rules_can_carry_out_is_stored(intent):
    t = Table()
    t.start()
    assert t.session.set_intent("red", "red-1", intent) is None
    assert t.session.intents["red-1"] == dict(intent, node="red-1")


def test_a_ship_on_its_way_may_fly_on_from_where_it_arrives():
    t = Table()
    t.start()
    assert t.flip("red-2", symbol="ship", destination="moon-1")["verdict"] == "accepted"
    # the ship is at red's planet but arrives at moon 1 when red-2 is lifted: yellow's planet is next
    assert t.session.set_intent("red", "red-2", {"symbol": "ship", "destination": "planet-2"}) is None
    t.run(60)
    t.empty("red-2")
    assert t.flip("red-2")["verdict"] == "accepted"
    assert t.timer("red", 2).destination == "planet-2"


def test_the_phone_page_shows_the_refusal_in_the_players_language():
    t = Table()
    t.start()
    refused = t.session.set_intent("red", "red-1", {"symbol": "b9"})
    from companion.i18n import render

    assert (
        render(refused.reason, "es")
        == "No hay ningún símbolo de tiempo 'b9' en tu centro de control ni en tu nave"
    )
    assert render(refused.rule, "de") == "Allgemeine Regeln zum Aufstellen und Benutzen der Sanduhren"


def test_light_mode_takes_no_choices_for_a_sandtimer():
    t = Table(variant="light")
    t.start()
    refused = t.session.set_intent("red", "red-1", {"symbol": "b6"})
    assert isinstance(refused, Rejected) and "takes no choices" in said(refused)
    assert t.session.set_intent("red", "red-1", {}) is None
