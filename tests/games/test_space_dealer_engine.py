"""Space Dealer rules engine: jobs, build sites, orders, attacks and the end of the game."""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import pytest

from companion.games.space_dealer import GAME, hubdeck
from companion.games.space_dealer.dealing import SetupError
from companion.games.space_dealer.engine import (
    apply,
    energised_units,
    final_score,
    planning_capacity,
    site_problem,
    timer_limit,
)
from companion.games.space_dealer.hubdeck import deal
from companion.games.space_dealer.model import (
    AbandonJob,
    Act,
    AtNeutralPlanet,
    BuildCard,
    ChooseStart,
    DiscardCard,
    DrawTechCards,
    GameEndedEarly,
    GameState,
    GiveCard,
    Goods,
    InDepot,
    InShip,
    KeepDrawnCard,
    LaunchRocket,
    MasterClockExpired,
    MoveShip,
    OnProbe,
    Phase,
    PlaceBuiltCard,
    PlayCard,
    RaiseTechLevel,
    ReturnGoods,
    Sabotage,
    SatisfyOrder,
    StartJob,
    TimerRanOut,
    TimerStatus,
    TradeCards,
    TransferGoods,
    UseCard,
)
from companion.games.space_dealer.scoring import score_record
from companion.rules.deck import Pile
from companion.rules.outcome import Accepted, Rejected
from companion.rules.text import Text

PLAYERS = ["red", "green", "blue"]
# Orbital ring for three players: 0 red, 1 neutral, 2 green, 3 neutral, 4 blue, 5 neutral.


def setup(players: list[str], **kw: object) -> GameState:
    """The engine's deal with the shipped cards."""
    return deal(players, data=GAME.data, **kw)  # type: ignore[arg-type]


def new_game(seed: int = 7, **kw: object) -> GameState:
    return setup(PLAYERS, seed=seed, **kw)  # type: ignore[arg-type]


def four_players(seed: int = 7) -> GameState:
    """A 4-player game: its card set has every experienced card (rulebook 5.1)."""
    return setup(PLAYERS + ["white"], seed=seed)


def ok(state: GameState, *actions: object) -> GameState:
    """Apply actions that must all be accepted."""
    for action in actions:
        result = apply(state, action)  # type: ignore[arg-type]
        assert isinstance(result, Accepted), f"{action} rejected: {result}"
        state = result.state
    return state


class Said(NamedTuple):
    """A rejection as an English player reads it."""

    reason: str
    rule: str


def rejected(state: GameState, action: object) -> Said:
    result = apply(state, action)  # type: ignore[arg-type]
    assert isinstance(result, Rejected), f"{action} was accepted"
    assert isinstance(result.reason, Text) and isinstance(result.rule, Text)
    return Said(str(result.reason), str(result.rule))


def with_hub(state: GameState, action: object) -> tuple[GameState, list[object]]:
    """Apply an action that must be accepted, then what the hub deck turns up after it (its draw's
    cards, the next neutral order), as the referee does at a hub-deck table: the state and every event."""
    result = apply(state, action)  # type: ignore[arg-type]
    assert isinstance(result, Accepted), f"{action} rejected: {result}"
    state, events = hubdeck.follow(result.state, result.events), list(result.events)
    player = getattr(action, "player", "")
    while supplied := hubdeck.inputs(state, player):
        result = apply(state, supplied[0])
        assert isinstance(result, Accepted), f"the hub deck's {supplied[0]} rejected: {result}"
        state, events = hubdeck.follow(result.state, result.events), events + list(result.events)
    return state, events


def hub_ok(state: GameState, *actions: object) -> GameState:
    """Apply actions that must all be accepted, each followed by what the hub deck turns up."""
    for action in actions:
        state, _ = with_hub(state, action)
    return state


def take_out(state: GameState, card: str) -> GameState:
    """Test set-up: ``card`` taken out of its common stack (and out of the hub deck's order)."""
    level = state.card_type(card).level
    if level not in (2, 3):
        return state
    stack = state.stack(level)
    types = list(stack.types.items())
    types.remove(state.cards[card].type)
    cards = [c for c in stack.cards.items() if c != card]
    state = state.with_stack(replace(stack, cards=Pile.of(cards), types=Pile.of(types)))
    if state.hub is not None:
        state = replace(
            state, hub=state.hub.with_stack(level, tuple(c for c in state.hub.stack(level) if c != card))
        )
    return state


def top(state: GameState, level: int) -> tuple[str, ...]:
    """The hub deck's order of the TechLevel ``level`` stack, top first."""
    assert state.hub is not None
    return state.hub.stack(level)


def plan(state: GameState, player: str, type_name: str) -> tuple[GameState, str]:
    """Test set-up: move a card of ``type_name`` from a stack into the player's planning area."""
    for level in (2, 3):
        card = next((c for c in top(state, level) if state.cards[c].type == type_name), None)
        if card:
            state = take_out(state, card)
            break
    else:
        p = state.player(player)
        assert p is not None
        card = next(c for c in p.stack if state.cards[c].type == type_name)
        state = state.with_player(replace(p, stack=tuple(c for c in p.stack if c != card)))
    p = state.player(player)
    assert p is not None
    return state.with_player(replace(p, planning=p.planning + (card,))), card


def build(state: GameState, player: str, type_name: str, x: int, timer: int = 0) -> tuple[GameState, str]:
    """Plan a card and build it with a timer, through the engine."""
    state, card = plan(state, player, type_name)
    state = ok(state, StartJob(player, timer, BuildCard(card, x)), TimerRanOut(player, timer))
    p = state.player(player)
    assert p is not None
    assert p.built_card(card) is not None or card in p.plants[0] + p.plants[1], f"{card} was not built at {x}"
    return state, card


def load(state: GameState, ship: str, **goods: int) -> GameState:
    """Test set-up: move goods from the pool into a ship (goods stay conserved)."""
    bag = Goods.of(goods)
    s = state.ship(ship)
    assert s is not None
    return replace(state.with_ship(replace(s, cargo=s.cargo + bag)), pool=state.pool - bag)


def dock(state: GameState, ship: str, field: int) -> GameState:
    s = state.ship(ship)
    assert s is not None
    return state.with_ship(replace(s, field=field, destination=None))


def mine_of(state: GameState, player: str) -> str:
    return state.player(player).built[0].card  # type: ignore[union-attr]


def total_goods(state: GameState) -> dict[str, int]:
    totals: dict[str, int] = {}
    for bag in state.all_goods():
        for c, n in bag.items:
            totals[c] = totals.get(c, 0) + n
    return totals


# =====================================================================================
# setup
# =====================================================================================


@pytest.mark.parametrize("n", range(3, 9))
def test_setup_for_every_player_count(n: int) -> None:
    names = [f"p{i}" for i in range(n)]
    state = setup(names, seed=n)
    boxes = 1 if n <= 4 else 2
    assert total_goods(state) == {c: 10 * boxes for c in ("red", "yellow", "blue", "green")}
    assert state.ring_size == 2 * n
    assert len(state.neutral) == n and all(pl.order for pl in state.neutral)
    for seat, p in enumerate(state.players):
        types = sorted(state.cards[c].type for c in p.stack)
        assert types == ["Depot", "Generator", "Mine", "Mine"]
        mines = [state.cards[c].colour for c in p.stack] + [state.cards[p.built[0].card].colour]
        mines = [m for m in mines if m]
        assert len(set(mines)) == 3, "a mine pile lacks exactly one colour"
        assert p.tech_level == 1 and len(p.timers) == 2
        assert all(t.status is TimerStatus.INACTIVE for t in p.timers)
        assert state.ship(p.name).field == 2 * seat  # type: ignore[union-attr]
    every = [c for p in state.players for c in p.stack] + list(top(state, 2)) + list(top(state, 3))
    assert len(every) == len(set(every))


def test_setup_card_counts_three_and_four_players() -> None:
    three, four = setup(PLAYERS, seed=1), setup(PLAYERS + ["white"], seed=1)
    # 4 players: 28 level-2 and 20 level-3 cards (Components); 3 players remove 6 + 5 and add
    # back only 2 + 2 of the 5 + 5 experienced cards (rulebook 2 and 5.1).
    assert (len(four.stack(2)), len(four.stack(3))) == (28, 20)
    assert (len(three.stack(2)), len(three.stack(3))) == (19, 12)
    basic = setup(PLAYERS + ["white"], seed=1, experienced=False)
    assert (len(basic.stack(2)), len(basic.stack(3))) == (23, 15)
    assert len(basic.orders) == 0 and all(n.order is None for n in basic.neutral)
    assert basic.ship("neutral") is None


def test_setup_is_seeded() -> None:
    assert new_game(3) == new_game(3)
    assert top(new_game(3), 2) != top(new_game(4), 2)


@pytest.mark.parametrize(
    ("players", "kw", "message"),
    [
        (["a", "b"], {}, "3 to 8 players"),
        ([f"p{i}" for i in range(9)], {}, "3 to 8 players"),
        (["a", "a", "b"], {}, "different and not empty"),
        (["a", "b", "neutral"], {}, "neutral spaceship's name"),
        (["a", "b", "c"], {"starts": {"zed": ChooseStart()}}, "does not play in this game"),
        (["a", "b", "c"], {"starts": {"a": ChooseStart(side="up")}}, "left or right"),
        (["a", "b", "c"], {"starts": {"a": ChooseStart(x=5)}}, "power connection"),
    ],
)
def test_setup_errors(players: list[str], kw: dict, message: str) -> None:
    with pytest.raises(SetupError, match=message):
        setup(players, seed=1, **kw)


