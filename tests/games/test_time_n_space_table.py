"""Time 'n' Space on a hub table: node flips, phone intents, time facts and scoring through a real session."""

from __future__ import annotations

import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.errors import ConfigError, InvalidRecordError
from companion.games import referee_for
from companion.games.time_n_space import GAME
from companion.games.time_n_space.model import (
    HandOverFirst,
    Lift,
    LiftEveryFinished,
    OrderPlacement,
    StartingOrders,
)
from companion.games.time_n_space.referee import TimeNSpaceReferee
from companion.games.time_n_space.scoring import final_scores, score_record
from companion.rules.setup import default_setup
from companion.table.log import EventLog, read_log
from companion.table.session import TableSession

from .test_time_n_space_helpers import Table, en, said, score_sheet, untranslated

# --- legal and illegal flips ---------------------------------------------------------------------


def _started(t: Table) -> None:
    t.start()


def _on_b6(t: Table) -> None:
    t.start()
    assert t.flip("red-1", symbol="b6")["verdict"] == "accepted"


def _b6_finished(t: Table) -> None:
    _on_b6(t)
    t.run(60)
    t.empty("red-1")


def _b7_finished(t: Table) -> None:
    t.start()
    assert t.flip("red-1", symbol="b7")["verdict"] == "accepted"
    t.run(60)
    t.empty("red-1")


def _clock_over(t: Table) -> None:
    t.start()
    t.run(720)


FLIPS = [
    # (case, prepare, node, intent, ran_out, verdict, reason)
    (
        "before the master clock starts",
        lambda t: None,
        "red-1",
        {},
        True,
        "rejected",
        "The sandtimers may not be flipped before the game starts (Setup for the Introductory Game)",
    ),
    ("first flip onto a building", _started, "red-1", {"symbol": "b6"}, True, "accepted", ""),
    ("first flip with the default symbol", _started, "red-1", {}, True, "accepted", ""),
    (
        "spaceship to a neighbouring moon",
        _started,
        "red-1",
        {"symbol": "ship", "destination": "moon-1"},
        True,
        "accepted",
        "",
    ),
    (
        "symbol already occupied",
        _on_b6,
        "red-2",
        {"symbol": "b6"},
        True,
        "rejected",
        "Each time symbol holds one sandtimer at a time; building b6 is occupied "
        "(General rules for placing and using the sandtimers)",
    ),
    (
        "no tile in the research plant",
        _started,
        "red-1",
        {"symbol": "research"},
        True,
        "rejected",
        "Your research plant is empty; take a tile at a moon before placing a sandtimer here (5. Research plant)",
    ),
    (
        "lift before the sand ran through",
        _on_b6,
        "red-1",
        {},
        False,
        "rejected",
        "The sand on this timer has not run through yet (General rules for placing and using the sandtimers)",
    ),
    ("lift after the sand ran through", _b6_finished, "red-1", {}, True, "accepted", ""),
    (
        "a finished timer flipped with sand on top",
        _b6_finished,
        "red-1",
        {},
        False,
        "rejected",
        "Let the sand run through completely before you flip this sandtimer",
    ),
    (
        "beam a cube that is not there",
        _b7_finished,
        "red-1",
        {"beam": [["b1", 0]]},
        True,
        "rejected",
        "There is no goods cube on production plant b1 spot 0 (3. Beam station)",
    ),
    (
        "upgrade a stage III building",
        _b6_finished,
        "red-1",
        {"upgrade": True},
        True,
        "rejected",
        "Only a stage II building can be upgraded to stage III (Upgrading stage II buildings)",
    ),
    (
        "forfeit the action and stay on the symbol",
        _b6_finished,
        "red-1",
        {"symbol": "b6", "forfeit": True},
        True,
        "accepted",
        "",
    ),
    (
        "start after the master clock ran out",
        _clock_over,
        "red-1",
        {},
        True,
        "rejected",
        "The master clock has run out",
    ),
]


