"""Property tests: random play never breaks the Space Dealer invariants and never raises."""

from __future__ import annotations

import random
import re
from dataclasses import replace

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from companion.games.space_dealer import GAME
from companion.games.space_dealer.engine import apply, final_score
from companion.games.space_dealer.hubdeck import deal
from companion.games.space_dealer.model import (
    AbandonJob,
    Act,
    AtNeutralPlanet,
    BuildCard,
    DiscardCard,
    DrawTechCards,
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
from companion.games.space_dealer.words import describe
from companion.i18n import catalog_entries
from companion.rules.outcome import Accepted, Rejected
from companion.rules.text import PLACEHOLDER, Text, from_json
from tests.games.test_space_dealer_engine import take_out

NAMES = ["red", "green", "blue", "white", "black", "pink", "orange", "purple"]
COLOURS = ["red", "yellow", "blue", "green"]


def setup(players: list[str], **kw: object) -> GameState:
    """The engine's deal with the shipped cards."""
    return deal(players, data=GAME.data, **kw)  # type: ignore[arg-type]


def goods_totals(state: GameState) -> dict[str, int]:
    totals: dict[str, int] = dict.fromkeys(COLOURS, 0)
    for bag in state.all_goods():
        for c, n in bag.items:
            totals[c] += n
    return totals


def attack_markers(state: GameState) -> int:
    on_cards = sum(b.attack_markers + (b.blocked_by is not None) for p in state.players for b in p.built)
    on_timers = sum(t.sabotaged_by is not None for p in state.players for t in p.timers)
    return state.attack_pool + on_cards + on_timers


def start_state(seed: int, n: int, boost: bool) -> GameState:
    """A fresh game; with ``boost`` every player has planned two common cards, goods and level 3."""
    state = setup(NAMES[:n], seed=seed)
    if not boost:
        return state
    for i, p in enumerate(state.players):
        cards = (state.hub.stack2[2 * i], state.hub.stack3[2 * i])  # type: ignore[union-attr]
        state = state.with_player(replace(p, planning=cards, tech_level=3))
        ship = state.ship(p.name)
        bag = Goods.of({COLOURS[i % 4]: 2, COLOURS[(i + 1) % 4]: 2})
        state = replace(state.with_ship(replace(ship, cargo=bag)), pool=state.pool - bag)  # type: ignore[arg-type]
    for card in {c for p in state.players for c in p.planning}:
        state = take_out(state, card)
    return state.with_player(replace(state.players[0], markers_placed=8))


def actions_for(state: GameState) -> st.SearchStrategy:
    """Plausible and implausible actions, drawn from what is on the table at the start."""
    players = st.sampled_from(list(state.names) + ["zed"])
    all_cards = list(state.cards)
    in_play = [c for p in state.players for c in p.planning + p.stack + tuple(b.card for b in p.built)]
    cards = st.sampled_from(in_play + all_cards[:5] + ["nope"])
    timers = st.integers(-1, 2)
    x = st.integers(-9, 10)
    fields = st.integers(-1, state.ring_size)
    ships = st.sampled_from(list(state.names) + ["neutral", "ufo"])
    colour = st.sampled_from(COLOURS + ["purple"])
    goods = st.builds(lambda c, k: Goods.of({c: k}), st.sampled_from(COLOURS), st.integers(1, 4))
    holders = st.one_of(
        st.builds(InShip, ships),
        st.builds(InDepot, players),
        st.builds(OnProbe, players, cards),
        st.builds(AtNeutralPlanet, fields),
    )
    orders = in_play + list(state.order_cards)
    jobs = st.one_of(
        st.just(RaiseTechLevel()),
        st.builds(BuildCard, cards, st.one_of(st.none(), x)),
        st.builds(
            UseCard,
            cards,
            to=st.sampled_from(["", "depot"] + list(state.names)),
            colour=colour,
            exchanges=st.lists(st.tuples(colour, colour), max_size=3).map(tuple),
            source=st.sampled_from(["", "depot"] + list(state.names)),
            ship=st.sampled_from([""] + list(state.names)),
        ),
        st.builds(MoveShip, ships, fields),
        st.builds(DiscardCard, cards),
    )
    return st.one_of(
        st.builds(TimerRanOut, players, timers),
        st.builds(TimerRanOut, players, timers),
        st.builds(StartJob, players, timers, jobs),
        st.builds(StartJob, players, timers, jobs),
        st.builds(Act, players, st.builds(PlayCard, cards)),
        st.builds(Act, players, st.builds(DrawTechCards, st.integers(1, 4))),
        st.builds(
            Act,
            players,
            st.builds(
                KeepDrawnCard,
                st.sampled_from(list(state.hub.stack2[:4]) + list(state.hub.stack3[:4]) + ["nope"]),  # type: ignore[union-attr]
            ),
        ),
        st.builds(Act, players, st.builds(PlaceBuiltCard, timers, x)),
        st.builds(Act, players, st.builds(AbandonJob, timers)),
        st.builds(Act, players, st.builds(TransferGoods, holders, holders, goods)),
        st.builds(Act, players, st.builds(ReturnGoods, holders, goods)),
        st.builds(Act, players, st.builds(SatisfyOrder, ships, st.sampled_from(orders + ["nope"]))),
        st.builds(Act, players, st.builds(Sabotage, players, timers)),
        st.builds(Act, players, st.builds(LaunchRocket, players, cards)),
        st.builds(Act, players, st.builds(GiveCard, players, cards)),
        st.builds(Act, players, st.builds(TradeCards, cards, players, cards)),
        st.builds(StartJob, players, st.just("0"), st.just(RaiseTechLevel())),
        st.builds(Act, players, st.builds(PlaceBuiltCard, timers, st.just("left"))),
        st.just("not an action"),
    )


def check_invariants(
    before: GameState,
    state: GameState,
    goods: dict[str, int],
    markers: int,
    timers: int,
    placed: dict[str, int],
) -> None:
    assert goods_totals(state) == goods, "goods are conserved"
    for ship in state.ships:
        assert ship.cargo.total <= state.data.cargo_limit, "cargo never above 8"
        assert (ship.field is None) != (ship.destination is None) or ship.controller is None
    for p in state.players:
        assert 0 <= p.markers_placed <= state.data.placeable_markers, "never more than 10 markers placed"
        new = sum(1 for o in state.satisfied if o.by == p.name and o.owner is not None)
        assert p.markers_placed == placed[p.name] + new, "one marker per order at a player planet"
        assert state.data.max_tech_level >= p.tech_level >= 1
        assert len(p.planning) <= 2 + 2 * 4
        assert sum(b.blocked_by is not None for b in p.built) <= state.data.rocket_markers_per_target
        for b in p.built:
            if state.card_type(b.card).kind == "transport":
                assert b.stored.total <= 2
            assert b.attack_markers <= state.data.attack_markers_per_card
        busy = [t.job for t in p.timers if t.status is not TimerStatus.INACTIVE and t.sabotaged_by is None]
        assert len(busy) == len(set(map(repr, busy))), "one timer per timer space"
    assert attack_markers(state) == markers, "attack markers are conserved"
    assert state.timer_pool + sum(len(p.timers) for p in state.players) == timers, "timers are conserved"
    order = [Phase.RUNNING, Phase.ENDING, Phase.OVER]
    assert order.index(state.phase) >= order.index(before.phase)
    orders = [o.order for o in state.satisfied]
    assert len(orders) == len(set(orders)), "each order once"
    assert placed_once(state), "a card is in one place: a stack, a player's cards, or built"


def placed_once(state: GameState) -> bool:
    """Every card the stacks can no longer hold is somewhere on the table, and nowhere twice."""
    on_table = [
        c
        for p in state.players
        for c in (*p.stack, *p.planning, *p.plants[0], *p.plants[1], *(b.card for b in p.built))
    ]
    in_stacks = [c for s in state.stacks for c in s.cards.items()]
    return len(on_table) == len(set(on_table)) and not set(on_table) & set(in_stacks)


def untranslated(value: object) -> list[str]:
    """Message ids in ``value`` (a text, or a view's JSON with texts inside) that a Spanish or German
    catalog lacks; a verbatim text (a name, a number) needs none."""
    if isinstance(value, dict) and isinstance(value.get("msg"), str):
        value = from_json(value)
    if isinstance(value, Text):
        args = [a for _, a in value.args]
        own = []
        if not value.verbatim and re.search("[A-Za-z]", PLACEHOLDER.sub("", value.msgid)):
            own = [
                f"{lang}: {value.msgid}" for lang in ("es", "de") if value.msgid not in catalog_entries(lang)
            ]
        return own + [m for a in args for m in untranslated(a)]
    if isinstance(value, dict):
        return [m for v in value.values() for m in untranslated(v)]
    if isinstance(value, (list, tuple)):
        return [m for v in value for m in untranslated(v)]
    return []


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(st.data(), st.integers(0, 10_000), st.sampled_from([3, 4]), st.booleans())
def test_random_play_keeps_invariants(data: st.DataObject, seed: int, n: int, boost: bool) -> None:
    state = start_state(seed, n, boost)
    goods, markers = goods_totals(state), attack_markers(state)
    timers = state.timer_pool + sum(len(p.timers) for p in state.players)
    placed = {p.name: p.markers_placed for p in state.players}
    steps = data.draw(st.integers(10, 60), label="steps")
    strategy = actions_for(state)
    for _ in range(steps):
        action = data.draw(strategy, label="action")
        result = apply(state, action)  # must never raise
        if isinstance(result, Accepted):
            event(f"accepted {type(action).__name__}")
            check_invariants(state, result.state, goods, markers, timers, placed)
            assert untranslated(describe(result.state, result.events)) == []
            state = result.state
        else:
            assert isinstance(result, Rejected)
            assert str(result.reason) and str(result.rule).startswith("rulebook")
            assert untranslated([result.reason, result.rule]) == []  # every refusal in Spanish and German
    score = final_score(state)
    assert sum(s.markers for s in score.players.values()) == sum(
        p.markers_placed - placed[p.name] for p in state.players
    )


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.lists(st.sampled_from(["jobs", "clock"]), min_size=1, max_size=12))
def test_game_reaches_over_once_all_timers_ran_out(seed: int, plan: list[str]) -> None:
    state = setup(NAMES[:3], seed=seed)
    for step in plan:
        if step == "jobs" and state.phase is Phase.RUNNING:
            for name in state.names:
                result = apply(state, StartJob(name, 0, RaiseTechLevel()))
                state = result.state if isinstance(result, Accepted) else state
        elif step == "clock" and state.phase is Phase.RUNNING:
            state = apply(state, MasterClockExpired()).state  # type: ignore[union-attr]
    if state.phase is Phase.RUNNING:
        state = apply(state, MasterClockExpired()).state  # type: ignore[union-attr]
    for name in state.names:
        result = apply(state, TimerRanOut(name, 0))
        state = result.state if isinstance(result, Accepted) else state
    assert state.phase is Phase.OVER
    assert not any(t.status is TimerStatus.ACTIVE for p in state.players for t in p.timers)