def test_setup_start_choice() -> None:
    state = setup(PLAYERS, seed=7, starts={"red": ChooseStart(side="right", x=3)})
    red = state.player("red")
    assert red is not None
    assert red.plants[0] == () and len(red.plants[1]) == 1
    assert red.built[0].x == 3
    assert energised_units(state, red) == {2, 3}


# =====================================================================================
# jobs: parametrized legal and illegal
# =====================================================================================


def _at_level_3(state: GameState) -> GameState:
    return state.with_player(replace(state.player("red"), tech_level=3))  # type: ignore[arg-type]


def _with_planned_depot(state: GameState) -> GameState:
    depot = next(c for c in state.player("red").stack if state.cards[c].type == "Depot")  # type: ignore[union-attr]
    return ok(state, Act("red", PlayCard(depot)))


def _planned(type_name: str):
    def prepare(state: GameState) -> GameState:
        return plan(state, "red", type_name)[0]

    return prepare


def _built(type_name: str, x: int):
    def prepare(state: GameState) -> GameState:
        return build(state, "red", type_name, x)[0]

    return prepare


def _timer0_running(state: GameState) -> GameState:
    return ok(state, StartJob("red", 0, RaiseTechLevel()))


def _cargo(state: GameState) -> GameState:
    return load(state, "red", red=1)


def _ended(state: GameState) -> GameState:
    return ok(state, MasterClockExpired())


def _first(state: GameState, type_name: str) -> str:
    p = state.player("red")
    assert p is not None
    return next(c for c in p.planning + tuple(b.card for b in p.built) if state.cards[c].type == type_name)


def _noop(state: GameState) -> GameState:
    return state


JOBS = [
    # (prepare, job factory, expected reason or None for legal)
    pytest.param(_noop, lambda s: RaiseTechLevel(), None, id="raise-level"),
    pytest.param(_at_level_3, lambda s: RaiseTechLevel(), "highest technology level 3", id="raise-beyond-3"),
    pytest.param(_noop, lambda s: UseCard(mine_of(s, "red")), None, id="use-mine"),
    pytest.param(
        _noop, lambda s: UseCard(mine_of(s, "green")), "card in your action row", id="use-others-card"
    ),
    pytest.param(_noop, lambda s: MoveShip("red", 1), None, id="move-adjacent"),
    pytest.param(_noop, lambda s: MoveShip("red", 5), None, id="move-adjacent-backwards"),
    pytest.param(_noop, lambda s: MoveShip("red", 3), None, id="move-empty-anywhere"),
    pytest.param(_cargo, lambda s: MoveShip("red", 1), None, id="move-loaded-adjacent"),
    pytest.param(_cargo, lambda s: MoveShip("red", 3), "directly adjacent", id="move-loaded-far"),
    pytest.param(_noop, lambda s: MoveShip("green", 3), "spaceship you control", id="move-others-ship"),
    pytest.param(_noop, lambda s: MoveShip("red", 0), "already at that orbital field", id="move-nowhere"),
    pytest.param(_noop, lambda s: MoveShip("red", 6), "numbered 0 to 5", id="move-off-ring"),
    pytest.param(_noop, lambda s: MoveShip("neutral", 1), "spaceship you control", id="move-neutral-ship"),
    pytest.param(_noop, lambda s: MoveShip("ufo", 1), "no spaceship", id="move-unknown-ship"),
    pytest.param(_with_planned_depot, lambda s: BuildCard(_first(s, "Depot"), -3), None, id="build-depot"),
    pytest.param(_with_planned_depot, lambda s: BuildCard(_first(s, "Depot")), None, id="build-site-later"),
    pytest.param(
        _noop,
        lambda s: BuildCard(s.player("red").stack[0]),
        "planning area can be built",
        id="build-unplanned",
    ),
    pytest.param(
        _with_planned_depot,
        lambda s: BuildCard(_first(s, "Depot"), 7),
        "must touch another card",
        id="depot-alone",
    ),
    pytest.param(
        _planned("Mining Complex"),
        lambda s: BuildCard(_first(s, "Mining Complex"), 5),
        "supplied by a power plant",
        id="mine-unpowered",
    ),
    pytest.param(
        _planned("Mining Complex"),
        lambda s: BuildCard(_first(s, "Mining Complex"), -2),
        "never in the order row",
        id="over-order-row",
    ),
    pytest.param(
        _planned("Mining Complex"),
        lambda s: BuildCard(_first(s, "Mining Complex"), -1),
        None,
        id="mine-powered",
    ),
    pytest.param(
        _planned("Fusion Mine"),
        lambda s: BuildCard(_first(s, "Fusion Mine"), -1),
        "both connections",
        id="fusion-half-power",
    ),
    pytest.param(
        _planned("Fusion Mine"),
        lambda s: BuildCard(_first(s, "Fusion Mine"), -2),
        None,
        id="fusion-over-mine",
    ),
    pytest.param(
        _planned("Generator"), lambda s: BuildCard(_first(s, "Generator"), 2), None, id="second-generator"
    ),
    pytest.param(
        _planned("Generator"),
        lambda s: BuildCard(_first(s, "Generator"), -2),
        "already a Generator",
        id="gen-taken",
    ),
    pytest.param(
        _planned("Generator"), lambda s: BuildCard(_first(s, "Generator"), 4), "directly left", id="gen-far"
    ),
    pytest.param(
        _planned("Solar Satellite"),
        lambda s: BuildCard(_first(s, "Solar Satellite"), -2),
        None,
        id="solar-on-gen",
    ),
    pytest.param(
        _planned("Solar Satellite"),
        lambda s: BuildCard(_first(s, "Solar Satellite"), 2),
        "on top of a Generator",
        id="solar-no-gen",
    ),
    pytest.param(
        _planned("Fusion Reactor"),
        lambda s: BuildCard(_first(s, "Fusion Reactor"), -2),
        "on top of a Solar Satellite",
        id="reactor-on-gen",
    ),
    pytest.param(
        _built("Depot", -3), lambda s: UseCard(_first(s, "Depot")), "no timer space", id="use-depot"
    ),
    pytest.param(
        _built("Multi-Mine", -1),
        lambda s: UseCard(_first(s, "Multi-Mine")),
        "Choose the colour",
        id="multi-no-colour",
    ),
    pytest.param(
        _built("Multi-Mine", -1),
        lambda s: UseCard(_first(s, "Multi-Mine"), colour="green"),
        None,
        id="multi-colour",
    ),
    pytest.param(
        _built("Converter", -1),
        lambda s: UseCard(_first(s, "Converter"), exchanges=(("red", "blue"), ("red", "green"))),
        "exchanges 1 to 1",
        id="converter-two",
    ),
    pytest.param(
        _built("Converter", -1),
        lambda s: UseCard(_first(s, "Converter"), exchanges=(("red", "blue"),)),
        None,
        id="converter",
    ),
    pytest.param(_planned("Depot"), lambda s: DiscardCard(_first(s, "Depot")), None, id="discard"),
    pytest.param(_noop, lambda s: DiscardCard(mine_of(s, "red")), "can be discarded", id="discard-built"),
    pytest.param(
        _timer0_running, lambda s: RaiseTechLevel(), "Another timer already stands", id="space-taken"
    ),
    pytest.param(_ended, lambda s: RaiseTechLevel(), "no new jobs", id="after-end"),
]


@pytest.mark.parametrize(("prepare", "make_job", "reason"), JOBS)
def test_jobs(prepare, make_job, reason: str | None) -> None:
    state = prepare(new_game())
    timer = 1 if reason == "Another timer already stands" else 0
    free = next(t.index for t in state.player("red").timers if t.status is TimerStatus.INACTIVE)  # type: ignore[union-attr]
    action = StartJob("red", free if reason != "Another timer already stands" else timer, make_job(state))
    result = apply(state, action)
    if reason is None:
        assert isinstance(result, Accepted), str(result)
        timer_state = result.state.player("red").timer(action.timer)  # type: ignore[union-attr]
        assert timer_state.status is TimerStatus.ACTIVE  # type: ignore[union-attr]
    else:
        assert isinstance(result, Rejected)
        assert reason in str(result.reason)
        assert str(result.rule).startswith("rulebook ")


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (StartJob("red", 2, RaiseTechLevel()), "no timer number 3"),
        (StartJob("zed", 0, RaiseTechLevel()), "zed does not play in this game"),
        (StartJob("red", -1, RaiseTechLevel()), "no timer number 0"),
    ],
)
def test_bad_timers_and_players(action: StartJob, reason: str) -> None:
    assert reason in rejected(new_game(), action).reason


def test_every_planet_has_its_own_timer_space() -> None:
    state = ok(new_game(), StartJob("red", 0, RaiseTechLevel()), StartJob("green", 0, RaiseTechLevel()))
    state = ok(state, StartJob("blue", 1, RaiseTechLevel()), TimerRanOut("green", 0))
    assert [p.tech_level for p in state.players] == [1, 2, 1]


def test_active_timer_takes_no_second_job() -> None:
    state = ok(new_game(), StartJob("red", 0, RaiseTechLevel()))
    r = rejected(state, StartJob("red", 0, UseCard(mine_of(state, "red"))))
    assert "only an inactive timer" in str(r.reason)


# =====================================================================================
# job effects
# =====================================================================================


