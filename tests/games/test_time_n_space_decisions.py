"""Time 'n' Space referees decide once: each engine action applied one time, its events kept as facts.

Also: light mode is its own referee registered on its variant, the component data reaches
engine and referee from ``GAME.data`` only, and ships arriving together at a planet are
lifted as one action in the order the planet's owner decides ("1. Your spaceship").
"""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from companion.games import referee_for
from companion.games.time_n_space import GAME, components, engine
from companion.games.time_n_space import model as A
from companion.games.time_n_space.components import ComponentDataError, load_components
from companion.games.time_n_space.light import LightReferee
from companion.games.time_n_space.referee import TimeNSpaceReferee
from companion.rules.outcome import Decision
from companion.rules.referee import Referee
from companion.rules.setup import default_setup
from companion.table import events as ev
from tests.conftest import replays

from .test_time_n_space_helpers import Table, intent, score_sheet
from .test_time_n_space_table import SHEET


@pytest.fixture
def engine_calls(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every action the engine's ``apply`` is called with, by any module of the game (``is_legal`` too)."""
    calls: list[object] = []
    real = engine.apply

    def counting(state, action):
        calls.append(action)
        return real(state, action)

    for name, module in list(sys.modules.items()):
        if name.startswith("companion.games.time_n_space") and getattr(module, "apply", None) is real:
            monkeypatch.setattr(module, "apply", counting)
    return calls


def fact_names(decision: Decision) -> list[str]:
    return [type(f).__name__ for f in decision.facts]


def last_step(t: Table) -> ev.GameStepped:
    return [e for e in t.session.log.events() if isinstance(e, ev.GameStepped)][-1]


# --- each engine action once -------------------------------------------------------------------------


def test_a_lift_and_place_flip_applies_each_action_once(engine_calls):
    t = Table()
    t.start()
    assert t.flip("red-1", symbol="b6")["verdict"] == "accepted"
    t.run(60)  # no empty report: the flip itself says the sand ran through
    engine_calls.clear()
    assert t.flip("red-1")["verdict"] == "accepted"  # default choice and default placement
    step = last_step(t)
    assert [type(a) for a in engine_calls] == [A.SandRanOut, A.LiftTimer, A.PlaceTimer]
    assert len(engine_calls) == len(step.actions) == 3
    assert [type(f).__name__ for f in step.facts] == [
        "SandRanThrough",
        "TimerLifted",
        "GoodsProduced",
        "TimerPlaced",
    ]
    assert step.facts[-1] == A.TimerPlaced("red", 0, "b6", None)


def test_the_referee_returns_the_engines_events_as_facts(engine_calls):
    t = Table()
    t.start()
    t.flip("red-1", symbol="b7")
    t.run(60)
    t.empty("red-1")
    referee, state = t.session.referee, t.game
    engine_calls.clear()
    decision = referee.timer_flipped(
        state,
        t.session.state.context,
        t.setup.seat_of("red-1"),
        intent=intent(symbol="ship", destination="moon-1"),
        ran_out=True,
    )
    assert isinstance(decision, Decision)
    assert len(engine_calls) == len(decision.actions) == 2
    assert [type(a) for a in decision.actions] == [A.LiftTimer, A.PlaceTimer]
    assert fact_names(decision) == ["TimerLifted", "GoodsBeamed", "TimerPlaced"]
    after = engine.replay(state, list(engine_calls))  # the same actions again, outside the decision
    assert decision.state == after


def test_a_phone_lift_applies_one_action(engine_calls):
    t = Table()
    t.start()
    t.flip("red-1", symbol="b6")
    t.run(60)
    t.empty("red-1")
    lift = GAME.codec.read(t.menu("red")["t1-lift"]["action"], GAME.moves)  # the menu previews the tap
    engine_calls.clear()
    decision = t.act("red", lift)
    assert isinstance(decision, Decision)
    assert [type(a) for a in engine_calls] == [A.LiftTimer]
    assert len(decision.actions) == 1
    assert fact_names(decision) == ["TimerLifted", "GoodsProduced"]
    assert decision.facts == last_step(t).facts


def test_finish_applies_each_lift_once(engine_calls):
    t = Table()
    t.start()
    for node, symbol in [("red-1", "b6"), ("yellow-1", "b7"), ("green-2", "b8")]:
        assert t.flip(node, symbol=symbol)["verdict"] == "accepted"
    t.run(60)
    t.empty("red-1", "yellow-1", "green-2")
    t.run(720 - t.clock.now_s())
    assert t.game.phase == "ending"
    finish = GAME.codec.read(t.menu("green")["finish"]["action"], GAME.moves)
    engine_calls.clear()
    decision = t.act("green", finish)
    assert isinstance(decision, Decision)
    assert [type(a) for a in engine_calls] == [A.LiftTimer] * 3
    assert len(engine_calls) == len(decision.actions) == 3
    assert [type(f).__name__ for f in decision.facts].count("TimerLifted") == 3
    assert type(decision.facts[-1]) is A.GameEnded and t.game.phase == "over"


# --- light mode has its own referee ----------------------------------------------------------------


def test_light_mode_is_its_own_referee_registered_on_its_variant():
    assert GAME.variant("light").referee is LightReferee
    assert GAME.referee is TimeNSpaceReferee
    for variant, cls in [("", TimeNSpaceReferee), ("intro", TimeNSpaceReferee), ("full", TimeNSpaceReferee)]:
        referee = referee_for(default_setup("x", players=3, game="time-n-space", variant=variant))
        assert type(referee) is cls and not hasattr(referee, "light")
    light = referee_for(default_setup("x", players=3, game="time-n-space", variant="light"))
    assert type(light) is LightReferee and isinstance(light, Referee) and not hasattr(light, "light")


def test_light_mode_logs_its_own_facts():
    t = Table(variant="light")
    t.start()
    t.flip("red-1")
    t.run(720)
    t.empty("red-1")
    t.act("red", score_sheet({"red": SHEET["red"]}))
    facts = [
        type(f).__name__ for e in t.session.log.events() if isinstance(e, ev.GameStepped) for f in e.facts
    ]
    assert facts == [
        "GameStarted",
        "TimerStarted",
        "ClockRanOut",
        "SandRanThrough",
        "GameEnded",
        "ScoreSheetEntered",
    ]
    assert replays(t.session)


# --- the component data --------------------------------------------------------------------------------


def test_the_referee_gets_the_games_data_and_hands_it_to_the_engine():
    setup = replace(default_setup("x", players=3, game="time-n-space", variant="full", seed=4), deck="hub")
    assert GAME.make_referee(setup).components is GAME.data
    box = replace(GAME.data, bonus_values=(3, 3, 1, 1))
    game = TimeNSpaceReferee(setup, box).start(setup)
    assert game.planet_bonus == (3, 3, 1)


def test_nothing_reads_the_data_file_once_the_game_has_its_data(monkeypatch):
    assert GAME.data is not None  # read once, before

    def no_reading(*args, **kwargs):
        raise AssertionError("the component data was read again")

    monkeypatch.setattr(components, "shipped_text", no_reading)
    monkeypatch.setattr(components, "read_text", no_reading)
    assert not hasattr(components, "default_components")
    for variant in ("intro", "full", "light"):
        t = Table(variant=variant)
        if variant == "full":
            for player in t.setup.players:
                t.tap(player, "start-place")
        t.start()
        assert t.flip("red-1")["verdict"] == "accepted"


def test_a_users_components_file_that_is_not_text_gives_one_sentence(tmp_path):
    path = tmp_path / "box.json"
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ComponentDataError) as info:
        load_components(path)
    assert str(info.value) == f"components file {path} is not UTF-8 text"