@pytest.mark.parametrize(
    "case, prepare, node, intent, ran_out, verdict, reason", FLIPS, ids=[case[0] for case in FLIPS]
)
def test_flips_are_checked_against_the_engine(case, prepare, node, intent, ran_out, verdict, reason):
    t = Table()
    prepare(t)
    before = t.game
    ack = t.flip(node, ran_out=ran_out, **intent)
    assert ack["verdict"] == verdict
    if verdict == "rejected":
        assert reason.split(" (")[0] in ack["reason"]
        assert t.game == before
        assert t.session.state.timers[node].refused
        assert reason in said(t.session.player_snapshot("red")["refusal"])
    else:
        assert "reason" not in ack
        assert t.timer("red", int(node[-1])).running
    assert t.replays()


def test_the_first_flip_only_places_and_a_lift_acts_then_places_again():
    t = Table()
    t.start()
    t.flip("red-1", symbol="b6")
    assert t.timer("red", 1).symbol == "b6" and t.timer("red", 1).running
    supply = t.game.supply_of("gray")
    t.run(60)
    t.empty("red-1")
    assert not t.timer("red", 1).running
    assert t.flip("red-1")["verdict"] == "accepted"  # no intent: produce, then the same symbol again
    assert t.game.supply_of("gray") == supply - 1
    assert t.timer("red", 1).symbol == "b6" and t.timer("red", 1).running
    notes = [en(e["text"]) for e in t.session.snapshot()["recent"]]
    assert "red produced gray on b6" in " / ".join(notes)


def test_a_refused_flip_keeps_the_intent_and_an_accepted_one_clears_it():
    t = Table()
    t.start()
    t.flip("red-1", symbol="b6")
    assert t.flip("red-2", symbol="b6")["verdict"] == "rejected"
    assert t.intents["red-2"].symbol == "b6"
    assert t.flip("red-2", symbol="b7")["verdict"] == "accepted"
    assert "red-2" not in t.intents


def test_menu_offers_the_next_symbol_with_the_default_preselected_and_a_tap_stores_it():
    t = Table()
    t.start()
    menu = t.menu("red")
    nexts = {i: m for i, m in menu.items() if m["group"] == "Timer 1: next symbol"}
    assert {"t1-next-ship", "t1-next-ship-moon-1", "t1-next-ship-moon-3", "t1-next-b6", "t1-next-b8"} <= set(
        nexts
    )
    assert "t1-next-research" not in nexts  # the research plant is empty
    assert [i for i, m in nexts.items() if m["selected"]] == ["t1-next-b1"]
    assert t.tap("red", "t1-next-ship-moon-3") is None
    assert t.menu("red")["t1-next-ship-moon-3"]["selected"]
    assert t.flip("red-1")["verdict"] == "accepted"
    assert t.timer("red", 1).symbol == "ship" and t.timer("red", 1).destination == "moon-3"
    # timer 2 cannot go onto the spaceship any more
    assert not any(i.startswith("t2-next-ship") for i in t.menu("red"))


def test_menu_shows_the_choices_of_the_pending_lift():
    t = Table()
    t.start()
    t.flip("red-1", symbol="b7")  # beam station III, 3 free spots
    t.flip("red-2", symbol="b8")  # trading center III, places 3
    menu = t.menu("red")
    beam = {i: m for i, m in menu.items() if i.startswith("t1-beam-")}
    assert set(beam) == {"t1-beam-b6-0", "t1-beam-b6-1", "t1-beam-none"}
    assert beam["t1-beam-b6-0"]["selected"] and beam["t1-beam-b6-1"]["selected"]
    assert menu["t1-beam-b6-0"]["group"] == "Timer 1: when lifted from b7 beam station III"
    assert menu["t1-forfeit"]["selected"] is False
    trade = {i: m for i, m in menu.items() if i.startswith("t2-trade-")}
    assert set(trade) == {
        "t2-trade-gray-1",
        "t2-trade-yellow-1",
        "t2-trade-blue-1",
        "t2-trade-brown-1",
        "t2-trade-none",
    }
    spaces = [i for i, m in menu.items() if i.startswith("t2-space-") and m["selected"]]
    assert spaces == ["t2-space-b1-0", "t2-space-b4-0", "t2-space-b5-0"]  # stage I buildings first
    assert "t1-lift" not in menu  # the sand is still running
    # deselect one cube: only the other one is beamed
    t.tap("red", "t1-beam-b6-0")
    assert not t.menu("red")["t1-beam-b6-0"]["selected"]
    t.run(60)
    t.empty("red-1", "red-2")
    assert "t1-lift" in t.menu("red")
    assert t.flip("red-1")["verdict"] == "accepted"
    b7 = t.game.player("red").building("b7")
    assert [c.color if c else None for c in b7.contents] == ["gray", None, None]
    # trade: only two brown counters, onto the spaces picked
    t.tap("red", "t2-trade-brown-1")
    t.tap("red", "t2-space-b6-1")
    intent = t.intents["red-2"]
    assert intent.trade == (("brown", 1),) and intent.spaces == (("b6", 1),)
    t.tap("red", "t2-trade-brown-1")
    assert t.flip("red-2")["verdict"] == "accepted"
    red = t.game.player("red")
    placed = sorted((bid, i, o.color) for bid, i, o in red.placed_orders())
    assert ("b6", 1, "brown") in placed and ("b1", 0, "brown") in placed
    assert sum(o.color == "brown" for o in red.above) == 1