def test_raise_tech_level_then_draw_and_keep() -> None:
    state = new_game()
    assert "needs technology level 2" in rejected(state, Act("red", DrawTechCards(2))).reason
    state = ok(state, StartJob("red", 0, RaiseTechLevel()), TimerRanOut("red", 0))
    assert state.player("red").tech_level == 2  # type: ignore[union-attr]
    assert "needs technology level 3" in rejected(state, Act("red", DrawTechCards(3))).reason
    drawn = top(state, 2)[:2]
    state = hub_ok(state, Act("red", DrawTechCards(2)))
    assert state.player("red").pending_draw == (2, drawn)  # type: ignore[union-attr]
    assert "Keep one of the two" in rejected(state, Act("red", DrawTechCards(2))).reason
    assert (
        "Keep one of the two cards you drew"
        in rejected(state, Act("red", KeepDrawnCard("mine-red-1"))).reason
    )
    state = hub_ok(state, Act("red", KeepDrawnCard(drawn[1])))
    assert state.player("red").planning == (drawn[1],)  # type: ignore[union-attr]
    assert top(state, 2)[-1] == drawn[0] and drawn[1] not in top(state, 2)
    assert drawn[1] not in state.stack(2).cards and drawn[0] in state.stack(2).cards


def test_planning_area_holds_two_cards() -> None:
    state = new_game()
    stack = state.player("red").stack  # type: ignore[union-attr]
    state = ok(state, Act("red", PlayCard(stack[0])), Act("red", PlayCard(stack[1])))
    assert "no free space" in rejected(state, Act("red", PlayCard(stack[2]))).reason
    assert (
        "personal technology stack" in rejected(state, Act("red", PlayCard(mine_of(state, "green")))).reason
    )


def test_mine_production_goes_to_ship_at_planet_or_is_lost() -> None:
    state = new_game()
    mine = mine_of(state, "red")
    colour = state.cards[mine].colour
    state = ok(state, StartJob("red", 0, UseCard(mine)), TimerRanOut("red", 0))
    assert state.ship("red").cargo.count(colour) == 1  # type: ignore[union-attr]
    # ship away and no Depot: the good is lost (stays in the pool)
    state = ok(
        state,
        StartJob("red", 1, MoveShip("red", 1)),
        StartJob("red", 0, UseCard(mine)),
        TimerRanOut("red", 0),
    )
    assert state.ship("red").cargo.count(colour) == 1  # type: ignore[union-attr]
    assert state.pool.count(colour) == 9
    assert total_goods(state)[colour] == 10


def test_production_respects_cargo_limit_and_prefers_depot() -> None:
    state = new_game()
    mine = mine_of(state, "red")
    colour = state.cards[mine].colour
    other = next(c for c in ("red", "yellow", "blue", "green") if c != colour)
    state = load(state, "red", **{other: 8})
    state = ok(state, StartJob("red", 0, UseCard(mine)), TimerRanOut("red", 0))
    assert state.ship("red").cargo.total == 8  # type: ignore[union-attr]
    state, depot = build(state, "red", "Depot", -3)
    state = ok(state, StartJob("red", 0, UseCard(mine, to="depot")), TimerRanOut("red", 0))
    assert state.player("red").built_card(depot).stored.as_dict() == {colour: 1}  # type: ignore[union-attr]


def test_move_lands_and_ship_is_in_flight_meanwhile() -> None:
    state = ok(new_game(), StartJob("red", 0, MoveShip("red", 3)))
    assert state.ship("red").in_flight and state.ship("red").field is None  # type: ignore[union-attr]
    state = ok(state, TimerRanOut("red", 0))
    assert state.ship("red").field == 3 and not state.ship("red").in_flight  # type: ignore[union-attr]


def test_moving_ship_space_is_taken() -> None:
    state = ok(new_game(), StartJob("red", 0, MoveShip("red", 3)))
    r = rejected(state, StartJob("red", 1, MoveShip("red", 4)))
    assert "Another timer already stands" in str(r.reason)


def test_converter_exchanges_goods_with_pool() -> None:
    state, conv = build(new_game(), "red", "Converter", -1)
    state = load(state, "red", red=2)
    state = ok(
        state,
        StartJob("red", 0, UseCard(conv, exchanges=(("red", "blue"),), source="red")),
        TimerRanOut("red", 0),
    )
    assert state.ship("red").cargo.as_dict() == {"red": 1, "blue": 1}  # type: ignore[union-attr]
    assert total_goods(state) == {c: 10 for c in ("red", "yellow", "blue", "green")}


def test_build_without_site_waits_as_usable() -> None:
    state, card = plan(new_game(), "red", "Mining Complex")
    state = ok(state, StartJob("red", 0, BuildCard(card)), TimerRanOut("red", 0))
    timer = state.player("red").timer(0)  # type: ignore[union-attr]
    assert timer.status is TimerStatus.USABLE  # type: ignore[union-attr]
    assert "only an inactive timer" in rejected(state, StartJob("red", 0, RaiseTechLevel())).reason
    assert "supplied by a power plant" in rejected(state, Act("red", PlaceBuiltCard(0, 6))).reason
    state = ok(state, Act("red", PlaceBuiltCard(0, -1)))
    assert state.player("red").built_card(card) is not None  # type: ignore[union-attr]
    assert state.player("red").timer(0).status is TimerStatus.INACTIVE  # type: ignore[union-attr]
    assert "no finished build" in rejected(state, Act("red", PlaceBuiltCard(0, -1))).reason


def test_abandon_usable_build_keeps_card_planned() -> None:
    state, card = plan(new_game(), "red", "Mining Complex")
    state = ok(state, StartJob("red", 0, BuildCard(card)), TimerRanOut("red", 0), Act("red", AbandonJob(0)))
    assert card in state.player("red").planning  # type: ignore[union-attr]
    assert "not usable" in rejected(state, Act("red", AbandonJob(1))).reason


def test_discard_puts_card_under_its_stack() -> None:
    state, card = plan(new_game(), "red", "Solar Satellite")
    state = hub_ok(state, StartJob("red", 0, DiscardCard(card)), TimerRanOut("red", 0))
    assert top(state, 2)[-1] == card and card not in state.player("red").planning  # type: ignore[union-attr]
    assert card in state.stack(2).cards


def test_timer_ran_out_needs_running_timer() -> None:
    assert "not running" in rejected(new_game(), TimerRanOut("red", 0)).reason
    assert "no timer number 10" in rejected(new_game(), TimerRanOut("red", 9)).reason


# =====================================================================================
# build sites
# =====================================================================================


def test_power_reach_grows_with_solar_satellite_and_fusion_reactor() -> None:
    state = new_game()
    red = lambda s: s.player("red")  # noqa: E731
    assert energised_units(state, red(state)) == {-2, -1}
    state, _ = build(state, "red", "Solar Satellite", -2)
    assert energised_units(state, red(state)) == {-2, -1, 0}
    state, _ = build(state, "red", "Fusion Reactor", -2)
    assert energised_units(state, red(state)) == {-3, -2, -1, 0}
    state, _ = build(state, "red", "Generator", 2)
    assert energised_units(state, red(state)) == {-3, -2, -1, 0, 2, 3}


def test_card_with_two_connections_powered_by_two_plants() -> None:
    state = new_game()
    state, _ = build(state, "red", "Generator", 2)
    state, card = plan(state, "red", "Fusion Mine")
    assert "both connections" in str(site_problem(state, state.player("red"), card, 0))  # type: ignore[arg-type]
    state, _ = build(state, "red", "Solar Satellite", -2)
    assert "both connections" in str(site_problem(state, state.player("red"), card, 0))  # type: ignore[arg-type]
    state, _ = build(state, "red", "Solar Satellite", 2)
    assert site_problem(state, state.player("red"), card, 0) is None  # type: ignore[arg-type]


def test_building_over_the_action_row_covers_the_card_below() -> None:
    state = new_game()
    mine = mine_of(state, "red")
    state, fusion = build(state, "red", "Fusion Mine", -2)
    red = state.player("red")
    assert red.built_card(mine).covered and not red.built_card(fusion).covered  # type: ignore[union-attr]
    r = rejected(state, StartJob("red", 0, UseCard(mine)))
    assert "built over" in str(r.reason)
    # the covered mine's order still counts: it lies in the order row
    state = dock(load(state, "green", **state.cards[mine].order.goods_dict()), "green", 0)  # type: ignore[union-attr]
    state = ok(state, Act("green", SatisfyOrder("green", mine)))


def test_upright_card_cannot_cover_order_row_but_across_card_can_be_covered_by_upright() -> None:
    state = new_game()
    state, fusion = build(state, "red", "Fusion Mine", -2)
    state, complex_ = build(state, "red", "Mining Complex", -1)
    red = state.player("red")
    assert red.built_card(fusion).covered  # type: ignore[union-attr]
    state, mm = plan(state, "red", "Multi-Mine")
    assert "never in the order row" in str(site_problem(state, state.player("red"), mm, -1))  # type: ignore[arg-type]


def test_cannot_build_over_card_with_timer_on_it() -> None:
    state = ok(new_game(), StartJob("red", 0, UseCard(mine_of(new_game(), "red"))))
    state, fusion = plan(state, "red", "Fusion Mine")
    r = rejected(state, StartJob("red", 1, BuildCard(fusion, -2)))
    assert "timer stands on" in str(r.reason)


