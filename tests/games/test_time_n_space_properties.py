"""Property tests of the Time 'n' Space engine over random action sequences (hypothesis).

Whatever the players do: goods are conserved (supply plus board is always 48), order
counters, bonus counters and building tiles are conserved, the engine never raises
(it only rejects), a rejection leaves the state unchanged, replaying the accepted
actions from the setup gives an equal state, and the final scoring accepts the result.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from companion.games.time_n_space import GAME
from companion.games.time_n_space.components import COLORS
from companion.games.time_n_space.engine import apply, replay
from companion.games.time_n_space.model import (
    RESEARCH,
    SHIP,
    Beam,
    Build,
    Cube,
    Deliver,
    Delivery,
    GameState,
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
    TakeOcherTile,
    Trade,
    Upgrade,
)
from companion.games.time_n_space.record import state_to_json
from companion.games.time_n_space.scoring import final_scores
from companion.games.time_n_space.setup import setup_full, setup_intro
from companion.rules.outcome import Accepted, Rejected

from .test_time_n_space_helpers import BOX, NAMES


def counters_by_owner(state: GameState) -> Counter[tuple[str, str, int]]:
    """Every order counter of the game, wherever it is: above, on a control center, collected."""
    seen: Counter[tuple[str, str, int]] = Counter()
    for p in state.players:
        for o in p.above:
            seen[(o.owner, o.color, o.value)] += 1
        for _, _, o in p.placed_orders():
            seen[(o.owner, o.color, o.value)] += 1
        for c in p.collected:
            seen[(c.source, c.color, c.value)] += 1
    return seen


def tiles_in_game(state: GameState) -> list[str]:
    ids = [*state.unseen.items(), *state.ocher.items()]
    for p in state.players:
        if p.research is not None:
            ids.append(p.research.id)
        ids.extend(b.tile.id for b in p.buildings if b.tile is not None)
    return sorted(ids)


def check_invariants(state: GameState, start: GameState) -> None:
    assert sum(state.supply) + state.goods_on_board() == 48
    for k, color in enumerate(COLORS):
        on_board = sum(c == Cube(color) for p in state.players for b in p.buildings for c in b.contents)
        assert state.supply[k] >= 0
        assert state.supply[k] + on_board == 12
    assert counters_by_owner(state) == counters_by_owner(start)
    bonus_left = [v for v in state.planet_bonus if v is not None]
    bonus_held = [v for p in state.players for v in p.bonus]
    assert sorted(bonus_left + bonus_held) == sorted(v for v in start.planet_bonus if v is not None)
    assert tiles_in_game(state) == tiles_in_game(start)
    # the piles hold what the hub tracks: their heights add up, the tiles it knows are among them
    known = Counter(t for pile in state.piles for t in pile if t is not None)
    assert sum(len(pile) for pile in state.piles) == len(state.unseen)
    assert not known - Counter(state.unseen.items())
    for p in state.players:
        for b in p.buildings:
            assert len(b.contents) == len(b.spec.spots)
            for i, c in enumerate(b.contents):
                if isinstance(c, Cube) and b.type == "production":
                    assert b.spec.spots[i] == c.color
                if isinstance(c, Order):
                    assert c.owner == p.name and b.type != "trading"


def spots(state: GameState, name: str, kind: str | None = None) -> list[tuple[str, int]]:
    p = state.player(name)
    assert p is not None
    return [(b.id, i) for b in p.buildings if kind in (None, b.type) for i in range(len(b.contents))]


def draw_choice(rng: random.Random, state: GameState, name: str, timer: int) -> Any:
    """A plausible (not always legal) choice for lifting this timer."""
    p = state.player(name)
    assert p is not None
    t = p.timers[timer] if 0 <= timer < len(p.timers) else None
    symbol = t.symbol if t is not None else None
    roll = rng.randint(0, 9)
    if roll == 0:
        return None
    if roll == 1:
        return Upgrade()
    if symbol == SHIP:
        here = t.destination or p.ship  # type: ignore[union-attr]
        owner = state.owner_of(here)
        if owner is None:
            if state.variant == "intro" and roll < 8:
                return None
            return MoonTile(rng.random() < 0.5, draw_tile(rng, state, here))
        shown = [(o.color, o.value, (bid, i)) for bid, i, o in owner.placed_orders()]
        if roll < 8:  # mostly ask only for orders the beam stations can serve
            have = Counter(
                c.color for b in p.buildings if b.type == "beam" for c in b.contents if isinstance(c, Cube)
            )
            shown = [x for x in shown if have[x[0]] >= x[1]]
        picks = rng.sample(shown, rng.randint(0, min(2, len(shown))))
        own_pick = rng.random() < 0.5
        return Deliver(tuple(Delivery(c, v, space if own_pick else None) for c, v, space in picks))
    if symbol == RESEARCH:
        return Build(rng.choice([b.id for b in p.buildings]))
    b = p.building(symbol) if symbol else None
    if b is None or roll == 2:
        return rng.choice([Produce(), Beam(()), Trade(())])
    if b.type == "production":
        if rng.random() < 0.5:
            return Produce()
        return Produce(tuple(rng.randint(-1, 3) for _ in range(rng.randint(0, 3))))
    if b.type == "beam":
        cubes = [(pb.id, i) for pb in p.buildings for i, c in enumerate(pb.contents) if isinstance(c, Cube)]
        return Beam(tuple(rng.sample(cubes, rng.randint(0, min(3, len(cubes))))))
    above = list(p.above)
    if not above:
        return Trade(())
    places = [
        (rng.choice(above), rng.choice(spots(state, name))) for _ in range(rng.randint(0, b.spec.capacity))
    ]
    return Trade(tuple(OrderPlacement(o.color, o.value, bid, i) for o, (bid, i) in places))


def draw_tile(rng: random.Random, state: GameState, moon: str) -> str | None:
    """What a player reads off the top of a moon's pile: mostly a tile it can hold, sometimes nothing
    (the hub deck knows it), sometimes a tile it cannot hold (refused)."""
    roll = rng.randint(0, 9)
    possible = state.possible_tops(moon).items() if moon in state.moons else ()
    if roll < 6 and possible:
        return rng.choice(possible)
    if roll < 8:
        return None
    return rng.choice([t.id for t in state.tiles] or ["t01"])


def draw_sensible(rng: random.Random, state: GameState) -> Any:
    """An action that fits the chosen timer's situation (often legal, so games get deep)."""
    p = rng.choice(state.players)
    timer = rng.choice([0, 1])
    t = p.timers[timer]
    if t.symbol is None:
        beamed = any(isinstance(c, Cube) for b in p.buildings if b.type == "beam" for c in b.contents)
        ships = [SHIP] * (12 if beamed else 3)
        symbols = ships + [b.id for b in p.buildings] + ([RESEARCH] * 3 if p.research else [])
        symbol = rng.choice(symbols)
        destination = None
        if symbol == SHIP and rng.randint(0, 5):
            destination = rng.choice(state.neighbours(p.ship))
        return PlaceTimer(p.name, timer, symbol, destination)
    if t.running:
        return SandRanOut(p.name, timer)
    return LiftTimer(p.name, timer, draw_choice(rng, state, p.name, timer))


