"""Rules engine of Time 'n' Space: setups, every sandtimer rule and action, end of game."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from companion.errors import InvalidRecordError
from companion.games.time_n_space import model as ev
from companion.games.time_n_space.engine import apply, is_over, legal_placements, replay
from companion.games.time_n_space.hubdeck import shuffled
from companion.games.time_n_space.model import (
    Beam,
    Build,
    Cube,
    Deliver,
    Delivery,
    LiftTimer,
    LiftTogether,
    MasterClockExpired,
    MoonTile,
    Order,
    OrderPlacement,
    ParkTimer,
    PlaceStartingOrders,
    PlaceTimer,
    Produce,
    SandRanOut,
    StartGame,
    Trade,
    Upgrade,
)
from companion.games.time_n_space.scoring import final_scores, score_record, scoring_record
from companion.games.time_n_space.setup import SetupError, setup_full, setup_intro
from companion.rules.outcome import Accepted, Rejected

from .test_time_n_space_helpers import (
    BOX,
    NAMES,
    finished,
    full,
    full_setup,
    intro,
    move_ship,
    ok,
    set_spots,
    untranslated,
)

GENERAL = "General rules for placing and using the sandtimers"
SPACESHIP = "1. Your spaceship"

# --- setups ---------------------------------------------------------------------------


def test_intro_setup_gives_12_value_one_counters_and_no_tiles_or_bonus() -> None:
    state = setup_intro(NAMES[:3], components=BOX)
    assert state.phase == "setup" and state.variant == "intro"
    for p in state.players:
        counters = list(p.above) + [o for _, _, o in p.placed_orders()]
        assert len(counters) == 12
        assert {o.value for o in counters} == {1}
        assert len(p.placed_orders()) == 2
        assert p.cubes() == 2
        assert sorted(b.stage for b in p.buildings).count(3) == 3
        assert p.ship == p.planet
        assert all(t.symbol is None for t in p.timers) and len(p.timers) == 2
    assert state.piles == ((), (), ())
    assert state.planet_bonus == (None, None, None)
    assert sum(state.supply) + state.goods_on_board() == 48


def test_full_setup_piles_bonus_counters_and_24_counters() -> None:
    for n, height in ((3, 8), (4, 6)):
        state = full_setup(n, seed=42)
        assert [len(p) for p in state.piles] == [height] * n
        assert len({t for pile in state.piles for t in pile}) == 24
        assert sorted(state.unseen.items()) == sorted(t for pile in state.piles for t in pile)
        assert state.planet_bonus == (2,) * n
        assert all(len(p.above) == 24 and not p.placed_orders() for p in state.players)
        assert state.supply == (12, 12, 12, 12)
        assert len(state.moons) == n


def test_full_setup_is_seeded() -> None:
    assert full_setup(3, seed=5) == full_setup(3, seed=5)
    assert full_setup(3, seed=5).piles != full_setup(3, seed=6).piles
    assert sorted(shuffled(range(10), 3)) == list(range(10))


@pytest.mark.parametrize("players", [("a", "b"), ("a", "b", "c", "d", "e"), ("a", "a", "b"), ("a", "", "b")])
def test_setup_refuses_bad_tables(players: tuple[str, ...]) -> None:
    with pytest.raises(SetupError):
        setup_intro(players, components=BOX)
    with pytest.raises(SetupError):
        setup_full(players, seed=1, components=BOX)


def test_board_sides_have_wormholes_between_planets_and_moons() -> None:
    state = intro(4)
    assert state.neighbours("planet-1") == ["moon-1", "moon-4"]
    assert state.neighbours("moon-2") == ["planet-2", "planet-3"]


# --- state factories for the rule tables ------------------------------------------------


def at_green() -> Any:
    """Red's spaceship has arrived (sand through) at Green's planet with blue+brown cubes beamed."""
    state = move_ship(intro(), "red", "moon-1")
    state = set_spots(state, "red", "b7", (Cube("blue"), Cube("brown"), None))
    return finished(state, "red", 0, "ship", "planet-2")


def at_home() -> Any:
    return finished(intro(), "red", 0, "ship")


def intro_moon() -> Any:
    return finished(intro(), "red", 0, "ship", "moon-1")


def full_moon() -> Any:
    return finished(full(), "red", 0, "ship", "moon-1")


def full_moon_research_busy() -> Any:
    state = full()
    red = state.player("red")
    assert red is not None
    state = state.with_player(replace(red, research=state.top("moon-3")))
    return finished(state, "red", 0, "ship", "moon-1")


def full_moon_empty() -> Any:
    state = full()
    return finished(replace(state, piles=((),) + state.piles[1:]), "red", 0, "ship", "moon-1")


def full_moon_last_tile() -> Any:
    state = full()
    return finished(replace(state, piles=(state.piles[0][:1],) + state.piles[1:]), "red", 0, "ship", "moon-1")


def with_research_tile(state: Any) -> Any:
    """Give red the top tile of moon-1 in the research plant by playing the moon action."""
    state = finished(state, "red", 0, "ship", "moon-1")
    state = ok(state, LiftTimer("red", 0, MoonTile(True)))
    return state


def research_ready() -> Any:
    return finished(with_research_tile(full()), "red", 0, "research")


def stage_two(kind: str = "beam") -> Any:
    """Red has built a stage II tile of ``kind`` over b4 (full game, seed chosen so moon-1 is on top)."""
    for seed in range(200):
        state = full(seed=seed)
        top = state.top("moon-1")
        if top is not None and top.stage2.type == kind:
            state = ok(research_ready_from(state), LiftTimer("red", 1, Build("b4")))
            return state
    raise AssertionError("no seed puts that tile on top")


def research_ready_from(state: Any) -> Any:
    return finished(with_research_tile(state), "red", 1, "research")


def clock_out_with_running_timer() -> Any:
    return ok(intro(), PlaceTimer("red", 0, "b6"), MasterClockExpired())


def production_done(symbol: str = "b6") -> Any:
    return finished(intro(), "red", 0, symbol)


def beam_done(symbol: str = "b5") -> Any:
    return finished(intro(), "red", 0, symbol)


def trade_done() -> Any:
    return finished(intro(), "red", 0, "b8")


ILLEGAL: list[tuple[str, Callable[[], Any], Any, str, str]] = [
    # general sandtimer rules
    (
        "flip-before-start",
        lambda: setup_intro(NAMES[:3], components=BOX),
        PlaceTimer("red", 0, "b6"),
        "before the game starts",
        "Setup for the Introductory Game",
    ),
    (
        "place-after-clock",
        clock_out_with_running_timer,
        PlaceTimer("red", 1, "b1"),
        "no one may place another sandtimer",
        "End of the Game",
    ),
    ("start-without-symbol", intro, PlaceTimer("red", 0, None), "never start a sandtimer unless", GENERAL),
    ("other-players-symbol", intro, PlaceTimer("red", 0, "green:ship"), "never on another player's", GENERAL),
    ("other-players-building", intro, PlaceTimer("red", 0, "green:b6"), "never on another player's", GENERAL),
    ("unknown-symbol", intro, PlaceTimer("red", 0, "b9"), "no time symbol 'b9'", GENERAL),
    (
        "symbol-occupied",
        lambda: ok(intro(), PlaceTimer("red", 0, "b6")),
        PlaceTimer("red", 1, "b6"),
        "one sandtimer at a time",
        GENERAL,
    ),
    (
        "timer-still-running",
        lambda: ok(intro(), PlaceTimer("red", 0, "b6")),
        PlaceTimer("red", 0, "b1"),
        "still running",
        GENERAL,
    ),
    ("timer-still-standing", production_done, PlaceTimer("red", 0, "b1"), "lift it first", GENERAL),
    (
        "research-empty",
        intro,
        PlaceTimer("red", 0, "research"),
        "research plant is empty",
        "5. Research plant",
    ),
    ("not-adjacent", intro, PlaceTimer("red", 0, "ship", "planet-2"), "not one wormhole away", SPACESHIP),
    (
        "destination-off-ship",
        intro,
        PlaceTimer("red", 0, "b6", "moon-1"),
        "Only a sandtimer on your spaceship",
        SPACESHIP,
    ),
    ("unknown-player", intro, PlaceTimer("blue", 0, "ship"), "no player 'blue'", "Playing the Game"),
    ("unknown-timer", intro, PlaceTimer("red", 2, "ship"), "no sandtimer 2", "Playing the Game"),
    (
        "lift-too-early",
        lambda: ok(intro(), PlaceTimer("red", 0, "b6")),
        LiftTimer("red", 0, Produce()),
        "has not run through yet",
        GENERAL,
    ),
    ("lift-parked", intro, LiftTimer("red", 0), "not standing on a time symbol", GENERAL),
    ("sand-not-running", intro, SandRanOut("red", 0), "not running", GENERAL),
    (
        "park-running",
        lambda: ok(intro(), PlaceTimer("red", 0, "b6")),
        ParkTimer("red", 0),
        "has not run through yet",
        GENERAL,
    ),
    # spaceship
    (
        "own-planet",
        at_home,
        LiftTimer("red", 0, Deliver(())),
        "Nothing happens at your own planet",
        SPACESHIP,
    ),
    ("planet-wrong-choice", at_green, LiftTimer("red", 0, Produce()), "only fulfil orders", SPACESHIP),
    (
        "no-such-order",
        at_green,
        LiftTimer("red", 0, Deliver((Delivery("gray", 1),))),
        "green shows no gray 1 order",
        SPACESHIP,
    ),
    (
        "order-already-taken",
        at_green,
        LiftTimer("red", 0, Deliver((Delivery("blue", 1), Delivery("brown", 1), Delivery("blue", 1)))),
        "shows no blue 1 order",
        SPACESHIP,
    ),
    (
        "goods-not-beamed",
        lambda: finished(move_ship(intro(), "red", "moon-1"), "red", 0, "ship", "planet-2"),
        LiftTimer("red", 0, Deliver((Delivery("blue", 1),))),
        "You need 1 blue goods in your beam stations",
        SPACESHIP,
    ),
    (
        "cubes-from-production",
        at_green,
        LiftTimer("red", 0, Deliver((Delivery("blue", 1, cubes=(("b6", 0),)),))),
        "only deliver blue goods from your own beam stations",
        SPACESHIP,
    ),
    (
        "wrong-cube-count",
        at_green,
        LiftTimer("red", 0, Deliver((Delivery("blue", 1, cubes=(("b7", 0), ("b7", 1))),))),
        "exactly 1 different blue cubes",
        SPACESHIP,
    ),
    (
        "owner-pick-wrong-space",
        at_green,
        LiftTimer("red", 0, Deliver((Delivery("blue", 1, space=("b4", 0)),))),
        "no blue 1 order on b4 spot 0",
        SPACESHIP,
    ),
    (
        "intro-moon-action",
        intro_moon,
        LiftTimer("red", 0, MoonTile(True)),
        "nothing to do at a moon",
        SPACESHIP,
    ),
    (
        "moon-forfeit-with-tiles",
        full_moon,
        LiftTimer("red", 0),
        "only skip this when one or no tile",
        SPACESHIP,
    ),
    ("moon-park-with-tiles", full_moon, ParkTimer("red", 0), "only skip this when one or no tile", SPACESHIP),
    (
        "moon-research-busy",
        full_moon_research_busy,
        LiftTimer("red", 0, MoonTile(True)),
        "research plant is occupied",
        SPACESHIP,
    ),
    ("moon-empty", full_moon_empty, LiftTimer("red", 0, MoonTile(False)), "no building tile left", SPACESHIP),
    ("moon-wrong-choice", full_moon, LiftTimer("red", 0, Deliver(())), "only take the top tile", SPACESHIP),
    # production plant
    ("produce-on-beam", beam_done, LiftTimer("red", 0, Produce()), "is a beam station", "3. Beam station"),
    (
        "produce-occupied-spot",
        production_done,
        LiftTimer("red", 0, Produce((0,))),
        "not a free spot",
        "2. Production plant",
    ),
    (
        "produce-same-spot-twice",
        production_done,
        LiftTimer("red", 0, Produce((2, 2))),
        "at most one cube",
        "2. Production plant",
    ),
    # beam station
    (
        "beam-too-many",
        beam_done,
        LiftTimer("red", 0, Beam((("b6", 0), ("b6", 1)))),
        "has only 1 free spot",
        "3. Beam station",
    ),
    (
        "beam-from-beam",
        lambda: beam_done("b7"),
        LiftTimer("red", 0, Beam((("b5", 0),))),
        "only beam goods from your production plants",
        "3. Beam station",
    ),
    (
        "beam-empty-spot",
        beam_done,
        LiftTimer("red", 0, Beam((("b1", 0),))),
        "no goods cube on production plant b1",
        "3. Beam station",
    ),
    (
        "beam-same-cube-twice",
        lambda: beam_done("b7"),
        LiftTimer("red", 0, Beam((("b6", 0), ("b6", 0)))),
        "only once",
        "3. Beam station",
    ),
    # trading center
    (
        "trade-wrong-choice",
        trade_done,
        LiftTimer("red", 0, Produce()),
        "its action is to place orders",
        "4. Trading center",
    ),
    (
        "trade-too-many",
        trade_done,
        LiftTimer("red", 0, Trade(tuple(OrderPlacement("gray", 1, b, 0) for b in ("b1", "b4", "b5", "b7")))),
        "at most 3 orders",
        "4. Trading center",
    ),
    (
        "trade-onto-trading",
        trade_done,
        LiftTimer("red", 0, Trade((OrderPlacement("gray", 1, "b8", 0),))),
        "never place order counters on trading centers",
        "4. Trading center",
    ),
    (
        "trade-not-above",
        trade_done,
        LiftTimer("red", 0, Trade((OrderPlacement("gray", 3, "b1", 0),))),
        "no gray 3 order counter left above",
        "4. Trading center",
    ),
    (
        "trade-occupied",
        trade_done,
        LiftTimer("red", 0, Trade((OrderPlacement("gray", 1, "b2", 0),))),
        "is occupied",
        "4. Trading center",
    ),
    (
        "trade-same-spot",
        trade_done,
        LiftTimer("red", 0, Trade((OrderPlacement("gray", 1, "b1", 0), OrderPlacement("gray", 1, "b1", 0)))),
        "is occupied",
        "4. Trading center",
    ),
    (
        "trade-bad-colour",
        trade_done,
        LiftTimer("red", 0, Trade((OrderPlacement("pink", 1, "b1", 0),))),
        "not an order colour",
        "4. Trading center",
    ),
    # research plant and upgrading
    (
        "build-unknown-building",
        research_ready,
        LiftTimer("red", 0, Build("b9")),
        "no building 'b9'",
        "5. Research plant",
    ),
    (
        "build-over-occupied",
        research_ready,
        LiftTimer("red", 0, Build("b1")),
        "occupied by goods or orders",
        "5. Research plant",
    ),
    (
        "build-under-a-timer",
        lambda: ok(research_ready(), PlaceTimer("red", 1, "b4")),
        LiftTimer("red", 0, Build("b4")),
        "sandtimer stands on building b4",
        "5. Research plant",
    ),
    (
        "build-over-stage-two",
        lambda: finished(with_research_tile(stage_two()), "red", 0, "research"),
        LiftTimer("red", 0, Build("b4")),
        "never build over a stage II or stage III",
        "5. Research plant",
    ),
    (
        "research-upgrade",
        research_ready,
        LiftTimer("red", 0, Upgrade()),
        "not the research plant",
        "Upgrading stage II buildings",
    ),
    (
        "research-wrong-choice",
        research_ready,
        LiftTimer("red", 0, Produce()),
        "builds its waiting tile",
        "5. Research plant",
    ),
    (
        "upgrade-stage-one",
        lambda: finished(intro(), "red", 0, "b1"),
        LiftTimer("red", 0, Upgrade()),
        "Only a stage II building",
        "Upgrading stage II buildings",
    ),
    (
        "upgrade-stage-three",
        production_done,
        LiftTimer("red", 0, Upgrade()),
        "Only a stage II building",
        "Upgrading stage II buildings",
    ),
    (
        "upgrade-occupied",
        lambda: finished(set_spots(stage_two(), "red", "b4", (Cube("gray"), None)), "red", 0, "b4"),
        LiftTimer("red", 0, Upgrade()),
        "unoccupied",
        "Upgrading stage II buildings",
    ),
    # setup and clock
    (
        "start-without-orders",
        lambda: full_setup(3),
        StartGame(),
        "still must place 2 starting orders",
        "Setup for the Full Game",
    ),
    ("start-twice", intro, StartGame(), "already started", "Playing the Game"),
    (
        "starting-orders-intro",
        lambda: setup_intro(NAMES[:3], components=BOX),
        PlaceStartingOrders("red", (OrderPlacement("gray", 1, "b1", 0), OrderPlacement("gray", 1, "b4", 0))),
        "Only the full game",
        "Setup for the Introductory Game",
    ),
    (
        "starting-orders-three",
        lambda: full_setup(3),
        PlaceStartingOrders("red", tuple(OrderPlacement("gray", 1, b, 0) for b in ("b1", "b2", "b3"))),
        "exactly 2",
        "Setup for the Full Game",
    ),
    (
        "starting-orders-late",
        full,
        PlaceStartingOrders("red", (OrderPlacement("gray", 1, "b3", 0), OrderPlacement("gray", 1, "b4", 0))),
        "before the master clock starts",
        "Setup for the Full Game",
    ),
    (
        "starting-orders-trading",
        lambda: full_setup(3),
        PlaceStartingOrders("red", (OrderPlacement("gray", 1, "b6", 0), OrderPlacement("gray", 1, "b1", 0))),
        "never place order counters on trading centers",
        "4. Trading center",
    ),
    (
        "clock-before-start",
        lambda: setup_intro(NAMES[:3], components=BOX),
        MasterClockExpired(),
        "has not started",
        "Playing the Game",
    ),
    ("clock-twice", clock_out_with_running_timer, MasterClockExpired(), "already run out", "End of the Game"),
    ("not-an-action", intro, "flip", "is not an action", "Playing the Game"),
    # simultaneous arrival
    (
        "together-not-a-ship",
        production_done,
        LiftTogether("green", (LiftTimer("red", 0, Produce()),)),
        "Only spaceships of other players",
        SPACESHIP,
    ),
    (
        "together-wrong-planet",
        at_green,
        LiftTogether("orange", (LiftTimer("red", 0),)),
        "Only spaceships of other players",
        SPACESHIP,
    ),
]


@pytest.mark.parametrize(
    ("factory", "action", "reason", "rule"), [c[1:] for c in ILLEGAL], ids=[c[0] for c in ILLEGAL]
)
def test_illegal_actions_are_rejected_with_their_rule(
    factory: Callable[[], Any], action: Any, reason: str, rule: str
) -> None:
    state = factory()
    result = apply(state, action)
    assert isinstance(result, Rejected), f"{action} was accepted"
    assert reason in str(result.reason)
    assert str(result.rule) == rule
    assert not untranslated([result.reason, result.rule])  # shown in Spanish and German too
    assert str(result).endswith(f"({rule})")


def test_the_issue_example_reason_is_worded_for_players() -> None:
    state = ok(intro(), PlaceTimer("red", 0, "b6"))
    result = apply(state, LiftTimer("red", 0, Produce()))
    assert (
        str(result)
        == "The sand on this timer has not run through yet (General rules for placing and using the sandtimers)"
    )


# --- legal actions ------------------------------------------------------------------------

LEGAL: list[tuple[str, Callable[[], Any], Any, tuple[type, ...]]] = [
    ("place-on-building", intro, PlaceTimer("red", 0, "b6"), (ev.TimerPlaced,)),
    ("place-own-prefix", intro, PlaceTimer("red", 0, "red:b6"), (ev.TimerPlaced,)),
    ("place-ship-travel", intro, PlaceTimer("red", 0, "ship", "moon-1"), (ev.TimerPlaced,)),
    ("place-ship-stay", intro, PlaceTimer("red", 0, "ship"), (ev.TimerPlaced,)),
    (
        "both-timers",
        lambda: ok(intro(), PlaceTimer("red", 0, "ship")),
        PlaceTimer("red", 1, "b6"),
        (ev.TimerPlaced,),
    ),
    (
        "sand-runs-out",
        lambda: ok(intro(), PlaceTimer("red", 0, "b6")),
        SandRanOut("red", 0),
        (ev.SandRanThrough,),
    ),
    ("sand-runs-out-after-clock", clock_out_with_running_timer, SandRanOut("red", 0), (ev.SandRanThrough,)),
    ("lift-and-forfeit", production_done, LiftTimer("red", 0), (ev.TimerLifted, ev.ActionForfeited)),
    (
        "park-finished",
        production_done,
        ParkTimer("red", 0),
        (ev.TimerLifted, ev.ActionForfeited, ev.TimerParked),
    ),
    ("park-parked", intro, ParkTimer("red", 0), (ev.TimerParked,)),
    ("produce", production_done, LiftTimer("red", 0, Produce()), (ev.TimerLifted, ev.GoodsProduced)),
    (
        "beam",
        lambda: beam_done("b7"),
        LiftTimer("red", 0, Beam((("b6", 0), ("b6", 1)))),
        (ev.TimerLifted, ev.GoodsBeamed),
    ),
    (
        "trade",
        trade_done,
        LiftTimer("red", 0, Trade((OrderPlacement("gray", 1, "b1", 0),))),
        (ev.TimerLifted, ev.OrdersPlaced),
    ),
    ("trade-none", trade_done, LiftTimer("red", 0, Trade(())), (ev.TimerLifted, ev.OrdersPlaced)),
    ("arrive-own-planet", at_home, LiftTimer("red", 0), (ev.TimerLifted, ev.ActionForfeited)),
    (
        "arrive-moon-intro",
        intro_moon,
        LiftTimer("red", 0),
        (ev.TimerLifted, ev.ShipArrived, ev.ActionForfeited),
    ),
    (
        "deliver",
        at_green,
        LiftTimer("red", 0, Deliver((Delivery("blue", 1),))),
        (ev.TimerLifted, ev.ShipArrived, ev.OrderFulfilled),
    ),
    ("arrive-and-skip", at_green, LiftTimer("red", 0), (ev.TimerLifted, ev.ShipArrived, ev.ActionForfeited)),
    (
        "moon-take",
        full_moon,
        LiftTimer("red", 0, MoonTile(True)),
        (ev.TimerLifted, ev.ShipArrived, ev.TileTaken),
    ),
    (
        "moon-under",
        full_moon,
        LiftTimer("red", 0, MoonTile(False)),
        (ev.TimerLifted, ev.ShipArrived, ev.TilePutUnder),
    ),
    (
        "moon-forfeit-last-tile",
        full_moon_last_tile,
        LiftTimer("red", 0),
        (ev.TimerLifted, ev.ShipArrived, ev.ActionForfeited),
    ),
    (
        "moon-forfeit-empty",
        full_moon_empty,
        LiftTimer("red", 0),
        (ev.TimerLifted, ev.ShipArrived, ev.ActionForfeited),
    ),
    ("research-build", research_ready, LiftTimer("red", 0, Build("b4")), (ev.TimerLifted, ev.BuildingBuilt)),
    ("research-forfeit", research_ready, LiftTimer("red", 0), (ev.TimerLifted, ev.ActionForfeited)),
    (
        "upgrade",
        lambda: finished(stage_two(), "red", 0, "b4"),
        LiftTimer("red", 0, Upgrade()),
        (ev.TimerLifted, ev.BuildingUpgraded),
    ),
    ("clock-expires", intro, MasterClockExpired(), (ev.ClockRanOut, ev.GameEnded)),
    (
        "clock-expires-timers-running",
        lambda: ok(intro(), PlaceTimer("red", 0, "b6")),
        MasterClockExpired(),
        (ev.ClockRanOut,),
    ),
    (
        "last-lift-ends-game",
        lambda: ok(clock_out_with_running_timer(), SandRanOut("red", 0)),
        LiftTimer("red", 0, Produce()),
        (ev.TimerLifted, ev.GoodsProduced, ev.GameEnded),
    ),
]


@pytest.mark.parametrize(("factory", "action", "events"), [c[1:] for c in LEGAL], ids=[c[0] for c in LEGAL])
def test_legal_actions_are_accepted(
    factory: Callable[[], Any], action: Any, events: tuple[type, ...]
) -> None:
    result = apply(factory(), action)
    assert isinstance(result, Accepted), str(result)
    assert tuple(type(e) for e in result.events) == events


# --- what the actions do --------------------------------------------------------------------


def test_delivery_hands_over_the_counter_and_returns_cubes_to_the_supply() -> None:
    """1. Your spaceship: goods from beam stations to the supply, the counter beneath the deliverer."""
    state = at_green()
    supply = state.supply
    state = ok(state, LiftTimer("red", 0, Deliver((Delivery("blue", 1), Delivery("brown", 1)))))
    red, green = state.player("red"), state.player("green")
    assert red is not None and green is not None
    assert red.ship == "planet-2"
    assert [(c.color, c.value, c.source) for c in red.collected] == [
        ("blue", 1, "green"),
        ("brown", 1, "green"),
    ]
    assert red.building("b7").contents == (None, None, None)  # type: ignore[union-attr]
    assert green.placed_orders() == []
    assert state.supply[2] == supply[2] + 1 and state.supply[3] == supply[3] + 1
    assert red.bonus == ()  # no bonus counters in the introductory game


def test_bonus_counter_goes_to_the_first_fulfiller_only() -> None:
    state = full()
    for name in ("red", "orange"):
        state = set_spots(state, name, "b5", (Cube("gray"),))
        state = set_spots(state, name, "b7", (Cube("yellow"),))
    state = move_ship(move_ship(state, "red", "moon-1"), "orange", "moon-2")
    state = finished(finished(state, "red", 0, "ship", "planet-2"), "orange", 0, "ship", "planet-2")
    state = ok(state, LiftTimer("red", 0, Deliver((Delivery("gray", 1),))))
    assert state.player("red").bonus == (2,)  # type: ignore[union-attr]
    assert state.planet_bonus[1] is None
    result = apply(state, LiftTimer("orange", 0, Deliver((Delivery("yellow", 1),))))
    assert isinstance(result, Accepted)
    assert state.player("orange").bonus == ()  # type: ignore[union-attr]
    assert not any(isinstance(e, ev.BonusTaken) for e in result.events)


def test_planet_owner_picks_among_identical_counters() -> None:
    state = at_green()
    green = state.player("green")
    assert green is not None
    # Green shows two blue 1s: on b3 and on b5.
    above = list(green.above)
    above.remove(Order("green", "blue", 1))
    green = green.with_building(replace(green.building("b5"), contents=(Order("green", "blue", 1),)))  # type: ignore[type-var]
    state = state.with_player(replace(green, above=tuple(above)))
    state = ok(state, LiftTimer("red", 0, Deliver((Delivery("blue", 1, space=("b5", 0)),))))
    green = state.player("green")
    assert green is not None
    assert green.building("b5").contents == (None,)  # type: ignore[union-attr]
    assert green.building("b3").contents == (Order("green", "blue", 1),)  # type: ignore[union-attr]


def test_owner_decides_who_fulfils_first_when_ships_arrive_together() -> None:
    """1. Your spaceship: two players lift at once; the owner's order decides who gets the only order."""
    state = intro()
    for name, moon in (("red", "moon-1"), ("orange", "moon-2")):
        state = set_spots(move_ship(state, name, moon), name, "b7", (Cube("brown"), None, None))
        state = finished(state, name, 0, "ship", "planet-2")
    deliver = Deliver((Delivery("brown", 1),))
    first_orange = ok(state, LiftTogether("green", (LiftTimer("orange", 0, deliver), LiftTimer("red", 0))))
    assert [c.source for c in first_orange.player("orange").collected] == ["green"]  # type: ignore[union-attr]
    assert first_orange.player("red").collected == ()  # type: ignore[union-attr]
    # had the owner chosen red first, orange's delivery would find no brown order left
    result = apply(
        state, LiftTogether("green", (LiftTimer("red", 0, deliver), LiftTimer("orange", 0, deliver)))
    )
    assert isinstance(result, Rejected) and "shows no brown 1 order" in str(result.reason)