def test_depot_needs_a_neighbour_and_depot_under_planet_is_fine() -> None:
    state, depot = plan(new_game(), "red", "Depot")
    p = state.player("red")
    assert site_problem(state, p, depot, 0) is None  # type: ignore[arg-type]  # touches the planet above
    assert site_problem(state, p, depot, -3) is None  # type: ignore[arg-type]  # beside the Mine
    assert "touch another card" in str(site_problem(state, p, depot, -6))  # type: ignore[arg-type]
    assert "Build sites run" in str(site_problem(state, p, depot, 40))  # type: ignore[arg-type]


# =====================================================================================
# goods and orders
# =====================================================================================


def test_transfer_goods_between_ships_at_same_planet() -> None:
    state = dock(load(new_game(), "green", red=3), "green", 0)
    state = ok(state, Act("green", TransferGoods(InShip("green"), InShip("red"), Goods.of(red=2))))
    assert state.ship("red").cargo.as_dict() == {"red": 2}  # type: ignore[union-attr]
    r = rejected(state, Act("green", TransferGoods(InShip("red"), InShip("green"), Goods.of(red=1))))
    assert "your own spaceship" in str(r.reason)
    far = dock(state, "blue", 4)
    far = load(far, "blue", red=1)
    r = rejected(far, Act("blue", TransferGoods(InShip("blue"), InShip("red"), Goods.of(red=1))))
    assert "same planet" in str(r.reason)
    r = rejected(state, Act("green", TransferGoods(InShip("green"), InShip("red"), Goods.of(red=5))))
    assert "not there" in str(r.reason)


def test_transfer_respects_cargo_limit_of_8() -> None:
    state = dock(load(load(new_game(), "green", red=4), "red", blue=6), "green", 0)
    r = rejected(state, Act("green", TransferGoods(InShip("green"), InShip("red"), Goods.of(red=3))))
    assert "8 goods" in str(r.reason) and str(r.rule).startswith("rulebook 3.3")
    state = ok(state, Act("green", TransferGoods(InShip("green"), InShip("red"), Goods.of(red=2))))
    assert state.ship("red").cargo.total == 8  # type: ignore[union-attr]


def test_depot_exchange_and_return_goods() -> None:
    state, depot = build(new_game(), "red", "Depot", -3)
    state = load(state, "red", yellow=3)
    state = ok(state, Act("red", TransferGoods(InShip("red"), InDepot("red"), Goods.of(yellow=2))))
    assert state.player("red").built_card(depot).stored.as_dict() == {"yellow": 2}  # type: ignore[union-attr]
    state = ok(state, Act("red", ReturnGoods(InDepot("red"), Goods.of(yellow=1))))
    assert total_goods(state)["yellow"] == 10 and state.pool.count("yellow") == 8
    assert (
        "no Depot"
        in rejected(
            state, Act("red", TransferGoods(InShip("red"), InDepot("blue"), Goods.of(yellow=1)))
        ).reason
    )


def test_satisfy_order_at_another_planet() -> None:
    state = new_game()
    order = mine_of(state, "green")
    wanted = state.cards[order].order.goods_dict()  # type: ignore[union-attr]
    state = load(state, "red", **wanted)
    r = rejected(state, Act("red", SatisfyOrder("red", order)))
    assert "at green's planet" in str(r.reason)
    state = dock(state, "red", 2)
    state = ok(state, Act("red", SatisfyOrder("red", order)))
    red = state.player("red")
    assert red.markers_placed == 1 and state.ship("red").cargo.total == 0  # type: ignore[union-attr]
    score = final_score(state)
    points = state.cards[order].order.points  # type: ignore[union-attr]
    assert score.players["red"].total == points[0] and score.players["green"].total == points[1]
    state = load(state, "red", **wanted)
    assert "already been satisfied" in rejected(state, Act("red", SatisfyOrder("red", order))).reason


@pytest.mark.parametrize(
    ("prepare", "action", "reason"),
    [
        (
            lambda s: load(s, "red", red=5, yellow=5),
            lambda s: Act("red", SatisfyOrder("red", mine_of(s, "red"))),
            "their own planet",
        ),
        (
            lambda s: dock(s, "red", 2),
            lambda s: Act("red", SatisfyOrder("red", mine_of(s, "green"))),
            "does not carry",
        ),
        (
            lambda s: s,
            lambda s: Act("red", SatisfyOrder("green", mine_of(s, "green"))),
            "spaceship you control",
        ),
        (lambda s: s, lambda s: Act("red", SatisfyOrder("red", "no-such-order")), "no order of that name"),
        (lambda s: s, lambda s: Act("red", SatisfyOrder("red", top(s, 2)[0])), "no order of that name"),
        (
            lambda s: dock(s, "red", 2),
            lambda s: Act("red", SatisfyOrder("red", "gizzi-1")),
            "neutral planet where your spaceship",
        ),
    ],
)
def test_illegal_orders(prepare, action, reason: str) -> None:
    state = prepare(new_game())
    r = rejected(state, action(state))
    assert reason in str(r.reason) and str(r.rule).startswith("rulebook")


def test_neutral_order_card_scores_without_marker_and_is_replaced() -> None:
    state = new_game()
    planet = state.neutral_at(1)
    assert planet is not None and planet.order
    spec = state.order_cards[planet.order]
    state = dock(load(state, "red", **spec.goods_dict()), "red", 1)
    stack_top = state.hub.orders[0]  # type: ignore[union-attr]
    state = hub_ok(state, Act("red", SatisfyOrder("red", planet.order)))
    red = state.player("red")
    assert red.markers_placed == 0 and red.neutral_cards == (planet.order,)  # type: ignore[union-attr]
    assert state.neutral_at(1).order == stack_top  # type: ignore[union-attr]
    assert final_score(state).players["red"].total == spec.points[0]


def test_new_neutral_order_redrawn_when_several_ships_could_satisfy_it() -> None:
    state = new_game()
    first = state.neutral_at(1).order  # type: ignore[union-attr]
    spec = state.order_cards[first]  # type: ignore[index]
    nxt = state.hub.orders[0]  # type: ignore[union-attr]
    nxt_goods = state.order_cards[nxt].goods_dict()
    state = dock(load(state, "red", **spec.goods_dict()), "red", 1)
    state = dock(load(state, "green", **nxt_goods), "green", 1)
    state = dock(load(state, "blue", **nxt_goods), "blue", 1)
    after, events = with_hub(state, Act("red", SatisfyOrder("red", first)))  # type: ignore[arg-type]
    shown = after.neutral_at(1).order  # type: ignore[union-attr]
    assert shown != nxt
    assert nxt in after.orders and after.hub.orders[-1] == nxt  # type: ignore[union-attr]
    assert any(type(e).__name__ == "OrderRedrawn" and e.order == nxt for e in events)


def test_goods_left_at_neutral_planet_can_be_collected() -> None:
    state = dock(load(new_game(), "red", blue=2), "red", 1)
    state = ok(state, Act("red", TransferGoods(InShip("red"), AtNeutralPlanet(1), Goods.of(blue=2))))
    assert state.neutral_at(1).goods.as_dict() == {"blue": 2}  # type: ignore[union-attr]
    state = dock(state, "green", 1)
    state = ok(state, Act("green", TransferGoods(AtNeutralPlanet(1), InShip("green"), Goods.of(blue=1))))
    assert state.ship("green").cargo.as_dict() == {"blue": 1}  # type: ignore[union-attr]
    r = rejected(state, Act("green", TransferGoods(AtNeutralPlanet(1), InShip("red"), Goods.of(blue=1))))
    assert "collected by a spaceship" in str(r.reason)
    assert (
        "not a neutral planet"
        in rejected(
            dock(state, "red", 2),
            Act("red", TransferGoods(InShip("red"), AtNeutralPlanet(2), Goods.of(blue=1))),
        ).reason
    )


# =====================================================================================
# the end of the game
# =====================================================================================


def _nine_markers(state: GameState) -> GameState:
    return state.with_player(replace(state.player("red"), markers_placed=9))  # type: ignore[arg-type]


def test_game_ends_when_last_marker_placed_and_running_timers_finish() -> None:
    state = _nine_markers(new_game())
    order = mine_of(state, "green")
    state = dock(load(state, "red", **state.cards[order].order.goods_dict()), "red", 2)  # type: ignore[union-attr]
    state = ok(state, StartJob("blue", 0, UseCard(mine_of(state, "blue"))))
    result = apply(state, Act("red", SatisfyOrder("red", order)))
    assert isinstance(result, Accepted)
    state = result.state
    assert state.phase is Phase.ENDING
    assert any(type(e).__name__ == "GameEnded" for e in result.events)
    assert state.player("red").markers_placed == 10  # type: ignore[union-attr]
    assert "no new jobs" in rejected(state, StartJob("green", 0, RaiseTechLevel())).reason
    assert "has ended" in rejected(state, Act("green", PlayCard(state.player("green").stack[0]))).reason  # type: ignore[union-attr]
    # the running timer is still used in the usual way
    blue_colour = state.cards[mine_of(state, "blue")].colour
    before = state.ship("blue").cargo.count(blue_colour)  # type: ignore[union-attr]
    result = apply(state, TimerRanOut("blue", 0))
    assert isinstance(result, Accepted)
    assert result.state.phase is Phase.OVER
    assert result.state.ship("blue").cargo.count(blue_colour) == before + 1  # type: ignore[union-attr]
    over = [e for e in result.events if type(e).__name__ == "GameOver"]
    assert over and over[0].score.winners == ("red",)