def draw_action(rng: random.Random, state: GameState) -> Any:
    names = [p.name for p in state.players]
    name = rng.choice(names + ["nobody"]) if rng.randint(0, 30) == 0 else rng.choice(names)
    timer = rng.choice([0, 1, 0, 1, 2])
    if state.phase == "setup":
        p = state.player(name)
        if state.variant == "intro" and p is not None and p.ocher is not None and rng.randint(0, 3):
            pool = [*state.ocher.items(), *([p.ocher.tile] if p.ocher.tile else [])]
            return TakeOcherTile(name, rng.choice(pool + ["t17"]))
        if state.variant == "full" and p is not None and not p.ready and rng.randint(0, 4):
            picks = [rng.choice(p.above) for _ in range(2)]
            where = [rng.choice(spots(state, name)) for _ in range(2)]
            return PlaceStartingOrders(
                name,
                tuple(OrderPlacement(o.color, o.value, b, i) for o, (b, i) in zip(picks, where, strict=True)),
            )
        return StartGame() if rng.randint(0, 3) else PlaceTimer(name, 0, "ship")
    kind = rng.randint(0, 299)
    if kind == 0:
        return MasterClockExpired()
    if kind < 240:
        return draw_sensible(rng, state)
    p = state.player(name)
    if p is None:
        return PlaceTimer(name, timer, SHIP)
    if kind < 255:
        symbols = [SHIP, RESEARCH, None, "nowhere", f"{names[0]}:{SHIP}"] + [b.id for b in p.buildings]
        symbol = rng.choice(symbols)
        destination = None
        if symbol == SHIP and rng.randint(0, 4):
            options = state.neighbours(p.ship) + [p.ship, "planet-1", "moon-1"]
            destination = rng.choice(options)
        return PlaceTimer(name, timer, symbol, destination)
    if kind < 265:
        return SandRanOut(name, timer)
    if kind < 285:
        return LiftTimer(name, timer, draw_choice(rng, state, name, timer))
    if kind < 292:
        return ParkTimer(name, timer)
    owner = rng.choice(names)
    lifts = tuple(LiftTimer(n, rng.choice([0, 1]), Deliver(())) for n in names if n != owner)
    return LiftTogether(owner, lifts[: rng.randint(1, 3)])