# --- ships arriving together ---------------------------------------------------------------------------


def arriving_together(path=None) -> Table:
    """Red's and yellow's ships stand finished on green's planet; both could pay green's gray 1."""
    t = Table(path=path)
    t.start()
    for node, choices in [
        ("red-1", {"symbol": "b7"}),
        ("red-2", {"symbol": "ship", "destination": "moon-3"}),
        ("yellow-1", {"symbol": "b1"}),
        ("yellow-2", {"symbol": "ship", "destination": "moon-2"}),
    ]:
        assert t.flip(node, **choices)["verdict"] == "accepted", node
    t.run(60)
    t.empty("red-1", "red-2", "yellow-1", "yellow-2")
    for node, choices in [
        ("red-1", {"symbol": "b8"}),  # red beams gray, gray
        ("red-2", {"symbol": "ship", "destination": "planet-3"}),
        ("yellow-1", {"symbol": "b7"}),  # yellow produces gray
        ("yellow-2", {"symbol": "ship", "destination": "planet-3"}),
    ]:
        assert t.flip(node, **choices)["verdict"] == "accepted", node
    t.run(60)
    t.empty("red-1", "red-2", "yellow-1", "yellow-2")
    assert t.flip("yellow-1", symbol="b8")["verdict"] == "accepted"  # yellow beams its gray too
    return t