def test_no_marker_left_means_no_more_orders() -> None:
    state = new_game()
    state = state.with_player(replace(state.player("red"), markers_placed=10))  # type: ignore[arg-type]
    order = mine_of(state, "green")
    state = dock(load(state, "red", **state.cards[order].order.goods_dict()), "red", 2)  # type: ignore[union-attr]
    assert "no victory-point markers left" in rejected(state, Act("red", SatisfyOrder("red", order))).reason


def test_master_clock_ends_game_immediately_without_running_timers() -> None:
    result = apply(new_game(), MasterClockExpired())
    assert isinstance(result, Accepted) and result.state.phase is Phase.OVER
    assert "already ended" in rejected(result.state, MasterClockExpired()).reason


def test_engine_final_score_equals_score_command() -> None:
    state = new_game()
    for deliverer, owner, field in (("red", "green", 2), ("blue", "red", 0)):
        order = mine_of(state, owner)
        state = dock(load(state, deliverer, **state.cards[order].order.goods_dict()), deliverer, field)  # type: ignore[union-attr]
        state = ok(state, Act(deliverer, SatisfyOrder(deliverer, order)))
    neutral = state.neutral_at(5).order  # type: ignore[union-attr]
    state = dock(load(state, "green", **state.order_cards[neutral].goods_dict()), "green", 5)  # type: ignore[index]
    state = ok(state, Act("green", SatisfyOrder("green", neutral)), MasterClockExpired())  # type: ignore[arg-type]
    record = {
        "players": PLAYERS,
        "orders": [
            {
                "order": o.order,
                "by": o.by,
                "points": list(o.points),
                **({"owner": o.owner} if o.owner else {}),
            }
            for o in state.satisfied
        ],
    }
    assert final_score(state).to_json() == score_record(record)
    assert len(record["orders"]) == 3


# =====================================================================================
# experienced cards: sabotage, rocket, transport probe, factories, trade
# =====================================================================================


def _armed(state: GameState, player: str, type_name: str, markers: int = 1) -> tuple[GameState, str]:
    state, card = build(state, player, type_name, -1)
    for _ in range(markers):
        state = ok(state, StartJob(player, 0, UseCard(card)), TimerRanOut(player, 0))
    assert state.player(player).built_card(card).attack_markers == markers  # type: ignore[union-attr]
    return state, card


def test_loading_attack_markers_at_most_two() -> None:
    state, probe = _armed(new_game(), "red", "Sabotage Probe", markers=2)
    assert state.attack_pool == 8
    r = rejected(state, StartJob("red", 0, UseCard(probe)))
    assert "already holds 2 attack markers" in str(r.reason) and "5.1d" in str(r.rule)


def test_sabotaged_timer_runs_out_without_effect_and_is_reusable() -> None:
    state, _ = _armed(new_game(), "red", "Sabotage Probe", markers=2)
    state = ok(state, StartJob("green", 0, RaiseTechLevel()), Act("red", Sabotage("green", 0)))
    assert state.attack_pool == 8  # one marker on the probe, one on green's timer
    assert "already carries an attack marker" in rejected(state, Act("red", Sabotage("green", 0))).reason
    result = apply(state, TimerRanOut("green", 0))
    assert isinstance(result, Accepted)
    state = result.state
    assert state.player("green").tech_level == 1  # type: ignore[union-attr]
    assert any(type(e).__name__ == "JobVoided" for e in result.events)
    assert state.attack_pool == 9
    assert state.player("green").timer(0).status is TimerStatus.INACTIVE  # type: ignore[union-attr]
    state = ok(state, StartJob("green", 0, RaiseTechLevel()), TimerRanOut("green", 0))
    assert state.player("green").tech_level == 2  # type: ignore[union-attr]


def test_the_host_ending_the_game_early_stops_every_timer_and_scores_it_as_it_stands() -> None:
    state, _ = _armed(new_game(), "red", "Sabotage Probe", markers=2)
    order = mine_of(state, "green")
    state = dock(load(state, "red", **state.cards[order].order.goods_dict()), "red", 2)  # type: ignore[union-attr]
    state = ok(
        state,
        Act("red", SatisfyOrder("red", order)),
        StartJob("green", 0, RaiseTechLevel()),
        Act("red", Sabotage("green", 0)),
        StartJob("blue", 1, MoveShip("blue", 3)),
    )
    pool = state.attack_pool
    result = apply(state, GameEndedEarly())
    assert isinstance(result, Accepted)
    after = result.state
    assert after.phase is Phase.OVER
    assert all(t.status is TimerStatus.INACTIVE and t.job is None for p in after.players for t in p.timers)
    assert after.attack_pool == pool + 1  # the sabotage's marker is back in the pool
    assert after.ship("blue").destination == 3  # type: ignore[union-attr]  # as it stands: still in flight
    assert [type(e).__name__ for e in result.events] == ["GameEnded", "GameOver"]
    assert result.events[1].score == final_score(after) == final_score(state)
    assert final_score(after).winners == ("red",)
    # nothing happens any more: a timer's sand running out has no effect, and it cannot end twice
    assert "The game is over" in rejected(after, TimerRanOut("blue", 1)).reason
    assert "already over" in rejected(after, GameEndedEarly()).reason
    assert "has ended" in rejected(after, Act("red", PlayCard(after.player("red").stack[0]))).reason  # type: ignore[union-attr]


def test_the_game_can_be_ended_early_while_running_timers_complete() -> None:
    state = ok(new_game(), StartJob("red", 0, RaiseTechLevel()), MasterClockExpired())
    assert state.phase is Phase.ENDING
    ended = ok(state, GameEndedEarly())
    assert ended.phase is Phase.OVER and ended.player("red").tech_level == 1  # type: ignore[union-attr]


def test_sabotaged_flight_returns_ship_to_its_field() -> None:
    state, _ = _armed(new_game(), "red", "Sabotage Probe")
    state = ok(state, StartJob("green", 0, MoveShip("green", 3)), Act("red", Sabotage("green", 0)))
    assert state.ship("green").field == 2 and not state.ship("green").in_flight  # type: ignore[union-attr]
    # the sabotaged timer was set aside: the ship's timer space is free for the other timer
    state = ok(state, StartJob("green", 1, MoveShip("green", 1)), TimerRanOut("green", 0))
    assert state.ship("green").destination == 1, "the sabotaged timer running out leaves the new flight alone"  # type: ignore[union-attr]
    assert apply(state, StartJob("green", 0, RaiseTechLevel())).ok
    state = ok(state, TimerRanOut("green", 1))
    assert state.ship("green").field == 1  # type: ignore[union-attr]


def test_sabotaged_timer_frees_its_space_at_once() -> None:
    state, _ = _armed(new_game(), "red", "Sabotage Probe")
    mine = mine_of(state, "green")
    state = ok(state, StartJob("green", 0, UseCard(mine)), Act("red", Sabotage("green", 0)))
    assert "only an inactive timer" in rejected(state, StartJob("green", 0, RaiseTechLevel())).reason
    state = ok(state, StartJob("green", 1, UseCard(mine)), TimerRanOut("green", 0), TimerRanOut("green", 1))
    assert state.ship("green").cargo.count(state.cards[mine].colour) == 1  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("prepare", "action", "reason"),
    [
        (lambda s: s, Act("red", Sabotage("green", 0)), "need a built Sabotage Probe"),
        (
            lambda s: _armed(s, "red", "Sabotage Probe")[0],
            Act("red", Sabotage("green", 0)),
            "only an active timer",
        ),
        (
            lambda s: _armed(s, "red", "Sabotage Probe")[0],
            Act("red", Sabotage("zed", 0)),
            "zed does not play in this game",
        ),
        (lambda s: s, Act("red", LaunchRocket("green", "mine-x")), "need a built Interstellar Rocket"),
        (
            lambda s: _armed(s, "red", "Interstellar Rocket")[0],
            Act("red", LaunchRocket("green", "nothing")),
            "timer space in the action row",
        ),
    ],
)
def test_illegal_attacks(prepare, action, reason: str) -> None:
    r = rejected(prepare(new_game()), action)
    assert reason in str(r.reason) and str(r.rule).startswith(
        "rulebook 5.1" if "zed" not in reason else "rulebook 2"
    )


def test_rocket_blocks_space_until_a_timer_ran_there() -> None:
    state, _ = _armed(new_game(), "red", "Interstellar Rocket", markers=2)
    target = mine_of(state, "green")
    state = ok(state, Act("red", LaunchRocket("green", target)))
    assert state.player("green").built_card(target).blocked_by == "red"  # type: ignore[union-attr]
    assert "already blocked" in rejected(state, Act("red", LaunchRocket("green", target))).reason
    # a blocked card cannot be built over
    state, fusion = plan(state, "green", "Fusion Mine")
    r = rejected(state, StartJob("green", 1, BuildCard(fusion, -2)))
    assert "blocked by an Interstellar Rocket" in str(r.reason) and "5.1e" in str(r.rule)
    # the timer run on the blocked space produces nothing and clears the block
    pool_before = state.attack_pool
    cargo_before = state.ship("green").cargo  # type: ignore[union-attr]
    result = apply(state, StartJob("green", 0, UseCard(target)))
    assert isinstance(result, Accepted)
    result = apply(result.state, TimerRanOut("green", 0))
    assert isinstance(result, Accepted)
    state = result.state
    assert any(type(e).__name__ == "BlockCleared" for e in result.events)
    assert state.ship("green").cargo == cargo_before  # type: ignore[union-attr]
    assert state.attack_pool == pool_before + 1
    assert state.player("green").built_card(target).blocked_by is None  # type: ignore[union-attr]
    state = ok(state, StartJob("green", 0, UseCard(target)), TimerRanOut("green", 0))
    assert state.ship("green").cargo.total == cargo_before.total + 1  # type: ignore[union-attr]