# --- a guided random walk: mostly sensible actions, so that most of them are accepted ----


def sensible_actions(state: GameState, rng: random.Random) -> list[object]:
    """Candidate actions built from the table as it is now (legal or nearly so)."""
    out: list[object] = []
    ring = state.ring_size
    for p in state.players:
        name = p.name
        own_ship = state.ship(name)
        timer_cards = [b.card for b in p.built if state.card_type(b.card).timer]
        for t in p.timers:
            if t.status is TimerStatus.ACTIVE:
                out += [TimerRanOut(name, t.index)] * 4
                for q in state.players:
                    out.append(Act(q.name, Sabotage(name, t.index)))
            elif t.status is TimerStatus.USABLE:
                out += [
                    Act(name, PlaceBuiltCard(t.index, rng.randint(-4, 5))),
                    Act(name, AbandonJob(t.index)),
                ]
            else:
                out.append(StartJob(name, t.index, RaiseTechLevel()))
                for card in timer_cards:
                    exchanges = ((rng.choice(COLOURS), rng.choice(COLOURS)),)
                    out += [
                        StartJob(
                            name,
                            t.index,
                            UseCard(
                                card,
                                to=rng.choice(["", "depot"]),
                                colour=rng.choice(COLOURS),
                                exchanges=exchanges,
                            ),
                        )
                    ] * 3
                for card in p.planning:
                    x = rng.choice([-4, -3, -2, -1, 0, 1, 2, 3, 4, 5, None])
                    out += [StartJob(name, t.index, BuildCard(card, x))] * 2
                    out.append(StartJob(name, t.index, DiscardCard(card)))
                for ship in state.ships:
                    if ship.controller == name and ship.field is not None:
                        step = rng.choice([-1, 1])
                        out.append(StartJob(name, t.index, MoveShip(ship.id, (ship.field + step) % ring)))
                        out.append(StartJob(name, t.index, MoveShip(ship.id, rng.randrange(ring))))
        if p.stack:
            out.append(Act(name, PlayCard(rng.choice(p.stack))))
        out.append(Act(name, DrawTechCards(rng.choice([2, 3]))))
        if p.pending_draw:
            level, shown = p.pending_draw  # shown by a hub deck, or named from the stack at a table deck
            out.append(Act(name, KeepDrawnCard(rng.choice(shown or state.stack(level).cards.items()))))
        if own_ship is not None and own_ship.cargo:
            colour, _ = rng.choice(own_ship.cargo.items)
            bag = Goods.of({colour: 1})
            for other in state.ships:
                out.append(Act(name, TransferGoods(InShip(name), InShip(other.id), bag)))
            out.append(Act(name, TransferGoods(InShip(name), InDepot(name), bag)))
            for b in p.built:
                out.append(Act(name, TransferGoods(InShip(name), OnProbe(name, b.card), bag)))
            if own_ship.field is not None:
                out.append(Act(name, TransferGoods(InShip(name), AtNeutralPlanet(own_ship.field), bag)))
            out.append(Act(name, ReturnGoods(InShip(name), bag)))
        if own_ship is not None and own_ship.field is not None:
            planet = state.neutral_at(own_ship.field)
            if planet is not None and planet.goods:
                colour, _ = planet.goods.items[0]
                out.append(
                    Act(
                        name,
                        TransferGoods(AtNeutralPlanet(own_ship.field), InShip(name), Goods.of({colour: 1})),
                    )
                )
        for ship in state.ships:
            if ship.controller == name and ship.field is not None:
                owner = state.field_owner(ship.field)
                if owner is not None:
                    q = state.player(owner)
                    out += [Act(name, SatisfyOrder(ship.id, b.card)) for b in q.built] * 3  # type: ignore[union-attr]
                else:
                    planet = state.neutral_at(ship.field)
                    if planet is not None and planet.order:
                        out += [Act(name, SatisfyOrder(ship.id, planet.order))] * 3
        target = rng.choice(state.players)
        if target.built:
            out.append(Act(name, LaunchRocket(target.name, rng.choice(target.built).card)))
        if p.planning:
            out.append(Act(name, GiveCard(target.name, rng.choice(p.planning))))
            if target.planning:
                out.append(
                    Act(name, TradeCards(rng.choice(p.planning), target.name, rng.choice(target.planning)))
                )
    return out