SETUPS = st.one_of(
    st.builds(lambda n: setup_intro(NAMES[:n], components=BOX), st.sampled_from([3, 4])),
    st.builds(lambda n: setup_intro(NAMES[:n], components=BOX, deck="table"), st.sampled_from([3, 4])),
    st.builds(
        lambda n, seed: setup_full(NAMES[:n], seed=seed, components=BOX),
        st.sampled_from([3, 4]),
        st.integers(0, 2**32),
    ),
    st.builds(lambda n: setup_full(NAMES[:n], components=BOX), st.sampled_from([3, 4])),  # a table deck
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=SETUPS, seed=st.integers(0, 2**32))
def test_random_play_keeps_every_invariant_and_replays_exactly(start: GameState, seed: int) -> None:
    rng = random.Random(seed)  # the action sequence is derived from the drawn seed
    state = start
    accepted = []
    steps = rng.randint(50, 500)
    for _ in range(steps):
        action = draw_action(rng, state)
        assert GAME.codec.decode(json.loads(json.dumps(GAME.codec.encode(action)))) == action
        result = apply(state, action)  # must never raise
        if isinstance(result, Rejected):
            assert result.reason and result.rule
            assert apply(state, action) == result  # deterministic
            continue
        assert isinstance(result, Accepted)
        accepted.append(action)
        for happened in result.events:
            event(type(happened).__name__)
        state = result.state
        check_invariants(state, start)
    assert replay(start, accepted) == state
    picture = json.loads(json.dumps(state_to_json(state)))
    assert (
        sum(picture["supply"].values())
        + sum(
            spot is not None and "cube" in spot
            for p in picture["players"].values()
            for b in p["buildings"]
            for spot in b["spots"]
        )
        == 48
    )
    scores = final_scores(state)
    assert set(scores["players"]) == {p.name for p in state.players}
    assert scores["winners"] and set(scores["winners"]) <= set(scores["ranking"])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**40), n=st.sampled_from([3, 4]))
def test_full_setup_piles_are_a_permutation_of_all_tiles(seed: int, n: int) -> None:
    state = setup_full(NAMES[:n], seed=seed, components=BOX)
    assert len(tiles_in_game(state)) == 24 == len(set(tiles_in_game(state)))
    assert len({len(p) for p in state.piles}) == 1
    assert setup_full(NAMES[:n], seed=seed, components=BOX) == state