def test_sabotaged_clearing_run_leaves_the_block() -> None:
    state, _ = _armed(new_game(), "red", "Interstellar Rocket")
    state, _ = _armed(state, "blue", "Sabotage Probe")
    target = mine_of(state, "green")
    state = ok(
        state,
        Act("red", LaunchRocket("green", target)),
        StartJob("green", 0, UseCard(target)),
        Act("blue", Sabotage("green", 0)),
        TimerRanOut("green", 0),
    )
    assert state.player("green").built_card(target).blocked_by == "red"  # type: ignore[union-attr]


def test_at_most_two_rocket_markers_on_one_player() -> None:
    state, _ = _armed(four_players(), "red", "Interstellar Rocket", markers=2)
    state, second = build(state, "blue", "Interstellar Rocket", -1)
    state = ok(state, StartJob("blue", 0, UseCard(second)), TimerRanOut("blue", 0))
    state, extra1 = build(state, "green", "Mining Complex", -1)
    state, extra2 = build(state, "green", "Generator", 2)
    state, extra3 = build(state, "green", "Multi-Mine", 2)
    state = ok(
        state,
        Act("red", LaunchRocket("green", mine_of(state, "green"))),
        Act("red", LaunchRocket("green", extra1)),
    )
    r = rejected(state, Act("blue", LaunchRocket("green", extra3)))
    assert "already blocked by 2 attack markers" in str(r.reason)
    assert (
        "timer stands on"
        in rejected(
            ok(state, StartJob("blue", 1, UseCard(mine_of(state, "blue")))),
            Act("blue", LaunchRocket("blue", mine_of(state, "blue"))),
        ).reason
    )


def test_rocket_cannot_hit_card_with_timer() -> None:
    state, _ = _armed(new_game(), "red", "Interstellar Rocket")
    target = mine_of(state, "green")
    state = ok(state, StartJob("green", 0, UseCard(target)))
    assert "timer stands on" in rejected(state, Act("red", LaunchRocket("green", target))).reason


def test_transport_probe_stores_two_and_sends_them_to_the_ship() -> None:
    state, probe = build(four_players(), "red", "Transport Probe", -3)
    state = load(state, "red", green=3)
    r = rejected(state, Act("red", TransferGoods(InShip("red"), OnProbe("red", probe), Goods.of(green=3))))
    assert "stores at most 2 goods" in str(r.reason) and "5.1f" in str(r.rule)
    state = ok(state, Act("red", TransferGoods(InShip("red"), OnProbe("red", probe), Goods.of(green=2))))
    state = ok(state, StartJob("red", 1, MoveShip("red", 1)), TimerRanOut("red", 1))
    state = ok(state, StartJob("red", 0, UseCard(probe)))
    assert (
        "no timer stands on it"
        in rejected(
            state, Act("red", TransferGoods(InShip("red"), OnProbe("red", probe), Goods.of(green=1)))
        ).reason
    )
    state = ok(state, TimerRanOut("red", 0))
    assert state.ship("red").cargo.as_dict() == {"green": 3} and state.ship("red").field == 1  # type: ignore[union-attr]


def test_robot_factory_adds_a_timer() -> None:
    state = new_game()
    pool = state.timer_pool
    assert "no timer number 3" in rejected(state, StartJob("red", 2, RaiseTechLevel())).reason
    state, _ = build(state, "red", "Robot Factory", -1)
    red = state.player("red")
    assert red is not None and len(red.timers) == 3 and timer_limit(state, red) == 3
    assert state.timer_pool == pool - 1
    state = ok(state, StartJob("red", 2, RaiseTechLevel()), TimerRanOut("red", 2))
    assert state.player("red").tech_level == 2  # type: ignore[union-attr]


def test_techcenter_enlarges_planning_area() -> None:
    state, _ = build(new_game(), "red", "TechCenter", -1)
    assert planning_capacity(state, state.player("red")) == 4  # type: ignore[arg-type]


def test_covering_robot_factory_returns_its_timer() -> None:
    state, factory = build(new_game(), "red", "Robot Factory", -1)
    pool = state.timer_pool
    state, _ = build(state, "red", "Fusion Mine", -2)
    red = state.player("red")
    assert red.built_card(factory).covered and len(red.timers) == 2 and state.timer_pool == pool + 1  # type: ignore[union-attr]


def test_orbital_station_provides_neutral_ship() -> None:
    state, _ = build(four_players(), "red", "Orbital Station", -2)
    ship = state.ship("neutral")
    assert ship is not None and ship.controller == "red" and ship.field == 0
    assert "spaceship you control" in rejected(state, StartJob("green", 0, MoveShip("neutral", 1))).reason
    state = ok(state, StartJob("red", 0, MoveShip("neutral", 1)), TimerRanOut("red", 0))
    assert state.ship("neutral").field == 1  # type: ignore[union-attr]


def test_give_and_trade_cards_between_planning_areas() -> None:
    state, a = plan(new_game(), "red", "Converter")
    state, b = plan(state, "green", "Multi-Mine")
    state = ok(state, Act("red", TradeCards(a, "green", b)))
    assert state.player("red").planning == (b,) and state.player("green").planning == (a,)  # type: ignore[union-attr]
    state = ok(state, Act("red", GiveCard("blue", b)))
    assert state.player("blue").planning == (b,)  # type: ignore[union-attr]
    assert "Only cards in your planning area" in rejected(state, Act("red", GiveCard("blue", b))).reason
    state, c = plan(state, "blue", "Depot")
    state, d = plan(state, "green", "Depot")
    assert "no free space" in rejected(state, Act("green", GiveCard("blue", d))).reason
    basic = setup(PLAYERS, seed=1, experienced=False)
    assert "experienced" in rejected(basic, Act("red", GiveCard("blue", "x"))).reason


# =====================================================================================
# a short game on a fake clock: the test schedules when timers run out
# =====================================================================================


class FakeTable:
    """Drives the engine like the hub does: flips start one-minute timers, time is advanced by hand."""

    TIMER_S = 60

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.now_s = 0
        self.due: list[tuple[int, str, int]] = []
        self.events: list[str] = []

    def act(self, action: object) -> None:
        result = apply(self.state, action)  # type: ignore[arg-type]
        assert isinstance(result, Accepted), f"{action}: {result}"
        self.state = result.state
        self.events += [type(e).__name__ for e in result.events]
        if isinstance(action, StartJob):
            self.due.append((self.now_s + self.TIMER_S, action.player, action.timer))

    def advance(self, seconds: int) -> None:
        end = self.now_s + seconds
        for when, player, timer in sorted(d for d in self.due if d[0] <= end):
            self.now_s = when
            self.due.remove((when, player, timer))
            self.act(TimerRanOut(player, timer))
        self.now_s = end


def test_sabotage_and_end_on_a_fake_clock() -> None:
    state, _ = _armed(new_game(), "red", "Sabotage Probe")
    table = FakeTable(state)
    mine = mine_of(state, "green")
    colour = state.cards[mine].colour
    table.act(StartJob("green", 0, UseCard(mine)))
    table.act(StartJob("green", 1, MoveShip("green", 3)))
    table.advance(20)
    table.act(Act("red", Sabotage("green", 0)))
    table.advance(40)  # both green timers run out at 60 s
    green_ship = table.state.ship("green")
    assert green_ship is not None and green_ship.field == 3, "the unsabotaged flight landed"
    assert green_ship.cargo.count(colour) == 0, "the sabotaged mine produced nothing"
    assert "JobVoided" in table.events and "ShipLanded" in table.events
    # the sabotaged timer is free again; the game ends at 1800 s while a timer still runs
    table.act(StartJob("green", 1, MoveShip("green", 2)))  # back home, lands at 120 s
    table.advance(1770 - 60)
    assert table.now_s == 1770 and table.state.ship("green").field == 2  # type: ignore[union-attr]
    table.act(StartJob("green", 0, UseCard(mine)))  # runs out at 1830 s
    table.advance(30)
    table.act(MasterClockExpired())
    assert table.state.phase is Phase.ENDING
    assert "no new jobs" in rejected(table.state, StartJob("green", 1, RaiseTechLevel())).reason
    table.advance(30)
    assert table.state.phase is Phase.OVER
    assert table.events[-1] == "GameOver"
    assert table.state.ship("green").cargo.count(colour) == 1, "the last running timer was still used"  # type: ignore[union-attr]


