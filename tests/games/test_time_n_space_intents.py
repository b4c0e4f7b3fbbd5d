"""A phone's choice for a sandtimer's next flip (an intent) is checked before the table stores it.

The referee's ``check_intent`` refuses what can never be right (a time symbol, place,
building, spot, colour, value or choice that does not exist, or a place no wormhole
reaches); whether a choice can be carried out when the sandtimer is flipped stays the
engine's to say. Every intent the phone's own menu offers passes (see the random play in
``test_time_n_space_table.py``). What is not a choice at all (a wrong type, an unknown field) is
refused by the game's codec when the phone's post is read.
"""

from __future__ import annotations

import pytest

from companion.errors import InvalidRecordError
from companion.games.time_n_space import GAME
from companion.games.time_n_space.model import Intent
from companion.rules.outcome import Rejected

from .test_time_n_space_helpers import Table, intent, said, untranslated

REFUSED = [
    ({"symbol": "b9"}, "There is no time symbol 'b9' on your control center or spaceship"),
    (
        {"symbol": "yellow:b6"},
        "never on another player's (General rules for placing and using the sandtimers)",
    ),
    ({"symbol": "ship", "destination": "planet-9"}, "'planet-9' is not a place on the board"),
    (
        {"symbol": "ship", "destination": "planet-2"},
        "yellow's planet is not one wormhole away from red's planet; you can fly to moon 1 and moon 3",
    ),
    ({"symbol": "b6", "destination": "moon-1"}, "Only a sandtimer on your spaceship takes a destination"),
    ({"destination": "moon-1"}, "Only a sandtimer on your spaceship takes a destination"),
    ({"beam": [["b7", 0]]}, "You can only beam goods from your production plants; 'b7' is not one"),
    ({"beam": [["b6", 9]]}, "Building b6 has no spot 9"),
    ({"deliver": [["pink", 1]]}, "'pink' is not an order colour; use gray, yellow, blue and brown"),
    ({"trade": [["gray", 4]]}, "Order counters show 1, 2 or 3, not 4 (4. Trading center)"),
    ({"spaces": [["b8", 0]]}, "You may never place order counters on trading centers"),
    ({"build": "b42"}, "There is no building 'b42' on your control center (5. Research plant)"),
]


@pytest.mark.parametrize(("choices", "reason"), REFUSED, ids=[str(i) for i, _ in REFUSED])
def test_an_intent_naming_what_does_not_exist_is_refused_with_the_rule(choices, reason):
    t = Table()
    t.start()
    refused = t.choose("red-1", **choices)
    assert isinstance(refused, Rejected)
    assert reason in said(refused)
    assert not untranslated([refused.reason, refused.rule])
    assert "red-1" not in t.intents  # nothing stored


MALFORMED = [
    ({"symbol": 6}, "Intent.symbol must be"),
    ({"forfeit": "yes"}, 'Intent.forfeit must be bool, not "yes"'),
    ({"beam": "b6"}, "Intent.beam must be"),
    ({"beam": [["b6"]]}, "Intent.beam[0] must be a list of 2"),
    ({"moon": "eat"}, "Intent.moon must be"),
    ({"dance": True}, "Intent has no field 'dance'"),
]


@pytest.mark.parametrize(("choices", "reason"), MALFORMED, ids=[str(i) for i, _ in MALFORMED])
def test_a_malformed_intent_is_refused_when_the_phones_post_is_read(choices, reason):
    """What is not even a choice (a wrong type, an unknown field) never reaches the rules: the game's
    codec refuses the post with one sentence naming the field (the web API answers 400)."""
    with pytest.raises(InvalidRecordError) as info:
        GAME.codec.read({"@": "Intent", **choices}, GAME.intents)
    assert reason in str(info.value) and "\n" not in str(info.value)


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


@pytest.mark.parametrize("choices", ACCEPTED, ids=[str(i) for i in ACCEPTED])
def test_an_intent_the_rules_can_carry_out_is_stored(choices):
    t = Table()
    t.start()
    assert t.choose("red-1", **choices) is None
    assert t.intents["red-1"] == intent(**choices)


def test_a_ship_on_its_way_may_fly_on_from_where_it_arrives():
    t = Table()
    t.start()
    assert t.flip("red-2", symbol="ship", destination="moon-1")["verdict"] == "accepted"
    # the ship is at red's planet but arrives at moon 1 when red-2 is lifted: yellow's planet is next
    assert t.choose("red-2", symbol="ship", destination="planet-2") is None
    t.run(60)
    t.empty("red-2")
    assert t.flip("red-2")["verdict"] == "accepted"
    assert t.timer("red", 2).destination == "planet-2"


def test_the_phone_page_shows_the_refusal_in_the_players_language():
    t = Table()
    t.start()
    refused = t.choose("red-1", symbol="b9")
    from companion.i18n import render

    assert (
        render(refused.reason, "es")
        == "No hay ningún símbolo de tiempo 'b9' en tu centro de control ni en tu nave"
    )
    assert render(refused.rule, "de") == "Allgemeine Regeln zum Aufstellen und Benutzen der Sanduhren"


def test_light_mode_takes_no_choices_for_a_sandtimer():
    t = Table(variant="light")
    t.start()
    refused = t.choose("red-1", symbol="b6")
    assert isinstance(refused, Rejected) and "takes no choices" in said(refused)
    assert t.choose("red-1") is None
    assert t.intents["red-1"] == Intent()