def test_production_fills_free_spots_while_the_supply_lasts() -> None:
    """2. Production plant: one matching cube per free spot, none when the supply is out."""
    state = production_done()
    state = ok(state, LiftTimer("red", 0, Produce()))
    assert state.player("red").building("b6").contents == (Cube("gray"),) * 3  # type: ignore[union-attr]
    state = replace(finished(state, "red", 0, "b1"), supply=(0,) + state.supply[1:])
    result = apply(state, LiftTimer("red", 0, Produce()))
    assert isinstance(result, Accepted)
    assert result.events[-1] == ev.GoodsProduced("red", "b1", ())
    assert result.state.player("red").building("b1").contents == (None,)  # type: ignore[union-attr]


def test_beaming_moves_cubes_of_any_colour_from_production_plants() -> None:
    state = set_spots(beam_done("b7"), "red", "b4", (Cube("brown"),))
    state = ok(state, LiftTimer("red", 0, Beam((("b4", 0), ("b6", 1)))))
    red = state.player("red")
    assert red is not None
    assert red.building("b7").contents == (Cube("brown"), Cube("gray"), None)  # type: ignore[union-attr]
    assert red.building("b6").contents == (Cube("gray"), None, None)  # type: ignore[union-attr]
    assert red.building("b4").contents == (None,)  # type: ignore[union-attr]