def test_the_picture_shows_track_ring_sabotage_and_blocks_as_json() -> None:
    import json

    from companion.games.space_dealer.picture import picture
    from companion.i18n import render_tree
    from companion.rules.context import Context

    state, _ = _armed(new_game(), "red", "Sabotage Probe")
    state, _ = build(state, "blue", "Interstellar Rocket", -1)
    state = ok(
        state,
        StartJob("blue", 0, UseCard(_first_of(state, "blue", "Interstellar Rocket"))),
        TimerRanOut("blue", 0),
    )
    order = mine_of(state, "green")
    state = dock(load(state, "red", **state.cards[order].order.goods_dict()), "red", 2)  # type: ignore[union-attr]
    state = ok(
        state,
        Act("red", SatisfyOrder("red", order)),
        StartJob("green", 0, RaiseTechLevel()),
        Act("red", Sabotage("green", 0)),
        Act("blue", LaunchRocket("red", mine_of(state, "red"))),
    )
    view = json.loads(json.dumps(render_tree(picture(state, Context(started=True)), "en")))
    players = {p["name"]: p for p in view["players"]}
    points = state.cards[order].order.points  # type: ignore[union-attr]
    assert players["red"]["points"] == points[0] and players["red"]["markers_placed"] == 1
    assert players["green"]["points"] == points[1]
    assert players["green"]["timers"][0]["sabotaged_by"] == "red"
    assert players["green"]["timers"][0]["on"] == "planet" and players["green"]["planet_timer"] == 1
    assert (
        next(c for c in players["red"]["cards"] if c["card"] == mine_of(state, "red"))["blocked_by"] == "blue"
    )
    assert next(c for c in players["green"]["cards"] if c["card"] == order)["order"]["done"] is True
    assert {s["id"] for s in view["ring"][2]["ships"]} == {"green", "red"}
    assert view["ring"][1]["owner"] is None and view["ring"][1]["order"]["card"]
    assert view["phase"] == "running"


def _first_of(state: GameState, player: str, type_name: str) -> str:
    p = state.player(player)
    assert p is not None
    return next(b.card for b in p.built if state.cards[b.card].type == type_name)


# =====================================================================================
# free actions: rejections with their reasons
# =====================================================================================


def _drawn(state: GameState) -> GameState:
    state = state.with_player(replace(state.player("red"), tech_level=3))  # type: ignore[arg-type]
    return ok(state, Act("red", DrawTechCards(3)))


def _full_planning(state: GameState) -> GameState:
    state = state.with_player(replace(state.player("red"), tech_level=3))  # type: ignore[arg-type]
    state, _ = plan(state, "red", "Converter")
    return plan(state, "red", "Metropolis")[0]


def _red_planned(state: GameState) -> GameState:
    return plan(state, "red", "Converter")[0]


def _both_planned(state: GameState) -> GameState:
    state, _ = plan(state, "red", "Converter")
    return plan(state, "blue", "Multi-Mine")[0]


def _red_card(state: GameState) -> str:
    return state.player("red").planning[0]  # type: ignore[union-attr]


def _busy_planned(state: GameState) -> GameState:
    state, card = plan(state, "red", "Converter")
    state, _ = plan(state, "blue", "Multi-Mine")
    return ok(state, StartJob("red", 0, DiscardCard(card)))


def _flying(state: GameState) -> GameState:
    return ok(load(state, "red", red=1), StartJob("red", 0, MoveShip("red", 1)))


def _empty_stack3(state: GameState) -> GameState:
    state = state.with_player(replace(state.player("red"), tech_level=3))  # type: ignore[arg-type]
    for card in list(state.stack(3).cards.items()):
        state = take_out(state, card)
    return state


FREE = [
    pytest.param(
        _noop,
        lambda s: Act("red", DrawTechCards(1)),
        "TechLevel 2 or TechLevel 3 stack",
        "3.2.1",
        id="draw-level-1",
    ),
    pytest.param(
        _full_planning, lambda s: Act("red", DrawTechCards(2)), "no free space", "3.1", id="draw-full"
    ),
    pytest.param(
        _empty_stack3, lambda s: Act("red", DrawTechCards(3)), "stack is empty", "3.2.1", id="draw-empty"
    ),
    pytest.param(
        _noop, lambda s: Act("red", KeepDrawnCard("x")), "not drawn any cards", "3.2.1", id="keep-nothing"
    ),
    pytest.param(
        _drawn,
        lambda s: Act("zed", KeepDrawnCard("x")),
        "zed does not play in this game",
        "2",
        id="keep-unknown",
    ),
    pytest.param(
        lambda s: ok(_drawn(s), MasterClockExpired()),
        lambda s: Act("red", KeepDrawnCard("x")),
        "has ended",
        "4",
        id="keep-after-end",
    ),
    pytest.param(
        _red_planned,
        lambda s: Act("red", GiveCard("red", _red_card(s))),
        "another player",
        "5.2",
        id="give-self",
    ),
    pytest.param(
        _red_planned,
        lambda s: Act("red", GiveCard("zed", _red_card(s))),
        "zed does not play in this game",
        "2",
        id="give-unknown",
    ),
    pytest.param(
        _busy_planned,
        lambda s: Act("red", GiveCard("blue", _red_card(s))),
        "timer stands on",
        "5.2",
        id="give-busy",
    ),
    pytest.param(
        _both_planned,
        lambda s: Act("red", TradeCards(_red_card(s), "red", _red_card(s))),
        "another player",
        "5.2",
        id="trade-self",
    ),
    pytest.param(
        _both_planned,
        lambda s: Act("red", TradeCards("x", "blue", "y")),
        "two planning areas",
        "5.2",
        id="trade-unplanned",
    ),
    pytest.param(
        _busy_planned,
        lambda s: Act("red", TradeCards(_red_card(s), "blue", s.player("blue").planning[0])),
        "timer stands on",
        "5.2",
        id="trade-busy",
    ),
    pytest.param(
        _noop,
        lambda s: Act("red", TransferGoods(InShip("red"), InShip("green"), Goods())),
        "at least one good",
        "3.3",
        id="no-goods",
    ),
    pytest.param(
        _noop,
        lambda s: Act("red", TransferGoods(InShip("red"), InShip("green"), Goods.of(purple=1))),
        "Goods come in",
        "3.3",
        id="purple",
    ),
    pytest.param(
        _noop,
        lambda s: Act("red", TransferGoods(InShip("red"), InShip("red"), Goods.of(red=1))),
        "two different",
        "3.3",
        id="same",
    ),
    pytest.param(
        _noop,
        lambda s: Act("red", TransferGoods(InShip("red"), InShip("ufo"), Goods.of(red=1))),
        "no spaceship",
        "3.3",
        id="ufo",
    ),
    pytest.param(
        _flying,
        lambda s: Act("red", TransferGoods(InShip("red"), InDepot("red"), Goods.of(red=1))),
        "in flight",
        "3.3",
        id="flying",
    ),
    pytest.param(
        _noop,
        lambda s: Act("red", TransferGoods(InShip("red"), InDepot("zed"), Goods.of(red=1))),
        "zed does not play in this game",
        "3.3",
        id="depot-zed",
    ),
    pytest.param(
        _noop,
        lambda s: Act(
            "red", TransferGoods(InShip("red"), OnProbe("red", mine_of(s, "red")), Goods.of(red=1))
        ),
        "not a Transport Probe",
        "3.3",
        id="not-probe",
    ),
    pytest.param(
        _noop,
        lambda s: Act("red", ReturnGoods(InShip("green"), Goods.of(red=1))),
        "your own spaceship",
        "3.3",
        id="return-others",
    ),
    pytest.param(
        _noop,
        lambda s: Act("red", ReturnGoods(InDepot("red"), Goods.of(red=1))),
        "no Depot",
        "3.3",
        id="return-no-depot",
    ),
    pytest.param(
        _noop,
        lambda s: Act("red", ReturnGoods(InShip("red"), Goods.of(red=1))),
        "not there",
        "3.3",
        id="return-missing",
    ),
    pytest.param(
        _noop,
        lambda s: Act("zed", ReturnGoods(InShip("red"), Goods.of(red=1))),
        "zed does not play in this game",
        "2",
        id="return-zed",
    ),
    pytest.param(
        _flying,
        lambda s: Act("red", SatisfyOrder("red", mine_of(s, "green"))),
        "in flight",
        "3.4",
        id="order-flying",
    ),
    pytest.param(
        _noop, lambda s: Act("red", SatisfyOrder("red", 42)), "Name the order", "3.4", id="order-type"
    ),
    pytest.param(
        lambda s: dock(s, "red", 1),
        lambda s: Act("red", SatisfyOrder("red", s.neutral_at(1).order)),
        "does not carry",
        "3.4",
        id="neutral-no-goods",
    ),
    pytest.param(
        _noop,
        lambda s: Act("zed", Sabotage("green", 0)),
        "zed does not play in this game",
        "2",
        id="sabotage-zed",
    ),
    pytest.param(
        _noop,
        lambda s: Act("red", LaunchRocket("zed", "x")),
        "zed does not play in this game",
        "2",
        id="rocket-zed",
    ),
    pytest.param(_noop, lambda s: "not an action", "Unknown action", "3.2", id="garbage"),
    pytest.param(_noop, lambda s: StartJob("red", 0, "dance"), "Unknown job", "3.2", id="garbage-job"),
    pytest.param(
        _flying, lambda s: StartJob("red", 1, MoveShip("red", 2)), "Another timer", "3.2", id="ship-busy"
    ),
    pytest.param(
        _red_planned,
        lambda s: StartJob("red", 0, BuildCard(_red_card(s), "left")),
        "whole-number unit",
        "3.2.2",
        id="x-type",
    ),
    pytest.param(
        _noop,
        lambda s: Act("red", PlaceBuiltCard(0, "left")),
        "no finished build",
        "3.2.2",
        id="place-nothing",
    ),
    pytest.param(
        lambda s: ok(_red_planned(s), MasterClockExpired()),
        lambda s: Act("red", PlaceBuiltCard(0, 1)),
        "game is over",
        "4",
        id="place-over",
    ),
]


@pytest.mark.parametrize(("prepare", "make", "reason", "section"), FREE)
def test_free_action_rejections(prepare, make, reason: str, section: str) -> None:
    state = prepare(new_game())
    r = rejected(state, make(state))
    assert reason in str(r.reason), r
    assert str(r.rule).startswith(f"rulebook {section}"), r