def test_lifting_from_the_phone_sets_the_timer_aside():
    t = Table()
    t.start()
    t.flip("red-1", symbol="b6")
    t.run(60)
    t.empty("red-1")
    assert t.menu("red")["t1-lift"]["label"] == "Lift now (produce) and set it aside"
    t.tap("red", "t1-forfeit")
    assert t.menu("red")["t1-lift"]["label"] == "Lift now (forfeit the action) and set it aside"
    step = t.tap("red", "t1-lift")
    assert not hasattr(step, "reason")
    assert t.timer("red", 1).symbol is None
    assert t.game.supply_of("gray") == 10  # forfeited: nothing produced
    # the next flip is a placement only
    assert t.flip("red-1", symbol="b7")["verdict"] == "accepted"
    assert t.replays()


def test_phone_actions_that_break_the_rules_are_refused_with_the_reason():
    t = Table()
    t.start()
    t.flip("red-1", symbol="b6")
    step = t.act("red", Lift(1))
    assert str(step.reason) == "The sand on this timer has not run through yet"
    assert "has not run through" in said(t.session.player_snapshot("red")["refusal"])
    assert str(t.act("red", Lift(7)).rule) == "Table"
    assert str(t.act("red", LiftEveryFinished()).rule) == "End of the Game"
    assert "light mode only" in str(
        t.act("red", score_sheet({"red": {"collected": [], "bonus": [], "above": []}})).reason
    )
    # a move that is not one of the game's never reaches the rules: the phone's post is refused as it is read
    with pytest.raises(InvalidRecordError, match=r'\{"@": "Dance"\} is not one of: HandOverFirst, Lift'):
        GAME.codec.read({"@": "Dance"}, GAME.moves)


def test_a_flip_before_the_sand_ran_through_then_the_sand_still_counts():
    t = Table()
    t.start()
    t.flip("yellow-1", symbol="b6")
    t.run(30)
    assert t.flip("yellow-1", ran_out=False)["verdict"] == "rejected"
    t.run(30)
    t.empty("yellow-1")  # the node reports the sand through
    assert t.flip("yellow-1")["verdict"] == "accepted"