def test_trading_places_counters_from_above_onto_order_spaces() -> None:
    state = ok(
        trade_done(),
        LiftTimer("red", 0, Trade((OrderPlacement("gray", 1, "b1", 0), OrderPlacement("brown", 1, "b7", 2)))),
    )
    red = state.player("red")
    assert red is not None
    assert len(red.above) == 8
    assert ("b7", 2, Order("red", "brown", 1)) in red.placed_orders()


def test_research_builds_stage_two_and_upgrade_flips_it_to_stage_three() -> None:
    state = stage_two("beam")
    b4 = state.player("red").building("b4")  # type: ignore[union-attr]
    assert b4 is not None and b4.stage == 2 and b4.type == "beam" and len(b4.contents) == 2
    assert state.player("red").research is None  # type: ignore[union-attr]
    state = ok(finished(state, "red", 0, "b4"), LiftTimer("red", 0, Upgrade()))
    b4 = state.player("red").building("b4")  # type: ignore[union-attr]
    assert b4 is not None and b4.stage == 3 and len(b4.contents) == 3


def test_a_stage_two_tile_may_change_the_building_type() -> None:
    state = stage_two("trading")
    b4 = state.player("red").building("b4")  # type: ignore[union-attr]
    assert b4 is not None and b4.type == "trading" and b4.spec.capacity == 2