def test_basic_game_has_no_experienced_actions() -> None:
    state = setup(PLAYERS, seed=1, experienced=False)
    state, card = plan(state, "red", "Converter")
    assert "experienced" in rejected(state, StartJob("red", 0, DiscardCard(card))).reason
    state = dock(load(state, "red", blue=1), "red", 1)
    r = rejected(state, Act("red", TransferGoods(InShip("red"), AtNeutralPlanet(1), Goods.of(blue=1))))
    assert "experienced" in str(r.reason) and "5.3" in str(r.rule)
    assert "experienced" in rejected(state, Act("red", TradeCards(card, "blue", "x"))).reason


# =====================================================================================
# more effects
# =====================================================================================


def test_mining_complex_and_fusion_mine_produce_their_colour() -> None:
    state, complex_ = build(four_players(), "red", "Mining Complex", -1)
    colour = state.cards[complex_].colour
    state = ok(state, StartJob("red", 0, UseCard(complex_)), TimerRanOut("red", 0))
    assert state.ship("red").cargo.count(colour) == 2  # type: ignore[union-attr]
    state = ok(state, Act("red", ReturnGoods(InShip("red"), Goods.of({colour: 2}))))
    state, fusion = build(state, "red", "Fusion Mine", -2)
    fcolour = state.cards[fusion].colour
    state = ok(state, StartJob("red", 0, UseCard(fusion)), TimerRanOut("red", 0))
    assert state.ship("red").cargo.count(fcolour) == 4  # type: ignore[union-attr]
    assert total_goods(state)[fcolour] == 10


def test_production_into_another_ship_at_the_planet() -> None:
    state = dock(new_game(), "green", 0)
    mine = mine_of(state, "red")
    state = ok(state, StartJob("red", 0, UseCard(mine, to="green")), TimerRanOut("red", 0))
    assert state.ship("green").cargo.count(state.cards[mine].colour) == 1  # type: ignore[union-attr]
    assert state.ship("red").cargo.total == 0  # type: ignore[union-attr]


def test_fusion_converter_exchanges_two_goods_from_the_depot() -> None:
    state, depot = build(new_game(), "red", "Depot", -3)
    state, conv = build(state, "red", "Fusion Converter", -2)  # lies across the Mine's action half
    state = load(state, "red", red=2)
    state = ok(state, Act("red", TransferGoods(InShip("red"), InDepot("red"), Goods.of(red=2))))
    job = UseCard(conv, exchanges=(("red", "green"), ("red", "blue")))
    state = ok(state, StartJob("red", 0, job), TimerRanOut("red", 0))
    assert state.player("red").built_card(depot).stored.as_dict() == {"green": 1, "blue": 1}  # type: ignore[union-attr]


def test_building_over_a_depot_returns_its_goods_to_the_pool() -> None:
    state, depot = build(new_game(), "red", "Depot", -1)
    state = load(state, "red", yellow=2)
    state = ok(state, Act("red", TransferGoods(InShip("red"), InDepot("red"), Goods.of(yellow=2))))
    state, card = plan(state, "red", "Fusion Mine")
    result = apply(state, StartJob("red", 0, BuildCard(card, -2)))
    assert isinstance(result, Accepted)
    result = apply(result.state, TimerRanOut("red", 0))
    assert isinstance(result, Accepted)
    assert any(type(e).__name__ == "GoodsLost" and e.goods == Goods.of(yellow=2) for e in result.events)
    assert result.state.pool.count("yellow") == 10
    assert result.state.player("red").built_card(depot).covered  # type: ignore[union-attr]


def test_building_over_the_orbital_station_releases_the_neutral_ship() -> None:
    state, _ = build(four_players(), "red", "Orbital Station", -2)
    state, _ = build(state, "red", "Mining Complex", -1)  # over the station's action half
    ship = state.ship("neutral")
    assert ship is not None and ship.controller is None and ship.field == 0
    assert "spaceship you control" in rejected(state, StartJob("red", 0, MoveShip("neutral", 1))).reason


def test_discard_returns_level_1_and_level_3_cards_to_their_stacks() -> None:
    state = new_game()
    depot = next(c for c in state.player("red").stack if state.cards[c].type == "Depot")  # type: ignore[union-attr]
    state = ok(
        state, Act("red", PlayCard(depot)), StartJob("red", 0, DiscardCard(depot)), TimerRanOut("red", 0)
    )
    assert state.player("red").stack[-1] == depot  # type: ignore[union-attr]
    state, big = plan(state, "red", "Megacity")
    state = hub_ok(state, StartJob("red", 0, DiscardCard(big)), TimerRanOut("red", 0))
    assert top(state, 3)[-1] == big and big in state.stack(3).cards


def test_loading_attack_marker_with_empty_pool_does_nothing() -> None:
    state, probe = build(new_game(), "red", "Sabotage Probe", -1)
    state = replace(state, attack_pool=0)
    result = apply(ok(state, StartJob("red", 0, UseCard(probe))), TimerRanOut("red", 0))
    assert isinstance(result, Accepted)
    assert result.state.player("red").built_card(probe).attack_markers == 0  # type: ignore[union-attr]
    assert any(type(e).__name__ == "JobFizzled" for e in result.events)


def test_every_neutral_card_contested_leaves_the_last_one_drawn() -> None:
    state = new_game()
    first = state.neutral_at(1).order  # type: ignore[union-attr]
    small = [
        c
        for c, spec in state.order_cards.items()
        if c != first and len(spec.goods) == 2 and spec.points == (2,)
    ]
    a, b = small[:2]
    state = replace(state, orders=Pile.of((a, b)), hub=replace(state.hub, orders=(a, b)))
    state = dock(load(state, "red", **state.order_cards[first].goods_dict()), "red", 1)  # type: ignore[index]
    for name in ("green", "blue"):
        state = dock(load(state, name, red=1, yellow=1, blue=1, green=1), name, 1)
    after, events = with_hub(state, Act("red", SatisfyOrder("red", first)))  # type: ignore[arg-type]
    assert after.neutral_at(1).order == b  # type: ignore[union-attr]
    assert after.orders == Pile.of((a,)) and after.hub.orders == (a,)  # type: ignore[union-attr]
    assert [e.order for e in events if type(e).__name__ == "OrderRedrawn"] == [a]


def test_the_picture_shows_every_job_on_its_timer_space() -> None:
    from companion.games.space_dealer.picture import picture
    from companion.i18n import render_tree
    from companion.rules.context import Context

    state, card = plan(new_game(), "red", "Converter")
    state, other = plan(state, "green", "Multi-Mine")
    state = ok(
        state,
        StartJob("red", 0, BuildCard(card, -1)),
        StartJob("red", 1, MoveShip("red", 1)),
        StartJob("green", 0, DiscardCard(other)),
        StartJob("blue", 0, UseCard(mine_of(state, "blue"))),
    )
    view = render_tree(picture(state, Context(started=True)), "en")
    spaces = {
        (p["name"], t["number"] - 1): {k: t[k] for k in ("on", "card", "ship", "to") if k in t}
        for p in view["players"]
        for t in p["timers"]
    }
    labels = {(p["name"], t["number"] - 1): t["label"] for p in view["players"] for t in p["timers"]}
    assert spaces[("red", 0)] == {"on": "planning", "card": card}
    assert labels[("red", 0)] == "running: build Converter at unit -1"
    assert spaces[("red", 1)] == {"on": "ship", "ship": "red", "to": 1}
    assert spaces[("green", 0)] == {"on": "planning", "card": other}
    assert labels[("green", 0)] == "running: discard Multi-Mine"
    assert spaces[("blue", 0)] == {"on": "card", "card": mine_of(state, "blue")}
    assert spaces[("blue", 1)] == {"on": "below"}
    arriving = [s for s in view["ring"][1]["ships"] if s["arriving"]]
    assert [s["id"] for s in arriving] == ["red"]
    red = next(p for p in view["players"] if p["name"] == "red")
    assert red["ship"]["destination"] == 1 and red["ship"]["field"] is None


def test_rocket_block_on_a_fake_clock() -> None:
    state, rocket = _armed(new_game(), "blue", "Interstellar Rocket")
    table = FakeTable(state)
    mine = mine_of(state, "green")
    colour = state.cards[mine].colour
    table.act(StartJob("green", 0, UseCard(mine)))  # runs out at 60 s
    table.advance(30)
    r = rejected(table.state, Act("blue", LaunchRocket("green", mine)))
    assert "timer stands on" in str(r.reason)
    table.advance(30)
    assert table.state.ship("green").cargo.count(colour) == 1  # type: ignore[union-attr]
    table.act(Act("blue", LaunchRocket("green", mine)))  # at 60 s
    table.act(StartJob("green", 0, UseCard(mine)))  # the clearing run, 60 s to 120 s
    table.act(StartJob("blue", 0, UseCard(rocket)))  # blue reloads meanwhile
    table.advance(60)
    assert "BlockCleared" in table.events
    assert table.state.ship("green").cargo.count(colour) == 1, "the clearing run produced nothing"  # type: ignore[union-attr]
    assert table.state.player("blue").built_card(rocket).attack_markers == 1  # type: ignore[union-attr]
    table.act(StartJob("green", 0, UseCard(mine)))
    table.advance(60)
    assert table.state.ship("green").cargo.count(colour) == 2  # type: ignore[union-attr]