def test_the_planet_owner_shows_identical_orders_and_the_deliverer_picks_how_many():
    t = Table()
    t.start()
    assert t.flip("yellow-1", symbol="b7")["verdict"] == "accepted"
    assert t.flip("yellow-2", symbol="ship", destination="moon-2")["verdict"] == "accepted"
    assert t.flip("green-1", symbol="b8")["verdict"] == "accepted"
    t.run(60)
    t.empty("yellow-1", "yellow-2", "green-1")
    assert t.flip("yellow-1")["verdict"] == "accepted"  # beams yellow, yellow
    assert t.flip("yellow-2", symbol="ship", destination="planet-3")["verdict"] == "accepted"
    assert t.flip("green-1", trade=[["yellow", 1], ["yellow", 1]])["verdict"] == "accepted"
    t.run(60)
    t.empty("yellow-2")
    menu = t.menu("yellow")
    yellows = sorted(i for i, m in menu.items() if i.startswith("t2-deliver-") and "yellow 1" in m["label"])
    assert len(yellows) == 2 and all(menu[i]["selected"] for i in yellows)
    assert menu[yellows[0]]["group"] == "Timer 2: when lifted from spaceship: moon 2 \u2192 green's planet"
    t.tap("yellow", yellows[1])  # fulfil only one of the two
    assert [m["selected"] for i, m in sorted(t.menu("yellow").items()) if i in yellows] == [True, False]
    assert t.menu("yellow")["t2-lift"]["label"] == "Lift now (fulfil yellow 1) and set it aside"
    # green, the planet's owner, picks which of the identical counters goes
    menu = t.menu("green")
    assert menu["handover-yellow-1-b2-0"]["selected"] and not menu["handover-yellow-1-b3-0"]["selected"]
    assert menu["handover-yellow-1-b3-0"]["group"] == "My planet: which yellow 1 I hand over first"
    assert not hasattr(t.tap("green", "handover-yellow-1-b3-0"), "reason")
    assert t.menu("green")["handover-yellow-1-b3-0"]["selected"]
    refused = t.act("green", HandOverFirst("yellow", 1, "b4", 0))
    assert str(refused.reason) == "You show no yellow 1 order on b4 spot 1"
    assert t.flip("yellow-2")["verdict"] == "accepted"
    assert [(c.color, c.source) for c in t.game.player("yellow").collected] == [("yellow", "green")]
    left = [(bid, i) for bid, i, o in t.game.player("green").placed_orders() if o.color == "yellow"]
    assert left == [("b2", 0)]  # the one on b3 was handed over
    assert t.replays()


# --- random play -------------------------------------------------------------------------------

OPS = st.lists(
    st.tuples(
        st.sampled_from(["flip", "flip", "flip-early", "empty", "empty", "tap", "tap", "act", "wait"]),
        st.integers(0, 10**6),
    ),
    max_size=50,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["intro", "full"]), ops=OPS)
def test_random_play_through_the_session_keeps_the_rules_and_replays(variant, ops):
    t = Table(variant=variant, seed=len(ops))
    if variant == "full":
        for player in t.setup.players:
            assert not hasattr(t.tap(player, "start-place"), "reason")
    t.start()
    nodes = [s.node for s in t.setup.seats]
    for kind, r in ops:
        node = nodes[r % len(nodes)]
        player = t.player_of(node)
        if kind in ("flip", "flip-early"):
            assert t.flip(node, ran_out=kind == "flip")["verdict"] in ("accepted", "rejected")
        elif kind == "empty":
            t.empty(node)
        elif kind == "wait":
            t.run(r % 240)
        else:
            items = [m for m in t.menu(player).values() if m["intent" if kind == "tap" else "action"]]
            if items:
                result = t.tap(player, items[r % len(items)]["id"])
                if kind == "tap":
                    assert result is None, f"the menu offered an intent the referee refuses: {said(result)}"
                elif hasattr(result, "reason"):
                    assert not untranslated(result.reason) and not untranslated(result.rule)
        game = t.game
        assert sum(game.supply) + game.goods_on_board() == game.goods_total
    for player in t.setup.players:
        page = t.session.player_snapshot(player)
        assert page["view"]["panels"]
        assert not untranslated([page["view"], page["menu"]])  # every word of the phone page in es and de
    assert t.session.snapshot()["view"]["summary"]
    assert not untranslated(t.session.snapshot()["view"])  # the dashboard's tables and picture too
    assert t.replays()


# --- a short introductory game ------------------------------------------------------------------