def boosted(seed: int, n: int) -> GameState:
    """Start with goods matching orders in every ship, level 3, and cards planned."""
    state = start_state(seed, n, boost=True)
    for p in state.players:
        ship = state.ship(p.name)
        bag = Goods.of({c: 1 for c in COLOURS})
        if state.pool.contains(bag) and ship is not None and ship.cargo.total + 4 <= 8:
            state = replace(state.with_ship(replace(ship, cargo=ship.cargo + bag)), pool=state.pool - bag)
    return state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.sampled_from([3, 4, 5, 8]), st.booleans())
def test_guided_random_walk_keeps_invariants(seed: int, n: int, boost: bool) -> None:
    rng = random.Random(seed)
    state = boosted(seed, n) if boost else setup(NAMES[:n], seed=seed)
    goods, markers = goods_totals(state), attack_markers(state)
    timers = state.timer_pool + sum(len(p.timers) for p in state.players)
    placed = {p.name: p.markers_placed for p in state.players}
    accepted = 0
    for _ in range(300):
        if state.phase is Phase.OVER:
            break
        options = sensible_actions(state, rng)
        action = MasterClockExpired() if rng.random() < 0.002 or not options else rng.choice(options)
        result = apply(state, action)  # type: ignore[arg-type]
        if isinstance(result, Accepted):
            accepted += 1
            event(f"accepted {type(action).__name__}")
            check_invariants(state, result.state, goods, markers, timers, placed)
            assert untranslated(describe(result.state, result.events)) == []
            state = result.state
        else:
            assert str(result.reason) and str(result.rule).startswith("rulebook")
            assert untranslated([result.reason, result.rule]) == []
    event(f"phase {state.phase.value}")
    assert accepted > 0