def test_the_planet_owner_is_offered_the_order_of_ships_arriving_together():
    t = arriving_together()
    menu = t.menu("green")
    together = {i: m for i, m in menu.items() if i.startswith("together-")}
    assert set(together) == {"together-red-yellow", "together-yellow-red"}
    item = together["together-yellow-red"]
    assert item["group"] == "My planet: ships arriving together"
    assert item["label"] == (
        "Lift the ships of yellow and red together: yellow first (fulfil gray 1), then red (fulfil nothing)"
    )
    assert GAME.codec.read(item["action"], GAME.moves) == A.LiftShipsTogether(
        (A.Ship("yellow", 2), A.Ship("red", 2))
    )
    assert not any(i.startswith("together-") for i in t.menu("red"))  # the owner decides
    assert not any(i.startswith("together-") for i in t.menu("yellow"))


def test_ships_arriving_together_are_lifted_as_one_step_in_the_owners_order(engine_calls):
    t = arriving_together()
    before = t.session.state.game
    steps = len([e for e in t.session.log.events() if isinstance(e, ev.GameStepped)])
    together = GAME.codec.read(t.menu("green")["together-yellow-red"]["action"], GAME.moves)
    engine_calls.clear()
    decision = t.act("green", together)
    assert isinstance(decision, Decision)
    assert [type(a) for a in engine_calls] == [A.LiftTogether]
    assert [type(a) for a in decision.actions] == [A.LiftTogether]
    assert len([e for e in t.session.log.events() if isinstance(e, ev.GameStepped)]) == steps + 1
    lifted = [(f.player, f.timer) for f in decision.facts if isinstance(f, A.TimerLifted)]
    assert lifted == [("yellow", 1), ("red", 1)]
    assert [f for f in decision.facts if isinstance(f, A.OrderFulfilled)] == [
        A.OrderFulfilled("yellow", "green", "gray", 1, ("b1", 0))
    ]
    assert A.ActionForfeited("red", "ship") in decision.facts  # nothing left for red
    assert str(last_step(t).note).startswith(
        "green let the ships at their planet go in this order: yellow, then red"
    )
    assert t.timer("red", 2).symbol is None and t.timer("yellow", 2).symbol is None
    assert [(c.color, c.source) for c in t.game.player("yellow").collected] == [("gray", "green")]
    assert t.game.player("red").collected == ()
    assert not any(i.startswith("together-") for i in t.menu("green"))
    assert replays(t.session)
    # an undo takes back the whole group
    assert str(t.undo_preview()).startswith("green let the ships")
    assert t.undo() is None
    assert t.session.state.game == before
    assert t.timer("red", 2).symbol == "ship" and t.timer("yellow", 2).symbol == "ship"
    assert replays(t.session)


def test_the_other_order_gives_the_order_to_the_other_ship():
    t = arriving_together()
    decision = t.tap("green", "together-red-yellow")
    assert [f.player for f in decision.facts if isinstance(f, A.OrderFulfilled)] == ["red"]
    assert [(f.player, f.timer) for f in decision.facts if isinstance(f, A.TimerLifted)] == [
        ("red", 1),
        ("yellow", 1),
    ]


def test_lifting_together_is_refused_with_the_rule():
    t = arriving_together()
    lifts = (A.Ship("yellow", 2), A.Ship("red", 2))
    refused = t.act("red", A.LiftShipsTogether(lifts))
    assert str(refused.rule) == "1. Your spaceship" and "arriving at red's planet" in str(refused.reason)
    one = t.act("green", A.LiftShipsTogether(lifts[:1]))
    assert str(one.rule) == "1. Your spaceship" and "two or more ships" in str(one.reason)
    bad = t.act("green", A.LiftShipsTogether((A.Ship("red", 3),) * 2))
    assert "timer 1 to 2" in str(bad.reason)
    running = (A.Ship("yellow", 1), A.Ship("red", 2))  # yellow 1 is on b8
    assert "arriving at green's planet" in str(t.act("green", A.LiftShipsTogether(running)).reason)