def test_a_short_introductory_game_ends_with_the_scoring(caplog):
    caplog.set_level(logging.ERROR)
    t = Table()
    assert t.session.snapshot()["scores"] is None
    t.start()
    # minute 1: beam and fly; green trades and produces
    for node, intent in [
        ("red-1", {"symbol": "b7"}),
        ("red-2", {"symbol": "ship", "destination": "moon-3"}),
        ("yellow-1", {"symbol": "b7"}),
        ("yellow-2", {"symbol": "ship", "destination": "moon-1"}),
        ("green-1", {"symbol": "b8"}),
        ("green-2", {"symbol": "b6"}),
    ]:
        assert t.flip(node, **intent)["verdict"] == "accepted", node
    t.run(60)
    t.empty(*[s.node for s in t.setup.seats])
    assert t.flip("red-1", symbol="b8")["verdict"] == "accepted"  # beams gray, gray
    assert t.flip("red-2", symbol="ship", destination="planet-3")["verdict"] == "accepted"
    assert t.flip("yellow-1", symbol="b8")["verdict"] == "accepted"  # beams yellow, yellow
    assert t.flip("yellow-2", symbol="ship", destination="planet-1")["verdict"] == "accepted"
    assert t.flip("green-1", trade=[["yellow", 1], ["blue", 1]], spaces=[["b7", 0]])["verdict"] == "accepted"
    assert t.flip("green-2")["verdict"] == "accepted"  # produces blue
    assert t.game.player("red").building("b7").contents[0].color == "gray"
    green = t.game.player("green")
    assert (
        green.building("b7").contents[0].color == "yellow"
        and green.building("b2").contents[0].color == "blue"
    )
    # a lift too early turns the node red
    t.run(30)
    assert "has not run through" in t.flip("red-1", ran_out=False)["reason"]
    t.run(30)
    t.empty(*[s.node for s in t.setup.seats])
    # minute 2: red and yellow place all counters of one colour; the ships deliver
    assert t.flip("red-1", trade=[["gray", 1]] * 3)["verdict"] == "accepted"
    assert t.flip("yellow-1", trade=[["yellow", 1]] * 3)["verdict"] == "accepted"
    assert t.menu("red")["t2-deliver-b1-0"]["selected"]  # green's gray 1, paid from red's beam station
    assert t.flip("red-2")["verdict"] == "accepted"
    assert t.flip("yellow-2")["verdict"] == "accepted"
    red, yellow = t.game.player("red"), t.game.player("yellow")
    assert [(c.color, c.value, c.source) for c in red.collected] == [("gray", 1, "green")]
    assert [(c.color, c.value, c.source) for c in yellow.collected] == [("yellow", 1, "red")]
    orders = next(
        x for x in en(t.session.snapshot()["view"])["panels"] if x["title"] == "Orders on the control centers"
    )
    assert orders["rows"][0][0] == "red" and orders["rows"][0][3] == "gray 1 (green)"
    assert "Collected: gray 1 (green)" in en(t.session.player_snapshot("red")["view"])["panels"][2]["lines"]
    assert t.timer("red", 2).symbol == "ship" and t.game.player("red").ship == "planet-3"
    t.run(60)
    t.empty("red-1", "yellow-1", "red-2", "yellow-2", "green-1", "green-2")
    # near the end: two timers start again, then the master clock runs out
    t.run(700 - t.clock.now_s())
    assert t.flip("red-1", forfeit=True)["verdict"] == "accepted"
    assert t.flip("yellow-1", forfeit=True)["verdict"] == "accepted"
    t.run(720 - t.clock.now_s())
    assert t.game.phase == "ending"
    # flipping a finished timer now lifts it (here forfeiting its action) but places nothing ("End of the Game")
    assert t.flip("green-1", forfeit=True)["verdict"] == "accepted"
    assert t.timer("green", 1).symbol is None
    assert t.session.snapshot()["scores"] is None
    assert "finish" in t.menu("green")
    t.run(40)
    t.empty("red-1", "yellow-1")  # the running timers finish
    # red lifts one timer from the phone (forfeiting), then green lifts all the rest
    t.tap("red", "t1-forfeit")
    assert not hasattr(t.tap("red", "t1-lift"), "reason")
    assert not hasattr(t.tap("green", "finish"), "reason")
    assert t.game.phase == "over"
    scores = t.session.snapshot()["scores"]
    assert scores == final_scores(t.game)
    assert scores["players"]["red"]["total"] == 1 and scores["players"]["yellow"]["total"] == 1
    assert scores["players"]["red"]["rows"]["gray"] == {
        "value": 1,
        "players": 1,
        "bonus": 0,
        "points": 1,
        "void": False,
    }
    assert scores["players"]["yellow"]["rows"]["yellow"]["points"] == 1
    assert scores["players"]["green"]["total"] == 0
    assert scores["winners"] == ["red", "yellow"]  # same points, same number of counters: shared
    assert t.replays()
    assert not [r for r in caplog.records if "does not give the referee's state" in r.getMessage()]