def test_starting_orders_can_be_corrected_until_the_clock_starts() -> None:
    """An entry may be corrected until the action that depends on it (here: the start of the clock)."""
    first = (OrderPlacement("gray", 1, "b1", 0), OrderPlacement("gray", 1, "b2", 0))
    state = ok(full_setup(3), PlaceStartingOrders("red", first))
    again = (OrderPlacement("blue", 2, "b3", 0), OrderPlacement("gray", 1, "b4", 0))
    state = ok(state, PlaceStartingOrders("red", again))
    red = state.player("red")
    assert red is not None and red.ready
    assert sorted((bid, i, o.color, o.value) for bid, i, o in red.placed_orders()) == [
        ("b3", 0, "blue", 2),
        ("b4", 0, "gray", 1),
    ]
    assert len(red.above) == 22 and sum(o == Order("red", "gray", 1) for o in red.above) == 2
    for name in ("green", "orange"):
        state = ok(state, PlaceStartingOrders(name, first))
    state = ok(state, StartGame())
    late = apply(state, PlaceStartingOrders("red", first))
    assert isinstance(late, Rejected) and "before the master clock starts" in str(late.reason)


def test_moon_tile_under_the_pile() -> None:
    state = full_moon()
    top = state.piles[0][0]
    state = ok(state, LiftTimer("red", 0, MoonTile(False)))
    assert state.piles[0][-1] == top and len(state.piles[0]) == 8