def test_views_show_the_table_and_my_counters():
    t = Table()
    t.start()
    t.flip("red-2", symbol="ship", destination="moon-1")
    view = en(t.session.snapshot()["view"])
    assert view["summary"].startswith("Time 'n' Space, introductory game: running")
    titles = [panel["title"] for panel in view["panels"]]
    assert titles[:4] == ["Players", "Goods supply", "Board", "Orders on the control centers"]
    assert "red's control center" in titles and "green's control center" in titles
    board = next(panel for panel in view["panels"] if panel["title"] == "Board")
    assert "red's ship flies red's planet \u2192 moon 1 (timer 2)" in board["lines"]
    mine = en(t.session.player_snapshot("red")["view"])
    assert [panel["title"] for panel in mine["panels"]] == [
        "My sandtimers",
        "My control center",
        "My counters",
    ]
    assert "Timer 2: on spaceship: red's planet \u2192 moon 1 (sand running)" in mine["panels"][0]["lines"]
    center = mine["panels"][1]["rows"]
    assert ["b6", "production plant", "III", "gray cube, gray cube, free (gray)", ""] in center


# --- the full game ------------------------------------------------------------------------------


def test_full_game_needs_starting_orders_then_moons_feed_the_research_plant():
    t = Table(variant="full", seed=3)
    refused = t.sim.start().refusal
    assert "red, yellow and green still must place 2 starting orders" in str(refused.reason)
    menu = t.menu("red")
    assert menu["start-place"]["action"]["@"] == "StartingOrders"
    t.tap("red", "start-pick-brown-3")  # replaces the older of the two preselected counters
    assert not hasattr(t.tap("red", "start-place"), "reason")
    assert t.game.player("red").ready
    orders = StartingOrders((OrderPlacement("gray", 1, "b1", 0), OrderPlacement("blue", 2, "b5", 0)))
    for player in ("yellow", "green"):
        assert not hasattr(t.act(player, orders), "reason")
    # an entry may be corrected until the clock starts: the phone keeps the pick preselected
    menu = t.menu("green")
    assert menu["start-pick-gray-1"]["selected"] and menu["start-pick-blue-2"]["selected"]
    assert menu["start-space-b1-0"]["selected"] and menu["start-space-b5-0"]["selected"]
    t.tap("green", "start-pick-yellow-3")  # replaces the older of the two
    assert not hasattr(t.tap("green", "start-place"), "reason")
    green = sorted((bid, o.color, o.value) for bid, _, o in t.game.player("green").placed_orders())
    assert green == [("b1", "blue", 2), ("b5", "yellow", 3)]
    t.start()
    t.flip("red-1", symbol="ship", destination="moon-1")
    t.run(60)
    t.empty("red-1")
    menu = t.menu("red")
    assert menu["t1-moon-research"]["selected"] and not menu["t1-moon-bottom"]["selected"]
    assert "t1-moon-skip" not in menu  # more than one tile lies at the moon
    assert t.flip("red-1", symbol="research")["verdict"] == "accepted"
    tile = t.game.player("red").research
    assert tile is not None and t.timer("red", 1).symbol == "research"
    t.run(60)
    t.empty("red-1")
    target = next(i for i, m in t.menu("red").items() if i.startswith("t1-build-") and m["selected"])
    assert t.flip("red-1", symbol="ship")["verdict"] == "accepted"
    built = t.game.player("red").building(target.removeprefix("t1-build-"))
    assert built.stage == 2 and built.tile == tile and t.game.player("red").research is None
    assert t.replays()


# --- light mode ---------------------------------------------------------------------------------

SHEET = {
    "red": {
        "collected": [
            {"color": "gray", "value": 2, "from": "yellow"},
            {"color": "gray", "value": 1, "from": "green"},
        ],
        "bonus": [2],
        "above": [],
    },
    "yellow": {
        "collected": [{"color": "blue", "value": 3, "from": "red"}],
        "bonus": [],
        "above": [{"color": "blue", "value": 1}],
    },
    "green": {"collected": [{"color": "brown", "value": 1, "from": "red"}], "bonus": [], "above": []},
}


def test_light_mode_tracks_timers_and_clock_and_scores_the_entered_sheet():
    t = Table(variant="light")
    assert "may not be flipped before the game starts" in t.flip("red-1")["reason"]
    t.start()
    assert t.flip("red-1")["verdict"] == "accepted"
    t.run(20)
    assert en(t.flip("red-1", ran_out=False)["reason"]).startswith(
        "The sand on this timer has not run through yet"
    )
    t.run(700)
    assert t.game.phase == "ending"  # red-1 still runs (its empty report is pending)
    t.empty("red-1")
    assert t.game.phase == "over"
    assert t.session.snapshot()["scores"] is None
    assert t.menu("red") == {}
    # red enters their own counters first: nothing to score until everybody has
    step = t.act("red", score_sheet({"red": SHEET["red"]}))
    assert not hasattr(step, "reason")
    assert t.session.snapshot()["scores"] is None
    assert "waiting for: yellow and green" in en(t.session.snapshot()["view"])["panels"][1]["lines"]
    bad = {"green": {"collected": [{"color": "pink", "value": 1, "from": "red"}], "bonus": [], "above": []}}
    refused = t.act("green", score_sheet(bad))
    assert "unknown color 'pink'" in str(refused.reason) and str(refused.rule) == "Final Scoring"
    stranger = t.act("green", score_sheet({"purple": {}}))
    assert "'purple' does not play at this table" in str(stranger.reason)
    rest = {"yellow": SHEET["yellow"], "green": SHEET["green"]}
    assert not hasattr(t.act("green", score_sheet(rest)), "reason")
    scores = t.session.snapshot()["scores"]
    assert scores == score_record({"players": SHEET})
    assert scores["players"]["red"]["total"] == 10  # (2 + 1 + bonus 2) x 2 players
    assert scores["winners"] == ["red"]
    mine = en(t.session.player_snapshot("red")["view"])
    assert "Bonus counters: 2" in mine["panels"][1]["lines"]
    assert t.replays()


def test_light_mode_refuses_game_actions():
    t = Table(variant="light")
    t.start()
    assert "light mode" in str(t.act("red", Lift(1)).reason)


# --- restart ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["full", "light"])
def test_a_hub_restart_rebuilds_the_game_from_the_log_on_disk(tmp_path, variant):
    path = tmp_path / "game.jsonl"
    t = Table(variant=variant, seed=5, path=path)
    if variant == "full":
        for player in t.setup.players:
            t.tap(player, "start-place")
    t.start()
    if variant == "light":  # a sandtimer takes no choices in light mode
        t.flip("red-1")
    else:
        t.flip("red-1", symbol="ship", destination="moon-1")
    t.flip("green-2")
    t.run(60)
    t.empty("red-1", "green-2")
    t.flip("red-1")
    if variant == "light":
        t.act("red", score_sheet({"red": SHEET["red"]}))
    t.session.log.close()
    saved = read_log(path)
    resumed = TableSession(saved.setup, clock=t.clock, log=EventLog.open_existing(path, fsync=False))
    assert resumed.state == t.session.state
    assert resumed.snapshot()["view"] == t.session.snapshot()["view"]


def test_undo_takes_back_a_whole_flip():
    t = Table()
    t.start()
    t.flip("red-1", symbol="b6")
    t.run(60)
    t.empty("red-1")
    assert t.flip("red-1", symbol="b7")["verdict"] == "accepted"  # lift (produce) and place: one step
    assert t.game.player("red").building("b6").contents[2] is not None
    assert str(t.undo_preview()).startswith("red lifted timer 1 from b6")
    assert t.undo() is None
    assert t.timer("red", 1).symbol == "b6" and not t.timer("red", 1).running
    assert t.game.player("red").building("b6").contents[2] is None
    assert t.replays()


# --- setup -----------------------------------------------------------------------------------------


def test_the_hub_finds_the_referee_and_checks_the_setup():
    assert isinstance(referee_for(default_setup("x", players=4, game="time-n-space")), TimeNSpaceReferee)
    with pytest.raises(ConfigError, match="3 or 4 players, not 2"):
        referee_for(default_setup("x", players=2, game="time-n-space"))
    with pytest.raises(ConfigError, match="no variant 'expert'"):
        referee_for(default_setup("x", players=3, game="time-n-space", variant="expert"))
    with pytest.raises(ConfigError, match="only 2 sandtimers"):
        referee_for(default_setup("x", players=3, timers=3, game="time-n-space"))