def test_end_of_game_lets_running_timers_finish_then_scores() -> None:
    """End of the Game: no placing after the clock; running timers finish; then final scoring."""
    state = at_green()
    state = ok(state, PlaceTimer("red", 1, "b6"), MasterClockExpired())
    assert state.phase == "ending" and not is_over(state)
    state = ok(state, LiftTimer("red", 0, Deliver((Delivery("blue", 1),))))
    assert not is_over(state)
    assert isinstance(apply(state, PlaceTimer("red", 0, "b1")), Rejected)
    state = ok(state, SandRanOut("red", 1), LiftTimer("red", 1, Produce()))
    assert is_over(state)
    scores = final_scores(state)
    assert scores == score_record(scoring_record(state))
    red = scores["players"]["red"]
    assert red["rows"]["blue"]["void"] is True  # red still has blue counters above
    assert red["total"] == 0
    assert red["counters"] == 0
    assert scores["winners"] == ["red", "green", "orange"]  # nobody scored: a shared victory


def test_replay_refuses_a_broken_log() -> None:
    with pytest.raises(InvalidRecordError, match="action 1"):
        replay(setup_intro(NAMES[:3], components=BOX), [PlaceTimer("red", 0, "b6")])


def test_replay_folds_a_short_game() -> None:
    actions = [StartGame(), PlaceTimer("red", 0, "b6"), SandRanOut("red", 0), LiftTimer("red", 0, Produce())]
    state = replay(setup_intro(NAMES[:3], components=BOX), actions)
    assert state.player("red").building("b6").contents == (Cube("gray"),) * 3  # type: ignore[union-attr]


def test_legal_placements_list_what_a_one_tap_menu_may_offer() -> None:
    state = intro()
    options = legal_placements(state, "red", 0)
    symbols = [(o.symbol, o.destination) for o in options]
    assert symbols[:3] == [("ship", None), ("ship", "moon-1"), ("ship", "moon-3")]
    assert [s for s, _ in symbols[3:]] == ["b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8"]  # no research tile
    state = ok(state, PlaceTimer("red", 0, "b6"))
    assert ("b6", None) not in [(o.symbol, o.destination) for o in legal_placements(state, "red", 1)]
    assert legal_placements(state, "red", 0) == []  # still running
    assert legal_placements(setup_intro(NAMES[:3], components=BOX), "red", 0) == []  # before the clock starts
    assert legal_placements(state, "nobody", 0) == []
    assert all(apply(state, o).ok for o in legal_placements(state, "red", 1))


def test_a_short_introductory_game_scored_end_to_end() -> None:
    """Red places all its gray orders, beams gray goods and fulfils Orange's two gray orders."""
    state = intro()
    state = ok(
        state,
        PlaceTimer("red", 0, "b8"),
        PlaceTimer("orange", 0, "b8"),
        PlaceTimer("red", 1, "b7"),
        SandRanOut("red", 0),
        LiftTimer(
            "red",
            0,
            Trade(tuple(OrderPlacement("gray", 1, b, 0) for b in ("b1", "b4", "b5"))),
        ),
        SandRanOut("orange", 0),
        LiftTimer("orange", 0, Trade((OrderPlacement("gray", 1, "b2", 0),))),
        SandRanOut("red", 1),
        LiftTimer("red", 1, Beam((("b6", 0), ("b6", 1)))),
        PlaceTimer("red", 0, "ship", "moon-3"),
        SandRanOut("red", 0),
        LiftTimer("red", 0),
        PlaceTimer("red", 0, "ship", "planet-3"),
        SandRanOut("red", 0),
        LiftTimer("red", 0, Deliver((Delivery("gray", 1), Delivery("gray", 1)))),
        MasterClockExpired(),
    )
    assert is_over(state)
    scores = final_scores(state)
    red = scores["players"]["red"]
    assert red["rows"]["gray"] == {"value": 2, "players": 1, "bonus": 0, "points": 2, "void": False}
    assert [c for c, row in red["rows"].items() if row["void"]] == ["yellow", "blue", "brown"]
    assert (red["total"], red["counters"]) == (2, 2)
    assert scores["ranking"][0] == "red" and scores["winners"] == ["red"]
    assert sum(state.supply) + state.goods_on_board() == 48
